/* optim_http.h: URL parsing, a connection kept alive across requests (opened again when the
 * daemon has closed it), the answer's status line, headers and body (Content-Length, chunked,
 * or to the close). */
#include "optim_http.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
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
            continue;
        }
        /* A request goes out whole at once; on a kept-alive connection Nagle's algorithm
         * would otherwise hold a short tail until the daemon's delayed ACK (40 ms a request
         * measured, five times the wall of 224 statics evaluations). */
        const int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
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

/* The first pl bytes of pat in b[0..n), or NULL (memmem is GNU's). */
static const char *find(const char *b, size_t n, const char *pat, size_t pl)
{
    for (size_t i = 0; i + pl <= n; i++)
        if (b[i] == pat[0] && memcmp(b + i, pat, pl) == 0) return b + i;
    return NULL;
}

/* Where a chunked body that starts at b (n bytes) ends: its length with the last chunk's
 * "0\r\n" and the trailer's blank line, 0 while it is incomplete, -1 when it is malformed. */
static long chunked_end(const char *b, size_t n)
{
    size_t in = 0;
    for (;;) {
        const char *eol = find(b + in, n - in, "\r\n", 2);
        if (!eol) return 0;
        char *end;
        unsigned long sz = strtoul(b + in, &end, 16);
        if (end == b + in || end > eol) return -1;
        in = (size_t)(eol - b) + 2;
        if (sz == 0) { /* trailers, then a blank line */
            for (;;) {
                const char *t = find(b + in, n - in, "\r\n", 2);
                if (!t) return 0;
                const int blank = t == b + in;
                in = (size_t)(t - b) + 2;
                if (blank) return (long)in;
            }
        }
        if (sz > OPTIM_HTTP_MAX_ANSWER) return -1;
        if (sz + 2 > n - in) return 0;
        in += sz + 2;
    }
}

/* The header value of name in the header block h (up to the blank line), or NULL. */
static const char *header(const char *h, const char *name)
{
    const size_t l = strlen(name);
    for (const char *p = strstr(h, "\r\n"); p && p[2] != '\r'; p = strstr(p + 2, "\r\n"))
        if (strncasecmp(p + 2, name, l) == 0 && p[2 + l] == ':') {
            const char *v = p + 3 + l;
            while (*v == ' ' || *v == '\t') v++;
            return v;
        }
    return NULL;
}

/* One answer on fd, all of it: the headers, then the body to its Content-Length, to the end of
 * its chunks, or (neither given) until the peer closes, which also leaves the connection
 * unusable (*reusable 0, as does "Connection: close"). 0 with the message in *out (*len
 * bytes); -1 when it takes over timeout_s in all (a peer sending a byte now and then cannot
 * hold it) or the peer closes mid-answer, -2 past OPTIM_HTTP_MAX_ANSWER bytes, -3 when the
 * peer closed before sending a byte (a kept-alive connection it had closed: worth a retry),
 * -4 a malformed chunked body. */
