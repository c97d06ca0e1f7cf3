#include "lie.h"

#include "dense.h"
#include "vec3.h"
#include "vector_clones.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

void lie_pose_identity(lie_pose *g)
{
    memset(g, 0, sizeof *g);
    g->R[0] = g->R[4] = g->R[8] = 1.0;
}

void lie_skew(const double v[3], double S[9])
{
    S[0] = 0;     S[3] = -v[2]; S[6] = v[1];
    S[1] = v[2];  S[4] = 0;     S[7] = -v[0];
    S[2] = -v[1]; S[5] = v[0];  S[8] = 0;
}

/* the first omitted term is below 1e-25 relative for theta <= 1 and below 1e-18 for the
 * derivatives' series, which run to LIE_DERIV_SWITCH */
#define SERIES_TERMS 20

/* inv[m][k] = 1 / ((2k+m)(2k+m-1)), the ratio of successive terms of f_m */
static double series_inv[8][SERIES_TERMS + 1];
/* deriv_ratio[k] = (k+1) / k: the weights' ratio in lie_coeffs_deriv's series, divided once
 * here instead of at every term (the same quotient, so the same sums bit for bit) */
static double deriv_ratio[SERIES_TERMS + 1];
/* t2_max[K]: the largest theta^2 for which the terms after k = K are below 1e-17 relative
 * (the worst case is f_0: theta^(2K+2) / (2K+2)!). The Zanna steps' angles are small, so
 * most evaluations need 3 to 5 terms instead of SERIES_TERMS. */
static double t2_max[SERIES_TERMS + 1];
static const double inv_fact[8] = {1.0, 1.0, 0.5, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040};

static void series_table_fill(void)
{
    for (int m = 0; m < 8; m++)
        for (int k = 1; k <= SERIES_TERMS; k++) series_inv[m][k] = 1.0 / ((double)(2 * k + m) * (2 * k + m - 1));
    for (int k = 1; k <= SERIES_TERMS; k++) deriv_ratio[k] = ((double)k + 1.0) / k;
    double fact = 1.0; /* (2K+2)! */
    for (int K = 1; K <= SERIES_TERMS; K++) {
        fact = 2.0;
        for (int i = 3; i <= 2 * K + 2; i++) fact *= i;
        t2_max[K] = pow(1e-17 * fact, 1.0 / (K + 1));
    }
    t2_max[SERIES_TERMS] = INFINITY; /* the switch angles keep theta <= LIE_DERIV_SWITCH here */
}

/* The number of series terms that theta^2 = t2 needs. */
static int series_terms(double t2)
{
    int K = 1;
    while (t2 > t2_max[K]) K++;
    return K;
}

static void series_table(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, series_table_fill);
}

void lie_coeffs_series(double theta, double f[6])
{
    series_table();
    const double t2 = theta * theta;
    const int K = series_terms(t2);
    /* Horner on sum_k (-t2)^k / (2k+m)! for m = 4, 5, from the innermost term out */
    double acc4 = 0.0, acc5 = 0.0;
    for (int k = K; k >= 1; k--) {
        acc4 = (1.0 - t2 * acc4) * series_inv[4][k];
        acc5 = (1.0 - t2 * acc5) * series_inv[5][k];
    }
    const double f4 = (1.0 - t2 * acc4) * inv_fact[4], f5 = (1.0 - t2 * acc5) * inv_fact[5];
    /* the others from f_m = 1/m! - theta^2 f_(m+2), downward: each step multiplies the error
     * carried by theta^2 <= 1 and subtracts at most 1/(m+2)! from 1/m!, no cancellation. In
     * registers, stored once: f_(m+2) stored and read straight back stalled the store-to-load
     * forwarding (5 % of the cantilever bench's time on this line alone). */
    const double f3 = inv_fact[3] - t2 * f5, f2 = inv_fact[2] - t2 * f4;
    const double f1 = inv_fact[1] - t2 * f3, f0 = inv_fact[0] - t2 * f2;
    f[0] = f0;
    f[1] = f1;
    f[2] = f2;
    f[3] = f3;
    f[4] = f4;
    f[5] = f5;
}

