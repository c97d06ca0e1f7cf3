/* Constraints by Lagrange multipliers and by penalties (seeds/003) against independent
 * results: the reactions of a propped and of a guided cantilever (beam theory), the large-
 * deflection inverse (the tip held where a known tip force puts it recovers that force),
 * drift and energy of an undamped rod with a pinned tip, and the inflating rod's volume held
 * exactly by a multiplier and approximately by penalties of rising stiffness. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define L_ROD 0.5
#define R_ROD 0.01
#define E_ROD 1e6
static const double EI = E_ROD * M_PI * R_ROD * R_ROD * R_ROD * R_ROD / 4;

static const char *classic(const char *strains, const char *rest)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": %g, \"density\": 1000, "
             "\"youngs_modulus\": %g, \"poisson_ratio\": 0.45}, \"strains\": {%s}, "
             "\"solver\": {\"tolerance\": 1e-13}%s}",
             L_ROD, R_ROD, E_ROD, strains, rest);
    return buf;
}

static rod_frame_constraint solved_constraint(const char *json, double tip[3])
{
    rod_model *m = tu_model(json);
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 3);
    cr_assert_eq(f.ncons, 1);
    rod_frame_constraint c = f.cons[0];
    if (tip) memcpy(tip, f.position + 6, 3 * sizeof *tip);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
    return c;
}

/* Small deflection delta = 1e-4 L: beam theory's error is O(delta^2 / L^2) = 1e-8 relative;
 * bend2 of degree 1 holds the exact (linear-curvature) shape. */
Test(constraints, propped_cantilever_reaction_is_3_EI_delta_over_L3)
{
    const double d = 1e-4 * L_ROD;
    char rest[512];
    snprintf(rest, sizeof rest,
             ", \"constraints\": [{\"name\": \"prop\", \"type\": \"pose\", \"position\": [%.17g, 0, %g], "
             "\"components\": [\"x\"]}]", d, L_ROD);
    double tip[3];
    rod_frame_constraint c = solved_constraint(classic("\"bend2\": 1", rest), tip);
    const double F = 3 * EI * d / (L_ROD * L_ROD * L_ROD);
    cr_log_info("propped cantilever: F = %.12g N, beam theory %.12g (relative error %.2e)", c.force[0],
                F, fabs(c.force[0] / F - 1));
    cr_assert_float_eq(c.force[0], F, 1e-6 * F);
    cr_assert_float_eq(tip[0], d, 1e-12 * L_ROD);
    cr_assert_lt(fabs(c.violation), 1e-12 * L_ROD);
    cr_assert_eq(c.moment[1], 0.0, "rotation is free");

    /* the target is an input: a command moves it, the reaction follows linearly */
    rod_model *m = tu_model(classic("\"bend2\": 1", rest));
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    const int in = rod_model_input_index(m, "prop.x");
    cr_assert_geq(in, 0, "prop.x is an input");
    cr_assert_str_eq(rod_model_input_type(m, in), "target");
    cr_assert_eq(rod_state_set_input(st, "prop.x", 2 * d), ROD_OK);
    rod_statics_result res;
    cr_assert_eq(rod_statics_solve(m, st, 0.0, &res), ROD_OK, "%s", rod_state_error(st));
    rod_frame f = tu_frame(m, st, 2);
    cr_assert_float_eq(f.cons[0].force[0], 2 * F, 1e-6 * F);
    cr_assert_float_eq(f.position[3], 2 * d, 1e-12 * L_ROD);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(constraints, guided_cantilever_reactions_are_12_EI_delta_over_L3_and_6_EI_delta_over_L2)
{
    const double d = 1e-4 * L_ROD;
    char rest[512];
    snprintf(rest, sizeof rest,
             ", \"constraints\": [{\"name\": \"guide\", \"type\": \"pose\", \"position\": [%.17g, 0, %g], "
             "\"rotation\": {\"axis\": [0, 1, 0], \"angle\": 0}, \"components\": [\"x\", \"ry\"]}]",
             d, L_ROD);
    rod_frame_constraint c = solved_constraint(classic("\"bend2\": 1", rest), NULL);
    const double F = 12 * EI * d / pow(L_ROD, 3), M = -6 * EI * d / (L_ROD * L_ROD);
    cr_log_info("guided cantilever: F = %.12g (theory %.12g, %.2e), M = %.12g (theory %.12g, %.2e)",
                c.force[0], F, fabs(c.force[0] / F - 1), c.moment[1], M, fabs(c.moment[1] / M - 1));
    cr_assert_float_eq(c.force[0], F, 1e-6 * F);
    /* the end moment that keeps the tip level: the rod's own bending moment there, EI w''(L) */
    cr_assert_float_eq(c.moment[1], M, 1e-6 * fabs(M));
}

/* F L^2 / EI = 3: solve the cantilever under that tip force, then hold an unloaded rod's tip
 * at the tip position found (rotation free): the reaction is the force. The stretch strain
 * lets the straight rod move its tip along z, so the constraint has full rank from the start. */
Test(constraints, holding_the_tip_where_a_force_puts_it_recovers_the_force)
{
    const double F = 3 * EI / (L_ROD * L_ROD);
    const char *strains = "\"bend2\": 8, \"stretch\": 1";
    char rest[512];
    snprintf(rest, sizeof rest,
             ", \"loads\": [{\"name\": \"f\", \"type\": \"tip_force\", \"force\": [%.17g, 0, 0]}]", F);
    rod_model *m = tu_model(classic(strains, rest));
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 2);
    double tip[3];
    memcpy(tip, f.position + 3, sizeof tip);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
    cr_assert_gt(tip[0], 0.5 * L_ROD, "a large deflection (%g)", tip[0]);
    snprintf(rest, sizeof rest,
             ", \"constraints\": [{\"name\": \"hold\", \"type\": \"pose\", \"position\": [%.17g, 0, %.17g], "
             "\"components\": [\"x\", \"z\"]}]", tip[0], tip[2]);
    rod_frame_constraint c = solved_constraint(classic(strains, rest), NULL);
    cr_log_info("F L^2/EI = 3: tip at (%.6f, %.6f) m, reaction (%.10g, %.3g) N for %.10g N (%.2e)", tip[0],
                tip[2], c.force[0], c.force[2], F, fabs(c.force[0] / F - 1));
    cr_assert_float_eq(c.force[0], F, 1e-7 * F);
    cr_assert_lt(fabs(c.force[2]), 1e-7 * F);
}

