/* The stepping API: CVODE's BDF (the counterpart of ode15s) with its dense direct solver on
 * y = [q; q_dot]. One integrator per state, with its own SUNDIALS context (integrator.h). */
#include "one_rod.h"
#include "integrator.h"

#include "dynamics.h"

#include "base.h"
#include "constraints.h"
#include "contact.h"
#include "dense.h"
#include "galpha.h"
#include "linsol_reduced.h"

#include <cvode/cvode.h>
#include <cvode/cvode_proj.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunmatrix/sunmatrix_dense.h>

struct dyn_solver {
    SUNContext ctx;
    void *mem;
    N_Vector y;
    SUNMatrix A;
    SUNLinearSolver LS;
    rod_dynamics_stats done; /* counters of integrator runs before the last restart */
    int failed;              /* the RHS failed: its message is in the state */
    long jac_rhs;            /* q_ddot evaluations spent on Jacobians, over all restarts */
    galpha *ga;              /* solver.integrator "generalized-alpha": used instead of CVODE */
};

void integrator_free(struct dyn_solver *d)
{
    if (!d) return;
    galpha_free(d->ga);
    if (d->mem) CVodeFree(&d->mem);
    if (d->LS) SUNLinSolFree(d->LS);
    if (d->A) SUNMatDestroy(d->A);
    if (d->y) N_VDestroy(d->y);
    if (d->ctx) SUNContext_Free(&d->ctx);
    free(d);
}

static int interrupted(rod_state *st)
{
    return atomic_load_explicit(&st->interrupt, memory_order_relaxed) != 0;
}

