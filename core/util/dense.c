#include "dense.h"
#include "vector_clones.h"

#include <math.h>
#include <stddef.h>

int dense_cholesky(double *A, int n) { return dense_cholesky_rel(A, n, 0.0); }

VECTOR_CLONES
int dense_cholesky_rel(double *A, int n, double rtol)
{
    for (int j = 0; j < n; j++) {
        const double a = A[j + (long)n * j];
        double d = a;
        for (int k = 0; k < j; k++) d -= A[j + (long)n * k] * A[j + (long)n * k];
        if (!(d > rtol * a)) return j + 1;
        d = sqrt(d);
        A[j + (long)n * j] = d;
        const double inv = 1.0 / d;
        for (int i = j + 1; i < n; i++) {
            double s = A[i + (long)n * j];
            for (int k = 0; k < j; k++) s -= A[i + (long)n * k] * A[j + (long)n * k];
            A[i + (long)n * j] = s * inv;
        }
    }
    return 0;
}

VECTOR_CLONES
void dense_cholesky_solve(const double *L, int n, double *b)
{
    for (int i = 0; i < n; i++) {
        double s = b[i];
        for (int k = 0; k < i; k++) s -= L[i + (long)n * k] * b[k];
        b[i] = s / L[i + (long)n * i];
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = b[i];
        for (int k = i + 1; k < n; k++) s -= L[k + (long)n * i] * b[k];
        b[i] = s / L[i + (long)n * i];
    }
}

void dense_cholesky_mul(const double *L, int n, double *v)
{
    /* (L^T v)_i reads v_k for k >= i only, and (L y)_i y_k for k <= i: each pass in place */
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int k = i; k < n; k++) s += L[k + (long)n * i] * v[k];
        v[i] = s;
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = 0;
        for (int k = 0; k <= i; k++) s += L[i + (long)n * k] * v[k];
        v[i] = s;
    }
}

VECTOR_CLONES
int dense_lu(double *A, int n, int *piv)
{
    for (int j = 0; j < n; j++) {
        int p = j;
        for (int i = j + 1; i < n; i++)
            if (fabs(A[i + (size_t)n * j]) > fabs(A[p + (size_t)n * j])) p = i;
        piv[j] = p;
        if (!(A[p + (size_t)n * j] != 0)) return -1;
        if (p != j)
            for (int k = 0; k < n; k++) {
                double t = A[j + (size_t)n * k];
                A[j + (size_t)n * k] = A[p + (size_t)n * k];
                A[p + (size_t)n * k] = t;
            }
        const double inv = 1.0 / A[j + (size_t)n * j];
        for (int i = j + 1; i < n; i++) A[i + (size_t)n * j] *= inv;
        for (int k = j + 1; k < n; k++) {
            const double c = A[j + (size_t)n * k];
            if (c == 0) continue;
            for (int i = j + 1; i < n; i++) A[i + (size_t)n * k] -= A[i + (size_t)n * j] * c;
        }
    }
    return 0;
}

VECTOR_CLONES
void dense_lu_solve(const double *A, int n, const int *piv, double *b)
{
    /* dense_lu swaps whole rows (as LAPACK does), so all the swaps come first, then the unit
     * lower and the upper triangle */
    for (int j = 0; j < n; j++) {
        const int p = piv[j];
        if (p != j) {
            double t = b[j];
            b[j] = b[p];
            b[p] = t;
        }
    }
    for (int j = 0; j < n; j++)
        for (int i = j + 1; i < n; i++) b[i] -= A[i + (size_t)n * j] * b[j];
    for (int i = n - 1; i >= 0; i--) {
        double s = b[i];
        for (int k = i + 1; k < n; k++) s -= A[i + (size_t)n * k] * b[k];
        b[i] = s / A[i + (size_t)n * i];
    }
}
