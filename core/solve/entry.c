/* rod.h's entry points that differ for a model of several rods (issue 29): each sends a model
 * with "rods" to the asm_* files and any other to the one-rod implementation (one_rod.h),
 * which runs exactly as it did before there were several rods. */
#include "asm.h"
#include "constraints_layout.h"
#include "one_rod.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rod_state *rod_state_create(const rod_model *m, char *err, size_t errlen)
{
    rod_state *st = state_create_one(m, err, errlen);
    if (st && m->as && asm_state_attach(m, st, err, errlen)) {
        state_free_one(st);
        return NULL;
    }
    return st;
}

void rod_state_free(rod_state *st)
{
    if (!st) return;
    if (st->as) {
        asm_integrator_free(st->as->dyn);
        asm_state_detach(st);
    }
    state_free_one(st);
}

int rod_frame_compute(const rod_model *m, const rod_state *st, int n, rod_frame *out)
{
    if (!m->as) return frame_compute_one(m, st, n, out);
    if (n < 2) {
        memset(out, 0, sizeof *out);
        return ROD_EINVAL;
    }
    return asm_frame(m, st, n, out);
}

int rod_frame_shape(const rod_model *m, rod_frame *out)
{
    return m->as ? asm_frame(m, NULL, 0, out) : frame_shape_one(m, out);
}

/* "ROD.NAME" -> that rod's state and its own input name; NULL (error set) when unknown */
static rod_state *input_rod(rod_state *st, const char *name, const char **own)
{
    const assembly *a = st->m->as;
    const int i = rod_model_input_index(st->m, name);
    if (i < 0) {
        snprintf(st->err, sizeof st->err, "no input named \"%s\" (a model of several rods names "
                 "them ROD.NAME)", name);
        return NULL;
    }
    *own = a->rod[a->input[i].rod]->inputs[a->input[i].index].name;
    return st->as->rod[a->input[i].rod];
}

/* a rod's message "OWN: ..." as "ROD.OWN: ...", the name the client used: two rods may both
 * have an input OWN */
static void full_name(char *err, size_t errlen, const char *own, const char *name)
{
    const size_t l = strlen(own);
    if (strncmp(err, own, l) || err[l] != ':') return;
    char tmp[sizeof ((rod_state *)0)->err];
    snprintf(tmp, sizeof tmp, "%s%s", name, err + l);
    snprintf(err, errlen, "%s", tmp);
}

int rod_state_set_input(rod_state *st, const char *name, double value)
{
    if (!st->as) return input_set_one(st, name, value);
    const char *own;
    rod_state *r = input_rod(st, name, &own);
    if (!r) return ROD_ENOTFOUND;
    asm_sync(st->m, st);
    const int rc = input_set_one(r, own, value);
    if (rc) {
        snprintf(st->err, sizeof st->err, "%s", r->err);
        full_name(st->err, sizeof st->err, own, name);
    }
    else st->as->need_reinit = 1;
    return rc;
}

int rod_state_set_input_profile(rod_state *st, const char *name, const char *json)
{
    if (!st->as) return input_set_profile_one(st, name, json);
    const char *own;
    rod_state *r = input_rod(st, name, &own);
    if (!r) return ROD_ENOTFOUND;
    asm_sync(st->m, st);
    const int rc = input_set_profile_one(r, own, json);
    if (rc) {
        snprintf(st->err, sizeof st->err, "%s", r->err);
        full_name(st->err, sizeof st->err, own, name);
    }
    else st->as->need_reinit = 1;
    return rc;
}


int rod_model_check_input_profile(const rod_model *m, const char *name, const char *json, char *err,
                                  size_t errlen)
{
    if (!m->as) return input_check_one(m, name, json, err, errlen);
    const int i = rod_model_input_index(m, name);
    if (i < 0) {
        snprintf(err, errlen, "no input named \"%s\" (a model of several rods names them ROD.NAME)", name);
        return ROD_ENOTFOUND;
    }
    const assembly *a = m->as;
    const rod_model *r = a->rod[a->input[i].rod];
    const char *own = r->inputs[a->input[i].index].name;
    const int rc = input_check_one(r, own, json, err, errlen);
    if (rc) full_name(err, errlen, own, name);
    return rc;
}

