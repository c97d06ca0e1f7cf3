#include "one_rod.h"
#include "dynamics.h"
#include "projection.h"

#include "base.h"
#include "bodies.h"
#include "constraints.h"
#include "dense.h"
#include "qfrc.h"
#include "kinematics.h"
#include "vector_clones.h"

#include <math.h>
#include <string.h>

/* The section's inertia M-bar (diagonal) and its rate for rho_dot. Conserving: the slice
 * keeps its mass rho0 A0 and spreads it to radius rho z, so the rotary inertia is rho^2 rho0 I0;
 * that kinetic energy's rho-derivative is Eq. 28's centrifugal term, which makes the whole
 * system conservative. Paper: the area scales with rho^2 and the inertia with rho^4
 * (Eq. 24's A(s,t), I(s,t), and the authors' code), which creates and destroys mass as the
 * section breathes and does not conserve energy. */
/* the section's rotary factor ri and mass factor rm at inflation rho, and its inertia Mb */
static inline void section_mass(const rod_model *m, const section *c, double rho, double *ri, double *rm,
                                double Mb[6])
{
    const double I[3] = {c->I11, c->I22, c->I33};
    const int paper = m->spec->inertia_paper;
    const double fi = m->spec->rotary_inertia_factor;
    *ri = fi * (paper ? rho * rho * rho * rho : rho * rho); /* rotary factor */
    *rm = paper ? rho * rho : 1.0;
    for (int i = 0; i < 3; i++) {
        Mb[i] = m->rho0 * *ri * I[i];
        Mb[3 + i] = m->rho0 * *rm * c->A0;
    }
}

static void section_inertia(const rod_model *m, const section *c, double rho, double rhod,
                            double Mb[6], double Mdot[6])
{
    double ri, rm;
    section_mass(m, c, rho, &ri, &rm, Mb);
    const double I[3] = {c->I11, c->I22, c->I33};
    const int paper = m->spec->inertia_paper;
    const double fi = m->spec->rotary_inertia_factor;
    const double dri = fi * (paper ? 4 * rho * rho * rho * rhod : 2 * rho * rhod);
    const double drm = paper ? 2 * rho * rhod : 0.0;
    /* the authors' derivatives.m scales M by rho^4 and rho^2, then forms M_dot from that scaled
     * M (4 rho^3 rho_dot times rho^4 I, 2 rho rho_dot times rho^2 A): the scaling twice */
    const double slip_r = m->spec->authors.mass_rate_slip ? ri / fi : 1.0;
    const double slip_m = m->spec->authors.mass_rate_slip ? rm : 1.0;
    for (int i = 0; i < 3; i++) {
        Mdot[i] = m->rho0 * dri * I[i] * slip_r;
        Mdot[3 + i] = m->rho0 * drm * c->A0 * slip_m;
    }
}

static void rho_at(const rod_model *m, int k, const double *q, const double *qd, double *rho,
                   double *rhod)
{
    *rho = 1.0;
    *rhod = 0.0;
    for (int j = 0; j < m->n_rho; j++) {
        const double p = m->phr[(size_t)k * m->n_rho + j];
        *rho += p * q[m->n_xi + j];
        *rhod += p * qd[m->n_xi + j];
    }
}

/* The fluid's added mass f_a = -M_a u_dot (Eq. 33) on the inflated section, into the inertia
 * Mt that multiplies the station's acceleration */
static void add_added_mass(const rod_model *m, const section *c, double rho, double Mt[6])
{
    const double ma = rho * rho * M_PI * c->z * c->z * m->fluid_rho;
    Mt[3] += ma * m->spec->added_mass[0];
    Mt[4] += ma * m->spec->added_mass[1];
}

/* col[j] += sum_r a_r Jt[r][j] for j = i..nx-1: the lower part of one column of M */
static void mass_column_add(double *restrict col, int i, int nx, const double a[6],
                            const double (*restrict Jt)[MODEL_MAX_XI])
{
    const double a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], a4 = a[4], a5 = a[5];
    for (int j = i; j < nx; j++)
        col[j] += a0 * Jt[0][j] + a1 * Jt[1][j] + a2 * Jt[2][j] + a3 * Jt[3][j] + a4 * Jt[4][j] + a5 * Jt[5][j];
}

