/* /v1/sessions: create, list, get, delete, lifecycle, commands, frames, checkpoints. */
#include "http.h"
#include "peers.h"

#include "log.h"
#include "persist.h"
#include "service.h"
#include "stream.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Idempotency-Key around any write ---- */
static const char *idem_begin_or_reply(http_request *rq, http_response *rs)
{
    const char *key = req_header(rq, "Idempotency-Key");
    if (!key || !*key) return NULL;
    if (strlen(key) > 128) {
        reply_problem(rs, PROBLEM_INVALID_QUERY, "Idempotency-Key too long", "at most 128 characters", NULL);
        return "";
    }
    char fp[17];
    idem_fingerprint(rq->method, rq->path, rq->body ? rq->body : "", rq->len, fp);
    idem_response prev = {0};
    switch (idem_begin(rq->d->idem, key, fp, &prev)) {
    case IDEM_NEW:
        return key;
    case IDEM_REPLAY:
        rs->status = prev.status;
        rs->body = prev.body;
        rs->len = prev.body ? strlen(prev.body) : 0;
        /* rs->content_type must outlive prev, so it points at a literal */
        rs->content_type = !prev.content_type ? NULL
                           : strcmp(prev.content_type, "application/problem+json") == 0 ? "application/problem+json"
                                                                                         : "application/json";
        if (prev.location) snprintf(rs->location, sizeof rs->location, "%s", prev.location);
        free(prev.content_type);
        free(prev.location);
        return "";
    case IDEM_MISMATCH:
        reply_problem(rs, PROBLEM_IDEMPOTENCY_MISMATCH, "Idempotency-Key reused for a different request",
                      "a key names one request: method, path and body", NULL);
        return "";
    default:
        reply_problem(rs, PROBLEM_IDEMPOTENCY_IN_PROGRESS, "a request with this Idempotency-Key is in progress",
                      NULL, NULL);
        return "";
    }
}

static void idem_end(http_request *rq, http_response *rs, const char *key)
{
    if (!key || !*key) return;
    if (rs->status >= 500) {
        idem_abort(rq->d->idem, key); /* a server-side failure may be retried for real */
        return;
    }
    idem_response r = {rs->status, rs->body, (char *)rs->content_type, rs->location[0] ? rs->location : NULL};
    idem_finish(rq->d->idem, key, &r);
}

/* ---- helpers ---- */
static cJSON *describe_with_url(http_request *rq, session *s)
{
    cJSON *o = session_describe(s);
    char url[512];
    stream_url_for(rq, session_id(s), url, sizeof url);
    cJSON_AddStringToObject(o, "stream_url", url);
    char self[256];
    snprintf(self, sizeof self, "/v1/sessions/%s", session_id(s));
    cJSON_AddStringToObject(o, "self", self);
    return o;
}

static int parse_pace(const cJSON *v, double *pace)
{
    if (!v) return 0;
    if (cJSON_IsString(v) && strcmp(v->valuestring, "max") == 0) {
        *pace = 0;
        return 0;
    }
    if (cJSON_IsString(v) && strcmp(v->valuestring, "realtime") == 0) {
        *pace = 1;
        return 0;
    }
    if (cJSON_IsNumber(v) && v->valuedouble > 0 && isfinite(v->valuedouble) && v->valuedouble <= 1e6) {
        *pace = v->valuedouble;
        return 0;
    }
    return -1;
}

#define REPEAT_FORM "must be {\"every\": simulated seconds > 0} (start again from the beginning there) or null (never)"

/* A session's "repeat": {"every": s} or null (*every 0). -1 when it is neither. */
static int parse_repeat(const cJSON *v, double *every)
{
    if (cJSON_IsNull(v)) {
        *every = 0;
        return 0;
    }
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(v, "every");
    if (!cJSON_IsObject(v) || cJSON_GetArraySize(v) != 1 || !cJSON_IsNumber(e) || !(e->valuedouble > 0) ||
        e->valuedouble > 1e9)
        return -1;
    *every = e->valuedouble;
    return 0;
}

static cJSON *issue(const char *path, const char *msg)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "path", path);
    cJSON_AddStringToObject(e, "message", msg);
    return e;
}

