/* The Magnus rules (core/util/magnus.c) against independent computations: their derivatives against
 * finite differences, and their order of convergence on g' = g xi(s)^ against a reference
 * integrated by classical Runge-Kutta on the 4x4 matrices with many steps. */
#include "lie.h"
#include "magnus.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

static void hat(const double x[6], double H[16])
{
    memset(H, 0, 16 * sizeof *H);
    double K[9];
    lie_skew(x, K);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) H[i + 4 * j] = K[i + 3 * j];
    for (int i = 0; i < 3; i++) H[i + 12] = x[3 + i];
}

static void mul4(const double A[16], const double B[16], double C[16])
{
    double o[16];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double s = 0;
            for (int l = 0; l < 4; l++) s += A[i + 4 * l] * B[l + 4 * j];
            o[i + 4 * j] = s;
        }
    memcpy(C, o, sizeof o);
}

/* a strain that bends, twists, shears and stretches, none of it commuting along s */
static void xi_of(double s, double xi[6])
{
    xi[0] = 1.5 * sin(2 * s);
    xi[1] = 0.8 * cos(3 * s);
    xi[2] = 0.5 * s * s + 0.3;
    xi[3] = 0.2 * s;
    xi[4] = 0.3 * cos(s);
    xi[5] = 1.0 + 0.4 * s;
}

/* g(1) of g' = g xi^, g(0) = I, by RK4 on the 4x4 matrix with n steps */
static void reference_rk4(int n, double G[16])
{
    memset(G, 0, 16 * sizeof *G);
    for (int i = 0; i < 4; i++) G[5 * i] = 1.0;
    const double h = 1.0 / n;
    for (int k = 0; k < n; k++) {
        const double s = k * h;
        double x0[6], xm[6], x1[6], H0[16], Hm[16], H1[16], k1[16], k2[16], k3[16], k4[16], t[16];
        xi_of(s, x0);
        xi_of(s + 0.5 * h, xm);
        xi_of(s + h, x1);
        hat(x0, H0);
        hat(xm, Hm);
        hat(x1, H1);
        mul4(G, H0, k1);
        for (int i = 0; i < 16; i++) t[i] = G[i] + 0.5 * h * k1[i];
        mul4(t, Hm, k2);
        for (int i = 0; i < 16; i++) t[i] = G[i] + 0.5 * h * k2[i];
        mul4(t, Hm, k3);
        for (int i = 0; i < 16; i++) t[i] = G[i] + h * k3[i];
        mul4(t, H1, k4);
        for (int i = 0; i < 16; i++) G[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    }
}

static void alphas_of(const magnus_rule *r, double s0, double h, double a[][6])
{
    double x[MAGNUS_MAX_POINTS][6];
    for (int p = 0; p < r->npts; p++) xi_of(s0 + r->c[p] * h, x[p]);
    for (int i = 0; i < r->npts; i++)
        for (int c = 0; c < 6; c++) {
            double v = 0;
            for (int p = 0; p < r->npts; p++) v += r->w[i][p] * x[p][c];
            a[i][c] = h * v;
        }
}

/* g(1) by n Magnus steps of the rule */
static void magnus_path(const magnus_rule *r, int n, double G[16])
{
    lie_pose g;
    lie_pose_identity(&g);
    const double h = 1.0 / n;
    for (int k = 0; k < n; k++) {
        magnus_step ms = {.rule = r};
        double Om[6];
        alphas_of(r, k * h, h, ms.a);
        magnus_eval(&ms, Om);
        lie_pose e;
        lie_exp(Om, &e);
        lie_pose_mul(&g, &e, &g);
    }
    memset(G, 0, 16 * sizeof *G);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) G[i + 4 * j] = g.R[i + 3 * j];
    for (int i = 0; i < 3; i++) G[i + 12] = g.r[i];
    G[15] = 1.0;
}

static double dist4(const double A[16], const double B[16])
{
    double s = 0;
    for (int i = 0; i < 16; i++) s += (A[i] - B[i]) * (A[i] - B[i]);
    return sqrt(s);
}

/* The observed orders log2(e_n / e_2n) for n = 4, 8, 16 against RK4 with 2^15 steps (its
 * own error ~ (2^-15)^4 ~ 1e-18, and rounding ~1e-14 after that many steps, both far below
 * the smallest Magnus error here, 7e-12 at 32 sixth-order steps). The
 * estimate approaches the order from the side the next error term pushes it; it must land
 * within 0.15 of the order at the finest pair, where that term is (h^2 ~ 1e-3) times a
 * coefficient of order one, and an off-by-one scheme (a 5th- or 7th-order error) misses by 1. */
