/* Several rods in time (asm.h): CVODE's BDF on y = [q; q_dot] of all of them with
 * asm_accel's constrained accelerations, a dense difference Jacobian taken rod by rod, the joints'
 * drift pulled back by asm_accel's Baumgarte terms. The state's q, q_dot and t are the
 * assembly's (st->as); each rod's own state serves as its scratch and holds its inputs. */
#include "asm.h"
#include "contact.h"

#include "base.h"
#include "integrator.h"
#include "linsol_reduced.h"
#include "one_rod.h"

#include <cvode/cvode.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

struct asm_solver {
    SUNContext ctx;
    void *mem;
    N_Vector y;
    SUNMatrix A;
    SUNLinearSolver LS;
    rod_dynamics_stats done; /* counters of the runs before the last restart */
};

enum { STEPS_PER_CALL = INTEGRATOR_STEPS_PER_CALL };

void asm_integrator_free(struct asm_solver *d)
{
    if (!d) return;
    if (d->mem) CVodeFree(&d->mem);
    if (d->LS) SUNLinSolFree(d->LS);
    if (d->A) SUNMatDestroy(d->A);
    if (d->y) N_VDestroy(d->y);
    if (d->ctx) SUNContext_Free(&d->ctx);
    free(d);
}

static int rhs(sunrealtype t, N_Vector y, N_Vector yd, void *data)
{
    rod_state *st = data;
    const rod_model *m = st->m;
    if (atomic_load_explicit(&st->interrupt, memory_order_relaxed)) return -1;
    const int n = m->as->n;
    const double *q = N_VGetArrayPointer(y);
    double *o = N_VGetArrayPointer(yd);
    memcpy(o, q + n, (size_t)n * sizeof *o);
    if (asm_accel(m, st, t, q, q + n, o + n, asm_alpha(m))) return -1;
    for (int i = 0; i < n; i++)
        if (!isfinite(o[n + i])) return 1; /* recoverable: CVODE tries a shorter step */
    return 0;
}

/* The Jacobian of [q_dot; q_ddot] by differences, rod by rod: a column perturbs one rod's q
 * or q_dot, so only that rod's own accelerations are evaluated again (the others' stay in
 * their states) before the joints' multipliers are solved anew: about a rod's evaluation per
 * column instead of the whole model's. */
static int jacobian(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix Jm, void *data, N_Vector t1,
                    N_Vector t2, N_Vector t3)
{
    (void)fy, (void)t3;
    rod_state *st = data;
    const rod_model *m = st->m;
    const assembly *a = m->as;
    const int n = a->n;
    double *yv = N_VGetArrayPointer(y), *U0 = N_VGetArrayPointer(t1), *U = N_VGetArrayPointer(t2);
    double *q = yv, *qd = yv + n;
    const double alpha = asm_alpha(m);
    for (int i = 0; i < a->nrods; i++)
        if (asm_accel_rod(m, st, i, t, q, qd, U0)) return -1;
    double *a0 = malloc((size_t)n * sizeof *a0);
    if (!a0) return -1;
    memcpy(a0, U0, (size_t)n * sizeof *a0);
    if (asm_join(m, st, q, qd, a0, alpha)) {
        free(a0);
        return -1;
    }
    for (int j = 0; j < n; j++) { /* d q_dot / d q_dot = I */
        double *col = SUNDenseMatrix_Column(Jm, n + j);
        memset(col, 0, (size_t)n * sizeof *col);
        col[j] = 1;
        memset(SUNDenseMatrix_Column(Jm, j), 0, (size_t)n * sizeof(double));
    }
    int rc = 0;
    for (int i = 0; i < a->nrods && !rc; i++) {
        const int o = a->off[i], ni = a->rod[i]->n;
        for (int c = 0; c < 2 * ni && !rc; c++) {
            double *v = c < ni ? q + o + c : qd + o + c - ni;
            const double keep = *v, h = 1e-7 * fmax(1.0, fabs(keep));
            *v = keep + h;
            memcpy(U, U0, (size_t)n * sizeof *U);
            rc = asm_accel_rod(m, st, i, t, q, qd, U) || asm_join(m, st, q, qd, U, alpha);
            *v = keep;
            double *col = SUNDenseMatrix_Column(Jm, c < ni ? o + c : n + o + c - ni) + n;
            for (int k = 0; k < n; k++) col[k] = (U[k] - a0[k]) / h;
        }
        if (!rc) rc = asm_accel_rod(m, st, i, t, q, qd, U); /* the rod's state back at y */
    }
    free(a0);
    return rc ? -1 : 0;
}

