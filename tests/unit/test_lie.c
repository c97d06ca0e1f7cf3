/* SE(3) maths against independent computations: matrix series, finite differences. */
#include "lie.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

/* exp of a 4x4 matrix by scaling and squaring of its Taylor series: independent of the
 * closed forms under test. */
static void expm4(const double A[16], double E[16])
{
    double S[16], T[16], P[16];
    int sq = 8;
    for (int i = 0; i < 16; i++) S[i] = A[i] / 256.0;
    memset(E, 0, 16 * sizeof *E);
    memset(T, 0, sizeof T);
    for (int i = 0; i < 4; i++) E[i * 5] = T[i * 5] = 1.0;
    for (int k = 1; k < 30; k++) {
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                double s = 0;
                for (int l = 0; l < 4; l++) s += T[i + 4 * l] * S[l + 4 * j];
                P[i + 4 * j] = s / k;
            }
        memcpy(T, P, sizeof T);
        for (int i = 0; i < 16; i++) E[i] += T[i];
    }
    for (int r = 0; r < sq; r++) {
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                double s = 0;
                for (int l = 0; l < 4; l++) s += E[i + 4 * l] * E[l + 4 * j];
                P[i + 4 * j] = s;
            }
        memcpy(E, P, sizeof P);
    }
}

static void hat(const double x[6], double H[16])
{
    memset(H, 0, 16 * sizeof *H);
    double K[9];
    lie_skew(x, K);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) H[i + 4 * j] = K[i + 3 * j];
    for (int i = 0; i < 3; i++) H[i + 12] = x[3 + i];
}

static const double twists[][6] = {
    {0.3, -0.2, 0.5, 0.1, 0.02, 1.0},
    {1e-9, 0, 0, 0, 0, 1},
    {0, 0, 0, 0.3, 0.1, 0.9},
    {2.5, 1.0, -0.7, -0.3, 0.4, 0.2},
    {0.999999, 0.0, 0.0, 0, 0.2, 1},
    {1.000001, 0.0, 0.0, 0, 0.2, 1},
    {0, 1e-4, 0, 0, 0, 0.02},
    {3.0, 0.1, 0.1, 1, 1, 1},
};

Test(lie, coefficients_continuous_across_the_series_switch)
{
    /* both branches evaluated on both sides of the switch agree to 1e-12 relative */
    const double th[] = {LIE_SERIES_SWITCH * (1 - 1e-12), LIE_SERIES_SWITCH,
                         LIE_SERIES_SWITCH * (1 + 1e-12), 0.5, 0.9, 1.1};
    for (size_t i = 0; i < sizeof th / sizeof *th; i++) {
        double a[6], b[6];
        lie_coeffs_series(th[i], a);
        lie_coeffs_closed(th[i], b);
        for (int m = 0; m < 6; m++)
            cr_assert_float_eq(a[m], b[m], 1e-12 * fabs(b[m]), "f%d at %.17g: %.17g vs %.17g", m,
                               th[i], a[m], b[m]);
    }
}

/* The series branch (f4, f5 summed, f0..f3 by f_m = 1/m! - theta^2 f_(m+2)) against the series
 * summed term by term in long double (40 terms, its error ~1e-19): to 4 ulp near 0 and up to
 * the switch, where the recurrence's rounding is a few operations. */
Test(lie, series_coefficients_match_the_long_double_series_near_zero)
{
    const double th[] = {0.0, 1e-12, 1e-8, 1e-4, 1e-2, 0.1, 0.3, 0.5, 0.9, LIE_SERIES_SWITCH * (1 - 1e-12)};
    for (size_t i = 0; i < sizeof th / sizeof *th; i++) {
        double f[6];
        lie_coeffs_series(th[i], f);
        const long double t2 = (long double)th[i] * th[i];
        for (int m = 0; m < 6; m++) {
            long double term = 1.0L, sum = 0.0L;
            for (int k = 1; k <= m; k++) term /= k; /* 1/m! */
            for (int k = 0; k < 40; k++) {
                sum += term;
                term *= -t2 / ((long double)(2 * k + m + 1) * (2 * k + m + 2));
            }
            cr_assert(fabsl(f[m] - sum) <= 4 * 2.220446049250313e-16L * fabsl(sum),
                      "f%d at %.17g: %.17g vs %.17Lg", m, th[i], f[m], sum);
        }
    }
}

