#include "rigid_sums.h"

#include "base.h"
#include "kinematics.h"
#include "model.h"
#include "state.h"

#include <string.h>

rigid_sums rigid_sums_of(const rod_model *m, rod_state *st)
{
    rigid_sums r;
    memset(&r, 0, sizeof r);
    kin_forward_twist(m, st->q, st->qd, st->g, st->eta);
    base_free_apply(m, st->q, st->qd, st->g, NULL, m->ns, st->eta, NULL);
    for (int k = 0; k < m->ns; k++) {
        const double w = m->w[k];
        if (w == 0) continue;
        const section *c = &m->sec[k];
        const double mu = m->rho0 * c->A0, I[3] = {m->rho0 * c->I11, m->rho0 * c->I22, m->rho0 * c->I33};
        const double *e = st->eta + 6 * k, *R = st->g[k].R, *x = st->g[k].r;
        double hb[3], pb[3], hw[3] = {0}, pw[3] = {0};
        for (int i = 0; i < 3; i++) {
            hb[i] = I[i] * e[i];
            pb[i] = mu * e[3 + i];
        }
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                hw[a] += R[a + 3 * b] * hb[b];
                pw[a] += R[a + 3 * b] * pb[b];
            }
        const double rxp[3] = {x[1] * pw[2] - x[2] * pw[1], x[2] * pw[0] - x[0] * pw[2],
                               x[0] * pw[1] - x[1] * pw[0]};
        for (int a = 0; a < 3; a++) {
            r.P[a] += w * pw[a];
            r.H[a] += w * (hw[a] + rxp[a]);
            r.com[a] += w * mu * x[a];
        }
        r.mass += w * mu;
    }
    for (int a = 0; a < 3; a++) r.com[a] /= r.mass;
    return r;
}
