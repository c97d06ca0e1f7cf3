#include "contact.h"
#include "vec3.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void contact_friction(const spec_friction *f, double fn, const double v_t[3],
                      const double u_axis[3], const double u_lat[3], double out[3])
{
    out[0] = out[1] = out[2] = 0.0;
    const double u = sqrt(vec3_dot(v_t, v_t)), ve = f->threshold_velocity;
    if (!(u > 0) || !(fn > 0)) return;
    const double a = vec3_dot(v_t, u_axis), b = vec3_dot(v_t, u_lat);
    const double ramp = u < ve ? u / ve : 1.0;          /* 0 at rest, 1 from v_eps on */
    const double stat = u <= ve ? 1.0 : exp(-(u - ve) / ve); /* static share */
    const int da = a >= 0 ? 0 : 1;
    const double mu_a = f->mu_kinetic[da] + (f->mu_static[da] - f->mu_kinetic[da]) * stat;
    const double mu_l = f->mu_kinetic[2] + (f->mu_static[2] - f->mu_kinetic[2]) * stat;
    const double ca = -fn * ramp * mu_a * a / u, cl = -fn * ramp * mu_l * b / u;
    for (int i = 0; i < 3; i++) out[i] = ca * u_axis[i] + cl * u_lat[i];
}

/* The local state of contact point c: centre-line position, rotation, surface radius and
 * the velocity of the material at offset p (global) from the centre line. */
typedef struct contact_point {
    int k;           /* station */
    double w;        /* length it stands for */
    const double *R, *r;
    double radius, z;
    double t[3];     /* unit tangent of the centre line, global */
} cpoint;

static void point_at(const rod_model *m, rod_state *st, const double *q, int c, cpoint *p)
{
    const int k = m->contact_station[c], nx = m->n_xi, nr = m->n_rho;
    p->k = k;
    p->w = m->contact_w[c];
    p->R = st->g[k].R;
    p->r = st->g[k].r;
    double rho = 1.0, xi[6];
    for (int j = 0; j < nr; j++) rho += m->phr[(size_t)k * nr + j] * q[nx + j];
    p->z = m->sec[k].z;
    p->radius = rho * p->z;
    model_xi(m, m->leg + (size_t)k * nx, model_xis_at(m, k), q, xi);
    vec3_rot(p->R, xi + 3, p->t);
    const double tn = sqrt(vec3_dot(p->t, p->t));
    for (int i = 0; i < 3; i++) p->t[i] = tn > 0 ? p->t[i] / tn : 0.0;
}

static void velocity_at(const cpoint *p, const double *eta, const double off[3], double v[3])
{
    double ob[3], w[3], vb[3];
    if (!eta) {
        v[0] = v[1] = v[2] = 0.0;
        return;
    }
    const double *e = eta + 6 * p->k;
    vec3_rot_t(p->R, off, ob);
    vec3_cross(e, ob, w);
    for (int i = 0; i < 3; i++) vb[i] = e[3 + i] + w[i];
    vec3_rot(p->R, vb, v);
}

/* Q_xi += ds J^T (R^T M; R^T F) for a force F and moment M (global, per unit length) on
 * point p's section, and, for an inflating rod, Q_rho += ds Phi_rho z (F . off / |off|) for a
 * force at offset off from the centre line: the surface there moves out with rho. */
static void apply_wrench(const rod_model *m, rod_state *st, const cpoint *p, const double off[3],
                         const double F[3], const double M[3], double ds, double *Q)
{
    const int nx = m->n_xi, nr = m->n_rho;
    double W[6];
    vec3_rot_t(p->R, M, W);
    vec3_rot_t(p->R, F, W + 3);
    const double *Jk = st->J + (size_t)p->k * 6 * nx;
    for (int j = 0; j < nx; j++) {
        const double *c = Jk + 6 * j;
        Q[j] += ds * (c[0] * W[0] + c[1] * W[1] + c[2] * W[2] + c[3] * W[3] + c[4] * W[4] + c[5] * W[5]);
    }
    if (!nr || !(p->radius > 0)) return;
    const double radial = vec3_dot(F, off) / p->radius;
    for (int j = 0; j < nr; j++) Q[nx + j] += ds * m->phr[(size_t)p->k * nr + j] * p->z * radial;
}

