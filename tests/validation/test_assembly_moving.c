/* A moving top-level body (issue 29: "bodies" with "base": {"type": "moving"}) carries its
 * rods as a one-rod spec's moving base carries its rod, against independent answers: a body
 * translating at constant velocity carries a rod rigidly (the exact solution is the rest shape
 * translated); a body accelerating along an inextensible rod's axis pulls it with m a (Newton's
 * second law); a body spinning at a constant rate carries a rod as a one-rod spec's spinning
 * base does (the same physics through the one rod's relative coordinates, another code path),
 * its joint holding the rod's base on the prescribed pose; statics holds the body still where
 * its profiles put it at t = 0 (the same as a fixed body there). */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define ROD "\"model\": \"classic\", \"rod\": {\"length\": 0.3, \"radius\": 0.01, \"density\": 1000, " \
            "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}"
#define BODY(base) "\"bodies\": [{\"name\": \"cart\", \"mass\": 0.5, \"inertia\": [1e-3, 1e-3, 1e-3], \"base\": " base "}]"
/* a top-level body sits at the tip of its 1 um stub rod (assembly.c), along its own z from
 * the pose its base prescribes */
#define STUB 1e-6
#define ON_CART "\"base\": {\"type\": \"joint\", \"to\": {\"body\": \"cart\"}, \"joint\": \"fixed\"}"

static double dist3(const double *a, const double *b)
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

Test(assembly_moving, a_body_at_constant_velocity_carries_its_rod_rigidly, .timeout = 60)
{
    /* no gravity, no load: the rest shape translated by v t is the exact motion; the rod
     * starts riding the body (its base's velocity the body's), so nothing excites it */
    const double v[3] = {0.1, -0.05, 0.02};
    char js[2048];
    snprintf(js, sizeof js,
             "{\"environment\": {\"gravity\": [0, 0, 0]}, \"solver\": {\"rtol\": 1e-8, \"atol\": 1e-10}, "
             BODY("{\"type\": \"moving\", \"position\": [\"%g*t\", \"%g*t\", \"%g*t\"]}") ", "
             "\"rods\": [{\"name\": \"arm\", " ROD ", \"strains\": {\"bend1\": 3, \"bend2\": 3, \"twist\": 2, "
             "\"stretch\": 2}, \"base\": {\"type\": \"joint\", \"to\": {\"body\": \"cart\"}, \"joint\": \"fixed\", "
             "\"position\": [0.01, 0, 0], \"rotation\": {\"axis\": [1, 1, 0], \"angle\": 0.7}}}]}",
             v[0], v[1], v[2]);
    rod_model *m = tu_model(js);
    rod_state *st = tu_started(m);
    rod_frame f0 = tu_frame(m, st, 11);
    double worst = 0, wrot = 0;
    for (int k = 1; k <= 4; k++) {
        const double t = 0.25 * k;
        cr_assert_eq(rod_dynamics_advance(m, st, t), ROD_OK, "%s", rod_state_error(st));
        rod_frame f = tu_frame(m, st, 11);
        for (int p = 0; p < 11; p++) {
            double want[3];
            for (int i = 0; i < 3; i++) want[i] = f0.rods[0].position[3 * p + i] + v[i] * t;
            worst = fmax(worst, dist3(f.rods[0].position + 3 * p, want));
            for (int i = 0; i < 9; i++)
                wrot = fmax(wrot, fabs(f.rods[0].rotation[9 * p + i] - f0.rods[0].rotation[9 * p + i]));
        }
        rod_frame_free(&f);
    }
    cr_log_info("body at constant velocity, 1 s: the rod's points %.2e m from the rest shape translated by "
                "v t, frames turned by %.2e", worst, wrot);
    /* atol 1e-10 bounds the integrator's local error where the exact accelerations are 0 */
    cr_assert_lt(worst, 1e-9);
    cr_assert_lt(wrot, 1e-9);
    rod_frame_free(&f0);
    rod_state_free(st);
    rod_model_free(m);
}

