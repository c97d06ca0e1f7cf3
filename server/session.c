#include "session.h"

#include "metrics.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_INPUTS_PER_COMMAND 128
#define FRAME_PERIOD (1.0 / 60.0) /* wall seconds between a running session's frames */
#define MAX_LAG 0.25              /* wall seconds behind real time before pacing lets go */

struct command {
    command *next;
    int n;
    int idx[MAX_INPUTS_PER_COMMAND];
    double values[MAX_INPUTS_PER_COMMAND];
    int done, abandoned;
    double t_applied;
};

double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

double unix_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

struct timespec realtime_after(double seconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    const double t = ts.tv_sec + 1e-9 * ts.tv_nsec + seconds;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) ts.tv_nsec = 999999999L;
    return ts;
}

static const char *const status_names[] = {"created", "running", "paused", "finished", "failed"};

const char *session_status_name(session_status s)
{
    return status_names[s];
}

int session_status_parse(const char *name, session_status *out)
{
    for (int i = 0; i < 5; i++)
        if (strcmp(name, status_names[i]) == 0) {
            *out = (session_status)i;
            return 0;
        }
    return -1;
}

void frame_retain(published_frame *f)
{
    atomic_fetch_add(&f->refs, 1);
}

void frame_release(published_frame *f)
{
    if (!f || atomic_fetch_sub(&f->refs, 1) != 1) return;
    rod_frame_free(&f->f);
    free(f->json);
    free(f);
}

/* Copies the inputs' current values to the readers' cache (state_mu held). */
static void cache_inputs(session *s)
{
    const int n = rod_model_ninputs(s->model);
    double v[n > 0 ? n : 1];
    unsigned char prof[n > 0 ? n : 1];
    for (int i = 0; i < n; i++) {
        prof[i] = !rod_state_input_constant(s->state, i, &v[i]);
        /* a profile: its value now, at the base for an actuator */
        if (prof[i]) v[i] = rod_state_input_value(s->state, i, 0.0);
    }
    pthread_mutex_lock(&s->mu);
    if (n > 0) {
        memcpy(s->input_value, v, (size_t)n * sizeof *v);
        memcpy(s->input_profile, prof, (size_t)n);
    }
    pthread_mutex_unlock(&s->mu);
}

/* Publishes the state's frame (state_mu held). Returns 0 or -1 on no memory. */
static int publish(session *s)
{
    cache_inputs(s);
    published_frame *pf = calloc(1, sizeof *pf);
    if (!pf) return -1;
    atomic_init(&pf->refs, 1);
    if (rod_frame_compute(s->model, s->state, s->points, &pf->f) != ROD_OK) {
        free(pf);
        return -1;
    }
    char *body = rod_frame_to_json(&pf->f);
    if (!body) {
        rod_frame_free(&pf->f);
        free(pf);
        return -1;
    }
    pf->wall = mono_now();
    pf->published = unix_now();
    pthread_mutex_lock(&s->mu);
    pf->seq = ++s->seq;
    pthread_mutex_unlock(&s->mu);
    /* {"seq":N, + the FRAME's members */
    size_t bl = strlen(body);
    pf->json = malloc(bl + 64);
    if (!pf->json) {
        free(body);
        frame_release(pf);
        return -1;
    }
    pf->json_len = (size_t)snprintf(pf->json, bl + 64, "{\"seq\":%llu,\"published\":%.6f,%s",
                                    (unsigned long long)pf->seq, pf->published, body + 1);
    free(body);
    pthread_mutex_lock(&s->mu);
    published_frame *old = s->latest;
    s->latest = pf;
    s->t = rod_state_time(s->state);
    pthread_mutex_unlock(&s->mu);
    frame_release(old);
    return 0;
}

static void notify(session *s)
{
    if (s->notify) s->notify(s->notify_ctx, s);
}

