/* Constraint rows, their gradients and time derivatives, the multipliers' saddle-point
 * solve and the projection back onto the constraint manifold (constraints.h). */
#include "constraints.h"
#include "state.h"
#include "constraints_layout.h"
#include "vec3.h"

#include "dense.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int constraints_dependent(const rod_state *st) { return st->con && st->con->dependent; }

/* A load step's target rotation on a rod curved at rest: from the rest one R0 (factor 0) to
 * the target's (factor 1) along the geodesic, R0 exp(factor log(R0^T R_target)). */
static void rest_to_target(const double R0[9], const double axis[3], double angle, double factor,
                           double Rt[9])
{
    double Rg[9], D[9], e[3], Rf[9];
    lie_rotation_about(axis, angle, Rg);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) { /* D = R0^T Rg */
            double s = 0;
            for (int l = 0; l < 3; l++) s += R0[l + 3 * a] * Rg[l + 3 * b];
            D[a + 3 * b] = s;
        }
    lie_so3_log(D, e);
    const double th = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    const double u[3] = {th > 0 ? e[0] / th : 0, th > 0 ? e[1] / th : 0, th > 0 ? e[2] / th : 1};
    lie_rotation_about(u, factor * th, Rf);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double s = 0;
            for (int l = 0; l < 3; l++) s += R0[a + 3 * l] * Rf[l + 3 * b];
            Rt[a + 3 * b] = s;
        }
}

/* The volume rows' c and A at q (c[0..], A's rows from 0) of a constraint whose first row
 * is r0. */
static void volume_rows(const rod_model *m, const spec_constraint *k, int r0, const double *q,
                        double *c, double *A)
{
    const int n = m->n, nx = m->n_xi, nr = m->n_rho, R = k->pieces ? m->spec->pieces : 1;
    for (int r = 0; r < R; r++) {
        c[r] = 0.0;
        memset(A + (size_t)r * n, 0, (size_t)n * sizeof *A);
    }
    for (int s = 0; s < m->ns; s++) {
        const double w = m->w[s];
        if (w == 0) continue;
        const int r = k->pieces ? constraints_piece_of(m, s) : 0;
        double rho = 1.0, xi[6];
        const double *phr = m->phr + (size_t)s * nr, *leg = m->leg + (size_t)s * nx;
        for (int j = 0; j < nr; j++) rho += phr[j] * q[nx + j];
        model_xi(m, leg, model_xis_at(m, s), q, xi);
        const double A0 = m->sec[s].A0, nun = sqrt(xi[3] * xi[3] + xi[4] * xi[4] + xi[5] * xi[5]);
        const double inv = 1.0 / m->con->vol0[r0 + r];
        c[r] += w * A0 * rho * rho * nun * inv;
        double *Ar = A + (size_t)r * n;
        for (int j = 0; j < nx; j++) {
            const int cc = m->cols[j].comp;
            if (cc >= 3) Ar[j] += w * A0 * rho * rho * xi[cc] / nun * leg[j] * inv;
        }
        for (int j = 0; j < nr; j++) Ar[nx + j] += w * A0 * 2 * rho * nun * phr[j] * inv;
    }
    for (int r = 0; r < R; r++) c[r] -= 1.0;
}

/* The volume rows' rates (c_dot) and their acceleration at q_ddot = 0 (A_dot q_dot): per
 * station the integrand f = A0 rho^2 |nu| has
 *   f_dot  = A0 (2 rho rho_dot |nu| + rho^2 (nu . nu_dot) / |nu|),
 *   f_ddot = A0 (2 rho_dot^2 |nu| + 4 rho rho_dot (nu . nu_dot) / |nu|
 *                + rho^2 (|nu_dot|^2 - (nu . nu_dot)^2 / |nu|^2) / |nu|),
 * with rho_dot = Phi_rho q_dot_rho and nu_dot = Phi_xi q_dot_xi (both linear in q_dot). */
static void volume_rates(const rod_model *m, const spec_constraint *k, int r0, const double *q,
                         const double *qd, double *cd, double *acc)
{
    const int nx = m->n_xi, nr = m->n_rho, R = k->pieces ? m->spec->pieces : 1;
    for (int r = 0; r < R; r++) cd[r] = acc[r] = 0.0;
    for (int s = 0; s < m->ns; s++) {
        const double w = m->w[s];
        if (w == 0) continue;
        const int r = k->pieces ? constraints_piece_of(m, s) : 0;
        const double *phr = m->phr + (size_t)s * nr, *leg = m->leg + (size_t)s * nx;
        double rho = 1.0, rd = 0.0, xi[6], xid[6] = {0};
        for (int j = 0; j < nr; j++) {
            rho += phr[j] * q[nx + j];
            rd += phr[j] * qd[nx + j];
        }
        model_xi(m, leg, model_xis_at(m, s), q, xi);
        for (int j = 0; j < nx; j++) xid[m->cols[j].comp] += leg[j] * qd[j];
        const double *nu = xi + 3, *nd = xid + 3;
        const double nn = sqrt(nu[0] * nu[0] + nu[1] * nu[1] + nu[2] * nu[2]);
        const double dot = nu[0] * nd[0] + nu[1] * nd[1] + nu[2] * nd[2];
        const double dd = nd[0] * nd[0] + nd[1] * nd[1] + nd[2] * nd[2];
        const double f = w * m->sec[s].A0 / m->con->vol0[r0 + r];
        cd[r] += f * (2 * rho * rd * nn + rho * rho * dot / nn);
        acc[r] += f * (2 * rd * rd * nn + 4 * rho * rd * dot / nn + rho * rho * (dd - dot * dot / (nn * nn)) / nn);
    }
}

