/* Statics' private context, shared by its Newton solvers (statics.c: KINSOL and the
 * load steps; statics_walls.c: the Newton among obstacles). */
#ifndef RODD_STATICS_CTX_H
#define RODD_STATICS_CTX_H

#include "one_rod.h"

typedef struct {
    const rod_model *m;
    rod_state *st;
    double t, factor;
    int N;                  /* unknowns: q (n) and the constraints' multipliers (constraints.h) */
    double *Q, *Q2, *qp;    /* scratch: n, n, N */
    double *cm, *cm2;       /* scratch: the multiplier rows' violations */
    int failed;             /* an input went non-finite */
    int coarse;             /* loads on kin_forward_coarse (the Newton matrix's differences) */
    /* The last residual, at last_u and last_factor, while the state's kinematics are still
     * that pass's: KINSOL's final residual is asked for again by the checks after it. */
    int have_last;
    double last_factor;
    double *last_u, *last_R; /* N each */
} statics_ctx;

/* The loads on q at u = [q; lambda] (Q(q) and the constraints' forces) and the multiplier
 * rows' violations in cm; the state's kinematics are u's after it. */
int statics_ctx_loads(statics_ctx *c, const double *u, double *Q, double *cm);
/* R = [K q - Q(q) - A^T lambda; c(q)] at u = [q; lambda] and the context's load factor. */
int statics_ctx_residual(statics_ctx *c, const double *u, double *R);
/* dR/du into J (N x N, column-major); coarse: on the Newton matrix's kinematics. */
int statics_ctx_jacobian(statics_ctx *c, const double *q, int coarse, double *J);
/* The residual's scale per row (1/K_ii, the constraints' own). */
void statics_ctx_scale(const statics_ctx *c, double *fs);
/* One Newton solve among obstacles from q (statics_walls.c); 0 when converged. */
int statics_solve_walls(statics_ctx *c, double *q, int *iters, double *R);

#endif
