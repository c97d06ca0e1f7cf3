/* rod_state_generalized_forces of several rods (rod.h): each rod's own kinds at the
 * assembly's state (forces_one on the rod's own state), with what holds the rods together
 * added where it acts: the joints' and the stubs' locks' reactions A^T lambda to the
 * constraint kind, the rods' contacts with each other to the contact kind. total is each
 * rod's M q_ddot with the assembly's q_ddot (the joints and contacts included), so the kinds
 * sum to it rod by rod. Layout as one rod's: kind after kind, each over all n coordinates
 * (rod i's at off[i]); a rod's density and breathing (rho) coordinates take no joint or
 * contact force. */
#include "asm.h"

#include "dense.h"
#include "one_rod.h"
#include "qfrc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* y = M x over rod i's xi block, M = L L^T from its Cholesky factor (column-major, lower) */
static void mass_times(const double *L, int n, const double *x, double *y)
{
    for (int r = 0; r < n; r++) { /* y = L^T x first */
        double s = 0;
        for (int k = r; k < n; k++) s += L[k + (size_t)n * r] * x[k];
        y[r] = s;
    }
    for (int r = n - 1; r >= 0; r--) { /* then L y, from the bottom so y's top is still L^T x */
        double s = 0;
        for (int k = 0; k <= r; k++) s += L[r + (size_t)n * k] * y[k];
        y[r] = s;
    }
}

int asm_forces(const rod_model *m, rod_state *st, double *out, double *total)
{
    const assembly *a = m->as;
    asm_state *as = st->as;
    const int n = a->n, nr = a->nrows, K = QFRC_KINDS;
    int maxn = 1;
    for (int i = 0; i < a->nrods; i++) maxn = a->rod[i]->n > maxn ? a->rod[i]->n : maxn;
    double *own = calloc((size_t)n, sizeof *own), *qdd = calloc((size_t)n, sizeof *qdd);
    double *cz = calloc((size_t)n, sizeof *cz), *Qc = calloc((size_t)n, sizeof *Qc);
    double *Mdq = calloc((size_t)n, sizeof *Mdq), *dq = calloc((size_t)maxn, sizeof *dq);
    double *ko = malloc((size_t)K * maxn * sizeof *ko), *to = malloc((size_t)maxn * sizeof *to);
    int rc = ROD_OK;
    if (!own || !qdd || !cz || !Qc || !Mdq || !dq || !ko || !to) {
        snprintf(st->err, sizeof st->err, "out of memory");
        rc = ROD_ENOMEM;
        goto done;
    }
    st->err[0] = '\0';
    asm_sync(m, st);
    /* the rods' own accelerations, then the joined ones (asm_accel's two halves): lambda and
     * the rows A stay in the state, each rod's M_xi factor too */
    for (int i = 0; i < a->nrods && rc == ROD_OK; i++)
        if (asm_accel_rod(m, st, i, as->t, as->q, as->qd, own)) rc = ROD_ESOLVER;
    memcpy(qdd, own, (size_t)n * sizeof *qdd);
    if (rc == ROD_OK && asm_join(m, st, as->q, as->qd, qdd, asm_alpha(m))) rc = ROD_ESOLVER;
    if (rc != ROD_OK) goto done;
    /* the contacts alone: M^{-1} Q summed over the pairs into cz, then Q = M cz; and the
     * joints' change of each rod's M q_ddot, M (q_ddot - own) */
    asm_contact(m, st, as->q, as->qd, cz, as->cq);
    for (int i = 0; i < a->nrods; i++) {
        const int nx = a->rod[i]->n_xi, o = a->off[i];
        if (!a->rod[i]->n || !nx) continue;
        mass_times(as->rod[i]->Mxi, nx, cz + o, Qc + o);
        for (int c = 0; c < nx; c++) dq[c] = qdd[o + c] - own[o + c];
        mass_times(as->rod[i]->Mxi, nx, dq, Mdq + o);
    }
    memset(out, 0, (size_t)K * n * sizeof *out);
    for (int i = 0; i < a->nrods && rc == ROD_OK; i++) {
        const int ni = a->rod[i]->n, nx = a->rod[i]->n_xi, o = a->off[i];
        if (!ni) continue;
        if (forces_one(a->rod[i], as->rod[i], ko, to) != ROD_OK) {
            asm_error_from(st, i);
            rc = ROD_ESOLVER;
            break;
        }
        for (int k = 0; k < K; k++) memcpy(out + (size_t)k * n + o, ko + (size_t)k * ni, (size_t)ni * sizeof *out);
        for (int c = 0; c < nx; c++) {
            double g = 0; /* (A^T lambda)_c: the rows through this rod's column */
            for (int r = 0; r < nr; r++) g += as->scratch[r + (size_t)nr * (o + c)] * as->lambda[r];
            out[(size_t)QFRC_CONSTRAINT * n + o + c] += g;
            out[(size_t)QFRC_CONTACT * n + o + c] += Qc[o + c];
        }
        if (total)
            for (int c = 0; c < ni; c++) total[o + c] = to[c] + (c < nx ? Mdq[o + c] : 0);
    }
done:
    free(own);
    free(qdd);
    free(cz);
    free(Qc);
    free(Mdq);
    free(dq);
    free(ko);
    free(to);
    return rc;
}