VECTOR_CLONES
void lie_coeffs_deriv(double theta, const double f[6], double h[6])
{
    const double x = theta * theta;
    h[0] = 0.0;
    if (theta >= LIE_DERIV_SWITCH) {
        /* d/dtheta (theta^m f_m) = theta^(m-1) f_(m-1) gives h_m = (f_(m-1) - m f_m) / (2x) */
        for (int m = 1; m < 6; m++) h[m] = (f[m - 1] - m * f[m]) / (2.0 * x);
        return;
    }
    series_table();
    /* h_m = -sum_j (j+1) (-x)^j / (2j+2+m)!: the series of f_(m+2) with weights j+1; its
     * terms fall at least as fast as f_0's (one more term for the weight) */
    const int J = series_terms(x) < SERIES_TERMS - 1 ? series_terms(x) + 1 : SERIES_TERMS;
    /* the five Horner chains side by side, each the same operations in the same order as on
     * its own (one after the other, each chain's latency was the loop's) */
    double acc[6] = {0};
    for (int j = J; j >= 1; j--)
        for (int m = 1; m < 6; m++) acc[m] = deriv_ratio[j] * (1.0 - x * acc[m]) * series_inv[m + 2][j];
    /* term ratios: t_j / t_(j-1) = -x (j+1)/j / ((2j+mm)(2j+mm-1)), mm = m + 2 */
    for (int m = 1; m < 6; m++) h[m] = -(1.0 - x * acc[m]) * inv_fact[m + 2];
}

void lie_coeffs_closed(double theta, double f[6])
{
    const double t2 = theta * theta;
    f[0] = cos(theta);
    f[1] = sin(theta) / theta;
    f[2] = (1.0 - f[0]) / t2;
    f[3] = (1.0 - f[1]) / t2;
    f[4] = (0.5 - f[2]) / t2;
    f[5] = (1.0 / 6.0 - f[3]) / t2;
}

void lie_coeffs(double theta, double f[6])
{
    if (theta < LIE_SERIES_SWITCH)
        lie_coeffs_series(theta, f);
    else
        lie_coeffs_closed(theta, f);
}

void lie_exp(const double Omega[6], lie_pose *g)
{
    const double theta = sqrt(Omega[0] * Omega[0] + Omega[1] * Omega[1] + Omega[2] * Omega[2]);
    double f[6];
    lie_coeffs(theta, f);
    lie_exp_coeffs(Omega, f, g);
}

void lie_ad(const double xi[6], double ad[36])
{
    double K[9], N[9];
    lie_skew(xi, K);
    lie_skew(xi + 3, N);
    memset(ad, 0, 36 * sizeof(double));
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            ad[i + 6 * j] = K[i + 3 * j];
            ad[(i + 3) + 6 * (j + 3)] = K[i + 3 * j];
            ad[(i + 3) + 6 * j] = N[i + 3 * j];
        }
}

void lie_coad_apply(const double a[6], const double b[6], double out[6])
{
    /* [k x bm + n x bf ; k x bf] */
    double t1[3], t2[3], t3[3];
    vec3_cross(a, b, t1);
    vec3_cross(a + 3, b + 3, t2);
    vec3_cross(a, b + 3, t3);
    for (int i = 0; i < 3; i++) {
        out[i] = t1[i] + t2[i];
        out[i + 3] = t3[i];
    }
}

void lie_Ad(const lie_pose *g, double Ad[36])
{
    double S[9], SR[9];
    lie_skew(g->r, S);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            SR[i + 3 * j] = S[i] * g->R[3 * j] + S[i + 3] * g->R[1 + 3 * j] + S[i + 6] * g->R[2 + 3 * j];
    memset(Ad, 0, 36 * sizeof(double));
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            Ad[i + 6 * j] = g->R[i + 3 * j];
            Ad[(i + 3) + 6 * (j + 3)] = g->R[i + 3 * j];
            Ad[(i + 3) + 6 * j] = SR[i + 3 * j];
        }
}

void lie_Ad_apply(const lie_pose *g, const double x[6], double out[6])
{
    /* [R w ; r x (R w) + R v] */
    double Rw[3], Rv[3], c[3];
    for (int i = 0; i < 3; i++) {
        Rw[i] = g->R[i] * x[0] + g->R[i + 3] * x[1] + g->R[i + 6] * x[2];
        Rv[i] = g->R[i] * x[3] + g->R[i + 3] * x[4] + g->R[i + 6] * x[5];
    }
    vec3_cross(g->r, Rw, c);
    for (int i = 0; i < 3; i++) {
        out[i] = Rw[i];
        out[i + 3] = c[i] + Rv[i];
    }
}

