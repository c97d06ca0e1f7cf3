/* A Magnus step's derivatives as 6x6 block matrices [[A, 0], [B, A]]: the tangent operator
 * T_Omega, Ad_g T_Omega, and G dOmega/dalpha_i for each alpha of the step (what the kinematic
 * recursion's Jacobian adds per step, core/stages/kinematics.c), formed as block products
 * instead of a magnus_slot and a matrix-vector product per component and point. */
#ifndef ROD_MAGNUS_BLOCKS_H
#define ROD_MAGNUS_BLOCKS_H

#include "lie.h"
#include "magnus.h"

/* A 6x6 matrix of the form [[A, 0], [B, A]] (3x3 blocks, column-major): ad, Ad, T and their
 * products all have it. */
typedef struct {
    double A[9], B[9];
} blk6;

/* One Magnus step as the wrench form of the equations of motion keeps it (projection.h): G =
 * Ad_g T_Omega, g the pose before the step, and the step's alphas and brackets; its Jacobian
 * columns are G dOmega/dalpha_i e_c, used without being formed. */
typedef struct {
    blk6 G;
    magnus_step ms;
} blk6_step;

/* y = M x */
void blk6_apply(const blk6 *M, const double x[6], double y[6]);
/* T = T_Omega (= sum_j c_j ad_Omega^j) of the tangent tc */
void blk6_dexp(const lie_tangent *tc, blk6 *T);
/* G = Ad_g T */
void blk6_Ad(const lie_pose *g, const blk6 *T, blk6 *G);
/* W_i = G dOmega/dalpha_i for the step ms (magnus_eval done: its brackets are used), i < npts */
void blk6_slots(const blk6 *G, const magnus_step *ms, blk6 W[MAGNUS_MAX_POINTS]);

#endif
