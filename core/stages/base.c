#include "base.h"
#include "vector_clones.h"

#include <math.h>
#include <string.h>

int base_moving(const rod_model *m) { return m->spec->base_moving; }

void base_motion(const rod_model *m, profile_eval *ev, double t, lie_pose *gb, double eta_b[6],
                 double acc_b[6])
{
    const rod_spec *sp = m->spec;
    double p[3][3], th[3];
    for (int i = 0; i < 3; i++) profile_value_derivs(&sp->base_position[i], ev, t, p[i]);
    profile_value_derivs(&sp->base_angle, ev, t, th);
    lie_rotation_about(sp->base_axis, th[0], gb->R);
    for (int i = 0; i < 3; i++) gb->r[i] = p[i][0];
    /* about a fixed axis a: omega = theta_dot a in both frames (R^T a = a); v = R^T p_dot and
     * its body-frame rate R^T p_ddot - omega x v */
    double v[3], w[3], a[3];
    for (int i = 0; i < 3; i++) {
        w[i] = th[1] * sp->base_axis[i];
        v[i] = gb->R[3 * i] * p[0][1] + gb->R[3 * i + 1] * p[1][1] + gb->R[3 * i + 2] * p[2][1];
        a[i] = gb->R[3 * i] * p[0][2] + gb->R[3 * i + 1] * p[1][2] + gb->R[3 * i + 2] * p[2][2];
    }
    if (eta_b) {
        memcpy(eta_b, w, sizeof w);
        memcpy(eta_b + 3, v, sizeof v);
    }
    if (acc_b) {
        for (int i = 0; i < 3; i++) acc_b[i] = th[2] * sp->base_axis[i];
        acc_b[3] = a[0] - (w[1] * v[2] - w[2] * v[1]);
        acc_b[4] = a[1] - (w[2] * v[0] - w[0] * v[2]);
        acc_b[5] = a[2] - (w[0] * v[1] - w[1] * v[0]);
    }
}

/* Stations relative to the base -> world, given the base's pose, twist and acceleration; the
 * Jacobians' base columns from B (6 x 6, column-major) when J is not NULL. */
VECTOR_CLONES
static void put_on_base(const rod_model *m, const lie_pose *gbase, const double eb[6],
                        const double ab[6], const double *B, lie_pose *g, double *J, int n,
                        double *eta, double *bias)
{
    const lie_pose gb = *gbase;
    for (int k = 0; k < n; k++) {
        if (eta) {
            double e[6], er[6];
            lie_Ad_inv_apply(&g[k], eb, e);
            memcpy(er, eta + 6 * k, sizeof er);
            for (int i = 0; i < 6; i++) eta[6 * k + i] += e[i];
            if (bias) {
                double ad[6], c[6];
                lie_Ad_inv_apply(&g[k], ab, ad);
                lie_ad_apply(e, er, c);
                for (int i = 0; i < 6; i++) bias[6 * k + i] += ad[i] + c[i];
            }
        }
        if (J && B) lie_Ad_inv_columns(&g[k], 6, B, J + ((size_t)k * m->n_xi + m->base_col) * 6);
        lie_pose_mul(&gb, &g[k], &g[k]);
    }
}

void base_apply(const rod_model *m, profile_eval *ev, double t, lie_pose *g, int n, double *eta,
                double *bias)
{
    if (!m->spec->base_moving) return;
    lie_pose gb;
    double eb[6], ab[6];
    base_motion(m, ev, t, &gb, eb, ab);
    put_on_base(m, &gb, eb, ab, NULL, g, NULL, n, eta, bias);
}

int base_free(const rod_model *m) { return m->base_col >= 0; }

void base_free_pose(const rod_model *m, const double *q, lie_pose *gb)
{
    lie_exp(q + m->base_col, gb);
}

/* B, the base twist's map from x_dot: Ad_{exp x}^{-1} T_x (column-major) */
static void free_columns(const double *x, const lie_pose *gb, double B[36])
{
    for (int c = 0; c < 6; c++) {
        double e[6] = {0}, Te[6];
        e[c] = 1.0;
        lie_dexp_apply(x, e, Te);
        lie_Ad_inv_apply(gb, Te, B + 6 * c);
    }
}

