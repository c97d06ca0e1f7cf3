/* The constraints' rows as the model lays them out and the per-state buffers they work in:
 * sized and allocated here when a model is compiled and a state created (model.c,
 * state_alloc.c), read and written by the constraints stage (constraints.c). */
#ifndef ROD_CONSTRAINTS_LAYOUT_H
#define ROD_CONSTRAINTS_LAYOUT_H

#include "state.h"

#include <math.h>

/* One row per held pose component, one per volume scope (the whole rod or each piece). */
typedef struct {
    int con;   /* index into spec->cons */
    int comp;  /* CON_X..CON_RZ for a pose; the piece (or 0 for the total) for a volume */
    int mult;  /* index among the multiplier rows, or -1 for a penalty row */
} con_row;

struct con_layout {
    int nrows, nmult;
    con_row *rows;
    int *mult_row;    /* nmult: the row of each multiplier */
    int *station;     /* per constraint: the station of a pose's point */
    int *station_rel; /* per constraint: the station of the point it is relative to (or 0) */
    double *vol0;     /* per row: the reference volume of a volume row's scope */
    int *first_row;   /* per constraint: its first row; its rows are contiguous */
    int *nrow;        /* per constraint: its row count */
    int *target;      /* per constraint x 4: the input holding its x, y, z, angle target, or -1 */
    double *ref;      /* per constraint x 12: a pose's value at rest, position then rotation
                       * (column-major), world or relative; NULL for the straight rod, whose
                       * are (0, 0, s - s_rel) and I. Load steps start from it. */
};

struct con_work {
    double *c, *cd, *A, *bias; /* per row: value, rate, gradient (row-major, n), A_dot q_dot minus
                                * the target's acceleration */
    double *lam;               /* per row: multiplier or penalty force */
    double *viol;              /* per row: c at the last record */
    double *B, *S, *mu, *tmp;  /* scratch */
    double *Jwa, *Jwb;         /* scratch: 6 x n_xi world Jacobians of a pose's two points */
    double *Rb;                /* per constraint x 9: the frame a relative pose was last held in */
    int dependent;             /* the last error was rows that (nearly) depend on each other */
};

/* Compile-time layout (model.c calls these). */
int constraints_compile(rod_model *m);
void constraints_model_free(rod_model *m);
/* Points that must be stations: the s of every pose constraint appended to bp[*nb]. */
int constraints_nbreakpoints(const rod_spec *sp);
void constraints_breakpoints(const rod_spec *sp, double *bp, int *nb);

/* Per-state work (state_alloc.c calls these). */
int constraints_state_init(rod_state *st);
void constraints_state_free(rod_state *st);

/* Rows solved by multipliers (the extra unknowns of statics) and all rows. */
int constraints_nmult(const rod_model *m);
int constraints_nrows(const rod_model *m);

/* Frames: how many constraints, their names and kinds. */
int constraints_count(const rod_model *m);
const char *constraints_name(const rod_model *m, int i);
int constraints_is_volume(const rod_model *m, int i);

/* The Hermite piece a Gauss station lies in (its nodes are stations of weight 0). */
static inline int constraints_piece_of(const rod_model *m, int k)
{
    const int P = m->spec->pieces > 0 ? m->spec->pieces : 1;
    int p = (int)floor(m->s[k] / m->L * P);
    return p < 0 ? 0 : p >= P ? P - 1 : p;
}

#endif