/* POST /v1/sessions */
static void create(http_request *rq, http_response *rs)
{
    daemon_ctx *d = rq->d;
    cJSON *body = req_json(rq, rs);
    if (!body) return;
    cJSON *errors = cJSON_CreateArray();
    static const char *const allowed[] = {"spec", "example", "name", "start", "pace", "until", "repeat", "points",
                                          "checkpoint", "recording", NULL};
    for (cJSON *it = body->child; it; it = it->next) {
        int ok = 0;
        for (int i = 0; allowed[i]; i++) ok |= strcmp(allowed[i], it->string) == 0;
        if (!ok) {
            char p[160];
            snprintf(p, sizeof p, "/%s", it->string);
            cJSON_AddItemToArray(errors, issue(p, "unknown key"));
        }
    }
    create_request cr;
    create_request_init(&cr);
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(body, "spec");
    const cJSON *example = cJSON_GetObjectItemCaseSensitive(body, "example");
    const cJSON *ck = cJSON_GetObjectItemCaseSensitive(body, "checkpoint");
    const int sources = (spec != NULL) + (example != NULL) + (ck != NULL);
    if (sources != 1)
        cJSON_AddItemToArray(errors, issue("", "give exactly one of \"spec\", \"example\" or \"checkpoint\""));
    if (spec && !cJSON_IsObject(spec)) cJSON_AddItemToArray(errors, issue("/spec", "must be an object"));
    if (example && !cJSON_IsString(example)) cJSON_AddItemToArray(errors, issue("/example", "must be a string"));
    if (ck && !cJSON_IsObject(ck)) cJSON_AddItemToArray(errors, issue("/checkpoint", "must be an object"));
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(body, "name");
    if (name && (!cJSON_IsString(name) || strlen(name->valuestring) > 200))
        cJSON_AddItemToArray(errors, issue("/name", "must be a string of at most 200 characters"));
    else if (name)
        cr.name = name->valuestring;
    const cJSON *start = cJSON_GetObjectItemCaseSensitive(body, "start");
    if (start && !cJSON_IsBool(start)) cJSON_AddItemToArray(errors, issue("/start", "must be true or false"));
    cr.start = cJSON_IsTrue(start);
    cr.has_pace = cJSON_GetObjectItemCaseSensitive(body, "pace") != NULL;
    cr.has_until = cJSON_GetObjectItemCaseSensitive(body, "until") != NULL;
    cr.has_points = cJSON_GetObjectItemCaseSensitive(body, "points") != NULL;
    if (parse_pace(cJSON_GetObjectItemCaseSensitive(body, "pace"), &cr.pace) != 0)
        cJSON_AddItemToArray(errors, issue("/pace", "must be a factor of real time > 0, \"realtime\" or \"max\""));
    const cJSON *until = cJSON_GetObjectItemCaseSensitive(body, "until");
    if (until && !cJSON_IsNull(until)) {
        if (!cJSON_IsNumber(until) || !(until->valuedouble > 0) || !isfinite(until->valuedouble))
            cJSON_AddItemToArray(errors, issue("/until", "must be a simulated time > 0 (s)"));
        else
            cr.until = until->valuedouble;
    }
    const cJSON *repeat = cJSON_GetObjectItemCaseSensitive(body, "repeat");
    cr.has_repeat = repeat != NULL;
    if (repeat && parse_repeat(repeat, &cr.repeat) != 0) cJSON_AddItemToArray(errors, issue("/repeat", REPEAT_FORM));
    const cJSON *points = cJSON_GetObjectItemCaseSensitive(body, "points");
    if (points) {
        if (!cJSON_IsNumber(points) || points->valuedouble != floor(points->valuedouble) ||
            points->valuedouble < 2 || points->valuedouble > d->cfg.max_points) {
            char msg[96];
            snprintf(msg, sizeof msg, "must be an integer in [2, %d]", d->cfg.max_points);
            cJSON_AddItemToArray(errors, issue("/points", msg));
        } else {
            cr.points = (int)points->valuedouble;
        }
    }
    const cJSON *rec = cJSON_GetObjectItemCaseSensitive(body, "recording");
    if (rec) {
        cr.has_recording = 1;
        recording_opts_parse(rec, "/recording", cr.points, NULL, &cr.recording, errors);
    }
    if (cJSON_GetArraySize(errors)) {
        reply_problem(rs, PROBLEM_INVALID_REQUEST, NULL, NULL, errors);
        cJSON_Delete(body);
        return;
    }
    cJSON_Delete(errors);
    char *spec_text = NULL;
    if (spec) spec_text = cJSON_PrintUnformatted(spec);
    if (ck) {
        cr.checkpoint = ck;
    }
    if (example) {
        spec_text = read_example(d, example->valuestring);
        if (!spec_text) {
            cJSON *e = cJSON_CreateArray();
            cJSON_AddItemToArray(e, issue("/example", "no example of this name (GET /v1/examples lists them)"));
            reply_problem(rs, PROBLEM_INVALID_REQUEST, "no such example", example->valuestring, e);
            cJSON_Delete(body);
            return;
        }
    }
    cr.spec_text = spec_text;
    session *s = NULL;
    create_result res = daemon_create_session(d, &cr, &s);
    free(spec_text);
    cJSON_Delete(body);
    switch (res.status) {
    case 201: {
        snprintf(rs->location, sizeof rs->location, "/v1/sessions/%s", session_id(s));
        reply_json(rs, 201, describe_with_url(rq, s));
        session_view v;
        session_snapshot(s, &v);
        log_event(LOG_INFO, "session_created", "id=%s state=%s", session_id(s), session_status_name(v.status));
        session_release(s);
        break;
    }
    case 422:
        reply_problem(rs, PROBLEM_INVALID_SPEC, NULL, res.detail, res.errors);
        break;
    case 503:
        reply_problem(rs, PROBLEM_TOO_MANY_SESSIONS, "the session pool is full", res.detail, NULL);
        snprintf(rs->retry_after, sizeof rs->retry_after, "10");
        break;
    default:
        reply_problem(rs, PROBLEM_INTERNAL, "could not create the session", res.detail, res.errors); /* 500 */
    }
}

