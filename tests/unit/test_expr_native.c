/* The native expressions against muparser itself (the library linked here): whatever
 * expr_native accepts, muparser accepts too and evaluates to the same bits (or NaN both) at
 * many (t, X) points, for the examples' and the test specs' expressions, precedence traps and
 * a few thousand random expressions in and out of the subset. The examples' expressions must
 * all be native: a spec that uses only them never loads muparser. */
#include "expr_native.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <glob.h>
#include <math.h>
#include <muParserDLL.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double v0, v1; /* the two variables both parsers read */

typedef struct {
    long tried, native, compared;
} tally;

static muParserHandle_t muparser(const char *expr, const char *n0, const char *n1)
{
    muParserHandle_t h = mupCreate(muBASETYPE_FLOAT);
    mupDefineFun1(h, "heaviside", expr_native_heaviside, 1);
    mupDefineFun3(h, "clamp", expr_native_clamp, 1);
    mupDefineVar(h, n0, &v0);
    mupDefineVar(h, n1, &v1);
    mupSetExpr(h, expr);
    return h;
}

static const double base_points[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 2.5, 3.0, 6.0, 8.0, 13.0, 16.0,
                                     0.1, 0.2, 1e-3, 1.0 / 3.0, -2.7, 10.0, 1e6, -1e6, 1e300, -1e300,
                                     5e-324, INFINITY, -INFINITY, NAN};
enum { N_BASE = sizeof base_points / sizeof base_points[0] };

static int same(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

/* The numbers written in expr, each a switch point (t < 2.5 ? ...), with a neighbour */
static int literals(const char *expr, double *out, int max)
{
    int n = 0;
    for (const char *p = expr; *p && n + 2 <= max;) {
        if ((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9')) {
            char *end;
            const double v = strtod(p, &end);
            out[n++] = v;
            out[n++] = nextafter(v, INFINITY);
            p = end > p ? end : p + 1;
        } else {
            p++;
        }
    }
    return n;
}

/* Compares expr over the variables n0, n1 (NULL n1: n0 alone, muparser's second name unused)
 * at the base points and at the first max_lits/2 numbers written in it */
static void compare_at(const char *expr, const char *n0, const char *n1, int max_lits, tally *tl)
{
    const char *names[2] = {n0, n1};
    double *vars[2] = {&v0, &v1};
    tl->tried++;
    expr_native *p = expr_native_compile(expr, names, vars, n1 ? 2 : 1);
    if (!p) return;
    tl->native++;
    muParserHandle_t h = muparser(expr, n0, n1 ? n1 : "__unused__");
    v0 = v1 = 0.0;
    mupEval(h);
    cr_assert(!mupError(h), "native accepts \"%s\", muparser says: %s", expr, mupGetErrorMsg(h));
    /* the first variable at every point, the second (X, along the rod) at fewer */
    static const double along[] = {0.0, -0.0, 0.25, 0.5, 1.0, -1.0, 2.0, 1e300, INFINITY, NAN};
    enum { N_ALONG = sizeof along / sizeof along[0] };
    double pts[N_BASE + 64], xs[N_ALONG + 64];
    memcpy(pts, base_points, sizeof base_points);
    memcpy(xs, along, sizeof along);
    const int nlit = literals(expr, pts + N_BASE, max_lits);
    memcpy(xs + N_ALONG, pts + N_BASE, (size_t)nlit * sizeof *xs);
    const int n = N_BASE + nlit, nx = n1 ? N_ALONG + nlit : 1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < nx; j++) {
            v0 = pts[i];
            v1 = xs[j];
            const double want = mupEval(h), got = expr_native_eval(p);
            cr_assert(same(want, got), "\"%s\" at %s = %.17g, %s = %.17g: muparser %.17g, native %.17g", expr,
                      n0, v0, n1 ? n1 : "-", v1, want, got);
            tl->compared++;
        }
    mupRelease(h);
    expr_native_free(p);
}

static void compare(const char *expr, const char *n0, const char *n1, tally *tl)
{
    compare_at(expr, n0, n1, 64, tl);
}

static int muparser_accepts(const char *expr, const char *n0, const char *n1)
{
    muParserHandle_t h = muparser(expr, n0, n1);
    mupEval(h);
    const int ok = !mupError(h);
    mupRelease(h);
    return ok;
}

/* Every string of the JSON files matching pattern: those muparser takes as a function of
 * (t, X) or (s, X) must be native, and agree. */
static void json_strings(const cJSON *j, tally *tl, int *muparser_only)
{
    if (cJSON_IsString(j)) {
        const char *e = j->valuestring;
        for (int v = 0; v < 2; v++) {
            const char *n0 = v ? "s" : "t";
            if (!muparser_accepts(e, n0, "X")) continue;
            const long before = tl->native;
            compare(e, n0, "X", tl);
            if (tl->native == before) {
                cr_log_error("muparser alone takes \"%s\"", e);
                (*muparser_only)++;
            }
        }
    }
    for (const cJSON *c = j ? j->child : NULL; c; c = c->next) json_strings(c, tl, muparser_only);
}

static void json_files(const char *pattern, tally *tl, int *muparser_only)
{
    glob_t g;
    if (glob(pattern, 0, NULL, &g) != 0) return;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        FILE *f = fopen(g.gl_pathv[i], "rb");
        cr_assert_not_null(f, "%s", g.gl_pathv[i]);
        fseek(f, 0, SEEK_END);
        const long len = ftell(f);
        rewind(f);
        char *text = malloc((size_t)len + 1);
        cr_assert_eq(fread(text, 1, (size_t)len, f), (size_t)len);
        text[len] = '\0';
        fclose(f);
        cJSON *j = cJSON_Parse(text);
        if (j) json_strings(j, tl, muparser_only);
        cJSON_Delete(j);
        free(text);
    }
    globfree(&g);
}

