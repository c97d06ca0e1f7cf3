/* The REST API over libmicrohttpd (api/openapi.yaml describes it). */
#ifndef RODD_HTTP_H
#define RODD_HTTP_H

#include "auth.h"
#include "daemon.h"
#include "problem_types.h"

#include <stddef.h>

struct cJSON;

typedef struct http_server http_server;

http_server *http_start(daemon_ctx *d, char *err, size_t errlen);
/* Stops accepting new connections (draining). */
void http_quiesce(http_server *h);
/* Waits at most `wait` seconds for the requests in flight to be answered. */
void http_wait_idle(http_server *h, double wait);
void http_stop(http_server *h);

/* ---- for the handlers ---- */
enum { HTTP_HEADER = 0, HTTP_QUERY = 1 };
/* A request's header or query argument by name (NULL when absent). */
typedef const char *(*http_lookup_fn)(void *ctx, int kind, const char *name);

typedef struct {
    daemon_ctx *d;
    http_lookup_fn lookup;
    void *lookup_ctx;
    const char *method;
    char path[1024];
    char *body;
    size_t len;
    role role;
} http_request;

typedef struct {
    int status;
    char *body; /* malloc'd */
    size_t len;
    const char *content_type;
    char location[512];
    char etag[64];
    char retry_after[16];
    char allow[64];      /* with a 405: the methods the resource takes */
    const char *file;    /* serve this file instead of body (malloc'd path) */
    int file_temporary;  /* delete the file once opened: the answer is all that is left of it */
    char disposition[160]; /* Content-Disposition, when set */
} http_response;

void reply_json(http_response *rs, int status, struct cJSON *o);  /* takes o */
void reply_text(http_response *rs, int status, const char *ctype, const char *text);
/* application/problem+json of a kind of problem_types.c's table, which gives its status, title
 * (the same for every answer of the kind, RFC 9457 3.1.3) and type (the URI reference
 * /problems/SLUG, which problems.c serves). The detail is "WHAT: DETAIL", or whichever of the
 * two is not NULL (what says what this answer is about, detail the particulars). */
void reply_problem(http_response *rs, problem_kind kind, const char *what, const char *detail,
                   struct cJSON *errors);
/* The same with the status another server answered (the stream server's refusal, passed on). */
void reply_problem_relayed(http_response *rs, int status, problem_kind kind, const char *what,
                           const char *detail, struct cJSON *errors);
/* 405 with the Allow header. */
void reply_not_allowed(http_response *rs, const char *allow);
const char *req_header(http_request *rq, const char *name);
const char *req_query(http_request *rq, const char *name);
/* Parses the body as a JSON object; on failure replies 400 with the position and returns NULL. */
struct cJSON *req_json(http_request *rq, http_response *rs);
/* Requires a role; replies 401/403 and returns 0 when short of it. */
int req_need(http_request *rq, http_response *rs, role r);

/* Handlers (http_health.c, http_sessions.c, http_misc.c); each fills rs. routes.c says which
 * path and method reach which. */
void h_livez(http_request *rq, http_response *rs);
void h_readyz(http_request *rq, http_response *rs);
void h_metrics(http_request *rq, http_response *rs);
void h_index(http_request *rq, http_response *rs);
void h_sessions_collection(http_request *rq, http_response *rs);
int h_session_route(http_request *rq, http_response *rs); /* 0: no such route */
void h_solve(http_request *rq, http_response *rs);
void h_examples(http_request *rq, http_response *rs, const char *name);
void h_stream_ticket(http_request *rq, http_response *rs);
void h_static(http_request *rq, http_response *rs);
/* GET /problems/{slug}: the page a problem's type names (problems.c). */
void h_problem_page(http_request *rq, http_response *rs, const char *slug);
/* GET and PATCH /v1/sessions/{id}/recording (http_recording.c). */
struct session;
void h_recording(http_request *rq, http_response *rs, struct session *s);
/* POST /v1/sessions/{id}:step (http_step.c). */
void h_step(http_request *rq, http_response *rs, struct session *s);

/* What the headers alone decide, before any of the body is read: the host and the page the
 * request comes from, the role its token gives (*who), and when a body follows
 * (*length from Content-Length) its size, its token and its type. 0 to go on; else rs holds
 * the refusal. */
int http_admit(daemon_ctx *d, http_lookup_fn lookup, void *ctx, role *who, unsigned long long *length,
               http_response *rs);
/* Routes a request whose body is in to its handler. */
void http_route(http_request *rq, http_response *rs);
/* Not GET, HEAD or OPTIONS. */
int http_is_write(const char *method);

/* The stream URL clients use for a session, from the request's Host header. */
void stream_url_for(http_request *rq, const char *id, char *out, size_t len);

#endif
