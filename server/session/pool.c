#include "pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* A session as the pool sees it: whether a worker has it and when it is next due. */
typedef struct {
    session *s;
    int busy;
    double next_due;
} entry;

struct pool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    entry *s;
    int n, cap, max;
    pthread_t *threads;
    int nthreads;
    int live; /* workers not yet returned */
    int stop;
    int watch_stop; /* the watchdog outlives the workers: a drain's :advance keeps its limit */
    pthread_t watchdog;
    int has_watchdog;
    pthread_cond_t watchdog_cv; /* wakes the watchdog to stop */
};

#define WATCH_PERIOD 0.05 /* s between the watchdog's looks: how late a deadline may bite */

/* Interrupts pieces of simulation past their deadline: a worker in one cannot look at the
 * clock, and neither can an :advance. */
static void *watchdog(void *arg)
{
    pool *p = arg;
    pthread_mutex_lock(&p->mu);
    while (!p->watch_stop) {
        const double now = mono_now();
        for (int i = 0; i < p->n; i++) session_watch(p->s[i].s, now);
        const struct timespec ts = realtime_after(WATCH_PERIOD);
        pthread_cond_timedwait(&p->watchdog_cv, &p->mu, &ts);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* How much less the simulation workers weigh with the scheduler than the threads that answer
 * (REST, streams): on a machine the sessions keep busy, a request that wakes finds a core within
 * a fraction of a time slice instead of after the workers' slices. Linux nice is per thread. */
#define WORKER_NICE 5

static void *worker(void *arg)
{
    pool *p = arg;
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), WORKER_NICE); /* unprivileged: only down */
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        entry *best = NULL;
        const double now = mono_now();
        for (int i = 0; i < p->n; i++) {
            entry *e = &p->s[i];
            if (e->busy || !session_is_running(e->s)) continue;
            if (!best || e->next_due < best->next_due) best = e;
        }
        if (!best) {
            pthread_cond_wait(&p->cv, &p->mu);
            continue;
        }
        if (best->next_due > now) {
            const struct timespec ts = realtime_after(best->next_due - now);
            pthread_cond_timedwait(&p->cv, &p->mu, &ts);
            continue;
        }
        best->busy = 1;
        session *s = best->s;
        session_retain(s);
        pthread_mutex_unlock(&p->mu);
        session_slice slice;
        double due = session_step(s, now, &slice);
        if (slice.ran) metrics_slice(slice.wall, slice.simulated, slice.steps, slice.rhs_evals);
        pthread_mutex_lock(&p->mu);
        /* the array may have moved or shrunk meanwhile: find the session again (our reference
         * keeps its address from being reused until then) */
        for (int i = 0; i < p->n; i++)
            if (p->s[i].s == s) {
                p->s[i].busy = 0;
                p->s[i].next_due = due < 0 ? 0 : due;
            }
        pthread_cond_broadcast(&p->cv); /* others may have waited on this session */
        /* outside the pool's lock: when the session was removed meanwhile this is its last
         * reference, and its destruction (a recording closed, a model freed) must not hold up
         * every other worker and request */
        pthread_mutex_unlock(&p->mu);
        session_release(s);
        pthread_mutex_lock(&p->mu);
    }
    p->live--;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

pool *pool_new(int workers, int max_sessions)
{
    pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    pthread_cond_init(&p->watchdog_cv, NULL);
    p->max = max_sessions;
    p->threads = calloc((size_t)(workers > 0 ? workers : 1), sizeof *p->threads);
    if (!p->threads) {
        free(p);
        return NULL;
    }
    const int want = workers > 0 ? workers : 1;
    int rc = 0;
    for (int i = 0; i < want && (rc = pthread_create(&p->threads[i], NULL, worker, p)) == 0; i++) p->nthreads++;
    pthread_mutex_lock(&p->mu);
    p->live += p->nthreads;
    pthread_mutex_unlock(&p->mu);
    if (rc == 0) rc = pthread_create(&p->watchdog, NULL, watchdog, p);
    p->has_watchdog = rc == 0;
    if (rc != 0) {
        /* a pool short of the workers it was asked for is not the daemon that was configured */
        pool_free(p);
        errno = rc;
        return NULL;
    }
    return p;
}

