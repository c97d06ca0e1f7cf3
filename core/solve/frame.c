/* Output frames (DESIGN.md's FRAME): shape, strains, inflation and energies at n points. */
#include "one_rod.h"
#include "base.h"
#include "bodies.h"
#include "constraints.h"
#include "contact.h"
#include "dynamics.h"
#include "frame_table.h"
#include "kinematics.h"
#include "state.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rod_frame_free(rod_frame *f)
{
    if (!f) return;
    free(f->s);
    free(f->position);
    free(f->rotation);
    free(f->rho);
    free(f->radius);
    free(f->kappa);
    free(f->nu);
    free(f->cons);
    free(f->bodies);
    free(f->contact_s);
    free(f->contact_point);
    free(f->contact_force);
    free(f->contact_rod);
    for (int i = 0; i < f->nrods; i++) rod_frame_free(&f->rods[i]);
    free(f->rods);
    memset(f, 0, sizeof *f);
}

/* The stations' poses (world frame) and, when anything moves, their body twists: one
 * kinematic pass for the shape, the energies and the constraints. *eta_out: NULL when still. */
static int station_poses(const rod_model *m, const rod_state *st, lie_pose *g, double **eta_out)
{
    const double *q = st->q;
    int moving = base_moving(m);
    for (int i = 0; i < m->n; i++) moving |= st->qd[i] != 0.0;
    *eta_out = NULL;
    if (!moving) {
        kin_forward(m, q, g, NULL);
        base_apply(m, st->ev, st->t, g, m->ns, NULL, NULL);
        base_free_apply(m, q, NULL, g, NULL, m->ns, NULL, NULL);
        return 0;
    }
    double *eta = malloc((size_t)m->ns * 6 * sizeof *eta);
    if (!eta) return -1;
    kin_forward_twist(m, q, st->qd, g, eta);
    base_apply(m, st->ev, st->t, g, m->ns, eta, NULL);
    base_free_apply(m, q, st->qd, g, NULL, m->ns, eta, NULL);
    *eta_out = eta;
    return 0;
}

/* Energies and volume by the model's quadrature, with the state's q, the stations' poses g
 * and twists eta (NULL: at rest), and their xi (component-major, 6 x ns) and rho. */
static void frame_integrals(const rod_model *m, const rod_state *st, const frame_table *tab, const lie_pose *g,
                            const double *eta, const double *xi_st, const double *rho_st, rod_frame *f)
{
    const int n = m->n, ns = m->ns;
    const double *q = st->q;
    /* elastic energy: every term of Eq. 7 is quadratic in q, so it is q^T K q / 2. Where q is
     * finite the terms of K's exact zeros are +-0, which leave the sum as it is (a sum from +0
     * is never -0): over K's other entries alone, in the same order, it is the same number,
     * with half the chain of additions a frame waited for. */
    int finite = 1;
    for (int i = 0; i < n; i++) finite &= isfinite(q[i]) != 0;
    double e = 0;
    if (finite) {
        for (int t = 0; t < tab->nk; t++) e += q[tab->k_row[t]] * tab->k_val[t] * q[tab->k_col[t]];
    } else {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) e += q[i] * m->K[i + (size_t)n * j] * q[j];
    }
    f->e_elastic = 0.5 * e;
    f->e_kinetic = 0.0;
    if (eta) {
        double bk, bg;
        f->e_kinetic = dyn_kinetic_energy_of(m, q, st->qd, eta);
        bodies_energy(m, g, eta, &bk, &bg);
        f->e_kinetic += bk;
    }
    const double *nu0 = xi_st + 3 * ns, *nu1 = xi_st + 4 * ns, *nu2 = xi_st + 5 * ns;
    double vg = 0, vol = 0, vol0 = 0;
    for (int k = 0; k < ns; k++) {
        if (m->w[k] == 0) continue;
        const double rho = rho_st[k];
        const double A0 = m->sec[k].A0;
        const double mass = (m->rho0 - m->fluid_rho) * A0 * model_mass_factor(m, rho);
        vg -= m->w[k] * mass *
              (m->grav[0] * g[k].r[0] + m->grav[1] * g[k].r[1] + m->grav[2] * g[k].r[2]);
        const double nun = sqrt(nu0[k] * nu0[k] + nu1[k] * nu1[k] + nu2[k] * nu2[k]);
        vol += m->w[k] * A0 * rho * rho * nun;
        vol0 += m->w[k] * A0 * model_rest_nu_norm(m, k); /* the rest shape's volume */
    }
    double bk, bg;
    bodies_energy(m, g, NULL, &bk, &bg);
    f->e_gravity = vg + bg;
    f->volume_change = vol / vol0 - 1.0;
}

