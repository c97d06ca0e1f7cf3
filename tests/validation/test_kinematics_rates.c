/* kin_forward_vel's Jacobian, twist and bias against finite differences of the poses it
 * computes, for both Magnus rules: J's column j is the body-frame twist (g^-1 dg/dq_j)^v,
 * eta = J q_dot and bias = J_dot q_dot = d/dt (J(q + t q_dot)) q_dot. The recursion's own
 * discretization is the same on both sides, so they must agree to the differences' error
 * (central, step 1e-5: ~1e-10 relative, far above rounding ~1e-16 / 1e-5). */
#include "kinematics.h"
#include "model.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *CLASSIC =
    "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
    "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": 2, \"bend2\": 3, "
    "\"twist\": 1, \"shear1\": 1, \"stretch\": 1}}";

/* (g^-1 (ga - gb) / d)^v: the body twist of a difference of poses */
static void body_twist(const lie_pose *g, const lie_pose *ga, const lie_pose *gb, double d, double w[6])
{
    double dR[9], dr[3], A[9];
    for (int i = 0; i < 9; i++) dR[i] = (ga->R[i] - gb->R[i]) / d;
    for (int i = 0; i < 3; i++) dr[i] = (ga->r[i] - gb->r[i]) / d;
    /* A = R^T dR, skew to first order */
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            double s = 0;
            for (int l = 0; l < 3; l++) s += g->R[l + 3 * i] * dR[l + 3 * j];
            A[i + 3 * j] = s;
        }
    w[0] = A[2 + 3 * 1];
    w[1] = A[0 + 3 * 2];
    w[2] = A[1 + 3 * 0];
    for (int i = 0; i < 3; i++) w[3 + i] = g->R[3 * i] * dr[0] + g->R[1 + 3 * i] * dr[1] + g->R[2 + 3 * i] * dr[2];
}

static void check(const char *spec, int order)
{
    char ord[64];
    snprintf(ord, sizeof ord, "discretization.magnus_order=%d", order);
    const char *sets[] = {ord};
    rod_model *m = tu_model_set(spec, sets, 1);
    cr_assert_eq(m->mag->order, order);
    const int n = m->n, nx = m->n_xi, ns = m->ns;
    const size_t jsz = (size_t)6 * nx;
    double *q = calloc((size_t)n, sizeof *q), *qd = calloc((size_t)n, sizeof *qd), *qp = calloc((size_t)n, sizeof *qp);
    double *J = calloc(ns * jsz, sizeof *J), *Jp = calloc(ns * jsz, sizeof *Jp), *Jm = calloc(ns * jsz, sizeof *Jm);
    double *eta = calloc((size_t)ns * 6, sizeof *eta), *bias = calloc((size_t)ns * 6, sizeof *bias);
    double *scratch = calloc((size_t)ns * 6, sizeof *scratch);
    lie_pose *g = calloc((size_t)ns, sizeof *g), *gp = calloc((size_t)ns, sizeof *gp), *gm = calloc((size_t)ns, sizeof *gm);
    /* a strongly bent, twisted, sheared and stretched state, moving in every coordinate */
    for (int j = 0; j < n; j++) {
        q[j] = (j % 2 ? -3.0 : 5.0) / (1.0 + j) * (j >= nx ? 0.05 : 1.0);
        qd[j] = cos(1.7 * j) * (j >= nx ? 0.1 : 2.0);
    }
    kin_forward_vel(m, q, qd, g, J, eta, bias);
    const double d = 1e-5;
    double ej = 0, ee = 0, eb = 0, sj = 0, se = 0, sb = 0;
    for (int j = 0; j < nx; j++) {
        memcpy(qp, q, (size_t)n * sizeof *qp);
        qp[j] = q[j] + d;
        kin_forward(m, qp, gp, NULL);
        qp[j] = q[j] - d;
        kin_forward(m, qp, gm, NULL);
        for (int k = 0; k < ns; k++) {
            double w[6];
            body_twist(&g[k], &gp[k], &gm[k], 2 * d, w);
            for (int i = 0; i < 6; i++) {
                ej = fmax(ej, fabs(J[k * jsz + 6 * j + i] - w[i]));
                sj = fmax(sj, fabs(w[i]));
            }
        }
    }
    /* bias: J along the line q + t q_dot, differenced in t */
    for (int j = 0; j < n; j++) qp[j] = q[j] + d * qd[j];
    kin_forward_vel(m, qp, qd, gp, Jp, scratch, scratch);
    for (int j = 0; j < n; j++) qp[j] = q[j] - d * qd[j];
    kin_forward_vel(m, qp, qd, gm, Jm, scratch, scratch);
    for (int k = 0; k < ns; k++)
        for (int i = 0; i < 6; i++) {
            double v = 0, b = 0;
            for (int j = 0; j < nx; j++) {
                v += J[k * jsz + 6 * j + i] * qd[j];
                b += (Jp[k * jsz + 6 * j + i] - Jm[k * jsz + 6 * j + i]) / (2 * d) * qd[j];
            }
            ee = fmax(ee, fabs(eta[6 * k + i] - v));
            eb = fmax(eb, fabs(bias[6 * k + i] - b));
            se = fmax(se, fabs(v));
            sb = fmax(sb, fabs(b));
        }
    cr_log_info("order %d: J %.2e of %.2e, eta %.2e of %.2e, bias %.2e of %.2e", order, ej, sj, ee, se, eb, sb);
    cr_assert_lt(ej, 1e-8 * sj, "J differs from the poses' differences by %.3e (scale %.3e)", ej, sj);
    cr_assert_lt(ee, 1e-13 * se, "eta differs from J q_dot by %.3e (scale %.3e)", ee, se);
    cr_assert_lt(eb, 1e-8 * sb, "bias differs from J_dot q_dot by %.3e (scale %.3e)", eb, sb);
    free(q);
    free(qd);
    free(qp);
    free(J);
    free(Jp);
    free(Jm);
    free(eta);
    free(bias);
    free(scratch);
    free(g);
    free(gp);
    free(gm);
    rod_model_free(m);
}

Test(kinematics_rates, zanna_jacobian_twist_and_bias) { check(CLASSIC, 4); }
Test(kinematics_rates, sixth_order_jacobian_twist_and_bias) { check(CLASSIC, 6); }
