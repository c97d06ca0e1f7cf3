/* The stepping API: CVODE's BDF (the counterpart of ode15s) with its dense direct solver on
 * y = [q; q_dot]. One integrator per state, with its own SUNDIALS context. */
#include "dynamics.h"

#include <cvode/cvode.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

struct dyn_solver {
    SUNContext ctx;
    void *mem;
    N_Vector y;
    SUNMatrix A;
    SUNLinearSolver LS;
    rod_dynamics_stats done; /* counters of integrator runs before the last restart */
    int failed;              /* the RHS failed: its message is in the state */
};

void dyn_solver_free(struct dyn_solver *d)
{
    if (!d) return;
    if (d->mem) CVodeFree(&d->mem);
    if (d->LS) SUNLinSolFree(d->LS);
    if (d->A) SUNMatDestroy(d->A);
    if (d->y) N_VDestroy(d->y);
    if (d->ctx) SUNContext_Free(&d->ctx);
    free(d);
}

static int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *data)
{
    rod_state *st = data;
    const rod_model *m = st->m;
    const int n = m->n;
    const double *q = N_VGetArrayPointer(y), *qd = q + n;
    double *out = N_VGetArrayPointer(ydot);
    memcpy(out, qd, (size_t)n * sizeof *out);
    if (dyn_accel(m, st, t, q, qd, out + n) != 0) {
        st->dyn->failed = 1;
        return -1; /* unrecoverable: an input or the state went bad */
    }
    return 0;
}

static void cv_error(int code, const char *module, const char *function, char *msg, void *data)
{
    (void)code;
    (void)module;
    rod_state *st = data;
    if (st->dyn && st->dyn->failed) return; /* keep the RHS's own message */
    state_set_error(st, "CVODE %s: %s", function, msg);
}

static void add_counters(struct dyn_solver *d, rod_dynamics_stats *acc)
{
    long v;
    if (CVodeGetNumSteps(d->mem, &v) == CV_SUCCESS) acc->steps += v;
    if (CVodeGetNumRhsEvals(d->mem, &v) == CV_SUCCESS) acc->rhs_evals += v;
    if (CVodeGetNumLinRhsEvals(d->mem, &v) == CV_SUCCESS) acc->rhs_evals_jacobian += v;
    if (CVodeGetNumJacEvals(d->mem, &v) == CV_SUCCESS) acc->jac_evals += v;
    if (CVodeGetNumErrTestFails(d->mem, &v) == CV_SUCCESS) acc->error_test_failures += v;
    if (CVodeGetNumNonlinSolvIters(d->mem, &v) == CV_SUCCESS) acc->newton_iterations += v;
}

/* (Re)starts the integrator at the state's (t, q, q_dot). */
static int dyn_restart(const rod_model *m, rod_state *st)
{
    struct dyn_solver *d = st->dyn;
    const int n = m->n;
    double *y = N_VGetArrayPointer(d->y);
    memcpy(y, st->q, (size_t)n * sizeof *y);
    memcpy(y + n, st->qd, (size_t)n * sizeof *y);
    d->failed = 0;
    int flag;
    if (!d->mem) {
        d->mem = CVodeCreate(CV_BDF, d->ctx);
        if (!d->mem) return ROD_ENOMEM;
        flag = CVodeInit(d->mem, rhs, st->t, d->y);
        if (flag == CV_SUCCESS) flag = CVodeSetUserData(d->mem, st);
        if (flag == CV_SUCCESS) flag = CVodeSetErrHandlerFn(d->mem, cv_error, st);
        if (flag == CV_SUCCESS) flag = CVodeSStolerances(d->mem, m->spec->rtol, m->spec->atol);
        if (flag == CV_SUCCESS) flag = CVodeSetLinearSolver(d->mem, d->LS, d->A);
        if (flag == CV_SUCCESS) flag = CVodeSetMaxNumSteps(d->mem, 200000);
    } else {
        add_counters(d, &d->done);
        flag = CVodeReInit(d->mem, st->t, d->y);
    }
    if (flag != CV_SUCCESS) {
        char *name = CVodeGetReturnFlagName(flag);
        state_set_error(st, "CVODE setup failed: %s", name ? name : "?");
        free(name);
        return ROD_ESOLVER;
    }
    st->need_reinit = 0;
    return ROD_OK;
}

int rod_dynamics_start(const rod_model *m, rod_state *st)
{
    st->err[0] = '\0';
    if (!st->dyn) {
        struct dyn_solver *d = calloc(1, sizeof *d);
        if (!d) return ROD_ENOMEM;
        st->dyn = d;
        if (SUNContext_Create(NULL, &d->ctx) != 0) return ROD_ENOMEM;
        d->y = N_VNew_Serial(2 * m->n, d->ctx);
        d->A = d->y ? SUNDenseMatrix(2 * m->n, 2 * m->n, d->ctx) : NULL;
        d->LS = d->A ? SUNLinSol_Dense(d->y, d->A, d->ctx) : NULL;
        if (!d->LS) {
            state_set_error(st, "out of memory creating the integrator");
            return ROD_ENOMEM;
        }
    } else {
        memset(&st->dyn->done, 0, sizeof st->dyn->done);
        if (st->dyn->mem) CVodeFree(&st->dyn->mem);
    }
    st->t = 0.0;
    memset(st->qd, 0, (size_t)m->n * sizeof *st->qd);
    if (m->spec->initial_static) {
        rod_statics_result res;
        int rc = rod_statics_solve(m, st, 0.0, &res);
        if (rc != ROD_OK) return rc;
    }
    return dyn_restart(m, st);
}

int rod_dynamics_advance(const rod_model *m, rod_state *st, double t_end)
{
    if (!st->dyn || !st->dyn->mem) {
        state_set_error(st, "dynamics not started");
        return ROD_EINVAL;
    }
    if (!(t_end >= st->t) || !isfinite(t_end)) {
        state_set_error(st, "cannot advance from t = %g to t = %g", st->t, t_end);
        return ROD_EINVAL;
    }
    if (t_end == st->t) return ROD_OK;
    if (st->need_reinit) {
        int rc = dyn_restart(m, st);
        if (rc != ROD_OK) return rc;
    }
    struct dyn_solver *d = st->dyn;
    st->err[0] = '\0';
    CVodeSetStopTime(d->mem, t_end);
    sunrealtype tret = st->t;
    int flag = CVode(d->mem, t_end, d->y, &tret, CV_NORMAL);
    if (flag < 0) {
        if (!st->err[0]) {
            char *name = CVodeGetReturnFlagName(flag);
            state_set_error(st, "CVODE failed at t = %g: %s", tret, name ? name : "?");
            free(name);
        }
        return ROD_ESOLVER;
    }
    const int n = m->n;
    const double *y = N_VGetArrayPointer(d->y);
    memcpy(st->q, y, (size_t)n * sizeof *y);
    memcpy(st->qd, y + n, (size_t)n * sizeof *y);
    st->t = tret;
    return ROD_OK;
}

int rod_dynamics_get_stats(const rod_state *st, rod_dynamics_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!st->dyn || !st->dyn->mem) return ROD_EINVAL;
    *out = st->dyn->done;
    add_counters(st->dyn, out);
    sunrealtype h;
    int q;
    if (CVodeGetLastStep(st->dyn->mem, &h) == CV_SUCCESS) out->last_step = h;
    if (CVodeGetLastOrder(st->dyn->mem, &q) == CV_SUCCESS) out->last_order = q;
    return ROD_OK;
}

void rod_state_mark_restart(rod_state *st)
{
    st->need_reinit = 1;
}
