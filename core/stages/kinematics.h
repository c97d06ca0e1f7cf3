/* Forward kinematics along the rod (Eqs. 43-46, App. C): pose g and geometric Jacobian J at
 * every station of the model, `substeps` Magnus steps (magnus.h: 4th-order Zanna or 6th
 * order, the model's rule) from each station to the next. */
#ifndef ROD_KINEMATICS_H
#define ROD_KINEMATICS_H

#include "lie.h"
#include "lie_plane.h"
#include "model.h"

/* Magnus expansion of one step of length h from the strains at the two Zanna points:
 * Omega = h/2 (xi1 + xi2) + sqrt(3) h^2 / 12 ad_xi1 xi2. */
void kin_zanna_omega(const double xi1[6], const double xi2[6], double h, double Omega[6]);

/* g[k] and, when J is not NULL, J[k] (6 x n_xi, column-major, body frame) for every
 * station k; q holds q_xi first. */
void kin_forward(const rod_model *m, const double *q, lie_pose *g, double *J);

/* The same with one step per station interval whatever the model's substeps: the same
 * order, on the Gauss points' spacing. For Newton matrices, where the kinematics' error only
 * slows the convergence, never moves the solution (the residuals use kin_forward). */
void kin_forward_coarse(const rod_model *m, const double *q, lie_pose *g, double *J);

/* With velocities as well: eta[k] = J[k] q_dot (body twist, Eq. 45) and bias[k] = J_dot[k]
 * q_dot (the acceleration twist of Eq. 47 when q_ddot = 0), each 6 per station, by the
 * recursion of App. C differentiated in time: per Magnus step,
 *   eta'  = Ad^{-1} (eta + T Omega_dot),
 *   bias' = Ad^{-1} (bias + ad_eta T Omega_dot + T_dot Omega_dot + T Phi_Omega_dot q_dot).
 * J may be NULL: the poses, twists and biases alone, the same numbers (J depends on q only). */
void kin_forward_vel(const rod_model *m, const double *q, const double *qd, lie_pose *g, double *J,
                     double *eta, double *bias);

/* The same on a state's g, J, eta and bias (J only when with_J; kin_forward_state: g and J,
 * coarse as kin_forward_coarse), with the Jacobians of the model's deferred stations (model.h
 * J_deferred: a contact point's own station) left in the base frame with their poses: a
 * contact model's stations are mostly contact points, most touch nothing, and converting every
 * column at each of them was a fifth of its right-hand side. Read any J that may be deferred
 * through state_J (state.h), which finishes it on first use. */
typedef struct {
    unsigned char *pending; /* ns: J there is J_s, still to convert */
    lie_pose *pose;         /* ns: the pose that converts it */
} kin_defer;
kin_defer kin_defer_of(const rod_model *m, rod_state *st);

/* The wrench form (projection.h): the poses, twists and biases as kin_forward_vel_state's, the
 * poses also in st->g_rel (on the rod's own base, which base_apply then leaves alone), and
 * instead of J each Magnus step's G = Ad_g T_Omega and alphas (st->step_w); J is left stale
 * (dyn_fresh_J forms it again from q). Not for planar rods. */
void kin_forward_vel_wrench(const rod_model *m, rod_state *st, const double *q, const double *qd);
void kin_forward_state(const rod_model *m, rod_state *st, const double *q, int coarse);
void kin_forward_vel_state(const rod_model *m, rod_state *st, const double *q, const double *qd, int with_J);

/* Poses and body twists only (no Jacobian): what the kinetic energy needs. */
void kin_forward_twist(const rod_model *m, const double *q, const double *qd, lie_pose *g,
                       double *eta);

/* e_j = exp(Omega_j) for nsteps steps of the model's rule, each on its own, with the beta
 * rows beta (nsteps x npts x n_xi, model_step_beta's), the rest strain's rows star (nsteps x
 * npts x 6, model_step_star's; NULL for the straight rod) and lengths h (output frames between
 * stations, frame_table.h: a point's pose is its station's times its steps' e_j). The steps do
 * not wait for each other, so the processor overlaps them: chained into the points' poses one
 * step at a time, the frame's steps took a quarter of the cantilever bench's time, 15 % so. */
void kin_step_exps(const rod_model *m, const double *q, const double *beta, const double *star,
                   const double *h, int nsteps, lie_pose *e);
/* The same for a planar model (model.h's planar) as the plane's poses (plane_to_pose gives
 * kin_step_exps's e_j, bit for bit), from the beta rows' columns side by side: beta_t holds
 * n_xi rows of nsteps x npts (frame_table.h). Each alpha is the same sum in the same order as
 * kin_step_exps's, but the products of a column run across all the steps in vectors instead
 * of a few at a time through the columns: the alphas were half of the frame's steps' time.
 * scratch holds 3 nsteps npts doubles. */
void kin_step_exps_plane(const rod_model *m, const double *q, const double *beta_t, const double *star,
                         const double *h, int nsteps, double *scratch, plane_pose *e);

#endif
