#include "contact.h"
#include "state.h"
#include "vec3.h"
#include "vector_clones.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

VECTOR_CLONES
void contact_friction(const spec_friction *f, double fn, const double v_t[3],
                      const double u_axis[3], const double u_lat[3], double out[3])
{
    out[0] = out[1] = out[2] = 0.0;
    const double u = sqrt(vec3_dot(v_t, v_t)), ve = f->threshold_velocity;
    if (!(u > 0) || !(fn > 0)) return;
    const double a = vec3_dot(v_t, u_axis), b = vec3_dot(v_t, u_lat);
    const double ramp = u < ve ? u / ve : 1.0; /* 0 at rest, 1 from v_eps on */
    /* the static share; a law with it held (static = kinetic) needs no exp */
    const int falls = f->mu_static[0] != f->mu_kinetic[0] || f->mu_static[1] != f->mu_kinetic[1] ||
                      f->mu_static[2] != f->mu_kinetic[2];
    const double stat = u <= ve || !falls ? 1.0 : exp(-(u - ve) / ve);
    const int da = a >= 0 ? 0 : 1;
    const double mu_a = f->mu_kinetic[da] + (f->mu_static[da] - f->mu_kinetic[da]) * stat;
    const double mu_l = f->mu_kinetic[2] + (f->mu_static[2] - f->mu_kinetic[2]) * stat;
    const double ca = -fn * ramp * mu_a * a / u, cl = -fn * ramp * mu_l * b / u;
    for (int i = 0; i < 3; i++) out[i] = ca * u_axis[i] + cl * u_lat[i];
}

void contact_pair_friction(const spec_friction *fr, double fn, const double n[3], const double vi[3],
                           const double vj[3], double vn, double F[3])
{
    double vt[3], ua[3], ul[3], ff[3];
    for (int l = 0; l < 3; l++) vt[l] = vi[l] - vj[l] - vn * n[l];
    const double u = sqrt(vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2]);
    if (!(u > 0)) return;
    /* isotropic: any basis of the surface does; the slip's own direction and n x it */
    for (int l = 0; l < 3; l++) ua[l] = vt[l] / u;
    ul[0] = n[1] * ua[2] - n[2] * ua[1];
    ul[1] = n[2] * ua[0] - n[0] * ua[2];
    ul[2] = n[0] * ua[1] - n[1] * ua[0];
    contact_friction(fr, fn, vt, ua, ul, ff);
    for (int l = 0; l < 3; l++) F[l] += ff[l];
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

