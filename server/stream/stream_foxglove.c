/* The Foxglove WebSocket protocol for one client (stream_foxglove.h). Channel ids are the
 * foxglove_channels.h indexes + 1, then the inputs' channel (live only: recordings do not keep
 * the inputs), then (several rods) each rod's; a client's subscription ids are its own
 * (uint32), at most one per channel, as the protocol wants. */
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
#define KIND_INPUTS FOX_CHANNELS       /* the inputs' channel */
#define KIND_BASE (FOX_CHANNELS + 1)   /* a rod's base pose (several rods) */
#define FIRST_ROD_ID 6                 /* several rods: rod r's scene, tip, base are 6 + 3r, 7 + 3r, 8 + 3r */

/* An advertised channel: its id, what it carries and (several rods) whose. */
typedef struct {
    int id, kind, rod;
    char topic[96];
} fox_ch;

struct foxws {
    int nch;                      /* channels advertised */
    fox_ch *ch;                   /* nch, in id order */
    double *sub;                  /* each channel's subscription id, or NO_SUB */
    unsigned char **queued;       /* messageData waiting, in channel order */
    size_t *queued_len;
    unsigned long long *sent;     /* the frame each channel was last queued (its seq) */
    char ids[64];                 /* the ids, for a subscription to another ("1..5") */
    int next;                     /* the next of queued to hand out */
    unsigned char *taken;         /* the one handed out last, freed at the next call */
};

static void add_channel(foxws *x, int id, int kind, int rod, const char *topic)
{
    fox_ch *c = &x->ch[x->nch++];
    c->id = id;
    c->kind = kind;
    c->rod = rod;
    snprintf(c->topic, sizeof c->topic, "%s", topic);
}

/* The ids as ranges: "1..5", "3..11" (names say which is which) */
static void describe_ids(foxws *x)
{
    char *o = x->ids;
    size_t room = sizeof x->ids;
    for (int i = 0; i < x->nch && room > 1;) {
        int j = i;
        while (j + 1 < x->nch && x->ch[j + 1].id == x->ch[j].id + 1) j++;
        const int n = j > i ? snprintf(o, room, "%s%d..%d", i ? ", " : "", x->ch[i].id, x->ch[j].id)
                            : snprintf(o, room, "%s%d", i ? ", " : "", x->ch[i].id);
        if (n < 0 || (size_t)n >= room) break;
        o += n, room -= (size_t)n;
        i = j + 1;
    }
}

foxws *foxws_new(int ninputs, const rod_frame *shape)
{
    const int nrods = shape ? shape->nrods : 0;
    foxws *x = calloc(1, sizeof *x);
    const size_t cap = FOX_CHANNELS + 1 + 3 * (size_t)nrods;
    if (!x || !(x->ch = calloc(cap, sizeof *x->ch)) || !(x->sub = malloc(cap * sizeof *x->sub)) ||
        !(x->queued = calloc(cap, sizeof *x->queued)) || !(x->queued_len = calloc(cap, sizeof *x->queued_len)) ||
        !(x->sent = calloc(cap, sizeof *x->sent))) {
        foxws_free(x);
        return NULL;
    }
    /* one rod: /rod/scene, /rod/tip, /rod/energy, /rod/volume_change as 1..4, as ever; several:
     * the MCAP export's topics, each rod's scene, tip and (a joined rod's) base of its own */
    for (int i = 0; i < FOX_CHANNELS; i++)
        if (!nrods || (i != FOX_SCENE && i != FOX_TIP)) add_channel(x, i + 1, i, -1, fox_channel_get(i)->topic);
    if (ninputs > 0) add_channel(x, FOXWS_INPUTS_CHANNEL, KIND_INPUTS, -1, FOXWS_INPUTS_TOPIC);
    for (int r = 0; r < nrods; r++) {
        char topic[96];
        static const char *const what[3] = {"scene", "tip", "base"};
        for (int k = 0; k < 3; k++) {
            if (k == 2 && !shape->rods[r].base_moving) continue;
            snprintf(topic, sizeof topic, "/rods/%s/%s", shape->rods[r].name, what[k]);
            add_channel(x, FIRST_ROD_ID + 3 * r + k, k == 0 ? FOX_SCENE : k == 1 ? FOX_TIP : KIND_BASE, r, topic);
        }
    }
    for (int i = 0; i < x->nch; i++) x->sub[i] = NO_SUB;
    describe_ids(x);
    return x;
}

