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
/* persist_load_all's callback: one checkpoint file back as a session (persist.h's codes). */
int daemon_restore_one(void *ctx, const char *file_id, const char *file, const char *text, size_t len, char *why,
                       size_t whylen);

#endif