static int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *data)
{
    rod_state *st = data;
    if (interrupted(st)) return -1;
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

/* The Jacobian of [q_dot; q_ddot] by forward differences of q_ddot only (the top block is
 * [0 I]). The increments scale with the coordinate but never fall below 1e-9: CVODE's own
 * difference quotient scales them by the error weights, and for coordinates near zero with a
 * small atol they sink into roundoff, which cost thousands of Jacobians on stiff, heavily
 * damped rods. The q_dot columns come first, after one evaluation at y itself: they keep its
 * kinematic Jacobians and mass matrix (dyn_accel_same_q), most of an evaluation's work. */
static int jacobian(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix Jm, void *data, N_Vector t1,
                    N_Vector t2, N_Vector t3)
{
    (void)t2;
    (void)t3;
    rod_state *st = data;
    const rod_model *m = st->m;
    const int n = m->n, N = 2 * n;
    double *yy = N_VGetArrayPointer(t1);
    const double *y0 = N_VGetArrayPointer(y), *f0 = N_VGetArrayPointer(fy);
    memcpy(yy, y0, (size_t)N * sizeof *yy);
    double *acc = st->vec_n;
    if (dyn_accel(m, st, t, y0, y0 + n, acc) != 0) {
        st->dyn->failed = 1;
        return -1;
    }
    st->dyn->jac_rhs++;
    for (int c = 0; c < N; c++) {
        const int j = (c + n) % N; /* q_dot's columns first */
        double *col = SUNDenseMatrix_Column(Jm, j);
        memset(col, 0, (size_t)N * sizeof *col);
        if (j >= n) col[j - n] = 1.0; /* d q_dot / d q_dot */
        if (interrupted(st)) return -1;
        const double h = 1.4901161193847656e-08 * fmax(fabs(y0[j]), 1e-1);
        yy[j] = y0[j] + h;
        const int rc = j >= n ? dyn_accel_same_q(m, st, t, yy, yy + n, acc) : dyn_accel(m, st, t, yy, yy + n, acc);
        if (rc != 0) {
            st->dyn->failed = 1;
            return -1;
        }
        yy[j] = y0[j];
        st->dyn->jac_rhs++;
        const double inv = 1.0 / h;
        for (int i = 0; i < n; i++) col[n + i] = (acc[i] - f0[n + i]) * inv;
    }
    return 0;
}

/* The Jacobian's stiff part only: q_ddot = M^{-1} (Q - K q - D q_dot) with Q's derivatives
 * dropped, so the lower block is -M^{-1} [K D] at the current mass matrix. One q_ddot
 * evaluation instead of 2n; Newton then converges on the stiff elastic and viscous modes and
 * treats the loads' (softer) derivatives as a perturbation. With solver.jacobian "contact",
 * the contacts' stiff part (the walls' k and gamma, the friction's creep slope) is kept in Q's
 * derivatives (contact_jacobian). */
static int jacobian_elastic(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix Jm, void *data,
                            N_Vector t1, N_Vector t2, N_Vector t3)
{
    (void)fy;
    (void)t2;
    (void)t3;
    rod_state *st = data;
    const rod_model *m = st->m;
    const int n = m->n, N = 2 * n, nx = m->n_xi, nr = m->n_rho;
    const double *y0 = N_VGetArrayPointer(y);
    if (interrupted(st)) return -1;
    double *acc = N_VGetArrayPointer(t1);
    if (dyn_accel(m, st, t, y0, y0 + n, acc) != 0) { /* leaves M's Cholesky factor in st->Mxi */
        st->dyn->failed = 1;
        return -1;
    }
    st->dyn->jac_rhs++;
    for (int j = 0; j < N; j++) {
        double *col = SUNDenseMatrix_Column(Jm, j);
        memset(col, 0, (size_t)N * sizeof *col);
        if (j >= n) col[j - n] = 1.0;
        const double *src = j < n ? m->K + (size_t)n * j : m->D + (size_t)n * (j - n);
        for (int i = 0; i < n; i++) col[n + i] = -src[i];
        constraints_penalty_column(m, st, j < n ? j : j - n, j >= n, col + n);
    }
    if (m->spec->jacobian_contact) /* the lower blocks [dQ/dq dQ/dq_dot], leading dimension N */
        contact_jacobian(m, st, y0, st->eta, t, 1.0, SUNDenseMatrix_Column(Jm, 0) + n, 1.0,
                         SUNDenseMatrix_Column(Jm, n) + n, N);
    for (int j = 0; j < N; j++) {
        double *col = SUNDenseMatrix_Column(Jm, j);
        if (nx) dense_cholesky_solve(st->Mxi, nx, col + n);
        if (nr) dense_cholesky_solve(m->Mrho_chol, nr, col + n + nx);
        constraints_project_column(m, st, col + n);
    }
    return 0;
}

/* After each step: (q, q_dot) back onto the multiplier constraints' c = 0, c_dot = 0. */
static int project(sunrealtype t, N_Vector ycur, N_Vector corr, sunrealtype eps, N_Vector err,
                   void *data)
{
    (void)eps;
    (void)err;
    rod_state *st = data;
    const int n = st->m->n;
    const double *y = N_VGetArrayPointer(ycur);
    double *c = N_VGetArrayPointer(corr);
    memcpy(c, y, (size_t)2 * n * sizeof *c);
    if (interrupted(st)) return -1;
    if (dyn_project(st->m, st, t, c, c + n) != 0) return 1; /* recoverable: a smaller step */
    for (int i = 0; i < 2 * n; i++) c[i] -= y[i];
    return 0;
}

void integrator_cvode_error(rod_state *st, int flag, double t)
{
    if (st->err[0]) return; /* a right-hand side already said what went wrong */
    char *name = CVodeGetReturnFlagName(flag);
    state_set_error(st, "CVODE failed at t = %g: %s", t, name ? name : "?");
    free(name);
}

int dyn_step_boundary(const rod_state *st, double *t)
{
    const struct dyn_solver *d = st->dyn;
    if (!d || !d->mem || d->ga || st->need_reinit) return 0;
    sunrealtype tc;
    if (CVodeGetCurrentTime(d->mem, &tc) != CV_SUCCESS || !(tc >= st->t)) return 0;
    *t = tc;
    return 1;
}

/* Consistent initial conditions: (q, q_dot) on the constraints at the state's time. */
static int make_consistent(const rod_model *m, rod_state *st)
{
    if (!constraints_nmult(m)) return ROD_OK;
    /* the projection's metric is M: evaluate it at the state first */
    if (dyn_accel(m, st, st->t, st->q, st->qd, st->vec_n) != 0 ||
        dyn_project(m, st, st->t, st->q, st->qd) != 0) {
        char prev[sizeof st->err];
        snprintf(prev, sizeof prev, "%s", st->err);
        /* a static start helps a target away from the rest shape, not rows that depend on
         * each other */
        state_set_error(st, "no consistent initial state: %s%s", prev,
                        constraints_dependent(st) ? "" : " (start from \"initial\": \"static\" when "
                        "the constraints' targets at t = 0 are away from the rest shape)");
        return ROD_ESOLVER;
    }
    return ROD_OK;
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
    if (CVodeGetNumJacEvals(d->mem, &v) == CV_SUCCESS) acc->jac_evals += v;
    if (CVodeGetNumErrTestFails(d->mem, &v) == CV_SUCCESS) acc->error_test_failures += v;
    if (CVodeGetNumNonlinSolvIters(d->mem, &v) == CV_SUCCESS) acc->newton_iterations += v;
}

/* CVODE gets at most this many steps per call; an advance that needs more calls again as long
 * as each call moved time on. A call whose steps averaged under STUCK_MEAN_STEP (relative to
 * max(1, |t|)) is stuck: a rod driven past what it can follow shrinks its steps toward
 * roundoff and would grind there through millions of them. Passing a jump in a load takes
 * steps down to atol / (jump in acceleration), often 1e-13 s, but only for a few dozen. */
#define STEPS_PER_CALL INTEGRATOR_STEPS_PER_CALL
#define STUCK_MEAN_STEP 1e-13

int integrator_stuck(rod_state *st, void *cvode_mem, double t_before, double tret)
{
    if (tret - t_before < STUCK_MEAN_STEP * STEPS_PER_CALL * fmax(1.0, fabs(tret))) {
        sunrealtype h = 0;
        CVodeGetCurrentStep(cvode_mem, &h);
        state_set_error(st,
                        "the integrator is stuck at t = %.9g: %d steps moved it %.3g s (step %.3g s); "
                        "the model is driven past what it can follow (a force far beyond its "
                        "stiffness, or a state it cannot reach)",
                        tret, STEPS_PER_CALL, tret - t_before, h);
        return 1;
    }
    st->err[0] = '\0';
    return 0;
}

/* A free base's chart (base.h): CVODE stops where the base's rotation coordinates reach
 * 3 pi / 2, and the advance re-charts and restarts there. */
static int chart_root(sunrealtype t, N_Vector y, sunrealtype *gout, void *data)
{
    (void)t;
    const rod_state *st = data;
    gout[0] = base_free_chart_root(st->m, N_VGetArrayPointer(y));
    return 0;
}

/* (Re)starts the integrator at the state's (t, q, q_dot). */
/* rtol for all; atol for q and atol / rate_time_scale for q_dot, whose units are q's per
 * second: an error in a rate weighs as the error it makes in q over that time. One scalar for
 * both (the scale's default 1 s) holds the rates to 1e-5 per second where the strains are held
 * to 1e-5, and on the reaching arm the rates' near-zero components, not the strains, set the
 * step (its largest weighted local errors were the rates'). */
static int set_tolerances(const rod_model *m, struct dyn_solver *d)
{
    const rod_spec *sp = m->spec;
    if (sp->rate_time_scale == 1.0) return CVodeSStolerances(d->mem, sp->rtol, sp->atol);
    N_Vector av = N_VClone(d->y);
    if (!av) return CV_MEM_FAIL;
    double *a = N_VGetArrayPointer(av);
    for (int i = 0; i < m->n; i++) a[i] = sp->atol, a[m->n + i] = sp->atol / sp->rate_time_scale;
    const int flag = CVodeSVtolerances(d->mem, sp->rtol, av);
    N_VDestroy(av);
    return flag;
}

static int dyn_restart(const rod_model *m, rod_state *st)
{
    struct dyn_solver *d = st->dyn;
    const int n = m->n;
    if (d->ga) {
        if (constraints_nmult(m)) {
            state_set_error(st, "the generalized-alpha integrator does not keep multiplier "
                            "constraints (it has no projection onto them): use solver.integrator "
                            "\"bdf\" or penalty constraints");
            return ROD_EINVAL;
        }
        base_free_rechart(m, st->q, st->qd); /* free base: |rotation coordinates| <= pi */
        int rc = galpha_restart(d->ga, m, st);
        if (rc == ROD_OK) st->need_reinit = 0;
        return rc;
    }
    base_free_rechart(m, st->q, st->qd); /* free base: |rotation coordinates| <= pi */
    int rc = make_consistent(m, st);
    if (rc != ROD_OK) return rc;
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
        if (flag == CV_SUCCESS) flag = set_tolerances(m, d);
        if (flag == CV_SUCCESS) flag = CVodeSetLinearSolver(d->mem, d->LS, d->A);
        if (flag == CV_SUCCESS)
            flag = CVodeSetJacFn(d->mem, m->spec->jacobian_elastic ? jacobian_elastic : jacobian);
        if (flag == CV_SUCCESS) flag = CVodeSetMaxNumSteps(d->mem, STEPS_PER_CALL);
        /* lightly damped modes put eigenvalues near the imaginary axis, where BDF of order
         * 3 and up is unstable: let CVODE detect it and lower the order */
        if (flag == CV_SUCCESS) flag = CVodeSetStabLimDet(d->mem, SUNTRUE);
        if (flag == CV_SUCCESS && base_free(m)) flag = CVodeRootInit(d->mem, 1, chart_root);
        if (flag == CV_SUCCESS && constraints_nmult(m)) {
            flag = CVodeSetProjFn(d->mem, project);
            if (flag == CV_SUCCESS) flag = CVodeSetProjErrEst(d->mem, SUNFALSE);
        }
    } else {
        add_counters(d, &d->done);
        flag = CVodeReInit(d->mem, st->t, d->y);
    }
    if (flag != CV_SUCCESS) {
        char *name = CVodeGetReturnFlagName(flag);
        state_set_error(st, "CVODE setup failed: %s", name ? name : "?");
        free(name);
        /* a half-set-up CVODE must not be reinitialised next time as if it were whole */
        if (d->mem) CVodeFree(&d->mem);
        st->need_reinit = 1;
        return ROD_ESOLVER;
    }
    st->need_reinit = 0;
    return ROD_OK;
}

