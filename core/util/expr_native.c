/* muparser 2.3.3's bytecode for a subset of its language (expr_native.h). What is reproduced,
 * from its sources (ParserBase::CreateRPN, ParserTokenReader, ParserByteCode, MathImpl):
 * - precedence: || 1, && 2, comparisons 4, + - 5, * / 6, unary - + 6, ^ 7; all left
 *   associative but ^ (right); a unary sign binds looser than ^ on its right (-2^2 = -4,
 *   2^-t^2 = 2^(-(t^2))) and is not followed by another sign; ?: lowest, right associative;
 * - the bytecode's peephole rewrites as ParserByteCode::AddOp and AddFun make them, on the
 *   last two tokens: constants folded (not && ||, which muparser folds through (int) casts:
 *   refused), x^0..4, x*x, and a*x+b fused into one token (VARMUL) that multiplies and adds
 *   in muparser's order; unary plus dropped; fixed-arity functions of constants folded;
 * - MathImpl's formulas (abs, sign, rint, asinh, acosh, atanh, log2, min, max, sum, avg) as
 *   written there, and _pi as g++ builds it (3.141592653589). */
#include "expr_native.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Limits past which muparser answers: no expression of a spec comes near them. */
#define MAX_CODE 256
#define MAX_STACK 64
#define MAX_NEST 48
#define MAX_VARS 4
#define MAX_LEN 4096

enum op {
    OP_VAL, OP_VAR, OP_VARMUL, OP_VARPOW2, OP_VARPOW3, OP_VARPOW4,
    OP_LE, OP_GE, OP_NEQ, OP_EQ, OP_LT, OP_GT, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_POW, OP_AND, OP_OR,
    OP_FUN1, OP_FUN3, OP_FUNV, OP_IF, OP_ELSE, OP_ENDIF, OP_END
};

/* muparser's token: a value is (mul 0, add v), a variable (mul 1, add 0), VARMUL
 * *var * mul + add. */
typedef struct {
    unsigned char op, fn;
    short arg; /* IF, ELSE: the jump; FUNV: the argument count */
    int var;   /* -1: none */
    double mul, add;
} insn;

struct expr_native {
    int n;
    double *vars[MAX_VARS];
    insn code[];
};

double expr_native_heaviside(double x)
{
    /* H(0) = 1/2, as MATLAB's heaviside (the authors' activation tables use it) */
    return x > 0 ? 1.0 : (x < 0 ? 0.0 : 0.5);
}

double expr_native_clamp(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

/* MathImpl's definitions where they are not the C library's function */
static double m_neg(double v) { return -v; }
static double m_abs(double v) { return (v >= 0) ? v : -v; }
static double m_sign(double v) { return (double)((v < 0) ? -1 : (v > 0) ? 1 : 0); }
static double m_rint(double v) { return floor(v + 0.5); }
static double m_asinh(double v) { return log(v + sqrt(v * v + 1)); }
static double m_acosh(double v) { return log(v + sqrt(v * v - 1)); }
static double m_atanh(double v) { return 0.5 * log((1 + v) / (1 - v)); }
static double m_log2(double v) { return log(v) / log(2.0); }

static const struct {
    const char *name;
    double (*f)(double);
} fun1[] = {
    {"-", m_neg}, /* the unary minus, by muparser a function too */
    {"sin", sin},     {"cos", cos},     {"tan", tan},         {"asin", asin},   {"acos", acos},
    {"atan", atan},   {"sinh", sinh},   {"cosh", cosh},       {"tanh", tanh},   {"asinh", m_asinh},
    {"acosh", m_acosh}, {"atanh", m_atanh}, {"log2", m_log2}, {"log10", log10}, {"log", log},
    {"ln", log},      {"exp", exp},     {"sqrt", sqrt},       {"sign", m_sign}, {"rint", m_rint},
    {"abs", m_abs},   {"heaviside", expr_native_heaviside},
};
enum { FUN_NEG = 0, N_FUN1 = sizeof fun1 / sizeof fun1[0] };

enum { V_SUM, V_AVG, V_MIN, V_MAX };
static const char *const funv[] = {"sum", "avg", "min", "max"};

/* std::min and std::max as MathImpl calls them: which operand they return matters for -0 and NaN */
static double multi(int fn, const double *a, int n)
{
    double r = fn == V_SUM || fn == V_AVG ? 0 : a[0];
    for (int i = 0; i < n; i++) {
        switch (fn) {
        case V_SUM:
        case V_AVG: r += a[i]; break;
        case V_MIN: r = (a[i] < r) ? a[i] : r; break;
        default: r = (r < a[i]) ? a[i] : r; break;
        }
    }
    return fn == V_AVG ? r / (double)n : r;
}

static double binary(int op, double x, double y)
{
    switch (op) {
    case OP_LE: return x <= y;
    case OP_GE: return x >= y;
    case OP_NEQ: return x != y;
    case OP_EQ: return x == y;
    case OP_LT: return x < y;
    case OP_GT: return x > y;
    case OP_ADD: return x + y;
    case OP_SUB: return x - y;
    case OP_MUL: return x * y;
    case OP_DIV: return x / y;
    case OP_POW: return pow(x, y);
    case OP_AND: return x && y;
    default: return x || y;
    }
}

double expr_native_eval(const expr_native *p)
{
    double st[MAX_STACK], b;
    int sp = -1;
    for (const insn *c = p->code;; c++) {
        switch (c->op) {
        case OP_VAL: st[++sp] = c->add; break;
        case OP_VAR: st[++sp] = *p->vars[c->var]; break;
        case OP_VARMUL: st[++sp] = *p->vars[c->var] * c->mul + c->add; break;
        case OP_VARPOW2: b = *p->vars[c->var]; st[++sp] = b * b; break;
        case OP_VARPOW3: b = *p->vars[c->var]; st[++sp] = b * b * b; break;
        case OP_VARPOW4: b = *p->vars[c->var]; st[++sp] = b * b * b * b; break;
        case OP_FUN1: st[sp] = fun1[c->fn].f(st[sp]); break;
        case OP_FUN3:
            sp -= 2;
            st[sp] = expr_native_clamp(st[sp], st[sp + 1], st[sp + 2]);
            break;
        case OP_FUNV:
            sp -= c->arg - 1;
            st[sp] = multi(c->fn, &st[sp], c->arg);
            break;
        case OP_IF:
            if (st[sp--] == 0) c += c->arg;
            break;
        case OP_ELSE: c += c->arg; break;
        case OP_ENDIF: break;
        case OP_END: return st[0];
        default:
            sp--;
            st[sp] = binary(c->op, st[sp], st[sp + 1]);
            break;
        }
    }
}

/* ---- the compiler: recursive descent emitting muparser's token sequence ---- */

typedef struct {
    const char *s;
    const char *const *names;
    int nvars;
    int n, depth, max_depth, nest;
    int refused;
    insn code[MAX_CODE];
} compiler;

static int is_name_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
}