/* Applies force F (global, per unit length) at offset off (global) from point p's centre
 * line, over length ds: the moment off x F with it. */
static void apply(const rod_model *m, rod_state *st, const cpoint *p, const double off[3],
                  const double F[3], double ds, double *Q)
{
    double mo[3];
    vec3_cross(off, F, mo);
    apply_wrench(m, st, p, off, F, mo, ds, Q);
}

/* The velocity of the surface point at offset off from point p's centre line as a wall's
 * friction sees it: the centre line's velocity plus the section's spin about the tangent
 * times the offset (the section rolling on the wall, seed 002 Fig. 8), without the
 * section's bending rotations. A section pitching on a soft wall (which a rigid wall would
 * not let it do: it rocks only as far as the wall yields) would otherwise slide its contact
 * point along the rod by r theta_dot, and a rod pulled along its axis from rest would break
 * free at a fraction of its static friction (measured: 7 N of 7.85 N). */
static void rolling_velocity_at(const cpoint *p, const double *eta, const double off[3], double v[3])
{
    const double *e = eta + 6 * p->k;
    double w[3], tw[3];
    vec3_rot(p->R, e + 3, v);
    vec3_rot(p->R, e, w);
    const double spin = vec3_dot(w, p->t);
    vec3_cross(p->t, off, tw);
    for (int i = 0; i < 3; i++) v[i] += spin * tw[i];
}

static void report(contact_report *rep, int maxrep, int *nrep, double s, const double pt[3],
                   const double F[3], double ds)
{
    if (!rep || *nrep >= maxrep) return;
    contact_report *r = &rep[(*nrep)++];
    r->s = s;
    for (int i = 0; i < 3; i++) {
        r->point[i] = pt[i];
        r->force[i] = F[i] * ds;
    }
}

/* Penetration and outward unit normal of obstacle o at centre-line point x for a section
 * of radius rr; the normal points from the obstacle toward the rod. */
static double penetration(const spec_obstacle *o, const double x[3], double rr, double n[3],
                          double surf[3])
{
    double d[3];
    for (int i = 0; i < 3; i++) d[i] = x[i] - o->point[i];
    if (o->type == OBSTACLE_PLANE) {
        const double h = vec3_dot(d, o->normal);
        for (int i = 0; i < 3; i++) {
            n[i] = o->normal[i];
            surf[i] = x[i] - h * n[i];
        }
        return rr - h;
    }
    if (o->type == OBSTACLE_CYLINDER) {
        const double a = vec3_dot(d, o->normal);
        for (int i = 0; i < 3; i++) d[i] -= a * o->normal[i];
    }
    const double dist = sqrt(vec3_dot(d, d));
    if (!(dist > 0)) return -1.0; /* on the axis or centre: no defined normal; a rod never gets there */
    for (int i = 0; i < 3; i++) {
        n[i] = d[i] / dist;
        surf[i] = x[i] - (dist - o->radius) * n[i];
    }
    return rr + o->radius - dist;
}

/* A moving obstacle's displacement d(t) and velocity (central differences of its profiles). */
static void obstacle_motion(const spec_obstacle *o, rod_state *st, double t, double d[3], double v[3])
{
    const double h = 1e-6 * fmax(1.0, fabs(t));
    for (int i = 0; i < 3; i++) {
        d[i] = profile_value(&o->displacement[i], st->ev, t, 0.0);
        v[i] = (profile_value(&o->displacement[i], st->ev, t + h, 0.0) -
                profile_value(&o->displacement[i], st->ev, t - h, 0.0)) / (2 * h);
    }
}

