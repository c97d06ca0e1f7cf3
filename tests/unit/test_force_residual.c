/* dyn_residual (generalized-alpha's Newton residual in force form, M x formed from the
 * stations' Jacobians without M) against dyn_accel, which forms M, factors it and solves:
 * at x = dyn_accel's q_ddot the residual Q - K q - D q_dot - M x vanishes to rounding, for
 * any other x it is -M (x - q_ddot), and the M that dyn_mass forms for the Newton matrix is
 * the one whose Cholesky factor dyn_accel leaves. On the shipped examples that take this path:
 * a free rod on the ground with anisotropic friction (3D, contact, free base), the inflating
 * arm reaching in water (planar, added mass, the rho block), the fetching arm (3D, water) and
 * the plectoneme (an end held and turned by a penalty constraint, self-contact). */
#include "dynamics.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double max_abs(const double *v, int n)
{
    double a = 0;
    for (int i = 0; i < n; i++) a = fmax(a, fabs(v[i]));
    return a;
}

static void check_example(const char *path)
{
    char *json = tu_read_file(path);
    cr_assert_not_null(json, "%s", path);
    rod_model *m = tu_model(json);
    free(json);
    cr_assert(dyn_residual_ok(m), "%s: no multipliers and no bodies", path);
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    const int n = m->n, nx = m->n_xi;
    double *q = calloc((size_t)n, sizeof *q), *qd = calloc((size_t)n, sizeof *qd);
    double *f = calloc((size_t)n, sizeof *f), *x = calloc((size_t)n, sizeof *x);
    double *r0 = calloc((size_t)n, sizeof *r0), *r1 = calloc((size_t)n, sizeof *r1);
    double *Mdx = calloc((size_t)n, sizeof *Mdx), *L = calloc((size_t)nx * nx, sizeof *L);
    cr_assert(q && qd && f && x && r0 && r1 && Mdx && L);
    /* a bent, moving state away from rest (and from any symmetry that would zero a term) */
    memcpy(q, st->q, (size_t)n * sizeof *q);
    for (int j = 0; j < n; j++) {
        q[j] += 0.05 * sin(1.0 + 1.7 * j);
        qd[j] = 0.3 * cos(0.5 + 2.3 * j);
    }
    cr_assert_eq(dyn_accel(m, st, 0.1, q, qd, f), 0, "%s: %s", path, rod_state_error(st));
    memcpy(L, st->Mxi, (size_t)nx * nx * sizeof *L);
    cr_assert_eq(dyn_residual(m, st, 0.1, q, qd, f, r0), 0, "%s: %s", path, rod_state_error(st));
    /* the scale rounding is measured against: the forces that balance, |M f| */
    double *Mf = calloc((size_t)n, sizeof *Mf);
    cr_assert(Mf);
    for (int i = 0; i < n; i++) x[i] = 0.0;
    cr_assert_eq(dyn_residual(m, st, 0.1, q, qd, x, Mf), 0);
    const double scale = max_abs(Mf, n);
    cr_assert_gt(scale, 0.0);
    cr_assert_lt(max_abs(r0, n), 1e-9 * scale, "%s: residual at dyn_accel's q_ddot %.3g of %.3g", path,
                 max_abs(r0, n), scale);
    /* M from dyn_mass (lower triangle) against L L^T from dyn_accel's factor */
    dyn_mass(m, st, q, qd);
    double dm = 0, mm = 0;
    for (int j = 0; j < nx; j++)
        for (int i = j; i < nx; i++) {
            double s = 0;
            for (int k = 0; k <= j; k++) s += L[i + (size_t)nx * k] * L[j + (size_t)nx * k];
            dm = fmax(dm, fabs(st->Mxi[i + (size_t)nx * j] - s));
            mm = fmax(mm, fabs(s));
        }
    cr_assert_lt(dm, 1e-11 * mm, "%s: dyn_mass's M against dyn_accel's factor: %.3g of %.3g", path, dm, mm);
    /* linear in x with slope -M: r(x) - r(f) = -M (x - f), M the matrix just checked (M_rho
     * from its constant factor) */
    for (int i = 0; i < n; i++) x[i] = f[i] + 2.0 * sin(0.3 + 0.9 * i) * (1.0 + fabs(f[i]));
    cr_assert_eq(dyn_residual(m, st, 0.1, q, qd, x, r1), 0);
    dyn_mass(m, st, q, qd);
    for (int i = 0; i < nx; i++) {
        double s = 0;
        for (int j = 0; j < nx; j++) {
            const double Mij = i >= j ? st->Mxi[i + (size_t)nx * j] : st->Mxi[j + (size_t)nx * i];
            s += Mij * (x[j] - f[j]);
        }
        Mdx[i] = s;
    }
    const int nr = m->n_rho;
    for (int i = 0; i < nr; i++) {
        double s = 0;
        for (int j = 0; j < nr; j++) {
            double mij = 0;
            for (int k = 0; k <= (i < j ? i : j); k++)
                mij += m->Mrho_chol[i + (size_t)nr * k] * m->Mrho_chol[j + (size_t)nr * k];
            s += mij * (x[nx + j] - f[nx + j]);
        }
        Mdx[nx + i] = s;
    }
    double de = 0;
    for (int i = 0; i < n; i++) de = fmax(de, fabs(r1[i] - r0[i] + Mdx[i]));
    const double sc = fmax(scale, max_abs(Mdx, n));
    cr_assert_lt(de, 1e-9 * sc, "%s: r(x) - r(f) + M (x - f) = %.3g of %.3g", path, de, sc);
    cr_log_info("%s: n %d, |r(f)| %.2e, |M - L L^T| %.2e, linearity %.2e (scale %.2e)", path, n, max_abs(r0, n),
                dm, de, sc);
    free(q), free(qd), free(f), free(x), free(r0), free(r1), free(Mdx), free(L), free(Mf);
    rod_state_free(st);
    rod_model_free(m);
}

