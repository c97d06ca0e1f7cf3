/* rodd engine: the extended Cosserat rod (Sun, Mathew, Afgan, Renda and Laschi) reduced with the Geometric
 * Variable Strain method. The one public header of core/.
 *
 * Ownership: a rod_model is immutable once compiled and may be shared by any number of
 * rod_state objects on any threads; a rod_state belongs to one thread at a time. Every
 * function that can fail returns a negative ROD_E* code and leaves a message the caller can
 * show (in a rod_issues list, or via rod_state_error()). Nothing here exits or aborts. */
#ifndef ROD_H
#define ROD_H

#include <stddef.h>

#define ROD_VERSION "0.1.0"

enum {
    ROD_OK = 0,
    ROD_EINVAL = -1,    /* bad spec or argument */
    ROD_ENOMEM = -2,
    ROD_ENOCONV = -3,   /* a solver did not converge */
    ROD_ESOLVER = -4,   /* a solver failed (its message is in the state) */
    ROD_ENOTFOUND = -5, /* no actuator or load of that name */
    ROD_EIO = -6,
    ROD_EINTERRUPTED = -7, /* rod_state_interrupt stopped an advance; the state is as before it */
};
const char *rod_strerror(int code);

/* ---- problems found in a spec: every one, each with the JSON pointer it concerns ---- */
typedef struct {
    char *path;    /* JSON pointer, e.g. "/rod/poisson_ratio"; "" for the document */
    char *message; /* e.g. "must be in (-1, 0.5)" */
} rod_issue;

typedef struct {
    rod_issue *items;
    int count, cap;
} rod_issues;

void rod_issues_init(rod_issues *l);
void rod_issues_free(rod_issues *l);
/* Appends "path: message" lines, one per issue, to buf (always NUL-terminated). */
void rod_issues_format(const rod_issues *l, char *buf, size_t len);

/* ---- the compiled model ---- */
typedef struct rod_model rod_model;

/* The largest spec text accepted; bigger inputs are refused before parsing. */
#define ROD_SPEC_MAX_BYTES (4u << 20)
/* a FRAME's points, base to tip, when nobody asks for another number (the command line, the
 * daemon's sessions and /v1/solve alike) */
#define ROD_FRAME_DEFAULT_POINTS 51

/* Compiles a spec (JSON text of len bytes). overrides: n "PATH=VALUE" strings applied to the
 * JSON before validation (PATH is dot-separated, array elements by index, e.g.
 * "rod.youngs_modulus=3000", "actuators.0.tension=0.1"; VALUE is JSON, or else a string).
 * Returns NULL and fills issues on any problem; nothing is half-built. */
rod_model *rod_model_compile(const char *json, size_t len, const char *const *overrides,
                             int n_overrides, rod_issues *issues);
/* Reads and compiles a spec file; a file over ROD_SPEC_MAX_BYTES is refused unread. */
rod_model *rod_model_load(const char *path, const char *const *overrides, int n_overrides,
                          rod_issues *issues);
void rod_model_free(rod_model *m);

int rod_model_ndof(const rod_model *m);        /* n_xi + n_rho */
int rod_model_ndof_xi(const rod_model *m);
int rod_model_ndof_rho(const rod_model *m);
double rod_model_length(const rod_model *m);
/* The spec's "duration": how long it is meant to run, in simulated seconds; 0 when not given. */
double rod_model_duration(const rod_model *m);
int rod_model_is_extended(const rod_model *m);
int rod_model_quadrature_points(const rod_model *m); /* Gauss points in use */
int rod_model_substeps(const rod_model *m);           /* Magnus steps between stations */
int rod_model_magnus_order(const rod_model *m);       /* their order: 4 (Zanna) or 6 */
int rod_model_stations(const rod_model *m);           /* stations, so steps = substeps x (stations - 1) */
void rod_model_gravity(const rod_model *m, double g[3]); /* m/s^2, in the world frame */
double rod_model_base_radius(const rod_model *m);       /* reference radius at s = 0 (m) */
/* 1 when the model has constraints, bodies, a moving or free base, obstacles or self-contact
 * (its frames carry them, and the contact forces). */
int rod_model_has_attachments(const rod_model *m);
/* Appends a warning (path, then what is implausible and what to do) for each way the valid
 * spec leaves the model's range: a rod that is not slender, a near-incompressible classic rod,
 * a penalty wall too soft for the rod's weight, a fixed step too long for a contact. */
void rod_model_warnings(const rod_model *m, rod_issues *out);
/* The spec as compiled (overrides applied), canonical JSON; owned by the model. */
const char *rod_model_spec_json(const rod_model *m);

/* Inputs are the loads, the actuators and the pose constraints' targets ("NAME.x", ".y", ".z"
 * for each held position component, "NAME.angle" when the rotation is held), by name. */
