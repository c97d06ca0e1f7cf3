/* One piece of simulation, bounded: a watchdog (session_watch, from the pool's watchdog
 * thread) interrupts a piece that runs past its deadline, and the computing time pieces take
 * is held against a floor on the simulated-time rate, so that a model driven past what it can
 * follow fails with a reason instead of grinding a core with ever smaller steps. */
#include "session_internal.h"

#include <math.h>
#include <stdio.h>

void session_watch(session *s, double now)
{
    pthread_mutex_lock(&s->mu);
    const int hit = s->piece_deadline > 0 && now >= s->piece_deadline && !s->piece_expired;
    if (hit) s->piece_expired = 1;
    pthread_mutex_unlock(&s->mu);
    if (hit) rod_state_interrupt(s->state);
}

/* The failure message of a session under the floor: the rate it reached and the step its
 * integrator is down to. */
static void too_slow(session *s, double sim, double wall, char *why, size_t len)
{
    rod_dynamics_stats st;
    rod_dynamics_get_stats(s->state, &st);
    snprintf(why, len,
             "too slow: %.3g s of simulated time in %.3g s of computing from t = %.9g, under the floor of "
             "%g x real time (min_sim_rate); the model is driven past what it can follow (its steps are "
             "down to %.3g s)",
             sim, wall, rod_state_time(s->state), s->min_rate, st.last_step);
}

piece_result session_piece(session *s, double t_next, double limit_at, char *why, size_t len)
{
    const double t = rod_state_time(s->state), w0 = mono_now();
    /* a piece still unfinished after this long proves the rate under the floor on its own */
    const double slow_at = s->min_rate > 0 ? w0 + fmax(s->rate_window, (t_next - t) / s->min_rate) : INFINITY;
    const double deadline = fmin(slow_at, limit_at);
    pthread_mutex_lock(&s->mu);
    s->piece_deadline = isfinite(deadline) ? deadline : 0;
    s->piece_expired = 0;
    pthread_mutex_unlock(&s->mu);
    const int rc = rod_dynamics_advance(s->model, s->state, t_next);
    pthread_mutex_lock(&s->mu);
    const int expired = s->piece_expired;
    s->piece_deadline = 0;
    s->piece_expired = 0;
    pthread_mutex_unlock(&s->mu);
    const double wall = mono_now() - w0;
    if (rc == ROD_EINTERRUPTED) {
        if (!expired) return PIECE_INTERRUPTED;
        if (limit_at <= slow_at) return PIECE_LIMIT;
        too_slow(s, 0, wall, why, len);
        return PIECE_SLOW;
    }
    if (rc != ROD_OK) {
        snprintf(why, len, "%s", rod_state_error(s->state));
        return PIECE_FAILED;
    }
    /* an interrupt that came as the piece ended stays pending; the next piece takes it */
    s->win_wall += wall;
    s->win_sim += rod_state_time(s->state) - t;
    if (s->min_rate > 0 && s->win_wall >= s->rate_window) {
        const double sim = s->win_sim, w = s->win_wall;
        s->win_wall = s->win_sim = 0;
        if (sim < s->min_rate * w) {
            too_slow(s, sim, w, why, len);
            return PIECE_SLOW;
        }
    }
    return PIECE_DONE;
}
