/* A published frame: an immutable snapshot of a session's rod, shared by every reader
 * (streams, GET .../frame) and freed by the last one. */
#ifndef RODD_FRAME_H
#define RODD_FRAME_H

#include "rod.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* The FRAME as JSON text, made by the first reader that wants it (text streams, GET .../frame):
 * a session publishes at 60 Hz, and 51 points of every field take 130 us to print, twice the
 * simulation's own cost, for binary clients who never read them. */
struct frame_text;

typedef struct {
    atomic_int refs;
    uint64_t seq;
    double wall;      /* monotonic time of publication */
    double published; /* the same as unix time, for clients */
    rod_frame f;
    struct frame_text *text; /* frame_json's, behind its own lock */
} published_frame;

void frame_retain(published_frame *f);
void frame_release(published_frame *f);

/* The state's frame at `points` points, without its sequence number yet (one reference);
 * NULL on no memory. */
published_frame *frame_compute(const rod_model *m, const rod_state *st, int points);
/* Gives the frame its sequence number. */
void frame_stamp(published_frame *pf, uint64_t seq);
/* The FRAME with "seq" and "published" added, NUL-terminated, and its length (owned by the
 * frame, valid while a reference is held); printed on the first call from any thread. NULL on
 * no memory. */
const char *frame_json(const published_frame *pf, size_t *len);

#endif
