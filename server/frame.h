/* A published frame: an immutable snapshot of a session's rod, shared by every reader
 * (streams, GET .../frame) and freed by the last one. */
#ifndef RODD_FRAME_H
#define RODD_FRAME_H

#include "rod.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    atomic_int refs;
    uint64_t seq;
    double wall;      /* monotonic time of publication */
    double published; /* the same as unix time, for clients */
    rod_frame f;
    char *json;       /* the FRAME with "seq" added, for text clients and GET .../frame */
    size_t json_len;
} published_frame;

void frame_retain(published_frame *f);
void frame_release(published_frame *f);

/* The state's frame at `points` points, without its sequence number yet (one reference);
 * NULL on no memory. */
published_frame *frame_compute(const rod_model *m, const rod_state *st, int points);
/* Gives the frame its sequence number and its JSON text. 0, or -1 on no memory. */
int frame_stamp(published_frame *pf, uint64_t seq);

#endif
