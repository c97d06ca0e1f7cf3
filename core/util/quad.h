/* Gauss-Legendre quadrature (App. E). */
#ifndef ROD_QUAD_H
#define ROD_QUAD_H

/* Nodes x[0..n-1] (ascending) and weights w on [a, b]. n >= 1. */
void quad_gauss_legendre(int n, double a, double b, double *x, double *w);

#endif
