/* Quadrature and bases against closed forms and their defining properties. */
#include "basis.h"
#include "quad.h"

#include <criterion/criterion.h>
#include <math.h>

Test(quad, gauss_legendre_exact_for_degree_2n_minus_1)
{
    for (int n = 1; n <= 40; n++) {
        double x[64], w[64];
        quad_gauss_legendre(n, 0.0, 2.0, x, w);
        for (int p = 0; p <= 2 * n - 1; p++) {
            double s = 0;
            for (int i = 0; i < n; i++) s += w[i] * pow(x[i], p);
            double exact = pow(2.0, p + 1) / (p + 1);
            cr_assert_float_eq(s, exact, 1e-13 * exact, "n=%d p=%d: %.17g vs %.17g", n, p, s, exact);
        }
        for (int i = 1; i < n; i++) cr_assert_lt(x[i - 1], x[i]);
    }
}

Test(basis, legendre_closed_forms_and_derivatives)
{
    double P[16], dP[16];
    for (double X = 0; X <= 1.0; X += 0.125) {
        basis_legendre(4, X, P, dP);
        double x = 2 * X - 1;
        cr_assert_float_eq(P[0], 1, 1e-15);
        cr_assert_float_eq(P[1], x, 1e-15);
        cr_assert_float_eq(P[2], 0.5 * (3 * x * x - 1), 1e-15);
        cr_assert_float_eq(P[3], 0.5 * (5 * x * x * x - 3 * x), 1e-15);
        cr_assert_float_eq(P[4], (35 * pow(x, 4) - 30 * x * x + 3) / 8, 1e-14);
        cr_assert_float_eq(dP[2], 2 * 3 * x, 1e-14);
        cr_assert_float_eq(dP[3], 2 * 0.5 * (15 * x * x - 3), 1e-14);
        cr_assert_float_eq(dP[4], 2 * (140 * pow(x, 3) - 60 * x) / 8, 1e-13);
    }
    basis_legendre(10, 1.0, P, NULL);
    cr_assert_float_eq(P[10], 1.0, 1e-14); /* P_m(1) = 1 (App. E) */
}

Test(basis, legendre_orthogonal_on_the_rod)
{
    double x[32], w[32], P[12];
    quad_gauss_legendre(20, 0, 1, x, w);
    for (int a = 0; a <= 10; a++)
        for (int b = 0; b <= 10; b++) {
            double s = 0;
            for (int i = 0; i < 20; i++) {
                basis_legendre(10, x[i], P, NULL);
                s += w[i] * P[a] * P[b];
            }
            cr_assert_float_eq(s, a == b ? 1.0 / (2 * a + 1) : 0.0, 1e-14);
        }
}

static void check_bc(spec_bc bc, int pieces)
{
    const double L = 0.7;
    const int n = basis_hermite_ndof(pieces, bc);
    cr_assert_eq(n, 2 * pieces);
    double phi[64], dphi[64];
    basis_hermite(pieces, bc, L, 0.0, phi, dphi);
    for (int j = 0; j < n; j++) {
        if (bc == BC_DIRICHLET || bc == BC_MIXED) cr_assert_float_eq(phi[j], 0.0, 1e-13, "rho(0) fixed");
        if (bc == BC_NEUMANN) cr_assert_float_eq(dphi[j], 0.0, 1e-13, "rho'(0) = 0");
    }
    basis_hermite(pieces, bc, L, L, phi, dphi);
    for (int j = 0; j < n; j++) {
        if (bc == BC_DIRICHLET) cr_assert_float_eq(phi[j], 0.0, 1e-13, "rho(L) fixed");
        if (bc == BC_NEUMANN || bc == BC_MIXED) cr_assert_float_eq(dphi[j], 0.0, 1e-13, "rho'(L) = 0");
    }
    /* C1 across the interior nodes */
    for (int e = 1; e < pieces; e++) {
        double sn = L * e / pieces, pa[64], pb[64], da[64], db[64];
        basis_hermite(pieces, bc, L, sn * (1 - 1e-12), pa, da);
        basis_hermite(pieces, bc, L, sn * (1 + 1e-12), pb, db);
        for (int j = 0; j < n; j++) {
            cr_assert_float_eq(pa[j], pb[j], 1e-9);
            cr_assert_float_eq(da[j], db[j], 1e-7);
        }
    }
    /* the coordinates are independent: the Gram matrix is non-singular (Cholesky) */
    double G[64 * 64] = {0}, x[16], w[16];
    for (int e = 0; e < pieces; e++) {
        quad_gauss_legendre(6, L * e / pieces, L * (e + 1) / pieces, x, w);
        for (int g = 0; g < 6; g++) {
            basis_hermite(pieces, bc, L, x[g], phi, dphi);
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) G[i + 64 * j] += w[g] * phi[i] * phi[j];
        }
    }
    for (int j = 0; j < n; j++) {
        double d = G[j + 64 * j];
        for (int k = 0; k < j; k++) d -= G[j + 64 * k] * G[j + 64 * k];
        cr_assert_gt(d, 1e-12, "Hermite coordinate %d is dependent", j);
        d = sqrt(d);
        G[j + 64 * j] = d;
        for (int i = j + 1; i < n; i++) {
            double s = G[i + 64 * j];
            for (int k = 0; k < j; k++) s -= G[i + 64 * k] * G[j + 64 * k];
            G[i + 64 * j] = s / d;
        }
    }
}

Test(basis, hermite_boundary_conditions_held)
{
    for (int p = 1; p <= 5; p++) {
        check_bc(BC_DIRICHLET, p);
        check_bc(BC_NEUMANN, p);
        check_bc(BC_MIXED, p);
    }
}

Test(basis, hermite_neumann_represents_a_uniform_inflation)
{
    /* with free end values, rho = 1 + c is the sum of the value coordinates */
    double phi[16], dphi[16];
    for (double s = 0; s <= 1.0; s += 0.05) {
        basis_hermite(3, BC_NEUMANN, 1.0, s, phi, dphi);
        /* neumann coordinates: v0, v1, d1, v2, d2, v3 */
        double sum = phi[0] + phi[1] + phi[3] + phi[5], dsum = dphi[0] + dphi[1] + dphi[3] + dphi[5];
        cr_assert_float_eq(sum, 1.0, 1e-14);
        cr_assert_float_eq(dsum, 0.0, 1e-12);
    }
}
