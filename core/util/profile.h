/* Profiles: how an actuator's value or a load's scale varies in time t and along the rod
 * X = s/L. A number, an expression (muparser's language), or the traveling sigmoid wave of
 * Eq. 59. Expressions are compiled once per evaluator, natively when they can be
 * (expr_native.h: muparser's values, without loading it), else by muparser: one evaluator per
 * thread (both bind the variables by address), owned by the rod_state that uses it. */
#ifndef ROD_PROFILE_H
#define ROD_PROFILE_H

#include <stddef.h>

typedef enum { PROFILE_CONST, PROFILE_EXPR, PROFILE_WAVE } profile_kind;

typedef struct {
    int expr;     /* index into the expression table, or -1 for the constant below */
    double value;
} profile_scalar;

typedef struct {
    profile_kind kind;
    profile_scalar v;            /* CONST, EXPR */
    profile_scalar alpha, mu;    /* WAVE: functions of t only */
    double sigma;                /* WAVE */
    int uses_X;                  /* varies along the rod */
} profile;

typedef struct profile_eval profile_eval;

/* Borrows nothing: the expressions are copied into the handles. NULL with a message on
 * failure. */
profile_eval *profile_eval_create(char *const *exprs, int n, char *err, size_t errlen);
void profile_eval_free(profile_eval *ev);
/* Compiles one more expression (checked before with profile_check_expr); its index, or -1
 * on no memory. */
int profile_eval_add(profile_eval *ev, const char *expr);

/* The profile's value at (t, X); for WAVE, alpha(t) / (1 + exp(sigma (X - mu(t)))), which is
 * Eq. 59's alpha (1 - 1/(1 + exp(-sigma (X - mu)))) written so that it cannot overflow. */
double profile_value(const profile *p, profile_eval *ev, double t, double X);

/* A profile with its time-only parts evaluated at one t: an expression without X, or a
 * wave's alpha(t) and mu(t), cost one expression evaluation per t instead of one per
 * station. profile_at_X then gives exactly profile_value(p, ev, t, X). */
typedef struct {
    const profile *p;
    double t;
    double v;         /* CONST, EXPR without X */
    double alpha, mu; /* WAVE */
} profile_at_t;

void profile_fix_t(const profile *p, profile_eval *ev, double t, profile_at_t *f);
double profile_at_X(const profile_at_t *f, profile_eval *ev, double X);

/* The value at (t, X = 0) with its first two time derivatives (central differences of step
 * 1e-4 max(1, |t|): the profiles are expressions, not functions one can differentiate; 0 for a
 * constant). */
void profile_value_derivs(const profile *p, profile_eval *ev, double t, double out[3]);

/* Checks one expression: the variables allowed are t, and X when allow_X. Returns 0, or -1
 * with a message naming the 1-based column of the problem. Thread-safe. Sets *uses_X. */
int profile_check_expr(const char *expr, int allow_X, int *uses_X, char *msg, size_t len);

/* A function of arc length alone (a rest strain): an expression in s (m, along the rod at
 * rest) and X = s/L, never t. Checked once (thread-safe, like profile_check_expr), then
 * evaluated by a handle of its own: one per thread, created where the values are tabulated. */
int profile_check_arc_expr(const char *expr, char *msg, size_t len);
typedef struct profile_arc profile_arc;
/* NULL: out of memory. The expression is copied. */
profile_arc *profile_arc_create(const char *expr, double L);
double profile_arc_value(profile_arc *a, double s);
void profile_arc_free(profile_arc *a);

#endif
