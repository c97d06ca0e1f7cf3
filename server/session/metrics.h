/* Process-wide counters for /metrics (Prometheus text format). No session ids as labels. */
#ifndef RODD_METRICS_H
#define RODD_METRICS_H

#include <stddef.h>

void metrics_http(int status);
/* A REST request's time in the daemon (seconds), for rodd_http_request_duration_seconds. */
void metrics_request_time(double seconds);
/* One work slice of a session: its wall time, the simulated time it advanced, and the
 * integrator steps and right-hand-side evaluations it took. */
void metrics_slice(double wall_seconds, double simulated_seconds, long integrator_steps, long rhs_evals);
void metrics_frames_sent(long n);
void metrics_frames_dropped(long n);
void metrics_stream_clients(int delta);
void metrics_checkpoint(int ok);
/* The recording budget whose limit and use /metrics shows (borrowed; NULL: none shown).
 * Set once at start, before the HTTP server, and cleared before the budget is freed. */
struct disk_budget;
void metrics_recording_budget(const struct disk_budget *b);
/* The sessions as /metrics shows them, counted by the pool (pool_census). */
typedef struct {
    int by_status[5]; /* indexed by session_status */
    int behind_pace;  /* running sessions below 0.9 of their pace */
    int capacity;     /* the most sessions the daemon keeps */
} metrics_sessions;
/* The exposition text (malloc'd). */
char *metrics_render(const metrics_sessions *sessions);

#endif
