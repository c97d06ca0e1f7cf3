/* Allocation failures in the engine (issue 10, item 11): every allocation that rodd's own code
 * makes while a state is created and its dynamics start is made to fail in turn (the linker
 * wraps malloc, calloc and realloc for this binary only). Each failure must come back as
 * ROD_ENOMEM (or a NULL state) with a message, and leave nothing half-built behind: the same
 * state, asked again with memory available, starts and steps as one that never failed. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);

static long countdown = -1; /* allocations left before one fails; -1: never */
static long made;           /* allocations seen since the count was armed */

static int fail_now(void)
{
    made++;
    if (countdown < 0) return 0;
    return countdown-- == 0;
}
void *__wrap_malloc(size_t n) { return fail_now() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t k, size_t n) { return fail_now() ? NULL : __real_calloc(k, n); }
void *__wrap_realloc(void *p, size_t n) { return fail_now() ? NULL : __real_realloc(p, n); }

static void arm(long k)
{
    countdown = k;
    made = 0;
}

static const char *spec =
    "{\"model\": \"extended\", \"rod\": {\"length\": 0.5, \"radius\": {\"base\": 0.015, \"tip\": 0.006}, "
    "\"density\": 1000, \"youngs_modulus\": 5e3, \"poisson_ratio\": 0.49, \"shear_viscosity\": 50}, "
    "\"strains\": {\"bend2\": 4, \"stretch\": 2}, \"inflation\": {\"pieces\": 2, \"boundary\": \"neumann\"}, "
    "\"actuators\": [{\"name\": \"LM\", \"type\": \"cable\", \"route\": {\"offset\": [0.8, 0], "
    "\"relative_to_radius\": true}, \"tension\": 0.05}], \"solver\": {\"jacobian\": \"elastic\"}}";

/* The tip after 0.05 s from a state that never saw a failure. */
static void reference_tip(const rod_model *m, double tip[3])
{
    rod_state *st = tu_started(m);
    cr_assert_eq(rod_dynamics_advance(m, st, 0.05), ROD_OK, "%s", rod_state_error(st));
    rod_frame f = tu_frame(m, st, 2);
    memcpy(tip, f.position + 3, 3 * sizeof *tip);
    rod_frame_free(&f);
    rod_state_free(st);
}

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

static void create_and_start_at_every_failure(const char *json)
{
    rod_model *m = tu_model(json);
    double want[3];
    reference_tip(m, want);
    /* how many allocations rodd's code makes to create and start one state */
    arm(-1);
    char err[256];
    rod_state *probe = rod_state_create(m, err, sizeof err);
    cr_assert_eq(rod_dynamics_start(m, probe), ROD_OK);
    const long total = made;
    rod_state_free(probe);
    cr_assert_gt(total, 10, "the count saw the engine's allocations (%ld)", total);
    int failed_create = 0, failed_start = 0;
    for (long k = 0; k < total; k++) {
        arm(k);
        rod_state *st = rod_state_create(m, err, sizeof err);
        if (!st) {
            arm(-1);
            cr_assert(strstr(err, "memory"), "allocation %ld: create says why: %s", k, err);
            failed_create++;
            continue;
        }
        const int rc = rod_dynamics_start(m, st);
        arm(-1);
        if (rc != ROD_OK) {
            cr_assert_eq(rc, ROD_ENOMEM, "allocation %ld: %d %s", k, rc, rod_state_error(st));
            cr_assert(strstr(rod_state_error(st), "memory"), "allocation %ld: %s", k, rod_state_error(st));
            failed_start++;
            cr_assert_eq(rod_dynamics_start(m, st), ROD_OK, "allocation %ld: a second start: %s", k, rod_state_error(st));
        }
        cr_assert_eq(rod_dynamics_advance(m, st, 0.05), ROD_OK, "allocation %ld: %s", k, rod_state_error(st));
        rod_frame f = tu_frame(m, st, 2);
        for (int a = 0; a < 3; a++)
            cr_assert_float_eq(f.position[3 + a], want[a], 1e-12, "allocation %ld: the state steps as a fresh one", k);
        rod_frame_free(&f);
        rod_state_free(st);
    }
    cr_log_info("%ld allocations: %d failed the create, %d the start, each cleanly", total, failed_create, failed_start);
    cr_assert_gt(failed_create + failed_start, 0);
    rod_model_free(m);
}

Test(alloc_failure, creating_and_starting_a_state_fails_cleanly_at_every_allocation, .timeout = 300)
{
    create_and_start_at_every_failure(spec);
}

Test(alloc_failure, so_does_a_state_with_constraints_contact_bodies_and_muscles, .timeout = 300)
{
    create_and_start_at_every_failure(busy_spec);
}

Test(alloc_failure, compiling_a_spec_fails_cleanly_at_every_allocation, .timeout = 300)
{
    rod_issues iss;
    rod_issues_init(&iss);
    arm(-1);
    rod_model *ok = rod_model_compile(busy_spec, strlen(busy_spec), NULL, 0, &iss);
    const long total = made;
    cr_assert_not_null(ok, "the spec compiles");
    rod_issues_free(&iss);
    int failed = 0;
    for (long k = 0; k < total; k++) {
        rod_issues_init(&iss);
        arm(k);
        rod_model *m = rod_model_compile(busy_spec, strlen(busy_spec), NULL, 0, &iss);
        arm(-1);
        if (!m) {
            char buf[2048];
            rod_issues_format(&iss, buf, sizeof buf);
            cr_assert(strstr(buf, "memory"), "allocation %ld of %ld: refused for: %s", k, total, buf);
            failed++;
        } else {
            cr_assert_eq(rod_model_ndof(m), rod_model_ndof(ok), "allocation %ld: the model is whole", k);
            rod_model_free(m);
        }
        rod_issues_free(&iss);
    }
    cr_log_info("compiling: %ld allocations, %d of them failing refused the spec for memory", total, failed);
    cr_assert_gt(failed, total / 2);
    rod_model_free(ok);
}

Test(alloc_failure, stepping_allocates_nothing)
{
    /* the hot path runs on the state's scratch: a step needs no allocation that could fail */
    rod_model *m = tu_model(busy_spec);
    rod_state *st = tu_started(m);
    cr_assert_eq(rod_dynamics_advance(m, st, 0.01), ROD_OK, "%s", rod_state_error(st));
    arm(-1);
    cr_assert_eq(rod_dynamics_advance(m, st, 0.1), ROD_OK, "%s", rod_state_error(st));
    const long during = made;
    rod_dynamics_stats s;
    rod_dynamics_get_stats(st, &s);
    cr_log_info("%ld steps, %ld allocations by rodd's code", (long)s.steps, during);
    cr_assert_eq(during, 0);
    rod_state_free(st);
    rod_model_free(m);
}