static void check_order(int order)
{
    const magnus_rule *r = magnus_rule_of(order);
    cr_assert_not_null(r);
    double ref[16], G[16];
    reference_rk4(1 << 15, ref);
    double e[4], p = 0;
    for (int l = 0; l < 4; l++) {
        magnus_path(r, 4 << l, G);
        e[l] = dist4(G, ref);
        if (l) {
            p = log2(e[l - 1] / e[l]);
            cr_log_info("order %d: %d steps, error %.3e, observed order %.3f", order, 4 << l, e[l], p);
        }
    }
    cr_assert_gt(e[3], 1e-13, "the finest error %.3e is near rounding: the pairs say nothing", e[3]);
    cr_assert(fabs(p - order) < 0.15, "observed order %.3f, expected %d", p, order);
}

Test(magnus, zanna_rule_is_fourth_order) { check_order(4); }
Test(magnus, six_point_rule_is_sixth_order) { check_order(6); }

static void random_step(const magnus_rule *r, magnus_step *ms, double da[][6], double seed)
{
    ms->rule = r;
    for (int i = 0; i < r->npts; i++)
        for (int c = 0; c < 6; c++) {
            ms->a[i][c] = 0.4 * sin(seed + 1.3 * i + 0.7 * c) / (1 + i);
            da[i][c] = cos(2.1 * seed + 0.9 * i - 0.4 * c);
        }
}

/* magnus_dir against central differences of magnus_eval (error h^2 ~ 1e-8 relative, far above
 * rounding ~ 1e-16 / h = 1e-12), magnus_second against central differences of magnus_dir, and
 * magnus_slot against magnus_dir with one alpha moving along each unit twist (the same
 * polynomial: to rounding). */
static void check_derivatives(int order)
{
    const magnus_rule *r = magnus_rule_of(order);
    for (int trial = 0; trial < 5; trial++) {
        magnus_step ms, mp, mm;
        double da[MAGNUS_MAX_POINTS][6], Om[6], d[6], d2[6], Op[6], Omm[6], dp[6], dm[6];
        random_step(r, &ms, da, trial);
        mp = mm = ms;
        const double h = 1e-4;
        for (int i = 0; i < r->npts; i++)
            for (int c = 0; c < 6; c++) {
                mp.a[i][c] += h * da[i][c];
                mm.a[i][c] -= h * da[i][c];
            }
        magnus_eval(&ms, Om);
        magnus_eval(&mp, Op);
        magnus_eval(&mm, Omm);
        magnus_tangent t, tp, tm;
        magnus_dir(&ms, (const double(*)[6])da, d, &t);
        magnus_dir(&mp, (const double(*)[6])da, dp, &tp);
        magnus_dir(&mm, (const double(*)[6])da, dm, &tm);
        magnus_second(&ms, (const double(*)[6])da, &t, d2);
        for (int c = 0; c < 6; c++) {
            const double fd = (Op[c] - Omm[c]) / (2 * h), fd2 = (dp[c] - dm[c]) / (2 * h);
            cr_assert(fabs(d[c] - fd) < 1e-7 * (1 + fabs(fd)), "order %d dOmega[%d] %.12g, difference %.12g",
                      order, c, d[c], fd);
            cr_assert(fabs(d2[c] - fd2) < 1e-7 * (1 + fabs(fd2)), "order %d d2Omega[%d] %.12g, difference %.12g",
                      order, c, d2[c], fd2);
        }
        for (int slot = 0; slot < r->npts; slot++)
            for (int e = 0; e < 6; e++) {
                double one[MAGNUS_MAX_POINTS][6] = {{0}}, a[6], b[6];
                one[slot][e] = 1.0;
                magnus_dir(&ms, (const double(*)[6])one, a, NULL);
                magnus_slot(&ms, slot, e, b);
                for (int c = 0; c < 6; c++)
                    cr_assert(fabs(a[c] - b[c]) < 1e-14 * (1 + fabs(a[c])),
                              "order %d slot %d unit %d [%d]: %.17g vs %.17g", order, slot, e, c, b[c], a[c]);
            }
    }
}

Test(magnus, zanna_derivatives_match_finite_differences) { check_derivatives(4); }
Test(magnus, sixth_order_derivatives_match_finite_differences) { check_derivatives(6); }

/* A constant strain is integrated exactly by both: Omega = h xi. */
Test(magnus, constant_strain_is_exact)
{
    for (int order = 4; order <= 6; order += 2) {
        const magnus_rule *r = magnus_rule_of(order);
        const double xi[6] = {0.3, -0.2, 0.5, 0.1, 0.02, 1.0}, h = 0.37;
        magnus_step ms = {.rule = r};
        for (int i = 0; i < r->npts; i++)
            for (int c = 0; c < 6; c++) {
                double v = 0;
                for (int p = 0; p < r->npts; p++) v += r->w[i][p] * xi[c];
                ms.a[i][c] = h * v;
            }
        double Om[6];
        magnus_eval(&ms, Om);
        for (int c = 0; c < 6; c++) cr_assert(fabs(Om[c] - h * xi[c]) < 1e-15, "order %d [%d]", order, c);
    }
    cr_assert_null(magnus_rule_of(5));
}
