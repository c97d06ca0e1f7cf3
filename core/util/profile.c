#include "profile.h"

#include "expr_native.h"

#include <ctype.h>
#include <math.h>
#include <muParserDLL.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An expression is a native program (expr_native.h) when it can be, else a muparser handle:
 * a spec whose expressions are all native never loads muparser (server/front/muparser_lazy.c). */
struct profile_eval {
    int n;
    muParserHandle_t *h;
    expr_native **nat;
    double t, X; /* the variables every program and handle is bound to, by address */
};

static void define_functions(muParserHandle_t h)
{
    mupDefineFun1(h, "heaviside", expr_native_heaviside, 1);
    mupDefineFun3(h, "clamp", expr_native_clamp, 1);
}

/* Compiles expr into slot i of ev: native, or a muparser handle. 0, or -1 on no memory. */
static int compile_into(profile_eval *ev, int i, const char *expr)
{
    static const char *const names[2] = {"t", "X"};
    double *const vars[2] = {&ev->t, &ev->X};
    ev->h[i] = NULL;
    ev->nat[i] = expr_native_compile(expr, names, vars, 2);
    if (ev->nat[i]) return 0;
    ev->h[i] = mupCreate(muBASETYPE_FLOAT);
    if (!ev->h[i]) return -1;
    define_functions(ev->h[i]);
    mupDefineVar(ev->h[i], "t", &ev->t);
    mupDefineVar(ev->h[i], "X", &ev->X);
    mupSetExpr(ev->h[i], expr);
    return 0;
}

profile_eval *profile_eval_create(char *const *exprs, int n, char *err, size_t errlen)
{
    profile_eval *ev = calloc(1, sizeof *ev);
    if (!ev) goto nomem;
    ev->n = n;
    if (n > 0) {
        ev->h = calloc((size_t)n, sizeof *ev->h);
        ev->nat = calloc((size_t)n, sizeof *ev->nat);
        if (!ev->h || !ev->nat) goto nomem;
    }
    for (int i = 0; i < n; i++)
        if (compile_into(ev, i, exprs[i]) != 0) goto nomem;
    return ev;
nomem:
    snprintf(err, errlen, "out of memory creating expression parsers");
    profile_eval_free(ev);
    return NULL;
}

int profile_eval_add(profile_eval *ev, const char *expr)
{
    muParserHandle_t *h = realloc(ev->h, (size_t)(ev->n + 1) * sizeof *h);
    if (!h) return -1;
    ev->h = h;
    expr_native **nat = realloc(ev->nat, (size_t)(ev->n + 1) * sizeof *nat);
    if (!nat) return -1;
    ev->nat = nat;
    if (compile_into(ev, ev->n, expr) != 0) return -1;
    return ev->n++;
}

void profile_eval_free(profile_eval *ev)
{
    if (!ev) return;
    for (int i = 0; i < ev->n && ev->h && ev->nat; i++) {
        if (ev->h[i]) mupRelease(ev->h[i]);
        expr_native_free(ev->nat[i]);
    }
    free(ev->h);
    free(ev->nat);
    free(ev);
}

static double scalar_value(const profile_scalar *s, profile_eval *ev, double t, double X)
{
    if (s->expr < 0 || !ev) return s->value;
    ev->t = t;
    ev->X = X;
    if (ev->nat[s->expr]) return expr_native_eval(ev->nat[s->expr]);
    return mupEval(ev->h[s->expr]);
}

double profile_value(const profile *p, profile_eval *ev, double t, double X)
{
    switch (p->kind) {
    case PROFILE_CONST:
    case PROFILE_EXPR:
        return scalar_value(&p->v, ev, t, X);
    case PROFILE_WAVE: {
        double a = scalar_value(&p->alpha, ev, t, X);
        double mu = scalar_value(&p->mu, ev, t, X);
        return a / (1.0 + exp(p->sigma * (X - mu)));
    }
    }
    return 0.0;
}

void profile_fix_t(const profile *p, profile_eval *ev, double t, profile_at_t *f)
{
    f->p = p;
    f->t = t;
    f->v = f->alpha = f->mu = 0.0;
    if (p->kind == PROFILE_WAVE) {
        f->alpha = scalar_value(&p->alpha, ev, t, 0.0);
        f->mu = scalar_value(&p->mu, ev, t, 0.0);
    } else if (!p->uses_X) {
        f->v = scalar_value(&p->v, ev, t, 0.0);
    }
}

double profile_at_X(const profile_at_t *f, profile_eval *ev, double X)
{
    const profile *p = f->p;
    if (p->kind == PROFILE_WAVE) return f->alpha / (1.0 + exp(p->sigma * (X - f->mu)));
    if (p->uses_X) return scalar_value(&p->v, ev, f->t, X);
    return f->v;
}

/* muparser's C API keeps error text in one static buffer: validation is serialized. */
static pthread_mutex_t check_lock = PTHREAD_MUTEX_INITIALIZER;

/* muparser's error for expr as text without its " at position N" and final period, and the
 * 0-based column it names (muparser puts "unexpected end" one past the end; a column just past
 * the last character says the same thing more plainly). */