Test(expr_native, every_example_and_test_spec_expression_is_native_and_agrees)
{
    tally tl = {0};
    int muparser_only = 0;
    json_files("api/examples/*.json", &tl, &muparser_only);
    const long from_examples = tl.native;
    json_files("tests/*/*.json", &tl, &muparser_only);
    json_files("tests/*/*/*.json", &tl, &muparser_only);
    cr_assert_eq(muparser_only, 0, "%d expressions muparser alone takes (see the log)", muparser_only);
    cr_assert_gt(from_examples, 30, "the examples' expressions were found (%ld)", from_examples);
    /* the C tests' specs (grep of tests/unit, tests/validation, tests/alloc) */
    static const char *const in_tests[] = {
        "-0.5*t", "-4*X", "0.01*(1-cos(8*t))", "0.01*sin(6*t)", "0.05*(1+sin(3*t))", "0.05*(1-cos(3*t))",
        "0.1*t", "0.1+0.2*t", "0.1-1e-6*sin(4*t)", "0.2*sin(6*t)^2", "0.3*t", "0.3+0.2*t", "0.3+t",
        "0.5 + 0*t", "0.5*t", "1 - 2*X", "1/X", "1e-6*cos(4*t)", "1e6*heaviside(t-0.1)", "2*X",
        "2*t + 0.05", "2*t", "3 - 2*X", "4 - 3*X", "4*t", "X*2", "X", "min(1, max(0, (t - 0.25) / 0.005))",
        "min(1, t / 0.02)", "min(t/0.5, 1)", "sin(t)", "t > 0.1 ? 1/0 : 0.01", "t", "t^2", "0.7 + 0*X",
        "0.3*min(t,1)", "1.5*t", "0.5*t^2/2", "max(0.072*t^2-0.144*t+0.2, 0.02)", "0.1*heaviside(t-6)",
        "heaviside(t)", "clamp(t, 0, 1)", "log(exp(2)) + sqrt(16) + abs(-1) + tanh(0) + min(3, 1)",
        "sin(t)^2 + cos(t)^2", "(1 + X) / 2", "t*(1+X)", "t*2", "exp(-X)", "t>1?X:0", "max(t,X)^2",
        "1e-3*t+1E2", "2*_pi*t", "clamp(t,0,1)*(X<0.5)", "exp(t)", "0.2*t^2 - t + 3", "t*(1 + X)^2",
        "0.0288*t^2 - 0.144*t + 0.2"};
    for (size_t i = 0; i < sizeof in_tests / sizeof in_tests[0]; i++) {
        const long before = tl.native;
        compare(in_tests[i], "t", "X", &tl);
        cr_assert_eq(tl.native, before + 1, "\"%s\" is native", in_tests[i]);
    }
    const char *const arc[] = {"2*_pi*X + s", "2.5 + 0*s*X", "-(1 + 24*X^2)"};
    for (size_t i = 0; i < 3; i++) compare(arc[i], "s", "X", &tl);
    cr_log_info("%ld expressions, %ld native, %ld values compared", tl.tried, tl.native, tl.compared);
}