VECTOR_CLONES
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
VECTOR_CLONES
static void apply_wrench(const rod_model *m, rod_state *st, const cpoint *p, const double off[3],
                         const double F[3], const double M[3], double ds, double *Q)
{
    if (!Q) return; /* a report alone */
    const int nx = m->n_xi, nr = m->n_rho;
    double W[6];
    vec3_rot_t(p->R, M, W);
    vec3_rot_t(p->R, F, W + 3);
    state_add_wrench(m, st, p->k, W, ds, Q);
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

double contact_obstacle_step_bound(const rod_model *m, rod_state *st, double t0, double t1)
{
    enum { SAMPLES = 64 };
    const rod_spec *sp = m->spec;
    const int nob = sp->nobstacles < SPEC_MAX_OBSTACLES ? sp->nobstacles : SPEC_MAX_OBSTACLES;
    int moving = 0;
    for (int o = 0; o < nob; o++) moving |= sp->obstacles[o].moving;
    if (!moving || !(t1 > t0)) return INFINITY; /* every advance asks: the still walls first */
    double speed = 0.0, r = INFINITY;
    for (int c = 0; c < m->ncontact; c++) r = fmin(r, m->sec[m->contact_station[c]].z);
    if (!isfinite(r)) return INFINITY;
    const double dt = (t1 - t0) / SAMPLES;
    for (int o = 0; o < nob; o++) {
        if (!sp->obstacles[o].moving) continue;
        double d0[3], d1[3], v[3];
        obstacle_motion(&sp->obstacles[o], st, t0, d0, v);
        for (int i = 1; i <= SAMPLES; i++) {
            obstacle_motion(&sp->obstacles[o], st, t0 + i * dt, d1, v);
            double dd[3];
            for (int k = 0; k < 3; k++) dd[k] = d1[k] - d0[k];
            speed = fmax(speed, sqrt(vec3_dot(dd, dd)) / dt);
            memcpy(d0, d1, sizeof d0);
        }
    }
    return speed > 0 ? 0.5 * r / speed : INFINITY;
}

/* The obstacles where they are at t, and their velocities (spec.c refuses more than
 * SPEC_MAX_OBSTACLES; the loops stop there all the same); their count. */
static int place_obstacles(const rod_spec *sp, rod_state *st, double t,
                           spec_obstacle moved[SPEC_MAX_OBSTACLES], double vel[][3])
{
    const int nob = sp->nobstacles < SPEC_MAX_OBSTACLES ? sp->nobstacles : SPEC_MAX_OBSTACLES;
    for (int o = 0; o < nob; o++) {
        moved[o] = sp->obstacles[o];
        vel[o][0] = vel[o][1] = vel[o][2] = 0.0;
        if (!moved[o].moving) continue;
        double d[3];
        obstacle_motion(&sp->obstacles[o], st, t, d, vel[o]);
        for (int i = 0; i < 3; i++) moved[o].point[i] += d[i];
    }
    return nob;
}

/* The wall's force per unit length on a point of tangent tg at penetration eps with surface
 * velocity v (relative to the wall) along the outward normal n: k eps - gamma v_n, never
 * pulling, and with fric the friction in the surface. 0 where it does not push. */
VECTOR_CLONES
static int wall_force(const spec_obstacle *ob, const double tg[3], const double n[3], double eps,
                      const double v[3], int fric, double F[3])
{
    const double vn = vec3_dot(v, n);
    double fn = ob->stiffness * eps - ob->damping * vn;
    if (!(fn > 0)) return 0;
    for (int i = 0; i < 3; i++) F[i] = fn * n[i];
    if (!fric) return 1;
    double vt[3], ua[3], ul[3], ff[3];
    for (int i = 0; i < 3; i++) vt[i] = v[i] - vn * n[i];
    const double tn = vec3_dot(tg, n);
    for (int i = 0; i < 3; i++) ua[i] = tg[i] - tn * n[i];
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
    return 1;
}

static void obstacle_contacts(const rod_model *m, rod_state *st, const double *q,
                              const double *eta, double t, double factor, double *Q,
                              contact_report *rep, int maxrep, int *nrep)
{
    spec_obstacle moved[SPEC_MAX_OBSTACLES];
    double vel[SPEC_MAX_OBSTACLES][3];
    const int nob = place_obstacles(m->spec, st, t, moved, vel);
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
            if (!wall_force(ob, p.t, n, eps, v, eta && ob->friction.on, F)) continue;
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
            for (int i = 0; i < 3; i++) F[i] = fn * n[i];
            /* the law between rods (asm_contact.c): the full surface velocities and the full
             * moment off x F (apply), power conjugates, so the friction never does work */
            if (eta && sp->sc_friction.on) contact_pair_friction(&sp->sc_friction, fn, n, vi, vj, vn, F);
            for (int i = 0; i < 3; i++) mF[i] = -F[i];
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

/* Rows 0-2 of the world linear velocity Jacobian (R J_lin) and angular (R J_ang) of point p,
 * 3 x nx each, row-major: Jl[i * nx + j]. */
VECTOR_CLONES
static void point_jacobians(const rod_model *m, const rod_state *st, const cpoint *p, double *Jl,
                            double *Ja)
{
    const int nx = m->n_xi;
    const double *Jk = state_J(m, st, p->k);
    for (int j = 0; j < nx; j++) {
        double a[3], l[3];
        vec3_rot(p->R, Jk + 6 * j, a);
        vec3_rot(p->R, Jk + 6 * j + 3, l);
        for (int i = 0; i < 3; i++) {
            Ja[i * nx + j] = a[i];
            Jl[i * nx + j] = l[i];
        }
    }
}

int contact_wall_normals(const rod_model *m, rod_state *st, const double *q, double t, double factor,
                         double *eps, double *w, double *g)
{
    const int nx = m->n_xi, nr = m->n_rho, n = m->n;
    double Jl[3 * MODEL_MAX_XI], Ja[3 * MODEL_MAX_XI];
    spec_obstacle moved[SPEC_MAX_OBSTACLES];
    double vel[SPEC_MAX_OBSTACLES][3];
    const int nob = place_obstacles(m->spec, st, t, moved, vel);
    int np = 0;
    for (int c = 0; c < m->ncontact && nob; c++) {
        cpoint p;
        point_at(m, st, q, c, &p);
        point_jacobians(m, st, &p, Jl, Ja);
        for (int o = 0; o < nob; o++, np++) {
            double nrm[3] = {0, 0, 0}, surf[3], *gi = g + (size_t)n * np;
            memset(gi, 0, (size_t)n * sizeof *gi);
            eps[np] = penetration(&moved[o], p.r, p.radius, nrm, surf);
            w[np] = 0.0;
            if (!vec3_dot(nrm, nrm)) continue; /* on the axis: no normal */
            /* the force w eps n on the centre line (apply_wrench: ds J_lin^T R^T F; its moment
             * off x F vanishes along the normal) and -w eps on an inflating surface */
            w[np] = factor * m->contact_w[c] * moved[o].stiffness;
            for (int j = 0; j < nx; j++) gi[j] = Jl[j] * nrm[0] + Jl[nx + j] * nrm[1] + Jl[2 * nx + j] * nrm[2];
            for (int j = 0; j < nr; j++) gi[nx + j] = -m->phr[(size_t)p.k * nr + j] * p.z;
        }
    }
    return np;
}

/* BV += w B V for a 3 x nx row-major V and a 3x3 row-major B */
VECTOR_CLONES
static void add_BV(int nx, double w, const double B[9], const double *V, double *BV)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < nx; j++)
            BV[i * nx + j] += w * (B[3 * i] * V[j] + B[3 * i + 1] * V[nx + j] + B[3 * i + 2] * V[2 * nx + j]);
}

