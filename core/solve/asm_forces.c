/* The generalized forces by kind of several rods (rod_state_generalized_forces, rod.h): each
 * rod's own kinds as one rod's (dyn_forces_by_kind: elastic, damping, actuator, load, its own
 * contacts, fluid, inertia), then, at the assembly's accelerations, the rods' contacts with
 * each other added to the contact kind and the constraint kind made of what holds the rod in
 * the assembly: its own constraints' A^T lambda (with their pull-back and their answer to the
 * joints) and every joint's and lock's row on it, A^T lambda. The total is each rod's
 * M q_ddot at the assembly's q_ddot, which the kinds sum to. */
#include "asm.h"

#include "constraints.h"
#include "dense.h"
#include "dynamics.h"
#include "qfrc.h"

#include <stdlib.h>
#include <string.h>

int asm_forces(const rod_model *m, rod_state *st, double *out, double *total)
{
    const assembly *a = m->as;
    asm_state *as = st->as;
    const int n = a->n;
    int nmax = 1;
    for (int i = 0; i < a->nrods; i++)
        if (a->rod[i]->n > nmax) nmax = a->rod[i]->n;
    double *kinds = malloc((size_t)QFRC_KINDS * nmax * sizeof *kinds), *tot = malloc((size_t)nmax * sizeof *tot),
           *qdd = malloc((size_t)(n ? n : 1) * sizeof *qdd);
    int rc = ROD_ENOMEM;
    if (!kinds || !tot || !qdd) {
        state_set_error(st, "out of memory");
        goto out;
    }
    rc = ROD_ESOLVER;
    st->err[0] = '\0';
    asm_sync(m, st);
    for (int i = 0; i < a->nrods; i++) {
        const rod_model *mi = a->rod[i];
        if (!mi->n) continue;
        if (dyn_forces_by_kind(mi, as->rod[i], kinds, tot)) {
            asm_error_from(st, i);
            goto out;
        }
        for (int k = 0; k < QFRC_KINDS; k++)
            memcpy(out + (size_t)k * n + a->off[i], kinds + (size_t)k * mi->n, (size_t)mi->n * sizeof *out);
    }
    /* the assembly's accelerations: the multipliers, each rod's own, the contacts between rods */
    if (asm_accel(m, st, as->t, as->q, as->qd, qdd, asm_alpha(m))) goto out;
    const int nr = a->nrows;
    const double *A = as->scratch;
    for (int i = 0; i < a->nrods; i++) {
        const rod_model *mi = a->rod[i];
        if (!mi->n) continue;
        const int o = a->off[i];
        double *con = out + (size_t)QFRC_CONSTRAINT * n + o, *cont = out + (size_t)QFRC_CONTACT * n + o;
        memset(con, 0, (size_t)mi->n * sizeof *con);
        constraints_force(mi, as->rod[i], con);
        for (int r = 0; r < nr; r++) {
            if (as->row_rods[2 * r] != i && as->row_rods[2 * r + 1] != i) continue;
            for (int c = 0; c < mi->n_xi; c++) con[c] += A[r + (size_t)nr * (o + c)] * as->lambda[r];
        }
        for (int c = 0; c < mi->n; c++) cont[c] += as->qc[o + c];
        if (total) {
            double *t = total + o;
            memcpy(t, qdd + o, (size_t)mi->n * sizeof *t);
            if (mi->n_xi) dense_cholesky_mul(as->rod[i]->Mxi, mi->n_xi, t);
            if (mi->n_rho) dense_cholesky_mul(mi->Mrho_chol, mi->n_rho, t + mi->n_xi);
        }
    }
    rc = ROD_OK;
out:
    free(kinds);
    free(tot);
    free(qdd);
    return rc;
}