/* A point's motion in the world: Jw (6 x n_xi, column-major, angular rows first) maps q_dot to
 * its world twist; with velocities (st->eta, st->bias at q_dot), vel = its world angular and
 * linear velocity and acc = their rates at q_ddot = 0. */
typedef struct {
    const lie_pose *g;
    double vel[6], acc[6];
} point_motion;

static void world_jacobian(const rod_model *m, const rod_state *st, int ks, double *Jw)
{
    const lie_pose *g = &st->g[ks];
    const double *Jk = state_J(m, st, ks);
    for (int j = 0; j < m->n_xi; j++)
        for (int h = 0; h < 6; h += 3)
            for (int a = 0; a < 3; a++) {
                const double *Jj = Jk + 6 * j + h;
                Jw[6 * j + h + a] = g->R[a] * Jj[0] + g->R[a + 3] * Jj[1] + g->R[a + 6] * Jj[2];
            }
}

static void motion_of(const rod_state *st, int ks, int with_rates, point_motion *pm)
{
    const lie_pose *g = &st->g[ks];
    pm->g = g;
    memset(pm->vel, 0, sizeof pm->vel);
    memset(pm->acc, 0, sizeof pm->acc);
    if (!with_rates) return;
    /* body twist eta = (w; v), body bias b = J_dot q_dot; the world acceleration of the point
     * at q_ddot = 0 is R (b_v + w x v), its angular acceleration R b_w. The twist is the whole
     * body twist (a moving base's share included), not only J q_dot. */
    const double *eta = st->eta + 6 * ks, *bs = st->bias + 6 * ks;
    double body[6];
    for (int a = 0; a < 3; a++) body[a] = bs[a];
    body[3] = bs[3] + eta[1] * eta[5] - eta[2] * eta[4];
    body[4] = bs[4] + eta[2] * eta[3] - eta[0] * eta[5];
    body[5] = bs[5] + eta[0] * eta[4] - eta[1] * eta[3];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            pm->vel[a] += g->R[a + 3 * b] * eta[b];
            pm->vel[3 + a] += g->R[a + 3 * b] * eta[3 + b];
            pm->acc[a] += g->R[a + 3 * b] * body[b];
            pm->acc[3 + a] += g->R[a + 3 * b] * body[3 + b];
        }
}

/* The rows of pose constraint i. In the world: c = r_a - p(t) and e = log(R_a R_t(t)^T), their
 * rates the point's world velocity and angular velocity less the target's. Relative to the
 * point b (frame R_b, all in b's frame): with d = r_a - r_b,
 *   c = R_b^T d - p,          c_dot = R_b^T (v_a - v_b - w_b x d) - p_dot,
 *   c_ddot|q_ddot=0 = R_b^T (a_a - a_b - alpha_b x d - 2 w_b x (v_a - v_b) + w_b x (w_b x d)),
 *   e = log(R_b^T R_a R_t^T), e_dot = R_b^T (w_a - w_b) - the target's,
 *   e_ddot|q_ddot=0 = R_b^T (alpha_a - alpha_b - w_b x w_a),
 * so the gradient rows are R_b^T (Jw_a,v - Jw_b,v + d~ Jw_b,w) and R_b^T (Jw_a,w - Jw_b,w).
 * These functions of the relative pose alone do not change under a rigid motion of the whole
 * rod, so their reactions are self-equilibrated and conserve the momenta of a free rod. */
