#include "lie_plane.h"

#include <math.h>

/* The rules' constant divisors as products: a division's latency sat on every step's chain
 * (plane_eval and plane_dir were 15 % of the reaching bench); the reciprocals round once, so
 * the results move in the last bit from the general path's. */
static const double INV6 = 1.0 / 6.0, INV12 = 1.0 / 12.0, INV60 = 1.0 / 60.0, INV240 = 1.0 / 240.0;

/* The sixth-order rule in scalars: a bracket's angular part is always 0 in the plane
 * (plane_ad), so every product with it is left out, and nothing goes through memory between
 * the brackets (arrays there were spilled and reloaded along the chain, and the compiler
 * versioned the code for outputs aliasing the step). */
void plane_eval(plane_magnus *restrict s, double Omega[restrict 3])
{
    const double *a1 = s->a[0], *a2 = s->a[1], *a3 = s->a[2];
    if (s->order == 4) {
        double c[3];
        plane_br(a1, a2, c);
        for (int i = 0; i < 3; i++) Omega[i] = a1[i] - c[i] * INV12;
        return;
    }
    const double a1w = a1[0], a1x = a1[1], a1z = a1[2], a2w = a2[0], a2x = a2[1], a2z = a2[2];
    const double a3w = a3[0], a3x = a3[1], a3z = a3[2];
    /* C1 = br(a1, a2), z = 2 a3 + C1, C2 = -br(a1, z) / 60 */
    const double C1x = a2w * a1z - a2z * a1w, C1z = a2x * a1w - a2w * a1x;
    const double zw = 2.0 * a3w, zx = 2.0 * a3x + C1x, zz = 2.0 * a3z + C1z;
    const double C2x = (zw * a1z - zz * a1w) * -INV60, C2z = (zx * a1w - zw * a1x) * -INV60;
    /* X = -20 a1 - a3 + C1, Y = a2 + C2, Omega = a1 + a3 / 12 + br(X, Y) / 240 */
    const double Xw = -20.0 * a1w - a3w, Xx = -20.0 * a1x - a3x + C1x, Xz = -20.0 * a1z - a3z + C1z;
    const double Yw = a2w, Yx = a2x + C2x, Yz = a2z + C2z;
    const double cx = Yw * Xz - Yz * Xw, cz = Yx * Xw - Yw * Xx;
    Omega[0] = a1w + a3w * INV12;
    Omega[1] = a1x + a3x * INV12 + cx * INV240;
    Omega[2] = a1z + a3z * INV12 + cz * INV240;
    s->C1[0] = 0.0, s->C1[1] = C1x, s->C1[2] = C1z;
    s->C2[0] = 0.0, s->C2[1] = C2x, s->C2[2] = C2z;
    s->X[0] = Xw, s->X[1] = Xx, s->X[2] = Xz;
    s->Y[0] = Yw, s->Y[1] = Yx, s->Y[2] = Yz;
}

void plane_dir(const plane_magnus *restrict s, const double da[][3], double dO[restrict 3],
               plane_tangent_dir *restrict t)
{
    const double *a1 = s->a[0], *a2 = s->a[1], *a3 = s->a[2], *d1 = da[0], *d2 = da[1], *d3 = da[2];
    if (s->order == 4) {
        double u[3], v[3];
        plane_br(d1, a2, u);
        plane_br(a1, d2, v);
        for (int i = 0; i < 3; i++) dO[i] = d1[i] - (u[i] + v[i]) * INV12;
        return;
    }
    const double a1w = a1[0], a1x = a1[1], a1z = a1[2], a2w = a2[0], a2x = a2[1], a2z = a2[2];
    const double d1w = d1[0], d1x = d1[1], d1z = d1[2], d2w = d2[0], d2x = d2[1], d2z = d2[2];
    const double d3w = d3[0], d3x = d3[1], d3z = d3[2];
    /* C1' = br(d1, a2) + br(a1, d2) */
    const double C1x = (a2w * d1z - a2z * d1w) + (d2w * a1z - d2z * a1w);
    const double C1z = (a2x * d1w - a2w * d1x) + (d2x * a1w - d2w * a1x);
    /* z = 2 a3 + C1, dz = 2 d3 + C1', C2' = -(br(d1, z) + br(a1, dz)) / 60 */
    const double zw = 2.0 * a3[0], zx = 2.0 * a3[1] + s->C1[1], zz = 2.0 * a3[2] + s->C1[2];
    const double dzw = 2.0 * d3w, dzx = 2.0 * d3x + C1x, dzz = 2.0 * d3z + C1z;
    const double C2x = -((zw * d1z - zz * d1w) + (dzw * a1z - dzz * a1w)) * INV60;
    const double C2z = -((zx * d1w - zw * d1x) + (dzx * a1w - dzw * a1x)) * INV60;
    /* X' = -20 d1 - d3 + C1', Y' = d2 + C2', Omega' = d1 + d3 / 12 + (br(X', Y) + br(X, Y')) / 240 */
    const double Xw = -20.0 * d1w - d3w, Xx = -20.0 * d1x - d3x + C1x, Xz = -20.0 * d1z - d3z + C1z;
    const double Yw = d2w, Yx = d2x + C2x, Yz = d2z + C2z;
    const double *sX = s->X, *sY = s->Y;
    const double ux = sY[0] * Xz - sY[2] * Xw, uz = sY[1] * Xw - sY[0] * Xx;
    const double vx = Yw * sX[2] - Yz * sX[0], vz = Yx * sX[0] - Yw * sX[1];
    dO[0] = d1w + d3w * INV12;
    dO[1] = d1x + d3x * INV12 + (ux + vx) * INV240;
    dO[2] = d1z + d3z * INV12 + (uz + vz) * INV240;
    t->C1[0] = 0.0, t->C1[1] = C1x, t->C1[2] = C1z;
    t->X[0] = Xw, t->X[1] = Xx, t->X[2] = Xz;
    t->Y[0] = Yw, t->Y[1] = Yx, t->Y[2] = Yz;
}