Test(assembly_moving, a_body_accelerating_along_an_inextensible_rod_pulls_it_with_m_a, .timeout = 60)
{
    /* bending strains only: the rod cannot stretch, so carried along its axis at a = 2 m/s^2
     * (no gravity) it moves rigidly and its joint's reaction is its mass times a at all times */
    char js[2048];
    snprintf(js, sizeof js,
             "{\"environment\": {\"gravity\": [0, 0, 0]}, \"solver\": {\"rtol\": 1e-9, \"atol\": 1e-11}, "
             BODY("{\"type\": \"moving\", \"position\": [0, 0, \"t^2\"]}") ", "
             "\"rods\": [{\"name\": \"arm\", " ROD ", \"strains\": {\"bend1\": 3, \"bend2\": 3}, " ON_CART "}]}");
    rod_model *m = tu_model(js);
    rod_state *st = tu_started(m);
    const double mass = 1000 * M_PI * 1e-4 * 0.3, a = 2.0;
    double worst = 0, where = 0;
    for (int k = 1; k <= 5; k++) {
        const double t = 0.1 * k;
        cr_assert_eq(rod_dynamics_advance(m, st, t), ROD_OK, "%s", rod_state_error(st));
        rod_frame f = tu_frame(m, st, 3);
        cr_assert_eq(f.ncons, 1);
        const double want[3] = {0, 0, mass * a};
        worst = fmax(worst, dist3(f.cons[0].force, want));
        where = fmax(where, fabs(f.rods[0].position[2] - (t * t + STUB)));
        rod_frame_free(&f);
    }
    cr_log_info("body accelerating at %g m/s^2: the joint's force %.3e N from m a = %.6f N; the rod's base "
                "%.2e m from the body's t^2", a, worst, mass * a, where);
    cr_assert_lt(worst, 1e-6 * mass * a);
    cr_assert_lt(where, 1e-9);
    rod_state_free(st);
    rod_model_free(m);
}

/* a rod spinning at 4 rad/s about the world x axis 1 um below its base, in gravity: carried by
 * a moving body (several rods; the body 1 um up its stub) or by a one-rod spec's moving base
 * (circling with the stub's tip); its tip at t */
#define SPIN_STRAINS "\"strains\": {\"bend1\": 3, \"bend2\": 3, \"twist\": 1, \"stretch\": 1}"
#define SPIN_ROT "{\"axis\": [1, 0, 0], \"angle\": \"4*t\"}"
#define SPIN_ENV "\"environment\": {\"gravity\": [0, -9.81, 0]}"

static void spin_tip(int several, double rtol, const double *times, int nt, double (*tip)[3],
                     double (*base_err)[2])
{
    char js[2048];
    if (several)
        snprintf(js, sizeof js,
                 "{" SPIN_ENV ", \"solver\": {\"rtol\": %g, \"atol\": %g}, "
                 BODY("{\"type\": \"moving\", \"position\": [0, 0.1, 0], \"rotation\": " SPIN_ROT "}") ", "
                 "\"rods\": [{\"name\": \"arm\", " ROD ", " SPIN_STRAINS ", " ON_CART "}]}",
                 rtol, rtol * 1e-2);
    else
        snprintf(js, sizeof js,
                 "{" SPIN_ENV ", \"solver\": {\"rtol\": %g, \"atol\": %g}, " ROD ", " SPIN_STRAINS ", "
                 "\"base\": {\"type\": \"moving\", \"position\": [0, \"0.1-1e-6*sin(4*t)\", \"1e-6*cos(4*t)\"], "
                 "\"rotation\": " SPIN_ROT "}}",
                 rtol, rtol * 1e-2);
    rod_model *m = tu_model(js);
    rod_state *st = tu_started(m);
    for (int k = 0; k < nt; k++) {
        cr_assert_eq(rod_dynamics_advance(m, st, times[k]), ROD_OK, "%s", rod_state_error(st));
        rod_frame f = tu_frame(m, st, 2);
        const rod_frame *r = several ? &f.rods[0] : &f;
        memcpy(tip[k], r->position + 3, sizeof tip[k]);
        if (base_err) { /* the rod's base pose against the body's prescribed one */
            const double th = 4 * times[k], c = cos(th), s = sin(th);
            const double R[9] = {1, 0, 0, 0, c, -s, 0, s, c}, p[3] = {0, 0.1 - STUB * s, STUB * c};
            double dr = 0;
            for (int i = 0; i < 9; i++) dr = fmax(dr, fabs(r->rotation[i] - R[i]));
            base_err[k][0] = dist3(r->position, p);
            base_err[k][1] = dr;
        }
        rod_frame_free(&f);
    }
    rod_state_free(st);
    rod_model_free(m);
}

Test(assembly_moving, a_spinning_body_carries_its_rod_as_a_spinning_base_does, .timeout = 120)
{
    const double times[2] = {0.15, 0.3};
    double one[2][3], fine[2][3], several[2][3], berr[2][2];
    spin_tip(0, 1e-7, times, 2, one, NULL);
    spin_tip(0, 1e-9, times, 2, fine, NULL);
    spin_tip(1, 1e-7, times, 2, several, berr);
    for (int k = 0; k < 2; k++) {
        const double d = dist3(several[k], one[k]), e = dist3(one[k], fine[k]);
        cr_log_info("spinning body, t = %.2f: tip %.6f %.6f %.6f, %.2e m from the one rod on a spinning base "
                    "(whose own integration error at rtol 1e-7: %.2e m); the rod's base %.1e m, %.1e off the "
                    "body's pose", times[k], several[k][0], several[k][1], several[k][2], d, e, berr[k][0],
                    berr[k][1]);
        cr_assert_gt(dist3(one[k], (double[3]){0, 0.1, 0.3}), 0.05, "it turned");
        cr_assert_lt(d, 3 * e + 1e-12);
        cr_assert_lt(berr[k][0], 1e-9);
        cr_assert_lt(berr[k][1], 1e-9);
    }
}

