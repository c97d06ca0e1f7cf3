/* rodd serve: the daemon's life, from configuration to drain; and rodd probe. */
#include "serve.h"

#include "cli.h"
#include "http.h"
#include "log.h"
#include "metrics.h"
#include "persist.h"
#include "stream.h"
#include "textfile.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void prefix_issues(cJSON *errors, const rod_issues *iss, const char *prefix)
{
    for (int i = 0; i < iss->count; i++) {
        cJSON *e = cJSON_CreateObject();
        char p[512];
        snprintf(p, sizeof p, "%s%s", prefix, iss->items[i].path);
        cJSON_AddStringToObject(e, "path", p);
        cJSON_AddStringToObject(e, "message", iss->items[i].message);
        cJSON_AddItemToArray(errors, e);
    }
}

char *read_example(daemon_ctx *d, const char *name)
{
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_')) return NULL;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.json", d->cfg.examples_dir, name);
    return read_text_file(path, ROD_SPEC_MAX_BYTES, NULL);
}

int daemon_checkpoint_session(daemon_ctx *d, session *s)
{
    if (!d->cfg.state_dir[0]) return 0;
    int busy;
    char *text = session_checkpoint(s, 2.0, &busy);
    if (busy) {
        /* a long step holds the state; the periodic checkpoint gets it later */
        log_event(LOG_WARN, "checkpoint_deferred", "id=%s reason=\"a step holds the state\"", s->id);
        return 1;
    }
    char err[512];
    int rc = text ? persist_write(d->cfg.state_dir, s->id, text, strlen(text), err, sizeof err) : -1;
    if (rc != 0) log_event(LOG_ERROR, "checkpoint_failed", "id=%s error=%s", s->id, log_q(text ? err : "no memory"));
    metrics_checkpoint(rc == 0);
    free(text);
    return rc;
}

/* Builds and registers a session; id NULL makes a fresh one. */
static create_result make_session(daemon_ctx *d, const char *id, const char *spec_text, const char *prefix,
                                  const session_opts *o, session **out)
{
    create_result r = {0};
    *out = NULL;
    if (pool_count(d->pool) >= pool_capacity(d->pool)) {
        r.status = 503;
        snprintf(r.detail, sizeof r.detail, "%d sessions, the most this daemon keeps", pool_capacity(d->pool));
        return r;
    }
    rod_issues iss;
    rod_issues_init(&iss);
    rod_model *m = rod_model_compile(spec_text, strlen(spec_text), NULL, 0, &iss);
    if (!m) {
        r.status = 422;
        r.errors = cJSON_CreateArray();
        prefix_issues(r.errors, &iss, prefix);
        snprintf(r.detail, sizeof r.detail, "%d problem%s in the spec", iss.count, iss.count == 1 ? "" : "s");
        rod_issues_free(&iss);
        return r;
    }
    rod_issues_free(&iss);
    if (rod_model_ndof(m) > d->cfg.max_dof) {
        r.status = 422;
        r.errors = cJSON_CreateArray();
        cJSON *e = cJSON_CreateObject();
        char msg[160];
        snprintf(msg, sizeof msg, "the model has %d coordinates, more than the %d this daemon allows",
                 rod_model_ndof(m), d->cfg.max_dof);
        cJSON_AddStringToObject(e, "path", prefix[0] ? prefix : "/spec");
        cJSON_AddStringToObject(e, "message", msg);
        cJSON_AddItemToArray(r.errors, e);
        snprintf(r.detail, sizeof r.detail, "%s", msg);
        rod_model_free(m);
        return r;
    }
    char fresh[64];
    if (!id) {
        char hex[16];
        random_hex(hex, 6);
        snprintf(fresh, sizeof fresh, "%s-%s", d->ordinal, hex);
        id = fresh;
    }
    char *spec_copy = strdup(spec_text);
    char err[512];
    session *s = spec_copy ? session_new(id, m, spec_copy, o, err, sizeof err) : NULL;
    if (!spec_copy) rod_model_free(m);
    if (!s) {
        r.status = 422;
        snprintf(r.detail, sizeof r.detail, "%s", spec_copy ? err : "out of memory");
        r.errors = cJSON_CreateArray();
        cJSON *e = cJSON_CreateObject();
        /* session_new fails on the engine state only (a spec that compiled is fine) */
        cJSON_AddStringToObject(e, "path", o->checkpoint ? "/checkpoint/state" : prefix);
        cJSON_AddStringToObject(e, "message", r.detail);
        cJSON_AddItemToArray(r.errors, e);
        return r;
    }
    s->notify = stream_notify;
    s->notify_ctx = d->streams;
    int rc = pool_add(d->pool, s);
    if (rc != POOL_OK) {
        r.status = rc == POOL_EFULL ? 503 : 500;
        snprintf(r.detail, sizeof r.detail, "%s", rc == POOL_EFULL ? "the session pool is full" : "duplicate session id");
        session_release(s);
        return r;
    }
    daemon_checkpoint_session(d, s);
    if (session_is_running(s)) pool_wake(d->pool);
    r.status = 201;
    *out = s;
    return r;
}

