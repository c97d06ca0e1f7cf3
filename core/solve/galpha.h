/* The generalized-alpha method (Chung & Hulbert 1993, in Arnold & Bruels' form for
 * q_ddot = f(t, q, q_dot)) at a fixed step: second order, with a controllable spectral radius
 * rho_inf at infinite step, so the high modes a release excites are damped instead of
 * resolved (BDF's error control tracks them at steps far below what the first modes need).
 * No error control: the step is the spec's solver.step. A free base is re-charted between
 * steps as CVODE's advance does it (base.h). */
#ifndef ROD_GALPHA_H
#define ROD_GALPHA_H

#include "state.h"

typedef struct galpha galpha;

galpha *galpha_create(const rod_model *m);
void galpha_free(galpha *g);
/* Starts at the state's (t, q, q_dot): the pseudo-acceleration is the true one there. */
int galpha_restart(galpha *g, const rod_model *m, rod_state *st);
/* Steps until t_end lies inside the last step, then puts the cubic Hermite interpolant of
 * (q, q_dot) at t_end into the state; the method keeps its own state at the step's end. */
int galpha_advance(galpha *g, const rod_model *m, rod_state *st, double t_end);
void galpha_add_stats(const galpha *g, rod_dynamics_stats *out);

#endif
