/* Several rods in one model (issue 29 item 4) against independent answers: two halves joined
 * by a fixed joint are one rod (statics and the first three bending frequencies, to the
 * discretization's accuracy, judged by the one rod against its refined self); a ball joint
 * passes no moment (a rod hanging from a cantilever's tip aligns with a dead force at its own
 * tip, and the cantilever bends as under that force alone); a hinged double pendulum of rods
 * conserves energy undamped; a free assembly (arms on a free body, no gravity, a cable pulling)
 * keeps zero linear and angular momentum. */
#include "asm.h"
#include "assembly.h"
#include "dense.h"
#include "dynamics.h"
#include "model.h"
#include "rigid_sums.h"
#include "state.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAT "\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": 0.01, \"density\": 1000, " \
            "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": %d, "  \
            "\"bend2\": %d, \"twist\": %d, \"stretch\": %d}"

static double dist3(const double *a, const double *b)
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* a solved model, its state and its frame, freed together */
static void solved_free(rod_model *m, rod_state *st, rod_frame *f)
{
    rod_frame_free(f);
    rod_state_free(st);
    rod_model_free(m);
}

static void one_rod_tip(int deg, int tw, double tip[3])
{
    char js[1024];
    snprintf(js, sizeof js,
             "{" MAT ", \"environment\": {\"gravity\": [0, -9.81, -1]}, \"loads\": [{\"name\": \"F\", "
             "\"type\": \"tip_force\", \"force\": [0.02, 0.01, -0.005]}]}",
             0.4, deg, deg, tw, tw);
    rod_model *m = tu_model(js);
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 11);
    memcpy(tip, f.position + 30, 3 * sizeof *tip);
    solved_free(m, st, &f);
}

static rod_model *halves(int deg, int tw, int with_load)
{
    char js[2048], a[400], b[400];
    snprintf(a, sizeof a, MAT, 0.2, deg, deg, tw, tw);
    snprintf(b, sizeof b, MAT, 0.2, deg, deg, tw, tw);
    snprintf(js, sizeof js,
             "{\"environment\": {\"gravity\": [0, %g, %g]}, \"rods\": [{\"name\": \"a\", %s}, "
             "{\"name\": \"b\", %s, \"base\": {\"type\": \"joint\", \"to\": {\"rod\": \"a\", \"s\": "
             "\"tip\"}, \"joint\": \"fixed\"}%s}]}",
             with_load ? -9.81 : 0.0, with_load ? -1.0 : 0.0, a, b,
             with_load ? ", \"loads\": [{\"name\": \"F\", \"type\": \"tip_force\", \"force\": [0.02, "
                         "0.01, -0.005]}]" : "");
    return tu_model(js);
}

Test(assembly, fixed_joint_halves_equal_one_rod_in_statics, .timeout = 120)
{
    /* a cantilever sagging under its weight (mostly across it) and a tip force out of plane:
     * the one rod at bending degree 12, twist and stretch 8, against its refined self (16, 10)
     * for its discretization error, and the halves at the same degrees each */
    double one[3], fine[3];
    one_rod_tip(12, 8, one);
    one_rod_tip(16, 10, fine);
    rod_model *m = halves(12, 8, 1);
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 11);
    cr_assert_eq(f.nrods, 2);
    const double *tip = f.rods[1].position + 30;
    const double d = dist3(tip, one), disc = dist3(one, fine);
    cr_log_info("fixed joint, statics: two halves' tip %.10f %.10f %.10f, one rod's %.3e m away (the one "
                "rod's own discretization error, against degrees 16 and 10: %.3e m); joint violation %.2e",
                tip[0], tip[1], tip[2], d, disc, f.cons[0].violation);
    cr_assert_lt(d, 3 * disc + 1e-9);
    cr_assert_lt(f.cons[0].violation, 1e-9);
    solved_free(m, st, &f);
}

/* -(d q_ddot / d q) at rest (q_dot = 0) by central differences: K_eff whose eigenvalues are
 * the squared angular frequencies (the joints' pull-back adds alpha^2, far above) */
typedef int (*accel_fn)(const rod_model *, rod_state *, const double *, double *);

static int one_accel(const rod_model *m, rod_state *st, const double *q, double *qdd)
{
    double zero[MODEL_MAX_XI] = {0};
    return dyn_accel(m, st, 0, q, zero, qdd);
}

