/* The Foxglove WebSocket protocol for one client (stream_foxglove.h). Channel ids are the
 * foxglove_channels.h indexes + 1; a client's subscription ids are its own (uint32), at most
 * one per channel, as the protocol wants. */
#include "stream_foxglove.h"

#include "foxglove_channels.h"
#include "frame_fields.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_SUB (-1.0) /* a channel nobody subscribed */

struct foxws {
    double sub[FOX_CHANNELS];            /* each channel's subscription id, or NO_SUB */
    unsigned char *queued[FOX_CHANNELS]; /* messageData waiting, in channel order */
    size_t queued_len[FOX_CHANNELS];
    unsigned long long sent[FOX_CHANNELS]; /* the frame each channel was last queued (its seq) */
    int next;                            /* the next of queued to hand out */
    unsigned char *taken;                /* the one handed out last, freed at the next call */
};

foxws *foxws_new(void)
{
    foxws *x = calloc(1, sizeof *x);
    if (x)
        for (int i = 0; i < FOX_CHANNELS; i++) x->sub[i] = NO_SUB;
    return x;
}

static void drop_queue(foxws *x)
{
    for (int i = 0; i < FOX_CHANNELS; i++) {
        free(x->queued[i]);
        x->queued[i] = NULL;
    }
    x->next = 0;
}

void foxws_free(foxws *x)
{
    if (!x) return;
    drop_queue(x);
    free(x->taken);
    free(x);
}

static char *print(cJSON *o)
{
    char *t = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return t;
}

char *foxws_server_info(const char *session_id)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", "serverInfo");
    cJSON_AddStringToObject(o, "name", "rodd");
    cJSON_AddArrayToObject(o, "capabilities"); /* none: rodd only publishes */
    cJSON *enc = cJSON_AddArrayToObject(o, "supportedEncodings");
    cJSON_AddItemToArray(enc, cJSON_CreateString("json"));
    cJSON *meta = cJSON_AddObjectToObject(o, "metadata");
    cJSON_AddStringToObject(meta, "session", session_id);
    cJSON_AddStringToObject(o, "sessionId", session_id);
    return print(o);
}

char *foxws_advertise(void)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", "advertise");
    cJSON *chs = cJSON_AddArrayToObject(o, "channels");
    for (int i = 0; i < FOX_CHANNELS; i++) {
        const fox_channel *c = fox_channel_get(i);
        cJSON *ch = cJSON_CreateObject();
        cJSON_AddNumberToObject(ch, "id", i + 1);
        cJSON_AddStringToObject(ch, "topic", c->topic);
        cJSON_AddStringToObject(ch, "encoding", "json");
        cJSON_AddStringToObject(ch, "schemaName", c->schema_name);
        cJSON_AddStringToObject(ch, "schema", c->schema);
        cJSON_AddStringToObject(ch, "schemaEncoding", "jsonschema");
        cJSON_AddItemToArray(chs, ch);
    }
    return print(o);
}

char *foxws_status(int level, const char *message)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", "status");
    cJSON_AddNumberToObject(o, "level", level);
    cJSON_AddStringToObject(o, "message", message);
    return print(o);
}

static int is_u32(const cJSON *v)
{
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 4294967295.0 &&
           v->valuedouble == floor(v->valuedouble);
}

/* subscribe: [{id, channelId}]; every good one is taken, the first bad one is reported. */
static char *subscribe(foxws *x, const cJSON *subs, int *resend)
{
    char why[160] = "";
    const cJSON *s;
    cJSON_ArrayForEach(s, subs) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(s, "id");
        const cJSON *ch = cJSON_GetObjectItemCaseSensitive(s, "channelId");
        const int c = is_u32(ch) ? (int)fmin(ch->valuedouble, 1e9) - 1 : -1;
        int taken = 0;
        for (int i = 0; is_u32(id) && i < FOX_CHANNELS; i++) taken |= x->sub[i] == id->valuedouble;
        if (!is_u32(id) || !is_u32(ch)) {
            if (!why[0]) snprintf(why, sizeof why, "a subscription needs an id and a channelId (uint32)");
        } else if (c < 0 || c >= FOX_CHANNELS) {
            if (!why[0]) snprintf(why, sizeof why, "no channel %.0f (channels are 1..%d)", ch->valuedouble, FOX_CHANNELS);
        } else if (taken || x->sub[c] != NO_SUB) {
            if (!why[0]) snprintf(why, sizeof why, "subscription %.0f or channel %d is already subscribed",
                                  id->valuedouble, c + 1);
        } else {
            x->sub[c] = id->valuedouble;
            *resend = 1;
        }
    }
    return why[0] ? foxws_status(2, why) : NULL;
}

