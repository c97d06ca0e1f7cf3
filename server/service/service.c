/* The service layer the HTTP handlers and the process share: creating, restoring and
 * checkpointing sessions, and the shipped examples. */
#include "service.h"

#include "checkpoint_fields.h"
#include "disk_budget.h"
#include "log.h"
#include "metrics.h"
#include "persist.h"
#include "stream.h"
#include "textfile.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void prefix_issues(cJSON *errors, const rod_issues *iss, const char *prefix)
{
    for (int i = 0; i < iss->count; i++) {
        cJSON *e = cJSON_CreateObject();
        char p[512];
        snprintf(p, sizeof p, "%s%s", prefix, iss->items[i].path);
        cJSON_AddStringToObject(e, "path", p);
        cJSON_AddStringToObject(e, "message", iss->items[i].message);
        cJSON_AddItemToArray(errors, e);
    }
}

char *read_example(daemon_ctx *d, const char *name)
{
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_')) return NULL;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.json", d->cfg.examples_dir, name);
    return read_regular_file(path, ROD_SPEC_MAX_BYTES, NULL);
}

typedef struct {
    const char *dir, *id, *text;
    char err[512];
} persist_job;

static int write_job(void *ctx)
{
    persist_job *j = ctx;
    return persist_write(j->dir, j->id, j->text, strlen(j->text), j->err, sizeof j->err);
}

static int remove_job(void *ctx)
{
    persist_job *j = ctx;
    return persist_delete(j->dir, j->id, j->err, sizeof j->err);
}

int daemon_checkpoint_session_within(daemon_ctx *d, session *s, double wait)
{
    if (!d->cfg.state_dir[0]) return 0;
    int busy;
    uint64_t gen = 0;
    persist_job j = {d->cfg.state_dir, session_id(s), NULL, ""};
    char *text = session_checkpoint(s, wait, &busy, &gen, j.err, sizeof j.err);
    if (busy) {
        /* a long step holds the state; the periodic checkpoint gets it later */
        log_event(LOG_WARN, "checkpoint_deferred", "id=%s reason=\"a step holds the state\"", session_id(s));
        return 1;
    }
    j.text = text;
    /* skipped (1) when the session is deleted or a newer snapshot is already on disk */
    int rc = text ? session_persist(s, gen, write_job, &j) : -1;
    if (rc < 0) log_event(LOG_ERROR, "checkpoint_failed", "id=%s error=%s", session_id(s), log_q(j.err));
    if (rc <= 0) metrics_checkpoint(rc == 0);
    free(text);
    return rc < 0 ? -1 : 0;
}

int daemon_checkpoint_session(daemon_ctx *d, session *s)
{
    return daemon_checkpoint_session_within(d, s, 2.0);
}

int daemon_delete_session(daemon_ctx *d, const char *id)
{
    session *s = pool_find(d->pool, id);
    if (!s) return -1;
    pool_remove(d->pool, id); /* stops the work in progress on it */
    persist_job j = {d->cfg.state_dir, id, NULL, ""};
    if (session_forget(s, d->cfg.state_dir[0] ? remove_job : NULL, &j) != 0)
        log_event(LOG_ERROR, "checkpoint_delete_failed", "id=%s error=%s", id, log_q(j.err));
    if (session_recording(s)) recording_unlink(session_recording(s));
    stream_session_gone(d->streams, s);
    session_release(s);
    return 0;
}

