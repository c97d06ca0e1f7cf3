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

#endif