static int asm_accel0(const rod_model *m, rod_state *st, const double *q, double *qdd)
{
    static double zero[4096];
    return asm_accel(m, st, 0, q, zero, qdd, asm_alpha(m));
}

static double *stiffness_op(const rod_model *m, rod_state *st, const double *q0, int n, accel_fn f)
{
    double *K = malloc((size_t)n * n * sizeof *K), *q = malloc((size_t)n * sizeof *q),
           *a1 = malloc((size_t)n * sizeof *a1), *a2 = malloc((size_t)n * sizeof *a2);
    memcpy(q, q0, (size_t)n * sizeof *q);
    for (int j = 0; j < n; j++) {
        const double h = 1e-6;
        q[j] = q0[j] + h;
        cr_assert_eq(f(m, st, q, a1), 0);
        q[j] = q0[j] - h;
        cr_assert_eq(f(m, st, q, a2), 0);
        q[j] = q0[j];
        for (int i = 0; i < n; i++) K[i + (size_t)n * j] = -(a1[i] - a2[i]) / (2 * h);
    }
    free(q);
    free(a1);
    free(a2);
    return K;
}

/* the eigenvalue of K nearest sigma, by inverse iteration */
static double eig_near(const double *K, int n, double sigma)
{
    double *A = malloc((size_t)n * n * sizeof *A), *x = malloc((size_t)n * sizeof *x),
           *y = malloc((size_t)n * sizeof *y);
    int *piv = malloc((size_t)n * sizeof *piv);
    memcpy(A, K, (size_t)n * n * sizeof *A);
    for (int i = 0; i < n; i++) A[i + (size_t)n * i] -= sigma;
    cr_assert_eq(dense_lu(A, n, piv), 0);
    for (int i = 0; i < n; i++) x[i] = 1.0 + 0.1 * i;
    double lam = sigma;
    for (int it = 0; it < 400; it++) {
        memcpy(y, x, (size_t)n * sizeof *y);
        dense_lu_solve(A, n, piv, y);
        double xy = 0, xx = 0, yy = 0;
        for (int i = 0; i < n; i++) xy += x[i] * y[i], xx += x[i] * x[i], yy += y[i] * y[i];
        lam = sigma + xx / xy;
        for (int i = 0; i < n; i++) x[i] = y[i] / sqrt(yy);
    }
    free(A);
    free(x);
    free(y);
    free(piv);
    return lam;
}

static void one_rod_freqs(int deg, const double *guess, double out[3])
{
    char js[1024];
    snprintf(js, sizeof js, "{" MAT ", \"environment\": {\"gravity\": [0, 0, 0]}}", 0.4, deg, deg, 2, 2);
    rod_model *m = tu_model(js);
    rod_state *st = tu_started(m);
    double *K = stiffness_op(m, st, st->q, m->n, one_accel);
    for (int k = 0; k < 3; k++) out[k] = sqrt(eig_near(K, m->n, pow(2 * M_PI * guess[k], 2))) / (2 * M_PI);
    free(K);
    rod_state_free(st);
    rod_model_free(m);
}

Test(assembly, fixed_joint_halves_have_one_rods_first_three_frequencies, .timeout = 60)
{
    /* Euler-Bernoulli's cantilever (beta L = 1.875, 4.694, 7.855) as the first guesses */
    const double EI = 1e6 * M_PI * 1e-8 / 4, mu = 1000 * M_PI * 1e-4, L = 0.4;
    const double bl[3] = {1.8751, 4.6941, 7.8548};
    double eb[3], one[3], fine[3], two[3];
    for (int k = 0; k < 3; k++) eb[k] = bl[k] * bl[k] / (2 * M_PI * L * L) * sqrt(EI / mu);
    one_rod_freqs(6, eb, one);
    one_rod_freqs(12, one, fine);
    rod_model *m = halves(6, 2, 0);
    rod_state *st = tu_started(m);
    double *K = stiffness_op(m, st, st->as->q, m->as->n, asm_accel0);
    for (int k = 0; k < 3; k++) two[k] = sqrt(eig_near(K, m->as->n, pow(2 * M_PI * one[k], 2))) / (2 * M_PI);
    for (int k = 0; k < 3; k++) {
        const double disc = fabs(one[k] - fine[k]);
        cr_log_info("fixed joint, bending mode %d: two halves %.6f Hz, one rod %.6f Hz (degree 12: %.6f; "
                    "Euler-Bernoulli %.6f)", k + 1, two[k], one[k], fine[k], eb[k]);
        cr_assert_lt(fabs(two[k] - one[k]), 3 * disc + 1e-6 * one[k]);
    }
    free(K);
    rod_state_free(st);
    rod_model_free(m);
}

