/* The one writer of a FRAME (DESIGN.md) per format, driven by the field table (frame_fields.h):
 * JSON for the streams, GET .../frame, REST's documents, `rodd solve`/`sweep` and NDJSON
 * exports; binary for the streams. Every JSON number has 10 significant digits (far below any
 * physical uncertainty of the model; HDF5 keeps every bit for who needs it), non-finite ones
 * are null.
 *
 * A model of several rods (f->nrods > 0) writes "rods": [{"name", the per-point fields}, ...]
 * where a one-rod FRAME has the per-point fields, each contact names its "rod", and its binary
 * frames are version 2 (below). One-rod frames are written as they always were. */
#ifndef RODD_FRAME_CODEC_H
#define RODD_FRAME_CODEC_H

#include "rod.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer; oom says an append failed (the contents are then incomplete). */
typedef struct {
    char *b;
    size_t len, cap;
    int oom;
} codec_buf;

void codec_put(codec_buf *b, const void *p, size_t n);
void codec_str(codec_buf *b, const char *s);
/* A number as the JSON frames carry it: 10 significant digits, null for inf and NaN. */
void codec_num(codec_buf *b, double v);

/* Appends the FRAME as JSON: "{" head "t": ..., the per-point fields and energy and
 * volume_change for the FRAME_F_* bits in fields, then (mech) a moving base, the bodies, the
 * constraints and the contacts. head is NULL or members with a trailing comma
 * ("\"seq\":3,"). Returns 0, or -1 on no memory. */
int frame_codec_json(codec_buf *out, const rod_frame *f, unsigned fields, int mech, const char *head);
/* The whole FRAME as NUL-terminated JSON text (malloc'd), NULL on no memory. */
char *frame_codec_json_text(const rod_frame *f);
/* The same as a cJSON tree the caller owns, to embed in larger documents (the numbers those
 * documents print are the text's 10 digits). NULL on no memory. */
cJSON *frame_codec_cjson(const rod_frame *f);

#define FRAME_BINARY_HEADER 32
/* Appends a binary FRAME, little-endian: magic "RODF", u16 version, u16 header bytes (32),
 * u64 seq, f64 t, u32 count, u32 field mask; then float32 values:
 *   version 1 (one rod): count = points n; per field in the mask s[n], position[3n],
 *     rotation[9n], rho[n], radius[n], kappa[3n], nu[3n], energy[3], volume_change[1].
 *   version 2 (several rods): count = rods; per rod u32 points n, u32 name bytes k, the name
 *     padded with NULs to a multiple of 4, its per-point fields as in version 1; then
 *     energy[3] and volume_change[1] once.
 * 0, or -1 on no memory. */
int frame_codec_binary(codec_buf *out, const rod_frame *f, unsigned fields, uint64_t seq);

#endif
