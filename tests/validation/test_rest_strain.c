/* Rods curved at rest (rod.rest_strain, xi* of Eq. 42) against independent answers:
 *  (a) constant rest curvature and no load: the exact circular arc, and a full ring closing;
 *  (b) a rest-curved cantilever straightened by the end moment M = -EI k;
 *  (c) a rest helix under an axial force: the small-load stiffness of a Kirchhoff helical
 *      spring (Love's; Wahl's for the circular wire) in EI, GJ, radius and pitch angle;
 *  (d) a pre-curved cantilever under a dead end load out of its plane, large deflection:
 *      a shooting solution of the Kirchhoff equations (tests/support/kirchhoff.c) and the
 *      45-degree bend of Bathe and Bolourchi (1979). */
#include "kirchhoff.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static char *classic_spec(double L, double r, double E, double nu, const char *rest,
                          const char *strains, const char *loads)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"model\": \"classic\", \"rod\": {\"length\": %.17g, \"radius\": %.17g, \"density\": 1000, "
             "\"youngs_modulus\": %.17g, \"poisson_ratio\": %.17g, \"rest_strain\": {%s}}, "
             "\"strains\": {%s}, \"loads\": [%s], \"solver\": {\"tolerance\": 1e-13, \"max_iterations\": 200}}",
             L, r, E, nu, rest, strains, loads);
    return buf;
}

/* ---- (a) the circular arc and the ring ---- */

/* A constant xi* makes each Magnus step's Omega = h xi* exactly and its exponential the exact
 * screw motion, so the arc is exact up to rounding: 1e-12 of the length over the few hundred
 * steps. */
static void check_free_arc(const char *rest, int comp, double k, int n_out)
{
    const double L = 0.5;
    rod_model *m = tu_model(classic_spec(L, 0.01, 1e6, 0.3, rest, "\"bend1\": 3, \"bend2\": 3", ""));
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, n_out);
    for (int i = 0; i < f.n; i++) {
        const double s = f.s[i];
        /* bend2 curls toward +x in the x-z plane; bend1 (about d1 = x) toward -y */
        const double a = comp == 1 ? (1 - cos(k * s)) / k : 0.0;
        const double b = comp == 0 ? -(1 - cos(k * s)) / k : 0.0;
        cr_assert_float_eq(f.position[3 * i + 0], a, 1e-12 * L, "x at s = %g: %.15g vs %.15g", s, f.position[3 * i], a);
        cr_assert_float_eq(f.position[3 * i + 1], b, 1e-12 * L, "y at s = %g", s);
        cr_assert_float_eq(f.position[3 * i + 2], sin(k * s) / k, 1e-12 * L, "z at s = %g", s);
        /* FRAMEs report the strain itself, rest included */
        cr_assert_float_eq(f.kappa[3 * i + comp], k, 1e-12 * fabs(k));
    }
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(rest_strain, constant_rest_curvature_is_an_exact_circular_arc)
{
    check_free_arc("\"bend2\": 2.5", 1, 2.5, 41);
    check_free_arc("\"bend1\": -4", 0, -4.0, 41);
    /* the same constant as an expression in s and X */
    check_free_arc("\"bend2\": \"2.5 + 0*s*X\"", 1, 2.5, 17);
}

Test(rest_strain, a_full_ring_closes_on_itself)
{
    const double L = 0.5, k = 2 * M_PI / L;
    char rest[64];
    snprintf(rest, sizeof rest, "\"bend2\": %.17g", k);
    rod_model *m = tu_model(classic_spec(L, 0.01, 1e6, 0.3, rest, "\"bend2\": 3, \"twist\": 2", ""));
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 21);
    const double *p = f.position + 3 * 20, *R = f.rotation + 9 * 20;
    for (int a = 0; a < 3; a++) cr_assert_float_eq(p[a], 0.0, 1e-12 * L, "tip %d: %g", a, p[a]);
    for (int a = 0; a < 9; a++) cr_assert_float_eq(R[a], a % 4 == 0 ? 1.0 : 0.0, 1e-12, "R[%d] = %g", a, R[a]);
    /* the ring's diameter, across at s = L/2 */
    cr_assert_float_eq(f.position[3 * 10 + 0], 2 / k, 1e-12 * L);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(rest_strain, a_rod_at_rest_stays_there_in_dynamics)
{
    /* q = 0 is the rest shape: no elastic force there, so a run from rest under no load stays
     * put (with forces measured from the straight rod it would spring open at once) */
    rod_model *m = tu_model(classic_spec(0.5, 0.01, 1e6, 0.3, "\"bend2\": 3, \"twist\": \"2*X\"",
                                         "\"bend1\": 2, \"bend2\": 2, \"twist\": 2", ""));
    rod_state *st = tu_started(m);
    cr_assert_eq(rod_dynamics_advance(m, st, 0.05), ROD_OK, "%s", rod_state_error(st));
    const int n = rod_model_ndof(m);
    const double *q = rod_state_q(st);
    for (int i = 0; i < n; i++) cr_assert_float_eq(q[i], 0.0, 1e-12, "q[%d] = %g", i, q[i]);
    rod_state_free(st);
    rod_model_free(m);
}

/* ---- (b) the end moment that cancels the rest curvature ---- */

/* The straight rod is then the equilibrium, and a constant strain is in every basis: the tip
 * is at (0, 0, L) to the solver's tolerance (scaled residual 1e-13). */
static void check_straightened(const char *model_extra, int extended)
{
    const double L = 0.4, r = 0.01, E = 1e6, k = 3.0; /* 69 degrees of arc at rest */
    const double EI = E * M_PI * pow(r, 4) / 4;
    char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"model\": \"%s\", \"rod\": {\"length\": %g, \"radius\": %g, \"density\": 1000, "
             "\"youngs_modulus\": %g, \"poisson_ratio\": 0.45, \"rest_strain\": {\"bend2\": %g, \"bend1\": 0}}, "
             "\"strains\": {\"bend1\": 2, \"bend2\": 2, \"twist\": 1%s}, %s"
             "\"loads\": [{\"name\": \"m\", \"type\": \"tip_moment\", \"moment\": [0, %.17g, 0]}], "
             "\"solver\": {\"tolerance\": 1e-13, \"load_steps\": 4}}",
             extended ? "extended" : "classic", L, r, E, k, extended ? ", \"stretch\": 2, \"shear1\": 1" : "",
             model_extra, -EI * k);
    rod_model *m = tu_model(buf);
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 21);
    for (int i = 0; i < f.n; i++) {
        cr_assert_float_eq(f.position[3 * i + 0], 0.0, 1e-10 * L, "x(%g) = %g", f.s[i], f.position[3 * i]);
        cr_assert_float_eq(f.position[3 * i + 1], 0.0, 1e-10 * L);
        cr_assert_float_eq(f.position[3 * i + 2], f.s[i], 1e-10 * L, "z(%g) = %.15g", f.s[i], f.position[3 * i + 2]);
        cr_assert_float_eq(f.kappa[3 * i + 1], 0.0, 1e-10 * k);
        cr_assert_float_eq(f.rho[i], 1.0, 1e-10);
    }
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(rest_strain, the_end_moment_that_cancels_the_rest_curvature_straightens_the_rod)
{
    check_straightened("", 0);
    /* the extended rod: free stretch, shear and inflation stay at rest under a pure moment */
    check_straightened("\"inflation\": {\"pieces\": 2, \"boundary\": \"neumann\"}, ", 1);
}