Test(lie, coefficients_at_zero_are_the_taylor_constants)
{
    double f[6];
    lie_coeffs(0.0, f);
    const double want[6] = {1, 1, 0.5, 1.0 / 6, 1.0 / 24, 1.0 / 120};
    for (int m = 0; m < 6; m++) cr_assert_float_eq(f[m], want[m], 1e-16);
}

Test(lie, exp_matches_matrix_exponential)
{
    for (size_t t = 0; t < sizeof twists / sizeof *twists; t++) {
        double H[16], E[16];
        hat(twists[t], H);
        expm4(H, E);
        lie_pose g;
        lie_exp(twists[t], &g);
        for (int j = 0; j < 3; j++)
            for (int i = 0; i < 3; i++)
                cr_assert_float_eq(g.R[i + 3 * j], E[i + 4 * j], 1e-13, "twist %zu R", t);
        for (int i = 0; i < 3; i++) cr_assert_float_eq(g.r[i], E[i + 12], 1e-13, "twist %zu r", t);
    }
}

static void mat6mul(const double *A, const double *B, double *C)
{
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            double s = 0;
            for (int k = 0; k < 6; k++) s += A[i + 6 * k] * B[k + 6 * j];
            C[i + 6 * j] = s;
        }
}

Test(lie, tangent_operator_matches_its_series)
{
    for (size_t t = 0; t < sizeof twists / sizeof *twists; t++) {
        double ad[36], P[36], term[36], sum[36], T[36];
        lie_ad(twists[t], ad);
        memset(P, 0, sizeof P);
        for (int i = 0; i < 6; i++) P[i * 7] = 1;
        memcpy(sum, P, sizeof sum);
        double fact = 1;
        for (int k = 1; k < 60; k++) {
            mat6mul(P, ad, term);
            memcpy(P, term, sizeof P);
            fact *= (k + 1);
            for (int i = 0; i < 36; i++) sum[i] += P[i] / fact;
        }
        lie_dexp(twists[t], T);
        for (int i = 0; i < 36; i++) cr_assert_float_eq(T[i], sum[i], 1e-12, "twist %zu entry %d", t, i);
    }
}

Test(lie, tangent_operator_matches_finite_difference_of_exp)
{
    /* d/de exp(Omega + e d) = exp(Omega) (Ad^{-1}_{exp Omega} T_Omega d)^ */
    const double dirs[][6] = {{1, 0, 0, 0, 0, 0}, {0, 0.3, -1, 0, 0, 0}, {0, 0, 0, 1, 0, 0},
                              {0.2, -0.5, 0.1, 0.3, -0.7, 0.4}};
    const double e = 1e-6;
    for (size_t t = 0; t < sizeof twists / sizeof *twists; t++)
        for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
            double Op[6], Om[6];
            for (int i = 0; i < 6; i++) {
                Op[i] = twists[t][i] + e * dirs[d][i];
                Om[i] = twists[t][i] - e * dirs[d][i];
            }
            lie_pose g, gp, gm;
            lie_exp(twists[t], &g);
            lie_exp(Op, &gp);
            lie_exp(Om, &gm);
            /* body derivative: g^{-1} dg/de = [R^T dR, R^T dr] */
            double dR[9], dr[3], w[3], v[3];
            for (int i = 0; i < 9; i++) dR[i] = (gp.R[i] - gm.R[i]) / (2 * e);
            for (int i = 0; i < 3; i++) dr[i] = (gp.r[i] - gm.r[i]) / (2 * e);
            double W[9];
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                    double s = 0;
                    for (int k = 0; k < 3; k++) s += g.R[k + 3 * i] * dR[k + 3 * j];
                    W[i + 3 * j] = s;
                }
            w[0] = W[2 + 3 * 1];
            w[1] = W[0 + 3 * 2];
            w[2] = W[1 + 3 * 0];
            for (int i = 0; i < 3; i++) v[i] = g.R[3 * i] * dr[0] + g.R[3 * i + 1] * dr[1] + g.R[3 * i + 2] * dr[2];
            double T[36], Td[6], body[6];
            lie_dexp(twists[t], T);
            lie_mat6_apply(T, dirs[d], Td);
            lie_Ad_inv_apply(&g, Td, body);
            for (int i = 0; i < 3; i++) {
                cr_assert_float_eq(body[i], w[i], 1e-8, "twist %zu dir %zu w%d", t, d, i);
                cr_assert_float_eq(body[3 + i], v[i], 1e-8, "twist %zu dir %zu v%d", t, d, i);
            }
        }
}