/* The ordinal of a session id "r<N>-...", -1 if it has none. */
static long id_ordinal(const cJSON *e)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
    if (!cJSON_IsString(id) || id->valuestring[0] != 'r') return -1;
    char *end;
    const long n = strtol(id->valuestring + 1, &end, 10);
    return end != id->valuestring + 1 && *end == '-' ? n : -1;
}

/* Every session of the group in ordinal order (this daemon's at its ordinal's place), so that
 * every pod pages the same list: with peers configured and no ?scope=local, the peers' own
 * lists around this daemon's. The peers that did not answer go into `unreachable`. */
static cJSON *group_sessions(http_request *rq, session **all, int n, cJSON *unreachable)
{
    cJSON *mine = cJSON_CreateArray(), *theirs = cJSON_CreateArray();
    for (int i = 0; mine && i < n; i++) cJSON_AddItemToArray(mine, describe_with_url(rq, all[i]));
    const char *scope = req_query(rq, "scope");
    const int self = atoi(rq->d->ordinal + 1);
    if (!theirs || !rq->d->cfg.peers[0] || (scope && strcmp(scope, "local") == 0)) {
        cJSON_Delete(theirs);
        return mine;
    }
    peers_sessions(rq->d->cfg.peers, self, req_header(rq, "Host"), req_header(rq, "Authorization"), 2.0, theirs,
                   unreachable);
    /* theirs is in ordinal order: those before this daemon's, then mine, then the rest */
    cJSON *out = cJSON_CreateArray();
    while (out && theirs->child && id_ordinal(theirs->child) < self)
        cJSON_AddItemToArray(out, cJSON_DetachItemViaPointer(theirs, theirs->child));
    while (out && mine && mine->child) cJSON_AddItemToArray(out, cJSON_DetachItemViaPointer(mine, mine->child));
    while (out && theirs->child) cJSON_AddItemToArray(out, cJSON_DetachItemViaPointer(theirs, theirs->child));
    cJSON_Delete(mine);
    cJSON_Delete(theirs);
    return out;
}