static int parser_error(muParserHandle_t h, const char *expr, char *text, size_t len)
{
    snprintf(text, len, "%s", mupGetErrorMsg(h));
    int pos = mupGetErrorPos(h);
    const int len_expr = (int)strlen(expr);
    if (pos > len_expr) pos = len_expr;
    if (pos < 0) pos = 0;
    char *at = strstr(text, " at position"); /* we give the column ourselves */
    if (at) *at = '\0';
    const size_t tl = strlen(text);
    if (tl && text[tl - 1] == '.') text[tl - 1] = '\0';
    return pos;
}

/* Whether an expression muparser parsed reads the variable `name`: a maximal run of name
 * characters equal to it can only be that variable there (no function or constant of the
 * parser is spelled so). muparser's own answer (mupGetExprVar) parses the expression again on
 * every call, once per variable: most of the cost of checking a spec's expressions. */
static int names_identifier(const char *expr, const char *name)
{
    const size_t n = strlen(name);
    for (const char *p = expr; *p;) {
        const char *start = p;
        while (isalnum((unsigned char)*p) || *p == '_') p++; /* muparser's name characters */
        if (p == start)
            p++;
        else if ((size_t)(p - start) == n && memcmp(start, name, n) == 0)
            return 1;
    }
    return 0;
}

/* Parses expr with the variables var1 and (if not NULL) var2 defined. A parse error naming
 * the variable `absent` (if not NULL; quoted, as muparser names it) is reported as absent_msg; *uses_X (if
 * not NULL) says whether expr reads X. 0, or -1 with msg. */
static int check_with(const char *expr, const char *var1, const char *var2, const char *absent,
                      const char *absent_msg, int *uses_X, char *msg, size_t len)
{
    int rc = 0;
    double v1 = 0.0, v2 = 0.0;
    if (uses_X) *uses_X = 0;
    /* native means valid: muparser takes a superset (tests/unit/test_expr_native.c) */
    const char *const names[2] = {var1, var2};
    double *const vars[2] = {&v1, &v2};
    expr_native *nat = expr_native_compile(expr, names, vars, var2 ? 2 : 1);
    if (nat) {
        expr_native_free(nat);
        if (uses_X) *uses_X = names_identifier(expr, "X");
        return 0;
    }
    pthread_mutex_lock(&check_lock);
    muParserHandle_t h = mupCreate(muBASETYPE_FLOAT);
    if (!h) {
        snprintf(msg, len, "out of memory");
        pthread_mutex_unlock(&check_lock);
        return -1;
    }
    define_functions(h);
    mupDefineVar(h, var1, &v1);
    if (var2) mupDefineVar(h, var2, &v2);
    mupSetExpr(h, expr);
    mupEval(h);
    if (mupError(h)) {
        char text[256];
        const int pos = parser_error(h, expr, text, sizeof text);
        if (absent && strstr(text, absent))
            snprintf(msg, len, "invalid expression at column %d: %s", pos + 1, absent_msg);
        else
            snprintf(msg, len, "invalid expression at column %d: %s", pos + 1, text);
        rc = -1;
    } else if (uses_X) {
        *uses_X = names_identifier(expr, "X");
    }
    mupRelease(h);
    pthread_mutex_unlock(&check_lock);
    return rc;
}

int profile_check_expr(const char *expr, int allow_X, int *uses_X, char *msg, size_t len)
{
    return check_with(expr, "t", allow_X ? "X" : NULL, allow_X ? NULL : "\"X\"",
                      "X (position along the rod) is not allowed here", uses_X, msg, len);
}

int profile_check_arc_expr(const char *expr, char *msg, size_t len)
{
    return check_with(expr, "s", "X", "\"t\"",
                      "t (time) is not allowed here (a function of s, the arc length at rest in m, "
                      "and X = s/L)", NULL, msg, len);
}

struct profile_arc {
    muParserHandle_t h; /* NULL when nat */
    expr_native *nat;
    double L, s, X;
};

profile_arc *profile_arc_create(const char *expr, double L)
{
    profile_arc *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->L = L;
    static const char *const names[2] = {"s", "X"};
    double *const vars[2] = {&a->s, &a->X};
    a->nat = expr_native_compile(expr, names, vars, 2);
    if (a->nat) return a;
    a->h = mupCreate(muBASETYPE_FLOAT);
    if (!a->h) {
        free(a);
        return NULL;
    }
    define_functions(a->h);
    mupDefineVar(a->h, "s", &a->s);
    mupDefineVar(a->h, "X", &a->X);
    mupSetExpr(a->h, expr);
    return a;
}

double profile_arc_value(profile_arc *a, double s)
{
    a->s = s;
    a->X = s / a->L;
    return a->nat ? expr_native_eval(a->nat) : mupEval(a->h);
}

void profile_arc_free(profile_arc *a)
{
    if (!a) return;
    if (a->h) mupRelease(a->h);
    expr_native_free(a->nat);
    free(a);
}

void profile_value_derivs(const profile *p, profile_eval *ev, double t, double out[3])
{
    out[0] = profile_value(p, ev, t, 0.0);
    out[1] = out[2] = 0.0;
    if (p->kind == PROFILE_CONST) return;
    const double h = 1e-4 * fmax(1.0, fabs(t));
    const double vp = profile_value(p, ev, t + h, 0.0), vm = profile_value(p, ev, t - h, 0.0);
    out[1] = (vp - vm) / (2 * h);
    out[2] = (vp - 2 * out[0] + vm) / (h * h);
}