/* Where muparser's grammar or optimizer differ from the obvious reading */
Test(expr_native, precedence_associativity_and_optimizer_traps)
{
    static const char *const traps[] = {
        "-2^2", "2^3^2", "-t^2", "2^-t", "-t^-X", "2^-t^2", "2^-t*3", "-2^-t", "(-2)^2", "-(2)^2", "- t",
        "+t", "+2", "2*+t", "t*-X", "t--X", "t - -1", "t+-1", "t<-1", "t<=-1", "-t<X", "t*-2^2", "-t*X",
        "-t/3", "t ? 1 : 2", "t ? X : t ? 2 : 3", "t ? t ? 1 : 2 : 3", "t < 1 ? 0 : t < 2 ? 1 : 2",
        "(t ? 1 : 2) + 3", "t ? 1 : 2 + 3", "1 + t ? 2 : 3", "t || X ? 1 : 0", "t ? X || 1 : 0",
        "t > 0 && t < 0.1 ? 1 : 0", "-t ? 1 : 2", "t ? -1 : -X", "min(t ? 1 : 2, X)", "t<X<1", "t==X==0",
        "t!=X", "t>=X", "t<=X", "t>X", "1<2<3", "t&&X", "t||X", "t&&X||t", "t||X&&0", "t && 1", "0.5 && t",
        "1e-3", ".5", "5.", "5.e1", "1E+2*t", "1e-3*t", "007", "0.1+0.2", "   t   *   2   ", "\tt\n+\r1",
        "min(t)", "min(t, X)", "min(t, X, 1)", "min(t, X, 1, -1)", "max(t)", "max(t, X)", "max(t, X, 1)",
        "max(-0, 0, t)", "min(0, -0, t)", "sum(t)", "sum(t, X, 1, 2)", "avg(t, X)", "avg(t, X, 1, 2)",
        "sum(-0)", "abs(-0)", "abs(t)", "sign(t)", "rint(t)", "rint(-2.5)", "sin(2*t+1)", "sqrt(t*t+X*X)",
        "log2(t)", "log10(t)", "ln(t)", "log(t)", "exp(-t)", "asinh(t)", "acosh(t)", "atanh(t)", "asin(X)",
        "acos(X)", "atan(t)", "sinh(t)", "cosh(t)", "tanh(t)", "tan(t)", "_pi", "_e", "2*_pi*t", "_pi*_e",
        "heaviside(t-1)", "heaviside(0)", "clamp(t, -1, 1)", "clamp(1, 2, 3)", "clamp(t, X, 1)",
        "t^0", "t^1", "t^2", "t^3", "t^4", "t^5", "t^-0", "t^0.5", "X^2*t^3", "(t+1)^2", "t*t", "t*t*t",
        "X*t", "t+t", "t-t", "t+t+t", "2*t+3*t", "2*t-3*t", "t*2*3", "(t+1)*2", "2*(3*t+1)", "(2*t)/3",
        "(2*t+1)/0", "(2*t)/0", "t/3", "1-t", "1-2*t", "0-t", "t*0", "t*-0", "-0*t", "t+0", "0+t", "t*1",
        "2*t*X", "t*X+1", "1+t*2+X", "X+t*2+1", "t*2+X*3", "2*t+3*t*X", "(t*2+1)*(X*3-1)", "t*0.1*0.1",
        "0.1*t+0.2*t", "0.3*(t-6)*heaviside(t-6)", "1/3*t", "t/3*3", "(t-3)/13", "-(t)", "-(t+1)",
        "-sin(t)", "-(-t)", "2-(-(t))", "1/0", "-1/0", "0/0", "t/0", "(-8)^(1/3)", "2^1024", "t^t"};
    tally tl = {0};
    for (size_t i = 0; i < sizeof traps / sizeof traps[0]; i++) {
        const long before = tl.native;
        compare(traps[i], "t", "X", &tl);
        cr_assert_eq(tl.native, before + 1, "\"%s\" is native", traps[i]);
    }
    /* the readings themselves, not only muparser's agreement */
    const char *names[2] = {"t", "X"};
    double *vars[2] = {&v0, &v1};
    const struct {
        const char *e;
        double want;
    } known[] = {{"-2^2", -4}, {"2^3^2", 512}, {"2^-1^2", 0.5}, {"1 ? 2 : 0 ? 3 : 4", 2}, {"0 ? 2 : 0 ? 3 : 4", 4},
                 {"1 + 1 ? 5 : 6", 5}, {"8 - 2 - 1", 5}, {"8 / 2 / 2", 2}, {"_pi", 3.141592653589}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        expr_native *p = expr_native_compile(known[i].e, names, vars, 2);
        cr_assert_not_null(p, "%s", known[i].e);
        cr_assert_eq(expr_native_eval(p), known[i].want, "%s", known[i].e);
        expr_native_free(p);
    }
}

