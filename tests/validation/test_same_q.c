/* dyn_accel_same_q (a difference Jacobian's q_dot columns) keeps the last evaluation's
 * kinematic Jacobians and mass matrix and forms only what q_dot moves. It must give dyn_accel's
 * numbers exactly: the kept parts depend on q alone, and what it forms again is computed by the
 * same code in the same order. Checked on a model where q_dot reaches every term it can (an
 * inflating rod in water on a moving base, against a damped wall with friction, pulled by a
 * cable and squeezed by a muscle, touching itself), at velocities far from the state's; and on
 * models whose terms write into the kept parts or read them (a free base's Jacobian columns, an
 * attached body's share of the mass matrix, a multiplier constraint's saddle system). */
#include "dynamics.h"
#include "model.h"
#include "state.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void advance(const rod_model *m, rod_state *st, double t)
{
    cr_assert_eq(rod_dynamics_advance(m, st, t), ROD_OK, "advance to %g: %s", t, rod_state_error(st));
}

/* At the state's (t, q) and q_dot scaled and shifted component by component: the same-q
 * evaluation after a full one at the state's own q_dot, against a full one at the new q_dot. */
static void same_numbers(const rod_model *m, rod_state *st)
{
    const int n = rod_model_ndof(m);
    double *q = malloc((size_t)n * sizeof *q), *v0 = malloc((size_t)n * sizeof *v0);
    double *v = malloc((size_t)n * sizeof *v), *a = malloc((size_t)n * sizeof *a);
    double *b = malloc((size_t)n * sizeof *b);
    cr_assert(q && v0 && v && a && b);
    memcpy(q, st->q, (size_t)n * sizeof *q);
    memcpy(v0, st->qd, (size_t)n * sizeof *v0);
    const double t = st->t;
    for (int trial = 0; trial < 4; trial++) {
        cr_assert_eq(dyn_accel(m, st, t, q, v0, a), 0, "%s", rod_state_error(st));
        for (int i = 0; i < n; i++) v[i] = v0[i] * (1 + 0.5 * trial) + 0.3 * trial * sin(1.0 + i);
        cr_assert_eq(dyn_accel_same_q(m, st, t, q, v, a), 0, "%s", rod_state_error(st));
        cr_assert_eq(dyn_accel(m, st, t, q, v, b), 0, "%s", rod_state_error(st));
        double moved = 0;
        for (int i = 0; i < n; i++) {
            cr_assert_eq(a[i], b[i], "trial %d, q_ddot[%d]: %.17g kept against %.17g formed", trial, i, a[i], b[i]);
            moved = fmax(moved, fabs(b[i]));
        }
        cr_assert_gt(moved, 0, "the accelerations are not all zero");
    }
    /* the kept parts are those of the last full evaluation: two same-q calls in a row agree */
    cr_assert_eq(dyn_accel_same_q(m, st, t, q, v0, a), 0, "%s", rod_state_error(st));
    cr_assert_eq(dyn_accel(m, st, t, q, v0, b), 0, "%s", rod_state_error(st));
    for (int i = 0; i < n; i++) cr_assert_eq(a[i], b[i], "q_ddot[%d] back at the state's q_dot", i);
    free(q);
    free(v0);
    free(v);
    free(a);
    free(b);
}

Test(same_q, every_velocity_term_gives_the_full_evaluations_numbers, .timeout = 60)
{
    rod_model *m = tu_model(
        "{\"model\": \"extended\", \"rod\": {\"length\": 0.4, \"radius\": {\"base\": 0.012, \"tip\": 0.006}, "
        "\"density\": 1100, \"youngs_modulus\": 3e4, \"poisson_ratio\": 0.45, \"shear_viscosity\": 30}, "
        "\"strains\": {\"bend1\": 3, \"bend2\": 3, \"twist\": 1, \"stretch\": 2}, "
        "\"inflation\": {\"pieces\": 2, \"boundary\": \"neumann\"}, "
        "\"base\": {\"type\": \"moving\", \"position\": [\"0.01*sin(6*t)\", 0, 0], "
        "\"rotation\": {\"axis\": [0, 0, 1], \"angle\": \"0.5*t\"}}, "
        "\"environment\": {\"gravity\": [-9.81, 0, 0], \"fluid\": {\"density\": 1000, \"added_mass\": [0.5, 0.5], "
        "\"drag\": 1.0, \"lift\": 0.2}, \"obstacles\": [{\"name\": \"wall\", \"type\": \"plane\", "
        "\"point\": [-0.01, 0, 0], \"normal\": [1, 0, 0], \"stiffness\": 2000, \"damping\": 2, "
        "\"friction\": {\"static\": 0.5, \"kinetic\": 0.3}}], "
        "\"self_contact\": {\"stiffness\": 1e5, \"damping\": 1}}, "
        "\"loads\": [{\"name\": \"push\", \"type\": \"tip_force\", \"force\": [0, 0.01, 0]}], "
        "\"actuators\": [{\"name\": \"LM\", \"type\": \"cable\", \"route\": {\"offset\": [0, 0.6], "
        "\"relative_to_radius\": true}, \"tension\": 0.05}, {\"name\": \"TM\", \"type\": \"transverse\", "
        "\"pressure\": 200, \"span\": [0, 0.2]}], \"constraints\": [{\"name\": \"spring\", \"type\": \"pose\", "
        "\"components\": [\"z\"], \"position\": [0, 0, 0.39], \"method\": \"penalty\", \"stiffness\": 5, "
        "\"damping\": 0.1}]}");
    rod_state *st = tu_started(m);
    advance(m, st, 0.15);
    same_numbers(m, st);
    rod_state_free(st);
    rod_model_free(m);
}

Test(same_q, a_free_base_a_body_or_a_multiplier_keeps_the_numbers_too, .timeout = 60)
{
    static const char *const extra[] = {
        "\"base\": {\"type\": \"free\"}",
        "\"bodies\": [{\"name\": \"tip\", \"mass\": 0.005, \"inertia\": [1e-7, 1e-7, 1e-7]}]",
        "\"constraints\": [{\"name\": \"hold\", \"type\": \"pose\", \"s\": 0.2, \"components\": [\"x\"]}]",
    };
    for (size_t c = 0; c < sizeof extra / sizeof *extra; c++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"model\": \"classic\", \"rod\": {\"length\": 0.4, \"radius\": 0.01, \"density\": 1100, "
                 "\"youngs_modulus\": 3e4, \"poisson_ratio\": 0.45, \"shear_viscosity\": 30}, "
                 "\"strains\": {\"bend1\": 3, \"bend2\": 3}, \"environment\": {\"gravity\": [-9.81, 0, 0], "
                 "\"fluid\": {\"density\": 1000, \"drag\": 1.0}}, %s}",
                 extra[c]);
        rod_model *m = tu_model(json);
        rod_state *st = tu_started(m);
        advance(m, st, 0.05);
        same_numbers(m, st);
        rod_state_free(st);
        rod_model_free(m);
    }
}