/* muparser skips every byte 1..13 and 32 between tokens (14..31 are errors): we take the usual four */
static void skip_space(compiler *c)
{
    while (*c->s == ' ' || *c->s == '\t' || *c->s == '\n' || *c->s == '\r') c->s++;
}

static insn *emit(compiler *c, int op)
{
    if (c->n >= MAX_CODE - 1) { /* one left for END */
        c->refused = 1;
        return &c->code[0];
    }
    insn *t = &c->code[c->n++];
    *t = (insn){.op = (unsigned char)op, .var = -1};
    return t;
}

/* muparser counts its stack so, the branches of ?: both counted: a bound on the real depth */
static void grow(compiler *c, int by)
{
    c->depth += by;
    if (c->depth > c->max_depth) c->max_depth = c->depth;
    if (c->max_depth >= MAX_STACK) c->refused = 1;
}

static void add_val(compiler *c, double v)
{
    insn *t = emit(c, OP_VAL);
    t->add = v;
    grow(c, 1);
}

static int var_like(const insn *t) { return t->op == OP_VAR || t->op == OP_VARMUL; }
static int val_or_var(const insn *t) { return t->op == OP_VAL || var_like(t); }

/* ParserByteCode::AddOp: a binary operator on the last two tokens */
static void add_op(compiler *c, int op)
{
    if (c->refused) return;
    insn *l = &c->code[c->n - 2], *r = &c->code[c->n - 1];
    int done = 0;
    if (l->op == OP_VAL && r->op == OP_VAL) {
        if (op == OP_AND || op == OP_OR) {
            c->refused = 1;
            return;
        }
        l->add = binary(op, l->add, r->add);
        done = 1;
    } else if (op == OP_POW && l->op == OP_VAR && r->op == OP_VAL) {
        const double e = r->add;
        done = 1;
        if (e == 0)
            *l = (insn){.op = OP_VAL, .var = -1, .mul = 0, .add = 1};
        else if (e == 2)
            l->op = OP_VARPOW2;
        else if (e == 3)
            l->op = OP_VARPOW3;
        else if (e == 4)
            l->op = OP_VARPOW4;
        else if (e != 1)
            done = 0;
    } else if ((op == OP_ADD || op == OP_SUB) && val_or_var(l) && val_or_var(r) &&
               !(var_like(l) && var_like(r) && l->var != r->var)) {
        const double sign = op == OP_SUB ? -1 : 1;
        if (l->var < 0) l->var = r->var;
        l->op = OP_VARMUL;
        l->add += sign * r->add;
        l->mul += sign * r->mul;
        done = 1;
    } else if (op == OP_MUL && ((l->op == OP_VAL && r->op == OP_VAR) || (l->op == OP_VAR && r->op == OP_VAL))) {
        if (l->var < 0) l->var = r->var;
        l->op = OP_VARMUL;
        l->mul = l->add + r->add;
        l->add = 0;
        done = 1;
    } else if (op == OP_MUL &&
               ((l->op == OP_VAL && r->op == OP_VARMUL) || (l->op == OP_VARMUL && r->op == OP_VAL))) {
        if (r->op == OP_VAL) {
            l->mul *= r->add;
            l->add *= r->add;
        } else {
            l->var = r->var;
            l->mul = r->mul * l->add;
            l->add = r->add * l->add;
        }
        l->op = OP_VARMUL;
        done = 1;
    } else if (op == OP_MUL && l->op == OP_VAR && r->op == OP_VAR && l->var == r->var) {
        l->op = OP_VARPOW2;
        done = 1;
    } else if (op == OP_DIV && l->op == OP_VARMUL && r->op == OP_VAL && r->add != 0) {
        l->mul /= r->add;
        l->add /= r->add;
        done = 1;
    }
    if (done)
        c->n--;
    else
        emit(c, op);
    c->depth--;
}

