/* Multiplier constraints inside a rod of a model of several rods (issue 29: a ROD holds what a
 * one-rod spec holds, "constraints" too). In the assembly a rod's multiplier rows are held as
 * its joints are (their drift pulled back), and a joint's force moves the rod only as its
 * constraints let it. Against independent answers: a rod alone in "rods" with a moving tip
 * held does what the one-rod spec does (whose rows are projected after every step instead),
 * in statics to round-off and in time to the integration's accuracy; two halves joined by a
 * fixed joint with the tip held equal one rod with the tip held, to the discretization's
 * accuracy; a pendulum of a free body and a rod whose tip is pinned keeps its energy (the
 * pin and the joint do no work). */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAT "\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": 0.01, \"density\": 1000, " \
            "\"youngs_modulus\": %g, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": %d, \"bend2\": %d, " \
            "\"twist\": %d, \"stretch\": %d}"
/* the tip held 3 cm aside where a slightly taut rod of 0.4 m reaches, moving across smoothly from rest */
#define PIN "\"constraints\": [{\"name\": \"pin\", \"type\": \"pose\", \"position\": [0.03, \"0.01*(1-cos(8*t))\", 0.4]}]"

static double dist3(const double *a, const double *b)
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* the rod alone (several = 0) or alone in "rods"; statics at t = 0 then dynamics: its tip
 * and the pin's force at each time */
static void pinned(int several, double rtol, const double *times, int nt, double (*tip)[3], double (*force)[3])
{
    char rod[512], js[2048];
    snprintf(rod, sizeof rod, MAT, 0.4, 1e6, 5, 5, 2, 2);
    const char *env = "\"environment\": {\"gravity\": [0, -9.81, 0]}, \"initial\": \"static\"";
    if (several)
        snprintf(js, sizeof js, "{%s, \"solver\": {\"rtol\": %g, \"atol\": %g}, \"rods\": [{\"name\": \"a\", %s, " PIN "}]}",
                 env, rtol, rtol * 1e-2, rod);
    else
        snprintf(js, sizeof js, "{%s, \"solver\": {\"rtol\": %g, \"atol\": %g}, %s, " PIN "}", env, rtol, rtol * 1e-2, rod);
    rod_model *m = tu_model(js);
    rod_state *st = tu_started(m);
    for (int k = 0; k < nt; k++) {
        if (times[k] > 0) cr_assert_eq(rod_dynamics_advance(m, st, times[k]), ROD_OK, "%s", rod_state_error(st));
        rod_frame f = tu_frame(m, st, 2);
        const rod_frame *r = several ? &f.rods[0] : &f;
        cr_assert_eq(f.ncons, 1);
        cr_assert_str_eq(f.cons[0].name, several ? "a.pin" : "pin");
        memcpy(tip[k], r->position + 3, sizeof tip[k]);
        memcpy(force[k], f.cons[0].force, sizeof force[k]);
        rod_frame_free(&f);
    }
    rod_state_free(st);
    rod_model_free(m);
}

Test(assembly_constraints, a_held_tip_alone_in_rods_does_what_the_one_rod_spec_does, .timeout = 60)
{
    const double times[3] = {0, 0.06, 0.12};
    double t1[3][3], f1[3][3], tf[3][3], ff[3][3], t2[3][3], f2[3][3];
    pinned(0, 1e-7, times, 3, t1, f1);
    pinned(0, 1e-9, times, 3, tf, ff);
    pinned(1, 1e-7, times, 3, t2, f2);
    for (int k = 0; k < 3; k++) {
        const double dt = dist3(t1[k], t2[k]), df = dist3(f1[k], f2[k]), ef = dist3(f1[k], ff[k]);
        cr_log_info("held tip, t = %.2f: the pin's force %.6f %.6f %.6f N, %.2e N from the one-rod spec's (whose "
                    "own integration error at rtol 1e-7: %.2e N); tips %.2e m apart",
                    times[k], f2[k][0], f2[k][1], f2[k][2], df, ef, dt);
        if (k == 0) { /* statics: the same equations, solved to round-off */
            cr_assert_lt(df, 1e-9 * dist3(f1[k], (double[3]){0, 0, 0}));
            cr_assert_lt(dt, 1e-12);
        } else {
            cr_assert_lt(df, 3 * ef + 1e-9);
            cr_assert_lt(dt, 1e-9, "both hold the tip on the target");
        }
    }
    cr_assert_gt(fabs(f1[2][1] - f1[0][1]), 0.02, "the moving target changes the force");
}