/* A += U^T BV for 3 x nx row-major U and BV (A column-major, ld) */
VECTOR_CLONES
static void add_UtBV(int nx, const double *U, const double *BV, double *A, int ld)
{
    for (int j = 0; j < nx; j++) {
        const double b0 = BV[j], b1 = BV[nx + j], b2 = BV[2 * nx + j];
        double *col = A + (size_t)ld * j;
        if (b0 == 0 && b1 == 0 && b2 == 0) continue;
        for (int r = 0; r < nx; r++) col[r] += U[r] * b0 + U[nx + r] * b1 + U[2 * nx + r] * b2;
    }
}

/* The slip's part in the surface, u = v - (v . n) n */
static void in_surface(const double v[3], const double n[3], double u[3])
{
    const double vn = vec3_dot(v, n);
    for (int i = 0; i < 3; i++) u[i] = v[i] - vn * n[i];
}

/* The friction past v_eps with its coefficients fixed at the share of the static one the slip
 * v (normal n) has now: for the Newton matrix. The share's fall with the slip (mu_s to mu_k
 * within a few v_eps) is a negative slope, a negative damping of up to fn (mu_s - mu_k) / v_eps
 * that can make the matrix indefinite just past the stick-slip switch; left out, the matrix
 * keeps the friction's positive part and the fall is a perturbation Newton iterates away.
 * The force is the same at v itself. Measured on generalized-alpha, a small effect either
 * way: the snake 152 -> 132 failed steps (6,271 -> 6,210 evaluations), the grasp 0 -> 4
 * (731 -> 832). */
static void hold_static_share(spec_friction *f, const double v[3], const double n[3])
{
    const double ve = f->threshold_velocity;
    double vt[3];
    in_surface(v, n, vt);
    const double u = sqrt(vec3_dot(vt, vt));
    if (!(u > ve)) return;
    const double stat = exp(-(u - ve) / ve);
    for (int d = 0; d < 3; d++) {
        const double mu = f->mu_kinetic[d] + (f->mu_static[d] - f->mu_kinetic[d]) * stat;
        f->mu_static[d] = f->mu_kinetic[d] = mu;
    }
}

/* A += w U^T B V for 3 x nx row-major U, V and a 3x3 row-major B (A column-major, ld). */
static void add_sandwich(int nx, double w, const double *U, const double B[9], const double *V,
                         double *A, int ld)
{
    double BV[3 * MODEL_MAX_XI];
    memset(BV, 0, (size_t)3 * nx * sizeof *BV); /* 3 nx of them: all MODEL_MAX_XI was a fifth of the snake's CPU */
    add_BV(nx, w, B, V, BV);
    add_UtBV(nx, U, BV, A, ld);
}

/* Cc += wc U^T Bv U and Kc += wk U^T Bx V, the damping and stiffness parts of a contact force
 * F(v, x) whose slopes are Bv = dF/dv (through U) and Bx = dF/dx (through V); when Kc and Cc are
 * one matrix (a Newton matrix) both terms go in one pass over it. */
static void add_force_slopes(int nx, const double *U, const double Bv[9], const double Bx[9], const double *V,
                             double wc, double *Cc, double wk, double *Kc, int ld)
{
    if (Kc != Cc) {
        add_sandwich(nx, wc, U, Bv, U, Cc, ld);
        add_sandwich(nx, wk, U, Bx, V, Kc, ld);
        return;
    }
    double BV[3 * MODEL_MAX_XI];
    memset(BV, 0, (size_t)3 * nx * sizeof *BV);
    add_BV(nx, wc, Bv, U, BV);
    add_BV(nx, wk, Bx, V, BV);
    add_UtBV(nx, U, BV, Kc, ld);
}

/* The slip's Jacobian as rolling_velocity_at forms it, Jv = R J_lin + (t x off) t^T R J_ang, from
 * the point's global Jl and Ja (3 x nx row-major each) */
