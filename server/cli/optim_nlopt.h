/* The local and derivative-free methods of NLopt (Debian's libnlopt) behind the same batch
 * evaluation and result as optim_cmaes.h. Gradients for the gradient methods (lbfgs, slsqp,
 * mma) come from the caller's grad function where it gives one (rodd optimize's statics:
 * optim_gradient.h), else from central finite differences, 2 n more evaluations as one batch. */
#ifndef RODD_OPTIM_NLOPT_H
#define RODD_OPTIM_NLOPT_H

#include "optim_cmaes.h"

#include <stddef.h>

/* The objective at one point x (n) into *f and its gradient into g (n): 0, or nonzero to stop
 * the optimizer (reason "interrupted"); a failed point is the caller's to make a large f. */
typedef int (*optim_grad_fn)(void *ctx, const double *x, double *f, double *g);

typedef struct {
    const char *method;    /* nelder-mead, sbplx, bobyqa, cobyla, praxis, lbfgs, slsqp, mma */
    int n;
    const double *x0, *lb, *ub; /* n each, borrowed */
    long max_evals;        /* objective evaluations, finite differences included, never overrun (at least
                            * 2n + 1 for a gradient method on differences: the caller checks); 0: no limit */
    double ftarget;        /* -HUGE_VAL: none */
    double xtol_rel;       /* 0: 1e-8 */
    double fd_step;        /* relative to ub - lb; 0: 1e-6 */
    unsigned long seed;    /* NLopt's random numbers (praxis), so that a run repeats exactly */
    optim_batch_fn eval;
    optim_grad_fn grad;    /* NULL: the gradient methods' gradients by central differences of eval */
    optim_progress_fn progress; /* after each evaluation of f (and its gradient) */
    void *ctx;
} nlopt_problem;

/* 1 if NAME is a method here (and *uses_gradient set), else 0. */
int optim_nlopt_known(const char *name, int *uses_gradient);
/* The names, comma-separated, for messages. */
const char *optim_nlopt_names(void);
/* Runs to a stop; 0 (res filled, res->x the caller's to free), or -1 with a message in err. */
int optim_nlopt_minimize(const nlopt_problem *p, optim_result *res, char *err, size_t errlen);

#endif
