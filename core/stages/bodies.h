/* Rigid bodies attached at points of the rod (spec "bodies"): their inertia joins the mass
 * matrix through the point's Jacobian, their weight (less buoyancy) the loads. A body's centre
 * of mass sits at an offset o from the rod's axis, fixed in the rod's local frame at s, so its
 * body twist is eta_c = (omega, v + omega x o) of the point's eta. */
#ifndef ROD_BODIES_H
#define ROD_BODIES_H

#include "state.h"

/* Dynamics (inside dyn_accel, before M_xi is factored): with st->g, J, eta, bias at the
 * state, M (n_xi x n_xi, lower triangle, column-major) += J_c^T M_b J_c, Qload (n) += J_c^T
 * weight and Qinertia (n) += J_c^T (- M_b J_c_dot q_dot - ad*_eta_c M_b eta_c); both may be
 * the same vector. M may be NULL: the forces alone (they do not depend on M). */
void bodies_dynamics(const rod_model *m, const rod_state *st, double *M, double *Qload, double *Qinertia);
/* Statics: Q (n) += factor J_c^T (weight), with st->g and st->J at q. */
void bodies_static_forces(const rod_model *m, const rod_state *st, double factor, double *Q);
/* The bodies' kinetic energy (eta: every station's body twist, or NULL at rest) and
 * gravitational potential (less buoyancy), from the station poses g. */
void bodies_energy(const rod_model *m, const lie_pose *g, const double *eta, double *kinetic,
                   double *gravity);

/* Body b's centre of mass in the world, from the pose g of its attachment point. */
void bodies_position(const rod_model *m, int b, const lie_pose *g, double r[3]);

#endif
