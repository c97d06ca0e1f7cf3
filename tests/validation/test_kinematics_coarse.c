/* kin_forward_coarse (the statics Newton matrix's kinematics) is the model's own recursion with
 * one Magnus step per station interval: on the same stations it must give exactly what
 * kin_forward gives on a model built with discretization.substeps = 1. And the recursion
 * converges at its rule's order (checked by halving the steps, both rules). */
#include "kinematics.h"
#include "model.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *SPEC =
    "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
    "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": 2, \"bend2\": 3, "
    "\"twist\": 1, \"stretch\": 1}}";

/* a strongly bent and twisted configuration: curvatures of a few radians over the rod */
static void bent_q(const rod_model *m, double *q)
{
    for (int j = 0; j < m->n; j++) q[j] = (j % 2 ? -3.0 : 5.0) / (1.0 + j);
}

Test(kinematics_coarse, equals_one_step_per_interval)
{
    const char *fsets[] = {"discretization.substeps=3"};
    const char *sets[] = {"discretization.substeps=1"};
    rod_model *fine = tu_model_set(SPEC, fsets, 1);
    rod_model *one = tu_model_set(SPEC, sets, 1);
    cr_assert_gt(fine->substeps, 1);
    cr_assert_eq(one->substeps, 1);
    cr_assert_eq(fine->ns, one->ns);
    const int ns = fine->ns, nx = fine->n_xi;
    double *q = calloc((size_t)fine->n, sizeof *q);
    lie_pose *ga = calloc((size_t)ns, sizeof *ga), *gb = calloc((size_t)ns, sizeof *gb);
    double *Ja = calloc((size_t)ns * 6 * nx, sizeof *Ja), *Jb = calloc((size_t)ns * 6 * nx, sizeof *Jb);
    bent_q(fine, q);
    kin_forward_coarse(fine, q, ga, Ja);
    kin_forward(one, q, gb, Jb);
    for (int k = 0; k < ns; k++) {
        cr_assert_eq(memcmp(ga[k].R, gb[k].R, sizeof ga[k].R), 0, "rotation differs at station %d", k);
        cr_assert_eq(memcmp(ga[k].r, gb[k].r, sizeof ga[k].r), 0, "position differs at station %d", k);
    }
    cr_assert_eq(memcmp(Ja, Jb, (size_t)ns * 6 * nx * sizeof *Ja), 0, "Jacobians differ");
    free(q);
    free(ga);
    free(gb);
    free(Ja);
    free(Jb);
    rod_model_free(fine);
    rod_model_free(one);
}

static double tip_distance(const lie_pose *a, const lie_pose *b)
{
    double e = 0;
    for (int i = 0; i < 3; i++) e += (a->r[i] - b->r[i]) * (a->r[i] - b->r[i]);
    return sqrt(e);
}

/* The tip's error against a reference of 32 sixth-order steps per interval (its own error
 * ~32^-6 of the one-step error, 1e-9 of it) for 1, 2 and 4 steps of the rule: halving the
 * step divides it by 2^order. The observed order log2(e_2 / e_4) must come within 0.3 of it:
 * the next term of the error shifts the estimate by O(h^2) (measured 4.00 and 6.00, and
 * 3.99 and 5.99 from 1 to 2 steps), while a scheme one order off misses by 1. */
