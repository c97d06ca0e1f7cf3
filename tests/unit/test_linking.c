/* The topology helpers of the twisted-rod tests (tests/support/linking.c) against what is known
 * exactly: the linking numbers of linked and unlinked rings, no writhe in a plane, the writhe
 * of a closed curve unchanged by turning it over (a mirror image flips it), and Calugareanu's
 * theorem Lk = Tw + Wr on a trefoil ribbon with twist added, Lk an integer that one more turn
 * of the ribbon changes by one. */
#include "linking.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

static double *ring(int n, const double c[3], const double u[3], const double v[3], double R)
{
    double *p = malloc((size_t)n * 3 * sizeof *p);
    for (int k = 0; k < n; k++) {
        const double a = 2 * M_PI * k / n;
        for (int i = 0; i < 3; i++) p[3 * k + i] = c[i] + R * (cos(a) * u[i] + sin(a) * v[i]);
    }
    return p;
}

Test(linking, rings_through_each_other_link_once_and_apart_not_at_all)
{
    const double o[3] = {0, 0, 0}, x[3] = {1, 0, 0}, y[3] = {0, 1, 0}, z[3] = {0, 0, 1};
    const double c_in[3] = {1, 0, 0}, c_out[3] = {3, 0, 0};
    double *a = ring(64, o, x, y, 1.0), *b = ring(48, c_in, x, z, 1.0), *c = ring(48, c_out, x, z, 1.0);
    const double l_in = linking_number(a, 64, b, 48), l_out = linking_number(a, 64, c, 48);
    cr_log_info("linking: Hopf link %.15f, apart %.3e", l_in, l_out);
    cr_assert_float_eq(fabs(l_in), 1.0, 1e-12);
    cr_assert_float_eq(l_out, 0.0, 1e-12);
    cr_assert_float_eq(linking_writhe(a, 64, 1), 0.0, 1e-14, "a plane curve has no writhe");
    free(a);
    free(b);
    free(c);
}

/* the trefoil (sin t + 2 sin 2t, cos t - 2 cos 2t, -sin 3t) and its derivatives */
static void trefoil(double t, double r[3], double d[3])
{
    r[0] = sin(t) + 2 * sin(2 * t);
    r[1] = cos(t) - 2 * cos(2 * t);
    r[2] = -sin(3 * t);
    d[0] = cos(t) + 4 * cos(2 * t);
    d[1] = -sin(t) + 4 * sin(2 * t);
    d[2] = -3 * cos(3 * t);
}

/* a unit normal field: z projected off the tangent, turned `turns` times about it */
static void ribbon(double t, int turns, double r[3], double u[3])
{
    double d[3], e[3], f[3];
    trefoil(t, r, d);
    const double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int i = 0; i < 3; i++) d[i] /= l;
    const double z[3] = {0.3, -0.2, 1.0};
    const double zd = z[0] * d[0] + z[1] * d[1] + z[2] * d[2];
    for (int i = 0; i < 3; i++) e[i] = z[i] - zd * d[i];
    const double el = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    for (int i = 0; i < 3; i++) e[i] /= el;
    f[0] = d[1] * e[2] - d[2] * e[1];
    f[1] = d[2] * e[0] - d[0] * e[2];
    f[2] = d[0] * e[1] - d[1] * e[0];
    for (int i = 0; i < 3; i++) u[i] = cos(turns * t) * e[i] + sin(turns * t) * f[i];
}

Test(linking, a_trefoil_ribbon_keeps_calugareanu_lk_equal_tw_plus_wr)
{
    const int n = 1500, turns = 5;
    const double eps = 0.02;
    double *c = malloc((size_t)n * 3 * sizeof *c), *e = malloc((size_t)n * 3 * sizeof *e);
    for (int k = 0; k < n; k++) {
        double r[3], u[3];
        ribbon(2 * M_PI * k / n, turns, r, u);
        for (int i = 0; i < 3; i++) {
            c[3 * k + i] = r[i];
            e[3 * k + i] = r[i] + eps * u[i];
        }
    }
    /* Tw = (1/2 pi) closed integral of (t x u) . u' ds, by the midpoint rule on a finer grid */
    double tw = 0;
    const int fine = 200000;
    for (int k = 0; k < fine; k++) {
        const double t0 = 2 * M_PI * k / fine, t1 = 2 * M_PI * (k + 1) / fine;
        double r0[3], u0[3], r1[3], u1[3];
        ribbon(t0, turns, r0, u0);
        ribbon(t1, turns, r1, u1);
        double tm[3], um[3], du[3];
        for (int i = 0; i < 3; i++) {
            tm[i] = r1[i] - r0[i];
            um[i] = 0.5 * (u0[i] + u1[i]);
            du[i] = u1[i] - u0[i];
        }
        const double tl = sqrt(tm[0] * tm[0] + tm[1] * tm[1] + tm[2] * tm[2]);
        const double cx[3] = {tm[1] * um[2] - tm[2] * um[1], tm[2] * um[0] - tm[0] * um[2], tm[0] * um[1] - tm[1] * um[0]};
        tw += (cx[0] * du[0] + cx[1] * du[1] + cx[2] * du[2]) / tl;
    }
    tw /= 2 * M_PI;
    const double wr = linking_writhe(c, n, 1), lk = linking_number(c, n, e, n);
    cr_log_info("linking: trefoil ribbon Lk %.6f, Tw %.6f + Wr %.6f = %.6f", lk, tw, wr, tw + wr);
    cr_assert_float_eq(lk, round(lk), 1e-9, "a linking number is an integer");
    /* the polyline's writhe and the ribbon's offset differ from the smooth curve's by
     * O(h^2) and O(eps^2): h = 0.02 of a loop of length 17, eps = 0.02 */
    cr_assert_float_eq(tw + wr, lk, 2e-3, "Tw + Wr = %.6f, Lk = %.6f", tw + wr, lk);
    /* one more turn of the ribbon about its centre line links it once more */
    for (int k = 0; k < n; k++) {
        double r[3], u[3];
        ribbon(2 * M_PI * k / n, turns + 1, r, u);
        for (int i = 0; i < 3; i++) e[3 * k + i] = r[i] + eps * u[i];
    }
    cr_assert_float_eq(fabs(linking_number(c, n, e, n) - lk), 1.0, 1e-9);
    /* the mirror image (z -> -z) has the opposite writhe */
    for (int k = 0; k < n; k++) c[3 * k + 2] = -c[3 * k + 2];
    cr_assert_float_eq(linking_writhe(c, n, 1), -wr, 1e-12);
    free(c);
    free(e);
}
