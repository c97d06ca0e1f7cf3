#include "projection.h"

#include "magnus.h"
#include "magnus_blocks.h"
#include "vector_clones.h"

#include <string.h>

/* A step's C_s = G dOmega/dalpha Phi, G = Ad_g T_Omega, dOmega/dalpha_i = D_i (magnus_blocks.c's
 * blk6_slots has them as polynomials in ad): C_s^T V has column j's entry
 * sum_i beta_ij (D_i^T G^T V)[c(j)]. */

static const double *step_beta(const rod_model *m, int k, int j)
{
    return m->kin_beta + ((size_t)k * m->substeps + j) * (size_t)m->mag->npts * m->n_xi;
}

static const blk6_step *step_of(const rod_model *m, const rod_state *st, int k, int j)
{
    return st->step_w + (size_t)(k - 1) * m->substeps + j;
}

/* the last strain column of component c, plus one */
static int comp_end(const rod_model *m, int c)
{
    const int e = m->comp_first[c + 1];
    return e < m->comp_first[6] ? e : m->comp_first[6];
}

/* out = M^T u for M = [[A, 0], [B, A]] */
static void blk6_apply_t(const blk6 *M, const double u[6], double out[6])
{
    for (int i = 0; i < 3; i++) {
        const double *a = M->A + 3 * i, *b = M->B + 3 * i;
        out[i] = a[0] * u[0] + a[1] * u[1] + a[2] * u[2] + b[0] * u[3] + b[1] * u[4] + b[2] * u[5];
        out[i + 3] = a[0] * u[3] + a[1] * u[4] + a[2] * u[5];
    }
}

/* out = ad_a^T u = -ad*_a u (lie_coad_apply) */
static void ad_t(const double a[6], const double u[6], double out[6])
{
    lie_coad_apply(a, u, out);
    for (int r = 0; r < 6; r++) out[r] = -out[r];
}

/* z_i = D_i^T u for each alpha of the step */
static void slots_t(const magnus_step *ms, const double u[6], double z[MAGNUS_MAX_POINTS][6])
{
    const double *a1 = ms->a[0], *a2 = ms->a[1];
    if (ms->rule->order == 4) {
        /* D_1 = I - ad_a2 / 12, D_2 = ad_a1 / 12 */
        double t1[6], t2[6];
        ad_t(a2, u, t1);
        ad_t(a1, u, t2);
        for (int r = 0; r < 6; r++) {
            z[0][r] = u[r] - t1[r] / 12.0;
            z[1][r] = t2[r] / 12.0;
        }
        return;
    }
    /* D_1 = I - 20k ad_Y + k ad_Y ad_a2 + k60 ad_X ad_z - k60 ad_X ad_a1 ad_a2,
     * D_2 = -k ad_Y ad_a1 - k ad_X + k60 ad_X ad_a1 ad_a1, D_3 = I / 12 - k ad_Y - k30 ad_X ad_a1 */
    const double k = 1.0 / 240.0, k60 = k / 60.0, k30 = k / 30.0;
    double zz[6], yY[6], yX[6], w1[6], a2yY[6], zyX[6], a2w1[6], a1yY[6], a1w1[6];
    for (int r = 0; r < 6; r++) zz[r] = 2.0 * ms->a[2][r] + ms->C1[r];
    ad_t(ms->Y, u, yY);
    ad_t(ms->X, u, yX);
    ad_t(a1, yX, w1);
    ad_t(a2, yY, a2yY);
    ad_t(zz, yX, zyX);
    ad_t(a2, w1, a2w1);
    ad_t(a1, yY, a1yY);
    ad_t(a1, w1, a1w1);
    for (int r = 0; r < 6; r++) {
        z[0][r] = u[r] - 20.0 * k * yY[r] + k * a2yY[r] + k60 * zyX[r] - k60 * a2w1[r];
        z[1][r] = -k * a1yY[r] - k * yX[r] + k60 * a1w1[r];
        z[2][r] = u[r] / 12.0 - k * yY[r] - k30 * w1[r];
    }
}

/* V += Ad_g^{-T} W: the body wrench (moment, force) W at g, in the base frame at its origin */
static void to_base(const lie_pose *g, const double W[6], double V[6])
{
    double mo[3], f[3], rf[3];
    vec3_rot(g->R, W, mo);
    vec3_rot(g->R, W + 3, f);
    vec3_cross(g->r, f, rf);
    for (int i = 0; i < 3; i++) {
        V[i] += mo[i] + rf[i];
        V[i + 3] += f[i];
    }
}

VECTOR_CLONES
void proj_wrenches(const rod_model *m, const rod_state *st, const double *B, double *Q)
{
    const int nx = m->n_xi, np = m->mag->npts, sub = m->substeps;
    double V[6] = {0};
    for (int k = m->ns - 1; k >= 1; k--) {
        to_base(&st->g_rel[k], st->W_station + 6 * (size_t)k, V);
        for (int j = sub - 1; j >= 0; j--) {
            const double *beta = step_beta(m, k, j);
            const blk6_step *w = step_of(m, st, k, j);
            double u[6], z[MAGNUS_MAX_POINTS][6];
            blk6_apply_t(&w->G, V, u);
            slots_t(&w->ms, u, z);
            for (int i = 0; i < np; i++) {
                const double *b = beta + (size_t)i * nx;
                for (int c = 0; c < 6; c++) {
                    if (!m->comp_used[c]) continue;
                    const double zc = z[i][c];
                    for (int col = m->comp_first[c]; col < comp_end(m, c); col++) Q[col] += b[col] * zc;
                }
            }
        }
    }
    to_base(&st->g_rel[0], st->W_station, V);
    if (B)
        for (int c = 0; c < 6; c++) {
            const double *Bc = B + 6 * c;
            Q[m->base_col + c] += Bc[0] * V[0] + Bc[1] * V[1] + Bc[2] * V[2] + Bc[3] * V[3] + Bc[4] * V[4] +
                                  Bc[5] * V[5];
        }
}
