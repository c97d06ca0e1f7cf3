#include "stream.h"

#include "log.h"
#include "metrics.h"

#include <cjson/cJSON.h>
#include <libwebsockets.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CTL 8
#define PROTOCOL_VERSION 1

enum {
    F_S = 1 << 0, F_POSITION = 1 << 1, F_ROTATION = 1 << 2, F_RHO = 1 << 3, F_RADIUS = 1 << 4,
    F_KAPPA = 1 << 5, F_NU = 1 << 6, F_ENERGY = 1 << 7, F_VOLUME = 1 << 8, F_ALL = (1 << 9) - 1
};
static const char *const field_names[] = {"s", "position", "rotation", "rho", "radius", "kappa", "nu",
                                          "energy", "volume_change"};

typedef struct client {
    struct client *next;
    struct lws *wsi;
    session *s;
    char *ctl[MAX_CTL]; /* control messages waiting to go out, oldest first */
    int nctl;
    double rate;
    unsigned fields;
    int binary;
    int subscribed;     /* frames flow (on by default, off after unsubscribe) */
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
} client;

struct stream_server {
    daemon_ctx *d;
    struct lws_context *ctx;
    pthread_t thread;
    atomic_int stop, running;
    pthread_mutex_t mu;
    session **gone; /* deleted sessions whose clients must go; guarded by mu */
    int ngone, capgone;
    client *clients; /* service thread only */
    int nclients;
    lws_retry_bo_t retry;
};

typedef struct {
    char *b;
    size_t len, cap;
} buf;

static buf frame_out; /* the service thread's reusable frame buffer, freed at stop */

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

static char *json_text(cJSON *o)
{
    char *t = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return t;
}

static char *hello_msg(void)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", "hello");
    cJSON_AddStringToObject(o, "server", "rodd");
    cJSON_AddStringToObject(o, "version", ROD_VERSION);
    cJSON_AddNumberToObject(o, "protocol", PROTOCOL_VERSION);
    const char *caps[] = {"subscribe", "rate", "fields", "binary", "status", "ping"};
    cJSON_AddItemToObject(o, "capabilities", cJSON_CreateStringArray(caps, 6));
    return json_text(o);
}

static char *description_msg(stream_server *ss, client *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", "description");
    cJSON *d = session_describe(c->s);
    char url[256];
    snprintf(url, sizeof url, "/v1/sessions/%s/stream", c->s->id);
    cJSON_AddStringToObject(d, "stream_path", url);
    cJSON_AddItemToObject(o, "session", d);
    cJSON_AddItemToObject(o, "fields", cJSON_CreateStringArray(field_names, 9));
    const char *formats[] = {"json", "binary"};
    cJSON_AddItemToObject(o, "formats", cJSON_CreateStringArray(formats, 2));
    cJSON *sub = cJSON_AddObjectToObject(o, "subscription");
    cJSON_AddNumberToObject(sub, "rate", c->rate);
    cJSON_AddStringToObject(sub, "format", c->binary ? "binary" : "json");
    cJSON_AddNumberToObject(sub, "max_rate", ss->d->cfg.max_rate);
    cJSON *b = cJSON_AddObjectToObject(o, "binary_layout");
    cJSON_AddStringToObject(b, "header", "magic 'RODF' (4 bytes), u16 version 1, u16 header bytes 32, u64 seq, "
                                         "f64 t, u32 points n, u32 field mask; little-endian");
    cJSON_AddStringToObject(b, "body", "float32 arrays in field order for the bits set: s[n], position[3n], "
                                       "rotation[9n], rho[n], radius[n], kappa[3n], nu[3n], energy[3] "
                                       "(kinetic, elastic, gravity), volume_change[1]");
    return json_text(o);
}

static char *status_msg(const char *level, const char *message, long dropped)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", "status");
    cJSON_AddStringToObject(o, "level", level);
    cJSON_AddStringToObject(o, "message", message);
    if (dropped >= 0) cJSON_AddNumberToObject(o, "dropped", (double)dropped);
    return json_text(o);
}

static char *state_msg(session *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", "state");
    pthread_mutex_lock(&s->mu);
    cJSON_AddStringToObject(o, "state", session_status_name(s->status));
    cJSON_AddNumberToObject(o, "t", s->t);
    if (s->status == SESSION_FAILED) cJSON_AddStringToObject(o, "failure", s->failure);
    pthread_mutex_unlock(&s->mu);
    return json_text(o);
}