static int read_answer(int fd, double timeout_s, int head_only, char **out, size_t *len, int *reusable)
{
    size_t cap = 8192, n = 0, hdr = 0;
    long body = -1;          /* the body's length once known; -1: not yet, -2: to the close */
    int chunked = 0, rc = 0;
    char *b = malloc(cap);
    if (!b) return -1;
    *reusable = 1;
    const double end = now_s() + timeout_s;
    for (;;) {
        if (!hdr) {
            const char *sep = find(b, n, "\r\n\r\n", 4);
            if (sep) {
                hdr = (size_t)(sep - b) + 4;
                char save = b[hdr];
                b[hdr] = '\0';
                int status = 0;
                sscanf(b, "HTTP/1.%*d %d", &status);
                const char *te = header(b, "Transfer-Encoding"), *cl = header(b, "Content-Length");
                const char *cn = header(b, "Connection");
                if (cn && strncasecmp(cn, "close", 5) == 0) *reusable = 0;
                if (head_only || status / 100 == 1 || status == 204 || status == 304) body = 0;
                else if (te && strncasecmp(te, "chunked", 7) == 0) chunked = 1;
                else if (cl) body = strtol(cl, NULL, 10) >= 0 ? strtol(cl, NULL, 10) : -2;
                else body = -2;
                if (body == -2) *reusable = 0;
                if (body > (long)OPTIM_HTTP_MAX_ANSWER) {
                    rc = -2;
                    break;
                }
                b[hdr] = save;
            }
        }
        if (hdr && chunked) {
            long e = chunked_end(b + hdr, n - hdr);
            if (e < 0) {
                rc = -4;
                break;
            }
            if (e > 0) {
                n = hdr + (size_t)e;
                break;
            }
        } else if (hdr && body >= 0 && n - hdr >= (size_t)body) {
            n = hdr + (size_t)body;
            break;
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        const double left = end - now_s();
        int pr = left > 0 ? poll(&p, 1, (int)(left * 1000) + 1) : 0;
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) {
            rc = -1;
            break;
        }
        if (cap - n < 4096) {
            char *g = realloc(b, cap * 2);
            if (!g) {
                rc = -1;
                break;
            }
            b = g;
            cap *= 2;
        }
        ssize_t r = recv(fd, b + n, cap - n - 1, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            rc = n ? -1 : -3;
            break;
        }
        if (r == 0) {
            if (!n) rc = -3;
            else if (!hdr || body != -2) rc = -1; /* closed mid-answer */
            *reusable = 0;
            break;
        }
        n += (size_t)r;
        if (n > OPTIM_HTTP_MAX_ANSWER) {
            rc = -2;
            break;
        }
    }
    if (rc != 0) {
        free(b);
        *reusable = 0;
        return rc;
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

struct optim_http_conn {
    char url[1024];
    url_parts u;
    int fd;       /* -1: none open */
    int keep;     /* 1: ask for keep-alive and reuse the connection */
    long opened;  /* connections opened so far */
};

optim_http_conn *optim_http_conn_new(const char *url, char *err, size_t errlen)
{
    optim_http_conn *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (parse_url(url, &c->u, err, errlen) != 0) {
        free(c);
        return NULL;
    }
    snprintf(c->url, sizeof c->url, "%s", url);
    c->fd = -1;
    c->keep = 1;
    return c;
}

void optim_http_conn_free(optim_http_conn *c)
{
    if (!c) return;
    if (c->fd >= 0) close(c->fd);
    free(c);
}

const char *optim_http_conn_url(const optim_http_conn *c) { return c->url; }
long optim_http_conn_opened(const optim_http_conn *c) { return c->opened; }

static void drop(optim_http_conn *c)
{
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
}

int optim_http_conn_request(optim_http_conn *c, const char *method, const char *path, const char *body,
                            const char *token, double timeout_s, optim_http_reply *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    const char *url = c->url;
    const url_parts *u = &c->u;
    size_t blen = body ? strlen(body) : 0;
    char head[2048];
    int hn = snprintf(head, sizeof head,
                      "%s %s%s HTTP/1.1\r\nHost: %s:%s\r\nAccept: application/json\r\nConnection: %s\r\n"
                      "%s%s%s%s"
                      "Content-Length: %zu\r\n\r\n",
                      method, u->prefix, path, u->host, u->port, c->keep ? "keep-alive" : "close",
                      token ? "Authorization: Bearer " : "", token ? token : "", token ? "\r\n" : "",
                      body ? "Content-Type: application/json\r\n" : "", blen);
    if (hn < 0 || (size_t)hn >= sizeof head) {
        snprintf(err, errlen, "%s %s%s: the request's head is too long", method, url, path);
        return -1;
    }
    char *msg = malloc((size_t)hn + blen + 1); /* head and body in one send */
    if (!msg) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(msg, head, (size_t)hn);
    if (blen) memcpy(msg + hn, body, blen);
    char *raw = NULL;
    size_t n = 0;
    int rd = -1, reusable = 0;
    /* A kept-alive connection the daemon has closed meanwhile (its idle timeout) fails the
     * send or answers nothing at all: then once more on a new connection, as browsers do. A
     * daemon that closes on a request it had begun (it died) would see that request twice:
     * rodd optimize's are a solve, a read, or a session that is deleted after its run. */
    for (int attempt = 0; attempt < 2; attempt++) {
        const int reused = c->fd >= 0;
        if (c->fd < 0) {
            c->fd = connect_to(u, err, errlen);
            if (c->fd < 0) {
                rd = -5; /* err says why */
                break;
            }
            c->opened++;
        }
        if (send_all(c->fd, msg, (size_t)hn + blen) != 0) {
            drop(c);
            if (reused) continue;
            snprintf(err, errlen, "%s %s%s: cannot send the request", method, url, path);
            rd = -5;
            break;
        }
        rd = read_answer(c->fd, timeout_s, strcmp(method, "HEAD") == 0, &raw, &n, &reusable);
        if (rd == -3 && reused) {
            drop(c);
            continue;
        }
        break;
    }
    free(msg);
    if (rd != 0 || !reusable || !c->keep) drop(c);
    if (rd == -5) return -1;
    if (rd != 0) {
        if (rd == -2)
            snprintf(err, errlen, "%s %s%s: the answer is longer than %zu bytes", method, url, path,
                     OPTIM_HTTP_MAX_ANSWER);
        else if (rd == -4)
            snprintf(err, errlen, "%s %s%s: a malformed chunked body", method, url, path);
        else if (rd == -3)
            snprintf(err, errlen, "%s %s%s: the connection closed without an answer", method, url, path);
        else
            snprintf(err, errlen, "%s %s%s: no answer within %g s", method, url, path, timeout_s);
        return -1;
    }
    int rc = -1;
    char *sep = strstr(raw, "\r\n\r\n");
    int status = 0;
    if (!sep || sscanf(raw, "HTTP/1.%*d %d", &status) != 1) {
        snprintf(err, errlen, "%s %s%s: the answer is not HTTP", method, url, path);
        drop(c);
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
            drop(c);
        } else {
            r->status = status;
            r->body = raw;
            r->len = blen2;
            raw = NULL;
            rc = 0;
        }
    }
    free(raw);
    return rc;
}

int optim_http_request(const char *url, const char *method, const char *path, const char *body, const char *token,
                       double timeout_s, optim_http_reply *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    optim_http_conn *c = optim_http_conn_new(url, err, errlen);
    if (!c) return -1;
    c->keep = 0;
    int rc = optim_http_conn_request(c, method, path, body, token, timeout_s, r, err, errlen);
    optim_http_conn_free(c);
    return rc;
}

void optim_http_free(optim_http_reply *r)
{
    free(r->body);
    r->body = NULL;
    r->len = 0;
}
