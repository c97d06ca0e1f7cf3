/* The compiled model: everything about a rod that does not change while it moves. Built
 * once from a spec, shared read-only by every state (MuJoCo's mjModel). */
#ifndef ROD_MODEL_H
#define ROD_MODEL_H

#include <math.h>

#include "lie.h"
#include "magnus.h"
#include "profile.h"
#include "rod.h"
#include "spec.h"

/* The most Phi_xi columns a model can have: every component at the highest degree. */
#define MODEL_MAX_XI (6 * (SPEC_MAX_DEGREE + 1) + 6) /* + a free base's six */
#define MODEL_MAX_RHO (2 * SPEC_MAX_PIECES)

/* One column of Phi_xi: a Legendre polynomial of one strain component (Eq. 42). */
typedef struct {
    int comp;   /* 0..5 in xi = (kappa; nu) */
    int degree;
} xi_column;

/* INPUT_TARGET: a pose constraint's target, one position component or its rotation angle,
 * named "CONSTRAINT.x", ".y", ".z" or ".angle"; INPUT_MUSCLE_BETA: one beta value of a
 * muscle_torque actuator, named "ACTUATOR.betaK" */
typedef enum { INPUT_LOAD, INPUT_ACTUATOR, INPUT_TARGET, INPUT_MUSCLE_BETA } input_kind;

typedef struct {
    const char *name;  /* borrowed from the spec (targets: from the model's target_names) */
    input_kind kind;
    int index;         /* into spec->loads, spec->acts or spec->cons */
    int comp;          /* INPUT_TARGET: 0..2 the position's x, y, z; 3 the angle;
                        * INPUT_MUSCLE_BETA: which beta */
} model_input;

/* Section and material data at one station. */
typedef struct {
    double z;          /* reference radius */
    double A0, I11, I22, I33;
} section;

struct rod_model {
    rod_spec *spec;
    char *spec_json;
    int extended;
    double L;
    double E, mu, lambda, nu0, eta, rho0;
    double grav[3];
    double fluid_rho;

    int n_xi, n_rho, n;          /* n = n_xi + n_rho */
    xi_column *cols;             /* n_xi */
    /* A free base: its exponential coordinates are the last six of q_xi, from base_col on
     * (-1: none). Their strain columns are zero, so K, D and the rod's own kinematics do not
     * see them; base_free_apply (base.h) gives them their Jacobian columns. */
    int base_col;
    int comp_used[6];            /* which strain components have columns */
    int comp_first[7];           /* component k's columns: comp_first[k] .. comp_first[k+1]-1
                                  * (the columns come grouped by component) */
    /* 1 when only bend2, shear1 and stretch have columns, the rest strain has no others and
     * the base is not free: the rod stays in its x-z plane and the kinematics run on se(2)
     * (kinematics.c's planar recursions, core/util/lie_plane.h) */
    int planar;

    /* Stations: s[0] = 0 < ... < s[ns-1] = L; Gauss points carry weights, breakpoints
     * (ends, Hermite nodes, spans, point loads) weight 0. The recursion steps station to
     * station, `substeps` Magnus steps each. */
    int ns, ngauss;
    double *s, *w;
    section *sec;                /* ns */
    double *leg;                 /* ns x n_xi: Phi_xi column values at each station */
    const magnus_rule *mag;      /* the kinematic step (4th-order Zanna or 6th-order Magnus) */
    int substeps;                /* Magnus steps per station interval */
    double h_kin;                /* the longest Magnus step */
    double *kin_beta;            /* ns x substeps x npts x n_xi: row i of a step holds each
                                  * column's weight in its alpha_i (model_step_beta) */
    double *kin_beta_t;          /* a planar model's kin_beta transposed: n_xi rows of
                                  * (ns - 1) x substeps x npts, each column's weights in every
                                  * step's alphas side by side (NULL otherwise) */
    double *kin_beta1;           /* ns x npts x n_xi: the same for one step per interval
                                  * (the coarser kinematics of Newton matrices) */
    double *phr, *dphr;          /* ns x n_rho: Phi_rho and dPhi_rho/ds */
    /* The rest strain xi* (Eq. 42, rod.rest_strain), tabulated where the hot path needs it;
     * all NULL for the straight rod (xi* = (0, 0, 0, 0, 0, 1), model_xis_at). */
    double *xis;                 /* ns x 6: xi* at each station */
    double *kin_star;            /* ns x substeps x npts x 6: xi*'s share of each step's alphas */
    double *kin_star1;           /* ns x npts x 6: the same for one step per interval */
    double *ind_xis;             /* 2 MODEL_INDICATOR_STEPS x 6: at the indicator's points */
    lie_pose *g_rest;            /* ns: the rest shape's pose at each station (q = 0) */

    double *K;                   /* n x n, column-major: [K_xi Kbar_xi; Kbar_rho K_rho] */
    double *D;                   /* n x n damping (Kelvin-Voigt) */
    double *Kdiag_inv;           /* n: 1/K_ii, residual scaling */
    double *Mrho_chol;           /* n_rho x n_rho: Cholesky factor of M_rho (App. D), constant */

    int ninputs;
    model_input *inputs;
    int *input_of_act;           /* per actuator: its first input (a muscle's beta0) */

