#include "http.h"

#include "clock.h"
#include "http_guard.h"
#include "log.h"
#include "metrics.h"
#include "origin.h"
#include "stream_admit.h"
#include "stream_bridge.h"
#include "utf8.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

struct http_server {
    struct MHD_Daemon *mhd;
    daemon_ctx *d;
    http_guard *guard;
    stream_bridge *bridge; /* streams on this port */
    atomic_int in_flight; /* requests begun and not yet completed */
};

typedef struct {
    int started;   /* the handler has seen the headers */
    int counted;   /* counted in in_flight */
    char *target;  /* a stream path's request target as sent (path and query), for the stream server */
    int upgraded;  /* the connection is a stream now (set by the upgrade handler) */
    bridge_conn *bridged; /* between the handshake and the upgrade */
    char *body;
    size_t len, cap;
    int too_big;   /* over max_body: the rest is dropped, the answer is 413 */
    int too_busy;  /* over max_bodies_in_flight: the answer is 503 */
    int answered;  /* refused from the headers alone */
    size_t reserved; /* bytes counted against max_bodies_in_flight */
    role role;
    double seen;   /* mono_now() when the request line was in */
} upload;

static enum MHD_Result send_response(struct MHD_Connection *conn, const char *method, const char *path,
                                     http_response *rs)
{
    struct MHD_Response *r;
    if (rs->file) {
        int fd = open(rs->file, O_RDONLY | O_CLOEXEC);
        if (rs->file_temporary) unlink(rs->file);
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) != 0) {
            close(fd);
            fd = -1;
        }
        r = fd >= 0 ? MHD_create_response_from_fd((size_t)st.st_size, fd) : NULL; /* MHD closes fd */
        free((char *)rs->file);
    } else {
        r = MHD_create_response_from_buffer(rs->len, rs->body ? rs->body : (char *)"",
                                            rs->body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
        rs->body = NULL;
    }
    free(rs->body);
    if (!r) return MHD_NO;
    if (rs->content_type) MHD_add_response_header(r, "Content-Type", rs->content_type);
    if (rs->location[0]) MHD_add_response_header(r, "Location", rs->location);
    if (rs->etag[0]) MHD_add_response_header(r, "ETag", rs->etag);
    if (rs->retry_after[0]) MHD_add_response_header(r, "Retry-After", rs->retry_after);
    if (rs->allow[0]) MHD_add_response_header(r, "Allow", rs->allow);
    if (rs->disposition[0]) MHD_add_response_header(r, "Content-Disposition", rs->disposition);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    if (rs->status == 401) MHD_add_response_header(r, "WWW-Authenticate", "Bearer");
    if (rs->status == 426) {
        MHD_add_response_header(r, "Upgrade", "websocket");
        MHD_add_response_header(r, "Sec-WebSocket-Version", "13"); /* RFC 6455 4.4 */
    }
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned)rs->status, r);
    MHD_destroy_response(r);
    metrics_http(rs->status);
    if (rs->status >= 500)
        log_event(LOG_WARN, "http", "method=%s path=%s status=%d", method, log_q(path), rs->status);
    else
        log_event(LOG_DEBUG, "http", "method=%s path=%s status=%d", method, log_q(path), rs->status);
    return ret;
}

static const char *mhd_lookup(void *ctx, int kind, const char *name)
{
    return MHD_lookup_connection_value(ctx, kind == HTTP_QUERY ? MHD_GET_ARGUMENT_KIND : MHD_HEADER_KIND, name);
}

/* What the headers alone decide (http_admit), and room for the body among the bodies in
 * flight. 0 to go on; else rs holds the refusal. */
static int admit(http_server *h, struct MHD_Connection *conn, upload *up, http_response *rs)
{
    unsigned long long length = 0;
    if (http_admit(h->d, mhd_lookup, conn, &up->role, &length, rs) != 0) return -1;
    if (length && http_guard_reserve_body(h->guard, (size_t)length) != 0) {
        reply_problem(rs, PROBLEM_BUSY, "too many request bodies in flight", "try again shortly", NULL);
        snprintf(rs->retry_after, sizeof rs->retry_after, "1");
        return -1;
    }
    up->reserved = (size_t)length;
    return 0;
}

/* Every request's state, made when its request line is in: the stream path's raw target is
 * only seen here (the handler gets the path with the query taken apart). */
static void *uri_seen(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)cls;
    (void)conn;
    upload *up = calloc(1, sizeof *up);
    char id[80];
    if (up) up->seen = mono_now();
    if (up && stream_session_id_of(uri, id, sizeof id) == 0) up->target = strdup(uri);
    return up;
}

/* A WebSocket upgrade on a stream path: the stream server decides (stream_bridge.h), exactly
 * as on its own port; the REST port's own admission (http_admit) does not apply. */
