/* A state as JSON and back: time, coordinates, velocities and the inputs a command has
 * overwritten. A checkpoint is a restart point of the integrator, in the state saved as in
 * the state restored, so both go on along the same trajectory. */
#include "checkpoint_arrays.h"
#include "one_rod.h"
#include "state.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECKPOINT_VERSION 1

/* cJSON prints a double with 15 digits when that reads back within an epsilon, which is not
 * bit for bit: checkpoints print 17 significant digits so a restored state is the same state. */
static cJSON *exact_number(double v)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", v);
    return cJSON_CreateRaw(buf);
}

/* Whether the constant p is the spec's profile orig, bit for bit as exact_number writes it:
 * field by field, since the structs' padding holds whatever their last writer left there. */
static int same_constant(const profile *p, const profile *orig)
{
    return orig->kind == PROFILE_CONST && orig->v.expr < 0 && p->v.expr < 0 &&
           memcmp(&p->v.value, &orig->v.value, sizeof p->v.value) == 0;
}

char *checkpoint_save_one(const rod_model *m, rod_state *st)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddNumberToObject(o, "version", CHECKPOINT_VERSION);
    cJSON_AddItemToObject(o, "t", exact_number(st->t));
    cJSON_AddItemToObject(o, "q", checkpoint_exact_array(st->q, m->n));
    cJSON_AddItemToObject(o, "qdot", checkpoint_exact_array(st->qd, m->n));
    cJSON *in = cJSON_AddObjectToObject(o, "inputs");
    for (int i = 0; in && i < m->ninputs; i++) {
        const profile *p = &st->input[i];
        const profile *orig = model_input_profile(m, i);
        /* only values a command set; the spec's own profiles come back with the spec */
        if (st->input_src[i])
            cJSON_AddItemToObject(in, m->inputs[i].name, cJSON_Parse(st->input_src[i]));
        else if (p->kind == PROFILE_CONST && !same_constant(p, orig))
            cJSON_AddItemToObject(in, m->inputs[i].name, exact_number(p->v.value));
    }
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (text) st->need_reinit = 1;
    return text;
}

int checkpoint_load_one(const rod_model *m, rod_state *st, const char *json, size_t len)
{
    cJSON *o = cJSON_ParseWithLength(json, len);
    if (!o) {
        state_set_error(st, "checkpoint: not JSON");
        return ROD_EINVAL;
    }
    int rc = ROD_EINVAL;
    double *q = calloc((size_t)2 * m->n + 1, sizeof *q);
    profile *in = calloc((size_t)m->ninputs + 1, sizeof *in);
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(o, "version");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "t");
    const cJSON *inputs = cJSON_GetObjectItemCaseSensitive(o, "inputs");
    if (!q || !in) {
        state_set_error(st, "out of memory");
        rc = ROD_ENOMEM;
        goto out;
    }
    if (!cJSON_IsNumber(ver) || ver->valueint != CHECKPOINT_VERSION) {
        state_set_error(st, "checkpoint: unknown version");
        goto out;
    }
    if (!cJSON_IsNumber(t) || !isfinite(t->valuedouble) || t->valuedouble < 0) {
        state_set_error(st, "checkpoint: t must be a finite time >= 0");
        goto out;
    }
    if (checkpoint_read_array(cJSON_GetObjectItemCaseSensitive(o, "q"), m->n, q) ||
        checkpoint_read_array(cJSON_GetObjectItemCaseSensitive(o, "qdot"), m->n, q + m->n)) {
        state_set_error(st, "checkpoint: q and qdot must be %d finite numbers each", m->n);
        goto out;
    }
    for (int i = 0; i < m->ninputs; i++) in[i] = *model_input_profile(m, i);
    if (inputs && !cJSON_IsObject(inputs)) {
        state_set_error(st, "checkpoint: inputs must be an object");
        goto out;
    }
    for (const cJSON *e = inputs ? inputs->child : NULL; e; e = e->next) {
        int found = -1;
        for (int i = 0; i < m->ninputs; i++)
            if (strcmp(m->inputs[i].name, e->string) == 0) found = i;
        if (found >= 0 && (cJSON_IsString(e) || cJSON_IsObject(e))) {
            /* a profile a command set: checked now, compiled once everything else is */
            char *text = cJSON_PrintUnformatted(e), err[512] = "out of memory";
            const int bad = !text || input_check_one(m, e->string, text, err, sizeof err) != ROD_OK;
            free(text);
            if (bad) {
                state_set_error(st, "checkpoint: input %s", err);
                goto out;
            }
            continue;
        }
        if (found < 0 || !cJSON_IsNumber(e) || !isfinite(e->valuedouble)) {
            state_set_error(st, "checkpoint: input \"%s\" is unknown or not a number or profile", e->string);
            goto out;
        }
        in[found] = (profile){.kind = PROFILE_CONST, .v = {-1, e->valuedouble}};
    }
    /* everything checked: apply it all */
    st->t = t->valuedouble;
    memcpy(st->q, q, (size_t)m->n * sizeof *q);
    memcpy(st->qd, q + m->n, (size_t)m->n * sizeof *q);
    memcpy(st->input, in, (size_t)m->ninputs * sizeof *in);
    for (int i = 0; i < m->ninputs; i++) {
        free(st->input_src[i]);
        st->input_src[i] = NULL;
    }
    rc = ROD_OK;
    for (const cJSON *e = inputs ? inputs->child : NULL; e && rc == ROD_OK; e = e->next)
        if (cJSON_IsString(e) || cJSON_IsObject(e)) {
            char *text = cJSON_PrintUnformatted(e);
            rc = text ? input_set_profile_one(st, e->string, text) : ROD_ENOMEM; /* checked: only memory fails */
            free(text);
        }
    /* the inputs as saved, from the saved time on: no ramp is in a checkpoint */
    state_input_chains_clear(st);
    st->need_reinit = 1;
out:
    free(q);
    free(in);
    cJSON_Delete(o);
    return rc;
}