create_result daemon_create_session(daemon_ctx *d, const create_request *cr, session **out)
{
    session_opts o = {cr->name, cr->pace, cr->until, cr->points, cr->start, NULL, SESSION_CREATED, NULL, 0};
    if (!cr->checkpoint) return make_session(d, NULL, cr->spec_text, "/spec", &o, out);
    /* a session checkpoint: its spec, options and engine state */
    create_result r = {0};
    const cJSON *ck = cr->checkpoint;
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(ck, "spec");
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(ck, "state");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(ck, "status");
    if (!cJSON_IsObject(spec) || !cJSON_IsObject(state)) {
        r.status = 422;
        r.errors = cJSON_CreateArray();
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "path", "/checkpoint");
        cJSON_AddStringToObject(e, "message", "needs \"spec\" and \"state\" objects (GET .../checkpoint gives one)");
        cJSON_AddItemToArray(r.errors, e);
        snprintf(r.detail, sizeof r.detail, "not a session checkpoint");
        return r;
    }
    /* what the request leaves out, the checkpoint says */
    const cJSON *v;
    if (!cr->name && cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(ck, "name"))) o.name = v->valuestring;
    if (!cr->has_pace && cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(ck, "pace")) && v->valuedouble >= 0)
        o.pace = v->valuedouble;
    if (!cr->has_until && cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(ck, "until")) && v->valuedouble > 0)
        o.until = v->valuedouble;
    if (!cr->has_points && cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(ck, "points")) &&
        v->valuedouble >= 2 && v->valuedouble <= d->cfg.max_points)
        o.points = (int)v->valuedouble;
    if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(ck, "failure"))) o.failure = v->valuestring;
    char *spec_text = cJSON_PrintUnformatted(spec), *state_text = cJSON_PrintUnformatted(state);
    o.checkpoint = state_text;
    o.status = SESSION_PAUSED;
    session_status st;
    if (cJSON_IsString(status) && session_status_parse(status->valuestring, &st) == 0 && st != SESSION_RUNNING)
        o.status = st;
    if (cr->start) o.status = SESSION_RUNNING;
    r = make_session(d, NULL, spec_text, "/checkpoint/spec", &o, out);
    free(spec_text);
    free(state_text);
    return r;
}

