#include "bodies.h"
#include "state.h"

#include <math.h>
#include <string.h>

static int station_of(const rod_model *m, double s)
{
    int best = 0;
    for (int j = 1; j < m->ns; j++)
        if (fabs(m->s[j] - s) < fabs(m->s[best] - s)) best = j;
    return best;
}

/* x at the rod's axis -> x at the centre of mass: (w, v + w x o) */
static void to_com(const double o[3], const double x[6], double y[6])
{
    y[0] = x[0];
    y[1] = x[1];
    y[2] = x[2];
    y[3] = x[3] + x[1] * o[2] - x[2] * o[1];
    y[4] = x[4] + x[2] * o[0] - x[0] * o[2];
    y[5] = x[5] + x[0] * o[1] - x[1] * o[0];
}

/* y = M_b x: the rotational inertia about the centre of mass, and the mass */
static void mass_apply(const spec_body *b, const double x[6], double y[6])
{
    for (int i = 0; i < 3; i++) {
        y[i] = b->inertia[i] * x[0] + b->inertia[i + 3] * x[1] + b->inertia[i + 6] * x[2];
        y[3 + i] = b->mass * x[3 + i];
    }
}

/* The body's weight less its buoyancy, in the local frame (a force at the centre of mass). */
static void weight(const rod_model *m, const spec_body *b, const lie_pose *g, double W[6])
{
    const double mg = b->mass - m->fluid_rho * b->volume;
    W[0] = W[1] = W[2] = 0.0;
    for (int i = 0; i < 3; i++) /* R^T (mg G) */
        W[3 + i] = mg * (g->R[3 * i] * m->grav[0] + g->R[3 * i + 1] * m->grav[1] +
                         g->R[3 * i + 2] * m->grav[2]);
}

void bodies_dynamics(const rod_model *m, const rod_state *st, double *M, double *Qload, double *Qinertia)
{
    const int nx = m->n_xi;
    double Jc[MODEL_MAX_XI][6];
    for (int b = 0; b < m->spec->nbodies; b++) {
        const spec_body *bd = &m->spec->bodies[b];
        const int k = station_of(m, bd->s);
        const double *Jk = state_J(m, st, k);
        double eta[6], a[6], Me[6], cad[6], W[6];
        to_com(bd->offset, st->eta + 6 * k, eta);
        to_com(bd->offset, st->bias + 6 * k, a);
        mass_apply(bd, eta, Me);
        lie_coad_apply(eta, Me, cad);
        double Wg[6], Ma[6];
        weight(m, bd, &st->g[k], Wg);
        mass_apply(bd, a, Ma);
        const int split = Qload != Qinertia;
        for (int i = 0; i < 6; i++) W[i] = (split ? 0.0 : Wg[i]) - Ma[i] - cad[i];
        for (int j = 0; j < nx; j++) to_com(bd->offset, Jk + 6 * j, Jc[j]);
        for (int i = 0; i < nx; i++) {
            Qinertia[i] += Jc[i][0] * W[0] + Jc[i][1] * W[1] + Jc[i][2] * W[2] + Jc[i][3] * W[3] +
                           Jc[i][4] * W[4] + Jc[i][5] * W[5];
            if (split) Qload[i] += Jc[i][3] * Wg[3] + Jc[i][4] * Wg[4] + Jc[i][5] * Wg[5];
            if (!M) continue;
            double MJ[6];
            mass_apply(bd, Jc[i], MJ);
            for (int j = i; j < nx; j++)
                M[j + (size_t)nx * i] += MJ[0] * Jc[j][0] + MJ[1] * Jc[j][1] + MJ[2] * Jc[j][2] +
                                         MJ[3] * Jc[j][3] + MJ[4] * Jc[j][4] + MJ[5] * Jc[j][5];
        }
    }
}

void bodies_static_forces(const rod_model *m, const rod_state *st, double factor, double *Q)
{
    const int nx = m->n_xi;
    for (int b = 0; b < m->spec->nbodies; b++) {
        const spec_body *bd = &m->spec->bodies[b];
        const int k = station_of(m, bd->s);
        const double *Jk = state_J(m, st, k);
        double W[6];
        weight(m, bd, &st->g[k], W);
        for (int j = 0; j < nx; j++) {
            double c[6];
            to_com(bd->offset, Jk + 6 * j, c);
            Q[j] += factor * (c[3] * W[3] + c[4] * W[4] + c[5] * W[5]);
        }
    }
}

void bodies_energy(const rod_model *m, const lie_pose *g, const double *eta, double *kinetic,
                   double *gravity)
{
    *kinetic = *gravity = 0.0;
    for (int b = 0; b < m->spec->nbodies; b++) {
        const spec_body *bd = &m->spec->bodies[b];
        const int k = station_of(m, bd->s);
        const lie_pose *p = &g[k];
        double r[3];
        for (int i = 0; i < 3; i++)
            r[i] = p->r[i] + p->R[i] * bd->offset[0] + p->R[i + 3] * bd->offset[1] +
                   p->R[i + 6] * bd->offset[2];
        const double mg = bd->mass - m->fluid_rho * bd->volume;
        *gravity -= mg * (m->grav[0] * r[0] + m->grav[1] * r[1] + m->grav[2] * r[2]);
        if (!eta) continue;
        double e[6], Me[6];
        to_com(bd->offset, eta + 6 * k, e);
        mass_apply(bd, e, Me);
        for (int i = 0; i < 6; i++) *kinetic += 0.5 * e[i] * Me[i];
    }
}

void bodies_position(const rod_model *m, int b, const lie_pose *g, double r[3])
{
    const double *o = m->spec->bodies[b].offset;
    for (int i = 0; i < 3; i++) r[i] = g->r[i] + g->R[i] * o[0] + g->R[i + 3] * o[1] + g->R[i + 6] * o[2];
}