static void pose_rows(const rod_model *m, rod_state *st, int i, const double *qd, double t,
                      double factor)
{
    const spec_constraint *k = &m->spec->cons[i];
    const struct con_layout *L = m->con;
    struct con_work *w = st->con;
    const int n = m->n, nx = m->n_xi, rel = k->relative;
    double tgt[3][3], ang[3], e[3] = {0};
    const int *in = L->target + 4 * i; /* commands may have replaced the spec's profiles */
    for (int a = 0; a < 3; a++) {
        if (in[a] >= 0) state_input_value_derivs(st, in[a], t, tgt[a]); /* a command's ramp included */
        else profile_value_derivs(&k->position[a], st->ev, t, tgt[a]);
        /* the load steps start from the rod at rest: the straight rod's (0, 0, s - s_rel), or
         * the rest shape's (L->ref) */
        const double ref = L->ref ? L->ref[12 * i + a] : a == 2 ? k->s - (rel ? k->s_rel : 0.0) : 0.0;
        tgt[a][0] = ref + factor * (tgt[a][0] - ref);
        tgt[a][1] *= factor;
        tgt[a][2] *= factor;
    }
    if (in[3] >= 0) state_input_value_derivs(st, in[3], t, ang);
    else profile_value_derivs(&k->angle, st->ev, t, ang);
    point_motion pa, pb;
    motion_of(st, L->station[i], qd != NULL, &pa);
    world_jacobian(m, st, L->station[i], w->Jwa);
    static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    const double *Rb = I3;
    double d[3] = {0}, pos[3], vrel[6] = {0}, arel[6] = {0};
    if (rel) {
        motion_of(st, L->station_rel[i], qd != NULL, &pb);
        world_jacobian(m, st, L->station_rel[i], w->Jwb);
        Rb = pb.g->R;
        for (int a = 0; a < 3; a++) d[a] = pa.g->r[a] - pb.g->r[a];
        vec3_rot_t(Rb, d, pos);
        if (qd) {
            /* world rates of the relative position and rotation, then into b's frame */
            double wd[3], wwd[3], av[3], ad[3], ww[3], tmp[6];
            const double *wb = pb.vel, *ab = pb.acc;
            double dv[3];
            for (int a = 0; a < 3; a++) dv[a] = pa.vel[3 + a] - pb.vel[3 + a];
            vec3_cross(wb, d, wd);
            vec3_cross(wb, wd, wwd);
            vec3_cross(wb, dv, av);
            vec3_cross(ab, d, ad);
            vec3_cross(wb, pa.vel, ww);
            for (int a = 0; a < 3; a++) {
                tmp[a] = pa.vel[a] - wb[a];
                tmp[3 + a] = dv[a] - wd[a];
            }
            vec3_rot_t(Rb, tmp, vrel);
            vec3_rot_t(Rb, tmp + 3, vrel + 3);
            for (int a = 0; a < 3; a++) {
                tmp[a] = pa.acc[a] - ab[a] - ww[a];
                tmp[3 + a] = pa.acc[3 + a] - ab[3 + a] - ad[a] - 2 * av[a] + wwd[a];
            }
            vec3_rot_t(Rb, tmp, arel);
            vec3_rot_t(Rb, tmp + 3, arel + 3);
        }
    } else {
        memcpy(pos, pa.g->r, sizeof pos);
        memcpy(vrel, pa.vel, sizeof vrel);
        memcpy(arel, pa.acc, sizeof arel);
    }
    if (k->held[CON_RX] || k->held[CON_RY] || k->held[CON_RZ]) {
        double Rt[9], E[9], Rr[9];
        if (L->ref && factor != 1.0)
            rest_to_target(L->ref + 12 * i + 3, k->axis, ang[0], factor, Rt);
        else
            lie_rotation_about(k->axis, factor * ang[0], Rt);
        for (int a = 0; a < 3; a++) /* Rr = R_b^T R_a */
            for (int b = 0; b < 3; b++) {
                double s = 0;
                for (int l = 0; l < 3; l++) s += Rb[l + 3 * a] * pa.g->R[l + 3 * b];
                Rr[a + 3 * b] = s;
            }
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                double s = 0;
                for (int l = 0; l < 3; l++) s += Rr[a + 3 * l] * Rt[b + 3 * l]; /* Rr Rt^T */
                E[a + 3 * b] = s;
            }
        lie_so3_log(E, e);
    }
    int r = L->first_row[i];
    for (int a = 0; a < 6; a++) {
        if (!k->held[a]) continue;
        const int lin = a < 3, ax = lin ? a : a - 3, h = lin ? 3 : 0;
        double *Ar = w->A + (size_t)r * n;
        memset(Ar, 0, (size_t)n * sizeof *Ar);
        /* row ax of R_b^T times the world rows */
        const double rb0 = Rb[3 * ax], rb1 = Rb[3 * ax + 1], rb2 = Rb[3 * ax + 2];
        for (int j = 0; j < nx; j++) {
            const double *Ja = w->Jwa + 6 * j + h;
            double x = Ja[0], y = Ja[1], z = Ja[2];
            if (rel) {
                const double *Jb = w->Jwb + 6 * j;
                x -= Jb[h];
                y -= Jb[h + 1];
                z -= Jb[h + 2];
                if (lin) { /* + d x Jw_b,w */
                    x += d[1] * Jb[2] - d[2] * Jb[1];
                    y += d[2] * Jb[0] - d[0] * Jb[2];
                    z += d[0] * Jb[1] - d[1] * Jb[0];
                }
            }
            Ar[j] = rb0 * x + rb1 * y + rb2 * z;
        }
        w->c[r] = lin ? pos[ax] - tgt[ax][0] : e[ax];
        if (qd) {
            const double vt = lin ? tgt[ax][1] : factor * ang[1] * k->axis[ax];
            const double at = lin ? tgt[ax][2] : factor * ang[2] * k->axis[ax];
            w->cd[r] = vrel[h + ax] - vt;
            w->bias[r] = arel[h + ax] - at;
        }
        r++;
    }
    if (rel) memcpy(w->Rb + 9 * i, Rb, 9 * sizeof *Rb);
}

/* Every row's c and A at q (st->g, st->J computed there); with qd, also c_dot and the bias
 * A_dot q_dot - (target acceleration), which need st->eta and st->bias at (q, qd). */