/* The station nearest s (constraint points and bodies are stations: their s are breakpoints). */
static const lie_pose *pose_at(const rod_model *m, const lie_pose *g, double s)
{
    int best = 0;
    for (int j = 1; j < m->ns; j++)
        if (fabs(m->s[j] - s) < fabs(m->s[best] - s)) best = j;
    return &g[best];
}

static int frame_constraints(const rod_model *m, const rod_state *st, const lie_pose *g, rod_frame *f)
{
    const int nc = constraints_count(m), nb = m->spec->nbodies;
    f->cons = nc ? calloc((size_t)nc, sizeof *f->cons) : NULL;
    f->bodies = nb ? calloc((size_t)nb, sizeof *f->bodies) : NULL;
    if ((nc && !f->cons) || (nb && !f->bodies)) return -1;
    f->ncons = nc;
    f->nbodies = nb;
    for (int i = 0; i < nc; i++) {
        rod_frame_constraint *c = &f->cons[i];
        snprintf(c->name, sizeof c->name, "%s", constraints_name(m, i));
        c->volume = constraints_is_volume(m, i);
        constraints_reaction(st, i, c->force, c->moment, &c->violation, &c->pressure);
        if (c->volume) continue;
        memcpy(c->point, pose_at(m, g, m->spec->cons[i].s)->r, sizeof c->point);
        const double sb = constraints_relative_s(m, i); /* a breakpoint too: a station */
        constraints_target_position(st, i, c->point, sb >= 0 ? pose_at(m, g, sb) : NULL, c->target);
    }
    for (int b = 0; b < nb; b++) {
        snprintf(f->bodies[b].name, sizeof f->bodies[b].name, "%s", m->spec->bodies[b].name);
        bodies_position(m, b, pose_at(m, g, m->spec->bodies[b].s), f->bodies[b].position);
    }
    return 0;
}

/* The contact forces at the state's q and q_dot, from the stations' world poses g and body
 * twists eta (station_poses'; NULL: still), on scratch of its own (st is const). */
static int frame_contacts(const rod_model *m, const rod_state *st, const lie_pose *g, const double *eta,
                          rod_frame *f)
{
    f->has_contacts = 1;
    const int maxrep = 2 * m->ncontact * (m->spec->nobstacles + (m->spec->self_contact ? 8 : 0)) + 1;
    /* the poses and twists alone: the reports read no Jacobian and add to no Q (the Jacobians
     * were 60 % of the snake's frame) */
    rod_state tmp = state_borrow(st);
    tmp.Q = NULL;
    tmp.g = (lie_pose *)g; /* read only: contact_forces reads the poses it is given */
    tmp.eta = NULL;
    tmp.bias = NULL;
    double *still = eta ? NULL : calloc((size_t)m->ns * 6, sizeof *still); /* a still rod's zero twists */
    tmp.contact_order = malloc((size_t)m->ncontact * sizeof *tmp.contact_order);
    tmp.contact_key = malloc((size_t)m->ncontact * 2 * sizeof *tmp.contact_key);
    tmp.contact_pts = malloc((size_t)m->ncontact * contact_point_size());
    contact_report *rep = malloc((size_t)maxrep * sizeof *rep);
    int rc = ROD_ENOMEM;
    const double *tw = eta ? eta : still;
    if (tw && tmp.contact_order && tmp.contact_key && tmp.contact_pts && rep) {
        int nrep = 0;
        contact_forces(m, &tmp, st->q, tw, st->t, 1.0, NULL, rep, maxrep, &nrep);
        f->contact_s = malloc((size_t)(nrep ? nrep : 1) * sizeof *f->contact_s);
        f->contact_point = malloc((size_t)(nrep ? nrep : 1) * 3 * sizeof *f->contact_point);
        f->contact_force = malloc((size_t)(nrep ? nrep : 1) * 3 * sizeof *f->contact_force);
        if (f->contact_s && f->contact_point && f->contact_force) {
            f->ncontacts = nrep;
            for (int i = 0; i < nrep; i++) {
                f->contact_s[i] = rep[i].s;
                memcpy(f->contact_point + 3 * i, rep[i].point, sizeof rep[i].point);
                memcpy(f->contact_force + 3 * i, rep[i].force, sizeof rep[i].force);
            }
            rc = ROD_OK;
        }
    }
    free(still);
    free(tmp.contact_order);
    free(tmp.contact_key);
    free(tmp.contact_pts);
    free(rep);
    return rc;
}

