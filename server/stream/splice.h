/* A byte pump between pairs of sockets, on one thread of its own: what carries a stream that
 * came in on the REST port between the client's socket and the stream server's end of a
 * socketpair. Each direction has a bounded buffer, so a peer that stops reading stalls the
 * other side's writes (the stream server then drops frames, latest wins) instead of growing
 * memory; nothing here ever blocks a caller. */
#ifndef RODD_SPLICE_H
#define RODD_SPLICE_H

#include <stddef.h>

typedef struct splice_pool splice_pool;

/* Called on the pump's thread once a pair is finished with (both ends closed, one end gone,
 * an error, or the pool stopping): the callee closes both sockets; the pool never does. */
typedef void (*splice_done_fn)(void *cls);

/* NULL with a message on failure. */
splice_pool *splice_start(char *err, size_t errlen);
/* Pumps bytes between a and b (made non-blocking here) until one side ends, after sending
 * to_a first to a and to_b first to b (copied). The ends are borrowed until done(cls) runs,
 * which it does exactly once when this returns 0. -1: the pool is stopping or out of memory,
 * and done is never called (the caller still owns both sockets). Any thread. */
int splice_add(splice_pool *p, int a, int b, const void *to_a, size_t to_a_len, const void *to_b, size_t to_b_len,
               splice_done_fn done, void *cls);
/* splice_add for a WebSocket that came in on the REST port: the client's frames to the stream
 * server pass ws_frame_guard.h's RFC 6455 checks, and the first that breaks a rule is replaced
 * by a Close (1002, the rule as its reason), after which the client's bytes are dropped; the
 * stream server answers the Close and ends the stream as for any client that closes.
 * allow_rsv1: an extension using RSV1 was agreed in the handshake. */
int splice_add_ws(splice_pool *p, int client, int server, const void *to_client, size_t to_client_len,
                  const void *to_server, size_t to_server_len, int allow_rsv1, splice_done_fn done, void *cls);
/* Pairs being pumped now. Any thread. */
int splice_count(splice_pool *p);
/* Refuses new pairs, lets each pair send what it holds for at most `grace` seconds (both
 * sides are shut down for writing once their buffer is out), then finishes every pair and
 * joins the thread. Every done has run when this returns. */
void splice_stop(splice_pool *p, double grace);
/* Stops it if needed, then frees it. */
void splice_free(splice_pool *p);

#endif
