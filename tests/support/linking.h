/* Topology of a framed curve for the twisted-rod tests (seed 002 Fig. 9): writhe, linking
 * number and twist, so that Calugareanu's Lk = Tw + Wr can be checked against the turns a
 * test imposes. Polylines are exact: each pair of segments contributes the solid angle it
 * subtends (Klenin and Langowski, Biopolymers 54, 2000), so the only error is the polyline's
 * own distance from the smooth curve. */
#ifndef RODD_LINKING_H
#define RODD_LINKING_H

#include "rod.h"

/* Gauss's double integral over segments [p_a, p_b] and [p_c, p_d], over 4 pi: the signed
 * fraction of the sphere of directions from one segment to the other. */
double linking_segment_pair(const double pa[3], const double pb[3], const double pc[3], const double pd[3]);

/* Writhe of the polyline p[0..n-1] (3n numbers); closed: the segment from p[n-1] to p[0]
 * is part of it. */
double linking_writhe(const double *p, int n, int closed);

/* Linking number of two closed polylines. */
double linking_number(const double *a, int na, const double *b, int nb);

/* A frame's centre line closed by straight lines from its ends along -axis (base) and
 * +axis (tip), each `reach` long, then joined far away; the closure lies on the axis
 * through the ends when the ends are on it, as for a rod held at both ends on that axis.
 * Returns the points (3 (n + 4) numbers, malloc'd) and their count in *np. */
double *linking_closed_centreline(const rod_frame *f, const double axis[3], double reach, int *np);

/* The frame's twist in turns: the integral of kappa_3 over s, over 2 pi (trapezoids). */
double linking_frame_twist(const rod_frame *f);

#endif