session *session_new(const char *id, rod_model *model, char *spec_json, const session_opts *o,
                     char *err, size_t errlen)
{
    session *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        rod_model_free(model);
        free(spec_json);
        return NULL;
    }
    atomic_init(&s->refs, 1);
    snprintf(s->id, sizeof s->id, "%s", id);
    snprintf(s->name, sizeof s->name, "%s", o->name ? o->name : "");
    s->model = model;
    s->spec_json = spec_json;
    s->pace = o->pace;
    s->until = o->until;
    s->points = o->points > 1 ? o->points : 51;
    s->created_wall = o->created_wall > 0 ? o->created_wall : unix_now();
    pthread_mutex_init(&s->state_mu, NULL);
    pthread_mutex_init(&s->mu, NULL);
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
    int rc = rod_dynamics_start(model, s->state);
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
    if (publish(s) != 0) {
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
    for (command *c = s->mail_head, *n; c; c = n) {
        n = c->next;
        free(c); /* nobody waits on a session that nobody references */
    }
    frame_release(s->latest);
    rod_state_free(s->state);
    rod_model_free(s->model);
    free(s->spec_json);
    free(s->input_value);
    free(s->input_profile);
    pthread_mutex_destroy(&s->state_mu);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}

/* Applies every queued command (state_mu held). */
static void drain_mailbox(session *s)
{
    pthread_mutex_lock(&s->mu);
    command *head = s->mail_head;
    s->mail_head = s->mail_tail = NULL;
    pthread_mutex_unlock(&s->mu);
    if (!head) return;
    for (command *c = head; c; c = c->next)
        for (int i = 0; i < c->n; i++)
            rod_state_set_input(s->state, rod_model_input_name(s->model, c->idx[i]), c->values[i]);
    /* before anyone hears "applied": a read right after must see the new values */
    cache_inputs(s);
    const double t = rod_state_time(s->state);
    pthread_mutex_lock(&s->mu);
    for (command *c = head, *next; c; c = next) {
        next = c->next;
        c->done = 1;
        c->t_applied = t;
        if (c->abandoned) free(c); /* its sender gave up waiting */
    }
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

int session_is_running(session *s)
{
    pthread_mutex_lock(&s->mu);
    int r = s->status == SESSION_RUNNING;
    pthread_mutex_unlock(&s->mu);
    return r;
}

int session_start(session *s)
{
    pthread_mutex_lock(&s->mu);
    int rc = SESSION_ESTATE;
    if ((s->status == SESSION_CREATED || s->status == SESSION_PAUSED) && !s->advancing) {
        s->status = SESSION_RUNNING;
        s->anchor_sim = s->t;
        s->anchor_wall = mono_now();
        rc = SESSION_OK;
    }
    pthread_mutex_unlock(&s->mu);
    if (rc == SESSION_OK) notify(s);
    return rc;
}

/* Takes state_mu from a worker that has been told to stop (the session is no longer
 * running). A slice ends within a frame period unless one 10 ms piece is slow (a heavy model,
 * or one driven hard): after a grace of 0.25 s that piece is interrupted, and the state stays
 * where it began. Waits at most `wait` seconds in all (forever if negative); 0 when locked. */
static int lock_state_interrupting(session *s, double wait)
{
    const double grace = wait >= 0 && wait < 0.25 ? wait : 0.25;
    struct timespec until = realtime_after(grace);
    if (pthread_mutex_timedlock(&s->state_mu, &until) == 0) return 0;
    rod_state_interrupt(s->state);
    if (wait < 0) return pthread_mutex_lock(&s->state_mu);
    until = realtime_after(wait - grace);
    return pthread_mutex_timedlock(&s->state_mu, &until);
}

void session_stop_work(session *s)
{
    pthread_mutex_lock(&s->mu);
    s->stopping = 1;
    pthread_mutex_unlock(&s->mu);
    rod_state_interrupt(s->state);
}

int session_pause(session *s)
{
    pthread_mutex_lock(&s->mu);
    int rc = SESSION_ESTATE;
    if (s->status == SESSION_RUNNING) {
        s->status = SESSION_PAUSED; /* a worker's slice stops at its next 10 ms piece */
        rc = SESSION_OK;
    }
    pthread_mutex_unlock(&s->mu);
    if (rc != SESSION_OK) return rc;
    /* Wait for that slice to end, so that the answer shows where the session stopped. */
    if (lock_state_interrupting(s, 2.0) == 0) {
        drain_mailbox(s);
        pthread_mutex_unlock(&s->state_mu);
    }
    notify(s);
    return rc;
}

int session_reset(session *s)
{
    pthread_mutex_lock(&s->mu);
    if (s->status == SESSION_RUNNING) s->status = SESSION_PAUSED; /* its worker lets go */
    pthread_mutex_unlock(&s->mu);
    lock_state_interrupting(s, -1);
    drain_mailbox(s);
    int rc = rod_dynamics_start(s->model, s->state);
    pthread_mutex_lock(&s->mu);
    if (rc == ROD_OK) {
        s->status = SESSION_CREATED;
        s->failure[0] = '\0';
    } else {
        s->status = SESSION_FAILED;
        snprintf(s->failure, sizeof s->failure, "%s", rod_state_error(s->state));
    }
    pthread_mutex_unlock(&s->mu);
    publish(s);
    pthread_mutex_unlock(&s->state_mu);
    notify(s);
    return rc == ROD_OK ? SESSION_OK : SESSION_ESOLVER;
}

int session_advance(session *s, double t_end, double wall_limit, double *t_out, char *err, size_t errlen)
{
    pthread_mutex_lock(&s->state_mu);
    pthread_mutex_lock(&s->mu);
    const session_status st = s->status;
    /* :start must wait until this is done: it would leave a "running" session with no worker */
    if (st == SESSION_PAUSED || st == SESSION_CREATED) s->advancing = 1;
    pthread_mutex_unlock(&s->mu);
    if (st != SESSION_PAUSED && st != SESSION_CREATED) {
        pthread_mutex_unlock(&s->state_mu);
        snprintf(err, errlen, "the session is %s; :advance needs it paused", session_status_name(st));
        return SESSION_ESTATE;
    }
    drain_mailbox(s);
    const double w0 = mono_now();
    int rc = ROD_OK;
    double t = rod_state_time(s->state);
    while (t < t_end && mono_now() - w0 < wall_limit) {
        drain_mailbox(s); /* commands sent meanwhile apply at the next 10 ms piece */
        double next = fmin(t_end, t + 0.01);
        rc = rod_dynamics_advance(s->model, s->state, next);
        if (rc == ROD_EINTERRUPTED) {
            rc = ROD_OK;
            pthread_mutex_lock(&s->mu);
            const int stopping = s->stopping;
            pthread_mutex_unlock(&s->mu);
            if (stopping) break;
            continue; /* an interrupt meant for a running slice came late: go on */
        }
        if (rc != ROD_OK) break;
        t = next;
    }
    if (rc != ROD_OK) {
        pthread_mutex_lock(&s->mu);
        s->status = SESSION_FAILED;
        snprintf(s->failure, sizeof s->failure, "%s", rod_state_error(s->state));
        pthread_mutex_unlock(&s->mu);
        snprintf(err, errlen, "%s", rod_state_error(s->state));
    } else {
        pthread_mutex_lock(&s->mu);
        if (s->status == SESSION_CREATED) s->status = SESSION_PAUSED;
        pthread_mutex_unlock(&s->mu);
    }
    /* a command queued after the last piece is applied here: set_inputs saw advancing set */
    for (;;) {
        drain_mailbox(s);
        pthread_mutex_lock(&s->mu);
        if (!s->mail_head) break;
        pthread_mutex_unlock(&s->mu);
    }
    s->advancing = 0;
    rod_dynamics_get_stats(s->state, &s->stats);
    pthread_mutex_unlock(&s->mu);
    publish(s);
    *t_out = rod_state_time(s->state);
    pthread_mutex_unlock(&s->state_mu);
    notify(s);
    return rc == ROD_OK ? SESSION_OK : SESSION_ESOLVER;
}

static int check_inputs(session *s, int n, const char *const *names, const double *values, int *idx,
                        char *err, size_t errlen)
{
    if (n < 1 || n > MAX_INPUTS_PER_COMMAND) {
        snprintf(err, errlen, "between 1 and %d values at once", MAX_INPUTS_PER_COMMAND);
        return SESSION_EINVAL;
    }
    for (int i = 0; i < n; i++) {
        idx[i] = rod_model_input_index(s->model, names[i]);
        if (idx[i] < 0) {
            snprintf(err, errlen, "no actuator or load named \"%s\"", names[i]);
            return SESSION_ENOTFOUND;
        }
        if (!isfinite(values[i])) {
            snprintf(err, errlen, "%s: the value must be a finite number", names[i]);
            return SESSION_EINVAL;
        }
        if (rod_model_input_is_actuator(s->model, idx[i]) && values[i] < 0) {
            snprintf(err, errlen, "%s: must be >= 0 (a %s)", names[i],
                     strcmp(rod_model_input_type(s->model, idx[i]), "cable") == 0
                         ? "cable pulls, it cannot push"
                         : "transverse muscle squeezes, it cannot inflate");
            return SESSION_EINVAL;
        }
        for (int j = 0; j < i; j++)
            if (idx[j] == idx[i]) {
                snprintf(err, errlen, "%s is set twice", names[i]);
                return SESSION_EINVAL;
            }
    }
    return SESSION_OK;
}

int session_set_inputs(session *s, int n, const char *const *names, const double *values,
                       double wait_limit, double *t_applied, char *err, size_t errlen)
{
    command *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return SESSION_EINVAL;
    }
    int rc = check_inputs(s, n, names, values, c->idx, err, errlen);
    if (rc != SESSION_OK) {
        free(c);
        return rc;
    }
    c->n = n;
    memcpy(c->values, values, (size_t)n * sizeof *values);
    pthread_mutex_lock(&s->mu);
    if (s->status == SESSION_FAILED) {
        pthread_mutex_unlock(&s->mu);
        free(c);
        snprintf(err, errlen, "the session has failed: %s", s->failure);
        return SESSION_ESTATE;
    }
    /* always through the mailbox: whoever holds the state next applies it */
    if (s->mail_tail)
        s->mail_tail->next = c;
    else
        s->mail_head = c;
    s->mail_tail = c;
    const int stepped = s->status == SESSION_RUNNING || s->advancing;
    pthread_mutex_unlock(&s->mu);
    if (!stepped) {
        /* nobody steps it: apply now, on this thread */
        pthread_mutex_lock(&s->state_mu);
        drain_mailbox(s);
        pthread_mutex_unlock(&s->state_mu);
    }
    pthread_mutex_lock(&s->mu);
    const struct timespec until = realtime_after(wait_limit);
    while (!c->done) {
        if (pthread_cond_timedwait(&s->cv, &s->mu, &until) == ETIMEDOUT) break;
    }
    if (!c->done) {
        c->abandoned = 1; /* the worker frees it when it gets there */
        pthread_mutex_unlock(&s->mu);
        snprintf(err, errlen, "queued; the session has not reached its next step yet");
        return SESSION_ETIMEDOUT;
    }
    *t_applied = c->t_applied;
    pthread_mutex_unlock(&s->mu);
    free(c);
    return SESSION_OK;
}

