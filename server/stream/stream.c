/* The stream transport: libwebsockets' service thread, its clients, and the pacing of what
 * each receives (the messages themselves are stream_codec.c's). */
#include "stream.h"

#include "log.h"
#include "metrics.h"
#include "origin.h"
#include "stream_admit.h"
#include "stream_codec.h"
#include "stream_foxglove.h"
#include "stream_handshake.h"

#include <cjson/cJSON.h>
#include <libwebsockets.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <time.h>

/* Every running session publishes 60 frames a second, and every wake of the service thread
 * polls all its sockets and pokes all its clients: waking it per frame, or per client's timer,
 * costs sessions x clients (at 16 sessions a fifth of the daemon's CPU went to the kernel's
 * poll). New frames and clients not yet due therefore only raise a flag, and a waker thread
 * wakes the service thread for them at most every WAKE_PERIOD seconds; each wake serves every
 * client that is due. Frames wait at most that long more. */
#define WAKE_PERIOD 0.004

#define MAX_CTL 8

typedef struct client {
    struct client *next;
    struct lws *wsi;
    session *s;
    char *ctl[MAX_CTL]; /* control messages waiting to go out, oldest first */
    int nctl;
    stream_subscription sub;
    uint64_t last_seq, pending_seq;
    int writable_requested, timer_set, closing;
    enum lws_close_status close_code; /* 1001 (session deleted, daemon stops) or 1009 */
    const char *close_reason;
    double last_sent, last_status;
    long dropped, dropped_reported;
    session_status last_state;
    char *rx;
    size_t rxlen;
    int rx_too_big;
    size_t rx_dropped;       /* an oversize message's bytes read and dropped (on_receive) */
    char too_big_reason[64]; /* the 1009 close's reason, naming the limit */
    int via_rest; /* came in on the REST port (stream_adopt) */
    int reserved; /* holds a stream_reserve place (stream port only: the bridge holds the REST port's) */
    foxws *fox;   /* the client asked for foxglove.websocket.v1 (stream_foxglove.h); NULL: rodd's own */
} client;

struct stream_server {
    daemon_ctx *d;
    struct lws_context *ctx;
    struct lws_vhost *port_vh;    /* the stream port's (NULL when it is off) */
    struct lws_vhost *adopted_vh; /* the REST port's streams, handed over on socketpairs; no listener */
    pthread_t thread;
    atomic_int stop, running;
    /* new frames wake the service thread through the waker, at most every WAKE_PERIOD */
    pthread_t waker;
    atomic_int waker_started; /* read by the workers' stream_notify while stream_stop clears it */
    pthread_mutex_t wake_mu;
    pthread_cond_t wake_cv;
    atomic_int wake_pending;
    pthread_mutex_t mu;
    session **gone; /* deleted sessions whose clients must go; guarded by mu */
    int ngone, capgone;
    int *adopt; /* sockets handed over by the REST port, not yet adopted; guarded by mu */
    int nadopt, capadopt;
    client *clients; /* service thread only */
    int nclients;
    atomic_int places; /* max_streams' places taken (stream_reserve) */
    lws_retry_bo_t retry;
    lws_sorted_usec_list_t drain_tick; /* service thread only */
};

static stream_buf frame_out; /* the service thread's reusable frame buffer, freed at stop */

static stream_server *the_server; /* lws callbacks find it through the context user */

/* ---- messages ---- */
static void queue_ctl(client *c, char *text)
{
    if (!text) return;
    if (c->nctl == MAX_CTL) { /* a client that reads nothing: drop the oldest control message */
        free(c->ctl[0]);
        memmove(c->ctl, c->ctl + 1, (MAX_CTL - 1) * sizeof *c->ctl);
        c->nctl--;
    }
    c->ctl[c->nctl++] = text;
}

/* The Host the handshake names and the page it comes from (DNS rebinding, cross-site pages). */
static int origin_ok(stream_server *ss, struct lws *wsi)
{
    char origin[512] = "", host[256] = "";
    const int has_host = lws_hdr_total_length(wsi, WSI_TOKEN_HOST) > 0;
    if (has_host && lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) <= 0) return 0;
    if (!host_allowed(&ss->d->cfg, has_host ? host : NULL)) return 0;
    if (lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN) <= 0) return 1; /* not a browser */
    if (lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) <= 0) return 0;
    return origin_allowed(&ss->d->cfg, origin, has_host ? host : NULL);
}

/* A client's message: the codec answers, the transport does what it asks. */
static void handle_message(stream_server *ss, client *c, const char *text, size_t len)
{
    if (c->fox) {
        int resend;
        queue_ctl(c, foxws_handle(c->fox, text, len, &resend));
        c->sub.subscribed = foxws_subscribed(c->fox);
        if (resend) { /* a new subscription gets the latest frame at once */
            c->last_seq = 0;
            c->writable_requested = 1;
        }
        lws_callback_on_writable(c->wsi);
        return;
    }
    stream_action act;
    queue_ctl(c, stream_handle_message(text, len, &c->sub, ss->d->cfg.max_rate, &act));
    if (act.describe) queue_ctl(c, stream_description_msg(c->s, &c->sub, ss->d->cfg.max_rate));
    if (act.send_frame) {
        c->last_seq = 0;
        c->writable_requested = 1;
    }
    lws_callback_on_writable(c->wsi);
}

