/* The rod's base: clamped at the origin (the default), or moving on a prescribed pose
 * g_b(t) (spec "base": {"type": "moving", "position": [3 profiles], "rotation": {"axis",
 * "angle"}}), a robot arm carrying the soft arm or a shaken rod.
 *
 * The kinematics run relative to the base as for a clamped rod; base_apply then puts the
 * stations in the world, g = g_b g_rel, and adds the base's motion to their body twists and
 * acceleration biases:
 *   eta  = eta_rel + e,                    e = Ad_{g_rel}^{-1} eta_b,
 *   bias = bias_rel + Ad_{g_rel}^{-1} eta_b_dot + ad_e eta_rel,
 * the last term being the time derivative of Ad_{g_rel}^{-1} along the rod's own motion. The
 * Jacobian J (body frame) is unchanged. With world poses, gravity and dead loads need nothing
 * else. */
#ifndef ROD_BASE_H
#define ROD_BASE_H

#include "state.h"

int base_moving(const rod_model *m);
/* The base's pose at t, its body twist and body acceleration (either may be NULL). */
void base_motion(const rod_model *m, profile_eval *ev, double t, lie_pose *gb, double eta_b[6],
                 double acc_b[6]);
/* n station poses relative to the base -> world; eta, bias (6 per station, may be NULL)
 * gain the base's motion. Nothing for a clamped base. */
void base_apply(const rod_model *m, profile_eval *ev, double t, lie_pose *g, int n, double *eta,
                double *bias);

/* A free base (spec "base": {"type": "free"}): its pose g_b = exp(x) with x the exponential
 * coordinates q_xi[base_col .. base_col + 5] (angular first, as every twist here), so the
 * integrator's [q; q_dot] form holds with x_dot = q_dot. Its body twist is
 *   eta_b = B(x) x_dot,   B = Ad_{exp x}^{-1} T_x   (T: lie_dexp),
 * and its acceleration with x_ddot = 0 is Ad_{exp x}^{-1} T_dot x_dot. base_free_apply puts n
 * stations relative to the base into the world as base_apply does, and fills their Jacobians'
 * base columns (J: 6 x n_xi per station, may be NULL) with Ad_{g_rel}^{-1} B, so the mass
 * matrix and every generalized force projected through J act on the base as well. Nothing
 * unless the base is free. T_x is singular where the rotation angle |x_w| reaches 2 pi:
 * base_free_rechart moves x to the same pose's coordinates with |x_w| <= pi (x_w - 2 pi x_w/|x_w|)
 * and x_dot to the same twist; the integrator does it at every restart and when
 * base_free_chart_root (positive while |x_w| < 3 pi / 2) crosses zero. */
int base_free(const rod_model *m);
void base_free_pose(const rod_model *m, const double *q, lie_pose *gb);
/* A free base's columns of every station's J before the station's pose: J_k's base columns are
 * Ad_{g_k}^{-1} B (g_k on the rod's own base). 1 with B, 0 without a free base. */
int base_free_columns(const rod_model *m, const double *q, double B[36]);
void base_free_apply(const rod_model *m, const double *q, const double *qd, lie_pose *g, double *J,
                     int n, double *eta, double *bias);
void base_free_rechart(const rod_model *m, double *q, double *qd);
/* The free base's x_dot (qd[base_col ..]) that gives it the body twist eta_b at q:
 * T_x x_dot = Ad_{exp x} eta_b. */
void base_free_rate(const rod_model *m, const double *q, const double eta_b[6], double *qd);
double base_free_chart_root(const rod_model *m, const double *q);

#endif
