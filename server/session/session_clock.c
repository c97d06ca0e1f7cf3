/* The worker's slice: how far a running session steps now, paced against the wall clock,
 * and what it measures of its own speed. */
#include "session_internal.h"

#include "log.h"

#include <math.h>
#include <stdio.h>

#define FRAME_PERIOD (1.0 / 60.0) /* wall seconds between a running session's frames */
#define MAX_LAG 0.25              /* wall seconds behind real time before pacing lets go */
#define RTF_WINDOW 1.0            /* wall seconds the real-time factor is measured over */
#define BEHIND_PACE 0.9           /* below this fraction of its pace a session is behind */

double session_step(session *s, double now, session_slice *slice)
{
    *slice = (session_slice){0, 0, 0, 0, 0};
    pthread_mutex_lock(&s->state_mu);
    pthread_mutex_lock(&s->mu);
    if (s->status != SESSION_RUNNING) {
        pthread_mutex_unlock(&s->mu);
        pthread_mutex_unlock(&s->state_mu);
        return -1;
    }
    const double pace = s->pace, until = s->until, repeat = s->repeat;
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
    if (repeat > 0 && goal > repeat) goal = repeat;
    char failure[512] = "";
    while (t < goal) {
        const double next = session_piece_end(s, t, goal);
        const piece_result pr = session_piece(s, next, INFINITY, failure, sizeof failure);
        if (pr == PIECE_INTERRUPTED || pr == PIECE_LIMIT) break; /* paused, deleted or drained mid-piece */
        if (pr != PIECE_DONE) {
            rc = ROD_ESOLVER;
            break;
        }
        t = next;
        /* the recording's frame is the readers' too when theirs is due */
        published_frame *rec = session_record_due(s);
        if (rec && session_publish_due(s, mono_now())) session_publish_frame(s, rec);
        else frame_release(rec);
        if (mono_now() - w0 >= FRAME_PERIOD) break;
        pthread_mutex_lock(&s->mu);
        const int paused = s->status != SESSION_RUNNING;
        pthread_mutex_unlock(&s->mu);
        if (paused) break;
    }
    const double t_now = rod_state_time(s->state), wall = mono_now() - w0;
    rod_dynamics_stats stats;
    rod_dynamics_get_stats(s->state, &stats);
    *slice = (session_slice){1, wall, t_now - t0, stats.steps - s->stats.steps,
                             (stats.rhs_evals + stats.rhs_evals_jacobian) - (s->stats.rhs_evals + s->stats.rhs_evals_jacobian)};
    /* a frame when a reader wants one, or the session stops here (finished, failed, paused) */
    const int ends = rc != ROD_OK || (until > 0 && t_now >= until - 1e-12);
    if (ends || session_publish_due(s, mono_now())) {
        pthread_mutex_lock(&s->mu);
        const int have = s->latest && s->published_t == t_now && !ends;
        pthread_mutex_unlock(&s->mu);
        if (have) {
            session_cache_inputs(s);
            session_mirror_time(s);
        } else {
            session_publish(s);
        }
    } else {
        session_cache_inputs(s);
        session_mirror_time(s);
    }
    pthread_mutex_lock(&s->mu);
    if (t_now > t0 && wall > 0) {
        /* the solver's own speed, smoothed over a few seconds of slices */
        const double r = (t_now - t0) / wall;
        s->solver_rtf = s->solver_rtf > 0 ? 0.95 * s->solver_rtf + 0.05 * r : r;
    }
    /* the real-time factor as MuJoCo and Gazebo count it: simulated seconds per wall second,
     * over windows of about RTF_WINDOW, idle waits between slices included */
    const double end = mono_now();
    int fell_behind = 0;
    if (!(s->rtf_from_wall > 0)) {
        s->rtf_from_wall = now;
        s->rtf_from_sim = t0;
        s->rtf = 0;
        s->behind_pace = 0;
    } else if (end - s->rtf_from_wall >= RTF_WINDOW) {
        s->rtf = (t_now - s->rtf_from_sim) / (end - s->rtf_from_wall);
        s->rtf_from_wall = end;
        s->rtf_from_sim = t_now;
        const int behind = pace > 0 && s->rtf < BEHIND_PACE * pace;
        fell_behind = behind && !s->behind_pace;
        s->behind_pace = behind;
    }
    const double rtf = s->rtf, solver_rtf = s->solver_rtf;
    s->stats = stats;
    if (rc != ROD_OK) {
        s->status = SESSION_FAILED;
        snprintf(s->failure, sizeof s->failure, "%s", failure);
    } else if (until > 0 && t_now >= until - 1e-12) {
        s->status = SESSION_FINISHED;
    }
    int running = s->status == SESSION_RUNNING;
    pthread_mutex_unlock(&s->mu);
    /* the session's own loop: from its beginning again, still running (its readers see the
     * time go back, as after :reset and :start, and no client has to ask) */
    if (running && repeat > 0 && t_now >= repeat - 1e-12) running = session_restart(s, SESSION_RUNNING) == ROD_OK;
    pthread_mutex_unlock(&s->state_mu);
    if (fell_behind)
        log_event(LOG_WARN, "behind_pace", "session=%s pace=%g real_time_factor=%.3g solver_real_time_factor=%.3g",
                  s->id, pace, rtf, solver_rtf);
    session_notify(s);
    if (!running) return -1;
    return pace > 0 ? now + FRAME_PERIOD : mono_now();
}
