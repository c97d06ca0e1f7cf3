/* Inputs set by commands, to a value or to a profile: the profile is parsed exactly as the
 * spec's actuators and loads are (spec_parse_input_profile), and its expressions are compiled
 * into the state's own evaluator, next to the spec's. The change ramps in from the
 * integrator's step boundary where it has one (input_blend.c). */
#include "one_rod.h"
#include "integrator.h"
#include "spec.h"
#include "state.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void free_exprs(char **e, int n)
{
    for (int k = 0; k < n; k++) free(e[k]);
    free(e);
}

/* Parses json for input i; *out's expressions index *exprs from 0. */
static int parse_for(const rod_model *m, int i, const char *json, profile *out, char ***exprs, int *n, char *err,
                     size_t errlen)
{
    const char *name = m->inputs[i].name;
    cJSON *v = cJSON_Parse(json);
    if (!v) {
        snprintf(err, errlen, "%s: not a profile (a number, an expression string, or {\"wave\": ...})", name);
        return ROD_EINVAL;
    }
    rod_issues iss;
    rod_issues_init(&iss);
    /* actuators vary along the rod and cannot pull negative; a load's scale or a constraint's
     * target is one number at a time, of either sign */
    const int actuator = m->inputs[i].kind == INPUT_ACTUATOR;
    int rc = spec_parse_input_profile(v, actuator, actuator, out, exprs, n, &iss) == 0 ? ROD_OK : ROD_EINVAL;
    if (rc != ROD_OK) {
        const char *path = iss.count ? iss.items[0].path : "/";
        snprintf(err, errlen, "%s%s: %s", name, strcmp(path, "/") == 0 ? "" : path,
                 iss.count ? iss.items[0].message : "out of memory");
    }
    rod_issues_free(&iss);
    cJSON_Delete(v);
    return rc;
}

static void input_changed(rod_state *st, int i, const profile *before)
{
    double t_n;
    state_input_changed(st, i, before, dyn_step_boundary(st, &t_n) ? &t_n : NULL);
}

/* the rod's own input by its own name: rod_model_input_index would look in the assembly's
 * ROD.NAME list when m is rod 0 of several, whose model is the assembly's */
static int own_input_index(const rod_model *m, const char *name)
{
    for (int i = 0; i < m->ninputs; i++)
        if (strcmp(m->inputs[i].name, name) == 0) return i;
    return -1;
}

int input_check_one(const rod_model *m, const char *name, const char *json, char *err, size_t errlen)
{
    const int i = own_input_index(m, name);
    if (i < 0) {
        snprintf(err, errlen, "no actuator or load named \"%s\"", name);
        return ROD_ENOTFOUND;
    }
    if (!json) return ROD_OK;
    profile p;
    char **e = NULL;
    int n = 0;
    const int rc = parse_for(m, i, json, &p, &e, &n, err, errlen);
    if (rc == ROD_OK) free_exprs(e, n);
    return rc;
}

int input_set_profile_one(rod_state *st, const char *name, const char *json)
{
    const rod_model *m = st->m;
    const int i = own_input_index(m, name);
    if (i < 0) {
        state_set_error(st, "no actuator or load named \"%s\"", name);
        return ROD_ENOTFOUND;
    }
    char *src = json ? strdup(json) : NULL;
    if (json && !src) {
        state_set_error(st, "out of memory");
        return ROD_ENOMEM;
    }
    profile p = *model_input_profile(m, i);
    if (json) {
        char err[512];
        char **e = NULL;
        int n = 0;
        if (parse_for(m, i, json, &p, &e, &n, err, sizeof err) != ROD_OK) {
            state_set_error(st, "%s", err);
            free(src);
            return ROD_EINVAL;
        }
        int base = -1, ok = 1;
        for (int k = 0; k < n && ok; k++) {
            const int idx = profile_eval_add(st->ev, e[k]);
            if (k == 0) base = idx;
            ok = idx >= 0;
        }
        free_exprs(e, n);
        if (!ok) {
            state_set_error(st, "out of memory");
            free(src);
            return ROD_ENOMEM;
        }
        profile_scalar *sc[3] = {&p.v, &p.alpha, &p.mu};
        for (int k = 0; k < 3; k++)
            if (sc[k]->expr >= 0) sc[k]->expr += base;
        if (p.kind == PROFILE_CONST) { /* a number: kept as a constant, as rod_state_set_input does */
            free(src);
            src = NULL;
        }
    }
    const profile before = st->input[i];
    st->input[i] = p;
    free(st->input_src[i]);
    st->input_src[i] = src;
    input_changed(st, i, &before);
    return ROD_OK;
}

int input_set_one(rod_state *st, const char *name, double value)
{
    const rod_model *m = st->m;
    for (int i = 0; i < m->ninputs; i++) {
        if (strcmp(m->inputs[i].name, name) != 0) continue;
        if (!isfinite(value)) {
            state_set_error(st, "%s: value must be finite", name);
            return ROD_EINVAL;
        }
        if (m->inputs[i].kind == INPUT_ACTUATOR && value < 0) {
            state_set_error(st, "%s: value must be >= 0 (%s)", name,
                            m->spec->acts[m->inputs[i].index].type == ACT_CABLE
                                ? "a cable pulls, it cannot push"
                                : "a transverse muscle squeezes, it cannot inflate");
            return ROD_EINVAL;
        }
        profile p = {0};
        p.kind = PROFILE_CONST;
        p.v.expr = -1;
        p.v.value = value;
        const profile before = st->input[i];
        st->input[i] = p;
        free(st->input_src[i]);
        st->input_src[i] = NULL;
        input_changed(st, i, &before);
        return ROD_OK;
    }
    state_set_error(st, "no actuator or load named \"%s\"", name);
    return ROD_ENOTFOUND;
}
