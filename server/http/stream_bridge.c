#include "stream_bridge.h"

#include "clock.h"
#include "log.h"
#include "origin.h"
#include "splice.h"
#include "stream.h"
#include "stream_handshake.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

/* The stream server answers from its own thread at once; this bounds a stalled one. The
 * client's side of the handshake is bounded by http_guard's request_timeout. */
#define HANDSHAKE_TIMEOUT 5.0
#define MAX_REQUEST 16384   /* the forwarded request: the stream server takes 4 KiB of headers */
#define MAX_ANSWER 16384    /* the stream server's header, and the first frames after it */
#define MAX_REFUSAL 4096    /* a refusal's body */
/* at stop, for the streams' handlers to hand their sockets back once the pump let them go */
#define HANDBACK_TIMEOUT 2.0

struct stream_bridge {
    daemon_ctx *d;
    splice_pool *pump;
    pthread_mutex_t mu;
    pthread_cond_t idle; /* signalled when open drops to 0 */
    int open;            /* under mu: streams whose upgrade handler has not yet closed them */
};

struct bridge_conn {
    stream_bridge *b;
    int fd;            /* our end of the socketpair */
    char *early;       /* what the stream server sent after its 101 (the hello, ...) */
    size_t nearly;
    int *upgraded;     /* the REST connection's flag: set when the upgrade handler takes this */
    struct MHD_UpgradeResponseHandle *urh;
    int allow_rsv1;    /* the stream server agreed an extension that uses RSV1 */
    pthread_cond_t pumped_cv; /* with b->mu: the pump is done with the stream */
    int pumped;               /* under b->mu */
};

stream_bridge *bridge_start(daemon_ctx *d, char *err, size_t errlen)
{
    stream_bridge *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    b->d = d;
    b->pump = splice_start(err, errlen);
    if (!b->pump) {
        free(b);
        return NULL;
    }
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->idle, NULL);
    return b;
}

void bridge_stop(stream_bridge *b, double grace)
{
    if (!b) return;
    splice_stop(b->pump, grace); /* every pair's pumped has run: their handlers are closing them */
    const struct timespec until = realtime_after(HANDBACK_TIMEOUT);
    pthread_mutex_lock(&b->mu);
    while (b->open > 0 && pthread_cond_timedwait(&b->idle, &b->mu, &until) == 0) continue;
    if (b->open > 0) log_event(LOG_WARN, "stream_bridge", "message=\"%d streams not handed back at stop\"", b->open);
    pthread_mutex_unlock(&b->mu);
}

void bridge_free(stream_bridge *b)
{
    if (!b) return;
    splice_free(b->pump);
    pthread_cond_destroy(&b->idle);
    pthread_mutex_destroy(&b->mu);
    free(b);
}

int bridge_count(stream_bridge *b)
{
    return b ? splice_count(b->pump) : 0;
}

/* Is `token` one of the comma-separated tokens of `list`? */
static int has_token(const char *list, const char *token)
{
    const size_t n = strlen(token);
    for (const char *p = list; p && *p;) {
        while (*p == ' ' || *p == '\t' || *p == ',') p++;
        const char *end = p;
        while (*end && *end != ',') end++;
        const char *last = end;
        while (last > p && (last[-1] == ' ' || last[-1] == '\t')) last--;
        if ((size_t)(last - p) == n && strncasecmp(p, token, n) == 0) return 1;
        p = end;
    }
    return 0;
}

int bridge_wants_upgrade(struct MHD_Connection *conn, const char *method)
{
    if (strcmp(method, "GET") != 0) return 0;
    return has_token(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Upgrade"), "websocket");
}

static const char *header_of(void *ctx, const char *name)
{
    return MHD_lookup_connection_value(ctx, MHD_HEADER_KIND, name);
}

static void peer_of(struct MHD_Connection *conn, char *out, size_t len)
{
    snprintf(out, len, "unknown");
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *a = ci ? ci->client_addr : NULL;
    if (a && a->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr, out, (socklen_t)len);
    else if (a && a->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)a)->sin6_addr, out, (socklen_t)len);
}