static void slip_jacobian(int nx, const double *Jl, const double *Ja, const double t[3], const double off[3],
                          double *Jv)
{
    double tx[3];
    vec3_cross(t, off, tx);
    for (int j = 0; j < nx; j++) {
        const double spin = t[0] * Ja[j] + t[1] * Ja[nx + j] + t[2] * Ja[2 * nx + j];
        for (int i = 0; i < 3; i++) Jv[i * nx + j] = Jl[i * nx + j] + tx[i] * spin;
    }
}

/* A wall's force F at (eps, v) (wall_force's, pushing) and its slopes for a Newton matrix:
 * dF/dv by forward differences of the point's law (a 3x3, cheap), at a step well inside the
 * friction's linear creep range, with the static share held; dF/dx as the penetration falls
 * along n, F (normal and friction alike) being proportional to the normal force
 * k eps - gamma v_n. */
static void wall_slopes(const spec_obstacle *ob, const double tg[3], const double n[3], double eps,
                        const double v[3], const double F[3], double dFv[9], double dFx[9])
{
    const int fric = ob->friction.on;
    const double h = fric ? 1e-3 * ob->friction.threshold_velocity : 1e-6;
    spec_obstacle held = *ob;
    if (fric) hold_static_share(&held.friction, v, n);
    for (int a = 0; a < 3; a++) {
        double vp[3] = {v[0], v[1], v[2]}, Fp[3] = {0, 0, 0};
        vp[a] += h;
        wall_force(&held, tg, n, eps, vp, fric, Fp);
        for (int i = 0; i < 3; i++) dFv[3 * i + a] = (Fp[i] - F[i]) / h;
    }
    const double fn = vec3_dot(F, n); /* friction lies in the surface */
    for (int i = 0; i < 3; i++)
        for (int a = 0; a < 3; a++) dFx[3 * i + a] = -ob->stiffness * F[i] / fn * n[a];
}

/* Jv = Jl - [off]x Ja: the Jacobian of the material velocity at offset off from the centre
 * line, R (eta_lin + eta_ang x R^T off) as velocity_at forms it (3 x nx, row-major) */
static void surface_jacobian(int nx, const double *Jl, const double *Ja, const double off[3], double *Jv)
{
    for (int j = 0; j < nx; j++) {
        const double a[3] = {Ja[j], Ja[nx + j], Ja[2 * nx + j]};
        double c[3];
        vec3_cross(off, a, c);
        for (int i = 0; i < 3; i++) Jv[i * nx + j] = Jl[i * nx + j] - c[i];
    }
}

/* A self-contact pair's friction (contact_pair_friction) in the Newton matrix as the walls'
 * is: its slope in the relative surface velocity by forward differences of the pair's law (the
 * normal force's damping through v_n included) with the static share held, sandwiched by the
 * relative surface velocity's Jacobian Jr (the force on i is ds2 Jr^T F, i's minus j's), and
 * its growth with the penetration, -k F / fn n^T, through the centre lines' relative motion
 * Jd. The rods of a model (asm_contact.c) take theirs through their difference Jacobian. */
static void pair_friction_jacobian(const rod_spec *sp, const double n[3], double eps,
                                   const double vi[3], const double vj[3], int nx,
                                   const double *Jr, const double *Jd, double ds2, double wk,
                                   double *Kc, double wc, double *Cc, int ld)
{
    const double zero[3] = {0, 0, 0};
    double v[3], F[3] = {0, 0, 0}, dFv[9], dFx[9];
    for (int i = 0; i < 3; i++) v[i] = vi[i] - vj[i];
    spec_friction held = sp->sc_friction;
    hold_static_share(&held, v, n);
    /* the pair's force (contact_pair_friction at the relative velocity), formed as the
     * differences below form theirs */
    const double vn0 = vec3_dot(v, n), fn0 = sp->sc_stiffness * eps - sp->sc_damping * vn0;
    if (fn0 > 0) contact_pair_friction(&held, fn0, n, v, zero, vn0, F);
    const double h = 1e-3 * held.threshold_velocity;
    for (int a = 0; a < 3; a++) {
        double vp[3] = {v[0], v[1], v[2]}, Fp[3] = {0, 0, 0};
        vp[a] += h;
        const double vnp = vec3_dot(vp, n), fnp = sp->sc_stiffness * eps - sp->sc_damping * vnp;
        if (fnp > 0) contact_pair_friction(&held, fnp, n, vp, zero, vnp, Fp);
        for (int i = 0; i < 3; i++) dFv[3 * i + a] = (Fp[i] - F[i]) / h;
    }
    for (int i = 0; i < 3; i++)
        for (int a = 0; a < 3; a++) dFx[3 * i + a] = fn0 > 0 ? -sp->sc_stiffness * F[i] / fn0 * n[a] : 0.0;
    add_force_slopes(nx, Jr, dFv, dFx, Jd, wc * ds2, Cc, wk * ds2, Kc, ld);
}

