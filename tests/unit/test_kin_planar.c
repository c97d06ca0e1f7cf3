/* The planar kinematics (core/stages/kin_planar.c) against the general recursions they stand
 * in for (the same model with planar cleared): poses, Jacobians, twists and biases at every
 * station for strongly bent, stretched and sheared states moving fast, in both Magnus rules,
 * with a curved rest shape, and with substeps; and that a rod with any out-of-plane strain is
 * not planar. */
#include "kinematics.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long long seed = 4242;

static double draw(double s)
{
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return s * (2.0 * (double)(seed >> 11) / 9007199254740992.0 - 1.0);
}

static const char *SPEC_FMT =
    "{\"model\": \"classic\", \"rod\": {\"length\": 0.4, \"radius\": 0.01, \"density\": 1000, "
    "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45%s}, \"strains\": {\"bend2\": 5, \"shear1\": 2, "
    "\"stretch\": 3}, \"discretization\": {\"magnus_order\": %d, \"substeps\": %d}}";

static double largest(const double *a, const double *b, size_t n)
{
    double d = 0;
    for (size_t i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

static void check(int order, int substeps, const char *rest)
{
    char json[1024];
    snprintf(json, sizeof json, SPEC_FMT, rest, order, substeps);
    rod_model *m = tu_model(json);
    cr_assert(m->planar, "order %d: the model should be planar", order);
    const int ns = m->ns, nx = m->n_xi, n = m->n;
    lie_pose *g1 = calloc((size_t)ns, sizeof *g1), *g2 = calloc((size_t)ns, sizeof *g2);
    double *J1 = calloc((size_t)ns * 6 * nx, sizeof *J1), *J2 = calloc((size_t)ns * 6 * nx, sizeof *J2);
    double *e1 = calloc((size_t)ns * 6, sizeof *e1), *e2 = calloc((size_t)ns * 6, sizeof *e2);
    double *b1 = calloc((size_t)ns * 6, sizeof *b1), *b2 = calloc((size_t)ns * 6, sizeof *b2);
    double *q = calloc((size_t)n, sizeof *q), *qd = calloc((size_t)n, sizeof *qd);
    cr_assert(g1 && g2 && J1 && J2 && e1 && e2 && b1 && b2 && q && qd);
    for (int trial = 0; trial < 4; trial++) {
        /* bending up to a few turns over the rod, stretch and shear of tens of percent */
        for (int j = 0; j < nx; j++) {
            const int c = m->cols[j].comp;
            q[j] = draw(c == 1 ? 15.0 : 0.3) / (1 + m->cols[j].degree);
            qd[j] = draw(c == 1 ? 40.0 : 2.0);
        }
        m->planar = 1;
        kin_forward_vel(m, q, qd, g1, J1, e1, b1);
        m->planar = 0;
        kin_forward_vel(m, q, qd, g2, J2, e2, b2);
        double dg = 0, scale_b = 0;
        for (int k = 0; k < ns; k++) {
            dg = fmax(dg, largest(g1[k].R, g2[k].R, 9));
            dg = fmax(dg, largest(g1[k].r, g2[k].r, 3));
        }
        for (int i = 0; i < ns * 6; i++) scale_b = fmax(scale_b, fabs(b2[i]));
        cr_assert(dg < 1e-13, "order %d, sub %d: poses differ by %g", order, substeps, dg);
        const double dJ = largest(J1, J2, (size_t)ns * 6 * nx), de = largest(e1, e2, (size_t)ns * 6);
        const double db = largest(b1, b2, (size_t)ns * 6);
        cr_assert(dJ < 1e-13, "order %d, sub %d: Jacobians differ by %g", order, substeps, dJ);
        cr_assert(de < 1e-12, "order %d, sub %d: twists differ by %g", order, substeps, de);
        cr_assert(db < 1e-13 * scale_b, "order %d, sub %d: biases differ by %g (scale %g)", order, substeps,
                  db, scale_b);
        /* the twist-only recursion too */
        m->planar = 1;
        kin_forward_twist(m, q, qd, g1, e1);
        m->planar = 0;
        kin_forward_twist(m, q, qd, g2, e2);
        cr_assert(largest(e1, e2, (size_t)ns * 6) < 1e-12, "order %d: twist-only twists differ", order);
        /* the poses and Jacobians alone, at the model's steps and one step per interval */
        for (int coarse = 0; coarse < 2; coarse++) {
            m->planar = 1;
            (coarse ? kin_forward_coarse : kin_forward)(m, q, g1, J1);
            m->planar = 0;
            (coarse ? kin_forward_coarse : kin_forward)(m, q, g2, J2);
            double dp = largest(J1, J2, (size_t)ns * 6 * nx);
            for (int k = 0; k < ns; k++) dp = fmax(dp, fmax(largest(g1[k].R, g2[k].R, 9), largest(g1[k].r, g2[k].r, 3)));
            cr_assert(dp < 1e-13, "order %d, sub %d, coarse %d: poses or Jacobians differ by %g", order, substeps,
                      coarse, dp);
        }
        /* the frames' step exponentials, over the model's own steps */
        const int sub = m->substeps, nsteps = (ns - 1) * sub, np = m->mag->npts;
        double *h = calloc((size_t)nsteps, sizeof *h);
        lie_pose *x1 = calloc((size_t)nsteps, sizeof *x1), *x2 = calloc((size_t)nsteps, sizeof *x2);
        cr_assert(h && x1 && x2);
        for (int t = 0; t < nsteps; t++) h[t] = (m->s[1 + t / sub] - m->s[t / sub]) / sub;
        const double *beta = m->kin_beta + (size_t)sub * np * nx;
        const double *star = m->kin_star ? m->kin_star + (size_t)sub * np * 6 : NULL;
        m->planar = 1;
        kin_step_exps(m, q, beta, star, h, nsteps, x1);
        m->planar = 0;
        kin_step_exps(m, q, beta, star, h, nsteps, x2);
        double dx = 0;
        for (int t = 0; t < nsteps; t++) dx = fmax(dx, fmax(largest(x1[t].R, x2[t].R, 9), largest(x1[t].r, x2[t].r, 3)));
        cr_assert(dx < 1e-14, "order %d, sub %d: step exponentials differ by %g", order, substeps, dx);
        free(h), free(x1), free(x2);
    }
    free(g1), free(g2), free(J1), free(J2), free(e1), free(e2), free(b1), free(b2), free(q), free(qd);
    rod_model_free(m);
}

Test(kin_planar, matches_general_sixth_order) { check(6, 1, ""); }
Test(kin_planar, matches_general_fourth_order) { check(4, 1, ""); }
Test(kin_planar, matches_general_with_substeps) { check(6, 3, ""); }
Test(kin_planar, matches_general_curved_at_rest)
{
    check(6, 2, ", \"rest_strain\": {\"bend2\": \"3 * sin(10 * s)\", \"shear1\": 0.05}");
}

Test(kin_planar, out_of_plane_strain_is_general)
{
    rod_model *m = tu_model("{\"model\": \"classic\", \"rod\": {\"length\": 0.4, \"radius\": 0.01, \"density\": 1000, "
                            "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 3, "
                            "\"twist\": 1}}");
    cr_assert_not(m->planar);
    rod_model_free(m);
    m = tu_model("{\"model\": \"classic\", \"rod\": {\"length\": 0.4, \"radius\": 0.01, \"density\": 1000, "
                 "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45, \"rest_strain\": {\"bend1\": 1}}, "
                 "\"strains\": {\"bend2\": 3}}");
    cr_assert_not(m->planar);
    rod_model_free(m);
}
