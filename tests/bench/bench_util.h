/* Shared by the benchmark programs: a monotonic clock, a median, loading a spec. */
#ifndef RODD_BENCH_UTIL_H
#define RODD_BENCH_UTIL_H

#include "rod.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static inline int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts t in place (so t[0] and t[n-1] are the extremes) and returns the median. */
static inline double bench_median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, bench_cmp);
    return t[n / 2];
}

/* The model of a spec file with nsets "pointer=value" overrides, or NULL after printing its
   problems. */
static inline rod_model *bench_load_model_with(const char *path, const char *const *sets, int nsets)
{
    rod_issues iss;
    rod_issues_init(&iss);
    rod_model *m = rod_model_load(path, sets, nsets, &iss);
    if (!m) {
        char buf[2048];
        rod_issues_format(&iss, buf, sizeof buf);
        fprintf(stderr, "%s", buf);
    }
    rod_issues_free(&iss);
    return m;
}

/* The model of a spec file as written, or NULL after printing its problems. */
static inline rod_model *bench_load_model(const char *path)
{
    return bench_load_model_with(path, NULL, 0);
}

#endif
