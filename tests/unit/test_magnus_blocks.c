/* The Magnus step's block products (core/util/magnus_blocks.c) against the vector path they
 * replace, which test_magnus checks against differences: for random alphas, poses and
 * tangents, in both rules, every column of G dOmega/dalpha_i (blk6_slots) against
 * G (magnus_slot's dOmega/dalpha_i e_c), T_Omega's blocks (blk6_dexp) against
 * lie_dexp_apply_tc, and Ad_g T (blk6_Ad) against lie_Ad_apply of T's columns. */
#include "magnus_blocks.h"

#include <criterion/criterion.h>
#include <math.h>

static unsigned long long seed = 12345;

/* uniform on [-s, s] (a 64-bit LCG: the same draws on every machine) */
static double draw(double s)
{
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return s * (2.0 * (double)(seed >> 11) / 9007199254740992.0 - 1.0);
}

static void random_blk(blk6 *M)
{
    for (int e = 0; e < 9; e++) {
        M->A[e] = draw(1.0);
        M->B[e] = draw(1.0);
    }
}

/* largest |x - y| over 6 entries */
static double diff6(const double x[6], const double y[6])
{
    double d = 0;
    for (int r = 0; r < 6; r++) d = fmax(d, fabs(x[r] - y[r]));
    return d;
}

/* the alphas both large (a coarse step of a strongly bent rod, the brackets far from small)
 * and small (the usual step), so every product of the polynomial matters */
static void check_slots(int order, double scale)
{
    const magnus_rule *rule = magnus_rule_of(order);
    double worst = 0;
    for (int trial = 0; trial < 200; trial++) {
        magnus_step ms = {.rule = rule};
        for (int i = 0; i < rule->npts; i++)
            for (int k = 0; k < 6; k++) ms.a[i][k] = draw(scale);
        double Omega[6];
        magnus_eval(&ms, Omega);
        blk6 G, W[MAGNUS_MAX_POINTS];
        random_blk(&G);
        blk6_slots(&G, &ms, W);
        for (int i = 0; i < rule->npts; i++)
            for (int c = 0; c < 6; c++) {
                double v[6], want[6], got[6], e[6] = {0};
                e[c] = 1.0;
                magnus_slot(&ms, i, c, v);
                blk6_apply(&G, v, want);
                blk6_apply(&W[i], e, got);
                worst = fmax(worst, diff6(got, want));
            }
    }
    /* entries of order 1 (G's) times polynomials of order max(1, scale^3): round-off */
    cr_assert_lt(worst, 1e-13 * fmax(1.0, pow(scale, 3)), "order %d, alphas of %g: %g", order, scale, worst);
}

Test(magnus_blocks, slots_equal_magnus_slot_through_G_in_the_fourth_order_rule)
{
    check_slots(4, 0.05);
    check_slots(4, 2.0);
}

Test(magnus_blocks, slots_equal_magnus_slot_through_G_in_the_sixth_order_rule)
{
    check_slots(6, 0.05);
    check_slots(6, 2.0);
}

Test(magnus_blocks, dexp_and_Ad_blocks_equal_the_vector_forms)
{
    double worst_T = 0, worst_G = 0;
    for (int trial = 0; trial < 200; trial++) {
        double Omega[6], pose_tw[6];
        for (int k = 0; k < 6; k++) {
            Omega[k] = draw(2.0); /* angles up to ~3.5 rad: T's coefficients far from their series */
            pose_tw[k] = draw(1.5);
        }
        lie_tangent tc;
        lie_tangent_init(Omega, &tc);
        lie_pose g;
        lie_exp(pose_tw, &g);
        blk6 T, G;
        blk6_dexp(&tc, &T);
        blk6_Ad(&g, &T, &G);
        for (int c = 0; c < 6; c++) {
            double e[6] = {0}, Te[6], want[6], got[6];
            e[c] = 1.0;
            lie_dexp_apply_tc(&tc, e, want);
            blk6_apply(&T, e, Te);
            worst_T = fmax(worst_T, diff6(Te, want));
            lie_Ad_apply(&g, Te, want);
            blk6_apply(&G, e, got);
            worst_G = fmax(worst_G, diff6(got, want));
        }
    }
    cr_assert_lt(worst_T, 1e-13, "T_Omega's blocks: %g", worst_T);
    cr_assert_lt(worst_G, 1e-13, "Ad_g T's blocks: %g", worst_G);
}
