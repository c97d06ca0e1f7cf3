#include "metrics.h"

#include "disk_budget.h"
#include "session.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_long http_by_code[600];
static atomic_long slices_total, integrator_steps_total, rhs_total, frames_sent, frames_dropped, checkpoints_ok, checkpoints_failed;
static atomic_int stream_clients;
/* the duration histograms' bounds, seconds: work slices and REST requests */
static const double bounds[] = {0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1};
#define NB (sizeof bounds / sizeof *bounds)
typedef struct {
    atomic_long buckets[NB + 1];
    _Atomic double sum;
} histogram;
static histogram slices, requests;
static _Atomic double simulated_sum;
static const disk_budget *_Atomic recording_budget;

void metrics_recording_budget(const disk_budget *b)
{
    atomic_store(&recording_budget, b);
}

static void add_double(_Atomic double *a, double v)
{
    double old = atomic_load(a);
    while (!atomic_compare_exchange_weak(a, &old, old + v)) {
    }
}

static void observe(histogram *h, double v)
{
    size_t b = 0;
    while (b < NB && v > bounds[b]) b++;
    atomic_fetch_add(&h->buckets[b], 1);
    add_double(&h->sum, v);
}

void metrics_request_time(double seconds)
{
    observe(&requests, seconds);
}

void metrics_http(int status)
{
    if (status >= 100 && status < 600) atomic_fetch_add(&http_by_code[status], 1);
}

void metrics_slice(double wall, double simulated, long integrator_steps, long rhs)
{
    atomic_fetch_add(&slices_total, 1);
    atomic_fetch_add(&integrator_steps_total, integrator_steps);
    atomic_fetch_add(&rhs_total, rhs);
    observe(&slices, wall);
    add_double(&simulated_sum, simulated);
}

void metrics_frames_sent(long n)
{
    atomic_fetch_add(&frames_sent, n);
}

void metrics_frames_dropped(long n)
{
    atomic_fetch_add(&frames_dropped, n);
}

void metrics_stream_clients(int delta)
{
    atomic_fetch_add(&stream_clients, delta);
}

void metrics_checkpoint(int ok)
{
    atomic_fetch_add(ok ? &checkpoints_ok : &checkpoints_failed, 1);
}

typedef struct {
    char *b;
    size_t len, cap;
    int failed;
} text_out;

