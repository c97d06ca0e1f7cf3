/* Statics of the extended rod (inflation) against the analytic solution of a uniform bar:
 * passive axial stiffness EA/L, the squeezed rod's elongation 2 nu0 p / E at constant volume,
 * Sec. 5.1's rigid line r = -F/nu0, and Fig. 5's lines from the shipped example. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define EX_PATH "api/examples/stiffness-tuning.json"

/* Solves the example with overrides; returns the shortening L - z_tip and the frame's rho at
 * the base and the volume change. */
static double shortening(const char *const *sets, int nsets, double *rho0, double *dV)
{
    char *json = tu_read_file(EX_PATH);
    rod_model *m = tu_model_set(json, sets, nsets);
    free(json);
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 5);
    double d = rod_model_length(m) - f.position[3 * 4 + 2];
    cr_assert_float_eq(f.position[3 * 4 + 0], 0.0, 1e-12, "stays straight");
    if (rho0) *rho0 = f.rho[0];
    if (dV) *dV = f.volume_change;
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
    return d;
}

/* the bar's exact response: nu3 - 1 = (-F/A + 2 nu0 P)/E, so the shortening is
 * L (F/A - 2 nu0 P)/E */
static double bar(double F, double P, double r, double nu0)
{
    const double A = M_PI * r * r, E = 1e5, L = 0.5;
    return L * (F / A - 2 * nu0 * P) / E;
}

static void set_fp(char sets[6][64], double F, double P)
{
    for (int i = 0; i < 4; i++) snprintf(sets[i], 64, "actuators.%d.tension=%.17g", i, F / 4);
    snprintf(sets[4], 64, "actuators.4.pressure=%.17g", P);
}

Test(statics_extended, passive_axial_stiffness_is_EA_over_L)
{
    char s[6][64];
    const char *sets[6];
    for (int i = 0; i < 6; i++) sets[i] = s[i];
    const double A = M_PI * 0.0075 * 0.0075, K = 1e5 * A / 0.5;
    for (double F = 1; F <= 5; F += 2) {
        set_fp(s, F, 0);
        double d = shortening(sets, 5, NULL, NULL);
        cr_assert_float_eq(F / d, K, 1e-6 * K, "F=%g: K = %.9g, EA/L = %.9g", F, F / d, K);
        /* the same force from outside, as a dead tip load */
        set_fp(s, 0, 0);
        snprintf(s[5], 64, "loads.0.scale=%.17g", F);
        d = shortening(sets, 6, NULL, NULL);
        cr_assert_float_eq(F / d, K, 1e-6 * K, "tip force F=%g", F);
    }
}

Test(statics_extended, squeezed_rod_elongates_by_2_nu0_p_over_E_at_constant_volume)
{
    char s[6][64];
    const char *sets[6];
    for (int i = 0; i < 6; i++) sets[i] = s[i];
    const double E = 1e5, nu0 = 0.4999, L = 0.5;
    for (double p = 500; p <= 4000; p *= 2) {
        set_fp(s, 0, p);
        double rho0, dV;
        double d = shortening(sets, 5, &rho0, &dV);
        cr_assert_float_eq(-d, 2 * nu0 * p / E * L, 1e-6 * 2 * nu0 * p / E * L, "p=%g", p);
        cr_assert_float_eq(rho0 - 1, -(1 - nu0) * p / E, 1e-6 * p / E, "p=%g: rho - 1", p);
        /* first order: 2 (rho - 1) + (nu3 - 1) = -2 (1 - 2 nu0) p / E; the rest is O((p/E)^2) */
        const double e = p / E;
        cr_assert_lt(fabs(dV), 2 * (1 - 2 * nu0) * e + 3 * e * e, "p=%g: volume change %g", p, dV);
        cr_assert_float_eq(dV, (1 - (1 - nu0) * e) * (1 - (1 - nu0) * e) * (1 + 2 * nu0 * e) - 1, 1e-9,
                           "p=%g", p);
    }
}

Test(statics_extended, rigid_line_holds_the_tip_still)
{
    /* r = -F / nu0, i.e. P = F / (2 nu0 A): zero shortening (Sec. 5.1, the code's form) */
    char s[6][64];
    const char *sets[8];
    for (int i = 0; i < 6; i++) sets[i] = s[i];
    const char *radius = "rod.radius=0.015", *poisson = "rod.poisson_ratio=0.499";
    for (double F = 1; F <= 5; F += 1) {
        const double A = M_PI * 0.015 * 0.015, P = F / (2 * 0.499 * A);
        set_fp(s, F, P);
        sets[5] = radius;
        sets[6] = poisson;
        double d = shortening(sets, 7, NULL, NULL);
        cr_assert_lt(fabs(d), 1e-9 * 0.5, "F=%g P=%g: shortening %g", F, P, d);
    }
}

