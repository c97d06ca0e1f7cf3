/* A state sized and allocated for its model, and freed with what the stages and the
 * integrator hung off it (MuJoCo's mj_makeData/mj_deleteData): the one place that knows every
 * buffer of a state, so the stepping code never allocates and no stage frees another's. */
#include "one_rod.h"
#include "constraints.h"
#include "contact.h"
#include "integrator.h"
#include "state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rod_state *state_create_one(const rod_model *m, char *err, size_t errlen)
{
    rod_state *st = calloc(1, sizeof *st);
    if (!st) goto nomem;
    st->m = m;
    const size_t n = (size_t)m->n, nx = (size_t)(m->n_xi ? m->n_xi : 1);
    st->q = calloc(n, sizeof *st->q);
    st->qd = calloc(n, sizeof *st->qd);
    st->vec_n = calloc(n, sizeof *st->vec_n);
    st->input = calloc((size_t)(m->ninputs ? m->ninputs : 1), sizeof *st->input);
    st->input_src = calloc((size_t)(m->ninputs ? m->ninputs : 1), sizeof *st->input_src);
    st->chain = calloc((size_t)(m->ninputs ? m->ninputs : 1), sizeof *st->chain);
    st->g = calloc((size_t)m->ns, sizeof *st->g);
    st->J = calloc((size_t)m->ns * 6 * nx, sizeof *st->J);
    st->eta = calloc((size_t)m->ns * 6, sizeof *st->eta);
    st->bias = calloc((size_t)m->ns * 6, sizeof *st->bias);
    st->Mxi = calloc(nx * nx, sizeof *st->Mxi);
    st->Q = calloc(n, sizeof *st->Q);
    if (!st->q || !st->qd || !st->vec_n || !st->input || !st->input_src || !st->chain || !st->g || !st->J || !st->eta ||
        !st->bias || !st->Mxi || !st->Q || constraints_state_init(st) != 0)
        goto nomem;
    if (m->J_deferred) {
        st->J_pending = calloc((size_t)m->ns, sizeof *st->J_pending);
        st->J_pose = calloc((size_t)m->ns, sizeof *st->J_pose);
        if (!st->J_pending || !st->J_pose) goto nomem;
    }
    if (!m->planar && m->n_xi > 0 && m->ns > 1) {
        st->kin_q = calloc(n, sizeof *st->kin_q);
        st->W_station = calloc((size_t)m->ns * 6, sizeof *st->W_station);
        st->step_w = calloc((size_t)(m->ns - 1) * m->substeps, sizeof *st->step_w);
        st->g_rel = calloc((size_t)m->ns, sizeof *st->g_rel);
        if (!st->kin_q || !st->W_station || !st->step_w || !st->g_rel) goto nomem;
    }
    if (m->ncontact) {
        st->contact_order = calloc((size_t)m->ncontact, sizeof *st->contact_order);
        st->contact_key = calloc((size_t)m->ncontact * 2, sizeof *st->contact_key);
        st->contact_pts = calloc((size_t)m->ncontact, contact_point_size());
        if (!st->contact_order || !st->contact_key || !st->contact_pts) goto nomem;
    }
    for (int i = 0; i < m->ninputs; i++) {
        st->input[i] = *model_input_profile(m, i);
    }
    if (m->spec->nguess) memcpy(st->q, m->spec->guess, n * sizeof *st->q);
    st->ev = profile_eval_create(m->spec->exprs, m->spec->nexprs, err, errlen);
    if (!st->ev) {
        state_free_one(st);
        return NULL;
    }
    return st;
nomem:
    snprintf(err, errlen, "out of memory creating a state");
    state_free_one(st);
    return NULL;
}

void state_free_one(rod_state *st)
{
    if (!st) return;
    integrator_free(st->dyn);
    profile_eval_free(st->ev);
    free(st->q);
    free(st->qd);
    free(st->vec_n);
    for (int i = 0; st->input_src && i < st->m->ninputs; i++) free(st->input_src[i]);
    free(st->input_src);
    free(st->input);
    free(st->chain);
    free(st->g);
    free(st->J);
    free(st->J_pending);
    free(st->J_pose);
    free(st->kin_q);
    free(st->W_station);
    free(st->step_w);
    free(st->g_rel);
    free(st->eta);
    free(st->bias);
    free(st->Mxi);
    free(st->Q);
    constraints_state_free(st);
    free(st->contact_order);
    free(st->contact_key);
    free(st->contact_pts);
    free(st);
}
