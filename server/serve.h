/* `rodd serve` and `rodd probe`, and the daemon-wide operations the HTTP handlers share. */
#ifndef RODD_SERVE_H
#define RODD_SERVE_H

#include "daemon.h"

struct cJSON;

typedef struct {
    const char *spec_text;            /* or: */
    const struct cJSON *checkpoint;   /* a session checkpoint (GET .../checkpoint) */
    const char *name;
    int start;
    double pace, until;
    int points;
    /* which of pace, until and points the request gave: the rest come from a checkpoint */
    int has_pace, has_until, has_points;
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

int cli_serve(int argc, char **argv);
int cli_probe(int argc, char **argv);

#endif