Test(assembly, ball_joint_passes_no_moment, .timeout = 60)
{
    /* a cantilever along z; a rod hanging from its tip by a ball joint, started at 60 degrees,
     * pulled by a dead force at its own tip: it lines up with the force, and the cantilever
     * bends as under that force at its tip, no moment */
    const double F[3] = {0.01, 0.004, 0.0};
    char js[2048], a[400], b[400];
    snprintf(a, sizeof a, MAT, 0.3, 6, 6, 2, 2);
    snprintf(b, sizeof b, MAT, 0.2, 6, 6, 2, 2);
    snprintf(js, sizeof js,
             "{\"environment\": {\"gravity\": [0, 0, 0]}, \"rods\": [{\"name\": \"arm\", %s}, "
             "{\"name\": \"hang\", %s, \"base\": {\"type\": \"joint\", \"to\": {\"rod\": \"arm\"}, \"joint\": "
             "\"ball\", \"rotation\": {\"axis\": [0, 1, 0], \"angle\": 1.0}}, \"loads\": [{\"name\": \"F\", "
             "\"type\": \"tip_force\", \"force\": [%g, %g, %g]}]}]}",
             a, b, F[0], F[1], F[2]);
    rod_model *m = tu_model(js);
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 11);
    const double *base = f.rods[1].position, *tip = f.rods[1].position + 30;
    const double d[3] = {tip[0] - base[0], tip[1] - base[1], tip[2] - base[2]};
    const double nf = sqrt(F[0] * F[0] + F[1] * F[1]), nd = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    const double cx[3] = {d[1] * F[2] - d[2] * F[1], d[2] * F[0] - d[0] * F[2], d[0] * F[1] - d[1] * F[0]};
    const double angle = asin(sqrt(cx[0] * cx[0] + cx[1] * cx[1] + cx[2] * cx[2]) / (nf * nd));
    /* the cantilever alone under F at its tip */
    char one[1024];
    snprintf(one, sizeof one, "{" MAT ", \"environment\": {\"gravity\": [0, 0, 0]}, \"loads\": [{\"name\": "
             "\"F\", \"type\": \"tip_force\", \"force\": [%g, %g, %g]}]}", 0.3, 6, 6, 2, 2, F[0], F[1], F[2]);
    rod_model *m1 = tu_model(one);
    rod_state *s1 = tu_solve(m1);
    rod_frame f1 = tu_frame(m1, s1, 11);
    const double dt = dist3(f.rods[0].position + 30, f1.position + 30);
    const double mo = sqrt(f.cons[0].moment[0] * f.cons[0].moment[0] + f.cons[0].moment[1] * f.cons[0].moment[1] +
                           f.cons[0].moment[2] * f.cons[0].moment[2]);
    cr_log_info("ball joint: the hanging rod is %.2e rad off the force's line; the cantilever's tip %.2e m "
                "from the cantilever alone under the force; the joint's force %.6f %.6f %.6f N, moment %.1e N m",
                angle, dt, f.cons[0].force[0], f.cons[0].force[1], f.cons[0].force[2], mo);
    cr_assert_lt(angle, 1e-8);
    cr_assert_lt(dt, 1e-9);
    cr_assert_lt(dist3(f.cons[0].force, (double[3]){-F[0], -F[1], -F[2]}), 1e-9);
    solved_free(m1, s1, &f1);
    solved_free(m, st, &f);
}

static double energy(const rod_model *m, const rod_state *st)
{
    rod_frame f = tu_frame(m, st, 3);
    const double e = f.e_kinetic + f.e_elastic + f.e_gravity;
    rod_frame_free(&f);
    return e;
}

