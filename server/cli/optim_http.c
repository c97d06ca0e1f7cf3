/* optim_http.h: URL parsing, one connection per request, the answer's status line, headers
 * and body (Content-Length, chunked, or to the close). */
#include "optim_http.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    char host[256], port[8], prefix[512];
} url_parts;

static int parse_url(const char *url, url_parts *u, char *err, size_t errlen)
{
    if (strncmp(url, "http://", 7) != 0) {
        snprintf(err, errlen, "%s: only http://HOST[:PORT] daemons are supported", url);
        return -1;
    }
    const char *h = url + 7, *slash = strchr(h, '/');
    size_t hl = slash ? (size_t)(slash - h) : strlen(h);
    const char *colon = memchr(h, ':', hl);
    size_t namel = colon ? (size_t)(colon - h) : hl;
    if (namel == 0 || namel >= sizeof u->host) {
        snprintf(err, errlen, "%s: no host", url);
        return -1;
    }
    memcpy(u->host, h, namel);
    u->host[namel] = '\0';
    snprintf(u->port, sizeof u->port, "80");
    if (colon) {
        size_t pl = hl - namel - 1;
        if (pl == 0 || pl >= sizeof u->port || strspn(colon + 1, "0123456789") < pl) {
            snprintf(err, errlen, "%s: the port is not a number", url);
            return -1;
        }
        memcpy(u->port, colon + 1, pl);
        u->port[pl] = '\0';
        const long n = strtol(u->port, NULL, 10);
        if (n < 1 || n > 65535) {
            snprintf(err, errlen, "%s: the port must be 1 to 65535", url);
            return -1;
        }
    }
    /* a prefix without its trailing slash: paths start with one */
    snprintf(u->prefix, sizeof u->prefix, "%s", slash ? slash : "");
    size_t l = strlen(u->prefix);
    while (l && u->prefix[l - 1] == '/') u->prefix[--l] = '\0';
    return 0;
}

int optim_http_check_url(const char *url, char *err, size_t errlen)
{
    url_parts u;
    return parse_url(url, &u, err, errlen);
}

static int connect_to(const url_parts *u, char *err, size_t errlen)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai = NULL;
    int rc = getaddrinfo(u->host, u->port, &hints, &ai);
    if (rc != 0) {
        snprintf(err, errlen, "%s:%s: %s", u->host, u->port, gai_strerror(rc));
        return -1;
    }
    int fd = -1, e = 0;
    for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
            e = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(ai);
    if (fd < 0) snprintf(err, errlen, "cannot connect to %s:%s: %s", u->host, u->port, strerror(e ? e : ECONNREFUSED));
    return fd;
}

static int send_all(int fd, const char *b, size_t n)
{
    while (n) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Everything the peer sends until it closes (the request asked it to), or -1 when that takes
 * over timeout_s in all (a peer sending a byte now and then cannot hold it), -2 past
 * OPTIM_HTTP_MAX_ANSWER bytes. */
static int read_all(int fd, double timeout_s, char **out, size_t *len)
{
    size_t cap = 8192, n = 0;
    char *b = malloc(cap);
    if (!b) return -1;
    const double end = now_s() + timeout_s;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        const double left = end - now_s();
        int pr = left > 0 ? poll(&p, 1, (int)(left * 1000) + 1) : 0;
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) {
            free(b);
            return -1;
        }
        if (cap - n < 4096) {
            char *g = realloc(b, cap * 2);
            if (!g) {
                free(b);
                return -1;
            }
            b = g;
            cap *= 2;
        }
        ssize_t r = recv(fd, b + n, cap - n - 1, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            free(b);
            return -1;
        }
        if (r == 0) break;
        n += (size_t)r;
        if (n > OPTIM_HTTP_MAX_ANSWER) {
            free(b);
            return -2;
        }
    }
    b[n] = '\0';
    *out = b;
    *len = n;
    return 0;
}

/* Decodes a chunked body in place; -1 when it is not well formed. */
static int unchunk(char *b, size_t *len)
{
    size_t in = 0, out = 0;
    for (;;) {
        char *end;
        unsigned long sz = strtoul(b + in, &end, 16);
        char *eol = strstr(end, "\r\n");
        if (end == b + in || !eol) return -1;
        in = (size_t)(eol - b) + 2;
        if (sz == 0) break;
        /* not in + sz > *len: a size near ULONG_MAX wraps that sum around (in <= *len here) */
        if (in > *len || sz > *len - in) return -1;
        memmove(b + out, b + in, sz);
        out += sz;
        in += sz + 2;
        if (in > *len) return -1;
    }
    b[out] = '\0';
    *len = out;
    return 0;
}

int optim_http_request(const char *url, const char *method, const char *path, const char *body, const char *token,
                       double timeout_s, optim_http_reply *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    url_parts u;
    if (parse_url(url, &u, err, errlen) != 0) return -1;
    int fd = connect_to(&u, err, errlen);
    if (fd < 0) return -1;
    size_t blen = body ? strlen(body) : 0;
    char head[2048];
    int hn = snprintf(head, sizeof head,
                      "%s %s%s HTTP/1.1\r\nHost: %s:%s\r\nAccept: application/json\r\nConnection: close\r\n"
                      "%s%s%s%s"
                      "Content-Length: %zu\r\n\r\n",
                      method, u.prefix, path, u.host, u.port, token ? "Authorization: Bearer " : "", token ? token : "",
                      token ? "\r\n" : "", body ? "Content-Type: application/json\r\n" : "", blen);
    char *raw = NULL;
    size_t n = 0;
    int rc = -1, rd;
    if (hn < 0 || (size_t)hn >= sizeof head || send_all(fd, head, (size_t)hn) != 0 ||
        (blen && send_all(fd, body, blen) != 0)) {
        snprintf(err, errlen, "%s %s%s: cannot send the request", method, url, path);
    } else if ((rd = read_all(fd, timeout_s, &raw, &n)) != 0) {
        if (rd == -2)
            snprintf(err, errlen, "%s %s%s: the answer is longer than %zu bytes", method, url, path,
                     OPTIM_HTTP_MAX_ANSWER);
        else
            snprintf(err, errlen, "%s %s%s: no answer within %g s", method, url, path, timeout_s);
    } else {
        char *sep = strstr(raw, "\r\n\r\n");
        int status = 0;
        if (!sep || sscanf(raw, "HTTP/1.%*d %d", &status) != 1) {
            snprintf(err, errlen, "%s %s%s: the answer is not HTTP", method, url, path);
        } else {
            *sep = '\0';
            int chunked = 0;
            for (char *h = strstr(raw, "\r\n"); h && h < sep; h = strstr(h + 2, "\r\n"))
                if (strncasecmp(h + 2, "Transfer-Encoding:", 18) == 0 && strstr(h + 20, "chunked")) chunked = 1;
            size_t off = (size_t)(sep + 4 - raw), blen2 = n - off;
            memmove(raw, raw + off, blen2);
            raw[blen2] = '\0';
            if (chunked && unchunk(raw, &blen2) != 0) {
                snprintf(err, errlen, "%s %s%s: a malformed chunked body", method, url, path);
            } else {
                r->status = status;
                r->body = raw;
                r->len = blen2;
                raw = NULL;
                rc = 0;
            }
        }
    }
    free(raw);
    close(fd);
    return rc;
}

void optim_http_free(optim_http_reply *r)
{
    free(r->body);
    r->body = NULL;
    r->len = 0;
}