static void list(http_request *rq, http_response *rs)
{
    session **all;
    int n = pool_list(rq->d->pool, &all);
    long size = 50, offset = 0;
    const char *ps = req_query(rq, "page_size"), *pt = req_query(rq, "page_token");
    char *end;
    if (ps) {
        size = strtol(ps, &end, 10);
        if (*end || size < 1 || size > 1000) {
            reply_problem(rs, PROBLEM_INVALID_QUERY, "page_size must be an integer in [1, 1000]", ps, NULL);
            goto out;
        }
    }
    if (pt && *pt) {
        offset = strtol(pt, &end, 10);
        if (*end || offset < 0) {
            reply_problem(rs, PROBLEM_INVALID_QUERY, "bad page_token", pt, NULL);
            goto out;
        }
    }
    cJSON *o = cJSON_CreateObject();
    cJSON *unreachable = cJSON_CreateArray();
    cJSON *every = group_sessions(rq, all, n, unreachable);
    const int total = cJSON_GetArraySize(every);
    cJSON *arr = cJSON_AddArrayToObject(o, "sessions");
    long i = 0;
    for (cJSON *e = every ? every->child : NULL, *next; e; e = next, i++) {
        next = e->next;
        if (i >= offset && i < offset + size) cJSON_AddItemToArray(arr, cJSON_DetachItemViaPointer(every, e));
    }
    cJSON_Delete(every);
    if (offset + size < total) {
        char tok[32];
        snprintf(tok, sizeof tok, "%ld", offset + size);
        cJSON_AddStringToObject(o, "next_page_token", tok);
    } else {
        cJSON_AddNullToObject(o, "next_page_token");
    }
    cJSON_AddNumberToObject(o, "total", total);
    if (cJSON_GetArraySize(unreachable) > 0) cJSON_AddItemToObject(o, "unreachable", unreachable);
    else cJSON_Delete(unreachable);
    reply_json(rs, 200, o);
out:
    for (int i = 0; i < n; i++) session_release(all[i]);
    free(all);
}

void h_sessions_collection(http_request *rq, http_response *rs)
{
    if (strcmp(rq->method, "GET") == 0 || strcmp(rq->method, "HEAD") == 0) {
        if (req_need(rq, rs, ROLE_VIEWER)) list(rq, rs);
    } else if (strcmp(rq->method, "POST") == 0) {
        if (!req_need(rq, rs, ROLE_OPERATOR)) return;
        const char *key = idem_begin_or_reply(rq, rs);
        if (key && !*key) return;
        create(rq, rs);
        idem_end(rq, rs, key);
    } else {
        reply_not_allowed(rs, "GET, HEAD, POST");
    }
}

static void wrong_state(http_response *rs, session *s, const char *what)
{
    char detail[256];
    session_view v;
    session_snapshot(s, &v);
    snprintf(detail, sizeof detail, "the session is %s; %s", session_status_name(v.status), what);
    reply_problem(rs, PROBLEM_WRONG_STATE, NULL, detail, NULL);
}

static void not_ready(http_response *rs, const char *detail)
{
    reply_problem(rs, PROBLEM_NOT_READY, "the session is in a long step", detail, NULL);
    snprintf(rs->retry_after, sizeof rs->retry_after, "1");
}

/* The body of an :advance: where to (*until) or how far (*by); the other is NAN. 0, or -1
 * with the answer given. */
