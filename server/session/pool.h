/* The session pool: a registry of sessions by id and the worker threads that step the
 * running ones, each session on one worker at a time, earliest due first. */
#ifndef RODD_POOL_H
#define RODD_POOL_H

#include "metrics.h"
#include "session.h"

typedef struct pool pool;

/* NULL (errno set) when out of memory or when a worker thread or the watchdog cannot start. */
pool *pool_new(int workers, int max_sessions);
/* Stops the workers, each after its slice; the sessions stay, and the watchdog keeps bounding
 * the pieces requests still run (an :advance during a drain) until pool_free. */
void pool_stop(pool *p);
/* Stops the workers, waiting at most `wait` seconds for their steps to end; returns how
 * many are still in a step (not joined; the pool must then not be freed). */
int pool_stop_within(pool *p, double wait);
/* Stops the work in progress on every session, a request's (:advance) as much as a worker's. */
void pool_stop_all_work(pool *p);
/* Stops the workers if still running and drops the pool's references. */
void pool_free(pool *p);

enum { POOL_OK = 0, POOL_EEXIST = -1, POOL_EFULL = -2 };
/* The pool takes its own reference. */
int pool_add(pool *p, session *s);
/* A retained session, or NULL. */
session *pool_find(pool *p, const char *id);
int pool_remove(pool *p, const char *id);
/* Retained sessions in creation order; free the array, release each. */
int pool_list(pool *p, session ***out);
int pool_count(pool *p);
int pool_capacity(pool *p);
/* A session started or got work: wake a worker. */
void pool_wake(pool *p);
/* The sessions by status, as /metrics shows them. */
void pool_census(pool *p, metrics_sessions *out);

#endif