VECTOR_CLONES
void contact_jacobian(const rod_model *m, rod_state *st, const double *q, const double *eta,
                      double t, double wk, double *Kc, double wc, double *Cc, int ld)
{
    if (!m->ncontact || !eta) return;
    const rod_spec *sp = m->spec;
    const int nx = m->n_xi;
    double Jl[3 * MODEL_MAX_XI], Ja[3 * MODEL_MAX_XI], Jv[3 * MODEL_MAX_XI];
    spec_obstacle moved[SPEC_MAX_OBSTACLES];
    double vel[SPEC_MAX_OBSTACLES][3];
    const int nob = place_obstacles(sp, st, t, moved, vel);
    for (int c = 0; c < m->ncontact && nob; c++) {
        const double ds = m->contact_w[c];
        cpoint p;
        point_at(m, st, q, c, &p);
        int have = 0;
        for (int o = 0; o < nob; o++) {
            const spec_obstacle *ob = &moved[o];
            double n[3], surf[3], off[3], v[3], F[3];
            const double eps = penetration(ob, p.r, p.radius, n, surf);
            if (!(eps > 0)) continue;
            for (int i = 0; i < 3; i++) off[i] = -p.radius * n[i];
            rolling_velocity_at(&p, eta, off, v);
            for (int i = 0; i < 3; i++) v[i] -= vel[o][i];
            const int fric = ob->friction.on;
            if (!wall_force(ob, p.t, n, eps, v, fric, F)) continue;
            if (!have) {
                point_jacobians(m, st, &p, Jl, Ja);
                have = 1;
            }
            slip_jacobian(nx, Jl, Ja, p.t, off, Jv);
            double dFv[9], dFx[9];
            wall_slopes(ob, p.t, n, eps, v, F, dFv, dFx);
            /* the generalized force is ds Jv^T F (the moment about the tangent is its
             * rolling part), so dQ/dq_dot = ds Jv^T dF/dv Jv, dQ/dq ~ ds Jv^T dF/dx R J_lin
             * (the frames' turning with q left out) */
            add_force_slopes(nx, Jv, dFv, dFx, Jl, wc * ds, Cc, wk * ds, Kc, ld);
        }
    }
    if (!sp->self_contact) return;
    /* self-contact: per pair F = (k_sc eps - gamma_sc v_n) n on i, -F on j, the centre lines'
     * relative motion along n */
    const int nc = m->ncontact;
    cpoint *pts = st->contact_pts;
    double Jd[3 * MODEL_MAX_XI], Jl2[3 * MODEL_MAX_XI], Jr[3 * MODEL_MAX_XI];
    for (int c = 0; c < nc; c++) point_at(m, st, q, c, &pts[c]);
    for (int a = 0; a < nc; a++) {
        const cpoint *pi = &pts[a];
        for (int b = a + 1; b < nc; b++) {
            const cpoint *pj = &pts[b];
            const double sum = pi->radius + pj->radius;
            if (fabs(m->s[pi->k] - m->s[pj->k]) <= 2 * sum) continue;
            double d[3];
            for (int i = 0; i < 3; i++) d[i] = pi->r[i] - pj->r[i];
            if (fabs(d[0]) >= sum || fabs(d[1]) >= sum || fabs(d[2]) >= sum) continue;
            const double dist = sqrt(vec3_dot(d, d));
            const double eps = sum - dist;
            if (!(eps > 0) || !(dist > 0)) continue;
            double n[3], offi[3], offj[3], vi[3], vj[3];
            for (int i = 0; i < 3; i++) {
                n[i] = d[i] / dist;
                offi[i] = -pi->radius * n[i];
                offj[i] = pj->radius * n[i];
            }
            velocity_at(pi, eta, offi, vi);
            velocity_at(pj, eta, offj, vj);
            const double vn = vec3_dot(vi, n) - vec3_dot(vj, n);
            const double fn = sp->sc_stiffness * eps - sp->sc_damping * vn;
            if (!(fn > 0)) continue;
            point_jacobians(m, st, pi, Jd, Ja);
            if (sp->sc_friction.on) surface_jacobian(nx, Jd, Ja, offi, Jr);
            point_jacobians(m, st, pj, Jl2, Ja);
            if (sp->sc_friction.on) {
                surface_jacobian(nx, Jl2, Ja, offj, Jv);
                for (int i = 0; i < 3 * nx; i++) Jr[i] -= Jv[i];
            }
            for (int i = 0; i < 3 * nx; i++) Jd[i] -= Jl2[i];
            double Bk[9], Bc[9];
            for (int i = 0; i < 3; i++)
                for (int l = 0; l < 3; l++) {
                    Bk[3 * i + l] = -sp->sc_stiffness * n[i] * n[l];
                    Bc[3 * i + l] = -sp->sc_damping * n[i] * n[l];
                }
            const double ds2 = pi->w * pj->w;
            if (Kc == Cc) { /* one matrix: both terms in one pass over it */
                for (int i = 0; i < 9; i++) Bk[i] = wk * Bk[i] + wc * Bc[i];
                add_sandwich(nx, ds2, Jd, Bk, Jd, Kc, ld);
            } else {
                add_sandwich(nx, wc * ds2, Jd, Bc, Jd, Cc, ld);
                add_sandwich(nx, wk * ds2, Jd, Bk, Jd, Kc, ld);
            }
            if (sp->sc_friction.on) pair_friction_jacobian(sp, n, eps, vi, vj, nx, Jr, Jd, ds2, wk, Kc, wc, Cc, ld);
        }
    }
}

