/* Frames written out as files: NDJSON (one FRAME per line), CSV (one row per frame and point),
 * HDF5 (one dataset per field, time-major, units and the spec as attributes) or MCAP (the
 * Foxglove channels of foxglove_channels.h). The layouts
 * are documented in README.md ("Exports"); rodd run and the recordings use them.
 *
 * A writer is used by one thread at a time. Frames must all have the points and the shape
 * given at open and times that do not decrease; only the fields in the mask are read, and the
 * mechanics (a moving base, bodies, constraints, contacts) always are. */
#ifndef RODD_EXPORT_H
#define RODD_EXPORT_H

#include "rod.h"

#include <stddef.h>

typedef enum { EXPORT_NDJSON, EXPORT_CSV, EXPORT_HDF5, EXPORT_MCAP } export_format;

/* "ndjson", "csv", "hdf5", "mcap" -> the format; -1 for any other name. */
int export_format_parse(const char *name, export_format *out);
const char *export_format_name(export_format f);
/* application/x-ndjson, text/csv, application/x-hdf5, application/x-mcap */
const char *export_format_media_type(export_format f);

typedef struct {
    int points;            /* values per field per frame, base to tip (>= 2) */
    unsigned fields;       /* FRAME_F_* bits written (t always is) */
    const char *spec_json; /* the spec, kept in the HDF5 file's attributes; may be NULL */
    const rod_frame *shape; /* rod_frame_shape of the model: the base, bodies, constraints and
                             * contacts every frame carries (copied at open); NULL: none */
} export_meta;

typedef struct export_writer export_writer;

/* Opens a writer. path: a file to create or replace; "-" for stdout; NULL to build the file
 * in memory (export_close hands it over). HDF5 to stdout is built in memory and written at
 * close. NULL with a message in err on failure. */
export_writer *export_open(export_format fmt, const char *path, const export_meta *meta, char *err,
                           size_t errlen);
/* Appends one frame. 0, or -1 with a message in err (the writer is then only fit to close). */
int export_frame(export_writer *w, const rod_frame *f, char *err, size_t errlen);
/* Finishes the file and frees w. For a writer opened with path NULL, *image and *len receive
 * the file (malloc'd, the caller frees); pass NULL for both otherwise. 0, or -1 with a
 * message in err (the file is then incomplete, *image NULL). */
int export_close(export_writer *w, char **image, size_t *len, char *err, size_t errlen);
/* Frees w without finishing (a memory image is dropped, a file is left as far as written). */
void export_abort(export_writer *w);

#endif
