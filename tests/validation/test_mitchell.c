/* Seeds/002 Fig. 15, Mitchell's (Michell's) buckling: a rod closed into a ring (its tip held at
 * its base, in the base's frame, by a relative pose constraint) and twisted by Phi (the tip's
 * frame turned by Phi about the tangent) stays a flat twisted circle while Phi is below
 * Michell's threshold Phi_c = 2 pi sqrt(3) alpha / beta (Goriely, J. Elasticity 84, 2006) and
 * writhes out of its plane above it. The seed's settings: L = 1 m, m = 1 kg, alpha = 1 N m^2,
 * r = 0.01 L, beta / alpha = 2 (its pictured case) and 1 here.
 *
 * The twisted circle in the material frame is kappa = 2 pi / L (cos(tau s), -sin(tau s)),
 * twist tau = Phi / L: its Legendre projection is the guess, statics puts it on the model's
 * equilibrium, and dynamics from there, nudged out of the plane, either lets the nudge die or
 * grows it exponentially. A light Kelvin-Voigt damping (ratio about 1e-2 in the lowest
 * out-of-plane mode) takes the high modes the nudge excites out, so BDF can take long steps:
 * it cannot move the threshold, which is where the equilibrium's stiffness loses definiteness
 * (Kelvin-Tait-Chetaev: damping neither stabilizes nor destabilizes a conservative
 * equilibrium). The bracket is Phi_c -+ 3 %: below, the kinetic energy does not grow between
 * t = 0.5 and 1 s; above, it grows by more than 1e3 (the unstable mode's e^{2 lambda t}; at
 * 3 % above the threshold lambda is about 10 /s). Measured at degree 6, 8 and 10 for beta/alpha
 * = 2: the bracket holds at -+1 % too (README, validation). */
#include "basis.h"
#include "quad.h"
#include "spec.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define NQ 64

typedef struct {
    double growth;     /* E_k(1 s) / E_k(0.5 s) */
    double ek_end;     /* J */
    double moment[3];  /* the ring's reaction on the tip at the twisted circle (N m, world) */
} mitchell_run;

static mitchell_run run(int deg, double ratio, double phi)
{
    const double r = 0.01, A = M_PI * r * r, I = M_PI * r * r * r * r / 4, alpha = 1.0;
    const double E = alpha / I, G = ratio * alpha / (2 * I); /* beta = G J, J = 2 I */
    const int n = 3 * (deg + 1);
    double g[3 * (SPEC_MAX_DEGREE + 1)] = {0}, X[NQ], W[NQ];
    quad_gauss_legendre(NQ, 0.0, 1.0, X, W);
    for (int j = 0; j < NQ; j++) {
        double P[SPEC_MAX_DEGREE + 1];
        basis_legendre(deg, X[j], P, NULL);
        for (int k = 0; k <= deg; k++) {
            g[k] += (2 * k + 1) * W[j] * P[k] * 2 * M_PI * cos(phi * X[j]);
            g[deg + 1 + k] -= (2 * k + 1) * W[j] * P[k] * 2 * M_PI * sin(phi * X[j]);
        }
    }
    g[2 * (deg + 1)] = phi;
    char guess[2048], json[4096];
    tu_json_numbers(guess, sizeof guess, g, n);
    snprintf(json, sizeof json,
             "{\"model\": \"classic\", \"rod\": {\"length\": 1, \"radius\": %g, \"density\": %.17g, "
             "\"youngs_modulus\": %.17g, \"shear_modulus\": %.17g, \"shear_viscosity\": 1e4}, "
             "\"strains\": {\"bend1\": %d, \"bend2\": %d, \"twist\": %d}, \"solver\": {\"tolerance\": 1e-11, "
             "\"rtol\": 1e-5, \"atol\": 1e-5, \"guess\": [%s]}, \"constraints\": [{\"name\": \"ring\", "
             "\"type\": \"pose\", \"relative_to\": {\"s\": 0}, \"position\": [0, 0, 0], "
             "\"rotation\": {\"axis\": [0, 0, 1], \"angle\": %.17g}}]}",
             r, 1.0 / A, E, G, deg, deg, deg, guess, phi);
    rod_model *m = tu_model(json);
    rod_state *st = tu_solve(m);
    mitchell_run out;
    rod_frame f = tu_frame(m, st, 2);
    memcpy(out.moment, f.cons[0].moment, sizeof out.moment);
    rod_frame_free(&f);
    cr_assert_eq(rod_dynamics_start(m, st), ROD_OK, "%s", rod_state_error(st));
    /* the nudge: bend2's degrees 2 and 3, out of the circle's plane */
    double q[3 * (SPEC_MAX_DEGREE + 1)];
    memcpy(q, rod_state_q(st), (size_t)n * sizeof *q);
    q[deg + 3] += 1e-5;
    q[deg + 4] += 1e-5;
    cr_assert_eq(rod_state_set_q(st, q, n), ROD_OK);
    double ek_half = 0;
    for (int k = 1; k <= 2; k++) {
        cr_assert_eq(rod_dynamics_advance(m, st, 0.5 * k), ROD_OK, "%s", rod_state_error(st));
        rod_frame fk = tu_frame(m, st, 2);
        if (k == 1) ek_half = fk.e_kinetic;
        out.ek_end = fk.e_kinetic;
        rod_frame_free(&fk);
    }
    out.growth = out.ek_end / ek_half;
    rod_state_free(st);
    rod_model_free(m);
    return out;
}

static void bracket(int deg, double ratio)
{
    const double phic = 2 * M_PI * sqrt(3.0) / ratio;
    const mitchell_run lo = run(deg, ratio, 0.97 * phic), hi = run(deg, ratio, 1.03 * phic);
    const double beta = ratio;
    cr_log_info("Mitchell, beta/alpha = %g, Phi_c = %.4f rad, degree %d: at 0.97 Phi_c the kinetic "
                "energy changes by x%.3g from 0.5 to 1 s (to %.2e J), at 1.03 Phi_c by x%.3g (to %.2e J); "
                "the twisted circle's twist moment %.6f N m (beta Phi / L = %.6f)", ratio, phic, deg,
                lo.growth, lo.ek_end, hi.growth, hi.ek_end, lo.moment[2], beta * 0.97 * phic);
    cr_assert_lt(lo.growth, 10, "stable below Michell's threshold");
    cr_assert_gt(hi.growth, 1e3, "unstable above it");
}

Test(mitchell, twisted_ring_buckles_at_michells_threshold_beta_over_alpha_2, .timeout = 120)
{
    bracket(8, 2.0);
}

Test(mitchell, twisted_ring_buckles_at_michells_threshold_beta_over_alpha_1, .timeout = 120)
{
    bracket(10, 1.0);
}