Test(constraints, a_component_the_strains_cannot_move_is_refused_by_name)
{
    rod_model *m = tu_model(classic("\"bend2\": 2", ", \"constraints\": [{\"name\": \"side\", \"type\": "
                                    "\"pose\", \"components\": [\"y\"]}]"));
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    rod_statics_result res;
    cr_assert_eq(rod_statics_solve(m, st, 0.0, &res), ROD_EINVAL);
    cr_assert(strstr(rod_state_error(st), "\"side\"") && strstr(rod_state_error(st), "y"), "%s",
              rod_state_error(st));
    rod_state_free(st);
    rod_model_free(m);
}

/* A rod clamped at both ends and twisted by several turns at its tip (rotation only, twist
 * strain alone): the twist is uniform, kappa3 = Phi / L, and the reaction is G J Phi / L
 * (Saint-Venant). The held rotation's residual reads Phi modulo 2 pi; from the straight rod
 * Newton met 14.3339 - 4 pi and said converged. */
Test(constraints, a_clamped_rod_twisted_by_turns_reaches_the_asked_angle)
{
    const double phis[] = {14.3339, -14.3339, 3.0};
    for (size_t i = 0; i < sizeof phis / sizeof *phis; i++) {
        char rest[512];
        snprintf(rest, sizeof rest, ", \"constraints\": [{\"name\": \"end\", \"type\": \"pose\", "
                 "\"rotation\": {\"axis\": [0, 0, 1], \"angle\": %.17g}, \"components\": [\"rz\"]}]",
                 phis[i]);
        rod_model *m = tu_model(classic("\"twist\": 1", rest));
        rod_state *st = tu_solve(m);
        rod_frame f = tu_frame(m, st, 3);
        const rod_frame_constraint c = f.cons[0];
        const double GJ = E_ROD / (2 * 1.45) * M_PI * R_ROD * R_ROD * R_ROD * R_ROD / 2;
        cr_log_info("twisted by %g rad: kappa3 %.15g 1/m (Phi/L %.15g), moment %.12g N m (G J Phi/L %.12g)",
                    phis[i], f.kappa[5], phis[i] / L_ROD, c.moment[2], GJ * phis[i] / L_ROD);
        for (int k = 0; k < 3; k++) cr_assert_float_eq(f.kappa[3 * k + 2], phis[i] / L_ROD, 1e-12 * fabs(phis[i]));
        cr_assert_float_eq(c.moment[2], GJ * phis[i] / L_ROD, 1e-10 * fabs(GJ * phis[i] / L_ROD),
                           "moment %.12g", c.moment[2]);
        rod_frame_free(&f);
        rod_state_free(st);
        rod_model_free(m);
    }
}

