/* A session as JSON: its description for clients and its checkpoint for the state directory. */
#include "session_internal.h"
#include "rod_json.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

cJSON *session_describe(session *s)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    pthread_mutex_lock(&s->mu);
    cJSON_AddStringToObject(o, "id", s->id);
    cJSON_AddStringToObject(o, "name", s->name);
    cJSON_AddStringToObject(o, "state", session_status_name(s->status));
    if (s->status == SESSION_FAILED)
        cJSON_AddStringToObject(o, "failure", s->failure);
    else
        cJSON_AddNullToObject(o, "failure");
    cJSON_AddNumberToObject(o, "t", s->t);
    cJSON_AddNumberToObject(o, "seq", (double)s->seq);
    if (s->pace > 0)
        cJSON_AddNumberToObject(o, "pace", s->pace);
    else
        cJSON_AddStringToObject(o, "pace", "max");
    if (s->until > 0)
        cJSON_AddNumberToObject(o, "until", s->until);
    else
        cJSON_AddNullToObject(o, "until");
    if (s->repeat > 0) {
        cJSON *r = cJSON_AddObjectToObject(o, "repeat");
        if (r) cJSON_AddNumberToObject(r, "every", s->repeat);
    } else {
        cJSON_AddNullToObject(o, "repeat");
    }
    cJSON_AddNumberToObject(o, "points", s->points);
    cJSON_AddNumberToObject(o, "error_indicator", s->error_indicator);
    if (s->rec)
        cJSON_AddItemToObject(o, "recording", recording_describe(s->rec));
    else
        cJSON_AddNullToObject(o, "recording");
    char when[64];
    time_t tt = (time_t)s->created_wall;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cJSON_AddStringToObject(o, "created", when);
    cJSON *st = cJSON_AddObjectToObject(o, "stats");
    if (st) {
        cJSON_AddNumberToObject(st, "steps", (double)s->stats.steps);
        cJSON_AddNumberToObject(st, "rhs_evals", (double)(s->stats.rhs_evals + s->stats.rhs_evals_jacobian));
        cJSON_AddNumberToObject(st, "jacobians", (double)s->stats.jac_evals);
        cJSON_AddNumberToObject(st, "last_step", s->stats.last_step);
        cJSON_AddNumberToObject(st, "reduced_steps", (double)s->stats.reduced_steps);
        cJSON_AddNumberToObject(st, "real_time_factor", s->rtf);
        cJSON_AddNumberToObject(st, "solver_real_time_factor", s->solver_rtf);
        cJSON_AddBoolToObject(st, "behind_pace", s->behind_pace);
    }
    pthread_mutex_unlock(&s->mu);
    const rod_model *m = s->model;
    cJSON *mo = cJSON_AddObjectToObject(o, "model");
    if (mo) {
        cJSON_AddStringToObject(mo, "model", rod_model_is_extended(m) ? "extended" : "classic");
        cJSON_AddNumberToObject(mo, "length", rod_model_length(m));
        cJSON_AddNumberToObject(mo, "coordinates", rod_model_ndof(m));
        cJSON_AddNumberToObject(mo, "q_xi", rod_model_ndof_xi(m));
        cJSON_AddNumberToObject(mo, "q_rho", rod_model_ndof_rho(m));
        cJSON_AddNumberToObject(mo, "quadrature_points", rod_model_quadrature_points(m));
        cJSON_AddNumberToObject(mo, "base_radius", rod_model_base_radius(m));
        cJSON_AddBoolToObject(mo, "attachments", rod_model_has_attachments(m));
        double g[3];
        rod_model_gravity(m, g);
        cJSON *ga = cJSON_AddArrayToObject(mo, "gravity");
        for (int i = 0; ga && i < 3; i++) cJSON_AddItemToArray(ga, cJSON_CreateNumber(g[i]));
        cJSON *obs = rod_model_obstacles_cjson(m);
        if (obs) cJSON_AddItemToObject(mo, "obstacles", obs);
    }
    /* the spec's warnings (valid but implausible): the model is immutable, so no lock */
    cJSON *wa = cJSON_AddArrayToObject(o, "warnings");
    rod_issues warn;
    rod_issues_init(&warn);
    rod_model_warnings(m, &warn);
    for (int i = 0; wa && i < warn.count; i++) {
        cJSON *e = cJSON_CreateObject();
        if (!e) break;
        cJSON_AddStringToObject(e, "path", warn.items[i].path);
        cJSON_AddStringToObject(e, "message", warn.items[i].message);
        cJSON_AddItemToArray(wa, e);
    }
    rod_issues_free(&warn);
    pthread_mutex_lock(&s->mu);
    if (wa && s->penetration[0]) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "path", s->penetration_path);
        cJSON_AddStringToObject(e, "message", s->penetration);
        cJSON_AddItemToArray(wa, e);
    }
    pthread_mutex_unlock(&s->mu);
    cJSON *in = cJSON_AddArrayToObject(o, "inputs");
    pthread_mutex_lock(&s->mu);
    for (int i = 0; in && i < rod_model_ninputs(m); i++) {
        cJSON *e = cJSON_CreateObject();
        if (!e) break;
        cJSON_AddStringToObject(e, "name", rod_model_input_name(m, i));
        const int target = strcmp(rod_model_input_type(m, i), "target") == 0;
        cJSON_AddStringToObject(e, "kind", rod_model_input_is_actuator(m, i) ? "actuator" : target ? "target" : "load");
        cJSON_AddStringToObject(e, "type", rod_model_input_type(m, i));
        cJSON_AddNumberToObject(e, "value", s->input_value[i]);
        cJSON_AddBoolToObject(e, "profile", s->input_profile[i]);
        const char *name = rod_model_input_name(m, i);
        const size_t len = strlen(name);
        cJSON_AddStringToObject(e, "unit", target ? (len > 6 && strcmp(name + len - 6, ".angle") == 0 ? "rad" : "m")
                                : !rod_model_input_is_actuator(m, i) ? ""
                                : strcmp(rod_model_input_type(m, i), "cable") == 0 ? "N"
                                : strcmp(rod_model_input_type(m, i), "muscle_torque") == 0 ? "N m" : "Pa");
        cJSON_AddItemToArray(in, e);
    }
    pthread_mutex_unlock(&s->mu);
    return o;
}