static int advance_request(http_request *rq, http_response *rs, double *until, double *by)
{
    *until = *by = NAN;
    cJSON *b = rq->len ? req_json(rq, rs) : cJSON_CreateObject();
    if (!b) return -1;
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(b, "until");
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(b, "by");
    cJSON *unknown = cJSON_CreateArray();
    for (const cJSON *it = b->child; it; it = it->next) {
        if (strcmp(it->string, "until") == 0 || strcmp(it->string, "by") == 0) continue;
        char p[160];
        snprintf(p, sizeof p, "/%s", it->string);
        cJSON_AddItemToArray(unknown, issue(p, "unknown key (give until or by)"));
    }
    if (cJSON_GetArraySize(unknown)) {
        cJSON_Delete(b);
        reply_problem(rs, PROBLEM_INVALID_REQUEST, "the advance request is invalid", NULL, unknown);
        return -1;
    }
    cJSON_Delete(unknown);
    if (cJSON_IsNumber(u) && !dt && isfinite(u->valuedouble) && u->valuedouble >= 0) *until = u->valuedouble;
    else if (cJSON_IsNumber(dt) && !u && isfinite(dt->valuedouble) && dt->valuedouble >= 0) *by = dt->valuedouble;
    cJSON_Delete(b);
    if (isnan(*until) && isnan(*by)) {
        cJSON *e = cJSON_CreateArray();
        cJSON_AddItemToArray(e, issue("", "give {\"until\": t} or {\"by\": dt}, in simulated seconds"));
        reply_problem(rs, PROBLEM_INVALID_REQUEST, "what to advance to is missing", NULL, e);
        return -1;
    }
    return 0;
}

/* :advance and :reset take their turn behind the ones that came before (session_turn_take),
 * and answer the session as their own work left it, before the next one changes it. */
static void synchronous(http_request *rq, http_response *rs, session *s, const char *verb)
{
    daemon_ctx *d = rq->d;
    double until = NAN, by = NAN;
    const int advance = strcmp(verb, "advance") == 0;
    if (advance && advance_request(rq, rs, &until, &by) != 0) return;
    session_turn turn;
    /* a reset waits as long as it takes (the turns before it are each bounded) */
    if (session_turn_take(s, &turn, advance ? d->cfg.advance_limit : -1) != SESSION_OK) {
        char detail[160];
        snprintf(detail, sizeof detail, "the :advance and :step requests before this one held the session for over %g s",
                 d->cfg.advance_limit);
        not_ready(rs, detail);
        return;
    }
    int rc = SESSION_OK;
    double t_out = 0;
    char err[512];
    if (advance) rc = session_advance(s, until, by, d->cfg.advance_limit, &t_out, err, sizeof err);
    else session_reset(s);
    if (rc == SESSION_ESTATE) reply_problem(rs, PROBLEM_WRONG_STATE, NULL, err, NULL);
    else if (rc == SESSION_ETIMEDOUT) not_ready(rs, err);
    else reply_json(rs, 200, describe_with_url(rq, s));
    session_turn_give(s, &turn);
    if (rs->status == 200) daemon_checkpoint_session(d, s);
}

static void lifecycle(http_request *rq, http_response *rs, session *s, const char *verb)
{
    daemon_ctx *d = rq->d;
    int rc;
    if (strcmp(verb, "start") == 0) {
        rc = session_start(s);
        if (rc == SESSION_OK) pool_wake(d->pool);
        else {
            session_view v;
            session_snapshot(s, &v);
            wrong_state(rs, s, v.advancing ? "an :advance, :step or :reset is stepping it or waiting to; :start after that answers"
                                         : ":start needs it created or paused (reset a finished one)");
            return;
        }
    } else if (strcmp(verb, "pause") == 0) {
        rc = session_pause(s);
        if (rc != SESSION_OK) {
            wrong_state(rs, s, ":pause needs it running");
            return;
        }
    } else if (strcmp(verb, "step") == 0) {
        h_step(rq, rs, s);
        return;
    } else if (strcmp(verb, "reset") == 0 || strcmp(verb, "advance") == 0) {
        synchronous(rq, rs, s, verb);
        return;
    } else {
        reply_problem(rs, PROBLEM_NOT_FOUND, "no such method", verb, NULL);
        return;
    }
    daemon_checkpoint_session(d, s);
    reply_json(rs, 200, describe_with_url(rq, s));
}

/* The inputs of a PUT .../actuators/NAME or PATCH .../actuators body. */
#define VALUE_KINDS "must be a number, a profile (an expression string, {\"wave\": ...}) or null (the spec's own)"

/* A command's value: a number, or a profile's JSON text (*profile, malloc'd; "null" for
 * the spec's own). 0 when it is neither. */
static int input_value(const cJSON *v, double *value, char **profile)
{
    *value = 0;
    *profile = NULL;
    if (cJSON_IsNumber(v)) {
        *value = v->valuedouble;
        return 1;
    }
    if (!cJSON_IsString(v) && !cJSON_IsObject(v) && !cJSON_IsNull(v)) return 0;
    *profile = cJSON_PrintUnformatted(v);
    return *profile != NULL;
}

