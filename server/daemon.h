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

typedef struct {
    server_config cfg;
    pool *pool;
    auth *auth;
    idem *idem;
    struct stream_server *streams;
    struct http_server *http;
    atomic_int ready;     /* serving; 0 while starting or draining */
    char ordinal[32];     /* the prefix of every session id this daemon makes */
    int ws_port;          /* where streams listen */
} daemon_ctx;

/* Writes the session's checkpoint to the state directory: 0, -1 on failure, 1 when deferred
 * (a step held the state for over 2 s; the periodic checkpoint writes it later). */
int daemon_checkpoint_session(daemon_ctx *d, session *s);

#endif
