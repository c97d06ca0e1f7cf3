/* What the frames of a planar rod compute differently from before, bit for bit against what
 * they replace (the FRAME's text must not change by a digit): plane_pose3_mul against
 * lie_pose_mul on plane_to_pose's poses, signed zeros included, in chains as a point's steps
 * make them; kin_step_exps_plane against kin_step_exps; kin_forward_twist's planar recursion
 * against the solver's (kin_forward_vel); model_xi_across and model_rho_across against
 * model_xi and the sum a frame took point by point. */
#include "frame_table.h"
#include "kinematics.h"
#include "lie_plane.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long seed = 777;

static double draw(double s)
{
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return s * (2.0 * (double)(seed >> 11) / 9007199254740992.0 - 1.0);
}

/* a turn and a position, now and then exact zeros of either sign and quarter turns */
static plane_pose random_plane(void)
{
    const double th = draw(4.0);
    plane_pose p = {cos(th), sin(th), draw(0.1), draw(0.1)};
    switch ((int)(fabs(draw(8.0)))) {
    case 0: p.s = 0.0, p.c = 1.0; break;
    case 1: p.s = -0.0, p.c = 1.0; break;
    case 2: p.c = 0.0, p.s = 1.0; break;
    case 3: p.c = -0.0, p.s = -1.0; break;
    case 4: p.px = -0.0, p.pz = 0.0; break;
    default: break;
    }
    return p;
}

static void same_bits(const double *a, const double *b, int n, const char *what, int trial)
{
    for (int i = 0; i < n; i++)
        cr_assert(memcmp(&a[i], &b[i], sizeof a[i]) == 0, "trial %d, %s[%d]: %a against %a", trial, what, i, a[i], b[i]);
}

Test(frame_plane, pose_products_are_lie_pose_mul_bit_for_bit)
{
    for (int trial = 0; trial < 200000; trial++) {
        /* the station: the identity (station 0) or a pose of plane_to_pose */
        lie_pose g;
        if (trial % 7 == 0) {
            lie_pose_identity(&g);
        } else {
            const plane_pose p = random_plane();
            plane_to_pose(&p, &g);
        }
        plane_pose3 p3;
        plane_pose3_of(&g, &p3);
        const int steps = 1 + trial % 4;
        for (int j = 0; j < steps; j++) {
            const plane_pose e = random_plane();
            lie_pose ej;
            plane_to_pose(&e, &ej);
            lie_pose_mul(&g, &ej, &g);
            plane_pose3_mul(&p3, &e, &p3);
        }
        const double R[9] = {p3.R0, 0.0, p3.R2, 0.0, 1.0, 0.0, p3.R6, 0.0, p3.R8}, r[3] = {p3.r0, 0.0, p3.r2};
        same_bits(g.R, R, 9, "R", trial);
        same_bits(g.r, r, 3, "r", trial);
    }
}

static const char *SPEC_FMT =
    "{\"model\": \"extended\", \"rod\": {\"length\": 0.4, \"radius\": {\"base\": 0.02, \"tip\": 0.005}, "
    "\"density\": 1000, \"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45%s}, \"strains\": {\"bend2\": 6, "
    "\"shear1\": 2, \"stretch\": 3}, \"inflation\": {\"pieces\": 3, \"boundary\": \"neumann\"}, \"discretization\": {\"magnus_order\": %d, "
    "\"substeps\": %d}}";