static void drop_queue(foxws *x)
{
    for (int i = 0; x->queued && i < x->nch; i++) {
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
    free(x->ch);
    free(x->sub);
    free(x->queued);
    free(x->queued_len);
    free(x->sent);
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

static cJSON *channel(int id, const char *topic, const char *schema_name, const char *schema)
{
    cJSON *ch = cJSON_CreateObject();
    cJSON_AddNumberToObject(ch, "id", id);
    cJSON_AddStringToObject(ch, "topic", topic);
    cJSON_AddStringToObject(ch, "encoding", "json");
    cJSON_AddStringToObject(ch, "schemaName", schema_name);
    cJSON_AddStringToObject(ch, "schema", schema);
    cJSON_AddStringToObject(ch, "schemaEncoding", "jsonschema");
    return ch;
}

/* The inputs' JSON Schema: t and one number per input, by its name. */
static char *inputs_schema(const char *const *names, int n)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "title", "rodd.Inputs");
    cJSON_AddStringToObject(o, "description", "The actuators', loads' and targets' values now (a profile's at the "
                            "base), by name, in their units (GET /v1/sessions/{id}/actuators)");
    cJSON_AddStringToObject(o, "type", "object");
    cJSON *props = cJSON_AddObjectToObject(o, "properties");
    cJSON *req = cJSON_AddArrayToObject(o, "required");
    cJSON_AddItemToObject(props, "t", cJSON_CreateObject());
    cJSON_AddStringToObject(cJSON_GetObjectItem(props, "t"), "type", "number");
    cJSON_AddItemToArray(req, cJSON_CreateString("t"));
    for (int i = 0; i < n; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "type", "number");
        cJSON_AddItemToObject(props, names[i], p);
        cJSON_AddItemToArray(req, cJSON_CreateString(names[i]));
    }
    return print(o);
}

char *foxws_advertise(const foxws *x, const char *const *names, int ninputs)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", "advertise");
    cJSON *chs = cJSON_AddArrayToObject(o, "channels");
    for (int i = 0; i < x->nch; i++) {
        const fox_ch *c = &x->ch[i];
        if (c->kind == KIND_INPUTS) {
            char *schema = inputs_schema(names, ninputs);
            if (!schema) {
                cJSON_Delete(o);
                return NULL;
            }
            cJSON_AddItemToArray(chs, channel(c->id, c->topic, "rodd.Inputs", schema));
            free(schema);
        } else {
            const fox_channel *f = c->kind == KIND_BASE ? fox_base_channel() : fox_channel_get(c->kind);
            cJSON_AddItemToArray(chs, channel(c->id, c->topic, f->schema_name, f->schema));
        }
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
        int c = -1;
        for (int i = 0; is_u32(ch) && i < x->nch; i++)
            if (x->ch[i].id == ch->valuedouble) c = i;
        int taken = 0;
        for (int i = 0; is_u32(id) && i < x->nch; i++) taken |= x->sub[i] == id->valuedouble;
        if (!is_u32(id) || !is_u32(ch)) {
            if (!why[0]) snprintf(why, sizeof why, "a subscription needs an id and a channelId (uint32)");
        } else if (c < 0) {
            if (!why[0]) snprintf(why, sizeof why, "no channel %.0f (channels are %s)", ch->valuedouble, x->ids);
        } else if (taken || x->sub[c] != NO_SUB) {
            if (!why[0]) snprintf(why, sizeof why, "subscription %.0f or channel %d is already subscribed",
                                  id->valuedouble, x->ch[c].id);
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
        for (int i = 0; is_u32(v) && i < x->nch; i++)
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
    for (int i = 0; i < x->nch; i++)
        if (x->sub[i] != NO_SUB) return 1;
    return 0;
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* The inputs' message: t and each input's value by name. */
static char *inputs_message(double t, const char *const *names, const double *v, int n, size_t *len)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "t", t);
    for (int i = 0; i < n; i++) cJSON_AddNumberToObject(o, names[i], isfinite(v[i]) ? v[i] : 0);
    char *text = print(o);
    if (text) *len = strlen(text);
    return text;
}

int foxws_queue_frame(foxws *x, const rod_frame *f, const char *const *names, const double *inputs, int ninputs,
                      unsigned long long seq, size_t headroom)
{
    drop_queue(x); /* latest wins */
    for (int i = 0; i < x->nch; i++) {
        if (x->sub[i] == NO_SUB || x->sent[i] == seq) continue;
        size_t n;
        const fox_ch *c = &x->ch[i];
        const rod_frame *rod = c->rod >= 0 && c->rod < f->nrods ? &f->rods[c->rod] : c->rod < 0 ? f : NULL;
        if (!rod || (c->kind == KIND_BASE && !rod->base_moving)) continue; /* not this frame's */
        char *json = c->kind == KIND_INPUTS ? inputs_message(f->t, names, inputs, ninputs, &n)
                     : c->kind == KIND_BASE ? fox_base_message(rod, f->t, &n)
                                            : fox_message(c->kind, rod, FRAME_F_ALL, &n);
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
    while (x->next < x->nch && !x->queued[x->next]) x->next++;
    if (x->next == x->nch) return 0;
    x->taken = x->queued[x->next];
    *buf = x->taken;
    *len = x->queued_len[x->next];
    x->queued[x->next++] = NULL;
    return 1;
}

int foxws_pending(const foxws *x)
{
    for (int i = x->next; i < x->nch; i++)
        if (x->queued[i]) return 1;
    return 0;
}