/* ---- restore at start ---- */
static int restore_one(void *ctx, const char *file, const char *text, size_t len)
{
    (void)len;
    daemon_ctx *d = ctx;
    cJSON *o = cJSON_Parse(text);
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "id");
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(o, "spec");
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(o, "state");
    if (!cJSON_IsString(id) || !cJSON_IsObject(spec) || !cJSON_IsObject(state)) {
        log_event(LOG_ERROR, "restore_skipped", "file=%s reason=\"not a session checkpoint\"", log_q(file));
        cJSON_Delete(o);
        return -1;
    }
    session_opts so = {0};
    const cJSON *v;
    so.name = cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(o, "name")) ? v->valuestring : NULL;
    so.pace = cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "pace")) ? v->valuedouble : 1.0;
    so.until = cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "until")) ? v->valuedouble : 0.0;
    so.points = cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "points")) ? (int)v->valuedouble : 51;
    so.created_wall = cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "created")) ? v->valuedouble : 0;
    so.failure = cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(o, "failure")) ? v->valuestring : NULL;
    so.status = SESSION_PAUSED;
    if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(o, "status"))) session_status_parse(v->valuestring, &so.status);
    char *spec_text = cJSON_PrintUnformatted(spec), *state_text = cJSON_PrintUnformatted(state);
    so.checkpoint = state_text;
    session *s = NULL;
    create_result r = make_session(d, id->valuestring, spec_text, "/spec", &so, &s);
    if (r.status == 201) {
        log_event(LOG_INFO, "session_restored", "id=%s state=%s t=%.6g", s->id, session_status_name(s->status), s->t);
        session_release(s);
    } else {
        log_event(LOG_ERROR, "restore_failed", "file=%s status=%d detail=%s", log_q(file), r.status, log_q(r.detail));
    }
    cJSON_Delete(r.errors);
    free(spec_text);
    free(state_text);
    cJSON_Delete(o);
    return r.status == 201 ? 0 : -1;
}

static void checkpoint_all(daemon_ctx *d)
{
    session **all;
    int n = pool_list(d->pool, &all);
    for (int i = 0; i < n; i++) {
        daemon_checkpoint_session(d, all[i]);
        session_release(all[i]);
    }
    free(all);
}

static int is_loopback(const char *host)
{
    return strcmp(host, "127.0.0.1") == 0 || strcmp(host, "::1") == 0 || strcmp(host, "localhost") == 0 ||
           strncmp(host, "127.", 4) == 0;
}

static void pick_ordinal(daemon_ctx *d)
{
    const char *env = getenv("RODD_ORDINAL");
    char host[256] = "";
    long ord = 0;
    if (env && *env) ord = strtol(env, NULL, 10);
    else if (gethostname(host, sizeof host) == 0) {
        /* a StatefulSet pod is NAME-ORDINAL */
        char *dash = strrchr(host, '-');
        if (dash && dash[1]) {
            char *end;
            long v = strtol(dash + 1, &end, 10);
            if (!*end) ord = v;
        }
    }
    snprintf(d->ordinal, sizeof d->ordinal, "r%ld", ord);
}

static void serve_usage(void)
{
    fprintf(stderr, "usage: rodd serve [--config FILE] [--listen ADDR:PORT] [--ws-port PORT] [--state-dir DIR]\n"
                    "                  [--web-root DIR] [--example NAME]   (start that example, running)\n");
}

