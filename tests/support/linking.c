#include "linking.h"

#include <math.h>
#include <stdlib.h>

static void sub3(const double a[3], const double b[3], double c[3])
{
    for (int i = 0; i < 3; i++) c[i] = a[i] - b[i];
}

static void cross3(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static int unit(double v[3])
{
    const double l = sqrt(dot3(v, v));
    if (!(l > 0)) return 0;
    for (int i = 0; i < 3; i++) v[i] /= l;
    return 1;
}

double linking_segment_pair(const double pa[3], const double pb[3], const double pc[3], const double pd[3])
{
    double r13[3], r14[3], r23[3], r24[3], n[4][3], e1[3], e2[3], c[3];
    sub3(pc, pa, r13);
    sub3(pd, pa, r14);
    sub3(pc, pb, r23);
    sub3(pd, pb, r24);
    cross3(r13, r14, n[0]);
    cross3(r14, r24, n[1]);
    cross3(r24, r23, n[2]);
    cross3(r23, r13, n[3]);
    for (int k = 0; k < 4; k++)
        if (!unit(n[k])) return 0.0; /* the segments are coplanar: they subtend no solid angle */
    double omega = 0;
    for (int k = 0; k < 4; k++) omega += asin(fmax(-1.0, fmin(1.0, dot3(n[k], n[(k + 1) % 4]))));
    sub3(pd, pc, e2);
    sub3(pb, pa, e1);
    cross3(e2, e1, c);
    const double side = dot3(c, r13);
    return side > 0 ? omega / (4 * M_PI) : side < 0 ? -omega / (4 * M_PI) : 0.0;
}

double linking_writhe(const double *p, int n, int closed)
{
    const int nseg = closed ? n : n - 1;
    double w = 0;
    for (int i = 0; i < nseg; i++)
        for (int j = i + 2; j < nseg; j++) {
            if (closed && i == 0 && j == nseg - 1) continue; /* neighbours through the closure */
            w += linking_segment_pair(p + 3 * i, p + 3 * ((i + 1) % n), p + 3 * j, p + 3 * ((j + 1) % n));
        }
    return 2 * w;
}

double linking_number(const double *a, int na, const double *b, int nb)
{
    double l = 0;
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++)
            l += linking_segment_pair(a + 3 * i, a + 3 * ((i + 1) % na), b + 3 * j, b + 3 * ((j + 1) % nb));
    return l;
}

double *linking_closed_centreline(const rod_frame *f, const double axis[3], double reach, int *np)
{
    /* base - reach axis, the rod, tip + reach axis, then out sideways and back below the base:
     * the closure lies in one plane with the axis, so it adds no writhe of its own */
    double side[3] = {fabs(axis[0]) < 0.9 ? 1.0 : 0.0, fabs(axis[0]) < 0.9 ? 0.0 : 1.0, 0.0}, tmp[3];
    cross3(axis, side, tmp);
    cross3(tmp, axis, side);
    unit(side);
    const int n = f->n + 4;
    double *p = malloc((size_t)n * 3 * sizeof *p);
    if (!p) return NULL;
    const double *b = f->position, *t = f->position + 3 * (f->n - 1);
    for (int i = 0; i < 3; i++) p[i] = b[i] - reach * axis[i];
    for (int k = 0; k < f->n; k++)
        for (int i = 0; i < 3; i++) p[3 * (k + 1) + i] = f->position[3 * k + i];
    for (int i = 0; i < 3; i++) {
        p[3 * (f->n + 1) + i] = t[i] + reach * axis[i];
        p[3 * (f->n + 2) + i] = t[i] + reach * axis[i] + reach * side[i];
        p[3 * (f->n + 3) + i] = b[i] - reach * axis[i] + reach * side[i];
    }
    *np = n;
    return p;
}

double linking_frame_twist(const rod_frame *f)
{
    double tw = 0;
    for (int k = 0; k + 1 < f->n; k++) tw += 0.5 * (f->kappa[3 * k + 2] + f->kappa[3 * k + 5]) * (f->s[k + 1] - f->s[k]);
    return tw / (2 * M_PI);
}