int base_free_columns(const rod_model *m, const double *q, double B[36])
{
    if (m->base_col < 0) return 0;
    lie_pose gb;
    lie_exp(q + m->base_col, &gb);
    free_columns(q + m->base_col, &gb, B);
    return 1;
}

void base_free_apply(const rod_model *m, const double *q, const double *qd, lie_pose *g, double *J,
                     int n, double *eta, double *bias)
{
    if (m->base_col < 0) return;
    const double *x = q + m->base_col, *xd = qd ? qd + m->base_col : NULL;
    lie_pose gb;
    lie_exp(x, &gb);
    double B[36], eb[6] = {0}, ab[6] = {0};
    if (J) free_columns(x, &gb, B); /* J's base columns only: most calls form no J */
    if (xd) {
        double Tx[6], Td[6];
        lie_dexp_apply(x, xd, Tx);
        lie_Ad_inv_apply(&gb, Tx, eb);
        lie_dexp_dot_apply(x, xd, Td);
        lie_Ad_inv_apply(&gb, Td, ab);
    }
    put_on_base(m, &gb, eb, ab, J ? B : NULL, g, J, n, xd ? eta : NULL, xd ? bias : NULL);
}

double base_free_chart_root(const rod_model *m, const double *q)
{
    const double *w = q + m->base_col;
    return 1.5 * M_PI - sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
}

/* A x = b in place by Gaussian elimination with partial pivoting (A: n x n, column-major). */
static void solve_small(double *A, int n, double *b)
{
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(A[r + n * c]) > fabs(A[p + n * c])) p = r;
        for (int k = 0; k < n; k++) {
            const double t = A[c + n * k];
            A[c + n * k] = A[p + n * k];
            A[p + n * k] = t;
        }
        const double t = b[c];
        b[c] = b[p];
        b[p] = t;
        for (int r = c + 1; r < n; r++) {
            const double f = A[r + n * c] / A[c + n * c];
            for (int k = c; k < n; k++) A[r + n * k] -= f * A[c + n * k];
            b[r] -= f * b[c];
        }
    }
    for (int c = n - 1; c >= 0; c--) {
        for (int k = c + 1; k < n; k++) b[c] -= A[c + n * k] * b[k];
        b[c] /= A[c + n * c];
    }
}

void base_free_rechart(const rod_model *m, double *q, double *qd)
{
    if (m->base_col < 0) return;
    double *x = q + m->base_col, *xd = qd + m->base_col;
    const double th = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    if (th <= M_PI) return;
    /* the same rotation: angle th - 2 pi about the same axis */
    double y[6];
    for (int i = 0; i < 3; i++) y[i] = x[i] * (1 - 2 * M_PI / th);
    /* the same position: exp's translation is linear in the coordinates' v part (V(w) v) */
    lie_pose g;
    lie_exp(x, &g);
    double V[9], r[3] = {g.r[0], g.r[1], g.r[2]};
    for (int c = 0; c < 3; c++) {
        double e[6] = {y[0], y[1], y[2], 0, 0, 0};
        e[3 + c] = 1.0;
        lie_pose gc;
        lie_exp(e, &gc);
        for (int i = 0; i < 3; i++) V[i + 3 * c] = gc.r[i];
    }
    solve_small(V, 3, r);
    memcpy(y + 3, r, sizeof r);
    /* the same twist: T_y y_dot = T_x x_dot (the pose, hence Ad_{exp}^{-1}, is unchanged) */
    double T[36], b[6];
    lie_dexp_apply(x, xd, b);
    for (int c = 0; c < 6; c++) {
        double e[6] = {0};
        e[c] = 1.0;
        lie_dexp_apply(y, e, T + 6 * c);
    }
    solve_small(T, 6, b);
    memcpy(x, y, sizeof y);
    memcpy(xd, b, sizeof b);
}

void base_free_rate(const rod_model *m, const double *q, const double eta_b[6], double *qd)
{
    if (m->base_col < 0) return;
    const double *x = q + m->base_col;
    lie_pose gb;
    lie_exp(x, &gb);
    double T[36], b[6];
    lie_Ad_apply(&gb, eta_b, b);
    for (int c = 0; c < 6; c++) {
        double e[6] = {0};
        e[c] = 1.0;
        lie_dexp_apply(x, e, T + 6 * c);
    }
    solve_small(T, 6, b);
    memcpy(qd + m->base_col, b, sizeof b);
}