static void mat6_mul(const double A[36], const double B[36], double C[36])
{
    for (int j = 0; j < 6; j++)
        for (int i = 0; i < 6; i++) {
            double s = 0.0;
            for (int k = 0; k < 6; k++) s += A[i + 6 * k] * B[k + 6 * j];
            C[i + 6 * j] = s;
        }
}

void lie_dexp(const double Omega[6], double T[36])
{
    const double theta = sqrt(Omega[0] * Omega[0] + Omega[1] * Omega[1] + Omega[2] * Omega[2]);
    double f[6];
    lie_coeffs(theta, f);
    /* The App. C coefficients (4-4cos-t sin)/(2t^2), (4t-5sin+t cos)/(2t^3),
     * (2-2cos-t sin)/(2t^4), (2t-3sin+t cos)/(2t^5), rewritten in the f_m so that none
     * divides by theta. */
    const double c1 = 0.5 * (4.0 * f[2] - f[1]);
    const double c2 = 0.5 * (5.0 * f[3] - f[2]);
    const double c3 = 0.5 * (f[3] - 2.0 * f[4]);
    const double c4 = 0.5 * (f[4] - 3.0 * f[5]);
    double A1[36], A2[36], A3[36], A4[36];
    lie_ad(Omega, A1);
    mat6_mul(A1, A1, A2);
    mat6_mul(A2, A1, A3);
    mat6_mul(A2, A2, A4);
    for (int i = 0; i < 36; i++) T[i] = c1 * A1[i] + c2 * A2[i] + c3 * A3[i] + c4 * A4[i];
    for (int i = 0; i < 6; i++) T[i + 6 * i] += 1.0;
}

void lie_tangent_init(const double Omega[6], lie_tangent *tc)
{
    memcpy(tc->Omega, Omega, sizeof tc->Omega);
    tc->theta = sqrt(Omega[0] * Omega[0] + Omega[1] * Omega[1] + Omega[2] * Omega[2]);
    lie_coeffs(tc->theta, tc->f);
    lie_tangent_c(tc->f, tc->c);
}

void lie_dexp_apply_tc(const lie_tangent *tc, const double x[6], double out[6])
{
    /* Horner: T x = x + A(c1 x + A(c2 x + A(c3 x + A c4 x))) */
    const double *c = tc->c;
    double w[6], t[6];
    for (int i = 0; i < 6; i++) w[i] = c[4] * x[i];
    for (int k = 3; k >= 0; k--) {
        lie_ad_apply(tc->Omega, w, t);
        for (int i = 0; i < 6; i++) w[i] = c[k] * x[i] + t[i];
    }
    memcpy(out, w, sizeof w);
}

void lie_dexp_apply(const double Omega[6], const double x[6], double out[6])
{
    lie_tangent tc;
    lie_tangent_init(Omega, &tc);
    lie_dexp_apply_tc(&tc, x, out);
}

void lie_dexp_dot_apply(const double Omega[6], const double v[6], double out[6])
{
    lie_tangent tc;
    lie_tangent_init(Omega, &tc);
    lie_dexp_dot_apply_tc(&tc, v, out);
}

