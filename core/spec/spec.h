/* The spec (DESIGN.md's contract, schema in api/spec.schema.json), parsed and validated.
 * Parsing reports every problem at once with its JSON pointer and builds nothing on
 * failure. Units are SI throughout. */
#ifndef ROD_SPEC_H
#define ROD_SPEC_H

#include "basis.h"
#include "profile.h"
#include "rod.h"

struct cJSON;

#define SPEC_MAX_DEGREE 160 /* highest Legendre degree of a strain component */
#define SPEC_MAX_PIECES 200 /* most Hermite pieces: the reaching arm's inflation converges to 1 mm near 64 */
/* s over which a command's new input ramps in (solver.command_ramp): short beside the rods'
 * own times (the reaching arm's fastest mode has a period near 0.1 s), long enough that BDF
 * takes it in a few steps instead of restarting */
#define DEFAULT_COMMAND_RAMP 0.01
#define SPEC_MAX_INPUTS 64   /* loads, actuators, obstacles: each at most this many */
#define SPEC_MAX_OBSTACLES SPEC_MAX_INPUTS /* contact.c keeps per-obstacle arrays this long */

/* strain components in the order of the twist xi = (kappa; nu), Eq. 38 */
enum { STRAIN_BEND1, STRAIN_BEND2, STRAIN_TWIST, STRAIN_SHEAR1, STRAIN_SHEAR2, STRAIN_STRETCH };
extern const char *const spec_strain_names[6];

/* distributed loads are per unit length of the rod, along all of it */
typedef enum {
    LOAD_TIP_FORCE, LOAD_TIP_MOMENT, LOAD_POINT_FORCE, LOAD_POINT_MOMENT, LOAD_DIST_FORCE,
    LOAD_DIST_MOMENT
} spec_load_type;

enum { INTEGRATOR_BDF, INTEGRATOR_GALPHA };

typedef struct {
    char *name;
    spec_load_type type;
    double vec[3];  /* force or moment (per unit length when distributed) */
    double s;       /* application point (L for tip and distributed loads) */
    int local;      /* 1: follower (body frame), 0: dead (global frame) */
    profile scale;
} spec_load;

typedef enum { ACT_CABLE, ACT_TRANSVERSE, ACT_MUSCLE_TORQUE } spec_act_type;
typedef enum { ROUTE_OFFSET, ROUTE_HELIX } spec_route_kind;

typedef struct {
    char *name;
    spec_act_type type;
    spec_route_kind route;
    double offset[2];     /* ROUTE_OFFSET: (Y1, Y2) */
    double helix_radius;  /* ROUTE_HELIX: Y = radius (cos a, sin a), a = phase + 2 pi turns X */
    double helix_turns, helix_phase;
    int relative;         /* offsets are fractions of the local reference radius z(s) */
    profile value;        /* cable tension [N] or transverse pressure [Pa] */
    double span[2];       /* [s0, s1], default [0, L] */
    /* ACT_MUSCLE_TORQUE (seed 002 Figs. 6, 10): an internal moment about d1 or d2 */
    int about;            /* 0: d1, 1: d2 */
    int nbeta;            /* control values of the B-spline amplitude, head (tip) first */
    profile *beta;        /* nbeta profiles in t, N m */
    char **beta_names;    /* nbeta input names "NAME.betaK" */
    double wavelength;    /* m; 0 for an infinite wavelength (a standing wave) */
    double period, phase; /* s, rad */
} spec_actuator;

/* The authors' code choices (seeds/ERRATA.md, "authors_code" in a spec): each one a departure
 * from rodd's physics that a spec may ask for to reproduce the published figures. All 0 by
 * default. */
typedef struct {
    int no_cable_work_on_inflation; /* cables do no work on rho (Eq. 56 as printed) */
    int global_quadrature;          /* one Gauss rule over the whole rod (default 20 points)
                                     * plus both ends at zero weight, across Hermite nodes;
                                     * one Zanna step per interval; K, D and M_rho by it too */
    int damping_slips;              /* torsion and rho' damping I33 without eta */
    int slope_per_X;                /* rho' per X = s/L (L times d rho/ds) in the cable tangent
                                     * and the rho' stiffness and damping */
    int mass_rate_slip;             /* M_dot formed from the already inflated M: the rate of a
                                     * rho^k scaling times rho^k once more (their derivatives.m) */
} spec_authors_code;

/* Constraints (seeds/003): a point's pose held (any of its six components), or the volume. */
typedef enum { CON_POSE, CON_VOLUME } spec_con_type;
enum { CON_X, CON_Y, CON_Z, CON_RX, CON_RY, CON_RZ }; /* pose components, world frame */

