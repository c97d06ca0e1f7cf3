/* The profiles' common expressions without muparser: loading Debian's libmuparser (with
 * libstdc++ and libgomp) costs a process 3.5-4 ms of CPU, more than checking a whole spec.
 * A strict subset of muparser 2.3.3's language is compiled here into the same bytecode
 * muparser builds, with its optimizer's rewrites (constant folding, x^2 as x*x, a*x+b fused),
 * so that every value is muparser's bit for bit (tests/unit/test_expr_native.c compares them).
 * Anything outside the subset, and every invalid expression, is "not native": the caller asks
 * muparser, which alone reports errors. */
#ifndef ROD_EXPR_NATIVE_H
#define ROD_EXPR_NATIVE_H

typedef struct expr_native expr_native;

/* The program for expr over the n variables names[i], read at evaluation from vars[i] (the
 * addresses must outlive the program), or NULL: muparser must answer (outside the subset,
 * invalid, or no memory). Thread-safe. */
expr_native *expr_native_compile(const char *expr, const char *const *names, double *const *vars, int n);
/* Its value at the variables' current values, without allocating. The program itself is
 * read-only, but its variables are shared: one program per thread, like a muparser handle. */
double expr_native_eval(const expr_native *p);
void expr_native_free(expr_native *p);

/* rodd's own functions, the same in muparser (profile.c defines them there) and here. */
double expr_native_heaviside(double x);
double expr_native_clamp(double x, double lo, double hi);

#endif
