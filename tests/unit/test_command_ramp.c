/* A command's change of input ramps in (core/model/input_blend.c): it takes over from the
 * integrator's next step boundary through the quintic smoothstep over solver.command_ramp; a
 * ramp of 0 is a step at the state's time; commands within one ramp chain without a jump. */
#include "state.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *spec_with_ramp(double ramp)
{
    static char buf[1024];
    snprintf(buf, sizeof buf,
             "{\"model\": \"classic\", \"rod\": {\"length\": 0.3, \"radius\": 0.01, \"density\": 1000,"
             " \"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45, \"shear_viscosity\": 20000}, \"strains\": {\"bend2\": 2},"
             " \"actuators\": [{\"name\": \"cable\", \"type\": \"cable\", \"route\": {\"offset\": [0.008, 0]},"
             " \"tension\": 0.1}], \"solver\": {\"command_ramp\": %.17g}}",
             ramp);
    return buf;
}

/* x^3 (10 - 15 x + 6 x^2), written out independently of the engine */
static double w5(double x) { return x <= 0 ? 0 : x >= 1 ? 1 : 10 * pow(x, 3) - 15 * pow(x, 4) + 6 * pow(x, 5); }

static void advance(const rod_model *m, rod_state *st, double t)
{
    cr_assert_eq(rod_dynamics_advance(m, st, t), ROD_OK, "%s", rod_state_error(st));
}

Test(command_ramp, a_command_takes_over_from_the_next_step_through_the_smoothstep)
{
    const double tau = 0.02;
    rod_model *m = tu_model(spec_with_ramp(tau));
    rod_state *st = tu_started(m);
    const int cable = rod_model_input_index(m, "cable");
    advance(m, st, 0.05);
    cr_assert_eq(rod_state_set_input(st, "cable", 0.3), ROD_OK);
    const double t0 = rod_state_input_change_time(st);
    cr_assert_geq(t0, 0.05, "not before the state's time");
    cr_assert_lt(t0, 0.05 + 0.05, "within a step of it (%g)", t0);
    double v;
    cr_assert(rod_state_input_constant(st, cable, &v) && v == 0.3, "the commanded value is what it reports");
    cr_assert_float_eq(rod_state_input_value(st, cable, 0.5), 0.1, 1e-15, "the state's own time is before the ramp");
    for (int k = 1; k <= 5; k++) {
        const double x = 0.2 * k - 0.1;
        advance(m, st, t0 + x * tau);
        const double want = 0.1 + 0.2 * w5(x);
        cr_assert_float_eq(rod_state_input_value(st, cable, 0.5), want, 1e-12, "at %g of the ramp: %.15g, want %.15g", x,
                           rod_state_input_value(st, cable, 0.5), want);
    }
    advance(m, st, t0 + tau);
    cr_assert_float_eq(rod_state_input_value(st, cable, 0.5), 0.3, 1e-15);
    rod_state_free(st);
    rod_model_free(m);
}

/* A straight rod with a slack cable is at rest: BDF's steps grow to seconds, and its t_n runs
 * that far ahead of the state. The command must still act within a ramp, not from t_n. */
Test(command_ramp, a_command_to_a_rod_at_rest_acts_within_a_ramp)
{
    const double tau = 0.01;
    rod_model *m = tu_model(
        "{\"model\": \"classic\", \"rod\": {\"length\": 0.3, \"radius\": 0.01, \"density\": 1000,"
        " \"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45, \"shear_viscosity\": 20000}, \"strains\": {\"bend2\": 2},"
        " \"actuators\": [{\"name\": \"cable\", \"type\": \"cable\", \"route\": {\"offset\": [0.008, 0]},"
        " \"tension\": 0}], \"solver\": {\"command_ramp\": 0.01}}");
    rod_state *st = tu_started(m);
    const int cable = rod_model_input_index(m, "cable");
    double t = 0;
    for (int k = 0; k < 200; k++) advance(m, st, t += 0.01); /* the daemon's 10 ms pieces */
    cr_assert_eq(rod_state_set_input(st, "cable", 0.3), ROD_OK);
    const double t0 = rod_state_input_change_time(st);
    cr_assert_geq(t0, t);
    cr_assert_leq(t0, t + tau, "the command acts from %g, the state is at %g", t0, t);
    advance(m, st, t + 2 * tau);
    cr_assert_float_eq(rod_state_input_value(st, cable, 0.5), 0.3, 1e-15, "in full force after two ramps");
    rod_frame before = tu_frame(m, st, 2);
    advance(m, st, t + 0.2);
    rod_frame after = tu_frame(m, st, 2);
    const double moved = hypot(after.position[3] - before.position[3], after.position[4] - before.position[4]);
    cr_assert_gt(moved, 1e-4, "the pulled cable bends the rod within 0.2 s: the tip moved %g m", moved);
    rod_frame_free(&before);
    rod_frame_free(&after);
    rod_state_free(st);
    rod_model_free(m);
}

