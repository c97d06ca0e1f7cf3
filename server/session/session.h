/* A simulation session: a compiled model, its engine state, the lifecycle, a command mailbox
 * and a latest-wins frame slot. The struct is private to session*.c: the HTTP, stream and
 * pool code read it through session_snapshot and the calls below.
 *
 * Sessions are reference counted: the pool, streams and handlers each hold a reference. */
#ifndef RODD_SESSION_H
#define RODD_SESSION_H

#include "clock.h"
#include "frame.h"
#include "recording.h"
#include "rod.h"

#include <stddef.h>
#include <stdint.h>

struct cJSON;

typedef enum { SESSION_CREATED, SESSION_RUNNING, SESSION_PAUSED, SESSION_FINISHED, SESSION_FAILED } session_status;
const char *session_status_name(session_status s);
int session_status_parse(const char *name, session_status *out);

typedef struct session session;

/* What a reader may know of a session at one instant (a copy, taken under its lock). */
typedef struct {
    session_status status;
    double t;          /* simulation time (the latest frame may trail it by a publication period) */
    uint64_t seq;      /* the latest frame's sequence number */
    int advancing;     /* an :advance holds the state, or a synchronous command waits for its turn */
    int behind_pace;   /* running paced, and the last second's real-time factor fell below 0.9 pace */
    char name[201];
    char failure[512]; /* why it failed, when it did */
} session_view;

typedef struct {
    const char *name;
    double pace;
    double until;
    int points;
    int start;
    /* restore: a rod_state_save text and the status to come back in */
    const char *checkpoint;
    session_status status;
    const char *failure;
    double created_wall;
    recording *recording; /* owned by the session from session_new on (closed on failure too); may be NULL */
    /* the floor: a session computing slower than min_sim_rate x real time over rate_window
     * seconds of computing fails (0: no floor) */
    double min_sim_rate, rate_window;
    /* the simulated time at which a running session starts again from its beginning, as
     * :reset then :start would (0: never; SESSION_REPEAT_DURATION: the spec's "duration") */
    double repeat;
} session_opts;

#define SESSION_DEFAULT_POINTS ROD_FRAME_DEFAULT_POINTS
#define SESSION_DEFAULT_PACE 1.0 /* real time */

/* Every option at its default: SESSION_DEFAULT_POINTS points at SESSION_DEFAULT_PACE, no end
 * time, created (not running), no checkpoint, no recording, no rate floor. The one place these
 * defaults live: fill a session_opts from here, then set what differs. */
void session_opts_default(session_opts *o);

#define SESSION_REPEAT_DURATION (-1.0)

/* Takes ownership of model and spec_json (both freed on failure too). Starts the dynamics
 * (which runs "initial": "static" statics); a failure there gives a session in state failed,
 * not an error. NULL only on no memory or a bad checkpoint (err says why). */
session *session_new(const char *id, rod_model *model, char *spec_json, const session_opts *o,
                     char *err, size_t errlen);
void session_retain(session *s);
void session_release(session *s);

/* The id, fixed for the session's life. */
const char *session_id(const session *s);
void session_snapshot(session *s, session_view *out);
void session_set_name(session *s, const char *name);
/* How a worker tells the streams a frame is out; set once before the session runs. */
void session_set_notify(session *s, void (*notify)(void *ctx, session *s), void *ctx);

enum { SESSION_OK = 0, SESSION_ESTATE = -1, SESSION_EINVAL = -2, SESSION_ENOTFOUND = -3,
       SESSION_ETIMEDOUT = -4, SESSION_ESOLVER = -5 };

/* The synchronous commands (:advance, :step, :reset) take turns, in the order they arrive:
 * each one's work happens, on the state the one before left, and nothing else advances the
 * session in between. A turn lives on its caller's stack from take to give. */
typedef struct session_turn {
    struct session_turn *next;
} session_turn;
/* Waits up to `wait` seconds (forever if negative) for the turns taken before this one to end.
 * SESSION_OK with the turn held (give it back), or SESSION_ETIMEDOUT without it. */
int session_turn_take(session *s, session_turn *turn, double wait);
void session_turn_give(session *s, session_turn *turn);

/* :start is refused (SESSION_ESTATE) while a synchronous command holds or waits for a turn. */
int session_start(session *s);
int session_pause(session *s);
/* Back to the start (caller holds a turn). */
int session_reset(session *s);
/* Synchronous stepping of a paused (or created) session, bounded by wall_limit seconds (caller
 * holds a turn): to t_end, or when `by` is a number, by that much past the state's time.
 * *t_out is where it stopped. */
