#include "lie_plane.h"

#include <math.h>

/* The rules' constant divisors as products: a division's latency sat on every step's chain
 * (plane_eval and plane_dir were 15 % of the reaching bench); the reciprocals round once, so
 * the results move in the last bit from the general path's. */
static const double INV6 = 1.0 / 6.0, INV12 = 1.0 / 12.0, INV60 = 1.0 / 60.0, INV240 = 1.0 / 240.0;

void plane_eval(plane_magnus *s, double Omega[3])
{
    const double *a1 = s->a[0], *a2 = s->a[1], *a3 = s->a[2];
    double c[3], z[3], C1[3], C2[3], X[3], Y[3];
    if (s->order == 4) {
        plane_br(a1, a2, c);
        for (int i = 0; i < 3; i++) Omega[i] = a1[i] - c[i] * INV12;
        return;
    }
    /* the brackets in locals, stored once at the end: read back from s straight after their
     * stores, they stalled the store-to-load forwarding */
    plane_br(a1, a2, C1);
    for (int i = 0; i < 3; i++) z[i] = 2.0 * a3[i] + C1[i];
    plane_br(a1, z, C2);
    for (int i = 0; i < 3; i++) {
        C2[i] *= -INV60;
        X[i] = -20.0 * a1[i] - a3[i] + C1[i];
        Y[i] = a2[i] + C2[i];
    }
    plane_br(X, Y, c);
    for (int i = 0; i < 3; i++) Omega[i] = a1[i] + a3[i] * INV12 + c[i] * INV240;
    memcpy(s->C1, C1, sizeof C1);
    memcpy(s->C2, C2, sizeof C2);
    memcpy(s->X, X, sizeof X);
    memcpy(s->Y, Y, sizeof Y);
}

void plane_dir(const plane_magnus *s, const double da[][3], double dO[3], plane_tangent_dir *t)
{
    const double *a1 = s->a[0], *a2 = s->a[1], *a3 = s->a[2], *d1 = da[0], *d2 = da[1], *d3 = da[2];
    double u[3], v[3], z[3], dz[3], C1[3], C2[3], X[3], Y[3];
    if (s->order == 4) {
        plane_br(d1, a2, u);
        plane_br(a1, d2, v);
        for (int i = 0; i < 3; i++) dO[i] = d1[i] - (u[i] + v[i]) * INV12;
        return;
    }
    plane_br(d1, a2, u);
    plane_br(a1, d2, v);
    for (int i = 0; i < 3; i++) {
        C1[i] = u[i] + v[i];
        z[i] = 2.0 * a3[i] + s->C1[i];
        dz[i] = 2.0 * d3[i] + C1[i];
    }
    plane_br(d1, z, u);
    plane_br(a1, dz, v);
    for (int i = 0; i < 3; i++) {
        C2[i] = -(u[i] + v[i]) * INV60;
        X[i] = -20.0 * d1[i] - d3[i] + C1[i];
        Y[i] = d2[i] + C2[i];
    }
    plane_br(X, s->Y, u);
    plane_br(s->X, Y, v);
    for (int i = 0; i < 3; i++) dO[i] = d1[i] + d3[i] * INV12 + (u[i] + v[i]) * INV240;
    memcpy(t->C1, C1, sizeof C1);
    memcpy(t->X, X, sizeof X);
    memcpy(t->Y, Y, sizeof Y);
}

void plane_second(const plane_magnus *s, const double da[][3], const plane_tangent_dir *t, double d2[3])
{
    const double *d1 = da[0], *dd2 = da[1], *d3 = da[2], *a1 = s->a[0];
    double C1dd[3], C2dd[3], dz[3], u[3], v[3], w[3];
    if (s->order == 4) {
        plane_br(d1, dd2, u);
        for (int i = 0; i < 3; i++) d2[i] = -u[i] * INV6;
        return;
    }
    plane_br(d1, dd2, C1dd);
    for (int i = 0; i < 3; i++) {
        C1dd[i] *= 2.0;
        dz[i] = 2.0 * d3[i] + t->C1[i];
    }
    plane_br(d1, dz, u);
    plane_br(a1, C1dd, v);
    for (int i = 0; i < 3; i++) C2dd[i] = -(2.0 * u[i] + v[i]) * INV60;
    plane_br(C1dd, s->Y, u);
    plane_br(t->X, t->Y, v);
    plane_br(s->X, C2dd, w);
    for (int i = 0; i < 3; i++) d2[i] = (u[i] + 2.0 * v[i] + w[i]) * INV240;
}

void plane_tangent_init(const double Omega[3], plane_tangent *t)
{
    memcpy(t->Omega, Omega, sizeof t->Omega);
    t->t2 = Omega[0] * Omega[0];
    t->theta = sqrt(t->t2);
    double *f = t->f, *c = t->c;
    lie_coeffs(t->theta, f);
    c[0] = 1.0;
    c[1] = 0.5 * (4.0 * f[2] - f[1]);
    c[2] = 0.5 * (5.0 * f[3] - f[2]);
    c[3] = 0.5 * (f[3] - 2.0 * f[4]);
    c[4] = 0.5 * (f[4] - 3.0 * f[5]);
    t->a = c[1] - t->t2 * c[3];
    t->b = c[2] - t->t2 * c[4];
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
