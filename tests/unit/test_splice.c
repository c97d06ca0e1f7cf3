/* The byte pump between two sockets (server/stream/splice.c), over socketpairs: what is handed over
 * goes first, bytes pass both ways unchanged, an end is passed on, a reader that stops stalls
 * its writer instead of growing memory, and stopping bounds everything. */
#include "splice.h"

#include "clock.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct {
    int a, b;            /* the pumped ends */
    int a_peer, b_peer;  /* what the test talks through */
    atomic_int done;
} rig;

static void on_done(void *cls)
{
    rig *r = cls;
    close(r->a);
    close(r->b);
    atomic_fetch_add(&r->done, 1);
}

static void rig_open(rig *r)
{
    int x[2], y[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, x), 0);
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, y), 0);
    r->a_peer = x[0];
    r->a = x[1];
    r->b = y[0];
    r->b_peer = y[1];
    atomic_store(&r->done, 0);
}

/* Reads exactly n bytes within `seconds`; the count read. */
static size_t read_n(int fd, void *buf, size_t n, double seconds)
{
    size_t got = 0;
    const double end = mono_now() + seconds;
    while (got < n && mono_now() < end) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 50) <= 0) continue;
        const ssize_t k = read(fd, (char *)buf + got, n - got);
        if (k <= 0) break;
        got += (size_t)k;
    }
    return got;
}

/* 1 when the next read sees the end of the stream within `seconds`. */
static int sees_end(int fd, double seconds)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    char c;
    return poll(&p, 1, (int)(seconds * 1000)) == 1 && read(fd, &c, 1) == 0;
}

static int wait_done(rig *r, double seconds)
{
    const double end = mono_now() + seconds;
    while (!atomic_load(&r->done) && mono_now() < end) usleep(5000);
    return atomic_load(&r->done);
}

typedef struct {
    int fd;
    const unsigned char *b;
    size_t n;
} writing;

static void *write_all(void *arg)
{
    writing *w = arg;
    for (size_t off = 0; off < w->n;) {
        const ssize_t k = write(w->fd, w->b + off, w->n - off);
        if (k <= 0) break;
        off += (size_t)k;
    }
    return NULL;
}

Test(splice, handed_over_bytes_go_first_then_both_ways_unchanged)
{
    char err[128];
    splice_pool *p = splice_start(err, sizeof err);
    cr_assert_not_null(p, "%s", err);
    rig r;
    rig_open(&r);
    cr_assert_eq(splice_add(p, r.a, r.b, "to-a", 4, "to-b", 4, on_done, &r), 0);
    char got[8] = "";
    cr_assert_eq(read_n(r.a_peer, got, 4, 2), 4);
    cr_assert(memcmp(got, "to-a", 4) == 0);
    cr_assert_eq(read_n(r.b_peer, got, 4, 2), 4);
    cr_assert(memcmp(got, "to-b", 4) == 0);
    /* 3 MB each way at once, far more than any buffer on the way */
    const size_t n = 3u << 20;
    unsigned char *x = malloc(n), *y = malloc(n), *gx = malloc(n), *gy = malloc(n);
    for (size_t i = 0; i < n; i++) {
        x[i] = (unsigned char)(i * 2654435761u >> 13);
        y[i] = (unsigned char)(i * 40503u >> 7);
    }
    writing wx = {r.a_peer, x, n}, wy = {r.b_peer, y, n};
    pthread_t tx, ty;
    pthread_create(&tx, NULL, write_all, &wx);
    pthread_create(&ty, NULL, write_all, &wy);
    cr_assert_eq(read_n(r.b_peer, gx, n, 20), n);
    cr_assert_eq(read_n(r.a_peer, gy, n, 20), n);
    pthread_join(tx, NULL);
    pthread_join(ty, NULL);
    cr_assert(memcmp(x, gx, n) == 0, "a to b unchanged");
    cr_assert(memcmp(y, gy, n) == 0, "b to a unchanged");
    cr_assert_eq(splice_count(p), 1);
    cr_assert_eq(atomic_load(&r.done), 0);
    /* one side closes: what it sent still arrives, then the other side sees the end and the
     * pair is finished with, once */
    cr_assert_eq(write(r.b_peer, "bye", 3), 3);
    close(r.b_peer);
    cr_assert_eq(read_n(r.a_peer, got, 3, 2), 3);
    cr_assert(memcmp(got, "bye", 3) == 0);
    cr_assert(sees_end(r.a_peer, 3));
    close(r.a_peer);
    cr_assert(wait_done(&r, 3));
    usleep(100000);
    cr_assert_eq(atomic_load(&r.done), 1, "done runs once");
    cr_assert_eq(splice_count(p), 0);
    splice_free(p);
    free(x), free(y), free(gx), free(gy);
}

