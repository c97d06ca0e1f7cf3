/* The generalized-alpha integrator (solver.integrator): an undamped cantilever's swing
 * against CVODE's BDF at a tight tolerance, second-order convergence in the step, and the
 * spec's requirement of a step. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const double L = 0.5, R = 0.01, E = 1e6, RHO = 1000;

static double euler_bernoulli_period(void)
{
    const double EI = E * M_PI * pow(R, 4) / 4, rA = RHO * M_PI * R * R;
    return 2 * M_PI / (1.8751040687 * 1.8751040687 * sqrt(EI / (rA * pow(L, 4))));
}

/* The tip's x over two periods after a release from the static shape under a small tip
 * force, sampled at N times; integrator NULL: CVODE's BDF at rtol 1e-10. */
enum { N = 200 };
static void tip_history(const char *integrator, double step, int degree, double x[N])
{
    char json[1024], solver[256];
    if (integrator)
        snprintf(solver, sizeof solver, "{\"integrator\": \"%s\", \"step\": %.17g}", integrator, step);
    else
        snprintf(solver, sizeof solver, "{\"rtol\": 1e-10, \"atol\": 1e-14}");
    snprintf(json, sizeof json,
             "{\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": %g, \"density\": %g, "
             "\"youngs_modulus\": %g, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": %d}, "
             "\"loads\": [{\"name\": \"f\", \"type\": \"tip_force\", \"force\": [1e-4, 0, 0]}], "
             "\"initial\": \"static\", \"discretization\": {\"substeps\": 1}, \"solver\": %s}",
             L, R, RHO, E, degree, solver);
    rod_model *m = tu_model(json);
    rod_state *st = tu_started(m);
    cr_assert_eq(rod_state_set_input(st, "f", 0.0), ROD_OK);
    const double T1 = euler_bernoulli_period();
    for (int i = 0; i < N; i++) {
        if (i) cr_assert_eq(rod_dynamics_advance(m, st, 2.0 * T1 * i / (N - 1)), ROD_OK, "%s", rod_state_error(st));
        rod_frame f = tu_frame(m, st, 2);
        x[i] = f.position[3];
        rod_frame_free(&f);
    }
    if (integrator) {
        rod_dynamics_stats s;
        cr_assert_eq(rod_dynamics_get_stats(st, &s), ROD_OK);
        cr_assert_eq(s.last_order, 2);
    }
    rod_state_free(st);
    rod_model_free(m);
}

static double max_diff(const double *a, const double *b)
{
    double d = 0;
    for (int i = 0; i < N; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

Test(galpha, follows_bdf_on_an_undamped_cantilever, .timeout = 120)
{
    /* 200 steps a period: the first mode's phase drifts by about (omega h)^2 / 12 per radian,
     * 1e-3 rad (0.1 % of the swing) over two periods. The method damps what it does not
     * resolve: at most the modes above the first, 2.9 % of a cantilever's static tip deflection
     * under a tip force (their modal participation). */
    static double ref[N], x[N];
    tip_history(NULL, 0, 3, ref);
    tip_history("generalized-alpha", euler_bernoulli_period() / 200, 3, x);
    double amp = 0;
    for (int i = 0; i < N; i++) amp = fmax(amp, fabs(ref[i]));
    const double d = max_diff(x, ref);
    cr_log_info("tip within %.3e m of BDF (swing %.3e m)", d, amp);
    cr_assert_gt(amp, 1e-4);
    cr_assert_lt(d, 0.03 * amp, "tip %.3e m from BDF's (swing %.3e m)", d, amp);
}

Test(galpha, converges_at_second_order, .timeout = 120)
{
    /* successive halvings of the step: the differences fall by 4 once every mode is resolved
     * (bend2 = 1: two modes, the second at omega h <= 0.2 here; an unresolved mode is damped
     * at a rate set by the step, not converged) */
    const double T1 = euler_bernoulli_period();
    static double a[N], b[N], c[N];
    tip_history("generalized-alpha", T1 / 200, 1, a);
    tip_history("generalized-alpha", T1 / 400, 1, b);
    tip_history("generalized-alpha", T1 / 800, 1, c);
    const double ratio = max_diff(a, b) / max_diff(b, c);
    cr_log_info("differences %.3e, %.3e: ratio %.2f", max_diff(a, b), max_diff(b, c), ratio);
    cr_assert(ratio > 3.5 && ratio < 4.5, "ratio %.2f, expected about 4", ratio);
}

/* A soft rod falling under gravity with the elastic Newton matrix (no geometric stiffness):
 * Newton fails at the full step through most of the swing. A halved step stays halved for a
 * while, so the failures are a few per 100 steps, not one every other step, and the stats say
 * which step was used. */
Test(galpha, a_halved_step_is_kept_and_reported, .timeout = 60)
{
    rod_model *m = tu_model("{\"model\": \"classic\", \"rod\": {\"length\": 1, \"radius\": 0.01, "
                            "\"density\": 1000, \"youngs_modulus\": 1e5, \"poisson_ratio\": 0.45, "
                            "\"shear_viscosity\": 10}, \"strains\": {\"bend2\": 4}, \"environment\": "
                            "{\"gravity\": [-9.81, 0, 0]}, \"solver\": {\"integrator\": "
                            "\"generalized-alpha\", \"step\": 0.02, \"jacobian\": \"elastic\"}}");
    rod_state *st = tu_started(m);
    cr_assert_eq(rod_dynamics_advance(m, st, 2.0), ROD_OK, "%s", rod_state_error(st));
    rod_dynamics_stats s;
    cr_assert_eq(rod_dynamics_get_stats(st, &s), ROD_OK);
    cr_log_info("soft rod, elastic matrix: %ld steps, %ld Newton failures, %ld steps below solver.step, "
                "shortest %g s, last %g s", s.steps, s.error_test_failures, s.reduced_steps, s.min_step,
                s.last_step);
    cr_assert_gt(s.reduced_steps, 0, "Newton fails at 0.02 s here");
    cr_assert_lt(s.min_step, 0.02);
    cr_assert_leq(s.last_step, 0.02);
    cr_assert_lt(s.error_test_failures * 10, s.steps, "%ld failures in %ld steps", s.error_test_failures, s.steps);
    rod_state_free(st);
    rod_model_free(m);
}

Test(galpha, the_step_is_required)
{
    rod_issues iss;
    rod_issues_init(&iss);
    const char *json = "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
                       "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 2}, "
                       "\"solver\": {\"integrator\": \"generalized-alpha\"}}";
    rod_model *m = rod_model_compile(json, strlen(json), NULL, 0, &iss);
    cr_assert_null(m);
    char buf[1024];
    rod_issues_format(&iss, buf, sizeof buf);
    cr_assert(strstr(buf, "/solver/step") != NULL, "%s", buf);
    rod_issues_free(&iss);
}

Test(galpha, refuses_multiplier_constraints_and_names_bdf)
{
    /* a pose held by a multiplier needs CVODE's projection, which generalized-alpha lacks */
    rod_model *m = tu_model(
        "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
        "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 2}, "
        "\"constraints\": [{\"name\": \"tip\", \"type\": \"pose\", \"components\": [\"x\"]}], "
        "\"solver\": {\"integrator\": \"generalized-alpha\", \"step\": 0.01}}");
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    cr_assert_eq(rod_dynamics_start(m, st), ROD_EINVAL);
    cr_assert(strstr(rod_state_error(st), "bdf") != NULL, "%s", rod_state_error(st));
    rod_state_free(st);
    rod_model_free(m);
}