static void out(text_out *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(text_out *t, const char *fmt, ...)
{
    if (t->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        const int n = vsnprintf(t->b + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if ((size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        char *nb = realloc(t->b, 2 * t->cap + (size_t)n);
        if (!nb) {
            t->failed = 1;
            return;
        }
        t->b = nb;
        t->cap = 2 * t->cap + (size_t)n;
    }
}

/* a histogram's TYPE line, cumulative buckets, sum and count (its HELP line is the caller's) */
static void render_histogram(text_out *t, const char *name, histogram *h)
{
    out(t, "# TYPE %s histogram\n", name);
    long cum = 0;
    for (size_t i = 0; i < NB; i++) {
        cum += atomic_load(&h->buckets[i]);
        out(t, "%s_bucket{le=\"%g\"} %ld\n", name, bounds[i], cum);
    }
    cum += atomic_load(&h->buckets[NB]);
    out(t, "%s_bucket{le=\"+Inf\"} %ld\n%s_sum %.9g\n%s_count %ld\n", name, cum, name, atomic_load(&h->sum), name, cum);
}

char *metrics_render(const metrics_sessions *sessions)
{
    text_out t = {malloc(4096), 0, 4096, 0};
    if (!t.b) return NULL;
    t.b[0] = '\0';
#define OUT(...) out(&t, __VA_ARGS__)
    OUT("# HELP rodd_sessions Sessions by state.\n# TYPE rodd_sessions gauge\n");
    for (int s = 0; s < 5; s++) OUT("rodd_sessions{state=\"%s\"} %d\n", session_status_name((session_status)s), sessions->by_status[s]);
    OUT("# HELP rodd_session_capacity The most sessions this daemon keeps.\n# TYPE rodd_session_capacity gauge\n");
    OUT("rodd_session_capacity %d\n", sessions->capacity);
    OUT("# HELP rodd_sessions_behind_pace Running sessions whose real-time factor fell below 0.9 of their pace.\n");
    OUT("# TYPE rodd_sessions_behind_pace gauge\nrodd_sessions_behind_pace %d\n", sessions->behind_pace);
    OUT("# HELP rodd_slices_total Work slices the workers ran (each advances one session for at most one frame period).\n");
    OUT("# TYPE rodd_slices_total counter\nrodd_slices_total %ld\n", atomic_load(&slices_total));
    OUT("# HELP rodd_integrator_steps_total Integrator (CVODE) time steps taken by all sessions.\n");
    OUT("# TYPE rodd_integrator_steps_total counter\nrodd_integrator_steps_total %ld\n",
        atomic_load(&integrator_steps_total));
    OUT("# HELP rodd_simulated_seconds_total Simulated time advanced by all sessions; its rate is the daemon's\n"
        "# real-time factor summed over sessions (simulated seconds per wall second).\n");
    OUT("# TYPE rodd_simulated_seconds_total counter\nrodd_simulated_seconds_total %.17g\n", atomic_load(&simulated_sum));
    OUT("# HELP rodd_rhs_evaluations_total Right-hand-side evaluations, Jacobians included.\n");
    OUT("# TYPE rodd_rhs_evaluations_total counter\nrodd_rhs_evaluations_total %ld\n", atomic_load(&rhs_total));
    OUT("# HELP rodd_slice_duration_seconds Wall time of one work slice (its sum: the workers' busy seconds).\n");
    render_histogram(&t, "rodd_slice_duration_seconds", &slices);
    OUT("# HELP rodd_http_request_duration_seconds REST requests from their request line read to their answer "
        "sent (the wait for a connection thread before that is not in it).\n");
    render_histogram(&t, "rodd_http_request_duration_seconds", &requests);
    OUT("# HELP rodd_stream_clients Connected stream clients.\n# TYPE rodd_stream_clients gauge\n");
    OUT("rodd_stream_clients %d\n", atomic_load(&stream_clients));
    OUT("# HELP rodd_frames_sent_total Frames sent to stream clients.\n# TYPE rodd_frames_sent_total counter\n");
    OUT("rodd_frames_sent_total %ld\n", atomic_load(&frames_sent));
    OUT("# HELP rodd_frames_dropped_total Frames a slow stream client never got (latest wins).\n");
    OUT("# TYPE rodd_frames_dropped_total counter\nrodd_frames_dropped_total %ld\n", atomic_load(&frames_dropped));
    OUT("# HELP rodd_checkpoints_total Checkpoints written, by result.\n# TYPE rodd_checkpoints_total counter\n");
    OUT("rodd_checkpoints_total{result=\"ok\"} %ld\n", atomic_load(&checkpoints_ok));
    OUT("rodd_checkpoints_total{result=\"error\"} %ld\n", atomic_load(&checkpoints_failed));
    const disk_budget *b = atomic_load(&recording_budget);
    if (b) {
        OUT("# HELP rodd_recording_budget_bytes The bytes every recording together may take (recording_budget).\n");
        OUT("# TYPE rodd_recording_budget_bytes gauge\nrodd_recording_budget_bytes %lld\n", disk_budget_limit(b));
        OUT("# HELP rodd_recording_bytes The bytes the recordings' files take of it.\n");
        OUT("# TYPE rodd_recording_bytes gauge\nrodd_recording_bytes %lld\n", disk_budget_used(b));
    }
    OUT("# HELP rodd_http_requests_total HTTP requests by status code.\n# TYPE rodd_http_requests_total counter\n");
    for (int c = 100; c < 600; c++) {
        long v = atomic_load(&http_by_code[c]);
        if (v) OUT("rodd_http_requests_total{code=\"%d\"} %ld\n", c, v);
    }
#undef OUT
    if (t.failed) {
        free(t.b);
        return NULL;
    }
    return t.b;
}
