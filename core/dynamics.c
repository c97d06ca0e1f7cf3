#include "dynamics.h"

#include "base.h"
#include "bodies.h"
#include "constraints.h"
#include "dense.h"
#include "forces.h"
#include "kinematics.h"

#include <math.h>
#include <string.h>

/* The section's inertia M-bar (diagonal) and its rate for rho_dot. Conserving: the slice
 * keeps its mass rho0 A0 and spreads it to radius rho z, so the rotary inertia is rho^2 rho0 I0;
 * that kinetic energy's rho-derivative is Eq. 28's centrifugal term, which makes the whole
 * system conservative. Paper: the area scales with rho^2 and the inertia with rho^4
 * (Eq. 24's A(s,t), I(s,t), and the authors' code), which creates and destroys mass as the
 * section breathes and does not conserve energy. */
static void section_inertia(const rod_model *m, const section *c, double rho, double rhod,
                            double Mb[6], double Mdot[6])
{
    const double I[3] = {c->I11, c->I22, c->I33};
    const int paper = m->spec->inertia_paper;
    const double fi = m->spec->rotary_inertia_factor;
    const double ri = fi * (paper ? rho * rho * rho * rho : rho * rho); /* rotary factor */
    const double dri = fi * (paper ? 4 * rho * rho * rho * rhod : 2 * rho * rhod);
    const double rm = paper ? rho * rho : 1.0, drm = paper ? 2 * rho * rhod : 0.0;
    for (int i = 0; i < 3; i++) {
        Mb[i] = m->rho0 * ri * I[i];
        Mdot[i] = m->rho0 * dri * I[i];
        Mb[3 + i] = m->rho0 * rm * c->A0;
        Mdot[3 + i] = m->rho0 * drm * c->A0;
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

int dyn_accel(const rod_model *m, rod_state *st, double t, const double *q, const double *qd,
              double *qdd)
{
    const rod_spec *sp = m->spec;
    const int n = m->n, nx = m->n_xi, nr = m->n_rho;
    kin_forward_vel(m, q, qd, st->g, st->J, st->eta, st->bias);
    base_apply(m, st->ev, t, st->g, m->ns, st->eta, st->bias);
    base_free_apply(m, q, qd, st->g, st->J, m->ns, st->eta, st->bias);
    /* B u, B_rho f0, gravity and point loads, as in statics */
    st->vel_eta = st->eta;
    const int frc = forces_static(m, st, q, t, 1.0, st->Q);
    st->vel_eta = NULL;
    if (frc != 0) return -1;
    double *Q = st->Q, *M = st->Mxi;
    memset(M, 0, (size_t)nx * nx * sizeof *M);
    const double fr = m->fluid_rho;
    for (int k = 0; k < m->ns; k++) {
        const double w = m->w[k];
        if (w == 0) continue;
        const section *c = &m->sec[k];
        double rho, rhod, Mb[6], Mdot[6], Mt[6];
        rho_at(m, k, q, qd, &rho, &rhod);
        section_inertia(m, c, rho, rhod, Mb, Mdot);
        memcpy(Mt, Mb, sizeof Mt);
        const double *eta = st->eta + 6 * k, *a = st->bias + 6 * k;
        double W[6] = {0};
        if (sp->has_fluid) {
            /* added mass f_a = -M_a u_dot (Eq. 33) on the inflated section: into the mass
             * matrix and, through J_dot q_dot, the bias */
            const double ma = rho * rho * M_PI * c->z * c->z * fr;
            Mt[3] += ma * sp->added_mass[0];
            Mt[4] += ma * sp->added_mass[1];
            /* drag and lift f_d = -rho z rho_a [[CD, -CL, 0], [CL, CD, 0], [0, 0, 0]] |u| u (Eq. 34) */
            const double *u = eta + 3;
            const double un = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
            const double cd = rho * c->z * fr * un;
            W[3] = -cd * (sp->drag * u[0] - sp->lift * u[1]);
            W[4] = -cd * (sp->lift * u[0] + sp->drag * u[1]);
        }
        /* minus the inertial bias: M_t J_dot q_dot + M_dot eta + ad*_eta (M_b eta) (Eq. 49) */
        double Me[6], cad[6];
        for (int i = 0; i < 6; i++) Me[i] = Mb[i] * eta[i];
        lie_coad_apply(eta, Me, cad);
        for (int i = 0; i < 6; i++) W[i] -= Mt[i] * a[i] + Mdot[i] * eta[i] + cad[i];
        const double *Jk = st->J + (size_t)k * 6 * nx;
        for (int i = 0; i < nx; i++) {
            const double *Ji = Jk + 6 * i;
            Q[i] += w * (Ji[0] * W[0] + Ji[1] * W[1] + Ji[2] * W[2] + Ji[3] * W[3] + Ji[4] * W[4] +
                         Ji[5] * W[5]);
            double MJ[6];
            for (int r = 0; r < 6; r++) MJ[r] = w * Mt[r] * Ji[r];
            for (int j = i; j < nx; j++) {
                const double *Jj = Jk + 6 * j;
                M[j + (size_t)nx * i] += MJ[0] * Jj[0] + MJ[1] * Jj[1] + MJ[2] * Jj[2] + MJ[3] * Jj[3] +
                                         MJ[4] * Jj[4] + MJ[5] * Jj[5];
            }
        }
        if (nr) {
            /* the centrifugal term of Eq. 28: rho0 rho (I11 (w2^2 + w3^2) + I22 (w1^2 + w3^2)) */
            const double w1 = eta[0], w2 = eta[1], w3 = eta[2];
            const double cf = sp->rotary_inertia_factor * m->rho0 * rho *
                              (c->I11 * (w2 * w2 + w3 * w3) + c->I22 * (w1 * w1 + w3 * w3));
            for (int j = 0; j < nr; j++) Q[nx + j] += w * m->phr[(size_t)k * nr + j] * cf;
        }
    }
    if (sp->nbodies) bodies_dynamics(m, st, M, Q);
    /* internal forces: stiffness and Kelvin-Voigt damping (Eqs. 50-52) */
    for (int i = 0; i < n; i++) {
        double s = Q[i];
        for (int j = 0; j < n; j++) s -= m->K[i + (size_t)n * j] * q[j] + m->D[i + (size_t)n * j] * qd[j];
        qdd[i] = s;
    }
    for (int i = 0; i < n; i++)
        if (!isfinite(qdd[i])) {
            state_set_error(st, "the equations of motion produced a non-finite force at t = %g", t);
            return -1;
        }
    if (nx) {
        int bad = dense_cholesky(M, nx);
        if (bad) {
            state_set_error(st, "the mass matrix is not positive definite (column %d) at t = %g", bad, t);
            return -1;
        }
        dense_cholesky_solve(M, nx, qdd);
    }
    if (nr) dense_cholesky_solve(m->Mrho_chol, nr, qdd + nx);
    return m->con ? constraints_accel(m, st, t, q, qd, qdd) : 0;
}

double dyn_kinetic_energy(const rod_model *m, const double *q, const double *qd, lie_pose *g,
                          double *eta_all)
{
    kin_forward_twist(m, q, qd, g, eta_all);
    return dyn_kinetic_energy_of(m, q, qd, eta_all);
}

double dyn_kinetic_energy_of(const rod_model *m, const double *q, const double *qd,
                             const double *eta_all)
{
    const int nx = m->n_xi, nr = m->n_rho;
    double e = 0;
    for (int k = 0; k < m->ns; k++) {
        if (m->w[k] == 0) continue;
        double rho, rhod, Mb[6], Mdot[6];
        rho_at(m, k, q, qd, &rho, &rhod);
        section_inertia(m, &m->sec[k], rho, rhod, Mb, Mdot);
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
