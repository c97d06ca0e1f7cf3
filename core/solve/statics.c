/* Statics (Eqs. 57-58): K q - B u - F(q) = 0 solved by KINSOL's Newton method with a line
 * search (among obstacles: by statics_solve_walls in statics_walls.c, a Newton whose steps see the walls they meet);
 * when the full load does not converge, the loads are applied in steps (natural
 * continuation from the unloaded straight rod, which is an exact solution at zero load). */
#include "one_rod.h"
#include "base.h"
#include "constraints.h"
#include "dense.h"
#include "dynamics.h"
#include "state.h"
#include "statics_ctx.h"

#include <kinsol/kinsol.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

enum { MAX_SETUP_CALLS = 5 };

static int kin_residual(N_Vector u, N_Vector f, void *data)
{
    statics_ctx *c = data;
    if (statics_ctx_residual(c, N_VGetArrayPointer(u), N_VGetArrayPointer(f)) != 0) {
        c->failed = 1;
        return -1;
    }
    for (sunindextype i = 0; i < c->N; i++)
        if (!isfinite(N_VGetArrayPointer(f)[i])) return 1; /* recoverable: the line search backs off */
    return 0;
}

static int kin_jacobian(N_Vector u, N_Vector fu, SUNMatrix Jm, void *data, N_Vector t1, N_Vector t2)
{
    (void)fu;
    (void)t1;
    (void)t2;
    return statics_ctx_jacobian(data, N_VGetArrayPointer(u), 1, SUNDenseMatrix_Data(Jm));
}

static void kin_error(int code, const char *module, const char *function, char *msg, void *data)
{
    (void)code;
    (void)module;
    statics_ctx *c = data;
    state_set_error(c->st, "KINSOL %s: %s", function, msg);
}

/* max_i |R_i| / K_ii (and the constraints' violations, scaled) at u */
static double scaled_residual(statics_ctx *c, const double *u, double *R, double *fs)
{
    if (statics_ctx_residual(c, u, R) != 0) return INFINITY;
    statics_ctx_scale(c, fs);
    double r = 0;
    for (int i = 0; i < c->N; i++) {
        double v = fabs(R[i]) * fs[i];
        if (!(v <= r)) r = v; /* NaN propagates as the worst */
    }
    return r;
}

/* The multipliers that best balance the equilibrium rows at u's q: least squares of
 * A^T lambda = K q - Q(q), by the normal equations (A A^T) lambda = A (K q - Q). A guessed
 * shape (solver.guess, or the last solution) then starts Newton with the reactions that go
 * with it instead of zero, which the first step would have to find from a residual as large
 * as the whole load. Left as they are where A A^T is singular. */
static void guess_multipliers(statics_ctx *c, double *u)
{
    const rod_model *m = c->m;
    const int n = m->n, nm = c->N - n;
    if (nm <= 0) return;
    double *lam = u + n;
    memset(lam, 0, (size_t)nm * sizeof *lam);
    if (statics_ctx_loads(c, u, c->Q, c->cm) != 0) return;
    double *r = c->Q2, *A = calloc((size_t)nm * n + (size_t)nm * nm, sizeof *A);
    if (!A) return;
    double *G = A + (size_t)nm * n;
    for (int i = 0; i < n; i++) {
        double v = -c->Q[i];
        for (int j = 0; j < n; j++) v += m->K[i + (size_t)n * j] * u[j];
        r[i] = v;
    }
    for (int a = 0; a < nm; a++) constraints_mult_column(m, c->st, a, A + (size_t)a * n);
    for (int a = 0; a < nm; a++) {
        const double *Aa = A + (size_t)a * n;
        double b = 0;
        for (int j = 0; j < n; j++) b += Aa[j] * r[j];
        lam[a] = b;
        for (int e = 0; e <= a; e++) {
            const double *Ae = A + (size_t)e * n;
            double g = 0;
            for (int j = 0; j < n; j++) g += Aa[j] * Ae[j];
            G[a + (size_t)nm * e] = G[e + (size_t)nm * a] = g;
        }
    }
    if (dense_cholesky(G, nm) == 0)
        dense_cholesky_solve(G, nm, lam);
    else
        memset(lam, 0, (size_t)nm * sizeof *lam);
    for (int a = 0; a < nm; a++)
        if (!isfinite(lam[a])) memset(lam, 0, (size_t)nm * sizeof *lam);
    free(A);
    c->have_last = 0;
}