void plane_second(const plane_magnus *restrict s, const double da[][3], const plane_tangent_dir *restrict t,
                  double d2[restrict 3])
{
    const double *d1 = da[0], *dd2 = da[1], *d3 = da[2], *a1 = s->a[0];
    if (s->order == 4) {
        double u[3];
        plane_br(d1, dd2, u);
        for (int i = 0; i < 3; i++) d2[i] = -u[i] * INV6;
        return;
    }
    const double d1w = d1[0], d1x = d1[1], d1z = d1[2], a1w = a1[0];
    /* C1'' = 2 br(d1, d2), dz = 2 d3 + C1', C2'' = -(2 br(d1, dz) + br(a1, C1'')) / 60 */
    const double Cx = 2.0 * (dd2[0] * d1z - dd2[2] * d1w), Cz = 2.0 * (dd2[1] * d1w - dd2[0] * d1x);
    const double dzw = 2.0 * d3[0], dzx = 2.0 * d3[1] + t->C1[1], dzz = 2.0 * d3[2] + t->C1[2];
    const double C2x = -(2.0 * (dzw * d1z - dzz * d1w) - Cz * a1w) * INV60;
    const double C2z = -(2.0 * (dzx * d1w - dzw * d1x) + Cx * a1w) * INV60;
    /* Omega'' = (br(C1'', Y) + 2 br(X', Y') + br(X, C2'')) / 240 (X'' = C1'', Y'' = C2'') */
    const double *sX = s->X, *sY = s->Y, *tX = t->X, *tY = t->Y;
    const double ux = sY[0] * Cz, uz = -sY[0] * Cx;
    const double vx = tY[0] * tX[2] - tY[2] * tX[0], vz = tY[1] * tX[0] - tY[0] * tX[1];
    const double wx = -C2z * sX[0], wz = C2x * sX[0];
    d2[0] = 0.0;
    d2[1] = (ux + 2.0 * vx + wx) * INV240;
    d2[2] = (uz + 2.0 * vz + wz) * INV240;
}

void plane_tangent_init(const double Omega[3], plane_tangent *t)
{
    memcpy(t->Omega, Omega, sizeof t->Omega);
    t->t2 = Omega[0] * Omega[0];
    t->theta = sqrt(t->t2);
    lie_coeffs(t->theta, t->f);
    lie_tangent_c(t->f, t->c);
    t->a = t->c[1] - t->t2 * t->c[3];
    t->b = t->c[2] - t->t2 * t->c[4];
}

/* T as a matrix: rows [1, 0, 0], [-a z + b w x, 1 - b w^2, a w], [a x + b w z, -a w, 1 - b w^2] */
void plane_dexp(plane_tangent *t)
{
    const double w = t->Omega[0], x = t->Omega[1], z = t->Omega[2], a = t->a, b = t->b;
    const double d = 1.0 - b * t->t2;
    double *T = t->T;
    T[0] = 1.0, T[3] = 0.0, T[6] = 0.0;
    T[1] = -a * z + b * w * x, T[4] = d, T[7] = a * w;
    T[2] = a * x + b * w * z, T[5] = -a * w, T[8] = d;
}


/* (d/dt T) v along Omega_dot = v: T' = a' A + a ad_v + b' A^2 + b (ad_v A + A ad_v), and
 * ad_v v = 0, so T' v = a' A v + b' A^2 v + b ad_v (A v) (a, b as functions of t2 = w^2, whose
 * rate is 2 w v_w; lie.c's lie_dexp_dot_apply_tc at d = d' = 0). */