/* the same over three rows */
static void mass_column_add3(double *restrict col, int i, int nx, const double a[3],
                             const double (*restrict Jt)[MODEL_MAX_XI])
{
    const double a0 = a[0], a1 = a[1], a2 = a[2];
    for (int j = i; j < nx; j++) col[j] += a0 * Jt[0][j] + a1 * Jt[1][j] + a2 * Jt[2][j];
}

/* M's lower triangle += sum_r wm_r J_r J_r^T over nrow (3 or 6) rows J_r of a planar rod's
 * stations (model.h: J's rows 1, 3 and 5) */
static void mass_rows_add(double *M, int nx, int nrow, const double *wm, const double (*Jt)[MODEL_MAX_XI])
{
    for (int i = 0; i < nx; i++) {
        double a[6] = {0};
        for (int r = 0; r < nrow; r++) a[r] = wm[r] * Jt[r][i];
        if (nrow == 6)
            mass_column_add(M + (size_t)nx * i, i, nx, a, Jt);
        else
            mass_column_add3(M + (size_t)nx * i, i, nx, a, Jt);
    }
}

/* M_xi's lower triangle summed station by station, sum_k w_k J_k^T M_t J_k. A planar
 * station's three rows (model.h: J's rows 1, 3 and 5) wait for the next station's: two
 * stations' six rows go into M in one pass, half the passes over M. */
typedef struct mass_sum {
    double *M;
    int nx, planar, npend;
    double pend[6][MODEL_MAX_XI], pend_wm[6];
} mass_sum;

static void mass_sum_start(mass_sum *a, const rod_model *m, double *M)
{
    a->M = M;
    a->nx = m->n_xi;
    a->planar = m->planar;
    a->npend = 0;
    memset(M, 0, (size_t)a->nx * a->nx * sizeof *M);
}

/* station k's w M_t J_k^T J_k (Jk: its Jacobian, 6 x nx column by column) */
VECTOR_CLONES
static void mass_sum_add(mass_sum *a, const double *Jk, double w, const double Mt[6])
{
    const int nx = a->nx;
    if (a->planar) {
        for (int i = 0; i < nx; i++)
            for (int r = 0; r < 3; r++) a->pend[a->npend + r][i] = Jk[6 * i + 2 * r + 1];
        for (int r = 0; r < 3; r++) a->pend_wm[a->npend + r] = w * Mt[2 * r + 1];
        a->npend += 3;
        if (a->npend == 6) {
            mass_rows_add(a->M, nx, 6, a->pend_wm, a->pend);
            a->npend = 0;
        }
        return;
    }
    /* J_k row by row, so that column i of M gains sum_r (w M_t J)_ri J_k[r][.] as one
     * element-wise loop over j, which the compiler vectorizes */
    double Jt[6][MODEL_MAX_XI];
    for (int i = 0; i < nx; i++)
        for (int r = 0; r < 6; r++) Jt[r][i] = Jk[6 * i + r];
    for (int i = 0; i < nx; i++) {
        double c[6];
        for (int r = 0; r < 6; r++) c[r] = w * Mt[r] * Jt[r][i];
        mass_column_add(a->M + (size_t)nx * i, i, nx, c, Jt);
    }
}

static void mass_sum_end(mass_sum *a)
{
    if (a->npend) mass_rows_add(a->M, a->nx, a->npend, a->pend_wm, a->pend);
}

/* M_xi into st->Mxi from the state's Jacobians (those of q) */
VECTOR_CLONES
static void mass_from_J(const rod_model *m, rod_state *st, const double *q, const double *qd)
{
    mass_sum a;
    mass_sum_start(&a, m, st->Mxi);
    for (int k = 0; k < m->ns; k++) {
        const double w = m->w[k];
        if (w == 0) continue;
        const section *c = &m->sec[k];
        double rho, rhod, ri, rm, Mb[6];
        rho_at(m, k, q, qd, &rho, &rhod);
        section_mass(m, c, rho, &ri, &rm, Mb); /* M_b without its rate */
        if (m->spec->has_fluid) add_added_mass(m, c, rho, Mb);
        mass_sum_add(&a, st->J + (size_t)k * 6 * m->n_xi, w, Mb);
    }
    mass_sum_end(&a);
}