/* Waits for fd to be ready for `events` until the deadline: 1 ready, 0 timed out, -1 error. */
static int wait_for(int fd, short events, double deadline)
{
    for (;;) {
        const double left = deadline - mono_now();
        if (left <= 0) return 0;
        struct pollfd p = {.fd = fd, .events = events};
        const int n = poll(&p, 1, (int)(left * 1000) + 1);
        if (n > 0) return 1;
        if (n == 0) return 0;
        if (errno != EINTR) return -1;
    }
}

static int send_all(int fd, const char *b, size_t n, double deadline)
{
    while (n) {
        if (wait_for(fd, POLLOUT, deadline) != 1) return -1;
        const ssize_t k = send(fd, b, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
        if (k <= 0) return -1;
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Reads more into buf[*got, cap): 1 read some, 0 end of stream or timed out, -1 error. */
static int read_more(int fd, char *buf, size_t cap, size_t *got, double deadline)
{
    for (;;) {
        const int w = wait_for(fd, POLLIN, deadline);
        if (w != 1) return w;
        const ssize_t k = recv(fd, buf + *got, cap - *got, MSG_DONTWAIT);
        if (k < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
        if (k < 0) return -1;
        if (k == 0) return 0;
        *got += (size_t)k;
        return 1;
    }
}

/* Whether the agreed extensions include permessage-deflate, the one that sets RSV1. */
static int names_deflate(const char *extensions)
{
    static const char name[] = "permessage-deflate";
    for (const char *p = extensions; *p; p++)
        if (strncasecmp(p, name, sizeof name - 1) == 0) return 1;
    return 0;
}

static void no_answer(http_response *rs, const char *why)
{
    log_event(LOG_WARN, "stream_refused", "reason=%s port=rest", log_q(why));
    reply_problem(rs, PROBLEM_NOT_READY, "the stream server did not take the stream", why, NULL);
    snprintf(rs->retry_after, sizeof rs->retry_after, "1");
}

/* On the pump's thread, when it is done with the stream: wakes the stream's handler, which
 * hands the socket back (on_upgrade). c is not touched after the unlock. */
static void pumped(void *cls)
{
    bridge_conn *c = cls;
    stream_bridge *b = c->b;
    pthread_mutex_lock(&b->mu);
    c->pumped = 1;
    pthread_cond_signal(&c->pumped_cv);
    pthread_mutex_unlock(&b->mu);
}

/* Hands the client's socket back to libmicrohttpd (which closes it) and frees c; on the
 * connection's own thread only, see on_upgrade. */
static void hand_back(bridge_conn *c)
{
    stream_bridge *b = c->b;
    close(c->fd);
    MHD_upgrade_action(c->urh, MHD_UPGRADE_ACTION_CLOSE);
    pthread_cond_destroy(&c->pumped_cv);
    free(c->early);
    free(c);
    stream_release(b->d->streams);
    pthread_mutex_lock(&b->mu);
    if (--b->open == 0) pthread_cond_broadcast(&b->idle);
    pthread_mutex_unlock(&b->mu);
}

static void on_upgrade(void *cls, struct MHD_Connection *conn, void *con_cls, const char *extra_in,
                       size_t extra_in_size, MHD_socket sock, struct MHD_UpgradeResponseHandle *urh)
{
    (void)conn;
    (void)con_cls;
    bridge_conn *c = cls;
    *c->upgraded = 1; /* from here on c is ours, not the REST connection's */
    c->upgraded = NULL;
    c->urh = urh;
    /* frames go out as they come, as the stream port sends them (lws sets TCP_NODELAY there):
     * libmicrohttpd may leave the socket corked after its 101, and Nagle's wait for an ACK
     * behind a delayed ACK held frames back by milliseconds */
    MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CORK_OFF);
    const int one = 1;
    setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    stream_bridge *b = c->b;
    pthread_mutex_lock(&b->mu);
    b->open++;
    pthread_mutex_unlock(&b->mu);
    /* the client's bytes that came with its request go to the stream server, the stream
     * server's that came with its 101 to the client */
    if (splice_add_ws(b->pump, sock, c->fd, c->early, c->nearly, extra_in, extra_in_size, c->allow_rsv1, pumped, c) ==
        0) {
        /* This thread (the connection's own: a thread per connection) waits for the stream's
         * end and hands the socket back itself. libmicrohttpd 0.9.75 marks an upgraded
         * connection closed without its lock and only then takes the lock to resume it: called
         * from another thread (the pump's, as it was) after the connection's thread had resumed
         * it once already, its listen thread could free the connection in between, and the
         * resume then wrote into freed memory (the heap corruption under stream churn, issue 27;
         * fixed upstream in 0.9.76, a59760c5). From the connection's own thread the connection
         * cannot be freed before this thread ends, since the listen thread joins it first. */
        pthread_mutex_lock(&b->mu);
        while (!c->pumped) pthread_cond_wait(&c->pumped_cv, &b->mu);
        pthread_mutex_unlock(&b->mu);
    }
    hand_back(c);
}

void bridge_discard(bridge_conn *c)
{
    if (!c) return;
    close(c->fd);
    pthread_cond_destroy(&c->pumped_cv);
    stream_release(c->b->d->streams);
    free(c->early);
    free(c);
}

/* The stream server's refusal, with its status and its reason, as the REST port says things:
 * a problem (the stream port answers the same status with a page). */
static void repeat_refusal(struct MHD_Connection *conn, const server_config *cfg, int fd, char *buf, size_t got,
                           const handshake_answer *a, double deadline, http_response *rs)
{
    const size_t want = a->header_len + (a->content_length >= 0 && a->content_length < MAX_REFUSAL
                                             ? (size_t)a->content_length : MAX_REFUSAL);
    while (got < want && read_more(fd, buf, want, &got, deadline) == 1) continue;
    const size_t n = (got < want ? got : want) - a->header_len;
    /* libwebsockets' page: <html>...<h1>STATUS</h1>REASON</body></html> */
    char page[MAX_REFUSAL + 1], reason[512] = "";
    memcpy(page, buf + a->header_len, n);
    page[n] = '\0';
    const char *from = strstr(page, "</h1>"), *to = from ? strstr(from, "</body>") : NULL;
    if (from && to) snprintf(reason, sizeof reason, "%.*s", (int)(to - from - 5), from + 5);
    const char *host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host");
    const int st = a->status;
    const problem_kind kind = st == 401   ? PROBLEM_UNAUTHORIZED
                              : st == 403 ? (host_allowed(cfg, host) ? PROBLEM_ORIGIN_NOT_ALLOWED : PROBLEM_HOST_NOT_ALLOWED)
                              : st == 404 ? PROBLEM_NOT_FOUND
                              : st == 503 ? PROBLEM_BUSY
                              : st < 500  ? PROBLEM_INVALID_QUERY
                                          : PROBLEM_NOT_READY;
    const char *what = st == 401   ? "a viewer token or ticket is needed"
                       : st == 403 ? "the stream's host or page is not allowed"
                       : st == 404 ? "no such stream"
                       : st == 503 ? "too many streams"
                                   : "the stream was refused";
    /* the stream server's own status, whatever the kind's usual one */
    reply_problem_relayed(rs, st, kind, what, reason[0] ? reason : NULL, NULL);
    if (st == 503) snprintf(rs->retry_after, sizeof rs->retry_after, "1");
}

int bridge_handshake(stream_bridge *b, struct MHD_Connection *conn, const char *target, int *upgraded,
                     struct MHD_Response **upgrade, bridge_conn **state, http_response *rs)
{
    *upgrade = NULL;
    *state = NULL;
    /* RFC 6455 4.2.1's checks here too, before a place is taken: a bad request at the limit
     * still hears what is wrong with it */
    if (!handshake_version_ok(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Sec-WebSocket-Version"))) {
        reply_problem(rs, PROBLEM_UPGRADE_REQUIRED, "unsupported WebSocket version",
                      "Sec-WebSocket-Version must be 13", NULL);
        return 0;
    }
    if (!handshake_key_ok(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Sec-WebSocket-Key"))) {
        reply_problem(rs, PROBLEM_INVALID_QUERY, "bad WebSocket key",
                      "Sec-WebSocket-Key must be the base64 of 16 bytes", NULL);
        return 0;
    }
    const char *query = strchr(target, '?');
    if (query && strlen(query + 1) > HANDSHAKE_QUERY_MAX) {
        reply_problem(rs, PROBLEM_URI_TOO_LONG, "the stream URL is too long",
                      "the stream URL's query is over 2048 characters", NULL);
        return 0;
    }
    /* a NUL once decoded: the stream server drops such a handshake without an answer */
    if (query && strstr(query, "%00")) {
        reply_problem(rs, PROBLEM_INVALID_QUERY, "the stream URL's query holds %00",
                      "a NUL is not allowed in a stream URL's query", NULL);
        return 0;
    }
    char peer[INET6_ADDRSTRLEN + 8];
    peer_of(conn, peer, sizeof peer);
    char *req = malloc(MAX_REQUEST), *buf = malloc(MAX_ANSWER + MAX_REFUSAL);
    if (!req || !buf) {
        free(req);
        free(buf);
        reply_problem(rs, PROBLEM_BUSY, "out of memory", NULL, NULL);
        return 0;
    }
    const long n = handshake_request(req, MAX_REQUEST, target, header_of, conn, peer);
    int sv[2] = {-1, -1}, reserved = 0;
    if (n < 0) {
        reply_problem(rs, PROBLEM_INVALID_QUERY, "the stream request cannot be passed on",
                      "its target or a header holds control characters, or its headers are over 16 KiB", NULL);
        goto out;
    }
    /* the stream's place among max_streams, held until hand_back or bridge_discard */
    if (stream_reserve(b->d->streams) != 0) {
        log_event(LOG_WARN, "stream_refused", "reason=\"too many streams\" port=rest");
        reply_problem(rs, PROBLEM_BUSY, "too many streams", "too many streams", NULL);
        snprintf(rs->retry_after, sizeof rs->retry_after, "1");
        goto out;
    }
    reserved = 1;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        no_answer(rs, strerror(errno));
        goto out;
    }
    if (stream_adopt(b->d->streams, sv[1]) != 0) {
        close(sv[1]);
        no_answer(rs, "the streams are stopping");
        goto out;
    }
    const double deadline = mono_now() + HANDSHAKE_TIMEOUT;
    if (send_all(sv[0], req, (size_t)n, deadline) != 0) {
        no_answer(rs, "the stream server did not read the request");
        goto out;
    }
    size_t got = 0;
    handshake_answer a;
    int parsed = 0;
    while (parsed == 0 && got < MAX_ANSWER && read_more(sv[0], buf, MAX_ANSWER, &got, deadline) == 1)
        parsed = handshake_parse_answer(buf, got, &a);
    if (parsed != 1) {
        no_answer(rs, parsed < 0 ? "the stream server's answer is not HTTP" : "the stream server did not answer");
        goto out;
    }
    if (a.status != 101) {
        repeat_refusal(conn, &b->d->cfg, sv[0], buf, got, &a, deadline, rs);
        goto out;
    }
    bridge_conn *c = calloc(1, sizeof *c);
    const size_t nearly = got - a.header_len;
    char *early = nearly ? malloc(nearly) : NULL;
    struct MHD_Response *r = c && (early || !nearly) ? MHD_create_response_for_upgrade(on_upgrade, c) : NULL;
    if (!r) {
        free(c);
        free(early);
        no_answer(rs, "out of memory");
        goto out;
    }
    if (nearly) memcpy(early, buf + a.header_len, nearly);
    c->b = b;
    c->fd = sv[0];
    c->upgraded = upgraded;
    c->early = early;
    c->nearly = nearly;
    c->allow_rsv1 = names_deflate(a.extensions);
    pthread_cond_init(&c->pumped_cv, NULL);
    /* libmicrohttpd adds "Connection: Upgrade" to an upgrade response itself; adding it here
     * too made "Connection: Upgrade, Upgrade", which strict clients (undici) refuse */
    MHD_add_response_header(r, "Upgrade", "websocket");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "Sec-WebSocket-Accept", a.accept);
    if (a.protocol[0]) MHD_add_response_header(r, "Sec-WebSocket-Protocol", a.protocol);
    if (a.extensions[0]) MHD_add_response_header(r, "Sec-WebSocket-Extensions", a.extensions);
    *upgrade = r;
    *state = c;
    sv[0] = -1;
    reserved = 0; /* c holds it now */
out:
    if (sv[0] >= 0) close(sv[0]);
    if (reserved) stream_release(b->d->streams);
    free(req);
    free(buf);
    return *upgrade != NULL;
}