/* One Newton solve at a given load factor from q (updated in place on success). */
static int solve_at(statics_ctx *c, SUNContext ctx, double *q, int *iters, double *R)
{
    const rod_model *m = c->m;
    const int n = c->N;
    int rc = -1;
    N_Vector u = N_VNew_Serial(n, ctx), us = N_VNew_Serial(n, ctx), fs = N_VNew_Serial(n, ctx);
    SUNMatrix A = SUNDenseMatrix(n, n, ctx);
    SUNLinearSolver LS = NULL;
    void *mem = KINCreate(ctx);
    if (!u || !us || !fs || !A || !mem) goto out;
    LS = SUNLinSol_Dense(u, A, ctx);
    if (!LS) goto out;
    memcpy(N_VGetArrayPointer(u), q, (size_t)n * sizeof *q);
    N_VConst(1.0, us);
    statics_ctx_scale(c, N_VGetArrayPointer(fs));
    if (KINInit(mem, kin_residual, u) != KIN_SUCCESS) goto out;
    KINSetUserData(mem, c);
    KINSetErrHandlerFn(mem, kin_error, c);
    KINSetFuncNormTol(mem, m->spec->tolerance);
    KINSetScaledStepTol(mem, 1e-15);
    KINSetNumMaxIters(mem, m->spec->max_iterations);
    /* Modified Newton when a Jacobian costs more than a residual: it costs n + 1 coarse
     * kinematic passes (one step per interval) against one pass of `substeps` steps
     * per interval, and stays good for several iterations near the solution; KINSOL forms a
     * fresh one after at most MAX_SETUP_CALLS iterations or as soon as the line search fails
     * with a stale one. When it costs no more (few coordinates, many substeps: the elastica),
     * a fresh one every iteration saves the iterations. */
    KINSetMaxSetupCalls(mem, m->n + 1 <= m->substeps ? 1 : MAX_SETUP_CALLS);
    /* KINSOL limits a Newton step to 1000 |u0| in its scaled norm, and to 1 when u0 = 0: from
     * the straight rod that cut every step of a curvature above 1/m to length 1, and five in a
     * row failed the solve into load steps (25 iterations for the reaching arm instead of 3).
     * The step's scale here is the rod's: 1000 radians of bending over its length. */
    const double u0 = N_VWL2Norm(u, us);
    KINSetMaxNewtonStep(mem, fmax(1000.0 * u0, 1000.0 / m->L));
    KINSetLinearSolver(mem, LS, A);
    KINSetJacFn(mem, kin_jacobian);
    int flag = KINSol(mem, u, KIN_LINESEARCH, us, fs);
    long nni = 0;
    KINGetNumNonlinSolvIters(mem, &nni);
    *iters += (int)nni;
    if (flag >= 0 && !c->failed) {
        double r = scaled_residual(c, N_VGetArrayPointer(u), R, R + n);
        if (r <= m->spec->tolerance) {
            memcpy(q, N_VGetArrayPointer(u), (size_t)n * sizeof *q);
            rc = 0;
        } else {
            state_set_error(c->st, "KINSOL stopped with scaled residual %.3g above the "
                            "tolerance %.3g", r, m->spec->tolerance);
        }
    } else if (!c->failed && !c->st->err[0]) {
        char *name = KINGetReturnFlagName(flag);
        state_set_error(c->st, "KINSOL failed: %s", name ? name : "unknown flag");
        free(name);
    }
out:
    KINFree(&mem);
    if (LS) SUNLinSolFree(LS);
    if (A) SUNMatDestroy(A);
    if (u) N_VDestroy(u);
    if (us) N_VDestroy(us);
    if (fs) N_VDestroy(fs);
    return rc;
}

static int solve(statics_ctx *c, SUNContext ctx, int walls, double *q, int *iters, double *R)
{
    return walls ? statics_solve_walls(c, q, iters, R) : solve_at(c, ctx, q, iters, R);
}