/* Every generalized force but the stiffness, damping and constraints into its kind's vector
 * of Qk (qfrc.h), at (t, q, q_dot), and the mass matrix into st->Mxi (lower triangle): the
 * kinematics, the loads and actuators, then per station the inertial bias and the fluid's
 * drag and lift. One vector for all kinds (the equations of motion) costs nothing over
 * summing them. same_q: the state's Jacobians and mass matrix are those of this q already
 * (dyn_accel_same_q), and only what q_dot moves is formed. With an acceleration x (not
 * same_q), M is not formed: the inertial force of x, -J^T M_t J x per station, goes into
 * Q_inertia instead (dyn_residual). 0, or -1 with the state's error set. */
VECTOR_CLONES
static int assemble(const rod_model *m, rod_state *st, double t, const double *q, const double *qd,
                    double *const *Qk, int same_q, const double *x, int wrench)
{
    const rod_spec *sp = m->spec;
    const int nx = m->n_xi, nr = m->n_rho;
    double B[36];
    const double *Bfree = NULL;
    if (wrench) {
        /* the wrench form (projection.h): no J. Only from
         * residual(), whose kinds all sum into one Q: the fluid's wrench is never split off here */
        kin_forward_vel_wrench(m, st, q, qd);
        if (base_free_columns(m, q, B)) Bfree = B;
        memset(st->W_station, 0, (size_t)m->ns * 6 * sizeof *st->W_station);
    } else {
        if (same_q) dyn_fresh_J(m, st);
        kin_forward_vel_state(m, st, q, qd, !same_q);
    }
    base_apply(m, st->ev, t, st->g, m->ns, st->eta, st->bias);
    base_free_apply(m, q, qd, st->g, same_q || wrench ? NULL : st->J, m->ns, st->eta, st->bias);
    /* B u, B_rho f0, gravity and point loads, as in statics */
    st->vel_eta = st->eta;
    st->wrench_mode = wrench;
    const int frc = forces_by_kind(m, st, q, t, 1.0, Qk);
    st->wrench_mode = 0;
    st->vel_eta = NULL;
    if (frc != 0) return -1;
    double *Qi = Qk[QFRC_INERTIA], *Qf = Qk[QFRC_FLUID];
    if (Qi != Qf && Qi != Qk[QFRC_ACTUATOR] && Qi != Qk[QFRC_LOAD] && Qi != Qk[QFRC_CONTACT])
        memset(Qi, 0, (size_t)m->n * sizeof *Qi);
    const int split = Qi != Qf; /* the fluid's wrench projected apart from the inertial one */
    const double fr = m->fluid_rho;
    const int planar = m->planar;
    const int form_M = !same_q && !x;
    mass_sum ms;
    if (form_M) mass_sum_start(&ms, m, st->Mxi);
    for (int k = 0; k < m->ns; k++) {
        const double w = m->w[k];
        if (w == 0) continue;
        const section *c = &m->sec[k];
        double rho, rhod, Mb[6], Mdot[6], Mt[6];
        rho_at(m, k, q, qd, &rho, &rhod);
        section_inertia(m, c, rho, rhod, Mb, Mdot);
        memcpy(Mt, Mb, sizeof Mt);
        const double *eta = st->eta + 6 * k, *a = st->bias + 6 * k;
        double W[6] = {0}, Wf[6] = {0};
        if (sp->has_fluid) {
            /* added mass f_a = -M_a u_dot (Eq. 33) on the inflated section: into the mass
             * matrix and, through J_dot q_dot, the bias */
            add_added_mass(m, c, rho, Mt);
            /* drag and lift f_d = -rho z rho_a [[CD, -CL, 0], [CL, CD, 0], [0, 0, 0]] |u| u (Eq. 34) */
            const double *u = eta + 3;
            const double un = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
            const double cd = rho * c->z * fr * un;
            double *Wd = split ? Wf : W;
            Wd[3] = -cd * (sp->drag * u[0] - sp->lift * u[1]);
            Wd[4] = -cd * (sp->lift * u[0] + sp->drag * u[1]);
        }
        /* minus the inertial bias: M_t J_dot q_dot + M_dot eta + ad*_eta (M_b eta) (Eq. 49) */
        double Me[6], cad[6];
        for (int i = 0; i < 6; i++) Me[i] = Mb[i] * eta[i];
        lie_coad_apply(eta, Me, cad);
        for (int i = 0; i < 6; i++) W[i] -= Mt[i] * a[i] + Mdot[i] * eta[i] + cad[i];
        const double *Jk = st->J + (size_t)k * 6 * nx;
        if (wrench) {
            double *Wk = st->W_station + 6 * (size_t)k;
            for (int r = 0; r < 6; r++) Wk[r] += w * W[r];
        } else if (x) {
            /* and M_t J x: the station's acceleration is J x + J_dot q_dot */
            double Jx[6] = {0};
            for (int i = 0; i < nx; i++)
                for (int r = 0; r < 6; r++) Jx[r] += Jk[6 * i + r] * x[i];
            for (int r = 0; r < 6; r++) W[r] -= Mt[r] * Jx[r];
        }
        for (int i = 0; i < nx && !wrench; i++) {
            const double *Ji = Jk + 6 * i;
            if (planar) {
                Qi[i] += w * (Ji[1] * W[1] + Ji[3] * W[3] + Ji[5] * W[5]);
                if (split) Qf[i] += w * (Ji[3] * Wf[3]);
            } else {
                Qi[i] += w * (Ji[0] * W[0] + Ji[1] * W[1] + Ji[2] * W[2] + Ji[3] * W[3] + Ji[4] * W[4] +
                              Ji[5] * W[5]);
                if (split) Qf[i] += w * (Ji[3] * Wf[3] + Ji[4] * Wf[4]);
            }
        }
        if (form_M) mass_sum_add(&ms, Jk, w, Mt);
        if (nr) {
            /* the centrifugal term of Eq. 28: rho0 rho (I11 (w2^2 + w3^2) + I22 (w1^2 + w3^2)) */
            const double w1 = eta[0], w2 = eta[1], w3 = eta[2];
            const double cf = sp->rotary_inertia_factor * m->rho0 * rho *
                              (c->I11 * (w2 * w2 + w3 * w3) + c->I22 * (w1 * w1 + w3 * w3));
            for (int j = 0; j < nr; j++) Qi[nx + j] += w * m->phr[(size_t)k * nr + j] * cf;
        }
    }
    if (form_M) mass_sum_end(&ms);
    if (wrench) {
        proj_wrenches(m, st, Bfree, Qi);
        /* and - M x with the step's M (st->Mxi's lower triangle, dyn_mass's at the try's first
         * iterate): M moves with q by O(h^3) within a try, which moves the step's q by O(h^5),
         * under the method's own error; J x at every station was a sixth of the residual */
        if (x)
            for (int j = 0; j < nx; j++)
                for (int i = 0; i < nx; i++) {
                    const double Mij = i >= j ? st->Mxi[i + (size_t)nx * j] : st->Mxi[j + (size_t)nx * i];
                    Qi[i] -= Mij * x[j];
                }
    }
    if (sp->nbodies) bodies_dynamics(m, st, form_M ? st->Mxi : NULL, Qk[QFRC_LOAD], Qi);
    return 0;
}

