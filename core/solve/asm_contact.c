/* Contact between the rods of a model (issue 29 item 3), by the self-contact law (contact.h):
 * the model's contact points of two different rods whose surfaces (radius rho z) overlap by
 * eps push apart with k eps - gamma v_n per unit length squared (environment.self_contact's
 * stiffness and damping; never pulling), at the surface points between the centre lines, so a
 * contact off a section's centre also turns it. Each rod's share enters its accelerations
 * through its Jacobian at the point and its own mass matrix, before the joints' multipliers
 * are solved; the broad phase skips pairs of rods whose bounding spheres are apart. With
 * environment.self_contact.friction (dynamics only: statics has no slip), the pair also carries
 * the obstacles' regularized Coulomb friction against the slip of i's surface over j's, one
 * coefficient for every direction (contact_pair_friction, the law of a rod's contact with
 * itself too); the full moment of the force about each centre line goes with the full surface
 * velocity, so friction never does positive work. The model's difference Jacobian carries it
 * into the Newton matrix. */
#include "asm.h"
#include "state.h"

#include "constraints.h"
#include "contact.h"
#include "dense.h"

#include <math.h>
#include <string.h>

typedef struct {
    const double *R, *r;
    double radius;
    int k;
} spot;

static void spot_at(const rod_model *m, const rod_state *st, const double *q, int c, spot *p)
{
    const int k = m->contact_station[c], nx = m->n_xi, nr = m->n_rho;
    double rho = 1.0;
    for (int j = 0; j < nr; j++) rho += m->phr[(size_t)k * nr + j] * q[nx + j];
    p->k = k;
    p->R = st->g[k].R;
    p->r = st->g[k].r;
    p->radius = rho * m->sec[k].z;
}

/* the material velocity (world) at offset off (world) from the centre line of p */
static void surface_velocity(const spot *p, const double *eta, const double off[3], double v[3])
{
    if (!eta) {
        v[0] = v[1] = v[2] = 0;
        return;
    }
    const double *e = eta + 6 * p->k, *R = p->R;
    double ob[3], vb[3];
    for (int i = 0; i < 3; i++) ob[i] = R[3 * i] * off[0] + R[3 * i + 1] * off[1] + R[3 * i + 2] * off[2];
    vb[0] = e[3] + e[1] * ob[2] - e[2] * ob[1];
    vb[1] = e[4] + e[2] * ob[0] - e[0] * ob[2];
    vb[2] = e[5] + e[0] * ob[1] - e[1] * ob[0];
    for (int i = 0; i < 3; i++) v[i] = R[i] * vb[0] + R[i + 3] * vb[1] + R[i + 6] * vb[2];
}

/* Q (the rod's n_xi) += J^T (R^T (off x F); R^T F) ds */
static void apply(const rod_model *m, const rod_state *st, const spot *p, const double off[3], const double F[3],
                  double ds, double *Q)
{
    const double M[3] = {off[1] * F[2] - off[2] * F[1], off[2] * F[0] - off[0] * F[2], off[0] * F[1] - off[1] * F[0]};
    double w[6];
    for (int i = 0; i < 3; i++) {
        w[i] = ds * (p->R[3 * i] * M[0] + p->R[3 * i + 1] * M[1] + p->R[3 * i + 2] * M[2]);
        w[3 + i] = ds * (p->R[3 * i] * F[0] + p->R[3 * i + 1] * F[1] + p->R[3 * i + 2] * F[2]);
    }
    const double *J = state_J(m, st, p->k);
    for (int c = 0; c < m->n_xi; c++)
        for (int l = 0; l < 6; l++) Q[c] += J[l + 6 * c] * w[l];
}

/* q_ddot of rod i += M^{-1} Q_i (Q_i its slice of Q, the xi block set), the generalized
 * force kept in as->qc; through its own constraints where it has multiplier rows */
static void accelerate(const assembly *a, asm_state *as, int i, double *Qi, double *qdd)
{
    const rod_model *mi = a->rod[i];
    for (int c = 0; c < mi->n_xi; c++) as->qc[a->off[i] + c] += Qi[c];
    dense_cholesky_solve(as->rod[i]->Mxi, mi->n_xi, Qi);
    if (!constraints_nmult(mi)) {
        for (int c = 0; c < mi->n_xi; c++) qdd[a->off[i] + c] += Qi[c];
        return;
    }
    memset(Qi + mi->n_xi, 0, (size_t)mi->n_rho * sizeof *Qi);
    constraints_project_column(mi, as->rod[i], Qi);
    for (int c = 0; c < mi->n; c++) qdd[a->off[i] + c] += Qi[c];
}

