/* Strain and inflation bases (App. E): Legendre polynomials for the strain twist xi
 * (Eq. 42) and C1 cubic Hermite splines for the inflation ratio rho (Eq. 48, Table 1). */
#ifndef ROD_BASIS_H
#define ROD_BASIS_H

/* The inflation's boundary types (Table 1); spec.h names them in the spec. */
typedef enum { BC_DIRICHLET, BC_NEUMANN, BC_MIXED } spec_bc;

/* P_0..P_N of the Legendre polynomials shifted to X in [0, 1] (P_m(2X - 1)), and their
 * derivatives d/dX (dP may be NULL). */
void basis_legendre(int N, double X, double *P, double *dP);

/* Number of inflation coordinates: nodes 0..pieces carry a value and a slope each; the
 * boundary condition removes two (dirichlet: both end values, rho = 1; neumann: both end
 * slopes, rho' = 0 so Q = 0; mixed: the base value and the tip slope). */
int basis_hermite_ndof(int pieces, spec_bc bc);

/* Phi_rho(s) and dPhi_rho/ds at s in [0, L] on equal pieces. A slope coordinate is the
 * derivative with respect to the piece's local coordinate s_bar = (s - a) / (b - a), as in
 * App. E. phi and dphi have basis_hermite_ndof entries. */
void basis_hermite(int pieces, spec_bc bc, double L, double s, double *phi, double *dphi);

#endif