static void eval_rows(const rod_model *m, rod_state *st, const double *q, const double *qd,
                      double t, double factor)
{
    const rod_spec *sp = m->spec;
    const struct con_layout *L = m->con;
    struct con_work *w = st->con;
    const int n = m->n;
    for (int i = 0; i < sp->ncons; i++) {
        const spec_constraint *k = &sp->cons[i];
        const int r0 = L->first_row[i];
        if (k->type == CON_VOLUME) {
            volume_rows(m, k, r0, q, w->c + r0, w->A + (size_t)r0 * n);
            if (!qd) continue;
            /* c_dot = A q_dot (no target motion) and A_dot q_dot = d^2 c / dt^2 at q_ddot = 0 */
            volume_rates(m, k, r0, q, qd, w->cd + r0, w->bias + r0);
            continue;
        }
        pose_rows(m, st, i, qd, t, factor);
    }
}

double constraints_row_scale(const rod_model *m, int r)
{
    const con_row *row = &m->con->rows[m->con->mult_row[r]];
    const spec_constraint *k = &m->spec->cons[row->con];
    return k->type == CON_POSE && row->comp < 3 ? 1.0 / m->L : 1.0;
}

/* y (n) += A^T f over the penalty rows, with f = -k c - d c_dot (c_dot when qd is given). */
static void penalty_force(const rod_model *m, rod_state *st, const double *qd, double *y)
{
    const struct con_layout *L = m->con;
    struct con_work *w = st->con;
    const int n = m->n;
    for (int r = 0; r < L->nrows; r++) {
        if (L->rows[r].mult >= 0) continue;
        const spec_constraint *k = &m->spec->cons[L->rows[r].con];
        const double f = -k->stiffness * w->c[r] - (qd ? k->damping * w->cd[r] : 0.0);
        w->lam[r] = f;
        const double *Ar = w->A + (size_t)r * n;
        for (int j = 0; j < n; j++) y[j] += Ar[j] * f;
    }
}

void constraints_statics_terms(const rod_model *m, rod_state *st, const double *q,
                               const double *lambda, double t, double factor, double *Qc,
                               double *cm)
{
    if (!m->con) return;
    const struct con_layout *L = m->con;
    struct con_work *w = st->con;
    const int n = m->n;
    eval_rows(m, st, q, NULL, t, factor);
    penalty_force(m, st, NULL, Qc);
    for (int i = 0; i < L->nmult; i++) {
        const int r = L->mult_row[i];
        const double *Ar = w->A + (size_t)r * n;
        for (int j = 0; j < n; j++) Qc[j] += Ar[j] * lambda[i];
        cm[i] = w->c[r];
    }
}

void constraints_mult_column(const rod_model *m, const rod_state *st, int r, double *col)
{
    memcpy(col, st->con->A + (size_t)m->con->mult_row[r] * m->n, (size_t)m->n * sizeof *col);
}

double constraints_max_turn(const rod_model *m, rod_state *st, double t)
{
    double turn = 0.0;
    for (int i = 0; m->con && i < m->spec->ncons; i++) {
        const spec_constraint *k = &m->spec->cons[i];
        if (k->type != CON_POSE || !(k->held[CON_RX] || k->held[CON_RY] || k->held[CON_RZ])) continue;
        const int in = m->con->target[4 * i + 3];
        double ang[3];
        if (in >= 0) state_input_value_derivs(st, in, t, ang);
        else profile_value_derivs(&k->angle, st->ev, t, ang);
        turn = fmax(turn, fabs(ang[0]));
    }
    return turn;
}

static const char *const comp_names[] = {"x", "y", "z", "rx", "ry", "rz"};

/* Multiplier rows whose Gram matrix (in the metric of M^-1 for dynamics, of q for statics, each
 * row of unit length there) has a pivot below DEPENDENT_RTOL of its diagonal: the row is all
 * but a combination of the rows before it (the squared sine of its angle to their span is
 * below that). The multipliers' rounding error grows as the unit roundoff over that ratio,
 * 1e-4 relative at 1e-12. Measured on a rod held in x at s = 0.5 and at 0.5 + d: d = 1e-7 m
 * (4.6e-13 in M^-1) cut BDF's steps 17-fold and d = 1e-6 m (9.3e-13 in q) stopped statics,
 * while d = 1e-6 m (4.7e-11 in M^-1) and d = 1e-5 m (9.3e-11 in q) ran as d = 1 cm does. */
#define DEPENDENT_RTOL 1e-12
static void dependence_error(const rod_model *m, rod_state *st, const double *G, int nm, int kb, double t);

