/* The daemon-wide operations the HTTP handlers and the process share: creating, restoring
 * and checkpointing sessions. */
#ifndef RODD_SERVICE_H
#define RODD_SERVICE_H

#include "daemon.h"
#include "recording.h"

#include <stddef.h>

struct cJSON;

typedef struct {
    const char *spec_text;            /* or: */
    const struct cJSON *checkpoint;   /* a session checkpoint (GET .../checkpoint) */
    const char *name;
    int start;
    double pace, until;
    double repeat; /* session_opts.repeat: 0 never (the default), SESSION_REPEAT_DURATION the spec's duration */
    int points;
    /* which of pace, until, repeat and points the request gave: the rest come from a checkpoint */
    int has_pace, has_until, has_repeat, has_points;
    recording_opts recording; /* what the request said, over the defaults */
    int has_recording;
} create_request;

/* A request with every option at its default (session_opts_default's pace and points, paused,
 * recording_opts_default): every caller starts from here and sets what it was asked for. */
void create_request_init(create_request *cr);

typedef struct {
    int status;            /* 201, 422, 503, 500 */
    char detail[512];
    struct cJSON *errors;  /* [{path, message}] for 422, owned by the caller */
} create_result;

/* Compiles, checks the caps, creates and registers a session (*out retained on 201). */
create_result daemon_create_session(daemon_ctx *d, const create_request *cr, session **out);
/* The text of api/examples/NAME.json (malloc'd) or NULL. */
char *read_example(daemon_ctx *d, const char *name);
/* Writes the session's checkpoint to the state directory: 0, -1 on failure, 1 when deferred
 * (a step held the state for over 2 s; the periodic checkpoint writes it later). */
int daemon_checkpoint_session(daemon_ctx *d, session *s);
/* The same, waiting at most `wait` seconds for the state. */
int daemon_checkpoint_session_within(daemon_ctx *d, session *s, double wait);
/* Every session's checkpoint (the periodic loop and the drain), in about `within` seconds. */
void daemon_checkpoint_all(daemon_ctx *d, double within);
/* Removes a session: its work stops, its checkpoint goes and is never written again, its
 * stream clients are told. -1 when there is no such session. */
int daemon_delete_session(daemon_ctx *d, const char *id);
/* An export is written to a temporary file of this prefix in the state directory (else
 * TMPDIR), sent, then removed; a daemon killed meanwhile leaves it behind. */
#define EXPORT_TEMP_PREFIX ".rodd-export-"
/* Removes the exports' temporary files a killed daemon left in the state directory (logged):
 * on a small volume they would hold its space for good. */
void daemon_remove_stale_exports(daemon_ctx *d);
/* Makes d->recording_budget: cfg.recording_budget, or (0) disk_budget_default over the state
 * directory (else TMPDIR, where recordings then go), logged with how it was sized. -1 with err
 * when the filesystem cannot be asked or there is no memory. Freed by disk_budget_free. */
int daemon_recording_budget(daemon_ctx *d, char *err, size_t errlen);
/* persist_load_all's callback: one checkpoint file back as a session (persist.h's codes). */
int daemon_restore_one(void *ctx, const char *file_id, const char *file, const char *text, size_t len, char *why,
                       size_t whylen);

#endif
