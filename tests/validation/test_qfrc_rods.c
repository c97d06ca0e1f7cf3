/* The generalized forces by kind of several rods (rod_state_generalized_forces, asm_forces.c)
 * against what they must be independently of how they are gathered:
 *  - rod by rod, the kinds sum to M q_ddot with the assembly's q_ddot (the joints' and the
 *    contacts' share included), moving and at rest;
 *  - an ideal joint does no work: the power of the constraint kind, q_dot . Q_constraint, is
 *    the child's and the parent's with opposite signs (it carries power from one rod to the
 *    other) and sums to zero but for the drift its pull-back corrects;
 *  - in statics each rod's total is zero, so the joint's reaction balances the rest of the
 *    rod's kinds, and two rods pressed together each carry a contact force. */
#include "assembly.h"
#include "model.h"
#include "state.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define K ROD_QFRC_COUNT
#define ROD(len, extra)                                                                                   \
    "\"model\": \"classic\", \"rod\": {\"length\": " #len ", \"radius\": 0.01, \"density\": 1000, "      \
    "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45, \"shear_viscosity\": 100}, \"strains\": {\"bend1\": 3, " \
    "\"bend2\": 3, \"twist\": 1, \"stretch\": 1}" extra

/* A cantilever with a second rod on its tip by a ball joint, swinging under gravity across
 * them, a tip load on the second: every rod's kinds, the joint's among them. */
static const char *const swinging =
    "{\"environment\": {\"gravity\": [9.81, 0, 0]}, \"rods\": ["
    "{\"name\": \"upper\", " ROD(0.25, "") "}, "
    "{\"name\": \"lower\", " ROD(0.2, ", \"base\": {\"type\": \"joint\", \"to\": {\"rod\": \"upper\", \"s\": \"tip\"}, "
                                      "\"joint\": \"ball\"}, \"loads\": [{\"name\": \"push\", \"type\": \"tip_force\", "
                                      "\"force\": [0, 0.002, 0]}]") "}]}";

/* the largest |sum of kinds - total| of any rod's coordinate over the model's largest |term|
 * (a body's stub rod carries forces of 1e-25 N: no scale of its own) */
static double worst_sum(const rod_model *m, const double *out, const double *total)
{
    const int n = m->as->n;
    double scale = 0, err = 0;
    for (int c = 0; c < n; c++) {
        double s = 0;
        for (int k = 0; k < K; k++) {
            s += out[(size_t)k * n + c];
            scale = fmax(scale, fabs(out[(size_t)k * n + c]));
        }
        scale = fmax(scale, fabs(total[c]));
        err = fmax(err, fabs(s - total[c]));
    }
    return scale > 0 ? err / scale : 0;
}

static double power(const rod_model *m, const rod_state *st, const double *out, int kind, int rod)
{
    const assembly *a = m->as;
    double p = 0;
    for (int c = a->off[rod]; c < a->off[rod] + a->rod[rod]->n; c++) p += out[(size_t)kind * a->n + c] * st->as->qd[c];
    return p;
}

Test(qfrc_rods, moving_the_kinds_sum_to_M_qddot_and_the_joint_does_no_work, .timeout = 60)
{
    rod_model *m = tu_model(swinging);
    rod_state *st = tu_started(m);
    cr_assert_eq(rod_dynamics_advance(m, st, 0.05), ROD_OK, "%s", rod_state_error(st));
    const int n = m->as->n;
    double *out = calloc((size_t)K * n, sizeof *out), *total = calloc((size_t)n, sizeof *total);
    cr_assert_eq(rod_state_generalized_forces(m, st, out, total), ROD_OK, "%s", rod_state_error(st));
    /* rounding of sums of a few dozen terms of the largest's size */
    const double w = worst_sum(m, out, total);
    cr_expect_lt(w, 1e-10, "kinds - total: %.3g of the largest term", w);
    const double pu = power(m, st, out, ROD_QFRC_CONSTRAINT, 0), pl = power(m, st, out, ROD_QFRC_CONSTRAINT, 1);
    const double pg = fabs(power(m, st, out, ROD_QFRC_LOAD, 1));
    /* the joint passes power between the rods (of the gravity's order), and none is lost in it:
     * the drift the pull-back corrects (c_dot of order alpha^-1 times its error, here below
     * 1e-9 m/s at a reaction of 1e-2 N) bounds the sum */
    cr_expect_gt(fabs(pl), 1e-3 * pg, "the joint's power on the lower rod %.3g W (gravity's %.3g W)", pl, pg);
    cr_expect_lt(fabs(pu + pl), 1e-6 * fabs(pl), "upper %.6g W + lower %.6g W", pu, pl);
    cr_expect(fabs(pu + pl) < 1e-6 * fabs(pl));
    printf("qfrc_rods: kinds - total %.2g of the largest term; joint power upper %.6g W, lower %.6g W "
           "(gravity on the lower %.3g W)\n", w, pu, pl, pg);
    free(out);
    free(total);
    rod_state_free(st);
    rod_model_free(m);
}

