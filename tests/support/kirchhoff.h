/* An independent Kirchhoff rod for the tests: inextensible and unshearable, clamped at s = 0
 * (r = 0, R = I, d3 along +z), with a rest curvature kappa*(s), bending stiffnesses EI1, EI2,
 * torsional stiffness GJ, and a dead force F and dead moment M at its tip (world frame). Solved
 * by shooting on the base's internal moment: RK4 along s of
 *   r' = R e3,  R' = R [kappa]x,  m' = -r' x F,  kappa = kappa* + B^-1 R^T m,
 * with m the internal moment in the world frame and F the internal force (constant: no load
 * along the rod), Newton on m(L) = M with a finite-difference Jacobian, the load raised in
 * steps. It shares nothing with the engine. */
#ifndef RODD_KIRCHHOFF_H
#define RODD_KIRCHHOFF_H

typedef void (*kh_rest_fn)(double s, void *ctx, double kappa0[3]);

typedef struct {
    double L;
    double B[3];        /* EI1, EI2, GJ */
    kh_rest_fn rest;    /* kappa*(s) (bend1, bend2, twist); NULL: straight */
    void *ctx;
    double F[3], M[3];  /* dead tip force and moment, world frame */
    int steps;          /* RK4 steps along the rod */
    int load_steps;     /* continuation in the load (>= 1) */
} kh_problem;

/* 0 and the tip's position and rotation (row-major, columns d1 d2 d3), or -1 when Newton
 * does not converge. */
int kh_solve(const kh_problem *p, double r_tip[3], double R_tip[9]);

#endif