static void set_inputs(http_request *rq, http_response *rs, session *s, const char *one)
{
    cJSON *b = req_json(rq, rs);
    if (!b) return;
    const char *names[128];
    double values[128];
    char *profiles[128] = {0}; /* JSON text where a value is a profile, not a number */
    int n = 0;
    cJSON *errors = cJSON_CreateArray();
    if (one) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(b, "value");
        if (!input_value(v, &values[n], &profiles[n])) cJSON_AddItemToArray(errors, issue("/value", VALUE_KINDS));
        else names[n++] = one;
        for (cJSON *it = b->child; it; it = it->next)
            if (strcmp(it->string, "value") != 0) {
                char p[160];
                snprintf(p, sizeof p, "/%s", it->string);
                cJSON_AddItemToArray(errors, issue(p, "unknown key"));
            }
    } else {
        for (cJSON *it = b->child; it; it = it->next) {
            char p[160];
            snprintf(p, sizeof p, "/%s", it->string);
            if (n == 128) {
                cJSON_AddItemToArray(errors, issue(p, "at most 128 values at once"));
                break;
            }
            if (!input_value(it, &values[n], &profiles[n])) cJSON_AddItemToArray(errors, issue(p, VALUE_KINDS));
            else names[n++] = it->string;
        }
        if (!n && !cJSON_GetArraySize(errors)) cJSON_AddItemToArray(errors, issue("", "name at least one input"));
    }
    if (cJSON_GetArraySize(errors)) {
        reply_problem(rs, PROBLEM_INVALID_REQUEST, "the command is invalid", NULL, errors);
        for (int i = 0; i < n; i++) free(profiles[i]);
        cJSON_Delete(b);
        return;
    }
    cJSON_Delete(errors);
    double t = 0;
    char err[512];
    int rc = session_set_inputs(s, n, names, values, (const char *const *)profiles, 2.0, &t, err, sizeof err);
    for (int i = 0; i < n; i++) free(profiles[i]);
    if (rc == SESSION_ENOTFOUND) {
        reply_problem(rs, PROBLEM_NOT_FOUND, "no such actuator or load", err, NULL);
    } else if (rc == SESSION_EINVAL) {
        cJSON *e = cJSON_CreateArray();
        cJSON_AddItemToArray(e, issue("", err));
        reply_problem(rs, PROBLEM_INVALID_REQUEST, "the value is out of range", err, e);
    } else if (rc == SESSION_ESTATE) {
        reply_problem(rs, PROBLEM_WRONG_STATE, "the session has failed", err, NULL);
    } else {
        cJSON *o = cJSON_CreateObject();
        cJSON *vals = cJSON_AddObjectToObject(o, "values");
        /* what was asked, as it was written: a number, a profile, or null */
        for (int i = 0; i < n; i++) {
            const cJSON *asked = one ? cJSON_GetObjectItemCaseSensitive(b, "value") : cJSON_GetObjectItemCaseSensitive(b, names[i]);
            cJSON_AddItemToObject(vals, names[i], cJSON_Duplicate(asked, 1));
        }
        if (rc == SESSION_OK) {
            cJSON_AddNumberToObject(o, "t", t);
            cJSON_AddStringToObject(o, "status", "applied");
            reply_json(rs, 200, o);
        } else {
            cJSON_AddNullToObject(o, "t");
            cJSON_AddStringToObject(o, "status", "queued");
            reply_json(rs, 202, o);
        }
    }
    cJSON_Delete(b);
}

static void actuators_list(http_request *rq, http_response *rs, session *s)
{
    (void)rq;
    cJSON *d = session_describe(s);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "actuators", cJSON_DetachItemFromObject(d, "inputs"));
    cJSON_AddNumberToObject(o, "t", cJSON_GetObjectItem(d, "t")->valuedouble);
    cJSON_Delete(d);
    reply_json(rs, 200, o);
}

