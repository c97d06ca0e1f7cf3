/* A model of several rods (issue 29): a spec's "rods", each compiled as a one-rod model of its
 * own, its top-level "bodies" as stub rods (1 um long, no strains) carrying them, and the joints
 * that hold a rod's base to a point of another rod or to a body.
 *
 * A joined rod's base is free (six coordinates of its own, base.h); the joint's rows hold
 * the child's base frame to the parent's frame at the point (offset by the joint's pose) by
 * Lagrange multipliers: all six relative twist components for "fixed", the three linear ones
 * for "ball", and the linear ones plus the two angular ones across the axis for "hinge" (or
 * by a penalty on the same rows, "method": "penalty", as a pose constraint's). The
 * rows' algebra is core/solve/asm_rows.c's; this header is data only, so the model layer
 * (model_eval.c, state.c) reads the sizes without calling up into the solve layer. */
#ifndef ROD_ASSEMBLY_H
#define ROD_ASSEMBLY_H

#include "lie.h"
#include "rod.h"

struct cJSON;

#define ASM_MAX_RODS 64
enum { JOINT_FIXED, JOINT_BALL, JOINT_HINGE };

typedef struct {
    int child, parent;  /* rod indices */
    int station;        /* the parent's station where the child's base sits (its tip) */
    int type;           /* JOINT_* */
    lie_pose offset;    /* the child's base relative to the parent's frame there, at rest */
    double axis[3];     /* hinge: unit axis in the child's base frame */
    double b[2][3];     /* hinge: two unit vectors across it */
    int nrows, row0;    /* its rows in the assembly's multipliers */
    /* "method": "penalty" (as a pose constraint's): the rows' force is -k c - d c_dot instead
     * of a multiplier (N/m on the position rows, N m/rad on the angular ones; N s/m, N m s/rad) */
    int penalty;
    double stiffness, damping;
} asm_joint;

typedef struct {
    char *name;         /* "ROD.NAME" */
    int rod, index;     /* the rod's own input */
} asm_input;

typedef struct assembly {
    int nrods;                /* rods, the stubs of top-level bodies last */
    int nreal;                /* the spec's rods: rods 0 .. nreal - 1 */
    rod_model **rod;          /* rod[0] is the model that holds this assembly */
    char **name;              /* each rod's (or body's) name */
    int *off;                 /* rod i's coordinates start at off[i] in q (n in all) */
    int n;
    double (*start_pose)[6];  /* a free stub's initial exponential coordinates (else 0) */
    int *order;               /* rods parents first */
    int njoints, nrows;       /* nrows: the joints' rows, then the locks' */
    asm_joint *joint;
    /* the stubs' own strain coordinates (a spec needs one) held at 0 by rows of their own,
     * so a stub is rigid without a stiff mode: lock k holds coordinate lock_col[k] of q, of
     * rod lock_rod[k], in row lock_row0 + k */
    int nlocks, lock_row0;
    int *lock_col, *lock_rod;
    int *joint_of;            /* per rod: the joint holding its base, or -1 */
    int ninputs;
    asm_input *input;
    char *spec_json;          /* the whole spec, canonical */
    double duration;
    int initial_static;
} assembly;

/* a contact between two rods, on one of them (frames) */
#define ASM_MAX_CONTACTS 512
typedef struct {
    int rod;
    double s, point[3], force[3];
} asm_contact_report;

/* A state of the assembly: each rod's own state (scratch, inputs, and its q, q_dot copied in
 * from the assembly's), the assembly's q and q_dot, the last multipliers. */
typedef struct asm_state {
    rod_state **rod;          /* rod[0] is the state that holds this */
    double t;
    double *q, *qd;           /* n each */
    double *lambda;           /* nrows: the joints' reactions on the child, its base frame */
    double *scratch;          /* the solve layer's working arrays */
    int *row_rods;            /* 2 nrows: the rods each row touches (-1: none) */
    const asm_joint **row_pen; /* nrows: the penalty joint a row is of, else NULL */
    double *cq;               /* n: contact's generalized forces, then accelerations */
    double *gq;               /* n: the joints' and contacts' generalized forces on rods with
                               * constraints */
    double *qc;               /* n: the rods' contacts' generalized forces (last evaluation) */
    int ncontacts;            /* the rods' contacts with each other at the last evaluation */
    asm_contact_report contact[ASM_MAX_CONTACTS];
    struct asm_solver *dyn;   /* the integrator (asm_integrator.c) */
    int need_reinit;
    int started;
    int frozen;               /* statics: a moving body's motion held still at its pose */
    int exact_joints;         /* statics' first pass: penalty joints held by multipliers */
    double relax;             /* statics: the rods' own multiplier rows held at relax times */
    double *c0;               /* their violations where it started (each rod's nmult in turn) */
} asm_state;

/* The keys only a spec of several rods has, as spec_known_paths lists a one-rod spec's
 * ("/rods/N/KEY" also takes every one-rod "/KEY"): for the schema test. */
extern const char *const assembly_known_paths[];

/* From a spec root holding "rods" (model_entry.c's call): the model of rod 0 with the
 * assembly in m->as, or NULL with every problem in issues (paths into the whole spec). */
rod_model *assembly_compile(const struct cJSON *root, rod_issues *issues);
/* Frees the assembly and every rod's model but rod[0] (the caller's). */
void assembly_free(assembly *a);

#endif
