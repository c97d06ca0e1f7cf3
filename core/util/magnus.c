#include "magnus.h"

#include "lie.h"
#include "vector_clones.h"

#include <string.h>

/* The rules are published for Y' = A Y; the rod's g' = g xi^ is the same equation in the Lie
 * algebra with the opposite bracket, so every [x, y] of the published formulas is [y, x] =
 * ad_y x here. (For the 4th order this gives the Zanna step Omega = h/2 (xi1 + xi2) +
 * sqrt(3) h^2/12 ad_xi1 xi2 of App. C.) */
static void br(const double x[6], const double y[6], double out[6])
{
    lie_ad_apply(y, x, out);
}

static const magnus_rule RULE4 = {
    .order = 4,
    .npts = 2,
    .c = {0.21132486540518712, 0.78867513459481288}, /* 1/2 -+ sqrt(3)/6 */
    /* alpha1 = h/2 (xi1 + xi2), alpha2 = sqrt(3) h (xi2 - xi1) */
    .w = {{0.5, 0.5}, {-1.7320508075688772, 1.7320508075688772}},
};

/* Blanes, Casas and Ros (2000); Blanes, Casas, Oteo and Ros, Phys. Rep. 470 (2009), Sec. 5.
 * alpha1 = h xi2, alpha2 = sqrt(15) h/3 (xi3 - xi1), alpha3 = 10 h/3 (xi3 - 2 xi2 + xi1);
 * C1 = [a1, a2], C2 = -1/60 [a1, 2 a3 + C1],
 * Omega = a1 + a3/12 + 1/240 [-20 a1 - a3 + C1, a2 + C2]. */
static const magnus_rule RULE6 = {
    .order = 6,
    .npts = 3,
    .c = {0.11270166537925831, 0.5, 0.88729833462074169}, /* 1/2 -+ sqrt(15)/10 */
    .w = {{0.0, 1.0, 0.0},
          {-1.2909944487358056, 0.0, 1.2909944487358056},
          {10.0 / 3.0, -20.0 / 3.0, 10.0 / 3.0}},
};

const magnus_rule *magnus_rule_of(int order)
{
    return order == 4 ? &RULE4 : order == 6 ? &RULE6 : NULL;
}

/* The fourth order is inline in magnus.h. */
VECTOR_CLONES
void magnus_eval6(magnus_step *s, double Omega[6])
{
    const double *a1 = s->a[0], *a2 = s->a[1];
    const double *a3 = s->a[2];
    double z[6], b[6];
    br(a1, a2, s->C1);
    for (int i = 0; i < 6; i++) z[i] = 2.0 * a3[i] + s->C1[i];
    br(a1, z, s->C2);
    for (int i = 0; i < 6; i++) {
        s->C2[i] *= -1.0 / 60.0;
        s->X[i] = -20.0 * a1[i] - a3[i] + s->C1[i];
        s->Y[i] = a2[i] + s->C2[i];
    }
    br(s->X, s->Y, b);
    for (int i = 0; i < 6; i++) Omega[i] = a1[i] + a3[i] / 12.0 + b[i] / 240.0;
}

VECTOR_CLONES
void magnus_dir6(const magnus_step *s, const double da[][6], double dOmega[6], magnus_tangent *t)
{
    const double *a1 = s->a[0], *a2 = s->a[1], *d1 = da[0], *d2 = da[1];
    double u[6], v[6];
    const double *a3 = s->a[2], *d3 = da[2];
    magnus_tangent tl, *tt = t ? t : &tl;
    double z[6], dz[6];
    br(d1, a2, u);
    br(a1, d2, v);
    for (int i = 0; i < 6; i++) {
        tt->C1[i] = u[i] + v[i];
        z[i] = 2.0 * a3[i] + s->C1[i];
        dz[i] = 2.0 * d3[i] + tt->C1[i];
    }
    br(d1, z, u);
    br(a1, dz, v);
    for (int i = 0; i < 6; i++) {
        tt->C2[i] = -(u[i] + v[i]) / 60.0;
        tt->X[i] = -20.0 * d1[i] - d3[i] + tt->C1[i];
        tt->Y[i] = d2[i] + tt->C2[i];
    }
    br(tt->X, s->Y, u);
    br(s->X, tt->Y, v);
    for (int i = 0; i < 6; i++) dOmega[i] = d1[i] + d3[i] / 12.0 + (u[i] + v[i]) / 240.0;
}