/* If-None-Match compares weakly (RFC 9110 13.1.2): "*", a list, W/ prefixes. */
static int etag_listed(const char *header, const char *etag)
{
    const size_t n = strlen(etag);
    for (const char *p = header; *p;) {
        while (*p == ' ' || *p == '\t' || *p == ',') p++;
        if (*p == '*') return 1;
        if (strncmp(p, "W/", 2) == 0) p += 2;
        const char *end = p;
        while (*end && *end != ',') end++;
        const char *last = end;
        while (last > p && (last[-1] == ' ' || last[-1] == '\t')) last--;
        if ((size_t)(last - p) == n && strncmp(p, etag, n) == 0) return 1;
        p = end;
    }
    return 0;
}

static void frame(http_request *rq, http_response *rs, session *s)
{
    session_want_frames(s, INFINITY); /* a poller gets every slice's frame */
    published_frame *f = session_latest(s);
    if (!f) {
        reply_problem(rs, PROBLEM_NOT_FOUND, "no frame yet", NULL, NULL);
        return;
    }
    snprintf(rs->etag, sizeof rs->etag, "\"%llu\"", (unsigned long long)f->seq);
    const char *inm = req_header(rq, "If-None-Match");
    if (inm && etag_listed(inm, rs->etag)) {
        rs->status = 304;
        frame_release(f);
        return;
    }
    size_t jl = 0;
    const char *json = frame_json(f, &jl);
    rs->body = json ? malloc(jl + 1) : NULL;
    if (!rs->body) {
        frame_release(f);
        reply_problem(rs, PROBLEM_INTERNAL, "out of memory", "the frame could not be printed", NULL);
        return;
    }
    rs->status = 200;
    rs->content_type = "application/json";
    memcpy(rs->body, json, jl + 1);
    rs->len = jl;
    frame_release(f);
}

static void patch_session(http_request *rq, http_response *rs, session *s)
{
    cJSON *b = req_json(rq, rs);
    if (!b) return;
    cJSON *errors = cJSON_CreateArray();
    double pace = -1, until = -1, repeat = -1;
    for (cJSON *it = b->child; it; it = it->next) {
        if (strcmp(it->string, "pace") == 0) {
            if (parse_pace(it, &pace) != 0)
                cJSON_AddItemToArray(errors, issue("/pace", "must be a factor of real time > 0, \"realtime\" or \"max\""));
        } else if (strcmp(it->string, "name") == 0) {
            if (!cJSON_IsString(it) || strlen(it->valuestring) > 200)
                cJSON_AddItemToArray(errors, issue("/name", "must be a string of at most 200 characters"));
        } else if (strcmp(it->string, "until") == 0) {
            if (!cJSON_IsNull(it) && (!cJSON_IsNumber(it) || !(it->valuedouble > 0) || !isfinite(it->valuedouble)))
                cJSON_AddItemToArray(errors, issue("/until", "must be a simulated time > 0 (s), or null for none"));
            else
                until = cJSON_IsNull(it) ? 0 : it->valuedouble;
        } else if (strcmp(it->string, "repeat") == 0) {
            if (parse_repeat(it, &repeat) != 0) cJSON_AddItemToArray(errors, issue("/repeat", REPEAT_FORM));
        } else {
            char p[160];
            snprintf(p, sizeof p, "/%s", it->string);
            cJSON_AddItemToArray(errors, issue(p, "unknown key (pace, until, repeat and name may change)"));
        }
    }
    if (cJSON_GetArraySize(errors)) {
        reply_problem(rs, PROBLEM_INVALID_REQUEST, "the change is invalid", NULL, errors);
        cJSON_Delete(b);
        return;
    }
    cJSON_Delete(errors);
    if (pace >= 0) session_set_pace(s, pace);
    if (until >= 0) session_set_until(s, until);
    if (repeat >= 0) session_set_repeat(s, repeat);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(b, "name");
    if (cJSON_IsString(name)) {
        session_set_name(s, name->valuestring);
    }
    cJSON_Delete(b);
    daemon_checkpoint_session(rq->d, s);
    reply_json(rs, 200, describe_with_url(rq, s));
}

