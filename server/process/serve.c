/* rodd serve: the daemon's life, from configuration to drain. */
#include "serve.h"

#include "service.h"

#include "cli.h"
#include "disk_budget.h"
#include "http.h"
#include "install_paths.h"
#include "log.h"
#include "metrics.h"
#include "origin.h"
#include "persist.h"
#include "stream.h"
#include "textfile.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* The configured ordinal, or the host name's: RODD_ORDINAL is checked with the configuration. */
static void pick_ordinal(daemon_ctx *d)
{
    char host[256] = "";
    long ord = d->cfg.ordinal >= 0 ? d->cfg.ordinal : 0;
    if (d->cfg.ordinal < 0 && gethostname(host, sizeof host) == 0) {
        /* a StatefulSet pod is NAME-ORDINAL */
        char *dash = strrchr(host, '-');
        if (dash && dash[1]) {
            char *end;
            errno = 0;
            long v = strtol(dash + 1, &end, 10);
            if (!*end && !errno && v >= 0 && v <= 999999) ord = v;
        }
    }
    snprintf(d->ordinal, sizeof d->ordinal, "r%ld", ord);
}

#define DRAIN_GRACE 1.5 /* s past drain_timeout that saving, requests and streams may take */

/* Ends the process once the drain has had its time, whatever a request thread, a worker or a
 * checkpoint still waits for: an orchestrator's kill would come anyway, and without the
 * checkpoints written so far. */
static void *drain_guard(void *arg)
{
    const double seconds = *(double *)arg;
    free(arg);
    const struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
    log_event(LOG_WARN, "stopped", "version=%s reason=\"the drain took over %.3g s\"", ROD_VERSION, seconds);
    fflush(NULL);
    _exit(EXIT_OK);
    return NULL;
}

static void start_drain_guard(double seconds)
{
    double *arg = malloc(sizeof *arg);
    pthread_t t;
    if (!arg) return;
    *arg = seconds;
    if (pthread_create(&t, NULL, drain_guard, arg) != 0) {
        free(arg);
        return;
    }
    pthread_detach(t);
}

static void serve_usage(void)
{
    fprintf(stderr, "usage: rodd serve [--config FILE] [--listen ADDR:PORT] [--ws-port PORT] [--state-dir DIR]\n"
                    "                  [--web-root DIR] [--example NAME]   (start that example, running)\n");
}

/* The command line as given, before any of it is checked against the configuration. */
typedef struct {
    const char *config, *listen, *state_dir, *web_root, *example, *ws_port;
} serve_args;

/* 0, or -1 after printing the usage. */
static int parse_serve_args(int argc, char **argv, serve_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 2; i < argc; i++) {
        const char *f = argv[i];
        const char **dst = strcmp(f, "--config") == 0 ? &a->config : strcmp(f, "--listen") == 0 ? &a->listen
                         : strcmp(f, "--state-dir") == 0 ? &a->state_dir : strcmp(f, "--web-root") == 0 ? &a->web_root
                         : strcmp(f, "--example") == 0 ? &a->example : strcmp(f, "--ws-port") == 0 ? &a->ws_port : NULL;
        if (!dst || i + 1 >= argc) {
            serve_usage();
            return -1;
        }
        *dst = argv[++i];
    }
    return 0;
}

/* The examples and the viewer, where the configuration does not name them: from the binary's
 * location (install_paths.h), said in the log either way. */
static void find_shipped_data(server_config *c)
{
    struct {
        char *dir;
        size_t len;
        install_data what;
        const char *key, *env;
    } const data[] = {{c->examples_dir, sizeof c->examples_dir, INSTALL_EXAMPLES, "examples_dir", "RODD_EXAMPLES_DIR"},
                      {c->web_root, sizeof c->web_root, INSTALL_WEB, "web_root", "RODD_WEB_ROOT"}};
    for (size_t i = 0; i < sizeof data / sizeof *data; i++) {
        char tried[2400];
        if (data[i].dir[0])
            log_event(LOG_INFO, "data", "%s=%s from=configuration", data[i].key, log_q(data[i].dir));
        else if (install_find_dir(data[i].what, data[i].dir, data[i].len, tried, sizeof tried) == 0)
            log_event(LOG_INFO, "data", "%s=%s from=binary_location", data[i].key, log_q(data[i].dir));
        else
            log_event(LOG_WARN, "data_missing", "%s=none tried=%s hint=\"set %s (or %s in a config file)\"",
                      data[i].key, log_q(tried), data[i].env, data[i].key);
    }
}

/* d->cfg from the defaults, the config file, the environment and the flags, in that order,
 * then checked as a whole. 0, or -1 with err. */