void plane_dexp_dot_apply(const plane_tangent *t, const double v[3], double out[3])
{
    double h[6];
    lie_coeffs_deriv(t->theta, t->f, h);
    const double *c = t->c;
    const double t2 = t->t2, t2d = 2.0 * t->Omega[0] * v[0];
    const double c1d = 0.5 * (4.0 * h[2] - h[1]) * t2d, c2d = 0.5 * (5.0 * h[3] - h[2]) * t2d;
    const double c3d = 0.5 * (h[3] - 2.0 * h[4]) * t2d, c4d = 0.5 * (h[4] - 3.0 * h[5]) * t2d;
    const double ad = c1d - t2d * c[3] - t2 * c3d, bd = c2d - t2d * c[4] - t2 * c4d;
    double Av[3], AAv[3], vAv[3];
    plane_ad(t->Omega, v, Av);
    plane_ad(t->Omega, Av, AAv);
    plane_ad(v, Av, vAv);
    for (int i = 0; i < 3; i++) out[i] = ad * Av[i] + bd * AAv[i] + t->b * vAv[i];
}

/* exp(Omega): R about y by (f0, f1 w), r = n + f2 k x n + f3 k x (k x n) (lie.h's
 * lie_exp_coeffs in the plane) */
void plane_exp(const plane_tangent *t, plane_pose *e)
{
    const double w = t->Omega[0], x = t->Omega[1], z = t->Omega[2], *f = t->f;
    e->c = f[0];
    e->s = f[1] * w;
    e->px = x + f[2] * (w * z) + f[3] * (-w * (w * x));
    e->pz = z + f[2] * (-w * x) + f[3] * (-w * (w * z));
}

/* P ad_x for a 3x3 P (column-major): ad_x's columns are (0, -x_z, x_x), (0, 0, -x_w), (0, x_w, 0) */
static void m3_times_ad(const double P[9], const double x[3], double o[9])
{
    for (int i = 0; i < 3; i++) {
        const double p1 = P[i + 3], p2 = P[i + 6];
        o[i] = -p1 * x[2] + p2 * x[1];
        o[i + 3] = -p2 * x[0];
        o[i + 6] = p1 * x[0];
    }
}

/* W <- sum_j c_j P_j */
static void m3_comb(double W[9], int np, const double *c, const double *const *P)
{
    for (int e = 0; e < 9; e++) {
        double s = 0;
        for (int j = 0; j < np; j++) s += c[j] * P[j][e];
        W[e] = s;
    }
}

/* magnus_blocks.c's blk6_slots in the plane: W_i = G dOmega/dalpha_i */
void plane_slots(const double G[9], const plane_magnus *ms, double W[MAGNUS_MAX_POINTS][9])
{
    const double *a1 = ms->a[0], *a2 = ms->a[1];
    if (ms->order == 4) {
        double G2[9], G1[9];
        m3_times_ad(G, a2, G2);
        m3_times_ad(G, a1, G1);
        const double c0[2] = {1.0, -1.0 / 12.0}, c1 = 1.0 / 12.0;
        const double *P0[2] = {G, G2}, *P1[1] = {G1};
        m3_comb(W[0], 2, c0, P0);
        m3_comb(W[1], 1, &c1, P1);
        return;
    }
    double z[3];
    for (int i = 0; i < 3; i++) z[i] = 2.0 * ms->a[2][i] + ms->C1[i];
    double GY[9], GX[9], GYa2[9], GXz[9], GXa1[9], GXa1a2[9], GYa1[9], GXa1a1[9];
    m3_times_ad(G, ms->Y, GY);
    m3_times_ad(G, ms->X, GX);
    m3_times_ad(GY, a2, GYa2);
    m3_times_ad(GX, z, GXz);
    m3_times_ad(GX, a1, GXa1);
    m3_times_ad(GXa1, a2, GXa1a2);
    m3_times_ad(GY, a1, GYa1);
    m3_times_ad(GXa1, a1, GXa1a1);
    const double k = 1.0 / 240.0, k60 = k / 60.0, k30 = k / 30.0;
    const double c0[5] = {1.0, -20.0 * k, k, k60, -k60};
    const double *P0[5] = {G, GY, GYa2, GXz, GXa1a2};
    const double c1[3] = {-k, -k, k60};
    const double *P1[3] = {GYa1, GX, GXa1a1};
    const double c2[3] = {1.0 / 12.0, -k, -k30};
    const double *P2[3] = {G, GY, GXa1};
    m3_comb(W[0], 5, c0, P0);
    m3_comb(W[1], 3, c1, P1);
    m3_comb(W[2], 3, c2, P2);
}
