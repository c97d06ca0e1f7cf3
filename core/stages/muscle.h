/* Muscle couples (seed 002, Figs. 6 and 10): an internal bending moment about d1 or d2,
 * M(s, t) = beta(X~) sin(2 pi (t / T - X~ L / lambda) + phi), X~ = 1 - s / L, whose
 * amplitude beta is a cubic B-spline with the spec's control values (head first: the head
 * is the tip, the rod's forward end) and zeros added at both ends, as the seed's authors
 * build it. The wave runs from the head to the tail, as a snake's does. */
#ifndef ROD_MUSCLE_H
#define ROD_MUSCLE_H

#include "state.h"

/* The amplitude at X in [0, 1] for control values beta[0..n-1]: the clamped cubic B-spline
 * with coefficients (0, beta_0, ..., beta_{n-1}, 0) on knots 0,0,0,0, 1/(n-1), ...,
 * (n-2)/(n-1), 1,1,1,1. */
double muscle_bspline(int n, const double *beta, double X);

/* Adds the generalized force of muscle actuator a (input first_input.. its betas) at time t,
 * scaled by factor, to Q: Q_xi += int Phi_xi^T M e_about ds, the virtual work of an
 * internal moment on the curvature (so it needs no reaction: a free snake keeps its
 * momentum). Returns 0, or -1 with the state's error set when a beta is not finite. */
int muscle_forces(const rod_model *m, rod_state *st, int a, double t, double factor, double *Q);

#endif