VECTOR_CLONES
void lie_dexp_dot_apply_tc(const lie_tangent *tc, const double v[6], double out[6])
{
    /* T = [[A, 0], [B, A]] in closed form (magnus_blocks.c's blk6_dexp): with K = k~, N = n~
     * (Omega = [k; n]), t2 = |k|^2, d = k . n,
     *   A = (1 - b t2) I + a K + b k k^T,
     *   B = a N + kb K + b (n k^T + k n^T) + kk k k^T + ib I,
     * a = c1 - t2 c3, b = c2 - t2 c4, kb = -2 d c3, kk = -2 d c4, ib = -2 d (c2 - 2 t2 c4).
     * Along Omega_dot = v = [p; u] every coefficient moves through t2' = 2 k . p (the c_j as
     * functions of t2) and d' = p . n + k . u, and T_dot v = [A' p; B' p + A' u] takes a few
     * dozen flops: nine ad products (sum_k c_k' A^k v + c_k sum_j A^j B A^(k-1-j) v) took
     * three times as many, a tenth of the cantilever bench's time. */
    const double *k = tc->Omega, *n = tc->Omega + 3, *p = v, *u = v + 3, *c = tc->c;
    double h[6];
    lie_coeffs_deriv(tc->theta, tc->f, h);
    const double t2 = vec3_dot(k, k), d = vec3_dot(k, n);
    const double kp = vec3_dot(k, p), ku = vec3_dot(k, u), np = vec3_dot(n, p), pp = vec3_dot(p, p);
    const double pu = vec3_dot(p, u);
    const double t2d = 2.0 * kp, dd = np + ku;
    /* c_j' = dc_j/dt2 t2' (lie_tangent_init's c_j in the f_m, differentiated by h_m) */
    const double c1d = 0.5 * (4.0 * h[2] - h[1]) * t2d, c2d = 0.5 * (5.0 * h[3] - h[2]) * t2d;
    const double c3d = 0.5 * (h[3] - 2.0 * h[4]) * t2d, c4d = 0.5 * (h[4] - 3.0 * h[5]) * t2d;
    const double a = c[1] - t2 * c[3], b = c[2] - t2 * c[4];
    const double ad = c1d - t2d * c[3] - t2 * c3d, bd = c2d - t2d * c[4] - t2 * c4d;
    const double kk = -2.0 * d * c[4]; /* kb = -2 d c3 multiplies p x p = 0 */
    const double kbd = -2.0 * (dd * c[3] + d * c3d), kkd = -2.0 * (dd * c[4] + d * c4d);
    const double ibd = -2.0 * (dd * (c[2] - 2.0 * t2 * c[4]) + d * (c2d - 2.0 * t2d * c[4] - 2.0 * t2 * c4d));
    const double iad = -(bd * t2 + b * t2d); /* (1 - b t2)' */
    double kxp[3], kxu[3], pxu[3], nxp[3], uxp[3];
    vec3_cross(k, p, kxp);
    vec3_cross(k, u, kxu);
    vec3_cross(p, u, pxu);
    vec3_cross(n, p, nxp);
    vec3_cross(u, p, uxp);
    for (int i = 0; i < 3; i++) {
        /* A' x = iad x + ad k x x + a p x x + bd k (k.x) + b (p (k.x) + k (p.x)) */
        const double Adp = iad * p[i] + ad * kxp[i] + bd * k[i] * kp + b * (p[i] * kp + k[i] * pp);
        const double Adu = iad * u[i] + ad * kxu[i] + a * pxu[i] + bd * k[i] * ku + b * (p[i] * ku + k[i] * pu);
        /* B' p = ad n x p + a u x p + kbd k x p + bd (n (k.p) + k (n.p))
         *        + b (u (k.p) + n (p.p) + p (n.p) + k (u.p)) + kkd k (k.p) + kk (p (k.p) + k (p.p)) + ibd p */
        const double Bdp = ad * nxp[i] + a * uxp[i] + kbd * kxp[i] + bd * (n[i] * kp + k[i] * np) +
                           b * (u[i] * kp + n[i] * pp + p[i] * np + k[i] * pu) + kkd * k[i] * kp +
                           kk * (p[i] * kp + k[i] * pp) + ibd * p[i];
        out[i] = Adp;
        out[i + 3] = Bdp + Adu;
    }
}

void lie_mat6_apply(const double A[36], const double x[6], double y[6])
{
    double o[6];
    for (int i = 0; i < 6; i++) {
        double s = 0.0;
        for (int k = 0; k < 6; k++) s += A[i + 6 * k] * x[k];
        o[i] = s;
    }
    memcpy(y, o, sizeof o);
}

