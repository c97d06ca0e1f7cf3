/* Inputs set to profiles by commands (core/solve/input_profile.c): the value follows the expression
 * in time, a wave along the rod, null goes back to the spec's own profile, a bad profile
 * changes nothing, and a checkpoint carries the commanded profile to a fresh state. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *spec =
    "{\"model\": \"classic\", \"rod\": {\"length\": 0.3, \"radius\": 0.01, \"density\": 1000,"
    " \"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45, \"shear_viscosity\": 20000}, \"strains\": {\"bend2\": 2},"
    " \"loads\": [{\"name\": \"push\", \"type\": \"tip_force\", \"force\": [0.001, 0, 0], \"scale\": 0.5}],"
    " \"actuators\": [{\"name\": \"cable\", \"type\": \"cable\", \"route\": {\"offset\": [0.008, 0]},"
    " \"tension\": 0.1}]}";

Test(input_profile, an_expression_follows_time_and_null_restores_the_spec)
{
    rod_model *m = tu_model(spec);
    rod_state *st = tu_started(m);
    const int cable = rod_model_input_index(m, "cable");
    cr_assert_eq(rod_state_set_input_profile(st, "cable", "\"2*t + 0.05\""), ROD_OK, "%s", rod_state_error(st));
    double v;
    cr_assert_eq(rod_state_input_constant(st, cable, &v), 0, "an expression is not a constant");
    cr_assert_eq(rod_dynamics_advance(m, st, 0.05), ROD_OK, "%s", rod_state_error(st));
    cr_assert_float_eq(rod_state_input_value(st, cable, 0.0), 2 * 0.05 + 0.05, 1e-14);
    cr_assert_eq(rod_state_set_input_profile(st, "cable", NULL), ROD_OK);
    cr_assert(rod_state_input_constant(st, cable, &v) && v == 0.1, "back to the spec's 0.1");
    rod_state_free(st);
    rod_model_free(m);
}

Test(input_profile, a_wave_varies_along_the_rod_as_eq_59)
{
    rod_model *m = tu_model(spec);
    rod_state *st = tu_started(m);
    const int cable = rod_model_input_index(m, "cable");
    cr_assert_eq(rod_state_set_input_profile(st, "cable", "{\"wave\": {\"alpha\": 0.2, \"mu\": \"0.5\", \"sigma\": 40}}"),
                 ROD_OK, "%s", rod_state_error(st));
    /* past the command's ramp (solver.command_ramp, 10 ms by default) */
    cr_assert_eq(rod_dynamics_advance(m, st, 0.05), ROD_OK, "%s", rod_state_error(st));
    for (double X = 0; X <= 1.0; X += 0.25) {
        const double want = 0.2 * (1 - 1 / (1 + exp(-40 * (X - 0.5))));
        cr_assert_float_eq(rod_state_input_value(st, cable, X), want, 1e-14, "X = %g", X);
    }
    rod_state_free(st);
    rod_model_free(m);
}

Test(input_profile, a_bad_profile_changes_nothing)
{
    rod_model *m = tu_model(spec);
    rod_state *st = tu_started(m);
    const int cable = rod_model_input_index(m, "cable"), push = rod_model_input_index(m, "push");
    cr_assert_eq(rod_state_set_input_profile(st, "cable", "\"2*t + y\""), ROD_EINVAL);
    cr_assert(strstr(rod_state_error(st), "cable") && strstr(rod_state_error(st), "y"), "%s", rod_state_error(st));
    cr_assert_eq(rod_state_set_input_profile(st, "cable", "-1"), ROD_EINVAL, "a cable cannot push");
    cr_assert_eq(rod_state_set_input_profile(st, "push", "{\"wave\": {\"alpha\": 1, \"mu\": 0.5, \"sigma\": 1}}"),
                 ROD_EINVAL, "a load's scale does not vary along the rod");
    cr_assert_eq(rod_state_set_input_profile(st, "push", "\"X\""), ROD_EINVAL, "nor depend on X");
    cr_assert_eq(rod_state_set_input_profile(st, "nope", "1"), ROD_ENOTFOUND);
    double v;
    cr_assert(rod_state_input_constant(st, cable, &v) && v == 0.1);
    cr_assert(rod_state_input_constant(st, push, &v) && v == 0.5);
    char err[256];
    cr_assert_eq(rod_model_check_input_profile(m, "cable", "\"t +\"", err, sizeof err), ROD_EINVAL);
    cr_assert_eq(rod_model_check_input_profile(m, "push", "\"-0.5*t\"", err, sizeof err), ROD_OK, "%s", err);
    rod_state_free(st);
    rod_model_free(m);
}

Test(input_profile, a_checkpoint_carries_the_commanded_profile)
{
    rod_model *m = tu_model(spec);
    rod_state *st = tu_started(m);
    const int cable = rod_model_input_index(m, "cable");
    cr_assert_eq(rod_state_set_input_profile(st, "cable", "\"0.3*t\""), ROD_OK);
    cr_assert_eq(rod_dynamics_advance(m, st, 0.02), ROD_OK, "%s", rod_state_error(st));
    char *text = rod_state_save(m, st);
    cr_assert_not_null(text);
    cr_assert(strstr(text, "0.3*t"), "%s", text);
    rod_state *copy = tu_started(m);
    cr_assert_eq(rod_state_load(m, copy, text, strlen(text)), ROD_OK, "%s", rod_state_error(copy));
    cr_assert_eq(rod_dynamics_advance(m, copy, 0.04), ROD_OK, "%s", rod_state_error(copy));
    cr_assert_float_eq(rod_state_input_value(copy, cable, 0.0), 0.3 * 0.04, 1e-14);
    free(text);
    rod_state_free(copy);
    rod_state_free(st);
    rod_model_free(m);
}