static void obstacle_contacts(const rod_model *m, rod_state *st, const double *q,
                              const double *eta, double t, double factor, double *Q,
                              contact_report *rep, int maxrep, int *nrep)
{
    const rod_spec *sp = m->spec;
    /* the obstacles where they are at t, and their velocities (spec.c refuses more than
     * SPEC_MAX_OBSTACLES; both loops stop there all the same) */
    spec_obstacle moved[SPEC_MAX_OBSTACLES];
    double vel[SPEC_MAX_OBSTACLES][3] = {{0}};
    const int nob = sp->nobstacles < SPEC_MAX_OBSTACLES ? sp->nobstacles : SPEC_MAX_OBSTACLES;
    for (int o = 0; o < nob; o++) {
        moved[o] = sp->obstacles[o];
        if (!moved[o].moving) continue;
        double d[3];
        obstacle_motion(&sp->obstacles[o], st, t, d, vel[o]);
        for (int i = 0; i < 3; i++) moved[o].point[i] += d[i];
    }
    for (int c = 0; c < m->ncontact; c++) {
        const double ds = factor * m->contact_w[c];
        cpoint p;
        point_at(m, st, q, c, &p);
        for (int o = 0; o < nob; o++) {
            const spec_obstacle *ob = &moved[o];
            double n[3], surf[3], off[3], v[3], F[3];
            const double eps = penetration(ob, p.r, p.radius, n, surf);
            if (!(eps > 0)) continue;
            for (int i = 0; i < 3; i++) off[i] = -p.radius * n[i];
            if (eta)
                rolling_velocity_at(&p, eta, off, v);
            else
                v[0] = v[1] = v[2] = 0.0;
            for (int i = 0; i < 3; i++) v[i] -= vel[o][i]; /* relative to the obstacle's surface */
            const double vn = vec3_dot(v, n);
            double fn = ob->stiffness * eps - ob->damping * vn;
            if (!(fn > 0)) continue;
            for (int i = 0; i < 3; i++) F[i] = fn * n[i];
            if (eta && ob->friction.on) {
                double vt[3], ua[3], ul[3], ff[3];
                for (int i = 0; i < 3; i++) vt[i] = v[i] - vn * n[i];
                const double tn = vec3_dot(p.t, n);
                for (int i = 0; i < 3; i++) ua[i] = p.t[i] - tn * n[i];
                const double ua_n = sqrt(vec3_dot(ua, ua));
                spec_friction fr = ob->friction;
                if (ua_n > 1e-12) {
                    for (int i = 0; i < 3; i++) ua[i] /= ua_n;
                } else {
                    /* the rod stands on the surface end-on: no axis along it, so every
                     * direction in the surface is lateral */
                    const double e[3] = {fabs(n[0]) < 0.9 ? 1.0 : 0.0, fabs(n[0]) < 0.9 ? 0.0 : 1.0, 0.0};
                    vec3_cross(n, e, ua);
                    const double un = sqrt(vec3_dot(ua, ua));
                    for (int i = 0; i < 3; i++) ua[i] /= un;
                    for (int d = 0; d < 2; d++) {
                        fr.mu_static[d] = fr.mu_static[2];
                        fr.mu_kinetic[d] = fr.mu_kinetic[2];
                    }
                }
                vec3_cross(n, ua, ul);
                contact_friction(&fr, fn, vt, ua, ul, ff);
                for (int i = 0; i < 3; i++) F[i] += ff[i];
            }
            /* the friction's moment about the tangent only (what rolls the section), the
             * power conjugate of rolling_velocity_at: friction never does positive work */
            double mo[3], M[3];
            vec3_cross(off, F, mo);
            const double mt = vec3_dot(mo, p.t);
            for (int i = 0; i < 3; i++) M[i] = mt * p.t[i];
            apply_wrench(m, st, &p, off, F, M, ds, Q);
            report(rep, maxrep, nrep, m->s[p.k], surf, F, ds);
        }
    }
}


/* Self-contact: pairs of contact points farther apart along the rod than twice the sum of
 * their radii whose tubes overlap, found by sorting the points along the axis on which they
 * spread most and sweeping a window of twice the largest radius (about n log n plus the
 * pairs close on that axis, instead of n^2; a straight rod costs n). Per pair,
 * k_sc eps - gamma_sc v_n (never pulling) per unit length squared. */
