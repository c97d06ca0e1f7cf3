/* POST /v1/sessions/{id}:step — lockstep for controllers that own the clock: set inputs,
 * advance by `by` simulated seconds and answer the frame there, in one request. Not
 * checkpointed at once (the fsyncs would cost more than the step): the periodic checkpoint
 * keeps it, as it keeps a running session. */
#include "http.h"

#include "session.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INPUTS 128

static void add_issue(cJSON *errors, const char *path, const char *msg)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "path", path);
    cJSON_AddStringToObject(e, "message", msg);
    cJSON_AddItemToArray(errors, e);
}

/* Sets the inputs, advances by `by` and answers (the caller holds the session's turn; names
 * point into the request's body, which the caller frees). */
static void answer(http_request *rq, http_response *rs, session *s, int n, const char *const *names,
                   const double *values, char *const *profiles, double by)
{
    session_view v;
    session_snapshot(s, &v);
    if (v.status != SESSION_PAUSED && v.status != SESSION_CREATED) {
        char detail[160];
        snprintf(detail, sizeof detail, "the session is %s; :step needs it paused or created",
                 session_status_name(v.status));
        reply_problem(rs, PROBLEM_WRONG_STATE, NULL, detail, NULL);
        return;
    }
    char err[512];
    double t_applied = v.t;
    int rc = n ? session_set_inputs(s, n, names, values, (const char *const *)profiles, 2.0, &t_applied, err, sizeof err)
               : SESSION_OK;
    if (rc == SESSION_ENOTFOUND || rc == SESSION_EINVAL) {
        cJSON *e = cJSON_CreateArray();
        add_issue(e, "/inputs", err);
        reply_problem(rs, PROBLEM_INVALID_REQUEST, "the inputs are invalid", err, e);
        return;
    }
    if (rc != SESSION_OK) {
        reply_problem(rs, PROBLEM_WRONG_STATE, NULL, err, NULL);
        return;
    }
    double t_out = 0;
    /* by is counted from the session's time; the inputs may take over a step later (their ramp) */
    rc = session_advance(s, NAN, by, rq->d->cfg.advance_limit, &t_out, err, sizeof err);
    if (rc == SESSION_ESTATE) {
        reply_problem(rs, PROBLEM_WRONG_STATE, NULL, err, NULL);
        return;
    }
    if (rc == SESSION_ETIMEDOUT) {
        reply_problem(rs, PROBLEM_NOT_READY, "the session is in a long step", err, NULL);
        snprintf(rs->retry_after, sizeof rs->retry_after, "1");
        return;
    }
    session_snapshot(s, &v);
    published_frame *pf = session_latest(s);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "state", session_status_name(v.status));
    if (v.status == SESSION_FAILED) cJSON_AddStringToObject(o, "failure", v.failure);
    else cJSON_AddNullToObject(o, "failure");
    cJSON_AddNumberToObject(o, "t", t_out);
    cJSON_AddNumberToObject(o, "applied_at", t_applied);
    const char *json = pf ? frame_json(pf, NULL) : NULL;
    if (json) cJSON_AddItemToObject(o, "frame", cJSON_CreateRaw(json));
    else cJSON_AddNullToObject(o, "frame");
    frame_release(pf);
    reply_json(rs, 200, o);
}

void h_step(http_request *rq, http_response *rs, session *s)
{
    cJSON *b = req_json(rq, rs);
    if (!b) return;
    const char *names[MAX_INPUTS];
    double values[MAX_INPUTS];
    char *profiles[MAX_INPUTS] = {0}; /* JSON text where a value is a profile */
    int n = 0;
    double by = NAN;
    cJSON *errors = cJSON_CreateArray();
    for (const cJSON *it = b->child; it; it = it->next) {
        char p[200];
        snprintf(p, sizeof p, "/%s", it->string);
        if (strcmp(it->string, "by") == 0) {
            if (!cJSON_IsNumber(it) || !(it->valuedouble > 0) || !isfinite(it->valuedouble))
                add_issue(errors, p, "must be simulated seconds > 0");
            else
                by = it->valuedouble;
        } else if (strcmp(it->string, "inputs") == 0) {
            if (!cJSON_IsObject(it)) add_issue(errors, p, "must be an object of input name -> value");
            for (const cJSON *v = cJSON_IsObject(it) ? it->child : NULL; v; v = v->next) {
                char q[400];
                snprintf(q, sizeof q, "/inputs/%s", v->string);
                if (n == MAX_INPUTS) {
                    add_issue(errors, q, "at most 128 inputs at once");
                    break;
                }
                if (cJSON_IsNumber(v)) {
                    names[n] = v->string;
                    values[n++] = v->valuedouble;
                } else if (cJSON_IsString(v) || cJSON_IsObject(v) || cJSON_IsNull(v)) {
                    names[n] = v->string;
                    values[n] = 0;
                    profiles[n++] = cJSON_PrintUnformatted(v);
                } else {
                    add_issue(errors, q, "must be a number, a profile or null");
                }
            }
        } else {
            add_issue(errors, p, "unknown key (give by, and inputs)");
        }
    }
    if (isnan(by) && !cJSON_GetArraySize(errors)) add_issue(errors, "/by", "is required: simulated seconds > 0");
    if (cJSON_GetArraySize(errors)) {
        reply_problem(rs, PROBLEM_INVALID_REQUEST, "the step request is invalid", NULL, errors);
        for (int i = 0; i < n; i++) free(profiles[i]);
        cJSON_Delete(b);
        return;
    }
    cJSON_Delete(errors);
    /* the inputs and the advance are one turn: the next :step sets its inputs after this one's
     * advance, and advances from where this one left the session */
    session_turn turn;
    if (session_turn_take(s, &turn, rq->d->cfg.advance_limit) != SESSION_OK) {
        reply_problem(rs, PROBLEM_NOT_READY, "the session is in a long step",
                      "the :advance and :step requests before this one held the session too long", NULL);
        snprintf(rs->retry_after, sizeof rs->retry_after, "1");
        for (int i = 0; i < n; i++) free(profiles[i]);
        cJSON_Delete(b);
        return;
    }
    answer(rq, rs, s, n, names, values, profiles, by);
    session_turn_give(s, &turn);
    for (int i = 0; i < n; i++) free(profiles[i]);
    cJSON_Delete(b);
}
