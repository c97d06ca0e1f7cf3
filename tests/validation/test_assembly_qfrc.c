/* The generalized forces by kind of several rods (rod_state_generalized_forces): on a model
 * with every kind at work between rods (a moving body, a penalty joint, a ball joint, a rod's
 * own held tip, rods touching, gravity, a cable, damping; no fluid) they sum to each rod's
 * M q_ddot at the assembly's accelerations; in a static equilibrium that total vanishes while
 * the joints' kind carries the load (the rods' weight held by the joint rows). */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define K ROD_QFRC_COUNT
#define ROD "\"model\": \"classic\", \"rod\": {\"length\": 0.2, \"radius\": 0.01, \"density\": 1000, " \
            "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45, \"shear_viscosity\": 20}, \"strains\": {\"bend1\": 3, " \
            "\"bend2\": 3, \"twist\": 1, \"stretch\": 1}"

static double norm(const double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += v[i] * v[i];
    return sqrt(s);
}

/* the largest |sum of kinds - total| and the largest kind's norm */
static void balance(const rod_model *m, rod_state *st, double *gap, double *scale, double kind_norm[K])
{
    const int n = rod_model_ndof(m);
    double *out = malloc((size_t)K * n * sizeof *out), *tot = malloc((size_t)n * sizeof *tot);
    cr_assert_eq(rod_state_generalized_forces(m, st, out, tot), ROD_OK, "%s", rod_state_error(st));
    *gap = *scale = 0;
    for (int k = 0; k < K; k++) {
        kind_norm[k] = norm(out + (size_t)k * n, n);
        *scale = fmax(*scale, kind_norm[k]);
    }
    for (int i = 0; i < n; i++) {
        double s = -tot[i];
        for (int k = 0; k < K; k++) s += out[(size_t)k * n + i];
        *gap = fmax(*gap, fabs(s));
    }
    free(out);
    free(tot);
}

Test(assembly_qfrc, the_kinds_sum_to_each_rods_mass_times_its_acceleration, .timeout = 60)
{
    rod_model *m = tu_model(
        "{\"environment\": {\"gravity\": [0, -9.81, 0], \"self_contact\": {\"stiffness\": 1e5, \"damping\": 1}}, "
        "\"bodies\": [{\"name\": \"cart\", \"mass\": 1, \"inertia\": [1, 1, 1], \"base\": {\"type\": \"moving\", "
        "\"position\": [\"0.05*(1-cos(3*t))\", 0, 0]}}, {\"name\": \"post\", \"mass\": 1, \"inertia\": [1, 1, 1], "
        "\"base\": {\"type\": \"fixed\", \"position\": [0.019, 0, 0]}}], "
        "\"rods\": [{\"name\": \"a\", " ROD ", \"base\": {\"type\": \"joint\", \"to\": {\"body\": \"cart\"}, \"joint\": "
        "\"fixed\", \"method\": \"penalty\", \"stiffness\": 1e4, \"damping\": 1}, \"actuators\": [{\"name\": \"LM\", "
        "\"type\": \"cable\", \"route\": {\"offset\": [0.005, 0]}, \"tension\": 0.2}]}, "
        "{\"name\": \"b\", " ROD ", \"base\": {\"type\": \"joint\", \"to\": {\"rod\": \"a\"}, \"joint\": \"ball\"}, "
        "\"constraints\": [{\"name\": \"pin\", \"type\": \"pose\", \"position\": [0, 0, 0.400001]}]}, "
        "{\"name\": \"c\", " ROD ", \"base\": {\"type\": \"joint\", \"to\": {\"body\": \"post\"}, \"joint\": \"fixed\"}}]}");
    rod_state *st = tu_started(m);
    cr_assert_eq(rod_dynamics_advance(m, st, 0.05), ROD_OK, "%s", rod_state_error(st));
    double gap, scale, kn[K];
    balance(m, st, &gap, &scale, kn);
    rod_frame f = tu_frame(m, st, 2);
    cr_log_info("several rods, forces by kind at t = 0.05 (%d contacts): sum - M q_ddot up to %.2e of kinds up to "
                "%.3e (elastic %.2e, damping %.2e, actuator %.2e, load %.2e, contact %.2e, inertia %.2e, constraint %.2e)",
                f.ncontacts, gap, scale, kn[ROD_QFRC_ELASTIC], kn[ROD_QFRC_DAMPING], kn[ROD_QFRC_ACTUATOR],
                kn[ROD_QFRC_LOAD], kn[ROD_QFRC_CONTACT], kn[ROD_QFRC_INERTIA], kn[ROD_QFRC_CONSTRAINT]);
    for (int k = 0; k < K; k++)
        if (k != ROD_QFRC_FLUID) cr_assert_gt(kn[k], 0, "kind %s at work", rod_qfrc_name(k));
    cr_assert_gt(f.ncontacts, 0, "the rods touch");
    cr_assert_lt(gap, 1e-10 * scale);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(assembly_qfrc, in_equilibrium_the_total_vanishes_and_the_joints_carry_the_weight, .timeout = 60)
{
    rod_model *m = tu_model("{\"environment\": {\"gravity\": [0, -9.81, 0]}, \"rods\": [{\"name\": \"a\", " ROD "}, "
                            "{\"name\": \"b\", " ROD ", \"base\": {\"type\": \"joint\", \"to\": {\"rod\": \"a\"}, "
                            "\"joint\": \"fixed\"}}]}");
    rod_state *st = tu_solve(m);
    const int n = rod_model_ndof(m);
    double *out = malloc((size_t)K * n * sizeof *out), *tot = malloc((size_t)n * sizeof *tot);
    cr_assert_eq(rod_state_generalized_forces(m, st, out, tot), ROD_OK, "%s", rod_state_error(st));
    const double nl = norm(out + (size_t)ROD_QFRC_LOAD * n, n), nc = norm(out + (size_t)ROD_QFRC_CONSTRAINT * n, n);
    cr_log_info("halves in equilibrium: |M q_ddot| %.2e, |load| %.3e, |constraint| %.3e", norm(tot, n), nl, nc);
    cr_assert_lt(norm(tot, n), 1e-8 * nl);
    cr_assert_gt(nc, 0.1 * nl, "the joint holds the child's weight");
    free(out);
    free(tot);
    rod_state_free(st);
    rod_model_free(m);
}
