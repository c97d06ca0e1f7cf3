/* Commands ramped in (solver.command_ramp) against independent results: a damped rod whose
 * tip load a command doubles settles where statics puts the doubled load, and a held point
 * whose target a command moves follows the ramp exactly (the multiplier keeps it on the moved
 * target; there is no jump for the projection to make). */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define L_ROD 0.5
#define R_ROD 0.01
#define E_ROD 1e7

/* E 1e7 and shear viscosity 6.7e5: the first bending mode (7 rad/s; its viscous bending
 * coefficient is 3 eta) has a damping ratio near 0.7, the higher ones are overdamped and relax
 * at E / (3 eta) = 5 per second, so 3 s leave e^-14 of a disturbance */
static const char *rod(const char *rest)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": %g, \"density\": 1000, "
             "\"youngs_modulus\": %g, \"poisson_ratio\": 0.45, \"shear_viscosity\": 6.7e5}, \"strains\": {\"bend2\": 3}, "
             "\"solver\": {\"tolerance\": 1e-13, \"rtol\": 1e-9, \"atol\": 1e-12}%s}",
             L_ROD, R_ROD, E_ROD, rest);
    return buf;
}

static void advance(const rod_model *m, rod_state *st, double t)
{
    cr_assert_eq(rod_dynamics_advance(m, st, t), ROD_OK, "%s", rod_state_error(st));
}

/* x^3 (10 - 15 x + 6 x^2) */
static double w5(double x) { return x <= 0 ? 0 : x >= 1 ? 1 : 10 * pow(x, 3) - 15 * pow(x, 4) + 6 * pow(x, 5); }

Test(command_ramp, a_damped_rod_settles_where_statics_puts_the_commanded_load, .timeout = 240)
{
    const char *loads = ", \"loads\": [{\"name\": \"push\", \"type\": \"tip_force\", \"force\": [0.3, 0, 0], \"scale\": 0.5}], "
                        "\"initial\": \"static\"";
    rod_model *m = tu_model(rod(loads));
    rod_state *st = tu_started(m);
    advance(m, st, 0.05);
    cr_assert_eq(rod_state_set_input(st, "push", 1.0), ROD_OK);
    /* the slowest mode decays as exp(-t / tau_d); 3 s is many of them at this viscosity */
    advance(m, st, 3.0);
    rod_frame f = tu_frame(m, st, 2);
    /* statics of the same rod with the scale the command set */
    char err[256];
    rod_state *ref = rod_state_create(m, err, sizeof err);
    cr_assert_eq(rod_state_set_input(ref, "push", 1.0), ROD_OK);
    rod_statics_result res;
    cr_assert_eq(rod_statics_solve(m, ref, 0.0, &res), ROD_OK, "%s", rod_state_error(ref));
    rod_frame g = tu_frame(m, ref, 2);
    const double dx = f.position[3] - g.position[3], dz = f.position[5] - g.position[5];
    cr_log_info("settled after a ramped command: tip %.9f, %.9f vs statics %.9f, %.9f (%.2e m)", f.position[3],
                f.position[5], g.position[3], g.position[5], hypot(dx, dz));
    cr_assert_gt(g.position[3], 0.01, "the load bends the rod");
    /* the dynamics' own tolerances (rtol 1e-9 on q) and the decay left after 3 s: 1e-7 L */
    cr_assert_lt(hypot(dx, dz), 1e-7 * L_ROD);
    rod_frame_free(&f);
    rod_frame_free(&g);
    rod_state_free(ref);
    rod_state_free(st);
    rod_model_free(m);
}

/* The held tip's target moved by a command at t_cmd, followed through the ramp to 1e-9 L. */
static void held_point_follows(double t_cmd, double t0_min)
{
    const double d = 5e-3, tau = 0.05;
    char rest[512];
    snprintf(rest, sizeof rest,
             ", \"constraints\": [{\"name\": \"prop\", \"type\": \"pose\", \"position\": [%.17g, 0, %g], "
             "\"components\": [\"x\"]}], \"initial\": \"static\"",
             d, L_ROD);
    char json[4096];
    snprintf(json, sizeof json, "%s", rod(rest));
    /* the ramp time as a setting: the solver object already exists, append the key in it */
    char *solver = strstr(json, "\"atol\": 1e-12");
    cr_assert_not_null(solver);
    char tail[4096];
    snprintf(tail, sizeof tail, "%s", solver + strlen("\"atol\": 1e-12"));
    snprintf(solver, sizeof json - (size_t)(solver - json), "\"atol\": 1e-12, \"command_ramp\": %g%s", tau, tail);
    rod_model *m = tu_model(json);
    rod_state *st = tu_started(m);
    advance(m, st, t_cmd);
    cr_assert_eq(rod_state_set_input(st, "prop.x", 2 * d), ROD_OK);
    const double t0 = rod_state_input_change_time(st);
    /* the ramp starts at the integrator's next step only when that step ends within one ramp
     * of the session's time (input_blend.c; otherwise the command is a step). The rod is at
     * rest after its static start, so how far BDF has stepped ahead rests on the static
     * start's round-off (0.0506 s, or 0.0770 s after a reordering of the Jacobian's sums): a
     * ramp of 0.05 s holds either */
    cr_assert_gt(t0, t0_min, "the command was a step at the session's time, not a ramp (t0 %g)", t0);
    double worst = 0;
    for (int k = 1; k <= 10; k++) {
        const double x = 0.1 * k;
        advance(m, st, t0 + x * tau);
        rod_frame f = tu_frame(m, st, 2);
        const double want = d + d * w5(x);
        worst = fmax(worst, fabs(f.position[3] - want));
        cr_assert_lt(fabs(f.cons[0].violation), 1e-9 * L_ROD, "violation %g at %g of the ramp", f.cons[0].violation, x);
        rod_frame_free(&f);
    }
    cr_log_info("moved target: the held tip is %.2e m from the ramped target at worst", worst);
    cr_assert_lt(worst, 1e-9 * L_ROD);
    rod_state_free(st);
    rod_model_free(m);
}

Test(command_ramp, a_held_point_follows_its_moved_target_through_the_ramp, .timeout = 240)
{
    held_point_follows(0.05, 0.05);
}

/* Just after the static start BDF's steps are short and of low order: the ramp starts within
 * a few milliseconds and its rates must match its positions from the first step on (with the
 * ramp's rates taken by central differences, BDF's step fell to 6e-12 s here and stayed). */
Test(command_ramp, a_held_point_commanded_right_after_a_static_start_follows_the_ramp, .timeout = 240)
{
    held_point_follows(0.002, 0.002);
}