static void client_unlink(stream_server *ss, client *c)
{
    for (client **pp = &ss->clients; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            ss->nclients--;
            metrics_stream_clients(-1);
            break;
        }
    for (int i = 0; i < c->nctl; i++) free(c->ctl[i]);
    c->nctl = 0;
    free(c->rx);
    c->rx = NULL;
    if (c->s) session_release(c->s);
    c->s = NULL;
    foxws_free(c->fox);
    c->fox = NULL;
}

/* Every close goes out from the writable callback, after the control messages queued before
 * it: returning -1 inside a read sometimes reached the peer as a bare TCP close (1006). */
static void begin_close(client *c, enum lws_close_status code, const char *reason)
{
    if (c->closing) return;
    c->closing = 1;
    c->close_code = code;
    c->close_reason = reason;
    lws_callback_on_writable(c->wsi);
}

/* A new frame or a state change: request a write when the client's rate allows. */
/* A wake within WAKE_PERIOD (the waker's next round), from any thread. */
static void request_wake(stream_server *ss)
{
    if (!atomic_exchange(&ss->wake_pending, 1)) {
        pthread_mutex_lock(&ss->wake_mu);
        pthread_cond_signal(&ss->wake_cv);
        pthread_mutex_unlock(&ss->wake_mu);
    }
}

static void poke(stream_server *ss, client *c, double now)
{
    if (!c->s || c->closing) return;
    session_view v;
    session_snapshot(c->s, &v);
    const uint64_t seq = v.seq;
    (void)ss;
    if (v.status != c->last_state) {
        c->last_state = v.status;
        if (!c->fox) { /* Foxglove's protocol has no session state */
            queue_ctl(c, stream_state_msg(&v));
            lws_callback_on_writable(c->wsi);
        }
    }
    if (!c->sub.subscribed) return;
    session_want_frames(c->s, c->sub.rate);
    if (seq <= c->last_seq) return;
    if (c->writable_requested) {
        /* the previous frame has not gone out yet: it is superseded, latest wins */
        if (seq > c->pending_seq && c->pending_seq > c->last_seq) {
            c->dropped += (long)(seq - c->pending_seq);
            metrics_frames_dropped((long)(seq - c->pending_seq));
        }
        c->pending_seq = seq;
        return;
    }
    const double wait = 1.0 / c->sub.rate - (now - c->last_sent);
    /* with the waker, due within half its period is due now: the wakes come that often, so
     * the client's rate holds on average */
    if (wait <= (ss->waker_started ? 0.5 * WAKE_PERIOD : 0.0)) {
        c->pending_seq = seq;
        c->writable_requested = 1;
        lws_callback_on_writable(c->wsi);
    } else if (ss->waker_started) {
        /* the waker's next round serves it: no timer per client (each would wake the service
         * thread to poll every socket, clients x rate times a second) */
        request_wake(ss);
    } else if (!c->timer_set) {
        c->timer_set = 1;
        lws_set_timer_usecs(c->wsi, (lws_usec_t)(wait * 1e6) + 1);
    }
}

/* A Foxglove client: the messages of the latest frame, one per subscription, one per call. */
static int write_fox(stream_server *ss, client *c)
{
    unsigned char *b;
    size_t n;
    if (!foxws_next(c->fox, &b, &n)) {
        published_frame *pf = session_latest(c->s);
        c->writable_requested = 0;
        if (!pf || pf->seq <= c->last_seq || !c->sub.subscribed) {
            frame_release(pf);
            return 0;
        }
        const char *names[FOXWS_MAX_INPUTS];
        double inputs[FOXWS_MAX_INPUTS];
        int ninputs = session_inputs_now(c->s, names, inputs, FOXWS_MAX_INPUTS);
        if (ninputs > FOXWS_MAX_INPUTS) ninputs = FOXWS_MAX_INPUTS;
        const int rc = foxws_queue_frame(c->fox, &pf->f, names, inputs, ninputs, pf->seq, LWS_PRE);
        c->last_seq = pf->seq;
        c->last_sent = mono_now();
        frame_release(pf);
        if (rc != 0) return -1;
        if (!foxws_next(c->fox, &b, &n)) return 0;
        metrics_frames_sent(1);
    }
    const int rc = lws_write(c->wsi, b + LWS_PRE, n, LWS_WRITE_BINARY) < (int)n ? -1 : 0;
    /* a poke while the messages went out asked for the next frame (writable_requested) and
     * may have had its writable callback taken by them: ask again, or it would wait forever */
    if (foxws_pending(c->fox) || c->writable_requested) lws_callback_on_writable(c->wsi);
    else poke(ss, c, mono_now()); /* a newer frame may already wait */
    return rc;
}

