/* Small dense solves, symmetric positive definite and general (n up to a few hundred,
 * column-major). At these sizes hand factorizations beat LAPACK's call overhead
 * (DEPENDENCIES.md). */
#ifndef ROD_DENSE_H
#define ROD_DENSE_H

/* In place: the lower triangle of A (n x n, leading dimension n) becomes L with A = L L^T.
 * Returns 0, or the 1-based column where A is not positive definite. */
int dense_cholesky(double *A, int n);
/* The same, failing (j + 1) at the first pivot d_j <= rtol A_jj: for a Gram matrix, d_j / A_jj
 * is the squared sine of the angle between vector j and the span of those before it, so a
 * small rtol finds the vectors that nearly depend on earlier ones. The upper triangle is left
 * as it was. */
int dense_cholesky_rel(double *A, int n, double rtol);
/* Solves L L^T x = b in place in b. */
void dense_cholesky_solve(const double *L, int n, double *b);
/* v <- L L^T v in place (L^T v, then L times it): the matrix a factor stands for, times v. */
void dense_cholesky_mul(const double *L, int n, double *v);

/* In place LU with partial pivoting of the general n x n A (column-major): 0, or -1 when a
 * pivot is zero. */
int dense_lu(double *A, int n, int *piv);
/* Solves A x = b in place in b with dense_lu's factors. */
void dense_lu_solve(const double *A, int n, const int *piv, double *b);

#endif
