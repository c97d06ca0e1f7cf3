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

/* Every option the daemon reads, with its range and default: the one place a configuration
 * number is checked, whether it comes from the config file, a RODD_* variable or a flag.
 * To add an option: a field in server_config, a row here (README.md lists the keys). */
typedef enum { K_STR, K_INT, K_SIZE, K_DBL } kind;
typedef struct {
    const char *key, *env;
    kind k;
    size_t off, len;
    double min, max; /* inclusive; numbers only */
    double def;      /* numbers */
    const char *sdef; /* strings */
} field;

#define SZ(name) offsetof(server_config, name), sizeof(((server_config *)0)->name)
#define NUM(name, env, kind, min, max, def) {#name, env, kind, SZ(name), min, max, def, NULL}
#define STR(name, env, def) {#name, env, K_STR, SZ(name), 0, 0, 0, def}
#define KiB 1024.0
#define MiB (1024.0 * 1024.0)
#define DAY 86400.0
static const field fields[] = {
    STR(listen_host, "RODD_LISTEN_HOST", "127.0.0.1"),
    NUM(http_port, "RODD_HTTP_PORT", K_INT, 0, 65535, 8080),
    NUM(ws_port, "RODD_WS_PORT", K_INT, 0, 65535, 0), /* 0: none */
    STR(state_dir, "RODD_STATE_DIR", ""),
    /* "": found from the binary's location when the daemon starts (install_paths.h) */
    STR(web_root, "RODD_WEB_ROOT", ""),
    STR(examples_dir, "RODD_EXAMPLES_DIR", ""),
    STR(tokens_file, "RODD_TOKENS_FILE", ""),
    STR(tokens, "RODD_TOKENS", ""),
    STR(allowed_origins, "RODD_ALLOWED_ORIGINS", ""),
    STR(allowed_hosts, "RODD_ALLOWED_HOSTS", ""),
    STR(public_stream_url, "RODD_PUBLIC_STREAM_URL", ""),
    /* the group's daemons by ordinal, "HOST:PORT,...": GET /v1/sessions lists theirs too */
    STR(peers, "RODD_PEERS", ""),
    /* the default, one per core online, is set by config_defaults (at most the maximum) */
    NUM(workers, "RODD_WORKERS", K_INT, 1, 1024, 2),
    NUM(max_sessions, "RODD_MAX_SESSIONS", K_INT, 1, 100000, 64),
    NUM(max_dof, "RODD_MAX_DOF", K_INT, 1, 100000, 200),
    NUM(max_points, "RODD_MAX_POINTS", K_INT, 2, 100000, 2001),
    NUM(max_body, "RODD_MAX_BODY", K_SIZE, KiB, 1024 * MiB, 4 * MiB),
    NUM(http_threads, "RODD_HTTP_THREADS", K_INT, 1, 256, 4),
    NUM(connection_timeout, "RODD_CONNECTION_TIMEOUT", K_INT, 1, DAY, 30),
    NUM(request_timeout, "RODD_REQUEST_TIMEOUT", K_DBL, 0.1, 3600, 10.0),
    NUM(max_bodies_in_flight, "RODD_MAX_BODIES_IN_FLIGHT", K_SIZE, KiB, 1024.0 * 1024 * MiB, 32 * MiB),
    NUM(per_ip_connections, "RODD_PER_IP_CONNECTIONS", K_INT, 1, 65536, 64),
    NUM(max_connections, "RODD_MAX_CONNECTIONS", K_INT, 1, 65536, 512),
    NUM(max_streams, "RODD_MAX_STREAMS", K_INT, 1, 65536, 256),
    NUM(checkpoint_period, "RODD_CHECKPOINT_PERIOD", K_DBL, 0, DAY, 10.0), /* 0: only at the drain */
    NUM(ticket_ttl, "RODD_TICKET_TTL", K_DBL, 1, DAY, 60.0),
    NUM(stream_idle_timeout, "RODD_STREAM_IDLE_TIMEOUT", K_DBL, 1, 3600, 60.0),
    NUM(default_rate, "RODD_DEFAULT_RATE", K_DBL, 0.01, 1000, 30.0),
    /* a running session publishes at most max_rate frames per second */
    NUM(max_rate, "RODD_MAX_RATE", K_DBL, 0.01, 1000, 60.0),
    NUM(advance_limit, "RODD_ADVANCE_LIMIT", K_DBL, 0.01, DAY, 10.0),
    /* inside the 30 s an orchestrator gives by default */
    NUM(drain_timeout, "RODD_DRAIN_TIMEOUT", K_DBL, 0, 3600, 20.0),
    NUM(min_sim_rate, "RODD_MIN_SIM_RATE", K_DBL, 0, 1e6, 1e-3), /* 0: no floor */
    NUM(sim_rate_window, "RODD_SIM_RATE_WINDOW", K_DBL, 0.1, DAY, 10.0),
    NUM(ws_max_message, "RODD_WS_MAX_MESSAGE", K_SIZE, 256, 64 * MiB, 4096),
    /* the session ids' prefix r<ordinal>; -1: from the host name (a StatefulSet pod's NAME-N) */
    NUM(ordinal, "RODD_ORDINAL", K_INT, 0, 999999, -1),
    /* bytes for every session's recording together; 0: sized at start from the state
     * directory's free space (disk_budget_default) */
    NUM(recording_budget, "RODD_RECORDING_BUDGET", K_SIZE, 0, 9007199254740992.0, 0),
};
#undef SZ
#undef NUM
#undef STR
enum { NFIELDS = sizeof fields / sizeof *fields };

static const field *find_field(const char *key)
{
    for (size_t i = 0; i < NFIELDS; i++)
        if (strcmp(fields[i].key, key) == 0) return &fields[i];
    return NULL;
}