static int write_one(stream_server *ss, client *c)
{
    if (c->nctl) {
        char *t = c->ctl[0];
        memmove(c->ctl, c->ctl + 1, (size_t)(c->nctl - 1) * sizeof *c->ctl);
        c->nctl--;
        size_t n = strlen(t);
        unsigned char *b = malloc(LWS_PRE + n);
        int rc = -1;
        if (b) {
            memcpy(b + LWS_PRE, t, n);
            rc = lws_write(c->wsi, b + LWS_PRE, n, LWS_WRITE_TEXT) < (int)n ? -1 : 0;
            free(b);
        }
        free(t);
        if (c->nctl || (c->sub.subscribed && c->writable_requested) || (c->fox && foxws_pending(c->fox)))
            lws_callback_on_writable(c->wsi);
        return rc;
    }
    if (c->fox && c->s) return write_fox(ss, c);
    if (!c->sub.subscribed || !c->s) {
        c->writable_requested = 0;
        return 0;
    }
    published_frame *pf = session_latest(c->s);
    c->writable_requested = 0;
    if (!pf || pf->seq <= c->last_seq) {
        frame_release(pf);
        return 0;
    }
    stream_buf *out = &frame_out;
    int rc = stream_frame_payload(&c->sub, pf, out, LWS_PRE);
    if (rc == 0) {
        size_t n = out->len - LWS_PRE;
        rc = lws_write(c->wsi, (unsigned char *)out->b + LWS_PRE, n, c->sub.binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT) <
                     (int)n ? -1 : 0;
    }
    const double now = mono_now();
    c->last_seq = pf->seq;
    c->last_sent = now;
    frame_release(pf);
    if (rc == 0) metrics_frames_sent(1);
    if (c->dropped > c->dropped_reported && now - c->last_status > 1.0) {
        char m[160];
        snprintf(m, sizeof m, "dropped %ld frame%s: the connection is slower than the session (latest wins)",
                 c->dropped - c->dropped_reported, c->dropped - c->dropped_reported == 1 ? "" : "s");
        queue_ctl(c, stream_status_msg("warning", m, c->dropped));
        c->dropped_reported = c->dropped;
        c->last_status = now;
        lws_callback_on_writable(c->wsi);
    }
    poke(ss, c, now); /* a newer frame may already wait */
    return rc;
}

#define URL_ARGS_MAX HANDSHAKE_QUERY_MAX
/* The handshake is still HTTP here, so a refusal can say why with a status (lws issue #478). */
/* A subscription given in the stream URL (?format=binary&rate=60&fields=position,rho), as
 * the subscribe message it stands for: then the very first frame already comes in the
 * chosen form, and no frame is sent twice. NULL when the URL names none; malloc'd. */
static char *url_subscription(struct lws *wsi)
{
    char buf[URL_ARGS_MAX + 16];
    const char *format = lws_get_urlarg_by_name(wsi, "format=", buf, sizeof buf);
    char fmt[32] = "";
    if (format) snprintf(fmt, sizeof fmt, "%s", format);
    char rate[64] = "";
    const char *r = lws_get_urlarg_by_name(wsi, "rate=", buf, sizeof buf);
    if (r) snprintf(rate, sizeof rate, "%s", r);
    char fields[URL_ARGS_MAX + 1] = "";
    const char *f = lws_get_urlarg_by_name(wsi, "fields=", buf, sizeof buf);
    if (f) snprintf(fields, sizeof fields, "%s", f);
    if (!format && !r && !f) return NULL;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", "subscribe");
    if (format) cJSON_AddStringToObject(o, "format", fmt);
    if (r) {
        char *end;
        double v = strtod(rate, &end);
        if (*rate && !*end) cJSON_AddNumberToObject(o, "rate", v);
        else cJSON_AddStringToObject(o, "rate", rate); /* refused with the usual message */
    }
    if (f) {
        cJSON *a = cJSON_AddArrayToObject(o, "fields");
        for (char *save = NULL, *tok = strtok_r(fields, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
            cJSON_AddItemToArray(a, cJSON_CreateString(tok));
    }
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

static int refuse(struct lws *wsi, unsigned int status, const char *why)
{
    lws_return_http_status(wsi, status, why);
    return 1;
}

/* 426 with the version there is (RFC 6455 4.4), in lws_return_http_status's page so that the
 * REST port repeats its reason the same way. */
static int refuse_version(struct lws *wsi)
{
    unsigned char buf[LWS_PRE + 1024], *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf;
    char body[200], clen[16];
    const int blen = snprintf(body, sizeof body, "<html><body><h1>426</h1>%s</body></html>",
                              "Sec-WebSocket-Version must be 13");
    const int clen_n = snprintf(clen, sizeof clen, "%d", blen);
    if (lws_add_http_header_status(wsi, 426, &p, end) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"sec-websocket-version:", (const unsigned char *)"13", 2,
                                    &p, end) ||
        lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE, (const unsigned char *)"text/html", 9, &p, end) ||
        lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, (const unsigned char *)clen, clen_n, &p, end) ||
        lws_finalize_http_header(wsi, &p, end) || end - p < blen)
        return 1;
    memcpy(p, body, (size_t)blen);
    p += blen;
    lws_write(wsi, start, (size_t)(p - start), LWS_WRITE_HTTP);
    return 1;
}

/* What RFC 6455 4.2.1 and RFC 9112 3.2 ask of the handshake's own headers: one Host, version
 * 13, a key of 16 bytes. 0 when it holds; else the refusal is written. */
