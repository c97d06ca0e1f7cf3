/* Error paths that the other suites never walk (issue 28, item 6): each is driven from a spec
 * through the public API and must end in a code and a message that says what went wrong,
 * never a crash or a silent NaN. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define ROD "\"model\": \"classic\", \"rod\": {\"length\": 0.4, \"radius\": 0.01, \"density\": 1000, " \
            "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45, \"shear_viscosity\": 1e3}"

static rod_state *new_state(const rod_model *m)
{
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    return st;
}

Test(error_paths, a_force_that_overflows_stops_the_dynamics_with_its_time)
{
    /* a finite scale times a finite force: infinite in the sum, caught before the solve */
    rod_model *m = tu_model("{" ROD ", \"strains\": {\"bend2\": 2}, \"loads\": [{\"name\": \"huge\", "
                            "\"type\": \"tip_force\", \"force\": [1e308, 0, 0], \"scale\": 10}]}");
    rod_state *st = new_state(m);
    const int rc = rod_dynamics_start(m, st);
    const int rc2 = rc == ROD_OK ? rod_dynamics_advance(m, st, 0.01) : rc;
    cr_assert_lt(rc2, 0, "refused");
    cr_assert(strstr(rod_state_error(st), "non-finite force"), "%s", rod_state_error(st));
    rod_state_free(st);
    rod_model_free(m);
}

Test(error_paths, two_multipliers_on_one_component_make_a_singular_saddle)
{
    /* the same point's x held twice: A M^-1 A^T is singular, named by the second constraint
     * with the one it depends on */
    rod_model *m = tu_model("{" ROD ", \"strains\": {\"bend1\": 2, \"bend2\": 2}, \"constraints\": ["
                            "{\"name\": \"a\", \"type\": \"pose\", \"s\": 0.4, \"position\": [0, 0, 0.4], "
                            "\"components\": [\"x\"]}, "
                            "{\"name\": \"b\", \"type\": \"pose\", \"s\": 0.4, \"position\": [0, 0, 0.4], "
                            "\"components\": [\"x\"]}]}");
    rod_state *st = new_state(m);
    const int rc = rod_dynamics_start(m, st);
    cr_assert_lt(rc, 0, "refused");
    cr_assert(strstr(rod_state_error(st), "constraint \"b\" (x) depends on \"a\" (x)"), "%s", rod_state_error(st));
    rod_state_free(st);
    rod_model_free(m);
}

Test(error_paths, a_target_out_of_reach_at_t0_has_no_consistent_initial_state)
{
    /* the tip held 1 m sideways of a 0.4 m rod that starts straight: the projection fails */
    rod_model *m = tu_model("{" ROD ", \"strains\": {\"bend2\": 2}, \"constraints\": ["
                            "{\"name\": \"far\", \"type\": \"pose\", \"s\": 0.4, \"position\": [1, 0, 0.4], "
                            "\"components\": [\"x\"]}]}");
    rod_state *st = new_state(m);
    const int rc = rod_dynamics_start(m, st);
    cr_assert_eq(rc, ROD_ESOLVER, "%d %s", rc, rod_state_error(st));
    cr_assert(strstr(rod_state_error(st), "no consistent initial state"), "%s", rod_state_error(st));
    rod_state_free(st);
    rod_model_free(m);
}

/* The tip after 0.02 s of a swinging cantilever under generalized-alpha. */
static void galpha_tip(const char *jacobian, double tip[3])
{
    char spec[1024];
    snprintf(spec, sizeof spec,
             "{" ROD ", \"strains\": {\"bend2\": 3}, \"environment\": {\"gravity\": [-9.81, 0, 0]}, "
             "\"solver\": {\"integrator\": \"generalized-alpha\", \"step\": 1e-3%s%s%s}}",
             jacobian ? ", \"jacobian\": \"" : "", jacobian ? jacobian : "", jacobian ? "\"" : "");
    rod_model *m = tu_model(spec);
    rod_state *st = tu_started(m);
    cr_assert_eq(rod_dynamics_advance(m, st, 0.02), ROD_OK, "%s", rod_state_error(st));
    rod_frame f = tu_frame(m, st, 2);
    memcpy(tip, f.position + 3, 3 * sizeof *tip);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(error_paths, generalized_alpha_with_the_elastic_jacobian_follows_the_full_one)
{
    double full[3], elastic[3];
    galpha_tip(NULL, full);
    galpha_tip("elastic", elastic);
    cr_assert_gt(fabs(full[0]), 1e-5, "the rod moved (%g m)", full[0]);
    for (int a = 0; a < 3; a++)
        cr_assert_float_eq(elastic[a], full[a], 1e-8, "tip %d: %.12g vs %.12g", a, elastic[a], full[a]);
}

/* rod_error_indicator for a cantilever bent by a tip force at Legendre degree `degree`. */
static double indicator(int degree, double *straight)
{
    char spec[512];
    snprintf(spec, sizeof spec,
             "{" ROD ", \"strains\": {\"bend2\": %d}, \"loads\": [{\"name\": \"f\", "
             "\"type\": \"tip_force\", \"force\": [0.05, 0, 0]}]}", degree);
    rod_model *m = tu_model(spec);
    rod_state *st = tu_solve(m);
    const double e = rod_error_indicator(m, rod_state_q(st));
    double zero[64] = {0};
    cr_assert_leq(rod_model_ndof(m), 64);
    *straight = rod_error_indicator(m, zero);
    rod_state_free(st);
    rod_model_free(m);
    return e;
}

Test(error_paths, the_error_indicator_falls_as_the_basis_grows)
{
    double s4, s8;
    const double e4 = indicator(4, &s4), e8 = indicator(8, &s8);
    cr_log_info("error indicator: %.3g m at degree 4, %.3g m at degree 8", e4, e8);
    cr_assert_gt(e4, 0.0, "a bent rod's truncation shows");
    cr_assert_lt(e4, 0.4, "below the rod's length (%g m)", e4);
    cr_assert_lt(e8, e4, "more degrees, less truncation (%g vs %g m)", e8, e4);
    cr_assert_eq(s4, 0.0, "the straight rod has nothing to truncate");
    cr_assert_eq(s8, 0.0);
}

Test(error_paths, a_twist_without_rotary_inertia_has_a_singular_mass_matrix)
{
    /* a straight rod that only twists moves no mass along a path: its twist columns' mass is
     * the rotary inertia alone, which a factor of 1e-320 (positive, as the spec asks) makes
     * underflow to 0 - M_xi is singular and its Cholesky factor stops at the first column */
    rod_model *m = tu_model("{\"model\": \"classic\", \"rod\": {\"length\": 0.4, \"radius\": 0.01, "
                            "\"density\": 1000, \"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45, "
                            "\"shear_viscosity\": 1e3, \"rotary_inertia_factor\": 1e-320}, "
                            "\"strains\": {\"twist\": 2}}");
    rod_state *st = new_state(m);
    const int rc = rod_dynamics_start(m, st);
    const int rc2 = rc == ROD_OK ? rod_dynamics_advance(m, st, 0.01) : rc;
    cr_assert_lt(rc2, 0, "refused");
    cr_assert(strstr(rod_state_error(st), "the mass matrix is not positive definite (column 1) at t = 0"), "%s",
              rod_state_error(st));
    rod_state_free(st);
    rod_model_free(m);
}
