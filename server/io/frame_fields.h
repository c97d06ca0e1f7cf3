/* The fields of a FRAME (DESIGN.md) as bits, for the streams' subscriptions, recordings and
 * exports. The order is the binary stream's and the exports': t first (always present), then
 * these. */
#ifndef RODD_FRAME_FIELDS_H
#define RODD_FRAME_FIELDS_H

#include "rod.h"

enum {
    FRAME_F_S = 1 << 0,
    FRAME_F_POSITION = 1 << 1,
    FRAME_F_ROTATION = 1 << 2,
    FRAME_F_RHO = 1 << 3,
    FRAME_F_RADIUS = 1 << 4,
    FRAME_F_KAPPA = 1 << 5,
    FRAME_F_NU = 1 << 6,
    FRAME_F_ENERGY = 1 << 7,
    FRAME_F_VOLUME = 1 << 8,
    FRAME_F_COUNT = 9,
    FRAME_F_ALL = (1 << 9) - 1,
};

/* The field of bit i (0 .. FRAME_F_COUNT-1) as FRAME names it: "s", "position", ... */
const char *frame_field_name(int i);
/* The bit of a field's name, or 0 when no field has that name. */
unsigned frame_field_bit(const char *name);
/* Values per point of a per-point field bit (1, 3 or 9); 0 for energy and volume_change,
 * which are one value (or three) per frame. */
int frame_field_width(unsigned bit);
/* The frame's values of a per-point field bit (frame_field_width(bit) x f->n doubles), NULL for
 * any other bit. */
const double *frame_field_values(const rod_frame *f, unsigned bit);

#endif
