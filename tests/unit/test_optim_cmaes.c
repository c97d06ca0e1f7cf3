/* server/cli/optim_cmaes.c against the evaluation counts of CMA-ES with default parameters
 * (Hansen, "The CMA Evolution Strategy: A Tutorial", arXiv:1604.00772, and its purecma.py):
 * f <= 1e-10 from x0 = 1 (0.1 for Rosenbrock), sigma0 = 0.5, the median of 7 seeds (a single
 * run's spread is about +-15 %). The sphere in 10-D takes about 1500-2000 evaluations there;
 * the band is that with 10 % either side. The ellipsoid (condition 1e6) and Rosenbrock in 10-D
 * take about 6000; that figure is recalled, not re-read from the sources when this was
 * written, so their bands (+-30 %) are the weaker check. The 2-D and 20-D sphere bands follow
 * the near-linear growth in n at the default lambda. */
#include <criterion/criterion.h>

#include "optim_cmaes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int fn, n;
} fctx;

static int batch(void *ctx, int k, const double *X, double *F)
{
    const fctx *c = ctx;
    int n = c->n;
    for (int j = 0; j < k; j++) {
        const double *x = X + (size_t)j * n;
        double f = 0;
        for (int i = 0; i < n; i++) {
            if (c->fn == 0) f += x[i] * x[i];
            else if (c->fn == 1) f += pow(1e6, (double)i / (n - 1)) * x[i] * x[i];
            else if (c->fn == 2 && i < n - 1) f += 100 * pow(x[i] * x[i] - x[i + 1], 2) + pow(x[i] - 1, 2);
            else if (c->fn == 3) f += 10 + x[i] * x[i] - 10 * cos(2 * M_PI * x[i]);
        }
        F[j] = f;
    }
    return 0;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* the median evaluations to f <= 1e-10 over 7 seeds; every run must reach it */
static long median_evals(int fn, int n, double x0v, double sigma0, int restarts)
{
    fctx c = {fn, n};
    double x0[32];
    for (int i = 0; i < n; i++) x0[i] = x0v;
    long ev[7];
    for (int s = 0; s < 7; s++) {
        cmaes_problem p = {.n = n, .x0 = x0, .sigma0 = sigma0, .seed = (uint64_t)s + 1, .restarts = restarts,
                           .max_evals = 400000, .ftarget = 1e-10, .eval = batch, .ctx = &c};
        optim_result r;
        cr_assert_eq(cmaes_minimize(&p, &r), 0);
        cr_expect_leq(r.f, 1e-10, "f%d in %d-D, seed %d: stopped at %g (%s)", fn, n, s + 1, r.f, r.reason);
        cr_expect_str_eq(r.reason, "ftarget");
        ev[s] = r.evaluations;
        free(r.x);
    }
    qsort(ev, 7, sizeof *ev, cmp_long);
    return ev[3];
}

Test(optim_cmaes, sphere_in_2_10_20_dimensions)
{
    long e2 = median_evals(0, 2, 1, 0.5, 0), e10 = median_evals(0, 10, 1, 0.5, 0), e20 = median_evals(0, 20, 1, 0.5, 0);
    cr_expect(e10 >= 1500 * 0.9 && e10 <= 2000 * 1.1, "sphere 10-D: %ld evaluations, published 1500-2000", e10);
    /* the sphere's count grows about linearly in n for fixed default lambda */
    cr_expect(e2 >= 200 && e2 <= 450, "sphere 2-D: %ld", e2);
    cr_expect(e20 >= 2400 && e20 <= 4000, "sphere 20-D: %ld", e20);
}

Test(optim_cmaes, ellipsoid_and_rosenbrock_in_10_dimensions)
{
    long el = median_evals(1, 10, 1, 0.5, 0), ro = median_evals(2, 10, 0.1, 0.5, 0);
    cr_expect(el >= 4200 && el <= 7800, "ellipsoid 10-D (cond 1e6): %ld evaluations, published ~6000", el);
    cr_expect(ro >= 4200 && ro <= 7800, "Rosenbrock 10-D: %ld evaluations, published ~6000", ro);
}

Test(optim_cmaes, rastrigin_needs_restarts_with_larger_populations)
{
    /* x0 = 3, sigma0 = 2 (Hansen & Kern 2004 start in [1, 5]^n): the default population finds
     * the global optimum rarely; doubling it on each restart (IPOP) finds it every time */
    long e2 = median_evals(3, 2, 3, 2, 9), e10 = median_evals(3, 10, 3, 2, 9);
    cr_expect(e2 < 20000, "Rastrigin 2-D with IPOP restarts: %ld evaluations", e2);
    cr_expect(e10 < 200000, "Rastrigin 10-D with IPOP restarts: %ld evaluations", e10);
}

Test(optim_cmaes, the_budget_stops_and_bounds_map_by_reflection)
{
    fctx c = {0, 4};
    double x0[4] = {1, 1, 1, 1};
    cmaes_problem p = {.n = 4, .x0 = x0, .sigma0 = 0.5, .seed = 1, .max_evals = 80, .ftarget = -HUGE_VAL,
                       .eval = batch, .ctx = &c};
    optim_result r;
    cr_assert_eq(cmaes_minimize(&p, &r), 0);
    cr_expect_leq(r.evaluations, 80);
    cr_expect_str_eq(r.reason, "max_evaluations");
    cr_expect_eq(r.converged, 0);
    free(r.x);
    cr_expect_float_eq(optim_map_unit(0.3), 0.3, 1e-15);
    cr_expect_float_eq(optim_map_unit(1.2), 0.8, 1e-12);
    cr_expect_float_eq(optim_map_unit(-0.25), 0.25, 1e-12);
    cr_expect_float_eq(optim_map_unit(2.5), 0.5, 1e-12);
}

#include "optim_nlopt.h"

/* NLopt's methods on Rosenbrock in 2-D from (-1.2, 1) inside [-5, 5]^2, the classic start */
static void nlopt_rosenbrock(const char *method, long budget, double tol)
{
    fctx c = {2, 2};
    double x0[2] = {-1.2, 1}, lb[2] = {-5, -5}, ub[2] = {5, 5};
    nlopt_problem p = {.method = method, .n = 2, .x0 = x0, .lb = lb, .ub = ub, .max_evals = budget,
                       .ftarget = -HUGE_VAL, .xtol_rel = 1e-10, .eval = batch, .ctx = &c};
    optim_result r;
    char err[256];
    cr_assert_eq(optim_nlopt_minimize(&p, &r, err, sizeof err), 0, "%s", err);
    cr_expect_lt(r.f, tol, "%s: f = %g after %ld evaluations (%s)", method, r.f, r.evaluations, r.reason);
    cr_expect(fabs(r.x[0] - 1) < 1e-3 && fabs(r.x[1] - 1) < 1e-3, "%s: x = (%g, %g)", method, r.x[0], r.x[1]);
    cr_expect_leq(r.evaluations, budget);
    free(r.x);
}

Test(optim_nlopt, rosenbrock_by_each_method)
{
    nlopt_rosenbrock("nelder-mead", 2000, 1e-10);
    nlopt_rosenbrock("sbplx", 4000, 1e-10);
    nlopt_rosenbrock("bobyqa", 2000, 1e-10);
    /* COBYLA's linear models crawl along the valley: 3e-6 after 8000 here, left out */
    /* finite-difference gradients: 5 evaluations a gradient, f to about the step's square */
    nlopt_rosenbrock("lbfgs", 5000, 1e-8);
}

Test(optim_nlopt, an_unknown_method_is_named)
{
    double x0[1] = {0}, lb[1] = {-1}, ub[1] = {1};
    nlopt_problem p = {.method = "newton", .n = 1, .x0 = x0, .lb = lb, .ub = ub, .eval = batch};
    optim_result r;
    char err[256];
    cr_expect_eq(optim_nlopt_minimize(&p, &r, err, sizeof err), -1);
    cr_expect(strstr(err, "unknown method \"newton\"") != NULL, "%s", err);
}

static int all_fail(void *ctx, int k, const double *X, double *F)
{
    (void)ctx, (void)X;
    for (int j = 0; j < k; j++) F[j] = HUGE_VAL;
    return 0;
}

Test(optim_cmaes, every_evaluation_failing_leaves_x0_as_best)
{
    double x0[2] = {0.25, 0.75};
    cmaes_problem p = {.n = 2, .x0 = x0, .sigma0 = 0.3, .seed = 1, .max_evals = 24, .ftarget = -HUGE_VAL, .eval = all_fail};
    optim_result r;
    cr_assert_eq(cmaes_minimize(&p, &r), 0);
    cr_expect_eq(r.f, HUGE_VAL);
    cr_expect_eq(r.x[0], 0.25);
    cr_expect_eq(r.x[1], 0.75);
    cr_expect_eq(r.converged, 0);
    free(r.x);
}
