#include "config.h"
#include "textfile.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void config_defaults(server_config *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->listen_host, sizeof c->listen_host, "127.0.0.1");
    c->http_port = 8080;
    c->ws_port = 0;
    snprintf(c->web_root, sizeof c->web_root, "web/dist");
    snprintf(c->examples_dir, sizeof c->examples_dir, "api/examples");
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    c->workers = n > 0 ? (int)n : 2;
    c->max_sessions = 64;
    c->max_dof = 200;
    c->max_points = 2001;
    c->max_body = 4u << 20;
    c->http_threads = 4;
    c->connection_timeout = 30;
    c->request_timeout = 10.0;
    c->max_bodies_in_flight = 32u << 20;
    c->per_ip_connections = 64;
    c->max_connections = 512;
    c->max_streams = 256;
    c->checkpoint_period = 10.0;
    c->ticket_ttl = 60.0;
    c->stream_idle_timeout = 60.0;
    c->default_rate = 30.0;
    c->max_rate = 60.0; /* a running session publishes at most 60 frames per second */
    c->advance_limit = 10.0;
    c->drain_timeout = 20.0; /* inside the 30 s an orchestrator gives by default */
    c->min_sim_rate = 1e-3;
    c->sim_rate_window = 10.0;
    c->ws_max_message = 4096;
}

int config_set_listen(server_config *c, const char *addr, char *err, size_t errlen)
{
    const char *colon = strrchr(addr, ':');
    const char *port = colon ? colon + 1 : addr;
    char *end;
    errno = 0;
    long p = strtol(port, &end, 10);
    if (!*port || *end || errno || p < 0 || p > 65535) {
        snprintf(err, errlen, "listen address \"%s\": expected HOST:PORT", addr);
        return -1;
    }
    if (colon && colon != addr) {
        size_t hl = (size_t)(colon - addr);
        if (hl >= sizeof c->listen_host) {
            snprintf(err, errlen, "listen host too long");
            return -1;
        }
        memcpy(c->listen_host, addr, hl);
        c->listen_host[hl] = '\0';
    }
    c->http_port = (int)p;
    return 0;
}

typedef enum { K_STR, K_INT, K_SIZE, K_DBL } kind;
typedef struct {
    const char *key, *env;
    kind k;
    size_t off, len;
} field;

#define F(name, env, kind) {#name, env, kind, offsetof(server_config, name), sizeof(((server_config *)0)->name)}
static const field fields[] = {
    F(listen_host, "RODD_LISTEN_HOST", K_STR),
    F(http_port, "RODD_HTTP_PORT", K_INT),
    F(ws_port, "RODD_WS_PORT", K_INT),
    F(state_dir, "RODD_STATE_DIR", K_STR),
    F(web_root, "RODD_WEB_ROOT", K_STR),
    F(examples_dir, "RODD_EXAMPLES_DIR", K_STR),
    F(tokens_file, "RODD_TOKENS_FILE", K_STR),
    F(tokens, "RODD_TOKENS", K_STR),
    F(allowed_origins, "RODD_ALLOWED_ORIGINS", K_STR),
    F(allowed_hosts, "RODD_ALLOWED_HOSTS", K_STR),
    F(public_stream_url, "RODD_PUBLIC_STREAM_URL", K_STR),
    F(workers, "RODD_WORKERS", K_INT),
    F(max_sessions, "RODD_MAX_SESSIONS", K_INT),
    F(max_dof, "RODD_MAX_DOF", K_INT),
    F(max_points, "RODD_MAX_POINTS", K_INT),
    F(max_body, "RODD_MAX_BODY", K_SIZE),
    F(http_threads, "RODD_HTTP_THREADS", K_INT),
    F(connection_timeout, "RODD_CONNECTION_TIMEOUT", K_INT),
    F(request_timeout, "RODD_REQUEST_TIMEOUT", K_DBL),
    F(max_bodies_in_flight, "RODD_MAX_BODIES_IN_FLIGHT", K_SIZE),
    F(per_ip_connections, "RODD_PER_IP_CONNECTIONS", K_INT),
    F(max_connections, "RODD_MAX_CONNECTIONS", K_INT),
    F(max_streams, "RODD_MAX_STREAMS", K_INT),
    F(checkpoint_period, "RODD_CHECKPOINT_PERIOD", K_DBL),
    F(ticket_ttl, "RODD_TICKET_TTL", K_DBL),
    F(stream_idle_timeout, "RODD_STREAM_IDLE_TIMEOUT", K_DBL),
    F(default_rate, "RODD_DEFAULT_RATE", K_DBL),
    F(max_rate, "RODD_MAX_RATE", K_DBL),
    F(advance_limit, "RODD_ADVANCE_LIMIT", K_DBL),
    F(drain_timeout, "RODD_DRAIN_TIMEOUT", K_DBL),
    F(min_sim_rate, "RODD_MIN_SIM_RATE", K_DBL),
    F(sim_rate_window, "RODD_SIM_RATE_WINDOW", K_DBL),
    F(ws_max_message, "RODD_WS_MAX_MESSAGE", K_SIZE),
    F(recording_budget, "RODD_RECORDING_BUDGET", K_SIZE),
};
#undef F

