/* A model of several rods in the solve layer (assembly.h holds its data). The files depend one
 * way: asm_state.c (the states, placing the joined rods) < asm_rows.c (the joints' rows) <
 * asm_dynamics.c (the constrained accelerations) < asm_integrator.c, asm_statics.c,
 * asm_forces.c, asm_frame.c < entry.c (rod.h's entry points). */
#ifndef ROD_ASM_H
#define ROD_ASM_H

#include "assembly.h"
#include "state.h"

/* asm_state.c: st (rod 0's state, created by the caller) gains every other rod's state and the
 * assembly's arrays, its q put at the rest placement. 0, or -1 with err set. */
int asm_state_attach(const rod_model *m, rod_state *st, char *err, size_t errlen);
/* Frees what asm_state_attach added (the integrator is the caller's to free first). */
void asm_state_detach(rod_state *st);
/* Each rod's state gets the assembly's t, q and q_dot (frames, inputs read them there). */
void asm_sync(const rod_model *m, rod_state *st);
/* q (the assembly's) at rest: the free stubs where their spec puts them, every joined rod's
 * base where its joint holds it (parents first), riding it (q_dot 0 but for the bases of
 * rods on a moving body), at time t. */
void asm_place(const rod_model *m, rod_state *st, double t, double *q, double *qd);
/* Every joined rod's base set riding its joint's frame (q_dot, parents first), its strains'
 * rates left as they are: after statics, where a moving body's motion was frozen. */
void asm_ride(const rod_model *m, rod_state *st, double t, const double *q, double *qd);
/* Sets an error on the top state from rod r's. */
void asm_error_from(rod_state *st, int r);

/* asm_rows.c: the joints' rows at the rods' last dyn_accel (their g, J, eta, bias at (q,
 * q_dot)): A (nrows x n, column-major), the right side of A q_ddot = rhs with the drift
 * pulled back at rate alpha (1/s: -2 alpha c_dot - alpha^2 c), and each row's violation err
 * (m or rad) and its rate (the held twist component, m/s or rad/s: c_dot where c = 0); the
 * locks' rows hold the stubs' strain coordinates (q, q_dot) at 0. */
void asm_rows(const rod_model *m, rod_state *st, const double *q, const double *qd, double alpha, double *A,
              double *rhs, double *err, double *rate);

/* asm_dynamics.c: q_ddot of every rod with the joints' multipliers (st->as->lambda), the drift
 * pulled back at rate alpha. 0, or -1 with the state's error set. */
int asm_accel(const rod_model *m, rod_state *st, double t, const double *q, const double *qd,
              double *qdd, double alpha);
/* asm_accel in its two halves: rod i's own q_ddot (its slice of qdd) at (t, q, q_dot), leaving
 * its kinematics and M's factor in its state; then the joints' multipliers added to qdd from
 * what every rod's state holds (a Jacobian column redoes one rod and the join). */
int asm_accel_rod(const rod_model *m, rod_state *st, int i, double t, const double *q, const double *qd,
                  double *qdd);
int asm_join(const rod_model *m, rod_state *st, const double *q, const double *qd, double *qdd, double alpha);
/* asm_contact.c: the rods' contacts with each other (environment.self_contact), added to qdd
 * (q_dot NULL: at rest, no damping; through a rod's own constraints where it has them); Q: n
 * of scratch. Reports in st->as->contact, the generalized forces in st->as->qc. */
int asm_contact(const rod_model *m, rod_state *st, const double *q, const double *qd, double *qdd, double *Q);
/* The largest row violation at the last asm_accel (m or rad). */
double asm_violation(const rod_model *m, const rod_state *st);
/* The pull-back rate the dynamics use (1/s). */
double asm_alpha(const rod_model *m);

/* asm_integrator.c */
void asm_integrator_free(struct asm_solver *d);
int asm_start(const rod_model *m, rod_state *st, int static_start);
int asm_advance(const rod_model *m, rod_state *st, double t_end);
int asm_stats(const rod_state *st, rod_dynamics_stats *out);

/* asm_statics.c */
int asm_statics(const rod_model *m, rod_state *st, double t, rod_statics_result *res);

/* asm_checkpoint.c: rod_state_save / _load of several rods */
char *asm_save(const rod_model *m, rod_state *st);
int asm_load(const rod_model *m, rod_state *st, const char *json, size_t len);

/* asm_forces.c: rod_state_generalized_forces of several rods (out: ROD_QFRC_COUNT x n, total
 * n or NULL); ROD_OK or an error code with the state's error set */
int asm_forces(const rod_model *m, rod_state *st, double *out, double *total);

/* asm_frame.c */
int asm_frame(const rod_model *m, const rod_state *st, int n, rod_frame *out);

/* asm_forces.c: rod_state_generalized_forces of several rods (each rod's kinds, the joints'
 * reactions in the constraint kind, the rods' contacts in the contact kind) */
int asm_forces(const rod_model *m, rod_state *st, double *out, double *total);

#endif
