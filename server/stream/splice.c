/* The byte pump: one thread, epoll over every pair's two sockets, a bounded buffer per
 * direction. Level-triggered; an end is watched for reading only while the buffer it feeds
 * has room and for writing only while bytes wait for it, so a stalled peer costs no wake-ups.
 * Once either side has hung up, the pair lingers (LINGER_S at most, polled on a timer) to pass
 * on what is still in flight, such as a WebSocket close frame, then finishes. */
#include "splice.h"

#include "clock.h"
#include "ws_frame_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define SPLICE_BUF (32 * 1024) /* per direction: a few frames of a 51-point rod */
#define LINGER_S 2.0           /* after a hang-up, for what is still in flight */
#define TICK_MS 50             /* how often lingering pairs are looked at */
#define MAX_EVENTS 64

typedef struct {
    char *b;
    size_t cap, start, end; /* bytes [start, end) wait to be written */
    /* a guarded direction (a client's WebSocket frames): only [start, ok) has passed the
     * guard and may be written; [ok, end) is a header cut short, waiting for its rest */
    size_t ok;
    /* once the guard refuses a frame (its why set), a Close goes in the frame's place and the
     * rest is dropped */
    ws_frame_guard *guard;
    unsigned char close[131];
    size_t close_len; /* the Close still to go in once there is room */
} dir_buf;

struct pair;
typedef struct {
    struct pair *pair;
    int fd;
    unsigned watched;  /* the epoll interest registered now; 0: not in the set */
    int read_closed;   /* end of stream (or error) reading it */
    int write_shut;    /* shut down for writing: nothing more goes to it */
    int hung_up;       /* its peer hung up: no more events, polled while lingering */
} end_t;

typedef struct pair {
    struct pair *next;
    end_t e[2];
    dir_buf to[2]; /* to[i]: read from e[1 - i], waiting to be written to e[i] */
    double linger_until; /* > 0: finishing */
    int failed, dead;
    splice_done_fn done;
    void *cls;
} pair;

struct splice_pool {
    pthread_mutex_t mu;
    pthread_t thread;
    int epfd, evfd;
    int stopping;      /* under mu */
    double grace;      /* under mu */
    pair *incoming;    /* under mu: added, not yet seen by the thread */
    pair *live;        /* the thread's */
    atomic_int count;
    int joined;
};

static int buf_sendable(const dir_buf *d) { return d->start < d->ok; }
static size_t buf_room(const dir_buf *d) { return d->cap - d->end; }

static void pair_free(pair *p)
{
    free(p->to[0].b);
    free(p->to[1].b);
    free(p->to[0].guard);
    free(p->to[1].guard);
    free(p);
}

/* 1: the pending Close went into the buffer */
static int flush_close(dir_buf *d)
{
    if (!d->close_len || d->cap - d->end < d->close_len) return 0;
    memcpy(d->b + d->end, d->close, d->close_len);
    d->end += d->close_len;
    d->ok = d->end;
    d->close_len = 0;
    return 1;
}

/* Bytes just read into [ok, end): the guard passes whole good headers and their payloads; a
 * refused frame and everything after it are replaced by a Close for the stream server. */
static void guard_new_bytes(dir_buf *d)
{
    if (!d->guard) {
        d->ok = d->end;
        return;
    }
    if (!d->guard->why) {
        d->ok += ws_frame_guard_scan(d->guard, (const unsigned char *)d->b + d->ok, d->end - d->ok);
        if (d->guard->why) d->close_len = ws_frame_guard_close(d->close, sizeof d->close, d->guard->why);
    }
    if (d->guard->why) d->end = d->ok;
    flush_close(d);
}

