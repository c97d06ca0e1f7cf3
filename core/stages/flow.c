#include "flow.h"

#include <math.h>

double flow_slender_perpendicular(const rod_model *m, double r)
{
    return 4 * M_PI * m->spec->viscosity / log(m->L / r);
}

void flow_slender_body(const rod_model *m, rod_state *st, const double *q, const double *eta,
                       double factor, double *Q)
{
    const int nx = m->n_xi, nr = m->n_rho;
    for (int k = 0; k < m->ns; k++) {
        if (m->w[k] == 0) continue;
        double rho = 1.0, xi[6];
        for (int j = 0; j < nr; j++) rho += m->phr[(size_t)k * nr + j] * q[nx + j];
        model_xi(m, m->leg + (size_t)k * nx, model_xis_at(m, k), q, xi);
        /* in the body frame: t = nu / |nu|, v = the linear part of eta */
        const double *nu = xi + 3, *v = eta + 6 * k + 3;
        const double nn = sqrt(nu[0] * nu[0] + nu[1] * nu[1] + nu[2] * nu[2]);
        if (!(nn > 0)) continue;
        const double tv = (nu[0] * v[0] + nu[1] * v[1] + nu[2] * v[2]) / nn;
        const double c = flow_slender_perpendicular(m, rho * m->sec[k].z);
        double W[6] = {0};
        for (int i = 0; i < 3; i++) W[3 + i] = -c * (v[i] - 0.5 * tv * nu[i] / nn);
        const double *Jk = st->J + (size_t)k * 6 * nx, wk = factor * m->w[k];
        for (int j = 0; j < nx; j++) {
            const double *c6 = Jk + 6 * j;
            Q[j] += wk * (c6[3] * W[3] + c6[4] * W[4] + c6[5] * W[5]);
        }
    }
}