static void cv_error(int code, const char *module, const char *function, char *msg, void *data)
{
    (void)code, (void)module;
    rod_state *st = data;
    if (!st->err[0]) state_set_error(st, "%s: %s", function, msg);
}

static void add_stats(void *mem, rod_dynamics_stats *acc)
{
    long v;
    if (CVodeGetNumSteps(mem, &v) == CV_SUCCESS) acc->steps += v;
    if (CVodeGetNumRhsEvals(mem, &v) == CV_SUCCESS) acc->rhs_evals += v;
    if (CVodeGetNumLinRhsEvals(mem, &v) == CV_SUCCESS) acc->rhs_evals_jacobian += v;
    if (CVodeGetNumJacEvals(mem, &v) == CV_SUCCESS) acc->jac_evals += v;
    if (CVodeGetNumErrTestFails(mem, &v) == CV_SUCCESS) acc->error_test_failures += v;
    if (CVodeGetNumNonlinSolvIters(mem, &v) == CV_SUCCESS) acc->newton_iterations += v;
}

/* free bases back to |rotation coordinates| <= pi (base.h's chart) */
static void rechart(const rod_model *m, asm_state *as)
{
    const assembly *a = m->as;
    for (int i = 0; i < a->nrods; i++)
        if (a->rod[i]->base_col >= 0) base_free_rechart(a->rod[i], as->q + a->off[i], as->qd + a->off[i]);
}

static int restart(const rod_model *m, rod_state *st)
{
    asm_state *as = st->as;
    const assembly *a = m->as;
    const int n = a->n;
    if (!as->dyn) {
        as->dyn = calloc(1, sizeof *as->dyn);
        if (!as->dyn) goto nomem;
        if (SUNContext_Create(NULL, &as->dyn->ctx) != 0) goto nomem;
        as->dyn->y = N_VNew_Serial(2 * n, as->dyn->ctx);
        as->dyn->A = as->dyn->y ? SUNDenseMatrix(2 * n, 2 * n, as->dyn->ctx) : NULL;
        /* the Newton matrix [[I, -gamma I], [BL, BR]] solved as its n x n Schur complement */
        as->dyn->LS = as->dyn->A ? linsol_reduced_create(n, as->dyn->ctx) : NULL;
        if (!as->dyn->LS) goto nomem;
    }
    struct asm_solver *d = as->dyn;
    rechart(m, as);
    double *y = N_VGetArrayPointer(d->y);
    memcpy(y, as->q, (size_t)n * sizeof *y);
    memcpy(y + n, as->qd, (size_t)n * sizeof *y);
    int flag;
    if (!d->mem) {
        d->mem = CVodeCreate(CV_BDF, d->ctx);
        if (!d->mem) goto nomem;
        const rod_spec *sp = a->rod[0]->spec;
        flag = CVodeInit(d->mem, rhs, as->t, d->y);
        if (flag == CV_SUCCESS) flag = CVodeSetUserData(d->mem, st);
        if (flag == CV_SUCCESS) flag = CVodeSetErrHandlerFn(d->mem, cv_error, st);
        if (flag == CV_SUCCESS) {
            N_Vector av = N_VClone(d->y);
            if (!av) goto nomem;
            double *v = N_VGetArrayPointer(av);
            for (int i = 0; i < n; i++) v[i] = sp->atol, v[n + i] = sp->atol / sp->rate_time_scale;
            flag = CVodeSVtolerances(d->mem, sp->rtol, av);
            N_VDestroy(av);
        }
        if (flag == CV_SUCCESS) flag = CVodeSetLinearSolver(d->mem, d->LS, d->A);
        if (flag == CV_SUCCESS) flag = CVodeSetJacFn(d->mem, jacobian);
        if (flag == CV_SUCCESS) flag = CVodeSetMaxNumSteps(d->mem, STEPS_PER_CALL);
        if (flag == CV_SUCCESS) flag = CVodeSetStabLimDet(d->mem, SUNTRUE);
    } else {
        add_stats(d->mem, &d->done);
        flag = CVodeReInit(d->mem, as->t, d->y);
    }
    if (flag != CV_SUCCESS) {
        state_set_error(st, "CVODE setup failed (%d)", flag);
        return ROD_ESOLVER;
    }
    as->need_reinit = 0;
    st->need_reinit = 0;
    for (int i = 0; i < a->nrods; i++) as->rod[i]->need_reinit = 0;
    return ROD_OK;
nomem:
    state_set_error(st, "out of memory starting the integrator");
    return ROD_ENOMEM;
}

