/* The generalized forces by kind (rod_state_generalized_forces) against their sum and against
 * what each kind must be independently of how the equations of motion assemble it:
 *  - on a model with every kind at work, they sum to M q_ddot (the equations of motion);
 *  - the loads are minus the gradient of the gravity potential, by central differences of
 *    V(q) = -sum_k w_k rho0 A0 g . r_k(q) over the model's stations;
 *  - the inertial bias of a Lagrangian rod, -(M_dot q_dot - dT/dq), has the power
 *    q_dot . Q_inertia = -(1/2) q_dot . M_dot q_dot, M_dot by central differences along q_dot
 *    (its gyroscopic part, ad*_eta M eta, does no work and is not seen by this);
 *  - the fluid's lift does no work (drag and lift across the velocity: lift alone, power 0);
 *  - a pinned tip's constraint force is J_tip^T applied to the reaction the FRAME reports. */
#include "dynamics.h"
#include "kinematics.h"
#include "model.h"
#include "state.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define K ROD_QFRC_COUNT

static void advance(const rod_model *m, rod_state *st, double t)
{
    cr_assert_eq(rod_dynamics_advance(m, st, t), ROD_OK, "advance to %g: %s", t, rod_state_error(st));
}

static double norm(const double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += v[i] * v[i];
    return sqrt(s);
}

static double dot(const double *a, const double *b, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

/* An extended rod in water and gravity against a wall, with a cable, a squeezing muscle, a tip
 * load, a tip body, a pose held by a multiplier and one by a penalty, moving. */
Test(qfrc, the_kinds_sum_to_the_mass_times_the_acceleration, .timeout = 60)
{
    rod_model *m = tu_model(
        "{\"model\": \"extended\", \"rod\": {\"length\": 0.4, \"radius\": {\"base\": 0.012, \"tip\": 0.006}, "
        "\"density\": 1100, \"youngs_modulus\": 3e4, \"poisson_ratio\": 0.45, \"shear_viscosity\": 30}, "
        "\"strains\": {\"bend1\": 3, \"bend2\": 3, \"twist\": 1, \"stretch\": 2}, "
        "\"inflation\": {\"pieces\": 2, \"boundary\": \"neumann\"}, "
        "\"environment\": {\"gravity\": [-9.81, 0, 0], \"fluid\": {\"density\": 1000, \"added_mass\": [0.5, 0.5], "
        "\"drag\": 1.0, \"lift\": 0.2}, \"obstacles\": [{\"name\": \"wall\", \"type\": \"plane\", "
        "\"point\": [-0.01, 0, 0], \"normal\": [1, 0, 0], \"stiffness\": 2000, \"damping\": 2}]}, "
        "\"loads\": [{\"name\": \"push\", \"type\": \"tip_force\", \"force\": [0, 0.01, 0]}], "
        "\"actuators\": [{\"name\": \"LM\", \"type\": \"cable\", \"route\": {\"offset\": [0, 0.6], "
        "\"relative_to_radius\": true}, \"tension\": 0.05}, {\"name\": \"TM\", \"type\": \"transverse\", "
        "\"pressure\": 200, \"span\": [0, 0.2]}], \"bodies\": [{\"name\": \"tip\", \"mass\": 0.005, "
        "\"inertia\": [1e-7, 1e-7, 1e-7]}], \"constraints\": [{\"name\": \"hold\", \"type\": \"pose\", "
        "\"s\": 0.2, \"components\": [\"rz\"]}, {\"name\": \"spring\", \"type\": \"pose\", \"components\": [\"z\"], "
        "\"position\": [0, 0, 0.39], \"method\": \"penalty\", \"stiffness\": 5, \"damping\": 0.1}]}");
    rod_state *st = tu_started(m);
    advance(m, st, 0.15);
    const int n = rod_model_ndof(m);
    double *out = calloc((size_t)K * n, sizeof *out), *total = calloc((size_t)n, sizeof *total);
    double *sum = calloc((size_t)n, sizeof *sum);
    cr_assert(out && total && sum);
    cr_assert_eq(rod_state_generalized_forces(m, st, out, total), ROD_OK, "%s", rod_state_error(st));
    double scale = 0;
    for (int k = 0; k < K; k++) {
        const double nk = norm(out + (size_t)k * n, n);
        cr_log_info("kind %-10s |Q| = %.4e", rod_qfrc_name(k), nk);
        cr_assert_gt(nk, 0, "every kind at work here: %s", rod_qfrc_name(k));
        scale = fmax(scale, nk);
        for (int i = 0; i < n; i++) sum[i] += out[(size_t)k * n + i];
    }
    double d[512];
    cr_assert_lt(n, 512);
    for (int i = 0; i < n; i++) d[i] = sum[i] - total[i];
    cr_log_info("the kinds sum to M q_ddot within %.2e of the largest kind (%.3e)", norm(d, n) / scale, scale);
    cr_assert_lt(norm(d, n), 1e-12 * scale * n);
    free(out);
    free(total);
    free(sum);
    rod_state_free(st);
    rod_model_free(m);
}

static const char *swinging(const char *fluid, const char *constraint)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
             "\"youngs_modulus\": 1e5, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": 3, \"bend2\": 3, "
             "\"twist\": 1, \"stretch\": 1}, \"environment\": {\"gravity\": [3, -2, -9.81]%s}%s}",
             fluid, constraint);
    return buf;
}

