/* A simulation session: a compiled model, its engine state, the lifecycle, a command mailbox
 * and a latest-wins frame slot.
 *
 * Threads: the engine state belongs to whoever holds state_mu (a worker for one slice, or a
 * REST thread for a synchronous call on a session that is not running). Everything else is
 * guarded by mu. Lock order: state_mu before mu, never the reverse; neither is held while
 * calling into the pool. Sessions are reference counted: the pool, streams and handlers each
 * hold a reference. */
#ifndef RODD_SESSION_H
#define RODD_SESSION_H

#include "rod.h"

#include <pthread.h>
#include <time.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct cJSON;

typedef enum { SESSION_CREATED, SESSION_RUNNING, SESSION_PAUSED, SESSION_FINISHED, SESSION_FAILED } session_status;
const char *session_status_name(session_status s);
int session_status_parse(const char *name, session_status *out);

/* An immutable published frame, shared by every reader. */
typedef struct {
    atomic_int refs;
    uint64_t seq;
    double wall; /* monotonic time of publication */
    double published; /* the same as unix time, for clients */
    rod_frame f;
    char *json;  /* the FRAME with "seq" added, for text clients and GET .../frame */
    size_t json_len;
} published_frame;
void frame_retain(published_frame *f);
void frame_release(published_frame *f);

typedef struct command command;

typedef struct session {
    atomic_int refs;
    char id[64];
    char name[201];
    char *spec_json; /* the spec as submitted (overrides applied) */
    rod_model *model;
    rod_state *state;
    pthread_mutex_t state_mu;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* guarded by mu */
    session_status status;
    int advancing; /* an :advance holds the state */
    int stopping;  /* deleted, or the daemon drains: no more work on it */
    char failure[512];
    double pace;  /* 0: as fast as possible; else simulated seconds per wall second */
    double until; /* 0: no end */
    int points;
    double t;     /* simulation time, mirrored for readers */
    command *mail_head, *mail_tail;
    published_frame *latest;
    uint64_t seq;
    double created_wall; /* unix time */
    double anchor_sim, anchor_wall;
    double rtf;          /* wall seconds per simulated second, smoothed */
    rod_dynamics_stats stats;
    /* the inputs' values as of the last step or command, so that readers never wait for
     * the state (a slow step would stall REST and the streaming thread) */
    double *input_value;      /* ninputs */
    unsigned char *input_profile;
    /* guarded by the pool's lock */
    int busy;
    double next_due;
    /* how a worker tells the streams a frame is out; set once before the session runs */
    void (*notify)(void *ctx, struct session *s);
    void *notify_ctx;
} session;

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
} session_opts;

/* Takes ownership of model and spec_json (both freed on failure too). Starts the dynamics
 * (which runs "initial": "static" statics); a failure there gives a session in state failed,
 * not an error. NULL only on no memory or a bad checkpoint (err says why). */
session *session_new(const char *id, rod_model *model, char *spec_json, const session_opts *o,
                     char *err, size_t errlen);
void session_retain(session *s);
void session_release(session *s);

enum { SESSION_OK = 0, SESSION_ESTATE = -1, SESSION_EINVAL = -2, SESSION_ENOTFOUND = -3,
       SESSION_ETIMEDOUT = -4, SESSION_ESOLVER = -5 };

int session_start(session *s);
int session_pause(session *s);
int session_reset(session *s);
/* Synchronous stepping of a paused (or created) session to t_end, bounded by wall_limit
 * seconds; *t_out is where it stopped. */
int session_advance(session *s, double t_end, double wall_limit, double *t_out, char *err, size_t errlen);
/* Sets several inputs at once: all are checked first and either all apply, at the same
 * simulation time *t_applied, or none does. A running session applies them at its next step
 * boundary (the caller waits up to wait_limit seconds; SESSION_ETIMEDOUT if the worker has
 * not reached it, the command still applies). */
int session_set_inputs(session *s, int n, const char *const *names, const double *values,
                       double wait_limit, double *t_applied, char *err, size_t errlen);
int session_set_pace(session *s, double pace);
/* No more work on this session (it is deleted, or the daemon drains): the piece of simulation
 * a worker or an :advance is in stops at once, the state staying where that piece began. */
void session_stop_work(session *s);

/* The latest frame, retained (release it), or NULL. */
published_frame *session_latest(session *s);
/* A cJSON object describing the session (state, time, inputs, model sizes, stats). */
struct cJSON *session_describe(session *s);
/* The whole session as JSON text for persistence (spec, options, status, engine state).
 * Waits at most `wait` seconds for the state; NULL with *busy set when a step holds it longer. */
char *session_checkpoint(session *s, double wait, int *busy);

/* For workers: one slice of simulation. Returns the monotonic time it is next due, or a
 * negative value when it is no longer running. */
double session_step(session *s, double now);
int session_is_running(session *s);

double mono_now(void);
double unix_now(void);
/* CLOCK_REALTIME `seconds` from now: the deadline pthread's timed waits take. */
struct timespec realtime_after(double seconds);

#endif