/* Two holds on the x of points d apart under gravity: at d = 1e-8 m what the second holds is
 * held by the first to a squared sine of 1e-13 to 1e-14; statics and dynamics both refuse it
 * naming both constraints (dynamics crawled at steps of 1e-8 s, statics stopped on a singular
 * matrix) and neither advises a static start; at 1 cm both run. */
static const char *two_holds(double d)
{
    char rest[512];
    snprintf(rest, sizeof rest,
             ", \"environment\": {\"gravity\": [-9.81, 0, 0]}, \"constraints\": [{\"name\": \"a\", \"type\": "
             "\"pose\", \"s\": 0.25, \"components\": [\"x\"]}, {\"name\": \"b\", \"type\": \"pose\", "
             "\"s\": %.17g, \"components\": [\"x\"]}]", 0.25 + d);
    return classic("\"bend2\": 4", rest);
}

Test(constraints, holds_that_nearly_depend_on_each_other_are_named_in_statics_and_dynamics)
{
    rod_model *m = tu_model(two_holds(1e-8));
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    rod_statics_result res;
    cr_assert_eq(rod_statics_solve(m, st, 0.0, &res), ROD_EINVAL);
    const char *e = rod_state_error(st);
    cr_log_info("statics: %s", e);
    cr_assert(strstr(e, "\"b\" (x) depends on \"a\" (x)"), "%s", e);
    cr_assert_neq(rod_dynamics_start(m, st), ROD_OK);
    e = rod_state_error(st);
    cr_log_info("dynamics: %s", e);
    cr_assert(strstr(e, "\"b\" (x) depends on \"a\" (x)") && !strstr(e, "\"static\""), "%s", e);
    rod_state_free(st);
    rod_model_free(m);

    m = tu_model(two_holds(1e-2));
    st = tu_solve(m);
    cr_assert_eq(rod_dynamics_start(m, st), ROD_OK, "%s", rod_state_error(st));
    cr_assert_eq(rod_dynamics_advance(m, st, 1e-3), ROD_OK, "%s", rod_state_error(st));
    rod_state_free(st);
    rod_model_free(m);
}

static void advance(const rod_model *m, rod_state *st, double t)
{
    cr_assert_eq(rod_dynamics_advance(m, st, t), ROD_OK, "advance to %g: %s", t, rod_state_error(st));
}

/* Undamped, tip pinned on the axis (x and y held: scleronomic), released in sideways gravity:
 * the constraint does no work, so the energy is conserved as the unconstrained tests hold it
 * (1e-5 of the energy exchanged), and the projection keeps the pin below 1e-9 L. */
