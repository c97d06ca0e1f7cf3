#include "kinematics.h"

#include "lie_plane.h"
#include "magnus_blocks.h"
#include "vec3.h"
#include "state.h"
#include "vector_clones.h"

#include <math.h>
#include <string.h>

static const double MAGNUS_C = 0.14433756729740643; /* sqrt(3)/12 */

void kin_zanna_omega(const double xi1[6], const double xi2[6], double h, double Omega[6])
{
    double c[6];
    lie_ad_apply(xi1, xi2, c);
    for (int i = 0; i < 6; i++) Omega[i] = 0.5 * h * (xi1[i] + xi2[i]) + MAGNUS_C * h * h * c[i];
}

/* xi*'s share of a step's alphas: its rows star (model_step_star, npts x 6), or, for the
 * straight rod (star NULL), h in alpha_1's stretch (both rules weigh the points of alpha_1 to
 * a sum of one and those of the others to zero, so a constant xi* enters alpha_1 alone). */
static void add_star(const rod_model *m, const double *star, double h, double a[][6])
{
    if (!star) {
        a[0][5] += h;
        return;
    }
    for (int i = 0; i < m->mag->npts; i++)
        for (int k = 0; k < 6; k++) a[i][k] += star[6 * i + k];
}

/* The alphas of one step from its beta rows (model_step_beta): alpha_i = sum_j beta_ij q_j
 * e_comp(j), plus xi*'s share (add_star). */
static void step_alphas(const rod_model *m, const double *beta, const double *star, double h,
                        const double *q, double a[][6])
{
    const int nx = m->n_xi;
    const double *b0 = beta, *b1 = beta + nx, *b2 = beta + 2 * nx;
    const int three = m->mag->npts == 3;
    for (int k = 0; k < 6; k++) {
        double x0 = 0, x1 = 0, x2 = 0;
        for (int j = m->comp_first[k]; j < m->comp_first[k + 1]; j++) {
            x0 += b0[j] * q[j];
            x1 += b1[j] * q[j];
            if (three) x2 += b2[j] * q[j];
        }
        a[0][k] = x0;
        a[1][k] = x1;
        if (three) a[2][k] = x2;
    }
    add_star(m, star, h, a);
}

/* The alphas and their time derivatives along q_dot (xi* is constant) in one pass over the
 * beta rows. */
VECTOR_CLONES
static void step_alphas_rates(const rod_model *m, const double *beta, const double *star, double h,
                              const double *q, const double *qd, double a[][6], double ad[][6])
{
    const int nx = m->n_xi;
    const double *b0 = beta, *b1 = beta + nx, *b2 = beta + 2 * nx;
    const int three = m->mag->npts == 3;
    for (int k = 0; k < 6; k++) {
        double x0 = 0, x1 = 0, x2 = 0, v0 = 0, v1 = 0, v2 = 0;
        for (int j = m->comp_first[k]; j < m->comp_first[k + 1]; j++) {
            x0 += b0[j] * q[j];
            v0 += b0[j] * qd[j];
            x1 += b1[j] * q[j];
            v1 += b1[j] * qd[j];
            if (three) {
                x2 += b2[j] * q[j];
                v2 += b2[j] * qd[j];
            }
        }
        a[0][k] = x0;
        a[1][k] = x1;
        ad[0][k] = v0;
        ad[1][k] = v1;
        if (three) {
            a[2][k] = x2;
            ad[2][k] = v2;
        }
    }
    add_star(m, star, h, a);
}

/* The Jacobian is carried in the base frame along each station interval, J_s = Ad_g J, and
 * brought back to the body frame only at the stations. In the body frame one step is
 * J <- Ad^{-1}_{exp Omega} (J + T_Omega Phi_Omega) (Eq. 46), which costs an Ad^{-1} of every
 * column per step; in the base frame it is J_s <- J_s + Ad_g T_Omega Phi_Omega (g: the pose
 * before the step), a sum. Column j of Phi_Omega = dOmega/dq is sum_i beta_ij dOmega/dalpha_i
 * [e_c] (c: its component), so Ad_g T Phi_Omega's column is a combination of npts vectors per
 * component, Ad_g T dOmega/dalpha_i [e_c], formed once per step. */
VECTOR_CLONES
static void step_Js(const rod_model *m, const double *beta, const magnus_step *ms, const blk6 *T,
                    const lie_pose *g, double *Js)
{
    const int np = ms->rule->npts, nx = m->n_xi;
    double w[6][MAGNUS_MAX_POINTS][6];
    blk6 G;
    blk6_Ad(g, T, &G);
    blk6 W[MAGNUS_MAX_POINTS];
    blk6_slots(&G, ms, W);
    /* column c of [[A, 0], [B, A]]: [A e_c; B e_c] for c < 3, [0; A e_(c-3)] after */
    for (int c = 0; c < 6; c++) {
        if (!m->comp_used[c]) continue;
        for (int i = 0; i < np; i++) {
            const double *A = W[i].A + 3 * (c % 3), *B = W[i].B + 3 * (c % 3);
            for (int r = 0; r < 3; r++) {
                w[c][i][r] = c < 3 ? A[r] : 0.0;
                w[c][i][r + 3] = c < 3 ? B[r] : A[r];
            }
        }
    }
    /* the strain columns (a free base's come after them, zero here) */
    for (int j = 0; j < m->comp_first[6]; j++) {
        const double(*wc)[6] = w[m->cols[j].comp];
        double *Jj = Js + 6 * j;
        if (np == 2) {
            const double b0 = beta[j], b1 = beta[nx + j];
            for (int i = 0; i < 6; i++) Jj[i] += b0 * wc[0][i] + b1 * wc[1][i];
        } else {
            const double b0 = beta[j], b1 = beta[nx + j], b2 = beta[2 * nx + j];
            for (int i = 0; i < 6; i++) Jj[i] += b0 * wc[0][i] + b1 * wc[1][i] + b2 * wc[2][i];
        }
    }
}