static int refuse_bad_handshake(struct lws *wsi)
{
    char v[64] = "", key[64] = "";
    /* lws keeps a repeated header as fragments, and counts one more byte for each after the
     * first */
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HOST) > lws_hdr_fragment_length(wsi, WSI_TOKEN_HOST, 0)) {
        log_event(LOG_WARN, "stream_refused", "reason=\"two Host headers\"");
        return refuse(wsi, HTTP_STATUS_BAD_REQUEST, "the request has more than one Host header");
    }
    if (lws_hdr_copy(wsi, v, sizeof v, WSI_TOKEN_VERSION) < 0 || !handshake_version_ok(v)) {
        log_event(LOG_WARN, "stream_refused", "reason=\"Sec-WebSocket-Version is not 13\" version=%s", log_q(v));
        return refuse_version(wsi);
    }
    if (lws_hdr_copy(wsi, key, sizeof key, WSI_TOKEN_KEY) < 0 || !handshake_key_ok(key)) {
        log_event(LOG_WARN, "stream_refused", "reason=\"bad Sec-WebSocket-Key\"");
        return refuse(wsi, HTTP_STATUS_BAD_REQUEST, "Sec-WebSocket-Key must be the base64 of 16 bytes");
    }
    return 0;
}

/* a stream asks in: refused here with a status, or admitted and its place taken */
static int on_filter(stream_server *ss, client *c, struct lws *wsi)
{
    char uri[512] = "", id[80];
    if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0 || stream_session_id_of(uri, id, sizeof id) != 0) {
        log_event(LOG_WARN, "stream_refused", "reason=\"not a stream path\" uri=%s", log_q(uri));
        return refuse(wsi, HTTP_STATUS_NOT_FOUND, "not a stream path");
    }
    if (refuse_bad_handshake(wsi)) return 1;
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_URI_ARGS) > URL_ARGS_MAX) {
        log_event(LOG_WARN, "stream_refused", "reason=\"query too long\"");
        return refuse(wsi, HTTP_STATUS_REQ_URI_TOO_LONG, "the stream URL's query is over 2048 characters");
    }
    if (!origin_ok(ss, wsi)) {
        log_event(LOG_WARN, "stream_refused", "reason=\"origin not allowed\" session=%s", id);
        return refuse(wsi, HTTP_STATUS_FORBIDDEN, "host or origin not allowed");
    }
    if (auth_enabled(ss->d->auth)) {
        char hdr[300] = "", ticket[80] = "";
        role r = ROLE_NONE;
        if (lws_hdr_copy(wsi, hdr, sizeof hdr, WSI_TOKEN_HTTP_AUTHORIZATION) > 0) r = auth_bearer(ss->d->auth, hdr);
        /* the buffer gets "ticket=VALUE"; the call returns where VALUE starts */
        const char *tv = r == ROLE_NONE ? lws_get_urlarg_by_name(wsi, "ticket=", ticket, sizeof ticket) : NULL;
        if (tv) r = auth_redeem_ticket(ss->d->auth, tv, id);
        if (r < ROLE_VIEWER) {
            log_event(LOG_WARN, "stream_refused", "reason=unauthorized session=%s", id);
            return refuse(wsi, HTTP_STATUS_UNAUTHORIZED, "a viewer token or ticket is needed");
        }
    }
    session *s = pool_find(ss->d->pool, id);
    if (!s) {
        log_event(LOG_WARN, "stream_refused", "reason=\"no such session\" session=%s", id);
        return refuse(wsi, HTTP_STATUS_NOT_FOUND, "no such session");
    }
    session_release(s);
    char *sub_text = url_subscription(wsi);
    if (sub_text) { /* checked here, where a bad one can still be refused with a status */
        stream_subscription probe = {1, F_ALL, 0, 1};
        stream_action act;
        char *reply = stream_handle_message(sub_text, strlen(sub_text), &probe, ss->d->cfg.max_rate, &act);
        const int bad = !reply || strstr(reply, "\"op\":\"status\"") != NULL;
        char why[300] = "";
        if (bad) {
            cJSON *m = reply ? cJSON_Parse(reply) : NULL;
            const cJSON *msg = cJSON_GetObjectItemCaseSensitive(m, "message");
            snprintf(why, sizeof why, "bad subscription in the URL: %s", cJSON_IsString(msg) ? msg->valuestring : "?");
            cJSON_Delete(m);
        }
        free(reply);
        free(sub_text);
        if (bad) {
            log_event(LOG_WARN, "stream_refused", "reason=%s session=%s", log_q(why), id);
            return refuse(wsi, HTTP_STATUS_BAD_REQUEST, why);
        }
    }
    /* last, so that nothing after it refuses the stream: a stream-port stream takes its
     * place here (the REST port's took theirs before passing the handshake on) */
    if (lws_get_vhost(wsi) != ss->adopted_vh) {
        if (stream_reserve(ss) != 0) {
            log_event(LOG_WARN, "stream_refused", "reason=\"too many streams\"");
            return refuse(wsi, HTTP_STATUS_SERVICE_UNAVAILABLE, "too many streams");
        }
        c->reserved = 1;
    }
    return 0;
}

/* a stream that ends before or without ESTABLISHED/CLOSED gives its place back */
static int on_drop(stream_server *ss, client *c)
{
    if (c && c->reserved && !c->wsi) {
        c->reserved = 0;
        stream_release(ss);
    }
    return 0;
}