int constraints_check_rank(const rod_model *m, rod_state *st, const double *q)
{
    if (!m->con || !m->con->nmult) return 0;
    eval_rows(m, st, q, NULL, st->t, 1.0);
    const int n = m->n;
    for (int r = 0; r < m->con->nrows; r++) {
        double s = 0;
        for (int j = 0; j < n; j++) s += fabs(st->con->A[(size_t)r * n + j]);
        if (s > 0) continue;
        const con_row *row = &m->con->rows[r];
        const spec_constraint *k = &m->spec->cons[row->con];
        state_set_error(st, "constraint \"%s\": component %s cannot be moved by the strains in "
                        "use here (add the strain that moves it, or do not hold it)", k->name,
                        k->type == CON_POSE ? comp_names[row->comp] : "volume");
        return -1;
    }
    /* the multiplier rows' Gram matrix in q's metric, each row scaled to unit length: its
     * pivots are the squared sines dense_cholesky_rel tests */
    const int nm = m->con->nmult;
    double *G = malloc((size_t)nm * nm * sizeof *G);
    if (!G) {
        state_set_error(st, "out of memory");
        return ROD_ENOMEM;
    }
    for (int a = 0; a < nm; a++)
        for (int b = 0; b <= a; b++) {
            const double *Aa = st->con->A + (size_t)m->con->mult_row[a] * n;
            const double *Ab = st->con->A + (size_t)m->con->mult_row[b] * n;
            double s = 0, na = 0, nb = 0;
            for (int j = 0; j < n; j++) {
                s += Aa[j] * Ab[j];
                na += Aa[j] * Aa[j];
                nb += Ab[j] * Ab[j];
            }
            G[a + (size_t)nm * b] = G[b + (size_t)nm * a] = s / sqrt(na * nb);
        }
    const int bad = dense_cholesky_rel(G, nm, DEPENDENT_RTOL);
    if (bad) dependence_error(m, st, G, nm, bad - 1, st->t);
    free(G);
    return bad ? -1 : 0;
}

int constraints_check_base(const rod_model *m, rod_state *st, const double *q)
{
    if (m->base_col < 0) return 0; /* the base is not free */
    int rank = 0;
    if (m->con) {
        eval_rows(m, st, q, NULL, st->t, 1.0);
        /* the rows' base columns (rotations per L, so both halves are in metres or radians),
         * orthogonalized one by one: the rigid motions they hold */
        double basis[6][6];
        for (int r = 0; r < m->con->nrows && rank < 6; r++) {
            double v[6];
            const double *Ar = st->con->A + (size_t)r * m->n + m->base_col;
            for (int a = 0; a < 6; a++) v[a] = Ar[a] / (a < 3 ? m->L : 1.0);
            double n0 = 0;
            for (int a = 0; a < 6; a++) n0 += v[a] * v[a];
            if (!(n0 > 0)) continue;
            for (int pass = 0; pass < 2; pass++)
                for (int b = 0; b < rank; b++) {
                    double d = 0;
                    for (int a = 0; a < 6; a++) d += v[a] * basis[b][a];
                    for (int a = 0; a < 6; a++) v[a] -= d * basis[b][a];
                }
            double n1 = 0;
            for (int a = 0; a < 6; a++) n1 += v[a] * v[a];
            if (n1 <= 1e-16 * n0) continue;
            for (int a = 0; a < 6; a++) basis[rank][a] = v[a] / sqrt(n1);
            rank++;
        }
    }
    if (rank == 6) return 0;
    state_set_error(st, "statics with a \"free\" base: the constraints hold %d of the base's six "
                    "rigid motions, so the rod has no unique equilibrium (hold a point of it in "
                    "the world: a pose constraint's position and rotation, or use dynamics with "
                    "damping to settle)", rank);
    return -1;
}

static const char *row_name(const rod_model *m, int mult, const char **comp)
{
    const con_row *row = &m->con->rows[m->con->mult_row[mult]];
    const spec_constraint *k = &m->spec->cons[row->con];
    *comp = k->type == CON_POSE ? comp_names[row->comp] : "volume";
    return k->name;
}

/* The message for a Gram matrix G (nm x nm, the lower triangle of its first kb columns factored
 * by dense_cholesky_rel, the upper triangle intact) that failed at row kb: the earlier rows
 * that row kb is nearly a combination of, by the coefficients c = G11^-1 g (the projection
 * onto their span), those that carry a tenth of it or more. */
static void dependence_error(const rod_model *m, rod_state *st, const double *G, int nm, int kb, double t)
{
    enum { MAXK = 64 }; /* a longer list would not be read */
    double c[MAXK], gd[MAXK], ratio;
    const int nk = kb < MAXK ? kb : MAXK;
    double dkk = G[kb + (size_t)nm * kb];
    for (int j = 0; j < nk; j++) c[j] = G[j + (size_t)nm * kb]; /* the upper triangle: G_j,kb */
    for (int j = 0; j < nk; j++) { /* L y = g, then L^T c = y */
        double s = c[j];
        for (int i = 0; i < j; i++) s -= G[j + (size_t)nm * i] * c[i];
        c[j] = s / G[j + (size_t)nm * j];
        dkk -= c[j] * c[j];
    }
    ratio = dkk / G[kb + (size_t)nm * kb];
    for (int j = nk - 1; j >= 0; j--) {
        double s = c[j];
        for (int i = j + 1; i < nk; i++) s -= G[i + (size_t)nm * j] * c[i];
        c[j] = s / G[j + (size_t)nm * j];
    }
    for (int j = 0; j < nk; j++) { /* G_jj = |L row j|^2 */
        gd[j] = 0;
        for (int i = 0; i <= j; i++) gd[j] += G[j + (size_t)nm * i] * G[j + (size_t)nm * i];
    }
    const char *comp, *name = row_name(m, kb, &comp);
    char list[512] = "";
    if (st->con) st->con->dependent = 1;
    size_t used = 0;
    for (int j = 0; j < nk && used < sizeof list - 64; j++) {
        if (!(fabs(c[j]) * sqrt(gd[j]) >= 0.1 * sqrt(fmax(G[kb + (size_t)nm * kb] - dkk, 0.0)))) continue;
        const char *cj, *nj = row_name(m, j, &cj);
        used += (size_t)snprintf(list + used, sizeof list - used, "%s\"%s\" (%s)", used ? ", " : "", nj, cj);
    }
    if (!list[0])
        state_set_error(st, "constraint \"%s\" (%s) cannot be held at t = %g: the strains in use "
                        "cannot move it", name, comp, t);
    else
        state_set_error(st, "constraint \"%s\" (%s) depends on %s at t = %g (what it holds is all "
                        "but held by them: the squared sine of the angle between them is %.2g, below "
                        "%g): hold it once, or hold points further apart", name, comp, list, t,
                        fmax(ratio, 0.0), DEPENDENT_RTOL);
}