/* Station k's J from the running base-frame J_s: converted now, or, at a deferred station (d
 * not NULL), J_s kept with its pose for state_J. A free base's columns of J_s are zero; its
 * base_free_apply writes them in the body frame at every station. */
static void station_J(const rod_model *m, const kin_defer *d, int k, const lie_pose *g,
                      const double *Js, double *J)
{
    double *Jk = J + (size_t)k * 6 * m->n_xi;
    if (d && m->J_deferred[k]) {
        memcpy(Jk, Js, (size_t)6 * m->comp_first[6] * sizeof *Js);
        d->pose[k] = *g;
        d->pending[k] = 1;
        return;
    }
    if (d) d->pending[k] = 0;
    lie_Ad_inv_columns(g, m->n_xi, Js, Jk);
}

kin_defer kin_defer_of(const rod_model *m, rod_state *st)
{
    kin_defer d = {st->J_pending, st->J_pose};
    return m->J_deferred && st->J_pending ? d : (kin_defer){NULL, NULL};
}

/* One Magnus step of length h with the beta rows beta: g <- g exp(Omega), and the base-frame
 * Jacobian when Js is not NULL. */
static void pose_step(const rod_model *m, const double *q, const double *beta, const double *star,
                      double h, lie_pose *g, double *Js)
{
    magnus_step ms = {.rule = m->mag};
    double Omega[6];
    step_alphas(m, beta, star, h, q, ms.a);
    magnus_eval(&ms, Omega);
    lie_tangent tc;
    lie_tangent_init(Omega, &tc);
    if (Js) {
        blk6 T;
        blk6_dexp(&tc, &T);
        step_Js(m, beta, &ms, &T, g, Js);
    }
    lie_pose e;
    lie_exp_tc(&tc, &e);
    lie_pose_mul(g, &e, g);
}

/* The rest strain's rows of step j of station interval k (sub steps each), or NULL. */
static const double *star_of(const rod_model *m, const double *stars, int sub, int k, int j)
{
    return stars ? stars + ((size_t)k * sub + j) * m->mag->npts * 6 : NULL;
}

/* the planar rod's recursions (below) */
typedef struct {
    int sub;
    const double *betas, *stars;
} planar_steps;
static void planar_forward(const rod_model *m, const planar_steps *ps, const double *q, const double *qd,
                           lie_pose *g, double *J, const kin_defer *d, double *eta, double *bias);

/* sub steps per station interval with the beta rows betas (ns x sub x npts x n_xi) and the
 * rest strain's stars (ns x sub x npts x 6, NULL for the straight rod) */
static void forward_steps(const rod_model *m, const double *q, int sub, const double *betas,
                          const double *stars, lie_pose *g, double *J, const kin_defer *d)
{
    if (m->planar) {
        const planar_steps ps = {sub, betas, stars};
        planar_forward(m, &ps, q, NULL, g, J, d, NULL, NULL);
        return;
    }
    const int nx = m->n_xi;
    const size_t jsz = (size_t)6 * nx, bsz = (size_t)m->mag->npts * nx;
    double Js[6 * MODEL_MAX_XI];
    lie_pose_identity(&g[0]);
    if (J) {
        memset(J, 0, jsz * sizeof *J);
        memset(Js, 0, jsz * sizeof *Js);
    }
    for (int k = 1; k < m->ns; k++) {
        const double h = (m->s[k] - m->s[k - 1]) / sub;
        g[k] = g[k - 1];
        for (int j = 0; j < sub; j++)
            pose_step(m, q, betas + ((size_t)k * sub + j) * bsz, star_of(m, stars, sub, k, j), h,
                      &g[k], J ? Js : NULL);
        if (J) station_J(m, d, k, &g[k], Js, J);
    }
    if (J && d) d->pending[0] = 0;
}

void kin_forward(const rod_model *m, const double *q, lie_pose *g, double *J)
{
    forward_steps(m, q, m->substeps, m->kin_beta, m->kin_star, g, J, NULL);
}

void kin_forward_coarse(const rod_model *m, const double *q, lie_pose *g, double *J)
{
    forward_steps(m, q, 1, m->kin_beta1, m->kin_star1, g, J, NULL);
}

void kin_forward_state(const rod_model *m, rod_state *st, const double *q, int coarse)
{
    const kin_defer d = kin_defer_of(m, st);
    forward_steps(m, q, coarse ? 1 : m->substeps, coarse ? m->kin_beta1 : m->kin_beta,
                  coarse ? m->kin_star1 : m->kin_star, st->g, st->J, d.pending ? &d : NULL);
    st->J_stale = 0;
}