static void check_model(int order, int substeps, const char *rest, int npts)
{
    char json[1024];
    snprintf(json, sizeof json, SPEC_FMT, rest, order, substeps);
    rod_model *m = tu_model(json);
    cr_assert(m->planar, "the model should be planar");
    int own = 0;
    const frame_table *tab = frame_table_acquire(m, npts, &own);
    cr_assert_not_null(tab);
    const int nx = m->n_xi, nr = m->n_rho, n = m->n, ns = m->ns, nsteps = tab->first[npts], np = m->mag->npts;
    double *q = calloc((size_t)n, sizeof *q), *scratch = calloc((size_t)3 * nsteps * np + 1, sizeof *scratch);
    lie_pose *e3 = calloc((size_t)nsteps + 1, sizeof *e3);
    plane_pose *e2 = calloc((size_t)nsteps + 1, sizeof *e2);
    double *xi = calloc((size_t)6 * (npts > ns ? npts : ns), sizeof *xi), *rho = calloc((size_t)npts + ns, sizeof *rho);
    double *qd = calloc((size_t)n, sizeof *qd), *eta1 = calloc((size_t)6 * ns, sizeof *eta1),
           *eta2 = calloc((size_t)6 * ns, sizeof *eta2), *bias = calloc((size_t)6 * ns, sizeof *bias),
           *J = calloc((size_t)6 * ns * nx, sizeof *J);
    lie_pose *g1 = calloc((size_t)ns, sizeof *g1), *g2 = calloc((size_t)ns, sizeof *g2);
    cr_assert(q && scratch && e3 && e2 && xi && rho && qd && eta1 && eta2 && bias && J && g1 && g2);
    for (int trial = 0; trial < 6; trial++) {
        for (int j = 0; j < nx; j++) q[j] = draw(m->cols[j].comp == 1 ? 15.0 : 0.3) / (1 + m->cols[j].degree);
        for (int j = nx; j < n; j++) q[j] = draw(0.2);
        if (trial == 0) memset(q, 0, (size_t)n * sizeof *q); /* straight: exact zeros in the poses */
        /* the stations' poses and twists, as the solver's recursion makes them */
        for (int j = 0; j < n; j++) qd[j] = trial == 1 ? 0.0 : draw(m->cols[j < nx ? j : 0].comp == 1 ? 40.0 : 2.0);
        kin_forward_twist(m, q, qd, g1, eta1);
        kin_forward_vel(m, q, qd, g2, J, eta2, bias);
        for (int k = 0; k < ns; k++) {
            same_bits(g1[k].R, g2[k].R, 9, "station R", k);
            same_bits(g1[k].r, g2[k].r, 3, "station r", k);
        }
        same_bits(eta1, eta2, 6 * ns, "station twists", trial);
        kin_step_exps(m, q, tab->beta, tab->star, tab->h, nsteps, e3);
        kin_step_exps_plane(m, q, tab->beta_t, tab->star, tab->h, nsteps, scratch, e2);
        for (int t = 0; t < nsteps; t++) {
            lie_pose g;
            plane_to_pose(&e2[t], &g);
            same_bits(e3[t].R, g.R, 9, "step R", t);
            same_bits(e3[t].r, g.r, 3, "step r", t);
        }
        /* the points' and the stations' strains and rho */
        for (int at_stations = 0; at_stations < 2; at_stations++) {
            const int count = at_stations ? ns : npts;
            const double *cols = at_stations ? m->leg : tab->cols, *phi = at_stations ? m->phr : tab->phi;
            const double *xis = at_stations ? m->xis : tab->xis;
            model_xi_across(m, at_stations ? tab->leg_t : tab->cols_t, xis, count, q, xi);
            model_rho_across(m, at_stations ? tab->phr_t : tab->phi_t, count, q, rho);
            for (int i = 0; i < count; i++) {
                double x[6], r = 1.0, across[6];
                model_xi(m, cols + (size_t)i * nx, xis ? xis + 6 * i : model_xis_straight, q, x);
                for (int j = 0; j < nr; j++) r += phi[(size_t)i * nr + j] * q[nx + j];
                for (int k = 0; k < 6; k++) across[k] = xi[(size_t)k * count + i];
                same_bits(x, across, 6, at_stations ? "station xi" : "point xi", i);
                same_bits(&r, &rho[i], 1, at_stations ? "station rho" : "point rho", i);
            }
        }
    }
    free(q), free(scratch), free(e3), free(e2), free(xi), free(rho);
    free(qd), free(eta1), free(eta2), free(bias), free(J), free(g1), free(g2);
    frame_table_release(tab, own);
    rod_model_free(m);
}

Test(frame_plane, steps_and_strains_sixth_order) { check_model(6, 1, "", 51); }
Test(frame_plane, steps_and_strains_fourth_order_substeps) { check_model(4, 3, "", 37); }
Test(frame_plane, steps_and_strains_many_substeps) { check_model(6, 5, "", 51); }
Test(frame_plane, steps_and_strains_curved_at_rest)
{
    check_model(6, 2, ", \"rest_strain\": {\"bend2\": \"3 * sin(10 * s)\", \"shear1\": 0.05}", 101);
}