Test(assembly_moving, statics_holds_a_moving_body_still_where_it_is_at_t_0, .timeout = 60)
{
    /* a rod sagging in gravity from a body that moves at 0.2 m/s: statics at t = 0 puts it
     * where a fixed body at the same pose puts it, the motion left out (as a one-rod moving
     * base's statics does) */
    const char *fmt = "{\"environment\": {\"gravity\": [0, -9.81, 0]}, "
                      BODY("%s") ", \"rods\": [{\"name\": \"arm\", " ROD ", " SPIN_STRAINS ", " ON_CART "}]}";
    char a[2048], b[2048];
    snprintf(a, sizeof a, fmt, "{\"type\": \"moving\", \"position\": [\"0.1+0.2*t\", 0, 0], \"rotation\": "
             "{\"axis\": [0, 1, 0], \"angle\": \"0.3+t\"}}");
    snprintf(b, sizeof b, fmt, "{\"type\": \"fixed\", \"position\": [0.1, 0, 0], \"rotation\": "
             "{\"axis\": [0, 1, 0], \"angle\": 0.3}}");
    rod_model *ma = tu_model(a), *mb = tu_model(b);
    rod_state *sa = tu_solve(ma), *sb = tu_solve(mb);
    rod_frame fa = tu_frame(ma, sa, 2), fb = tu_frame(mb, sb, 2);
    const double d = dist3(fa.rods[0].position + 3, fb.rods[0].position + 3);
    cr_log_info("statics on a moving body: tip %.2e m from the fixed body's (its tip at y = %.4f m)", d,
                fb.rods[0].position[4]);
    cr_assert_lt(d, 1e-12);
    cr_assert_gt(fabs(fb.rods[0].position[4]), 1e-3, "it sags");
    rod_frame_free(&fa);
    rod_frame_free(&fb);
    rod_state_free(sa);
    rod_state_free(sb);
    rod_model_free(ma);
    rod_model_free(mb);
}

Test(assembly_moving, a_static_start_on_a_body_at_constant_velocity_rides_it_in_equilibrium, .timeout = 60)
{
    /* Galilean invariance: statics (the body held still) then dynamics, the rod riding the body
     * at 0.1 m/s: its sagged equilibrium translates by v t, its kinetic energy m v^2 / 2 of rod
     * and body together */
    const char *js = "{\"environment\": {\"gravity\": [0, 0, -9.81]}, \"initial\": \"static\", \"solver\": {\"rtol\": 1e-8, "
                     "\"atol\": 1e-10}, " BODY("{\"type\": \"moving\", \"position\": [\"0.1*t\", 0, 0]}") ", \"rods\": "
                     "[{\"name\": \"arm\", " ROD ", \"strains\": {\"bend1\": 3, \"bend2\": 3, \"twist\": 1, \"stretch\": 1}, "
                     "\"base\": {\"type\": \"joint\", \"to\": {\"body\": \"cart\"}, \"joint\": \"fixed\", \"rotation\": "
                     "{\"axis\": [0, 1, 0], \"angle\": 1.0}}}]}";
    rod_model *m = tu_model(js);
    rod_state *st = tu_started(m);
    rod_frame f0 = tu_frame(m, st, 5);
    double worst = 0;
    for (int k = 1; k <= 3; k++) {
        cr_assert_eq(rod_dynamics_advance(m, st, 0.2 * k), ROD_OK, "%s", rod_state_error(st));
        rod_frame f = tu_frame(m, st, 5);
        for (int p = 0; p < 5; p++) {
            double want[3];
            for (int i = 0; i < 3; i++) want[i] = f0.rods[0].position[3 * p + i] + (i == 0 ? 0.1 * 0.2 * k : 0);
            worst = fmax(worst, dist3(f.rods[0].position + 3 * p, want));
        }
        rod_frame_free(&f);
    }
    const double mass = 0.5 + 1000 * M_PI * 1e-4 * 0.3, ek = 0.5 * mass * 0.01;
    cr_log_info("static start on a body at 0.1 m/s: the sagged rod (tip z %.4f m) %.2e m from its equilibrium "
                "translated by v t; kinetic energy %.2e J from m v^2 / 2 = %.9f J", f0.rods[0].position[14], worst,
                fabs(f0.e_kinetic - ek), ek);
    cr_assert_gt(0.3 * cos(1.0) + STUB - f0.rods[0].position[14], 1e-3, "it sags");
    cr_assert_lt(worst, 1e-9);
    /* the body's 1 um stub (3e-11 kg) rides along too: 6e-11 of the mass */
    cr_assert_lt(fabs(f0.e_kinetic - ek), 1e-9 * ek);
    rod_frame_free(&f0);
    rod_state_free(st);
    rod_model_free(m);
}