int frame_shape_one(const rod_model *m, rod_frame *f)
{
    memset(f, 0, sizeof *f);
    const int nc = constraints_count(m), nb = m->spec->nbodies;
    f->cons = nc ? calloc((size_t)nc, sizeof *f->cons) : NULL;
    f->bodies = nb ? calloc((size_t)nb, sizeof *f->bodies) : NULL;
    if ((nc && !f->cons) || (nb && !f->bodies)) {
        rod_frame_free(f);
        return ROD_ENOMEM;
    }
    f->ncons = nc;
    f->nbodies = nb;
    for (int i = 0; i < nc; i++) {
        snprintf(f->cons[i].name, sizeof f->cons[i].name, "%s", constraints_name(m, i));
        f->cons[i].volume = constraints_is_volume(m, i);
    }
    for (int b = 0; b < nb; b++) snprintf(f->bodies[b].name, sizeof f->bodies[b].name, "%s", m->spec->bodies[b].name);
    f->base_moving = base_moving(m) || base_free(m);
    f->has_contacts = m->ncontact > 0;
    return ROD_OK;
}

/* A point's pose, its station's pose gs times its steps' e (the plane's poses, lie_plane.h) as the
 * position and the rotation (row-major) of the FRAME: by plane_pose3_mul, or where that meets
 * a non-finite number by lie_pose_mul itself, whose products are the same. */
static void point_pose_plane(const lie_pose *gs, const plane_pose *e, int nsteps, double pos[3], double rot[9])
{
    plane_pose3 p;
    plane_pose3_of(gs, &p);
    for (int j = 0; j < nsteps; j++) plane_pose3_mul(&p, &e[j], &p);
    if (0 * (p.R0 + p.R2 + p.R6 + p.R8 + p.r0 + p.r2) == 0) {
        const double P[3] = {p.r0, 0.0, p.r2}, R[9] = {p.R0, 0.0, p.R6, 0.0, 1.0, 0.0, p.R2, 0.0, p.R8};
        memcpy(pos, P, sizeof P);
        memcpy(rot, R, sizeof R);
        return;
    }
    lie_pose g = *gs;
    for (int j = 0; j < nsteps; j++) {
        lie_pose ej;
        plane_to_pose(&e[j], &ej);
        lie_pose_mul(&g, &ej, &g);
    }
    for (int a = 0; a < 3; a++) {
        pos[a] = g.r[a];
        for (int b = 0; b < 3; b++) rot[3 * a + b] = g.R[a + 3 * b];
    }
}

/* each output point's pose from the station at or before it, by the model's own Magnus steps
 * (no longer than its longest), so the frame is as accurate as the solver's kinematics; the
 * base's motion is in the stations' poses already (a left factor). A planar rod whose base
 * stays put keeps the plane's poses (its stations' are in plane_to_pose's pattern). */
static int point_poses(const rod_model *m, const rod_state *st, const frame_table *tab, const lie_pose *g,
                       double *scratch, rod_frame *f)
{
    const int n = tab->n, nsteps = tab->first[n];
    if (m->planar && !base_moving(m) && !base_free(m)) {
        plane_pose *e = malloc((size_t)(nsteps ? nsteps : 1) * sizeof *e);
        if (!e) return -1;
        kin_step_exps_plane(m, st->q, tab->beta_t, tab->star, tab->h, nsteps, scratch, e);
        for (int i = 0; i < n; i++)
            point_pose_plane(&g[tab->station[i]], e + tab->first[i], tab->first[i + 1] - tab->first[i],
                             f->position + 3 * i, f->rotation + 9 * i);
        free(e);
        return 0;
    }
    lie_pose *e = malloc((size_t)(nsteps ? nsteps : 1) * sizeof *e);
    if (!e) return -1;
    kin_step_exps(m, st->q, tab->beta, tab->star, tab->h, nsteps, e);
    for (int i = 0; i < n; i++) {
        lie_pose p = g[tab->station[i]];
        for (int j = tab->first[i]; j < tab->first[i + 1]; j++) lie_pose_mul(&p, &e[j], &p);
        for (int a = 0; a < 3; a++) {
            f->position[3 * i + a] = p.r[a];
            for (int b = 0; b < 3; b++) f->rotation[9 * i + 3 * a + b] = p.R[a + 3 * b];
        }
    }
    free(e);
    return 0;
}

