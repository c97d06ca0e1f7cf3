/* Statics (Eqs. 57-58): K q - B u - F(q) = 0 solved by KINSOL's Newton method with a line
 * search (among obstacles: by solve_walls, a Newton whose steps see the walls they meet);
 * when the full load does not converge, the loads are applied in steps (natural
 * continuation from the unloaded straight rod, which is an exact solution at zero load). */
#include "one_rod.h"
#include "base.h"
#include "bodies.h"
#include "constraints.h"
#include "contact.h"
#include "dense.h"
#include "dynamics.h"
#include "qfrc.h"
#include "kinematics.h"
#include "state.h"

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
/* solve_walls keeps its matrix while the steps contract at least this fast and the same
 * points touch: the grasp's last ten iterations at 0.19 each cost a residual instead of a
 * matrix of n + 1 (its static start 32 -> 24 CPU ms); at 0.5 they would be as many */
#define THETA_REUSE 0.25

typedef struct {
    const rod_model *m;
    rod_state *st;
    double t, factor;
    int N;                  /* unknowns: q (n) and the constraints' multipliers (constraints.h) */
    double *Q, *Q2, *qp;    /* scratch: n, n, N */
    double *cm, *cm2;       /* scratch: the multiplier rows' violations */
    int failed;             /* an input went non-finite */
    int coarse;             /* loads on kin_forward_coarse (the Newton matrix's differences) */
    /* The last residual, at last_u and last_factor, while the state's kinematics are still
     * that pass's: KINSOL's final residual is asked for again by the checks after it. */
    int have_last;
    double last_factor;
    double *last_u, *last_R; /* N each */
} statics_ctx;

/* The loads on q at u = [q; lambda]: Q(q) plus the constraints' forces, and the multiplier
 * rows' violations in cm. */
static int loads(statics_ctx *c, const double *u, double *Q, double *cm)
{
    const rod_model *m = c->m;
    c->have_last = 0;
    kin_forward_state(m, c->st, u, c->coarse);
    base_apply(m, c->st->ev, c->t, c->st->g, m->ns, NULL, NULL);
    base_free_apply(m, u, NULL, c->st->g, c->st->J, m->ns, NULL, NULL);
    if (forces_static(m, c->st, u, c->t, c->factor, Q) != 0) return -1;
    if (m->spec->nbodies) bodies_static_forces(m, c->st, c->factor, Q);
    if (m->con) constraints_statics_terms(m, c->st, u, u + m->n, c->t, c->factor, Q, cm);
    return 0;
}

/* R = [K q - Q(q) - A^T lambda; c(q)] */
static int residual(statics_ctx *c, const double *u, double *R)
{
    const rod_model *m = c->m;
    const int n = m->n;
    const size_t bytes = (size_t)c->N * sizeof *u;
    if (c->have_last && c->last_factor == c->factor && !memcmp(u, c->last_u, bytes)) {
        memcpy(R, c->last_R, bytes);
        return 0;
    }
    if (loads(c, u, c->Q, R + n) != 0) return -1;
    for (int i = 0; i < n; i++) {
        double s = -c->Q[i];
        for (int j = 0; j < n; j++) s += m->K[i + (size_t)n * j] * u[j];
        R[i] = s;
    }
    memcpy(c->last_u, u, bytes);
    memcpy(c->last_R, R, bytes);
    c->last_factor = c->factor;
    c->have_last = 1;
    return 0;
}

static int kin_residual(N_Vector u, N_Vector f, void *data)
{
    statics_ctx *c = data;
    if (residual(c, N_VGetArrayPointer(u), N_VGetArrayPointer(f)) != 0) {
        c->failed = 1;
        return -1;
    }
    for (sunindextype i = 0; i < c->N; i++)
        if (!isfinite(N_VGetArrayPointer(f)[i])) return 1; /* recoverable: the line search backs off */
    return 0;
}

/* dR/du into J (N x N, column-major): the stiff linear part K exactly, the loads' and
 * constraints' parts by differences in q (forward for Newton, central for the tangent), both ends of every difference on the same
 * kinematics (coarse: one step of the model's rule per station interval, for Newton's matrix,
 * whose error only slows Newton's convergence; fine: the residual's own, for the tangent,
 * whose error is the derivative's); the multipliers' columns are -A^T exactly. */
