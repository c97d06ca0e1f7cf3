/* A request's admission by its headers and its routing by the table of routes.c, independent
 * of the transport: what libmicrohttpd's thread calls, and what the REST fuzzer drives. */
#include "http.h"

#include "origin.h"
#include "routes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether METHOD is one of the comma-separated list ("GET, HEAD"). */
static int method_listed(const char *methods, const char *method)
{
    const size_t n = strlen(method);
    for (const char *p = methods; *p;) {
        while (*p == ' ' || *p == ',') p++;
        const size_t len = strcspn(p, ", ");
        if (len == n && strncmp(p, method, n) == 0) return 1;
        p += len;
    }
    return 0;
}

void http_route(http_request *rq, http_response *rs)
{
    for (int i = 0; i < nroutes; i++) {
        const route *r = &routes[i];
        const size_t n = strlen(r->path);
        if (r->match == ROUTE_EXACT ? strcmp(rq->path, r->path) != 0 : strncmp(rq->path, r->path, n) != 0)
            continue;
        if (r->methods && !method_listed(r->methods, rq->method)) reply_not_allowed(rs, r->methods);
        else r->handler(rq, rs);
        return;
    }
    reply_problem(rs, PROBLEM_NOT_FOUND, "no such resource", rq->path, NULL); /* the table ends with "" */
}

int http_is_write(const char *m)
{
    return strcmp(m, "GET") != 0 && strcmp(m, "HEAD") != 0 && strcmp(m, "OPTIONS") != 0;
}

int http_admit(daemon_ctx *d, http_lookup_fn lookup, void *ctx, role *who, unsigned long long *length,
               http_response *rs)
{
    const server_config *cfg = &d->cfg;
    const char *host = lookup(ctx, HTTP_HEADER, "Host");
    const char *origin = lookup(ctx, HTTP_HEADER, "Origin");
    if (!host_allowed(cfg, host)) {
        reply_problem(rs, PROBLEM_HOST_NOT_ALLOWED, "this daemon does not answer to that host name",
                      "the Host header names neither the listen address nor an allowed_hosts name", NULL);
        return -1;
    }
    if (!origin_allowed(cfg, origin, host)) {
        reply_problem(rs, PROBLEM_ORIGIN_NOT_ALLOWED, "requests from that page are not allowed",
                      "the Origin is not this daemon's own host nor in allowed_origins", NULL);
        return -1;
    }
    *who = !auth_enabled(d->auth) ? ROLE_OPERATOR : auth_bearer(d->auth, lookup(ctx, HTTP_HEADER, "Authorization"));
    const char *cl = lookup(ctx, HTTP_HEADER, "Content-Length");
    const char *te = lookup(ctx, HTTP_HEADER, "Transfer-Encoding");
    *length = cl ? strtoull(cl, NULL, 10) : 0;
    if (!*length && !te) return 0; /* no body */
    if (*length > cfg->max_body) {
        char detail[96];
        snprintf(detail, sizeof detail, "the body is over the %zu bytes this daemon accepts", cfg->max_body);
        reply_problem(rs, PROBLEM_BODY_TOO_LARGE, NULL, detail, NULL);
        return -1;
    }
    if (*who == ROLE_NONE) {
        reply_problem(rs, PROBLEM_UNAUTHORIZED, "a bearer token is required", "send Authorization: Bearer TOKEN",
                      NULL);
        return -1;
    }
    if (!media_type_is_json(lookup(ctx, HTTP_HEADER, "Content-Type"))) {
        reply_problem(rs, PROBLEM_UNSUPPORTED_MEDIA_TYPE, "request bodies are JSON",
                      "send Content-Type: application/json", NULL);
        return -1;
    }
    return 0;
}
