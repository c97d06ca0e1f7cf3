/* The text of a stream handshake passed from the REST port to the stream server and back:
 * the upgrade request the stream server reads (built from the client's), and the stream
 * server's answer as the REST port repeats it. Pure functions, so tests and fuzzers drive them
 * without sockets. */
#ifndef RODD_STREAM_HANDSHAKE_H
#define RODD_STREAM_HANDSHAKE_H

#include <stddef.h>

/* The header that carries the client's address to the stream server; believed only on the
 * socketpairs the REST port hands over, never on the stream port. */
#define HANDSHAKE_PEER_HEADER "X-Rodd-Peer"

/* The longest query a stream URL may have (its subscription, a ticket and room to spare): a
 * longer one is refused with 414 on either port rather than read in part (a field name cut
 * off would go unchecked) or dropped by the stream server's 4 KiB header buffer. */
#define HANDSHAKE_QUERY_MAX 2048

/* A request header's value by name (case-insensitive), NULL when absent. */
typedef const char *(*handshake_lookup_fn)(void *ctx, const char *name);

/* "GET target HTTP/1.1", the client's headers that decide the handshake (Host, Origin,
 * Authorization, User-Agent and the Sec-WebSocket ones; nothing else crosses, so a client
 * cannot send its own peer header), Upgrade and Connection, and peer in the peer header.
 * target is the request target as the client sent it (path and query). The length written
 * (NUL-terminated), or -1 when it does not fit in cap or target or a value holds bytes no
 * request line or header may hold. */
long handshake_request(char *out, size_t cap, const char *target, handshake_lookup_fn lookup, void *ctx,
                       const char *peer);

typedef struct {
    int status;               /* 101 when the stream server took the stream */
    size_t header_len;        /* bytes up to and with the blank line; the stream follows */
    long long content_length; /* of a refusal's body; -1 when not given */
    char accept[64];          /* Sec-WebSocket-Accept */
    char protocol[128];       /* Sec-WebSocket-Protocol ("" when none) */
    char extensions[512];     /* Sec-WebSocket-Extensions ("" when none) */
    char content_type[128];   /* of a refusal's body */
} handshake_answer;

/* The stream server's answer from the first len bytes it sent: 1 when its header is complete
 * and parsed into *a, 0 when more is needed, -1 when it is not an HTTP/1.1 answer (or a value
 * is too long to repeat). */
int handshake_parse_answer(const char *buf, size_t len, handshake_answer *a);

/* Sec-WebSocket-Key as RFC 6455 wants it: base64 of 16 bytes (24 characters ending "=="). */
int handshake_key_ok(const char *key);
/* Sec-WebSocket-Version 13, the only one there is; anything else (or none) is answered 426
 * with "Sec-WebSocket-Version: 13". */
int handshake_version_ok(const char *version);

#endif