/* Moves what it can in direction i (from e[1 - i] to e[i]) without blocking. */
static void pump_dir(pair *p, int i)
{
    end_t *src = &p->e[1 - i], *dst = &p->e[i];
    dir_buf *d = &p->to[i];
    for (;;) {
        while (buf_sendable(d) && !dst->write_shut) {
            const ssize_t n = send(dst->fd, d->b + d->start, d->ok - d->start, MSG_NOSIGNAL);
            if (n > 0) d->start += (size_t)n;
            else if (n < 0 && errno == EINTR) continue;
            else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
            else {
                /* dst is gone for writing: nothing more can reach it, and what src sends is
                 * dropped; but what dst sent before it went (a Close that says why, say) still
                 * goes the other way, so the pair is not failed for this */
                dst->write_shut = 1;
                src->read_closed = 1;
                d->start = d->ok = d->end = 0;
                d->close_len = 0;
            }
        }
        if (p->failed || dst->write_shut) return;
        if (!buf_sendable(d) && d->start) { /* what waits (a cut header) moves to the front */
            memmove(d->b, d->b + d->start, d->end - d->start);
            d->end -= d->start;
            d->ok -= d->start;
            d->start = 0;
        }
        if (flush_close(d)) continue;
        if (src->read_closed || !buf_room(d) || buf_sendable(d)) break;
        const ssize_t n = recv(src->fd, d->b + d->end, buf_room(d), 0);
        if (n > 0) {
            d->end += (size_t)n;
            guard_new_bytes(d);
            continue; /* and straight out again: most of the time the other side takes it at once */
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        src->read_closed = 1; /* end of stream, or an error reading */
    }
    if (src->read_closed && !buf_sendable(d) && !d->close_len && !dst->write_shut) {
        d->start = d->ok = d->end = 0; /* a header the client never finished goes nowhere */
        shutdown(dst->fd, SHUT_WR); /* passes the end on: the other side sees it and closes */
        dst->write_shut = 1;
    }
}

static void pump(pair *p)
{
    pump_dir(p, 0);
    pump_dir(p, 1);
    if ((p->e[0].read_closed || p->e[1].read_closed || p->e[0].hung_up || p->e[1].hung_up) && !p->linger_until)
        p->linger_until = mono_now() + LINGER_S;
}

static int finished(const pair *p, double now)
{
    if (p->failed) return 1;
    const int drained = !buf_sendable(&p->to[0]) && !buf_sendable(&p->to[1]);
    if (drained && p->e[0].read_closed && p->e[1].read_closed) return 1;
    return p->linger_until > 0 && now >= p->linger_until;
}

/* Registers what each end should wake the thread for now. */
static void watch(splice_pool *pool, pair *p)
{
    for (int k = 0; k < 2; k++) {
        end_t *x = &p->e[k];
        unsigned want = 0;
        if (!x->hung_up) {
            /* x feeds to[1 - k] and drains to[k] */
            if (!x->read_closed && buf_room(&p->to[1 - k]) && !buf_sendable(&p->to[1 - k])) want |= EPOLLIN;
            if (buf_sendable(&p->to[k])) want |= EPOLLOUT;
            want |= EPOLLRDHUP;
        }
        if (want == x->watched) continue;
        struct epoll_event ev = {.events = want, .data.ptr = x};
        if (!want) epoll_ctl(pool->epfd, EPOLL_CTL_DEL, x->fd, NULL);
        else if (epoll_ctl(pool->epfd, x->watched ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, x->fd, &ev) != 0) p->failed = 1;
        x->watched = want;
    }
}

static void unwatch(splice_pool *pool, pair *p)
{
    for (int k = 0; k < 2; k++)
        if (p->e[k].watched) {
            epoll_ctl(pool->epfd, EPOLL_CTL_DEL, p->e[k].fd, NULL);
            p->e[k].watched = 0;
        }
}

/* Takes the pair out of the set; it is handed back (done) and freed after the current batch
 * of events, some of which may still point at it. */
static void retire(splice_pool *pool, pair *p)
{
    unwatch(pool, p);
    p->dead = 1;
}

/* After a pump: finished pairs leave the set, the others are watched for what they wait on. */
static void settle(splice_pool *pool, pair *p, double now)
{
    if (!finished(p, now)) watch(pool, p);
    if (p->failed || finished(p, now)) retire(pool, p);
}

static void reap(splice_pool *pool)
{
    for (pair **pp = &pool->live; *pp;) {
        pair *p = *pp;
        if (!p->dead) {
            pp = &p->next;
            continue;
        }
        *pp = p->next;
        p->done(p->cls);
        pair_free(p);
        atomic_fetch_sub(&pool->count, 1);
    }
}

static void *run(void *arg)
{
    splice_pool *pool = arg;
    prctl(PR_SET_NAME, "rodd-splice", 0, 0, 0);
    struct epoll_event evs[MAX_EVENTS];
    double stop_at = 0;
    for (;;) {
        pthread_mutex_lock(&pool->mu);
        pair *in = pool->incoming;
        pool->incoming = NULL;
        const int stopping = pool->stopping;
        const double grace = pool->grace;
        pthread_mutex_unlock(&pool->mu);
        while (in) {
            pair *p = in;
            in = in->next;
            p->next = pool->live;
            pool->live = p;
            pump(p); /* what was handed over with it */
        }
        const double now = mono_now();
        if (stopping && !stop_at) {
            stop_at = now + grace;
            for (pair *p = pool->live; p; p = p->next) {
                /* nothing new is taken in; what is held goes out, then each side sees the end */
                p->e[0].read_closed = p->e[1].read_closed = 1;
                if (!p->linger_until || p->linger_until > stop_at) p->linger_until = stop_at;
                pump(p);
            }
        }
        int lingering = 0;
        for (pair *p = pool->live; p; p = p->next) {
            if (p->linger_until) pump(p); /* hung-up ends send no events: look at them here */
            if (stop_at && now >= stop_at) retire(pool, p);
            else settle(pool, p, now);
            lingering |= !p->dead && p->linger_until > 0;
        }
        reap(pool);
        if (stopping && !pool->live) break;
        const int n = epoll_wait(pool->epfd, evs, MAX_EVENTS, lingering || stopping ? TICK_MS : -1);
        for (int i = 0; i < n; i++) {
            if (!evs[i].data.ptr) { /* splice_add or splice_stop */
                uint64_t v;
                ssize_t r = read(pool->evfd, &v, sizeof v);
                (void)r;
                continue;
            }
            end_t *x = evs[i].data.ptr;
            pair *p = x->pair;
            if (p->dead) continue;
            /* an error is a hang-up too, not a failure: a stream server that closes with our
             * bytes unread leaves ECONNRESET on our end, and the Close it sent before (1009,
             * say) still waits to be read and passed on */
            if (evs[i].events & (EPOLLERR | EPOLLHUP | EPOLLRDHUP)) x->hung_up = 1;
            pump(p);
            settle(pool, p, mono_now());
        }
        reap(pool);
    }
    return NULL;
}

splice_pool *splice_start(char *err, size_t errlen)
{
    splice_pool *pool = calloc(1, sizeof *pool);
    if (!pool) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&pool->mu, NULL);
    pool->epfd = epoll_create1(EPOLL_CLOEXEC);
    pool->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    if (pool->epfd < 0 || pool->evfd < 0 || epoll_ctl(pool->epfd, EPOLL_CTL_ADD, pool->evfd, &ev) != 0 ||
        pthread_create(&pool->thread, NULL, run, pool) != 0) {
        snprintf(err, errlen, "cannot start the stream splice thread: %s", strerror(errno));
        if (pool->epfd >= 0) close(pool->epfd);
        if (pool->evfd >= 0) close(pool->evfd);
        pthread_mutex_destroy(&pool->mu);
        free(pool);
        return NULL;
    }
    return pool;
}

