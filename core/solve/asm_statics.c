/* Equilibrium of several rods (asm.h): the q where asm_accel's accelerations vanish at rest.
 * There the joints' rows read A q_ddot = -alpha^2 c = 0, so c = 0, and each rod's
 * M q_ddot = F + A^T lambda = 0: the joints hold and every rod is in balance. Newton on those
 * accelerations with a difference Jacobian and a backtracking step; converged when the step
 * is below solver.tolerance (in units of q, as one rod's residual is). */
#include "asm.h"

#include "dense.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double norm_inf(const double *v, int n)
{
    double x = 0;
    for (int i = 0; i < n; i++) x = fmax(x, fabs(v[i]));
    return x;
}

int asm_statics(const rod_model *m, rod_state *st, double t, rod_statics_result *res)
{
    const assembly *a = m->as;
    asm_state *as = st->as;
    const rod_spec *sp = a->rod[0]->spec;
    const int n = a->n;
    const double alpha = asm_alpha(m);
    memset(res, 0, sizeof *res);
    res->load_steps = 1;
    double *q = as->q, *zero = calloc((size_t)n, sizeof *zero), *F = malloc((size_t)n * sizeof *F),
           *F1 = malloc((size_t)n * sizeof *F1), *dq = malloc((size_t)n * sizeof *dq),
           *J = malloc((size_t)n * (size_t)n * sizeof *J), *qt = malloc((size_t)n * sizeof *qt);
    int *piv = malloc((size_t)n * sizeof *piv);
    int rc = ROD_ENOMEM;
    if (!zero || !F || !F1 || !dq || !J || !qt || !piv) {
        state_set_error(st, "out of memory in statics");
        goto out;
    }
    memset(as->qd, 0, (size_t)n * sizeof *as->qd);
    rc = ROD_ESOLVER;
    if (asm_accel(m, st, t, q, zero, F, alpha)) goto out;
    double fn = norm_inf(F, n);
    rc = ROD_ENOCONV;
    for (int it = 0; it < sp->max_iterations; it++) {
        for (int j = 0; j < n; j++) {
            const double h = 1e-7 * (1 + fabs(q[j])), keep = q[j];
            q[j] += h;
            if (asm_accel(m, st, t, q, zero, J + (size_t)n * j, alpha)) {
                q[j] = keep;
                rc = ROD_ESOLVER;
                goto out;
            }
            q[j] = keep;
            for (int i = 0; i < n; i++) J[i + (size_t)n * j] = (J[i + (size_t)n * j] - F[i]) / h;
        }
        if (dense_lu(J, n, piv)) {
            state_set_error(st, "statics: the rods' equilibrium is not unique (a free body or rod that "
                            "nothing holds, or a joint about which nothing resists turning)");
            goto out;
        }
        for (int i = 0; i < n; i++) dq[i] = -F[i];
        dense_lu_solve(J, n, piv, dq);
        res->iterations++;
        double step = 1;
        for (int k = 0; k < 30; k++, step *= 0.5) {
            for (int i = 0; i < n; i++) qt[i] = q[i] + step * dq[i];
            if (asm_accel(m, st, t, qt, zero, F1, alpha)) continue;
            const double f1 = norm_inf(F1, n);
            if (isfinite(f1) && (f1 < fn || k == 29)) {
                memcpy(q, qt, (size_t)n * sizeof *q);
                memcpy(F, F1, (size_t)n * sizeof *F);
                fn = f1;
                break;
            }
        }
        res->residual = step * norm_inf(dq, n);
        if (res->residual <= sp->tolerance * fmax(1.0, norm_inf(q, n))) {
            res->converged = 1;
            rc = ROD_OK;
            break;
        }
    }
    if (rc == ROD_ENOCONV)
        state_set_error(st, "statics did not converge in %d iterations (last step %.3g)", res->iterations,
                        res->residual);
    /* the reactions and rows at the result, for frames */
    if (asm_accel(m, st, t, q, zero, F, alpha) && rc == ROD_OK) rc = ROD_ESOLVER;
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
    free(piv);
    return rc;
}