int frame_compute_one(const rod_model *m, const rod_state *st, int n, rod_frame *f)
{
    memset(f, 0, sizeof *f);
    if (n < 2) return ROD_EINVAL;
    f->n = n;
    f->t = st->t;
    f->s = malloc((size_t)n * sizeof *f->s);
    f->position = malloc((size_t)3 * n * sizeof *f->position);
    f->rotation = malloc((size_t)9 * n * sizeof *f->rotation);
    f->rho = malloc((size_t)n * sizeof *f->rho);
    f->radius = malloc((size_t)n * sizeof *f->radius);
    f->kappa = malloc((size_t)3 * n * sizeof *f->kappa);
    f->nu = malloc((size_t)3 * n * sizeof *f->nu);
    double *eta = NULL;
    int own = 0;
    const frame_table *tab = frame_table_acquire(m, n, &own);
    /* the stations' poses; scratch for the steps' alphas (kin_step_exps_plane) and the
     * strains and rho at the points and the stations (model_xi_across) */
    const int ns = m->ns;
    const size_t nalpha = tab ? (size_t)3 * tab->first[n] * m->mag->npts : 0;
    lie_pose *g = malloc((size_t)ns * sizeof *g);
    double *scratch = malloc((nalpha + (size_t)7 * n + (size_t)7 * ns) * sizeof *scratch);
    if (!f->s || !f->position || !f->rotation || !f->rho || !f->radius || !f->kappa || !f->nu ||
        !g || !scratch || !tab || station_poses(m, st, g, &eta) != 0) {
        free(g);
        free(scratch);
        frame_table_release(tab, own);
        rod_frame_free(f);
        return ROD_ENOMEM;
    }
    double *xi_pts = scratch + nalpha, *rho_pts = xi_pts + (size_t)6 * n, *xi_st = rho_pts + n,
           *rho_st = xi_st + (size_t)6 * ns;
    memcpy(f->s, tab->s, (size_t)n * sizeof *f->s);
    if (base_moving(m) || base_free(m)) {
        lie_pose gb;
        if (base_free(m))
            base_free_pose(m, st->q, &gb);
        else
            base_motion(m, st->ev, st->t, &gb, NULL, NULL);
        f->base_moving = 1;
        for (int a = 0; a < 3; a++) {
            f->base_position[a] = gb.r[a];
            for (int b = 0; b < 3; b++) f->base_rotation[3 * a + b] = gb.R[a + 3 * b];
        }
    }
    int rc = point_poses(m, st, tab, g, scratch, f);
    model_xi_across(m, tab->cols_t, tab->xis, n, st->q, xi_pts);
    model_rho_across(m, tab->phi_t, n, st->q, rho_pts);
    for (int i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++) {
            f->kappa[3 * i + a] = xi_pts[(size_t)a * n + i];
            f->nu[3 * i + a] = xi_pts[(size_t)(3 + a) * n + i];
        }
        f->rho[i] = rho_pts[i];
        f->radius[i] = rho_pts[i] * tab->z[i];
    }
    model_xi_across(m, tab->leg_t, m->xis, ns, st->q, xi_st);
    model_rho_across(m, tab->phr_t, ns, st->q, rho_st);
    if (rc == 0) rc = frame_constraints(m, st, g, f);
    if (rc == 0) frame_integrals(m, st, tab, g, eta, xi_st, rho_st, f);
    frame_table_release(tab, own);
    if (rc == 0 && m->ncontact) rc = frame_contacts(m, st, g, eta, f);
    free(g);
    free(scratch);
    free(eta);
    if (rc != 0) {
        rod_frame_free(f);
        return ROD_ENOMEM;
    }
    return ROD_OK;
}
