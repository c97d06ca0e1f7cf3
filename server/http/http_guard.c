#include "http_guard.h"

#include "clock.h"
#include "log.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SWEEP_PERIOD 0.25 /* s between looks at the deadlines */

typedef struct slot {
    struct slot *next, *prev;
    int fd;
    unsigned char peer[16]; /* IPv4 mapped into IPv6 */
    double deadline;        /* monotonic; 0: none (the handler runs) */
    int cut;                /* shut down for its deadline */
} slot;

struct http_guard {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t sweeper;
    int has_sweeper, stop;
    slot *slots;
    int nslots;
    double request_timeout;
    double idle_timeout; /* between requests on a kept-alive connection */
    int max_connections, reserve, reserve_per_peer;
    size_t body_bound, body_held;
};

static void peer_key(const struct sockaddr *a, unsigned char out[16])
{
    memset(out, 0, 16);
    if (a && a->sa_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)a;
        out[10] = out[11] = 0xff;
        memcpy(out + 12, &v4->sin_addr, 4);
    } else if (a && a->sa_family == AF_INET6) {
        memcpy(out, &((const struct sockaddr_in6 *)a)->sin6_addr, 16);
    }
}

/* Shuts down the connections past their deadline: their thread sees the end of the stream
 * and closes (the fd stays theirs until libmicrohttpd says CLOSED, which needs mu). */
static void *sweeper(void *arg)
{
    http_guard *g = arg;
    pthread_mutex_lock(&g->mu);
    while (!g->stop) {
        const double now = mono_now();
        for (slot *s = g->slots; s; s = s->next)
            if (!s->cut && s->deadline > 0 && now > s->deadline) {
                s->cut = 1;
                shutdown(s->fd, SHUT_RDWR);
                char ip[INET6_ADDRSTRLEN] = "?";
                inet_ntop(AF_INET6, s->peer, ip, sizeof ip);
                log_event(LOG_WARN, "http_request_timeout", "peer=%s seconds=%g", ip, g->request_timeout);
            }
        const struct timespec ts = realtime_after(SWEEP_PERIOD);
        pthread_cond_timedwait(&g->cv, &g->mu, &ts);
    }
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

http_guard *http_guard_new(const server_config *cfg)
{
    http_guard *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->request_timeout = cfg->request_timeout;
    g->idle_timeout = cfg->connection_timeout > cfg->request_timeout ? cfg->connection_timeout : cfg->request_timeout;
    g->max_connections = cfg->max_connections;
    /* an eighth of the slots (at least 4) is for peers holding fewer than 2 connections */
    g->reserve = cfg->max_connections / 8 > 4 ? cfg->max_connections / 8 : 4;
    g->reserve_per_peer = 2;
    g->body_bound = cfg->max_bodies_in_flight;
    if (g->request_timeout > 0) g->has_sweeper = pthread_create(&g->sweeper, NULL, sweeper, g) == 0;
    return g;
}

void http_guard_free(http_guard *g)
{
    if (!g) return;
    pthread_mutex_lock(&g->mu);
    g->stop = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    if (g->has_sweeper) pthread_join(g->sweeper, NULL);
    for (slot *s = g->slots, *n; s; s = n) {
        n = s->next;
        free(s);
    }
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    free(g);
}

enum MHD_Result http_guard_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    (void)addrlen;
    http_guard *g = cls;
    unsigned char key[16];
    peer_key(addr, key);
    pthread_mutex_lock(&g->mu);
    int mine = 0;
    for (slot *s = g->slots; s; s = s->next) mine += memcmp(s->peer, key, 16) == 0;
    const int full = g->nslots >= g->max_connections - g->reserve && mine >= g->reserve_per_peer;
    const int total = g->nslots;
    pthread_mutex_unlock(&g->mu);
    if (full) {
        char ip[INET6_ADDRSTRLEN] = "?";
        inet_ntop(AF_INET6, key, ip, sizeof ip);
        log_event(LOG_WARN, "http_refused", "peer=%s reason=\"the slots left are kept for other peers\" "
                  "connections=%d peer_connections=%d", ip, total, mine);
        return MHD_NO;
    }
    return MHD_YES;
}

void http_guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                       enum MHD_ConnectionNotificationCode code)
{
    http_guard *g = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        slot *s = calloc(1, sizeof *s);
        *socket_context = s;
        if (!s) return;
        const union MHD_ConnectionInfo *fd = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *ad = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        s->fd = fd ? fd->connect_fd : -1;
        peer_key(ad ? ad->client_addr : NULL, s->peer);
        pthread_mutex_lock(&g->mu);
        s->deadline = g->request_timeout > 0 && s->fd >= 0 ? mono_now() + g->request_timeout : 0;
        s->next = g->slots;
        if (g->slots) g->slots->prev = s;
        g->slots = s;
        g->nslots++;
        pthread_mutex_unlock(&g->mu);
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        slot *s = *socket_context;
        *socket_context = NULL;
        if (!s) return;
        pthread_mutex_lock(&g->mu);
        if (s->prev) s->prev->next = s->next;
        else g->slots = s->next;
        if (s->next) s->next->prev = s->prev;
        g->nslots--;
        pthread_mutex_unlock(&g->mu);
        free(s);
    }
}

static void set_deadline(http_guard *g, struct MHD_Connection *conn, double seconds)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    slot *s = ci ? ci->socket_context : NULL;
    if (!s) return;
    pthread_mutex_lock(&g->mu);
    s->deadline = seconds > 0 && g->request_timeout > 0 && s->fd >= 0 ? mono_now() + seconds : 0;
    pthread_mutex_unlock(&g->mu);
}

void http_guard_headers_done(http_guard *g, struct MHD_Connection *conn)
{
    set_deadline(g, conn, g->request_timeout);
}

void http_guard_handling(http_guard *g, struct MHD_Connection *conn)
{
    set_deadline(g, conn, 0);
}

void http_guard_request_done(http_guard *g, struct MHD_Connection *conn)
{
    /* the next request's headers: the idle timeout's time, the idle timeout itself being reset
     * by every byte */
    set_deadline(g, conn, g->idle_timeout);
}

void http_guard_upgraded(http_guard *g, struct MHD_Connection *conn)
{
    set_deadline(g, conn, 0);
}

int http_guard_reserve_body(http_guard *g, size_t n)
{
    pthread_mutex_lock(&g->mu);
    const int ok = g->body_held + n <= g->body_bound;
    if (ok) g->body_held += n;
    pthread_mutex_unlock(&g->mu);
    return ok ? 0 : -1;
}

void http_guard_release_body(http_guard *g, size_t n)
{
    pthread_mutex_lock(&g->mu);
    g->body_held -= n <= g->body_held ? n : g->body_held;
    pthread_mutex_unlock(&g->mu);
}