int rod_dynamics_start(const rod_model *m, rod_state *st)
{
    return m->as ? asm_start(m, st, 1) : dynamics_start_one(m, st);
}

int rod_dynamics_start_for_load(const rod_model *m, rod_state *st)
{
    return m->as ? asm_start(m, st, 0) : dynamics_start_for_load_one(m, st);
}

int rod_dynamics_advance(const rod_model *m, rod_state *st, double t_end)
{
    return m->as ? asm_advance(m, st, t_end) : dynamics_advance_one(m, st, t_end);
}

int rod_dynamics_get_stats(const rod_state *st, rod_dynamics_stats *out)
{
    return st->as ? asm_stats(st, out) : dynamics_stats_one(st, out);
}

int rod_statics_solve(const rod_model *m, rod_state *st, double t, rod_statics_result *res)
{
    return m->as ? asm_statics(m, st, t, res) : statics_solve_one(m, st, t, res);
}

static int one_rod_only(const rod_model *m, rod_state *st)
{
    if (!m->as) return 0;
    snprintf(st->err, sizeof st->err, "the tangent of a model of several rods is not supported yet");
    return ROD_EINVAL;
}

int rod_statics_nunknowns(const rod_model *m)
{
    return m->as ? 0 : m->n + constraints_nmult(m);
}

int rod_statics_unknowns(const rod_model *m, const rod_state *st, double *u)
{
    return m->as ? ROD_EINVAL : statics_unknowns_one(m, st, u);
}

int rod_statics_residual(const rod_model *m, rod_state *st, double t, const double *u, double *R)
{
    return one_rod_only(m, st) ? ROD_EINVAL : statics_residual_one(m, st, t, u, R);
}

int rod_statics_tangent(const rod_model *m, rod_state *st, double t, const double *u, int nrhs, double *B)
{
    return one_rod_only(m, st) ? ROD_EINVAL : statics_tangent_one(m, st, t, u, nrhs, B);
}

char *rod_state_save(const rod_model *m, rod_state *st)
{
    return m->as ? asm_save(m, st) : checkpoint_save_one(m, st);
}

int rod_state_load(const rod_model *m, rod_state *st, const char *json, size_t len)
{
    return m->as ? asm_load(m, st, json, len) : checkpoint_load_one(m, st, json, len);
}

int rod_state_generalized_forces(const rod_model *m, rod_state *st, double *out, double *total)
{
    if (!m->as) return forces_one(m, st, out, total);
    return asm_forces(m, st, out, total);
}

/* several rods: the largest of the rods' own indicators */
double rod_error_indicator(const rod_model *m, const double *q)
{
    if (!m->as) return indicator_one(m, q);
    double e = 0;
    for (int i = 0; i < m->as->nreal; i++) {
        const double ei = indicator_one(m->as->rod[i], q + m->as->off[i]);
        if (ei > e) e = ei;
    }
    return e;
}

int rod_frame_penetration(const rod_model *m, const rod_state *st, const rod_frame *f, rod_penetration *out)
{
    if (!m->as) return penetration_one(m, st, f, out);
    int deep = 0;
    double worst = -1;
    for (int i = 0; i < f->nrods && i < m->as->nreal; i++) {
        rod_penetration p;
        deep |= penetration_one(m->as->rod[i], st->as->rod[i], &f->rods[i], &p);
        if (p.obstacle >= 0 && p.fraction / p.limit > worst) {
            worst = p.fraction / p.limit;
            *out = p;
        }
    }
    if (worst < 0) {
        memset(out, 0, sizeof *out);
        out->obstacle = -1;
    }
    return deep;
}