/* The recursions run over blocks of STEP_BLOCK steps: first each step's own part, stage by
 * stage across the block (alphas, Omega and its rates, their coefficients, T, exp), then the
 * chain through the poses, twists and Jacobians; likewise the frame's steps (kin_step_exps).
 * The same operations in the same order as step by step, so the same results bit for bit, but
 * a stage's calls on different steps do not wait for each other and the processor overlaps
 * them, and what one stage stores the next reads after the stores have landed (read straight
 * back, small arrays stalled the store-to-load forwarding; the chain's running pose, twist
 * and bias likewise stay local and are stored at the stations): the cantilever bench 8.7 ->
 * 7.0 ms CPU in-process. */
enum { STEP_BLOCK = 8 };

/* What one step of the velocity recursion needs that does not depend on the steps before it:
 * its Omega's exponential, T_Omega and the twist's and bias's increments. */
typedef struct {
    magnus_step ms;
    lie_tangent tc;
    blk6 T;
    lie_pose e;
    double Omega[6], Od[6], Pd[6], TOd[6], TPd[6], TdOd[6]; /* Od = Omega_dot, Pd = Phi_Omega_dot q_dot */
} vel_step;

/* The Magnus points' alphas and their rates of steps t0 .. t0 + nb - 1, the first stage of
 * the velocity's and the twist's blocks. */
VECTOR_CLONES
static void block_alphas(const rod_model *m, const double *q, const double *qd, int t0, int nb, vel_step *v,
                         double ad[STEP_BLOCK][MAGNUS_MAX_POINTS][6])
{
    const int sub = m->substeps;
    const size_t bsz = (size_t)m->mag->npts * m->n_xi;
    for (int b = 0; b < nb; b++) {
        const int k = 1 + (t0 + b) / sub, j = (t0 + b) % sub;
        v[b].ms.rule = m->mag;
        step_alphas_rates(m, m->kin_beta + ((size_t)k * sub + j) * bsz, star_of(m, m->kin_star, sub, k, j),
                          (m->s[k] - m->s[k - 1]) / sub, q, qd, v[b].ms.a, ad[b]);
    }
}

/* The local parts of nb steps, stage by stage across the steps (each stage's calls on
 * different steps are independent: the processor overlaps them). */
static void vel_steps_local(const rod_model *m, const double *q, const double *qd, int t0, int nb,
                            vel_step *v)
{
    double ad[STEP_BLOCK][MAGNUS_MAX_POINTS][6];
    block_alphas(m, q, qd, t0, nb, v, ad);
    /* Omega, its rate Omega_dot = dOmega/dalpha . alpha_dot and Phi_Omega_dot q_dot, Omega's
     * second derivative along q_dot with q_ddot = 0 (the alphas stored a stage before they are
     * read: read straight after, they stalled the store-to-load forwarding) */
    for (int b = 0; b < nb; b++) {
        magnus_tangent t;
        magnus_eval(&v[b].ms, v[b].Omega);
        magnus_dir(&v[b].ms, (const double(*)[6])ad[b], v[b].Od, &t);
        magnus_second(&v[b].ms, (const double(*)[6])ad[b], &t, v[b].Pd);
    }
    for (int b = 0; b < nb; b++) lie_tangent_init(v[b].Omega, &v[b].tc);
    for (int b = 0; b < nb; b++) {
        blk6_dexp(&v[b].tc, &v[b].T);
        blk6_apply(&v[b].T, v[b].Od, v[b].TOd);
        blk6_apply(&v[b].T, v[b].Pd, v[b].TPd);
    }
    for (int b = 0; b < nb; b++) lie_dexp_dot_apply_tc(&v[b].tc, v[b].Od, v[b].TdOd);
    for (int b = 0; b < nb; b++) lie_exp_tc(&v[b].tc, &v[b].e);
}

/* ---- the planar rod (model.h's planar): the recursions below on se(2) (lie_plane.h) ---- */

static const int P6[3] = {1, 3, 5}; /* the planar components in xi */

/* One step's alphas (and their rates along q_dot when ad != NULL):
 * step_alphas_rates on the three planar components. */
static void planar_alphas(const rod_model *m, const double *beta, const double *star, double h, const double *q,
                          const double *qd, int np, double a[][3], double ad[][3])
{
    const int nx = m->n_xi, three = np == 3;
    const double *b0 = beta, *b1 = beta + nx, *b2 = beta + 2 * nx;
    /* the points' sums side by side (six independent chains, as step_alphas_rates) */
    for (int c = 0; c < 3; c++) {
        const int k = P6[c];
        double x0 = 0, x1 = 0, x2 = 0, v0 = 0, v1 = 0, v2 = 0;
        for (int j = m->comp_first[k]; j < m->comp_first[k + 1]; j++) {
            x0 += b0[j] * q[j];
            x1 += b1[j] * q[j];
            if (three) x2 += b2[j] * q[j];
            if (!ad) continue;
            v0 += b0[j] * qd[j];
            v1 += b1[j] * qd[j];
            if (three) v2 += b2[j] * qd[j];
        }
        a[0][c] = x0;
        a[1][c] = x1;
        if (three) a[2][c] = x2;
        if (!ad) continue;
        ad[0][c] = v0;
        ad[1][c] = v1;
        if (three) ad[2][c] = v2;
    }
    if (!star) {
        a[0][2] += h;
        return;
    }
    for (int i = 0; i < np; i++)
        for (int c = 0; c < 3; c++) a[i][c] += star[6 * i + P6[c]];
}