/* ---- frames ---- */

static int bput(buf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 8192;
        while (cap < b->len + n) cap *= 2;
        char *nb = realloc(b->b, cap);
        if (!nb) return -1;
        b->b = nb;
        b->cap = cap;
    }
    memcpy(b->b + b->len, p, n);
    b->len += n;
    return 0;
}

static void bstr(buf *b, const char *s)
{
    bput(b, s, strlen(s));
}

static void bnum(buf *b, double v)
{
    char t[32];
    int n = isfinite(v) ? snprintf(t, sizeof t, "%.7g", v) : snprintf(t, sizeof t, "null");
    bput(b, t, (size_t)n);
}

static void barr(buf *b, const char *key, const double *v, int n, int w)
{
    bstr(b, ",\"");
    bstr(b, key);
    bstr(b, "\":[");
    for (int i = 0; i < n; i++) {
        if (i) bstr(b, ",");
        if (w > 1) bstr(b, "[");
        for (int k = 0; k < w; k++) {
            if (k) bstr(b, ",");
            bnum(b, v[(size_t)w * i + k]);
        }
        if (w > 1) bstr(b, "]");
    }
    bstr(b, "]");
}

/* The frame for a client, after LWS_PRE bytes of headroom. */
static int frame_payload(const client *c, const published_frame *pf, buf *out)
{
    out->len = 0;
    char pre[LWS_PRE] = {0};
    bput(out, pre, LWS_PRE);
    const rod_frame *f = &pf->f;
    if (!c->binary && c->fields == F_ALL) {
        /* the published FRAME as is, with the op in front */
        bstr(out, "{\"op\":\"frame\",");
        return bput(out, pf->json + 1, pf->json_len - 1);
    }
    if (!c->binary) {
        char head[128];
        snprintf(head, sizeof head, "{\"op\":\"frame\",\"seq\":%llu,\"published\":%.6f,\"t\":",
                 (unsigned long long)pf->seq, pf->published);
        bstr(out, head);
        bnum(out, f->t);
        if (c->fields & F_S) barr(out, "s", f->s, f->n, 1);
        if (c->fields & F_POSITION) barr(out, "position", f->position, f->n, 3);
        if (c->fields & F_ROTATION) barr(out, "rotation", f->rotation, f->n, 9);
        if (c->fields & F_RHO) barr(out, "rho", f->rho, f->n, 1);
        if (c->fields & F_RADIUS) barr(out, "radius", f->radius, f->n, 1);
        if (c->fields & F_KAPPA) barr(out, "kappa", f->kappa, f->n, 3);
        if (c->fields & F_NU) barr(out, "nu", f->nu, f->n, 3);
        if (c->fields & F_ENERGY) {
            bstr(out, ",\"energy\":{\"kinetic\":");
            bnum(out, f->e_kinetic);
            bstr(out, ",\"elastic\":");
            bnum(out, f->e_elastic);
            bstr(out, ",\"gravity\":");
            bnum(out, f->e_gravity);
            bstr(out, "}");
        }
        if (c->fields & F_VOLUME) {
            bstr(out, ",\"volume_change\":");
            bnum(out, f->volume_change);
        }
        bstr(out, "}");
        return out->b ? 0 : -1;
    }
    /* binary: fixed little-endian header, then float32 arrays (x86 and ARM are little-endian;
     * the bytes are written one by one anyway) */
    unsigned char h[32] = {'R', 'O', 'D', 'F', 1, 0, 32, 0};
    uint64_t seq = pf->seq;
    for (int i = 0; i < 8; i++) h[8 + i] = (unsigned char)(seq >> (8 * i));
    uint64_t tb;
    memcpy(&tb, &f->t, 8);
    for (int i = 0; i < 8; i++) h[16 + i] = (unsigned char)(tb >> (8 * i));
    uint32_t n = (uint32_t)f->n, mask = c->fields;
    for (int i = 0; i < 4; i++) {
        h[24 + i] = (unsigned char)(n >> (8 * i));
        h[28 + i] = (unsigned char)(mask >> (8 * i));
    }
    bput(out, h, 32);
    const struct {
        unsigned bit;
        const double *v;
        size_t count;
    } parts[] = {{F_S, f->s, (size_t)n},           {F_POSITION, f->position, 3u * n},
                 {F_ROTATION, f->rotation, 9u * n}, {F_RHO, f->rho, (size_t)n},
                 {F_RADIUS, f->radius, (size_t)n},  {F_KAPPA, f->kappa, 3u * n},
                 {F_NU, f->nu, 3u * n}};
    for (size_t p = 0; p < sizeof parts / sizeof *parts; p++) {
        if (!(mask & parts[p].bit)) continue;
        for (size_t i = 0; i < parts[p].count; i++) {
            float x = (float)parts[p].v[i];
            unsigned char xb[4];
            uint32_t u;
            memcpy(&u, &x, 4);
            for (int k = 0; k < 4; k++) xb[k] = (unsigned char)(u >> (8 * k));
            bput(out, xb, 4);
        }
    }
    if (mask & F_ENERGY) {
        const double e[3] = {f->e_kinetic, f->e_elastic, f->e_gravity};
        for (int j = 0; j < 3; j++) {
            float x = (float)e[j];
            uint32_t u;
            memcpy(&u, &x, 4);
            unsigned char xb[4] = {(unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16),
                                   (unsigned char)(u >> 24)};
            bput(out, xb, 4);
        }
    }
    if (mask & F_VOLUME) {
        float x = (float)f->volume_change;
        uint32_t u;
        memcpy(&u, &x, 4);
        unsigned char xb[4] = {(unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16),
                               (unsigned char)(u >> 24)};
        bput(out, xb, 4);
    }
    return out->b ? 0 : -1;
}

