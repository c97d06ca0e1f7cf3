/* The session's state machine (start, pause, reset, advance, stop) and its command mailbox:
 * REST threads ask, whoever holds the engine state applies. */
#include "session_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INPUTS_PER_COMMAND 128

struct command {
    command *next;
    int n;
    int idx[MAX_INPUTS_PER_COMMAND];
    double values[MAX_INPUTS_PER_COMMAND];
    char *profile[MAX_INPUTS_PER_COMMAND]; /* JSON text of a profile ("null": the spec's), or NULL for values[i] */
    int done, abandoned;
    double t_applied;
};

static void command_free(command *c)
{
    for (int i = 0; c && i < c->n; i++) free(c->profile[i]);
    free(c);
}

void session_free_mailbox(session *s)
{
    for (command *c = s->mail_head, *n; c; c = n) {
        n = c->next;
        command_free(c); /* nobody waits on a session that nobody references */
    }
    s->mail_head = s->mail_tail = NULL;
}

/* Applies every queued command (state_mu held). */
void session_drain_mailbox(session *s)
{
    pthread_mutex_lock(&s->mu);
    command *head = s->mail_head;
    s->mail_head = s->mail_tail = NULL;
    pthread_mutex_unlock(&s->mu);
    if (!head) return;
    for (command *c = head; c; c = c->next)
        for (int i = 0; i < c->n; i++) {
            const char *name = rod_model_input_name(s->model, c->idx[i]);
            if (!c->profile[i])
                rod_state_set_input(s->state, name, c->values[i]);
            else /* checked when queued: only memory can fail, and then the input keeps its profile */
                rod_state_set_input_profile(s->state, name, strcmp(c->profile[i], "null") == 0 ? NULL : c->profile[i]);
        }
    /* before anyone hears "applied": a read right after must see the new values */
    session_cache_inputs(s);
    const double t = rod_state_input_change_time(s->state);
    pthread_mutex_lock(&s->mu);
    for (command *c = head, *next; c; c = next) {
        next = c->next;
        c->done = 1;
        c->t_applied = t;
        if (c->abandoned) command_free(c); /* its sender gave up waiting */
    }
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

int session_turn_take(session *s, session_turn *turn, double wait)
{
    turn->next = NULL;
    pthread_mutex_lock(&s->mu);
    if (s->turn_tail) s->turn_tail->next = turn;
    else s->turn_head = turn;
    s->turn_tail = turn;
    const struct timespec until = realtime_after(wait >= 0 ? wait : 0);
    int rc = SESSION_OK;
    while (s->turn_head != turn) {
        if (wait < 0) {
            pthread_cond_wait(&s->cv, &s->mu);
        } else if (pthread_cond_timedwait(&s->cv, &s->mu, &until) == ETIMEDOUT && s->turn_head != turn) {
            /* out of the line; the ones behind keep their places */
            session_turn **p = &s->turn_head;
            session_turn *prev = NULL;
            while (*p != turn) {
                prev = *p;
                p = &(*p)->next;
            }
            *p = turn->next;
            if (s->turn_tail == turn) s->turn_tail = prev;
            rc = SESSION_ETIMEDOUT;
            break;
        }
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

void session_turn_give(session *s, session_turn *turn)
{
    pthread_mutex_lock(&s->mu);
    s->turn_head = turn->next;
    if (!s->turn_head) s->turn_tail = NULL;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

int session_start(session *s)
{
    pthread_mutex_lock(&s->mu);
    int rc = SESSION_ESTATE;
    /* a queued :advance or :step would find it running and fail: it came first */
    if ((s->status == SESSION_CREATED || s->status == SESSION_PAUSED) && !s->advancing && !s->turn_head) {
        s->status = SESSION_RUNNING;
        s->anchor_sim = s->t;
        s->anchor_wall = mono_now();
        s->rtf_from_wall = 0; /* a paused stretch is not slow running */
        rc = SESSION_OK;
    }
    pthread_mutex_unlock(&s->mu);
    if (rc == SESSION_OK) session_notify(s);
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
        session_drain_mailbox(s);
        pthread_mutex_unlock(&s->state_mu);
    }
    session_notify(s);
    return rc;
}

/* keep_change: the status becomes `status` only if it is still what it was when the caller
 * looked (SESSION_RUNNING, for the loop) */
static int restart(session *s, session_status status, int keep_change)
{
    session_drain_mailbox(s);
    s->win_wall = s->win_sim = 0;
    const int rc = rod_dynamics_start(s->model, s->state);
    pthread_mutex_lock(&s->mu);
    if (rc == ROD_OK) {
        if (!keep_change || s->status == status) s->status = status;
        s->failure[0] = '\0';
        s->anchor_sim = rod_state_time(s->state);
        s->anchor_wall = mono_now();
        s->rtf_from_wall = 0; /* the restart is not slow running */
    } else {
        s->status = SESSION_FAILED;
        snprintf(s->failure, sizeof s->failure, "%s", rod_state_error(s->state));
    }
    pthread_mutex_unlock(&s->mu);
    session_publish(s);
    return rc;
}

int session_restart(session *s, session_status status)
{
    return restart(s, status, 0);
}

int session_loop(session *s)
{
    return restart(s, SESSION_RUNNING, 1);
}

int session_reset(session *s)
{
    pthread_mutex_lock(&s->mu);
    if (s->status == SESSION_RUNNING) s->status = SESSION_PAUSED; /* its worker lets go */
    pthread_mutex_unlock(&s->mu);
    lock_state_interrupting(s, -1);
    const int rc = session_restart(s, SESSION_CREATED);
    pthread_mutex_unlock(&s->state_mu);
    session_notify(s);
    return rc == ROD_OK ? SESSION_OK : SESSION_ESOLVER;
}

int session_advance(session *s, double t_end, double by, double wall_limit, double *t_out, char *err,
                    size_t errlen)
{
    const struct timespec wait = realtime_after(wall_limit);
    if (pthread_mutex_timedlock(&s->state_mu, &wait) != 0) {
        snprintf(err, errlen, "a step has held the session's state for over %g s", wall_limit);
        return SESSION_ETIMEDOUT;
    }
    pthread_mutex_lock(&s->mu);
    const session_status st = s->status;
    /* deleted (or drained) while this waited its turn: the interrupt that stopped the work
     * went to the turn before */
    const int stopping = s->stopping;
    /* :start must wait until this is done: it would leave a "running" session with no worker */
    if (!stopping && (st == SESSION_PAUSED || st == SESSION_CREATED)) s->advancing = 1;
    pthread_mutex_unlock(&s->mu);
    if (stopping || (st != SESSION_PAUSED && st != SESSION_CREATED)) {
        pthread_mutex_unlock(&s->state_mu);
        if (stopping) snprintf(err, errlen, "the session is deleted, or the daemon is stopping");
        else snprintf(err, errlen, "the session is %s; :advance needs it paused", session_status_name(st));
        return SESSION_ESTATE;
    }
    session_drain_mailbox(s);
    /* the limit interrupts a piece in progress (the pool's watchdog), not only the next one */
    const double limit_at = mono_now() + wall_limit;
    int rc = ROD_OK;
    char failure[512] = "";
    double t = rod_state_time(s->state);
    if (!isnan(by)) t_end = t + by; /* from where the turn before left it */
    while (t < t_end && mono_now() < limit_at) {
        session_drain_mailbox(s); /* commands sent meanwhile apply at the next 10 ms piece */
        double next = session_piece_end(s, t, t_end);
        const piece_result pr = session_piece(s, next, limit_at, failure, sizeof failure);
        if (pr == PIECE_LIMIT) break;
        if (pr == PIECE_INTERRUPTED) {
            pthread_mutex_lock(&s->mu);
            const int stopping = s->stopping;
            pthread_mutex_unlock(&s->mu);
            if (stopping) break;
            continue; /* an interrupt meant for a running slice came late: go on */
        }
        if (pr != PIECE_DONE) {
            rc = ROD_ESOLVER;
            break;
        }
        t = next;
        frame_release(session_record_due(s)); /* the advance publishes its end */
    }
    if (rc != ROD_OK) {
        pthread_mutex_lock(&s->mu);
        s->status = SESSION_FAILED;
        snprintf(s->failure, sizeof s->failure, "%s", failure);
        pthread_mutex_unlock(&s->mu);
        snprintf(err, errlen, "%s", failure);
    } else {
        pthread_mutex_lock(&s->mu);
        if (s->status == SESSION_CREATED) s->status = SESSION_PAUSED;
        pthread_mutex_unlock(&s->mu);
    }
    /* a command queued after the last piece is applied here: set_inputs saw advancing set */
    for (;;) {
        session_drain_mailbox(s);
        pthread_mutex_lock(&s->mu);
        if (!s->mail_head) break;
        pthread_mutex_unlock(&s->mu);
    }
    s->advancing = 0;
    rod_dynamics_get_stats(s->state, &s->stats);
    pthread_mutex_unlock(&s->mu);
    session_publish(s);
    *t_out = rod_state_time(s->state);
    pthread_mutex_unlock(&s->state_mu);
    session_notify(s);
    return rc == ROD_OK ? SESSION_OK : SESSION_ESOLVER;
}

static int check_inputs(session *s, int n, const char *const *names, const double *values,
                        const char *const *profiles, int *idx, char *err, size_t errlen)
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
        if (profiles && profiles[i]) {
            if (strcmp(profiles[i], "null") != 0) {
                const int rc = rod_model_check_input_profile(s->model, names[i], profiles[i], err, errlen);
                if (rc != ROD_OK) return rc == ROD_ENOTFOUND ? SESSION_ENOTFOUND : SESSION_EINVAL;
            }
        } else if (!isfinite(values[i])) {
            snprintf(err, errlen, "%s: the value must be a finite number", names[i]);
            return SESSION_EINVAL;
        }
        if (!(profiles && profiles[i]) && rod_model_input_is_actuator(s->model, idx[i]) && values[i] < 0 &&
            strcmp(rod_model_input_type(s->model, idx[i]), "muscle_torque") != 0) {
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
                       const char *const *profiles, double wait_limit, double *t_applied, char *err,
                       size_t errlen)
{
    command *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return SESSION_EINVAL;
    }
    int rc = check_inputs(s, n, names, values, profiles, c->idx, err, errlen);
    if (rc != SESSION_OK) {
        free(c);
        return rc;
    }
    c->n = n;
    memcpy(c->values, values, (size_t)n * sizeof *values);
    for (int i = 0; profiles && i < n; i++)
        if (profiles[i] && !(c->profile[i] = strdup(profiles[i]))) {
            command_free(c);
            snprintf(err, errlen, "out of memory");
            return SESSION_EINVAL;
        }
    pthread_mutex_lock(&s->mu);
    if (s->status == SESSION_FAILED) {
        pthread_mutex_unlock(&s->mu);
        command_free(c);
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
        session_drain_mailbox(s);
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
    command_free(c);
    return SESSION_OK;
}

int session_set_until(session *s, double until)
{
    if (!(until >= 0) || !isfinite(until)) return SESSION_EINVAL;
    pthread_mutex_lock(&s->mu);
    s->until = until;
    /* a finished session with time left to run is paused: :start continues it */
    if (s->status == SESSION_FINISHED && (until == 0 || until > s->t + 1e-12)) s->status = SESSION_PAUSED;
    pthread_mutex_unlock(&s->mu);
    return SESSION_OK;
}

int session_set_repeat(session *s, double every)
{
    if (!(every >= 0) || !isfinite(every)) return SESSION_EINVAL;
    pthread_mutex_lock(&s->mu);
    s->repeat = every;
    pthread_mutex_unlock(&s->mu);
    return SESSION_OK;
}

int session_set_pace(session *s, double pace)
{
    if (!(pace >= 0) || !isfinite(pace)) return SESSION_EINVAL;
    pthread_mutex_lock(&s->mu);
    s->pace = pace;
    s->anchor_sim = s->t;
    s->anchor_wall = mono_now();
    s->rtf_from_wall = 0;
    pthread_mutex_unlock(&s->mu);
    return SESSION_OK;
}
