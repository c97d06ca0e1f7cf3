/* Low-Reynolds-number flow: slender-body (resistive-force) drag, seed 002's Stokes
 * swimmer (Fig. 11). Per unit length, f = -(4 pi mu / ln(L / r)) (I - t t^T / 2) v: a
 * section moving across its axis meets twice the resistance of one moving along it, with r
 * the deformed radius rho z(s) and t the centre line's unit tangent. No added mass, no
 * buoyancy: at Re << 1 inertia of the fluid does not enter. */
#ifndef ROD_FLOW_H
#define ROD_FLOW_H

#include "state.h"

/* The drag coefficient across the axis per unit length at a section of radius r. */
double flow_slender_perpendicular(const rod_model *m, double r);

/* Q += int J^T (0; f) ds over the Gauss points, for the body twists eta (6 per station) of
 * the current velocities and the poses and Jacobians in st. */
void flow_slender_body(const rod_model *m, rod_state *st, const double *q, const double *eta,
                       double factor, double *Q);

#endif