Test(lie, adjoint_inverse_and_coadjoint)
{
    lie_pose g;
    lie_exp(twists[3], &g);
    double Ad[36], x[6] = {0.1, -0.4, 0.7, 1.2, -0.3, 0.5}, y[6], z[6], y2[6];
    lie_Ad(&g, Ad);
    lie_mat6_apply(Ad, x, y);
    lie_Ad_apply(&g, x, y2);
    lie_Ad_inv_apply(&g, y, z);
    for (int i = 0; i < 6; i++) {
        cr_assert_float_eq(y[i], y2[i], 1e-14);
        cr_assert_float_eq(z[i], x[i], 1e-14);
    }
    /* ad*_a b = -ad_a^T b */
    double ad[36], c[6];
    lie_ad(twists[0], ad);
    lie_coad_apply(twists[0], x, c);
    for (int i = 0; i < 6; i++) {
        double s = 0;
        for (int k = 0; k < 6; k++) s -= ad[k + 6 * i] * x[k];
        cr_assert_float_eq(c[i], s, 1e-15);
    }
    /* ad_apply agrees with the matrix */
    double a2[6];
    lie_ad_apply(twists[0], x, a2);
    lie_mat6_apply(ad, x, c);
    for (int i = 0; i < 6; i++) cr_assert_float_eq(a2[i], c[i], 1e-15);
}

Test(lie, exp_rotation_is_orthonormal_at_large_angles)
{
    const double big[6] = {10.0, -7.0, 3.0, 1, 2, 3};
    lie_pose g;
    lie_exp(big, &g);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0;
            for (int k = 0; k < 3; k++) s += g.R[k + 3 * i] * g.R[k + 3 * j];
            cr_assert_float_eq(s, i == j ? 1.0 : 0.0, 1e-14);
        }
}

Test(lie, dexp_apply_matches_the_matrix)
{
    const double x[6] = {0.3, -1.1, 0.2, 0.7, 0.1, -0.4};
    for (size_t t = 0; t < sizeof twists / sizeof *twists; t++) {
        double T[36], a[6], b[6];
        lie_dexp(twists[t], T);
        lie_mat6_apply(T, x, a);
        lie_dexp_apply(twists[t], x, b);
        for (int i = 0; i < 6; i++) cr_assert_float_eq(a[i], b[i], 1e-14);
    }
}

Test(lie, coefficient_derivatives_match_finite_differences_and_switch_smoothly)
{
    const double th[] = {0.0, 1e-3, 0.3, LIE_SERIES_SWITCH * (1 - 1e-12), LIE_SERIES_SWITCH * (1 + 1e-12), 1.7, 3.0};
    for (size_t i = 0; i < sizeof th / sizeof *th; i++) {
        double f[6], h[6];
        lie_coeffs(th[i], f);
        lie_coeffs_deriv(th[i], f, h);
        /* d/dx by central differences in x = theta^2 */
        const double x = th[i] * th[i], e = 1e-5;
        double fp[6], fm[6];
        lie_coeffs(sqrt(x + e), fp);
        lie_coeffs(sqrt(fabs(x - e)) * (x >= e ? 1 : 0), fm);
        for (int m = 1; m < 6; m++) {
            double fd = x >= e ? (fp[m] - fm[m]) / (2 * e) : (fp[m] - f[m]) / e;
            cr_assert_float_eq(h[m], fd, 1e-6 * (fabs(fd) + 1e-3), "h%d at %g: %.12g vs %.12g", m, th[i], h[m], fd);
        }
    }
    double a[6], b[6], fa[6], fb[6];
    lie_coeffs_series(LIE_SERIES_SWITCH, fa);
    lie_coeffs_closed(LIE_SERIES_SWITCH, fb);
    lie_coeffs_deriv(LIE_SERIES_SWITCH * (1 - 1e-15), fa, a);
    lie_coeffs_deriv(LIE_SERIES_SWITCH, fb, b);
    for (int m = 1; m < 6; m++) cr_assert_float_eq(a[m], b[m], 1e-11 * fabs(b[m]), "h%d across the switch", m);
}

