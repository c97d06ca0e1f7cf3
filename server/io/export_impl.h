/* What the export writers share; private to server/io/export*.c. */
#ifndef RODD_EXPORT_IMPL_H
#define RODD_EXPORT_IMPL_H

#include "export.h"
#include "frame_codec.h"

#include <stdio.h>

typedef struct export_h5 export_h5;
typedef struct export_mcap export_mcap;

struct export_writer {
    export_format fmt;
    export_meta meta; /* spec_json and shape point to copies owned here */
    rod_frame shape;  /* the frames' mechanics (frame_mech.h); meta.shape points here */
    long frames;
    double last_t;
    FILE *out;        /* text formats: the file, stdout or a memory stream */
    int out_owned;    /* out is closed at the end (not stdout) */
    char *mem;        /* the memory stream's buffer (open_memstream) */
    size_t memlen;
    export_h5 *h5;    /* HDF5 */
    int h5_to_stdout; /* the HDF5 file is built in memory and written to stdout at close */
    export_mcap *mcap; /* MCAP: written to out, as the text formats */
    codec_buf line;    /* the text formats: a frame's text, its memory kept from frame to frame */
};

/* Text: numbers with 10 significant digits, as the JSON frames carry them. */
int export_csv_header(export_writer *w);
int export_csv_frame(export_writer *w, const rod_frame *f);
int export_ndjson_frame(export_writer *w, const rod_frame *f);

/* HDF5: path NULL builds the file in memory. */
export_h5 *export_h5_open(const char *path, const export_meta *meta, char *err, size_t errlen);
int export_h5_frame(export_h5 *h, const rod_frame *f, char *err, size_t errlen);
int export_h5_close(export_h5 *h, char **image, size_t *len, char *err, size_t errlen);
void export_h5_abort(export_h5 *h);

/* MCAP (export_mcap.c): out is borrowed. */
export_mcap *export_mcap_open(FILE *out, const export_meta *meta, char *err, size_t errlen);
int export_mcap_frame(export_mcap *x, const rod_frame *f, unsigned fields, char *err, size_t errlen);
/* Finishes the file (out is flushed, not closed) and frees x. */
int export_mcap_close(export_mcap *x, char *err, size_t errlen);
void export_mcap_abort(export_mcap *x);

#endif