/* Outside the subset, muparser answers: its errors, and what it reads its own way */
Test(expr_native, refuses_what_muparser_must_answer)
{
    static const char *const refused[] = {
        "", " ", "--t", "-+t", "+-t", "t---1", "sin (t)", "sin", "sin()", "sin(t, X)", "clamp(t, 1)",
        "min()", "atan2(t, 1)", "q", "t2", "2t", "2 t", "2(t)", "t(2)", "(t", "t)", "()", "t,X", "(t, X)",
        "1e", "1e+", "1.2.3", "1e999", "1e-320", "..5", ".", "t = 1", "t=<1", "t < = 1", "t & X", "t | X",
        "!t", "t ? 1", "t ? 1 : ", "t : 1", "? 1 : 2", "1 && 0.5", "0.5 || 0", "_pi(1)", "X(t)", "t^",
        "\"a\"", "t # 1", "t\v+ 1", "\x01t", "min(1 ? 2, 3 : 4)", "sum(0?1,2,3,4,5:6)", "0x10", "inf", "nan",
        "t % 2", "t ** 2", "e", "pi", "x"};
    const char *names[2] = {"t", "X"};
    double *vars[2] = {&v0, &v1};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        expr_native *p = expr_native_compile(refused[i], names, vars, 2);
        cr_assert_null(p, "\"%s\" should be left to muparser", refused[i]);
    }
    /* muparser folds && and || of constants through (int) casts: 0.5 && 1 is 0 there, 1 when
     * evaluated; a folding we leave to it */
    cr_assert_eq(muparser_accepts("0.5 && 1", "t", "X"), 1);
    muParserHandle_t h = muparser("0.5 && 1", "t", "X");
    cr_assert_eq(mupEval(h), 0.0);
    mupRelease(h);
    /* X where only t is defined */
    cr_assert_null(expr_native_compile("t*X", names, vars, 1));
}

/* ---- random expressions ---- */

static uint64_t rng_state;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(rng_state >> 33) % n;
}

typedef struct {
    char s[512];
    size_t n;
} buf;

static void put(buf *b, const char *s)
{
    const size_t k = strlen(s);
    if (b->n + k < sizeof b->s) {
        memcpy(b->s + b->n, s, k + 1);
        b->n += k;
    }
}

static void space(buf *b)
{
    if (!rnd(4)) put(b, " ");
}

static void gen(buf *b, int depth);