/* Builds and registers a session; id NULL makes a fresh one. */
static create_result make_session(daemon_ctx *d, const char *id, const char *spec_text, const char *prefix,
                                  const session_opts *o, const recording_opts *ro, session **out)
{
    create_result r = {0};
    *out = NULL;
    if (pool_count(d->pool) >= pool_capacity(d->pool)) {
        r.status = 503;
        snprintf(r.detail, sizeof r.detail, "%d sessions, the most this daemon keeps", pool_capacity(d->pool));
        return r;
    }
    rod_issues iss;
    rod_issues_init(&iss);
    rod_model *m = rod_model_compile(spec_text, strlen(spec_text), NULL, 0, &iss);
    if (!m) {
        r.status = 422;
        r.errors = cJSON_CreateArray();
        prefix_issues(r.errors, &iss, prefix);
        snprintf(r.detail, sizeof r.detail, "%d problem%s in the spec", iss.count, iss.count == 1 ? "" : "s");
        rod_issues_free(&iss);
        return r;
    }
    rod_issues_free(&iss);
    if (rod_model_ndof(m) > d->cfg.max_dof) {
        r.status = 422;
        r.errors = cJSON_CreateArray();
        cJSON *e = cJSON_CreateObject();
        char msg[160];
        snprintf(msg, sizeof msg, "the model has %d coordinates, more than the %d this daemon allows",
                 rod_model_ndof(m), d->cfg.max_dof);
        cJSON_AddStringToObject(e, "path", prefix[0] ? prefix : "/spec");
        cJSON_AddStringToObject(e, "message", msg);
        cJSON_AddItemToArray(r.errors, e);
        snprintf(r.detail, sizeof r.detail, "%s", msg);
        rod_model_free(m);
        return r;
    }
    char fresh[64];
    if (!id) {
        char hex[16];
        random_hex(hex, 6);
        snprintf(fresh, sizeof fresh, "%s-%s", d->ordinal, hex);
        id = fresh;
    }
    char err[512];
    session_opts so = *o;
    if (so.repeat == SESSION_REPEAT_DURATION) so.repeat = rod_model_duration(m); /* 0 when it gives none */
    so.min_sim_rate = d->cfg.min_sim_rate;
    so.rate_window = d->cfg.sim_rate_window;
    const int points = o->points > 1 ? o->points : SESSION_DEFAULT_POINTS;
    rod_frame shape;
    if (rod_frame_shape(m, &shape) != ROD_OK) {
        r.status = 500;
        snprintf(r.detail, sizeof r.detail, "out of memory");
        rod_model_free(m);
        return r;
    }
    if (recording_check_size(points, &shape, ro, err, sizeof err) != 0) {
        /* the model's mechanics make a frame bigger than the options alone could tell */
        r.status = 422;
        r.errors = cJSON_CreateArray();
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "path", "/recording/max_bytes");
        cJSON_AddStringToObject(e, "message", err);
        cJSON_AddItemToArray(r.errors, e);
        snprintf(r.detail, sizeof r.detail, "recording.max_bytes %.400s", err);
        rod_frame_free(&shape);
        rod_model_free(m);
        return r;
    }
    so.recording = recording_open(d->cfg.state_dir, id, points, &shape, ro, d->recording_budget, err, sizeof err);
    rod_frame_free(&shape);
    if (!so.recording) {
        /* a session without its recording would lose what it was asked to keep */
        r.status = 500;
        snprintf(r.detail, sizeof r.detail, "%s", err);
        rod_model_free(m);
        return r;
    }
    char *spec_copy = strdup(spec_text);
    session *s = spec_copy ? session_new(id, m, spec_copy, &so, err, sizeof err) : NULL;
    if (!spec_copy) recording_close(so.recording, 1);
    if (!spec_copy) rod_model_free(m);
    if (!s) {
        r.status = 422;
        snprintf(r.detail, sizeof r.detail, "%s", spec_copy ? err : "out of memory");
        r.errors = cJSON_CreateArray();
        cJSON *e = cJSON_CreateObject();
        /* session_new fails on the engine state only (a spec that compiled is fine) */
        cJSON_AddStringToObject(e, "path", o->checkpoint ? "/checkpoint/state" : prefix);
        cJSON_AddStringToObject(e, "message", r.detail);
        cJSON_AddItemToArray(r.errors, e);
        return r;
    }
    session_set_notify(s, stream_notify, d->streams);
    int rc = pool_add(d->pool, s);
    if (rc != POOL_OK) {
        r.status = rc == POOL_EFULL ? 503 : 500;
        snprintf(r.detail, sizeof r.detail, "%s", rc == POOL_EFULL ? "the session pool is full" : "duplicate session id");
        session_release(s);
        return r;
    }
    daemon_checkpoint_session(d, s);
    if (session_is_running(s)) pool_wake(d->pool);
    r.status = 201;
    *out = s;
    return r;
}

void create_request_init(create_request *cr)
{
    session_opts so;
    session_opts_default(&so);
    memset(cr, 0, sizeof *cr);
    cr->pace = so.pace;
    cr->until = so.until;
    cr->points = so.points;
    cr->start = so.start;
    recording_opts_default(&cr->recording);
}