/* ---- client messages ---- */
static void handle_message(stream_server *ss, client *c, const char *text, size_t len)
{
    cJSON *o = cJSON_ParseWithLength(text, len);
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(o, "op");
    if (!cJSON_IsString(op)) {
        queue_ctl(c, status_msg("error", "messages are JSON objects with an \"op\"", -1));
    } else if (strcmp(op->valuestring, "subscribe") == 0) {
        const cJSON *rate = cJSON_GetObjectItemCaseSensitive(o, "rate");
        const cJSON *fields = cJSON_GetObjectItemCaseSensitive(o, "fields");
        const cJSON *format = cJSON_GetObjectItemCaseSensitive(o, "format");
        char problem[160] = "";
        double r = c->rate;
        unsigned mask = c->fields;
        int binary = c->binary;
        if (rate) {
            if (!cJSON_IsNumber(rate) || !(rate->valuedouble > 0))
                snprintf(problem, sizeof problem, "rate must be a number of frames per second > 0");
            else
                r = fmin(rate->valuedouble, ss->d->cfg.max_rate);
        }
        if (fields && !problem[0]) {
            if (!cJSON_IsArray(fields)) snprintf(problem, sizeof problem, "fields must be an array of names");
            mask = 0;
            for (const cJSON *e = fields ? fields->child : NULL; e && !problem[0]; e = e->next) {
                int bit = -1;
                for (int i = 0; i < 9 && cJSON_IsString(e); i++)
                    if (strcmp(field_names[i], e->valuestring) == 0) bit = i;
                if (bit < 0)
                    snprintf(problem, sizeof problem, "unknown field %s", cJSON_IsString(e) ? e->valuestring : "?");
                else
                    mask |= 1u << bit;
            }
            if (!problem[0] && !mask) mask = F_ALL;
        }
        if (format && !problem[0]) {
            if (cJSON_IsString(format) && strcmp(format->valuestring, "binary") == 0) binary = 1;
            else if (cJSON_IsString(format) && strcmp(format->valuestring, "json") == 0) binary = 0;
            else snprintf(problem, sizeof problem, "format must be \"json\" or \"binary\"");
        }
        if (problem[0]) {
            queue_ctl(c, status_msg("error", problem, -1));
        } else {
            c->rate = r;
            c->fields = mask;
            c->binary = binary;
            c->subscribed = 1;
            cJSON *a = cJSON_CreateObject();
            cJSON_AddStringToObject(a, "op", "subscribed");
            cJSON_AddNumberToObject(a, "rate", r);
            cJSON_AddStringToObject(a, "format", binary ? "binary" : "json");
            cJSON *fl = cJSON_AddArrayToObject(a, "fields");
            for (int i = 0; i < 9; i++)
                if (mask & (1u << i)) cJSON_AddItemToArray(fl, cJSON_CreateString(field_names[i]));
            queue_ctl(c, json_text(a));
            /* send the latest frame in the new form right away, even from an idle session */
            c->last_seq = 0;
            c->writable_requested = 1;
        }
    } else if (strcmp(op->valuestring, "unsubscribe") == 0) {
        c->subscribed = 0;
        cJSON *a = cJSON_CreateObject();
        cJSON_AddStringToObject(a, "op", "unsubscribed");
        queue_ctl(c, json_text(a));
    } else if (strcmp(op->valuestring, "ping") == 0) {
        cJSON *a = cJSON_CreateObject();
        cJSON_AddStringToObject(a, "op", "pong");
        queue_ctl(c, json_text(a));
    } else if (strcmp(op->valuestring, "describe") == 0) {
        queue_ctl(c, description_msg(ss, c));
    } else {
        char m[160];
        snprintf(m, sizeof m, "unknown op \"%.60s\"", op->valuestring);
        queue_ctl(c, status_msg("error", m, -1));
    }
    cJSON_Delete(o);
    lws_callback_on_writable(c->wsi);
}

