/* Small dense symmetric positive definite solves (n up to a few hundred, column-major). At
 * these sizes a hand Cholesky beats LAPACK's call overhead (DEPENDENCIES.md). */
#ifndef ROD_DENSE_H
#define ROD_DENSE_H

/* In place: the lower triangle of A (n x n, leading dimension n) becomes L with A = L L^T.
 * Returns 0, or the 1-based column where A is not positive definite. */
int dense_cholesky(double *A, int n);
/* Solves L L^T x = b in place in b. */
void dense_cholesky_solve(const double *L, int n, double *b);

#endif
