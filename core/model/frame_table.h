/* What an output frame of n points needs from the bases, tabulated once per model and n: each
 * point's station, the Magnus steps from that station to it (their alpha weights, as
 * model_step_beta gives them), and its strain columns, Hermite values and reference radius.
 * The tables hang off the model (shared by its states, built on first use under a lock):
 * frames then never evaluate a basis, and a session at 30 frames a second pays for them once. */
#ifndef ROD_FRAME_TABLE_H
#define ROD_FRAME_TABLE_H

#include "model.h"

typedef struct frame_table {
    int n;          /* output points, s_i = L i / (n - 1) */
    double *s;      /* n */
    int *station;   /* n: the last station at or before s_i */
    int *first;     /* n + 1: point i's steps are first[i] .. first[i + 1] - 1 */
    double *h;      /* steps: their lengths */
    double *beta;   /* steps x npts x n_xi */
    double *star;   /* steps x npts x 6: the rest strain's share (NULL: straight rod) */
    double *xis;    /* n x 6: the rest strain at s_i (NULL: straight rod) */
    double *cols;   /* n x n_xi: Phi_xi(s_i) */
    double *phi;    /* n x n_rho: Phi_rho(s_i) */
    double *z;      /* n: the reference radius at s_i */
    /* the same side by side, each column's values at every point (or step, or station) in a
     * row: sums over the columns then run across the points in vectors, each point's added in
     * its own order as before (frame.c) */
    double *beta_t; /* n_xi x (steps x npts): beta's columns */
    double *cols_t; /* n_xi x n */
    double *phi_t;  /* n_rho x n */
    double *leg_t;  /* n_xi x ns: the model's leg, at its stations */
    double *phr_t;  /* n_rho x ns: the model's phr */
    /* the model's K without its exact zeros, in the order q^T K q takes them (row i, then
     * column j): entry t is K[k_row[t] + n k_col[t]] = k_val[t] */
    int nk;
    int *k_row, *k_col;
    double *k_val;
    struct frame_table *next;
} frame_table;

/* The model's table for n points, built on first use; with *own set the table is the caller's
 * (the model keeps a few, not one per n a client asks for) and goes back through
 * frame_table_release. NULL: out of memory. */
const frame_table *frame_table_acquire(const rod_model *m, int n, int *own);
void frame_table_release(const frame_table *t, int own);

/* The model's cache: created with it, freed with it (rod_model_free). */
struct frame_cache *frame_cache_create(void);
void frame_cache_free(struct frame_cache *c);

#endif