static int set_field(server_config *c, const field *f, const char *text, double num, int is_num,
                     char *err, size_t errlen)
{
    char *dst = (char *)c + f->off;
    if (f->k == K_STR) {
        if (is_num || strlen(text) >= f->len) {
            snprintf(err, errlen, "%s: must be a string of at most %zu characters", f->key, f->len - 1);
            return -1;
        }
        if (strcmp(f->key, "public_stream_url") == 0 && *text &&
            ((strncmp(text, "ws://", 5) != 0 && strncmp(text, "wss://", 6) != 0) || strpbrk(text, "?#") ||
             text[strlen(text) - 1] == '/')) {
            snprintf(err, errlen, "%s: must be a ws:// or wss:// URL without a trailing slash, query or fragment "
                     "(e.g. wss://lab.example.org/rodd), not \"%s\"", f->key, text);
            return -1;
        }
        memcpy(dst, text, strlen(text) + 1);
        return 0;
    }
    double v = num;
    if (!is_num) {
        char *end;
        v = strtod(text, &end);
        if (!*text || *end) {
            snprintf(err, errlen, "%s: \"%s\" is not a number", f->key, text);
            return -1;
        }
    }
    /* nan and inf parse as numbers, and would silently disable what they set */
    const double most = f->k == K_INT ? (double)INT_MAX : f->k == K_SIZE ? 9007199254740992.0 : DBL_MAX;
    if (!isfinite(v) || v < 0 || v > most || (f->k != K_DBL && v != floor(v))) {
        snprintf(err, errlen, "%s: must be a finite %s in [0, %.17g]", f->key, f->k == K_DBL ? "number" : "whole number",
                 most);
        return -1;
    }
    if (f->k == K_INT) *(int *)dst = (int)v;
    else if (f->k == K_SIZE) *(size_t *)dst = (size_t)v;
    else *(double *)dst = v;
    return 0;
}

int config_load_text(server_config *c, const char *name, const char *text, size_t len, char *err, size_t errlen)
{
    cJSON *o = cJSON_ParseWithLength(text, len);
    if (!cJSON_IsObject(o)) {
        snprintf(err, errlen, "config %s: not a JSON object", name);
        cJSON_Delete(o);
        return -1;
    }
    int rc = 0;
    for (cJSON *it = o->child; it && rc == 0; it = it->next) {
        const field *f = NULL;
        for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
            if (strcmp(fields[i].key, it->string) == 0) f = &fields[i];
        if (!f) {
            snprintf(err, errlen, "config %s: unknown key \"%.100s\"", name, it->string);
            rc = -1;
        } else if (cJSON_IsString(it)) {
            rc = set_field(c, f, it->valuestring, 0, 0, err, errlen);
        } else if (cJSON_IsNumber(it)) {
            rc = set_field(c, f, "", it->valuedouble, 1, err, errlen);
        } else {
            snprintf(err, errlen, "config %s: %s must be a string or a number", name, it->string);
            rc = -1;
        }
    }
    cJSON_Delete(o);
    return rc;
}

int config_load_file(server_config *c, const char *path, char *err, size_t errlen)
{
    size_t n = 0;
    char *buf = read_text_file(path, 1u << 20, &n);
    if (!buf) {
        snprintf(err, errlen, "cannot read config %s: %s", path, strerror(errno));
        return -1;
    }
    const int rc = config_load_text(c, path, buf, n, err, errlen);
    free(buf);
    return rc;
}

int config_from_env(server_config *c, char *err, size_t errlen)
{
    const char *listen = getenv("RODD_LISTEN");
    if (listen && *listen && config_set_listen(c, listen, err, errlen) != 0) return -1;
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        const char *v = getenv(fields[i].env);
        if (v && set_field(c, &fields[i], v, 0, 0, err, errlen) != 0) return -1;
    }
    return 0;
}
