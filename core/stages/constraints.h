/* Constraints (seeds/003): a point's pose (any of its six world components) or the volume
 * held, either exactly by Lagrange multipliers or approximately by penalties.
 *
 * Each constraint contributes rows c_r(q, t) (metres, radians, or relative volume) with their
 * gradient A_r = dc_r/dq. A multiplier row adds an unknown lambda_r with the generalized force
 * A_r^T lambda_r: lambda is the reaction the constraint applies to the rod (N for position
 * rows, N m for rotation rows, world frame; V0 times the pressure for volume rows). A penalty
 * row applies f_r = -k c_r - d c_r_dot the same way.
 *
 * Statics solves equilibrium and the multiplier rows together (constraints_statics_*).
 * Dynamics is the index-1 form, M q_ddot = F + A^T lambda with A q_ddot = -(A_dot q_dot) +
 * the targets' acceleration, and CVODE projects (q, q_dot) back onto c = 0, c_dot = 0 after
 * every step, so the drift stays at the projection's tolerance instead of growing. */
#ifndef ROD_CONSTRAINTS_H
#define ROD_CONSTRAINTS_H

#include "constraints_layout.h"
#include "state.h"

/* Statics: with st->g and st->J computed at q, Qc (n) += A^T (penalty forces + lambda) and
 * cm (nmult) = the multiplier rows' c, their targets moved from the reference by factor. */
void constraints_statics_terms(const rod_model *m, rod_state *st, const double *q,
                               const double *lambda, double t, double factor, double *Qc,
                               double *cm);
/* Column r of the multiplier rows' gradient A_m^T (n values) at the q of the last
 * constraints_statics_terms call. */
void constraints_mult_column(const rod_model *m, const rod_state *st, int r, double *col);
/* The scale of multiplier row r's violation for the residual: 1/L for positions, 1 else. */
double constraints_row_scale(const rod_model *m, int r);
/* The largest angle |angle(t)| that a pose constraint holding a rotation asks for at t (0 if
 * none): statics reaches it by load steps of at most a quarter turn from the rest shape,
 * since a held rotation reads its angle through a rotation matrix, modulo 2 pi. */
double constraints_max_turn(const rod_model *m, rod_state *st, double t);
/* Statics: multiplier rows that vanish (a component the strains in use cannot move) or nearly
 * depend on each other at q (st->g and J at q, the base applied at st->t, from the caller:
 * dyn_pose); 0, -1 with the state's error naming the constraints, or ROD_ENOMEM. */
int constraints_check_rank(const rod_model *m, rod_state *st, const double *q);
/* Statics with a free base: 0 when the constraints' rows hold all six rigid motions of the rod
 * at q (relative poses hold none: they move with the rod), else -1 with the state's error
 * saying how many they hold. 0 unless the base is free. st->g and J at q from the caller (only
 * the free base's pose applied: dyn_pose with moving 0). */
int constraints_check_base(const rod_model *m, rod_state *st, const double *q);

/* Dynamics (the end of dyn_accel): with st->g, J, eta, bias at (q, q_dot) and st->Mxi the
 * Cholesky factor of M_xi, adds the penalty forces and the multipliers' correction to qdd.
 * 0, or -1 with the state's error set. */
int constraints_accel(const rod_model *m, rod_state *st, double t, const double *q,
                      const double *qd, double *qdd);
/* The penalty rows' generalized force A^T (-k c - d c_dot) added to Q (n) at (t, q, q_dot),
 * with st->g, J and eta at (q, q_dot): what constraints_accel adds to q_ddot before M^{-1},
 * for a residual in force form where no row has a multiplier (dyn_residual). Leaves the rows
 * for constraints_penalty_add. */
void constraints_penalty_residual(const rod_model *m, rod_state *st, double t, const double *q,
                                  const double *qd, double *Q);
/* Q (n) += A^T lambda over every row at the last constraints_accel: the multipliers' and
 * the penalties' generalized force. */
void constraints_force(const rod_model *m, const rod_state *st, double *Q);
/* v (n) -= the penalty rows' k A^T A e_j (rate 0) or d A^T A e_j (rate 1) at the last
 * constraints_accel: the penalties' part of the stiff Jacobian (before M^{-1}). */
void constraints_penalty_column(const rod_model *m, const rod_state *st, int j, int rate, double *v);
/* K (n x n, column-major, leading dimension ld) += wk times the penalty rows' k A^T A and
 * C += wc times their d A^T A, at the last constraints_accel (C may be K). */