create_result daemon_create_session(daemon_ctx *d, const create_request *cr, session **out)
{
    session_opts o;
    session_opts_default(&o);
    o.name = cr->name;
    o.pace = cr->pace;
    o.until = cr->until;
    o.points = cr->points;
    o.start = cr->start;
    o.repeat = cr->repeat;
    recording_opts ro = cr->recording;
    if (!cr->checkpoint) return make_session(d, NULL, cr->spec_text, "/spec", &o, &ro, out);
    /* a session checkpoint: its spec, options and engine state */
    create_result r = {0};
    const cJSON *ck = cr->checkpoint;
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(ck, "spec");
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(ck, "state");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(ck, "status");
    char where[200], why[200];
    if (cJSON_IsObject(spec) && cJSON_IsObject(state) &&
        checkpoint_fields_check(ck, d->cfg.max_points, where, sizeof where, why, sizeof why) != 0) {
        r.status = 422;
        r.errors = cJSON_CreateArray();
        cJSON *e = cJSON_CreateObject();
        char p[220];
        snprintf(p, sizeof p, "/checkpoint%s", where);
        cJSON_AddStringToObject(e, "path", p);
        cJSON_AddStringToObject(e, "message", why);
        cJSON_AddItemToArray(r.errors, e);
        snprintf(r.detail, sizeof r.detail, "%s: %s", p, why);
        return r;
    }
    if (!cJSON_IsObject(spec) || !cJSON_IsObject(state)) {
        r.status = 422;
        r.errors = cJSON_CreateArray();
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "path", "/checkpoint");
        cJSON_AddStringToObject(e, "message", "needs \"spec\" and \"state\" objects (GET .../checkpoint gives one)");
        cJSON_AddItemToArray(r.errors, e);
        snprintf(r.detail, sizeof r.detail, "not a session checkpoint");
        return r;
    }
    /* what the request leaves out, the checkpoint says */
    const cJSON *v;
    if (!cr->name && cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(ck, "name"))) o.name = v->valuestring;
    if (!cr->has_pace && cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(ck, "pace")) && v->valuedouble >= 0)
        o.pace = v->valuedouble;
    if (!cr->has_until && cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(ck, "until")) && v->valuedouble > 0)
        o.until = v->valuedouble;
    if (!cr->has_repeat && cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(ck, "repeat")) && v->valuedouble > 0)
        o.repeat = v->valuedouble;
    if (!cr->has_points && cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(ck, "points")) &&
        v->valuedouble >= 2 && v->valuedouble <= d->cfg.max_points)
        o.points = (int)v->valuedouble;
    if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(ck, "failure"))) o.failure = v->valuestring;
    if (!cr->has_recording && (v = cJSON_GetObjectItemCaseSensitive(ck, "recording"))) {
        cJSON *ignored = cJSON_CreateArray(); /* a checkpoint's own options were checked when made */
        recording_opts from_ck = ro;
        if (recording_opts_parse(v, "", o.points, NULL, &from_ck, ignored) == 0) ro = from_ck;
        cJSON_Delete(ignored);
    }
    char *spec_text = cJSON_PrintUnformatted(spec), *state_text = cJSON_PrintUnformatted(state);
    o.checkpoint = state_text;
    o.status = SESSION_PAUSED;
    session_status st;
    if (cJSON_IsString(status) && session_status_parse(status->valuestring, &st) == 0 && st != SESSION_RUNNING)
        o.status = st;
    if (cr->start) o.status = SESSION_RUNNING;
    r = make_session(d, NULL, spec_text, "/checkpoint/spec", &o, &ro, out);
    free(spec_text);
    free(state_text);
    return r;
}

void daemon_remove_stale_exports(daemon_ctx *d)
{
    if (!d->cfg.state_dir[0]) return; /* TMPDIR may be another daemon's too */
    DIR *dir = opendir(d->cfg.state_dir);
    if (!dir) return;
    const size_t n = strlen(EXPORT_TEMP_PREFIX);
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (strncmp(e->d_name, EXPORT_TEMP_PREFIX, n) != 0) continue;
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", d->cfg.state_dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        if (unlink(path) == 0)
            log_event(LOG_INFO, "stale_export_removed", "file=%s bytes=%lld", log_q(path), (long long)st.st_size);
    }
    closedir(dir);
}

