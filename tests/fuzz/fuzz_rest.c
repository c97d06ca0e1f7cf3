/* libFuzzer target for REST request handling: the method, path, headers and body of a request
 * go through the same admission and routing the daemon runs (http_admit, http_route) against
 * a daemon with a session pool and no sockets. Any bytes in, a documented status out, never a
 * crash, a leak or undefined behaviour.
 *
 * Input: "METHOD PATH\n" then "Name: value\n" lines, a blank line, then the body. */
#include "http.h"
#include "service.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define MAX_HEADERS 16

typedef struct {
    char *name[MAX_HEADERS], *value[MAX_HEADERS];
    int n;
    char *query;
} headers;

static daemon_ctx d;
static int ready;

static const char *lookup(void *ctx, int kind, const char *name)
{
    headers *h = ctx;
    if (kind == HTTP_QUERY) {
        /* "?a=b&c=d": the value of name */
        size_t nl = strlen(name);
        for (const char *p = h->query; p && *p;) {
            if (strncmp(p, name, nl) == 0 && p[nl] == '=') {
                static char v[256];
                const char *end = strchr(p + nl + 1, '&');
                size_t n = end ? (size_t)(end - p - nl - 1) : strlen(p + nl + 1);
                if (n >= sizeof v) n = sizeof v - 1;
                memcpy(v, p + nl + 1, n);
                v[n] = '\0';
                return v;
            }
            p = strchr(p, '&');
            if (p) p++;
        }
        return NULL;
    }
    for (int i = 0; i < h->n; i++)
        if (strcasecmp(h->name[i], name) == 0) return h->value[i];
    return NULL;
}

static void setup(void)
{
    config_defaults(&d.cfg);
    snprintf(d.cfg.examples_dir, sizeof d.cfg.examples_dir, "api/examples");
    snprintf(d.cfg.web_root, sizeof d.cfg.web_root, "web/dist");
    d.cfg.max_sessions = 4;
    d.cfg.advance_limit = 0.05; /* keeps each input short */
    d.cfg.max_body = 1 << 16;
    char err[256];
    snprintf(d.cfg.tokens, sizeof d.cfg.tokens, "operator:operator-token,viewer:viewer-token");
    d.auth = auth_new(&d.cfg, err, sizeof err);
    d.pool = pool_new(1, d.cfg.max_sessions);
    d.idem = idem_new(64, 60);
    snprintf(d.ordinal, sizeof d.ordinal, "r0");
    d.ws_port = 1;
    atomic_store(&d.ready, 1);
    ready = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ready) setup();
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    /* the request line */
    char *nl = strchr(text, '\n');
    char *line = text, *rest = nl ? nl + 1 : text + size;
    if (nl) *nl = '\0';
    char *sp = strchr(line, ' ');
    const char *method = line, *url = sp ? sp + 1 : "/";
    if (sp) *sp = '\0';
    headers h = {0};
    /* header lines until a blank one; the body is the rest (its length, with NULs, counts) */
    while (rest < text + size && *rest != '\n') {
        char *end = strchr(rest, '\n');
        if (end) *end = '\0';
        char *colon = strchr(rest, ':');
        if (colon && h.n < MAX_HEADERS) {
            *colon = '\0';
            char *v = colon + 1;
            while (*v == ' ') v++;
            h.name[h.n] = rest;
            h.value[h.n++] = v;
        }
        rest = end ? end + 1 : text + size;
    }
    if (rest < text + size) rest++; /* the blank line */
    const size_t body_len = (size_t)(text + size - rest);
    /* a body's length as the transport would tell it */
    char cl[32];
    snprintf(cl, sizeof cl, "%zu", body_len);
    int has_cl = 0;
    for (int i = 0; i < h.n; i++) has_cl |= strcasecmp(h.name[i], "Content-Length") == 0;
    if (!has_cl && body_len && h.n < MAX_HEADERS) {
        h.name[h.n] = "Content-Length";
        h.value[h.n++] = cl;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s", url);
    char *q = strchr(path, '?');
    h.query = q ? q + 1 : NULL;
    http_response rs = {0};
    role who = ROLE_NONE;
    unsigned long long length = 0;
    if (http_admit(&d, lookup, &h, &who, &length, &rs) == 0) {
        http_request rq = {&d, lookup, &h, method, "", body_len ? rest : NULL, body_len, who};
        snprintf(rq.path, sizeof rq.path, "%s", path);
        char *qq = strchr(rq.path, '?');
        if (qq) *qq = '\0';
        http_route(&rq, &rs);
    }
    if (rs.status < 200 || rs.status > 599) __builtin_trap(); /* every request gets an answer */
    if (rs.body && rs.content_type && strstr(rs.content_type, "json")) {
        /* what goes out is JSON every client can parse */
        cJSON *o = cJSON_ParseWithLength(rs.body, rs.len);
        if (!o) __builtin_trap();
        cJSON_Delete(o);
    }
    free(rs.body);
    if (rs.file && rs.file_temporary) unlink(rs.file);
    free((char *)rs.file);
    /* no session outlives its input: the next one starts from an empty pool */
    session **all;
    int n = pool_list(d.pool, &all);
    for (int i = 0; i < n; i++) {
        daemon_delete_session(&d, session_id(all[i]));
        session_release(all[i]);
    }
    free(all);
    free(text);
    return 0;
}