static char *unsubscribe(foxws *x, const cJSON *ids)
{
    char why[120] = "";
    const cJSON *v;
    cJSON_ArrayForEach(v, ids) {
        int found = 0;
        for (int i = 0; is_u32(v) && i < FOX_CHANNELS; i++)
            if (x->sub[i] == v->valuedouble) {
                x->sub[i] = NO_SUB;
                x->sent[i] = 0;
                found = 1;
            }
        if (!found && !why[0])
            snprintf(why, sizeof why, "no subscription %s%.0f", is_u32(v) ? "" : "id ", cJSON_IsNumber(v) ? v->valuedouble : -1);
    }
    return why[0] ? foxws_status(1, why) : NULL;
}

char *foxws_handle(foxws *x, const char *text, size_t len, int *resend)
{
    *resend = 0;
    cJSON *m = cJSON_ParseWithLength(text, len);
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(m, "op");
    char *reply;
    if (!cJSON_IsString(op)) {
        reply = foxws_status(2, "a message is a JSON object with \"op\"");
    } else if (strcmp(op->valuestring, "subscribe") == 0) {
        const cJSON *subs = cJSON_GetObjectItemCaseSensitive(m, "subscriptions");
        reply = cJSON_IsArray(subs) ? subscribe(x, subs, resend) : foxws_status(2, "subscribe needs \"subscriptions\"");
    } else if (strcmp(op->valuestring, "unsubscribe") == 0) {
        const cJSON *ids = cJSON_GetObjectItemCaseSensitive(m, "subscriptionIds");
        reply = cJSON_IsArray(ids) ? unsubscribe(x, ids) : foxws_status(2, "unsubscribe needs \"subscriptionIds\"");
    } else {
        char why[160];
        snprintf(why, sizeof why, "rodd does not support \"%.60s\" (its capabilities are none)", op->valuestring);
        reply = foxws_status(1, why);
    }
    cJSON_Delete(m);
    return reply;
}

int foxws_subscribed(const foxws *x)
{
    for (int i = 0; i < FOX_CHANNELS; i++)
        if (x->sub[i] != NO_SUB) return 1;
    return 0;
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}

int foxws_queue_frame(foxws *x, const rod_frame *f, unsigned long long seq, size_t headroom)
{
    drop_queue(x); /* latest wins */
    for (int i = 0; i < FOX_CHANNELS; i++) {
        if (x->sub[i] == NO_SUB || x->sent[i] == seq) continue;
        size_t n;
        char *json = fox_message(i, f, FRAME_F_ALL, &n);
        unsigned char *b = json ? malloc(headroom + 13 + n) : NULL;
        if (!b) {
            free(json);
            drop_queue(x);
            return -1;
        }
        unsigned char *p = b + headroom;
        p[0] = 0x01; /* messageData */
        put_le(p + 1, (uint32_t)x->sub[i], 4);
        put_le(p + 5, fox_time_ns(f->t), 8);
        memcpy(p + 13, json, n);
        free(json);
        x->queued[i] = b;
        x->queued_len[i] = 13 + n;
        x->sent[i] = seq;
    }
    return 0;
}

int foxws_next(foxws *x, unsigned char **buf, size_t *len)
{
    free(x->taken);
    x->taken = NULL;
    while (x->next < FOX_CHANNELS && !x->queued[x->next]) x->next++;
    if (x->next == FOX_CHANNELS) return 0;
    x->taken = x->queued[x->next];
    *buf = x->taken;
    *len = x->queued_len[x->next];
    x->queued[x->next++] = NULL;
    return 1;
}

int foxws_pending(const foxws *x)
{
    for (int i = x->next; i < FOX_CHANNELS; i++)
        if (x->queued[i]) return 1;
    return 0;
}
