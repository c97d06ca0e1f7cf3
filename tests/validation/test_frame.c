/* Output frames between stations (core/solve/frame.c, frame_table.c): the shape at the output points
 * must be as accurate as the solver's kinematics at its stations, and a frame must not depend
 * on whether its basis tables were kept by the model or built for the call. */
#include "kinematics.h"
#include "model.h"
#include "state.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *SPEC =
    "{\"model\": \"extended\", \"rod\": {\"length\": 0.5, \"radius\": {\"base\": 0.015, \"tip\": 0.004}, "
    "\"density\": 1000, \"youngs_modulus\": 2000, \"poisson_ratio\": 0.499}, "
    "\"strains\": {\"bend1\": 3, \"bend2\": 6, \"twist\": 2, \"stretch\": 2}, "
    "\"inflation\": {\"pieces\": 3, \"boundary\": \"neumann\"}}";

/* a strongly bent, twisted, stretched and inflated state (curvatures of radians over the rod) */
static rod_state *bent_state(const rod_model *m)
{
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    for (int j = 0; j < m->n; j++) st->q[j] = (j % 2 ? -3.0 : 5.0) / (1.0 + j) * (j >= m->n_xi ? 0.02 : 1.0);
    return st;
}

static double dist(const double *a, const double *b)
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* The frame of the default discretization against the same stations with 16 times finer
 * Magnus steps (their error ~16^-6 of the default's): between stations the frame steps from
 * the station before a point, never further than the model's own steps, so its error at any
 * point is bounded by the recursion's error at the stations around it. Taken as twice the
 * largest station error: the error grows along the rod (it is carried from the base), so an
 * interior point sits below the stations after it; the factor 2 covers its own partial step. */
Test(frame, points_between_stations_are_as_accurate_as_the_stations)
{
    rod_model *m = tu_model(SPEC);
    char sub[64], ord[64];
    snprintf(sub, sizeof sub, "discretization.substeps=%d", 16 * m->substeps);
    snprintf(ord, sizeof ord, "discretization.magnus_order=%d", m->mag->order);
    const char *sets[] = {sub, ord};
    rod_model *fine = tu_model_set(SPEC, sets, 2);
    cr_assert_eq(m->ns, fine->ns);
    rod_state *st = bent_state(m), *sf = bent_state(fine);
    lie_pose *g = calloc((size_t)m->ns, sizeof *g), *gf = calloc((size_t)m->ns, sizeof *gf);
    kin_forward(m, st->q, g, NULL);
    kin_forward(fine, sf->q, gf, NULL);
    double station_err = 0;
    for (int k = 0; k < m->ns; k++) station_err = fmax(station_err, dist(g[k].r, gf[k].r));
    rod_frame a = tu_frame(m, st, 101), b = tu_frame(fine, sf, 101);
    double point_err = 0;
    for (int i = 0; i < a.n; i++) point_err = fmax(point_err, dist(a.position + 3 * i, b.position + 3 * i));
    cr_log_info("largest position error: %.3e m at the stations, %.3e m at 101 output points", station_err, point_err);
    cr_assert_gt(station_err, 0.0);
    cr_assert_leq(point_err, 2 * station_err, "frame points off by %.3e m, stations by %.3e m", point_err, station_err);
    /* the ends are stations: the frame gives their poses exactly */
    cr_assert_eq(memcmp(a.position, g[0].r, 3 * sizeof *a.position), 0);
    cr_assert_eq(memcmp(a.position + 3 * (a.n - 1), g[m->ns - 1].r, 3 * sizeof *a.position), 0);
    rod_frame_free(&a);
    rod_frame_free(&b);
    free(g);
    free(gf);
    rod_state_free(st);
    rod_state_free(sf);
    rod_model_free(m);
    rod_model_free(fine);
}

static int same_frame(const rod_frame *a, const rod_frame *b)
{
    const size_t n = (size_t)a->n;
    return a->n == b->n && !memcmp(a->s, b->s, n * sizeof *a->s) &&
           !memcmp(a->position, b->position, 3 * n * sizeof *a->position) &&
           !memcmp(a->rotation, b->rotation, 9 * n * sizeof *a->rotation) &&
           !memcmp(a->rho, b->rho, n * sizeof *a->rho) && !memcmp(a->radius, b->radius, n * sizeof *a->radius) &&
           !memcmp(a->kappa, b->kappa, 3 * n * sizeof *a->kappa) && !memcmp(a->nu, b->nu, 3 * n * sizeof *a->nu);
}

/* The model keeps a few tables; more point counts than that are built per call. Either way
 * the same frame, bit for bit, and the same as the first time. */
Test(frame, kept_and_per_call_tables_give_the_same_frame)
{
    rod_model *m = tu_model(SPEC);
    rod_state *st = bent_state(m);
    rod_frame first[30];
    for (int n = 2; n < 32; n++) first[n - 2] = tu_frame(m, st, n);
    for (int n = 2; n < 32; n++) {
        rod_frame again = tu_frame(m, st, n);
        cr_assert(same_frame(&first[n - 2], &again), "the %d-point frame changed on the second call", n);
        rod_frame_free(&again);
        rod_frame_free(&first[n - 2]);
    }
    rod_state_free(st);
    rod_model_free(m);
}
