/* rodd serve: the daemon's life, from configuration to drain. */
#include "serve.h"

#include "service.h"

#include "cli.h"
#include "http.h"
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
    if (d.cfg.ws_port && d.cfg.ws_port == d.cfg.http_port) {
        snprintf(err, sizeof err, "ws_port %d is the REST port, which serves the streams already: leave ws_port "
                 "unset (0) for one port, or give the stream port another", d.cfg.ws_port);
        goto bad_config;
    }
    d.auth = auth_new(&d.cfg, err, sizeof err);
    if (!d.auth) goto bad_config;
    if (!auth_enabled(d.auth) && !host_is_loopback(d.cfg.listen_host)) {
        /* refused, not quietly moved to loopback: whoever asked for it would not find it */
        snprintf(err, sizeof err,
                 "listen address %.128s is not loopback and no tokens are configured: set RODD_TOKENS or "
                 "RODD_TOKENS_FILE, or listen on 127.0.0.1",
                 d.cfg.listen_host);
        goto bad_config;
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
    d.ws_port = d.cfg.ws_port; /* 0: none; the REST port serves streams either way */
    d.streams = stream_start(&d, err, sizeof err);
    if (!d.streams) goto fail;
    if (d.cfg.state_dir[0]) {
        if (persist_init(d.cfg.state_dir, err, sizeof err) != 0) goto fail;
        int n = persist_load_all(d.cfg.state_dir, daemon_restore_one, &d);
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
        /* it loops at its spec's duration (the reach): the daemon's option, for every viewer */
        create_request cr = {.spec_text = text, .name = example, .start = 1, .pace = 1.0, .points = 51,
                             .repeat = SESSION_REPEAT_DURATION};
        recording_opts_default(&cr.recording); /* (issue 27 item 1 gives every request one constructor) */
        session *s = NULL;
        create_result r = daemon_create_session(&d, &cr, &s);
        free(text);
        cJSON_Delete(r.errors);
        if (r.status != 201) {
            snprintf(err, sizeof err, "example %.64s: %.400s", example, r.detail);
            goto fail;
        }
        log_event(LOG_INFO, "example_started", "id=%s example=%s", session_id(s), example);
        session_release(s);
    }
    atomic_store(&d.ready, 1);
    if (d.ws_port)
        log_event(LOG_INFO, "listening", "http=http://%s:%d/ streams=ws://%s:%d/ stream_port=ws://%s:%d/ version=%s",
                  d.cfg.listen_host, d.cfg.http_port, d.cfg.listen_host, d.cfg.http_port, d.cfg.listen_host,
                  d.ws_port, ROD_VERSION);
    else
        log_event(LOG_INFO, "listening", "http=http://%s:%d/ streams=ws://%s:%d/ version=%s", d.cfg.listen_host,
                  d.cfg.http_port, d.cfg.listen_host, d.cfg.http_port, ROD_VERSION);
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
            daemon_checkpoint_all(&d, d.cfg.checkpoint_period > 2.0 ? d.cfg.checkpoint_period : 2.0);
            next_ck = mono_now() + d.cfg.checkpoint_period;
        }
    }
    /* drain: stop taking requests and stepping, save everything, finish the requests in
     * flight, close the streams; nothing may call into the streams once they are gone */
    start_drain_guard(d.cfg.drain_timeout + DRAIN_GRACE);
    atomic_store(&d.ready, 0);
    http_quiesce(d.http);
    /* a worker stuck in one long step (a model driven past what it can solve) must not hold
     * the drain past an orchestrator's grace period: its session keeps its last checkpoint */
    const double drain_end = mono_now() + d.cfg.drain_timeout;
    const int stuck = pool_stop_within(d.pool, d.cfg.drain_timeout);
    /* requests in flight (an :advance) finish within what is left of drain_timeout, then
     * whatever still computes is interrupted */
    http_wait_idle(d.http, drain_end - mono_now());
    pool_stop_all_work(d.pool);
    daemon_checkpoint_all(&d, 1.0);
    /* the streams say goodbye on both ports (going away), then the REST port hands back the
     * sockets of its own streams and stops */
    stream_stop(d.streams);
    http_stop(d.http);
    if (stuck) {
        log_event(LOG_WARN, "stopped", "version=%s stuck_workers=%d", ROD_VERSION, stuck);
        fflush(NULL);
        /* ends the stuck threads at once; exit() would run atexit work (and the leak
         * checker) under their feet, with the pool they still use deliberately not freed */
        _exit(EXIT_OK);
    }
    pool_free(d.pool);
    stream_free(d.streams); /* the workers are joined: nothing notifies any more */
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
    if (d.streams) stream_stop(d.streams);
    if (d.http) http_stop(d.http);
    pool_free(d.pool);
    stream_free(d.streams);
    idem_free(d.idem);
    auth_free(d.auth);
    return EXIT_FAILURE_OTHER;
}
