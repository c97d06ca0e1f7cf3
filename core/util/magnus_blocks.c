#include "magnus_blocks.h"
#include "vector_clones.h"

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

/* o = P ad_x for a block matrix P: [[P_A x_k~, 0], [P_B x_k~ + P_A x_n~, P_A x_k~]] (o != P).
 * Both of B's products row by row before the sum is stored: o->B stored and read back to add
 * the second stalled the store-to-load forwarding. */
VECTOR_CLONES
static void blk_times_ad(const blk6 *P, const double x[6], blk6 *o)
{
    const double *v = x, *u = x + 3;
    times_skew(P->A, v, o->A);
    for (int i = 0; i < 3; i++) {
        const double p0 = P->B[i], p1 = P->B[i + 3], p2 = P->B[i + 6];
        const double a0 = P->A[i], a1 = P->A[i + 3], a2 = P->A[i + 6];
        o->B[i] = (p1 * v[2] - p2 * v[1]) + (a1 * u[2] - a2 * u[1]);
        o->B[i + 3] = (p2 * v[0] - p0 * v[2]) + (a2 * u[0] - a0 * u[2]);
        o->B[i + 6] = (p0 * v[1] - p1 * v[0]) + (a0 * u[1] - a1 * u[0]);
    }
}

/* W <- sum_j c_j P_j over np block matrices */
static void blk_comb(blk6 *W, int np, const double *c, const blk6 *const *P)
{
    for (int e = 0; e < 9; e++) {
        double a = 0, b = 0;
        for (int j = 0; j < np; j++) {
            a += c[j] * P[j]->A[e];
            b += c[j] * P[j]->B[e];
        }
        W->A[e] = a;
        W->B[e] = b;
    }
}

VECTOR_CLONES
void blk6_apply(const blk6 *M, const double x[6], double y[6])
{
    for (int i = 0; i < 3; i++) {
        const double a = M->A[i] * x[0] + M->A[i + 3] * x[1] + M->A[i + 6] * x[2];
        y[i + 3] = M->B[i] * x[0] + M->B[i + 3] * x[1] + M->B[i + 6] * x[2] + M->A[i] * x[3] +
                   M->A[i + 3] * x[4] + M->A[i + 6] * x[5];
        y[i] = a;
    }
}

/* T_Omega = sum_j c_j ad_Omega^j as blocks, in closed form. With K = k~, N = n~ (Omega =
 * [k; n]), t2 = |k|^2, d = k . n: K^2 = k k^T - t2 I, K^3 = -t2 K, and the lower blocks of
 * ad^j, B_j = sum_i K^i N K^(j-1-i), are B_1 = N, B_2 = n k^T + k n^T - 2 d I,
 * B_3 = -t2 N - 2 d K, B_4 = -t2 B_2 - 2 d K^2 (K N K = -d K; K^2 N - N K^2 = d K - t2 N). So
 *   A = (1 - b t2) I + a K + b k k^T,
 *   B = a N - 2 d c3 K + b (n k^T + k n^T) - 2 d c4 k k^T - 2 d (c2 - 2 t2 c4) I,
 * a = c1 - t2 c3, b = c2 - t2 c4: a few dozen flops where Horner on the blocks took twelve
 * 3x3 products. Once per step instead of four ad's per application. */
VECTOR_CLONES
void blk6_dexp(const lie_tangent *tc, blk6 *T)
{
    const double *k = tc->Omega, *n = tc->Omega + 3, *c = tc->c;
    const double t2 = k[0] * k[0] + k[1] * k[1] + k[2] * k[2], d = k[0] * n[0] + k[1] * n[1] + k[2] * n[2];
    const double a = c[1] - t2 * c[3], b = c[2] - t2 * c[4];
    const double ia = 1.0 - b * t2, ib = -2.0 * d * (c[2] - 2.0 * t2 * c[4]);
    const double kb = -2.0 * d * c[3], kk = -2.0 * d * c[4];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            T->A[i + 3 * j] = b * k[i] * k[j] + (i == j ? ia : 0.0);
            T->B[i + 3 * j] = b * (n[i] * k[j] + k[i] * n[j]) + kk * k[i] * k[j] + (i == j ? ib : 0.0);
        }
    /* the skew parts: x~ has (1,0) = x2, (2,0) = -x1, (0,1) = -x2, (2,1) = x0, (0,2) = x1, (1,2) = -x0 */
    const double ak[3] = {a * k[0], a * k[1], a * k[2]};
    const double bn[3] = {a * n[0] + kb * k[0], a * n[1] + kb * k[1], a * n[2] + kb * k[2]};
    double *A = T->A, *B = T->B;
    A[1] += ak[2], A[2] -= ak[1], A[3] -= ak[2], A[5] += ak[0], A[6] += ak[1], A[7] -= ak[0];
    B[1] += bn[2], B[2] -= bn[1], B[3] -= bn[2], B[5] += bn[0], B[6] += bn[1], B[7] -= bn[0];
}