static enum MHD_Result stream_upgrade(http_server *h, struct MHD_Connection *conn, const char *method, const char *url,
                                      upload *up)
{
    http_response rs = {0};
    struct MHD_Response *r = NULL;
    up->answered = 1; /* whatever follows the request is the stream's, never a body */
    if (MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length") ||
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Transfer-Encoding")) {
        reply_problem(&rs, PROBLEM_INVALID_QUERY, "a stream request has no body", NULL, NULL);
        return send_response(conn, method, url, &rs);
    }
    if (!bridge_handshake(h->bridge, conn, up->target, &up->upgraded, &r, &up->bridged, &rs))
        return send_response(conn, method, url, &rs);
    const enum MHD_Result ret = MHD_queue_response(conn, MHD_HTTP_SWITCHING_PROTOCOLS, r);
    MHD_destroy_response(r);
    /* The stream's handler holds this connection's thread until the stream ends (stream_bridge.c
     * says why), and libmicrohttpd says the request completed only then: the stream is no
     * request in flight for the drain to wait on, and has no request deadline. */
    if (ret == MHD_YES) {
        up->counted = 0;
        atomic_fetch_sub(&h->in_flight, 1);
        http_guard_upgraded(h->guard, conn);
    }
    metrics_http(101);
    log_event(LOG_DEBUG, "http", "method=%s path=%s status=101", method, log_q(url));
    return ret;
}

static enum MHD_Result count_host(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    (void)value;
    if (strcasecmp(key, "Host") == 0) ++*(int *)cls;
    return MHD_YES;
}

static int host_headers(struct MHD_Connection *conn)
{
    int n = 0;
    MHD_get_connection_values(conn, MHD_HEADER_KIND, count_host, &n);
    return n;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                               const char *version, const char *upload_data, size_t *upload_size, void **con_cls)
{
    (void)version;
    http_server *h = cls;
    daemon_ctx *d = h->d;
    upload *up = *con_cls;
    if (!up) return MHD_NO; /* no memory when its request line came */
    if (!up->started) {
        up->started = up->counted = 1;
        atomic_fetch_add(&h->in_flight, 1);
        http_guard_headers_done(h->guard, conn);
        if (host_headers(conn) > 1) { /* RFC 9112 3.2 */
            http_response rs = {0};
            reply_problem(&rs, PROBLEM_INVALID_QUERY, "more than one Host header",
                          "a request names its host once", NULL);
            up->answered = 1;
            return send_response(conn, method, url, &rs);
        }
        if (up->target && bridge_wants_upgrade(conn, method)) return stream_upgrade(h, conn, method, url, up);
        http_response rs = {0};
        if (admit(h, conn, up, &rs) != 0) {
            up->answered = 1;
            return send_response(conn, method, url, &rs); /* the body is never read */
        }
        return MHD_YES;
    }
    if (up->answered) {
        *upload_size = 0;
        return MHD_YES;
    }
    if (*upload_size) {
        /* the body arrives in pieces; libmicrohttpd caps nothing, so we do */
        if (!up->too_big && !up->too_busy) {
            if (up->len + *upload_size > d->cfg.max_body) {
                up->too_big = 1;
            } else if (up->len + *upload_size > up->reserved) {
                /* a chunked body: counted against the bound as it comes */
                const size_t more = up->len + *upload_size - up->reserved;
                if (http_guard_reserve_body(h->guard, more) != 0) up->too_busy = 1;
                else up->reserved += more;
            }
            if (up->too_big || up->too_busy) {
                free(up->body);
                up->body = NULL;
                up->len = up->cap = 0;
            } else {
                if (up->len + *upload_size + 1 > up->cap) {
                    size_t cap = up->cap ? up->cap : 4096;
                    while (cap < up->len + *upload_size + 1) cap *= 2;
                    char *nb = realloc(up->body, cap);
                    if (!nb) return MHD_NO;
                    up->body = nb;
                    up->cap = cap;
                }
                memcpy(up->body + up->len, upload_data, *upload_size);
                up->len += *upload_size;
                up->body[up->len] = '\0';
            }
        }
        *upload_size = 0;
        return MHD_YES;
    }
    http_guard_handling(h->guard, conn);
    http_request rq = {d, mhd_lookup, conn, method, "", up->body, up->len, up->role};
    /* the path, without the query string */
    snprintf(rq.path, sizeof rq.path, "%s", url);
    char *q = strchr(rq.path, '?');
    if (q) *q = '\0';
    http_response rs = {0};
    if (up->too_big) {
        char detail[96];
        snprintf(detail, sizeof detail, "the body is over the %zu bytes this daemon accepts", d->cfg.max_body);
        reply_problem(&rs, PROBLEM_BODY_TOO_LARGE, NULL, detail, NULL);
    } else if (up->too_busy) {
        reply_problem(&rs, PROBLEM_BUSY, "too many request bodies in flight", "try again shortly", NULL);
        snprintf(rs.retry_after, sizeof rs.retry_after, "1");
    } else if (!atomic_load(&d->ready) && http_is_write(method) && strncmp(rq.path, "/v1/", 4) == 0) {
        reply_problem(&rs, PROBLEM_NOT_READY, NULL, "the daemon is starting or draining", NULL);
        snprintf(rs.retry_after, sizeof rs.retry_after, "1");
    } else {
        http_route(&rq, &rs);
    }
    return send_response(conn, method, rq.path, &rs);
}