int rod_model_ninputs(const rod_model *m);
const char *rod_model_input_name(const rod_model *m, int i);
/* Its type as the spec names it: "tip_force", ..., "cable", "transverse", "muscle_torque";
 * "target" for a constraint's target (m or rad). */
const char *rod_model_input_type(const rod_model *m, int i);
/* 1 for an actuator (a cable's tension or a transverse muscle's pressure, >= 0; or one
 * beta value of a muscle_torque, "NAME.betaK", N m of either sign), 0 for a load (a scale)
 * or a target. */
int rod_model_input_is_actuator(const rod_model *m, int i);
/* The index of the input with that name, or -1. */
int rod_model_input_index(const rod_model *m, const char *name);

/* ---- per-session state ---- */
typedef struct rod_state rod_state;

rod_state *rod_state_create(const rod_model *m, char *err, size_t errlen);
void rod_state_free(rod_state *st);
const char *rod_state_error(const rod_state *st); /* message of the last failure */
double rod_state_time(const rod_state *st);
/* Generalized coordinates q = [q_xi; q_rho]; n = rod_model_ndof. */
const double *rod_state_q(const rod_state *st);
int rod_state_set_q(rod_state *st, const double *q, int n);
/* Overwrites an input's profile with a constant: an actuator's value (tension, pressure), a
 * load's scale or a constraint's target. Once the dynamics have stepped, the new value takes
 * over from the integrator's next step boundary (rod_state_input_change_time) through a smooth
 * ramp of solver.command_ramp seconds, so the integrator keeps its history; with a ramp of 0,
 * or before any step, it is a step at the state's time and the integrator restarts there
 * (projecting the state onto a moved constraint). Fails without changing anything if the name
 * is unknown or the value is out of range. */
int rod_state_set_input(rod_state *st, const char *name, double value);
/* Sets an input to a profile given as JSON text: a number, an expression in t (and X = s/L
 * for an actuator) such as "0.1*t", or {"wave": {"alpha", "mu", "sigma"}} (actuators); with
 * json NULL, back to the spec's own profile. Checked first: on any problem nothing changes
 * and rod_state_error says what is wrong. It takes over as a constant does. */
int rod_state_set_input_profile(rod_state *st, const char *name, const char *json);
/* The simulated time from which the latest rod_state_set_input / _profile takes effect: where
 * its ramp starts, at or after the state's time (the state's time for a step). */
double rod_state_input_change_time(const rod_state *st);
/* Checks a profile for input `name` as rod_state_set_input_profile would take it (NULL is
 * fine), without a state: 0, or ROD_EINVAL / ROD_ENOTFOUND with a message in err. */
int rod_model_check_input_profile(const rod_model *m, const char *name, const char *json, char *err,
                                  size_t errlen);
/* Whether input i is a constant now (a number in the spec, or set by a command): 1 and its
 * value in *v; 0 when it follows a profile (expression or wave). */
int rod_state_input_constant(const rod_state *st, int i, double *v);
/* Input i's value at the state's time, at X = s/L (its value at the tip for a load). */
double rod_state_input_value(rod_state *st, int i, double X);

/* ---- statics (Eqs. 57-58) ---- */
typedef struct {
    int converged;
    int iterations;    /* Newton iterations over all load steps */
    int load_steps;    /* continuation steps taken (1 when the full load converged at once) */
    double residual;   /* max |R_i| / K_ii over the equations: the error in units of q */
} rod_statics_result;

/* Solves for equilibrium under the inputs at time t, starting from the state's q (the
 * straight rod for a new state, or a guess put there with rod_state_set_q / solver.guess).
 * On convergence the state's q holds the solution; otherwise the best iterate. Returns
 * ROD_OK, ROD_ENOCONV or another negative code. */
int rod_statics_solve(const rod_model *m, rod_state *st, double t, rod_statics_result *res);

/* The tangent of an equilibrium, for derivatives of a static solution by the implicit-function
 * theorem: at R(u, p) = 0, du/dp = -(dR/du)^-1 dR/dp, where a parameter p changes the model
 * and dR/dp can be formed from residuals of models at other p at the same u. The unknowns
 * are u = [q; the constraints' multipliers]: rod_statics_nunknowns of them. One rod only
 * (ROD_EINVAL for a model of several rods). */
int rod_statics_nunknowns(const rod_model *m);
/* The unknowns of the state's last static solution into u; returns their number. */
int rod_statics_unknowns(const rod_model *m, const rod_state *st, double *u);
/* R(u) = [K q - Q(q) - A^T lambda; c(q)] of model m at time t under the full load, into R.
 * Leaves q (and zero velocities) in st. ROD_OK or an error code with rod_state_error set. */
