/* optim_remote.h: one evaluation over REST. Dynamics: a session created (paused at t = 0),
 * its start read back as a checkpoint (com0), :advance to --until (again while the daemon's
 * RODD_ADVANCE_LIMIT cuts it short), the end read back as a checkpoint, the session deleted.
 * With --from > 0 the centroid there comes from a second session advanced to --from only: a
 * checkpoint read mid-run would restart the daemon's integrator, and the run would leave the
 * in-process one's trajectory. effort integrates the actuators' values over the same 50 steps
 * as in-process; they are the spec's profiles of t and X (an optimize run sends no commands),
 * so the local state, put at each t_k, gives them. */
#include "optim_remote.h"

#include "optim_http.h"
#include "rod.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REQUEST_TIMEOUT_S 300.0 /* one :advance is bounded by the daemon's RODD_ADVANCE_LIMIT (10 s) */
#define MAX_ADVANCES 100000     /* :advance calls that may each move a session on without reaching --until */

/* A request whose answer must have status want: 0 with the parsed body in *out (may be NULL
 * for a body that is not JSON when out is NULL), or -1 with "URL: what went wrong". */
static int call(optim_http_conn *conn, const char *token, const char *method, const char *path, const char *body, int want,
                cJSON **out, char *msg, size_t len)
{
    optim_http_reply r;
    char err[400];
    if (out) *out = NULL;
    if (optim_http_conn_request(conn, method, path, body, token, REQUEST_TIMEOUT_S, &r, err, sizeof err) != 0) {
        snprintf(msg, len, "daemon %s", err);
        return -1;
    }
    cJSON *j = cJSON_ParseWithLength(r.body, r.len);
    if (r.status != want) {
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "detail");
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "title");
        snprintf(msg, len, "daemon %s: %s %s answered %d: %s", optim_http_conn_url(conn), method, path, r.status,
                 cJSON_IsString(d) ? d->valuestring : cJSON_IsString(t) ? t->valuestring : "(no detail)");
        cJSON_Delete(j);
        optim_http_free(&r);
        return -1;
    }
    optim_http_free(&r);
    if (out) {
        if (!j) {
            snprintf(msg, len, "daemon %s: %s %s: the answer is not JSON", optim_http_conn_url(conn), method, path);
            return -1;
        }
        *out = j;
    } else {
        cJSON_Delete(j);
    }
    return 0;
}

int optim_remote_ready(const char *url, const char *token, char *err, size_t len)
{
    optim_http_conn *conn = optim_http_conn_new(url, err, len);
    int rc = conn ? call(conn, token, "GET", "/readyz", NULL, 200, NULL, err, len) : -1;
    optim_http_conn_free(conn);
    return rc;
}

/* {"spec": SPEC, ...rest}: the spec as the model compiled it, verbatim. */
static char *with_spec(const char *spec, const char *rest)
{
    size_t n = strlen(spec) + strlen(rest) + 16;
    char *b = malloc(n);
    if (b) snprintf(b, n, "{\"spec\":%s%s}", spec, rest);
    return b;
}

int optim_remote_open(const char *url, const char *token, const char *spec_json, const char *name, char *id,
                      size_t idlen, char *err, size_t errlen)
{
    optim_http_conn *conn = optim_http_conn_new(url, err, errlen);
    if (!conn) return -1;
    cJSON *nm = cJSON_CreateString(name);
    char *nmt = nm ? cJSON_PrintUnformatted(nm) : NULL, rest[600];
    snprintf(rest, sizeof rest, ",\"name\":%s", nmt ? nmt : "\"\"");
    free(nmt);
    cJSON_Delete(nm);
    char *body = with_spec(spec_json, rest);
    cJSON *s = NULL;
    int rc = body ? call(conn, token, "POST", "/v1/sessions", body, 201, &s, err, errlen) : -1;
    free(body);
    const cJSON *i = cJSON_GetObjectItemCaseSensitive(s, "id");
    if (rc == 0 && !cJSON_IsString(i)) {
        snprintf(err, errlen, "daemon %s: the new session has no id", optim_http_conn_url(conn));
        rc = -1;
    }
    if (rc == 0) snprintf(id, idlen, "%s", i->valuestring);
    cJSON_Delete(s);
    optim_http_conn_free(conn);
    return rc;
}

