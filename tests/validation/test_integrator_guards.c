/* The integrator's guards: a rod driven past what it can follow fails fast with a message
 * (while a hard but passable jump in a load still goes through), and an interrupt from
 * another thread stops an advance at once, leaving the state where that advance began and
 * continuing exactly as a restart there would. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The daemon tests' cable arm: 5 kPa, 1.5 cm at the base, so EA is about 3.5 N. */
static rod_model *cable_arm(const char *tension)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": \"extended\", \"rod\": {\"length\": 0.5, \"radius\": {\"base\": 0.015, \"tip\": 0.006}, "
             "\"density\": 1000, \"youngs_modulus\": 5000, \"poisson_ratio\": 0.49, \"shear_viscosity\": 200}, "
             "\"strains\": {\"bend2\": 4, \"stretch\": 2}, \"inflation\": {\"pieces\": 2, \"boundary\": \"neumann\"}, "
             "\"actuators\": [{\"name\": \"LM1\", \"type\": \"cable\", \"route\": {\"offset\": [0.8, 0], "
             "\"relative_to_radius\": true}, \"tension\": \"%s\"}]}",
             tension);
    return tu_model(json);
}

Test(integrator_guards, a_rod_driven_far_past_its_stiffness_fails_fast_with_a_message, .timeout = 120)
{
    /* 1 MN at t = 0.1: the steps shrink toward roundoff at the jump (without the guard this
     * ground through 200000 steps, about 100 s, before CVODE gave up) */
    rod_model *m = cable_arm("1e6*heaviside(t-0.1)");
    rod_state *st = tu_started(m);
    const int rc = rod_dynamics_advance(m, st, 0.2);
    rod_dynamics_stats s;
    rod_dynamics_get_stats(st, &s);
    cr_log_info("overdriven: %s after %ld steps", rod_state_error(st), s.steps);
    cr_assert_eq(rc, ROD_ESOLVER);
    cr_assert(strstr(rod_state_error(st), "stuck at t = 0.1"), "message: %s", rod_state_error(st));
    cr_assert_lt(s.steps, 20000, "gave up after %ld steps", s.steps);
    rod_state_free(st);
    rod_model_free(m);
}

/* The same arm as the one rod of a model of several rods, on a fixed body: the several-rod
 * integrator has the same guard (without it this ground on until an interrupt). */
Test(integrator_guards, an_assembly_driven_far_past_its_stiffness_fails_fast_with_a_message, .timeout = 120)
{
    rod_model *m = tu_model(
        "{\"bodies\": [{\"name\": \"post\", \"mass\": 1, \"inertia\": [1, 1, 1], \"base\": {\"type\": \"fixed\"}}], "
        "\"rods\": [{\"name\": \"arm\", \"model\": \"extended\", \"rod\": {\"length\": 0.5, \"radius\": {\"base\": 0.015, "
        "\"tip\": 0.006}, \"density\": 1000, \"youngs_modulus\": 5000, \"poisson_ratio\": 0.49, \"shear_viscosity\": 200}, "
        "\"strains\": {\"bend2\": 4, \"stretch\": 2}, \"inflation\": {\"pieces\": 2, \"boundary\": \"neumann\"}, "
        "\"actuators\": [{\"name\": \"LM1\", \"type\": \"cable\", \"route\": {\"offset\": [0.8, 0], "
        "\"relative_to_radius\": true}, \"tension\": \"1e6*heaviside(t-0.1)\"}], \"base\": {\"type\": \"joint\", "
        "\"to\": {\"body\": \"post\"}, \"joint\": \"fixed\"}}]}");
    rod_state *st = tu_started(m);
    const int rc = rod_dynamics_advance(m, st, 0.2);
    rod_dynamics_stats s;
    rod_dynamics_get_stats(st, &s);
    cr_log_info("assembly overdriven: %s after %ld steps", rod_state_error(st), s.steps);
    cr_assert_eq(rc, ROD_ESOLVER);
    cr_assert(strstr(rod_state_error(st), "stuck at t = 0.1"), "message: %s", rod_state_error(st));
    cr_assert_lt(s.steps, 20000, "gave up after %ld steps", s.steps);
    rod_state_free(st);
    rod_model_free(m);
}

