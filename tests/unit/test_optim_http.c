/* server/cli/optim_http.c against a one-shot server on a loopback port: the request line and
 * headers it sends (the bearer token, the body's length), and the answers it reads: a
 * Content-Length body, a chunked one, an error status; a URL it cannot use is named. */
#include <criterion/criterion.h>

#include "optim_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    int fd;
    const char *answer;
    char request[4096];
} server;

/* Accepts one connection, keeps what it was sent up to the blank line and the body, answers. */
static void *serve_once(void *arg)
{
    server *s = arg;
    int c = accept(s->fd, NULL, NULL);
    size_t n = 0;
    for (;;) {
        ssize_t r = recv(c, s->request + n, sizeof s->request - 1 - n, 0);
        if (r <= 0) break;
        n += (size_t)r;
        s->request[n] = '\0';
        char *end = strstr(s->request, "\r\n\r\n");
        const char *cl = strstr(s->request, "Content-Length: ");
        if (end && cl && n >= (size_t)(end + 4 - s->request) + (size_t)atoi(cl + 16)) break;
    }
    send(c, s->answer, strlen(s->answer), MSG_NOSIGNAL); /* the client may stop reading */
    close(c);
    return NULL;
}

static int start(server *s, const char *answer, pthread_t *th)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    s->fd = socket(AF_INET, SOCK_STREAM, 0);
    s->answer = answer;
    cr_assert_eq(bind(s->fd, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(listen(s->fd, 1), 0);
    getsockname(s->fd, (struct sockaddr *)&a, &len);
    pthread_create(th, NULL, serve_once, s);
    return ntohs(a.sin_port);
}

Test(optim_http, a_post_with_a_token_and_a_content_length_answer)
{
    server s;
    pthread_t th;
    int port = start(&s, "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"id\":\"x\"}\n", &th);
    char url[64], err[200];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", port);
    optim_http_reply r;
    cr_assert_eq(optim_http_request(url, "POST", "/v1/sessions", "{\"a\":1}", "secret-token", 5, &r, err, sizeof err), 0,
                 "%s", err);
    pthread_join(th, NULL);
    close(s.fd);
    cr_expect_eq(r.status, 201);
    cr_expect_str_eq(r.body, "{\"id\":\"x\"}\n");
    cr_expect(strncmp(s.request, "POST /v1/sessions HTTP/1.1\r\n", 28) == 0, "%s", s.request);
    cr_expect(strstr(s.request, "Authorization: Bearer secret-token\r\n") != NULL, "%s", s.request);
    cr_expect(strstr(s.request, "Content-Length: 7\r\n\r\n{\"a\":1}") != NULL, "%s", s.request);
    optim_http_free(&r);
}

Test(optim_http, a_chunked_error_answer_and_a_url_prefix)
{
    server s;
    pthread_t th;
    int port = start(&s, "HTTP/1.1 503 Service Unavailable\r\nTransfer-Encoding: chunked\r\n\r\n"
                         "5\r\n{\"a\":\r\n3\r\n42}\r\n0\r\n\r\n", &th);
    char url[64], err[200];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/pod-1", port);
    optim_http_reply r;
    cr_assert_eq(optim_http_request(url, "GET", "/readyz", NULL, NULL, 5, &r, err, sizeof err), 0, "%s", err);
    pthread_join(th, NULL);
    close(s.fd);
    cr_expect_eq(r.status, 503);
    cr_expect_str_eq(r.body, "{\"a\":42}");
    cr_expect(strncmp(s.request, "GET /pod-1/readyz HTTP/1.1\r\n", 28) == 0, "%s", s.request);
    cr_expect(strstr(s.request, "Authorization") == NULL);
    optim_http_free(&r);
}

Test(optim_http, urls_it_cannot_use_and_a_closed_port_are_named)
{
    char err[200];
    cr_expect_eq(optim_http_check_url("https://example.org", err, sizeof err), -1);
    cr_expect(strstr(err, "only http://") != NULL, "%s", err);
    cr_expect_eq(optim_http_check_url("http://host:80x", err, sizeof err), -1);
    cr_expect(strstr(err, "port is not a number") != NULL, "%s", err);
    cr_expect_eq(optim_http_check_url("http://host:8080/prefix/", err, sizeof err), 0);
    /* ports out of range (99999 was taken, and getaddrinfo wrapped it round to 34463) */
    cr_expect_eq(optim_http_check_url("http://host:99999", err, sizeof err), -1);
    cr_expect(strstr(err, "the port must be 1 to 65535") != NULL, "%s", err);
    cr_expect_eq(optim_http_check_url("http://host:0", err, sizeof err), -1);
    cr_expect_eq(optim_http_check_url("http://host:65535", err, sizeof err), 0);
    /* a port nobody listens on: a socket bound, never listening */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    bind(fd, (struct sockaddr *)&a, sizeof a);
    getsockname(fd, (struct sockaddr *)&a, &len);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", ntohs(a.sin_port));
    optim_http_reply r;
    cr_expect_eq(optim_http_request(url, "GET", "/readyz", NULL, NULL, 5, &r, err, sizeof err), -1);
    cr_expect(strstr(err, "cannot connect") != NULL, "%s", err);
    close(fd);
}

/* A daemon whose chunk size overflows (strtoul saturates): the size check wrapped around and
 * memmove ran past the buffer (rodd optimize died with munmap_chunk(): invalid pointer). */
Test(optim_http, a_chunk_size_past_the_body_is_malformed)
{
    static const char *const answers[] = {
        "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffffff\r\n{}\r\n0\r\n\r\n",
        "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n{}\r\n0\r\n\r\n",
        "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffe\r\n{}\r\n0\r\n\r\n",
    };
    for (size_t k = 0; k < sizeof answers / sizeof *answers; k++) {
        server s;
        pthread_t th;
        int port = start(&s, answers[k], &th);
        char url[64], err[200] = "";
        snprintf(url, sizeof url, "http://127.0.0.1:%d/", port);
        optim_http_reply r;
        cr_expect_eq(optim_http_request(url, "POST", "/v1/sessions", "{}", NULL, 5, &r, err, sizeof err), -1);
        pthread_join(th, NULL);
        close(s.fd);
        cr_expect(strstr(err, "a malformed chunked body") != NULL, "%s", err);
    }
}

/* A peer that never stops sending: the answer is refused past OPTIM_HTTP_MAX_ANSWER (rodd
 * optimize grew to 5 GB in 24 s against a daemon streaming an endless body). */
Test(optim_http, an_answer_past_the_cap_is_refused)
{
    const size_t n = OPTIM_HTTP_MAX_ANSWER + 4096;
    char *big = malloc(n + 1);
    cr_assert_not_null(big);
    const char *head = "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n\r\n";
    memset(big, ' ', n);
    memcpy(big, head, strlen(head));
    big[n] = '\0';
    server s;
    pthread_t th;
    int port = start(&s, big, &th);
    char url[64], err[200] = "";
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", port);
    optim_http_reply r;
    cr_expect_eq(optim_http_request(url, "POST", "/v1/solve", "{}", NULL, 5, &r, err, sizeof err), -1);
    close(s.fd);
    pthread_join(th, NULL);
    cr_expect(strstr(err, "bytes") != NULL, "%s", err);
    free(big);
}

/* A peer that sends a byte every 0.2 s: timeout_s bounds the whole answer, not each read (it
 * held an evaluation as long as the bytes kept coming). */
static void *drip(void *arg)
{
    server *s = arg;
    int c = accept(s->fd, NULL, NULL);
    recv(c, s->request, sizeof s->request - 1, 0);
    const char *head = "HTTP/1.1 200 OK\r\n\r\n";
    send(c, head, strlen(head), MSG_NOSIGNAL);
    for (int k = 0; k < 20 && send(c, " ", 1, MSG_NOSIGNAL) == 1; k++) usleep(200000);
    close(c);
    return NULL;
}

Test(optim_http, timeout_bounds_the_whole_answer)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    server s;
    s.fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_eq(bind(s.fd, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(listen(s.fd, 1), 0);
    getsockname(s.fd, (struct sockaddr *)&a, &len);
    pthread_t th;
    pthread_create(&th, NULL, drip, &s);
    char url[64], err[200] = "";
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", ntohs(a.sin_port));
    optim_http_reply r;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cr_expect_eq(optim_http_request(url, "GET", "/readyz", NULL, NULL, 1.0, &r, err, sizeof err), -1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double took = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    cr_expect(took < 2.5, "took %g s", took);
    cr_expect(strstr(err, "no answer within 1 s") != NULL, "%s", err);
    pthread_join(th, NULL);
    close(s.fd);
}

/* ---- keep-alive (optim_http_conn) ---- */
/* A server that answers `total` requests, at most per_conn on one connection before it closes
 * that connection without saying so (as a daemon's idle timeout does), and counts the
 * connections it accepted. Its answers take turns: a Content-Length body, a chunked one, and a
 * 204 without a body, each naming the request's index. */
typedef struct {
    int fd, total, per_conn;
    int accepted, served;
} ka_server;

static int read_request(int c, char *buf, size_t cap)
{
    size_t n = 0;
    for (;;) {
        ssize_t r = recv(c, buf + n, cap - 1 - n, 0);
        if (r <= 0) return -1;
        n += (size_t)r;
        buf[n] = '\0';
        char *end = strstr(buf, "\r\n\r\n");
        const char *cl = strstr(buf, "Content-Length: ");
        if (end && (!cl || n >= (size_t)(end + 4 - buf) + (size_t)atoi(cl + 16))) return 0;
    }
}

static void *serve_keepalive(void *arg)
{
    ka_server *s = arg;
    char req[4096], ans[512];
    while (s->served < s->total) {
        int c = accept(s->fd, NULL, NULL);
        if (c < 0) break;
        s->accepted++;
        for (int k = 0; k < s->per_conn && s->served < s->total; k++) {
            if (read_request(c, req, sizeof req) != 0) break;
            const int i = s->served++;
            char body[32];
            snprintf(body, sizeof body, "{\"i\":%d}", i);
            if (i % 3 == 0)
                snprintf(ans, sizeof ans, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n%s", strlen(body), body);
            else if (i % 3 == 1)
                snprintf(ans, sizeof ans, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n%.3s\r\n%zx\r\n%s\r\n0\r\n\r\n",
                         body, strlen(body) - 3, body + 3);
            else
                snprintf(ans, sizeof ans, "HTTP/1.1 204 No Content\r\n\r\n");
            send(c, ans, strlen(ans), MSG_NOSIGNAL);
        }
        close(c);
    }
    return NULL;
}

static int start_keepalive(ka_server *s, int total, int per_conn, pthread_t *th)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    *s = (ka_server){.fd = socket(AF_INET, SOCK_STREAM, 0), .total = total, .per_conn = per_conn};
    cr_assert_eq(bind(s->fd, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(listen(s->fd, 4), 0);
    getsockname(s->fd, (struct sockaddr *)&a, &len);
    pthread_create(th, NULL, serve_keepalive, s);
    return ntohs(a.sin_port);
}

/* n requests on one optim_http_conn, each answer checked: its index's body, or none (204) */
static void requests(optim_http_conn *c, int n)
{
    for (int i = 0; i < n; i++) {
        optim_http_reply r;
        char err[200] = "", want[32];
        cr_assert_eq(optim_http_conn_request(c, i % 2 ? "GET" : "POST", "/v1/solve", i % 2 ? NULL : "{\"x\":1}", NULL, 5,
                                             &r, err, sizeof err),
                     0, "request %d: %s", i, err);
        snprintf(want, sizeof want, "{\"i\":%d}", i);
        cr_expect_eq(r.status, i % 3 == 2 ? 204 : 200, "request %d", i);
        cr_expect_str_eq(r.body, i % 3 == 2 ? "" : want, "request %d", i);
        optim_http_free(&r);
    }
}

Test(optim_http, several_requests_go_through_one_connection)
{
    ka_server s;
    pthread_t th;
    int port = start_keepalive(&s, 7, 100, &th);
    char url[64], err[200];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
    optim_http_conn *c = optim_http_conn_new(url, err, sizeof err);
    cr_assert_not_null(c, "%s", err);
    requests(c, 7);
    cr_expect_eq(optim_http_conn_opened(c), 1);
    optim_http_conn_free(c); /* closes it: the server's loop ends */
    pthread_join(th, NULL);
    close(s.fd);
    cr_expect_eq(s.accepted, 1, "the server saw %d connections", s.accepted);
    cr_expect_eq(s.served, 7);
}

Test(optim_http, a_connection_the_server_closed_is_opened_again)
{
    ka_server s;
    pthread_t th;
    int port = start_keepalive(&s, 7, 2, &th); /* closes after every second answer */
    char url[64], err[200];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
    optim_http_conn *c = optim_http_conn_new(url, err, sizeof err);
    cr_assert_not_null(c, "%s", err);
    requests(c, 7);
    cr_expect_eq(optim_http_conn_opened(c), 4, "opened %ld", optim_http_conn_opened(c));
    optim_http_conn_free(c);
    pthread_join(th, NULL);
    close(s.fd);
    cr_expect_eq(s.accepted, 4, "the server saw %d connections", s.accepted);
    cr_expect_eq(s.served, 7, "each request answered once");
}

Test(optim_http, a_keep_alive_request_says_so_and_a_one_shot_says_close)
{
    server s;
    pthread_t th;
    int port = start(&s, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", &th);
    char url[64], err[200];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
    optim_http_conn *c = optim_http_conn_new(url, err, sizeof err);
    optim_http_reply r;
    cr_assert_eq(optim_http_conn_request(c, "GET", "/readyz", NULL, NULL, 5, &r, err, sizeof err), 0, "%s", err);
    pthread_join(th, NULL);
    close(s.fd);
    cr_expect(strstr(s.request, "Connection: keep-alive\r\n") != NULL, "%s", s.request);
    cr_expect_str_eq(r.body, "{}");
    optim_http_free(&r);
    optim_http_conn_free(c);
    port = start(&s, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", &th);
    snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
    cr_assert_eq(optim_http_request(url, "GET", "/readyz", NULL, NULL, 5, &r, err, sizeof err), 0, "%s", err);
    pthread_join(th, NULL);
    close(s.fd);
    cr_expect(strstr(s.request, "Connection: close\r\n") != NULL, "%s", s.request);
    optim_http_free(&r);
}