void constraints_penalty_add(const rod_model *m, const rod_state *st, double wk, double *K,
                             double wc, double *C, int ld);
/* v (n) <- (I - M^{-1} A^T S^{-1} A) v with S = A M^{-1} A^T at the last constraints_accel:
 * an acceleration with the multipliers' response taken out, for the Jacobian of the stiff
 * part (a column of -M^{-1} K becomes what the constrained system does). */
void constraints_project_column(const rod_model *m, rod_state *st, double *v);
/* Several rods (the solve layer's assemblies): a rod's multiplier rows are held there as its
 * joints are, their drift pulled back instead of projected after each step.
 * constraints_pull_back, after constraints_accel (with q_dot): A q_ddot gains
 * -2 alpha c_dot - alpha^2 c, the multipliers with it; still (statics, q_dot = 0): A q_ddot
 * becomes -alpha^2 (c - relax c0), the targets' motion left out and the rows held at relax
 * times their violations c0 (nmult, NULL: none) where statics started, a continuation from
 * there. constraints_mult_values: the multiplier rows' c (nmult) at the last evaluation.
 * constraints_respond: the multipliers'
 * response to a generalized force g (n) put on the rod from outside after constraints_accel
 * (the joints', whose accelerations the caller took through constraints_project_column):
 * lam gains -S^{-1} A M^{-1} g; and the rows' violations recorded for frames. */
void constraints_pull_back(const rod_model *m, rod_state *st, double alpha, int still, double relax,
                           const double *c0, double *qdd);
void constraints_mult_values(const rod_model *m, const rod_state *st, double *c);
void constraints_respond(const rod_model *m, rod_state *st, const double *g);
/* Whether the state's last constraint error was multiplier rows that (nearly) depend on each
 * other (no start or step changes that). */
int constraints_dependent(const rod_state *st);
/* The projection of (q, q_dot) onto the multiplier rows' c = 0 and c_dot = 0, Newton in the
 * metric of M (whose factor must be in st->Mxi); the solve layer's dyn_project orders the steps
 * and evaluates the kinematics between them. constraints_linearize: with st->g and J at q,
 * evaluates the rows at (t, q), puts their largest violation (scaled as statics scales it) in
 * *err and factors S; 0, or -1 with the state's error set. constraints_newton_q: q -= the
 * Newton correction of the last constraints_linearize. constraints_newton_qd: with st->g, J,
 * eta and bias at (q, q_dot), q_dot -= its part that moves off c_dot = 0 (S from the last
 * constraints_linearize, at this q). */
int constraints_linearize(const rod_model *m, rod_state *st, double t, const double *q, double *err);
void constraints_newton_q(const rod_model *m, rod_state *st, double *q);
void constraints_newton_qd(const rod_model *m, rod_state *st, double t, const double *q, double *qd);
/* Records the reactions and violations at the state's (t, q, q_dot) for frames: after a
 * statics solve, from its multipliers lambda; in dynamics (lambda NULL), what the last
 * evaluation of the accelerations left in the rows (the caller evaluates them first; with
 * lambda, st->g and J at st->q and st->t from the caller: dyn_pose). */
void constraints_record(const rod_model *m, rod_state *st, const double *lambda);
/* The multipliers constraints_record kept (nmult values, statics' order), into lambda. */
void constraints_multipliers(const rod_model *m, const rod_state *st, double *lambda);

/* Frames: the recorded values of constraint i. */
/* force[3], moment[3] (N, N m, world, on the rod at the constrained point; a relative pose puts
 * the opposite force, and the opposite moment less d x force, on the point it is relative to), violation (m or rad: the largest held
 * component; relative for volume), pressure (Pa, volume only). */
void constraints_reaction(const rod_state *st, int i, double force[3], double moment[3],
                          double *violation, double *pressure);

/* Pose constraint i's target position (world) at the state's time: the held components'
 * targets, the point's own (point, m) elsewhere; for a relative pose those components are in
 * the frame gb of the point it is relative to. */
void constraints_target_position(const rod_state *st, int i, const double point[3],
                                 const lie_pose *gb, double out[3]);
/* The point a relative pose is relative to (m from the base), or -1 for a world pose. */
double constraints_relative_s(const rod_model *m, int i);

#endif