Test(qfrc_rods, at_rest_each_rod_is_balanced_joint_and_contact_included, .timeout = 60)
{
    /* the swinging pair at rest, and two upright cantilevers pressed together (the second on
     * a fixed body, pushed at its tip): the rods' contact (the self-contact law) holds both */
    const char *specs[2] = {
        swinging,
        "{\"environment\": {\"gravity\": [0, 0, 0], \"self_contact\": {\"stiffness\": 1e6, \"damping\": 0}}, "
        "\"bodies\": [{\"name\": \"post\", \"mass\": 1, \"inertia\": [1, 1, 1], \"base\": {\"type\": \"fixed\", "
        "\"position\": [0.03, 0, 0]}}], \"rods\": [{\"name\": \"a\", " ROD(0.3, "") "}, {\"name\": \"b\", "
        ROD(0.3, ", \"base\": {\"type\": \"joint\", \"to\": {\"body\": \"post\"}, \"joint\": \"fixed\"}, \"loads\": "
                 "[{\"name\": \"push\", \"type\": \"tip_force\", \"force\": [-0.05, 0, 0]}]") "}]}"};
    for (int s = 0; s < 2; s++) {
        rod_model *m = tu_model(specs[s]);
        rod_state *st = tu_solve(m);
        const int n = m->as->n;
        double *out = calloc((size_t)K * n, sizeof *out), *total = calloc((size_t)n, sizeof *total);
        cr_assert_eq(rod_state_generalized_forces(m, st, out, total), ROD_OK, "%s", rod_state_error(st));
        cr_expect_lt(worst_sum(m, out, total), 1e-10);
        /* at rest q_ddot is the statics' residual: M q_ddot far below the forces that balance */
        double big = 0, tot = 0, con[2] = {0, 0}, cont[2] = {0, 0};
        for (int i = 0; i < 2; i++)
            for (int c = m->as->off[i]; c < m->as->off[i] + m->as->rod[i]->n; c++) {
                for (int k = 0; k < K; k++) big = fmax(big, fabs(out[(size_t)k * n + c]));
                tot = fmax(tot, fabs(total[c]));
                con[i] = fmax(con[i], fabs(out[(size_t)ROD_QFRC_CONSTRAINT * n + c]));
                cont[i] = fmax(cont[i], fabs(out[(size_t)ROD_QFRC_CONTACT * n + c]));
            }
        cr_expect_lt(tot, 1e-6 * big, "spec %d: |M q_ddot| %.3g against forces of %.3g", s, tot, big);
        if (s == 0) cr_expect(con[0] > 1e-3 * big && con[1] > 1e-3 * big, "the joint acts on both: %g %g", con[0], con[1]);
        if (s == 1) cr_expect(cont[0] > 1e-3 * big && cont[1] > 1e-3 * big, "the contact acts on both: %g %g", cont[0], cont[1]);
        printf("qfrc_rods: at rest (%s): |M q_ddot| %.2g of forces %.3g; joint %.3g, %.3g; contact %.3g, %.3g\n",
               s ? "pressed" : "swinging", tot, big, con[0], con[1], cont[0], cont[1]);
        free(out);
        free(total);
        rod_state_free(st);
        rod_model_free(m);
    }
}
