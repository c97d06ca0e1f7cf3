/* Multi-rod frames built by hand (rod.h's shape for issue 29), for the writers' tests while the
 * engine that fills them is built elsewhere. */
#ifndef RODD_TEST_RODS_FRAME_H
#define RODD_TEST_RODS_FRAME_H

#include "rod.h"

/* A frame of nrods rods named names[i], rod i with points[i] points (>= 2) and values that
 * say where they are (s = k / 10, position (i, k, 0.5 t), rho 1 + i/10, ...); two top-level
 * bodies "hub" and "arm1.tip_mass", a fixed joint's reaction "arm2.base" when nrods > 1, and
 * contacts (two, on the last rod, when contacts). Free with rod_frame_free. */
rod_frame rf_build(double t, int nrods, const char *const *names, const int *points, int contacts);
/* The shape of such a frame (rod_frame_shape's idea: names and counts, no values). */
rod_frame rf_shape(int nrods, const char *const *names, const int *points, int contacts);

#endif
