/* Streams on the REST port. libmicrohttpd writes a 101 itself and then hands the socket over;
 * libwebsockets wants to answer the handshake itself, and cannot take a socket whose handshake
 * is done. So the REST handler plays the client to the stream server first: it passes the
 * upgrade request (stream_handshake.h) to it over a socketpair (stream_adopt), and repeats its
 * answer, the 101 with its Sec-WebSocket-Accept or the refusal with its status, through
 * libmicrohttpd. After the 101 one pump thread (splice.h) copies the bytes both ways. So
 * whichever port a stream comes in on, the same code admits it (Host, Origin, token or ticket,
 * max_streams) and serves it. A REST-port stream holds its connection slot (max_connections,
 * per_ip_connections, http_guard's share) and its connection's thread, which sleeps until the
 * pump is done and then hands the socket back itself: libmicrohttpd 0.9.75 frees an upgraded
 * connection racily when another thread hands it back (stream_bridge.c, on_upgrade).
 * The copy is the price, and a small one (make bench-oneport, README "Ports"): the same frame
 * arrives 0.1 ms later than on the stream port (median), and the daemon spends 3.9 ms CPU per
 * client-second of full 51-point JSON frames at 60 Hz against 3.5 ms there (the pump 1.1 ms of
 * it). Adopting the client's socket into
 * libwebsockets instead would need a handshake it did not answer itself, which 4.1 has no way
 * to take; a unix listener would have needed a path and a peer check where a socketpair needs
 * neither, since nothing but this code can reach the vhost it lands on. */
#ifndef RODD_STREAM_BRIDGE_H
#define RODD_STREAM_BRIDGE_H

#include "daemon.h"
#include "http.h"

#include <microhttpd.h>

typedef struct stream_bridge stream_bridge;
/* One connection's stream between its handshake and its upgrade. */
typedef struct bridge_conn bridge_conn;

stream_bridge *bridge_start(daemon_ctx *d, char *err, size_t errlen);
/* Ends every stream on the REST port, after `grace` seconds at most for what is in flight
 * (the stream server's goodbye); new ones are refused. Every upgraded socket is handed back to
 * libmicrohttpd when this returns, as MHD_stop_daemon needs. */
void bridge_stop(stream_bridge *b, double grace);
void bridge_free(stream_bridge *b);
/* Streams on the REST port now. */
int bridge_count(stream_bridge *b);

/* A request for a WebSocket upgrade: GET with "Upgrade: websocket". */
int bridge_wants_upgrade(struct MHD_Connection *conn, const char *method);
/* The handshake with the stream server for the request `target` (path and query as sent).
 * 1: *upgrade is the 101 to queue, and *state what its upgrade handler takes, setting
 * *upgraded to 1 (until then *state is the caller's: bridge_discard it if the 101 never
 * went out). 0: rs holds the answer to send instead (the stream server's refusal, or why there
 * was none). Blocks for a bounded time on the stream server's answer. */
int bridge_handshake(stream_bridge *b, struct MHD_Connection *conn, const char *target, int *upgraded,
                     struct MHD_Response **upgrade, bridge_conn **state, http_response *rs);
void bridge_discard(bridge_conn *c);

#endif