static void check_order(int order)
{
    char ord[64];
    snprintf(ord, sizeof ord, "discretization.magnus_order=%d", order);
    const char *sref[] = {"discretization.magnus_order=6", "discretization.substeps=32"};
    rod_model *ref = tu_model_set(SPEC, sref, 2);
    const int ns = ref->ns;
    double *q = calloc((size_t)ref->n, sizeof *q);
    lie_pose *gr = calloc((size_t)ns, sizeof *gr), *g = calloc((size_t)ns, sizeof *g);
    bent_q(ref, q);
    kin_forward(ref, q, gr, NULL);
    double e[3];
    for (int l = 0; l < 3; l++) {
        char sub[64];
        snprintf(sub, sizeof sub, "discretization.substeps=%d", 1 << l);
        const char *sets[] = {ord, sub};
        rod_model *m = tu_model_set(SPEC, sets, 2);
        cr_assert_eq(m->ns, ns);
        cr_assert_eq(m->mag->order, order);
        kin_forward(m, q, g, NULL);
        e[l] = tip_distance(&g[ns - 1], &gr[ns - 1]);
        rod_model_free(m);
    }
    const double p1 = log2(e[0] / e[1]), p2 = log2(e[1] / e[2]);
    cr_log_info("order %d: tip error %.3e, %.3e, %.3e m for 1, 2, 4 steps per interval; observed "
                "orders %.2f, %.2f", order, e[0], e[1], e[2], p1, p2);
    cr_assert_gt(e[2], 1e3 * e[0] * pow(32.0, -6.0), "the finest error is near the reference's own");
    cr_assert(fabs(p2 - order) < 0.3, "observed order %.2f, expected %d", p2, order);
    free(q);
    free(gr);
    free(g);
    rod_model_free(ref);
}

Test(kinematics_coarse, zanna_steps_are_fourth_order) { check_order(4); }
Test(kinematics_coarse, sixth_order_steps_are_sixth_order) { check_order(6); }

/* The default kinematics: 6th-order steps, at least 32 along the rod, where the station
 * intervals are fewer than 96; Zanna's, one per interval, where they are 96 or more (contact
 * points make many). Each must be at least as accurate as the 96 Zanna steps that were the
 * default before the 6th-order rule: here against 32 sixth-order steps per interval. */
static double tip_error_of(const char *spec, const char *const *sets, int nsets, const rod_model *ref,
                           const lie_pose *gref, const double *q)
{
    rod_model *m = tu_model_set(spec, sets, nsets);
    cr_assert_eq(m->ns, ref->ns);
    lie_pose *g = calloc((size_t)m->ns, sizeof *g);
    kin_forward(m, q, g, NULL);
    const double e = tip_distance(&g[m->ns - 1], &gref[ref->ns - 1]);
    free(g);
    rod_model_free(m);
    return e;
}

Test(kinematics_coarse, the_default_is_at_least_as_accurate_as_96_zanna_steps)
{
    rod_model *m = tu_model(SPEC);
    const int intervals = m->ns - 1;
    cr_assert_lt(intervals, 96);
    cr_assert_eq(m->mag->order, 6);
    cr_assert_eq(m->substeps, (32 + intervals - 1) / intervals);
    const char *sref[] = {"discretization.magnus_order=6", "discretization.substeps=32"};
    rod_model *ref = tu_model_set(SPEC, sref, 2);
    double *q = calloc((size_t)m->n, sizeof *q);
    lie_pose *gr = calloc((size_t)ref->ns, sizeof *gr);
    bent_q(m, q);
    kin_forward(ref, q, gr, NULL);
    char sub4[64];
    snprintf(sub4, sizeof sub4, "discretization.substeps=%d", (96 + intervals - 1) / intervals);
    const char *s4[] = {"discretization.magnus_order=4", sub4};
    const double e_default = tip_error_of(SPEC, NULL, 0, ref, gr, q), e_zanna = tip_error_of(SPEC, s4, 2, ref, gr, q);
    cr_log_info("tip error: default (%d sixth-order steps) %.3e m, %d Zanna steps %.3e m", m->substeps * intervals,
                e_default, (96 + intervals - 1) / intervals * intervals, e_zanna);
    cr_assert_leq(e_default, e_zanna);
    free(q);
    free(gr);
    rod_model_free(m);
    rod_model_free(ref);
    /* a rod with contact points: one Zanna step per interval */
    rod_model *c = tu_model("{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.002, "
                            "\"density\": 1000, \"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, "
                            "\"strains\": {\"bend2\": 3}, \"environment\": {\"obstacles\": [{\"name\": "
                            "\"floor\", \"type\": \"plane\", \"point\": [0, 0, -0.1], \"normal\": [0, 0, 1], "
                            "\"stiffness\": 1e5}]}}");
    cr_assert_geq(c->ns - 1, 96);
    cr_assert_eq(c->mag->order, 4);
    cr_assert_eq(c->substeps, 1);
    rod_model_free(c);
}