Test(assembly, hinged_double_pendulum_of_rods_conserves_energy, .timeout = 120)
{
    /* two stiff rods on hinges about y, the first on a fixed body, started horizontal along x */
    const char *rod = "\"model\": \"classic\", \"rod\": {\"length\": 0.2, \"radius\": 0.01, \"density\": 1000, "
                      "\"youngs_modulus\": 1e7, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": 3, \"bend2\": 3, "
                      "\"twist\": 1, \"stretch\": 1}";
    char js[2048];
    snprintf(js, sizeof js,
             "{\"environment\": {\"gravity\": [0, 0, -9.81]}, \"solver\": {\"rtol\": 1e-8, \"atol\": 1e-10}, "
             "\"bodies\": [{\"name\": \"pivot\", \"mass\": 1, \"inertia\": [1, 1, 1], \"base\": {\"type\": \"fixed\"}}], "
             "\"rods\": [{\"name\": \"upper\", %s, \"base\": {\"type\": \"joint\", \"to\": {\"body\": \"pivot\"}, "
             "\"joint\": \"hinge\", \"axis\": [0, 1, 0], \"rotation\": {\"axis\": [0, 1, 0], \"angle\": 1.5707963267948966}}}, "
             "{\"name\": \"lower\", %s, \"base\": {\"type\": \"joint\", \"to\": {\"rod\": \"upper\"}, \"joint\": \"hinge\", "
             "\"axis\": [0, 1, 0]}}]}",
             rod, rod);
    rod_model *m = tu_model(js);
    rod_state *st = tu_started(m);
    const double E0 = energy(m, st);
    double dE = 0, swing = 0, viol = 0;
    for (int k = 1; k <= 5; k++) {
        cr_assert_eq(rod_dynamics_advance(m, st, 0.05 * k), ROD_OK, "%s", rod_state_error(st));
        dE = fmax(dE, fabs(energy(m, st) - E0));
        rod_frame f = tu_frame(m, st, 3);
        swing = fmax(swing, f.e_kinetic);
        viol = fmax(viol, fmax(f.cons[0].violation, f.cons[1].violation));
        rod_frame_free(&f);
    }
    rod_dynamics_stats s;
    rod_dynamics_get_stats(st, &s);
    cr_log_info("hinged double pendulum of rods, 0.25 s, %ld steps: energy drift %.2e J of a swing of %.4f J "
                "kinetic; joints' violation up to %.1e", s.steps, dE, swing, viol);
    cr_assert_gt(swing, 0.01, "it swings");
    cr_assert_lt(dE, 1e-6 * swing);
    cr_assert_lt(viol, 1e-8);
    rod_state_free(st);
    rod_model_free(m);
}

Test(assembly, free_assembly_keeps_zero_momentum, .timeout = 120)
{
    /* a free body with two arms at right angles, one pulled by a cable, in no gravity */
    const char *arm = "\"model\": \"classic\", \"rod\": {\"length\": 0.2, \"radius\": 0.008, \"density\": 1000, "
                      "\"youngs_modulus\": 2e5, \"poisson_ratio\": 0.45, \"shear_viscosity\": 10}, \"strains\": "
                      "{\"bend1\": 3, \"bend2\": 3, \"twist\": 1, \"stretch\": 1}";
    char js[3000];
    snprintf(js, sizeof js,
             "{\"environment\": {\"gravity\": [0, 0, 0]}, \"solver\": {\"rtol\": 1e-10, \"atol\": 1e-12}, "
             "\"bodies\": [{\"name\": \"core\", \"mass\": 0.05, \"inertia\": [2e-5, 2e-5, 3e-5], \"base\": {\"type\": \"free\"}}], "
             "\"rods\": [{\"name\": \"a1\", %s, \"base\": {\"type\": \"joint\", \"to\": {\"body\": \"core\"}, \"joint\": "
             "\"fixed\", \"position\": [0.02, 0, 0], \"rotation\": {\"axis\": [0, 1, 0], \"angle\": 1.5707963267948966}}, "
             "\"actuators\": [{\"name\": \"c\", \"type\": \"cable\", \"route\": {\"offset\": [0.005, 0.002]}, "
             "\"tension\": \"0.2*sin(6*t)^2\"}]}, "
             "{\"name\": \"a2\", %s, \"base\": {\"type\": \"joint\", \"to\": {\"body\": \"core\"}, \"joint\": \"ball\", "
             "\"position\": [0, 0.02, 0], \"rotation\": {\"axis\": [1, 0, 0], \"angle\": -1.5707963267948966}}}]}",
             arm, arm);
    rod_model *m = tu_model(js);
    rod_state *st = tu_started(m);
    const assembly *a = m->as;
    double Pmax = 0, Hmax = 0, scale = 0;
    for (int k = 1; k <= 10; k++) {
        cr_assert_eq(rod_dynamics_advance(m, st, 0.1 * k), ROD_OK, "%s", rod_state_error(st));
        asm_sync(m, st);
        double P[3] = {0}, H[3] = {0}, pa = 0;
        for (int i = 0; i < a->nrods; i++) {
            const rod_model *mi = a->rod[i];
            rod_state *si = st->as->rod[i];
            rigid_sums r = rigid_sums_of(mi, si);
            for (int j = 0; j < mi->spec->nbodies; j++) { /* the body, at the tip of its stub */
                const spec_body *b = &mi->spec->bodies[j];
                const int k = mi->ns - 1;
                const double *e = si->eta + 6 * k, *R = si->g[k].R, *x = si->g[k].r;
                double pw[3] = {0}, hw[3] = {0};
                for (int p = 0; p < 3; p++)
                    for (int q = 0; q < 3; q++) {
                        pw[p] += R[p + 3 * q] * b->mass * e[3 + q];
                        hw[p] += R[p + 3 * q] * (b->inertia[q] * e[0] + b->inertia[q + 3] * e[1] +
                                                 b->inertia[q + 6] * e[2]);
                    }
                const double rxp[3] = {x[1] * pw[2] - x[2] * pw[1], x[2] * pw[0] - x[0] * pw[2], x[0] * pw[1] - x[1] * pw[0]};
                for (int p = 0; p < 3; p++) r.P[p] += pw[p], r.H[p] += hw[p] + rxp[p];
            }
            for (int p = 0; p < 3; p++) P[p] += r.P[p], H[p] += r.H[p];
            pa += sqrt(r.P[0] * r.P[0] + r.P[1] * r.P[1] + r.P[2] * r.P[2]);
        }
        Pmax = fmax(Pmax, sqrt(P[0] * P[0] + P[1] * P[1] + P[2] * P[2]));
        Hmax = fmax(Hmax, sqrt(H[0] * H[0] + H[1] * H[1] + H[2] * H[2]));
        scale = fmax(scale, pa);
    }
    cr_log_info("free assembly, 1 s: |P| up to %.2e, |H| up to %.2e (each part's momentum up to %.2e)",
                Pmax, Hmax, scale);
    cr_assert_gt(scale, 1e-5, "the parts move");
    cr_assert_lt(Pmax, 1e-10 * scale);
    cr_assert_lt(Hmax, 1e-10 * scale * 0.2); /* 0.2 m: the arms' reach */
    rod_state_free(st);
    rod_model_free(m);
}