typedef struct {
    char *name;
    spec_con_type type;
    double s;            /* CON_POSE: the point held (m from the base) */
    int relative;        /* CON_POSE: 1 when held relative to the point s_rel of the rod: its
                          * position and rotation, components and targets are in s_rel's frame */
    double s_rel;        /* CON_POSE, relative: that point (m from the base, may be 0) */
    int held[6];         /* CON_POSE: which components of CON_X..CON_RZ are held */
    profile position[3]; /* target position (m), world frame (relative: s_rel's frame); default
                          * the reference, (0, 0, s) (relative: (0, 0, s - s_rel)), or the
                          * rest shape's (the model sets it, constraints_compile) */
    double axis[3];      /* target rotation: angle(t) about this unit axis (world; relative:
                          * s_rel's frame) */
    profile angle;
    int position_given, rotation_given; /* CON_POSE: the spec gave them (else the rest pose's) */
    int pieces;          /* CON_VOLUME: 1 for one constraint per Hermite piece, 0 for the total */
    int penalty;         /* 0: Lagrange multiplier, 1: penalty */
    double stiffness, damping; /* penalty only: N/m (N m/rad; for volume N m per unit strain) */
} spec_constraint;

/* A rigid body attached at a point of the rod (a tip mass, a gripper, a payload). */
typedef struct {
    char *name;
    double s;            /* where it is attached (m from the base) */
    double mass;         /* kg */
    double inertia[9];   /* about its centre of mass, in the rod's local frame at s; column-major */
    double offset[3];    /* its centre of mass from the rod's axis at s, local frame (m) */
    double volume;       /* m^3, for buoyancy in a fluid */
} spec_body;

/* a penalty wall's default max_penetration: a tenth of the radius keeps friction's normal
 * force and the contact point within a few per cent of a rigid wall's */
#define SPEC_MAX_PENETRATION 0.1

typedef enum { OBSTACLE_PLANE, OBSTACLE_SPHERE, OBSTACLE_CYLINDER } spec_obstacle_type;

/* Coulomb friction with static and kinetic coefficients per direction: forward (the rod's
 * +d3, projected on the surface), backward, lateral. */
typedef struct {
    int on;
    double mu_static[3], mu_kinetic[3]; /* forward, backward, lateral */
    double threshold_velocity;          /* v_eps, m/s */
} spec_friction;

typedef struct {
    char *name;
    spec_obstacle_type type;
    double point[3];      /* plane: a point on it; sphere: its centre; cylinder: a point on its axis */
    double normal[3];     /* plane: unit normal (the side the rod lives on); cylinder: unit axis */
    double radius;        /* sphere, cylinder */
    double stiffness;     /* N/m per m of rod (the wall's k_w per unit length) */
    double damping;       /* N s/m per m of rod */
    double max_penetration; /* fraction of the section's radius a contact may sink before a
                             * warning (a penalty wall always sinks some; a run says so past this) */
    spec_friction friction;
    int moving;           /* 1: displaced by the profiles below */
    profile displacement[3]; /* m, world, profiles in t added to point / center */
} spec_obstacle;