Test(command_ramp, a_ramp_of_zero_is_a_step_at_the_states_time)
{
    rod_model *m = tu_model(spec_with_ramp(0));
    rod_state *st = tu_started(m);
    const int cable = rod_model_input_index(m, "cable");
    advance(m, st, 0.05);
    cr_assert_eq(rod_state_set_input(st, "cable", 0.3), ROD_OK);
    cr_assert_eq(rod_state_input_change_time(st), rod_state_time(st));
    cr_assert_eq(rod_state_input_value(st, cable, 0.5), 0.3);
    rod_state_free(st);
    rod_model_free(m);
}

Test(command_ramp, commands_within_one_ramp_chain_without_a_jump)
{
    const double tau = 0.02;
    rod_model *m = tu_model(spec_with_ramp(tau));
    rod_state *st = tu_started(m);
    const int cable = rod_model_input_index(m, "cable");
    advance(m, st, 0.05);
    cr_assert_eq(rod_state_set_input(st, "cable", 0.3), ROD_OK);
    const double ta = rod_state_input_change_time(st);
    advance(m, st, ta + 0.3 * tau);
    const double before = rod_state_input_value(st, cable, 0.5);
    cr_assert_eq(rod_state_set_input_profile(st, "cable", "\"0.5 + 0*t\""), ROD_OK, "%s", rod_state_error(st));
    const double tb = rod_state_input_change_time(st);
    cr_assert_geq(tb, ta + 0.3 * tau);
    cr_assert_float_eq(rod_state_input_value(st, cable, 0.5), before, 1e-15, "no jump at the command");
    /* between: 0.1 + w(a) (0.3 - 0.1) + w(b) (0.5 - 0.3) */
    const double t = tb + 0.5 * tau;
    advance(m, st, t);
    const double want = 0.1 + 0.2 * w5((t - ta) / tau) + 0.2 * w5((t - tb) / tau);
    cr_assert_float_eq(rod_state_input_value(st, cable, 0.5), want, 1e-12, "%.15g vs %.15g", rod_state_input_value(st, cable, 0.5), want);
    advance(m, st, tb + tau);
    cr_assert_float_eq(rod_state_input_value(st, cable, 0.5), 0.5, 1e-15);
    rod_state_free(st);
    rod_model_free(m);
}

Test(command_ramp, before_the_integrator_has_stepped_a_command_is_a_step)
{
    rod_model *m = tu_model(spec_with_ramp(0.02));
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    const int cable = rod_model_input_index(m, "cable");
    cr_assert_eq(rod_state_set_input(st, "cable", 0.3), ROD_OK);
    cr_assert_eq(rod_state_input_value(st, cable, 0.5), 0.3, "no integrator history to keep: applied at once");
    rod_state_free(st);
    rod_model_free(m);
}

Test(command_ramp, the_spec_refuses_a_negative_ramp)
{
    const char *issues = tu_issues(spec_with_ramp(-1));
    cr_assert(strstr(issues, "/solver/command_ramp"), "%s", issues);
}

/* The held points' velocity and acceleration targets come from state_input_value_derivs: across
 * a chain they are the quintic's own derivatives (d w / dt = 30 x^2 (1 - x)^2 / tau and
 * d^2 w / dt^2 = 60 x (1 - x)(1 - 2 x) / tau^2, written out here), zero before the ramp and
 * continuous through its start. Central differences across the start were off by 0.02 m/s^2
 * for a 5 mm command over 50 ms. */
Test(command_ramp, a_ramps_rates_are_the_quintics_derivatives)
{
    const double tau = 0.05;
    rod_model *m = tu_model(spec_with_ramp(tau));
    rod_state *st = tu_started(m);
    const int cable = rod_model_input_index(m, "cable");
    advance(m, st, 0.002);
    cr_assert_eq(rod_state_set_input(st, "cable", 0.3), ROD_OK);
    const double t0 = rod_state_input_change_time(st);
    cr_assert_gt(t0, 0.002, "a ramp, not a step (t0 %g)", t0);
    const double dv = 0.3 - 0.1;
    const double xs[] = {-0.01, -1e-9, 1e-9, 1e-4, 0.25, 0.5, 0.9, 1 - 1e-9, 1.2};
    for (size_t k = 0; k < sizeof xs / sizeof *xs; k++) {
        const double x = xs[k], xc = fmin(fmax(x, 0.0), 1.0);
        double d[3];
        state_input_value_derivs(st, cable, t0 + x * tau, d);
        const double want[3] = {0.1 + dv * w5(x), dv * 30 * xc * xc * (1 - xc) * (1 - xc) / tau,
                                dv * 60 * xc * (1 - xc) * (1 - 2 * xc) / (tau * tau)};
        /* the value to rounding; the rates to rounding of their own size (dv / tau^2 = 80) */
        cr_assert_float_eq(d[0], want[0], 1e-15, "value at x = %g: %.17g, want %.17g", x, d[0], want[0]);
        cr_assert_float_eq(d[1], want[1], 1e-12, "rate at x = %g: %.17g, want %.17g", x, d[1], want[1]);
        cr_assert_float_eq(d[2], want[2], 1e-10, "acceleration at x = %g: %.17g, want %.17g", x, d[2], want[2]);
    }
    rod_state_free(st);
    rod_model_free(m);
}
