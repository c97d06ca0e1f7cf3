/* Magnus integrators for g' = g xi^ over one step of length h (the kinematic recursion's step,
 * Eqs. 43-46): the 4th-order Zanna rule (two Gauss points, one commutator) and the 6th-order
 * rule of Blanes, Casas and Ros (three Gauss points, three commutators). Each is a polynomial
 * Omega(alpha) of the step's "alphas", linear combinations h sum_p w[i][p] xi_p of the strain at
 * its Gauss points. Derivatives of Omega (along q for the Jacobian, along t for the twist and
 * the acceleration bias) are directional derivatives of that polynomial, exact. */
#ifndef ROD_MAGNUS_H
#define ROD_MAGNUS_H

#include "lie.h"

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

/* The sixth-order rule's magnus_eval, magnus_dir and magnus_second (magnus.c). */
void magnus_eval6(magnus_step *s, double Omega[6]);
void magnus_dir6(const magnus_step *s, const double da[][6], double dOmega[6], magnus_tangent *t);
void magnus_second6(const magnus_step *s, const double da[][6], const magnus_tangent *t, double d2Omega[6]);

/* The fourth-order rule's three functions are inline: a call's alphas, stored element by
 * element by the caller and read back in pairs by the callee, stalled the store-to-load
 * forwarding (magnus_eval alone took 11 % of the cantilever bench's time); inlined, they stay
 * in registers. The rules are published for Y' = A Y; the rod's g' = g xi^ is the same
 * equation in the Lie algebra with the opposite bracket, so every [x, y] of the published
 * formulas is [y, x] = ad_y x here: Zanna's Omega = a1 + [a1, a2] / 12 of App. C reads
 * a1 - ad_a2 a1 / 12 with lie_ad_apply. */
/* Omega of the step whose alphas s->a holds; keeps the brackets in s. */
static inline void magnus_eval(magnus_step *s, double Omega[6])
{
    if (s->rule->order != 4) {
        magnus_eval6(s, Omega);
        return;
    }
    const double *a1 = s->a[0], *a2 = s->a[1];
    double c[6];
    lie_ad_apply(a2, a1, c);
    for (int i = 0; i < 6; i++) Omega[i] = a1[i] - c[i] / 12.0;
}

/* dOmega along the alpha direction da (one 6-vector per alpha); t (may be NULL) keeps what
 * magnus_second needs. */
static inline void magnus_dir(const magnus_step *s, const double da[][6], double dOmega[6], magnus_tangent *t)
{
    if (s->rule->order != 4) {
        magnus_dir6(s, da, dOmega, t);
        return;
    }
    const double *a1 = s->a[0], *a2 = s->a[1], *d1 = da[0], *d2 = da[1];
    double u[6], v[6];
    lie_ad_apply(a2, d1, u);
    lie_ad_apply(d2, a1, v);
    for (int i = 0; i < 6; i++) dOmega[i] = d1[i] - (u[i] + v[i]) / 12.0;
}

/* d2Omega along the straight line alpha + t da (its second derivative is zero, as for
 * q_ddot = 0), given magnus_dir's t for the same da. */
static inline void magnus_second(const magnus_step *s, const double da[][6], const magnus_tangent *t,
                                 double d2Omega[6])
{
    if (s->rule->order != 4) {
        magnus_second6(s, da, t, d2Omega);
        return;
    }
    double c[6];
    lie_ad_apply(da[1], da[0], c);
    for (int i = 0; i < 6; i++) d2Omega[i] = -c[i] / 6.0;
}
/* dOmega when only alpha_slot moves, along the unit twist e_c (c = 0..5): what a Jacobian
 * column of component c needs. */
void magnus_slot(const magnus_step *s, int slot, int c, double out[6]);

#endif
