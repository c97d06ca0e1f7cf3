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

/* What a slice reads of the session before it steps (under mu). */
typedef struct {
    double pace, until, repeat, t0, goal;
} slice_plan;

/* Pacing: how far this slice may go, the anchor slipped when the session fell too far behind
 * real time. 0, or -1 when the session is not running. */
static int plan_slice(session *s, double now, slice_plan *plan)
{
    pthread_mutex_lock(&s->mu);
    if (s->status != SESSION_RUNNING) {
        pthread_mutex_unlock(&s->mu);
        return -1;
    }
    const double pace = s->pace, t = s->t;
    if (pace > 0 && (now - s->anchor_wall) * pace - (t - s->anchor_sim) > MAX_LAG * pace) {
        /* too far behind real time: slip the anchor rather than race to catch up */
        s->anchor_sim = t;
        s->anchor_wall = now - FRAME_PERIOD;
    }
    const double target = pace > 0 ? s->anchor_sim + pace * (now - s->anchor_wall) : t;
    *plan = (slice_plan){pace, s->until, s->repeat, t, pace > 0 ? target : INFINITY};
    pthread_mutex_unlock(&s->mu);
    if (plan->until > 0 && plan->goal > plan->until) plan->goal = plan->until;
    if (plan->repeat > 0 && plan->goal > plan->repeat) plan->goal = plan->repeat;
    return 0;
}

/* Stepping: in 10 ms pieces of simulated time for at most one frame period of wall time, so
 * that a slow model (or a high pace) still publishes frames and lets pause and commands in;
 * the lag this leaves is what the anchor slip absorbs. ROD_OK, or ROD_ESOLVER with failure. */
static int run_pieces(session *s, const slice_plan *plan, double w0, char *failure, size_t len)
{
    double t = plan->t0;
    while (t < plan->goal) {
        const double next = session_piece_end(s, t, plan->goal);
        const piece_result pr = session_piece(s, next, INFINITY, failure, len);
        if (pr == PIECE_INTERRUPTED || pr == PIECE_LIMIT) break; /* paused, deleted or drained mid-piece */
        if (pr != PIECE_DONE) return ROD_ESOLVER;
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
    return ROD_OK;
}

/* Publishing: a frame when a reader wants one, or the session stops here (finished, failed,
 * paused); otherwise only the inputs and the time the readers see. */
static void publish_end(session *s, double t_now, int ends)
{
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
}

/* Rates (mu held): the solver's own speed, smoothed over a few seconds of slices, and the
 * real-time factor as MuJoCo and Gazebo count it: simulated seconds per wall second, over
 * windows of about RTF_WINDOW, idle waits between slices included. 1 when the session has
 * just fallen behind its pace. */
static int measure_rates(session *s, double now, const slice_plan *plan, double t_now, double wall)
{
    if (t_now > plan->t0 && wall > 0) {
        const double r = (t_now - plan->t0) / wall;
        s->solver_rtf = s->solver_rtf > 0 ? 0.95 * s->solver_rtf + 0.05 * r : r;
    }
    const double end = mono_now();
    int fell_behind = 0;
    if (!(s->rtf_from_wall > 0)) {
        s->rtf_from_wall = now;
        s->rtf_from_sim = plan->t0;
        s->rtf = 0;
        s->behind_pace = 0;
    } else if (end - s->rtf_from_wall >= RTF_WINDOW) {
        s->rtf = (t_now - s->rtf_from_sim) / (end - s->rtf_from_wall);
        s->rtf_from_wall = end;
        s->rtf_from_sim = t_now;
        const int behind = plan->pace > 0 && s->rtf < BEHIND_PACE * plan->pace;
        fell_behind = behind && !s->behind_pace;
        s->behind_pace = behind;
    }
    return fell_behind;
}

double session_step(session *s, double now, session_slice *slice)
{
    *slice = (session_slice){0, 0, 0, 0, 0};
    slice_plan plan;
    pthread_mutex_lock(&s->state_mu);
    if (plan_slice(s, now, &plan) != 0) {
        pthread_mutex_unlock(&s->state_mu);
        return -1;
    }
    session_drain_mailbox(s);
    const double w0 = mono_now();
    char failure[512] = "";
    const int rc = run_pieces(s, &plan, w0, failure, sizeof failure);
    const double t_now = rod_state_time(s->state), wall = mono_now() - w0;
    rod_dynamics_stats stats;
    rod_dynamics_get_stats(s->state, &stats);
    *slice = (session_slice){1, wall, t_now - plan.t0, stats.steps - s->stats.steps,
                             (stats.rhs_evals + stats.rhs_evals_jacobian) - (s->stats.rhs_evals + s->stats.rhs_evals_jacobian)};
    const int reached_until = plan.until > 0 && t_now >= plan.until - 1e-12;
    publish_end(s, t_now, rc != ROD_OK || reached_until);

    pthread_mutex_lock(&s->mu);
    const int fell_behind = measure_rates(s, now, &plan, t_now, wall);
    const double rtf = s->rtf, solver_rtf = s->solver_rtf;
    s->stats = stats;
    if (rc != ROD_OK) {
        s->status = SESSION_FAILED;
        snprintf(s->failure, sizeof s->failure, "%s", failure);
    } else if (reached_until) {
        s->status = SESSION_FINISHED;
    }
    int running = s->status == SESSION_RUNNING;
    pthread_mutex_unlock(&s->mu);
    /* the session's own loop: from its beginning again, still running (its readers see the
     * time go back, as after :reset and :start, and no client has to ask) unless it was
     * paused since the status was read just above */
    if (running && plan.repeat > 0 && t_now >= plan.repeat - 1e-12)
        running = session_loop(s) == ROD_OK && session_is_running(s);
    pthread_mutex_unlock(&s->state_mu);
    if (fell_behind)
        log_event(LOG_WARN, "behind_pace", "session=%s pace=%g real_time_factor=%.3g solver_real_time_factor=%.3g",
                  s->id, plan.pace, rtf, solver_rtf);
    session_notify(s);
    if (!running) return -1;
    return plan.pace > 0 ? now + FRAME_PERIOD : mono_now();
}