/* ParserByteCode::AddFun for the unary minus and the functions of one or three arguments
 * (every one defined optimizable: folded when its arguments are constants) */
static void add_fun(compiler *c, int fn, int argc)
{
    if (c->refused) return;
    int consts = 1;
    for (int i = 1; i <= argc; i++) consts = consts && c->code[c->n - i].op == OP_VAL;
    if (consts) {
        insn *a = &c->code[c->n - argc];
        a->add = argc == 1 ? fun1[fn].f(a->add) : expr_native_clamp(a[0].add, a[1].add, a[2].add);
        c->n -= argc - 1;
    } else {
        insn *t = emit(c, argc == 1 ? OP_FUN1 : OP_FUN3);
        t->fn = (unsigned char)fn;
    }
    c->depth -= argc - 1;
}

static void ternary(compiler *c);
static void binary_expr(compiler *c, int min_prec, int sign_allowed);

/* A number as muparser reads it (a stream's operator>> in the C locale): digits with at most
 * one point, an exponent with at least one digit; nothing of a name or another point right
 * after it (muparser would read those as a second token and fail). */
static int number(compiler *c)
{
    const char *p = c->s;
    int digits = 0;
    while (*p >= '0' && *p <= '9') p++, digits++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++) digits++;
    if (!digits) return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!(*p >= '0' && *p <= '9')) return 0;
        while (*p >= '0' && *p <= '9') p++;
    }
    if (is_name_char(*p) || *p == '.' || p - c->s >= 64) return 0;
    char buf[64];
    memcpy(buf, c->s, (size_t)(p - c->s));
    buf[p - c->s] = '\0';
    errno = 0;
    char *end;
    const double v = strtod(buf, &end);
    /* out of range: muparser's stream may fail where strtod rounds, let it say */
    if (errno || *end || isinf(v)) return 0;
    c->s = p;
    add_val(c, v);
    return 1;
}

static int name_is(const char *s, size_t len, const char *name)
{
    return strlen(name) == len && memcmp(s, name, len) == 0;
}

/* name(args): muparser takes a name as a function only when "(" follows at once */
static void call(compiler *c, const char *name, size_t len)
{
    int f1 = -1, fv = -1;
    for (int i = 1; i < (int)N_FUN1; i++)
        if (name_is(name, len, fun1[i].name)) f1 = i;
    for (int i = 0; i < 4; i++)
        if (name_is(name, len, funv[i])) fv = i;
    const int f3 = name_is(name, len, "clamp");
    if (f1 < 0 && fv < 0 && !f3) {
        c->refused = 1;
        return;
    }
    c->s++; /* ( */
    int argc = 0;
    for (;;) {
        ternary(c);
        argc++;
        skip_space(c);
        if (c->refused) return;
        if (*c->s == ')') break;
        if (*c->s != ',' || argc >= 16) {
            c->refused = 1;
            return;
        }
        c->s++;
    }
    c->s++; /* ) */
    if (fv >= 0) {
        insn *t = emit(c, OP_FUNV);
        t->fn = (unsigned char)fv;
        t->arg = (short)argc;
        c->depth -= argc - 1;
    } else if (argc != (f3 ? 3 : 1)) {
        c->refused = 1;
    } else {
        add_fun(c, f3 ? 0 : f1, argc);
    }
}

