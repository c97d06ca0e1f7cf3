/* A checkpoint of several rods (asm.h): the assembly's t, q and q_dot, and each rod's own
 * checkpoint (its coordinates and the inputs commands set) under "rods" by name. */
#include "asm.h"

#include "checkpoint_arrays.h"
#include "one_rod.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *asm_save(const rod_model *m, rod_state *st)
{
    const assembly *a = m->as;
    asm_state *as = st->as;
    asm_sync(m, st);
    cJSON *o = cJSON_CreateObject(), *rods = o ? cJSON_AddObjectToObject(o, "rods") : NULL;
    char tb[40];
    snprintf(tb, sizeof tb, "%.17g", as->t);
    int bad = !rods;
    if (!bad) {
        cJSON_AddNumberToObject(o, "version", 1);
        cJSON_AddItemToObject(o, "t", cJSON_CreateRaw(tb));
        cJSON_AddItemToObject(o, "q", checkpoint_exact_array(as->q, a->n));
        cJSON_AddItemToObject(o, "qdot", checkpoint_exact_array(as->qd, a->n));
    }
    for (int i = 0; i < a->nrods && !bad; i++) {
        char *one = checkpoint_save_one(a->rod[i], as->rod[i]);
        cJSON *c = one ? cJSON_Parse(one) : NULL;
        free(one);
        bad = !c || !cJSON_AddItemToObject(rods, a->name[i], c);
    }
    char *text = bad ? NULL : cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!text) state_set_error(st, "out of memory saving a checkpoint");
    st->need_reinit = as->need_reinit = 1;
    return text;
}

int asm_load(const rod_model *m, rod_state *st, const char *json, size_t len)
{
    const assembly *a = m->as;
    asm_state *as = st->as;
    cJSON *o = cJSON_ParseWithLength(json, len);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "t");
    const cJSON *rods = cJSON_GetObjectItemCaseSensitive(o, "rods");
    double *q = calloc((size_t)2 * a->n + 1, sizeof *q);
    int rc = ROD_EINVAL;
    if (!q) {
        rc = ROD_ENOMEM;
        state_set_error(st, "out of memory");
    } else if (!cJSON_IsNumber(t) || !(t->valuedouble >= 0) || !cJSON_IsObject(rods) ||
               checkpoint_read_array(cJSON_GetObjectItemCaseSensitive(o, "q"), a->n, q) ||
               checkpoint_read_array(cJSON_GetObjectItemCaseSensitive(o, "qdot"), a->n, q + a->n)) {
        state_set_error(st, "checkpoint: not a checkpoint of this model of %d rods (t, q, qdot of %d "
                        "values, rods)", a->nreal, a->n);
    } else {
        rc = ROD_OK;
        /* each rod's own part: its inputs (a rod's failure leaves the rods before it loaded) */
        for (int i = 0; i < a->nrods && rc == ROD_OK; i++) {
            const cJSON *c = cJSON_GetObjectItemCaseSensitive(rods, a->name[i]);
            char *text = c ? cJSON_PrintUnformatted(c) : NULL;
            rc = text ? checkpoint_load_one(a->rod[i], as->rod[i], text, strlen(text)) : ROD_EINVAL;
            if (rc != ROD_OK) {
                if (text) asm_error_from(st, i);
                else state_set_error(st, "checkpoint: no rod \"%s\"", a->name[i]);
            }
            free(text);
        }
        if (rc == ROD_OK) {
            as->t = t->valuedouble;
            memcpy(as->q, q, (size_t)a->n * sizeof *q);
            memcpy(as->qd, q + a->n, (size_t)a->n * sizeof *q);
            as->started = 1;
            as->need_reinit = 1;
            asm_sync(m, st);
        }
    }
    free(q);
    cJSON_Delete(o);
    return rc;
}