VECTOR_CLONES
void magnus_second6(const magnus_step *s, const double da[][6], const magnus_tangent *t, double d2Omega[6])
{
    const double *d1 = da[0], *d2 = da[1];
    const double *a1 = s->a[0], *d3 = da[2];
    double C1dd[6], C2dd[6], dz[6], u[6], v[6], w[6];
    br(d1, d2, C1dd);
    for (int i = 0; i < 6; i++) {
        C1dd[i] *= 2.0;
        dz[i] = 2.0 * d3[i] + t->C1[i];
    }
    br(d1, dz, u);
    br(a1, C1dd, v);
    for (int i = 0; i < 6; i++) C2dd[i] = -(2.0 * u[i] + v[i]) / 60.0;
    /* X'' = C1'', Y'' = C2'' */
    br(C1dd, s->Y, u);
    br(t->X, t->Y, v);
    br(s->X, C2dd, w);
    for (int i = 0; i < 6; i++) d2Omega[i] = (u[i] + 2.0 * v[i] + w[i]) / 240.0;
}

/* ad_{e_c} y for the unit twist e_c: [u x y_k; u x y_n] for an angular c (u its axis),
 * [0; u x y_k] for a linear one. */
static void ad_unit(int c, const double y[6], double out[6])
{
    const int lin = c >= 3, a = c % 3;
    const double *yk = y, *yn = lin ? y : y + 3;
    double o[6] = {0};
    double *ok = lin ? o + 3 : o, *on = o + 3;
    /* u_a x v: (0, -v2, v1), (v2, 0, -v0), (-v1, v0, 0) */
    if (a == 0) {
        ok[1] = -yk[2];
        ok[2] = yk[1];
    } else if (a == 1) {
        ok[0] = yk[2];
        ok[2] = -yk[0];
    } else {
        ok[0] = -yk[1];
        ok[1] = yk[0];
    }
    if (!lin) {
        if (a == 0) {
            on[1] = -yn[2];
            on[2] = yn[1];
        } else if (a == 1) {
            on[0] = yn[2];
            on[2] = -yn[0];
        } else {
            on[0] = -yn[1];
            on[1] = yn[0];
        }
    }
    memcpy(out, o, sizeof o);
}

/* magnus_dir with one alpha moving along the unit twist e_c: the brackets with a zero argument
 * left out, those with e_c taken by ad_unit (br(e, y) = -ad_e y, br(y, e) = ad_e y). */
void magnus_slot(const magnus_step *s, int slot, int c, double out[6])
{
    const double *a1 = s->a[0], *a2 = s->a[1];
    double u[6], v[6];
    if (s->rule->order == 4) {
        if (slot == 0) {
            ad_unit(c, a2, u);
            for (int i = 0; i < 6; i++) out[i] = u[i] / 12.0;
            out[c] += 1.0;
        } else {
            ad_unit(c, a1, u);
            for (int i = 0; i < 6; i++) out[i] = -u[i] / 12.0;
        }
        return;
    }
    double C1d[6], C2d[6], Xd[6], Yd[6];
    if (slot == 0) {
        double z[6];
        ad_unit(c, a2, C1d);
        for (int i = 0; i < 6; i++) {
            C1d[i] = -C1d[i];
            z[i] = 2.0 * s->a[2][i] + s->C1[i];
        }
        ad_unit(c, z, u); /* -br(e, z) */
        br(a1, C1d, v);
        for (int i = 0; i < 6; i++) {
            C2d[i] = (u[i] - v[i]) / 60.0;
            Xd[i] = C1d[i];
            Yd[i] = C2d[i];
        }
        Xd[c] -= 20.0;
    } else if (slot == 1) {
        ad_unit(c, a1, C1d);
        br(a1, C1d, v);
        for (int i = 0; i < 6; i++) {
            C2d[i] = -v[i] / 60.0;
            Xd[i] = C1d[i];
            Yd[i] = C2d[i];
        }
        Yd[c] += 1.0;
    } else {
        ad_unit(c, a1, v);
        for (int i = 0; i < 6; i++) {
            C2d[i] = -v[i] / 30.0;
            Xd[i] = 0.0;
            Yd[i] = C2d[i];
        }
        Xd[c] = -1.0;
    }
    br(Xd, s->Y, u);
    br(s->X, Yd, v);
    for (int i = 0; i < 6; i++) out[i] = (u[i] + v[i]) / 240.0;
    out[c] += slot == 0 ? 1.0 : slot == 2 ? 1.0 / 12.0 : 0.0;
}
