/* SE(3) maths for the GVS recursion (paper App. C).
 * Twists are 6-vectors ordered (angular; linear) = (kappa; nu) or (omega; u), as in Eq. 38.
 * 3x3 and 6x6 matrices are column-major (A[i + n*j]) so they can go to BLAS/LAPACK as is. */
#ifndef ROD_LIE_H
#define ROD_LIE_H

#include "vec3.h"

#include <string.h>

typedef struct {
    double R[9]; /* rotation, column-major; columns are the directors d1, d2, d3 */
    double r[3]; /* position of the centroid */
} lie_pose;

void lie_pose_identity(lie_pose *g);
/* c = a * b (inline, as the few below: the kinematic recursion calls them at every step, and
 * called across files their results, stored element by element, were read back in pairs and
 * stalled the store-to-load forwarding) */
static inline void lie_pose_mul(const lie_pose *a, const lie_pose *b, lie_pose *c)
{
    lie_pose out;
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            out.R[i + 3 * j] = a->R[i] * b->R[3 * j] + a->R[i + 3] * b->R[1 + 3 * j] +
                               a->R[i + 6] * b->R[2 + 3 * j];
    for (int i = 0; i < 3; i++)
        out.r[i] = a->r[i] + a->R[i] * b->r[0] + a->R[i + 3] * b->r[1] + a->R[i + 6] * b->r[2];
    *c = out;
}

void lie_skew(const double v[3], double S[9]);
/* The entire functions f_m(theta) = sum_k (-1)^k theta^(2k) / (2k+m)!, m = 0..5, so that
 * cos = f0, sin/theta = f1, (1-cos)/theta^2 = f2, (theta-sin)/theta^3 = f3. Below the switch
 * angle they are summed as series, above it from the closed forms: no 1/theta^k blow-up. */
#define LIE_SERIES_SWITCH 1.0
void lie_coeffs(double theta, double f[6]);
void lie_coeffs_series(double theta, double f[6]);
void lie_coeffs_closed(double theta, double f[6]);

/* exp of the se(3) element Omega (App. C). */
void lie_exp(const double Omega[6], lie_pose *g);
/* ad_xi (App. C), 6x6. */
void lie_ad(const double xi[6], double ad[36]);
/* ad_a b, without forming the matrix: [k x bk ; n x bk + k x bn]. Inline: the recursion
 * calls it a few hundred times per station. */
static inline void lie_ad_apply(const double a[6], const double b[6], double out[6])
{
    const double o0 = a[1] * b[2] - a[2] * b[1], o1 = a[2] * b[0] - a[0] * b[2], o2 = a[0] * b[1] - a[1] * b[0];
    const double o3 = a[4] * b[2] - a[5] * b[1] + a[1] * b[5] - a[2] * b[4];
    const double o4 = a[5] * b[0] - a[3] * b[2] + a[2] * b[3] - a[0] * b[5];
    const double o5 = a[3] * b[1] - a[4] * b[0] + a[0] * b[4] - a[1] * b[3];
    out[0] = o0;
    out[1] = o1;
    out[2] = o2;
    out[3] = o3;
    out[4] = o4;
    out[5] = o5;
}
/* coadjoint as the paper defines it: ad*_xi = [[k~, n~], [0, k~]] = -ad_xi^T. */
void lie_coad_apply(const double a[6], const double b[6], double out[6]);
/* Ad_g = [[R, 0], [r~R, R]], 6x6. */
void lie_Ad(const lie_pose *g, double Ad[36]);
/* Ad_g^{-1} x without forming the matrix. */
/* Y = Ad_g^{-1} X for ncols 6-vectors side by side (6 x ncols, column-major): a Jacobian
 * from the base frame to the body frame. Y may be X (each column is read whole first). */
void lie_Ad_inv_columns(const lie_pose *g, int ncols, const double *X, double *Y);
static inline void lie_Ad_inv_apply(const lie_pose *g, const double x[6], double out[6])
{
    /* [R^T w ; R^T (v - r x w)] */
    double c[3], v[3];
    vec3_cross(g->r, x, c);
    for (int i = 0; i < 3; i++) v[i] = x[i + 3] - c[i];
    double o[6];
    for (int i = 0; i < 3; i++) {
        o[i] = g->R[3 * i] * x[0] + g->R[1 + 3 * i] * x[1] + g->R[2 + 3 * i] * x[2];
        o[i + 3] = g->R[3 * i] * v[0] + g->R[1 + 3 * i] * v[1] + g->R[2 + 3 * i] * v[2];
    }
    memcpy(out, o, sizeof o);
}
void lie_Ad_apply(const lie_pose *g, const double x[6], double out[6]);
/* Tangent operator T_Omega = sum_k ad_Omega^k/(k+1)! in closed form (App. C), 6x6, so that
 * d/dt exp(Omega) = exp(Omega) (Ad_{exp(Omega)}^{-1} T_Omega Omega_dot)^. */