/* y <- M^{-1} y, with M_xi's factor in st->Mxi and M_rho's in the model. */
static void apply_Minv(const rod_model *m, const rod_state *st, double *y)
{
    if (m->n_xi) dense_cholesky_solve(st->Mxi, m->n_xi, y);
    if (m->n_rho) dense_cholesky_solve(m->Mrho_chol, m->n_rho, y + m->n_xi);
}

/* B = M^{-1} A_m^T and S = A_m M^{-1} A_m^T, factored. 0, or -1 when S is (nearly) singular:
 * rows that (nearly) depend on each other, or one the strains cannot move. */
static int factor_saddle(const rod_model *m, rod_state *st, double t)
{
    const struct con_layout *L = m->con;
    struct con_work *w = st->con;
    const int n = m->n, nm = L->nmult;
    for (int a = 0; a < nm; a++) {
        double *Ba = w->B + (size_t)a * n;
        memcpy(Ba, w->A + (size_t)L->mult_row[a] * n, (size_t)n * sizeof *Ba);
        apply_Minv(m, st, Ba);
    }
    for (int a = 0; a < nm; a++)
        for (int b = 0; b <= a; b++) {
            const double *Aa = w->A + (size_t)L->mult_row[a] * n, *Bb = w->B + (size_t)b * n;
            double s = 0;
            for (int j = 0; j < n; j++) s += Aa[j] * Bb[j];
            w->S[a + (size_t)nm * b] = s;
            w->S[b + (size_t)nm * a] = s;
        }
    const int bad = dense_cholesky_rel(w->S, nm, DEPENDENT_RTOL);
    if (bad) {
        dependence_error(m, st, w->S, nm, bad - 1, t);
        return -1;
    }
    return 0;
}

int constraints_accel(const rod_model *m, rod_state *st, double t, const double *q,
                      const double *qd, double *qdd)
{
    if (!m->con) return 0;
    const struct con_layout *L = m->con;
    struct con_work *w = st->con;
    const int n = m->n, nm = L->nmult;
    eval_rows(m, st, q, qd, t, 1.0);
    if (L->nmult < L->nrows) {
        memset(w->tmp, 0, (size_t)n * sizeof *w->tmp);
        penalty_force(m, st, qd, w->tmp);
        apply_Minv(m, st, w->tmp);
        for (int j = 0; j < n; j++) qdd[j] += w->tmp[j];
    }
    if (!nm) return 0;
    if (factor_saddle(m, st, t) != 0) return -1;
    for (int a = 0; a < nm; a++) {
        const int r = L->mult_row[a];
        const double *Ar = w->A + (size_t)r * n;
        double s = w->bias[r];
        for (int j = 0; j < n; j++) s += Ar[j] * qdd[j];
        w->mu[a] = -s;
    }
    dense_cholesky_solve(w->S, nm, w->mu);
    for (int a = 0; a < nm; a++) {
        w->lam[L->mult_row[a]] = w->mu[a];
        const double *Ba = w->B + (size_t)a * n;
        for (int j = 0; j < n; j++) qdd[j] += Ba[j] * w->mu[a];
    }
    return 0;
}

void constraints_penalty_residual(const rod_model *m, rod_state *st, double t, const double *q,
                                  const double *qd, double *Q)
{
    if (!m->con) return;
    eval_rows(m, st, q, qd, t, 1.0);
    penalty_force(m, st, qd, Q);
}

void constraints_force(const rod_model *m, const rod_state *st, double *Q)
{
    if (!m->con) return;
    const int n = m->n;
    for (int r = 0; r < m->con->nrows; r++) {
        const double *Ar = st->con->A + (size_t)r * n, l = st->con->lam[r];
        for (int j = 0; j < n; j++) Q[j] += Ar[j] * l;
    }
}