int cli_serve(int argc, char **argv)
{
    daemon_ctx d;
    memset(&d, 0, sizeof d);
    config_defaults(&d.cfg);
    char err[512];
    const char *config = NULL, *listen = NULL, *state_dir = NULL, *web_root = NULL, *example = NULL, *ws = NULL;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char **dst = strcmp(a, "--config") == 0 ? &config : strcmp(a, "--listen") == 0 ? &listen
                         : strcmp(a, "--state-dir") == 0 ? &state_dir : strcmp(a, "--web-root") == 0 ? &web_root
                         : strcmp(a, "--example") == 0 ? &example : strcmp(a, "--ws-port") == 0 ? &ws : NULL;
        if (!dst || i + 1 >= argc) {
            serve_usage();
            return EXIT_USAGE;
        }
        *dst = argv[++i];
    }
    if (config && config_load_file(&d.cfg, config, err, sizeof err) != 0) goto bad_config;
    if (config_from_env(&d.cfg, err, sizeof err) != 0) goto bad_config;
    if (listen && config_set_listen(&d.cfg, listen, err, sizeof err) != 0) goto bad_config;
    if (state_dir) snprintf(d.cfg.state_dir, sizeof d.cfg.state_dir, "%s", state_dir);
    if (web_root) snprintf(d.cfg.web_root, sizeof d.cfg.web_root, "%s", web_root);
    if (ws) d.cfg.ws_port = atoi(ws);
    d.auth = auth_new(&d.cfg, err, sizeof err);
    if (!d.auth) goto bad_config;
    if (!auth_enabled(d.auth) && !is_loopback(d.cfg.listen_host)) {
        log_event(LOG_WARN, "auth", "message=\"no tokens configured: listening on loopback only\" asked=%s",
                  log_q(d.cfg.listen_host));
        snprintf(d.cfg.listen_host, sizeof d.cfg.listen_host, "127.0.0.1");
    } else if (!auth_enabled(d.auth)) {
        log_event(LOG_INFO, "auth", "message=\"no tokens configured: loopback only, everyone is an operator\"");
    } else {
        log_event(LOG_INFO, "auth", "tokens=%d", auth_token_count(d.auth));
    }
    pick_ordinal(&d);
    /* every thread started from here on inherits the blocked signals; main waits for them */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);
    d.pool = pool_new(d.cfg.workers, d.cfg.max_sessions);
    d.idem = idem_new(1024, 24 * 3600.0);
    if (!d.pool || !d.idem) {
        snprintf(err, sizeof err, "out of memory");
        goto fail;
    }
    d.ws_port = d.cfg.ws_port ? d.cfg.ws_port : d.cfg.http_port + 1;
    d.streams = stream_start(&d, err, sizeof err);
    if (!d.streams) goto fail;
    if (d.cfg.state_dir[0]) {
        if (persist_init(d.cfg.state_dir, err, sizeof err) != 0) goto fail;
        int n = persist_load_all(d.cfg.state_dir, restore_one, &d);
        log_event(LOG_INFO, "restored", "sessions=%d state_dir=%s", n > 0 ? n : 0, log_q(d.cfg.state_dir));
    }
    d.http = http_start(&d, err, sizeof err);
    if (!d.http) goto fail;
    if (example && pool_count(d.pool) > 0) {
        log_event(LOG_INFO, "example_skipped", "example=%s reason=\"sessions restored from the state directory\"", example);
    } else if (example) {
        char *text = read_example(&d, example);
        if (!text) {
            snprintf(err, sizeof err, "no example named %.64s in %.400s", example, d.cfg.examples_dir);
            goto fail;
        }
        create_request cr = {.spec_text = text, .name = example, .start = 1, .pace = 1.0, .points = 51};
        session *s = NULL;
        create_result r = daemon_create_session(&d, &cr, &s);
        free(text);
        cJSON_Delete(r.errors);
        if (r.status != 201) {
            snprintf(err, sizeof err, "example %.64s: %.400s", example, r.detail);
            goto fail;
        }
        log_event(LOG_INFO, "example_started", "id=%s example=%s", s->id, example);
        session_release(s);
    }
    atomic_store(&d.ready, 1);
    log_event(LOG_INFO, "listening", "http=http://%s:%d/ streams=ws://%s:%d/ version=%s", d.cfg.listen_host,
              d.cfg.http_port, d.cfg.listen_host, d.ws_port, ROD_VERSION);
    fprintf(stderr, "rodd: open http://%s:%d/ in a browser\n",
            strcmp(d.cfg.listen_host, "0.0.0.0") == 0 ? "127.0.0.1" : d.cfg.listen_host, d.cfg.http_port);
    double next_ck = mono_now() + d.cfg.checkpoint_period;
    for (;;) {
        struct timespec to = {1, 0};
        int sig = sigtimedwait(&sigs, NULL, &to);
        if (sig == SIGTERM || sig == SIGINT) {
            log_event(LOG_INFO, "draining", "signal=%s", sig == SIGTERM ? "SIGTERM" : "SIGINT");
            break;
        }
        if (d.cfg.state_dir[0] && d.cfg.checkpoint_period > 0 && mono_now() >= next_ck) {
            checkpoint_all(&d);
            next_ck = mono_now() + d.cfg.checkpoint_period;
        }
    }
    /* drain: stop taking requests and stepping, save everything, finish the requests in
     * flight, close the streams; nothing may call into the streams once they are gone */
    atomic_store(&d.ready, 0);
    http_quiesce(d.http);
    /* a worker stuck in one long step (a model driven past what it can solve) must not hold
     * the drain past an orchestrator's grace period: its session keeps its last checkpoint */
    const int stuck = pool_stop_within(d.pool, d.cfg.drain_timeout);
    checkpoint_all(&d);
    http_stop(d.http);
    stream_stop(d.streams);
    if (stuck) {
        log_event(LOG_WARN, "stopped", "version=%s stuck_workers=%d", ROD_VERSION, stuck);
        fflush(NULL);
        /* ends the stuck threads at once; exit() would run atexit work (and the leak
         * checker) under their feet, with the pool they still use deliberately not freed */
        _exit(EXIT_OK);
    }
    pool_free(d.pool);
    idem_free(d.idem);
    auth_free(d.auth);
    log_event(LOG_INFO, "stopped", "version=%s", ROD_VERSION);
    return EXIT_OK;