int h_session_route(http_request *rq, http_response *rs)
{
    /* /v1/sessions/{id}[:verb][/sub[/name]] */
    char id[80] = "", verb[32] = "", sub[32] = "", name[80] = "";
    const char *p = rq->path + 13;
    size_t i = 0;
    while (*p && *p != '/' && *p != ':' && i < sizeof id - 1) id[i++] = *p++;
    id[i] = '\0';
    if (*p == ':') {
        snprintf(verb, sizeof verb, "%s", p + 1);
        if (strchr(verb, '/')) return 0;
    } else if (*p == '/') {
        p++;
        i = 0;
        while (*p && *p != '/' && i < sizeof sub - 1) sub[i++] = *p++;
        sub[i] = '\0';
        if (!sub[0]) return 0; /* a trailing slash names nothing */
        if (*p == '/') {
            snprintf(name, sizeof name, "%s", p + 1);
            if (!name[0] || strchr(name, '/')) return 0;
        }
    }
    if (!id[0]) return 0;
    const char *m = rq->method;
    const int get = strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0;
    if (!req_need(rq, rs, get ? ROLE_VIEWER : ROLE_OPERATOR)) return 1;
    /* The key is looked up before the session: a retried DELETE must replay its 204. */
    const char *key = NULL;
    if (!get) {
        key = idem_begin_or_reply(rq, rs);
        if (key && !*key) return 1;
    }
    session *s = pool_find(rq->d->pool, id);
    if (!s) {
        reply_problem(rs, PROBLEM_NOT_FOUND, "no such session", id, NULL);
        idem_end(rq, rs, key);
        return 1;
    }
    int found = 1;
    if (verb[0]) {
        if (strcmp(m, "POST") == 0) lifecycle(rq, rs, s, verb);
        else reply_not_allowed(rs, "POST");
    } else if (!sub[0]) {
        if (get) reply_json(rs, 200, describe_with_url(rq, s));
        else if (strcmp(m, "DELETE") == 0) {
            daemon_delete_session(rq->d, id);
            log_event(LOG_INFO, "session_deleted", "id=%s", id);
            rs->status = 204;
        } else if (strcmp(m, "PATCH") == 0) patch_session(rq, rs, s);
        else reply_not_allowed(rs, "GET, HEAD, PATCH, DELETE");
    } else if (strcmp(sub, "frame") == 0 && !name[0]) {
        if (get) frame(rq, rs, s);
        else reply_not_allowed(rs, "GET, HEAD");
    } else if (strcmp(sub, "checkpoint") == 0 && !name[0]) {
        if (get) {
            int busy;
            char why[256];
            char *text = session_checkpoint(s, 5.0, &busy, NULL, why, sizeof why);
            if (text) reply_text(rs, 200, "application/json", text);
            else if (busy) {
                reply_problem(rs, PROBLEM_NOT_READY, "the session is in a long step",
                              "a step has held the engine state for over 5 s; try again", NULL);
                snprintf(rs->retry_after, sizeof rs->retry_after, "5");
            } else if (strcmp(why, "out of memory")) {
                reply_problem(rs, PROBLEM_WRONG_STATE, "no checkpoint of this session", why, NULL);
            } else reply_problem(rs, PROBLEM_INTERNAL, "the checkpoint could not be written", why, NULL);
            free(text);
        } else reply_not_allowed(rs, "GET, HEAD");
    } else if (strcmp(sub, "recording") == 0 && !name[0]) {
        if (get || strcmp(m, "PATCH") == 0) h_recording(rq, rs, s);
        else reply_not_allowed(rs, "GET, HEAD, PATCH");
    } else if (strcmp(sub, "actuators") == 0) {
        if (!name[0] && get) actuators_list(rq, rs, s);
        else if (!name[0] && strcmp(m, "PATCH") == 0) set_inputs(rq, rs, s, NULL);
        else if (name[0] && strcmp(m, "PUT") == 0) set_inputs(rq, rs, s, name);
        else reply_not_allowed(rs, name[0] ? "PUT" : "GET, HEAD, PATCH");
    } else {
        found = 0;
    }
    if (found) idem_end(rq, rs, key);
    else if (key && *key) idem_abort(rq->d->idem, key);
    session_release(s);
    return found;
}
