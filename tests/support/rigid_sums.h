/* A free rod's rigid-body sums for the conservation tests: linear momentum, angular momentum
 * about the world origin, mass and centre of mass, by the model's quadrature over its stations
 * (classic model: the section keeps rho = 1). */
#ifndef RODD_RIGID_SUMS_H
#define RODD_RIGID_SUMS_H

#include "rod.h"

typedef struct {
    double P[3], H[3], mass, com[3];
} rigid_sums;

/* At the state's q and q_dot (uses the state's scratch poses and twists). */
rigid_sums rigid_sums_of(const rod_model *m, rod_state *st);

#endif