/* q_ddot = M^{-1} (Q - K q - D q_dot): both blocks solved, M_xi's factor left in st->Mxi
 * (there already when same_q). */
/* out = Q - K q - D q_dot: the internal forces, stiffness and Kelvin-Voigt damping (Eqs.
 * 50-52), added to the others. 0, or -1 with the state's error set where one is not finite. */
static int net_force(const rod_model *m, rod_state *st, double t, const double *Q, const double *q,
                     const double *qd, double *out)
{
    const int n = m->n;
    for (int i = 0; i < n; i++) {
        double s = Q[i];
        for (int j = 0; j < n; j++) s -= m->K[i + (size_t)n * j] * q[j] + m->D[i + (size_t)n * j] * qd[j];
        out[i] = s;
    }
    for (int i = 0; i < n; i++)
        if (!isfinite(out[i])) {
            state_set_error(st, "the equations of motion produced a non-finite force at t = %g", t);
            return -1;
        }
    return 0;
}

static int solve_accel(const rod_model *m, rod_state *st, double t, const double *Q, const double *q,
                       const double *qd, double *qdd, int same_q)
{
    const int nx = m->n_xi, nr = m->n_rho;
    if (net_force(m, st, t, Q, q, qd, qdd) != 0) return -1;
    if (nx) {
        int bad = same_q ? 0 : dense_cholesky(st->Mxi, nx);
        if (bad) {
            state_set_error(st, "the mass matrix is not positive definite (column %d) at t = %g", bad, t);
            return -1;
        }
        dense_cholesky_solve(st->Mxi, nx, qdd);
    }
    if (nr) dense_cholesky_solve(m->Mrho_chol, nr, qdd + nx);
    return 0;
}

