/* Shared helpers for the Criterion suites. */
#ifndef RODD_TESTUTIL_H
#define RODD_TESTUTIL_H

#include "rod.h"

/* Compiles a spec from text; fails the test (with the issues) if it does not compile. */
rod_model *tu_model(const char *json);
/* Same with --set style overrides. */
rod_model *tu_model_set(const char *json, const char *const *sets, int nsets);
/* Compiles expecting failure; returns the issues formatted one per line (static buffer). */
const char *tu_issues(const char *json);
/* Solves statics at t = 0 and requires convergence; returns the state (caller frees). */
rod_state *tu_solve(const rod_model *m);
/* A new state with its dynamics started (rod_dynamics_start), or fails the test. */
rod_state *tu_started(const rod_model *m);
/* The frame of a state at n points (caller frees with rod_frame_free). */
rod_frame tu_frame(const rod_model *m, const rod_state *st, int n);
/* The mean period of x(t) from its upward crossings of its mean (linear interpolation);
 * *ncross gets their count, NAN with fewer than two. */
double tu_period(const double *t, const double *x, int n, int *ncross);
/* v[0..n-1] as JSON numbers joined by ", " (%.17g: they read back exactly), into buf of len
 * bytes (a spec's guess), or fails the test if they do not fit. */
void tu_json_numbers(char *buf, size_t len, const double *v, int n);
/* The centre of mass by the stations' quadrature, the state's poses first formed from its q
 * and q_dot (an advance leaves them at its last evaluation, not at its interpolated end). */
void tu_centre_of_mass(const rod_model *m, rod_state *st, double c[3]);
/* Reads a whole file (malloc'd, NUL-terminated) or fails the test. */
char *tu_read_file(const char *path);

#endif
