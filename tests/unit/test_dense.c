/* Dense solves against their definition: A x reproduces b. */
#include "dense.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

Test(dense, lu_solves_a_system_that_needs_row_swaps)
{
    /* a zero leading pivot and rows out of order force a swap at every column */
    enum { N = 6 };
    double A[N * N], F[N * N], b[N], x[N];
    unsigned s = 12345;
    for (int i = 0; i < N * N; i++) {
        s = s * 1103515245u + 12345u;
        A[i] = (double)(s >> 16 & 0x7fff) / 32768.0 - 0.5;
    }
    A[0] = 0.0;
    for (int i = 0; i < N; i++) b[i] = i + 1.0;
    memcpy(F, A, sizeof A);
    memcpy(x, b, sizeof b);
    int piv[N];
    cr_assert_eq(dense_lu(F, N, piv), 0);
    int swaps = 0;
    for (int j = 0; j < N; j++) swaps += piv[j] != j;
    cr_assert_geq(swaps, 2, "the case exercises pivoting (%d swaps)", swaps);
    dense_lu_solve(F, N, piv, x);
    for (int i = 0; i < N; i++) {
        double r = -b[i];
        for (int j = 0; j < N; j++) r += A[i + N * j] * x[j];
        cr_assert_lt(fabs(r), 1e-12, "row %d: residual %.3e", i, r);
    }
}

Test(dense, lu_reports_a_singular_matrix)
{
    double A[4] = {1, 2, 2, 4}; /* columns (1,2) and (2,4) */
    int piv[2];
    cr_assert_eq(dense_lu(A, 2, piv), -1);
}
