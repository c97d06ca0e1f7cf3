#include "kinematics.h"

#include <math.h>
#include <string.h>

static const double ZANNA_C = 0.28867513459481287;  /* sqrt(3)/6 */
static const double MAGNUS_C = 0.14433756729740643; /* sqrt(3)/12 */

void kin_zanna_omega(const double xi1[6], const double xi2[6], double h, double Omega[6])
{
    double c[6];
    lie_ad_apply(xi1, xi2, c);
    for (int i = 0; i < 6; i++) Omega[i] = 0.5 * h * (xi1[i] + xi2[i]) + MAGNUS_C * h * h * c[i];
}

/* A 6x6 matrix of the form [[A, 0], [B, A]] (3x3 blocks, column-major): ad, Ad, T and their
 * products all have it. */
typedef struct {
    double A[9], B[9];
} blk6;

static void blk_apply(const blk6 *M, const double x[6], double y[6])
{
    for (int i = 0; i < 3; i++) {
        const double a = M->A[i] * x[0] + M->A[i + 3] * x[1] + M->A[i + 6] * x[2];
        y[i + 3] = M->B[i] * x[0] + M->B[i + 3] * x[1] + M->B[i + 6] * x[2] + M->A[i] * x[3] +
                   M->A[i + 3] * x[4] + M->A[i + 6] * x[5];
        y[i] = a;
    }
}

/* P <- P v~ row by row: a row p^T times the skew matrix of v is (p x v)^T. */
static void times_skew(const double P[9], const double v[3], double out[9])
{
    for (int i = 0; i < 3; i++) {
        const double p0 = P[i], p1 = P[i + 3], p2 = P[i + 6];
        out[i] = p1 * v[2] - p2 * v[1];
        out[i + 3] = p2 * v[0] - p0 * v[2];
        out[i + 6] = p0 * v[1] - p1 * v[0];
    }
}

/* T_Omega = sum_k c_k ad_Omega^k as blocks, by Horner: W <- c_k I + W ad_Omega, where
 * [[P, 0], [Q, P]] [[k~, 0], [n~, k~]] = [[P k~, 0], [Q k~ + P n~, P k~]]. Once per step
 * instead of four ad's per application. */
static void dexp_blocks(const lie_tangent *tc, blk6 *T)
{
    const double *k = tc->Omega, *n = tc->Omega + 3, *c = tc->c;
    double P[9] = {0}, Q[9] = {0}, Pk[9], Qk[9], Pn[9];
    P[0] = P[4] = P[8] = c[4];
    for (int j = 3; j >= 0; j--) {
        times_skew(P, k, Pk);
        times_skew(Q, k, Qk);
        times_skew(P, n, Pn);
        for (int i = 0; i < 9; i++) {
            P[i] = Pk[i];
            Q[i] = Qk[i] + Pn[i];
        }
        P[0] += c[j];
        P[4] += c[j];
        P[8] += c[j];
    }
    memcpy(T->A, P, sizeof P);
    memcpy(T->B, Q, sizeof Q);
}

/* G = Ad_g T = [[R A, 0], [r~ R A + R B, R A]] */
static void Ad_blocks(const lie_pose *g, const blk6 *T, blk6 *G)
{
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            double a = 0, b = 0;
            for (int l = 0; l < 3; l++) {
                a += g->R[i + 3 * l] * T->A[l + 3 * j];
                b += g->R[i + 3 * l] * T->B[l + 3 * j];
            }
            G->A[i + 3 * j] = a;
            G->B[i + 3 * j] = b;
        }
    const double *r = g->r;
    for (int j = 0; j < 3; j++) {
        const double *a = G->A + 3 * j;
        double *b = G->B + 3 * j;
        b[0] += r[1] * a[2] - r[2] * a[1];
        b[1] += r[2] * a[0] - r[0] * a[2];
        b[2] += r[0] * a[1] - r[1] * a[0];
    }
}

/* The Jacobian is carried in the base frame along each station interval, J_s = Ad_g J, and
 * brought back to the body frame only at the stations. In the body frame one Zanna step is
 * J <- Ad^{-1}_{exp Omega} (J + T_Omega Phi_Omega) (Eq. 46), which costs an Ad^{-1} of every
 * column per step; in the base frame it is J_s <- J_s + Ad_g T_Omega Phi_Omega (g: the pose
 * before the step), a sum. Phi_Omega = dOmega/dq = h/2 (Phi1 + Phi2) + sqrt(3) h^2/12
 * (ad_xi1 Phi2 - ad_xi2 Phi1), and a column of Phi_xi is one component c times a scalar, so
 * Ad_g T Phi_Omega's column is a combination of three vectors per component, Ad_g T e_c,
 * Ad_g T ad_xi1 e_c and Ad_g T ad_xi2 e_c, formed once per step. a1, a2: the Phi_xi column
 * values at the two Zanna points. */
