/* The authors' code choices a spec may ask for ("authors_code", spec_authors_code): the parts
 * that are more than a switch where they apply. seeds/ERRATA.md says what each one is. */
#ifndef ROD_AUTHORS_H
#define ROD_AUTHORS_H

#include "model.h"

/* Gauss points of the authors' rule when discretization.points does not say (their nGauss). */
#define AUTHORS_GAUSS_POINTS 20

/* Stations of the authors' quadrature: one Gauss-Legendre rule over [0, L], both ends and any
 * point-load positions added with zero weight. The Hermite nodes are not breakpoints, so the
 * rule integrates piecewise cubics across them inexactly, as their code does. Fills m->s,
 * m->w, m->ns, m->ngauss; -1 on no memory. */
int authors_stations(rod_model *m);

#endif
