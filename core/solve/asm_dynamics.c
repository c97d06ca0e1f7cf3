/* The accelerations of several rods held by their joints (asm.h): each rod's own q_ddot
 * (dyn_accel, which leaves its M_xi's Cholesky factor in its state), then the multipliers of
 * M q_ddot = F + A^T lambda, A q_ddot = rhs (asm_rows.c) through the Schur complement
 * S = A M^{-1} A^T, M block diagonal over the rods (each rod's xi block; the joints do not
 * touch rho). A rod with multiplier constraints of its own answers a joint's force as its
 * constraints let it: M^{-1} there is the constrained (I - M^{-1} A_c^T S_c^{-1} A_c) M^{-1}
 * (constraints_project_column), which moves rho too, and its rows keep A_c q_ddot. */
#include "asm.h"

#include "base.h"
#include "constraints.h"
#include "dense.h"
#include "dynamics.h"

#include <math.h>
#include <string.h>

/* the joints' drift pulled back at this rate: well above the rods' own frequencies of
 * interest, below what would make the rows stiffer than the rods */
#define ASM_ALPHA 200.0

/* the columns of rod i that a joint's force moves: its xi block, or all of it where its own
 * multiplier rows (a volume's) couple rho in */
static int moved(const assembly *a, int i)
{
    return constraints_nmult(a->rod[i]) ? a->rod[i]->n : a->rod[i]->n_xi;
}

double asm_alpha(const rod_model *m)
{
    (void)m;
    return ASM_ALPHA;
}

int asm_accel(const rod_model *m, rod_state *st, double t, const double *q, const double *qd,
              double *qdd, double alpha)
{
    const assembly *a = m->as;
    for (int i = 0; i < a->nrods; i++)
        if (asm_accel_rod(m, st, i, t, q, qd, qdd)) return -1;
    return asm_join(m, st, q, qd, qdd, alpha);
}

int asm_accel_rod(const rod_model *m, rod_state *st, int i, double t, const double *q, const double *qd,
                  double *qdd)
{
    const assembly *a = m->as;
    asm_state *as = st->as;
    if (!a->rod[i]->n) {
        dyn_pose(a->rod[i], as->rod[i], t, q + a->off[i], 1);
        return 0;
    }
    if (dyn_accel(a->rod[i], as->rod[i], t, q + a->off[i], qd + a->off[i], qdd + a->off[i])) {
        asm_error_from(st, i);
        return -1;
    }
    /* the rod's own multiplier rows drift as the joints do: pulled back at the same rate */
    int c0 = 0;
    for (int k = 0; k < i; k++) c0 += constraints_nmult(a->rod[k]);
    constraints_pull_back(a->rod[i], as->rod[i], ASM_ALPHA, as->frozen, as->relax, as->c0 + c0, qdd + a->off[i]);
    if (as->frozen && base_moving(a->rod[i])) {
        /* statics: a moving body's stub is where its profiles put it at t, but still (a one-rod
         * moving base's statics put the rod there with no motion either); with its strains
         * locked, its twists and biases are its base's motion alone */
        const size_t k = (size_t)6 * a->rod[i]->ns;
        memset(as->rod[i]->eta, 0, k * sizeof *as->rod[i]->eta);
        memset(as->rod[i]->bias, 0, k * sizeof *as->rod[i]->bias);
    }
    return 0;
}

/* each rod's own multipliers answer the contacts' and joints' forces on it (A^T lambda over its
 * columns, rows that touch it), and its rows' violations are recorded for frames */
static void respond(const rod_model *m, rod_state *st)
{
    const assembly *a = m->as;
    asm_state *as = st->as;
    const int nr = a->nrows;
    const double *A = as->scratch;
    for (int i = 0; i < a->nrods; i++) {
        const rod_model *mi = a->rod[i];
        if (!mi->con) continue;
        double *g = as->gq + a->off[i];
        memcpy(g, as->qc + a->off[i], (size_t)mi->n * sizeof *g);
        for (int r = 0; r < nr; r++) {
            if (as->row_rods[2 * r] != i && as->row_rods[2 * r + 1] != i) continue;
            for (int c = 0; c < mi->n_xi; c++) g[c] += A[r + (size_t)nr * (a->off[i] + c)] * as->lambda[r];
        }
        constraints_respond(mi, as->rod[i], g);
    }
}