Test(force_residual, a_free_rod_on_the_ground_with_friction)
{
    check_example("api/examples/snake-lateral-undulation.json");
}

Test(force_residual, the_inflating_arm_in_water_planar)
{
    check_example("api/examples/octopus-reaching.json");
}

Test(force_residual, the_fetching_arm_in_water)
{
    check_example("api/examples/octopus-fetching.json");
}

Test(force_residual, a_rod_held_by_a_penalty_constraint)
{
    check_example("api/examples/plectoneme.json");
}

/* dyn_residual_wrench (projection.h: the stations' wrenches projected back along the rod in
 * one pass, J not formed) against dyn_residual (J formed, J^T W at every station): the same
 * residual to rounding at a bent, moving state and any x; and the Jacobians a Newton matrix
 * reads afterwards are formed again (dyn_mass: the same M as after dyn_residual). */
static void check_wrench_form_of(const char *path, const char *json, int applies)
{
    rod_model *m = tu_model(json);
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    const int n = m->n, nx = m->n_xi;
    double *q = calloc((size_t)n, sizeof *q), *qd = calloc((size_t)n, sizeof *qd), *x = calloc((size_t)n, sizeof *x);
    double *r0 = calloc((size_t)n, sizeof *r0), *r1 = calloc((size_t)n, sizeof *r1), *M0 = calloc((size_t)nx * nx, sizeof *M0);
    cr_assert(q && qd && x && r0 && r1 && M0);
    memcpy(q, st->q, (size_t)n * sizeof *q);
    for (int j = 0; j < n; j++) {
        q[j] += 0.05 * sin(1.0 + 1.7 * j);
        qd[j] = 0.3 * cos(0.5 + 2.3 * j);
        x[j] = 2.0 * sin(0.3 + 0.9 * j);
    }
    cr_assert_eq(dyn_residual(m, st, 0.1, q, qd, x, r0), 0, "%s: %s", path, rod_state_error(st));
    dyn_mass(m, st, q, qd);
    memcpy(M0, st->Mxi, (size_t)nx * nx * sizeof *M0);
    cr_assert_eq(dyn_residual_wrench(m, st, 0.1, q, qd, x, r1), 0, "%s: %s", path, rod_state_error(st));
    cr_assert_eq(st->J_stale, applies, "%s: the wrench form %s", path, applies ? "applies" : "does not apply");
    double d = 0, sc = 0;
    for (int i = 0; i < n; i++) {
        d = fmax(d, fabs(r1[i] - r0[i]));
        sc = fmax(sc, fabs(r0[i]));
    }
    cr_assert_lt(d, 1e-12 * sc, "%s: wrench form against J: %.3g of %.3g", path, d, sc);
    dyn_mass(m, st, q, qd);
    double dm = 0, mm = 0;
    for (int j = 0; j < nx; j++)
        for (int i = j; i < nx; i++) {
            dm = fmax(dm, fabs(st->Mxi[i + (size_t)nx * j] - M0[i + (size_t)nx * j]));
            mm = fmax(mm, fabs(M0[i + (size_t)nx * j]));
        }
    cr_assert_lt(dm, 1e-12 * mm, "%s: M after the wrench form %.3g of %.3g", path, dm, mm);
    cr_log_info("%s: wrench form %s, |r - r_J| %.2e of %.2e, M %.2e", path, applies ? "used" : "not used", d, sc, dm);
    free(q), free(qd), free(x), free(r0), free(r1), free(M0);
    rod_state_free(st);
    rod_model_free(m);
}