static int cmp_pair(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void self_contacts(const rod_model *m, rod_state *st, const double *q, const double *eta,
                          double factor, double *Q, contact_report *rep, int maxrep, int *nrep)
{
    const rod_spec *sp = m->spec;
    const int nc = m->ncontact;
    int *ord = st->contact_order;
    double *key = st->contact_key, rmax = 0;
    cpoint *pts = st->contact_pts;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int c = 0; c < nc; c++) {
        point_at(m, st, q, c, &pts[c]);
        ord[c] = c;
        for (int i = 0; i < 3; i++) {
            lo[i] = fmin(lo[i], pts[c].r[i]);
            hi[i] = fmax(hi[i], pts[c].r[i]);
        }
        if (pts[c].radius > rmax) rmax = pts[c].radius;
    }
    int ax = 0;
    for (int i = 1; i < 3; i++)
        if (hi[i] - lo[i] > hi[ax] - lo[ax]) ax = i;
    /* (key, index) pairs sorted by key; then key[c] is point c's key again */
    for (int c = 0; c < nc; c++) {
        key[2 * c] = pts[c].r[ax];
        key[2 * c + 1] = c;
    }
    qsort(key, (size_t)nc, 2 * sizeof *key, cmp_pair);
    for (int c = 0; c < nc; c++) ord[c] = (int)key[2 * c + 1];
    for (int c = 0; c < nc; c++) key[c] = pts[c].r[ax];
    for (int a = 0; a < nc; a++) {
        const cpoint *pi = &pts[ord[a]];
        for (int b = a + 1; b < nc && key[ord[b]] - key[ord[a]] < 2 * rmax; b++) {
            const cpoint *pj = &pts[ord[b]];
            const double sum = pi->radius + pj->radius;
            if (fabs(m->s[pi->k] - m->s[pj->k]) <= 2 * sum) continue;
            double d[3];
            for (int i = 0; i < 3; i++) d[i] = pi->r[i] - pj->r[i];
            const double dist = sqrt(vec3_dot(d, d));
            const double eps = sum - dist;
            if (!(eps > 0) || !(dist > 0)) continue;
            double n[3], offi[3], offj[3], vi[3], vj[3], F[3], mF[3], mid[3];
            for (int i = 0; i < 3; i++) {
                n[i] = d[i] / dist; /* from j toward i */
                offi[i] = -pi->radius * n[i];
                offj[i] = pj->radius * n[i];
                mid[i] = pj->r[i] + (pj->radius + 0.5 * (dist - sum)) * n[i];
            }
            velocity_at(pi, eta, offi, vi);
            velocity_at(pj, eta, offj, vj);
            const double vn = vec3_dot(vi, n) - vec3_dot(vj, n);
            const double fn = sp->sc_stiffness * eps - sp->sc_damping * vn;
            if (!(fn > 0)) continue;
            const double ds2 = factor * pi->w * pj->w;
            for (int i = 0; i < 3; i++) {
                F[i] = fn * n[i];
                mF[i] = -F[i];
            }
            apply(m, st, pi, offi, F, ds2, Q);
            apply(m, st, pj, offj, mF, ds2, Q);
            report(rep, maxrep, nrep, m->s[pi->k], mid, F, ds2);
            report(rep, maxrep, nrep, m->s[pj->k], mid, mF, ds2);
        }
    }
}

size_t contact_point_size(void) { return sizeof(cpoint); }

int contact_forces(const rod_model *m, rod_state *st, const double *q, const double *eta,
                   double t, double factor, double *Q, contact_report *rep, int maxrep, int *nrep)
{
    if (nrep) *nrep = 0;
    if (!m->ncontact) return 0;
    int dummy = 0;
    if (!nrep) nrep = &dummy;
    obstacle_contacts(m, st, q, eta, t, factor, Q, rep, maxrep, nrep);
    if (m->spec->self_contact) self_contacts(m, st, q, eta, factor, Q, rep, maxrep, nrep);
    return 0;
}
