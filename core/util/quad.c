#include "quad.h"

#include <math.h>

/* P_n(z) and P_n'(z) by Bonnet's recursion. */
static double legendre_and_slope(int n, double z, double *dp)
{
    double p0 = 1.0, p1 = z;
    for (int k = 2; k <= n; k++) {
        double p2 = ((2.0 * k - 1.0) * z * p1 - (k - 1.0) * p0) / k;
        p0 = p1;
        p1 = p2;
    }
    *dp = n * (z * p1 - p0) / (z * z - 1.0);
    return p1;
}

/* Newton on P_n from the Tricomi initial guess; converges to machine precision in a few
 * steps for every n this engine uses (up to a few hundred). */
void quad_gauss_legendre(int n, double a, double b, double *x, double *w)
{
    const double mid = 0.5 * (a + b), half = 0.5 * (b - a);
    for (int i = 0; i < (n + 1) / 2; i++) {
        double z = cos(M_PI * (i + 0.75) / (n + 0.5)), dp;
        for (int it = 0; it < 100; it++) {
            double dz = legendre_and_slope(n, z, &dp) / dp;
            z -= dz;
            if (fabs(dz) < 1e-16) break;
        }
        legendre_and_slope(n, z, &dp); /* the slope at the converged root, for the weight */
        double wi = 2.0 / ((1.0 - z * z) * dp * dp);
        x[i] = mid - half * z;
        x[n - 1 - i] = mid + half * z;
        w[i] = w[n - 1 - i] = half * wi;
    }
    if (n % 2 == 1) x[n / 2] = mid;
}