static void gen_atom(buf *b, int depth)
{
    static const char *const atoms[] = {"t", "X", "t", "X", "0", "1", "2", "3", "4", "0.5", ".5", "5.", "1e-3", "2.5E+1",
                                        "0.1", "1e2", "_pi", "_e", "10", "0.25", "7"};
    static const char *const f1[] = {"sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
                                     "asinh", "acosh", "atanh", "exp", "ln", "log", "log2", "log10", "sqrt",
                                     "abs", "sign", "rint", "heaviside"};
    static const char *const fv[] = {"min", "max", "sum", "avg"};
    const unsigned k = depth > 2 ? 0 : rnd(10);
    if (k < 5) {
        put(b, atoms[rnd(sizeof atoms / sizeof atoms[0])]);
    } else if (k < 7) {
        put(b, "(");
        gen(b, depth + 1);
        put(b, ")");
    } else if (k < 8) {
        put(b, f1[rnd(sizeof f1 / sizeof f1[0])]);
        put(b, "(");
        gen(b, depth + 1);
        put(b, ")");
    } else {
        const int clamp = rnd(4) == 0;
        put(b, clamp ? "clamp" : fv[rnd(4)]);
        put(b, "(");
        const unsigned n = clamp ? 3 : 1 + rnd(4);
        for (unsigned i = 0; i < n; i++) {
            if (i) put(b, ",");
            space(b);
            gen(b, depth + 1);
        }
        put(b, ")");
    }
}

static void gen_operand(buf *b, int depth)
{
    const unsigned u = rnd(8);
    if (u == 0) put(b, "-");
    if (u == 1) put(b, "+");
    if (u < 2) space(b);
    gen_atom(b, depth);
}

static void gen(buf *b, int depth)
{
    static const char *const ops[] = {"+", "-", "*", "/", "^", "<", ">", "<=", ">=", "==", "!=", "&&", "||",
                                      "+", "-", "*", "^", "*"};
    gen_operand(b, depth);
    const unsigned n = depth > 2 ? 0 : rnd(4);
    for (unsigned i = 0; i < n; i++) {
        space(b);
        put(b, ops[rnd(sizeof ops / sizeof ops[0])]);
        space(b);
        gen_operand(b, depth);
    }
    if (depth < 2 && !rnd(6)) {
        space(b);
        put(b, "?");
        space(b);
        gen(b, depth + 1);
        space(b);
        put(b, ":");
        space(b);
        gen(b, depth + 1);
    }
}

/* A few bytes changed: most of these are errors or outside the subset */
static void mutate(buf *b)
{
    static const char junk[] = "()+-*/^<>=!&|?:,. tX0123456789e_abcsinmx\"#";
    const unsigned edits = 1 + rnd(3);
    for (unsigned e = 0; e < edits && b->n > 0; e++) {
        const size_t at = rnd((unsigned)b->n);
        switch (rnd(3)) {
        case 0: b->s[at] = junk[rnd(sizeof junk - 1)]; break;
        case 1:
            memmove(b->s + at, b->s + at + 1, b->n - at);
            b->n--;
            break;
        default:
            if (b->n + 1 < sizeof b->s) {
                memmove(b->s + at + 1, b->s + at, b->n - at + 1);
                b->s[at] = junk[rnd(sizeof junk - 1)];
                b->n++;
            }
        }
    }
}

Test(expr_native, random_expressions_agree_with_muparser)
{
    rng_state = 20240611;
    tally in = {0}, out = {0};
    for (int i = 0; i < 3000; i++) {
        buf b = {.n = 0};
        b.s[0] = '\0';
        gen(&b, 0);
        /* fewer switch points than for the examples: valgrind runs this suite too */
        compare_at(b.s, "t", "X", 8, &in);
        mutate(&b);
        compare_at(b.s, "t", "X", 8, &out);
    }
    cr_log_info("random: %ld in the grammar (%ld native), %ld mutated (%ld native), %ld values compared", in.tried,
                in.native, out.tried, out.native, in.compared + out.compared);
    /* the comparison is not vacuous: most of the grammar's expressions are native (the rest
     * hold && or || of two constants somewhere, about a quarter) */
    cr_assert_gt(in.native, in.tried * 2 / 3, "%ld of %ld native", in.native, in.tried);
    cr_assert_gt(out.native, 100, "%ld mutated ones native", out.native);
}