Test(constraints, pinned_tip_swinging_rod_keeps_its_pin_and_its_energy, .timeout = 120)
{
    rod_model *m = tu_model(
        "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
        "\"youngs_modulus\": 1e5, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": 3, \"bend2\": 3, "
        "\"stretch\": 1}, \"environment\": {\"gravity\": [-9.81, 0, 0]}, "
        "\"solver\": {\"rtol\": 1e-9, \"atol\": 1e-11}, \"constraints\": [{\"name\": \"pin\", \"type\": "
        "\"pose\", \"components\": [\"x\", \"y\"]}]}");
    rod_state *st = tu_started(m);
    double scale = 0, worst = 0, drift = 0, fmaxv = 0, tipoff = 0;
    double e0 = NAN;
    for (int k = 0; k <= 20; k++) {
        if (k) advance(m, st, 0.025 * k);
        rod_frame f = tu_frame(m, st, 2);
        const double e = f.e_kinetic + f.e_elastic + f.e_gravity;
        if (k == 0) e0 = e;
        scale = fmax(scale, fabs(f.e_gravity));
        worst = fmax(worst, fabs(e - e0));
        drift = fmax(drift, fabs(f.cons[0].violation));
        tipoff = fmax(tipoff, fmax(fabs(f.position[3]), fabs(f.position[4])));
        fmaxv = fmax(fmaxv, fabs(f.cons[0].force[0]));
        rod_frame_free(&f);
    }
    rod_dynamics_stats ds;
    rod_dynamics_get_stats(st, &ds);
    cr_log_info("pinned tip: drift %.2e m (%.2e L), energy %.3e of %.3e J, reaction up to %.3g N, %ld "
                "steps; the frame's finer kinematics put the tip %.2e m off the axis", drift, drift / 0.5,
                worst, scale, fmaxv, ds.steps, tipoff);
    cr_assert_gt(scale, 0.01, "the rod really swings (%g J)", scale);
    cr_assert_gt(fmaxv, 0.01, "the pin really pushes (%g N)", fmaxv);
    cr_assert_lt(drift, 1e-9 * 0.5);
    /* the output points' poses come from a finer Zanna stepping than the model's stations
     * (frame.c): they differ by the 4th-order kinematics' error of the model, not the pin */
    cr_assert_lt(tipoff, 1e-6 * 0.5);
    cr_assert_lt(worst, 1e-5 * scale, "energy drifted by %.3e J of %.3e", worst, scale);
    rod_state_free(st);
    rod_model_free(m);
}

/* An inflating rod squeezed by a transverse muscle: with "volume" held by a multiplier the
 * volume change stays at the solver's tolerance and the multiplier is a positive pressure;
 * penalties of rising stiffness approach it, their error falling as 1/k (seeds/003). */
static const char *squeezed(const char *constraint)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"model\": \"extended\", \"rod\": {\"length\": 0.5, \"radius\": {\"base\": 0.015, \"tip\": 0.006}, "
             "\"density\": 1000, \"youngs_modulus\": 2000, \"poisson_ratio\": 0.45, \"shear_viscosity\": 50}, "
             "\"strains\": {\"bend2\": 2, \"stretch\": 2}, \"inflation\": {\"pieces\": 2, \"boundary\": \"neumann\"}, "
             "\"actuators\": [{\"name\": \"TM\", \"type\": \"transverse\", \"pressure\": 300, \"span\": [0, 0.3]}, "
             "{\"name\": \"LM\", \"type\": \"cable\", \"route\": {\"offset\": [0.5, 0], \"relative_to_radius\": true}, "
             "\"tension\": 0.02}], \"solver\": {\"tolerance\": 1e-12}%s}",
             constraint);
    return buf;
}