bad_config:
    fprintf(stderr, "rodd: %s\n", err);
    auth_free(d.auth);
    return EXIT_USAGE;
fail:
    log_event(LOG_ERROR, "start_failed", "error=%s", log_q(err));
    fprintf(stderr, "rodd: %s\n", err);
    if (d.pool) pool_stop(d.pool);
    if (d.http) http_stop(d.http);
    if (d.streams) stream_stop(d.streams);
    pool_free(d.pool);
    idem_free(d.idem);
    auth_free(d.auth);
    return EXIT_FAILURE_OTHER;
}

/* rodd probe: GET /readyz (or --path) on the daemon's address; exit 0 on 200. */
int cli_probe(int argc, char **argv)
{
    server_config c;
    config_defaults(&c);
    char err[256];
    const char *path = "/readyz";
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--listen") == 0 && i + 1 < argc) {
            if (config_set_listen(&c, argv[++i], err, sizeof err) != 0) {
                fprintf(stderr, "rodd probe: %s\n", err);
                return EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
            if (config_load_file(&c, argv[++i], err, sizeof err) != 0) {
                fprintf(stderr, "rodd probe: %s\n", err);
                return EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--path") == 0 && i + 1 < argc) {
            path = argv[++i];
        } else {
            fprintf(stderr, "usage: rodd probe [--listen ADDR:PORT] [--config FILE] [--path /readyz]\n");
            return EXIT_USAGE;
        }
    }
    if (config_from_env(&c, err, sizeof err) != 0) {
        fprintf(stderr, "rodd probe: %s\n", err);
        return EXIT_USAGE;
    }
    const char *host = strcmp(c.listen_host, "0.0.0.0") == 0 || strcmp(c.listen_host, "*") == 0 ? "127.0.0.1"
                       : strcmp(c.listen_host, "::") == 0 ? "::1" : c.listen_host;
    struct addrinfo hints = {0}, *ai = NULL;
    hints.ai_socktype = SOCK_STREAM;
    char port[16];
    snprintf(port, sizeof port, "%d", c.http_port);
    if (getaddrinfo(host, port, &hints, &ai) != 0) {
        fprintf(stderr, "rodd probe: cannot resolve %s\n", host);
        return EXIT_FAILURE_OTHER;
    }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct timeval tv = {3, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int ok = fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0;
    freeaddrinfo(ai);
    if (!ok) {
        fprintf(stderr, "rodd probe: cannot connect to %s:%d: %s\n", host, c.http_port, strerror(errno));
        if (fd >= 0) close(fd);
        return EXIT_FAILURE_OTHER;
    }
    char req[512];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n", path, host);
    char resp[256] = "";
    ssize_t got = write(fd, req, (size_t)n) == n ? read(fd, resp, sizeof resp - 1) : -1;
    close(fd);
    if (got > 0) resp[got] = '\0';
    int status = 0;
    if (got <= 0 || sscanf(resp, "HTTP/%*s %d", &status) != 1) {
        fprintf(stderr, "rodd probe: no HTTP answer from %s:%d\n", host, c.http_port);
        return EXIT_FAILURE_OTHER;
    }
    printf("%s %d\n", path, status);
    return status == 200 ? EXIT_OK : EXIT_FAILURE_OTHER;
}