/* One kind at the state (the others discarded). */
static void kind_at(const rod_model *m, rod_state *st, int kind, double *Q)
{
    const int n = m->n;
    double *out = calloc((size_t)K * n, sizeof *out), *total = calloc((size_t)n, sizeof *total);
    cr_assert(out && total);
    cr_assert_eq(rod_state_generalized_forces(m, st, out, total), ROD_OK, "%s", rod_state_error(st));
    memcpy(Q, out + (size_t)kind * n, (size_t)n * sizeof *Q);
    free(out);
    free(total);
}

/* V(q) = -sum w_k rho0 A0 g . r_k over the stations, on the model's own kinematics */
static double gravity_potential(const rod_model *m, rod_state *st, const double *q)
{
    kin_forward(m, q, st->g, NULL);
    double v = 0;
    for (int k = 0; k < m->ns; k++)
        v -= m->w[k] * m->rho0 * m->sec[k].A0 * dot(m->grav, st->g[k].r, 3);
    return v;
}

Test(qfrc, the_loads_are_minus_the_gradient_of_the_gravity_potential, .timeout = 60)
{
    rod_model *m = tu_model(swinging("", ""));
    rod_state *st = tu_started(m);
    advance(m, st, 0.2);
    const int n = m->n;
    double Q[64], q[64], fd[64], d[64];
    cr_assert_lt(n, 64);
    kind_at(m, st, ROD_QFRC_LOAD, Q);
    memcpy(q, st->q, (size_t)n * sizeof *q);
    for (int j = 0; j < n; j++) {
        const double h = 1e-6 * fmax(1.0, fabs(q[j])), q0 = q[j];
        q[j] = q0 + h;
        const double vp = gravity_potential(m, st, q);
        q[j] = q0 - h;
        const double vm = gravity_potential(m, st, q);
        q[j] = q0;
        fd[j] = -(vp - vm) / (2 * h);
        d[j] = Q[j] - fd[j];
    }
    cr_log_info("loads vs -dV/dq: %.2e of |Q| = %.4e", norm(d, n) / norm(Q, n), norm(Q, n));
    /* central differences: h^2 times the third derivative, about 1e-12 relative, and the
     * potential's roundoff over h */
    cr_assert_lt(norm(d, n), 1e-7 * norm(Q, n));
    rod_state_free(st);
    rod_model_free(m);
}

/* M at (q, q_dot) from the factor dyn_accel leaves in st->Mxi (classic: no rho block). */
static void mass_matrix(const rod_model *m, rod_state *st, const double *q, const double *qd, double *M)
{
    const int n = m->n;
    double qdd[64];
    cr_assert_eq(dyn_accel(m, st, 0.0, q, qd, qdd), 0, "%s", rod_state_error(st));
    const double *L = st->Mxi;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k <= (i < j ? i : j); k++) s += L[i + (size_t)n * k] * L[j + (size_t)n * k];
            M[i + (size_t)n * j] = s;
        }
}

