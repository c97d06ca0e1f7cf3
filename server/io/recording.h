/* A session's recording: its published frames, sampled at a rate in simulated time, kept in
 * a file (STATE_DIR/recordings/ID.rec, or an unlinked temporary file without a state
 * directory) of fixed-size float64 records, so that it survives restarts with the session and
 * a ring can overwrite the oldest frames in place (a frame with contacts takes more slots). Exported on demand as NDJSON, CSV or HDF5
 * (export.h).
 *
 * Threads: the worker that publishes appends (recording_add); any thread may describe,
 * configure or export at the same time. Exports read without holding the writer up: a record
 * the ring overwrote while it was read is left out; a new layout goes to a new file, so an
 * export in progress reads the old one whole. */
#ifndef RODD_RECORDING_H
#define RODD_RECORDING_H

#include "export.h"
#include "rod.h"

#include <stddef.h>

struct cJSON;
struct disk_budget;

typedef struct {
    int enabled;
    double rate;          /* frames per simulated second (> 0) */
    unsigned fields;      /* FRAME_F_* bits */
    long long max_bytes;  /* the file's size cap */
    int ring;             /* when full: 1 overwrite the oldest frames, 0 stop recording */
} recording_opts;

#define RECORDING_DEFAULT_RATE 30.0
#define RECORDING_DEFAULT_MAX_BYTES (256LL << 20)

void recording_opts_default(recording_opts *o);
/* Reads a request's "recording" object into o (starting from o's values); every problem goes
 * to errors (a cJSON array of {path, message}) under the JSON pointer prefix. 0 when none.
 * shape (rod_frame_shape, for the size of a frame's mechanics) may be NULL when the model is
 * not known yet: recording_check_size then checks again once it is. */
int recording_opts_parse(const struct cJSON *v, const char *prefix, int points, const rod_frame *shape,
                         recording_opts *o, struct cJSON *errors);
/* 0 when max_bytes holds at least two frames of the model (shape: rod_frame_shape, or NULL);
 * else -1 with the reason in msg. */
int recording_check_size(int points, const rod_frame *shape, const recording_opts *o, char *msg, size_t len);
/* Bytes of a frame's first slot (its fields and its mechanics but for contacts). */
size_t recording_frame_bytes(int points, unsigned fields, const rod_frame *shape);
/* The options as JSON (for checkpoints and descriptions). */
struct cJSON *recording_opts_json(const recording_opts *o);

typedef struct recording recording;

/* Opens the recording of session id: the state directory's file (created, or continued when
 * it was written with the same points, fields, shape and size) or, state_dir empty, a
 * temporary file. shape (rod_frame_shape; copied, may be NULL for none) is what the frames
 * carry beside their fields: a moving base, bodies, constraints, contacts; they are recorded
 * whatever the fields. budget (borrowed, outlives the recording; NULL: none) is taken from as
 * the file grows: with no room left, or the disk full, the recording stops (state "full" or
 * "failed" with an error saying which; the session carries on) until a recording_configure.
 * NULL with err on failure. */
recording *recording_open(const char *state_dir, const char *id, int points, const rod_frame *shape,
                          const recording_opts *o, struct disk_budget *budget, char *err, size_t errlen);
/* Closes it; remove_file also deletes the file. */
void recording_close(recording *r, int remove_file);
/* Deletes the file now (the session was deleted); the open recording lives on unnamed. */
void recording_unlink(recording *r);
/* Offers a published frame: kept when the rate's interval has passed since the last one
 * kept. A frame earlier than the last one kept (the session was reset, or restored from an
 * older checkpoint) first drops the frames from its time on: the recording follows the
 * session's one timeline. Failures are kept in the recording's state (recording_describe),
 * not returned. */
void recording_add(recording *r, const rod_frame *f);
/* The simulated time the next frame is due at (INFINITY when nothing is being recorded):
 * the stepping loops end a piece there so that the recording gets frames at its rate
 * whatever the pace. */
double recording_next_due(recording *r);
/* Changes the options. A change of fields or max_bytes starts the recording afresh (its
 * layout changes); rate, when_full and enabled apply from the next frame. */
int recording_configure(recording *r, const recording_opts *o, char *err, size_t errlen);
void recording_get_opts(recording *r, recording_opts *o);
/* The frames' shape, as given at open (owned by the recording). */
const rod_frame *recording_shape(const recording *r);
/* Options, frames, bytes, time span and state ("recording", "off", "full", "failed") as JSON. */
struct cJSON *recording_describe(recording *r);
/* Writes the frames with from <= t <= to as fmt to path (a file to create). spec_json goes
 * into HDF5's attributes. Returns the number of frames (>= 0), or -1 with err. */
long recording_export(recording *r, export_format fmt, double from, double to, const char *spec_json,
                      const char *path, char *err, size_t errlen);

#endif