static void check_wrench_form(const char *path, int applies)
{
    char *json = tu_read_file(path);
    cr_assert_not_null(json, "%s", path);
    check_wrench_form_of(path, json, applies);
    free(json);
}

Test(force_residual, the_wrench_form_is_the_residual_on_a_free_rod_on_the_ground)
{
    check_wrench_form("api/examples/snake-lateral-undulation.json", 1);
}

Test(force_residual, the_wrench_form_is_the_residual_on_an_inflating_arm_gripping_a_pole)
{
    check_wrench_form("api/examples/octopus-grasp.json", 1);
}

Test(force_residual, the_wrench_form_is_the_residual_under_point_and_distributed_loads)
{
    /* forces_load's wrenches: a point force mid-rod, a tip moment and a distributed force in the
     * body frame, on a rod that bends, twists and stretches under gravity */
    check_wrench_form_of("loads",
                         "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000,"
                         " \"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45, \"shear_viscosity\": 100},"
                         " \"strains\": {\"bend1\": 4, \"bend2\": 4, \"twist\": 2, \"stretch\": 2},"
                         " \"environment\": {\"gravity\": [0, -9.81, 0]},"
                         " \"loads\": [{\"name\": \"p\", \"type\": \"point_force\", \"s\": 0.3, \"force\": [0.01, 0.02, -0.005]},"
                         " {\"name\": \"m\", \"type\": \"tip_moment\", \"moment\": [0.001, -0.002, 0.003]},"
                         " {\"name\": \"d\", \"type\": \"distributed_force\", \"force\": [0.01, 0, 0.02], \"frame\": \"local\"}]}",
                         1);
}

Test(force_residual, the_wrench_form_is_the_residual_on_a_fetching_arm_in_water)
{
    check_wrench_form("api/examples/octopus-fetching.json", 1);
}

Test(force_residual, the_wrench_form_is_the_residual_with_zannas_fourth_order_steps)
{
    /* the 4th-order rule's transposed derivatives (projection.c's slots_t, order 4) */
    check_wrench_form("api/examples/octopus-fetching-authors.json", 1);
    check_wrench_form_of("loads, Zanna",
                         "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000,"
                         " \"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45, \"shear_viscosity\": 100},"
                         " \"strains\": {\"bend1\": 4, \"bend2\": 4, \"twist\": 2, \"stretch\": 2},"
                         " \"discretization\": {\"magnus_order\": 4},"
                         " \"environment\": {\"gravity\": [0, -9.81, 0]},"
                         " \"loads\": [{\"name\": \"p\", \"type\": \"point_force\", \"s\": 0.3, \"force\": [0.01, 0.02, -0.005]}]}",
                         1);
}

Test(force_residual, the_wrench_form_stands_aside_for_constraints_bodies_and_planar_rods)
{
    check_wrench_form("api/examples/plectoneme.json", 0);
    check_wrench_form("api/examples/octopus-reaching.json", 0);
    check_wrench_form("api/examples/precurved-tentacle.json", 0);
    check_wrench_form("api/examples/helical-buckling.json", 0); /* a constraint's rows read J */
    check_wrench_form("api/examples/free-floating.json", 0);    /* an attached body's too */
}