void config_defaults(server_config *c)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < NFIELDS; i++) {
        const field *f = &fields[i];
        char *dst = (char *)c + f->off;
        if (f->k == K_STR) snprintf(dst, f->len, "%s", f->sdef);
        else if (f->k == K_INT) *(int *)dst = (int)f->def;
        else if (f->k == K_SIZE) *(size_t *)dst = (size_t)f->def;
        else *(double *)dst = f->def;
    }
    const field *w = find_field("workers");
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n > 0) c->workers = n > (long)w->max ? (int)w->max : (int)n;
}

/* A number as people write it in decimal: digits, a sign, a point, an exponent. Nothing after
 * it (atoi's "8080x" is 8080), no hex ("0x1f90"), no "nan" or "inf". */
static int parse_decimal(const char *text, double *v)
{
    if (!*text || strspn(text, "0123456789+-.eE") != strlen(text)) return -1;
    char *end;
    errno = 0;
    *v = strtod(text, &end);
    return *end || end == text ? -1 : 0;
}

/* Checks a number against f's range and stores it. text, when not NULL, is what was given
 * (a flag's or variable's value), quoted in the message. */
static int set_number(server_config *c, const field *f, const char *source, const char *text, double v,
                      char *err, size_t errlen)
{
    const int whole = f->k != K_DBL;
    if ((text && parse_decimal(text, &v) != 0) || !isfinite(v) || v < f->min || v > f->max ||
        (whole && v != floor(v))) {
        char given[80];
        if (text) snprintf(given, sizeof given, "\"%.60s\"", text);
        else snprintf(given, sizeof given, "%.17g", v);
        snprintf(err, errlen, "%s: must be a finite %s in [%.15g, %.15g], not %s", source,
                 whole ? "whole number" : "number", f->min, f->max, given);
        return -1;
    }
    char *dst = (char *)c + f->off;
    if (f->k == K_INT) *(int *)dst = (int)v;
    else if (f->k == K_SIZE) *(size_t *)dst = (size_t)v;
    else *(double *)dst = v;
    return 0;
}

static int set_string(server_config *c, const field *f, const char *source, const char *text, char *err,
                      size_t errlen)
{
    if (strlen(text) >= f->len) {
        snprintf(err, errlen, "%s: must be a string of at most %zu characters", source, f->len - 1);
        return -1;
    }
    if (strcmp(f->key, "public_stream_url") == 0 && *text &&
        ((strncmp(text, "ws://", 5) != 0 && strncmp(text, "wss://", 6) != 0) || strpbrk(text, "?#") ||
         text[strlen(text) - 1] == '/')) {
        snprintf(err, errlen, "%s: must be a ws:// or wss:// URL without a trailing slash, query or fragment "
                 "(e.g. wss://lab.example.org/rodd), not \"%s\"", source, text);
        return -1;
    }
    memcpy((char *)c + f->off, text, strlen(text) + 1);
    return 0;
}

int config_set_text(server_config *c, const char *key, const char *text, const char *source, char *err,
                    size_t errlen)
{
    const field *f = find_field(key);
    if (!f) {
        snprintf(err, errlen, "%s: no such option", source);
        return -1;
    }
    return f->k == K_STR ? set_string(c, f, source, text, err, errlen) : set_number(c, f, source, text, 0, err, errlen);
}

int config_set_listen(server_config *c, const char *addr, char *err, size_t errlen)
{
    const char *colon = strrchr(addr, ':');
    const char *port = colon ? colon + 1 : addr;
    char source[200];
    snprintf(source, sizeof source, "listen address \"%.100s\" (HOST:PORT): its port", addr);
    server_config probe = *c;
    if (config_set_text(&probe, "http_port", port, source, err, errlen) != 0) return -1;
    if (colon && colon != addr) {
        size_t hl = (size_t)(colon - addr);
        if (hl >= sizeof c->listen_host) {
            snprintf(err, errlen, "listen address \"%.100s\": the host is longer than %zu characters", addr,
                     sizeof c->listen_host - 1);
            return -1;
        }
        memcpy(c->listen_host, addr, hl);
        c->listen_host[hl] = '\0';
    }
    c->http_port = probe.http_port;
    return 0;
}

int config_check(const server_config *c, char *err, size_t errlen)
{
    if (c->ws_port && c->ws_port == c->http_port) {
        snprintf(err, errlen, "ws_port %d is the REST port, which serves the streams already: leave ws_port "
                 "unset (0) for one port, or give the stream port another", c->ws_port);
        return -1;
    }
    if (c->default_rate > c->max_rate) {
        snprintf(err, errlen, "default_rate %.17g is above max_rate %.17g: a stream's default must be a rate it may "
                 "have", c->default_rate, c->max_rate);
        return -1;
    }
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
        const field *f = find_field(it->string);
        char source[200];
        snprintf(source, sizeof source, "config %.100s: %.60s", name, it->string);
        if (!f) {
            snprintf(err, errlen, "config %s: unknown key \"%.100s\"", name, it->string);
            rc = -1;
        } else if (cJSON_IsString(it)) {
            rc = config_set_text(c, f->key, it->valuestring, source, err, errlen);
        } else if (cJSON_IsNumber(it) && f->k != K_STR) {
            rc = set_number(c, f, source, NULL, it->valuedouble, err, errlen);
        } else if (f->k == K_STR) {
            snprintf(err, errlen, "%s: must be a string", source);
            rc = -1;
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
    for (size_t i = 0; i < NFIELDS; i++) {
        const char *v = getenv(fields[i].env);
        if (v && config_set_text(c, fields[i].key, v, fields[i].env, err, errlen) != 0) return -1;
    }
    return 0;
}