int session_set_pace(session *s, double pace)
{
    if (!(pace >= 0) || !isfinite(pace)) return SESSION_EINVAL;
    pthread_mutex_lock(&s->mu);
    s->pace = pace;
    s->anchor_sim = s->t;
    s->anchor_wall = mono_now();
    pthread_mutex_unlock(&s->mu);
    return SESSION_OK;
}

published_frame *session_latest(session *s)
{
    pthread_mutex_lock(&s->mu);
    published_frame *f = s->latest;
    if (f) frame_retain(f);
    pthread_mutex_unlock(&s->mu);
    return f;
}

double session_step(session *s, double now)
{
    pthread_mutex_lock(&s->state_mu);
    pthread_mutex_lock(&s->mu);
    if (s->status != SESSION_RUNNING) {
        pthread_mutex_unlock(&s->mu);
        pthread_mutex_unlock(&s->state_mu);
        return -1;
    }
    const double pace = s->pace, until = s->until;
    double t = s->t;
    if (pace > 0 && (now - s->anchor_wall) * pace - (t - s->anchor_sim) > MAX_LAG * pace) {
        /* too far behind real time: slip the anchor rather than race to catch up */
        s->anchor_sim = t;
        s->anchor_wall = now - FRAME_PERIOD;
    }
    double target = pace > 0 ? s->anchor_sim + pace * (now - s->anchor_wall) : t;
    const double t0 = t;
    pthread_mutex_unlock(&s->mu);
    drain_mailbox(s);
    int rc = ROD_OK;
    const double w0 = mono_now();
    /* In 10 ms pieces of simulated time for at most one frame period of wall time, so that a
     * slow model (or a high pace) still publishes frames and lets pause and commands in; the
     * lag this leaves is what the anchor slip above absorbs. */
    double goal = pace > 0 ? target : INFINITY;
    if (until > 0 && goal > until) goal = until;
    while (t < goal) {
        const double next = fmin(goal, t + 0.01);
        rc = rod_dynamics_advance(s->model, s->state, next);
        if (rc == ROD_EINTERRUPTED) {
            rc = ROD_OK; /* paused, deleted or drained mid-piece: the state is where it began */
            break;
        }
        if (rc != ROD_OK) break;
        t = next;
        if (mono_now() - w0 >= FRAME_PERIOD) break;
        pthread_mutex_lock(&s->mu);
        const int paused = s->status != SESSION_RUNNING;
        pthread_mutex_unlock(&s->mu);
        if (paused) break;
    }
    const double t_now = rod_state_time(s->state), wall = mono_now() - w0;
    rod_dynamics_stats stats;
    rod_dynamics_get_stats(s->state, &stats);
    metrics_step(wall, (stats.rhs_evals + stats.rhs_evals_jacobian) - (s->stats.rhs_evals + s->stats.rhs_evals_jacobian));
    char failure[512] = "";
    if (rc != ROD_OK) snprintf(failure, sizeof failure, "%s", rod_state_error(s->state));
    publish(s);
    pthread_mutex_lock(&s->mu);
    if (t_now > t0 && wall > 0) {
        /* the real-time factor (wall / simulated time), smoothed over a few seconds of slices */
        const double r = wall / (t_now - t0);
        s->rtf = s->rtf > 0 ? 0.95 * s->rtf + 0.05 * r : r;
    }
    s->stats = stats;
    if (rc != ROD_OK) {
        s->status = SESSION_FAILED;
        snprintf(s->failure, sizeof s->failure, "%s", failure);
    } else if (until > 0 && t_now >= until - 1e-12) {
        s->status = SESSION_FINISHED;
    }
    const int running = s->status == SESSION_RUNNING;
    pthread_mutex_unlock(&s->mu);
    pthread_mutex_unlock(&s->state_mu);
    notify(s);
    if (!running) return -1;
    return pace > 0 ? now + FRAME_PERIOD : mono_now();
}

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
    cJSON_AddNumberToObject(o, "points", s->points);
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
        cJSON_AddNumberToObject(st, "real_time_factor", s->rtf);
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
        double g[3];
        rod_model_gravity(m, g);
        cJSON *ga = cJSON_AddArrayToObject(mo, "gravity");
        for (int i = 0; ga && i < 3; i++) cJSON_AddItemToArray(ga, cJSON_CreateNumber(g[i]));
    }
    cJSON *in = cJSON_AddArrayToObject(o, "inputs");
    pthread_mutex_lock(&s->mu);
    for (int i = 0; in && i < rod_model_ninputs(m); i++) {
        cJSON *e = cJSON_CreateObject();
        if (!e) break;
        cJSON_AddStringToObject(e, "name", rod_model_input_name(m, i));
        cJSON_AddStringToObject(e, "kind", rod_model_input_is_actuator(m, i) ? "actuator" : "load");
        cJSON_AddStringToObject(e, "type", rod_model_input_type(m, i));
        cJSON_AddNumberToObject(e, "value", s->input_value[i]);
        cJSON_AddBoolToObject(e, "profile", s->input_profile[i]);
        cJSON_AddStringToObject(e, "unit", !rod_model_input_is_actuator(m, i) ? ""
                                : strcmp(rod_model_input_type(m, i), "cable") == 0 ? "N" : "Pa");
        cJSON_AddItemToArray(in, e);
    }
    pthread_mutex_unlock(&s->mu);
    return o;
}