static int accel(const rod_model *m, rod_state *st, double t, const double *q, const double *qd,
                 double *qdd, int same_q)
{
    double *Q = st->Q;
    double *const all[QFRC_KINDS] = {Q, Q, Q, Q, Q, Q, Q, Q};
    if (assemble(m, st, t, q, qd, all, same_q, NULL, 0) != 0 || solve_accel(m, st, t, Q, q, qd, qdd, same_q) != 0)
        return -1;
    return m->con ? constraints_accel(m, st, t, q, qd, qdd) : 0;
}

int dyn_accel(const rod_model *m, rod_state *st, double t, const double *q, const double *qd,
              double *qdd)
{
    return accel(m, st, t, q, qd, qdd, 0);
}

int dyn_accel_same_q(const rod_model *m, rod_state *st, double t, const double *q, const double *qd,
                     double *qdd)
{
    return accel(m, st, t, q, qd, qdd, 1);
}

int dyn_residual_ok(const rod_model *m)
{
    return !constraints_nmult(m) && !m->spec->nbodies;
}

/* The wrench form applies: one non-planar rod whose every load is a wrench on a station (no
 * constraint rows, slender-body flow or attached bodies, whose stages read J) */
static int wrench_ok(const rod_model *m, const rod_state *st)
{
    return st->step_w && !m->con && !m->spec->fluid_slender && !m->spec->nbodies;
}

void dyn_fresh_J(const rod_model *m, rod_state *st)
{
    if (!st->J_stale) return;
    /* J alone, at the wrench-form evaluation's q: its g, eta and bias stand (g_rel is scratch) */
    kin_forward(m, st->kin_q, st->g_rel, st->J);
    base_free_apply(m, st->kin_q, NULL, st->g_rel, st->J, m->ns, NULL, NULL);
    if (st->J_pending) memset(st->J_pending, 0, (size_t)m->ns);
    st->J_stale = 0;
}

static int residual(const rod_model *m, rod_state *st, double t, const double *q, const double *qd,
                    const double *x, double *r, int wrench)
{
    const int nx = m->n_xi, nr = m->n_rho;
    double *Q = st->Q;
    double *const all[QFRC_KINDS] = {Q, Q, Q, Q, Q, Q, Q, Q};
    if (assemble(m, st, t, q, qd, all, 0, x, wrench && wrench_ok(m, st)) != 0) return -1;
    constraints_penalty_residual(m, st, t, q, qd, Q);
    if (net_force(m, st, t, Q, q, qd, r) != 0) return -1;
    if (!nr) return 0;
    /* - M_rho x_rho, from its constant factor */
    double y[MODEL_MAX_RHO];
    memcpy(y, x + nx, (size_t)nr * sizeof *y);
    dense_cholesky_mul(m->Mrho_chol, nr, y);
    for (int i = 0; i < nr; i++) {
        r[nx + i] -= y[i];
        if (!isfinite(r[nx + i])) {
            state_set_error(st, "the equations of motion produced a non-finite force at t = %g", t);
            return -1;
        }
    }
    return 0;
}

int dyn_residual(const rod_model *m, rod_state *st, double t, const double *q, const double *qd,
                 const double *x, double *r)
{
    return residual(m, st, t, q, qd, x, r, 0);
}

int dyn_residual_wrench(const rod_model *m, rod_state *st, double t, const double *q, const double *qd,
                        const double *x, double *r)
{
    return residual(m, st, t, q, qd, x, r, 1);
}

void dyn_mass(const rod_model *m, rod_state *st, const double *q, const double *qd)
{
    dyn_fresh_J(m, st);
    if (m->n_xi) mass_from_J(m, st, q, qd);
}

void dyn_pose(const rod_model *m, rod_state *st, double t, const double *q, int moving)
{
    kin_forward_state(m, st, q, 0);
    if (moving) base_apply(m, st->ev, t, st->g, m->ns, NULL, NULL);
    base_free_apply(m, q, NULL, st->g, st->J, m->ns, NULL, NULL);
}

#define PROJ_TOL 1e-13
#define PROJ_MAX_ITERS 12