/* A new paused session of the spec, without recording or frames to speak of. */
static int create(optim_http_conn *conn, const char *token, const char *spec, char *id, size_t idlen, char *msg, size_t len)
{
    char *body = with_spec(spec, ",\"name\":\"rodd optimize\",\"points\":2,\"recording\":false");
    cJSON *s = NULL;
    int rc = body ? call(conn, token, "POST", "/v1/sessions", body, 201, &s, msg, len) : -1;
    free(body);
    const cJSON *i = cJSON_GetObjectItemCaseSensitive(s, "id");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(s, "state");
    const cJSON *fl = cJSON_GetObjectItemCaseSensitive(s, "failure");
    if (rc == 0 && !cJSON_IsString(i)) {
        snprintf(msg, len, "daemon %s: the new session has no id", optim_http_conn_url(conn));
        rc = -1;
    }
    if (rc == 0) snprintf(id, idlen, "%s", i->valuestring);
    if (rc == 0 && cJSON_IsString(st) && strcmp(st->valuestring, "failed") == 0) {
        snprintf(msg, len, "%s", cJSON_IsString(fl) ? fl->valuestring : "the dynamics cannot start");
        rc = 1; /* a session to delete, and a failed run */
    }
    cJSON_Delete(s);
    return rc;
}

static void delete_session(optim_http_conn *conn, const char *token, const char *id)
{
    char path[200], ignored[300];
    snprintf(path, sizeof path, "/v1/sessions/%s", id);
    call(conn, token, "DELETE", path, NULL, 204, NULL, ignored, sizeof ignored);
}

/* :advance to t_end, as many times as the daemon's wall limit takes: 0, 1 when the solver
 * failed (msg says why), -1 when the daemon did not answer as it should. */
static int advance(optim_http_conn *conn, const char *token, const char *id, double t_end, char *msg, size_t len)
{
    char path[200], body[64];
    snprintf(path, sizeof path, "/v1/sessions/%s:advance", id);
    snprintf(body, sizeof body, "{\"until\":%.17g}", t_end);
    double t_before = -1;
    for (int i = 0; i < MAX_ADVANCES; i++) {
        cJSON *s = NULL;
        if (call(conn, token, "POST", path, body, 200, &s, msg, len) != 0) return -1;
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(s, "t");
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(s, "state");
        const cJSON *fl = cJSON_GetObjectItemCaseSensitive(s, "failure");
        int rc = 2;
        if (cJSON_IsString(st) && strcmp(st->valuestring, "failed") == 0) {
            snprintf(msg, len, "%s", cJSON_IsString(fl) && fl->valuestring[0] ? fl->valuestring : "the solver failed");
            rc = 1;
        } else if (!cJSON_IsNumber(t)) {
            snprintf(msg, len, "daemon %s: :advance answered no time", optim_http_conn_url(conn));
            rc = -1;
        } else if (t->valuedouble >= t_end) {
            rc = 0;
        } else if (!(t->valuedouble > t_before)) { /* the daemon's answer says it did not move */
            snprintf(msg, len, "daemon %s: the session stays at t = %.17g short of %.17g", optim_http_conn_url(conn), t->valuedouble, t_end);
            rc = -1;
        } else {
            t_before = t->valuedouble;
        }
        cJSON_Delete(s);
        if (rc != 2) return rc;
    }
    snprintf(msg, len, "daemon %s: the session did not reach t = %g", optim_http_conn_url(conn), t_end);
    return -1;
}

/* The session's state (GET .../checkpoint, its "state") into the local st. */
static int read_state(optim_http_conn *conn, const char *token, const char *id, const rod_model *m, rod_state *st,
                      char *msg, size_t len)
{
    char path[200];
    snprintf(path, sizeof path, "/v1/sessions/%s/checkpoint", id);
    cJSON *c = NULL;
    if (call(conn, token, "GET", path, NULL, 200, &c, msg, len) != 0) return -1;
    char *text = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(c, "state"));
    int rc = text && rod_state_load(m, st, text, strlen(text)) == ROD_OK ? 0 : -1;
    if (rc != 0) snprintf(msg, len, "daemon %s: its checkpoint does not load: %s", optim_http_conn_url(conn), rod_state_error(st));
    free(text);
    cJSON_Delete(c);
    return rc;
}

/* effort over [0, until] on the 50 steps, with st put at each t_k (its q unchanged). */
static int effort(const optim_problem *o, const rod_model *m, rod_state *st, double *out)
{
    char *now = rod_state_save(m, st);
    cJSON *c = now ? cJSON_Parse(now) : NULL;
    free(now);
    if (!c) return -1;
    double sum = 0, e_prev = 0, t_prev = 0;
    int rc = 0;
    for (int k = 0; k <= OPTIM_EFFORT_STEPS && rc == 0; k++) {
        double t = o->until * k / OPTIM_EFFORT_STEPS;
        cJSON_ReplaceItemInObjectCaseSensitive(c, "t", cJSON_CreateNumber(t));
        char *text = cJSON_PrintUnformatted(c);
        rc = text && rod_state_load(m, st, text, strlen(text)) == ROD_OK ? 0 : -1;
        free(text);
        if (rc != 0) break;
        double e = optim_problem_effort_rate(m, st);
        if (k > 0) sum += 0.5 * (e + e_prev) * (t - t_prev);
        e_prev = e;
        t_prev = t;
    }
    cJSON_Delete(c);
    *out = sum;
    return rc;
}