/* kinematics.c's step_Js in the plane: Js (3 x n_xi) += Ad_g T dOmega/dq */
static void planar_step_Js(const rod_model *m, const double *beta, const plane_magnus *ms, const double T[9],
                       const plane_pose *g, double *Js)
{
    const int np = m->mag->npts, nx = m->n_xi;
    /* Ad_g's rows: [1, 0, 0], [-pz, c, s], [px, -s, c] */
    const double Ad[9] = {1.0, -g->pz, g->px, 0.0, g->c, -g->s, 0.0, g->s, g->c};
    double G[9], W[MAGNUS_MAX_POINTS][9];
    for (int j = 0; j < 3; j++) plane_m3_apply(Ad, T + 3 * j, G + 3 * j);
    plane_slots(G, ms, W);
    for (int c = 0; c < 3; c++) {
        const int k = P6[c];
        for (int j = m->comp_first[k]; j < m->comp_first[k + 1]; j++) {
            double *Jj = Js + 3 * j;
            if (np == 2) {
                const double b0 = beta[j], b1 = beta[nx + j];
                for (int i = 0; i < 3; i++) Jj[i] += b0 * W[0][3 * c + i] + b1 * W[1][3 * c + i];
            } else {
                const double b0 = beta[j], b1 = beta[nx + j], b2 = beta[2 * nx + j];
                for (int i = 0; i < 3; i++)
                    Jj[i] += b0 * W[0][3 * c + i] + b1 * W[1][3 * c + i] + b2 * W[2][3 * c + i];
            }
        }
    }
}

/* Station k's J (6 x n_xi) from the running base-frame Js (3 x n_xi): converted to the body
 * frame, or, at a deferred station, kept in the base frame with its pose for state_J. */
static void planar_station_J(const rod_model *m, const kin_defer *d, int k, const plane_pose *pg, const lie_pose *g,
                         const double *Js, double *J)
{
    const int nx = m->n_xi;
    double *Jk = J + (size_t)k * 6 * nx;
    const int defer = d && m->J_deferred[k];
    if (d) d->pending[k] = (unsigned char)defer;
    if (defer) d->pose[k] = *g;
    for (int j = 0; j < nx; j++) {
        double o[3];
        if (defer)
            memcpy(o, Js + 3 * j, sizeof o);
        else
            plane_Ad_inv(pg, Js + 3 * j, o);
        plane_to6(o, Jk + 6 * j);
    }
}

typedef struct {
    plane_magnus ms;
    plane_tangent tc;
    plane_pose e;
    double TOd[3], TPd[3], TdOd[3];
} planar_step;

static const double *beta_of(const rod_model *m, const planar_steps *ps, int t)
{
    const int k = 1 + t / ps->sub, j = t % ps->sub;
    return ps->betas + ((size_t)k * ps->sub + j) * m->mag->npts * m->n_xi;
}

static const double *planar_star_of(const rod_model *m, const planar_steps *ps, int t)
{
    return star_of(m, ps->stars, ps->sub, 1 + t / ps->sub, t % ps->sub);
}

static double h_of(const rod_model *m, const planar_steps *ps, int t)
{
    const int k = 1 + t / ps->sub;
    return (m->s[k] - m->s[k - 1]) / ps->sub;
}

/* planar_alphas for the model's own steps t0 .. t0 + nb - 1, from kin_beta_t: each column's
 * weights in the block's alphas are contiguous, so its products vectorize across the steps
 * (the same sums in the same order, bit for bit) */
static void planar_block_alphas(const rod_model *m, const planar_steps *ps, const double *q, const double *qd,
                                int t0, int nb, planar_step *v, double ad[STEP_BLOCK][MAGNUS_MAX_POINTS][3])
{
    const int np = m->mag->npts, ne = nb * np;
    const size_t nrow = (size_t)(m->ns - 1) * ps->sub * np;
    for (int c = 0; c < 3; c++) {
        const int k = P6[c];
        double x[STEP_BLOCK * MAGNUS_MAX_POINTS + 3], r[STEP_BLOCK * MAGNUS_MAX_POINTS + 3];
        /* four sums at a time over all the columns, in registers (kin_beta_t is padded for the
         * last block's overrun) */
        for (int e0 = 0; e0 < ne; e0 += 4) {
            double x0 = 0, x1 = 0, x2 = 0, x3 = 0, r0 = 0, r1 = 0, r2 = 0, r3 = 0;
            for (int j = m->comp_first[k]; j < m->comp_first[k + 1]; j++) {
                const double *row = m->kin_beta_t + j * nrow + (size_t)t0 * np + e0, qj = q[j];
                x0 += row[0] * qj;
                x1 += row[1] * qj;
                x2 += row[2] * qj;
                x3 += row[3] * qj;
                if (!qd) continue;
                const double vj = qd[j];
                r0 += row[0] * vj;
                r1 += row[1] * vj;
                r2 += row[2] * vj;
                r3 += row[3] * vj;
            }
            x[e0] = x0, x[e0 + 1] = x1, x[e0 + 2] = x2, x[e0 + 3] = x3;
            r[e0] = r0, r[e0 + 1] = r1, r[e0 + 2] = r2, r[e0 + 3] = r3;
        }
        for (int b = 0; b < nb; b++)
            for (int i = 0; i < np; i++) {
                v[b].ms.a[i][c] = x[b * np + i];
                if (qd) ad[b][i][c] = r[b * np + i];
            }
    }
    for (int b = 0; b < nb; b++) {
        const double *star = planar_star_of(m, ps, t0 + b);
        if (!star) {
            v[b].ms.a[0][2] += h_of(m, ps, t0 + b);
            continue;
        }
        for (int i = 0; i < np; i++)
            for (int c = 0; c < 3; c++) v[b].ms.a[i][c] += star[6 * i + P6[c]];
    }
}