static void primary(compiler *c)
{
    skip_space(c);
    const char ch = *c->s;
    if (ch == '(') {
        c->s++;
        ternary(c);
        skip_space(c);
        if (*c->s == ')')
            c->s++;
        else
            c->refused = 1;
        return;
    }
    if ((ch >= '0' && ch <= '9') || ch == '.') {
        if (!number(c)) c->refused = 1;
        return;
    }
    if (!is_name_char(ch)) {
        c->refused = 1;
        return;
    }
    const char *name = c->s;
    while (is_name_char(*c->s)) c->s++;
    const size_t len = (size_t)(c->s - name);
    if (*c->s == '(') {
        call(c, name, len);
        return;
    }
    for (int i = 0; i < c->nvars; i++)
        if (name_is(name, len, c->names[i])) {
            insn *t = emit(c, OP_VAR);
            t->var = i;
            t->mul = 1;
            grow(c, 1);
            return;
        }
    if (name_is(name, len, "_pi"))
        add_val(c, 3.141592653589); /* MathImpl::CONST_PI as g++ compiles it (__GNUG__) */
    else if (name_is(name, len, "_e"))
        add_val(c, 2.718281828459045235360287);
    else
        c->refused = 1;
}

/* A sign, then what it applies to: everything up to the next operator looser than ^ */
static void unary(compiler *c, int sign_allowed)
{
    skip_space(c);
    const char ch = *c->s;
    if (ch != '-' && ch != '+') {
        primary(c);
        return;
    }
    if (!sign_allowed) { /* muparser: "--t" is an error */
        c->refused = 1;
        return;
    }
    c->s++;
    binary_expr(c, 7, 0);
    if (ch == '-') add_fun(c, FUN_NEG, 1);
}

/* The binary operator at the cursor and its precedence, or 0 */
/* two-character operators before their one-character prefixes, as muparser's c_DefaultOprt */
static int binop(const char *s, int *op, int *len)
{
    static const struct {
        const char *text;
        int op, prec;
    } ops[] = {{"<=", OP_LE, 4}, {">=", OP_GE, 4}, {"!=", OP_NEQ, 4}, {"==", OP_EQ, 4}, {"<", OP_LT, 4},
               {">", OP_GT, 4},  {"+", OP_ADD, 5},  {"-", OP_SUB, 5},  {"*", OP_MUL, 6},  {"/", OP_DIV, 6},
               {"^", OP_POW, 7}, {"&&", OP_AND, 2}, {"||", OP_OR, 1}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        const size_t n = strlen(ops[i].text);
        if (strncmp(s, ops[i].text, n) == 0) {
            *op = ops[i].op;
            *len = (int)n;
            return ops[i].prec;
        }
    }
    return 0;
}

static void binary_expr(compiler *c, int min_prec, int sign_allowed)
{
    if (++c->nest > MAX_NEST) c->refused = 1;
    if (!c->refused) unary(c, sign_allowed);
    while (!c->refused) {
        skip_space(c);
        int op, len;
        const int prec = binop(c->s, &op, &len);
        if (!prec || prec < min_prec) break;
        c->s += len;
        binary_expr(c, op == OP_POW ? prec : prec + 1, 1);
        add_op(c, op);
    }
    c->nest--;
}

static void ternary(compiler *c)
{
    if (++c->nest > MAX_NEST) c->refused = 1;
    if (!c->refused) binary_expr(c, 1, 1);
    skip_space(c);
    if (!c->refused && *c->s == '?') {
        c->s++;
        const int at_if = c->n;
        emit(c, OP_IF);
        ternary(c);
        skip_space(c);
        if (*c->s == ':')
            c->s++;
        else
            c->refused = 1;
        if (!c->refused) {
            const int at_else = c->n;
            emit(c, OP_ELSE);
            ternary(c);
            c->code[at_if].arg = (short)(at_else - at_if);
            c->code[at_else].arg = (short)(c->n - at_else);
            emit(c, OP_ENDIF);
        }
    }
    c->nest--;
}

expr_native *expr_native_compile(const char *expr, const char *const *names, double *const *vars, int n)
{
    if (n > MAX_VARS || strlen(expr) >= MAX_LEN) return NULL;
    compiler *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->s = expr;
    c->names = names;
    c->nvars = n;
    ternary(c);
    skip_space(c);
    expr_native *p = NULL;
    if (!c->refused && *c->s == '\0') {
        emit(c, OP_END);
        p = c->refused ? NULL : malloc(sizeof *p + (size_t)c->n * sizeof(insn));
    }
    if (p) {
        p->n = n;
        for (int i = 0; i < n; i++) p->vars[i] = vars[i];
        memcpy(p->code, c->code, (size_t)c->n * sizeof(insn));
    }
    free(c);
    return p;
}

void expr_native_free(expr_native *p) { free(p); }