int pool_stop_within(pool *p, double wait)
{
    const struct timespec until = realtime_after(wait);
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    for (int i = 0; i < p->n; i++)
        if (p->s[i].busy) session_stop_work(p->s[i].s); /* its slice ends now, not at its end */
    pthread_cond_broadcast(&p->cv);
    while (p->live > 0 && wait >= 0)
        if (pthread_cond_timedwait(&p->cv, &p->mu, &until) == ETIMEDOUT) break;
    while (p->live > 0 && wait < 0) pthread_cond_wait(&p->cv, &p->mu);
    const int stuck = p->live;
    pthread_mutex_unlock(&p->mu);
    if (stuck) return stuck; /* left running: joining would wait for their step */
    for (int i = 0; i < p->nthreads; i++) pthread_join(p->threads[i], NULL);
    p->nthreads = 0;
    return 0;
}

void pool_stop(pool *p)
{
    pool_stop_within(p, -1);
}

/* After the workers: requests still advancing sessions during a drain keep their deadlines. */
static void stop_watchdog(pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->watch_stop = 1;
    pthread_cond_broadcast(&p->watchdog_cv);
    pthread_mutex_unlock(&p->mu);
    if (p->has_watchdog) {
        pthread_join(p->watchdog, NULL); /* it never waits for a session's state */
        p->has_watchdog = 0;
    }
}

void pool_free(pool *p)
{
    if (!p) return;
    pool_stop(p);
    stop_watchdog(p);
    for (int i = 0; i < p->n; i++) session_release(p->s[i].s);
    free(p->s);
    free(p->threads);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    pthread_cond_destroy(&p->watchdog_cv);
    free(p);
}

int pool_add(pool *p, session *s)
{
    pthread_mutex_lock(&p->mu);
    int rc = POOL_OK;
    for (int i = 0; i < p->n; i++)
        if (strcmp(session_id(p->s[i].s), session_id(s)) == 0) rc = POOL_EEXIST;
    if (rc == POOL_OK && p->n >= p->max) rc = POOL_EFULL;
    if (rc == POOL_OK && p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 16;
        entry *ns = realloc(p->s, (size_t)cap * sizeof *ns);
        if (!ns) rc = POOL_EFULL;
        else {
            p->s = ns;
            p->cap = cap;
        }
    }
    if (rc == POOL_OK) {
        session_retain(s);
        p->s[p->n++] = (entry){s, 0, 0};
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return rc;
}

session *pool_find(pool *p, const char *id)
{
    session *found = NULL;
    pthread_mutex_lock(&p->mu);
    for (int i = 0; i < p->n && !found; i++)
        if (strcmp(session_id(p->s[i].s), id) == 0) {
            found = p->s[i].s;
            session_retain(found);
        }
    pthread_mutex_unlock(&p->mu);
    return found;
}

int pool_remove(pool *p, const char *id)
{
    session *gone = NULL;
    pthread_mutex_lock(&p->mu);
    for (int i = 0; i < p->n; i++)
        if (strcmp(session_id(p->s[i].s), id) == 0) {
            gone = p->s[i].s;
            memmove(p->s + i, p->s + i + 1, (size_t)(p->n - i - 1) * sizeof *p->s);
            p->n--;
            break;
        }
    pthread_mutex_unlock(&p->mu);
    if (!gone) return -1;
    session_stop_work(gone);
    session_release(gone); /* a worker still stepping it holds its own reference */
    return 0;
}

int pool_list(pool *p, session ***out)
{
    pthread_mutex_lock(&p->mu);
    int n = p->n;
    session **a = malloc((size_t)(n ? n : 1) * sizeof *a);
    if (!a) {
        pthread_mutex_unlock(&p->mu);
        *out = NULL;
        return 0;
    }
    for (int i = 0; i < n; i++) {
        a[i] = p->s[i].s;
        session_retain(a[i]);
    }
    pthread_mutex_unlock(&p->mu);
    *out = a;
    return n;
}

int pool_count(pool *p)
{
    pthread_mutex_lock(&p->mu);
    int n = p->n;
    pthread_mutex_unlock(&p->mu);
    return n;
}

int pool_capacity(pool *p)
{
    return p->max;
}

void pool_wake(pool *p)
{
    pthread_mutex_lock(&p->mu);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

void pool_stop_all_work(pool *p)
{
    pthread_mutex_lock(&p->mu);
    for (int i = 0; i < p->n; i++) session_stop_work(p->s[i].s);
    pthread_mutex_unlock(&p->mu);
}

void pool_census(pool *p, metrics_sessions *out)
{
    *out = (metrics_sessions){.capacity = pool_capacity(p)};
    session **all;
    const int n = pool_list(p, &all);
    for (int i = 0; i < n; i++) {
        session_view v;
        session_snapshot(all[i], &v);
        out->by_status[v.status]++;
        out->behind_pace += v.behind_pace;
        session_release(all[i]);
    }
    free(all);
}
