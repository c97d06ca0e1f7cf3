/* What every part of `rodd serve` shares. */
#ifndef RODD_DAEMON_H
#define RODD_DAEMON_H

#include "auth.h"
#include "config.h"
#include "idem.h"
#include "pool.h"

#include <stdatomic.h>

struct stream_server;
struct http_server;
struct disk_budget;

typedef struct {
    server_config cfg;
    pool *pool;
    auth *auth;
    idem *idem;
    struct stream_server *streams;
    struct http_server *http;
    atomic_int ready;     /* serving; 0 while starting or draining */
    char ordinal[32];     /* the prefix of every session id this daemon makes */
    int ws_port;          /* the stream port, when there is one (0: the REST port only) */
    struct disk_budget *recording_budget; /* every session's recording takes from it */
} daemon_ctx;

#endif
