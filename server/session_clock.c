/* The worker's slice: how far a running session steps now, paced against the wall clock,
 * and what it measures of its own speed. */
#include "session_internal.h"

#include "metrics.h"

#include <math.h>
#include <stdio.h>

#define FRAME_PERIOD (1.0 / 60.0) /* wall seconds between a running session's frames */
#define MAX_LAG 0.25              /* wall seconds behind real time before pacing lets go */

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
    session_drain_mailbox(s);
    int rc = ROD_OK;
    const double w0 = mono_now();
    /* In 10 ms pieces of simulated time for at most one frame period of wall time, so that a
     * slow model (or a high pace) still publishes frames and lets pause and commands in; the
     * lag this leaves is what the anchor slip above absorbs. */
    double goal = pace > 0 ? target : INFINITY;
    if (until > 0 && goal > until) goal = until;
    while (t < goal) {
        const double next = session_piece_end(s, t, goal);
        rc = rod_dynamics_advance(s->model, s->state, next);
        if (rc == ROD_EINTERRUPTED) {
            rc = ROD_OK; /* paused, deleted or drained mid-piece: the state is where it began */
            break;
        }
        if (rc != ROD_OK) break;
        t = next;
        session_record_due(s);
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
    session_publish(s);
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
    session_notify(s);
    if (!running) return -1;
    return pace > 0 ? now + FRAME_PERIOD : mono_now();
}
