/* The wrench form of the equations of motion: the generalized forces of the wrenches on the
 * stations without forming the stations' Jacobians.
 * With J_k = Ad_{g_k}^{-1} J_s,k (g_k on the rod's own base; J_s,k the base-frame Jacobian, a
 * sum over the Magnus steps before station k of C_s = Ad_g T Phi_Omega), J^T W summed over the
 * stations is sum_s C_s^T V_s, V_s the base-frame wrenches Ad_{g_k}^{-T} W_k of every station
 * at or after step s: one pass back along the rod, 6 x npts dot products and npts x n_xi
 * products a step, instead of J's 6 x n_xi columns a step and a conversion a station. */
#ifndef ROD_PROJECTION_H
#define ROD_PROJECTION_H

#include "state.h"

/* Q_xi += sum_k J_k^T W_k for st->W_station's wrenches */
void proj_wrenches(const rod_model *m, const rod_state *st, const double *B, double *Q);

#endif
