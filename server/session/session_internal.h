/* The session struct, shared by the files that implement it (session.c: the object and its
 * accessors; session_json.c: description and checkpoint; session_publish.c: frames;
 * session_control.c: the state machine and the mailbox; session_clock.c: the worker's paced
 * slice). Nothing else includes this.
 *
 * Threads: the engine state belongs to whoever holds state_mu (a worker for one slice, or a
 * REST thread for a synchronous call on a session that is not running). Everything else is
 * guarded by mu. Lock order: state_mu before mu, never the reverse; neither is held while
 * calling into the pool. */
#ifndef RODD_SESSION_INTERNAL_H
#define RODD_SESSION_INTERNAL_H

#include "session.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct command command;

struct session {
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
    /* the first frame that sank into an obstacle past its max_penetration, as a warning
     * ("" none; kept for the session's life) */
    char penetration_path[64], penetration[320];
    double pace;  /* 0: as fast as possible; else simulated seconds per wall second */
    double until; /* 0: no end */
    double repeat; /* a running session starts again from its beginning here (0: never) */
    int points;
    double t;     /* simulation time, mirrored for readers */
    double error_indicator; /* rod_error_indicator of the latest frame's q (within 0.2 s) */
    double indicator_wall;  /* when it was computed (monotonic s; 0: never) */
    command *mail_head, *mail_tail;
    session_turn *turn_head, *turn_tail; /* the head holds the turn; the rest wait in arrival order */
    published_frame *latest;
    uint64_t seq;
    /* publication follows its readers (session_publish_due): the highest rate asked within
     * DEMAND_HOLD (want_rate, asked last at want_wall), and the last publication */
    double want_rate, want_wall;
    double published_wall, published_t;
    double created_wall; /* unix time */
    double anchor_sim, anchor_wall;
    /* the real-time factor, simulated seconds per wall second while running, measured over
     * windows of RTF_WINDOW wall seconds from (rtf_from_wall, rtf_from_sim); rtf_from_wall = 0
     * restarts the window (start, resume, pace change) and rtf = 0 means not measured yet */
    double rtf, rtf_from_wall, rtf_from_sim;
    double solver_rtf;   /* simulated seconds per second of solver time, smoothed: the pace a free core allows */
    int behind_pace;     /* paced, and the last window's rtf fell short of 0.9 pace */
    rod_dynamics_stats stats;
    /* the inputs' values as of the last step or command, so that readers never wait for
     * the state (a slow step would stall REST and the streaming thread) */
    double *input_value;      /* ninputs */
    unsigned char *input_profile;
    recording *rec; /* its own lock; set at creation, or NULL */
    /* the floor on the simulated-time rate: min_rate x real time over rate_window s of computing */
    double min_rate, rate_window;
    /* guarded by mu: the piece in progress, for the watchdog (deadline 0: none) */
    double piece_deadline;
    int piece_expired;
    /* the state holder's: computing and simulated time since the rate window began */
    double win_wall, win_sim;
    uint64_t generation;  /* of the last checkpoint snapshot; guarded by mu */
    /* persistence: one writer at a time (persist_mu), what it wrote last, deleted for good */
    pthread_mutex_t persist_mu;
    uint64_t written;
    int deleted;
    /* set once before the session runs */
    void (*notify)(void *ctx, struct session *s);
    void *notify_ctx;
};

/* session_publish.c (state_mu held) */
void session_cache_inputs(session *s);
/* Publishes the state's frame. 0, or -1 on no memory. */
int session_publish(session *s);
/* Publishes a frame of the state already computed (the recording's), taking its reference. */
void session_publish_frame(session *s, published_frame *pf);
/* Whether a running session's readers want a new frame now: at the rate the readers asked
 * for (session_want_frames), at least FLOOR_RATE; always when it is not running. */
int session_publish_due(session *s, double now);
/* The state's time to readers, without a frame (a slice that publishes none). */
void session_mirror_time(session *s);
void session_notify(session *s);
/* The end of the next piece of simulation from t toward goal: 10 ms at most, and never past
 * the time the recording's next frame is due (state_mu held). */
double session_piece_end(session *s, double t, double goal);
/* Gives the recording the state's frame when one is due (state_mu held), and returns that
 * frame (one reference) for the caller to publish or release; NULL when none was due. */
published_frame *session_record_due(session *s);

/* session_piece.c (state_mu held) */
typedef enum {
    PIECE_DONE,        /* the state is at t_next */
    PIECE_INTERRUPTED, /* paused, deleted, drained (or a late interrupt): where it began */
    PIECE_LIMIT,       /* the caller's wall-clock limit cut it: where it began */
    PIECE_SLOW,        /* under the floor on the simulated-time rate; why says so */
    PIECE_FAILED,      /* the solver failed; why says so */
} piece_result;
/* Advances to t_next, interrupted at the monotonic time limit_at (INFINITY: none) or when it
 * proves the session under its rate floor. */
piece_result session_piece(session *s, double t_next, double limit_at, char *why, size_t len);

/* session_control.c */
/* The dynamics from their beginning again (state_mu held): the status becomes `status` (or
 * failed, when the start fails), the frame there is published. ROD_OK or the engine's code. */
int session_restart(session *s, session_status status);
/* The session's own loop (its `repeat`), from a worker's slice (state_mu held): as
 * session_restart(s, SESSION_RUNNING), but a pause or other change of status that came after
 * the slice last looked stays (the slice reads the status and restarts in two lock windows). */
int session_loop(session *s);
/* Applies every queued command (state_mu held). */
void session_drain_mailbox(session *s);
/* Frees the commands nobody waits for any more (the last reference is gone). */
void session_free_mailbox(session *s);

#endif
