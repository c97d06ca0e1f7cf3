/* A command's change of an input, ramped in from the integrator's next step (solver.command_ramp).
 *
 * CVODE steps past the time a piece of simulation ends and interpolates back, so its history
 * already holds the forces of the old input up to its own time t_n. Replacing an input at the
 * session's time t < t_n would contradict that history, and restarting BDF there costs some 70
 * steps for every command (it restarts at order 1 with a tiny step): a controller at 100 Hz
 * then spends most of a core on restarts. So the new profile takes over from t_n, where no
 * force has yet been evaluated, through the quintic smoothstep w over the ramp time tau, which
 * keeps the input and its first two time derivatives continuous (a held point's acceleration
 * too). Commands that follow each other within tau chain: input = p_0 + sum_j w_j (p_j - p_j-1),
 * the profiles in force before each command and the newest one last. When t_n is more than
 * one ramp ahead (a quiet rod, long steps), the command is a step at the session's time and
 * the integrator restarts: a restart from rest is cheap, and a command is never late by more
 * than a ramp. */
#include "state.h"

#include <math.h>
#include <stdlib.h>

/* x^3 (10 - 15 x + 6 x^2): 0 and 1 with zero first and second derivatives at both ends */
static double smoothstep5(double x)
{
    if (x <= 0) return 0.0;
    if (x >= 1) return 1.0;
    return x * x * x * (10.0 + x * (-15.0 + 6.0 * x));
}

static double ramp(const rod_state *st) { return st->m->spec->command_ramp; }

/* The weight of chain entry j's successor at time t. */
static double weight(const rod_state *st, const input_chain *c, int j, double t)
{
    return smoothstep5((t - c->t0[j]) / ramp(st));
}

/* The profile that entry j of the chain hands over to. */
static const profile *successor(const rod_state *st, int i, int j)
{
    const input_chain *c = &st->chain[i];
    return j + 1 < c->n ? &c->from[j + 1] : &st->input[i];
}

void state_input_changed(rod_state *st, int i, const profile *before, const double *t_n)
{
    input_chain *c = &st->chain[i];
    /* a rod at rest lets BDF's steps grow to seconds: a ramp from a t_n that far ahead would
     * hold the command back that long, so past one ramp of the session's time it is a step */
    if (ramp(st) > 0 && t_n && *t_n - st->t <= ramp(st)) {
        const double t0 = *t_n;
        /* entries whose ramp ended before the session's time are done for every time the
         * integrator or a frame can still ask about */
        int done = 0;
        while (done < c->n && c->t0[done] + ramp(st) <= st->t) done++;
        for (int j = done; j < c->n; j++) {
            c->from[j - done] = c->from[j];
            c->t0[j - done] = c->t0[j];
        }
        c->n -= done;
        if (c->n < INPUT_CHAIN_MAX) {
            c->from[c->n] = *before;
            c->t0[c->n] = t0;
            c->n++;
            st->changed_at = t0;
            return;
        }
    }
    /* no integrator history to keep (not started, generalized-alpha, a restart pending), no
     * ramp asked for, or commands faster than the chain holds: a step at the session's time
     * (the other inputs' ramps stay: they are functions of time the restart integrates on) */
    c->n = 0;
    st->need_reinit = 1;
    st->changed_at = st->t;
}

double rod_state_input_change_time(const rod_state *st) { return st->changed_at; }

void state_input_chains_clear(rod_state *st)
{
    for (int i = 0; i < st->m->ninputs; i++) st->chain[i].n = 0;
}

double state_input_raw(const rod_state *st, int i, double t, double X)
{
    const input_chain *c = &st->chain[i];
    if (!c->n) return profile_value(&st->input[i], st->ev, t, X);
    double v = profile_value(&c->from[0], st->ev, t, X);
    for (int j = 0; j < c->n; j++) {
        const double w = weight(st, c, j, t);
        if (w > 0) v += w * (profile_value(successor(st, i, j), st->ev, t, X) - profile_value(&c->from[j], st->ev, t, X));
    }
    return v;
}

void state_input_fix_t(rod_state *st, int i, double t, input_at_t *f)
{
    const input_chain *c = &st->chain[i];
    f->n = 0;
    if (!c->n) {
        profile_fix_t(&st->input[i], st->ev, t, &f->p[0]);
        f->w[0] = 1.0;
        f->n = 1;
        return;
    }
    /* value = sum_k W_k p_k with W_0 = 1 - w_0, W_k = w_k-1 - w_k, W_n = w_n-1 */
    double prev = 1.0;
    for (int j = 0; j <= c->n; j++) {
        const double w = j < c->n ? weight(st, c, j, t) : 0.0;
        const double W = prev - w;
        prev = w;
        if (W == 0) continue;
        profile_fix_t(j < c->n ? &c->from[j] : &st->input[i], st->ev, t, &f->p[f->n]);
        f->w[f->n++] = W;
    }
}

double state_input_at_X(const input_at_t *f, profile_eval *ev, double X)
{
    double v = 0.0;
    for (int k = 0; k < f->n; k++) v += f->w[k] * profile_at_X(&f->p[k], ev, X);
    return v;
}

void state_input_value_derivs(const rod_state *st, int i, double t, double out[3])
{
    const input_chain *c = &st->chain[i];
    profile_value_derivs(c->n ? &c->from[0] : &st->input[i], st->ev, t, out);
    /* v = p_0 + sum_j w_j (s_j - f_j) differentiated term by term with the weights' exact
     * derivatives. Central differences of v saw the third derivative of w jump at a ramp's
     * start: their error (0.02 m/s^2 for 5 mm over 50 ms) was an acceleration that the held
     * point's position did not have, and that mismatch pinned BDF's step near 1e-11 s (a
     * command just after a static start) */
    const double tau = ramp(st);
    for (int j = 0; j < c->n; j++) {
        const double x = (t - c->t0[j]) / tau;
        if (x <= 0) continue;
        double w[3] = {1, 0, 0};
        if (x < 1) {
            w[0] = smoothstep5(x);
            w[1] = 30 * x * x * (1 - x) * (1 - x) / tau;
            w[2] = 60 * x * (1 - x) * (1 - 2 * x) / (tau * tau);
        }
        double s[3], f[3];
        profile_value_derivs(successor(st, i, j), st->ev, t, s);
        profile_value_derivs(&c->from[j], st->ev, t, f);
        const double d0 = s[0] - f[0], d1 = s[1] - f[1], d2 = s[2] - f[2];
        out[0] += w[0] * d0;
        out[1] += w[1] * d0 + w[0] * d1;
        out[2] += w[2] * d0 + 2 * w[1] * d1 + w[0] * d2;
    }
}
