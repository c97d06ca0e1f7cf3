/* The integrator's failure paths that no spec reaches (issue 28, item 6): CVODE's setup
 * failing (its own allocations, in a shared library, are not wrapped with malloc's), the
 * Jacobians' q_ddot evaluations failing, and generalized-alpha's force-form residual failing.
 * The linker wraps CVodeInit, dyn_accel, dyn_accel_same_q and dyn_residual for this binary
 * only (the Makefile's alloc_tests line), and each fails when armed; otherwise they pass
 * through. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <cvode/cvode.h>
#include <stdio.h>
#include <string.h>

int __real_CVodeInit(void *mem, CVRhsFn f, sunrealtype t0, N_Vector y0);
int __real_dyn_accel(const rod_model *m, rod_state *st, double t, const double *q, const double *qd,
                      double *qdd);
int __real_dyn_accel_same_q(const rod_model *m, rod_state *st, double t, const double *q, const double *qd,
                            double *qdd);

int __real_dyn_residual(const rod_model *m, rod_state *st, double t, const double *q, const double *qd,
                        const double *x, double *r);

static int fail_cvode_init;      /* CVodeInit answers CV_MEM_FAIL */
static long residual_countdown = -1; /* dyn_residual calls left before failing; -1: never */
static int residual_fails_on;    /* once it has failed, every later call fails too */
static int fail_same_q;          /* the Jacobian's q_dot columns' evaluations fail */
static long same_q_calls;        /* dyn_accel_same_q calls seen */
static long accel_countdown = -1; /* dyn_accel calls left before one fails; -1: never */

int __wrap_dyn_accel(const rod_model *m, rod_state *st, double t, const double *q, const double *qd,
                     double *qdd)
{
    if (accel_countdown >= 0 && accel_countdown-- == 0) return -1;
    return __real_dyn_accel(m, st, t, q, qd, qdd);
}

int __wrap_dyn_residual(const rod_model *m, rod_state *st, double t, const double *q, const double *qd,
                        const double *x, double *r)
{
    if (residual_countdown >= 0 && residual_countdown-- == 0) return -1;
    if (residual_fails_on) return -1;
    return __real_dyn_residual(m, st, t, q, qd, x, r);
}

int __wrap_CVodeInit(void *mem, CVRhsFn f, sunrealtype t0, N_Vector y0)
{
    return fail_cvode_init ? CV_MEM_FAIL : __real_CVodeInit(mem, f, t0, y0);
}

int __wrap_dyn_accel_same_q(const rod_model *m, rod_state *st, double t, const double *q, const double *qd,
                            double *qdd)
{
    same_q_calls++;
    return fail_same_q ? -1 : __real_dyn_accel_same_q(m, st, t, q, qd, qdd);
}

#define ROD "\"model\": \"classic\", \"rod\": {\"length\": 0.4, \"radius\": 0.01, \"density\": 1000, " \
            "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45, \"shear_viscosity\": 1e3}, " \
            "\"strains\": {\"bend2\": 2}, \"environment\": {\"gravity\": [9.81, 0, 0]}"

static rod_state *new_state(const rod_model *m)
{
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    return st;
}

Test(solver_faults, a_cvode_setup_failure_is_a_solver_error_and_the_next_start_is_whole)
{
    rod_model *m = tu_model("{" ROD "}");
    rod_state *st = new_state(m);
    fail_cvode_init = 1;
    const int rc = rod_dynamics_start(m, st);
    fail_cvode_init = 0;
    cr_assert_eq(rc, ROD_ESOLVER, "%d %s", rc, rod_state_error(st));
    cr_assert(strstr(rod_state_error(st), "CVODE setup failed: CV_MEM_FAIL"), "%s", rod_state_error(st));
    /* the half-set-up CVODE was freed: a second start builds it afresh and steps */
    cr_assert_eq(rod_dynamics_start(m, st), ROD_OK, "%s", rod_state_error(st));
    cr_assert_eq(rod_dynamics_advance(m, st, 0.01), ROD_OK, "%s", rod_state_error(st));
    rod_state_free(st);
    rod_model_free(m);
}

Test(solver_faults, a_failed_jacobian_evaluation_stops_the_advance_with_cvodes_flag)
{
    rod_model *m = tu_model("{" ROD "}");
    rod_state *st = new_state(m);
    cr_assert_eq(rod_dynamics_start(m, st), ROD_OK, "%s", rod_state_error(st));
    same_q_calls = 0;
    fail_same_q = 1;
    const int rc = rod_dynamics_advance(m, st, 0.01);
    fail_same_q = 0;
    cr_assert_gt(same_q_calls, 0, "the difference Jacobian ran");
    cr_assert_eq(rc, ROD_ESOLVER, "%d %s", rc, rod_state_error(st));
    cr_assert(strstr(rod_state_error(st), "CVODE failed at t = "), "%s", rod_state_error(st));
    cr_log_info("a failed Jacobian: %s", rod_state_error(st));
    rod_state_free(st);
    rod_model_free(m);
}

