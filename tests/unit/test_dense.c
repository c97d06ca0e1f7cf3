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

/* The Gram matrix of three unit vectors, the third at angle a from the plane of the first two:
 * its last pivot over its diagonal is sin^2 a, which dense_cholesky_rel compares with rtol. */
Test(dense, relative_cholesky_finds_a_vector_nearly_in_the_span_of_others)
{
    const double angles[] = {1e-5, 1e-7};
    for (int t = 0; t < 2; t++) {
        const double a = angles[t];
        const double v[3][3] = {{1, 0, 0}, {0.6, 0.8, 0}, {0, cos(a), sin(a)}};
        double G[9];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) G[i + 3 * j] = v[i][0] * v[j][0] + v[i][1] * v[j][1] + v[i][2] * v[j][2];
        const double ratio = sin(a) * sin(a);
        double H[9];
        memcpy(H, G, sizeof G);
        cr_assert_eq(dense_cholesky_rel(H, 3, 0.5 * ratio), 0, "sin^2 %g passes at half of it", ratio);
        cr_assert_float_eq(H[8] * H[8], ratio, 1e-6 * ratio + 4e-16, "the last pivot is sin^2 a");
        memcpy(H, G, sizeof G);
        cr_assert_eq(dense_cholesky_rel(H, 3, 2 * ratio), 3, "and fails at twice it, at the third row");
        cr_assert_eq(H[3], G[3], "the upper triangle is left as it was");
        cr_assert_eq(H[6], G[6]);
        cr_assert_eq(H[7], G[7]);
    }
}

Test(dense, cholesky_mul_gives_back_the_matrix_times_v)
{
    /* A = B^T B + I is positive definite; after dense_cholesky, dense_cholesky_mul(L, v) must be
     * A v, and dense_cholesky_solve must undo it */
    enum { N = 7 };
    double B[N * N], A[N * N], v[N], w[N], Av[N];
    unsigned s = 777;
    for (int i = 0; i < N * N; i++) {
        s = s * 1103515245u + 12345u;
        B[i] = (double)(s >> 16 & 0x7fff) / 32768.0 - 0.5;
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double a = i == j ? 1.0 : 0.0;
            for (int k = 0; k < N; k++) a += B[k + N * i] * B[k + N * j];
            A[i + N * j] = a;
        }
    for (int i = 0; i < N; i++) v[i] = sin(1.0 + i);
    for (int i = 0; i < N; i++) {
        Av[i] = 0;
        for (int j = 0; j < N; j++) Av[i] += A[i + N * j] * v[j];
    }
    cr_assert_eq(dense_cholesky(A, N), 0);
    memcpy(w, v, sizeof v);
    dense_cholesky_mul(A, N, w);
    for (int i = 0; i < N; i++) cr_assert_lt(fabs(w[i] - Av[i]), 1e-13 * (1 + fabs(Av[i])), "row %d: %.17g against %.17g", i, w[i], Av[i]);
    dense_cholesky_solve(A, N, w);
    for (int i = 0; i < N; i++) cr_assert_lt(fabs(w[i] - v[i]), 1e-12, "row %d", i);
}
