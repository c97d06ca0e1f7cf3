/* The mechanics of a FRAME past its per-point fields: a moving or free base's pose, the
 * bodies' positions, the constraints' reactions and the contacts; several rods: each moving
 * rod base's pose. Which of them a model's
 * frames carry, and their names, is the frame's shape (rod_frame_shape); the exports lay out
 * their columns and datasets from it and the recordings pack it into their float64 records.
 *
 * A packed frame is fixed-size (mech_values) but for its contacts, which vary in number: the
 * fixed part ends with the count, and the contacts follow as MECH_CONTACT_VALUES each. */
#ifndef RODD_FRAME_MECH_H
#define RODD_FRAME_MECH_H

#include "rod.h"

#include <stddef.h>

#define MECH_POSE_VALUES 13   /* force, moment, point, target (3 each), violation */
#define MECH_VOLUME_VALUES 2  /* pressure, violation */
#define MECH_CONTACT_VALUES 7 /* s, point (3), force (3); several rods: then the rod's index */

/* A copy of src's shape (names, flags, the rods' names; no values) into dst, which the caller frees with
 * rod_frame_free. 0, or -1 out of memory (dst then empty). */
int mech_shape_copy(rod_frame *dst, const rod_frame *src);
/* Values of a packed contact: MECH_CONTACT_VALUES, one more (the rod) for several rods. */
int mech_contact_values(const rod_frame *shape);
/* The rods of the shape's frames (1 for a one-rod model): a packed frame's per-point part
 * holds each field for every rod, rod after rod. */
int mech_rods(const rod_frame *shape);
/* The points of each of f's rods when they all have the same number (f->n for one rod), else -1. */
int mech_points(const rod_frame *f);
/* Several rods: how many of them have a base that moves (a joined rod's is free): its pose
 * (position 3, rotation 9) is packed after the model's own base, rod by rod. */
int mech_rod_bases(const rod_frame *shape);
/* 1 when the model's frames carry anything past the per-point fields. */
int mech_any(const rod_frame *shape);
/* Doubles of the fixed part of a packed frame (0 when mech_any is 0). */
size_t mech_values(const rod_frame *shape);
/* 1 when f has shape's rods, base, bodies, constraints and contacts (counts, kinds and names). */
int mech_matches(const rod_frame *shape, const rod_frame *f);
/* Writes f's fixed part (mech_values doubles) into v, then its contacts after it. */
void mech_pack(const rod_frame *shape, const rod_frame *f, double *v);
/* The number of contacts a packed frame carries (its fixed part at v). */
int mech_packed_contacts(const rod_frame *shape, const double *v);
/* Reads a packed frame (its fixed part, then its contacts) into f, whose cons, bodies and
 * rods arrays (shape's sizes, names already in them) the caller provides; contact_s,
 * contact_point and contact_force point into scratch, mech_contact_values doubles per
 * contact that the caller provides (mech_packed_contacts says how many); several rods:
 * contact_rod points into rod_scratch, an int per contact. */
void mech_unpack(const rod_frame *shape, const double *v, rod_frame *f, double *scratch, int *rod_scratch);

#endif
