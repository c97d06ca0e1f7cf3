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
/* The live stream's channel 5, when the model has inputs: rodd.Inputs, t and each
 * actuator's, load's and target's value by name. */
#define FOXWS_INPUTS_CHANNEL 5
#define FOXWS_INPUTS_TOPIC "/rod/inputs"
#define FOXWS_MAX_INPUTS 256 /* the inputs a stream carries at most */

typedef struct foxws foxws;

/* A client of a session whose model has ninputs inputs and frames of this shape
 * (rod_frame_shape; NULL: one rod). One rod: channels 1..4 /rod/scene, /rod/tip, /rod/energy,
 * /rod/volume_change. Several rods: as the MCAP export, 3 and 4 the model's energy and
 * volume change, and rod r's /rods/NAME/scene, /rods/NAME/tip and (its base moves: a joined
 * rod's is free) /rods/NAME/base (foxglove.PoseInFrame) 6 + 3r, 7 + 3r, 8 + 3r. */
foxws *foxws_new(int ninputs, const rod_frame *shape);
void foxws_free(foxws *x); /* NULL is fine */

/* The server's text messages (malloc'd JSON, NULL on no memory). level: 0 info, 1 warning,
 * 2 error. */
char *foxws_server_info(const char *session_id);
/* x's channels; the inputs' (x made with ninputs > 0) with their names (borrowed). */
char *foxws_advertise(const foxws *x, const char *const *names, int ninputs);
char *foxws_status(int level, const char *message);

/* A client's text message. Returns the reply to send (a status, malloc'd) or NULL; *resend is
 * set when a subscription began (its channel's latest message should go out). */
char *foxws_handle(foxws *x, const char *text, size_t len, int *resend);
/* 1 when any channel is subscribed. */
int foxws_subscribed(const foxws *x);
/* Queues frame f's messageData (and the inputs' values, names and inputs of ninputs) for
 * every subscription whose channel has not had frame seq yet (so a new subscription gets the
 * latest frame without the others getting it twice), each after `headroom` bytes (the
 * transport's): 0, or -1 on no memory. Replaces what was queued and not yet taken (latest
 * wins). */
int foxws_queue_frame(foxws *x, const rod_frame *f, const char *const *names, const double *inputs, int ninputs,
                      unsigned long long seq, size_t headroom);
/* The next queued message: 1 with *buf (headroom + *len bytes, owned by x until the next call)
 * and *len, or 0 when none waits. */
int foxws_next(foxws *x, unsigned char **buf, size_t *len);
int foxws_pending(const foxws *x);

#endif