static void step_Js(const rod_model *m, const double *a1, const double *a2, double h,
                    const double xi1[6], const double xi2[6], const blk6 *T, const lie_pose *g,
                    double *Js)
{
    double w0[6][6], w1[6][6], w2[6][6];
    blk6 G;
    Ad_blocks(g, T, &G);
    for (int c = 0; c < 6; c++) {
        if (!m->comp_used[c]) continue;
        double ec[6] = {0}, v[6];
        ec[c] = 1.0;
        blk_apply(&G, ec, w0[c]);
        lie_ad_apply(xi1, ec, v);
        blk_apply(&G, v, w1[c]);
        lie_ad_apply(xi2, ec, v);
        blk_apply(&G, v, w2[c]);
    }
    const double cm = MAGNUS_C * h * h;
    for (int j = 0; j < m->n_xi; j++) {
        const int c = m->cols[j].comp;
        const double b0 = 0.5 * h * (a1[j] + a2[j]), b1 = cm * a2[j], b2 = -cm * a1[j];
        double *Jj = Js + 6 * j;
        for (int i = 0; i < 6; i++) Jj[i] += b0 * w0[c][i] + b1 * w1[c][i] + b2 * w2[c][i];
    }
}

/* J = Ad_g^{-1} J_s, column by column */
static void body_from_base(const rod_model *m, const lie_pose *g, const double *Js, double *J)
{
    for (int j = 0; j < m->n_xi; j++) lie_Ad_inv_apply(g, Js + 6 * j, J + 6 * j);
}

/* One Zanna step of length h: g <- g exp(Omega), and the base-frame Jacobian when Js is not
 * NULL. */
static void zanna_step(const rod_model *m, const double *q, const double *a1, const double *a2,
                       double h, lie_pose *g, double *Js)
{
    double xi1[6], xi2[6], Omega[6];
    model_xi(m, a1, q, xi1);
    model_xi(m, a2, q, xi2);
    kin_zanna_omega(xi1, xi2, h, Omega);
    lie_tangent tc;
    lie_tangent_init(Omega, &tc);
    if (Js) {
        blk6 T;
        dexp_blocks(&tc, &T);
        step_Js(m, a1, a2, h, xi1, xi2, &T, g, Js);
    }
    lie_pose e;
    lie_exp_tc(&tc, &e);
    lie_pose_mul(g, &e, g);
}

/* sub Zanna steps per station interval with the Phi_xi values of legz (ns x sub x 2 x n_xi) */
static void forward_steps(const rod_model *m, const double *q, int sub, const double *legz,
                          lie_pose *g, double *J)
{
    const int nx = m->n_xi;
    const size_t jsz = (size_t)6 * nx;
    double Js[6 * MODEL_MAX_XI];
    lie_pose_identity(&g[0]);
    if (J) {
        memset(J, 0, jsz * sizeof *J);
        memset(Js, 0, jsz * sizeof *Js);
    }
    for (int k = 1; k < m->ns; k++) {
        const double h = (m->s[k] - m->s[k - 1]) / sub;
        g[k] = g[k - 1];
        for (int j = 0; j < sub; j++) {
            const double *a1 = legz + ((size_t)k * sub + j) * 2 * nx;
            zanna_step(m, q, a1, a1 + nx, h, &g[k], J ? Js : NULL);
        }
        if (J) body_from_base(m, &g[k], Js, J + (size_t)k * jsz);
    }
}

void kin_forward(const rod_model *m, const double *q, lie_pose *g, double *J)
{
    forward_steps(m, q, m->substeps, m->leg_z, g, J);
}

void kin_forward_coarse(const rod_model *m, const double *q, lie_pose *g, double *J)
{
    forward_steps(m, q, 1, m->leg_z1, g, J);
}

/* The strains, their rates, Omega and Omega_dot of one Zanna step: Omega_dot = h/2 (xd1 + xd2)
 * + sqrt(3) h^2/12 (ad_xi1 xd2 + ad_xd1 xi2). */
static void step_rates(const rod_model *m, const double *q, const double *qd, const double *a1,
                       const double *a2, double h, double xi1[6], double xi2[6], double xd1[6],
                       double xd2[6], double Omega[6], double Od[6])
{
    double c1[6], c2[6];
    model_xi(m, a1, q, xi1);
    model_xi(m, a2, q, xi2);
    /* xi_dot = Phi_xi q_dot (no reference part) at both points in one pass, component by
     * component over the grouped columns (independent sums, no chain of stores) */
    for (int k = 0; k < 6; k++) {
        double x1 = 0.0, x2 = 0.0;
        for (int j = m->comp_first[k]; j < m->comp_first[k + 1]; j++) {
            x1 += a1[j] * qd[j];
            x2 += a2[j] * qd[j];
        }
        xd1[k] = x1;
        xd2[k] = x2;
    }
    kin_zanna_omega(xi1, xi2, h, Omega);
    lie_ad_apply(xi1, xd2, c1);
    lie_ad_apply(xd1, xi2, c2);
    const double cm = MAGNUS_C * h * h;
    for (int i = 0; i < 6; i++) Od[i] = 0.5 * h * (xd1[i] + xd2[i]) + cm * (c1[i] + c2[i]);
}