int rod_statics_residual(const rod_model *m, rod_state *st, double t, const double *u, double *R);
/* Overwrites each of the nrhs columns b of B (column-major, nunknowns rows) with
 * -(dR/du)^-1 b, dR/du at u by forward differences on the residual's own kinematics (not the
 * Newton solver's coarser matrix, whose error would become the derivative's). */
int rod_statics_tangent(const rod_model *m, rod_state *st, double t, const double *u, int nrhs, double *B);

/* ---- dynamics (Eqs. 55-56) ---- */
/* Puts the state at t = 0 at rest, in the spec's initial configuration ("rest": straight,
 * or "static": the equilibrium under the inputs at t = 0) and (re)creates its integrator. */
int rod_dynamics_start(const rod_model *m, rod_state *st);
/* The same without the spec's static start ("initial": "static"), for a state that a
 * checkpoint (rod_state_load) is about to overwrite: restoring does not pay for a solve whose
 * result it throws away. */
int rod_dynamics_start_for_load(const rod_model *m, rod_state *st);
/* Integrates to t_end >= the state's time. The integrator restarts at the current time
 * after rod_state_set_q / rod_state_load, and after an input change that is a step (see
 * rod_state_set_input), so a step in an input is a clean jump. ROD_ESOLVER with CVODE's
 * message in rod_state_error on failure. */
int rod_dynamics_advance(const rod_model *m, rod_state *st, double t_end);

typedef struct {
    long steps, rhs_evals, rhs_evals_jacobian, jac_evals, error_test_failures, newton_iterations;
    double last_step;
    int last_order;
    /* generalized-alpha: the steps shorter than solver.step (a failed Newton halves the step,
     * which then stays halved for a while) and the shortest step taken; 0 for CVODE */
    long reduced_steps;
    double min_step;
} rod_dynamics_stats;
int rod_dynamics_get_stats(const rod_state *st, rod_dynamics_stats *out);
/* Makes the current time a restart point of the integrator (what a checkpoint does). */
void rod_state_mark_restart(rod_state *st);
/* Stops the rod_dynamics_advance running on st in another thread (or the next one to start)
 * at its next right-hand side evaluation: it returns ROD_EINTERRUPTED with the state where
 * that advance began, and the integrator restarts there. The one call that may be made on a
 * state while another thread uses it. */
void rod_state_interrupt(rod_state *st);

/* ---- generalized forces by kind ---- */
/* What the equations of motion M q_ddot = sum of the kinds balance, kept apart (MuJoCo's
 * qfrc_passive, qfrc_actuator, qfrc_constraint): stiffness -K q, Kelvin-Voigt damping -D q_dot,
 * actuators (cables, transverse and muscle couples), loads (gravity and buoyancy, point and tip
 * wrenches, the bodies' weight), contact, fluid (drag and lift, slender-body drag; the added
 * mass is in M and its bias in the inertial kind), the inertial bias (Coriolis, centrifugal,
 * the sections' breathing) and the constraints (A^T lambda, the penalties). */
enum { ROD_QFRC_ELASTIC, ROD_QFRC_DAMPING, ROD_QFRC_ACTUATOR, ROD_QFRC_LOAD, ROD_QFRC_CONTACT,
       ROD_QFRC_FLUID, ROD_QFRC_INERTIA, ROD_QFRC_CONSTRAINT, ROD_QFRC_COUNT };
/* "elastic", "damping", "actuator", "load", "contact", "fluid", "inertia", "constraint". */
const char *rod_qfrc_name(int kind);
/* At the state's (t, q, q_dot): out (ROD_QFRC_COUNT x ndof, kind after kind) gets each kind,
 * total (ndof, may be NULL) M q_ddot. Several rods: ndof over all of them, rod after rod; the
 * joints' (and locks') rows and the rods' own constraints in the constraint kind, the contacts
 * between rods in the contact kind. Uses the state's scratch (not while it advances). 0, or
 * an error code with rod_state_error set. */
int rod_state_generalized_forces(const rod_model *m, rod_state *st, double *out, double *total);

/* ---- checkpoints ---- */
/* The state as JSON (t, q, q_dot, the inputs commands have set); malloc'd. The current time
 * becomes a restart point, so this state and one loaded from the text continue alike. */
char *rod_state_save(const rod_model *m, rod_state *st);
/* Loads a checkpoint of the same model into st: all of it, or (on any problem) nothing.
 * The integrator restarts there; start it first with rod_dynamics_start if it never ran. */
int rod_state_load(const rod_model *m, rod_state *st, const char *json, size_t len);

