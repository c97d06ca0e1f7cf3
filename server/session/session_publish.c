/* Publication: a session's frame and input values, copied out of the engine state for the
 * readers that must never wait for it. */
#include "session_internal.h"

#include "clock.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void session_cache_inputs(session *s)
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

int session_inputs_now(session *s, const char **names, double *v, int cap)
{
    const int n = rod_model_ninputs(s->model);
    pthread_mutex_lock(&s->mu);
    for (int i = 0; i < n && i < cap; i++) {
        names[i] = rod_model_input_name(s->model, i);
        v[i] = s->input_value[i];
    }
    pthread_mutex_unlock(&s->mu);
    return n;
}

int session_frame_shape(session *s, rod_frame *out)
{
    return rod_frame_shape(s->model, out) == ROD_OK ? 0 : -1; /* the model is fixed for the session's life */
}

/* Publication follows demand. FULL_RATE is a slice's rate (session_clock.c's FRAME_PERIOD):
 * what a session publishes at most. A frame costs about what the simulation of its slice
 * does (the poses at every output point, the twists for the kinetic energy), so a session
 * that every reader takes at 30 Hz, or that nobody watches, computes only those. */
#define FULL_RATE 60.0
#define FLOOR_RATE 10.0
#define DEMAND_HOLD 0.5 /* s: a rate asked for lasts this long without being asked again */

void session_want_frames(session *s, double rate)
{
    if (!(rate > 0)) return;
    const double now = mono_now();
    pthread_mutex_lock(&s->mu);
    if (rate >= s->want_rate || now - s->want_wall > DEMAND_HOLD) {
        s->want_rate = fmin(rate, FULL_RATE);
        s->want_wall = now;
    }
    pthread_mutex_unlock(&s->mu);
}

int session_publish_due(session *s, double now)
{
    pthread_mutex_lock(&s->mu);
    double rate = now - s->want_wall <= DEMAND_HOLD ? s->want_rate : 0.0;
    if (rate < FLOOR_RATE) rate = FLOOR_RATE;
    /* slices end every 1/FULL_RATE or so: a frame due within half a slice goes now, so that
     * a reader's 30 Hz is every other slice and not every third */
    const int due = s->status != SESSION_RUNNING || !(s->published_wall > 0) ||
                    now - s->published_wall >= 1.0 / rate - 0.5 / FULL_RATE;
    pthread_mutex_unlock(&s->mu);
    return due;
}

void session_mirror_time(session *s)
{
    const double t = rod_state_time(s->state);
    pthread_mutex_lock(&s->mu);
    s->t = t;
    pthread_mutex_unlock(&s->mu);
}

/* The error indicator costs some 80 us for the reaching arm, more than the frame: a running
 * session refreshes it every INDICATOR_PERIOD of wall time rather than at each of its frames
 * (an order-of-magnitude flag that moves with the shape's slow changes); a session that stops
 * gets it for its last frame. */
#define INDICATOR_PERIOD 0.2

static void publish(session *s, published_frame *pf, int record)
{
    const double now = mono_now();
    pthread_mutex_lock(&s->mu);
    const int fresh = s->status != SESSION_RUNNING || !(s->indicator_wall > 0) ||
                      now - s->indicator_wall >= INDICATOR_PERIOD;
    pthread_mutex_unlock(&s->mu);
    const double indicator = fresh ? rod_error_indicator(s->model, rod_state_q(s->state)) : NAN;
    rod_penetration pen;
    pthread_mutex_lock(&s->mu);
    const int said = s->penetration[0] != 0;
    pthread_mutex_unlock(&s->mu);
    const int sank = !said && rod_frame_penetration(s->model, s->state, &pf->f, &pen); /* the state is ours */
    pthread_mutex_lock(&s->mu);
    if (sank) { /* said once, as rodd run says it */
        snprintf(s->penetration_path, sizeof s->penetration_path, "/environment/obstacles/%d/stiffness", pen.obstacle);
        snprintf(s->penetration, sizeof s->penetration,
                 "penetration at t = %g s: the section at s = %.4g m sank %.3g m (%.3g of its radius, more than "
                 "max_penetration %g) into this obstacle; raise its stiffness", pf->f.t, pen.s, pen.depth,
                 pen.fraction, pen.limit);
    }
    pthread_mutex_unlock(&s->mu);
    pthread_mutex_lock(&s->mu);
    const uint64_t seq = ++s->seq;
    if (fresh) s->indicator_wall = now;
    pthread_mutex_unlock(&s->mu);
    frame_stamp(pf, seq);
    if (record && s->rec) recording_add(s->rec, &pf->f);
    pthread_mutex_lock(&s->mu);
    published_frame *old = s->latest;
    s->latest = pf;
    s->t = rod_state_time(s->state);
    s->published_wall = now;
    s->published_t = pf->f.t;
    if (isfinite(indicator)) s->error_indicator = indicator;
    pthread_mutex_unlock(&s->mu);
    frame_release(old);
}

int session_publish(session *s)
{
    session_cache_inputs(s);
    published_frame *pf = frame_compute(s->model, s->state, s->points);
    if (!pf) return -1;
    publish(s, pf, 1);
    return 0;
}

void session_publish_frame(session *s, published_frame *pf)
{
    publish(s, pf, 0);
}

double session_piece_end(session *s, double t, double goal)
{
    double end = fmin(goal, t + 0.01);
    const double due = s->rec ? recording_next_due(s->rec) : INFINITY;
    /* a piece that would end a rounding error short of the due time ends on it, so that
     * recorded times are the rate's grid exactly (not 0.09999999999999999 for 0.1) */
    if (due > t && (due < end || (due < end + 1e-9 && end < goal))) end = due;
    return end;
}

published_frame *session_record_due(session *s)
{
    if (!s->rec || rod_state_time(s->state) < recording_next_due(s->rec) - 1e-9) return NULL;
    published_frame *pf = frame_compute(s->model, s->state, s->points);
    if (!pf) return NULL; /* no memory: the next one */
    recording_add(s->rec, &pf->f);
    return pf;
}

void session_notify(session *s)
{
    if (s->notify) s->notify(s->notify_ctx, s);
}