Test(splice, a_half_close_is_passed_on_and_the_other_way_still_flows)
{
    char err[128];
    splice_pool *p = splice_start(err, sizeof err);
    rig r;
    rig_open(&r);
    cr_assert_eq(splice_add(p, r.a, r.b, NULL, 0, NULL, 0, on_done, &r), 0);
    shutdown(r.a_peer, SHUT_WR);
    cr_assert(sees_end(r.b_peer, 2), "b's side sees a's end");
    cr_assert_eq(write(r.b_peer, "late", 4), 4);
    char got[4];
    cr_assert_eq(read_n(r.a_peer, got, 4, 1), 4, "while it lingers, the other way still flows");
    /* and it is finished within the linger even though b's side never closes */
    cr_assert(wait_done(&r, 4));
    close(r.a_peer);
    close(r.b_peer);
    splice_free(p);
}

Test(splice, a_reader_that_stops_stalls_its_writer)
{
    char err[128];
    splice_pool *p = splice_start(err, sizeof err);
    rig r;
    rig_open(&r);
    cr_assert_eq(splice_add(p, r.a, r.b, NULL, 0, NULL, 0, on_done, &r), 0);
    /* a's side reads nothing; b's side writes until it is refused */
    fcntl(r.b_peer, F_SETFL, fcntl(r.b_peer, F_GETFL) | O_NONBLOCK);
    static char chunk[65536];
    size_t sent = 0;
    double quiet_since = mono_now();
    while (mono_now() - quiet_since < 0.5 && sent < (256u << 20)) {
        const ssize_t k = write(r.b_peer, chunk, sizeof chunk);
        if (k > 0) {
            sent += (size_t)k;
            quiet_since = mono_now();
        } else {
            cr_assert(errno == EAGAIN || errno == EWOULDBLOCK);
            usleep(2000);
        }
    }
    /* what is held: two socket buffers each side of the pump (a few hundred KiB on Linux) and
     * its own 32 KiB; never the 256 MiB a pump that reads on regardless would take in */
    cr_assert_lt(sent, 16u << 20, "%zu bytes taken in with nobody reading", sent);
    cr_assert_eq(atomic_load(&r.done), 0, "a stalled pair is not ended by the pump");
    /* stopping bounds it: the pair is handed back within the grace */
    const double t0 = mono_now();
    splice_stop(p, 0.2);
    cr_assert_lt(mono_now() - t0, 1.0);
    cr_assert_eq(atomic_load(&r.done), 1);
    char c;
    cr_assert_eq(splice_add(p, r.a_peer, r.b_peer, &c, 1, NULL, 0, on_done, &r), -1, "no new pairs once stopping");
    close(r.a_peer);
    close(r.b_peer);
    splice_free(p);
}

Test(splice, stopping_says_goodbye_within_the_grace)
{
    char err[128];
    splice_pool *p = splice_start(err, sizeof err);
    rig rs[3];
    for (int i = 0; i < 3; i++) {
        rig_open(&rs[i]);
        cr_assert_eq(splice_add(p, rs[i].a, rs[i].b, "goodbye", 7, NULL, 0, on_done, &rs[i]), 0);
    }
    splice_stop(p, 1.0);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(atomic_load(&rs[i].done), 1);
        char got[8];
        cr_assert_eq(read_n(rs[i].a_peer, got, 7, 1), 7, "what was held went out before the end");
        cr_assert(memcmp(got, "goodbye", 7) == 0);
        cr_assert(sees_end(rs[i].a_peer, 1));
        cr_assert(sees_end(rs[i].b_peer, 1));
        close(rs[i].a_peer);
        close(rs[i].b_peer);
    }
    splice_free(p);
}

/* A server that answers and then closes with the client's bytes unread (a stream server
 * refusing a message too large: its Close, then its end) leaves ECONNRESET on the pumped end;
 * its last words must still reach the client. They were lost when an error failed the pair. */
Test(splice, last_words_of_a_peer_that_closes_unread_still_arrive)
{
    char err[128];
    splice_pool *p = splice_start(err, sizeof err);
    cr_assert(p);
    rig r;
    rig_open(&r);
    cr_assert_eq(splice_add(p, r.a, r.b, NULL, 0, NULL, 0, on_done, &r), 0);
    static char junk[4096];
    cr_assert_eq(write(r.a_peer, junk, sizeof junk), (ssize_t)sizeof junk); /* reaches b_peer unread */
    usleep(100 * 1000);
    cr_assert_eq(write(r.b_peer, "bye", 3), 3);
    close(r.b_peer); /* with the junk unread */
    char got[3];
    cr_expect_eq(read_n(r.a_peer, got, 3, 3.0), 3);
    cr_expect_eq(memcmp(got, "bye", 3), 0);
    cr_expect(sees_end(r.a_peer, 3.0));
    cr_expect(wait_done(&r, 3.0));
    close(r.a_peer);
    splice_free(p);
}