Test(constraints, volume_held_by_a_multiplier_and_approached_by_penalties, .timeout = 60)
{
    rod_model *m0 = tu_model(squeezed(""));
    rod_state *s0 = tu_solve(m0);
    rod_frame f0 = tu_frame(m0, s0, 2);
    const double dv_free = f0.volume_change;
    rod_frame_free(&f0);
    rod_state_free(s0);
    rod_model_free(m0);

    rod_model *m = tu_model(squeezed(", \"constraints\": [{\"name\": \"V\", \"type\": \"volume\"}]"));
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 2);
    const double p = f.cons[0].pressure, dv = f.volume_change;
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
    cr_log_info("volume: free %.3e, held %.3e, pressure %.6g Pa", dv_free, dv, p);
    cr_assert_gt(fabs(dv_free), 1e-3, "the squeeze changes the free rod's volume (%g)", dv_free);
    cr_assert_lt(fabs(dv), 1e-10);
    cr_assert_gt(p, 0.0, "squeezed: the hydrostat's pressure is positive (%g Pa)", p);

    double prev = INFINITY, prev_dp = INFINITY;
    for (int i = 0; i < 4; i++) {
        const double k = pow(10, i); /* J per unit relative volume change, squared */
        char c[256];
        snprintf(c, sizeof c, ", \"constraints\": [{\"name\": \"V\", \"type\": \"volume\", \"method\": "
                 "\"penalty\", \"stiffness\": %g}]", k);
        rod_model *mp = tu_model(squeezed(c));
        rod_state *sp = tu_solve(mp);
        rod_frame fp = tu_frame(mp, sp, 2);
        const double dp = fabs(fp.cons[0].pressure / p - 1);
        cr_log_info("penalty k = %g: volume change %.3e, pressure %.6g Pa (%.2e from the multiplier's)", k,
                    fp.volume_change, fp.cons[0].pressure, dp);
        cr_assert_lt(fabs(fp.volume_change), prev, "the error falls as the stiffness rises");
        cr_assert_lt(dp, prev_dp, "the penalty's force approaches the multiplier");
        prev = fabs(fp.volume_change);
        prev_dp = dp;
        rod_frame_free(&fp);
        rod_state_free(sp);
        rod_model_free(mp);
    }
    /* the penalty's error is O(1/k): 1000 J leaves about 3e-5 of the volume */
    cr_assert_lt(prev, 1e-4);
    cr_assert_lt(prev_dp, 1e-2);
}

/* The inflating rod of test_dynamics' energy test, undamped, with its volume held per Hermite
 * piece by multipliers (scleronomic: they do no work): the energy stays constant as there, the
 * volume to the projection's tolerance, and the multipliers (the pieces' pressures) follow
 * the motion. */
Test(constraints, undamped_inflating_rod_with_its_volume_held_conserves_energy, .timeout = 120)
{
    rod_model *m = tu_model(
        "{\"model\": \"extended\", \"rod\": {\"length\": 0.5, \"radius\": {\"base\": 0.015, \"tip\": 0.006}, "
        "\"density\": 1000, \"youngs_modulus\": 2e4, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 4, "
        "\"stretch\": 2}, \"inflation\": {\"pieces\": 2, \"boundary\": \"neumann\"}, "
        "\"environment\": {\"gravity\": [-9.81, 0, 0]}, \"solver\": {\"rtol\": 1e-8, \"atol\": 1e-10}, "
        "\"constraints\": [{\"name\": \"V\", \"type\": \"volume\", \"scope\": \"pieces\"}]}");
    rod_state *st = tu_started(m);
    double e0 = NAN, scale = 0, worst = 0, dv = 0, p_lo = INFINITY, p_hi = -INFINITY;
    for (int k = 0; k <= 8; k++) {
        if (k) advance(m, st, 0.1 * k);
        rod_frame f = tu_frame(m, st, 5);
        const double e = f.e_kinetic + f.e_elastic + f.e_gravity;
        if (k == 0) e0 = e;
        scale = fmax(scale, fabs(f.e_gravity));
        worst = fmax(worst, fabs(e - e0));
        dv = fmax(dv, fmax(fabs(f.volume_change), fabs(f.cons[0].violation)));
        p_lo = fmin(p_lo, f.cons[0].pressure);
        p_hi = fmax(p_hi, f.cons[0].pressure);
        rod_frame_free(&f);
    }
    cr_log_info("volume held per piece: energy drift %.3e of %.3e J, volume within %.2e, pressure %.4g..%.4g Pa",
                worst, scale, dv, p_lo, p_hi);
    cr_assert_gt(scale, 0.01, "the rod really swings (%g J)", scale);
    cr_assert_gt(p_hi - p_lo, 1.0, "the pressure responds to the motion");
    cr_assert_lt(dv, 1e-10);
    cr_assert_lt(worst, 1e-5 * scale, "energy drifted by %.3e J of %.3e", worst, scale);
    rod_state_free(st);
    rod_model_free(m);
}