/* ---- connection checks ---- */
static void host_of(const char *url_or_host, char *out, size_t len)
{
    const char *p = strstr(url_or_host, "://");
    p = p ? p + 3 : url_or_host;
    size_t i = 0;
    if (*p == '[') {
        while (*p && *p != ']' && i < len - 1) out[i++] = *p++;
        if (*p == ']' && i < len - 1) out[i++] = *p;
    } else {
        while (*p && *p != ':' && *p != '/' && i < len - 1) out[i++] = *p++;
    }
    out[i] = '\0';
}

static int origin_ok(stream_server *ss, struct lws *wsi)
{
    char origin[256] = "", host[256] = "";
    if (lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) <= 0) return 1; /* not a browser */
    const char *allowed = ss->d->cfg.allowed_origins;
    if (allowed[0]) {
        char list[sizeof ss->d->cfg.allowed_origins];
        snprintf(list, sizeof list, "%s", allowed);
        char *save = NULL;
        for (char *it = strtok_r(list, ",", &save); it; it = strtok_r(NULL, ",", &save))
            if (strcmp(it, "*") == 0 || strcmp(it, origin) == 0) return 1;
    }
    /* the viewer is served by the same host on the REST port */
    char oh[256], hh[256];
    lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST);
    host_of(origin, oh, sizeof oh);
    host_of(host, hh, sizeof hh);
    return oh[0] && strcmp(oh, hh) == 0;
}

/* "/v1/sessions/ID/stream" -> ID */
static int session_id_of(const char *uri, char *id, size_t len)
{
    if (strncmp(uri, "/v1/sessions/", 13) != 0) return -1;
    const char *p = uri + 13, *slash = strchr(p, '/');
    if (!slash || strncmp(slash, "/stream", 7) != 0 || (slash[7] && slash[7] != '?')) return -1;
    size_t n = (size_t)(slash - p);
    if (!n || n >= len) return -1;
    memcpy(id, p, n);
    id[n] = '\0';
    return 0;
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
static void poke(stream_server *ss, client *c, double now)
{
    if (!c->s || c->closing) return;
    pthread_mutex_lock(&c->s->mu);
    const uint64_t seq = c->s->seq;
    const session_status st = c->s->status;
    pthread_mutex_unlock(&c->s->mu);
    (void)ss;
    if (st != c->last_state) {
        c->last_state = st;
        queue_ctl(c, state_msg(c->s));
        lws_callback_on_writable(c->wsi);
    }
    if (!c->subscribed || seq <= c->last_seq) return;
    if (c->writable_requested) {
        /* the previous frame has not gone out yet: it is superseded, latest wins */
        if (seq > c->pending_seq && c->pending_seq > c->last_seq) {
            c->dropped += (long)(seq - c->pending_seq);
            metrics_frames_dropped((long)(seq - c->pending_seq));
        }
        c->pending_seq = seq;
        return;
    }
    const double wait = 1.0 / c->rate - (now - c->last_sent);
    if (wait <= 0) {
        c->pending_seq = seq;
        c->writable_requested = 1;
        lws_callback_on_writable(c->wsi);
    } else if (!c->timer_set) {
        c->timer_set = 1;
        lws_set_timer_usecs(c->wsi, (lws_usec_t)(wait * 1e6) + 1);
    }
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
        if (c->nctl || (c->subscribed && c->writable_requested)) lws_callback_on_writable(c->wsi);
        return rc;
    }
    if (!c->subscribed || !c->s) {
        c->writable_requested = 0;
        return 0;
    }
    published_frame *pf = session_latest(c->s);
    c->writable_requested = 0;
    if (!pf || pf->seq <= c->last_seq) {
        frame_release(pf);
        return 0;
    }
    buf *out = &frame_out;
    int rc = frame_payload(c, pf, out);
    if (rc == 0) {
        size_t n = out->len - LWS_PRE;
        rc = lws_write(c->wsi, (unsigned char *)out->b + LWS_PRE, n, c->binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT) <
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
        queue_ctl(c, status_msg("warning", m, c->dropped));
        c->dropped_reported = c->dropped;
        c->last_status = now;
        lws_callback_on_writable(c->wsi);
    }
    poke(ss, c, now); /* a newer frame may already wait */
    return rc;
}

