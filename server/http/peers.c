/* GET /v1/sessions?scope=local of each peer daemon: a blocking HTTP/1.0 client (HTTP/1.0 so
 * the answer is never chunked, and the connection's close ends it), one peer after another;
 * the group is a few pods on one network, so a few milliseconds each. */
#include "peers.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PEER_MAX_ANSWER (16u << 20) /* a thousand sessions' descriptions, with room */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Waits for fd to be ready for events until deadline; 1 ready, 0 not. */
static int wait_fd(int fd, short events, double deadline)
{
    for (;;) {
        const double left = deadline - now();
        if (left <= 0) return 0;
        struct pollfd p = {fd, events, 0};
        const int r = poll(&p, 1, (int)(left * 1000) + 1);
        if (r > 0) return 1;
        if (r < 0 && errno != EINTR) return 0;
    }
}

static int connect_to(const char *hostport, double deadline)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    if (!colon || (size_t)(colon - hostport) >= sizeof host) return -1;
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = '\0';
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0) return -1;
    int fd = -1;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
        int err = 0;
        socklen_t len = sizeof err;
        if (errno != EINPROGRESS || !wait_fd(fd, POLLOUT, deadline) ||
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    return fd;
}

/* The body of a 200 answer to GET path, malloc'd; NULL on any failure. */
static char *http_get(const char *hostport, const char *path, const char *host, const char *authorization,
                      double timeout)
{
    const double deadline = now() + timeout;
    int fd = connect_to(hostport, deadline);
    if (fd < 0) return NULL;
    char req[4096];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: %s\r\n%s%s%sAccept: application/json\r\n\r\n", path,
                     host && *host ? host : hostport, authorization ? "Authorization: " : "",
                     authorization ? authorization : "", authorization ? "\r\n" : "");
    char *buf = NULL;
    if (n <= 0 || (size_t)n >= sizeof req) goto fail;
    for (int sent = 0; sent < n;) {
        if (!wait_fd(fd, POLLOUT, deadline)) goto fail;
        ssize_t w = send(fd, req + sent, (size_t)(n - sent), MSG_NOSIGNAL);
        if (w < 0 && errno != EAGAIN && errno != EINTR) goto fail;
        if (w > 0) sent += (int)w;
    }
    size_t len = 0, cap = 65536;
    buf = malloc(cap + 1);
    if (!buf) goto fail;
    for (;;) {
        if (!wait_fd(fd, POLLIN, deadline)) goto fail;
        if (len == cap) {
            if (cap >= PEER_MAX_ANSWER) goto fail;
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) goto fail;
            buf = nb;
            cap *= 2;
        }
        ssize_t r = recv(fd, buf + len, cap - len, 0);
        if (r == 0) break;
        if (r < 0) {
            if (errno == EAGAIN || errno == EINTR) continue;
            goto fail;
        }
        len += (size_t)r;
    }
    close(fd);
    buf[len] = '\0';
    const char *body = strstr(buf, "\r\n\r\n");
    if (!body || strncmp(buf, "HTTP/1.", 7) != 0 || strncmp(buf + 8, " 200", 4) != 0) {
        free(buf);
        return NULL;
    }
    body += 4;
    memmove(buf, body, len - (size_t)(body - buf) + 1);
    return buf;
fail:
    free(buf);
    close(fd);
    return NULL;
}

int peers_sessions(const char *peers, int self, const char *host, const char *authorization, double timeout,
                   cJSON *into, cJSON *missing)
{
    int failed = 0, i = 0;
    for (const char *p = peers; p && *p; i++) {
        const char *comma = strchr(p, ',');
        const size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char peer[300];
        snprintf(peer, sizeof peer, "%.*s", (int)(n < sizeof peer ? n : sizeof peer - 1), p);
        p = comma ? comma + 1 : p + n;
        if (i == self || !peer[0]) continue;
        char *body = http_get(peer, "/v1/sessions?scope=local&page_size=1000", host, authorization, timeout);
        cJSON *o = body ? cJSON_Parse(body) : NULL;
        free(body);
        cJSON *list = cJSON_GetObjectItemCaseSensitive(o, "sessions");
        if (!cJSON_IsArray(list)) {
            failed++;
            if (missing) cJSON_AddItemToArray(missing, cJSON_CreateString(peer));
        } else {
            while (list->child) cJSON_AddItemToArray(into, cJSON_DetachItemViaPointer(list, list->child));
        }
        cJSON_Delete(o);
    }
    return failed;
}
