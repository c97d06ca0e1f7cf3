/* Generalized forces of the loads and actuators (the right-hand sides of Eqs. 55-58):
 * gravity and buoyancy, point and tip wrenches, cables (Eq. 53) and transverse muscles
 * (Eqs. 29, 54), each projected on q. */
#ifndef ROD_FORCES_H
#define ROD_FORCES_H

#include "state.h"

/* The rod's weight less its buoyancy (Q += , all scaled by factor) for the poses st->g and
 * Jacobians st->J already computed from q. */
void forces_gravity(const rod_model *m, const rod_state *st, const double *q, double factor,
                    double *Q);
/* Input i, a load (tip, point or distributed wrench), at time t into Q. 0, or -1 with the
 * state's error set when its scale is not finite. */
int forces_load(const rod_model *m, rod_state *st, int i, double t, double factor, double *Q);
/* The cables and transverse pressures (Eqs. 29, 53, 54) at time t into Q. 0, or -1 with the
 * state's error set when a value is not finite. */
int forces_actuators(const rod_model *m, rod_state *st, const double *q, double t, double factor,
                     double *Q);

/* The local offset d = (Y1, Y2, 0) of a cable route and its derivative d/ds at s. */
void forces_cable_route(const rod_model *m, const spec_actuator *a, double s, double d[3],
                        double dd[3]);

#endif