/* h_m = -sum_j (j+1) (-x)^j / (2j+2+m)! summed in long double (64-bit mantissa, 60 terms:
 * the omitted ones are below 1e-40 for theta <= 4), three digits finer than what is checked */
static void coeffs_deriv_long(long double th, long double h[6])
{
    const long double x = th * th;
    for (int m = 1; m < 6; m++) {
        long double s = 0, fact = 1, p = 1;
        for (int i = 2; i <= m + 2; i++) fact *= i;
        for (int j = 0; j < 60; j++) {
            s += (j + 1) * p / fact;
            p *= -x;
            fact *= (long double)(2 * j + m + 3) * (2 * j + m + 4);
        }
        h[m] = -s;
    }
}

/* Every h_m to 1e-14 relative (about 50 rounding units) from 0.05 to 4, both sides of both
 * switches included: the closed form just above theta = 1 was off by 2.7e-13. */
Test(lie, coefficient_derivatives_hold_fourteen_digits_through_both_switches)
{
    double worst = 0, at = 0;
    for (double th = 0.05; th <= 4.0; th += 0.01) {
        const double ths[3] = {th, LIE_SERIES_SWITCH * (1 + 1e-9), LIE_DERIV_SWITCH * (1 + 1e-9)};
        for (int k = 0; k < 3; k++) {
            double f[6], h[6];
            long double ref[6];
            lie_coeffs(ths[k], f);
            lie_coeffs_deriv(ths[k], f, h);
            coeffs_deriv_long(ths[k], ref);
            for (int m = 1; m < 6; m++) {
                const double e = (double)fabsl((h[m] - ref[m]) / ref[m]);
                if (e > worst) worst = e, at = ths[k];
            }
        }
    }
    cr_log_info("h_m: worst relative error %.2e at theta = %.3f", worst, at);
    cr_assert_lt(worst, 1e-14, "h_m off by %.2e relative at theta = %g", worst, at);
}

/* The rotation vector of a rotation by pi - d about a skew axis: the axis to 1e-14 however
 * small d (read from the antisymmetric part its error grows as 1e-16 / d), and the vector's
 * exponential gives the rotation back. */
Test(lie, so3_log_reads_the_axis_near_pi)
{
    const double a[3] = {0.48, -0.6, 0.64}; /* unit */
    const double ds[] = {1.0, 1e-3, 1e-7, 1e-11, 0.0};
    for (size_t i = 0; i < sizeof ds / sizeof *ds; i++) {
        const double th = M_PI - ds[i];
        double R[9], e[3], R2[9];
        lie_rotation_about(a, th, R);
        lie_so3_log(R, e);
        const double ne = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
        cr_assert_float_eq(ne, th, 1e-14, "angle at pi - %g", ds[i]);
        for (int k = 0; k < 3; k++) cr_assert_float_eq(e[k] / ne, a[k], 1e-14, "axis at pi - %g", ds[i]);
        lie_rotation_about((double[3]){e[0] / ne, e[1] / ne, e[2] / ne}, ne, R2);
        for (int k = 0; k < 9; k++) cr_assert_float_eq(R2[k], R[k], 1e-15);
    }
    /* small angles keep the antisymmetric reading */
    double R[9], e[3];
    lie_rotation_about(a, 1e-9, R);
    lie_so3_log(R, e);
    for (int k = 0; k < 3; k++) cr_assert_float_eq(e[k], 1e-9 * a[k], 1e-24);
}