void kin_forward_vel(const rod_model *m, const double *q, const double *qd, lie_pose *g, double *J,
                     double *eta, double *bias)
{
    const int nx = m->n_xi, sub = m->substeps;
    const size_t jsz = (size_t)6 * nx;
    double Js[6 * MODEL_MAX_XI];
    lie_pose_identity(&g[0]);
    memset(J, 0, jsz * sizeof *J);
    memset(Js, 0, jsz * sizeof *Js);
    memset(eta, 0, 6 * sizeof *eta);
    memset(bias, 0, 6 * sizeof *bias);
    for (int k = 1; k < m->ns; k++) {
        const double h = (m->s[k] - m->s[k - 1]) / sub;
        const double cm = MAGNUS_C * h * h;
        g[k] = g[k - 1];
        double *ek = eta + 6 * k, *bk = bias + 6 * k;
        memcpy(ek, ek - 6, 6 * sizeof *eta);
        memcpy(bk, bk - 6, 6 * sizeof *bias);
        for (int j = 0; j < sub; j++) {
            const double *a1 = m->leg_z + ((size_t)k * sub + j) * 2 * nx, *a2 = a1 + nx;
            double xi1[6], xi2[6], xd1[6], xd2[6], Omega[6], Od[6];
            step_rates(m, q, qd, a1, a2, h, xi1, xi2, xd1, xd2, Omega, Od);
            lie_tangent tc;
            lie_tangent_init(Omega, &tc);
            /* Phi_Omega_dot q_dot = sqrt(3) h^2/12 (ad_xd1 xd2 - ad_xd2 xd1) = sqrt(3) h^2/6 ad_xd1 xd2 */
            double Pd[6], TOd[6], TPd[6], TdOd[6], adeT[6], e_new[6], b_new[6];
            lie_ad_apply(xd1, xd2, Pd);
            for (int i = 0; i < 6; i++) Pd[i] *= 2.0 * cm;
            blk6 T;
            dexp_blocks(&tc, &T);
            blk_apply(&T, Od, TOd);
            blk_apply(&T, Pd, TPd);
            lie_dexp_dot_apply_tc(&tc, Od, TdOd);
            lie_ad_apply(ek, TOd, adeT);
            for (int i = 0; i < 6; i++) {
                e_new[i] = ek[i] + TOd[i];
                b_new[i] = bk[i] + adeT[i] + TdOd[i] + TPd[i];
            }
            step_Js(m, a1, a2, h, xi1, xi2, &T, &g[k], Js);
            lie_pose e;
            lie_exp_tc(&tc, &e);
            lie_Ad_inv_apply(&e, e_new, ek);
            lie_Ad_inv_apply(&e, b_new, bk);
            lie_pose_mul(&g[k], &e, &g[k]);
        }
        body_from_base(m, &g[k], Js, J + (size_t)k * jsz);
    }
}

void kin_forward_twist(const rod_model *m, const double *q, const double *qd, lie_pose *g,
                       double *eta)
{
    const int nx = m->n_xi, sub = m->substeps;
    lie_pose_identity(&g[0]);
    memset(eta, 0, 6 * sizeof *eta);
    for (int k = 1; k < m->ns; k++) {
        const double h = (m->s[k] - m->s[k - 1]) / sub;
        g[k] = g[k - 1];
        double *ek = eta + 6 * k;
        memcpy(ek, ek - 6, 6 * sizeof *eta);
        for (int j = 0; j < sub; j++) {
            const double *a1 = m->leg_z + ((size_t)k * sub + j) * 2 * nx, *a2 = a1 + nx;
            double xi1[6], xi2[6], xd1[6], xd2[6], Omega[6], Od[6], TOd[6];
            step_rates(m, q, qd, a1, a2, h, xi1, xi2, xd1, xd2, Omega, Od);
            lie_tangent tc;
            lie_tangent_init(Omega, &tc);
            lie_dexp_apply_tc(&tc, Od, TOd);
            for (int i = 0; i < 6; i++) TOd[i] += ek[i];
            lie_pose e;
            lie_exp_tc(&tc, &e);
            lie_Ad_inv_apply(&e, TOd, ek);
            lie_pose_mul(&g[k], &e, &g[k]);
        }
    }
}

void kin_poses_at(const rod_model *m, const double *q, const double *s, int n, lie_pose *g)
{
    double a1[MODEL_MAX_XI], a2[MODEL_MAX_XI];
    lie_pose_identity(&g[0]);
    for (int k = 1; k < n; k++) {
        g[k] = g[k - 1];
        const double gap = s[k] - s[k - 1];
        if (gap <= 0) continue;
        const int sub = (int)ceil(gap / m->h_kin * (1 - 1e-12));
        const double h = gap / (sub > 0 ? sub : 1);
        for (int j = 0; j < (sub > 0 ? sub : 1); j++) {
            const double s0 = s[k - 1] + j * h;
            model_eval_xi_columns(m, s0 + (0.5 - ZANNA_C) * h, a1);
            model_eval_xi_columns(m, s0 + (0.5 + ZANNA_C) * h, a2);
            zanna_step(m, q, a1, a2, h, &g[k], NULL);
        }
    }
}
