/* kin_forward_coarse (the statics Newton matrix's kinematics) is the model's own recursion with
 * one Zanna step per station interval: on the same stations it must give exactly what
 * kin_forward gives on a model built with discretization.substeps = 1, and it must be a
 * 4th-order approximation of the finer default (checked by halving the steps). */
#include "kinematics.h"
#include "model.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
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

Test(kinematics_coarse, equals_one_zanna_step_per_interval)
{
    rod_model *fine = tu_model(SPEC);
    const char *sets[] = {"discretization.substeps=1"};
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

/* tip position error against the default (finer) kinematics for substeps 1 and 2: the
 * 4th-order scheme's error drops 16x when the step halves. Accepted 12..20: the reference
 * carries its own error (1/substeps^4 of the coarse one) and the next term of the error
 * shifts the ratio by O(h^2); a 2nd- or 6th-order scheme gives 4 or 64. */
Test(kinematics_coarse, is_fourth_order)
{
    rod_model *fine = tu_model(SPEC);
    const char *s2[] = {"discretization.substeps=2"};
    rod_model *two = tu_model_set(SPEC, s2, 1);
    const int ns = fine->ns;
    double *q = calloc((size_t)fine->n, sizeof *q);
    lie_pose *gf = calloc((size_t)ns, sizeof *gf), *g1 = calloc((size_t)ns, sizeof *g1),
             *g2 = calloc((size_t)ns, sizeof *g2);
    bent_q(fine, q);
    kin_forward(fine, q, gf, NULL);
    kin_forward_coarse(fine, q, g1, NULL);
    kin_forward(two, q, g2, NULL);
    double e1 = 0, e2 = 0;
    for (int a = 0; a < 3; a++) {
        e1 += (g1[ns - 1].r[a] - gf[ns - 1].r[a]) * (g1[ns - 1].r[a] - gf[ns - 1].r[a]);
        e2 += (g2[ns - 1].r[a] - gf[ns - 1].r[a]) * (g2[ns - 1].r[a] - gf[ns - 1].r[a]);
    }
    e1 = sqrt(e1);
    e2 = sqrt(e2);
    cr_log_info("tip error: one step %.3e m, two steps %.3e m, ratio %.2f", e1, e2, e1 / e2);
    cr_assert_gt(e1, 0.0);
    cr_assert(e1 / e2 > 12 && e1 / e2 < 20, "error ratio %.2f for halved steps, 16 expected", e1 / e2);
    free(q);
    free(gf);
    free(g1);
    free(g2);
    rod_model_free(fine);
    rod_model_free(two);
}
