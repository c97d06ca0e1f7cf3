/* Output frames (DESIGN.md's FRAME): shape, strains, inflation and energies at n points. */
#include "base.h"
#include "bodies.h"
#include "constraints.h"
#include "contact.h"
#include "dynamics.h"
#include "frame_table.h"
#include "kinematics.h"
#include "numfmt.h"
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

/* Energies and volume by the model's quadrature, with the state's q and the stations' poses g
 * and twists eta (NULL: at rest). */
static void frame_integrals(const rod_model *m, const rod_state *st, const lie_pose *g,
                            const double *eta, rod_frame *f)
{
    const int n = m->n, nx = m->n_xi, nr = m->n_rho;
    const double *q = st->q;
    /* elastic energy: every term of Eq. 7 is quadratic in q, so it is q^T K q / 2 */
    double e = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) e += q[i] * m->K[i + (size_t)n * j] * q[j];
    f->e_elastic = 0.5 * e;
    f->e_kinetic = 0.0;
    if (eta) {
        double bk, bg;
        f->e_kinetic = dyn_kinetic_energy_of(m, q, st->qd, eta);
        bodies_energy(m, g, eta, &bk, &bg);
        f->e_kinetic += bk;
    }
    double vg = 0, vol = 0, vol0 = 0;
    for (int k = 0; k < m->ns; k++) {
        if (m->w[k] == 0) continue;
        double rho = 1.0, xi[6];
        for (int j = 0; j < nr; j++) rho += m->phr[(size_t)k * nr + j] * q[nx + j];
        model_xi(m, m->leg + (size_t)k * nx, q, xi);
        const double A0 = m->sec[k].A0;
        const double mass = (m->rho0 - m->fluid_rho) * A0 * model_mass_factor(m, rho);
        vg -= m->w[k] * mass *
              (m->grav[0] * g[k].r[0] + m->grav[1] * g[k].r[1] + m->grav[2] * g[k].r[2]);
        const double nun = sqrt(xi[3] * xi[3] + xi[4] * xi[4] + xi[5] * xi[5]);
        vol += m->w[k] * A0 * rho * rho * nun;
        vol0 += m->w[k] * A0;
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

/* The contact forces at the state's q and q_dot, on scratch of its own (st is const). */
static int frame_contacts(const rod_model *m, const rod_state *st, rod_frame *f)
{
    f->has_contacts = 1;
    const int nx = m->n_xi ? m->n_xi : 1;
    const int maxrep = 2 * m->ncontact * (m->spec->nobstacles + (m->spec->self_contact ? 8 : 0)) + 1;
    rod_state tmp = *st;
    tmp.g = malloc((size_t)m->ns * sizeof *tmp.g);
    tmp.J = malloc((size_t)m->ns * 6 * nx * sizeof *tmp.J);
    tmp.eta = malloc((size_t)m->ns * 6 * sizeof *tmp.eta);
    tmp.bias = malloc((size_t)m->ns * 6 * sizeof *tmp.bias);
    tmp.Q = malloc((size_t)(m->n ? m->n : 1) * sizeof *tmp.Q);
    tmp.contact_order = malloc((size_t)m->ncontact * sizeof *tmp.contact_order);
    tmp.contact_key = malloc((size_t)m->ncontact * 2 * sizeof *tmp.contact_key);
    tmp.contact_pts = malloc((size_t)m->ncontact * contact_point_size());
    contact_report *rep = malloc((size_t)maxrep * sizeof *rep);
    int rc = ROD_ENOMEM;
    if (tmp.g && tmp.J && tmp.eta && tmp.bias && tmp.Q && tmp.contact_order && tmp.contact_key &&
        tmp.contact_pts && rep) {
        kin_forward_vel(m, st->q, st->qd, tmp.g, tmp.J, tmp.eta, tmp.bias);
        base_apply(m, st->ev, st->t, tmp.g, m->ns, tmp.eta, tmp.bias); /* obstacles are in the world */
        base_free_apply(m, st->q, st->qd, tmp.g, tmp.J, m->ns, tmp.eta, tmp.bias);
        memset(tmp.Q, 0, (size_t)m->n * sizeof *tmp.Q);
        int nrep = 0;
        contact_forces(m, &tmp, st->q, tmp.eta, st->t, 1.0, tmp.Q, rep, maxrep, &nrep);
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
    free(tmp.g);
    free(tmp.J);
    free(tmp.eta);
    free(tmp.bias);
    free(tmp.Q);
    free(tmp.contact_order);
    free(tmp.contact_key);
    free(tmp.contact_pts);
    free(rep);
    return rc;
}

int rod_frame_shape(const rod_model *m, rod_frame *f)
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

int rod_frame_compute(const rod_model *m, const rod_state *st, int n, rod_frame *f)
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
    lie_pose *g = malloc((size_t)m->ns * sizeof *g);
    double *eta = NULL;
    int own = 0;
    const frame_table *tab = frame_table_acquire(m, n, &own);
    if (!f->s || !f->position || !f->rotation || !f->rho || !f->radius || !f->kappa || !f->nu ||
        !g || !tab || station_poses(m, st, g, &eta) != 0) {
        free(g);
        frame_table_release(tab, own);
        rod_frame_free(f);
        return ROD_ENOMEM;
    }
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
    /* each output point's pose from the station at or before it, by the model's own Magnus
     * steps (no longer than its longest), so the frame is as accurate as the solver's
     * kinematics; the base's motion is in the stations' poses already (a left factor) */
    const int nx = m->n_xi, nr = m->n_rho;
    const size_t bsz = (size_t)m->mag->npts * nx;
    for (int i = 0; i < n; i++) {
        lie_pose p = g[tab->station[i]];
        const int j0 = tab->first[i];
        kin_pose_steps(m, st->q, tab->beta + (size_t)j0 * bsz, tab->h + j0, tab->first[i + 1] - j0, &p);
        for (int a = 0; a < 3; a++) {
            f->position[3 * i + a] = p.r[a];
            for (int b = 0; b < 3; b++) f->rotation[9 * i + 3 * a + b] = p.R[a + 3 * b];
        }
        double xi[6], rho = 1.0;
        model_xi(m, tab->cols + (size_t)i * nx, st->q, xi);
        for (int j = 0; j < nr; j++) rho += tab->phi[(size_t)i * nr + j] * st->q[nx + j];
        f->rho[i] = rho;
        f->radius[i] = rho * tab->z[i];
        memcpy(f->kappa + 3 * i, xi, 3 * sizeof *xi);
        memcpy(f->nu + 3 * i, xi + 3, 3 * sizeof *xi);
    }
    frame_table_release(tab, own);
    int rc = frame_constraints(m, st, g, f);
    if (rc == 0) frame_integrals(m, st, g, eta, f);
    if (rc == 0 && m->ncontact) rc = frame_contacts(m, st, f);
    free(g);
    free(eta);
    if (rc != 0) {
        rod_frame_free(f);
        return ROD_ENOMEM;
    }
    return ROD_OK;
}

static cJSON *array_of(const double *v, int n)
{
    return cJSON_CreateDoubleArray(v, n);
}

static cJSON *nested(const double *v, int n, int w)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++) {
        cJSON *e = cJSON_CreateDoubleArray(v + (size_t)w * i, w);
        if (!e || !cJSON_AddItemToArray(a, e)) {
            cJSON_Delete(e);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

cJSON *rod_frame_to_cjson(const rod_frame *f)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddNumberToObject(o, "t", f->t);
    cJSON_AddItemToObject(o, "s", array_of(f->s, f->n));
    cJSON_AddItemToObject(o, "position", nested(f->position, f->n, 3));
    cJSON_AddItemToObject(o, "rotation", nested(f->rotation, f->n, 9));
    cJSON_AddItemToObject(o, "rho", array_of(f->rho, f->n));
    cJSON_AddItemToObject(o, "radius", array_of(f->radius, f->n));
    cJSON_AddItemToObject(o, "kappa", nested(f->kappa, f->n, 3));
    cJSON_AddItemToObject(o, "nu", nested(f->nu, f->n, 3));
    cJSON *e = cJSON_AddObjectToObject(o, "energy");
    if (e) {
        cJSON_AddNumberToObject(e, "kinetic", f->e_kinetic);
        cJSON_AddNumberToObject(e, "elastic", f->e_elastic);
        cJSON_AddNumberToObject(e, "gravity", f->e_gravity);
    }
    cJSON_AddNumberToObject(o, "volume_change", f->volume_change);
    if (f->nbodies) {
        cJSON *bs = cJSON_AddObjectToObject(o, "bodies");
        for (int i = 0; bs && i < f->nbodies; i++) {
            cJSON *e = cJSON_AddObjectToObject(bs, f->bodies[i].name);
            if (e) cJSON_AddItemToObject(e, "position", array_of(f->bodies[i].position, 3));
        }
    }
    if (f->base_moving) {
        cJSON *b = cJSON_AddObjectToObject(o, "base");
        if (b) {
            cJSON_AddItemToObject(b, "position", array_of(f->base_position, 3));
            cJSON_AddItemToObject(b, "rotation", array_of(f->base_rotation, 9));
        }
    }
    if (f->ncons) {
        cJSON *cs = cJSON_AddObjectToObject(o, "constraints");
        for (int i = 0; cs && i < f->ncons; i++) {
            const rod_frame_constraint *c = &f->cons[i];
            cJSON *e = cJSON_AddObjectToObject(cs, c->name);
            if (!e) continue;
            if (c->volume) {
                cJSON_AddNumberToObject(e, "pressure", c->pressure);
            } else {
                cJSON_AddItemToObject(e, "force", array_of(c->force, 3));
                cJSON_AddItemToObject(e, "moment", array_of(c->moment, 3));
                cJSON_AddItemToObject(e, "point", array_of(c->point, 3));
                cJSON_AddItemToObject(e, "target", array_of(c->target, 3));
            }
            cJSON_AddNumberToObject(e, "violation", c->violation);
        }
    }
    if (f->has_contacts) {
        cJSON *ca = cJSON_AddArrayToObject(o, "contacts");
        for (int i = 0; ca && i < f->ncontacts; i++) {
            cJSON *c = cJSON_CreateObject();
            if (!c || !cJSON_AddItemToArray(ca, c)) {
                cJSON_Delete(c);
                break;
            }
            cJSON_AddNumberToObject(c, "s", f->contact_s[i]);
            cJSON_AddItemToObject(c, "point", array_of(f->contact_point + 3 * i, 3));
            cJSON_AddItemToObject(c, "force", array_of(f->contact_force + 3 * i, 3));
        }
    }
    return o;
}

/* A frame is thousands of numbers printed 30 times a second: written directly with 10
 * significant digits (far below any physical uncertainty) instead of cJSON's print-and-verify
 * per number, which costs several times more. */
typedef struct {
    char *buf;
    size_t len, cap;
    int oom;
} sbuf;

static void sb_reserve(sbuf *b, size_t more)
{
    if (b->oom || b->len + more < b->cap) return;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap <= b->len + more) cap *= 2;
    char *p = realloc(b->buf, cap);
    if (!p) {
        b->oom = 1;
        return;
    }
    b->buf = p;
    b->cap = cap;
}

