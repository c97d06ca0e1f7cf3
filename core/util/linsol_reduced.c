#include "linsol_reduced.h"

#include "dense.h"

#include <stdlib.h>
#include <sunmatrix/sunmatrix_dense.h>

typedef struct {
    int n;
    double gamma;
    double *S; /* n x n: BR + gamma BL, then its LU */
    int *piv;
    sunindextype last;
} reduced;

static SUNLinearSolver_Type get_type(SUNLinearSolver LS)
{
    (void)LS;
    return SUNLINEARSOLVER_DIRECT;
}

static int setup(SUNLinearSolver LS, SUNMatrix A)
{
    reduced *r = LS->content;
    const int n = r->n;
    /* the top right block is -gamma I */
    r->gamma = -SUNDenseMatrix_Column(A, n)[0];
    for (int j = 0; j < n; j++) {
        const double *bl = SUNDenseMatrix_Column(A, j) + n, *br = SUNDenseMatrix_Column(A, n + j) + n;
        double *s = r->S + (size_t)n * j;
        for (int i = 0; i < n; i++) s[i] = br[i] + r->gamma * bl[i];
    }
    r->last = dense_lu(r->S, n, r->piv) == 0 ? 0 : 1;
    return r->last == 0 ? SUNLS_SUCCESS : SUNLS_LUFACT_FAIL;
}

static int solve(SUNLinearSolver LS, SUNMatrix A, N_Vector x, N_Vector b, realtype tol)
{
    (void)tol;
    reduced *r = LS->content;
    const int n = r->n;
    const double *bb = N_VGetArrayPointer(b);
    double *xx = N_VGetArrayPointer(x);
    double *x2 = xx + n;
    /* x may alias b: form x2 = b2 - BL b1 first, then x1 from b1 in place */
    for (int i = 0; i < n; i++) x2[i] = bb[n + i];
    for (int j = 0; j < n; j++) {
        const double *bl = SUNDenseMatrix_Column(A, j) + n, c = bb[j];
        if (c == 0) continue;
        for (int i = 0; i < n; i++) x2[i] -= bl[i] * c;
    }
    dense_lu_solve(r->S, n, r->piv, x2);
    for (int i = 0; i < n; i++) xx[i] = bb[i] + r->gamma * x2[i];
    r->last = 0;
    return SUNLS_SUCCESS;
}

static sunindextype last_flag(SUNLinearSolver LS)
{
    return ((reduced *)LS->content)->last;
}

static int free_solver(SUNLinearSolver LS)
{
    if (!LS) return SUNLS_SUCCESS;
    reduced *r = LS->content;
    if (r) {
        free(r->S);
        free(r->piv);
        free(r);
    }
    LS->content = NULL;
    SUNLinSolFreeEmpty(LS);
    return SUNLS_SUCCESS;
}

SUNLinearSolver linsol_reduced_create(int n, SUNContext ctx)
{
    SUNLinearSolver LS = SUNLinSolNewEmpty(ctx);
    if (!LS) return NULL;
    reduced *r = calloc(1, sizeof *r);
    LS->content = r;
    if (r) {
        r->n = n;
        r->S = calloc((size_t)n * n + 1, sizeof *r->S);
        r->piv = calloc((size_t)n + 1, sizeof *r->piv);
    }
    if (!r || !r->S || !r->piv) {
        free_solver(LS);
        return NULL;
    }
    LS->ops->gettype = get_type;
    LS->ops->setup = setup;
    LS->ops->solve = solve;
    LS->ops->lastflag = last_flag;
    LS->ops->free = free_solver;
    return LS;
}