void constraints_penalty_column(const rod_model *m, const rod_state *st, int j, int rate, double *v)
{
    if (!m->con || m->con->nmult == m->con->nrows) return;
    const struct con_layout *L = m->con;
    const struct con_work *w = st->con;
    const int n = m->n;
    for (int r = 0; r < L->nrows; r++) {
        if (L->rows[r].mult >= 0) continue;
        const spec_constraint *k = &m->spec->cons[L->rows[r].con];
        const double *Ar = w->A + (size_t)r * n;
        const double f = (rate ? k->damping : k->stiffness) * Ar[j];
        for (int i = 0; i < n; i++) v[i] -= f * Ar[i];
    }
}

void constraints_penalty_add(const rod_model *m, const rod_state *st, double wk, double *K,
                             double wc, double *C, int ld)
{
    if (!m->con || m->con->nmult == m->con->nrows) return;
    const struct con_layout *L = m->con;
    const int n = m->n;
    for (int r = 0; r < L->nrows; r++) {
        if (L->rows[r].mult >= 0) continue;
        const spec_constraint *k = &m->spec->cons[L->rows[r].con];
        const double *Ar = st->con->A + (size_t)r * n, a = wk * k->stiffness, b = wc * k->damping;
        for (int j = 0; j < n; j++) {
            if (Ar[j] == 0) continue;
            double *Kj = K + (size_t)ld * j, *Cj = C + (size_t)ld * j;
            if (K == C) { /* one matrix (a Newton matrix): one pass */
                const double ab = (a + b) * Ar[j];
                for (int i = 0; i < n; i++) Kj[i] += ab * Ar[i];
                continue;
            }
            for (int i = 0; i < n; i++) {
                Kj[i] += a * Ar[j] * Ar[i];
                Cj[i] += b * Ar[j] * Ar[i];
            }
        }
    }
}

void constraints_project_column(const rod_model *m, rod_state *st, double *v)
{
    if (!m->con || !m->con->nmult) return;
    const struct con_layout *L = m->con;
    struct con_work *w = st->con;
    const int n = m->n, nm = L->nmult;
    for (int a = 0; a < nm; a++) {
        const double *Ar = w->A + (size_t)L->mult_row[a] * n;
        double s = 0;
        for (int j = 0; j < n; j++) s += Ar[j] * v[j];
        w->mu[a] = s;
    }
    dense_cholesky_solve(w->S, nm, w->mu);
    for (int a = 0; a < nm; a++) {
        const double *Ba = w->B + (size_t)a * n;
        for (int j = 0; j < n; j++) v[j] -= Ba[j] * w->mu[a];
    }
}

/* The largest multiplier row violation, scaled as the statics residual scales it. */
static double mult_violation(const rod_model *m, const rod_state *st)
{
    double e = 0;
    for (int a = 0; a < m->con->nmult; a++)
        e = fmax(e, fabs(st->con->c[m->con->mult_row[a]]) * constraints_row_scale(m, a));
    return e;
}

int constraints_linearize(const rod_model *m, rod_state *st, double t, const double *q, double *err)
{
    eval_rows(m, st, q, NULL, t, 1.0);
    *err = mult_violation(m, st);
    return factor_saddle(m, st, t) != 0 ? -1 : 0;
}

void constraints_newton_q(const rod_model *m, rod_state *st, double *q)
{
    const struct con_layout *L = m->con;
    struct con_work *w = st->con;
    const int n = m->n, nm = L->nmult;
    for (int a = 0; a < nm; a++) w->mu[a] = w->c[L->mult_row[a]];
    dense_cholesky_solve(w->S, nm, w->mu);
    for (int a = 0; a < nm; a++) {
        const double *Ba = w->B + (size_t)a * n;
        for (int j = 0; j < n; j++) q[j] -= Ba[j] * w->mu[a];
    }
}

void constraints_newton_qd(const rod_model *m, rod_state *st, double t, const double *q, double *qd)
{
    const struct con_layout *L = m->con;
    struct con_work *w = st->con;
    const int n = m->n, nm = L->nmult;
    eval_rows(m, st, q, qd, t, 1.0);
    for (int a = 0; a < nm; a++) w->mu[a] = w->cd[L->mult_row[a]];
    dense_cholesky_solve(w->S, nm, w->mu);
    for (int a = 0; a < nm; a++) {
        const double *Ba = w->B + (size_t)a * n;
        for (int j = 0; j < n; j++) qd[j] -= Ba[j] * w->mu[a];
    }
}

void constraints_record(const rod_model *m, rod_state *st, const double *lambda)
{
    if (!m->con) return;
    struct con_work *w = st->con;
    const struct con_layout *L = m->con;
    if (lambda) {
        eval_rows(m, st, st->q, NULL, st->t, 1.0);
        double *dummy = st->vec_n;
        memset(dummy, 0, (size_t)m->n * sizeof *dummy);
        penalty_force(m, st, NULL, dummy);
        for (int a = 0; a < L->nmult; a++) w->lam[L->mult_row[a]] = lambda[a];
    }
    memcpy(w->viol, w->c, (size_t)L->nrows * sizeof *w->viol);
}

void constraints_multipliers(const rod_model *m, const rod_state *st, double *lambda)
{
    if (!m->con) return;
    for (int a = 0; a < m->con->nmult; a++) lambda[a] = st->con->lam[m->con->mult_row[a]];
}

