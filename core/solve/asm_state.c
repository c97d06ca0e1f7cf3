/* A state of several rods (asm.h): every rod's own state beside rod 0's, the assembly's q and
 * q_dot, and the rest placement of the joined rods. */
#include "asm.h"

#include "base.h"
#include "constraints_layout.h"
#include "dynamics.h"
#include "kinematics.h"
#include "one_rod.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int asm_state_attach(const rod_model *m, rod_state *st, char *err, size_t errlen)
{
    const assembly *a = m->as;
    asm_state *as = calloc(1, sizeof *as);
    if (!as) goto nomem;
    st->as = as;
    as->rod = calloc((size_t)a->nrods, sizeof *as->rod);
    const size_t n = (size_t)(a->n ? a->n : 1), r = (size_t)(a->nrows ? a->nrows : 1);
    as->q = calloc(n, sizeof *as->q);
    as->qd = calloc(n, sizeof *as->qd);
    as->lambda = calloc(r, sizeof *as->lambda);
    /* A and W (r x n each), S (r x r), rhs, err, res, rate (r each) */
    as->scratch = calloc(2 * r * n + r * r + 4 * r, sizeof *as->scratch);
    as->row_rods = malloc(2 * r * sizeof *as->row_rods);
    as->row_pen = calloc(r, sizeof *as->row_pen);
    as->cq = calloc(n, sizeof *as->cq);
    as->gq = calloc(n, sizeof *as->gq);
    as->qc = calloc(n, sizeof *as->qc);
    int nc = 0;
    for (int i = 0; i < a->nrods; i++) nc += constraints_nmult(a->rod[i]);
    as->c0 = calloc((size_t)(nc ? nc : 1), sizeof *as->c0);
    if (!as->rod || !as->q || !as->qd || !as->lambda || !as->scratch || !as->row_rods || !as->row_pen || !as->cq || !as->gq || !as->qc || !as->c0) goto nomem;
    as->rod[0] = st;
    for (int i = 1; i < a->nrods; i++) {
        as->rod[i] = state_create_one(a->rod[i], err, errlen);
        if (!as->rod[i]) {
            asm_state_detach(st);
            return -1;
        }
    }
    asm_place(m, st, 0.0, as->q, as->qd);
    as->need_reinit = 1;
    return 0;
nomem:
    snprintf(err, errlen, "out of memory creating the state");
    asm_state_detach(st);
    return -1;
}

void asm_state_detach(rod_state *st)
{
    asm_state *as = st->as;
    if (!as) return;
    for (int i = 1; as->rod && i < st->m->as->nrods; i++) state_free_one(as->rod[i]);
    free(as->rod);
    free(as->q);
    free(as->qd);
    free(as->lambda);
    free(as->scratch);
    free(as->row_rods);
    free(as->row_pen);
    free(as->cq);
    free(as->gq);
    free(as->qc);
    free(as->c0);
    free(as);
    st->as = NULL;
}

void asm_sync(const rod_model *m, rod_state *st)
{
    const assembly *a = m->as;
    asm_state *as = st->as;
    for (int i = 0; i < a->nrods; i++) {
        rod_state *r = as->rod[i];
        const int ni = a->rod[i]->n;
        if (ni) {
            memcpy(r->q, as->q + a->off[i], (size_t)ni * sizeof *r->q);
            memcpy(r->qd, as->qd + a->off[i], (size_t)ni * sizeof *r->qd);
        }
        r->t = as->t;
    }
}

/* Joined rod i's base moves with its joint's frame on the parent (whose q and q_dot are set),
 * its strains at rest: a rod on a moving body starts riding it, as a one-rod spec's rod
 * rides its moving base with q_dot = 0. Nothing while that frame is still (q_dot stays 0). */
static void ride(const rod_model *m, rod_state *st, int i, double t, const double *q, double *qd)
{
    const assembly *a = m->as;
    const asm_joint *jt = &a->joint[a->joint_of[i]];
    const rod_model *pm = a->rod[jt->parent];
    rod_state *ps = st->as->rod[jt->parent];
    const double *qp = q + a->off[jt->parent], *qdp = qd + a->off[jt->parent];
    kin_forward_vel(pm, qp, qdp, ps->g, ps->J, ps->eta, ps->bias);
    base_apply(pm, ps->ev, t, ps->g, pm->ns, ps->eta, ps->bias);
    base_free_apply(pm, qp, qdp, ps->g, ps->J, pm->ns, ps->eta, ps->bias);
    const double *ep = ps->eta + 6 * jt->station;
    int still = 1;
    for (int k = 0; k < 6; k++) still &= ep[k] == 0.0;
    if (still) return;
    double e[6];
    lie_Ad_inv_apply(&jt->offset, ep, e);
    base_free_rate(a->rod[i], q + a->off[i], e, qd + a->off[i]);
}

void asm_ride(const rod_model *m, rod_state *st, double t, const double *q, double *qd)
{
    const assembly *a = m->as;
    for (int k = 0; k < a->nrods; k++) {
        const int i = a->order[k];
        if (a->rod[i]->base_col >= 0 && a->joint_of[i] >= 0) ride(m, st, i, t, q, qd);
    }
}

void asm_place(const rod_model *m, rod_state *st, double t, double *q, double *qd)
{
    const assembly *a = m->as;
    memset(q, 0, (size_t)a->n * sizeof *q);
    memset(qd, 0, (size_t)a->n * sizeof *qd);
    for (int k = 0; k < a->nrods; k++) {
        const int i = a->order[k];
        const rod_model *mi = a->rod[i];
        if (mi->base_col < 0) continue;
        double *x = q + a->off[i] + mi->base_col;
        const int j = a->joint_of[i];
        if (j < 0) {
            memcpy(x, a->start_pose[i], sizeof a->start_pose[i]);
            continue;
        }
        const asm_joint *jt = &a->joint[j];
        rod_state *ps = st->as->rod[jt->parent];
        dyn_pose(a->rod[jt->parent], ps, t, q + a->off[jt->parent], 1);
        lie_pose g;
        lie_pose_mul(&ps->g[jt->station], &jt->offset, &g);
        lie_se3_log(g.R, g.r, x);
        ride(m, st, i, t, q, qd);
    }
}

void asm_error_from(rod_state *st, int r)
{
    if (r == 0) return;
    char msg[sizeof st->err];
    snprintf(msg, sizeof msg, "%s", st->as->rod[r]->err);
    state_set_error(st, "rod \"%s\": %s", st->m->as->name[r], msg);
}