Test(lie, tangent_operator_rate_matches_finite_difference)
{
    const double dirs[][6] = {{1, 0, 0, 0, 0, 0}, {0, 0.3, -1, 0, 0, 0}, {0, 0, 0, 1, 0, 0},
                              {0.2, -0.5, 0.1, 0.3, -0.7, 0.4}};
    const double e = 1e-6;
    for (size_t t = 0; t < sizeof twists / sizeof *twists; t++)
        for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
            double Op[6], Om[6], Tp[36], Tm[36], got[6];
            for (int i = 0; i < 6; i++) {
                Op[i] = twists[t][i] + e * dirs[d][i];
                Om[i] = twists[t][i] - e * dirs[d][i];
            }
            lie_dexp(Op, Tp);
            lie_dexp(Om, Tm);
            lie_dexp_dot_apply(twists[t], dirs[d], got);
            for (int i = 0; i < 6; i++) {
                double fd = 0;
                for (int k = 0; k < 6; k++) fd += (Tp[i + 6 * k] - Tm[i + 6 * k]) / (2 * e) * dirs[d][k];
                cr_assert_float_eq(got[i], fd, 1e-7, "twist %zu dir %zu: %.12g vs %.12g", t, d, got[i], fd);
            }
        }
}

/* T_dot v summed over the powers of ad: sum_k c_k' A^k v + c_k sum_j A^j B A^(k-1-j) v with
 * A = ad_Omega, B = ad_v (the terms ending in B v = 0 dropped), what lie_dexp_dot_apply_tc
 * computed before its closed form. */
static void dexp_dot_by_ad_powers(const double Omega[6], const double v[6], double out[6])
{
    lie_tangent tc;
    lie_tangent_init(Omega, &tc);
    const double *c = tc.c;
    double h[6];
    lie_coeffs_deriv(tc.theta, tc.f, h);
    const double xdot = 2.0 * (Omega[0] * v[0] + Omega[1] * v[1] + Omega[2] * v[2]);
    const double dc[5] = {0.0, 0.5 * (4.0 * h[2] - h[1]) * xdot, 0.5 * (5.0 * h[3] - h[2]) * xdot,
                          0.5 * (h[3] - 2.0 * h[4]) * xdot, 0.5 * (h[4] - 3.0 * h[5]) * xdot};
    double w[5][6], b[4][6], t3[6], at3[6];
    memcpy(w[0], v, sizeof w[0]);
    for (int k = 1; k <= 4; k++) lie_ad_apply(Omega, w[k - 1], w[k]);
    for (int k = 1; k <= 3; k++) lie_ad_apply(v, w[k], b[k]);
    lie_ad_apply(Omega, b[1], t3);
    for (int i = 0; i < 6; i++) t3[i] += b[2][i];
    lie_ad_apply(Omega, t3, at3);
    for (int i = 0; i < 6; i++)
        out[i] = dc[1] * w[1][i] + dc[2] * w[2][i] + dc[3] * w[3][i] + dc[4] * w[4][i] +
                 c[2] * b[1][i] + c[3] * t3[i] + c[4] * (at3[i] + b[3][i]);
}

Test(lie, tangent_operator_rate_closed_form_matches_ad_powers)
{
    const double dirs[][6] = {{1, 0, 0, 0, 0, 0}, {0, 0.3, -1, 0, 0, 0}, {0, 0, 0, 1, 0, 0},
                              {0.2, -0.5, 0.1, 0.3, -0.7, 0.4}, {-3e-4, 2e-3, 1e-4, 0.01, -0.02, 1}};
    for (size_t t = 0; t < sizeof twists / sizeof *twists; t++)
        for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
            double got[6], want[6], scale = 0;
            lie_dexp_dot_apply(twists[t], dirs[d], got);
            dexp_dot_by_ad_powers(twists[t], dirs[d], want);
            for (int i = 0; i < 6; i++) scale = fmax(scale, fabs(want[i]));
            for (int i = 0; i < 6; i++)
                cr_assert(fabs(got[i] - want[i]) <= 1e-14 * fmax(scale, 1.0), "twist %zu dir %zu [%d]: %.17g vs %.17g",
                          t, d, i, got[i], want[i]);
        }
}
