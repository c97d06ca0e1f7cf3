/* Publication: a session's frame and input values, copied out of the engine state for the
 * readers that must never wait for it. */
#include "session_internal.h"

#include <math.h>
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

/* The error indicator costs some 80 us for the reaching arm, more than the frame: a running
 * session refreshes it every INDICATOR_PERIOD of wall time rather than at each of its 60
 * frames a second (an order-of-magnitude flag that moves with the shape's slow changes); a
 * session that stops gets it for its last frame. */
#define INDICATOR_PERIOD 0.2

int session_publish(session *s)
{
    session_cache_inputs(s);
    published_frame *pf = frame_compute(s->model, s->state, s->points);
    if (!pf) return -1;
    const double now = mono_now();
    pthread_mutex_lock(&s->mu);
    const int fresh = s->status != SESSION_RUNNING || !(s->indicator_wall > 0) ||
                      now - s->indicator_wall >= INDICATOR_PERIOD;
    pthread_mutex_unlock(&s->mu);
    const double indicator = fresh ? rod_error_indicator(s->model, rod_state_q(s->state)) : NAN;
    pthread_mutex_lock(&s->mu);
    const uint64_t seq = ++s->seq;
    if (fresh) s->indicator_wall = now;
    pthread_mutex_unlock(&s->mu);
    frame_stamp(pf, seq);
    if (s->rec) recording_add(s->rec, &pf->f);
    pthread_mutex_lock(&s->mu);
    published_frame *old = s->latest;
    s->latest = pf;
    s->t = rod_state_time(s->state);
    if (isfinite(indicator)) s->error_indicator = indicator;
    pthread_mutex_unlock(&s->mu);
    frame_release(old);
    return 0;
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

void session_record_due(session *s)
{
    if (!s->rec || rod_state_time(s->state) < recording_next_due(s->rec) - 1e-9) return;
    rod_frame f;
    if (rod_frame_compute(s->model, s->state, s->points, &f) != ROD_OK) return; /* no memory: the next one */
    recording_add(s->rec, &f);
    rod_frame_free(&f);
}

void session_notify(session *s)
{
    if (s->notify) s->notify(s->notify_ctx, s);
}
