/* The walls' laws along a Newton correction (contact_lin, wall_newton; solver.contact_laws
 * "solved") on the shipped snake, at states of its own run (stuck on the ground while the
 * muscles ramp up at 0.02 s, crawling at 2 s): at a zero correction the laws add nothing and
 * their slopes are contact_jacobian's; along a small correction the change they add has those
 * slopes (the kinematics are linear in it by construction, the laws are evaluated exactly);
 * and a solved correction leaves a residual whose Newton step is within the tolerance asked. */
#include "base.h"
#include "contact.h"
#include "dense.h"
#include "dynamics.h"
#include "testutil.h"
#include "wall_newton.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* generalized-alpha's coefficients at rho_inf 0.8 and the snake's 4 ms step */
static void coefficients(double h, double *cq, double *cv)
{
    const double ri = 0.8, am = (2 * ri - 1) / (ri + 1), af = ri / (ri + 1);
    const double ga = 0.5 - am + af, be = 0.25 * (1 - am + af) * (1 - am + af), cx = (1 - af) / (1 - am);
    *cq = be * cx * h * h;
    *cv = ga * cx * h;
}

typedef struct {
    rod_model *m;
    rod_state *st;
    contact_lin *L;
    double *q, *qd, *r, *S0, cq, cv, t;
    int n;
} snake_at;

static void snake_state(snake_at *s, double t)
{
    char *json = tu_read_file("api/examples/snake-lateral-undulation.json");
    cr_assert_not_null(json);
    s->m = tu_model(json);
    free(json);
    s->st = tu_started(s->m);
    cr_assert_eq(rod_dynamics_advance(s->m, s->st, t), ROD_OK, "%s", rod_state_error(s->st));
    const int n = s->n = s->m->n;
    s->t = t;
    s->q = calloc((size_t)n, sizeof *s->q);
    s->qd = calloc((size_t)n, sizeof *s->qd);
    s->r = calloc((size_t)n, sizeof *s->r);
    s->S0 = calloc((size_t)n * n, sizeof *s->S0);
    cr_assert(s->q && s->qd && s->r && s->S0);
    memcpy(s->q, s->st->q, (size_t)n * sizeof *s->q);
    memcpy(s->qd, s->st->qd, (size_t)n * sizeof *s->qd);
    /* the residual at zero acceleration, and the kinematics the points are read from */
    double *x = calloc((size_t)n, sizeof *x);
    cr_assert(x);
    cr_assert_eq(dyn_residual(s->m, s->st, t, s->q, s->qd, x, s->r), 0);
    free(x);
    coefficients(4e-3, &s->cq, &s->cv);
    /* S0 as generalized-alpha forms it: cq K + cv D + M (no penalties on the snake) */
    dyn_mass(s->m, s->st, s->q, s->qd);
    const int nx = s->m->n_xi;
    for (size_t i = 0; i < (size_t)n * n; i++) s->S0[i] = s->cq * s->m->K[i] + s->cv * s->m->D[i];
    for (int j = 0; j < nx; j++)
        for (int i = j; i < nx; i++) {
            const double v = s->st->Mxi[i + (size_t)nx * j];
            s->S0[i + (size_t)n * j] += v;
            if (i != j) s->S0[j + (size_t)n * i] += v;
        }
    s->L = contact_lin_create(s->m);
    cr_assert_not_null(s->L);
    cr_assert_gt(contact_lin_points(s->m, s->st, s->q, s->st->eta, t, s->L), 30, "the snake lies on the ground");
}

static void snake_free(snake_at *s)
{
    contact_lin_free(s->L);
    free(s->q);
    free(s->qd);
    free(s->r);
    free(s->S0);
    rod_state_free(s->st);
    rod_model_free(s->m);
}

static double max_abs(const double *v, size_t n)
{
    double a = 0;
    for (size_t i = 0; i < n; i++) a = fmax(a, fabs(v[i]));
    return a;
}