/* The stages of nb steps' local parts after their alphas (v[b].ms.a; their rates ad where
 * rates is set), one stage across the steps at a time: the twist's increment when rates, the
 * bias's too when vel */
static inline void planar_stages(int nb, int rates, int vel, planar_step *v,
                                 double ad[STEP_BLOCK][MAGNUS_MAX_POINTS][3])
{
    double Omega[STEP_BLOCK][3], Od[STEP_BLOCK][3], Pd[STEP_BLOCK][3];
    /* Omega, its rate and second derivative a stage each, so that what one stores the next
     * reads after the stores have landed (see STEP_BLOCK) */
    plane_tangent_dir t[STEP_BLOCK];
    for (int b = 0; b < nb; b++) plane_eval(&v[b].ms, Omega[b]);
    for (int b = 0; b < nb && rates; b++) plane_dir(&v[b].ms, (const double(*)[3])ad[b], Od[b], &t[b]);
    for (int b = 0; b < nb && vel; b++) plane_second(&v[b].ms, (const double(*)[3])ad[b], &t[b], Pd[b]);
    for (int b = 0; b < nb; b++) {
        plane_tangent_init(Omega[b], &v[b].tc);
        plane_dexp(&v[b].tc);
    }
    for (int b = 0; b < nb && rates; b++) {
        plane_m3_apply(v[b].tc.T, Od[b], v[b].TOd);
        if (!vel) continue;
        plane_m3_apply(v[b].tc.T, Pd[b], v[b].TPd);
        plane_dexp_dot_apply(&v[b].tc, Od[b], v[b].TdOd);
    }
    for (int b = 0; b < nb; b++) plane_exp(&v[b].tc, &v[b].e);
}

/* The local parts of nb steps from t0, stage by stage across the steps as the general
 * recursions do: the twist's increment when qd is not NULL, the bias's too when vel */
static void planar_local(const rod_model *m, const planar_steps *ps, const double *q, const double *qd, int t0,
                         int nb, int vel, planar_step *v)
{
    const int np = m->mag->npts;
    double ad[STEP_BLOCK][MAGNUS_MAX_POINTS][3];
    for (int b = 0; b < nb; b++) v[b].ms.order = m->mag->order;
    if (ps->betas == m->kin_beta && m->kin_beta_t)
        planar_block_alphas(m, ps, q, qd, t0, nb, v, ad);
    else
        for (int b = 0; b < nb; b++)
            planar_alphas(m, beta_of(m, ps, t0 + b), planar_star_of(m, ps, t0 + b), h_of(m, ps, t0 + b), q, qd,
                          np, v[b].ms.a, qd ? ad[b] : NULL);
    planar_stages(nb, qd != NULL, vel, v, ad);
}

/* The poses g, and J (not NULL), twists eta (qd not NULL) and biases (bias not NULL) */
static void planar_forward(const rod_model *m, const planar_steps *ps, const double *q, const double *qd,
                           lie_pose *g, double *J, const kin_defer *d, double *eta, double *bias)
{
    const int nx = m->n_xi, sub = ps->sub, nsteps = (m->ns - 1) * sub, vel = bias != NULL;
    double Js[3 * MODEL_MAX_XI];
    lie_pose_identity(&g[0]);
    if (J) {
        memset(J, 0, (size_t)6 * nx * sizeof *J);
        memset(Js, 0, (size_t)3 * nx * sizeof *Js);
    }
    if (qd) memset(eta, 0, 6 * sizeof *eta);
    if (vel) memset(bias, 0, 6 * sizeof *bias);
    plane_pose gk = {1.0, 0.0, 0.0, 0.0};
    double ek[3] = {0}, bk[3] = {0};
    planar_step v[STEP_BLOCK];
    for (int t0 = 0; t0 < nsteps; t0 += STEP_BLOCK) {
        const int nb = nsteps - t0 < STEP_BLOCK ? nsteps - t0 : STEP_BLOCK;
        planar_local(m, ps, q, qd, t0, nb, vel, v);
        for (int b = 0; b < nb; b++) {
            const planar_step *vs = &v[b];
            const int t = t0 + b, k = 1 + t / sub;
            double e_new[3] = {0}, b_new[3] = {0};
            if (qd)
                for (int i = 0; i < 3; i++) e_new[i] = ek[i] + vs->TOd[i];
            if (vel) {
                double adeT[3];
                plane_ad(ek, vs->TOd, adeT);
                for (int i = 0; i < 3; i++) b_new[i] = bk[i] + adeT[i] + vs->TdOd[i] + vs->TPd[i];
            }
            if (J) planar_step_Js(m, beta_of(m, ps, t), &vs->ms, vs->tc.T, &gk, Js);
            if (qd) plane_Ad_inv(&vs->e, e_new, ek);
            if (vel) plane_Ad_inv(&vs->e, b_new, bk);
            plane_mul(&gk, &vs->e, &gk);
            if (t % sub < sub - 1) continue;
            plane_to_pose(&gk, &g[k]);
            if (qd) plane_to6(ek, eta + 6 * k);
            if (vel) plane_to6(bk, bias + 6 * k);
            if (J) planar_station_J(m, d, k, &gk, &g[k], Js, J);
        }
    }
    if (J && d) d->pending[0] = 0;
}

