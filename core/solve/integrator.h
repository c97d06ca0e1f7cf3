/* The time integrator behind rod_dynamics_advance / _get_stats (rod.h; start.c starts it):
 * CVODE's BDF on [q; q_dot] with dynamics.h's accelerations, projected onto the multiplier constraints after
 * every step (constraints.h), or the generalized-alpha method (galpha.h). Its solver memory
 * hangs off the state (st->dyn), created by the first rod_dynamics_start; state_alloc.c frees
 * it here and never looks inside. The state's own flags (need_reinit, interrupt: state.h) are how
 * the rest of the engine asks it to restart or to stop. */
#ifndef ROD_INTEGRATOR_H
#define ROD_INTEGRATOR_H

#include "state.h"

struct dyn_solver;
void integrator_free(struct dyn_solver *d);
/* Whether the integrator keeps a history that a change of input can continue from (CVODE
 * running, no restart pending), and then in *t the time up to which it has integrated. */
int dyn_step_boundary(const rod_state *st, double *t);
/* A start in two halves, with the static start between them (start.c): prepare (re)creates
 * the integrator and puts the state at t = 0 at rest with no input ramps; begin starts the
 * integrator from the state's q (consistent with the constraints) and records the
 * constraints' reactions. ROD_OK or a negative code with the state's error set. */
int integrator_prepare(const rod_model *m, rod_state *st);
int integrator_begin(const rod_model *m, rod_state *st);
/* After CVode returned flag < 0 at t: the state's error names CVODE's failure, unless a
 * right-hand side has already set the cause. */
void integrator_cvode_error(rod_state *st, int flag, double t);
/* CVODE gets at most this many steps per call (both integrators, one rod's and several's). */
enum { INTEGRATOR_STEPS_PER_CALL = 5000 };
/* After CVode returned CV_TOO_MUCH_WORK at tret, the call having begun at t_before: 1 with the
 * state's error set when that call was stuck (its steps averaged under STUCK_MEAN_STEP of
 * max(1, |t|): integrator.c), else 0 with CVODE's "mxstep steps taken" cleared (only a piece of
 * a long advance). */
int integrator_stuck(rod_state *st, void *cvode_mem, double t_before, double tret);

#endif
