/* Allocation failures in the engine, SQLite's way: for each phase of a run (compiling a spec,
 * creating a state and starting its dynamics, a static solve, a dynamic step) the allocations
 * rodd's own code makes are counted, and then each one in turn, the k-th for every k, is made
 * to fail (the linker wraps malloc, calloc and realloc for this binary only). A failure must
 * come back as ROD_ENOMEM (or NULL) with a message naming memory, and leave nothing
 * half-built: asked again with memory available, the phase ends as it does without a failure.
 * SUNDIALS' own allocations (a shared library) are not wrapped. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);

static int armed;           /* counting the phase's allocations (between arm and disarm) */
static long countdown = -1; /* allocations left before one fails; -1: never */
static long made;           /* allocations seen since the count was armed */

static int fail_now(void)
{
    if (!armed) return 0;
    made++;
    if (countdown < 0) return 0;
    return countdown-- == 0;
}
void *__wrap_malloc(size_t n) { return fail_now() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t k, size_t n) { return fail_now() ? NULL : __real_calloc(k, n); }
void *__wrap_realloc(void *p, size_t n) { return fail_now() ? NULL : __real_realloc(p, n); }

/* Counts from here, the k-th allocation failing (k < 0: none). */
static void arm(long k)
{
    armed = 1;
    countdown = k;
    made = 0;
}

/* Stops counting (made keeps the phase's count) and failing. */
static void disarm(void)
{
    armed = 0;
    countdown = -1;
}

/* curved at rest too: the rest strain's tables (an expression and a constant) */
static const char *spec =
    "{\"model\": \"extended\", \"rod\": {\"length\": 0.5, \"radius\": {\"base\": 0.015, \"tip\": 0.006}, "
    "\"density\": 1000, \"youngs_modulus\": 5e3, \"poisson_ratio\": 0.49, \"shear_viscosity\": 50, "
    "\"rest_strain\": {\"bend2\": \"2*X\", \"twist\": 1}}, "
    "\"strains\": {\"bend2\": 4, \"stretch\": 2}, \"inflation\": {\"pieces\": 2, \"boundary\": \"neumann\"}, "
    "\"actuators\": [{\"name\": \"LM\", \"type\": \"cable\", \"route\": {\"offset\": [0.8, 0], "
    "\"relative_to_radius\": true}, \"tension\": 0.05}], \"solver\": {\"jacobian\": \"elastic\"}}";

/* A spec with constraints, contact, a body and a muscle: their compiled parts and scratch too. */
static const char *busy_spec =
    "{\"model\": \"classic\", \"rod\": {\"length\": 0.4, \"radius\": 0.01, \"density\": 1000, "
    "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45, \"shear_viscosity\": 1e4}, "
    "\"strains\": {\"bend1\": 3, \"bend2\": 3, \"twist\": 1}, "
    "\"environment\": {\"gravity\": [0, 0, -9.81], \"obstacles\": [{\"name\": \"floor\", \"type\": \"plane\", "
    "\"point\": [0, 0, -0.5], \"normal\": [0, 0, 1], \"stiffness\": 1e4, \"damping\": 10}], "
    "\"self_contact\": {\"stiffness\": 1e4, \"damping\": 1}}, "
    "\"bodies\": [{\"name\": \"payload\", \"s\": 0.4, \"mass\": 0.01, \"inertia\": [1e-6, 1e-6, 1e-6]}], "
    "\"constraints\": [{\"name\": \"prop\", \"type\": \"pose\", \"s\": 0.2, \"position\": [0, 0, 0.2], "
    "\"components\": [\"x\"]}], "
    "\"actuators\": [{\"name\": \"m\", \"type\": \"muscle_torque\", \"about\": \"d1\", \"beta\": [0, 0.01, 0.01, 0], "
    "\"wavelength\": 0.4, \"period\": 1, \"phase\": 0}], "
    "\"loads\": [{\"name\": \"f\", \"type\": \"tip_force\", \"force\": [0.01, 0, 0], \"scale\": \"sin(t)\"}]}";