static void sb_str(sbuf *b, const char *s)
{
    size_t n = strlen(s);
    sb_reserve(b, n + 1);
    if (b->oom) return;
    memcpy(b->buf + b->len, s, n + 1);
    b->len += n;
}

static void sb_num(sbuf *b, double v)
{
    sb_reserve(b, 32);
    if (b->oom) return;
    if (!isfinite(v)) { /* JSON has no inf or NaN */
        memcpy(b->buf + b->len, "null", 5);
        b->len += 4;
        return;
    }
    b->len += num_g10(b->buf + b->len, v);
}

static void sb_array(sbuf *b, const char *key, const double *v, int n, int w)
{
    sb_str(b, ",\"");
    sb_str(b, key);
    sb_str(b, "\":[");
    for (int i = 0; i < n; i++) {
        if (i) sb_str(b, ",");
        if (w > 1) sb_str(b, "[");
        for (int k = 0; k < w; k++) {
            if (k) sb_str(b, ",");
            sb_num(b, v[(size_t)w * i + k]);
        }
        if (w > 1) sb_str(b, "]");
    }
    sb_str(b, "]");
}

/* "key":[v0,...] without a leading comma */
static void sb_vec(sbuf *b, const char *key, const double *v, int n)
{
    sb_str(b, "\"");
    sb_str(b, key);
    sb_str(b, "\":[");
    for (int i = 0; i < n; i++) {
        if (i) sb_str(b, ",");
        sb_num(b, v[i]);
    }
    sb_str(b, "]");
}