Test(assembly, a_branch_at_mid_rod_loads_it_as_its_reaction_would, .timeout = 60)
{
    /* a branch joined (fixed) 1 cm off the axis at the middle of a cantilever, both in gravity:
     * the cantilever bends as it does alone under the joint's reaction applied there as dead
     * point loads (the force, and the moment about its axis point) */
    char js[2048], t[400], b[400];
    snprintf(t, sizeof t, MAT, 0.3, 6, 6, 2, 2);
    snprintf(b, sizeof b, MAT, 0.1, 4, 4, 1, 1);
    snprintf(js, sizeof js,
             "{\"environment\": {\"gravity\": [0, -2, -9.81]}, \"rods\": [{\"name\": \"trunk\", %s}, {\"name\": "
             "\"branch\", %s, \"base\": {\"type\": \"joint\", \"to\": {\"rod\": \"trunk\", \"s\": 0.15}, \"joint\": "
             "\"fixed\", \"position\": [0.01, 0, 0], \"rotation\": {\"axis\": [0, 1, 0], \"angle\": 1.2}}}]}",
             t, b);
    rod_model *m = tu_model(js);
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 3);
    const rod_frame_constraint *c = &f.cons[0];
    const double *pt = f.rods[0].position + 3; /* 3 points: s = 0, 0.15, 0.3 m */
    double d[3];
    for (int i = 0; i < 3; i++) d[i] = c->point[i] - pt[i];
    cr_assert_lt(fabs(sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - 0.01), 1e-6, "the branch sits 1 cm off");
    const double F[3] = {-c->force[0], -c->force[1], -c->force[2]};
    const double M[3] = {-c->moment[0] + d[1] * F[2] - d[2] * F[1], -c->moment[1] + d[2] * F[0] - d[0] * F[2],
                         -c->moment[2] + d[0] * F[1] - d[1] * F[0]};
    char one[1024];
    snprintf(one, sizeof one,
             "{" MAT ", \"environment\": {\"gravity\": [0, -2, -9.81]}, \"loads\": [{\"name\": \"F\", \"type\": "
             "\"point_force\", \"s\": 0.15, \"force\": [%.17g, %.17g, %.17g]}, {\"name\": \"M\", \"type\": "
             "\"point_moment\", \"s\": 0.15, \"moment\": [%.17g, %.17g, %.17g]}]}",
             0.3, 6, 6, 2, 2, F[0], F[1], F[2], M[0], M[1], M[2]);
    rod_model *m1 = tu_model(one);
    rod_state *s1 = tu_solve(m1);
    rod_frame f1 = tu_frame(m1, s1, 3);
    const double dt = dist3(f.rods[0].position + 6, f1.position + 6);
    cr_log_info("branch at mid-rod: the trunk's tip %.3e m from the trunk alone under the joint's reaction "
                "(%.4f %.4f %.4f N, %.5f %.5f %.5f N m about its axis)", dt, F[0], F[1], F[2], M[0], M[1], M[2]);
    cr_assert_lt(dt, 1e-9);
    solved_free(m1, s1, &f1);
    solved_free(m, st, &f);
}