char *session_checkpoint(session *s, double wait, int *busy)
{
    *busy = 0;
    const struct timespec until = realtime_after(wait);
    if (pthread_mutex_timedlock(&s->state_mu, &until) != 0) {
        *busy = 1;
        return NULL;
    }
    char *state = rod_state_save(s->model, s->state);
    pthread_mutex_unlock(&s->state_mu);
    if (!state) return NULL;
    cJSON *o = cJSON_CreateObject();
    pthread_mutex_lock(&s->mu);
    cJSON_AddNumberToObject(o, "version", 1);
    cJSON_AddStringToObject(o, "id", s->id);
    cJSON_AddStringToObject(o, "name", s->name);
    cJSON_AddStringToObject(o, "status", session_status_name(s->status));
    cJSON_AddStringToObject(o, "failure", s->failure);
    cJSON_AddNumberToObject(o, "pace", s->pace);
    cJSON_AddNumberToObject(o, "until", s->until);
    cJSON_AddNumberToObject(o, "points", s->points);
    cJSON_AddNumberToObject(o, "created", s->created_wall);
    pthread_mutex_unlock(&s->mu);
    cJSON_AddItemToObject(o, "spec", cJSON_CreateRaw(s->spec_json));
    cJSON_AddItemToObject(o, "state", cJSON_CreateRaw(state));
    free(state);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}
