/* A small HTTP/1.1 client for rodd optimize's --daemon: one request a connection
 * (Connection: close), plain http:// only, the body read to its Content-Length, to the end of
 * its chunks or to the connection's close. Enough to talk to a rodd daemon; no library. */
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

/* The longest answer read (64 MiB: a daemon's answers here are kilobytes); a longer one is an
 * error, so a peer that sends without end cannot exhaust the memory. */
#define OPTIM_HTTP_MAX_ANSWER ((size_t)64 << 20)

#endif
