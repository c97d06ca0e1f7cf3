#include "basis.h"

#include <string.h>

void basis_legendre(int N, double X, double *P, double *dP)
{
    const double x = 2.0 * X - 1.0;
    if (!dP) {
        /* values only (the kinematics' and frames' hot path): the same recursion, same values */
        double p0 = 1.0, p1 = x;
        for (int m = 0; m <= N; m++) {
            double p = m == 0 ? 1.0 : x;
            if (m >= 2) {
                p = ((2.0 * m - 1.0) * x * p1 - (m - 1.0) * p0) / m;
                p0 = p1;
                p1 = p;
            }
            P[m] = p;
        }
        return;
    }
    double p0 = 1.0, p1 = x, d0 = 0.0, d1 = 1.0; /* d: derivative with respect to x */
    for (int m = 0; m <= N; m++) {
        double p, d;
        if (m == 0) {
            p = 1.0;
            d = 0.0;
        } else if (m == 1) {
            p = x;
            d = 1.0;
        } else {
            /* Bonnet: m P_m = (2m-1) x P_{m-1} - (m-1) P_{m-2}; differentiated alike */
            p = ((2.0 * m - 1.0) * x * p1 - (m - 1.0) * p0) / m;
            d = ((2.0 * m - 1.0) * (p1 + x * d1) - (m - 1.0) * d0) / m;
            p0 = p1;
            p1 = p;
            d0 = d1;
            d1 = d;
        }
        P[m] = p;
        if (dP) dP[m] = 2.0 * d;
    }
}

int basis_hermite_ndof(int pieces, spec_bc bc)
{
    (void)bc;
    return 2 * pieces;
}

/* index of node i's value (slope: +1) coordinate in the full list, before removal */
static int dropped(int pieces, spec_bc bc, int full)
{
    const int last_v = 2 * pieces, last_d = 2 * pieces + 1;
    switch (bc) {
    case BC_DIRICHLET: return full == 0 || full == last_v;
    case BC_NEUMANN: return full == 1 || full == last_d;
    case BC_MIXED: return full == 0 || full == last_d;
    }
    return 0;
}

void basis_hermite(int pieces, spec_bc bc, double L, double s, double *phi, double *dphi)
{
    const int n = basis_hermite_ndof(pieces, bc);
    memset(phi, 0, (size_t)n * sizeof *phi);
    if (dphi) memset(dphi, 0, (size_t)n * sizeof *dphi);
    const double h = L / pieces;
    int e = (int)(s / h);
    if (e >= pieces) e = pieces - 1;
    if (e < 0) e = 0;
    const double u = (s - e * h) / h;
    const double u2 = u * u, u3 = u2 * u;
    /* H00, H10, H01, H11 and their d/du */
    const double H[4] = {1 - 3 * u2 + 2 * u3, u - 2 * u2 + u3, 3 * u2 - 2 * u3, -u2 + u3};
    const double dH[4] = {-6 * u + 6 * u2, 1 - 4 * u + 3 * u2, 6 * u - 6 * u2, -2 * u + 3 * u2};
    const int full[4] = {2 * e, 2 * e + 1, 2 * e + 2, 2 * e + 3};
    for (int k = 0; k < 4; k++) {
        if (dropped(pieces, bc, full[k])) continue;
        int idx = full[k];
        /* the reduced index: minus the dropped coordinates before this one */
        for (int j = 0; j < full[k]; j++) idx -= dropped(pieces, bc, j);
        phi[idx] = H[k];
        if (dphi) dphi[idx] = dH[k] / h;
    }
}