/* ---- The walls' laws along a Newton correction (solver.contact_laws "solved") ----
 * Per wall contact point: its weight ds, penetration, slip velocity, normal, tangent, force
 * and obstacle, and the Jacobians of its slip (Jv, as contact_jacobian forms it) and of its
 * centre line (Jl); both also stacked column by column over all points (Jc: 6 rows a point),
 * so that moving every point by a correction is one pass over the columns. */
enum { LIN_DS, LIN_EPS, LIN_V, LIN_N = LIN_V + 3, LIN_T = LIN_N + 3, LIN_F = LIN_T + 3, LIN_MU = LIN_F + 3,
       LIN_OB = LIN_MU + 3, LIN_C, LIN_HEAD };

struct contact_lin {
    int np, cap, nx;
    spec_obstacle moved[SPEC_MAX_OBSTACLES];
    double *pt; /* cap x (LIN_HEAD + 6 nx): the head, then Jv and Jl row-major (3 x nx each) */
    double *Jc; /* nx columns of 6 np: rows 6p..6p+2 Jv, 6p+3..6p+5 Jl of point p */
    double *y;  /* 6 np: Jc times a correction */
    double *yb, *yd; /* 6 np each: Jc dx and Jc d of a line dx + alpha d (contact_lin_line_*) */
};

contact_lin *contact_lin_create(const rod_model *m)
{
    contact_lin *L = calloc(1, sizeof *L);
    if (!L) return NULL;
    L->nx = m->n_xi;
    const int nob = m->spec->nobstacles < SPEC_MAX_OBSTACLES ? m->spec->nobstacles : SPEC_MAX_OBSTACLES;
    L->cap = m->ncontact * (nob > 0 ? nob : 1);
    const size_t per = LIN_HEAD + 6 * (size_t)L->nx;
    L->pt = calloc((size_t)L->cap * (per + 6 * (size_t)L->nx + 18) + 1, sizeof *L->pt);
    if (!L->pt) {
        free(L);
        return NULL;
    }
    L->Jc = L->pt + (size_t)L->cap * per;
    L->y = L->Jc + (size_t)L->cap * 6 * L->nx;
    L->yb = L->y + (size_t)L->cap * 6;
    L->yd = L->yb + (size_t)L->cap * 6;
    return L;
}

void contact_lin_free(contact_lin *L)
{
    if (!L) return;
    free(L->pt);
    free(L);
}

int contact_lin_count(const contact_lin *L) { return L->np; }

/* Point p's state against obstacle ob (penetration eps, normal n, moving at vel) into its head b:
 * the slip, the force and the friction's static share held at that slip (hold_static_share):
 * past v_eps the law falls from mu_s to mu_k within a few v_eps, a negative slope 250 times the
 * snake's mass term at 4 ms. With it, a correction's laws have two solutions where the load lies
 * between the kinetic and the static friction (stuck, and sliding at mu_k), and the inner Newton
 * may take the second: the snake with v_eps 1e-6 slid from its first steps and jumped off the
 * ground (its tip 1.2 mm up at 0.25 s, against 2e-5 m from BDF). Held, each correction's laws
 * are monotone, and the next correction, from the new iterate, holds its share: a point breaks
 * loose only past its static friction. Leaves the contact's offset from the centre line in off. */
static void lin_point_state(double *b, const spec_obstacle *ob, const cpoint *p, const double *eta,
                            const double n[3], double eps, const double vel[3], double off[3])
{
    double v[3], F[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) off[i] = -p->radius * n[i];
    rolling_velocity_at(p, eta, off, v);
    for (int i = 0; i < 3; i++) v[i] -= vel[i];
    wall_force(ob, p->t, n, eps, v, ob->friction.on, F);
    spec_friction held = ob->friction;
    if (held.on) hold_static_share(&held, v, n);
    b[LIN_EPS] = eps;
    for (int i = 0; i < 3; i++) {
        b[LIN_V + i] = v[i];
        b[LIN_N + i] = n[i];
        b[LIN_T + i] = p->t[i];
        b[LIN_F + i] = F[i];
        b[LIN_MU + i] = held.mu_static[i];
    }
}

