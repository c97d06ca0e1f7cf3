/* Statics' residual R(u) = [K q - Q(q) - A^T lambda; c(q)], its Jacobian and its scale, on the
 * context the Newton solvers share (statics.c, statics_walls.c). */
#include "statics_ctx.h"
#include "base.h"
#include "bodies.h"
#include "constraints.h"
#include "dynamics.h"
#include "kinematics.h"
#include "qfrc.h"
#include "state.h"

#include <math.h>
#include <string.h>

/* The loads on q at u = [q; lambda]: Q(q) plus the constraints' forces, and the multiplier
 * rows' violations in cm. */
int statics_ctx_loads(statics_ctx *c, const double *u, double *Q, double *cm)
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
int statics_ctx_residual(statics_ctx *c, const double *u, double *R)
{
    const rod_model *m = c->m;
    const int n = m->n;
    const size_t bytes = (size_t)c->N * sizeof *u;
    if (c->have_last && c->last_factor == c->factor && !memcmp(u, c->last_u, bytes)) {
        memcpy(R, c->last_R, bytes);
        return 0;
    }
    if (statics_ctx_loads(c, u, c->Q, R + n) != 0) return -1;
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

/* dR/du into J (N x N, column-major): the stiff linear part K exactly, the loads' and
 * constraints' parts by differences in q (forward for Newton, central for the tangent), both ends of every difference on the same
 * kinematics (coarse: one step of the model's rule per station interval, for Newton's matrix,
 * whose error only slows Newton's convergence; fine: the residual's own, for the tangent,
 * whose error is the derivative's); the multipliers' columns are -A^T exactly. */
int statics_ctx_jacobian(statics_ctx *c, const double *q, int coarse, double *J)
{
    const rod_model *m = c->m;
    const int n = m->n, N = c->N;
    memcpy(c->qp, q, (size_t)N * sizeof *q);
    c->coarse = coarse;
    /* the tangent's central (error ~h^2, 1e-11 relative at h = eps^(1/3)) at twice the passes */
    const int central = !coarse;
    int rc = central ? 0 : statics_ctx_loads(c, q, c->Q, c->cm);
    for (int j = 0; j < n && rc == 0; j++) {
        const double h = (central ? 6.0554544523933429e-06 : 1.4901161193847656e-08) * fmax(fabs(q[j]), 1.0);
        c->qp[j] = q[j] + h;
        rc = statics_ctx_loads(c, c->qp, c->Q2, c->cm2);
        if (central && rc == 0) { /* the lower end where the forward difference keeps q's */
            c->qp[j] = q[j] - h;
            rc = statics_ctx_loads(c, c->qp, c->Q, c->cm);
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
        if (statics_ctx_loads(c, q, c->Q, c->cm) != 0) return -1; /* A at q */
        for (int r = 0; r < N - n; r++) {
            double *col = J + (size_t)N * (n + r);
            constraints_mult_column(m, c->st, r, col);
            for (int i = 0; i < n; i++) col[i] = -col[i];
            memset(col + n, 0, (size_t)(N - n) * sizeof *col);
        }
    }
    return 0;
}

/* The residual's scale: 1/K_ii for the equilibrium rows, the constraints' own for theirs. A
 * free base's rows are the net moment and force on the rod (no stiffness of their own):
 * scaled by 1/EI and L/EI they read in 1/m as a strain row's residual does. */
void statics_ctx_scale(const statics_ctx *c, double *fs)
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