int statics_solve_one(const rod_model *m, rod_state *st, double t, rod_statics_result *res)
{
    const int n = m->n, N = n + constraints_nmult(m);
    memset(res, 0, sizeof *res);
    st->err[0] = '\0';
    if (m->con && base_free(m)) dyn_pose(m, st, st->t, st->q, 0); /* the rows at q: a free base's pose */
    if (constraints_check_base(m, st, st->q) != 0) return ROD_EINVAL; /* free base: held? */
    if (constraints_nmult(m)) dyn_pose(m, st, st->t, st->q, 1);
    const int rank = constraints_check_rank(m, st, st->q);
    if (rank != 0) return rank == ROD_ENOMEM ? ROD_ENOMEM : ROD_EINVAL;
    SUNContext ctx = NULL;
    if (SUNContext_Create(NULL, &ctx) != 0) {
        state_set_error(st, "cannot create a SUNDIALS context");
        return ROD_ENOMEM;
    }
    statics_ctx c = {m, st, t, 1.0, N, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0.0, NULL, NULL};
    double *buf = calloc((size_t)2 * n + 9 * N, sizeof *buf);
    if (!buf) {
        SUNContext_Free(&ctx);
        state_set_error(st, "out of memory");
        return ROD_ENOMEM;
    }
    c.Q = buf;
    c.Q2 = buf + n;
    c.qp = buf + 2 * n;
    c.cm = c.qp + N; /* the multiplier rows: N - n each */
    c.cm2 = c.cm + (N - n);
    double *q = c.cm2 + (N - n), *q_done = q + N, *R = q_done + N; /* R: 2N */
    c.last_u = R + 2 * N;
    c.last_R = c.last_u + N;
    memcpy(q, st->q, (size_t)n * sizeof *q);
    guess_multipliers(&c, q);

    /* A held rotation's residual reads its angle modulo 2 pi: from the straight rod (angle 0)
     * a target beyond half a turn would be met a whole number of turns short. The load steps
     * carry the winding along instead, a quarter turn at most per step, each Newton solve
     * starting within that of its target. A guess (any q but the straight rod) sets the
     * winding itself and is tried at the full load first. */
    const double turn = constraints_max_turn(m, st, t), max_step = turn > M_PI_2 ? M_PI_2 / turn : 1.0;
    int straight = 1;
    for (int i = 0; i < n && straight; i++) straight = q[i] == 0.0;
    /* Obstacles: KINSOL's Newton steps from the straight rod (no contact yet) go through the
     * walls and its line search cuts them to fractions (the grasp: 61 iterations in 3 load
     * steps, 0.14 CPU s); statics_solve_walls' steps see the walls they meet (12 iterations at the
     * full load). Not with multipliers, whose step sizes its test would mix with q's: those
     * keep KINSOL, in load steps from the straight rod. */
    const int obstacles = m->spec->nobstacles > 0, walls = obstacles && N == n;
    int rc = ROD_OK, steps = 1;
    if (((max_step < 1.0 || (obstacles && !walls)) && straight) ||
        (solve(&c, ctx, walls, q, &res->iterations, R) != 0 && !c.failed)) {
        /* continuation from the straight rod, the equilibrium at zero load */
        memset(q_done, 0, (size_t)N * sizeof *q_done);
        double done = 0.0, step = fmin(0.25, max_step);
        steps = 0;
        while (done < 1.0 && !c.failed) {
            if (steps >= m->spec->max_load_steps || step < 1e-6) {
                rc = ROD_ENOCONV;
                break;
            }
            c.factor = fmin(1.0, done + step);
            memcpy(q, q_done, (size_t)N * sizeof *q);
            st->err[0] = '\0';
            steps++;
            if (solve(&c, ctx, walls, q, &res->iterations, R) == 0) {
                done = c.factor;
                memcpy(q_done, q, (size_t)N * sizeof *q);
                step = fmin(2.0 * step, max_step);
            } else {
                step *= 0.25;
            }
        }
        if (rc != ROD_OK) {
            memcpy(q, q_done, (size_t)N * sizeof *q);
            char prev[sizeof st->err];
            snprintf(prev, sizeof prev, "%s", st->err);
            state_set_error(st, "no equilibrium found: reached %.3g of the full load in %d load "
                            "steps (%s)", done, steps, prev[0] ? prev : "Newton did not converge");
        }
    }
    if (c.failed) rc = ROD_ESOLVER;
    c.factor = 1.0;
    res->load_steps = steps;
    c.failed = 0;
    res->residual = scaled_residual(&c, q, R, R + N);
    res->converged = rc == ROD_OK;
    memcpy(st->q, q, (size_t)n * sizeof *q);
    memset(st->qd, 0, (size_t)n * sizeof *st->qd);
    st->t = t;
    if (m->con) dyn_pose(m, st, st->t, st->q, 1);
    constraints_record(m, st, q + n);
    free(buf);
    SUNContext_Free(&ctx);
    return rc;
}