void lie_dexp(const double Omega[6], double T[36]);

/* The coefficients of exp and T at one Omega, computed once and reused by the *_tc calls
 * (the recursion evaluates exp, T and T_dot at the same Omega several times a step). */
typedef struct {
    double Omega[6];
    double theta;
    double f[6]; /* f_0..f_5 of lie_coeffs */
    double c[5]; /* T = sum_k c_k ad^k */
} lie_tangent;

void lie_tangent_init(const double Omega[6], lie_tangent *tc);
/* T's coefficients c_0..c_4 (T = sum_k c_k ad^k) from lie_coeffs' f at the same angle, for
 * se(3) and its plane alike */
static inline void lie_tangent_c(const double f[6], double c[5])
{
    c[0] = 1.0;
    c[1] = 0.5 * (4.0 * f[2] - f[1]);
    c[2] = 0.5 * (5.0 * f[3] - f[2]);
    c[3] = 0.5 * (f[3] - 2.0 * f[4]);
    c[4] = 0.5 * (f[4] - 3.0 * f[5]);
}
/* exp(Omega) from the coefficients f of its angle (lie_coeffs) */
static inline void lie_exp_coeffs(const double Omega[6], const double f[6], lie_pose *g)
{
    const double *k = Omega, *n = Omega + 3;
    /* R = I + f1 K + f2 K^2 (Rodrigues) with K^2 = k k^T - theta^2 I and 1 - f2 theta^2 = f0;
     * r = (I + f2 K + f3 K^2) nu = nu + f2 k x nu + f3 k x (k x nu) */
    const double s1 = f[1] * k[0], s2 = f[1] * k[1], s3 = f[1] * k[2];
    const double p00 = f[2] * k[0] * k[0], p11 = f[2] * k[1] * k[1], p22 = f[2] * k[2] * k[2];
    const double p01 = f[2] * k[0] * k[1], p02 = f[2] * k[0] * k[2], p12 = f[2] * k[1] * k[2];
    g->R[0] = f[0] + p00;
    g->R[1] = p01 + s3;
    g->R[2] = p02 - s2;
    g->R[3] = p01 - s3;
    g->R[4] = f[0] + p11;
    g->R[5] = p12 + s1;
    g->R[6] = p02 + s2;
    g->R[7] = p12 - s1;
    g->R[8] = f[0] + p22;
    double a[3], b[3];
    vec3_cross(k, n, a);
    vec3_cross(k, a, b);
    for (int i = 0; i < 3; i++) g->r[i] = n[i] + f[2] * a[i] + f[3] * b[i];
}

static inline void lie_exp_tc(const lie_tangent *tc, lie_pose *g)
{
    lie_exp_coeffs(tc->Omega, tc->f, g);
}

void lie_dexp_apply_tc(const lie_tangent *tc, const double x[6], double out[6]);
void lie_dexp_dot_apply_tc(const lie_tangent *tc, const double v[6], double out[6]);

/* T_Omega x without forming the matrix. */
void lie_dexp_apply(const double Omega[6], const double x[6], double out[6]);
/* (d/dt T_Omega) v for Omega_dot = v: the derivative of the tangent operator along v, applied
 * to v (the term J-dot needs, seeds/001). */
void lie_dexp_dot_apply(const double Omega[6], const double v[6], double out[6]);
/* h_m = d f_m / d(theta^2), m = 1..5 (h[0] unused): series below LIE_DERIV_SWITCH, closed
 * forms above. The closed form (f_(m-1) - m f_m) / (2 theta^2) cancels about three digits
 * just above theta = 1 (f_4 and 5 f_5 both near 1/24, each itself a difference), less as
 * theta grows, while the alternating series loses digits as theta grows; against a long
 * double sum both are within 1e-15 relative at 3. */
#define LIE_DERIV_SWITCH 3.0
void lie_coeffs_deriv(double theta, const double f[6], double h[6]);

/* R (column-major) = the rotation by angle th about the unit axis a (Rodrigues). */
void lie_rotation_about(const double a[3], double th, double R[9]);
/* The rotation vector e (|e| <= pi) of the rotation E (column-major): exp(e~) = E. */
void lie_so3_log(const double E[9], double e[3]);

/* The exponential coordinates x = (w; u), angular first, of the pose (R, r): exp(x) = (R, r)
 * with |w| <= pi (a free base's coordinates for a pose, base.h). */
void lie_se3_log(const double R[9], const double r[3], double x[6]);

/* y = A x for a column-major 6x6 A. */
void lie_mat6_apply(const double A[36], const double x[6], double y[6]);

#endif