int daemon_recording_budget(daemon_ctx *d, char *err, size_t errlen)
{
    const char *tmp = getenv("TMPDIR");
    const char *dir = d->cfg.state_dir[0] ? d->cfg.state_dir : tmp && *tmp ? tmp : "/tmp";
    char how[300] = "recording_budget";
    long long bytes = (long long)d->cfg.recording_budget;
    if (bytes == 0) {
        bytes = disk_budget_default(dir, disk_budget_reserve(d->cfg.max_sessions, RECORDING_DEFAULT_MAX_BYTES), how,
                                    sizeof how, err, errlen);
        if (bytes < 0) return -1;
    }
    d->recording_budget = disk_budget_new(bytes);
    if (!d->recording_budget) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    log_event(bytes < 2 * RECORDING_DEFAULT_MAX_BYTES ? LOG_WARN : LOG_INFO, "recording_budget",
              "bytes=%lld dir=%s from=%s", bytes, log_q(dir), log_q(how));
    return 0;
}

/* ---- restore at start ---- */
int daemon_restore_one(void *ctx, const char *file_id, const char *file, const char *text, size_t len, char *why,
                       size_t whylen)
{
    daemon_ctx *d = ctx;
    cJSON *o = cJSON_ParseWithLength(text, len);
    char where[300], msg[200];
    if (!o) {
        snprintf(why, whylen, "not JSON");
        return PERSIST_REJECT;
    }
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "id");
    if (checkpoint_fields_check(o, d->cfg.max_points, where, sizeof where, msg, sizeof msg) != 0) {
        snprintf(why, whylen, "%s: %s", where[0] ? where : "/", msg);
        cJSON_Delete(o);
        return PERSIST_REJECT;
    }
    /* the id must be the one the file is named after: it names every file written later */
    if (!cJSON_IsString(id) || !persist_id_valid(id->valuestring) || strcmp(id->valuestring, file_id) != 0) {
        snprintf(why, whylen, "/id: must be a session id ([A-Za-z0-9_-], under 64) and the file's name");
        cJSON_Delete(o);
        return PERSIST_REJECT;
    }
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(o, "spec");
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(o, "state");
    session_opts so;
    session_opts_default(&so);
    const cJSON *v;
    if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(o, "name"))) so.name = v->valuestring;
    if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "pace"))) so.pace = v->valuedouble;
    if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "until"))) so.until = v->valuedouble;
    if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "repeat"))) so.repeat = v->valuedouble;
    if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "points"))) so.points = (int)v->valuedouble;
    if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "created"))) so.created_wall = v->valuedouble;
    if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(o, "failure"))) so.failure = v->valuestring;
    so.status = SESSION_PAUSED;
    if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(o, "status"))) session_status_parse(v->valuestring, &so.status);
    char *spec_text = cJSON_PrintUnformatted(spec), *state_text = cJSON_PrintUnformatted(state);
    so.checkpoint = state_text;
    recording_opts ro;
    recording_opts_default(&ro);
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "recording"))) {
        cJSON *ignored = cJSON_CreateArray();
        recording_opts saved = ro;
        if (recording_opts_parse(v, "", so.points, NULL, &saved, ignored) == 0) ro = saved;
        cJSON_Delete(ignored);
    }
    session *s = NULL;
    create_result r = spec_text && state_text ? make_session(d, id->valuestring, spec_text, "/spec", &so, &ro, &s)
                                              : (create_result){500, "out of memory", NULL};
    int rc = PERSIST_RESTORED;
    if (r.status == 201) {
        session_view v2;
        session_snapshot(s, &v2);
        log_event(LOG_INFO, "session_restored", "id=%s state=%s t=%.6g", session_id(s), session_status_name(v2.status), v2.t);
        session_release(s);
    } else if (r.status == 422) {
        /* the spec does not compile (any more), or the state does not fit it */
        snprintf(why, whylen, "%s", r.detail);
        rc = PERSIST_REJECT;
    } else {
        log_event(LOG_ERROR, "restore_failed", "file=%s status=%d detail=%s", log_q(file), r.status, log_q(r.detail));
        rc = PERSIST_KEEP;
    }
    cJSON_Delete(r.errors);
    free(spec_text);
    free(state_text);
    cJSON_Delete(o);
    return rc;
}

void daemon_checkpoint_all(daemon_ctx *d, double within)
{
    session **all;
    const double end = mono_now() + within;
    int n = pool_list(d->pool, &all);
    for (int i = 0; i < n; i++) {
        const double left = end - mono_now();
        daemon_checkpoint_session_within(d, all[i], left < 0.05 ? 0.05 : left < 2.0 ? left : 2.0);
        session_release(all[i]);
    }
    free(all);
}