VECTOR_CLONES
static void forward_vel(const rod_model *m, const double *q, const double *qd, lie_pose *g, double *J,
                        const kin_defer *d, double *eta, double *bias, blk6_step *wst)
{
    if (m->planar) {
        const planar_steps ps = {m->substeps, m->kin_beta, m->kin_star};
        planar_forward(m, &ps, q, qd, g, J, d, eta, bias);
        return;
    }
    const int nx = m->n_xi, sub = m->substeps, nsteps = (m->ns - 1) * sub;
    const size_t jsz = (size_t)6 * nx, bsz = (size_t)m->mag->npts * nx;
    double Js[6 * MODEL_MAX_XI];
    lie_pose_identity(&g[0]);
    if (J) {
        memset(J, 0, jsz * sizeof *J);
        memset(Js, 0, jsz * sizeof *Js);
    }
    memset(eta, 0, 6 * sizeof *eta);
    memset(bias, 0, 6 * sizeof *bias);
    vel_step v[STEP_BLOCK];
    /* the running pose, twist and bias, stored at each station */
    lie_pose gk = g[0];
    double ek[6] = {0}, bk[6] = {0};
    for (int t0 = 0; t0 < nsteps; t0 += STEP_BLOCK) {
        const int nb = nsteps - t0 < STEP_BLOCK ? nsteps - t0 : STEP_BLOCK;
        vel_steps_local(m, q, qd, t0, nb, v);
        for (int b = 0; b < nb; b++) {
            const int k = 1 + (t0 + b) / sub, j = (t0 + b) % sub;
            const vel_step *vs = &v[b];
            double adeT[6], e_new[6], b_new[6];
            lie_ad_apply(ek, vs->TOd, adeT);
            for (int i = 0; i < 6; i++) {
                e_new[i] = ek[i] + vs->TOd[i];
                b_new[i] = bk[i] + adeT[i] + vs->TdOd[i] + vs->TPd[i];
            }
            if (J)
                step_Js(m, m->kin_beta + ((size_t)k * sub + j) * bsz, &vs->ms, &vs->T, &gk, Js);
            else if (wst) {
                blk6_step *w = wst + t0 + b;
                blk6_Ad(&gk, &vs->T, &w->G);
                w->ms = vs->ms;
            }
            lie_Ad_inv_apply(&vs->e, e_new, ek);
            lie_Ad_inv_apply(&vs->e, b_new, bk);
            lie_pose_mul(&gk, &vs->e, &gk);
            if (j < sub - 1) continue;
            g[k] = gk;
            memcpy(eta + 6 * k, ek, sizeof ek);
            memcpy(bias + 6 * k, bk, sizeof bk);
            if (J) station_J(m, d, k, &g[k], Js, J);
        }
    }
    if (J && d) d->pending[0] = 0;
}

void kin_forward_vel(const rod_model *m, const double *q, const double *qd, lie_pose *g, double *J,
                     double *eta, double *bias)
{
    forward_vel(m, q, qd, g, J, NULL, eta, bias, NULL);
}

void kin_forward_vel_state(const rod_model *m, rod_state *st, const double *q, const double *qd, int with_J)
{
    const kin_defer d = kin_defer_of(m, st);
    forward_vel(m, q, qd, st->g, with_J ? st->J : NULL, d.pending ? &d : NULL, st->eta, st->bias, NULL);
    if (with_J) st->J_stale = 0;
}

void kin_forward_vel_wrench(const rod_model *m, rod_state *st, const double *q, const double *qd)
{
    forward_vel(m, q, qd, st->g, NULL, NULL, st->eta, st->bias, st->step_w);
    memcpy(st->g_rel, st->g, (size_t)m->ns * sizeof *st->g); /* before a base moves st->g */
    memcpy(st->kin_q, q, (size_t)m->n * sizeof *q);
    st->J_stale = 1;
}

/* kin_forward_twist's local parts: vel_steps_local's without the bias's (T applied by
 * lie_dexp_apply_tc, as before the blocks) */
static void twist_steps_local(const rod_model *m, const double *q, const double *qd, int t0, int nb,
                              vel_step *v)
{
    double ad[STEP_BLOCK][MAGNUS_MAX_POINTS][6];
    block_alphas(m, q, qd, t0, nb, v, ad);
    for (int b = 0; b < nb; b++) {
        magnus_eval(&v[b].ms, v[b].Omega);
        magnus_dir(&v[b].ms, (const double(*)[6])ad[b], v[b].Od, NULL);
    }
    for (int b = 0; b < nb; b++) lie_tangent_init(v[b].Omega, &v[b].tc);
    for (int b = 0; b < nb; b++) lie_dexp_apply_tc(&v[b].tc, v[b].Od, v[b].TOd);
    for (int b = 0; b < nb; b++) lie_exp_tc(&v[b].tc, &v[b].e);
}

/* kin_forward_twist's planar recursion takes the alphas and their rates of up to TWIST_CHUNK
 * steps at once (a multiple of STEP_BLOCK) */
enum { TWIST_CHUNK = 32 };