/* The handshake is still HTTP here, so a refusal can say why with a status (lws issue #478). */
static int refuse(struct lws *wsi, unsigned int status, const char *why)
{
    lws_return_http_status(wsi, status, why);
    return 1;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    stream_server *ss = the_server;
    client *c = user;
    switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: {
        char uri[512] = "", id[80];
        if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0 || session_id_of(uri, id, sizeof id) != 0) {
            log_event(LOG_WARN, "stream_refused", "reason=\"not a stream path\" uri=%s", log_q(uri));
            return refuse(wsi, HTTP_STATUS_NOT_FOUND, "not a stream path");
        }
        if (ss->nclients >= ss->d->cfg.max_streams) {
            log_event(LOG_WARN, "stream_refused", "reason=\"too many streams\"");
            return refuse(wsi, HTTP_STATUS_SERVICE_UNAVAILABLE, "too many streams");
        }
        if (!origin_ok(ss, wsi)) {
            log_event(LOG_WARN, "stream_refused", "reason=\"origin not allowed\" session=%s", id);
            return refuse(wsi, HTTP_STATUS_FORBIDDEN, "origin not allowed");
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
        return 0;
    }
    case LWS_CALLBACK_ESTABLISHED: {
        char uri[512] = "", id[80];
        memset(c, 0, sizeof *c);
        if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0 || session_id_of(uri, id, sizeof id) != 0)
            return -1;
        c->s = pool_find(ss->d->pool, id);
        if (!c->s) return -1;
        c->wsi = wsi;
        c->rate = ss->d->cfg.default_rate;
        c->fields = F_ALL;
        c->subscribed = 1;
        pthread_mutex_lock(&c->s->mu);
        c->last_state = c->s->status;
        pthread_mutex_unlock(&c->s->mu);
        c->next = ss->clients;
        ss->clients = c;
        ss->nclients++;
        metrics_stream_clients(1);
        queue_ctl(c, hello_msg());
        queue_ctl(c, description_msg(ss, c));
        c->writable_requested = 1;
        lws_callback_on_writable(wsi);
        char peer[64] = "";
        lws_get_peer_simple(wsi, peer, sizeof peer);
        log_event(LOG_INFO, "stream_open", "session=%s peer=%s clients=%d", id, peer, ss->nclients);
        return 0;
    }
    case LWS_CALLBACK_SERVER_WRITEABLE:
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
    case LWS_CALLBACK_RECEIVE: {
        if (!c || !c->wsi) return 0;
        const size_t cap = ss->d->cfg.ws_max_message;
        if (c->rxlen + len > cap) c->rx_too_big = 1;
        if (!c->rx_too_big) {
            char *nb = realloc(c->rx, c->rxlen + len + 1);
            if (!nb) return -1;
            c->rx = nb;
            memcpy(c->rx + c->rxlen, in, len);
            c->rxlen += len;
        }
        if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi)) return 0;
        if (c->rx_too_big) {
            c->rx_too_big = 0;
            c->rxlen = 0;
            begin_close(c, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, "message too large");
            return 0;
        }
        if (c->closing) {
            c->rxlen = 0;
            return 0;
        }
        handle_message(ss, c, c->rx, c->rxlen);
        c->rxlen = 0;
        return 0;
    }
    case LWS_CALLBACK_TIMER:
        if (!c || !c->wsi) return 0;
        c->timer_set = 0;
        poke(ss, c, mono_now());
        return 0;
    case LWS_CALLBACK_CLOSED:
        if (c && c->wsi) {
            log_event(LOG_INFO, "stream_closed", "session=%s dropped=%ld", c->s ? c->s->id : "?", c->dropped);
            client_unlink(ss, c);
            c->wsi = NULL;
        }
        return 0;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED: {
        /* other threads woke us: deleted sessions first, then new frames */
        pthread_mutex_lock(&ss->mu);
        session **gone = ss->gone;
        int ngone = ss->ngone;
        ss->gone = NULL;
        ss->ngone = ss->capgone = 0;
        pthread_mutex_unlock(&ss->mu);
        for (client *k = ss->clients; k; k = k->next) {
            for (int i = 0; i < ngone; i++)
                if (k->s == gone[i] && !k->closing) {
                    queue_ctl(k, status_msg("error", "the session was deleted", -1));
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
    default:
        return 0;
    }
}

static struct lws_protocols protocols[] = {
    {"rodd-stream", callback, sizeof(client), 4096, 0, NULL, 0},
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

static void *service(void *arg)
{
    stream_server *ss = arg;
    while (!atomic_load(&ss->stop)) lws_service(ss->ctx, 0);
    /* draining: say goodbye to every client, for at most half a second */
    lws_cancel_service(ss->ctx);
    const double until = mono_now() + 0.5;
    while (ss->clients && mono_now() < until) lws_service(ss->ctx, 10);
    return NULL;
}

stream_server *stream_start(daemon_ctx *d, char *err, size_t errlen)
{
    stream_server *ss = calloc(1, sizeof *ss);
    if (!ss) return NULL;
    ss->d = d;
    pthread_mutex_init(&ss->mu, NULL);
    the_server = ss;
    lws_set_log_level(LLL_ERR | LLL_WARN, lws_log);
    protocols[0].rx_buffer_size = d->cfg.ws_max_message;
    ss->retry.secs_since_valid_ping = 20;
    ss->retry.secs_since_valid_hangup = (uint16_t)(d->cfg.stream_idle_timeout > 20 ? d->cfg.stream_idle_timeout : 30);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = d->ws_port;
    info.iface = strcmp(d->cfg.listen_host, "0.0.0.0") == 0 || strcmp(d->cfg.listen_host, "*") == 0
                     ? NULL : d->cfg.listen_host;
    info.protocols = protocols;
    info.retry_and_idle_policy = &ss->retry;
    info.options = LWS_SERVER_OPTION_VALIDATE_UTF8;
    if (info.iface && strchr(info.iface, ':') == NULL) info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
    info.fd_limit_per_thread = (unsigned)(d->cfg.max_streams + 64);
    ss->ctx = lws_create_context(&info);
    if (!ss->ctx) {
        snprintf(err, errlen, "cannot listen for streams on %s:%d", d->cfg.listen_host, d->ws_port);
        pthread_mutex_destroy(&ss->mu);
        free(ss);
        the_server = NULL;
        return NULL;
    }
    if (pthread_create(&ss->thread, NULL, service, ss) != 0) {
        lws_context_destroy(ss->ctx);
        free(ss);
        the_server = NULL;
        snprintf(err, errlen, "cannot start the stream thread");
        return NULL;
    }
    atomic_store(&ss->running, 1);
    return ss;
}

void stream_stop(stream_server *ss)
{
    if (!ss) return;
    atomic_store(&ss->stop, 1);
    lws_cancel_service(ss->ctx);
    pthread_join(ss->thread, NULL);
    lws_context_destroy(ss->ctx); /* closes what is left; CLOSED unlinks each client */
    pthread_mutex_lock(&ss->mu);
    for (int i = 0; i < ss->ngone; i++) session_release(ss->gone[i]);
    free(ss->gone);
    pthread_mutex_unlock(&ss->mu);
    pthread_mutex_destroy(&ss->mu);
    the_server = NULL;
    free(frame_out.b);
    memset(&frame_out, 0, sizeof frame_out);
    free(ss);
}

void stream_notify(void *ctx, session *s)
{
    (void)s;
    stream_server *ss = ctx;
    if (ss && atomic_load(&ss->running)) lws_cancel_service(ss->ctx);
}

void stream_session_gone(stream_server *ss, session *s)
{
    if (!ss) return;
    pthread_mutex_lock(&ss->mu);
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
    pthread_mutex_unlock(&ss->mu);
    lws_cancel_service(ss->ctx);
}