/* the stream is open: the client joins its session, hello and description queued */
static int on_established(stream_server *ss, client *c, struct lws *wsi)
{
    char uri[512] = "", id[80];
    const int reserved = c->reserved;
    memset(c, 0, sizeof *c);
    c->reserved = reserved;
    /* the filter checked both before the 101; a session deleted in between ends here */
    if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0 || stream_session_id_of(uri, id, sizeof id) != 0) {
        log_event(LOG_WARN, "stream_dropped", "reason=\"no stream path after the handshake\"");
        return -1;
    }
    c->s = pool_find(ss->d->pool, id);
    if (!c->s) {
        log_event(LOG_WARN, "stream_dropped", "reason=\"session gone after the handshake\" session=%s", id);
        return -1;
    }
    c->wsi = wsi;
    c->sub.rate = ss->d->cfg.default_rate;
    c->sub.fields = F_ALL;
    c->sub.subscribed = 1;
    session_view v;
    session_snapshot(c->s, &v);
    c->last_state = v.status;
    c->next = ss->clients;
    ss->clients = c;
    ss->nclients++;
    metrics_stream_clients(1);
    c->via_rest = lws_get_vhost(wsi) == ss->adopted_vh;
    if (strcmp(lws_get_protocol(wsi)->name, FOXWS_SUBPROTOCOL) == 0) {
        const char *names[FOXWS_MAX_INPUTS];
        double values[FOXWS_MAX_INPUTS];
        int ninputs = session_inputs_now(c->s, names, values, FOXWS_MAX_INPUTS);
        if (ninputs > FOXWS_MAX_INPUTS) ninputs = FOXWS_MAX_INPUTS;
        rod_frame shape;
        const int have_shape = session_frame_shape(c->s, &shape) == 0;
        c->fox = have_shape ? foxws_new(ninputs, &shape) : NULL;
        if (have_shape) rod_frame_free(&shape);
        c->sub.subscribed = 0; /* until it subscribes a channel */
        if (!c->fox) {
            log_event(LOG_WARN, "stream_dropped", "reason=\"no rod shape for a Foxglove client\" session=%s", id);
            return -1;
        }
        queue_ctl(c, foxws_server_info(id));
        queue_ctl(c, foxws_advertise(c->fox, names, ninputs));
        lws_callback_on_writable(wsi);
        log_event(LOG_INFO, "stream_open", "session=%s protocol=%s port=%s clients=%d", id, FOXWS_SUBPROTOCOL,
                  c->via_rest ? "rest" : "stream", ss->nclients);
        return 0;
    }
    char *sub_text = url_subscription(wsi);
    char *sub_reply = NULL;
    if (sub_text) {
        stream_action act;
        sub_reply = stream_handle_message(sub_text, strlen(sub_text), &c->sub, ss->d->cfg.max_rate, &act);
        free(sub_text);
    }
    queue_ctl(c, stream_hello_msg());
    queue_ctl(c, stream_description_msg(c->s, &c->sub, ss->d->cfg.max_rate));
    if (sub_reply) queue_ctl(c, sub_reply); /* "subscribed": what the URL asked for is in force */
    c->writable_requested = 1;
    lws_callback_on_writable(wsi);
    char peer[64] = "";
    c->via_rest = lws_get_vhost(wsi) == ss->adopted_vh;
    if (!c->via_rest) lws_get_peer_simple(wsi, peer, sizeof peer);
    else if (lws_hdr_custom_copy(wsi, peer, sizeof peer, "x-rodd-peer:", 12) < 0) peer[0] = '\0';
    log_event(LOG_INFO, "stream_open", "session=%s peer=%s port=%s clients=%d", id, log_q(peer),
              c->via_rest ? "rest" : "stream", ss->nclients);
    return 0;
}

/* the socket takes more: the next message, or the close once the last status is out */
static int on_writeable(stream_server *ss, client *c, struct lws *wsi)
{
    if (!c || !c->wsi) return 0;
    if (c->closing) {
        if (c->nctl) { /* the status that says why goes out before the close */
            if (write_one(ss, c) != 0) return -1;
            lws_callback_on_writable(wsi);
            return 0;
        }
        lws_close_reason(wsi, c->close_code, (unsigned char *)c->close_reason, strlen(c->close_reason));
        return -1;
    }
    return write_one(ss, c);
}

/* An oversize message in one frame of up to this many bytes (or 16 times ws_max_message;
 * 100,000 field names are 1.1 MB) is
 * read to its end, dropped and answered with an error status naming the limit, the stream
 * going on: closing with its rest unread made the kernel reset the connection, and the client
 * then lost the status and the close that said why (it saw a 1006: no answer). A frame
 * declared past that, or a message grown past the limit by continuations, is closed with
 * 1009 at once (a status before it, which such a client may miss). */
#define DRAIN_MIN (8 << 20)

static void too_big(client *c, size_t cap, int closing)
{
    char why[220];
    if (closing)
        snprintf(why, sizeof why, "a message is at most %zu bytes (the daemon's ws_max_message, RODD_WS_MAX_MESSAGE); "
                 "this one is longer: closing", cap);
    else
        snprintf(why, sizeof why, "a message is at most %zu bytes (the daemon's ws_max_message, RODD_WS_MAX_MESSAGE); "
                 "this one had %zu and was dropped", cap, c->rx_dropped);
    queue_ctl(c, c->fox ? foxws_status(2, why) : stream_status_msg("error", why, -1));
    if (!closing) return;
    snprintf(c->too_big_reason, sizeof c->too_big_reason, "message too large: over %zu bytes", cap);
    begin_close(c, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, c->too_big_reason);
}