static void wake(splice_pool *pool)
{
    const uint64_t one = 1;
    ssize_t r = write(pool->evfd, &one, sizeof one);
    (void)r;
}

static int set_nonblocking(int fd)
{
    const int fl = fcntl(fd, F_GETFL);
    return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0 ? -1 : 0;
}

static int buf_init(dir_buf *d, const void *first, size_t len)
{
    d->cap = len > SPLICE_BUF ? len : SPLICE_BUF;
    d->b = malloc(d->cap);
    if (!d->b) return -1;
    if (len) memcpy(d->b, first, len);
    d->start = 0;
    d->end = len;
    d->ok = 0;
    return 0;
}

/* ws_guard: -1 none, else a's bytes to b are a WebSocket client's frames (1: RSV1 agreed) */
static int add(splice_pool *pool, int a, int b, const void *to_a, size_t to_a_len, const void *to_b, size_t to_b_len,
               int ws_guard, splice_done_fn done, void *cls)
{
    if (!pool || a < 0 || b < 0 || set_nonblocking(a) != 0 || set_nonblocking(b) != 0) return -1;
    pair *p = calloc(1, sizeof *p);
    if (!p) return -1;
    if (buf_init(&p->to[0], to_a, to_a_len) != 0 || buf_init(&p->to[1], to_b, to_b_len) != 0 ||
        (ws_guard >= 0 && !(p->to[1].guard = malloc(sizeof *p->to[1].guard)))) {
        pair_free(p);
        return -1;
    }
    if (ws_guard >= 0) ws_frame_guard_init(p->to[1].guard, ws_guard);
    guard_new_bytes(&p->to[0]);
    guard_new_bytes(&p->to[1]);
    p->e[0] = (end_t){.pair = p, .fd = a};
    p->e[1] = (end_t){.pair = p, .fd = b};
    p->done = done;
    p->cls = cls;
    pthread_mutex_lock(&pool->mu);
    if (pool->stopping) {
        pthread_mutex_unlock(&pool->mu);
        pair_free(p);
        return -1;
    }
    p->next = pool->incoming;
    pool->incoming = p;
    atomic_fetch_add(&pool->count, 1);
    pthread_mutex_unlock(&pool->mu);
    wake(pool);
    return 0;
}

int splice_add(splice_pool *pool, int a, int b, const void *to_a, size_t to_a_len, const void *to_b, size_t to_b_len,
               splice_done_fn done, void *cls)
{
    return add(pool, a, b, to_a, to_a_len, to_b, to_b_len, -1, done, cls);
}

int splice_add_ws(splice_pool *pool, int client, int server, const void *to_client, size_t to_client_len,
                  const void *to_server, size_t to_server_len, int allow_rsv1, splice_done_fn done, void *cls)
{
    return add(pool, client, server, to_client, to_client_len, to_server, to_server_len, allow_rsv1 != 0, done, cls);
}

int splice_count(splice_pool *pool)
{
    return pool ? atomic_load(&pool->count) : 0;
}

void splice_stop(splice_pool *pool, double grace)
{
    if (!pool) return;
    pthread_mutex_lock(&pool->mu);
    const int first = !pool->stopping;
    pool->stopping = 1;
    pool->grace = grace > 0 ? grace : 0;
    pthread_mutex_unlock(&pool->mu);
    if (!first) return;
    wake(pool);
    pthread_join(pool->thread, NULL);
    pool->joined = 1;
}

void splice_free(splice_pool *pool)
{
    if (!pool) return;
    splice_stop(pool, 0);
    close(pool->epfd);
    close(pool->evfd);
    pthread_mutex_destroy(&pool->mu);
    free(pool);
}
