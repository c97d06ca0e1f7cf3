/* The RFC 6455 framing rules a client's frames must keep, checked on the bytes a stream on the
 * REST port carries to the stream server (libwebsockets accepts, among others, unmasked
 * client frames). Only headers are read: payloads pass through untouched, their text and close
 * codes are the stream server's to judge. */
#ifndef RODD_WS_FRAME_GUARD_H
#define RODD_WS_FRAME_GUARD_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t left;    /* payload bytes of the current frame still to pass */
    int fragmented;   /* a text or binary message is open (a frame without FIN came) */
    int allow_rsv1;   /* an extension that uses RSV1 (permessage-deflate) was agreed */
    const char *why;  /* set once a rule is broken: what the frame did */
} ws_frame_guard;

void ws_frame_guard_init(ws_frame_guard *g, int allow_rsv1);

/* Reads n bytes that follow what it has already passed. Returns how many of them are whole
 * frames or parts of frames whose headers keep the rules; a header cut short by the end of
 * the bytes is not passed (give it again with what follows). When a header breaks a rule,
 * g->why says which and the count stops at that header: the bytes before it are good. */
size_t ws_frame_guard_scan(ws_frame_guard *g, const unsigned char *p, size_t n);

/* The masked Close frame (code 1002, protocol error, and the reason) that tells the stream
 * server to close the stream as a client would: at most 6 + 2 + 123 bytes into out. */
size_t ws_frame_guard_close(unsigned char *out, size_t cap, const char *reason);

#endif