/* a piece of a client message: gathered up to ws_max_message, handled when whole */
static int on_receive(stream_server *ss, client *c, struct lws *wsi, void *in, size_t len)
{
    if (!c || !c->wsi) return 0;
    const size_t cap = ss->d->cfg.ws_max_message;
    const size_t drain = cap > DRAIN_MIN / 16 ? 16 * cap : DRAIN_MIN;
    const size_t rest = lws_remaining_packet_payload(wsi); /* of this frame */
    /* what the frame's header declares counts too: a frame of 2^62 bytes, or continuations
     * without end, are found at once, not after the final fragment that may never come */
    if (!c->rx_too_big && (c->rxlen + len > cap || rest > cap - c->rxlen - len)) {
        c->rx_too_big = 1;
        c->rx_dropped = c->rxlen;
        c->rxlen = 0;
    }
    if (c->rx_too_big) {
        c->rx_dropped += len;
        if (c->closing) return 0;
        if (c->rx_dropped + rest > drain) {
            too_big(c, cap, 1);
        } else if (!rest) { /* the frame is read: the message ends here, or goes on past the limit */
            const int whole = lws_is_final_fragment(wsi);
            too_big(c, cap, !whole);
            c->rx_too_big = !whole;
            if (whole) lws_callback_on_writable(wsi);
        }
        return 0;
    }
    char *nb = realloc(c->rx, c->rxlen + len + 1);
    if (!nb) return -1;
    c->rx = nb;
    memcpy(c->rx + c->rxlen, in, len);
    c->rxlen += len;
    if (!lws_is_final_fragment(wsi) || rest) return 0;
    if (c->closing) {
        c->rxlen = 0;
        return 0;
    }
    handle_message(ss, c, c->rx, c->rxlen);
    c->rxlen = 0;
    return 0;
}

/* the client's rate timer: its next frame may be due */
static int on_timer(stream_server *ss, client *c)
{
    if (!c || !c->wsi) return 0;
    c->timer_set = 0;
    poke(ss, c, mono_now());
    return 0;
}

/* the stream closed: the client leaves its session and gives its place back */
static int on_closed(stream_server *ss, client *c)
{
    if (c && c->wsi) {
        log_event(LOG_INFO, "stream_closed", "session=%s dropped=%ld code=%d", c->s ? session_id(c->s) : "?", c->dropped,
                  c->closing ? (int)c->close_code : 0);
        client_unlink(ss, c);
        c->wsi = NULL;
    }
    if (c && c->reserved) {
        c->reserved = 0;
        stream_release(ss);
    }
    return 0;
}

/* other threads woke the service loop */
static int on_wake(stream_server *ss, struct lws *wsi)
{
    /* lws tells every vhost: one is enough */
    if (!ss || lws_get_vhost(wsi) != ss->adopted_vh) return 0;
    /* other threads woke us: streams handed over by the REST port, deleted sessions, then
     * new frames */
    pthread_mutex_lock(&ss->mu);
    session **gone = ss->gone;
    int ngone = ss->ngone;
    ss->gone = NULL;
    ss->ngone = ss->capgone = 0;
    int *adopt = ss->adopt, nadopt = ss->nadopt;
    ss->adopt = NULL;
    ss->nadopt = ss->capadopt = 0;
    pthread_mutex_unlock(&ss->mu);
    for (int i = 0; i < nadopt; i++)
        if (!lws_adopt_socket_vhost(ss->adopted_vh, adopt[i])) /* it closed the socket */
            log_event(LOG_WARN, "stream_refused", "reason=\"could not adopt a stream from the REST port\"");
    free(adopt);
    for (client *k = ss->clients; k; k = k->next) {
        for (int i = 0; i < ngone; i++)
            if (k->s == gone[i] && !k->closing) {
                queue_ctl(k, k->fox ? foxws_status(2, "the session was deleted")
                                    : stream_status_msg("error", "the session was deleted", -1));
                begin_close(k, LWS_CLOSE_STATUS_GOINGAWAY, "session deleted");
            }
        if (atomic_load(&ss->stop)) begin_close(k, LWS_CLOSE_STATUS_GOINGAWAY, "server shutting down");
    }
    for (int i = 0; i < ngone; i++) session_release(gone[i]);
    free(gone);
    const double now = mono_now();
    for (client *k = ss->clients; k; k = k->next) poke(ss, k, now);
    return 0;
}

/* libwebsockets' one callback for every stream event, each handled by its own function */
static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    stream_server *ss = the_server;
    client *c = user;
    switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        return on_filter(ss, c, wsi);
    case LWS_CALLBACK_WS_SERVER_DROP_PROTOCOL:
        return on_drop(ss, c);
    case LWS_CALLBACK_ESTABLISHED:
        return on_established(ss, c, wsi);
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return on_writeable(ss, c, wsi);
    case LWS_CALLBACK_RECEIVE:
        return on_receive(ss, c, wsi, in, len);
    case LWS_CALLBACK_TIMER:
        return on_timer(ss, c);
    case LWS_CALLBACK_CLOSED:
        return on_closed(ss, c);
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        return on_wake(ss, wsi);
    default:
        return 0;
    }
}

/* rodd's own protocol, the default; a client that asks for Foxglove's subprotocol gets the
 * second, served by the same callback (client.fox) */
