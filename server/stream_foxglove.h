/* The Foxglove WebSocket protocol (subprotocol foxglove.websocket.v1,
 * github.com/foxglove/ws-protocol docs/spec.md) for one stream client, independent of the
 * transport like stream_codec.h: serverInfo and advertise of the channels of
 * foxglove_channels.h, the client's subscribe and unsubscribe, and each frame as binary
 * messageData (opcode 0x01, subscription id uint32 LE, timestamp uint64 LE ns of simulated
 * time, the JSON message) for every subscription. Prefix foxws_. */
#ifndef RODD_STREAM_FOXGLOVE_H
#define RODD_STREAM_FOXGLOVE_H

#include "rod.h"

#include <stddef.h>

#define FOXWS_SUBPROTOCOL "foxglove.websocket.v1"

typedef struct foxws foxws;

foxws *foxws_new(void);
void foxws_free(foxws *x); /* NULL is fine */

/* The server's text messages (malloc'd JSON, NULL on no memory). level: 0 info, 1 warning,
 * 2 error. */
char *foxws_server_info(const char *session_id);
char *foxws_advertise(void);
char *foxws_status(int level, const char *message);

/* A client's text message. Returns the reply to send (a status, malloc'd) or NULL; *resend is
 * set when a subscription began (its channel's latest message should go out). */
char *foxws_handle(foxws *x, const char *text, size_t len, int *resend);
/* 1 when any channel is subscribed. */
int foxws_subscribed(const foxws *x);
/* Queues frame f's messageData for every subscription whose channel has not had frame seq
 * yet (so a new subscription gets the latest frame without the others getting it twice), each
 * after `headroom` bytes (the transport's): 0, or -1 on no memory. Replaces what was queued
 * and not yet taken (latest wins). */
int foxws_queue_frame(foxws *x, const rod_frame *f, unsigned long long seq, size_t headroom);
/* The next queued message: 1 with *buf (headroom + *len bytes, owned by x until the next call)
 * and *len, or 0 when none waits. */
int foxws_next(foxws *x, unsigned char **buf, size_t *len);
int foxws_pending(const foxws *x);

#endif