char *rod_frame_to_json(const rod_frame *f)
{
    sbuf b = {0};
    sb_str(&b, "{\"t\":");
    sb_num(&b, f->t);
    sb_array(&b, "s", f->s, f->n, 1);
    sb_array(&b, "position", f->position, f->n, 3);
    sb_array(&b, "rotation", f->rotation, f->n, 9);
    sb_array(&b, "rho", f->rho, f->n, 1);
    sb_array(&b, "radius", f->radius, f->n, 1);
    sb_array(&b, "kappa", f->kappa, f->n, 3);
    sb_array(&b, "nu", f->nu, f->n, 3);
    sb_str(&b, ",\"energy\":{\"kinetic\":");
    sb_num(&b, f->e_kinetic);
    sb_str(&b, ",\"elastic\":");
    sb_num(&b, f->e_elastic);
    sb_str(&b, ",\"gravity\":");
    sb_num(&b, f->e_gravity);
    sb_str(&b, "},\"volume_change\":");
    sb_num(&b, f->volume_change);
    if (f->base_moving) {
        sb_str(&b, ",\"base\":{");
        sb_vec(&b, "position", f->base_position, 3);
        sb_str(&b, ",");
        sb_vec(&b, "rotation", f->base_rotation, 9);
        sb_str(&b, "}");
    }
    if (f->nbodies) {
        sb_str(&b, ",\"bodies\":{");
        for (int i = 0; i < f->nbodies; i++) {
            sb_str(&b, i ? ",\"" : "\"");
            sb_str(&b, f->bodies[i].name);
            sb_str(&b, "\":{");
            sb_vec(&b, "position", f->bodies[i].position, 3);
            sb_str(&b, "}");
        }
        sb_str(&b, "}");
    }
    if (f->ncons) {
        sb_str(&b, ",\"constraints\":{");
        for (int i = 0; i < f->ncons; i++) {
            const rod_frame_constraint *c = &f->cons[i];
            if (i) sb_str(&b, ",");
            sb_str(&b, "\""); /* names are letters, digits, '_', '-', '.': nothing to escape */
            sb_str(&b, c->name);
            sb_str(&b, "\":{");
            if (c->volume) {
                sb_str(&b, "\"pressure\":");
                sb_num(&b, c->pressure);
            } else {
                sb_vec(&b, "force", c->force, 3);
                sb_str(&b, ",");
                sb_vec(&b, "moment", c->moment, 3);
                sb_str(&b, ",");
                sb_vec(&b, "point", c->point, 3);
                sb_str(&b, ",");
                sb_vec(&b, "target", c->target, 3);
            }
            sb_str(&b, ",\"violation\":");
            sb_num(&b, c->violation);
            sb_str(&b, "}");
        }
        sb_str(&b, "}");
    }
    if (f->has_contacts) {
        sb_str(&b, ",\"contacts\":[");
        for (int i = 0; i < f->ncontacts; i++) {
            sb_str(&b, i ? ",{\"s\":" : "{\"s\":");
            sb_num(&b, f->contact_s[i]);
            sb_str(&b, ",");
            sb_vec(&b, "point", f->contact_point + 3 * i, 3); /* Vec3, as the API has it */
            sb_str(&b, ",");
            sb_vec(&b, "force", f->contact_force + 3 * i, 3);
            sb_str(&b, "}");
        }
        sb_str(&b, "]");
    }
    sb_str(&b, "}");
    if (b.oom) {
        free(b.buf);
        return NULL;
    }
    return b.buf;
}