Test(integrator_guards, a_hard_jump_in_a_load_still_goes_through, .timeout = 120)
{
    /* 2 N at once, about 0.6 EA: passing the jump takes steps below 1e-12 s for a while */
    rod_model *m = cable_arm("2*heaviside(t-0.1)");
    rod_state *st = tu_started(m);
    cr_assert_eq(rod_dynamics_advance(m, st, 0.3), ROD_OK, "%s", rod_state_error(st));
    rod_dynamics_stats s;
    rod_dynamics_get_stats(st, &s);
    cr_log_info("hard jump: %ld steps, %ld error-test failures", s.steps, s.error_test_failures);
    rod_frame f = tu_frame(m, st, 2);
    cr_assert_gt(fabs(f.position[3]), 1e-3, "the cable bent the arm (tip x = %g)", f.position[3]);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(integrator_guards, an_interrupt_keeps_the_state_and_continues_as_a_restart_would, .timeout = 120)
{
    rod_model *m = cable_arm("0.05*(1+sin(3*t))");
    rod_state *a = tu_started(m), *b = tu_started(m);
    cr_assert_eq(rod_dynamics_advance(m, a, 0.2), ROD_OK);
    cr_assert_eq(rod_dynamics_advance(m, b, 0.2), ROD_OK);
    const int n = rod_model_ndof(m);
    double q_before[64];
    cr_assert_leq(n, 64);
    memcpy(q_before, rod_state_q(a), (size_t)n * sizeof *q_before);
    rod_state_interrupt(a); /* no advance runs: the next one stops at its first evaluation */
    cr_assert_eq(rod_dynamics_advance(m, a, 0.5), ROD_EINTERRUPTED);
    rod_frame f = tu_frame(m, a, 2);
    cr_assert_eq(f.t, 0.2);
    rod_frame_free(&f);
    cr_assert_eq(memcmp(q_before, rod_state_q(a), (size_t)n * sizeof *q_before), 0, "q moved");
    /* the interrupt is spent: a goes on, from a restart at 0.2 exactly like b's */
    rod_state_mark_restart(b);
    cr_assert_eq(rod_dynamics_advance(m, a, 0.5), ROD_OK, "%s", rod_state_error(a));
    cr_assert_eq(rod_dynamics_advance(m, b, 0.5), ROD_OK);
    double worst = 0;
    for (int i = 0; i < n; i++) worst = fmax(worst, fabs(rod_state_q(a)[i] - rod_state_q(b)[i]));
    cr_assert_lt(worst, 1e-14, "differs from the restarted run by %.3e", worst);
    rod_state_free(a);
    rod_state_free(b);
    rod_model_free(m);
}

struct interrupter {
    rod_state *st;
    double after;
};

static void *interrupt_later(void *arg)
{
    struct interrupter *w = arg;
    struct timespec ts = {0, (long)(w->after * 1e9)};
    nanosleep(&ts, NULL);
    rod_state_interrupt(w->st);
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

Test(integrator_guards, an_interrupt_from_another_thread_stops_a_long_advance_at_once, .timeout = 120)
{
    rod_model *m = cable_arm("0.05*(1+sin(3*t))");
    rod_state *st = tu_started(m);
    /* 1000 s of simulation would take far past the test's timeout: coming back at all is the
     * interrupt working (the wall time is only logged) */
    struct interrupter w = {st, 0.2};
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, interrupt_later, &w), 0);
    const double w0 = now();
    const int rc = rod_dynamics_advance(m, st, 1000.0);
    const double wall = now() - w0;
    pthread_join(th, NULL);
    cr_log_info("interrupted after %.3f s of wall time", wall);
    cr_assert_eq(rc, ROD_EINTERRUPTED, "%s", rod_state_error(st));
    rod_frame f = tu_frame(m, st, 2);
    cr_assert_eq(f.t, 0.0, "the state stays where the advance began");
    rod_frame_free(&f);
    cr_assert_eq(rod_dynamics_advance(m, st, 0.1), ROD_OK, "%s", rod_state_error(st));
    rod_state_free(st);
    rod_model_free(m);
}