char *session_checkpoint(session *s, double wait, int *busy, uint64_t *generation, char *err, size_t errlen)
{
    *busy = 0;
    snprintf(err, errlen, "out of memory");
    const struct timespec until = realtime_after(wait);
    if (pthread_mutex_timedlock(&s->state_mu, &until) != 0) {
        *busy = 1;
        return NULL;
    }
    char *state = rod_state_save(s->model, s->state);
    if (!state) snprintf(err, errlen, "%s", rod_state_error(s->state));
    cJSON *o = state ? cJSON_CreateObject() : NULL;
    if (!o) {
        pthread_mutex_unlock(&s->state_mu);
        free(state);
        return NULL;
    }
    /* the options and status as of the same instant as the state, and the generation that
     * orders this snapshot among the session's others */
    pthread_mutex_lock(&s->mu);
    if (generation) *generation = ++s->generation;
    cJSON_AddNumberToObject(o, "version", 1);
    cJSON_AddStringToObject(o, "id", s->id);
    cJSON_AddStringToObject(o, "name", s->name);
    cJSON_AddStringToObject(o, "status", session_status_name(s->status));
    cJSON_AddStringToObject(o, "failure", s->failure);
    cJSON_AddNumberToObject(o, "pace", s->pace);
    cJSON_AddNumberToObject(o, "until", s->until);
    cJSON_AddNumberToObject(o, "repeat", s->repeat);
    cJSON_AddNumberToObject(o, "points", s->points);
    cJSON_AddNumberToObject(o, "created", s->created_wall);
    pthread_mutex_unlock(&s->mu);
    pthread_mutex_unlock(&s->state_mu);
    if (s->rec) {
        recording_opts ro;
        recording_get_opts(s->rec, &ro);
        cJSON_AddItemToObject(o, "recording", recording_opts_json(&ro));
    }
    cJSON_AddItemToObject(o, "spec", cJSON_CreateRaw(s->spec_json));
    cJSON_AddItemToObject(o, "state", cJSON_CreateRaw(state));
    free(state);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}
