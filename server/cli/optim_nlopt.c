/* NLopt behind optim_nlopt.h: the method table, the objective with its gradient (the
 * caller's, or by finite differences), and NLopt's result codes turned into the reasons rodd optimize reports. */
#include "optim_nlopt.h"

#include <math.h>
#include <nlopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    nlopt_algorithm alg;
    int gradient;
} methods[] = {
    {"nelder-mead", NLOPT_LN_NELDERMEAD, 0}, {"sbplx", NLOPT_LN_SBPLX, 0}, {"bobyqa", NLOPT_LN_BOBYQA, 0},
    {"cobyla", NLOPT_LN_COBYLA, 0},          {"praxis", NLOPT_LN_PRAXIS, 0}, {"lbfgs", NLOPT_LD_LBFGS, 1},
    {"slsqp", NLOPT_LD_SLSQP, 1},            {"mma", NLOPT_LD_MMA, 1},
};
#define NMETHODS (int)(sizeof methods / sizeof *methods)

int optim_nlopt_known(const char *name, int *uses_gradient)
{
    for (int i = 0; i < NMETHODS; i++)
        if (strcmp(methods[i].name, name) == 0) {
            if (uses_gradient) *uses_gradient = methods[i].gradient;
            return 1;
        }
    return 0;
}

const char *optim_nlopt_names(void) { return "nelder-mead, sbplx, bobyqa, cobyla, praxis, lbfgs, slsqp, mma"; }

typedef struct {
    const nlopt_problem *p;
    double *X, *F;  /* 2n + 1 points */
    double *xbest, fbest;
    long evals;
    int calls, stopped, spent; /* spent: the next call would overrun max_evals */
    nlopt_opt opt;
} run;

static double objective(unsigned n, const double *x, double *grad, void *data)
{
    run *r = data;
    const nlopt_problem *p = r->p;
    int k = 1;
    if (r->stopped || r->spent) return HUGE_VAL; /* NLopt may call once more after a forced stop */
    if (grad && !p->grad) k = 1 + 2 * (int)n;
    /* NLopt's maxeval counts calls, and its L-BFGS checks it only after a line search (one call
     * more than asked): the budget of runs is held here */
    if (p->max_evals > 0 && r->evals + k > p->max_evals) {
        r->spent = 1;
        nlopt_force_stop(r->opt);
        return HUGE_VAL;
    }
    memcpy(r->X, x, sizeof(double) * n);
    if (grad && p->grad) { /* one evaluation gives both */
        if (p->grad(p->ctx, r->X, r->F, grad) != 0) {
            r->stopped = 1;
            nlopt_force_stop(r->opt);
            return HUGE_VAL;
        }
    } else if (grad) { /* central differences, inside the bounds: a one-sided step at a bound */
        for (unsigned i = 0; i < n; i++) {
            double h = (p->fd_step > 0 ? p->fd_step : 1e-6) * (p->ub[i] - p->lb[i]);
            double *xp = r->X + (size_t)(1 + 2 * i) * n, *xm = xp + n;
            memcpy(xp, x, sizeof(double) * n);
            memcpy(xm, x, sizeof(double) * n);
            xp[i] = fmin(x[i] + h, p->ub[i]);
            xm[i] = fmax(x[i] - h, p->lb[i]);
        }
    }
    if ((!grad || !p->grad) && p->eval(p->ctx, k, r->X, r->F) != 0) {
        r->stopped = 1;
        nlopt_force_stop(r->opt);
        return HUGE_VAL;
    }
    for (int j = 0; j < k; j++) {
        if (r->F[j] < r->fbest) {
            r->fbest = r->F[j];
            memcpy(r->xbest, r->X + (size_t)j * n, sizeof(double) * n);
        }
    }
    if (grad && !p->grad)
        for (unsigned i = 0; i < n; i++) {
            const double *xp = r->X + (size_t)(1 + 2 * i) * n, *xm = xp + n;
            grad[i] = (r->F[1 + 2 * i] - r->F[2 + 2 * i]) / (xp[i] - xm[i]);
        }
    r->evals += k;
    r->calls++;
    if (p->progress) {
        optim_progress pr = {r->calls, 0, r->evals, r->fbest, r->F[0], r->F[0], 0, r->xbest, x, grad};
        p->progress(p->ctx, &pr);
    }
    return r->F[0];
}