/* ---- a cheap error indicator ---- */
/* The tip position error (m) that truncating the strain bases leaves in q, judged from the
 * decay of each strain's Legendre coefficients: the larger of its last two, times L^2 / 2 for
 * bending and twist and times L for stretch and shear, summed. It sees the bases' truncation
 * only, not the quadrature of sharp loads, the inflation's Hermite pieces or the time
 * integration (rodd converge measures all of them); a component of degree 0 adds nothing. */
double rod_error_indicator(const rod_model *m, const double *q);

/* ---- frames ---- */
/* A constraint's reaction on the rod (world frame) and how far it is from being met. */
typedef struct {
    char name[72];
    int volume;        /* 1: a volume constraint (pressure), 0: a pose (force, moment) */
    double force[3];   /* N */
    double moment[3];  /* N m */
    double violation;  /* m or rad (the largest held component); relative for volume */
    double pressure;   /* Pa, volume only: the multiplier (or penalty force) over V0 */
    double point[3];   /* pose only: where the constrained point is (m, world) */
    double target[3];  /* pose only: where it is held (the target's held components; the
                        * point's own where a component is free) */
} rod_frame_constraint;

typedef struct {
    char name[72];
    double position[3]; /* its centre of mass (m, world) */
} rod_frame_body;

typedef struct rod_frame {
    int n;            /* points, base to tip */
    double t;
    double *s;        /* n */
    double *position; /* 3n */
    double *rotation; /* 9n, row-major r11 r12 r13 r21 .. r33 per point */
    double *rho;      /* n */
    double *radius;   /* n: deformed radius rho * z(s) */
    double *kappa;    /* 3n */
    double *nu;       /* 3n */
    double e_kinetic, e_elastic, e_gravity;
    double volume_change; /* Sec. 5.2's Delta V */
    int ncons;
    rod_frame_constraint *cons; /* ncons, in the spec's order */
    int nbodies;
    rod_frame_body *bodies;     /* nbodies, in the spec's order */
    int base_moving;            /* 1: the base's pose below (a "moving" or "free" base) */
    double base_position[3];    /* m, world */
    double base_rotation[9];    /* row-major, as rotation */
    /* contacts (models with obstacles or self-contact): one per touching contact point and
     * obstacle (two per self-contact pair, one on each side) */
    int has_contacts, ncontacts;
    double *contact_s;     /* ncontacts: arc length of the point on the rod */
    double *contact_point; /* 3 ncontacts: where it touches, global */
    double *contact_force; /* 3 ncontacts: force on the rod, global, N */
    /* Several rods in one model (a spec with "rods": issue 29): nrods > 0, the per-point
     * arrays above stay empty (n = 0) and rods[i] holds rod i's name, n, t, s, position,
     * rotation, rho, radius, kappa, nu (and its base_* where its base moves), in the spec's
     * order; the energies, constraints (a joint's reaction named "ROD.base" after the child
     * rod, then each rod's own constraints as "ROD.NAME"), bodies (a rod's own as "ROD.BODY", the model's top-level ones by their names) and
     * contacts stay at the top, contact_rod saying whose point each contact is. One rod:
     * nrods = 0, rods and contact_rod NULL, name "". */
    int nrods;
    struct rod_frame *rods;
    int *contact_rod;      /* ncontacts: index into rods (NULL for one rod) */
    char name[72];         /* a rod's name, in rods[]; "" at the top */
} rod_frame;

/* Allocates and fills a frame of n >= 2 points for the state. Free with rod_frame_free. */
int rod_frame_compute(const rod_model *m, const rod_state *st, int n, rod_frame *out);
void rod_frame_free(rod_frame *f);

/* The deepest a frame's section sits in an obstacle, relative to the obstacle's
 * max_penetration (a fraction of the section's radius). */
typedef struct {
    int obstacle;      /* index in the spec's obstacles; -1: nothing touches */
    const char *name;  /* its name (owned by the model), NULL when unnamed */
    double s;          /* m from the base */
    double depth;      /* m */
    double fraction;   /* depth over the section's deformed radius */
    double limit;      /* the obstacle's max_penetration */
} rod_penetration;
/* Fills out with the frame point whose fraction over its obstacle's limit is largest (moving
 * obstacles where they are at the frame's time); 1 when that is deeper than the limit, else 0.
 * Measured at the frame's points, not at the quadrature points the contact acts at. */
int rod_frame_penetration(const rod_model *m, const rod_state *st, const rod_frame *f, rod_penetration *out);
/* The frame's shape without its values: n = 0 and no per-point arrays; the constraints (names,
 * volume flags), the bodies (names), base_moving and has_contacts exactly as every frame
 * rod_frame_compute makes of this model has them; every number 0 and ncontacts 0. What an
 * export or a recording lays out before the first frame comes. Free with rod_frame_free. */
int rod_frame_shape(const rod_model *m, rod_frame *out);

#endif