static int configure(daemon_ctx *d, const serve_args *a, char *err, size_t errlen)
{
    config_defaults(&d->cfg);
    if (a->config && config_load_file(&d->cfg, a->config, err, errlen) != 0) return -1;
    if (config_from_env(&d->cfg, err, errlen) != 0) return -1;
    if (a->listen && config_set_listen(&d->cfg, a->listen, err, errlen) != 0) return -1;
    if (a->state_dir && config_set_text(&d->cfg, "state_dir", a->state_dir, "--state-dir", err, errlen) != 0)
        return -1;
    if (a->web_root && config_set_text(&d->cfg, "web_root", a->web_root, "--web-root", err, errlen) != 0) return -1;
    if (a->ws_port && config_set_text(&d->cfg, "ws_port", a->ws_port, "--ws-port", err, errlen) != 0) return -1;
    if (config_check(&d->cfg, err, errlen) != 0) return -1;
    find_shipped_data(&d->cfg);
    return 0;
}

/* The tokens, and the rule that without them the daemon serves loopback only. 0, or -1 with err. */
static int set_up_auth(daemon_ctx *d, char *err, size_t errlen)
{
    d->auth = auth_new(&d->cfg, err, errlen);
    if (!d->auth) return -1;
    if (!auth_enabled(d->auth) && !host_is_loopback(d->cfg.listen_host)) {
        /* refused, not quietly moved to loopback: whoever asked for it would not find it */
        snprintf(err, errlen,
                 "listen address %.128s is not loopback and no tokens are configured: set RODD_TOKENS or "
                 "RODD_TOKENS_FILE, or listen on 127.0.0.1",
                 d->cfg.listen_host);
        return -1;
    }
    if (!auth_enabled(d->auth))
        log_event(LOG_INFO, "auth", "message=\"no tokens configured: loopback only, everyone is an operator\"");
    else
        log_event(LOG_INFO, "auth", "tokens=%d", auth_token_count(d->auth));
    return 0;
}

/* SIGTERM and SIGINT blocked in this thread and so in every thread started after it: main
 * alone takes them, with sigtimedwait. */
