/* The session object: construction from a compiled model, references, and the accessors
 * other parts of the daemon read it through. */
#include "session_internal.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void session_opts_default(session_opts *o)
{
    memset(o, 0, sizeof *o);
    o->pace = SESSION_DEFAULT_PACE;
    o->points = SESSION_DEFAULT_POINTS;
    o->status = SESSION_CREATED;
}

/* The spec's own "name" ("" if it has none): what titles a session nobody named, since an id
 * means nothing to the people sharing a viewer. */
static void spec_name(const rod_model *m, char *out, size_t len)
{
    cJSON *spec = cJSON_Parse(rod_model_spec_json(m));
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(spec, "name");
    snprintf(out, len, "%s", cJSON_IsString(n) ? n->valuestring : "");
    cJSON_Delete(spec);
}

session *session_new(const char *id, rod_model *model, char *spec_json, const session_opts *o,
                     char *err, size_t errlen)
{
    session *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        rod_model_free(model);
        free(spec_json);
        recording_close(o->recording, 0);
        return NULL;
    }
    atomic_init(&s->refs, 1);
    s->rec = o->recording;
    snprintf(s->id, sizeof s->id, "%s", id);
    snprintf(s->name, sizeof s->name, "%s", o->name ? o->name : "");
    if (!s->name[0]) spec_name(model, s->name, sizeof s->name);
    s->model = model;
    s->spec_json = spec_json;
    s->pace = o->pace;
    s->until = o->until;
    s->repeat = o->repeat > 0 ? o->repeat : 0;
    s->points = o->points > 1 ? o->points : SESSION_DEFAULT_POINTS;
    s->created_wall = o->created_wall > 0 ? o->created_wall : unix_now();
    s->min_rate = o->min_sim_rate > 0 ? o->min_sim_rate : 0;
    s->rate_window = o->rate_window > 0 ? o->rate_window : 10.0;
    pthread_mutex_init(&s->state_mu, NULL);
    pthread_mutex_init(&s->mu, NULL);
    pthread_mutex_init(&s->persist_mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    const int nin = rod_model_ninputs(model);
    s->input_value = calloc((size_t)(nin > 0 ? nin : 1), sizeof *s->input_value);
    s->input_profile = calloc((size_t)(nin > 0 ? nin : 1), 1);
    s->state = s->input_value && s->input_profile ? rod_state_create(model, err, errlen) : NULL;
    if (!s->input_value || !s->input_profile) snprintf(err, errlen, "out of memory");
    if (!s->state) {
        session_release(s);
        return NULL;
    }
    s->status = SESSION_CREATED;
    /* a checkpoint's state replaces the static start: skip that solve */
    int rc = o->checkpoint ? rod_dynamics_start_for_load(model, s->state) : rod_dynamics_start(model, s->state);
    if (rc != ROD_OK) {
        s->status = SESSION_FAILED;
        snprintf(s->failure, sizeof s->failure, "%s", rod_state_error(s->state));
    } else if (o->checkpoint) {
        if (rod_state_load(model, s->state, o->checkpoint, strlen(o->checkpoint)) != ROD_OK) {
            snprintf(err, errlen, "%s", rod_state_error(s->state)); /* it names the checkpoint */
            session_release(s);
            return NULL;
        }
        s->status = o->status;
        if (o->failure) snprintf(s->failure, sizeof s->failure, "%s", o->failure);
    } else if (o->start) {
        s->status = SESSION_RUNNING;
    }
    s->anchor_sim = rod_state_time(s->state);
    s->anchor_wall = mono_now();
    if (session_publish(s) != 0) {
        snprintf(err, errlen, "out of memory");
        session_release(s);
        return NULL;
    }
    return s;
}

void session_retain(session *s)
{
    atomic_fetch_add(&s->refs, 1);
}

void session_release(session *s)
{
    if (!s || atomic_fetch_sub(&s->refs, 1) != 1) return;
    session_free_mailbox(s);
    frame_release(s->latest);
    recording_close(s->rec, 0);
    rod_state_free(s->state);
    rod_model_free(s->model);
    free(s->spec_json);
    free(s->input_value);
    free(s->input_profile);
    pthread_mutex_destroy(&s->state_mu);
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->persist_mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}

int session_points(session *s)
{
    pthread_mutex_lock(&s->mu);
    const int n = s->points;
    pthread_mutex_unlock(&s->mu);
    return n;
}

const char *session_spec_json(session *s)
{
    return s->spec_json;
}

recording *session_recording(session *s)
{
    return s->rec;
}

const char *session_id(const session *s)
{
    return s->id;
}

void session_snapshot(session *s, session_view *out)
{
    pthread_mutex_lock(&s->mu);
    out->status = s->status;
    out->t = s->t;
    out->seq = s->seq;
    out->advancing = s->advancing || s->turn_head;
    out->behind_pace = s->status == SESSION_RUNNING && s->behind_pace;
    memcpy(out->name, s->name, sizeof out->name);
    memcpy(out->failure, s->failure, sizeof out->failure);
    pthread_mutex_unlock(&s->mu);
}

void session_set_name(session *s, const char *name)
{
    pthread_mutex_lock(&s->mu);
    snprintf(s->name, sizeof s->name, "%s", name);
    pthread_mutex_unlock(&s->mu);
}

void session_set_notify(session *s, void (*notify)(void *ctx, session *s), void *ctx)
{
    s->notify = notify;
    s->notify_ctx = ctx;
}

int session_is_running(session *s)
{
    pthread_mutex_lock(&s->mu);
    int r = s->status == SESSION_RUNNING;
    pthread_mutex_unlock(&s->mu);
    return r;
}

published_frame *session_latest(session *s)
{
    pthread_mutex_lock(&s->mu);
    published_frame *f = s->latest;
    if (f) frame_retain(f);
    pthread_mutex_unlock(&s->mu);
    return f;
}

int session_persist(session *s, uint64_t generation, int (*write)(void *ctx), void *ctx)
{
    pthread_mutex_lock(&s->persist_mu);
    int rc = 1;
    if (!s->deleted && generation > s->written) {
        rc = write(ctx);
        if (rc == 0) s->written = generation;
    }
    pthread_mutex_unlock(&s->persist_mu);
    return rc;
}

int session_forget(session *s, int (*remove)(void *ctx), void *ctx)
{
    pthread_mutex_lock(&s->persist_mu);
    s->deleted = 1;
    const int rc = remove ? remove(ctx) : 0;
    pthread_mutex_unlock(&s->persist_mu);
    return rc;
}
