/* The stream protocol's messages: see stream_codec.h. */
#include "stream_codec.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const field_names[] = {"s", "position", "rotation", "rho", "radius", "kappa", "nu",
                                          "energy", "volume_change"};

static char *json_text(cJSON *o)
{
    char *t = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return t;
}

char *stream_hello_msg(void)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", "hello");
    cJSON_AddStringToObject(o, "server", "rodd");
    cJSON_AddStringToObject(o, "version", ROD_VERSION);
    cJSON_AddNumberToObject(o, "protocol", STREAM_PROTOCOL_VERSION);
    const char *caps[] = {"subscribe", "rate", "fields", "binary", "status", "ping"};
    cJSON_AddItemToObject(o, "capabilities", cJSON_CreateStringArray(caps, 6));
    return json_text(o);
}

char *stream_description_msg(session *s, const stream_subscription *c, double max_rate)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", "description");
    cJSON *d = session_describe(s);
    char url[256];
    snprintf(url, sizeof url, "/v1/sessions/%s/stream", session_id(s));
    cJSON_AddStringToObject(d, "stream_path", url);
    cJSON_AddItemToObject(o, "session", d);
    cJSON_AddItemToObject(o, "fields", cJSON_CreateStringArray(field_names, 9));
    const char *formats[] = {"json", "binary"};
    cJSON_AddItemToObject(o, "formats", cJSON_CreateStringArray(formats, 2));
    cJSON *sub = cJSON_AddObjectToObject(o, "subscription");
    cJSON_AddNumberToObject(sub, "rate", c->rate);
    cJSON_AddStringToObject(sub, "format", c->binary ? "binary" : "json");
    cJSON_AddNumberToObject(sub, "max_rate", max_rate);
    cJSON *b = cJSON_AddObjectToObject(o, "binary_layout");
    cJSON_AddStringToObject(b, "header", "magic 'RODF' (4 bytes), u16 version 1, u16 header bytes 32, u64 seq, "
                                         "f64 t, u32 points n, u32 field mask; little-endian");
    cJSON_AddStringToObject(b, "body", "float32 arrays in field order for the bits set: s[n], position[3n], "
                                       "rotation[9n], rho[n], radius[n], kappa[3n], nu[3n], energy[3] "
                                       "(kinetic, elastic, gravity), volume_change[1]");
    return json_text(o);
}

char *stream_status_msg(const char *level, const char *message, long dropped)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", "status");
    cJSON_AddStringToObject(o, "level", level);
    cJSON_AddStringToObject(o, "message", message);
    if (dropped >= 0) cJSON_AddNumberToObject(o, "dropped", (double)dropped);
    return json_text(o);
}

char *stream_state_msg(const session_view *v)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", "state");
    cJSON_AddStringToObject(o, "state", session_status_name(v->status));
    cJSON_AddNumberToObject(o, "t", v->t);
    if (v->status == SESSION_FAILED) cJSON_AddStringToObject(o, "failure", v->failure);
    return json_text(o);
}

/* ---- frames ---- */

static int bput(stream_buf *b, const void *p, size_t n)
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

static void bstr(stream_buf *b, const char *s)
{
    bput(b, s, strlen(s));
}

static void bnum(stream_buf *b, double v)
{
    char t[32];
    int n = isfinite(v) ? snprintf(t, sizeof t, "%.7g", v) : snprintf(t, sizeof t, "null");
    bput(b, t, (size_t)n);
}

static void barr(stream_buf *b, const char *key, const double *v, int n, int w)
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

int stream_frame_payload(const stream_subscription *c, const published_frame *pf, stream_buf *out,
                         size_t headroom)
{
    out->len = 0;
    static const char zeros[64];
    for (size_t left = headroom; left > 0;) {
        const size_t n = left < sizeof zeros ? left : sizeof zeros;
        bput(out, zeros, n);
        left -= n;
    }
    const rod_frame *f = &pf->f;
    if (!c->binary && c->fields == F_ALL) {
        /* the published FRAME as is, with the op in front */
        size_t jl = 0;
        const char *json = frame_json(pf, &jl);
        if (!json) return -1;
        bstr(out, "{\"op\":\"frame\",");
        return bput(out, json + 1, jl - 1);
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
char *stream_handle_message(const char *text, size_t len, stream_subscription *c, double max_rate,
                            stream_action *act)
{
    act->describe = act->send_frame = 0;
    char *reply = NULL;
    cJSON *o = cJSON_ParseWithLength(text, len);
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(o, "op");
    if (!cJSON_IsString(op)) {
        reply = stream_status_msg("error", "messages are JSON objects with an \"op\"", -1);
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
                r = fmin(rate->valuedouble, max_rate);
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
            reply = stream_status_msg("error", problem, -1);
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
            reply = json_text(a);
            /* send the latest frame in the new form right away, even from an idle session */
            act->send_frame = 1;
        }
    } else if (strcmp(op->valuestring, "unsubscribe") == 0) {
        c->subscribed = 0;
        cJSON *a = cJSON_CreateObject();
        cJSON_AddStringToObject(a, "op", "unsubscribed");
        reply = json_text(a);
    } else if (strcmp(op->valuestring, "ping") == 0) {
        cJSON *a = cJSON_CreateObject();
        cJSON_AddStringToObject(a, "op", "pong");
        reply = json_text(a);
    } else if (strcmp(op->valuestring, "describe") == 0) {
        act->describe = 1;
    } else {
        char m[160];
        snprintf(m, sizeof m, "unknown op \"%.60s\"", op->valuestring);
        reply = stream_status_msg("error", m, -1);
    }
    cJSON_Delete(o);
    return reply;
}