/* G = Ad_g T = [[R A, 0], [r~ R A + R B, R A]] */
VECTOR_CLONES
void blk6_Ad(const lie_pose *g, const blk6 *T, blk6 *G)
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

/* W_i = G dOmega/dalpha_i, the step's Omega differentiated by each alpha (magnus.c), as block
 * matrices: every derivative is a polynomial in ad's, so G times it is a few products
 * P ad_x (blk_times_ad) instead of a magnus_slot and a blk_apply per component and point.
 * With br(x, y) = ad_y x = -ad_x y:
 * Zanna, Omega = a1 - ad_a2 a1 / 12: D_1 = I - ad_a2 / 12, D_2 = ad_a1 / 12.
 * Sixth order (C1 = -ad_a1 a2, z = 2 a3 + C1, C2 = ad_a1 z / 60, X = -20 a1 - a3 + C1,
 * Y = a2 + C2, Omega = a1 + a3 / 12 - ad_X Y / 240):
 *   D_1 = I + (ad_Y (-20 I + ad_a2) - ad_X (ad_a1 ad_a2 - ad_z) / 60) / 240,
 *   D_2 = -(ad_Y ad_a1 + ad_X (I - ad_a1 ad_a1 / 60)) / 240,
 *   D_3 = I / 12 - (ad_Y + ad_X ad_a1 / 30) / 240. */
VECTOR_CLONES
void blk6_slots(const blk6 *G, const magnus_step *ms, blk6 W[MAGNUS_MAX_POINTS])
{
    const double *a1 = ms->a[0], *a2 = ms->a[1];
    if (ms->rule->order == 4) {
        blk6 G2, G1;
        blk_times_ad(G, a2, &G2);
        blk_times_ad(G, a1, &G1);
        const double c0[2] = {1.0, -1.0 / 12.0}, c1 = 1.0 / 12.0;
        const blk6 *P0[2] = {G, &G2}, *P1[1] = {&G1};
        blk_comb(&W[0], 2, c0, P0);
        blk_comb(&W[1], 1, &c1, P1);
        return;
    }
    double z[6];
    for (int i = 0; i < 6; i++) z[i] = 2.0 * ms->a[2][i] + ms->C1[i];
    blk6 GY, GX, GYa2, GXz, GXa1, GXa1a2, GYa1, GXa1a1;
    blk_times_ad(G, ms->Y, &GY);
    blk_times_ad(G, ms->X, &GX);
    blk_times_ad(&GY, a2, &GYa2);
    blk_times_ad(&GX, z, &GXz);
    blk_times_ad(&GX, a1, &GXa1);
    blk_times_ad(&GXa1, a2, &GXa1a2);
    blk_times_ad(&GY, a1, &GYa1);
    blk_times_ad(&GXa1, a1, &GXa1a1);
    const double k = 1.0 / 240.0, k60 = k / 60.0, k30 = k / 30.0;
    const double c0[5] = {1.0, -20.0 * k, k, k60, -k60};
    const blk6 *P0[5] = {G, &GY, &GYa2, &GXz, &GXa1a2};
    const double c1[3] = {-k, -k, k60};
    const blk6 *P1[3] = {&GYa1, &GX, &GXa1a1};
    const double c2[3] = {1.0 / 12.0, -k, -k30};
    const blk6 *P2[3] = {G, &GY, &GXa1};
    blk_comb(&W[0], 5, c0, P0);
    blk_comb(&W[1], 3, c1, P1);
    blk_comb(&W[2], 3, c2, P2);
}