static void completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    http_server *h = cls;
    upload *up = *con_cls;
    const int upgraded = up && up->upgraded;
    if (up) {
        if (!upgraded && toe == MHD_REQUEST_TERMINATED_COMPLETED_OK) metrics_request_time(mono_now() - up->seen);
        if (up->counted) atomic_fetch_sub(&h->in_flight, 1);
        http_guard_release_body(h->guard, up->reserved);
        if (!up->upgraded) bridge_discard(up->bridged); /* the 101 never went out */
        free(up->target);
        free(up->body);
        free(up);
    }
    *con_cls = NULL;
    if (upgraded) http_guard_upgraded(h->guard, conn);
    else http_guard_request_done(h->guard, conn);
}

#define STREAM_GOODBYE_S 1.0 /* for the close frames still on their way out at shutdown */

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r')) msg[--n] = '\0';
    log_event(LOG_WARN, "http_server", "message=%s", log_q(msg));
}

http_server *http_start(daemon_ctx *d, char *err, size_t errlen)
{
    http_server *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->d = d;
    h->guard = http_guard_new(&d->cfg);
    if (!h->guard) {
        snprintf(err, errlen, "out of memory");
        free(h);
        return NULL;
    }
    h->bridge = bridge_start(d, err, errlen);
    if (!h->bridge) {
        http_guard_free(h->guard);
        free(h);
        return NULL;
    }
    struct addrinfo hints = {0}, *ai = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    char port[16];
    snprintf(port, sizeof port, "%d", d->cfg.http_port);
    const char *host = strcmp(d->cfg.listen_host, "*") == 0 ? NULL : d->cfg.listen_host;
    int gai = getaddrinfo(host, port, &hints, &ai);
    if (gai != 0) {
        snprintf(err, errlen, "listen address %s: %s", d->cfg.listen_host, gai_strerror(gai));
        bridge_free(h->bridge);
        http_guard_free(h->guard);
        free(h);
        return NULL;
    }
    /* a thread per connection: a slow handler (:advance, a command waiting for its step, a
     * read waiting out a slice) holds only its own connection; the connection cap bounds the
     * threads */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL |
                     MHD_USE_ITC | MHD_USE_ERROR_LOG | MHD_ALLOW_UPGRADE;
    if (ai->ai_family == AF_INET6) flags |= MHD_USE_IPv6;
    h->mhd = MHD_start_daemon(flags, (uint16_t)d->cfg.http_port, http_guard_accept, h->guard, handler, h,
                              MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
                              MHD_OPTION_SOCK_ADDR, ai->ai_addr,
                              MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)d->cfg.connection_timeout,
                              MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)d->cfg.per_ip_connections,
                              MHD_OPTION_CONNECTION_LIMIT, (unsigned)d->cfg.max_connections,
                              MHD_OPTION_NOTIFY_COMPLETED, completed, h,
                              MHD_OPTION_NOTIFY_CONNECTION, http_guard_notify, h->guard,
                              MHD_OPTION_URI_LOG_CALLBACK, uri_seen, h,
                              MHD_OPTION_END);
    freeaddrinfo(ai);
    if (!h->mhd) {
        snprintf(err, errlen, "cannot listen on %s:%d (in use, or not an address of this machine)",
                 d->cfg.listen_host, d->cfg.http_port);
        bridge_free(h->bridge);
        http_guard_free(h->guard);
        free(h);
        return NULL;
    }
    if (d->cfg.http_port == 0) {
        const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_BIND_PORT);
        if (info) d->cfg.http_port = info->port;
    }
    return h;
}

void http_quiesce(http_server *h)
{
    if (h && h->mhd) MHD_quiesce_daemon(h->mhd);
}

void http_wait_idle(http_server *h, double wait)
{
    const double end = mono_now() + wait;
    while (h && atomic_load(&h->in_flight) > 0 && mono_now() < end) {
        const struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

void http_stop(http_server *h)
{
    if (!h) return;
    /* the streams on this port first: MHD_stop_daemon needs every upgraded socket handed back
     * (the stream server, stopped before, has said its goodbye into each) */
    bridge_stop(h->bridge, STREAM_GOODBYE_S);
    if (h->mhd) MHD_stop_daemon(h->mhd);
    bridge_free(h->bridge);
    http_guard_free(h->guard);
    free(h);
}