/* The Fig. 5 sweep: F over 0..5 N (four cables), P over 0..8 kPa. Every point lies on the
 * bar's exact response; along P = 0 the stiffness is K_e = EA/L, and the pressure that makes
 * the rod rigid, found by interpolating the sweep, is F / (2 nu0 A). */
static void fig5(double r, double nu0, const char *const *extra, int nextra)
{
    char s[6][64];
    const char *sets[8];
    for (int i = 0; i < 6; i++) sets[i] = s[i];
    for (int i = 0; i < nextra; i++) sets[5 + i] = extra[i];
    const double A = M_PI * r * r, Ke = 1e5 * A / 0.5;
    double grid[6][6];
    for (int iF = 0; iF <= 5; iF++)
        for (int iP = 0; iP <= 5; iP++) {
            const double F = iF * 1.0, P = iP * 1600.0;
            set_fp(s, F, P);
            grid[iF][iP] = shortening(sets, 5 + nextra, NULL, NULL);
            cr_assert_float_eq(grid[iF][iP], bar(F, P, r, nu0), 1e-6 * (fabs(bar(F, P, r, nu0)) + 1e-6),
                               "F=%g P=%g", F, P);
        }
    for (int iF = 1; iF <= 5; iF++) {
        cr_assert_float_eq(iF / grid[iF][0], Ke, 1e-6 * Ke, "K_e line at F=%d", iF);
        /* the rigid point: where the shortening crosses zero along P */
        const double want = iF / (2 * nu0 * A);
        if (want > 8000) continue;
        int iP = 0;
        while (iP < 5 && grid[iF][iP + 1] > 0) iP++;
        cr_assert_lt(iP, 5);
        const double P0 = iP * 1600.0, d0 = grid[iF][iP], d1 = grid[iF][iP + 1];
        const double Prig = P0 + 1600.0 * d0 / (d0 - d1);
        cr_assert_float_eq(Prig, want, 1e-6 * want, "K_d line at F=%d: %g vs %g", iF, Prig, want);
    }
}

Test(statics_extended, fig5_lines_with_the_papers_parameters)
{
    fig5(0.0075, 0.4999, NULL, 0);
}

Test(statics_extended, fig5_lines_with_the_authors_code_parameters)
{
    const char *extra[] = {"rod.radius=0.015", "rod.poisson_ratio=0.499"};
    fig5(0.015, 0.499, extra, 2);
}

/* A squeeze on the base half only: rho varies along the rod and the end conditions show. */
static void squeeze_half(const char *bc, double out[4])
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": \"extended\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
             "\"youngs_modulus\": 1e4, \"poisson_ratio\": 0.49}, \"strains\": {\"stretch\": 4}, "
             "\"inflation\": {\"pieces\": 4, \"boundary\": \"%s\"}, \"actuators\": [{\"name\": \"tm\", "
             "\"type\": \"transverse\", \"pressure\": 500, \"span\": [0, 0.25]}], "
             "\"solver\": {\"tolerance\": 1e-13}}", bc);
    rod_model *m = tu_model(json);
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 1001);
    const double ds = 0.5 / 1000;
    out[0] = f.rho[0];
    out[1] = f.rho[1000];
    out[2] = (f.rho[1] - f.rho[0]) / ds;       /* one-sided slopes */
    out[3] = (f.rho[1000] - f.rho[999]) / ds;
    /* and it is really squeezed where the muscle acts */
    cr_assert_lt(f.rho[250], 1.0 - 1e-4);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(statics_extended, hermite_boundary_conditions_held_in_solutions)
{
    double d[4], n[4], x[4];
    squeeze_half("dirichlet", d);
    squeeze_half("neumann", n);
    squeeze_half("mixed", x);
    cr_assert_float_eq(d[0], 1.0, 1e-15);
    cr_assert_float_eq(d[1], 1.0, 1e-15);
    cr_assert_float_eq(x[0], 1.0, 1e-15);
    /* zero slope: a one-sided difference of size ds is O(ds), a free slope would be O(1) */
    const double typical = fabs(d[2]);
    cr_assert_gt(typical, 1e-3);
    cr_assert_lt(fabs(n[2]), 1e-2 * typical);
    cr_assert_lt(fabs(n[3]), 1e-2 * typical);
    cr_assert_lt(fabs(x[3]), 1e-2 * typical);
    cr_assert_lt(n[0], 1.0 - 1e-4, "neumann: the base value is free");
    cr_assert_neq(n[1], 1.0);
}
