/* Greenhill's problem: a straight rod clamped at its base, its tip held on the axis with its
 * cross-section's tilt fixed, pulled along the axis by T and twisted by Phi about it, stays
 * straight while the twist moment M = beta Phi / L is below a threshold M_c and buckles into a
 * helix above it. M_c is where the linearized lateral problem
 *   alpha w'''' - i M w''' - T w'' = 0,  w = w' = 0 at both ends  (w = x + i y)
 * first has a solution. Without tension it is Greenhill's clamped shaft, M_c = 8.987 alpha / L
 * (2.86 pi; Ziegler, Principles of Structural Stability, 1968); at T L^2 / alpha = 10 it is
 * 10.429 alpha / L. Both figures were computed two ways that agree to 4 digits: shooting (the
 * 4 x 4 exponential of the ODE's companion matrix, w(L) = w'(L) = 0 as a 2 x 2 determinant) and
 * the smallest real M of the generalized eigenproblem (alpha D4 - T D2) w = i M D3 w by finite
 * differences on 600 intervals. (2 sqrt(alpha T) is only the long rod's limit.) The rod here is
 * unshearable and inextensible (bend1, bend2 and twist only), as that problem's; the tension is
 * a dead tip force and the twist a multiplier pose constraint on x, y and the three rotations,
 * its axial position free. The solenoid example (seed 002's Fig. 9c) buckles by this threshold.
 *
 * As in test_mitchell.c: statics puts the straight twisted rod (twist Phi / L, the guess) on the
 * model's equilibrium, dynamics from there nudged sideways either lets the nudge ring down or
 * grows it exponentially; a light Kelvin-Voigt damping cannot move the threshold
 * (Kelvin-Tait-Chetaev). The bracket is M_c -+ 3 %: below, the kinetic energy does not grow
 * from 0.5 to 1.5 s (it changed by x0.4 and x0.9 at degree 12); above, it grows by more than
 * 1e3 (x3e5 and x3e6). A threshold at 2 sqrt(alpha (T + 4 pi^2 alpha / L^2)), 14.07 at
 * T L^2 / alpha = 10, fails it: the rod buckles already at 0.80 of that. */
#include "spec.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    double growth; /* E_k(1.5 s) / E_k(0.5 s) */
    double ek_end; /* J */
    double lateral; /* the furthest point from the axis at 1.5 s, m */
} greenhill_run;

static greenhill_run run(int deg, double ratio, double tension, double phi)
{
    const double r = 0.01, A = M_PI * r * r, I = M_PI * r * r * r * r / 4, alpha = 1.0;
    const double E = alpha / I, G = ratio * alpha / (2 * I); /* beta = G J, J = 2 I */
    const int n = 2 * (deg + 1) + 5; /* bend1, bend2, then twist to degree 4 */
    /* the guess: the straight rod twisted uniformly, twist's constant Phi / L (L = 1) */
    double g[2 * (SPEC_MAX_DEGREE + 1) + 5] = {0};
    g[2 * (deg + 1)] = phi;
    char guess[1024], json[4096];
    tu_json_numbers(guess, sizeof guess, g, n);
    snprintf(json, sizeof json,
             "{\"model\": \"classic\", \"rod\": {\"length\": 1, \"radius\": %g, \"density\": %.17g, "
             "\"youngs_modulus\": %.17g, \"shear_modulus\": %.17g, \"shear_viscosity\": 1e4}, "
             "\"strains\": {\"bend1\": %d, \"bend2\": %d, \"twist\": 4}, \"solver\": {\"tolerance\": 1e-11, "
             "\"rtol\": 1e-5, \"atol\": 1e-5, \"guess\": [%s]}, "
             "\"loads\": [{\"name\": \"pull\", \"type\": \"tip_force\", \"force\": [0, 0, %.17g]}], "
             "\"constraints\": [{\"name\": \"tip\", \"type\": \"pose\", \"position\": [0, 0, 1], "
             "\"rotation\": {\"axis\": [0, 0, 1], \"angle\": %.17g}, "
             "\"components\": [\"x\", \"y\", \"rx\", \"ry\", \"rz\"]}]}",
             r, 1.0 / A, E, G, deg, deg, guess, tension, phi);
    rod_model *m = tu_model(json);
    cr_assert_eq(rod_model_ndof(m), n, "coordinates: %d, expected %d", rod_model_ndof(m), n);
    rod_state *st = tu_solve(m);
    cr_assert_eq(rod_dynamics_start(m, st), ROD_OK, "%s", rod_state_error(st));
    /* the nudge: bend1's degrees 2 and 3, sideways */
    double q[2 * (SPEC_MAX_DEGREE + 1) + 5];
    memcpy(q, rod_state_q(st), (size_t)n * sizeof *q);
    q[2] += 1e-5;
    q[3] += 1e-5;
    cr_assert_eq(rod_state_set_q(st, q, n), ROD_OK);
    greenhill_run out = {0};
    double ek_half = 0;
    for (int k = 1; k <= 3; k += 2) {
        cr_assert_eq(rod_dynamics_advance(m, st, 0.5 * k), ROD_OK, "%s", rod_state_error(st));
        rod_frame f = tu_frame(m, st, 41);
        if (k == 1) ek_half = f.e_kinetic;
        out.ek_end = f.e_kinetic;
        for (int i = 0; i < f.n; i++)
            out.lateral = fmax(out.lateral, hypot(f.position[3 * i], f.position[3 * i + 1]));
        rod_frame_free(&f);
    }
    out.growth = out.ek_end / ek_half;
    rod_state_free(st);
    rod_model_free(m);
    return out;
}

static void bracket(int deg, double ratio, double tension, double Mc)
{
    const double L = 1.0, beta = ratio; /* alpha = 1 */
    const double phic = Mc * L / beta;
    const greenhill_run lo = run(deg, ratio, tension, 0.97 * phic), hi = run(deg, ratio, tension, 1.03 * phic);
    cr_log_info("Greenhill, beta/alpha = %g, T L^2/alpha = %g, M_c = %.4f N m (Phi_c = %.4f rad, %.3f turns), "
                "degree %d: at 0.97 M_c the kinetic energy changes by x%.3g from 0.5 to 1.5 s (to %.2e J, "
                "furthest %.2e m off the axis), at 1.03 M_c by x%.3g (to %.2e J, %.2e m)",
                ratio, tension, Mc, phic, phic / (2 * M_PI), deg, lo.growth, lo.ek_end, lo.lateral,
                hi.growth, hi.ek_end, hi.lateral);
    cr_assert_lt(lo.growth, 10, "stable below Greenhill's threshold");
    cr_assert_gt(hi.growth, 1e3, "unstable above it");
}

Test(greenhill, twisted_shaft_buckles_at_greenhills_clamped_threshold, .timeout = 120)
{
    bracket(12, 1.0, 0.0, 8.9870);
}

Test(greenhill, pulled_twisted_rod_buckles_at_the_clamped_threshold, .timeout = 120)
{
    bracket(12, 1.0, 10.0, 10.429);
}