/* The constraints' reactions and violations at the state, for frames. CVODE's output is its
 * interpolant between steps, which sit on the constraints (projected) while the interpolant
 * drifts off by the local error: put the output back as well, in the metric of the last M
 * evaluated. */
static void record_constraints(const rod_model *m, rod_state *st)
{
    if (!m->con) return;
    if (constraints_nmult(m) && dyn_project(m, st, st->t, st->q, st->qd) != 0) st->err[0] = '\0';
    if (dyn_accel(m, st, st->t, st->q, st->qd, st->vec_n) != 0) return;
    constraints_record(m, st, NULL);
}

int integrator_prepare(const rod_model *m, rod_state *st)
{
    st->err[0] = '\0';
    if (!st->dyn) {
        struct dyn_solver *d = calloc(1, sizeof *d);
        if (!d) {
            state_set_error(st, "out of memory creating the integrator");
            return ROD_ENOMEM;
        }
        if (SUNContext_Create(NULL, &d->ctx) != 0) d->ctx = NULL;
        d->y = d->ctx ? N_VNew_Serial(2 * m->n, d->ctx) : NULL;
        d->A = d->y ? SUNDenseMatrix(2 * m->n, 2 * m->n, d->ctx) : NULL;
        /* the Newton systems solved through their n x n Schur complement */
        d->LS = d->A ? linsol_reduced_create(m->n, d->ctx) : NULL;
        if (d->LS && m->spec->integrator == INTEGRATOR_GALPHA) d->ga = galpha_create(m);
        if (!d->LS || (m->spec->integrator == INTEGRATOR_GALPHA && !d->ga)) {
            /* nothing half-built stays attached: the next start tries again from scratch */
            integrator_free(d);
            state_set_error(st, "out of memory creating the integrator");
            return ROD_ENOMEM;
        }
        st->dyn = d;
    } else if (st->dyn->ga) {
        galpha *ga = galpha_create(m); /* fresh counters */
        if (!ga) {
            state_set_error(st, "out of memory creating the integrator");
            return ROD_ENOMEM;
        }
        galpha_free(st->dyn->ga);
        st->dyn->ga = ga;
    } else {
        memset(&st->dyn->done, 0, sizeof st->dyn->done);
        st->dyn->jac_rhs = 0;
        if (st->dyn->mem) CVodeFree(&st->dyn->mem);
    }
    st->t = 0.0;
    memset(st->qd, 0, (size_t)m->n * sizeof *st->qd);
    state_input_chains_clear(st);
    return ROD_OK;
}

