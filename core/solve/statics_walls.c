/* Statics among obstacles: a Newton whose steps see the walls they meet. KINSOL's steps from
 * the straight rod go through the walls, which only the points already touching feel, and
 * its line search cuts them to fractions at every iteration. */
#include "statics_ctx.h"
#include "contact.h"
#include "dense.h"
#include "state.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the matrix is kept while the steps contract at least this fast and the same points touch:
 * the grasp's last ten iterations at 0.19 each cost a residual instead of a matrix of n + 1
 * (its static start 32 -> 24 CPU ms); at 0.5 they would be as many */
#define THETA_REUSE 0.25

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
            const char touches = w[k] > 0 && eps[k] - d > 0;
            changed |= in[k] != touches;
            in[k] = touches;
        }
        if (!changed) return 0;
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
int statics_solve_walls(statics_ctx *c, double *q, int *iters, double *R)
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
    statics_ctx_scale(c, fs);
    const double tol = m->spec->tolerance;
    if (statics_ctx_residual(c, q, R) != 0) goto fail;
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
        if (statics_ctx_residual(c, q, R) != 0) goto fail;
        const int np = contact_wall_normals(m, c->st, q, c->t, c->factor, eps, w, g);
        int same = have_J && theta <= THETA_REUSE;
        for (int k = 0; k < np && same; k++) same = inJ[k] == (eps[k] > 0);
        if (!same) {
            if (statics_ctx_jacobian(c, q, 1, J) != 0) goto fail;
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
            if (statics_ctx_residual(c, qt, Rt) != 0) goto fail;
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
