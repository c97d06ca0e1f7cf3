/* The stream protocol's messages, independent of the transport: what the server says (hello,
 * description, status, state, frames in JSON or binary) and what a client's message asks for.
 * Pure functions of their arguments, so that a fuzzer can drive them without sockets. */
#ifndef RODD_STREAM_CODEC_H
#define RODD_STREAM_CODEC_H

#include "frame_codec.h"
#include "frame_fields.h"
#include "session.h"

#include <stddef.h>

#define STREAM_PROTOCOL_VERSION 1

/* every field (frame_fields.h) */
#define F_ALL FRAME_F_ALL

/* What a client receives. */
typedef struct {
    double rate;     /* frames per second at most */
    unsigned fields; /* FRAME_F_* bits */
    int binary;
    int subscribed;  /* frames flow (on by default, off after unsubscribe) */
} stream_subscription;

/* A growable byte buffer (frame_codec.h's). */
typedef codec_buf stream_buf;

/* Messages from the server (malloc'd JSON text, NULL on no memory). */
char *stream_hello_msg(void);
/* The session's description with the client's subscription. */
char *stream_description_msg(session *s, const stream_subscription *sub, double max_rate);
/* dropped < 0: leave it out */
char *stream_status_msg(const char *level, const char *message, long dropped);
char *stream_state_msg(const session_view *v);

/* The frame for a subscription, after `headroom` zero bytes (the transport's). 0, or -1 on no
 * memory. */
int stream_frame_payload(const stream_subscription *sub, const published_frame *pf, stream_buf *out,
                         size_t headroom);

/* What a client message asks of the transport besides the reply. */
typedef struct {
    int describe;   /* send the session's description */
    int send_frame; /* send the latest frame again, in the new form */
} stream_action;

/* One client message (any bytes). Updates *sub when it is a valid subscribe or unsubscribe and
 * returns the reply to queue (malloc'd; NULL on no memory or for "describe", which *act says). */
char *stream_handle_message(const char *text, size_t len, stream_subscription *sub, double max_rate,
                            stream_action *act);

#endif
