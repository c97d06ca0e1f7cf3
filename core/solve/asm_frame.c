/* A FRAME of several rods (rod.h, issue 29): each rod's own frame in rods[], the energies
 * summed, the bodies (a rod's as "ROD.BODY", a top-level one by its name), the joints'
 * reactions on the child rods as constraints named "CHILD.base", then each rod's own
 * constraints as "ROD.NAME", the contacts with the rod they touch. n = 0: the shape alone (rod_frame_shape). */
#include "asm.h"

#include "one_rod.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void rotate(const double R[9], const double v[3], double o[3])
{
    for (int i = 0; i < 3; i++) o[i] = R[i] * v[0] + R[i + 3] * v[1] + R[i + 6] * v[2];
}

int asm_frame(const rod_model *m, const rod_state *cst, int n, rod_frame *out)
{
    const assembly *a = m->as;
    rod_state *st = (rod_state *)cst; /* the rods' states are scratch; nothing of the state changes */
    asm_state *as = st ? st->as : NULL; /* NULL for a shape */
    memset(out, 0, sizeof *out);
    rod_frame *fr = calloc((size_t)a->nrods, sizeof *fr);
    if (!fr) return ROD_ENOMEM;
    int rc = ROD_OK, nb = 0, nc = 0, ncons = a->njoints;
    if (as) asm_sync(m, st);
    for (int i = 0; i < a->nrods && rc == ROD_OK; i++) {
        rc = as ? frame_compute_one(a->rod[i], as->rod[i], n, &fr[i]) : frame_shape_one(a->rod[i], &fr[i]);
        nb += fr[i].nbodies;
        nc += fr[i].ncontacts;
        if (i < a->nreal) ncons += fr[i].ncons;
        out->has_contacts |= fr[i].has_contacts;
        out->e_kinetic += fr[i].e_kinetic;
        out->e_elastic += fr[i].e_elastic;
        out->e_gravity += fr[i].e_gravity;
        out->volume_change += fr[i].volume_change;
    }
    out->t = as ? as->t : 0;
    /* the rods' contacts with each other, from the last evaluation (asm_contact.c) */
    if (a->rod[0]->spec->self_contact) out->has_contacts = 1;
    if (as) nc += as->ncontacts;
    out->nrods = a->nreal;
    out->rods = calloc((size_t)a->nreal, sizeof *out->rods);
    out->bodies = nb ? calloc((size_t)nb, sizeof *out->bodies) : NULL;
    out->cons = ncons ? calloc((size_t)ncons, sizeof *out->cons) : NULL;
    if (nc) {
        out->contact_s = malloc((size_t)nc * sizeof *out->contact_s);
        out->contact_point = malloc((size_t)3 * nc * sizeof *out->contact_point);
        out->contact_force = malloc((size_t)3 * nc * sizeof *out->contact_force);
        out->contact_rod = malloc((size_t)nc * sizeof *out->contact_rod);
    }
    if (rc == ROD_OK && (!out->rods || (nb && !out->bodies) || (ncons && !out->cons) ||
                         (nc && (!out->contact_s || !out->contact_point || !out->contact_force || !out->contact_rod))))
        rc = ROD_ENOMEM;
    for (int i = 0; i < a->nrods && rc == ROD_OK; i++) {
        const rod_frame *f = &fr[i];
        for (int b = 0; b < f->nbodies; b++) {
            rod_frame_body *ob = &out->bodies[out->nbodies++];
            if (i < a->nreal) snprintf(ob->name, sizeof ob->name, "%.35s.%.35s", a->name[i], f->bodies[b].name);
            else snprintf(ob->name, sizeof ob->name, "%s", a->name[i]);
            memcpy(ob->position, f->bodies[b].position, sizeof ob->position);
        }
        for (int c = 0; c < f->ncontacts; c++) {
            const int k = out->ncontacts++;
            out->contact_s[k] = f->contact_s[c];
            memcpy(out->contact_point + 3 * k, f->contact_point + 3 * c, 3 * sizeof(double));
            memcpy(out->contact_force + 3 * k, f->contact_force + 3 * c, 3 * sizeof(double));
            out->contact_rod[k] = i;
        }
    }
    for (int k = 0; as && k < as->ncontacts && rc == ROD_OK; k++) {
        const asm_contact_report *c = &as->contact[k];
        const int o = out->ncontacts++;
        out->contact_s[o] = c->s;
        memcpy(out->contact_point + 3 * o, c->point, sizeof c->point);
        memcpy(out->contact_force + 3 * o, c->force, sizeof c->force);
        out->contact_rod[o] = c->rod;
    }
    const int nr = a->nrows;
    const double *err = as ? as->scratch + 2 * (size_t)nr * a->n + (size_t)nr * nr + nr : NULL;
    for (int j = 0; j < a->njoints && rc == ROD_OK; j++) {
        const asm_joint *jt = &a->joint[j];
        rod_frame_constraint *c = &out->cons[out->ncons++];
        snprintf(c->name, sizeof c->name, "%.64s.base", a->name[jt->child]);
        if (!as) continue;
        /* the wrench on the child in its base frame, S^T lambda: moment then force */
        const double *l = as->lambda + jt->row0;
        double mo[3] = {0, 0, 0}, fo[3];
        if (jt->type == JOINT_FIXED) memcpy(mo, l, sizeof mo);
        if (jt->type == JOINT_HINGE)
            for (int k = 0; k < 3; k++) mo[k] = l[0] * jt->b[0][k] + l[1] * jt->b[1][k];
        memcpy(fo, l + jt->nrows - 3, sizeof fo);
        const lie_pose *gc = &as->rod[jt->child]->g[0], *gp = &as->rod[jt->parent]->g[jt->station];
        rotate(gc->R, mo, c->moment);
        rotate(gc->R, fo, c->force);
        for (int r = 0; r < jt->nrows; r++) c->violation = fmax(c->violation, fabs(err[jt->row0 + r]));
        lie_pose g;
        lie_pose_mul(gp, &jt->offset, &g);
        memcpy(c->point, gc->r, sizeof c->point);
        memcpy(c->target, g.r, sizeof c->target);
    }
    /* then each rod's own constraints, "ROD.NAME" */
    for (int i = 0; i < a->nreal && rc == ROD_OK; i++)
        for (int k = 0; k < fr[i].ncons; k++) {
            rod_frame_constraint *c = &out->cons[out->ncons++];
            *c = fr[i].cons[k];
            snprintf(c->name, sizeof c->name, "%.35s.%.35s", a->name[i], fr[i].cons[k].name);
        }
    for (int i = 0; i < a->nrods; i++) {
        if (i < a->nreal && rc == ROD_OK) {
            out->rods[i] = fr[i];
            snprintf(out->rods[i].name, sizeof out->rods[i].name, "%s", a->name[i]);
        } else {
            rod_frame_free(&fr[i]);
        }
    }
    free(fr);
    if (rc != ROD_OK) rod_frame_free(out);
    return rc;
}
