/* The generalized forces of the equations of motion, kind by kind (qfrc.c sums the stages'
 * forces: forces.h, muscle.h, contact.h, flow.h). */
#ifndef ROD_QFRC_H
#define ROD_QFRC_H

#include "state.h"

/* The kinds of generalized force the equations of motion sum, kept apart where a test or a
 * viewer asks for them (MuJoCo keeps qfrc_passive, qfrc_actuator, qfrc_constraint): the
 * stiffness -K q, the Kelvin-Voigt damping -D q_dot, the actuators (cables, transverse and
 * muscle couples), the loads (gravity and buoyancy on the rod and its bodies, point and tip
 * wrenches), contact (obstacles, self-contact), the fluid (drag and lift, slender-body drag;
 * the added mass is in the mass matrix), the inertial bias (Coriolis, centrifugal, the section's
 * breathing) and the constraints (A^T lambda and the penalties). rod.h's ROD_QFRC_* are these. */
enum { QFRC_ELASTIC = ROD_QFRC_ELASTIC, QFRC_DAMPING = ROD_QFRC_DAMPING, QFRC_ACTUATOR = ROD_QFRC_ACTUATOR,
       QFRC_LOAD = ROD_QFRC_LOAD, QFRC_CONTACT = ROD_QFRC_CONTACT, QFRC_FLUID = ROD_QFRC_FLUID,
       QFRC_INERTIA = ROD_QFRC_INERTIA, QFRC_CONSTRAINT = ROD_QFRC_CONSTRAINT, QFRC_KINDS = ROD_QFRC_COUNT };

/* Q (n entries, overwritten) = B_xi u + F_xi and B_rho f0 at time t, all scaled by factor
 * (load stepping), for the poses st->g and Jacobians st->J already computed from q.
 * Returns 0, or -1 with the state's error set when an input is not finite. */
int forces_static(const rod_model *m, rod_state *st, const double *q, double t, double factor,
                  double *Q);
/* The same with each kind into its own vector: Q[QFRC_ACTUATOR], [QFRC_LOAD] (the rod's
 * weight and the loads; the bodies' weight is bodies.h's), [QFRC_CONTACT] and [QFRC_FLUID]
 * (slender-body drag) are overwritten; any of them may be the same vector, which then gets
 * their sum (forces_static passes one vector for all, at no cost over summing into it). */
int forces_by_kind(const rod_model *m, rod_state *st, const double *q, double t, double factor,
                   double *const *Q);

#endif