void constraints_reaction(const rod_state *st, int i, double force[3], double moment[3],
                          double *violation, double *pressure)
{
    const rod_model *m = st->m;
    const struct con_layout *L = m->con;
    const struct con_work *w = st->con;
    const spec_constraint *k = &m->spec->cons[i];
    for (int a = 0; a < 3; a++) force[a] = moment[a] = 0.0;
    *violation = 0.0;
    *pressure = 0.0;
    double vtot = 0.0;
    for (int r = L->first_row[i]; r < L->first_row[i] + L->nrow[i]; r++) {
        if (fabs(w->viol[r]) > fabs(*violation)) *violation = w->viol[r];
        if (k->type == CON_VOLUME) {
            /* lambda A^T with A = grad V / V0: the pressure is lambda / V0; pieces report the
             * volume-weighted mean */
            *pressure += w->lam[r];
            vtot += L->vol0[r];
            continue;
        }
        const int a = L->rows[r].comp;
        if (a < 3)
            force[a] = w->lam[r];
        else
            moment[a - 3] = w->lam[r];
    }
    if (k->type == CON_VOLUME && vtot > 0) *pressure /= vtot;
    if (k->type == CON_POSE && k->relative) {
        /* the multipliers are components in b's frame: into the world */
        const double *Rb = w->Rb + 9 * i;
        double f[3], mo[3];
        for (int a = 0; a < 3; a++) {
            f[a] = Rb[a] * force[0] + Rb[a + 3] * force[1] + Rb[a + 6] * force[2];
            mo[a] = Rb[a] * moment[0] + Rb[a + 3] * moment[1] + Rb[a + 6] * moment[2];
        }
        memcpy(force, f, sizeof f);
        memcpy(moment, mo, sizeof mo);
    }
}

void constraints_target_position(const rod_state *st, int i, const double point[3],
                                 const lie_pose *gb, double out[3])
{
    const rod_model *m = st->m;
    const spec_constraint *k = &m->spec->cons[i];
    const int *in = m->con->target + 4 * i;
    double own[3];
    if (k->relative) { /* the point in b's frame, the held components' targets there, back */
        double d[3];
        for (int a = 0; a < 3; a++) d[a] = point[a] - gb->r[a];
        vec3_rot_t(gb->R, d, own);
    } else {
        memcpy(own, point, sizeof own);
    }
    double loc[3];
    for (int a = 0; a < 3; a++)
        loc[a] = k->held[a] ? (in[a] >= 0 ? state_input_raw(st, in[a], st->t, 0.0)
                                           : profile_value(&k->position[a], st->ev, st->t, 0.0))
                            : own[a];
    if (!k->relative) {
        memcpy(out, loc, sizeof loc);
        return;
    }
    for (int a = 0; a < 3; a++)
        out[a] = gb->r[a] + gb->R[a] * loc[0] + gb->R[a + 3] * loc[1] + gb->R[a + 6] * loc[2];
}

double constraints_relative_s(const rod_model *m, int i)
{
    const spec_constraint *k = &m->spec->cons[i];
    return k->type == CON_POSE && k->relative ? k->s_rel : -1.0;
}

void constraints_pull_back(const rod_model *m, rod_state *st, double alpha, int still, double relax,
                           const double *c0, double *qdd)
{
    if (!m->con || !m->con->nmult) return;
    const struct con_layout *L = m->con;
    struct con_work *w = st->con;
    const int n = m->n, nm = L->nmult;
    for (int a = 0; a < nm; a++) {
        const int r = L->mult_row[a];
        const double c = w->c[r] - (still && c0 ? relax * c0[a] : 0.0);
        w->mu[a] = still ? w->bias[r] - alpha * alpha * c : -2 * alpha * w->cd[r] - alpha * alpha * c;
    }
    dense_cholesky_solve(w->S, nm, w->mu);
    for (int a = 0; a < nm; a++) {
        w->lam[L->mult_row[a]] += w->mu[a];
        const double *Ba = w->B + (size_t)a * n;
        for (int j = 0; j < n; j++) qdd[j] += Ba[j] * w->mu[a];
    }
}

void constraints_respond(const rod_model *m, rod_state *st, const double *g)
{
    if (!m->con) return;
    const struct con_layout *L = m->con;
    struct con_work *w = st->con;
    const int n = m->n, nm = L->nmult;
    if (nm) {
        memcpy(w->tmp, g, (size_t)n * sizeof *w->tmp);
        apply_Minv(m, st, w->tmp);
        for (int a = 0; a < nm; a++) {
            const double *Ar = w->A + (size_t)L->mult_row[a] * n;
            double s = 0;
            for (int j = 0; j < n; j++) s += Ar[j] * w->tmp[j];
            w->mu[a] = s;
        }
        dense_cholesky_solve(w->S, nm, w->mu);
        for (int a = 0; a < nm; a++) w->lam[L->mult_row[a]] -= w->mu[a];
    }
    memcpy(w->viol, w->c, (size_t)L->nrows * sizeof *w->viol);
}

void constraints_mult_values(const rod_model *m, const rod_state *st, double *c)
{
    for (int a = 0; m->con && a < m->con->nmult; a++) c[a] = st->con->c[m->con->mult_row[a]];
}