/* The phase under test, once: arms the k-th allocation to fail (k < 0: none) and returns how
 * it went: 0 done, 1 refused for memory (the test's own asserts check the message). */
typedef int (*phase_fn)(const rod_model *m, long k);

static long count_allocations(phase_fn run, const rod_model *m)
{
    cr_assert_eq(run(m, -1), 0, "the phase runs without a failure");
    return made;
}

/* Fails each of the phase's allocations in turn; returns how many were refused for memory
 * (the others: allocations whose failure the phase works around, e.g. a skipped guess). */
static int at_every_allocation(const char *what, phase_fn run, const rod_model *m, long *total)
{
    *total = count_allocations(run, m);
    int refused = 0;
    for (long k = 0; k < *total; k++) refused += run(m, k);
    cr_log_info("%s: %ld allocations, %d of them failing refused for memory, each cleanly", what, *total,
                refused);
    return refused;
}

/* ---- compiling a spec ---- */
static const char *compiled_spec;
static int compile_phase(const rod_model *ok, long k)
{
    rod_issues iss;
    rod_issues_init(&iss);
    arm(k);
    rod_model *m = rod_model_compile(compiled_spec, strlen(compiled_spec), NULL, 0, &iss);
    disarm();
    int refused = 0;
    if (!m) {
        char buf[2048];
        rod_issues_format(&iss, buf, sizeof buf);
        cr_assert(strstr(buf, "memory"), "allocation %ld: refused for: %s", k, buf);
        refused = 1;
    } else {
        cr_assert_eq(rod_model_ndof(m), rod_model_ndof(ok), "allocation %ld: the model is whole", k);
        rod_model_free(m);
    }
    rod_issues_free(&iss);
    return refused;
}

/* ---- creating a state and starting its dynamics, then 0.05 s as a fresh state steps ---- */
static double want_tip[3];
static void tip_after_steps(const rod_model *m, rod_state *st, double tip[3])
{
    cr_assert_eq(rod_dynamics_advance(m, st, 0.05), ROD_OK, "%s", rod_state_error(st));
    rod_frame f = tu_frame(m, st, 2);
    memcpy(tip, f.position + 3, 3 * sizeof *tip);
    rod_frame_free(&f);
}
static void same_tip(const rod_model *m, rod_state *st, long k)
{
    double tip[3];
    tip_after_steps(m, st, tip);
    for (int a = 0; a < 3; a++)
        cr_assert_float_eq(tip[a], want_tip[a], 1e-12, "allocation %ld: the state steps as a fresh one", k);
}
static int create_phase(const rod_model *m, long k)
{
    char err[256];
    arm(k);
    rod_state *st = rod_state_create(m, err, sizeof err);
    if (!st) {
        disarm();
        cr_assert(strstr(err, "memory"), "allocation %ld: create says why: %s", k, err);
        return 1;
    }
    const int rc = rod_dynamics_start(m, st);
    disarm();
    int refused = 0;
    if (rc != ROD_OK) {
        cr_assert_eq(rc, ROD_ENOMEM, "allocation %ld: %d %s", k, rc, rod_state_error(st));
        cr_assert(strstr(rod_state_error(st), "memory"), "allocation %ld: %s", k, rod_state_error(st));
        cr_assert_eq(rod_dynamics_start(m, st), ROD_OK, "allocation %ld: a second start: %s", k, rod_state_error(st));
        refused = 1;
    }
    if (k >= 0) same_tip(m, st, k);
    rod_state_free(st);
    return refused;
}