VECTOR_CLONES
int contact_lin_points(const rod_model *m, rod_state *st, const double *q, const double *eta, double t,
                       contact_lin *L)
{
    L->np = 0;
    if (!m->ncontact || !eta) return 0;
    const int nx = m->n_xi;
    const size_t per = LIN_HEAD + 6 * (size_t)nx;
    double Jl[3 * MODEL_MAX_XI], Ja[3 * MODEL_MAX_XI];
    double vel[SPEC_MAX_OBSTACLES][3];
    const int nob = place_obstacles(m->spec, st, t, L->moved, vel);
    for (int c = 0; c < m->ncontact && nob; c++) {
        cpoint p;
        point_at(m, st, q, c, &p);
        int have = 0;
        for (int o = 0; o < nob && L->np < L->cap; o++) {
            double n[3], surf[3], off[3];
            const double eps = penetration(&L->moved[o], p.r, p.radius, n, surf);
            /* a point the wall does not push now (eps > 0 with k eps < gamma v_n) is kept:
             * the correction may press it again */
            if (!(eps > 0)) continue;
            if (!have) {
                point_jacobians(m, st, &p, Jl, Ja);
                have = 1;
            }
            double *b = L->pt + per * (size_t)L->np++, *Jv = b + LIN_HEAD;
            b[LIN_DS] = m->contact_w[c];
            b[LIN_OB] = o;
            b[LIN_C] = c;
            lin_point_state(b, &L->moved[o], &p, eta, n, eps, vel[o], off);
            slip_jacobian(nx, Jl, Ja, p.t, off, Jv);
            memcpy(Jv + 3 * nx, Jl, 3 * (size_t)nx * sizeof *Jl);
        }
    }
    const int rows = 6 * L->np;
    for (int k = 0; k < L->np; k++) {
        const double *J = L->pt + per * (size_t)k + LIN_HEAD;
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < nx; j++) L->Jc[(size_t)rows * j + 6 * k + i] = J[i * nx + j];
    }
    return L->np;
}

/* L->y = Jc dx: every point's slip (rows 6k..6k+2) and centre-line displacement (6k+3..6k+5)
 * per unit correction, all at once */
VECTOR_CLONES
static const double *lin_move(const contact_lin *L, const double *dx)
{
    const int rows = 6 * L->np;
    double *y = L->y;
    for (int i = 0; i < rows; i++) y[i] = 0.0;
    for (int j = 0; j < L->nx; j++) {
        const double d = dx[j], *col = L->Jc + (size_t)rows * j;
        if (d == 0.0) continue;
        for (int i = 0; i < rows; i++) y[i] += col[i] * d;
    }
    return y;
}

double contact_lin_slip_rate(const contact_lin *L, const double *dx)
{
    const size_t per = LIN_HEAD + 6 * (size_t)L->nx;
    const double *moved = lin_move(L, dx);
    double most = 0;
    for (int k = 0; k < L->np; k++) {
        const double *b = L->pt + per * (size_t)k, *n = b + LIN_N;
        if (!(b[LIN_EPS] > 0)) continue;
        double y[3];
        in_surface(moved + 6 * k, n, y);
        most = fmax(most, sqrt(vec3_dot(y, y)));
    }
    return most;
}

double contact_lin_line_limit(const contact_lin *L, double cv)
{
    const double *yb = L->yb, *yd = L->yd;
    const size_t per = LIN_HEAD + 6 * (size_t)L->nx;
    double alpha = 1.0;
    for (int k = 0; k < L->np; k++) {
        const double *b = L->pt + per * (size_t)k;
        const spec_friction *f = &L->moved[(int)b[LIN_OB]].friction;
        if (!f->on) continue;
        double v0[3], dv[3], v[3], w[3], e[3];
        for (int i = 0; i < 3; i++) {
            v0[i] = b[LIN_V + i] + cv * yb[6 * k + i];
            dv[i] = cv * yd[6 * k + i];
        }
        in_surface(v0, b + LIN_N, v);
        in_surface(dv, b + LIN_N, w);
        for (int i = 0; i < 3; i++) e[i] = v[i] + w[i];
        const double ve2 = f->threshold_velocity * f->threshold_velocity, ww = vec3_dot(w, w);
        if (!(ww > 0) || !(vec3_dot(v, v) > ve2) || !(vec3_dot(e, e) > ve2)) continue;
        const double tc = -vec3_dot(v, w) / ww; /* the closest approach to no slip */
        if (!(tc > 0 && tc < 1)) continue;
        double c[3];
        for (int i = 0; i < 3; i++) c[i] = v[i] + tc * w[i];
        if (vec3_dot(c, c) < ve2) alpha = fmin(alpha, tc);
    }
    return alpha;
}

