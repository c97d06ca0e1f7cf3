/* A small HTTP/1.1 client for rodd optimize's --daemon: a connection kept alive across
 * requests (optim_http_conn, one per worker thread and daemon), or one request a connection
 * (optim_http_request, Connection: close); plain http:// only, the body read to its
 * Content-Length, to the end of its chunks or to the connection's close. Enough to talk to a
 * rodd daemon; no library. */
#ifndef RODD_OPTIM_HTTP_H
#define RODD_OPTIM_HTTP_H

#include <stddef.h>

typedef struct {
    int status;   /* the HTTP status; 0 when no answer came */
    char *body;   /* NUL-terminated, malloc'd (the caller frees it with optim_http_free) */
    size_t len;
} optim_http_reply;

/* Whether URL is http://HOST[:PORT][/PREFIX]: 0, or -1 with the reason in err. */
int optim_http_check_url(const char *url, char *err, size_t errlen);
/* METHOD URL+PATH with body (NULL: none; JSON otherwise) and a bearer token (NULL: none),
 * waiting at most timeout_s for the whole answer. 0 with r filled (any status), or -1 with the
 * reason in err (no connection, a timeout, an answer that is not HTTP or is too long). */
int optim_http_request(const char *url, const char *method, const char *path, const char *body, const char *token,
                       double timeout_s, optim_http_reply *r, char *err, size_t errlen);
void optim_http_free(optim_http_reply *r);

/* A connection to one daemon, kept open between requests (Connection: keep-alive): opened at
 * its first request, and again when the daemon has closed it meanwhile (a request that finds
 * it closed before any answer is sent once more on a new one), or after an answer that ends
 * it (Connection: close, a body to the close, an error). One thread at a time. NULL with the
 * reason in err for a URL optim_http_check_url refuses. */
typedef struct optim_http_conn optim_http_conn;
optim_http_conn *optim_http_conn_new(const char *url, char *err, size_t errlen);
void optim_http_conn_free(optim_http_conn *c);
/* As optim_http_request, on c. */
int optim_http_conn_request(optim_http_conn *c, const char *method, const char *path, const char *body,
                            const char *token, double timeout_s, optim_http_reply *r, char *err, size_t errlen);
const char *optim_http_conn_url(const optim_http_conn *c);
/* The connections c has opened so far (1 while one connection serves every request). */
long optim_http_conn_opened(const optim_http_conn *c);

/* The longest answer read (64 MiB: a daemon's answers here are kilobytes); a longer one is an
 * error, so a peer that sends without end cannot exhaust the memory. */
#define OPTIM_HTTP_MAX_ANSWER ((size_t)64 << 20)

#endif
