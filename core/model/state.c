#include "state.h"

#include "constraints.h"
#include "contact.h"
#include "integrator.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *rod_strerror(int code)
{
    switch (code) {
    case ROD_OK: return "ok";
    case ROD_EINVAL: return "invalid argument";
    case ROD_ENOMEM: return "out of memory";
    case ROD_ENOCONV: return "did not converge";
    case ROD_ESOLVER: return "solver failure";
    case ROD_ENOTFOUND: return "not found";
    case ROD_EIO: return "input/output error";
    default: return "unknown error";
    }
}

void state_set_error(rod_state *st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->err, sizeof st->err, fmt, ap);
    va_end(ap);
}

rod_state *rod_state_create(const rod_model *m, char *err, size_t errlen)
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
        rod_state_free(st);
        return NULL;
    }
    return st;
nomem:
    snprintf(err, errlen, "out of memory creating a state");
    rod_state_free(st);
    return NULL;
}

void rod_state_free(rod_state *st)
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

const char *rod_state_error(const rod_state *st) { return st->err; }

void rod_state_interrupt(rod_state *st) { atomic_store(&st->interrupt, 1); }

void rod_state_mark_restart(rod_state *st) { st->need_reinit = 1; }
double rod_state_time(const rod_state *st) { return st->t; }
const double *rod_state_q(const rod_state *st) { return st->q; }

int rod_state_set_q(rod_state *st, const double *q, int n)
{
    if (n != st->m->n) {
        state_set_error(st, "q has %d values; the model has %d coordinates", n, st->m->n);
        return ROD_EINVAL;
    }
    for (int i = 0; i < n; i++)
        if (!isfinite(q[i])) {
            state_set_error(st, "q[%d] is not finite", i);
            return ROD_EINVAL;
        }
    memcpy(st->q, q, (size_t)n * sizeof *q);
    st->need_reinit = 1;
    return ROD_OK;
}

double state_input_value(rod_state *st, int i, double t, double X)
{
    double v = state_input_raw(st, i, t, X);
    if (st->m->inputs[i].kind == INPUT_ACTUATOR) v = state_actuator_value(v);
    return v;
}

double state_actuator_value(double v)
{
    return v > 0 ? v : (v != v ? v : 0.0);
}

int rod_state_input_constant(const rod_state *st, int i, double *v)
{
    if (i < 0 || i >= st->m->ninputs || st->input[i].kind != PROFILE_CONST) return 0;
    *v = st->input[i].v.value;
    return 1;
}

double rod_state_input_value(rod_state *st, int i, double X)
{
    if (i < 0 || i >= st->m->ninputs) return 0.0;
    return state_input_value(st, i, st->t, X);
}