static const char *reason_of(nlopt_result rc, int stopped, int spent)
{
    if (stopped) return "interrupted";
    if (spent) return "max_evaluations"; /* NLopt may call that a failure when it was mid-search */
    switch (rc) {
    case NLOPT_STOPVAL_REACHED: return "ftarget";
    case NLOPT_FTOL_REACHED: return "ftol";
    case NLOPT_XTOL_REACHED: return "xtol";
    case NLOPT_MAXEVAL_REACHED: return "max_evaluations";
    case NLOPT_FORCED_STOP: return "max_evaluations";
    case NLOPT_SUCCESS: return "success";
    case NLOPT_ROUNDOFF_LIMITED: return "roundoff_limited";
    default: return "failure";
    }
}

int optim_nlopt_minimize(const nlopt_problem *p, optim_result *res, char *err, size_t errlen)
{
    int gradient = 0, n = p->n;
    nlopt_algorithm alg = NLOPT_LN_NELDERMEAD;
    if (!optim_nlopt_known(p->method, &gradient)) {
        snprintf(err, errlen, "unknown method \"%s\" (known: cmaes, %s)", p->method, optim_nlopt_names());
        return -1;
    }
    for (int i = 0; i < NMETHODS; i++)
        if (strcmp(methods[i].name, p->method) == 0) alg = methods[i].alg;
    run r = {.p = p, .fbest = HUGE_VAL};
    int k = gradient && !p->grad ? 1 + 2 * n : 1;
    r.X = malloc(sizeof(double) * n * k);
    r.F = malloc(sizeof(double) * k);
    r.xbest = malloc(sizeof(double) * n);
    double *x = malloc(sizeof(double) * n);
    r.opt = nlopt_create(alg, (unsigned)n);
    if (!r.X || !r.F || !r.xbest || !x || !r.opt) {
        snprintf(err, errlen, "out of memory");
        free(r.X), free(r.F), free(r.xbest), free(x);
        if (r.opt) nlopt_destroy(r.opt);
        return -1;
    }
    nlopt_srand(p->seed);
    memcpy(x, p->x0, sizeof(double) * n);
    memcpy(r.xbest, p->x0, sizeof(double) * n);
    nlopt_set_lower_bounds(r.opt, p->lb);
    nlopt_set_upper_bounds(r.opt, p->ub);
    nlopt_set_min_objective(r.opt, objective, &r);
    nlopt_set_xtol_rel(r.opt, p->xtol_rel > 0 ? p->xtol_rel : 1e-8);
    if (p->max_evals > 0) nlopt_set_maxeval(r.opt, (int)(p->max_evals / k > 0 ? p->max_evals / k : 1));
    if (isfinite(p->ftarget)) nlopt_set_stopval(r.opt, p->ftarget);
    /* the first step: a tenth of each range (NLopt's own guess reads x0 only) */
    double *dx = malloc(sizeof(double) * n);
    if (dx) {
        for (int i = 0; i < n; i++) dx[i] = 0.1 * (p->ub[i] - p->lb[i]);
        nlopt_set_initial_step(r.opt, dx);
        free(dx);
    }
    double fmin_out = HUGE_VAL;
    nlopt_result rc = nlopt_optimize(r.opt, x, &fmin_out);
    nlopt_destroy(r.opt);
    free(x);
    free(r.X);
    free(r.F);
    if (rc < 0 && rc != NLOPT_FORCED_STOP && rc != NLOPT_ROUNDOFF_LIMITED && !r.evals) {
        snprintf(err, errlen, "NLopt %s failed: %s", p->method, nlopt_result_to_string(rc));
        free(r.xbest);
        return -1;
    }
    res->x = r.xbest;
    res->f = r.fbest;
    res->evaluations = r.evals;
    res->generations = r.calls;
    res->restarts = 0;
    const char *why = reason_of(rc, r.stopped, r.spent);
    res->converged = rc == NLOPT_STOPVAL_REACHED || rc == NLOPT_FTOL_REACHED || rc == NLOPT_XTOL_REACHED ||
                     rc == NLOPT_SUCCESS;
    snprintf(res->reason, sizeof res->reason, "%s", why);
    return 0;
}
