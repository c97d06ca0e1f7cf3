/* Magnus integrators for g' = g xi^ over one step of length h (the kinematic recursion's step,
 * Eqs. 43-46): the 4th-order Zanna rule (two Gauss points, one commutator) and the 6th-order
 * rule of Blanes, Casas and Ros (three Gauss points, three commutators). Each is a polynomial
 * Omega(alpha) of the step's "alphas", linear combinations h sum_p w[i][p] xi_p of the strain at
 * its Gauss points. Derivatives of Omega (along q for the Jacobian, along t for the twist and
 * the acceleration bias) are directional derivatives of that polynomial, exact. */
#ifndef ROD_MAGNUS_H
#define ROD_MAGNUS_H

#define MAGNUS_MAX_POINTS 3

typedef struct {
    int order;                                  /* 4 or 6 */
    int npts;                                   /* Gauss points per step = number of alphas */
    double c[MAGNUS_MAX_POINTS];                /* the points on [0, 1] */
    double w[MAGNUS_MAX_POINTS][MAGNUS_MAX_POINTS]; /* alpha_i = h sum_p w[i][p] xi(s0 + c_p h) */
} magnus_rule;

/* The rule of order 4 or 6 (static storage); NULL for any other order. */
const magnus_rule *magnus_rule_of(int order);

/* One step's alphas and the intermediate brackets of its Omega (filled by magnus_eval). */
typedef struct {
    const magnus_rule *rule;
    double a[MAGNUS_MAX_POINTS][6];
    double C1[6], C2[6], X[6], Y[6]; /* 6th order: C1, C2 and the last bracket's arguments */
} magnus_step;

/* The first derivative's brackets along one direction, for magnus_second. */
typedef struct {
    double C1[6], C2[6], X[6], Y[6];
} magnus_tangent;

/* Omega of the step whose alphas s->a holds; keeps the brackets in s. */
void magnus_eval(magnus_step *s, double Omega[6]);
/* dOmega along the alpha direction da (one 6-vector per alpha); t (may be NULL) keeps what
 * magnus_second needs. */
void magnus_dir(const magnus_step *s, const double da[][6], double dOmega[6], magnus_tangent *t);
/* d2Omega along the straight line alpha + t da (its second derivative is zero, as for
 * q_ddot = 0), given magnus_dir's t for the same da. */
void magnus_second(const magnus_step *s, const double da[][6], const magnus_tangent *t, double d2Omega[6]);
/* dOmega when only alpha_slot moves, along the unit twist e_c (c = 0..5): what a Jacobian
 * column of component c needs. */
void magnus_slot(const magnus_step *s, int slot, int c, double out[6]);

#endif