/* The reaching arm of seed 000 Sec. 5.2 (api/examples/octopus-reaching-incompressible.json) over
 * its 3.5 s: held by the multiplier its volume stays at the projection's tolerance (the free
 * arm loses 2.96 %) and the multiplier, the hydrostat's pressure, is positive all along; held by
 * penalties of rising stiffness, the volume error falls as 1/k and the pressure approaches the
 * multiplier's, while the integrator's step count grows. At rtol 1e-4, atol 1e-5 (the reaching
 * example's before its rate_time_scale). */
typedef struct {
    double dv, p_max, steps;
} reach_volume;

static reach_volume reach_with(const char *constraints)
{
    char *json = tu_read_file("api/examples/octopus-reaching-incompressible.json");
    const char *sets[] = {"solver.rtol=1e-4", "solver.atol=1e-5", constraints};
    rod_model *m = tu_model_set(json, sets, constraints ? 3 : 2);
    free(json);
    rod_state *st = tu_started(m);
    reach_volume r = {0, 0, 0};
    for (int i = 1; i <= 35; i++) {
        cr_assert_eq(rod_dynamics_advance(m, st, 0.1 * i), ROD_OK, "t = %g: %s", 0.1 * i, rod_state_error(st));
        rod_frame f = tu_frame(m, st, 11);
        r.dv = fmax(r.dv, fabs(f.volume_change));
        cr_assert_eq(f.ncons, 1);
        cr_assert_gt(f.cons[0].pressure, 0.0, "t = %g: squeezed by the TM, the pressure is positive", 0.1 * i);
        r.p_max = fmax(r.p_max, f.cons[0].pressure);
        rod_frame_free(&f);
    }
    rod_dynamics_stats s;
    cr_assert_eq(rod_dynamics_get_stats(st, &s), 0);
    r.steps = (double)s.steps;
    rod_state_free(st);
    rod_model_free(m);
    return r;
}

Test(constraints, reaching_arm_incompressible_by_a_multiplier_and_by_penalties, .timeout = 300)
{
    const reach_volume held = reach_with(NULL);
    cr_log_info("reaching, volume held by the multiplier: |dV/V| <= %.3e, pressure up to %.6g Pa, %.0f steps",
                held.dv, held.p_max, held.steps);
    cr_assert_lt(held.dv, 1e-9, "the issue's bound on the volume change with a multiplier");
    double prev = INFINITY, prev_dp = INFINITY;
    for (int e = 3; e <= 5; e++) {
        char c[200];
        snprintf(c, sizeof c,
                 "constraints=[{\"name\": \"volume\", \"type\": \"volume\", \"method\": \"penalty\", \"stiffness\": 1e%d}]",
                 e);
        const reach_volume pen = reach_with(c);
        const double dp = fabs(pen.p_max / held.p_max - 1);
        cr_log_info("reaching, penalty k = 1e%d: |dV/V| <= %.3e, pressure up to %.6g Pa (%.2e from the multiplier's), "
                    "%.0f steps",
                    e, pen.dv, pen.p_max, dp, pen.steps);
        /* O(1/k): a decade of stiffness takes a decade off the error (within a factor 2) */
        if (e > 3) {
            cr_assert(pen.dv < prev / 5 && pen.dv > prev / 20, "volume error as 1/k: %.3e after %.3e", pen.dv, prev);
            cr_assert(dp < prev_dp / 5 && dp > prev_dp / 20, "pressure error as 1/k: %.3e after %.3e", dp, prev_dp);
        }
        prev = pen.dv;
        prev_dp = dp;
    }
    cr_assert_lt(prev_dp, 1e-3, "at k = 1e5 the penalty's pressure is the multiplier's within 1e-3");
}
