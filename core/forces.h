/* Generalized forces of the loads and actuators (the right-hand sides of Eqs. 55-58):
 * gravity and buoyancy, point and tip wrenches, cables (Eq. 53) and transverse muscles
 * (Eqs. 29, 54), each projected on q. */
#ifndef ROD_FORCES_H
#define ROD_FORCES_H

#include "state.h"

/* Q (n entries, overwritten) = B_xi u + F_xi and B_rho f0 at time t, all scaled by factor
 * (load stepping), for the poses st->g and Jacobians st->J already computed from q.
 * Returns 0, or -1 with the state's error set when an input is not finite. */
int forces_static(const rod_model *m, rod_state *st, const double *q, double t, double factor,
                  double *Q);

/* The local offset d = (Y1, Y2, 0) of a cable route and its derivative d/ds at s. */
void forces_cable_route(const rod_model *m, const spec_actuator *a, double s, double d[3],
                        double dd[3]);

#endif
