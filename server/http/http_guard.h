/* What keeps hostile clients from starving the REST port: a deadline on each request's headers
 * and body (not only an idle timeout, which one header line every few seconds resets), a
 * share of the connection slots kept for peers that hold few, and a bound on the request
 * bodies held in memory at once. */
#ifndef RODD_HTTP_GUARD_H
#define RODD_HTTP_GUARD_H

#include "config.h"

#include <microhttpd.h>
#include <sys/socket.h>

typedef struct http_guard http_guard;

http_guard *http_guard_new(const server_config *cfg);
void http_guard_free(http_guard *g);

/* libmicrohttpd's accept policy: refuses a peer that already holds many connections once the
 * slots left are the reserved ones. cls is the guard. */
enum MHD_Result http_guard_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen);
/* libmicrohttpd's connection notifications (MHD_OPTION_NOTIFY_CONNECTION). cls is the guard. */
void http_guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                       enum MHD_ConnectionNotificationCode code);

/* The request's headers are in: its body has request_timeout from now. */
void http_guard_headers_done(http_guard *g, struct MHD_Connection *conn);
/* The body is in: the handler runs, under its own limits. */
void http_guard_handling(http_guard *g, struct MHD_Connection *conn);
/* The request is answered: the next one on this connection must be in within the idle
 * timeout (connection_timeout, or request_timeout if longer). */
void http_guard_request_done(http_guard *g, struct MHD_Connection *conn);

/* The connection became a stream (a WebSocket upgrade): it keeps its slot, so it still counts
 * against max_connections and its peer's share, but no deadline cuts it; the stream server's
 * rules (pings, stream_idle_timeout) end it instead. */
void http_guard_upgraded(http_guard *g, struct MHD_Connection *conn);

/* Bodies in flight: 0 when n more bytes fit under the daemon-wide bound (then release them
 * when the request ends), -1 when they do not. */
int http_guard_reserve_body(http_guard *g, size_t n);
void http_guard_release_body(http_guard *g, size_t n);

#endif
