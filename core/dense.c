#include "dense.h"

#include <math.h>

int dense_cholesky(double *A, int n)
{
    for (int j = 0; j < n; j++) {
        double d = A[j + (long)n * j];
        for (int k = 0; k < j; k++) d -= A[j + (long)n * k] * A[j + (long)n * k];
        if (!(d > 0)) return j + 1;
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
