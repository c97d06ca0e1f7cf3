#include "export_impl.h"
#include "frame_fields.h"
#include "frame_mech.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name, *media_type;
} formats[] = {
    [EXPORT_NDJSON] = {"ndjson", "application/x-ndjson"},
    [EXPORT_CSV] = {"csv", "text/csv"},
    [EXPORT_HDF5] = {"hdf5", "application/x-hdf5"},
    [EXPORT_MCAP] = {"mcap", "application/x-mcap"},
};

int export_format_parse(const char *name, export_format *out)
{
    for (int i = 0; name && i < (int)(sizeof formats / sizeof *formats); i++)
        if (strcmp(formats[i].name, name) == 0) {
            *out = (export_format)i;
            return 0;
        }
    return -1;
}

const char *export_format_name(export_format f)
{
    return formats[f].name;
}

const char *export_format_media_type(export_format f)
{
    return formats[f].media_type;
}

static void writer_free(export_writer *w)
{
    free((char *)w->meta.spec_json);
    rod_frame_free(&w->shape);
    free(w->line.b);
    free(w->mem);
    free(w);
}

/* The text formats' stream: a file, stdout or memory. */
static int open_text(export_writer *w, const char *path, char *err, size_t errlen)
{
    if (!path) {
        w->out = open_memstream(&w->mem, &w->memlen);
        w->out_owned = 1;
    } else if (strcmp(path, "-") == 0) {
        w->out = stdout;
    } else {
        w->out = fopen(path, "w");
        w->out_owned = 1;
    }
    if (!w->out) {
        snprintf(err, errlen, "cannot write %s: %s", path ? path : "to memory", strerror(errno));
        return -1;
    }
    return 0;
}

export_writer *export_open(export_format fmt, const char *path, const export_meta *meta, char *err,
                           size_t errlen)
{
    if (meta->points < 2 || (meta->fields & ~(unsigned)FRAME_F_ALL)) {
        snprintf(err, errlen, "an export needs at least 2 points and known fields");
        return NULL;
    }
    export_writer *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->fmt = fmt;
    w->meta = *meta;
    w->meta.spec_json = NULL;
    w->meta.shape = &w->shape;
    if ((meta->spec_json && !(w->meta.spec_json = strdup(meta->spec_json))) ||
        (meta->shape && mech_shape_copy(&w->shape, meta->shape) != 0)) {
        snprintf(err, errlen, "out of memory");
        writer_free(w);
        return NULL;
    }
    if (fmt == EXPORT_HDF5) {
        w->h5_to_stdout = path && strcmp(path, "-") == 0;
        w->h5 = export_h5_open(w->h5_to_stdout ? NULL : path, &w->meta, err, errlen);
        if (!w->h5) {
            writer_free(w);
            return NULL;
        }
        return w;
    }
    if (open_text(w, path, err, errlen) != 0) {
        export_abort(w);
        return NULL;
    }
    if (fmt == EXPORT_MCAP && !(w->mcap = export_mcap_open(w->out, &w->meta, err, errlen))) {
        export_abort(w);
        return NULL;
    }
    if (fmt == EXPORT_CSV && export_csv_header(w) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path ? path : "to memory", strerror(errno));
        export_abort(w);
        return NULL;
    }
    return w;
}

int export_frame(export_writer *w, const rod_frame *f, char *err, size_t errlen)
{
    for (int r = 0; r < (f->nrods ? f->nrods : 1); r++) {
        const rod_frame *rod = f->nrods ? &f->rods[r] : f;
        if (rod->n != w->meta.points) {
            snprintf(err, errlen, "a frame of %d points%s%s in an export of %d", rod->n, f->nrods ? " in rod " : "",
                     rod->name, w->meta.points);
            return -1;
        }
    }
    if (!mech_matches(&w->shape, f)) {
        snprintf(err, errlen, "a frame whose base, bodies, constraints or contacts are not the export's");
        return -1;
    }
    if (w->frames > 0 && !(f->t >= w->last_t)) {
        snprintf(err, errlen, "frame times must not decrease (%g after %g)", f->t, w->last_t);
        return -1;
    }
    int rc;
    if (w->fmt == EXPORT_HDF5) {
        rc = export_h5_frame(w->h5, f, err, errlen);
    } else if (w->fmt == EXPORT_MCAP) {
        rc = export_mcap_frame(w->mcap, f, w->meta.fields, err, errlen);
    } else {
        rc = w->fmt == EXPORT_CSV ? export_csv_frame(w, f) : export_ndjson_frame(w, f);
        if (rc != 0) snprintf(err, errlen, "cannot write a frame: %s", strerror(errno));
    }
    if (rc == 0) {
        w->frames++;
        w->last_t = f->t;
    }
    return rc;
}

static int write_all(FILE *out, const char *p, size_t len)
{
    return fwrite(p, 1, len, out) == len && fflush(out) == 0 ? 0 : -1;
}

int export_close(export_writer *w, char **image, size_t *len, char *err, size_t errlen)
{
    if (image) *image = NULL;
    if (len) *len = 0;
    int rc = 0;
    if (w->fmt == EXPORT_HDF5) {
        char *img = NULL;
        size_t n = 0;
        const int in_memory = w->h5_to_stdout || image;
        rc = export_h5_close(w->h5, in_memory ? &img : NULL, in_memory ? &n : NULL, err, errlen);
        w->h5 = NULL;
        if (rc == 0 && w->h5_to_stdout) {
            if (write_all(stdout, img, n) != 0) {
                snprintf(err, errlen, "cannot write to stdout: %s", strerror(errno));
                rc = -1;
            }
            free(img);
        } else if (rc == 0 && image) {
            *image = img;
            *len = n;
        }
    } else {
        /* MCAP's summary and footer go out before the stream is closed like the text's */
        const int mcap_failed = w->mcap && export_mcap_close(w->mcap, err, errlen) != 0;
        w->mcap = NULL;
        const int failed = mcap_failed || ferror(w->out) || fflush(w->out) != 0;
        const int close_failed = w->out_owned && fclose(w->out) != 0;
        w->out = NULL;
        if (mcap_failed) {
            rc = -1;
        } else if (failed || close_failed) {
            snprintf(err, errlen, "cannot finish the file: %s", strerror(errno));
            rc = -1;
        } else if (image) {
            *image = w->mem; /* open_memstream's buffer, final once the stream is closed */
            *len = w->memlen;
            w->mem = NULL;
        }
    }
    writer_free(w);
    return rc;
}

void export_abort(export_writer *w)
{
    if (!w) return;
    if (w->h5) export_h5_abort(w->h5);
    export_mcap_abort(w->mcap);
    if (w->out && w->out_owned) fclose(w->out);
    writer_free(w);
}
