/* A cable's tension against what the rod can carry (core/spec/spec_cable.c). A cable at the
 * offset d pulls each section with T along its own fibre, so at equilibrium (linear elastic
 * law) that fibre stretches by 1 - T/(E A) - T d^2/(E I) over the free strains: checked here
 * against the solved frame's strains, then the limit where it reaches zero: just below it the
 * statics converge, past it the spec is warned about (nothing else lengthens this rod: no
 * equilibrium, and the solver finds none), and past 1/epsilon times it the spec is refused at
 * the tension's JSON path (a tension of 1e308 N passed rodd check and failed at the first step). */
#include "testutil.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const double E = 1e5, R = 0.01;

/* a straight classic rod, weightless, one cable at offset (Y1, 0) with tension T */
static void spec(char *out, size_t n, const char *strains, double y1, double T)
{
    snprintf(out, n,
             "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": %g, \"density\": 1000, "
             "\"youngs_modulus\": %g, \"poisson_ratio\": 0.45}, \"strains\": %s, \"environment\": {\"gravity\": [0, 0, 0]}, "
             "\"actuators\": [{\"name\": \"c\", \"type\": \"cable\", \"route\": {\"offset\": [%.17g, 0]}, \"tension\": %.17g}]}",
             R, E, strains, y1, T);
}

static int warnings_about_tension(const rod_model *m)
{
    rod_issues w;
    rod_issues_init(&w);
    rod_model_warnings(m, &w);
    int n = 0;
    for (int i = 0; i < w.count; i++) n += strcmp(w.items[i].path, "/actuators/0/tension") == 0;
    rod_issues_free(&w);
    return n;
}

/* The fibre under the cable: its stretch |nu + kappa x (Y1, 0, 0)| at mid-rod. */
static double fibre_stretch(const rod_model *m, const rod_state *st, double y1)
{
    rod_frame f = tu_frame(m, st, 3);
    const double *k = f.kappa + 3, *nu = f.nu + 3; /* the middle point */
    const double y[3] = {y1, 0, 0};
    const double t[3] = {nu[0] + k[1] * y[2] - k[2] * y[1], nu[1] + k[2] * y[0] - k[0] * y[2],
                         nu[2] + k[0] * y[1] - k[1] * y[0]};
    rod_frame_free(&f);
    return sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
}

static void case_at(const char *strains, double y1, double limit)
{
    char json[1024];
    /* below the limit: the fibre's stretch is the formula's (to the solver's tolerance) */
    const double T = 0.6 * limit;
    spec(json, sizeof json, strains, y1, T);
    rod_model *m = tu_model(json);
    cr_expect_eq(warnings_about_tension(m), 0);
    rod_state *st = tu_solve(m);
    const double want = 1 - T / limit;
    cr_expect(fabs(fibre_stretch(m, st, y1) - want) < 1e-6, "fibre stretch %.9g, formula %.9g",
              fibre_stretch(m, st, y1), want);
    rod_state_free(st);
    rod_model_free(m);
    /* past it: a warning at the tension's path, and no equilibrium */
    spec(json, sizeof json, strains, y1, 1.2 * limit);
    m = tu_model(json);
    cr_expect_eq(warnings_about_tension(m), 1);
    char err[256];
    st = rod_state_create(m, err, sizeof err);
    rod_statics_result res;
    cr_expect_neq(rod_statics_solve(m, st, 0.0, &res), ROD_OK, "an equilibrium past the limit?");
    rod_state_free(st);
    rod_model_free(m);
    /* past 1/epsilon times it, and 1e308: refused, naming the path */
    const double bad[2] = {limit * 1.01 / DBL_EPSILON, 1e308};
    for (int i = 0; i < 2; i++) {
        spec(json, sizeof json, strains, y1, bad[i]);
        const char *iss = tu_issues(json);
        cr_expect(strstr(iss, "/actuators/0/tension: ") && strstr(iss, "no equilibrium can be computed"), "%s", iss);
    }
    spec(json, sizeof json, strains, y1, limit * 0.99 / DBL_EPSILON);
    rod_model_free(tu_model(json)); /* just below: a warning, not a refusal */
}

Test(cable_limit, stretch_only_E_A)
{
    case_at("{\"stretch\": 1}", 0, E * M_PI * R * R);
}

/* offset r/2 with bending free: d^2/(E I) = 1/(E A), so the limit is E A / 2 */
Test(cable_limit, stretch_and_bending_E_A_over_2)
{
    case_at("{\"bend1\": 1, \"bend2\": 1, \"stretch\": 1}", R / 2, E * M_PI * R * R / 2);
}
