/* Equilibrium of several rods (asm.h): the q where asm_accel's accelerations vanish at rest.
 * There the joints' rows read A q_ddot = -alpha^2 c = 0, so c = 0, and each rod's
 * M q_ddot = F + A^T lambda = 0: the joints hold and every rod is in balance. Newton on those
 * accelerations with a central-difference Jacobian and a damped step; converged when the
 * Newton step is below solver.tolerance (in units of q, as one rod's residual is). */
#include "asm.h"

#include "constraints.h"
#include "dense.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double norm_inf(const double *v, int n)
{
    double x = 0;
    for (int i = 0; i < n; i++) x = fmax(x, fabs(v[i]));
    return x;
}

/* The residual: the generalized forces M q_ddot at rest, rod by rod (each rod's M from its
 * last evaluation), whose sizes are the stiffnesses' rather than the stiffnesses over the
 * masses, which would span ten decades more between a soft bend and a high degree's stretch. */
static int residual(const rod_model *m, rod_state *st, double t, const double *q, const double *zero,
                    double *F)
{
    if (asm_accel(m, st, t, q, zero, F, asm_alpha(m))) return -1;
    const assembly *a = m->as;
    for (int i = 0; i < a->nrods; i++) {
        const rod_model *mi = a->rod[i];
        double *f = F + a->off[i];
        if (mi->n_xi) dense_cholesky_mul(st->as->rod[i]->Mxi, mi->n_xi, f);
        if (mi->n_rho) dense_cholesky_mul(mi->Mrho_chol, mi->n_rho, f + mi->n_xi);
    }
    return 0;
}

/* bail: give up as soon as the Newton steps grow a hundredfold (ROD_ENOCONV) */
static int newton(const rod_model *m, rod_state *st, double t, rod_statics_result *res, int bail)
{
    double first = 0;
    const assembly *a = m->as;
    asm_state *as = st->as;
    const rod_spec *sp = a->rod[0]->spec;
    const int n = a->n;
    double *q = as->q, *zero = calloc((size_t)n, sizeof *zero), *F = malloc((size_t)n * sizeof *F),
           *F1 = malloc((size_t)n * sizeof *F1), *dq = malloc((size_t)n * sizeof *dq),
           *J = malloc((size_t)n * (size_t)n * sizeof *J), *qt = malloc((size_t)n * sizeof *qt),
           *bar = malloc((size_t)n * sizeof *bar);
    int *piv = malloc((size_t)n * sizeof *piv);
    int rc = ROD_ENOMEM;
    if (!zero || !F || !F1 || !dq || !J || !qt || !bar || !piv) {
        state_set_error(st, "out of memory in statics");
        goto out;
    }
    memset(as->qd, 0, (size_t)n * sizeof *as->qd);
    rc = ROD_ESOLVER;
    if (residual(m, st, t, q, zero, F)) goto out;
    rc = ROD_ENOCONV;
    for (int it = 0; it < sp->max_iterations; it++) {
        for (int j = 0; j < n; j++) {
            /* central differences: the high Legendre degrees' accelerations are stiff enough
             * that a one-sided difference's error stalls Newton */
            const double h = 1e-6 * (1 + fabs(q[j])), keep = q[j];
            q[j] = keep + h;
            int bad = residual(m, st, t, q, zero, J + (size_t)n * j);
            q[j] = keep - h;
            bad = bad || residual(m, st, t, q, zero, F1);
            q[j] = keep;
            if (bad) {
                rc = ROD_ESOLVER;
                goto out;
            }
            for (int i = 0; i < n; i++) J[i + (size_t)n * j] = (J[i + (size_t)n * j] - F1[i]) / (2 * h);
        }
        /* a joint can leave a motion that nothing resists (a ball-joined rod's spin about its
         * own axis): no force moves along it, so a slight regularization finds the step that
         * leaves it alone, and slows the stiff rest of Newton by a factor 1e-10 at most.
         * (It was multiplied by zero: Newton then stepped along that motion by the residual's
         * round-off over a near-zero pivot, 2.6e-9 every iteration, and a reordering of the
         * Jacobian's sums in the kinematics left qfrc_rods' static start short of converging.) */
        double dmax = 0;
        for (int i = 0; i < n; i++) dmax = fmax(dmax, fabs(J[i + (size_t)n * i]));
        for (int i = 0; i < n; i++) J[i + (size_t)n * i] -= 1e-10 * dmax;
        if (dense_lu(J, n, piv)) {
            state_set_error(st, "statics: the rods' equilibrium is not unique (a free body or rod that "
                            "nothing holds, or a joint about which nothing resists turning)");
            goto out;
        }
        for (int i = 0; i < n; i++) dq[i] = -F[i];
        dense_lu_solve(J, n, piv, dq);
        res->iterations++;
        /* the natural monotonicity test (Deuflhard): the accelerations' sizes span many
         * decades (a high degree's stiffness beside a soft bend), so a step is judged by the
         * Newton correction it leaves, J^{-1} F, not by F itself */
        const double ndq = norm_inf(dq, n), tol = sp->tolerance * fmax(1.0, norm_inf(q, n));
        if (it == 0) first = ndq;
        if (bail && ndq > 100 * first) { /* wandering off: the caller has a gentler way */
            state_set_error(st, "statics diverged (Newton step %.3g after %.3g)", ndq, first);
            break;
        }
        double step = 1;
        for (int k = 0; k < 30 && ndq > tol; k++, step *= 0.5) {
            for (int i = 0; i < n; i++) qt[i] = q[i] + step * dq[i];
            if (residual(m, st, t, qt, zero, F1)) continue;
            for (int i = 0; i < n; i++) bar[i] = -F1[i];
            dense_lu_solve(J, n, piv, bar);
            const double nb = norm_inf(bar, n);
            if (isfinite(nb) && nb <= (1 - step / 4) * ndq) break;
        }
        for (int i = 0; i < n; i++) q[i] += step * dq[i];
        if (residual(m, st, t, q, zero, F)) {
            rc = ROD_ESOLVER;
            goto out;
        }
        res->residual = step * ndq;
        if (ndq <= tol) {
            res->converged = 1;
            rc = ROD_OK;
            break;
        }
    }
    if (rc == ROD_ENOCONV)
        state_set_error(st, "statics did not converge in %d iterations (last step %.3g)", res->iterations,
                        res->residual);
    /* the reactions and rows at the result, for frames */
    if (residual(m, st, t, q, zero, F) && rc == ROD_OK) rc = ROD_ESOLVER;
    as->t = t;
    asm_sync(m, st);
    as->need_reinit = 1;
out:
    free(zero);
    free(F);
    free(F1);
    free(dq);
    free(J);
    free(qt);
    free(bar);
    free(piv);
    return rc;
}

