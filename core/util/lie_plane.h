/* se(3) restricted to its planar subalgebra (omega_y; u_x, u_z), which is se(2): what the
 * kinematic recursion needs for a rod whose strains all lie in it (model.h's planar: bend2,
 * shear1, stretch), on 3-vectors p = (w, x, z), the 6-vector (0, w, 0, x, 0, z), and 3x3
 * matrices (column-major). Every function is its 6-dimensional counterpart (lie.h, magnus.h,
 * magnus_blocks.h) with the products of exact zeros left out, about a sixth of the flops;
 * tests/unit/test_kin_planar.c compares the recursions built on them. */
#ifndef ROD_LIE_PLANE_H
#define ROD_LIE_PLANE_H

#include "lie.h"
#include "magnus.h"

#include <string.h>

/* ad_a b of se(3) restricted to the plane: (0, a_w b_z - a_z b_w, a_x b_w - a_w b_x) */
static inline void plane_ad(const double a[3], const double b[3], double o[3])
{
    const double o1 = a[0] * b[2] - a[2] * b[0], o2 = a[1] * b[0] - a[0] * b[1];
    o[0] = 0.0;
    o[1] = o1;
    o[2] = o2;
}

/* the Magnus rules' bracket (magnus.c's br), plane_br(x, y) = ad_y x (magnus.c) */
static inline void plane_br(const double x[3], const double y[3], double o[3])
{
    plane_ad(y, x, o);
}

/* A pose turning by (c, s) = (cos, sin) about y, at (px, 0, pz). */
typedef struct {
    double c, s, px, pz;
} plane_pose;

static inline void plane_mul(const plane_pose *a, const plane_pose *b, plane_pose *o)
{
    const plane_pose r = {a->c * b->c - a->s * b->s, a->s * b->c + a->c * b->s,
                       a->px + a->c * b->px + a->s * b->pz, a->pz - a->s * b->px + a->c * b->pz};
    *o = r;
}

/* Ad_g^{-1} x = [R^T w; R^T (v - r x w)] */
static inline void plane_Ad_inv(const plane_pose *g, const double x[3], double o[3])
{
    const double ux = x[1] + g->pz * x[0], uz = x[2] - g->px * x[0];
    const double o1 = g->c * ux - g->s * uz, o2 = g->s * ux + g->c * uz;
    o[0] = x[0];
    o[1] = o1;
    o[2] = o2;
}

static inline void plane_to_pose(const plane_pose *p, lie_pose *g)
{
    memset(g, 0, sizeof *g);
    g->R[0] = p->c;
    g->R[2] = -p->s;
    g->R[4] = 1.0;
    g->R[6] = p->s;
    g->R[8] = p->c;
    g->r[0] = p->px;
    g->r[2] = p->pz;
}

/* A lie_pose in plane_to_pose's pattern by its six entries that are not fixed: R = [R0 0 R6;
 * 0 1 0; R2 0 R8], r = (r0, 0, r2), the other entries +0. R2 is kept apart from -R6: where
 * both are zero lie_pose_mul makes it +0 and plane_to_pose -0. */
typedef struct {
    double R0, R2, R6, R8, r0, r2;
} plane_pose3;

static inline void plane_pose3_of(const lie_pose *g, plane_pose3 *o)
{
    const plane_pose3 r = {g->R[0], g->R[2], g->R[6], g->R[8], g->r[0], g->r[2]};
    *o = r;
}

/* a times plane_to_pose(b) as lie_pose_mul computes it, bit for bit wherever the result is
 * finite: the pattern's zeros make each of its sums of three products two products with a +0
 * between them (x + 0 turns -0 into +0, as the full sum does), and leave the pattern's +0, 1
 * and +0 in the other entries. A sixth of the flops. A non-finite entry anywhere makes the
 * full product's zeros NaN: the caller takes lie_pose_mul then. */
static inline void plane_pose3_mul(const plane_pose3 *a, const plane_pose *b, plane_pose3 *o)
{
    const double ns = -b->s; /* plane_to_pose's R[2] */
    const plane_pose3 r = {(a->R0 * b->c + 0.0) + a->R6 * ns,
                           (a->R2 * b->c + 0.0) + a->R8 * ns,
                           (a->R0 * b->s + 0.0) + a->R6 * b->c,
                           (a->R2 * b->s + 0.0) + a->R8 * b->c,
                           ((a->r0 + a->R0 * b->px) + 0.0) + a->R6 * b->pz,
                           ((a->r2 + a->R2 * b->px) + 0.0) + a->R8 * b->pz};
    *o = r;
}

static inline void plane_to6(const double p[3], double v[6])
{
    v[0] = 0.0;
    v[1] = p[0];
    v[2] = 0.0;
    v[3] = p[1];
    v[4] = 0.0;
    v[5] = p[2];
}

/* A step's Magnus expansion (magnus.c's rules, with the same brackets kept) */
typedef struct {
    int order;
    double a[MAGNUS_MAX_POINTS][3];
    double C1[3], C2[3], X[3], Y[3];
} plane_magnus;

typedef struct {
    double C1[3], X[3], Y[3];
} plane_tangent_dir;

/* The tangent operator at Omega = (w, x, z): with A = ad_Omega, A^3 = -w^2 A (k . n = 0 in the
 * plane), so T = I + a A + b A^2 with a = c1 - t2 c3, b = c2 - t2 c4 (magnus_blocks.c's
 * blk6_dexp at d = 0), t2 = w^2. */
typedef struct {
    double Omega[3], t2, a, b;
    double f[6], c[5], theta;
    double T[9]; /* column-major */
} plane_tangent;

static inline void plane_m3_apply(const double M[9], const double x[3], double y[3])
{
    const double y0 = M[0] * x[0] + M[3] * x[1] + M[6] * x[2];
    const double y1 = M[1] * x[0] + M[4] * x[1] + M[7] * x[2];
    const double y2 = M[2] * x[0] + M[5] * x[1] + M[8] * x[2];
    y[0] = y0;
    y[1] = y1;
    y[2] = y2;
}

/* magnus.h's magnus_eval, magnus_dir (t: what plane_second needs, order 6) and
 * magnus_second, by the rule of s->order */
void plane_eval(plane_magnus *restrict s, double Omega[restrict 3]);
void plane_dir(const plane_magnus *restrict s, const double da[][3], double dO[restrict 3],
               plane_tangent_dir *restrict t);
void plane_second(const plane_magnus *restrict s, const double da[][3], const plane_tangent_dir *restrict t,
                  double d2[restrict 3]);
/* lie_tangent_init's coefficients; plane_dexp then fills t->T */
void plane_tangent_init(const double Omega[3], plane_tangent *t);
void plane_dexp(plane_tangent *t);
/* lie_dexp_dot_apply_tc: (d/dt T_Omega) v along Omega_dot = v */
void plane_dexp_dot_apply(const plane_tangent *t, const double v[3], double out[3]);
/* exp(Omega) */
void plane_exp(const plane_tangent *t, plane_pose *e);
/* magnus_blocks.h's blk6_slots: W_i = G dOmega/dalpha_i for a 3x3 G */
void plane_slots(const double G[9], const plane_magnus *ms, double W[MAGNUS_MAX_POINTS][9]);

#endif
