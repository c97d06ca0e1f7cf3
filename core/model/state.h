/* A session's mutable state (MuJoCo's mjData): coordinates, time, the inputs' current
 * profiles, the expression evaluator and all scratch, so no hot-path call allocates. */
#ifndef ROD_STATE_H
#define ROD_STATE_H

#include <stdatomic.h>

#include "lie.h"
#include "magnus_blocks.h"
#include "model.h"
#include "profile.h"

/* The profiles an input had before the commands still ramping in (input_blend.c). */
enum { INPUT_CHAIN_MAX = 8 };
typedef struct {
    profile from[INPUT_CHAIN_MAX]; /* before command j */
    double t0[INPUT_CHAIN_MAX];    /* where command j's ramp starts */
    int n;
} input_chain;

struct rod_state {
    const rod_model *m;
    double t;
    double *q, *qd;          /* n each */
    profile *input;          /* ninputs: the profile in force for each input */
    char **input_src;        /* ninputs: a profile a command set (JSON text), else NULL */
    input_chain *chain;      /* ninputs: commands still ramping in */
    double changed_at;       /* where the latest input change takes effect */
    profile_eval *ev;
    char err[512];
    /* scratch */
    lie_pose *g;             /* ns */
    double *J;               /* ns x 6 x n_xi; read through state_J at a station that may be
                              * deferred (model.h J_deferred) */
    unsigned char *J_pending; /* ns: J there still in the base frame (kinematics.h); NULL
                               * without deferred stations */
    lie_pose *J_pose;        /* ns: the pose that brings a pending J to the body frame */
    /* The wrench form of a residual (projection.h): J is not formed; the wrenches on the
     * stations are summed there and projected back along the rod in one pass. */
    int wrench_mode;         /* the force stages sum into W_station instead of projecting */
    int J_stale;             /* J is not the last evaluation's: formed again from kin_q when read */
    double *kin_q;           /* n: the q of the last wrench-form kinematics */
    double *W_station;       /* ns x 6: the body wrenches summed at each station */
    blk6_step *step_w;       /* nsteps: the Magnus steps; NULL where no wrench form */
    lie_pose *g_rel;         /* ns: the stations' poses on the rod's own base */
    double *vec_n;           /* n */
    double *eta, *bias;      /* ns x 6: body twists and J_dot q_dot */
    double *Mxi;             /* n_xi x n_xi mass matrix, then its Cholesky factor */
    double *Q;               /* n: generalized forces */
    struct con_work *con;    /* constraints' rows, multipliers and scratch (constraints_layout.h) */
    /* the body twists at every station while dyn_accel evaluates the forces (velocity
     * dependent loads: contact damping, friction, slender-body drag); NULL in statics */
    const double *vel_eta;
    /* contact scratch: sweep order (ncontact), keys (2 ncontact) and points (ncontact) */
    int *contact_order;
    double *contact_key;
    struct contact_point *contact_pts;
    /* dynamics: the integrator, created on the first rod_dynamics_start */
    struct dyn_solver *dyn;
    int need_reinit;         /* restart the integrator at st->t before the next step */
    atomic_int interrupt;    /* set by rod_state_interrupt from any thread */
    /* a model of several rods: every rod's state, the joints' multipliers and the integrator
     * of them all (assembly.h); NULL for one rod */
    struct asm_state *as;
};

/* The value of input i at (t, X). Actuator values are clamped at 0: cables pull, muscles
 * squeeze. */
double state_input_value(rod_state *st, int i, double t, double X);
/* The same before that clamp, the ramps of recent commands included (input_blend.c). */
double state_input_raw(const rod_state *st, int i, double t, double X);
/* Input i's profile was replaced (st->input[i] holds the new one, `before` the old): ramps it
 * in from the integrator's step boundary t_n when solver.command_ramp > 0 and the integrator
 * keeps a history (t_n not NULL: dyn_step_boundary), else marks a restart at the session's
 * time. */
void state_input_changed(rod_state *st, int i, const profile *before, const double *t_n);
/* Forgets every ramp: the inputs are what st->input says from now on (a restart, a reset). */
void state_input_chains_clear(rod_state *st);
/* Input i at (t, X = 0) with its first two time derivatives, ramps included. */
void state_input_value_derivs(const rod_state *st, int i, double t, double out[3]);
/* Input i with its time-only parts fixed at t (profile_fix_t for each profile in its ramps),
 * for evaluation at many stations. */
typedef struct {
    profile_at_t p[INPUT_CHAIN_MAX + 1];
    double w[INPUT_CHAIN_MAX + 1];
    int n;
} input_at_t;
void state_input_fix_t(rod_state *st, int i, double t, input_at_t *f);
double state_input_at_X(const input_at_t *f, profile_eval *ev, double X);
/* That clamp alone: v when positive, NaN kept (the caller reports it), 0 otherwise. */
double state_actuator_value(double v);

/* Station k's body-frame Jacobian (6 x n_xi) from the state's last kinematics: at a station
 * whose J the kinematics deferred (kinematics.h kin_forward_state), converted here on first
 * use. */
const double *state_J(const rod_model *m, const rod_state *st, int k);
/* A shallow copy of st for scratch of the caller's own (its g, eta, J...), with st's Jacobian
 * bookkeeping left behind: no J, none deferred, none stale, not in the wrench form. */
rod_state state_borrow(const rod_state *st);
/* Q_xi += scale J_k^T W for a body wrench W (moment, force) on station k; in the wrench form
 * (st->wrench_mode) W is summed at the station instead, for one projection along the rod. */
void state_add_wrench(const rod_model *m, const rod_state *st, int k, const double W[6], double scale, double *Q);

void state_set_error(rod_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
