/* rod_statics_tangent and rod_statics_residual (the implicit gradients of rodd optimize) against
 * Euler-Bernoulli: at zero load the derivative of a classic cantilever's tip deflection by its
 * tip force is the linear theory's compliance L^3 / (3 E I), exactly (the linearization of the
 * elastica at the straight rod), and the curvature F (L - s) / (E I) is linear in s, which a
 * bending basis of degree 1 holds. Also: the residual vanishes at a solution, and a model of
 * several rods is refused. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define L 0.3
#define R 0.01
#define E 1e5

static const char *spec =
    "{\"model\": \"classic\", \"rod\": {\"length\": 0.3, \"radius\": 0.01, \"density\": 1000,"
    " \"youngs_modulus\": 1e5, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 2},"
    " \"loads\": [{\"name\": \"push\", \"type\": \"tip_force\", \"force\": [1, 0, 0], \"frame\": \"global\"}]}";

/* the spec with the tip force's x component set to F */
static rod_model *at_force(double F)
{
    char ov[64];
    snprintf(ov, sizeof ov, "loads.0.force.0=%.17g", F);
    const char *ovs[1] = {ov};
    rod_issues iss;
    rod_issues_init(&iss);
    rod_model *m = rod_model_compile(spec, strlen(spec), ovs, 1, &iss);
    cr_assert_not_null(m, "%s", iss.count ? iss.items[0].message : "?");
    rod_issues_free(&iss);
    return m;
}

static double tip_x(const rod_model *m, rod_state *st, const double *q)
{
    rod_frame f;
    cr_assert_eq(rod_state_set_q(st, q, rod_model_ndof(m)), ROD_OK);
    cr_assert_eq(rod_frame_compute(m, st, 11, &f), ROD_OK);
    double x = f.position[3 * (f.n - 1)];
    rod_frame_free(&f);
    return x;
}

Test(statics_tangent, the_cantilevers_compliance_at_zero_load)
{
    const double h = 1e-3, I = M_PI * R * R * R * R / 4, want = L * L * L / (3 * E * I);
    rod_model *m0 = at_force(0), *mp = at_force(h), *mm = at_force(-h);
    char err[256];
    rod_state *s0 = rod_state_create(m0, err, sizeof err), *sp = rod_state_create(mp, err, sizeof err),
              *sm = rod_state_create(mm, err, sizeof err);
    rod_statics_result res;
    cr_assert_eq(rod_statics_solve(m0, s0, 0.0, &res), ROD_OK, "%s", rod_state_error(s0));
    const int N = rod_statics_nunknowns(m0), n = rod_model_ndof(m0);
    cr_assert_eq(N, n, "no multipliers");
    double *u = calloc((size_t)N, sizeof *u), *Rp = calloc((size_t)N, sizeof *Rp), *Rm = calloc((size_t)N, sizeof *Rm);
    double *B = calloc((size_t)N, sizeof *B), *q = calloc((size_t)n, sizeof *q);
    cr_assert_eq(rod_statics_unknowns(m0, s0, u), N);
    cr_assert_eq(rod_statics_residual(mp, sp, 0.0, u, Rp), ROD_OK, "%s", rod_state_error(sp));
    cr_assert_eq(rod_statics_residual(mm, sm, 0.0, u, Rm), ROD_OK, "%s", rod_state_error(sm));
    for (int i = 0; i < N; i++) B[i] = (Rp[i] - Rm[i]) / (2 * h);
    cr_assert_eq(rod_statics_tangent(m0, s0, 0.0, u, 1, B), ROD_OK, "%s", rod_state_error(s0));
    /* d tip_x / dF along du/dF (the tip's position at fixed q does not depend on F) */
    const double eps = 1e-7; /* N: the curvature at 1 N is 382 /m at the base, so this keeps the tip linear */
    for (int i = 0; i < n; i++) q[i] = u[i] + eps * B[i];
    double xp = tip_x(m0, s0, q);
    for (int i = 0; i < n; i++) q[i] = u[i] - eps * B[i];
    double xm = tip_x(m0, s0, q);
    /* the differences' errors: dR/dF is exact (R is linear in F), the tip's central difference
     * along eps du/dF has truncation ~(eps kappa L)^2 ~ 1e-10 and rounding ~1e-16 L / (eps
     * compliance) ~ 3e-11, the tangent's own central differences ~1e-11: 1e-8 holds them all */
    const double got = (xp - xm) / (2 * eps);
    cr_expect(fabs(got - want) <= 1e-8 * want, "d tip_x / dF = %.12g, L^3/(3EI) = %.12g (%.1e apart)", got, want,
              fabs(got / want - 1));
    free(u), free(Rp), free(Rm), free(B), free(q);
    rod_state_free(s0), rod_state_free(sp), rod_state_free(sm);
    rod_model_free(m0), rod_model_free(mp), rod_model_free(mm);
}

Test(statics_tangent, the_residual_vanishes_at_a_solution)
{
    rod_model *m = at_force(0.02);
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    rod_statics_result res;
    cr_assert_eq(rod_statics_solve(m, st, 0.0, &res), ROD_OK, "%s", rod_state_error(st));
    const int N = rod_statics_nunknowns(m);
    double *u = calloc((size_t)N, sizeof *u), *r = calloc((size_t)N, sizeof *r), *r0 = calloc((size_t)N, sizeof *r0);
    rod_statics_unknowns(m, st, u);
    cr_assert_eq(rod_statics_residual(m, st, 0.0, u, r), ROD_OK);
    double *zero = calloc((size_t)N, sizeof *zero);
    cr_assert_eq(rod_statics_residual(m, st, 0.0, zero, r0), ROD_OK); /* the load itself, at the straight rod */
    double big = 0, load = 0;
    for (int i = 0; i < N; i++) big = fmax(big, fabs(r[i])), load = fmax(load, fabs(r0[i]));
    /* the solve's tolerance 1e-10 is max |R_i| / K_ii in units of q; q here is O(1) */
    cr_expect(big <= 1e-8 * load, "|R| = %.3g at the solution against %.3g at the straight rod", big, load);
    free(u), free(r), free(r0), free(zero);
    rod_state_free(st);
    rod_model_free(m);
}

Test(statics_tangent, several_rods_are_refused)
{
    rod_issues iss;
    rod_issues_init(&iss);
    rod_model *m = rod_model_load("api/examples/two-rods-joined.json", NULL, 0, &iss);
    cr_assert_not_null(m);
    rod_issues_free(&iss);
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    double u[4] = {0}, r[4];
    cr_expect_eq(rod_statics_nunknowns(m), 0);
    cr_expect_eq(rod_statics_residual(m, st, 0.0, u, r), ROD_EINVAL);
    cr_expect(strstr(rod_state_error(st), "several rods") != NULL, "%s", rod_state_error(st));
    cr_expect_eq(rod_statics_tangent(m, st, 0.0, u, 1, r), ROD_EINVAL);
    rod_state_free(st);
    rod_model_free(m);
}