static int jacobian(statics_ctx *c, const double *q, int coarse, double *J)
{
    const rod_model *m = c->m;
    const int n = m->n, N = c->N;
    memcpy(c->qp, q, (size_t)N * sizeof *q);
    c->coarse = coarse;
    /* the tangent's central (error ~h^2, 1e-11 relative at h = eps^(1/3)) at twice the passes */
    const int central = !coarse;
    int rc = central ? 0 : loads(c, q, c->Q, c->cm);
    for (int j = 0; j < n && rc == 0; j++) {
        const double h = (central ? 6.0554544523933429e-06 : 1.4901161193847656e-08) * fmax(fabs(q[j]), 1.0);
        c->qp[j] = q[j] + h;
        rc = loads(c, c->qp, c->Q2, c->cm2);
        if (central && rc == 0) { /* the lower end where the forward difference keeps q's */
            c->qp[j] = q[j] - h;
            rc = loads(c, c->qp, c->Q, c->cm);
        }
        c->qp[j] = q[j];
        const double d = central ? 2 * h : h;
        double *col = J + (size_t)N * j;
        for (int i = 0; i < n; i++) col[i] = m->K[i + (size_t)n * j] - (c->Q2[i] - c->Q[i]) / d;
        for (int i = n; i < N; i++) col[i] = (c->cm2[i - n] - c->cm[i - n]) / d;
    }
    c->coarse = 0;
    if (rc != 0) return -1;
    if (N > n) {
        if (loads(c, q, c->Q, c->cm) != 0) return -1; /* A at q */
        for (int r = 0; r < N - n; r++) {
            double *col = J + (size_t)N * (n + r);
            constraints_mult_column(m, c->st, r, col);
            for (int i = 0; i < n; i++) col[i] = -col[i];
            memset(col + n, 0, (size_t)(N - n) * sizeof *col);
        }
    }
    return 0;
}

static int kin_jacobian(N_Vector u, N_Vector fu, SUNMatrix Jm, void *data, N_Vector t1, N_Vector t2)
{
    (void)fu;
    (void)t1;
    (void)t2;
    return jacobian(data, N_VGetArrayPointer(u), 1, SUNDenseMatrix_Data(Jm));
}

static void kin_error(int code, const char *module, const char *function, char *msg, void *data)
{
    (void)code;
    (void)module;
    statics_ctx *c = data;
    state_set_error(c->st, "KINSOL %s: %s", function, msg);
}

/* The residual's scale: 1/K_ii for the equilibrium rows, the constraints' own for theirs. A
 * free base's rows are the net moment and force on the rod (no stiffness of their own):
 * scaled by 1/EI and L/EI they read in 1/m as a strain row's residual does. */
static void residual_scale(const statics_ctx *c, double *fs)
{
    const rod_model *m = c->m;
    const int n = m->n;
    memcpy(fs, m->Kdiag_inv, (size_t)n * sizeof *fs);
    if (m->base_col >= 0) {
        const double EI = m->E * fmax(m->sec[0].I11, m->sec[0].I22);
        for (int a = 0; a < 6; a++) fs[m->base_col + a] = (a < 3 ? 1.0 : m->L) / (EI > 0 ? EI : 1.0);
    }
    for (int i = n; i < c->N; i++) fs[i] = constraints_row_scale(c->m, i - n);
}