void contact_lin_line_start(contact_lin *L) { memset(L->yb, 0, 6 * (size_t)L->np * sizeof *L->yb); }

void contact_lin_line_direction(contact_lin *L, const double *d)
{
    memcpy(L->yd, lin_move(L, d), 6 * (size_t)L->np * sizeof *L->yd);
}

void contact_lin_line_advance(contact_lin *L, double alpha)
{
    for (int i = 0; i < 6 * L->np; i++) L->yb[i] += alpha * L->yd[i];
}

VECTOR_CLONES
int contact_lin_update(const rod_model *m, rod_state *st, const double *q, const double *eta, double t,
                       contact_lin *L)
{
    if (!m->ncontact || !eta) return L->np == 0 ? 0 : -1;
    const size_t per = LIN_HEAD + 6 * (size_t)L->nx;
    double vel[SPEC_MAX_OBSTACLES][3];
    const int nob = place_obstacles(m->spec, st, t, L->moved, vel);
    int k = 0;
    for (int c = 0; c < m->ncontact && nob; c++) {
        cpoint p;
        point_at(m, st, q, c, &p);
        for (int o = 0; o < nob; o++) {
            double n[3], surf[3], off[3];
            const double eps = penetration(&L->moved[o], p.r, p.radius, n, surf);
            if (!(eps > 0)) continue;
            double *b = L->pt + per * (size_t)k;
            if (k >= L->np || (int)b[LIN_C] != c || (int)b[LIN_OB] != o) return -1;
            k++;
            lin_point_state(b, &L->moved[o], &p, eta, n, eps, vel[o], off);
        }
    }
    return k == L->np ? 0 : -1;
}

/* contact_lin_force with the points moved by y (6 np: Jc dx) */
VECTOR_CLONES
static void force_moved(const contact_lin *L, const double *y, double cq, double cv, double *G, double *A, int ld)
{
    const int nx = L->nx;
    const size_t per = LIN_HEAD + 6 * (size_t)nx;
    for (int k = 0; k < L->np; k++) {
        const double *b = L->pt + per * (size_t)k, *Jv = b + LIN_HEAD, *Jl = Jv + 3 * nx;
        const double *n = b + LIN_N, *tg = b + LIN_T, *F0 = b + LIN_F, *yk = y + 6 * k;
        spec_obstacle held = L->moved[(int)b[LIN_OB]];
        if (held.friction.on)
            for (int d = 0; d < 3; d++) held.friction.mu_static[d] = held.friction.mu_kinetic[d] = b[LIN_MU + d];
        const spec_obstacle *ob = &held;
        const double ds = b[LIN_DS];
        double v[3], F[3] = {0, 0, 0};
        for (int i = 0; i < 3; i++) v[i] = b[LIN_V + i] + cv * yk[i];
        /* q moves by cq dx and the penetration falls along n as the centre line moves out */
        const double eps = b[LIN_EPS] - cq * (n[0] * yk[3] + n[1] * yk[4] + n[2] * yk[5]);
        const int fric = ob->friction.on;
        const int on = eps > 0 && wall_force(ob, tg, n, eps, v, fric, F);
        const double d0 = ds * (F[0] - F0[0]), d1 = ds * (F[1] - F0[1]), d2 = ds * (F[2] - F0[2]);
        if (d0 != 0.0 || d1 != 0.0 || d2 != 0.0)
            for (int j = 0; j < nx; j++) G[j] += Jv[j] * d0 + Jv[nx + j] * d1 + Jv[2 * nx + j] * d2;
        if (!on || !A) continue;
        double dFv[9], dFx[9];
        wall_slopes(ob, tg, n, eps, v, F, dFv, dFx);
        add_force_slopes(nx, Jv, dFv, dFx, Jl, -cv * ds, A, -cq * ds, A, ld);
    }
}

void contact_lin_force(const contact_lin *L, const double *dx, double cq, double cv, double *G, double *A,
                       int ld)
{
    force_moved(L, lin_move(L, dx), cq, cv, G, A, ld);
}

VECTOR_CLONES
void contact_lin_force_on_line(const contact_lin *L, double alpha, double cq, double cv, double *G, double *A,
                               int ld)
{
    if (alpha == 0.0) {
        force_moved(L, L->yb, cq, cv, G, A, ld);
        return;
    }
    for (int i = 0; i < 6 * L->np; i++) L->y[i] = L->yb[i] + alpha * L->yd[i];
    force_moved(L, L->y, cq, cv, G, A, ld);
}
