/* A generalized-alpha Newton correction with the walls' laws solved along it
 * (solver.contact_laws "solved", the default with solver.jacobian "contact").
 *
 * Newton's matrix holds a wall's stiffness and the friction's slope at the iterate; where the
 * true motion sticks, an iterate that slips sees no friction along its slip (the force's size
 * is fixed there) and the next goes as far the other way: the snake's 4 ms steps cycled with
 * corrections of about 200 tolerances and were halved to 2 ms through every stick phase. Here a
 * correction dx solves
 *
 *     G(dx) = r - S0 dx + sum over the walls' points of ds Jv^T (F(dx) - F(0)) = 0,
 *
 * S0 the matrix without the walls (mass, K, D, penalties), each wall's law evaluated exactly
 * at its point moved by dx through the kinematics linearized at the iterate
 * (contact_lin_force): an inner Newton whose iterations cost the contacts' laws and an n x n
 * factorization, not an evaluation of the rod. Each point's friction holds its share of the
 * static coefficient at the iterate's slip (contact.c lin_point_state: the fall past v_eps would
 * give a correction two solutions, stuck and sliding). An inner step goes no further than a
 * sliding point's reversal through its stick disk (contact_lin_line_limit), is cut back until
 * the residual (scaled by S0's diagonal) falls, and the matrix is kept while the steps contract
 * quickly (also into the next correction of the same try). The limiter took the snake with
 * v_eps 1e-6 from 2,678 evaluations for its first second to 996 (at BDF's tip to 0.7 mm at
 * 0.25 s), and 23 perturbed snakes' first 0.05 s (v_eps 1e-4) from 2,868 to 2,553. */
#ifndef ROD_WALL_NEWTON_H
#define ROD_WALL_NEWTON_H

#include "contact.h"

typedef struct wall_newton wall_newton;

/* NULL: no memory. */
wall_newton *wall_newton_create(const rod_model *m);
void wall_newton_free(wall_newton *w);

/* S0, the n x n matrix without the walls (column-major), for the step's cq and cv: filled by
 * the caller at a try's first correction, which also says the kept matrix is gone. */
double *wall_newton_smooth(wall_newton *w);
void wall_newton_new_try(wall_newton *w);

/* The correction for the residual r at the iterate whose points L holds, into dx; wq and wv
 * weigh dx into the error norm (cq / (rtol |q| + atol), cv / (rtol |q_dot| + atol_v)), the inner
 * iteration ends when its step's norm is below tol. 1: converged; 0: not (the correction is
 * where it stopped: not to be taken as converged); -1: a singular matrix. */
int wall_newton_solve(wall_newton *w, contact_lin *L, const double *r, double cq, double cv,
                      const double *wq, const double *wv, double tol, double *dx);

/* Matrices factored and law passes made so far. */
void wall_newton_counts(const wall_newton *w, long *matrices, long *passes);

#endif