int session_advance(session *s, double t_end, double by, double wall_limit, double *t_out, char *err,
                    size_t errlen);
/* Sets several inputs at once: all are checked first and either all apply, at the same
 * simulation time *t_applied, or none does. profiles (may be NULL): where profiles[i] is not
 * NULL, input i takes that profile (JSON text: an expression, a wave; "null" for the spec's
 * own) instead of the constant values[i].
 * (Then, as for constants:)
 * simulation time *t_applied, or none does. A running session applies them at its next step
 * boundary (the caller waits up to wait_limit seconds; SESSION_ETIMEDOUT if the worker has
 * not reached it, the command still applies). */
int session_set_inputs(session *s, int n, const char *const *names, const double *values,
                       const char *const *profiles, double wait_limit, double *t_applied, char *err,
                       size_t errlen);
int session_set_pace(session *s, double pace);
/* The simulated time at which a running session starts again (0: never). */
int session_set_repeat(session *s, double every);
/* Where a running session stops (0: never). A finished session that the new end leaves time
 * to run becomes paused, to be continued with session_start. */
int session_set_until(session *s, double until);
/* No more work on this session (it is deleted, or the daemon drains): the piece of simulation
 * a worker or an :advance is in stops at once, the state staying where that piece began. */
void session_stop_work(session *s);

/* Points per frame, fixed at creation. */
int session_points(session *s);
/* The spec as the session runs it (JSON), valid while the caller holds a reference. */
const char *session_spec_json(session *s);
/* The session's recording (NULL if none), valid while the caller holds a reference. */
recording *session_recording(session *s);

/* A reader wants this session's frames at `rate` per second: a stream client as often as it
 * is served, a REST read of the frame once (for the full rate). A running session publishes
 * at the highest rate asked within the last half second, and at 10 Hz when nobody asks, so
 * that 100 sessions watched at 30 Hz do not compute 60 frames a second each. */
void session_want_frames(session *s, double rate);
/* The latest frame, retained (release it), or NULL. */
published_frame *session_latest(session *s);
/* The model's inputs (actuators, loads, targets) in the spec's order: their names (the
 * model's, valid while s is held) and values now (a profile's at the base), the first cap of
 * them into names and v. Returns how many the model has. */
int session_inputs_now(session *s, const char **names, double *v, int cap);
/* The model's frame shape (rod_frame_shape: its rods' names, whose base moves, ...): 0, or -1
 * out of memory. The caller frees it with rod_frame_free. */
int session_frame_shape(session *s, rod_frame *out);
/* A cJSON object describing the session (state, time, inputs, model sizes, stats). */
struct cJSON *session_describe(session *s);
/* The whole session as JSON text for persistence (spec, options, status, engine state).
 * Waits at most `wait` seconds for the state; NULL with *busy set when a step holds it longer,
 * NULL with err (errlen bytes) saying why when the engine cannot save this model's state
 * (several rods) or memory runs out. *generation (if not NULL) numbers the snapshot: a later
 * one has a larger number. */
char *session_checkpoint(session *s, double wait, int *busy, uint64_t *generation, char *err, size_t errlen);

/* Persistence: one writer at a time per session, never a snapshot older than the one last
 * written, nothing once the session is deleted. Calls write(ctx) under the session's writer
 * lock when `generation` is newer than the last written one and the session is not deleted;
 * returns what write returned, or 1 when it was skipped. */
int session_persist(session *s, uint64_t generation, int (*write)(void *ctx), void *ctx);
/* Marks the session deleted and calls remove(ctx) under the writer lock: no write follows. */
int session_forget(session *s, int (*remove)(void *ctx), void *ctx);

/* What one slice of simulation took: its wall time, the simulated time it advanced, and the
 * integrator steps and right-hand-side evaluations (Jacobians' included) it took. */
typedef struct {
    int ran; /* 0: the session was not running, nothing below was measured */
    double wall, simulated;
    long steps, rhs_evals;
} session_slice;
/* For workers: one slice of simulation, measured into *slice (all zero when it did not run).
 * Returns the monotonic time it is next due, or a negative value when it is no longer running. */
double session_step(session *s, double now, session_slice *slice);
int session_is_running(session *s);
/* For the pool's watchdog: interrupts the piece of simulation in progress if it is past its
 * deadline (an :advance's limit, or the rate floor). */
void session_watch(session *s, double now);

#endif