int dyn_project(const rod_model *m, rod_state *st, double t, double *q, double *qd)
{
    if (!constraints_nmult(m)) return 0;
    double err = INFINITY;
    for (int it = 0;; it++) {
        dyn_pose(m, st, t, q, 1);
        if (constraints_linearize(m, st, t, q, &err) != 0) return -1;
        if (it == PROJ_MAX_ITERS) break;
        /* Newton in the metric of M. Even below the tolerance one step is taken (it leaves
         * err^2, below rounding, and needs no new evaluation): the projection must be a smooth
         * function of the state. Left out there, a state just above the tolerance moves by the
         * whole correction and one just below by nothing, a jump that, in coordinates of small
         * mass, exceeds a tight atol (1e-11 against 1e-12 in test_free_base's pinned pendulum)
         * and which no smaller step can shrink: CVODE's error test then failed until its step
         * underflowed. */
        constraints_newton_q(m, st, q);
        if (err <= PROJ_TOL) break;
    }
    if (!(err <= 1e3 * PROJ_TOL)) {
        state_set_error(st, "the constraints cannot be met at t = %g (violation %.3g after %d "
                        "projections)", t, err, PROJ_MAX_ITERS);
        return -1;
    }
    /* velocities: remove the part that moves off c_dot = 0 (A is at the projected q) */
    kin_forward_vel_state(m, st, q, qd, 1);
    base_apply(m, st->ev, t, st->g, m->ns, st->eta, st->bias);
    base_free_apply(m, q, qd, st->g, st->J, m->ns, st->eta, st->bias);
    constraints_newton_qd(m, st, t, q, qd);
    return 0;
}

int dyn_forces_by_kind(const rod_model *m, rod_state *st, double *out, double *total)
{
    const int n = m->n, nx = m->n_xi, nr = m->n_rho;
    double *Qk[QFRC_KINDS];
    for (int k = 0; k < QFRC_KINDS; k++) Qk[k] = out + (size_t)k * n;
    /* the accelerations first: they leave the constraints' multipliers and M's factor */
    if (dyn_accel(m, st, st->t, st->q, st->qd, total) != 0) return -1;
    memset(Qk[QFRC_CONSTRAINT], 0, (size_t)n * sizeof *out);
    if (m->con) constraints_force(m, st, Qk[QFRC_CONSTRAINT]);
    /* M q_ddot with the factor L L^T of M_xi and M_rho */
    dense_cholesky_mul(st->Mxi, nx, total);
    dense_cholesky_mul(m->Mrho_chol, nr, total + nx);
    if (assemble(m, st, st->t, st->q, st->qd, Qk, 0, NULL, 0) != 0) return -1;
    for (int i = 0; i < n; i++) {
        double e = 0, d = 0;
        for (int j = 0; j < n; j++) {
            e -= m->K[i + (size_t)n * j] * st->q[j];
            d -= m->D[i + (size_t)n * j] * st->qd[j];
        }
        Qk[QFRC_ELASTIC][i] = e;
        Qk[QFRC_DAMPING][i] = d;
    }
    return 0;
}

double dyn_kinetic_energy_of(const rod_model *m, const double *q, const double *qd,
                             const double *eta_all)
{
    const int nx = m->n_xi, nr = m->n_rho;
    double e = 0;
    for (int k = 0; k < m->ns; k++) {
        if (m->w[k] == 0) continue;
        /* rho and Mb as rho_at and section_inertia make them, without the rates */
        double rho = 1.0, ri, rm, Mb[6];
        for (int j = 0; j < nr; j++) rho += m->phr[(size_t)k * nr + j] * q[nx + j];
        section_mass(m, &m->sec[k], rho, &ri, &rm, Mb);
        const double *eta = eta_all + 6 * k;
        for (int i = 0; i < 6; i++) e += m->w[k] * Mb[i] * eta[i] * eta[i];
    }
    if (nr) {
        /* q_dot^T M_rho q_dot = |L^T q_dot|^2 */
        const double *L = m->Mrho_chol, *v = qd + nx;
        for (int j = 0; j < nr; j++) {
            double s = 0;
            for (int i = j; i < nr; i++) s += L[i + (size_t)nr * j] * v[i];
            e += s * s;
        }
    }
    return 0.5 * e;
}

const char *rod_qfrc_name(int kind)
{
    static const char *const names[QFRC_KINDS] = {"elastic", "damping", "actuator", "load",
                                                  "contact", "fluid", "inertia", "constraint"};
    return kind >= 0 && kind < QFRC_KINDS ? names[kind] : NULL;
}

int forces_one(const rod_model *m, rod_state *st, double *out, double *total)
{
    st->err[0] = '\0';
    double *tot = total ? total : st->vec_n;
    return dyn_forces_by_kind(m, st, out, tot) == 0 ? ROD_OK : ROD_ESOLVER;
}
