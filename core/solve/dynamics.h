/* Equations of motion (Eqs. 55-56, App. D); the integrator that advances them is
 * integrator.h's. */
#ifndef ROD_DYNAMICS_H
#define ROD_DYNAMICS_H

#include "state.h"

/* q_ddot from (t, q, q_dot): assembles M_xi = int J^T M-bar J, the Coriolis/centrifugal
 * terms J^T (M-bar J_dot q_dot + M-bar_dot eta + ad*_eta M-bar eta), water loads, gravity,
 * point loads and actuators, the Kelvin-Voigt damping and the rho equation with its
 * centrifugal term, then solves both blocks. Uses the state's scratch. Returns 0, or -1 with
 * the state's error set. */
int dyn_accel(const rod_model *m, rod_state *st, double t, const double *q, const double *qd,
              double *qdd);

/* dyn_accel at a q_dot other than the last call's, the last call on st having been at this
 * same (t, q): the kinematic Jacobians (a free base's columns too) and the mass matrix's factor
 * (an attached body's share too) are kept from it, which is most of the work (a difference
 * Jacobian's q_dot columns). The same numbers as dyn_accel. */
int dyn_accel_same_q(const rod_model *m, rod_state *st, double t, const double *q, const double *qd,
                     double *qdd);

/* The equations of motion's residual in force form for an acceleration x at (t, q, q_dot):
 * r = Q - K q - D q_dot - M x, which is zero where x is dyn_accel's q_ddot. M x is formed
 * station by station from the Jacobians, sum_k w_k J_k^T M_t (J_k x) (12 n_xi a station),
 * instead of M (3 n_xi^2 a station) and its factor: an implicit method's Newton evaluates
 * this more often than it forms its matrix. Only where dyn_residual_ok (no multipliers, no
 * attached bodies; penalty constraints' forces are in Q). The state keeps the Jacobians of q for dyn_mass. 0, or -1 with the
 * state's error set. */
int dyn_residual_ok(const rod_model *m);
int dyn_residual(const rod_model *m, rod_state *st, double t, const double *q, const double *qd,
                 const double *x, double *r);

/* M_xi's lower triangle (not factored) into st->Mxi at the (q, q_dot) of the state's last
 * dyn_residual, from its Jacobians. */
void dyn_mass(const rod_model *m, rod_state *st, const double *q, const double *qd);
/* dyn_residual in the wrench form (projection.h) where it applies, else dyn_residual: without
 * forming J, which is left stale (dyn_fresh_J), and with M x from the M that dyn_mass left in
 * st->Mxi (an earlier iterate's of the same step): the same residual to rounding where that M
 * is q's own */
int dyn_residual_wrench(const rod_model *m, rod_state *st, double t, const double *q, const double *qd,
                        const double *x, double *r);
/* J formed again at the q of a wrench-form evaluation, before a Newton matrix reads it */
void dyn_fresh_J(const rod_model *m, rod_state *st);

/* The kinematics at (t, q) for the constraints' rows: st->g and J, with the moving base's
 * motion at t applied (moving != 0) and a free base's pose. */
void dyn_pose(const rod_model *m, rod_state *st, double t, const double *q, int moving);

/* Projects (q, q_dot) onto the multiplier rows' c = 0 and c_dot = 0 at t in place (Newton in
 * the metric of M, whose factor must be in st->Mxi). 0, or -1 with the state's error set. */
int dyn_project(const rod_model *m, rod_state *st, double t, double *q, double *qd);

/* The generalized forces at the state's (t, q, q_dot) by kind (qfrc.h's QFRC_*): out gets
 * QFRC_KINDS vectors of n, kind after kind; total (n) gets M q_ddot, which they sum to (the
 * xi rows with M_xi, the rho rows with M_rho). Uses the state's scratch; 0, or -1 with the
 * state's error set. */
int dyn_forces_by_kind(const rod_model *m, rod_state *st, double *out, double *total);

/* The rod's own kinetic energy, (1/2) int eta^T M-bar eta ds + (1/2) q_dot_rho^T M_rho
 * q_dot_rho (the fluid's added mass excluded), from every station's body twist eta_all
 * (kin_forward_twist's, with a moving base's motion added where there is one). */
double dyn_kinetic_energy_of(const rod_model *m, const double *q, const double *qd,
                             const double *eta_all);

#endif