typedef struct {
    int extended;
    char *name;
    /* rod */
    double length, radius_base, radius_tip, density, youngs, poisson, eta;
    double shear_modulus;     /* G; from the Poisson ratio when the spec gives that instead */
    double shear_coefficient; /* multiplies G A and eta A in shear (default 1) */
    double rotary_inertia_factor; /* multiplies the sections' rotary inertia rho I, not EI (default 1) */
    int inertia_paper;    /* 1: mass ~ rho^2 A0 and inertia ~ rho^4 I0 as the paper; 0: mass conserved */
    /* strains: Legendre degree per component, -1 when held at its reference */
    int degree[6];
    /* rod.rest_strain, xi* of Eq. 42 per component (bend1 .. stretch): a constant, or an
     * expression in s and X when rest_expr[k] is not NULL; the straight rod's 0 (stretch 1)
     * when left out. has_rest: some component differs from the straight rod's. */
    double rest_value[6];
    char *rest_expr[6];
    int has_rest;
    /* inflation (extended only); pieces == 0 means none */
    int pieces;
    spec_bc bc;
    /* environment */
    double gravity[3];
    int has_fluid;
    double fluid_density, added_mass[2], drag, lift;
    int fluid_slender;    /* 1: slender-body (resistive-force) drag at low Reynolds number */
    double viscosity;     /* Pa s, slender_body */
    int nobstacles;
    spec_obstacle *obstacles;
    int self_contact;
    double sc_stiffness, sc_damping; /* N/m per m^2 of rod pairs, N s/m per m^2 */
    spec_friction sc_friction;       /* a rod with itself and with the other rods (isotropic) */
    /* loads and actuators */
    int nloads, nacts;
    spec_load *loads;
    spec_actuator *acts;
    /* discretization (0: chosen from the bases) and solvers */
    int points;
    int substeps;         /* Magnus steps per interval between stations (0: default) */
    int magnus_order;     /* the kinematic steps' order, 4 (Zanna) or 6 (0: default) */
    double tolerance;     /* statics: scaled residual */
    int max_iterations;
    int max_load_steps;
    double rtol, atol;    /* dynamics */
    double rate_time_scale; /* dynamics (s): q_dot's absolute tolerance is atol over it */
    int jacobian_elastic; /* dynamics: Jacobian of the stiff linear part only */
    int jacobian_contact; /* dynamics: with jacobian_elastic, the contacts' stiff part too */
    int contact_laws_linearized; /* generalized-alpha with jacobian_contact: the walls' laws
                                  * linearized in Newton's matrix only, not solved along each
                                  * correction (solver.contact_laws, wall_newton.h) */
    int contact_laws_given;      /* solver.contact_laws is in the spec (warned where it does nothing) */
    int integrator;       /* INTEGRATOR_* */
    double step;          /* generalized-alpha: its fixed step (s) */
    double rho_inf;       /* generalized-alpha: spectral radius at infinite step */
    double command_ramp;  /* s: a command's new input ramps in over this from the integrator's
                             next step (0: a step at the session's time, restarting it) */
    int initial_static;
    spec_authors_code authors;
    double duration;      /* how long the spec is meant to run (s of simulated time); 0: not said */
    int nguess;
    double *guess;
    /* constraints and attached bodies */
    int ncons;
    spec_constraint *cons;
    int nbodies;
    spec_body *bodies;
    /* the base: clamped at the origin, or moving on a prescribed pose */
    int base_moving;
    int base_free;            /* 1: a floating base, six more coordinates (base.h) */
    profile base_position[3]; /* m, world frame */
    double base_axis[3];      /* rotation angle(t) about this unit axis (world) */
    profile base_angle;
    /* expression strings referenced by the profiles */
    int nexprs;
    char **exprs;
} rod_spec;

/* Parses and validates; NULL with every problem in issues on failure. The root must be the
 * spec object. */
rod_spec *spec_parse(const struct cJSON *root, rod_issues *issues);
void spec_free(rod_spec *s);
/* One input profile (a number, an expression string, or {"wave": ...}) as the spec's
 * actuators (allow_X, nonneg) and loads take it; its expressions are returned in *exprs
 * (malloc'd, *nexprs of them, indices from 0). 0, or -1 with the issues (paths relative to
 * the value, "" for itself). */
struct cJSON;
int spec_parse_input_profile(const struct cJSON *v, int allow_X, int nonneg, profile *out, char ***exprs,
                             int *nexprs, rod_issues *iss);

/* Appends a warning for each way the valid spec s leaves the model's range (slenderness,
 * near-incompressible classic rods, penalty walls too soft for the weight, fixed steps too
 * long for the contact): path, what is wrong and what to do. spec_warn.c. */
void spec_warnings(const rod_spec *s, rod_issues *out);

/* Parses JSON text, reporting a syntax error with its line and column. */
struct cJSON *spec_parse_json(const char *text, size_t len, rod_issues *issues);
/* Describes the syntax error that stopped a parse at byte `at` (what was expected there and
 * what was found; "" when it cannot tell) and returns where it is: at, or the earlier token
 * where the grammar was first broken. json_syntax.c. */
size_t spec_json_syntax_hint(const char *text, size_t len, size_t at, char *buf, size_t n);
/* Applies "a.b.0.c=VALUE" to the tree; 0 or -1 with an issue. */
int spec_apply_override(struct cJSON *root, const char *assignment, rod_issues *issues);

/* Every JSON pointer the parser accepts, with "*" for array elements and map keys,
 * NULL-terminated; for the schema test. */
extern const char *const spec_known_paths[];

/* spec_cable.c: actuator i's constant cable tension T over the tension that shortens the
 * fibre under the cable to nothing on its own (1 - T/(E A) - T d^2/(E I) = 0, the terms of the
 * free strains, at the span's thinnest section: *radius; that tension in *limit); 0 when it
 * does not apply (not a constant cable, a rest-curved rod, neither stretch nor bending free),
 * infinity on overflow. */
double spec_cable_shortening(const rod_spec *s, int i, double *radius, double *limit);

#endif