static struct lws_protocols protocols[] = {
    {"rodd-stream", callback, sizeof(client), 4096, 0, NULL, 0},
    {FOXWS_SUBPROTOCOL, callback, sizeof(client), 4096, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static void lws_log(int level, const char *line)
{
    char msg[512];
    snprintf(msg, sizeof msg, "%s", line);
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r')) msg[--n] = '\0';
    log_event(level & LLL_ERR ? LOG_ERROR : LOG_WARN, "stream_server", "message=%s", log_q(msg));
}

static void wake_only(lws_sorted_usec_list_t *sul)
{
    (void)sul;
}

static void *waker(void *arg)
{
    stream_server *ss = arg;
    const struct timespec period = {0, (long)(WAKE_PERIOD * 1e9)};
    pthread_mutex_lock(&ss->wake_mu);
    while (!atomic_load(&ss->stop)) {
        if (!atomic_load(&ss->wake_pending)) {
            pthread_cond_wait(&ss->wake_cv, &ss->wake_mu);
            continue;
        }
        pthread_mutex_unlock(&ss->wake_mu);
        atomic_store(&ss->wake_pending, 0);
        pthread_mutex_lock(&ss->mu);
        if (atomic_load(&ss->running)) lws_cancel_service(ss->ctx);
        pthread_mutex_unlock(&ss->mu);
        nanosleep(&period, NULL);
        pthread_mutex_lock(&ss->wake_mu);
    }
    pthread_mutex_unlock(&ss->wake_mu);
    return NULL;
}

static void *service(void *arg)
{
    stream_server *ss = arg;
    prctl(PR_SET_NAME, "rodd-streams", 0, 0, 0); /* for top -H and the benches */
    while (!atomic_load(&ss->stop)) lws_service(ss->ctx, 0);
    /* draining: say goodbye to every client, for at most half a second. lws 4.1 ignores
     * lws_service's timeout and waits for its next event, and a client that reads nothing
     * gives none (its close frame never goes out): a timer bounds each wait */
    lws_cancel_service(ss->ctx);
    const double until = mono_now() + 0.5;
    while (ss->clients && mono_now() < until) {
        lws_sul_schedule(ss->ctx, 0, &ss->drain_tick, wake_only, 10 * LWS_US_PER_MS);
        lws_service(ss->ctx, 0);
    }
    lws_sul_cancel(&ss->drain_tick);
    return NULL;
}

/* The stream port's vhost (when ws_port is set) and the vhost that adopts the REST port's
 * streams, one context and one service thread for both: every client is in one list, under one
 * max_streams, whichever port it came in on. */
static struct lws_vhost *make_vhost(stream_server *ss, const char *name, int port, char *err, size_t errlen)
{
    daemon_ctx *d = ss->d;
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.vhost_name = name;
    info.port = port;
    info.protocols = protocols;
    info.retry_and_idle_policy = &ss->retry;
    info.options = LWS_SERVER_OPTION_VALIDATE_UTF8;
    if (port > 0) {
        info.iface = strcmp(d->cfg.listen_host, "0.0.0.0") == 0 || strcmp(d->cfg.listen_host, "*") == 0
                         ? NULL : d->cfg.listen_host;
        if (info.iface && strchr(info.iface, ':') == NULL) info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
    }
    struct lws_vhost *vh = lws_create_vhost(ss->ctx, &info);
    if (!vh && port > 0) snprintf(err, errlen, "cannot listen for streams on %s:%d", d->cfg.listen_host, port);
    else if (!vh) snprintf(err, errlen, "cannot set up the REST port's streams");
    return vh;
}

stream_server *stream_start(daemon_ctx *d, char *err, size_t errlen)
{
    stream_server *ss = calloc(1, sizeof *ss);
    if (!ss) return NULL;
    ss->d = d;
    pthread_mutex_init(&ss->mu, NULL);
    pthread_mutex_init(&ss->wake_mu, NULL);
    pthread_cond_init(&ss->wake_cv, NULL);
    the_server = ss;
    lws_set_log_level(LLL_ERR | LLL_WARN, lws_log);
    protocols[0].rx_buffer_size = protocols[1].rx_buffer_size = d->cfg.ws_max_message;
    /* a silent client is pinged after half the idle timeout (20 s at most) and dropped at the
     * idle timeout itself (a timeout under 20 s used to mean 30) */
    const double idle = d->cfg.stream_idle_timeout < 65535 ? d->cfg.stream_idle_timeout : 65535;
    const double ping = idle / 2 < 1 ? 1 : idle / 2 < 20 ? idle / 2 : 20;
    ss->retry.secs_since_valid_ping = (uint16_t)ping;
    ss->retry.secs_since_valid_hangup = (uint16_t)(idle > ping + 1 ? idle : ping + 1);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    /* lws 4.1 reads VALIDATE_UTF8 from the context's options, not the vhost's */
    info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS | LWS_SERVER_OPTION_VALIDATE_UTF8;
    info.fd_limit_per_thread = (unsigned)(d->cfg.max_streams + 64);
    /* room for a query of HANDSHAKE_QUERY_MAX and the usual headers, so that an overlong one
     * is refused with a status rather than by dropping the connection (lws's default: 4 KiB) */
    info.max_http_header_data = 16384;
    ss->ctx = lws_create_context(&info);
    if (!ss->ctx) snprintf(err, errlen, "cannot start the stream server");
    if (ss->ctx) ss->adopted_vh = make_vhost(ss, "rest", CONTEXT_PORT_NO_LISTEN_SERVER, err, errlen);
    if (ss->adopted_vh && d->ws_port > 0) ss->port_vh = make_vhost(ss, "stream-port", d->ws_port, err, errlen);
    if (!ss->adopted_vh || (d->ws_port > 0 && !ss->port_vh)) {
        if (ss->ctx) lws_context_destroy(ss->ctx);
        pthread_mutex_destroy(&ss->mu);
        pthread_mutex_destroy(&ss->wake_mu);
        pthread_cond_destroy(&ss->wake_cv);
        free(ss);
        the_server = NULL;
        return NULL;
    }
    if (pthread_create(&ss->thread, NULL, service, ss) != 0) {
        lws_context_destroy(ss->ctx);
        pthread_mutex_destroy(&ss->mu);
        pthread_mutex_destroy(&ss->wake_mu);
        pthread_cond_destroy(&ss->wake_cv);
        free(ss);
        the_server = NULL;
        snprintf(err, errlen, "cannot start the stream thread");
        return NULL;
    }
    atomic_store(&ss->running, 1);
    /* without a waker, frames wake the service thread themselves (stream_notify) */
    ss->waker_started = pthread_create(&ss->waker, NULL, waker, ss) == 0;
    return ss;
}

int stream_adopt(stream_server *ss, int fd)
{
    if (!ss) return -1;
    pthread_mutex_lock(&ss->mu);
    if (!atomic_load(&ss->running)) {
        pthread_mutex_unlock(&ss->mu);
        return -1;
    }
    if (ss->nadopt == ss->capadopt) {
        const int cap = ss->capadopt ? 2 * ss->capadopt : 8;
        int *a = realloc(ss->adopt, (size_t)cap * sizeof *a);
        if (!a) {
            pthread_mutex_unlock(&ss->mu);
            return -1;
        }
        ss->adopt = a;
        ss->capadopt = cap;
    }
    ss->adopt[ss->nadopt++] = fd;
    lws_cancel_service(ss->ctx);
    pthread_mutex_unlock(&ss->mu);
    return 0;
}

int stream_reserve(stream_server *ss)
{
    const int cap = ss->d->cfg.max_streams;
    int n = atomic_load(&ss->places);
    do {
        if (n >= cap) return -1;
    } while (!atomic_compare_exchange_weak(&ss->places, &n, n + 1));
    return 0;
}

void stream_release(stream_server *ss)
{
    atomic_fetch_sub(&ss->places, 1);
}

void stream_stop(stream_server *ss)
{
    if (!ss) return;
    /* from here on stream_notify and stream_session_gone do nothing: a worker that comes back
     * from a long step after the drain must not reach a destroyed context */
    pthread_mutex_lock(&ss->mu);
    if (!ss->ctx) { /* stopped already */
        pthread_mutex_unlock(&ss->mu);
        return;
    }
    atomic_store(&ss->running, 0);
    atomic_store(&ss->stop, 1);
    lws_cancel_service(ss->ctx);
    pthread_mutex_unlock(&ss->mu);
    if (ss->waker_started) {
        pthread_mutex_lock(&ss->wake_mu);
        pthread_cond_signal(&ss->wake_cv);
        pthread_mutex_unlock(&ss->wake_mu);
        pthread_join(ss->waker, NULL);
        ss->waker_started = 0;
    }
    pthread_join(ss->thread, NULL);
    lws_context_destroy(ss->ctx); /* closes what is left; CLOSED unlinks each client */
    ss->ctx = NULL;
    pthread_mutex_lock(&ss->mu);
    for (int i = 0; i < ss->ngone; i++) session_release(ss->gone[i]);
    free(ss->gone);
    ss->gone = NULL;
    ss->ngone = ss->capgone = 0;
    for (int i = 0; i < ss->nadopt; i++) close(ss->adopt[i]); /* handed over too late: its handshake sees the end */
    free(ss->adopt);
    ss->adopt = NULL;
    ss->nadopt = ss->capadopt = 0;
    pthread_mutex_unlock(&ss->mu);
    the_server = NULL;
    free(frame_out.b);
    memset(&frame_out, 0, sizeof frame_out);
}

void stream_free(stream_server *ss)
{
    if (!ss) return;
    stream_stop(ss);
    pthread_mutex_destroy(&ss->mu);
    pthread_mutex_destroy(&ss->wake_mu);
    pthread_cond_destroy(&ss->wake_cv);
    free(ss);
}

void stream_notify(void *ctx, session *s)
{
    (void)s;
    stream_server *ss = ctx;
    if (!ss) return;
    if (ss->waker_started) {
        request_wake(ss);
        return;
    }
    pthread_mutex_lock(&ss->mu);
    if (atomic_load(&ss->running)) lws_cancel_service(ss->ctx);
    pthread_mutex_unlock(&ss->mu);
}

void stream_session_gone(stream_server *ss, session *s)
{
    if (!ss) return;
    pthread_mutex_lock(&ss->mu);
    if (!atomic_load(&ss->running)) {
        pthread_mutex_unlock(&ss->mu);
        return;
    }
    if (ss->ngone == ss->capgone) {
        int cap = ss->capgone ? 2 * ss->capgone : 8;
        session **g = realloc(ss->gone, (size_t)cap * sizeof *g);
        if (!g) {
            pthread_mutex_unlock(&ss->mu);
            return;
        }
        ss->gone = g;
        ss->capgone = cap;
    }
    session_retain(s);
    ss->gone[ss->ngone++] = s;
    lws_cancel_service(ss->ctx);
    pthread_mutex_unlock(&ss->mu);
}