/* Penalty joints give by their reaction over k: from the straight rods a full Newton step can
 * put a joint's two sides far apart, where k c is a force far beyond the rods' (a halved
 * cantilever sagging 30 % of its length diverged at k = 1e4). So the joints are first held
 * exactly (multipliers on the same rows), and the penalties' equilibrium, O(1/k) from that
 * one, is found from there. */
static int joints_then_springs(const rod_model *m, rod_state *st, double t, rod_statics_result *res, int bail)
{
    const assembly *a = m->as;
    asm_state *as = st->as;
    int penalty = 0;
    for (int j = 0; j < a->njoints; j++) penalty |= a->joint[j].penalty;
    int rc = ROD_OK;
    if (penalty) {
        as->exact_joints = 1;
        rc = newton(m, st, t, res, bail);
        as->exact_joints = 0;
    }
    return rc == ROD_OK ? newton(m, st, t, res, bail) : rc;
}

/* The rods' own constraints can ask for a shape far from where statics starts (a tip held
 * aside): one Newton step there, on kinematics linearized about the straight rods, lands far
 * off and the iteration wanders. When the direct solve fails, the targets are reached in
 * steps instead, the rows held at (1 - k / N) of their violations at the start for
 * k = 1 .. N, each step from the last one's equilibrium (one-rod statics steps its loads
 * likewise). */
int asm_statics(const rod_model *m, rod_state *st, double t, rod_statics_result *res)
{
    const assembly *a = m->as;
    asm_state *as = st->as;
    memset(res, 0, sizeof *res);
    res->load_steps = 1;
    as->frozen = 1;
    as->relax = 0;
    int nc = 0;
    for (int i = 0; i < a->nrods; i++) nc += constraints_nmult(a->rod[i]);
    double *q0 = nc ? malloc((size_t)a->n * sizeof *q0) : NULL;
    int rc = ROD_ENOMEM;
    if (nc && !q0) {
        state_set_error(st, "out of memory in statics");
        goto out;
    }
    if (nc) { /* the rows' violations where statics starts */
        memcpy(q0, as->q, (size_t)a->n * sizeof *q0);
        double *qdd = calloc((size_t)a->n * 2, sizeof *qdd);
        if (!qdd) {
            state_set_error(st, "out of memory in statics");
            goto out;
        }
        rc = asm_accel(m, st, t, as->q, qdd + a->n, qdd, asm_alpha(m)) ? ROD_ESOLVER : ROD_OK;
        free(qdd);
        if (rc != ROD_OK) goto out;
        for (int i = 0, o = 0; i < a->nrods; o += constraints_nmult(a->rod[i]), i++)
            constraints_mult_values(a->rod[i], as->rod[i], as->c0 + o);
    }
    rc = joints_then_springs(m, st, t, res, nc > 0);
    static const int steps[] = {8, 32};
    for (int k = 0; nc && rc != ROD_OK && rc != ROD_ENOMEM && k < 2; k++) {
        memcpy(as->q, q0, (size_t)a->n * sizeof *q0);
        res->load_steps = steps[k];
        for (int s = 1; s <= steps[k]; s++) {
            as->relax = 1.0 - (double)s / steps[k];
            rc = joints_then_springs(m, st, t, res, 0);
            if (rc != ROD_OK) break;
        }
    }
out:
    as->relax = 0;
    as->frozen = 0;
    free(q0);
    return rc;
}