    /* Contact (core/stages/contact.c): points spread evenly along s, each a station of its own
     * (weight 0 in the elastic quadrature), with the length it stands for. None without
     * obstacles or self-contact. */
    int ncontact;
    int *contact_station;        /* ncontact station indices */
    double *contact_w;           /* ncontact: rod length each stands for (trapezoid weights) */
    double contact_ds;           /* their spacing */
    /* ns: 1 at a station that only a contact point has (weight 0, no load, joint or body on
     * it): only a touching contact reads its Jacobian, which the kinematics leave for state_J
     * (state.h) to finish on that read; NULL without contact */
    unsigned char *J_deferred;
    int *load_station;           /* per load: its station index */
    struct con_layout *con;      /* constraints' rows (constraints_layout.h); NULL without any */
    char *target_names;          /* the INPUT_TARGET names, NUL-separated */
    struct frame_cache *frame_cache; /* output frames' basis tables (frame_table.h), filled on
                                      * first use: mutable behind its own lock */
    /* A spec with "rods" (issue 29): this model is its first rod's and `as` holds them all,
     * the joints and the model-wide inputs (assembly.h); NULL for one rod. */
    struct assembly *as;
};

/* One rod's model from its spec text (model.c); rod_model_compile (model_entry.c) sends a
 * spec with "rods" to the assembly instead. model_free_one frees one rod's model only. */
rod_model *model_compile_one(const char *json, size_t len, const char *const *overrides,
                             int n_overrides, rod_issues *issues);
void model_free_one(rod_model *m);

/* The error indicator's fixed Zanna path (indicator.c): steps along the rod. */
#define MODEL_INDICATOR_STEPS 64
#define MODEL_INDICATOR_ZC 0.28867513459481287 /* sqrt(3)/6: its Gauss points' offset */

/* xi* of the straight, unstretched rod. */
extern const double model_xis_straight[6];
/* xi* at station k. */
static inline const double *model_xis_at(const rod_model *m, int k)
{
    return m->xis ? m->xis + 6 * k : model_xis_straight;
}

/* |nu*| at station k: a slice's length at rest per unit s (1 unless rest shear or stretch). */
static inline double model_rest_nu_norm(const rod_model *m, int k)
{
    const double *x = model_xis_at(m, k);
    return sqrt(x[3] * x[3] + x[4] * x[4] + x[5] * x[5]);
}

/* The rest strain read at any s: the spec's constants, and its expressions through handles
 * of the reader's own (muparser's are not thread-safe; the model is shared). */
typedef struct {
    profile_arc *a[6];           /* NULL: the component is the constant spec->rest_value[k] */
} model_rest_reader;
/* 0, or -1 out of memory (nothing to close then). */
int model_rest_open(const rod_model *m, model_rest_reader *r);
void model_rest_close(model_rest_reader *r);
void model_rest_at(const rod_model *m, model_rest_reader *r, double s, double xis[6]);
/* xi*'s share of the alphas of one Magnus step [s0, s0 + h] (out: npts x 6): h sum_p w[i][p]
 * xi*(s0 + c_p h); a constant component enters alpha_1 alone as h xi*, exactly. */
void model_step_star(const rod_model *m, model_rest_reader *r, double s0, double h, double *out);

/* Legendre values of every xi column at X = s/L (out: n_xi). */
void model_eval_xi_columns(const rod_model *m, double s, double *out);
/* The weights of every xi column in the alphas of one Magnus step [s0, s0 + h] (m->mag's
 * rule): beta[i * n_xi + j] = h sum_p w[i][p] Phi_j(s0 + c_p h), so that alpha_i's component
 * of column j is sum beta q_j (plus h xi* in alpha_1). out: npts x n_xi. */
void model_step_beta(const rod_model *m, double s0, double h, double *beta);
/* xi(s) = Phi_xi(s) q_xi + xi* given the column values and xi* there (model_xis_at). */
void model_xi(const rod_model *m, const double *colvals, const double *xis, const double *q,
              double xi[6]);
/* model_xi and rho at npts points at once, from their column values side by side: cols_t
 * holds n_xi rows of npts, phi_t n_rho rows (Phi_rho), xis the points' xi* (npts x 6; NULL:
 * the straight rod's). xi[k npts + i] is component k at point i, rho[i] = 1 + Phi_rho q_rho
 * there: each the same sum in the same order as model_xi's and the rho of a frame, while a
 * column's products run across the points in vectors (a frame's 51 points and 28 stations,
 * point by point, spent most of their time on the loops around a few products). */
void model_xi_across(const rod_model *m, const double *cols_t, const double *xis, int npts, const double *q,
                     double *xi);
void model_rho_across(const rod_model *m, const double *phi_t, int npts, const double *q, double *rho);
/* rho and rho' at s. */
void model_rho(const rod_model *m, double s, const double *q, double *rho, double *drho);
section model_section(const rod_model *m, double s);
/* The profile input i has in the spec (what a state starts with). */
const profile *model_input_profile(const rod_model *m, int i);
/* The mass factor of an inflated section relative to the reference: 1 when mass is
 * conserved, rho^2 under the paper's scaling. */
static inline double model_mass_factor(const rod_model *m, double rho)
{
    return m->spec->inertia_paper ? rho * rho : 1.0;
}

#endif
