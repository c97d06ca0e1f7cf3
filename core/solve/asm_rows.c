/* The joints' rows (assembly.h): with h = g_j^{-1} g_p^{-1} g_c the child's base relative to
 * where its joint puts it, the relative body twist is eta_h = eta_c - P eta_p with
 * P = Ad_{g_c^{-1} g_p}, and since d/dt Ad_{g_c^{-1} g_p} = Ad ad_{eta_p} - ad_{eta_c} Ad,
 *   d/dt eta_h = J_c q_ddot_c + bias_c - P (J_p q_ddot_p + bias_p) + ad_{eta_c} (P eta_p).
 * A joint holds components of eta_h at zero: all six (fixed), the linear three (ball: the
 * base point stays put, h's position moves at R_h v_h), or those and the angular two across
 * the axis a (hinge: h turns about a, which it leaves fixed, so body and joint frames agree
 * on it). Their drift is pulled back Baumgarte's way, rows' c from h: the rotation vector of
 * R_h, R_h^T p_h for the position, and b_i . (a x R_h a) for a hinge's tilt. */
#include "asm.h"
#include "state.h"

#include <string.h>

static void mat3_tmul(const double A[9], const double B[9], double C[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            C[i + 3 * j] = A[3 * i] * B[3 * j] + A[3 * i + 1] * B[3 * j + 1] + A[3 * i + 2] * B[3 * j + 2];
}

static void mat3_tvec(const double A[9], const double v[3], double o[3])
{
    for (int i = 0; i < 3; i++) o[i] = A[3 * i] * v[0] + A[3 * i + 1] * v[1] + A[3 * i + 2] * v[2];
}

static void mat3_vec(const double A[9], const double v[3], double o[3])
{
    for (int i = 0; i < 3; i++) o[i] = A[i] * v[0] + A[i + 3] * v[1] + A[i + 6] * v[2];
}

/* joint jt's selectors (row r: s[r], a 6-vector) and violations */
static int selectors(const asm_joint *jt, const lie_pose *h, double s[6][6], double c[6])
{
    double ev[3], ew[3];
    mat3_tvec(h->R, h->r, ev);
    memset(s, 0, 36 * sizeof **s);
    int n = 0;
    if (jt->type == JOINT_FIXED) {
        lie_so3_log(h->R, ew);
        for (int k = 0; k < 3; k++) {
            s[n][k] = 1;
            c[n++] = ew[k];
        }
    } else if (jt->type == JOINT_HINGE) {
        const double *a = jt->axis;
        double Ra[3], x[3];
        mat3_vec(h->R, a, Ra);
        x[0] = a[1] * Ra[2] - a[2] * Ra[1];
        x[1] = a[2] * Ra[0] - a[0] * Ra[2];
        x[2] = a[0] * Ra[1] - a[1] * Ra[0];
        for (int i = 0; i < 2; i++) {
            for (int k = 0; k < 3; k++) s[n][k] = jt->b[i][k];
            c[n++] = jt->b[i][0] * x[0] + jt->b[i][1] * x[1] + jt->b[i][2] * x[2];
        }
    }
    for (int k = 0; k < 3; k++) {
        s[n][3 + k] = 1;
        c[n++] = ev[k];
    }
    return n;
}

void asm_rows(const rod_model *m, rod_state *st, const double *q, const double *qd, double alpha, double *A,
              double *rhs, double *err, double *rate)
{
    const assembly *a = m->as;
    const int nr = a->nrows;
    memset(A, 0, (size_t)nr * (size_t)a->n * sizeof *A);
    for (int j = 0; j < a->njoints; j++) {
        const asm_joint *jt = &a->joint[j];
        const rod_model *cm = a->rod[jt->child], *pm = a->rod[jt->parent];
        const rod_state *cs = st->as->rod[jt->child], *ps = st->as->rod[jt->parent];
        const int k = jt->station;
        const lie_pose *gc = &cs->g[0], *gp = &ps->g[k];
        lie_pose G, gpj, h;
        mat3_tmul(gc->R, gp->R, G.R);
        const double d[3] = {gp->r[0] - gc->r[0], gp->r[1] - gc->r[1], gp->r[2] - gc->r[2]};
        mat3_tvec(gc->R, d, G.r);
        lie_pose_mul(gp, &jt->offset, &gpj);
        mat3_tmul(gpj.R, gc->R, h.R);
        const double e[3] = {gc->r[0] - gpj.r[0], gc->r[1] - gpj.r[1], gc->r[2] - gpj.r[2]};
        mat3_tvec(gpj.R, e, h.r);

        const double *eta_c = cs->eta, *eta_p = ps->eta + 6 * k;
        const double *bias_c = cs->bias, *bias_p = ps->bias + 6 * k;
        double Peta[6], Pbias[6], adt[6], eta_h[6], acc[6];
        lie_Ad_apply(&G, eta_p, Peta);
        lie_Ad_apply(&G, bias_p, Pbias);
        lie_ad_apply(eta_c, Peta, adt);
        for (int r = 0; r < 6; r++) {
            eta_h[r] = eta_c[r] - Peta[r];
            acc[r] = -bias_c[r] + Pbias[r] - adt[r];
        }
        double s[6][6], c[6];
        const int nrow = selectors(jt, &h, s, c);
        const double *Jc = state_J(cm, cs, 0), *Jp = state_J(pm, ps, k);
        for (int r = 0; r < nrow; r++) {
            const int row = jt->row0 + r;
            double sa = 0, sv = 0;
            for (int l = 0; l < 6; l++) {
                sa += s[r][l] * acc[l];
                sv += s[r][l] * eta_h[l];
            }
            rhs[row] = sa - 2 * alpha * sv - alpha * alpha * c[r];
            err[row] = c[r];
            rate[row] = sv;
            double *Ac = A + row + (size_t)nr * a->off[jt->child];
            for (int col = 0; col < cm->n_xi; col++) {
                double v = 0;
                for (int l = 0; l < 6; l++) v += s[r][l] * Jc[l + 6 * col];
                Ac[(size_t)nr * col] = v;
            }
            double *Ap = A + row + (size_t)nr * a->off[jt->parent];
            for (int col = 0; col < pm->n_xi; col++) {
                double PJ[6], v = 0;
                lie_Ad_apply(&G, Jp + 6 * col, PJ);
                for (int l = 0; l < 6; l++) v += s[r][l] * PJ[l];
                Ap[(size_t)nr * col] -= v;
            }
        }
    }
    for (int k = 0; k < a->nlocks; k++) {
        const int row = a->lock_row0 + k, c = a->lock_col[k];
        A[row + (size_t)nr * c] = 1;
        rhs[row] = -2 * alpha * qd[c] - alpha * alpha * q[c];
        err[row] = q[c];
        rate[row] = qd[c];
    }
}