static void block_stop_signals(sigset_t *sigs)
{
    sigemptyset(sigs);
    sigaddset(sigs, SIGTERM);
    sigaddset(sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, sigs, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* The workers, the streams, the sessions of the state directory and the REST port, in the
 * order each needs the one before. 0, or -1 with err (what started is left in d for
 * stop_after_failure). */
static int start_services(daemon_ctx *d, char *err, size_t errlen)
{
    pick_ordinal(d);
    d->pool = pool_new(d->cfg.workers, d->cfg.max_sessions);
    if (!d->pool) {
        snprintf(err, errlen, "cannot start %d worker threads (workers, RODD_WORKERS): %s", d->cfg.workers,
                 strerror(errno));
        return -1;
    }
    d->idem = idem_new(1024, 24 * 3600.0);
    if (!d->idem) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    d->ws_port = d->cfg.ws_port; /* 0: none; the REST port serves streams either way */
    d->streams = stream_start(d, err, errlen);
    if (!d->streams) return -1;
    if (d->cfg.state_dir[0] && persist_init(d->cfg.state_dir, err, errlen) != 0) return -1;
    daemon_remove_stale_exports(d); /* before the free space is measured */
    if (daemon_recording_budget(d, err, errlen) != 0) return -1; /* before restored recordings take from it */
    metrics_recording_budget(d->recording_budget);
    if (d->cfg.state_dir[0]) {
        int n = persist_load_all(d->cfg.state_dir, daemon_restore_one, d);
        log_event(LOG_INFO, "restored", "sessions=%d state_dir=%s", n > 0 ? n : 0, log_q(d->cfg.state_dir));
    }
    d->http = http_start(d, err, errlen);
    return d->http ? 0 : -1;
}

/* The shipped example NAME as a running session, unless sessions came back from the state
 * directory. 0, or -1 with err. */
static int start_example(daemon_ctx *d, const char *name, char *err, size_t errlen)
{
    if (pool_count(d->pool) > 0) {
        log_event(LOG_INFO, "example_skipped", "example=%s reason=\"sessions restored from the state directory\"", name);
        return 0;
    }
    char *text = read_example(d, name);
    if (!text) {
        snprintf(err, errlen, "no example named %.64s in %.400s", name, d->cfg.examples_dir);
        return -1;
    }
    create_request cr;
    create_request_init(&cr);
    cr.spec_text = text;
    cr.name = name;
    cr.start = 1;
    cr.repeat = SESSION_REPEAT_DURATION; /* it loops at its spec's duration (the reach), for every viewer */
    session *s = NULL;
    create_result r = daemon_create_session(d, &cr, &s);
    free(text);
    cJSON_Delete(r.errors);
    if (r.status != 201) {
        snprintf(err, errlen, "example %.64s: %.400s", name, r.detail);
        return -1;
    }
    log_event(LOG_INFO, "example_started", "id=%s example=%s", session_id(s), name);
    session_release(s);
    return 0;
}

static void announce_listening(const daemon_ctx *d)
{
    const server_config *c = &d->cfg;
    if (d->ws_port)
        log_event(LOG_INFO, "listening", "http=http://%s:%d/ streams=ws://%s:%d/ stream_port=ws://%s:%d/ version=%s",
                  c->listen_host, c->http_port, c->listen_host, c->http_port, c->listen_host, d->ws_port, ROD_VERSION);
    else
        log_event(LOG_INFO, "listening", "http=http://%s:%d/ streams=ws://%s:%d/ version=%s", c->listen_host,
                  c->http_port, c->listen_host, c->http_port, ROD_VERSION);
    fprintf(stderr, "rodd: open http://%s:%d/ in a browser\n",
            strcmp(c->listen_host, "0.0.0.0") == 0 ? "127.0.0.1" : c->listen_host, c->http_port);
}

/* Checkpoints every checkpoint_period until SIGTERM or SIGINT arrives. */
static void serve_until_signal(daemon_ctx *d, const sigset_t *sigs)
{
    double next_ck = mono_now() + d->cfg.checkpoint_period;
    for (;;) {
        struct timespec to = {1, 0};
        int sig = sigtimedwait(sigs, NULL, &to);
        if (sig == SIGTERM || sig == SIGINT) {
            log_event(LOG_INFO, "draining", "signal=%s", sig == SIGTERM ? "SIGTERM" : "SIGINT");
            return;
        }
        if (d->cfg.state_dir[0] && d->cfg.checkpoint_period > 0 && mono_now() >= next_ck) {
            daemon_checkpoint_all(d, d->cfg.checkpoint_period > 2.0 ? d->cfg.checkpoint_period : 2.0);
            next_ck = mono_now() + d->cfg.checkpoint_period;
        }
    }
}

/* The drain: stop taking requests and stepping, save everything, finish the requests in
 * flight, close the streams; nothing may call into the streams once they are gone. Does not
 * return when a worker is stuck. */
static void drain(daemon_ctx *d)
{
    start_drain_guard(d->cfg.drain_timeout + DRAIN_GRACE);
    atomic_store(&d->ready, 0);
    http_quiesce(d->http);
    /* a worker stuck in one long step (a model driven past what it can solve) must not hold
     * the drain past an orchestrator's grace period: its session keeps its last checkpoint */
    const double drain_end = mono_now() + d->cfg.drain_timeout;
    const int stuck = pool_stop_within(d->pool, d->cfg.drain_timeout);
    /* requests in flight (an :advance) finish within what is left of drain_timeout, then
     * whatever still computes is interrupted */
    http_wait_idle(d->http, drain_end - mono_now());
    pool_stop_all_work(d->pool);
    daemon_checkpoint_all(d, 1.0);
    /* the streams say goodbye on both ports (going away), then the REST port hands back the
     * sockets of its own streams and stops */
    stream_stop(d->streams);
    http_stop(d->http);
    if (stuck) {
        log_event(LOG_WARN, "stopped", "version=%s stuck_workers=%d", ROD_VERSION, stuck);
        fflush(NULL);
        /* ends the stuck threads at once; exit() would run atexit work (and the leak
         * checker) under their feet, with the pool they still use deliberately not freed */
        _exit(EXIT_OK);
    }
    pool_free(d->pool); /* the recordings give their bytes back to the budget: freed after */
    metrics_recording_budget(NULL);
    disk_budget_free(d->recording_budget);
    stream_free(d->streams); /* the workers are joined: nothing notifies any more */
    idem_free(d->idem);
    auth_free(d->auth);
    log_event(LOG_INFO, "stopped", "version=%s", ROD_VERSION);
}

/* Whatever start_services and start_example got going, stopped and freed. */
static void stop_after_failure(daemon_ctx *d, const char *err)
{
    log_event(LOG_ERROR, "start_failed", "error=%s", log_q(err));
    fprintf(stderr, "rodd: %s\n", err);
    if (d->pool) pool_stop(d->pool);
    if (d->streams) stream_stop(d->streams);
    if (d->http) http_stop(d->http);
    pool_free(d->pool);
    metrics_recording_budget(NULL);
    disk_budget_free(d->recording_budget);
    stream_free(d->streams);
    idem_free(d->idem);
    auth_free(d->auth);
}

int cli_serve(int argc, char **argv)
{
    serve_args a;
    if (parse_serve_args(argc, argv, &a) != 0) return EXIT_USAGE;
    daemon_ctx d;
    memset(&d, 0, sizeof d);
    char err[512];
    if (configure(&d, &a, err, sizeof err) != 0 || set_up_auth(&d, err, sizeof err) != 0) {
        fprintf(stderr, "rodd: %s\n", err);
        auth_free(d.auth);
        return EXIT_USAGE;
    }
    sigset_t sigs;
    block_stop_signals(&sigs);
    if (start_services(&d, err, sizeof err) != 0 || (a.example && start_example(&d, a.example, err, sizeof err) != 0)) {
        stop_after_failure(&d, err);
        return EXIT_FAILURE_OTHER;
    }
    atomic_store(&d.ready, 1);
    announce_listening(&d);
    serve_until_signal(&d, &sigs);
    drain(&d);
    return EXIT_OK;
}