int asm_join(const rod_model *m, rod_state *st, const double *q, const double *qd, double *qdd, double alpha)
{
    const assembly *a = m->as;
    asm_state *as = st->as;
    const int nr = a->nrows, n = a->n;
    asm_contact(m, st, q, qd, qdd, as->cq);
    if (!nr) {
        respond(m, st);
        return 0;
    }
    double *A = as->scratch, *W = A + (size_t)nr * n, *S = W + (size_t)nr * n;
    double *rhs = S + (size_t)nr * nr, *err = rhs + nr, *res = err + nr, *rate = res + nr;
    asm_rows(m, st, q, qd, alpha, A, rhs, err, rate);
    /* W = M^{-1} A^T, column r over the rods of row r (a joint's two, a lock's stub): A and W
     * are zero elsewhere, so every product below runs over those rods' columns only */
    int *rr = as->row_rods;
    const asm_joint **pen = as->row_pen;
    int mv[ASM_MAX_RODS];
    for (int i = 0; i < a->nrods; i++) mv[i] = moved(a, i);
    for (int r = 0; r < nr; r++) {
        int *rods = rr + 2 * r;
        rods[0] = rods[1] = -1;
        pen[r] = NULL;
        if (r >= a->lock_row0) {
            rods[0] = a->lock_rod[r - a->lock_row0];
        } else {
            for (int j = 0; j < a->njoints; j++)
                if (r >= a->joint[j].row0 && r < a->joint[j].row0 + a->joint[j].nrows) {
                    rods[0] = a->joint[j].child;
                    rods[1] = a->joint[j].parent;
                    if (a->joint[j].penalty && !as->exact_joints) pen[r] = &a->joint[j];
                }
        }
        for (int k = 0; k < 2; k++) {
            const int i = rods[k];
            if (i < 0) continue;
            const int nx = a->rod[i]->n_xi;
            double *w = W + (size_t)n * r + a->off[i];
            memset(w, 0, (size_t)a->rod[i]->n * sizeof *w);
            if (!nx) continue;
            for (int c = 0; c < nx; c++) w[c] = A[r + (size_t)nr * (a->off[i] + c)];
            dense_cholesky_solve(as->rod[i]->Mxi, nx, w);
            constraints_project_column(a->rod[i], as->rod[i], w);
        }
    }
    /* a penalty joint's rows push with -k c - d c_dot through A^T (M q_ddot gains A^T f, so
     * q_ddot gains W f) before the multiplier rows are solved against what that leaves; in S
     * they are rows of their own (identity, right side 0), so their multipliers are 0 */
    for (int r = 0; r < nr; r++) {
        if (!pen[r]) continue;
        const double f = -pen[r]->stiffness * err[r] - pen[r]->damping * rate[r];
        as->lambda[r] = f;
        const double *w = W + (size_t)n * r;
        for (int k = 0; k < 2; k++) {
            const int i = rr[2 * r + k];
            if (i < 0) continue;
            for (int c = a->off[i]; c < a->off[i] + mv[i]; c++) qdd[c] += w[c] * f;
        }
    }
    for (int r = 0; r < nr; r++) {
        if (pen[r]) {
            for (int r2 = 0; r2 <= r; r2++) S[r + (size_t)nr * r2] = r2 == r;
            res[r] = 0;
            continue;
        }
        double v = rhs[r];
        for (int k = 0; k < 2; k++) {
            const int i = rr[2 * r + k];
            if (i < 0) continue;
            for (int c = a->off[i]; c < a->off[i] + mv[i]; c++) v -= A[r + (size_t)nr * c] * qdd[c];
        }
        res[r] = v;
        for (int r2 = 0; r2 <= r; r2++) {
            if (pen[r2]) {
                S[r + (size_t)nr * r2] = 0;
                continue;
            }
            double sv = 0;
            const double *w = W + (size_t)n * r2;
            for (int k = 0; k < 2; k++) {
                const int i = rr[2 * r + k];
                if (i < 0 || (i != rr[2 * r2] && i != rr[2 * r2 + 1])) continue;
                for (int c = a->off[i]; c < a->off[i] + mv[i]; c++) sv += A[r + (size_t)nr * c] * w[c];
            }
            S[r + (size_t)nr * r2] = sv;
        }
    }
    if (dense_cholesky(S, nr)) {
        state_set_error(st, "the joints' rows depend on each other (a rod joined twice, or a joint "
                        "on a body that cannot move)");
        return -1;
    }
    dense_cholesky_solve(S, nr, res);
    for (int r = 0; r < nr; r++) {
        if (pen[r]) continue;
        as->lambda[r] = res[r];
        const double *w = W + (size_t)n * r;
        for (int k = 0; k < 2; k++) {
            const int i = rr[2 * r + k];
            if (i < 0) continue;
            for (int c = a->off[i]; c < a->off[i] + mv[i]; c++) qdd[c] += w[c] * res[r];
        }
    }
    respond(m, st);
    return 0;
}

double asm_violation(const rod_model *m, const rod_state *st)
{
    const assembly *a = m->as;
    const int nr = a->nrows, n = a->n;
    const double *err = st->as->scratch + 2 * (size_t)nr * n + (size_t)nr * nr + nr;
    double v = 0;
    for (int r = 0; r < nr; r++) v = fmax(v, fabs(err[r]));
    return v;
}