static void zero_and_slopes(double t)
{
    snake_at s;
    snake_state(&s, t);
    const int n = s.n;
    double *G = calloc((size_t)n, sizeof *G), *A = calloc((size_t)n * n, sizeof *A);
    double *C = calloc((size_t)n * n, sizeof *C), *dx = calloc((size_t)n, sizeof *dx);
    double *G1 = calloc((size_t)n, sizeof *G1);
    cr_assert(G && A && C && dx && G1);
    /* at dx = 0 the laws add nothing, and their slopes are contact_jacobian's */
    memcpy(G, s.r, (size_t)n * sizeof *G);
    contact_lin_force(s.L, dx, s.cq, s.cv, G, A, n);
    for (int i = 0; i < n; i++) cr_assert_eq(G[i], s.r[i], "t = %g: component %d moved at dx = 0", t, i);
    contact_jacobian(s.m, s.st, s.q, s.st->eta, t, -s.cq, C, -s.cv, C, n);
    double d = 0;
    for (size_t i = 0; i < (size_t)n * n; i++) d = fmax(d, fabs(A[i] - C[i]));
    cr_assert_gt(max_abs(C, (size_t)n * n), 0.0);
    cr_assert_lt(d, 1e-12 * max_abs(C, (size_t)n * n), "t = %g: slopes %.3g off contact_jacobian's (of %.3g)", t, d,
                 max_abs(C, (size_t)n * n));
    /* along a correction moving the points' slips by about 1e-3 v_eps: G(dx) - G(0) = -A dx
     * to the slopes' forward difference (step 1e-3 v_eps) and second order */
    for (int j = 0; j < n; j++) dx[j] = sin(0.7 + 1.3 * j);
    const double ve = s.m->spec->obstacles[0].friction.threshold_velocity;
    for (int j = 0; j < n; j++) dx[j] *= 1e-9; /* slips move by about 1e-3 v_eps and less */
    memcpy(G1, s.r, (size_t)n * sizeof *G1);
    contact_lin_force(s.L, dx, s.cq, s.cv, G1, NULL, n);
    double err = 0, ref = 0;
    for (int i = 0; i < n; i++) {
        double lin = 0;
        for (int j = 0; j < n; j++) lin += C[i + (size_t)n * j] * dx[j]; /* -dQ, so G1 - G = -lin */
        err = fmax(err, fabs((G1[i] - s.r[i]) + lin));
        ref = fmax(ref, fabs(lin));
    }
    cr_log_info("t = %g: %d points, slopes against the laws' change along dx: %.2e of %.2e (v_eps %g)", t,
                contact_lin_count(s.L), err, ref, ve);
    cr_assert_gt(ref, 0.0);
    cr_assert_lt(err, 1e-2 * ref, "t = %g: the laws' change %.3g off their slopes' (of %.3g)", t, err, ref);
    free(G);
    free(A);
    free(C);
    free(dx);
    free(G1);
    snake_free(&s);
}

Test(wall_newton, at_a_zero_correction_the_walls_add_nothing_and_their_slopes_are_contact_jacobians)
{
    zero_and_slopes(0.02);
    zero_and_slopes(2.0);
}

static double weighted(const double *wq, const double *wv, const double *d, int n)
{
    double e = 0;
    for (int i = 0; i < n; i++) e += (wq[i] * d[i]) * (wq[i] * d[i]) + (wv[i] * d[i]) * (wv[i] * d[i]);
    return sqrt(e / (2 * n));
}

static void solved(double t)
{
    snake_at s;
    snake_state(&s, t);
    const int n = s.n;
    wall_newton *w = wall_newton_create(s.m);
    cr_assert_not_null(w);
    memcpy(wall_newton_smooth(w), s.S0, (size_t)n * n * sizeof *s.S0);
    wall_newton_new_try(w);
    double *wq = calloc((size_t)n, sizeof *wq), *wv = calloc((size_t)n, sizeof *wv);
    double *dx = calloc((size_t)n, sizeof *dx), *G = calloc((size_t)n, sizeof *G);
    double *A = calloc((size_t)n * n, sizeof *A);
    int *piv = calloc((size_t)n, sizeof *piv);
    cr_assert(wq && wv && dx && G && A && piv);
    const double rtol = s.m->spec->rtol, atol = s.m->spec->atol, atol_v = atol / s.m->spec->rate_time_scale;
    for (int i = 0; i < n; i++) {
        wq[i] = s.cq / (rtol * fabs(s.q[i]) + atol);
        wv[i] = s.cv / (rtol * fabs(s.qd[i]) + atol_v);
    }
    /* the residual at zero acceleration is far from balanced: the correction is large */
    const double tol = 0.1;
    const int rc = wall_newton_solve(w, s.L, s.r, s.cq, s.cv, wq, wv, tol, dx);
    cr_assert_eq(rc, 1, "t = %g: the correction was not solved", t);
    /* the residual left at dx: its Newton step (matrix formed there) is within the tolerance */
    memcpy(G, s.r, (size_t)n * sizeof *G);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) G[i] -= s.S0[i + (size_t)n * j] * dx[j];
    memcpy(A, s.S0, (size_t)n * n * sizeof *A);
    contact_lin_force(s.L, dx, s.cq, s.cv, G, A, n);
    cr_assert_eq(dense_lu(A, n, piv), 0);
    dense_lu_solve(A, n, piv, G);
    const double left = weighted(wq, wv, G, n), moved = weighted(wq, wv, dx, n);
    long matrices, passes;
    wall_newton_counts(w, &matrices, &passes);
    cr_log_info("t = %g: correction %.3g tolerances, the step left %.3g (%ld matrices, %ld passes)", t, moved, left,
                matrices, passes);
    cr_assert_gt(moved, 10 * tol);
    cr_assert_lt(left, tol, "t = %g: the step left is %.3g", t, left);
    free(wq);
    free(wv);
    free(dx);
    free(G);
    free(A);
    free(piv);
    wall_newton_free(w);
    snake_free(&s);
}

