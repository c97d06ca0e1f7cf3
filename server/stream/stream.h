/* Streams over libwebsockets: a client connects to /v1/sessions/{id}/stream, gets a hello
 * and the session's description, then frames (JSON text, or binary little-endian float32
 * with a fixed header) at the rate and with the fields it asked for; latest wins.
 * Clients come in on the REST port (stream_adopt: the handshake arrives on a socketpair,
 * stream_bridge.c) and, when ws_port is set, on the stream port of their own; the same rules
 * admit both. libwebsockets runs on its own service thread; other threads only call
 * stream_notify, stream_session_gone and stream_adopt, which reach it through
 * lws_cancel_service(). */
#ifndef RODD_STREAM_H
#define RODD_STREAM_H

#include "daemon.h"

#include <stddef.h>

typedef struct stream_server stream_server;

stream_server *stream_start(daemon_ctx *d, char *err, size_t errlen);
/* Closes every stream (going away) and stops the service thread; stream_notify and
 * stream_session_gone are no-ops from then on, so the server may outlive stuck workers. */
void stream_stop(stream_server *ss);
/* Stops it if needed and frees it: only once nothing can call stream_notify any more. */
void stream_free(stream_server *ss);
/* A session published a frame or changed state (from any thread). */
void stream_notify(void *ctx, session *s);
/* A session is deleted: its clients are told and closed. */
void stream_session_gone(stream_server *ss, session *s);
/* Takes fd, a socket on which a WebSocket upgrade request follows (stream_handshake.h), and
 * serves it as a stream client from the service thread. 0; -1 when the streams are stopping
 * (then fd is still the caller's). Any thread. */
int stream_adopt(stream_server *ss, int fd);
/* One of max_streams' places, taken and counted in one atomic step: 0, or -1 when all are
 * taken. A stream holds its place until every resource it holds is given back (on the REST
 * port: its connection, its thread and its socketpair, stream_bridge.c; on the stream port:
 * its socket); stream_release gives it back. Any thread. */
int stream_reserve(stream_server *ss);
void stream_release(stream_server *ss);

#endif
