/* The handlers' toolkit: answers (JSON, text, problems) and what a request carries (headers,
 * query, a JSON body, a role, the stream URL it should use). Handlers and the routing call it;
 * it calls no handler. */
#include "http.h"

#include "utf8.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void reply_json(http_response *rs, int status, cJSON *o)
{
    rs->status = status;
    rs->content_type = "application/json";
    free(rs->body);
    rs->body = o ? cJSON_PrintUnformatted(o) : strdup("{}");
    rs->len = rs->body ? strlen(rs->body) : 0;
    cJSON_Delete(o);
}

void reply_text(http_response *rs, int status, const char *ctype, const char *text)
{
    rs->status = status;
    rs->content_type = ctype;
    free(rs->body);
    rs->body = strdup(text);
    rs->len = rs->body ? strlen(rs->body) : 0;
}

void reply_problem_relayed(http_response *rs, int status, problem_kind kind, const char *what,
                           const char *detail, cJSON *errors)
{
    const problem_type *p = problem_type_of(kind);
    cJSON *o = cJSON_CreateObject();
    char t[160];
    /* a URI reference resolved against the request's URL (RFC 9457 3.1.1): the daemon serves it */
    snprintf(t, sizeof t, "/problems/%s", p->slug);
    cJSON_AddStringToObject(o, "type", t);
    /* one title per type (RFC 9457 3.1.3); what this occurrence is about goes to the detail */
    cJSON_AddStringToObject(o, "title", p->title);
    cJSON_AddNumberToObject(o, "status", status);
    if (what && detail) {
        const size_t n = strlen(what) + strlen(detail) + 3;
        char *d = malloc(n);
        if (d) {
            snprintf(d, n, "%s: %s", what, detail);
            cJSON_AddStringToObject(o, "detail", d);
            free(d);
        } else {
            cJSON_AddStringToObject(o, "detail", detail);
        }
    } else if (what || detail) {
        cJSON_AddStringToObject(o, "detail", what ? what : detail);
    }
    if (errors) cJSON_AddItemToObject(o, "errors", errors);
    reply_json(rs, status, o);
    rs->content_type = "application/problem+json";
}

void reply_problem(http_response *rs, problem_kind kind, const char *what, const char *detail, cJSON *errors)
{
    reply_problem_relayed(rs, problem_type_of(kind)->status, kind, what, detail, errors);
}

void reply_not_allowed(http_response *rs, const char *allow)
{
    char detail[96];
    snprintf(detail, sizeof detail, "this resource takes %s", allow);
    reply_problem(rs, PROBLEM_METHOD_NOT_ALLOWED, NULL, detail, NULL);
    snprintf(rs->allow, sizeof rs->allow, "%s", allow);
}

const char *req_header(http_request *rq, const char *name)
{
    return rq->lookup ? rq->lookup(rq->lookup_ctx, HTTP_HEADER, name) : NULL;
}

const char *req_query(http_request *rq, const char *name)
{
    return rq->lookup ? rq->lookup(rq->lookup_ctx, HTTP_QUERY, name) : NULL;
}

cJSON *req_json(http_request *rq, http_response *rs)
{
    if (!rq->len) {
        reply_problem(rs, PROBLEM_MALFORMED_JSON, "the request body is empty", "expected a JSON object", NULL);
        return NULL;
    }
    const char *end = NULL;
    cJSON *o = cJSON_ParseWithLengthOpts(rq->body, rq->len, &end, 0);
    if (o && end) {
        /* only whitespace may follow the object */
        const char *p = end, *stop = rq->body + rq->len;
        while (p < stop && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
        if (p < stop) {
            cJSON_Delete(o);
            o = NULL;
            end = p;
        }
    }
    if (!o || !cJSON_IsObject(o)) {
        size_t at = end ? (size_t)(end - rq->body) : 0;
        int line = 1, col = 1;
        for (size_t i = 0; i < at && i < rq->len; i++) {
            if (rq->body[i] == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        char detail[160];
        if (o)
            snprintf(detail, sizeof detail, "the body must be a JSON object");
        else
            snprintf(detail, sizeof detail, "malformed JSON at line %d, column %d (byte %zu)", line, col, at);
        cJSON *err = cJSON_CreateArray();
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "path", "");
        cJSON_AddStringToObject(e, "message", detail);
        cJSON_AddNumberToObject(e, "line", line);
        cJSON_AddNumberToObject(e, "column", col);
        cJSON_AddItemToArray(err, e);
        reply_problem(rs, PROBLEM_MALFORMED_JSON, "the request body is not a JSON object", detail, err);
        cJSON_Delete(o);
        return NULL;
    }
    /* text that is not UTF-8 would make every later answer that repeats it invalid JSON */
    char where[256];
    if (json_find_bad_utf8(o, where, sizeof where)) {
        cJSON *err = cJSON_CreateArray();
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "path", where);
        cJSON_AddStringToObject(e, "message", "not valid UTF-8");
        cJSON_AddItemToArray(err, e);
        reply_problem(rs, PROBLEM_INVALID_REQUEST, "the request has text that is not UTF-8", where, err);
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int req_need(http_request *rq, http_response *rs, role r)
{
    if (rq->role >= r) return 1;
    if (rq->role == ROLE_NONE)
        reply_problem(rs, PROBLEM_UNAUTHORIZED, "a bearer token is required",
                      "send Authorization: Bearer TOKEN", NULL);
    else
        reply_problem(rs, PROBLEM_FORBIDDEN, "this token's role may not do that",
                      r == ROLE_OPERATOR ? "needs an operator token" : "needs a viewer token", NULL);
    return 0;
}

/* Behind a TLS proxy that says so (X-Forwarded-Proto: https, as nginx, Caddy and Traefik
 * send it), the client reached us over https: its streams are wss://. Believing it needs no
 * trust: it only changes what this answer tells the one who sent it. */
static int forwarded_https(http_request *rq)
{
    const char *p = req_header(rq, "X-Forwarded-Proto");
    if (!p) return 0;
    while (*p == ' ' || *p == '\t') p++;
    const size_t n = strcspn(p, ", \t"); /* the first proxy's, when several are listed */
    return (n == 5 && strncasecmp(p, "https", 5) == 0) || (n == 3 && strncasecmp(p, "wss", 3) == 0);
}

void stream_url_for(http_request *rq, const char *id, char *out, size_t len)
{
    if (rq->d->cfg.public_stream_url[0]) {
        /* what the operator says clients reach */
        snprintf(out, len, "%s/v1/sessions/%s/stream", rq->d->cfg.public_stream_url, id);
        return;
    }
    /* the REST port serves streams: the address the client used for this request, port and
     * all, reaches them too, through a port mapping, a tunnel or a proxy (http_admit has
     * checked the Host) */
    const char *host = req_header(rq, "Host");
    char h[300];
    if (host && *host && strcspn(host, " \t/?#@\\\"") == strlen(host)) {
        snprintf(h, sizeof h, "%s", host);
    } else if (strchr(rq->d->cfg.listen_host, ':')) {
        snprintf(h, sizeof h, "[%s]:%d", rq->d->cfg.listen_host, rq->d->cfg.http_port);
    } else {
        const int any = strcmp(rq->d->cfg.listen_host, "0.0.0.0") == 0 || strcmp(rq->d->cfg.listen_host, "*") == 0;
        snprintf(h, sizeof h, "%s:%d", any ? "127.0.0.1" : rq->d->cfg.listen_host, rq->d->cfg.http_port);
    }
    snprintf(out, len, "%s://%s/v1/sessions/%s/stream", forwarded_https(rq) ? "wss" : "ws", h, id);
}