/* the joints' reactions at the state's (t, q, q_dot), for frames */
static int record(const rod_model *m, rod_state *st)
{
    asm_state *as = st->as;
    double *qdd = malloc((size_t)(m->as->n ? m->as->n : 1) * sizeof *qdd);
    if (!qdd) return ROD_ENOMEM;
    const int rc = asm_accel(m, st, as->t, as->q, as->qd, qdd, asm_alpha(m));
    free(qdd);
    return rc ? ROD_ESOLVER : ROD_OK;
}

int asm_start(const rod_model *m, rod_state *st, int static_start)
{
    asm_state *as = st->as;
    const assembly *a = m->as;
    as->t = 0;
    for (int i = 0; i < a->nrods; i++) state_input_chains_clear(as->rod[i]);
    asm_place(m, st, 0.0, as->q, as->qd);
    asm_sync(m, st);
    if (static_start && a->initial_static) {
        rod_statics_result res;
        const int rc = asm_statics(m, st, 0.0, &res);
        if (rc != ROD_OK) return rc;
        asm_ride(m, st, 0.0, as->q, as->qd); /* statics held a moving body still */
        asm_sync(m, st);
    }
    as->started = 1;
    as->need_reinit = 1;
    return record(m, st);
}

int asm_advance(const rod_model *m, rod_state *st, double t_end)
{
    asm_state *as = st->as;
    const assembly *a = m->as;
    if (!as->started) {
        state_set_error(st, "dynamics not started");
        return ROD_EINVAL;
    }
    if (!(t_end >= as->t) || !isfinite(t_end)) {
        state_set_error(st, "cannot advance from t = %g to t = %g", as->t, t_end);
        return ROD_EINVAL;
    }
    if (t_end == as->t) return ROD_OK;
    int reinit = as->need_reinit || st->need_reinit;
    for (int i = 0; i < a->nrods; i++) reinit |= as->rod[i]->need_reinit;
    for (int i = 0; i < a->nrods; i++)
        if (a->rod[i]->base_col >= 0 && base_free_chart_root(a->rod[i], as->q + a->off[i]) < 0) reinit = 1;
    if (reinit) {
        const int rc = restart(m, st);
        if (rc != ROD_OK) return rc;
    }
    struct asm_solver *d = as->dyn;
    st->err[0] = '\0';
    /* steps held to moving obstacles' pace, as one rod's (integrator.c) */
    double hmax = INFINITY;
    for (int i = 0; i < a->nrods; i++)
        if (a->rod[i]->spec->nobstacles > 0)
            hmax = fmin(hmax, contact_obstacle_step_bound(a->rod[i], as->rod[i], as->t, t_end + (t_end - as->t)));
    CVodeSetMaxStep(d->mem, isfinite(hmax) ? hmax : 0.0);
    sunrealtype tret = as->t;
    int flag;
    for (;;) {
        const double t_before = tret;
        flag = CVode(d->mem, t_end, d->y, &tret, CV_NORMAL);
        if (flag != CV_TOO_MUCH_WORK) break;
        if (integrator_stuck(st, d->mem, t_before, tret)) { /* as one rod's integrator judges it */
            as->need_reinit = 1;
            return ROD_ESOLVER;
        }
    }
    if (flag < 0 && atomic_exchange(&st->interrupt, 0)) {
        as->need_reinit = 1;
        state_set_error(st, "interrupted at t = %g", as->t);
        return ROD_EINTERRUPTED;
    }
    if (flag < 0) {
        integrator_cvode_error(st, flag, tret);
        return ROD_ESOLVER;
    }
    const int n = a->n;
    const double *y = N_VGetArrayPointer(d->y);
    memcpy(as->q, y, (size_t)n * sizeof *y);
    memcpy(as->qd, y + n, (size_t)n * sizeof *y);
    as->t = tret;
    asm_sync(m, st);
    return record(m, st);
}

int asm_stats(const rod_state *st, rod_dynamics_stats *out)
{
    memset(out, 0, sizeof *out);
    const struct asm_solver *d = st->as->dyn;
    if (!d || !d->mem) return ROD_EINVAL;
    *out = d->done;
    add_stats(d->mem, out);
    sunrealtype h;
    int q;
    if (CVodeGetLastStep(d->mem, &h) == CV_SUCCESS) out->last_step = h;
    if (CVodeGetLastOrder(d->mem, &q) == CV_SUCCESS) out->last_order = q;
    return ROD_OK;
}