Test(wall_newton, a_solved_correction_leaves_a_newton_step_within_the_tolerance)
{
    solved(0.02);
    solved(2.0);
}

/* contact_lin_line_limit on a rod sliding along its axis on a plane (a free base moving at u =
 * 10 v_eps, every point slipping at (0, 0, u)), where a step of the base's velocity along z
 * moves every slip by cv times it and one across moves it sideways: the step is cut exactly
 * where a slip that stays sliding passes closest to zero, and only then. */
static double limit_for(const rod_model *m, contact_lin *L, double cv, double at_z, double d_z,
                        double d_y)
{
    const int n = m->n, c = m->base_col;
    double *dx = calloc((size_t)n, sizeof *dx), *d = calloc((size_t)n, sizeof *d);
    cr_assert(dx && d);
    dx[c + 5] = at_z / cv;
    d[c + 5] = d_z / cv;
    d[c + 4] = d_y / cv;
    contact_lin_line_start(L); /* the line from dx = 0 to dx, then from dx along d */
    contact_lin_line_direction(L, dx);
    contact_lin_line_advance(L, 1.0);
    contact_lin_line_direction(L, d);
    const double a = contact_lin_line_limit(L, cv);
    free(dx);
    free(d);
    return a;
}

Test(wall_newton, a_step_stops_where_a_sliding_point_would_pass_through_its_stick_disk)
{
    const double ve = 1e-4, u = 10 * ve;
    const char *friction[2] = {", \"friction\": {\"static\": 0.4, \"kinetic\": 0.2, \"threshold_velocity\": 1e-4}",
                               ""};
    for (int f = 0; f < 2; f++) {
        char json[2048];
        snprintf(json, sizeof json,
                 "{\"model\": \"classic\", \"base\": {\"type\": \"free\"}, \"rod\": {\"length\": 0.5, \"radius\": 0.02, "
                 "\"density\": 1000, \"youngs_modulus\": 1e6, \"shear_modulus\": 4e5}, \"strains\": {\"bend1\": 2, "
                 "\"bend2\": 2, \"twist\": 1, \"stretch\": 1}, \"environment\": {\"gravity\": [-9.81, 0, 0], "
                 "\"obstacles\": [{\"name\": \"ground\", \"type\": \"plane\", \"point\": [-0.0199, 0, 0], "
                 "\"normal\": [1, 0, 0], \"stiffness\": 1e5, \"damping\": 10%s}]}, "
                 "\"solver\": {\"integrator\": \"generalized-alpha\", \"step\": 0.004, \"jacobian\": \"contact\"}}",
                 friction[f]);
        rod_model *m = tu_model(json);
        rod_state *st = tu_started(m);
        const int n = m->n;
        cr_assert(base_free(m));
        memset(st->qd, 0, (size_t)n * sizeof *st->qd);
        st->qd[m->base_col + 5] = u; /* x = 0: the body twist is x_dot */
        double *x = calloc((size_t)n, sizeof *x), *r = calloc((size_t)n, sizeof *r);
        cr_assert(x && r);
        cr_assert_eq(dyn_residual(m, st, 0.0, st->q, st->qd, x, r), 0);
        contact_lin *L = contact_lin_create(m);
        cr_assert_not_null(L);
        cr_assert_gt(contact_lin_points(m, st, st->q, st->eta, 0.0, L), 2, "the rod lies on the plane");
        double cq, cv;
        coefficients(4e-3, &cq, &cv);
        /* a reversal to -u passes through zero halfway; to -0.5 u at 2/3; stopping at zero, or
         * short of it, or sideways far past the disk, goes all the way; a reversal with a
         * sideways part of v_eps / 2 passes within the disk, at -v.w / |w|^2; with 3 v_eps
         * sideways it passes 1.48 v_eps from zero, outside */
        const double side = 2 * u * u / (4 * u * u + 0.25 * ve * ve);
        const double want[][4] = {{0, -2 * u, 0, 0.5},        {0, -1.5 * u, 0, 2.0 / 3}, {0, -u, 0, 1},
                                  {0, -0.5 * u, 0, 1},        {0, 0, 30 * u, 1},        {0, -2 * u, 0.5 * ve, side},
                                  {0, -2 * u, 3 * ve, 1},     {u, -4 * u, 0, 0.5},      {-1.5 * u, 0, 0, 1}};
        for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
            const double a = limit_for(m, L, cv, want[k][0], want[k][1], want[k][2]);
            const double expect = f == 0 ? want[k][3] : 1.0; /* no friction: nothing to cross */
            cr_assert_float_eq(a, expect, 1e-9, "%s, case %zu: alpha %.12g, want %.12g", f ? "frictionless" : "friction",
                               k, a, expect);
        }
        contact_lin_free(L);
        free(x);
        free(r);
        rod_state_free(st);
        rod_model_free(m);
    }
}