int integrator_begin(const rod_model *m, rod_state *st)
{
    int rc = dyn_restart(m, st);
    if (rc == ROD_OK) record_constraints(m, st);
    return rc;
}

int dynamics_advance_one(const rod_model *m, rod_state *st, double t_end)
{
    if (!st->dyn || (!st->dyn->mem && !st->dyn->ga)) {
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
    if (d->ga) {
        const int rc = galpha_advance(d->ga, m, st, t_end);
        if (rc == ROD_OK) record_constraints(m, st); /* the penalties' forces for frames */
        return rc;
    }
    /* no stop time: CVODE steps past t_end as its error control likes and interpolates back,
     * so frequent frames do not cut its steps short; its steps are held to moving obstacles'
     * pace over this advance and as long again after it (contact_obstacle_step_bound) */
    if (m->spec->nobstacles > 0) {
        const double hmax = contact_obstacle_step_bound(m, st, st->t, t_end + (t_end - st->t));
        CVodeSetMaxStep(d->mem, isfinite(hmax) ? hmax : 0.0);
    }
    sunrealtype tret = st->t;
    int flag;
    for (;;) {
        const double t_before = tret;
        flag = CVode(d->mem, t_end, d->y, &tret, CV_NORMAL);
        if (flag == CV_ROOT_RETURN) { /* a free base's chart is used up: re-chart there */
            memcpy(st->q, N_VGetArrayPointer(d->y), (size_t)m->n * sizeof *st->q);
            memcpy(st->qd, N_VGetArrayPointer(d->y) + m->n, (size_t)m->n * sizeof *st->qd);
            st->t = tret;
            const int rc = dyn_restart(m, st);
            if (rc != ROD_OK) return rc;
            continue;
        }
        if (flag != CV_TOO_MUCH_WORK) break;
        if (integrator_stuck(st, d->mem, t_before, tret)) return ROD_ESOLVER;
    }
    if (flag < 0 && atomic_exchange(&st->interrupt, 0)) {
        /* CVODE's history has moved past the state we keep: restart from that state */
        st->need_reinit = 1;
        state_set_error(st, "interrupted at t = %g", st->t);
        return ROD_EINTERRUPTED;
    }
    if (flag < 0) {
        integrator_cvode_error(st, flag, tret);
        return ROD_ESOLVER;
    }
    const int n = m->n;
    const double *y = N_VGetArrayPointer(d->y);
    memcpy(st->q, y, (size_t)n * sizeof *y);
    memcpy(st->qd, y + n, (size_t)n * sizeof *y);
    st->t = tret;
    record_constraints(m, st);
    return ROD_OK;
}

int dynamics_stats_one(const rod_state *st, rod_dynamics_stats *out)
{
    memset(out, 0, sizeof *out);
    if (st->dyn && st->dyn->ga) {
        galpha_add_stats(st->dyn->ga, out);
        return ROD_OK;
    }
    if (!st->dyn || !st->dyn->mem) return ROD_EINVAL;
    *out = st->dyn->done;
    add_counters(st->dyn, out);
    out->rhs_evals_jacobian = st->dyn->jac_rhs;
    sunrealtype h;
    int q;
    if (CVodeGetLastStep(st->dyn->mem, &h) == CV_SUCCESS) out->last_step = h;
    if (CVodeGetLastOrder(st->dyn->mem, &q) == CV_SUCCESS) out->last_order = q;
    return ROD_OK;
}