int asm_contact(const rod_model *m, rod_state *st, const double *q, const double *qd, double *qdd, double *Q)
{
    const assembly *a = m->as;
    asm_state *as = st->as;
    as->ncontacts = 0;
    memset(as->qc, 0, (size_t)a->n * sizeof *as->qc);
    const rod_spec *sp = a->rod[0]->spec;
    if (!sp->self_contact) return 0;
    double sphere[ASM_MAX_RODS][4]; /* centre, radius of each rod's contact points */
    for (int i = 0; i < a->nreal; i++) {
        const rod_model *mi = a->rod[i];
        const rod_state *si = as->rod[i];
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, rmax = 0;
        for (int c = 0; c < mi->ncontact; c++) {
            spot p;
            spot_at(mi, si, q + a->off[i], c, &p);
            for (int l = 0; l < 3; l++) lo[l] = fmin(lo[l], p.r[l]), hi[l] = fmax(hi[l], p.r[l]);
            rmax = fmax(rmax, p.radius);
        }
        double h = 0;
        for (int l = 0; l < 3; l++) {
            sphere[i][l] = 0.5 * (lo[l] + hi[l]);
            h += 0.25 * (hi[l] - lo[l]) * (hi[l] - lo[l]);
        }
        sphere[i][3] = mi->ncontact ? sqrt(h) + rmax : -INFINITY;
    }
    for (int i = 0; i < a->nreal; i++)
        for (int j = i + 1; j < a->nreal; j++) {
            const double dc = sqrt((sphere[i][0] - sphere[j][0]) * (sphere[i][0] - sphere[j][0]) +
                                   (sphere[i][1] - sphere[j][1]) * (sphere[i][1] - sphere[j][1]) +
                                   (sphere[i][2] - sphere[j][2]) * (sphere[i][2] - sphere[j][2]));
            if (!(dc < sphere[i][3] + sphere[j][3])) continue;
            const rod_model *mi = a->rod[i], *mj = a->rod[j];
            rod_state *si = as->rod[i], *sj = as->rod[j];
            double *Qi = Q + a->off[i], *Qj = Q + a->off[j];
            int touched = 0;
            memset(Qi, 0, (size_t)mi->n_xi * sizeof *Qi);
            memset(Qj, 0, (size_t)mj->n_xi * sizeof *Qj);
            for (int ci = 0; ci < mi->ncontact; ci++) {
                spot pi;
                spot_at(mi, si, q + a->off[i], ci, &pi);
                for (int cj = 0; cj < mj->ncontact; cj++) {
                    spot pj;
                    spot_at(mj, sj, q + a->off[j], cj, &pj);
                    double d[3], n[3], offi[3], offj[3], vi[3], vj[3], F[3], mF[3];
                    for (int l = 0; l < 3; l++) d[l] = pi.r[l] - pj.r[l];
                    const double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
                    const double eps = pi.radius + pj.radius - dist;
                    if (!(eps > 0) || !(dist > 0)) continue;
                    for (int l = 0; l < 3; l++) {
                        n[l] = d[l] / dist; /* from j toward i */
                        offi[l] = -pi.radius * n[l];
                        offj[l] = pj.radius * n[l];
                    }
                    surface_velocity(&pi, qd ? si->eta : NULL, offi, vi);
                    surface_velocity(&pj, qd ? sj->eta : NULL, offj, vj);
                    const double vn = (vi[0] - vj[0]) * n[0] + (vi[1] - vj[1]) * n[1] + (vi[2] - vj[2]) * n[2];
                    const double fn = sp->sc_stiffness * eps - sp->sc_damping * vn;
                    if (!(fn > 0)) continue;
                    const double ds2 = mi->contact_w[ci] * mj->contact_w[cj];
                    for (int l = 0; l < 3; l++) F[l] = fn * n[l];
                    if (qd && sp->sc_friction.on) contact_pair_friction(&sp->sc_friction, fn, n, vi, vj, vn, F);
                    for (int l = 0; l < 3; l++) mF[l] = -F[l];
                    apply(mi, si, &pi, offi, F, ds2, Qi);
                    apply(mj, sj, &pj, offj, mF, ds2, Qj);
                    touched = 1;
                    for (int side = 0; side < 2 && as->ncontacts < ASM_MAX_CONTACTS; side++) {
                        asm_contact_report *c = &as->contact[as->ncontacts++];
                        const spot *p = side ? &pj : &pi;
                        c->rod = side ? j : i;
                        c->s = (side ? mj : mi)->s[p->k];
                        for (int l = 0; l < 3; l++) {
                            c->point[l] = pj.r[l] + (pj.radius - 0.5 * eps) * n[l];
                            c->force[l] = (side ? mF[l] : F[l]) * ds2;
                        }
                    }
                }
            }
            if (!touched) continue;
            /* q_ddot += M^{-1} Q, each rod's xi block (M's factor from its last evaluation) */
            accelerate(a, as, i, Qi, qdd);
            accelerate(a, as, j, Qj, qdd);
        }
    return 0;
}