/* planar_block_alphas' sums for the ne = steps x npts alphas from step t0 on, each column's
 * products across all of them in vectors (x and r: 3 components x ne): the same sums in the
 * same order, where four at a time through the columns left the processor's vectors half
 * used and most of a frame's twist in the loops around them */
VECTOR_CLONES
static void twist_alphas(const rod_model *m, const double *q, const double *qd, int t0, int ne,
                         double x[3][TWIST_CHUNK * MAGNUS_MAX_POINTS], double r[3][TWIST_CHUNK * MAGNUS_MAX_POINTS])
{
    const int np = m->mag->npts;
    const size_t nrow = (size_t)(m->ns - 1) * m->substeps * np;
    for (int c = 0; c < 3; c++) {
        const int k = P6[c];
        double *xc = x[c], *rc = r[c];
        for (int e = 0; e < ne; e++) xc[e] = 0, rc[e] = 0;
        for (int j = m->comp_first[k]; j < m->comp_first[k + 1]; j++) {
            const double *row = m->kin_beta_t + j * nrow + (size_t)t0 * np, qj = q[j], vj = qd[j];
            for (int e = 0; e < ne; e++) {
                xc[e] += row[e] * qj;
                rc[e] += row[e] * vj;
            }
        }
    }
}

/* kin_forward_twist of a planar model: planar_forward's poses and twists (J and the biases
 * left out), bit for bit, its alphas by twist_alphas */
static void planar_twist(const rod_model *m, const double *q, const double *qd, lie_pose *g, double *eta)
{
    const planar_steps ps = {m->substeps, m->kin_beta, m->kin_star};
    const int sub = m->substeps, nsteps = (m->ns - 1) * sub, np = m->mag->npts;
    lie_pose_identity(&g[0]);
    memset(eta, 0, 6 * sizeof *eta);
    plane_pose gk = {1.0, 0.0, 0.0, 0.0};
    double ek[3] = {0};
    double x[3][TWIST_CHUNK * MAGNUS_MAX_POINTS], r[3][TWIST_CHUNK * MAGNUS_MAX_POINTS];
    for (int c0 = 0; c0 < nsteps; c0 += TWIST_CHUNK) {
        const int nc = nsteps - c0 < TWIST_CHUNK ? nsteps - c0 : TWIST_CHUNK;
        twist_alphas(m, q, qd, c0, nc * np, x, r);
        for (int t0 = c0; t0 < c0 + nc; t0 += STEP_BLOCK) {
            const int nb = c0 + nc - t0 < STEP_BLOCK ? c0 + nc - t0 : STEP_BLOCK;
            planar_step v[STEP_BLOCK];
            double ad[STEP_BLOCK][MAGNUS_MAX_POINTS][3];
            for (int b = 0; b < nb; b++) {
                const int e0 = (t0 - c0 + b) * np;
                v[b].ms.order = m->mag->order;
                for (int i = 0; i < np; i++)
                    for (int c = 0; c < 3; c++) {
                        v[b].ms.a[i][c] = x[c][e0 + i];
                        ad[b][i][c] = r[c][e0 + i];
                    }
                /* xi*'s share, as planar_block_alphas adds it */
                const double *star = planar_star_of(m, &ps, t0 + b);
                if (!star) {
                    v[b].ms.a[0][2] += h_of(m, &ps, t0 + b);
                    continue;
                }
                for (int i = 0; i < np; i++)
                    for (int c = 0; c < 3; c++) v[b].ms.a[i][c] += star[6 * i + P6[c]];
            }
            planar_stages(nb, 1, 0, v, ad);
            /* the chain, as planar_forward's */
            for (int b = 0; b < nb; b++) {
                const int t = t0 + b, k = 1 + t / sub;
                double e_new[3];
                for (int i = 0; i < 3; i++) e_new[i] = ek[i] + v[b].TOd[i];
                plane_Ad_inv(&v[b].e, e_new, ek);
                plane_mul(&gk, &v[b].e, &gk);
                if (t % sub < sub - 1) continue;
                plane_to_pose(&gk, &g[k]);
                plane_to6(ek, eta + 6 * k);
            }
        }
    }
}

void kin_forward_twist(const rod_model *m, const double *q, const double *qd, lie_pose *g,
                       double *eta)
{
    if (m->planar && m->kin_beta_t) {
        planar_twist(m, q, qd, g, eta);
        return;
    }
    if (m->planar) {
        const planar_steps ps = {m->substeps, m->kin_beta, m->kin_star};
        planar_forward(m, &ps, q, qd, g, NULL, NULL, eta, NULL);
        return;
    }
    const int sub = m->substeps, nsteps = (m->ns - 1) * sub;
    lie_pose_identity(&g[0]);
    memset(eta, 0, 6 * sizeof *eta);
    vel_step v[STEP_BLOCK];
    /* the running pose and twist, stored at each station */
    lie_pose gk = g[0];
    double ek[6] = {0};
    for (int t0 = 0; t0 < nsteps; t0 += STEP_BLOCK) {
        const int nb = nsteps - t0 < STEP_BLOCK ? nsteps - t0 : STEP_BLOCK;
        twist_steps_local(m, q, qd, t0, nb, v);
        for (int b = 0; b < nb; b++) {
            const int k = 1 + (t0 + b) / sub, j = (t0 + b) % sub;
            double TOd[6];
            for (int i = 0; i < 6; i++) TOd[i] = v[b].TOd[i] + ek[i];
            lie_Ad_inv_apply(&v[b].e, TOd, ek);
            lie_pose_mul(&gk, &v[b].e, &gk);
            if (j < sub - 1) continue;
            g[k] = gk;
            memcpy(eta + 6 * k, ek, sizeof ek);
        }
    }
}

