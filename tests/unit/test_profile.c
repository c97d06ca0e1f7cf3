/* Profiles: constants, muparser expressions with the added functions, Eq. 59's wave. */
#include "profile.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

static double eval1(const char *expr, double t, double X)
{
    char *exprs[1] = {(char *)expr};
    char err[128];
    profile_eval *ev = profile_eval_create(exprs, 1, err, sizeof err);
    cr_assert_not_null(ev, "%s", err);
    profile p = {.kind = PROFILE_EXPR, .v = {0, 0}};
    double v = profile_value(&p, ev, t, X);
    profile_eval_free(ev);
    return v;
}

Test(profile, expressions_and_functions)
{
    cr_assert_float_eq(eval1("max(0.072*t^2-0.144*t+0.2, 0.02)", 1.0, 0), 0.128, 1e-15);
    cr_assert_float_eq(eval1("max(0.072*t^2-0.144*t+0.2, 0.02)", 0.0, 0), 0.2, 1e-15);
    cr_assert_float_eq(eval1("0.1*heaviside(t-6)", 7, 0), 0.1, 1e-15);
    cr_assert_float_eq(eval1("0.1*heaviside(t-6)", 5, 0), 0.0, 1e-15);
    cr_assert_float_eq(eval1("heaviside(t)", 0, 0), 0.5, 1e-15);
    cr_assert_float_eq(eval1("clamp(t, 0, 1)", 3, 0), 1.0, 1e-15);
    cr_assert_float_eq(eval1("clamp(t, 0, 1)", -3, 0), 0.0, 1e-15);
    cr_assert_float_eq(eval1("log(exp(2)) + sqrt(16) + abs(-1) + tanh(0) + min(3, 1)", 0, 0), 8.0, 1e-14);
    cr_assert_float_eq(eval1("sin(t)^2 + cos(t)^2", 0.7, 0), 1.0, 1e-15);
    cr_assert_float_eq(eval1("(1 + X) / 2", 0, 0.5), 0.75, 1e-15);
}

Test(profile, wave_is_equation_59)
{
    profile p = {.kind = PROFILE_WAVE, .alpha = {-1, 800}, .mu = {-1, 0.3}, .sigma = 200};
    for (double X = 0; X <= 1.0; X += 0.05) {
        double want = 800 * (1 - 1 / (1 + exp(-200 * (X - 0.3))));
        cr_assert_float_eq(profile_value(&p, NULL, 0, X), want, 1e-9 * 800);
    }
    /* no overflow far from the front */
    p.sigma = 1e6;
    cr_assert_eq(profile_value(&p, NULL, 0, 1.0), 0.0);
    cr_assert_float_eq(profile_value(&p, NULL, 0, 0.0), 800.0, 1e-12);
}

Test(profile, check_reports_column_and_variables)
{
    char msg[256];
    int ux = 0;
    cr_assert_eq(profile_check_expr("t*(1+X)", 1, &ux, msg, sizeof msg), 0);
    cr_assert_eq(ux, 1);
    cr_assert_eq(profile_check_expr("t*2", 1, &ux, msg, sizeof msg), 0);
    cr_assert_eq(ux, 0);
    /* X as a whole name only: not inside a number's exponent, a constant or a function */
    const struct {
        const char *expr;
        int reads_X;
    } names[] = {{"X", 1},           {"exp(-X)", 1},        {"t>1?X:0", 1},    {"max(t,X)^2", 1},
                 {"1e-3*t+1E2", 0}, {"2*_pi*t", 0},        {"heaviside(t-6)", 0},
                 {"clamp(t,0,1)*(X<0.5)", 1}, {"exp(t)", 0}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        ux = -1;
        cr_assert_eq(profile_check_expr(names[i].expr, 1, &ux, msg, sizeof msg), 0, "%s: %s", names[i].expr, msg);
        cr_assert_eq(ux, names[i].reads_X, "%s", names[i].expr);
    }
    cr_assert_eq(profile_check_expr("sin(t", 1, &ux, msg, sizeof msg), -1);
    cr_assert(strstr(msg, "column 6"), "%s", msg); /* just past the end */
    cr_assert_eq(profile_check_expr("q+1", 1, &ux, msg, sizeof msg), -1);
    cr_assert(strstr(msg, "column 1"), "%s", msg);
}

/* Fixing t once (the forces' per-call shortcut) gives profile_value's values exactly, for
 * every kind: constants, expressions with and without X, waves with time-varying alpha and mu. */
Test(profile, fixed_t_gives_the_same_values)
{
    char *exprs[4] = {"0.2*t^2 - t + 3", "t*(1 + X)^2", "0.0288*t^2 - 0.144*t + 0.2", "0.1 + 0.2*t"};
    char err[128];
    profile_eval *ev = profile_eval_create(exprs, 4, err, sizeof err);
    cr_assert_not_null(ev, "%s", err);
    const profile ps[4] = {
        {.kind = PROFILE_CONST, .v = {-1, 0.7}},
        {.kind = PROFILE_EXPR, .v = {0, 0}},
        {.kind = PROFILE_EXPR, .v = {1, 0}, .uses_X = 1},
        {.kind = PROFILE_WAVE, .alpha = {2, 0}, .mu = {3, 0}, .sigma = 10, .uses_X = 1},
    };
    for (int i = 0; i < 4; i++)
        for (double t = 0.0; t < 3.0; t += 0.37) {
            profile_at_t f;
            profile_fix_t(&ps[i], ev, t, &f);
            for (double X = 0.0; X <= 1.0; X += 0.125) {
                const double a = profile_at_X(&f, ev, X), b = profile_value(&ps[i], ev, t, X);
                cr_assert_eq(memcmp(&a, &b, sizeof a), 0, "profile %d at t = %g, X = %g: %.17g vs %.17g",
                             i, t, X, a, b);
            }
        }
    profile_eval_free(ev);
}