/* The k-th q_ddot evaluation of the first 0.01 s failing, for k = 0, 1, ... until one is a
 * Jacobian's own first evaluation (CVODE then reports the linear solver's setup failing, not
 * the right-hand side): the difference Jacobian's and the elastic one's. */
static void a_jacobians_first_evaluation_failing(const char *solver)
{
    char json[1024];
    snprintf(json, sizeof json, "{" ROD ", \"solver\": {\"jacobian\": \"%s\"}}", solver);
    rod_model *m = tu_model(json);
    int found = 0;
    for (long k = 0; k < 50 && !found; k++) {
        rod_state *st = new_state(m);
        cr_assert_eq(rod_dynamics_start(m, st), ROD_OK, "%s", rod_state_error(st));
        accel_countdown = k;
        const int rc = rod_dynamics_advance(m, st, 0.01);
        accel_countdown = -1;
        cr_assert_eq(rc, ROD_ESOLVER, "%s: evaluation %ld failing: %d %s", solver, k, rc, rod_state_error(st));
        if (strstr(rod_state_error(st), "CV_LSETUP_FAIL")) {
            cr_log_info("%s Jacobian: evaluation %ld failing: %s", solver, k, rod_state_error(st));
            found = 1;
        }
        rod_state_free(st);
    }
    cr_assert(found, "%s: a Jacobian's evaluation failed within the first 50", solver);
    rod_model_free(m);
}

Test(solver_faults, the_difference_jacobians_first_evaluation_failing_stops_the_advance)
{
    a_jacobians_first_evaluation_failing("difference");
}

Test(solver_faults, the_elastic_jacobians_evaluation_failing_stops_the_advance)
{
    a_jacobians_first_evaluation_failing("elastic");
}

/* generalized-alpha with the elastic Newton matrix evaluates the force-form residual
 * (dyn_residual): one failing evaluation is a Newton iterate gone too far, so the step is
 * halved and the advance goes on; failing at every step length down to the shortest is a
 * solver error naming the time, and a start after it steps again */
#define GALPHA "\"solver\": {\"integrator\": \"generalized-alpha\", \"step\": 0.002, \"jacobian\": \"elastic\"}"

/* the rod above on generalized-alpha, started */
static rod_state *galpha_started(rod_model **m)
{
    *m = tu_model("{" ROD ", " GALPHA "}");
    rod_state *st = new_state(*m);
    cr_assert_eq(rod_dynamics_start(*m, st), ROD_OK, "%s", rod_state_error(st));
    return st;
}

Test(solver_faults, one_failed_residual_halves_a_generalized_alpha_step)
{
    rod_model *m;
    rod_state *st = galpha_started(&m);
    residual_countdown = 3;
    const int rc = rod_dynamics_advance(m, st, 0.02);
    cr_assert_eq(residual_countdown, -1, "the armed evaluation was reached");
    residual_countdown = -1;
    cr_assert_eq(rc, ROD_OK, "%d %s", rc, rod_state_error(st));
    rod_dynamics_stats s;
    cr_assert_eq(rod_dynamics_get_stats(st, &s), 0);
    cr_assert_gt(s.reduced_steps, 0, "the step was halved");
    cr_assert_lt(s.min_step, 0.002);
    rod_state_free(st);
    rod_model_free(m);
}

Test(solver_faults, a_residual_failing_at_every_step_length_is_a_solver_error)
{
    rod_model *m;
    rod_state *st = galpha_started(&m);
    residual_fails_on = 1;
    const int rc = rod_dynamics_advance(m, st, 0.02);
    residual_fails_on = 0;
    cr_assert_eq(rc, ROD_ESOLVER, "%d %s", rc, rod_state_error(st));
    cr_assert(strstr(rod_state_error(st), "Newton did not converge at t = "), "%s", rod_state_error(st));
    cr_log_info("a residual failing throughout: %s", rod_state_error(st));
    cr_assert_eq(rod_dynamics_start(m, st), ROD_OK, "%s", rod_state_error(st));
    cr_assert_eq(rod_dynamics_advance(m, st, 0.01), ROD_OK, "%s", rod_state_error(st));
    rod_state_free(st);
    rod_model_free(m);
}