/* max_i |R_i| / K_ii (and the constraints' violations, scaled) at u */
static double scaled_residual(statics_ctx *c, const double *u, double *R, double *fs)
{
    if (residual(c, u, R) != 0) return INFINITY;
    residual_scale(c, fs);
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
    if (loads(c, u, c->Q, c->cm) != 0) return;
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
    residual_scale(c, N_VGetArrayPointer(fs));
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

/* The step dq of Newton's linear model with the walls in it: the matrix J (dR/du at u, whose
 * differences hold the walls' stiffness where points touch now) and R (their forces now),
 * corrected for the points that the step itself brings into contact or out of it, each
 * point's normal force w max(eps - g . dq, 0) linearized in dq (contact_wall_normals): the
 * contact set is guessed from the step it gives until the two agree. Without it the step
 * goes through a wall that only the points already touching feel, and a line search cuts
 * it to a fraction at every iteration (the grasp: 41 iterations, 650 residuals from 0.75 to
 * the full load). M: scratch N x N; piv: N. */
static int walls_step(statics_ctx *c, const double *J, const double *R, int np, const double *eps,
                      const double *w, const double *g, char *in, double *M, int *piv, double *dq)
{
    const int N = c->N, n = c->m->n;
    for (int k = 0; k < np; k++) in[k] = eps[k] > 0;
    for (int round = 0;; round++) {
        memcpy(M, J, (size_t)N * N * sizeof *M);
        for (int i = 0; i < N; i++) dq[i] = -R[i];
        for (int k = 0; k < np; k++) {
            const int now = eps[k] > 0;
            if (in[k] == now || !(w[k] > 0)) continue;
            /* arriving: + w g g^T and its force w eps g; leaving: both taken away */
            const double sw = in[k] ? w[k] : -w[k], *gk = g + (size_t)n * k;
            for (int i = 0; i < n; i++) dq[i] += sw * eps[k] * gk[i];
            for (int j = 0; j < n; j++) {
                if (gk[j] == 0) continue;
                double *col = M + (size_t)N * j;
                for (int i = 0; i < n; i++) col[i] += sw * gk[i] * gk[j];
            }
        }
        if (dense_lu(M, N, piv) != 0) return -1;
        dense_lu_solve(M, N, piv, dq);
        /* cycling between contact sets: the last one's step (M and in agree); the line
         * search judges it */
        if (round == 20) return 0;
        int changed = 0;
        for (int k = 0; k < np; k++) {
            const double *gk = g + (size_t)n * k;
            double d = 0;
            for (int i = 0; i < n && w[k] > 0; i++) d += gk[i] * dq[i];
            changed |= in[k] != (w[k] > 0 && eps[k] - d > 0);
        }
        if (!changed) return 0;
        for (int k = 0; k < np; k++) {
            const double *gk = g + (size_t)n * k;
            double d = 0;
            for (int i = 0; i < n && w[k] > 0; i++) d += gk[i] * dq[i];
            in[k] = w[k] > 0 && eps[k] - d > 0;
        }
    }
}

/* The simplified Newton correction at a trial point (Deuflhard's natural monotonicity test):
 * the same linear model, M's factors and contact set in, for the residual Rt and
 * penetrations eps_t there. */
static void walls_correction(const statics_ctx *c, const double *M, const int *piv, const double *Rt, int np,
                             const double *eps_t, const double *w, const double *g, const char *in, double *dqb)
{
    const int N = c->N, n = c->m->n;
    for (int i = 0; i < N; i++) dqb[i] = -Rt[i];
    for (int k = 0; k < np; k++) {
        if (in[k] == (eps_t[k] > 0) || !(w[k] > 0)) continue;
        const double sw = in[k] ? w[k] : -w[k], *gk = g + (size_t)n * k;
        for (int i = 0; i < n; i++) dqb[i] += sw * eps_t[k] * gk[i];
    }
    dense_lu_solve(M, N, piv, dqb);
}

static double norm2(const double *v, int N)
{
    double s = 0;
    for (int i = 0; i < N; i++) s += v[i] * v[i];
    return sqrt(s);
}

/* One Newton solve at the context's load factor from q (updated in place on success) for a
 * rod among obstacles: Newton's steps from walls_step, halved until the simplified
 * correction shrinks, on a difference matrix kept while the same points touch and the steps
 * contract by THETA_REUSE or better. Converged as solve_at is: the scaled residual within
 * solver.tolerance. */
static int solve_walls(statics_ctx *c, double *q, int *iters, double *R)
{
    const rod_model *m = c->m;
    const int nob = m->spec->nobstacles < SPEC_MAX_OBSTACLES ? m->spec->nobstacles : SPEC_MAX_OBSTACLES;
    const int N = c->N, n = m->n, npmax = m->ncontact * nob;
    const size_t pts = npmax > 0 ? (size_t)npmax : 1;
    double *J = malloc(((size_t)2 * N * N + 5 * (size_t)N + 2 * pts * (2 + (size_t)n)) * sizeof *J);
    int *piv = malloc((size_t)N * sizeof *piv);
    char *in = malloc(2 * pts), *inJ = in + pts; /* inJ: the points touching where J was formed */
    int rc = -1;
    if (!J || !piv || !in) {
        state_set_error(c->st, "out of memory");
        goto out;
    }
    double *M = J + (size_t)N * N, *dq = M + (size_t)N * N, *qt = dq + N, *Rt = qt + N, *fs = Rt + N;
    double *eps = fs + N, *w = eps + pts, *g = w + pts, *dqb = g + pts * n;
    double *eps_t = dqb + N, *w_t = eps_t + pts, *g_t = w_t + pts; /* at a trial point */
    residual_scale(c, fs);
    const double tol = m->spec->tolerance;
    if (residual(c, q, R) != 0) goto fail;
    int have_J = 0;
    double theta = INFINITY; /* the last step's contraction |simplified correction| / |step| */
    for (int it = 0;; it++) {
        double worst = 0;
        for (int i = 0; i < N; i++) worst = fmax(worst, fabs(R[i]) * fs[i]);
        if (!isfinite(worst)) goto fail;
        if (worst <= tol) {
            rc = 0;
            break;
        }
        if (it >= m->spec->max_iterations) {
            state_set_error(c->st, "Newton did not converge in %d iterations (scaled residual %.3g)", it, worst);
            break;
        }
        /* the walls at q (the state's kinematics are q's after its residual), then the
         * matrix, whose differences leave them elsewhere */
        if (residual(c, q, R) != 0) goto fail;
        const int np = contact_wall_normals(m, c->st, q, c->t, c->factor, eps, w, g);
        int same = have_J && theta <= THETA_REUSE;
        for (int k = 0; k < np && same; k++) same = inJ[k] == (eps[k] > 0);
        if (!same) {
            if (jacobian(c, q, 1, J) != 0) goto fail;
            for (int k = 0; k < np; k++) inJ[k] = eps[k] > 0;
            have_J = 1;
        }
        if (walls_step(c, J, R, np, eps, w, g, in, M, piv, dq) != 0) {
            state_set_error(c->st, "the Newton matrix is singular");
            break;
        }
        ++*iters;
        /* damped by the natural monotonicity test: the residual's norm jumps where contacts
         * come and go, the simplified correction does not */
        const double ndq = norm2(dq, N);
        double theta_t = INFINITY;
        double lam = 1.0;
        int ok = 0;
        /* a kept matrix's step is taken whole or not at all (then a fresh matrix's) */
        for (int k = 0; k < (same ? 1 : 30); k++, lam *= 0.5) {
            for (int i = 0; i < N; i++) qt[i] = q[i] + lam * dq[i];
            if (residual(c, qt, Rt) != 0) goto fail;
            contact_wall_normals(m, c->st, qt, c->t, c->factor, eps_t, w_t, g_t);
            walls_correction(c, M, piv, Rt, np, eps_t, w, g, in, dqb);
            const double nb = norm2(dqb, N);
            double worst_t = 0; /* converged there: a step at round-off passes either way */
            for (int i = 0; i < N; i++) worst_t = fmax(worst_t, fabs(Rt[i]) * fs[i]);
            ok = (isfinite(nb) && nb <= (1 - lam / 4) * ndq) || worst_t <= tol;
            theta_t = nb / ndq;
            if (ok) break;
        }
        if (!ok && same) { /* this iteration again, on a fresh matrix */
            theta = INFINITY;
            it--;
            --*iters;
            continue;
        }
        if (!ok) {
            state_set_error(c->st, "the Newton steps stopped shrinking (scaled residual %.3g)", worst);
            break;
        }
        memcpy(q, qt, (size_t)N * sizeof *q);
        memcpy(R, Rt, (size_t)N * sizeof *R);
        theta = lam < 1 ? INFINITY : theta_t;
    }
    goto out;
fail:
    c->failed = 1;
out:
    free(J);
    free(piv);
    free(in);
    return rc;
}

static int solve(statics_ctx *c, SUNContext ctx, int walls, double *q, int *iters, double *R)
{
    return walls ? solve_walls(c, q, iters, R) : solve_at(c, ctx, q, iters, R);
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
     * steps, 0.14 CPU s); solve_walls' steps see the walls they meet (12 iterations at the
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
    rc = residual(&c, u, R) == 0 ? ROD_OK : ROD_ESOLVER;
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
    } else if (jacobian(&c, u, 0, J) != 0) {
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
