/* A state's accessors and inputs' values, for every stage; its allocation is state_alloc.c's. */
#include "state.h"
#include "assembly.h"
#include "vector_clones.h"

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

const char *rod_state_error(const rod_state *st) { return st->err; }

void rod_state_interrupt(rod_state *st) { atomic_store(&st->interrupt, 1); }

void rod_state_mark_restart(rod_state *st)
{
    st->need_reinit = 1;
    if (st->as) st->as->need_reinit = 1;
}
double rod_state_time(const rod_state *st) { return st->as ? st->as->t : st->t; }
const double *rod_state_q(const rod_state *st) { return st->as ? st->as->q : st->q; }

int rod_state_set_q(rod_state *st, const double *q, int n)
{
    const int nm = st->as ? st->m->as->n : st->m->n;
    if (n != nm) {
        state_set_error(st, "q has %d values; the model has %d coordinates", n, nm);
        return ROD_EINVAL;
    }
    for (int i = 0; i < n; i++)
        if (!isfinite(q[i])) {
            state_set_error(st, "q[%d] is not finite", i);
            return ROD_EINVAL;
        }
    memcpy(st->as ? st->as->q : st->q, q, (size_t)n * sizeof *q);
    st->need_reinit = 1;
    if (st->as) st->as->need_reinit = 1;
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
    if (st->as) { /* rod 0's state is this one: read the rod's own inputs, no dispatch */
        const assembly *a = st->m->as;
        if (i < 0 || i >= a->ninputs) return 0;
        const rod_state *r = st->as->rod[a->input[i].rod];
        const int k = a->input[i].index;
        if (r->input[k].kind != PROFILE_CONST) return 0;
        *v = r->input[k].v.value;
        return 1;
    }
    if (i < 0 || i >= st->m->ninputs || st->input[i].kind != PROFILE_CONST) return 0;
    *v = st->input[i].v.value;
    return 1;
}

double rod_state_input_value(rod_state *st, int i, double X)
{
    if (st->as) {
        const assembly *a = st->m->as;
        if (i < 0 || i >= a->ninputs) return 0.0;
        rod_state *r = st->as->rod[a->input[i].rod];
        return state_input_value(r, a->input[i].index, st->as->t, X);
    }
    if (i < 0 || i >= st->m->ninputs) return 0.0;
    return state_input_value(st, i, st->t, X);
}

const double *state_J(const rod_model *m, const rod_state *st, int k)
{
    if (st->J_stale) {
        /* the solve layer forms J again (dyn_fresh_J) before any stage reads it after a
         * wrench-form evaluation: a read here would take another q's Jacobian */
        fprintf(stderr, "rodd: internal error: a Jacobian read after a wrench-form evaluation\n");
        abort();
    }
    double *Jk = st->J + (size_t)k * 6 * m->n_xi;
    if (st->J_pending && st->J_pending[k]) {
        /* the strain columns; a free base's were written in the body frame already */
        lie_Ad_inv_columns(&st->J_pose[k], m->comp_first[6], Jk, Jk);
        st->J_pending[k] = 0;
    }
    return Jk;
}

rod_state state_borrow(const rod_state *st)
{
    rod_state b = *st;
    b.J = NULL;
    b.J_pending = NULL; /* st's marks are for st's J */
    b.J_stale = 0;
    b.wrench_mode = 0;
    return b;
}

VECTOR_CLONES
void state_add_wrench(const rod_model *m, const rod_state *st, int k, const double W[6], double scale, double *Q)
{
    if (st->wrench_mode) {
        double *w = st->W_station + 6 * (size_t)k;
        for (int i = 0; i < 6; i++) w[i] += scale * W[i];
        return;
    }
    const double *Jk = state_J(m, st, k);
    for (int j = 0; j < m->n_xi; j++) {
        const double *c = Jk + 6 * j;
        Q[j] += scale * (c[0] * W[0] + c[1] * W[1] + c[2] * W[2] + c[3] * W[3] + c[4] * W[4] + c[5] * W[5]);
    }
}
