/* The stream protocol's messages: see stream_codec.h. */
#include "stream_codec.h"

#include "frame_fields.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static cJSON *field_name_array(void)
{
    const char *names[FRAME_F_COUNT];
    for (int i = 0; i < FRAME_F_COUNT; i++) names[i] = frame_field_name(i);
    return cJSON_CreateStringArray(names, FRAME_F_COUNT);
}

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
    cJSON_AddItemToObject(o, "fields", field_name_array());
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
    cJSON_AddStringToObject(b, "rods", "a model of several rods sends version 2: the header's u32 counts rods; "
                                       "per rod u32 points n, u32 name bytes k, the name padded with NULs to a "
                                       "multiple of 4, its per-point arrays as above; then energy[3] and "
                                       "volume_change[1] once");
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

/* The subscription's fields with the stream's header members; the mechanics (a moving base,
 * bodies, constraints, contacts) come with the whole FRAME only. */
int stream_frame_payload(const stream_subscription *c, const published_frame *pf, stream_buf *out,
                         size_t headroom)
{
    out->len = 0;
    out->oom = 0;
    static const char zeros[64];
    for (size_t left = headroom; left > 0;) {
        const size_t n = left < sizeof zeros ? left : sizeof zeros;
        codec_put(out, zeros, n);
        left -= n;
    }
    if (!c->binary && c->fields == F_ALL) {
        /* the published FRAME as is, with the op in front */
        size_t jl = 0;
        const char *json = frame_json(pf, &jl);
        if (!json) return -1;
        codec_str(out, "{\"op\":\"frame\",");
        codec_put(out, json + 1, jl - 1);
        return out->oom ? -1 : 0;
    }
    if (!c->binary) {
        char head[128];
        snprintf(head, sizeof head, "\"op\":\"frame\",\"seq\":%llu,\"published\":%.6f,",
                 (unsigned long long)pf->seq, pf->published);
        return frame_codec_json(out, &pf->f, c->fields, 0, head);
    }
    return frame_codec_binary(out, &pf->f, c->fields, pf->seq);
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
                const unsigned bit = cJSON_IsString(e) ? frame_field_bit(e->valuestring) : 0;
                if (!bit)
                    snprintf(problem, sizeof problem, "unknown field %s", cJSON_IsString(e) ? e->valuestring : "?");
                else
                    mask |= bit;
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
            for (int i = 0; i < FRAME_F_COUNT; i++)
                if (mask & (1u << i)) cJSON_AddItemToArray(fl, cJSON_CreateString(frame_field_name(i)));
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