static void halves_pinned(int one, int deg, double tip_force[3], double mid[3])
{
    char js[2048], a[400], b[400];
    if (one) {
        snprintf(a, sizeof a, MAT, 0.4, 1e6, deg, deg, deg / 2, deg / 2);
        snprintf(js, sizeof js, "{\"environment\": {\"gravity\": [0, -9.81, 0]}, %s, " PIN "}", a);
    } else {
        snprintf(a, sizeof a, MAT, 0.2, 1e6, deg, deg, deg / 2, deg / 2);
        snprintf(b, sizeof b, MAT, 0.2, 1e6, deg, deg, deg / 2, deg / 2);
        snprintf(js, sizeof js,
                 "{\"environment\": {\"gravity\": [0, -9.81, 0]}, \"rods\": [{\"name\": \"a\", %s}, {\"name\": \"b\", "
                 "%s, \"base\": {\"type\": \"joint\", \"to\": {\"rod\": \"a\"}, \"joint\": \"fixed\"}, " PIN "}]}",
                 a, b);
    }
    rod_model *m = tu_model(js);
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 3);
    const int pin = one ? 0 : 1; /* after the joint's "b.base" */
    memcpy(tip_force, f.cons[pin].force, 3 * sizeof *tip_force);
    memcpy(mid, (one ? f.position : f.rods[0].position) + (one ? 3 : 6), 3 * sizeof *mid);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(assembly_constraints, halves_with_a_held_tip_equal_one_rod_with_it, .timeout = 60)
{
    double f1[3], m1[3], fine[3], mf[3], f2[3], m2[3];
    halves_pinned(1, 10, f1, m1);
    halves_pinned(1, 14, fine, mf);
    halves_pinned(0, 10, f2, m2);
    const double df = dist3(f1, f2), ef = dist3(f1, fine), dm = dist3(m1, m2), em = dist3(m1, mf);
    cr_log_info("halves with the tip held: the pin's force %.6f %.6f %.6f N, %.2e N from one rod's (its own "
                "discretization error, degree 10 against 14: %.2e N); the middle %.2e m from one rod's (%.2e m)",
                f2[0], f2[1], f2[2], df, ef, dm, em);
    cr_assert_lt(df, 3 * ef + 1e-9);
    cr_assert_lt(dm, 3 * em + 1e-12);
}

Test(assembly_constraints, a_pinned_pendulum_of_a_body_and_a_rod_keeps_its_energy, .timeout = 60)
{
    /* a free hub with a rod fixed to it, the rod's tip pinned where it starts: the two swing
     * about the pin in gravity, undamped; the pin and the joint hold to their pull-back's
     * accuracy and do no work */
    char js[2048], r[400];
    snprintf(r, sizeof r, MAT, 0.2, 1e7, 3, 3, 1, 1);
    snprintf(js, sizeof js,
             "{\"environment\": {\"gravity\": [0, 0, -9.81]}, \"solver\": {\"rtol\": 1e-8, \"atol\": 1e-10}, "
             "\"bodies\": [{\"name\": \"hub\", \"mass\": 0.05, \"inertia\": [1e-5, 1e-5, 1e-5], \"base\": {\"type\": "
             "\"free\", \"position\": [0, 0, 0.2]}}], \"rods\": [{\"name\": \"arm\", %s, \"base\": {\"type\": \"joint\", "
             "\"to\": {\"body\": \"hub\"}, \"joint\": \"fixed\", \"rotation\": {\"axis\": [0, 1, 0], \"angle\": 1.2}}, "
             "\"constraints\": [{\"name\": \"pin\", \"type\": \"pose\", \"position\": [%.17g, 0, %.17g]}]}]}",
             r, 0.2 * sin(1.2), 0.2 + 1e-6 + 0.2 * cos(1.2)); /* the hub's stub is 1 um long */
    rod_model *m = tu_model(js);
    rod_state *st = tu_started(m);
    rod_frame f0 = tu_frame(m, st, 2);
    const double E0 = f0.e_kinetic + f0.e_elastic + f0.e_gravity;
    double drift = 0, swing = 0, viol = 0;
    for (int k = 1; k <= 4; k++) {
        cr_assert_eq(rod_dynamics_advance(m, st, 0.05 * k), ROD_OK, "%s", rod_state_error(st));
        rod_frame f = tu_frame(m, st, 2);
        drift = fmax(drift, fabs(f.e_kinetic + f.e_elastic + f.e_gravity - E0));
        swing = fmax(swing, f.e_kinetic);
        for (int c = 0; c < f.ncons; c++) viol = fmax(viol, fabs(f.cons[c].violation));
        rod_frame_free(&f);
    }
    cr_log_info("pinned pendulum of a hub and a rod, 0.2 s: energy drift %.2e J of a swing of %.4f J kinetic; the "
                "pin's and the joint's violations up to %.1e (pin at start %.1e)",
                drift, swing, viol, f0.cons[1].violation);
    cr_assert_gt(swing, 1e-3, "it swings");
    cr_assert_lt(drift, 1e-6 * swing);
    cr_assert_lt(viol, 1e-8);
    rod_frame_free(&f0);
    rod_state_free(st);
    rod_model_free(m);
}