Test(qfrc, the_inertial_bias_has_the_power_of_the_mass_matrix_rate, .timeout = 60)
{
    rod_model *m = tu_model(swinging("", ""));
    rod_state *st = tu_started(m);
    advance(m, st, 0.2);
    const int n = m->n;
    cr_assert_eq(m->n_rho, 0);
    double Q[64], q[64], qd[64], Mp[64 * 64], Mm[64 * 64];
    kind_at(m, st, ROD_QFRC_INERTIA, Q);
    memcpy(q, st->q, (size_t)n * sizeof *q);
    memcpy(qd, st->qd, (size_t)n * sizeof *qd);
    /* q_dot . M_dot q_dot by central differences along q_dot at two steps: their difference is
     * the differences' own error (roundoff of M over the step), the tolerance */
    double pm[2];
    for (int c = 0; c < 2; c++) {
        const double eps = (c ? 2e-6 : 1e-6) / fmax(norm(qd, n), 1e-12);
        double qp[64], qm[64];
        for (int i = 0; i < n; i++) {
            qp[i] = q[i] + eps * qd[i];
            qm[i] = q[i] - eps * qd[i];
        }
        mass_matrix(m, st, qp, qd, Mp);
        mass_matrix(m, st, qm, qd, Mm);
        pm[c] = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                pm[c] += qd[i] * (Mp[i + (size_t)n * j] - Mm[i + (size_t)n * j]) / (2 * eps) * qd[j];
    }
    const double p = dot(qd, Q, n), tol = 2 * fabs(pm[0] - pm[1]) + 1e-12 * fabs(p);
    cr_log_info("inertial bias: power %.9e W vs -(1/2) q_dot M_dot q_dot = %.9e W (%.2e; the "
                "differences' own error %.2e)", p, -0.5 * pm[0], fabs(p + 0.5 * pm[0]) / fabs(p),
                fabs(pm[0] - pm[1]) / fabs(p));
    cr_assert_gt(fabs(p), 1e-6, "the bias works (%g W)", p);
    cr_assert_lt(fabs(p + 0.5 * pm[0]), tol);
    rod_state_free(st);
    rod_model_free(m);
}

Test(qfrc, lift_alone_does_no_work_and_drag_dissipates, .timeout = 60)
{
    const char *fl[2] = {", \"fluid\": {\"density\": 500, \"drag\": 0, \"lift\": 0.5}",
                         ", \"fluid\": {\"density\": 500, \"drag\": 1.0, \"lift\": 0}"};
    double pw[2], sc[2];
    for (int c = 0; c < 2; c++) {
        rod_model *m = tu_model(swinging(fl[c], ""));
        rod_state *st = tu_started(m);
        advance(m, st, 0.2);
        double Q[64];
        kind_at(m, st, ROD_QFRC_FLUID, Q);
        pw[c] = dot(st->qd, Q, m->n);
        sc[c] = norm(st->qd, m->n) * norm(Q, m->n);
        rod_state_free(st);
        rod_model_free(m);
    }
    cr_log_info("fluid power: lift alone %.2e W (|q_dot| |Q| %.3e), drag alone %.4e W", pw[0], sc[0], pw[1]);
    cr_assert_gt(sc[0], 0, "lift acts");
    cr_assert_lt(fabs(pw[0]), 1e-12 * sc[0]);
    cr_assert_lt(pw[1], -1e-3 * sc[1], "drag takes energy out");
}

Test(qfrc, a_pinned_tip_constraint_force_is_its_reaction_through_the_jacobian, .timeout = 60)
{
    rod_model *m = tu_model(swinging("", ", \"constraints\": [{\"name\": \"pin\", \"type\": \"pose\", "
                                         "\"components\": [\"x\", \"y\"]}]"));
    rod_state *st = tu_started(m);
    advance(m, st, 0.2);
    const int n = m->n, nx = m->n_xi;
    double Q[64], ref[64], d[64];
    kind_at(m, st, ROD_QFRC_CONSTRAINT, Q);
    rod_frame f = tu_frame(m, st, 2);
    const double *F = f.cons[0].force; /* world, on the tip */
    /* st->J, st->g at the state after rod_state_generalized_forces; the tip is the last station */
    const int k = m->ns - 1;
    const double *R = st->g[k].R, *Jk = st->J + (size_t)k * 6 * nx;
    double Fb[3];
    for (int a = 0; a < 3; a++) Fb[a] = R[3 * a] * F[0] + R[3 * a + 1] * F[1] + R[3 * a + 2] * F[2];
    for (int j = 0; j < n; j++) {
        ref[j] = Jk[6 * j + 3] * Fb[0] + Jk[6 * j + 4] * Fb[1] + Jk[6 * j + 5] * Fb[2];
        d[j] = Q[j] - ref[j];
    }
    cr_log_info("pinned tip: constraint force within %.2e of J^T R^T F (|F| = %.4e N)", norm(d, n) / norm(ref, n),
                norm(F, 3));
    cr_assert_gt(norm(F, 3), 1e-3);
    cr_assert_lt(norm(d, n), 1e-12 * norm(ref, n) * n);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}