Test(assembly, rods_pressed_together_balance_their_contact, .timeout = 120)
{
    /* two upright cantilevers 3 cm apart (radius 1 cm), the second on a fixed body, its tip
     * pushed toward the first: their contact (the self-contact law between rods) holds both;
     * the pushed rod's forces balance, and the first bends as it does alone under the contact
     * forces reported on it, applied as point forces where they act */
    char js[3000], a[400], b[400];
    snprintf(a, sizeof a, MAT, 0.3, 6, 6, 2, 2);
    snprintf(b, sizeof b, MAT, 0.3, 6, 6, 2, 2);
    snprintf(js, sizeof js,
             "{\"environment\": {\"gravity\": [0, 0, 0], \"self_contact\": {\"stiffness\": 1e6, \"damping\": 0}}, "
             "\"bodies\": [{\"name\": \"post\", \"mass\": 1, \"inertia\": [1, 1, 1], \"base\": {\"type\": \"fixed\", "
             "\"position\": [0.03, 0, 0]}}], \"rods\": [{\"name\": \"a\", %s}, {\"name\": \"b\", %s, \"base\": "
             "{\"type\": \"joint\", \"to\": {\"body\": \"post\"}, \"joint\": \"fixed\"}, \"loads\": [{\"name\": "
             "\"push\", \"type\": \"tip_force\", \"force\": [-0.05, 0, 0]}]}]}",
             a, b);
    rod_model *m = tu_model(js);
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 3);
    double onb[3] = {0, 0, 0}, total = 0;
    char loads[2048] = "";
    size_t used = 0;
    int na = 0;
    for (int k = 0; k < f.ncontacts; k++) {
        const double *F = f.contact_force + 3 * k;
        if (f.contact_rod[k] == 1) {
            for (int l = 0; l < 3; l++) onb[l] += F[l];
            continue;
        }
        total += F[0];
        used += (size_t)snprintf(loads + used, sizeof loads - used,
                                 "%s{\"name\": \"c%d\", \"type\": \"point_force\", \"s\": %.17g, \"force\": [%.17g, "
                                 "%.17g, %.17g]}", na ? ", " : "", na, f.contact_s[k], F[0], F[1], F[2]);
        na++;
    }
    cr_assert_gt(na, 0, "they touch");
    const double *R = f.cons[0].force;
    const double bal[3] = {-0.05 + onb[0] + R[0], onb[1] + R[1], onb[2] + R[2]};
    char one[3000];
    snprintf(one, sizeof one, "{" MAT ", \"environment\": {\"gravity\": [0, 0, 0]}, \"loads\": [%s]}", 0.3, 6, 6, 2,
             2, loads);
    rod_model *m1 = tu_model(one);
    rod_state *s1 = tu_solve(m1);
    rod_frame f1 = tu_frame(m1, s1, 3);
    const double dt = dist3(f.rods[0].position + 6, f1.position + 6);
    cr_log_info("rods pressed together: %d contact points on the first, %.5f N on it in x; the pushed rod's "
                "forces sum to %.1e N; the first's tip %.2e m from it alone under those forces",
                na, total, sqrt(bal[0] * bal[0] + bal[1] * bal[1] + bal[2] * bal[2]), dt);
    cr_assert_lt(fabs(bal[0]) + fabs(bal[1]) + fabs(bal[2]), 1e-9);
    cr_assert_lt(dt, 1e-9);
    solved_free(m1, s1, &f1);
    solved_free(m, st, &f);
}
