/* CMA-ES: Hansen's (mu/mu_w, lambda)-CMA-ES with the default strategy parameters of "The CMA
 * Evolution Strategy: A Tutorial" (arXiv:1604.00772, Table 1 and Fig. 7), written here so the
 * optimizer has no dependency; optional IPOP restarts (Auger & Hansen 2005: lambda doubled on
 * each restart). Minimizes; unbounded (the caller maps bounds, see optim_map_bounds). */
#ifndef RODD_OPTIM_CMAES_H
#define RODD_OPTIM_CMAES_H

#include <stdint.h>

/* Evaluates k points X (k x n, row-major) into F; a failure is the caller's to turn into a
 * large value. Returns 0, or nonzero to stop the optimizer (reason "interrupted"). */
typedef int (*optim_batch_fn)(void *ctx, int k, const double *X, double *F);

typedef struct {
    int generation;     /* 1, 2, ... over restarts */
    int restart;        /* 0 for the first run */
    long evaluations;   /* so far, over restarts */
    double best;        /* best f so far */
    double gen_best, gen_mean;
    double sigma;
    const double *best_x; /* n: the best point so far (borrowed, valid during the call) */
    const double *x, *gradient; /* n each: a gradient method's point and its gradient there; NULL otherwise */
} optim_progress;
typedef void (*optim_progress_fn)(void *ctx, const optim_progress *p);

typedef struct {
    int n;
    const double *x0;      /* n: the first mean (borrowed) */
    double sigma0;
    int lambda;            /* 0: 4 + floor(3 ln n) */
    uint64_t seed;
    int restarts;          /* IPOP restarts after the first run stops without ftarget */
    long max_evals;        /* 0: no limit */
    double ftarget;        /* stop when f <= ftarget; -HUGE_VAL: never */
    double tolfun;         /* 0: 1e-12 (Hansen's default) */
    double tolx;           /* 0: 1e-11 sigma0 */
    optim_batch_fn eval;
    optim_progress_fn progress; /* NULL: none */
    void *ctx;
} cmaes_problem;

typedef struct {
    double *x;          /* n, the best point evaluated: the caller frees it */
    double f;
    long evaluations;
    int generations;
    int restarts;       /* done */
    int converged;      /* 1: ftarget, tolfun or tolx; 0: budget, condition or interrupt */
    char reason[32];    /* "ftarget", "tolfun", "tolx", "max_evaluations", "condition", "interrupted" */
} optim_result;

/* Runs to a stop; 0, or -1 (out of memory, bad problem) with res untouched. */
int cmaes_minimize(const cmaes_problem *p, optim_result *res);

/* The default population size for n parameters. */
int cmaes_default_lambda(int n);

/* Bounds by mapping: the unbounded u in R maps to [0, 1] by reflection (a triangle wave,
 * the identity on [0, 1]), so the optimizer's mean may leave the box while every evaluated
 * point lies in it. */
double optim_map_unit(double u);

#endif