/* ---- a static solve from a new state ---- */
static double *want_q;
static int statics_phase(const rod_model *m, long k)
{
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    rod_statics_result res;
    arm(k);
    int rc = rod_statics_solve(m, st, 0.0, &res);
    disarm();
    int refused = 0;
    if (rc == ROD_ENOMEM) {
        cr_assert(strstr(rod_state_error(st), "memory"), "allocation %ld: %s", k, rod_state_error(st));
        refused = 1;
        rc = rod_statics_solve(m, st, 0.0, &res);
    }
    cr_assert_eq(rc, ROD_OK, "allocation %ld: %d %s", k, rc, rod_state_error(st));
    cr_assert(res.converged, "allocation %ld: the solve converges", k);
    const int n = rod_model_ndof(m);
    if (k < 0) {
        free(want_q);
        want_q = malloc((size_t)n * sizeof *want_q);
        memcpy(want_q, rod_state_q(st), (size_t)n * sizeof *want_q);
    } else {
        /* a failure may cost only a starting guess: the same equilibrium, to the tolerance */
        for (int i = 0; i < n; i++)
            cr_assert_float_eq(rod_state_q(st)[i], want_q[i], 1e-7 * (1 + fabs(want_q[i])),
                               "allocation %ld: q[%d]", k, i);
    }
    rod_state_free(st);
    return refused;
}

/* ---- a dynamic step of a started state ---- */
static int step_phase(const rod_model *m, long k)
{
    rod_state *st = tu_started(m);
    arm(k);
    const int rc = rod_dynamics_advance(m, st, 0.05);
    disarm();
    int refused = 0;
    if (rc == ROD_ENOMEM) {
        cr_assert(strstr(rod_state_error(st), "memory"), "allocation %ld: %s", k, rod_state_error(st));
        refused = 1;
        cr_assert_eq(rod_dynamics_advance(m, st, 0.05), ROD_OK, "%s", rod_state_error(st));
    }
    cr_assert_eq(rc == ROD_ENOMEM ? ROD_OK : rc, ROD_OK, "allocation %ld: %s", k, rod_state_error(st));
    rod_frame f = tu_frame(m, st, 2);
    for (int a = 0; a < 3; a++)
        cr_assert_float_eq(f.position[3 + a], want_tip[a], 1e-12, "allocation %ld: the step ends as a fresh one", k);
    rod_frame_free(&f);
    rod_state_free(st);
    return refused;
}

/* Every phase of one spec; the counts go to the log (make test-unit --verbose shows them). */
static void every_phase(const char *label, const char *json)
{
    long total;
    compiled_spec = json;
    rod_model *m = tu_model(json);
    rod_state *ref = tu_started(m);
    tip_after_steps(m, ref, want_tip);
    rod_state_free(ref);
    char what[128];

    snprintf(what, sizeof what, "%s, compiling", label);
    const int compile_refused = at_every_allocation(what, compile_phase, m, &total);
    cr_assert_gt(compile_refused, total / 2, "most of compiling's allocations matter");

    snprintf(what, sizeof what, "%s, creating and starting a state", label);
    const int create_refused = at_every_allocation(what, create_phase, m, &total);
    cr_assert_gt(total, 10, "the count saw the engine's allocations (%ld)", total);
    cr_assert_gt(create_refused, 0);

    snprintf(what, sizeof what, "%s, a static solve", label);
    const int statics_refused = at_every_allocation(what, statics_phase, m, &total);
    cr_assert_gt(total, 0, "a static solve allocates its work");
    cr_assert_gt(statics_refused, 0);

    /* the hot path runs on the state's scratch: a step needs no allocation that could fail */
    snprintf(what, sizeof what, "%s, 0.05 s of dynamic steps", label);
    at_every_allocation(what, step_phase, m, &total);
    cr_assert_eq(total, 0, "stepping allocates nothing (%ld allocations)", total);

    free(want_q);
    want_q = NULL;
    rod_model_free(m);
}

Test(alloc_failure, an_inflating_rod_with_a_cable_fails_cleanly_at_every_allocation, .timeout = 300)
{
    every_phase("inflating rod", spec);
}

Test(alloc_failure, so_does_a_rod_with_constraints_contact_bodies_and_muscles, .timeout = 300)
{
    every_phase("constraints, contact, body, muscle", busy_spec);
}
