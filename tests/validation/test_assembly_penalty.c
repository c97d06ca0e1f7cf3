/* Joints held by a penalty (issue 29: "by penalty on request, as pose constraints are"):
 * "method": "penalty" with a stiffness puts -k c - d c_dot on the joint's rows. Against
 * independent answers: in statics a penalty fixed joint approaches the multiplier joint as
 * 1/k (the spring's give is the reaction over k), while the child's balance (its reaction
 * equal and opposite to the loads on it) holds at any k; an undamped penalty ball joint is a
 * conservative spring, so a pendulum of rods on one keeps its energy with the spring's
 * k |c|^2 / 2 counted in. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAT "\"model\": \"classic\", \"rod\": {\"length\": 0.2, \"radius\": 0.01, \"density\": 1000, " \
            "\"youngs_modulus\": 1e7, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": 6, \"bend2\": 6, " \
            "\"twist\": 2, \"stretch\": 2}"

static double dist3(const double *a, const double *b)
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* two halves of a cantilever in gravity with a tip force, joined by a fixed joint held by
 * multipliers (k = 0) or by a penalty of stiffness k: the tip and the joint's force */
static void halves(double k, double tip[3], double force[3], double *viol)
{
    char js[2048], method[128] = "";
    if (k > 0) snprintf(method, sizeof method, ", \"method\": \"penalty\", \"stiffness\": %g", k);
    snprintf(js, sizeof js,
             "{\"environment\": {\"gravity\": [0, -9.81, -1]}, \"rods\": [{\"name\": \"a\", " MAT "}, "
             "{\"name\": \"b\", " MAT ", \"base\": {\"type\": \"joint\", \"to\": {\"rod\": \"a\"}, \"joint\": "
             "\"fixed\"%s}, \"loads\": [{\"name\": \"F\", \"type\": \"tip_force\", \"force\": [0.02, 0.01, -0.005]}]}]}",
             method);
    rod_model *m = tu_model(js);
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 3);
    memcpy(tip, f.rods[1].position + 6, 3 * sizeof *tip);
    memcpy(force, f.cons[0].force, 3 * sizeof *force);
    *viol = f.cons[0].violation;
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(assembly_penalty, a_penalty_joint_approaches_the_multiplier_joint_as_one_over_k, .timeout = 60)
{
    double t0[3], f0[3], v0, t1[3], f1[3], v1, t2[3], f2[3], v2;
    halves(0, t0, f0, &v0);
    halves(1e4, t1, f1, &v1);
    halves(1e5, t2, f2, &v2);
    const double e1 = dist3(t1, t0), e2 = dist3(t2, t0);
    /* the child's balance: its weight (1000 pi 1e-4 0.2 kg in g) and its tip force against the
     * joint's force on it */
    const double mass = 1000 * M_PI * 1e-4 * 0.2;
    const double want[3] = {-(0.02 + mass * 0), -(0.01 - mass * 9.81), -(-0.005 - mass * 1)};
    cr_log_info("penalty fixed joint, statics: tip %.3e m (k 1e4) and %.3e m (k 1e5) from the multiplier joint's "
                "(ratio %.3f; 1/k: 10); joint gives %.2e and %.2e; its force %.2e and %.2e N from the child's "
                "loads' balance (the multiplier's %.2e)",
                e1, e2, e1 / e2, v1, v2, dist3(f1, want), dist3(f2, want), dist3(f0, want));
    cr_assert_gt(e1, 1e-7, "the penalty gives");
    cr_assert_lt(fabs(e1 / e2 - 10), 0.1, "the error goes as 1/k");
    for (int i = 0; i < 3; i++) {
        const double *f = i == 0 ? f0 : i == 1 ? f1 : f2;
        cr_assert_lt(dist3(f, want), 1e-9, "the child balances its loads");
    }
}

static void pendulum_energy(double k, double *drift, double *swing, double *spring)
{
    const char *rod = "\"model\": \"classic\", \"rod\": {\"length\": 0.2, \"radius\": 0.01, \"density\": 1000, "
                      "\"youngs_modulus\": 1e7, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": 3, \"bend2\": 3, "
                      "\"twist\": 1, \"stretch\": 1}";
    char js[2048];
    snprintf(js, sizeof js,
             "{\"environment\": {\"gravity\": [0, 0, -9.81]}, \"solver\": {\"rtol\": 1e-8, \"atol\": 1e-10}, "
             "\"bodies\": [{\"name\": \"pivot\", \"mass\": 1, \"inertia\": [1, 1, 1], \"base\": {\"type\": \"fixed\"}}], "
             "\"rods\": [{\"name\": \"bob\", %s, \"base\": {\"type\": \"joint\", \"to\": {\"body\": \"pivot\"}, "
             "\"joint\": \"ball\", \"method\": \"penalty\", \"stiffness\": %g, \"rotation\": {\"axis\": [0.6, 0.8, 0], "
             "\"angle\": 2.0}}}]}",
             rod, k);
    rod_model *m = tu_model(js);
    rod_state *st = tu_started(m);
    double E0 = 0;
    *drift = *swing = *spring = 0;
    for (int i = 0; i <= 8; i++) {
        if (i) cr_assert_eq(rod_dynamics_advance(m, st, 0.03 * i), ROD_OK, "%s", rod_state_error(st));
        rod_frame f = tu_frame(m, st, 3);
        const double F2 = f.cons[0].force[0] * f.cons[0].force[0] + f.cons[0].force[1] * f.cons[0].force[1] +
                          f.cons[0].force[2] * f.cons[0].force[2];
        const double E = f.e_kinetic + f.e_elastic + f.e_gravity + F2 / (2 * k);
        if (!i) E0 = E;
        *drift = fmax(*drift, fabs(E - E0));
        *swing = fmax(*swing, f.e_kinetic);
        *spring = fmax(*spring, F2 / (2 * k));
        rod_frame_free(&f);
    }
    rod_state_free(st);
    rod_model_free(m);
}

Test(assembly_penalty, an_undamped_penalty_ball_joint_keeps_the_energy, .timeout = 60)
{
    double drift, swing, spring;
    pendulum_energy(1e4, &drift, &swing, &spring);
    cr_log_info("pendulum on an undamped penalty ball joint (k 1e4 N/m), 0.24 s: energy with the spring's drifts "
                "%.2e J; swing %.4f J kinetic, the spring's energy up to %.2e J", drift, swing, spring);
    cr_assert_gt(swing, 0.01, "it swings");
    cr_assert_lt(drift, 1e-6 * swing);
}