static int run_statics(const optim_problem *o, optim_http_conn *conn, const char *token, const rod_model *m, rod_state *st,
                       double q[Q_MAX], char *msg, size_t len)
{
    char *body = with_spec(rod_model_spec_json(m), ",\"points\":2");
    cJSON *r = NULL;
    int rc = body ? call(conn, token, "POST", "/v1/solve", body, 200, &r, msg, len) : -1;
    free(body);
    if (rc != 0) return OPTIM_FAILED;
    const cJSON *conv = cJSON_GetObjectItemCaseSensitive(r, "converged");
    const cJSON *qa = cJSON_GetObjectItemCaseSensitive(r, "q");
    const cJSON *mg = cJSON_GetObjectItemCaseSensitive(r, "message");
    int n = rod_model_ndof(m), status = OPTIM_OK;
    if (!cJSON_IsTrue(conv)) {
        snprintf(msg, len, "%s", cJSON_IsString(mg) ? mg->valuestring : "statics did not converge");
        status = OPTIM_NO_CONVERGENCE;
    } else if (!cJSON_IsArray(qa) || cJSON_GetArraySize(qa) != n) {
        snprintf(msg, len, "daemon %s: /v1/solve answered no q of %d numbers", optim_http_conn_url(conn), n);
        status = OPTIM_FAILED;
    } else {
        double *qv = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
        int i = 0;
        for (const cJSON *e = qa->child; qv && e; e = e->next) qv[i++] = e->valuedouble;
        if (!qv || rod_state_set_q(st, qv, n) != ROD_OK) status = OPTIM_FAILED;
        free(qv);
        q[Q_EFFORT] = optim_problem_effort_rate(m, st);
        static const double none[3 * OPTIM_MAX_RODS];
        if (status == OPTIM_OK && optim_problem_final(o, m, st, none, q) != 0) status = OPTIM_FAILED;
        if (status != OPTIM_OK) snprintf(msg, len, "%s", rod_state_error(st));
    }
    cJSON_Delete(r);
    return status;
}

/* A session advanced to t (t 0: as created), its state then into st: an OPTIM_* status. The
 * first :advance stops where the in-process run's first does (--from, or the first of the 50
 * steps): CVODE guesses its first step from the first output time, and the steps after it do
 * not depend on where the output times fall (it runs without a stop time). */
static int session_to(const optim_problem *o, optim_http_conn *conn, const char *token, const rod_model *m, rod_state *st,
                      double t, char *msg, size_t len)
{
    char id[128];
    int rc = create(conn, token, rod_model_spec_json(m), id, sizeof id, msg, len);
    if (rc < 0) return OPTIM_FAILED;
    const double t1 = o->until / OPTIM_EFFORT_STEPS, first = o->from > 0 && o->from <= t1 ? o->from : t1;
    if (rc == 0 && t > 0) rc = advance(conn, token, id, fmin(first, t), msg, len);
    if (rc == 0 && t > first) rc = advance(conn, token, id, t, msg, len);
    if (rc == 0) rc = read_state(conn, token, id, m, st, msg, len);
    delete_session(conn, token, id);
    return rc == 0 ? OPTIM_OK : OPTIM_FAILED;
}

static int run_dynamics(const optim_problem *o, optim_http_conn *conn, const char *token, const rod_model *m,
                        rod_state *st, double q[Q_MAX], char *msg, size_t len)
{
    double com0[3 * OPTIM_MAX_RODS] = {0};
    int status = session_to(o, conn, token, m, st, o->from, msg, len);
    if (status == OPTIM_OK && optim_problem_centroid_now(m, st, com0) != 0) status = OPTIM_FAILED;
    if (status == OPTIM_OK) status = session_to(o, conn, token, m, st, o->until, msg, len);
    if (status != OPTIM_OK) return status;
    if (optim_problem_final(o, m, st, com0, q) != 0 || effort(o, m, st, &q[Q_EFFORT]) != 0) {
        snprintf(msg, len, "%s", rod_state_error(st));
        return OPTIM_FAILED;
    }
    return OPTIM_OK;
}

int optim_remote_run(const optim_problem *o, optim_http_conn *conn, const char *token, const double *x,
                     double q[Q_MAX], char *msg, size_t len)
{
    for (int i = 0; i < Q_MAX; i++) q[i] = 0;
    rod_issues iss;
    rod_issues_init(&iss);
    rod_model *m = optim_problem_load(o, x, &iss);
    if (!m) { /* as in-process: the spec is checked here, not sent */
        rod_issues_format(&iss, msg, len);
        rod_issues_free(&iss);
        return OPTIM_BAD_SPEC;
    }
    rod_issues_free(&iss);
    rod_state *st = rod_state_create(m, msg, len);
    int status = OPTIM_FAILED;
    if (st)
        status = o->until > 0 ? run_dynamics(o, conn, token, m, st, q, msg, len)
                              : run_statics(o, conn, token, m, st, q, msg, len);
    rod_state_free(st);
    rod_model_free(m);
    return status;
}