void lie_so3_log(const double E[9], double e[3])
{
    const double w[3] = {0.5 * (E[5] - E[7]), 0.5 * (E[6] - E[2]), 0.5 * (E[1] - E[3])};
    const double sn = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    const double cs = 0.5 * (E[0] + E[4] + E[8] - 1.0);
    const double th = atan2(sn, cs);
    if (cs > -0.5) {
        const double f = sn < 1e-8 ? 1.0 + th * th / 6.0 : th / sn;
        for (int i = 0; i < 3; i++) e[i] = f * w[i];
        return;
    }
    /* Near pi the antisymmetric part w = sin(theta) a vanishes and reads the axis with an
     * absolute error of rounding over sin(theta); the symmetric part
     * (E + E^T)/2 - cos(theta) I = (1 - cos(theta)) a a^T holds it with the error of rounding
     * over 1 - cos(theta) >= 1.5. Its largest diagonal entry gives the best column; w gives
     * the sign (at exactly pi both signs are the same rotation). */
    double B[9];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) B[i + 3 * j] = (0.5 * (E[i + 3 * j] + E[j + 3 * i]) - (i == j ? cs : 0.0)) / (1.0 - cs);
    int k = 0;
    for (int i = 1; i < 3; i++)
        if (B[i + 3 * i] > B[k + 3 * k]) k = i;
    const double nk = sqrt(B[k + 3 * k]);
    double a[3] = {B[3 * k] / nk, B[1 + 3 * k] / nk, B[2 + 3 * k] / nk};
    const double sgn = a[0] * w[0] + a[1] * w[1] + a[2] * w[2] < 0 ? -1.0 : 1.0;
    const double na = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    for (int i = 0; i < 3; i++) e[i] = sgn * th * a[i] / na;
}

void lie_rotation_about(const double a[3], double th, double R[9])
{
    const double c = cos(th), s = sin(th), v = 1 - c;
    R[0] = c + a[0] * a[0] * v;
    R[4] = c + a[1] * a[1] * v;
    R[8] = c + a[2] * a[2] * v;
    R[1] = a[1] * a[0] * v + a[2] * s; /* (1,0) */
    R[3] = a[0] * a[1] * v - a[2] * s; /* (0,1) */
    R[2] = a[2] * a[0] * v - a[1] * s; /* (2,0) */
    R[6] = a[0] * a[2] * v + a[1] * s; /* (0,2) */
    R[5] = a[2] * a[1] * v + a[0] * s; /* (2,1) */
    R[7] = a[1] * a[2] * v - a[0] * s; /* (1,2) */
}


/* lie.h */
void lie_se3_log(const double R[9], const double r[3], double x[6])
{
    double w[3];
    lie_so3_log(R, w);
    const double th = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    double f[6], W[9], V[9];
    lie_coeffs(th, f);
    lie_skew(w, W);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
            double w2 = 0;
            for (int l = 0; l < 3; l++) w2 += W[i + 3 * l] * W[l + 3 * k];
            V[i + 3 * k] = (i == k) + f[2] * W[i + 3 * k] + f[3] * w2;
        }
    int piv[3];
    double u[3] = {r[0], r[1], r[2]};
    if (dense_lu(V, 3, piv) == 0) dense_lu_solve(V, 3, piv, u);
    for (int i = 0; i < 3; i++) {
        x[i] = w[i];
        x[3 + i] = u[i];
    }
}


/* lie.h; R^T read once */
VECTOR_CLONES
void lie_Ad_inv_columns(const lie_pose *g, int ncols, const double *Js, double *J)
{
    const double *R = g->R;
    const double a00 = R[0], a01 = R[1], a02 = R[2], a10 = R[3], a11 = R[4], a12 = R[5], a20 = R[6],
                 a21 = R[7], a22 = R[8]; /* row i of R^T is column i of R */
    const double r[3] = {g->r[0], g->r[1], g->r[2]};
    for (int j = 0; j < ncols; j++) {
        const double *x = Js + 6 * j;
        double *o = J + 6 * j;
        const double x0 = x[0], x1 = x[1], x2 = x[2];
        const double v0 = x[3] - (r[1] * x2 - r[2] * x1), v1 = x[4] - (r[2] * x0 - r[0] * x2),
                     v2 = x[5] - (r[0] * x1 - r[1] * x0);
        o[0] = a00 * x0 + a01 * x1 + a02 * x2;
        o[1] = a10 * x0 + a11 * x1 + a12 * x2;
        o[2] = a20 * x0 + a21 * x1 + a22 * x2;
        o[3] = a00 * v0 + a01 * v1 + a02 * v2;
        o[4] = a10 * v0 + a11 * v1 + a12 * v2;
        o[5] = a20 * v0 + a21 * v1 + a22 * v2;
    }
}