/* a block of nb planar steps' Omega from their alphas, and exp's coefficients at |Omega| */
static void plane_block_tangents(plane_magnus *ms, plane_tangent *tc, int nb)
{
    for (int b = 0; b < nb; b++) plane_eval(&ms[b], tc[b].Omega);
    for (int b = 0; b < nb; b++) lie_coeffs(sqrt(tc[b].Omega[0] * tc[b].Omega[0]), tc[b].f);
}

/* kin_step_exps for a planar model */
static void planar_step_exps(const rod_model *m, const double *q, const double *beta, const double *star,
                             const double *h, int nsteps, lie_pose *e)
{
    const int np = m->mag->npts;
    const size_t bsz = (size_t)np * m->n_xi, ssz = (size_t)np * 6;
    for (int j0 = 0; j0 < nsteps; j0 += STEP_BLOCK) {
        const int nb = nsteps - j0 < STEP_BLOCK ? nsteps - j0 : STEP_BLOCK;
        plane_magnus ms[STEP_BLOCK];
        plane_tangent tc[STEP_BLOCK];
        for (int b = 0; b < nb; b++) {
            const int j = j0 + b;
            ms[b].order = m->mag->order;
            planar_alphas(m, beta + (size_t)j * bsz, star ? star + (size_t)j * ssz : NULL, h[j], q, NULL, np,
                          ms[b].a, NULL);
        }
        plane_block_tangents(ms, tc, nb);
        for (int b = 0; b < nb; b++) {
            plane_pose p;
            plane_exp(&tc[b], &p);
            plane_to_pose(&p, &e[j0 + b]);
        }
    }
}

VECTOR_CLONES
static void step_alphas_across(const rod_model *m, const double *q, const double *beta_t, int ne, double *x)
{
    for (int c = 0; c < 3; c++) {
        const int k = P6[c];
        double *xc = x + (size_t)c * ne;
        for (int e = 0; e < ne; e++) xc[e] = 0;
        for (int j = m->comp_first[k]; j < m->comp_first[k + 1]; j++) {
            const double *row = beta_t + (size_t)j * ne, qj = q[j];
            for (int e = 0; e < ne; e++) xc[e] += row[e] * qj;
        }
    }
}

void kin_step_exps_plane(const rod_model *m, const double *q, const double *beta_t, const double *star,
                         const double *h, int nsteps, double *scratch, plane_pose *e)
{
    const int np = m->mag->npts, ne = nsteps * np;
    step_alphas_across(m, q, beta_t, ne, scratch);
    for (int j0 = 0; j0 < nsteps; j0 += STEP_BLOCK) {
        const int nb = nsteps - j0 < STEP_BLOCK ? nsteps - j0 : STEP_BLOCK;
        plane_magnus ms[STEP_BLOCK];
        plane_tangent tc[STEP_BLOCK];
        for (int b = 0; b < nb; b++) {
            const int j = j0 + b;
            ms[b].order = m->mag->order;
            for (int i = 0; i < np; i++)
                for (int c = 0; c < 3; c++) ms[b].a[i][c] = scratch[(size_t)c * ne + (size_t)j * np + i];
            /* xi*'s share after the columns', as planar_alphas adds it */
            if (!star) {
                ms[b].a[0][2] += h[j];
                continue;
            }
            const double *sj = star + (size_t)j * np * 6;
            for (int i = 0; i < np; i++)
                for (int c = 0; c < 3; c++) ms[b].a[i][c] += sj[6 * i + P6[c]];
        }
        plane_block_tangents(ms, tc, nb);
        for (int b = 0; b < nb; b++) plane_exp(&tc[b], &e[j0 + b]);
    }
}

void kin_step_exps(const rod_model *m, const double *q, const double *beta, const double *star,
                   const double *h, int nsteps, lie_pose *e)
{
    if (m->planar) {
        planar_step_exps(m, q, beta, star, h, nsteps, e);
        return;
    }
    const size_t bsz = (size_t)m->mag->npts * m->n_xi, ssz = (size_t)m->mag->npts * 6;
    for (int j0 = 0; j0 < nsteps; j0 += STEP_BLOCK) {
        const int nb = nsteps - j0 < STEP_BLOCK ? nsteps - j0 : STEP_BLOCK;
        double Omega[STEP_BLOCK][6];
        magnus_step ms[STEP_BLOCK];
        for (int b = 0; b < nb; b++) {
            const int j = j0 + b;
            ms[b].rule = m->mag;
            step_alphas(m, beta + (size_t)j * bsz, star ? star + (size_t)j * ssz : NULL, h[j], q, ms[b].a);
        }
        for (int b = 0; b < nb; b++) magnus_eval(&ms[b], Omega[b]);
        /* lie_exp in two stages: the coefficients, then the exponentials */
        double f[STEP_BLOCK][6];
        for (int b = 0; b < nb; b++) lie_coeffs(sqrt(vec3_dot(Omega[b], Omega[b])), f[b]);
        for (int b = 0; b < nb; b++) lie_exp_coeffs(Omega[b], f[b], &e[j0 + b]);
    }
}