/* ---- the tangent of an equilibrium (rod.h: rod_statics_residual, rod_statics_tangent) ---- */
/* A context at full load for m and st at time t, its scratch allocated (free c->Q), and the
 * state's poses where statics_solve_one puts them before its residuals. */
static int ctx_open(statics_ctx *c, const rod_model *m, rod_state *st, double t, const double *u)
{
    const int n = m->n, N = n + constraints_nmult(m);
    *c = (statics_ctx){m, st, t, 1.0, N, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0.0, NULL, NULL};
    double *buf = calloc((size_t)2 * n + 5 * (size_t)N, sizeof *buf);
    if (!buf) {
        state_set_error(st, "out of memory");
        return ROD_ENOMEM;
    }
    c->Q = buf;
    c->Q2 = buf + n;
    c->qp = buf + 2 * n;
    c->cm = c->qp + N;
    c->cm2 = c->cm + (N - n);
    c->last_u = c->cm2 + (N - n);
    c->last_R = c->last_u + N;
    st->err[0] = '\0';
    memcpy(st->q, u, (size_t)n * sizeof *u);
    memset(st->qd, 0, (size_t)n * sizeof *st->qd);
    st->t = t;
    if (m->con && base_free(m)) dyn_pose(m, st, t, st->q, 0);
    if (constraints_nmult(m)) dyn_pose(m, st, t, st->q, 1);
    return ROD_OK;
}

int statics_unknowns_one(const rod_model *m, const rod_state *st, double *u)
{
    memcpy(u, st->q, (size_t)m->n * sizeof *u);
    constraints_multipliers(m, st, u + m->n);
    return m->n + constraints_nmult(m);
}

int statics_residual_one(const rod_model *m, rod_state *st, double t, const double *u, double *R)
{
    statics_ctx c;
    int rc = ctx_open(&c, m, st, t, u);
    if (rc != ROD_OK) return rc;
    rc = statics_ctx_residual(&c, u, R) == 0 ? ROD_OK : ROD_ESOLVER;
    if (rc != ROD_OK && !st->err[0]) state_set_error(st, "the static residual is not defined at this state");
    free(c.Q);
    return rc;
}

int statics_tangent_one(const rod_model *m, rod_state *st, double t, const double *u, int nrhs, double *B)
{
    statics_ctx c;
    int rc = ctx_open(&c, m, st, t, u);
    if (rc != ROD_OK) return rc;
    const int N = c.N;
    double *J = malloc((size_t)N * N * sizeof *J);
    int *piv = malloc((size_t)N * sizeof *piv);
    if (!J || !piv) {
        state_set_error(st, "out of memory");
        rc = ROD_ENOMEM;
    } else if (statics_ctx_jacobian(&c, u, 0, J) != 0) {
        if (!st->err[0]) state_set_error(st, "the static residual is not defined at this state");
        rc = ROD_ESOLVER;
    } else if (dense_lu(J, N, piv) != 0) {
        state_set_error(st, "the equilibrium's tangent stiffness is singular (a bifurcation?)");
        rc = ROD_ESOLVER;
    } else {
        for (int k = 0; k < nrhs; k++) {
            double *b = B + (size_t)N * k;
            dense_lu_solve(J, N, piv, b);
            for (int i = 0; i < N; i++) b[i] = -b[i];
        }
    }
    free(J);
    free(piv);
    free(c.Q);
    return rc;
}
