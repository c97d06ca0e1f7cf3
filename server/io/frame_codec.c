/* The FRAME's writers: see frame_codec.h. A frame is thousands of numbers printed 30 times a
 * second, so the JSON is written directly (rod_format_g10) instead of through cJSON's
 * print-and-verify per number, which costs several times more. */
#include "frame_codec.h"
#include "frame_fields.h"
#include "rod_text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Room for n more bytes and the NUL after them; 0 (and oom set) when there is none. */
static int codec_reserve(codec_buf *b, size_t n)
{
    if (b->oom) return 0;
    if (b->len + n + 1 <= b->cap) return 1;
    size_t cap = b->cap ? b->cap : 8192;
    while (cap < b->len + n + 1) cap *= 2;
    char *nb = realloc(b->b, cap);
    if (!nb) {
        b->oom = 1;
        return 0;
    }
    b->b = nb;
    b->cap = cap;
    return 1;
}

void codec_put(codec_buf *b, const void *p, size_t n)
{
    if (!codec_reserve(b, n)) return;
    memcpy(b->b + b->len, p, n);
    b->len += n;
    b->b[b->len] = '\0';
}

void codec_str(codec_buf *b, const char *s)
{
    codec_put(b, s, strlen(s));
}

/* the most a number takes: rod_format_g10's 32 bytes, its NUL among them */
#define NUM_ROOM 32

/* One number at p, with room for NUM_ROOM bytes there; returns the end (a NUL follows it). */
static char *num_at(char *p, double v)
{
    if (!isfinite(v)) { /* JSON has no inf or NaN */
        memcpy(p, "null", 5);
        return p + 4;
    }
    return p + rod_format_g10(p, v);
}

void codec_num(codec_buf *b, double v)
{
    if (codec_reserve(b, NUM_ROOM)) b->len = (size_t)(num_at(b->b + b->len, v) - b->b);
}

/* "key":[v0,...] */
static void vec(codec_buf *b, const char *key, const double *v, int n)
{
    codec_str(b, "\"");
    codec_str(b, key);
    codec_str(b, "\":[");
    for (int i = 0; i < n; i++) {
        if (i) codec_put(b, ",", 1);
        codec_num(b, v[i]);
    }
    codec_put(b, "]", 1);
}

/* ,"key":[...] of n points of w values each ([[..],..] when w > 1): a frame's thousands of
 * numbers, so their text goes straight into room reserved for all of them at once, a row of
 * numbers at a time */
static void points(codec_buf *b, const char *key, const double *v, int n, int w)
{
    codec_str(b, ",\"");
    codec_str(b, key);
    codec_str(b, "\":[");
    if (!codec_reserve(b, (size_t)n * ((size_t)w * (NUM_ROOM + 1) + 3))) return;
    char *p = b->b + b->len;
    if (w == 1) {
        p = rod_format_g10_row(p, v, (size_t)n, "null");
    } else if (n > 0) {
        *p++ = '[';
        for (int i = 0; i < n; i++) { /* "],[" after each point, the last ",[" taken back */
            p = rod_format_g10_row(p, v + (size_t)w * i, (size_t)w, "null");
            memcpy(p, "],[", 3);
            p += 3;
        }
        p -= 2;
    }
    *p = '\0';
    b->len = (size_t)(p - b->b);
    codec_put(b, "]", 1);
}

/* ,"s":[..],"position":[..],... for the per-point bits of fields, in the table's order */
static void point_fields(codec_buf *b, const rod_frame *f, unsigned fields)
{
    for (int i = 0; i < FRAME_F_COUNT; i++) {
        const unsigned bit = 1u << i;
        const int w = frame_field_width(bit);
        if (w && (fields & bit)) points(b, frame_field_name(i), frame_field_values(f, bit), f->n, w);
    }
}

static void base(codec_buf *b, const rod_frame *f)
{
    codec_str(b, ",\"base\":{");
    vec(b, "position", f->base_position, 3);
    codec_put(b, ",", 1);
    vec(b, "rotation", f->base_rotation, 9);
    codec_put(b, "}", 1);
}

/* names are letters, digits, '_', '-', '.' (the spec's rule): nothing to escape */
static void key(codec_buf *b, const char *name)
{
    codec_put(b, "\"", 1);
    codec_str(b, name);
    codec_str(b, "\":");
}

static void mechanics(codec_buf *b, const rod_frame *f)
{
    if (f->base_moving) base(b, f);
    if (f->nbodies) {
        codec_str(b, ",\"bodies\":{");
        for (int i = 0; i < f->nbodies; i++) {
            if (i) codec_put(b, ",", 1);
            key(b, f->bodies[i].name);
            codec_put(b, "{", 1);
            vec(b, "position", f->bodies[i].position, 3);
            codec_put(b, "}", 1);
        }
        codec_put(b, "}", 1);
    }
    if (f->ncons) {
        codec_str(b, ",\"constraints\":{");
        for (int i = 0; i < f->ncons; i++) {
            const rod_frame_constraint *c = &f->cons[i];
            if (i) codec_put(b, ",", 1);
            key(b, c->name);
            codec_put(b, "{", 1);
            if (c->volume) {
                codec_str(b, "\"pressure\":");
                codec_num(b, c->pressure);
            } else {
                vec(b, "force", c->force, 3);
                codec_put(b, ",", 1);
                vec(b, "moment", c->moment, 3);
                codec_put(b, ",", 1);
                vec(b, "point", c->point, 3);
                codec_put(b, ",", 1);
                vec(b, "target", c->target, 3);
            }
            codec_str(b, ",\"violation\":");
            codec_num(b, c->violation);
            codec_put(b, "}", 1);
        }
        codec_put(b, "}", 1);
    }
    if (f->has_contacts) {
        codec_str(b, ",\"contacts\":[");
        for (int i = 0; i < f->ncontacts; i++) {
            codec_str(b, i ? ",{" : "{");
            const int r = f->contact_rod ? f->contact_rod[i] : -1;
            if (f->nrods && r >= 0 && r < f->nrods) {
                codec_str(b, "\"rod\":\"");
                codec_str(b, f->rods[r].name);
                codec_str(b, "\",");
            }
            codec_str(b, "\"s\":");
            codec_num(b, f->contact_s[i]);
            codec_put(b, ",", 1);
            vec(b, "point", f->contact_point + 3 * i, 3); /* Vec3, as the API has it */
            codec_put(b, ",", 1);
            vec(b, "force", f->contact_force + 3 * i, 3);
            codec_put(b, "}", 1);
        }
        codec_put(b, "]", 1);
    }
}

int frame_codec_json(codec_buf *b, const rod_frame *f, unsigned fields, int mech, const char *head)
{
    codec_put(b, "{", 1);
    if (head) codec_str(b, head);
    codec_str(b, "\"t\":");
    codec_num(b, f->t);
    if (f->nrods) {
        codec_str(b, ",\"rods\":[");
        for (int r = 0; r < f->nrods; r++) {
            const rod_frame *rod = &f->rods[r];
            codec_str(b, r ? ",{\"name\":\"" : "{\"name\":\"");
            codec_str(b, rod->name);
            codec_put(b, "\"", 1);
            point_fields(b, rod, fields);
            if (mech && rod->base_moving) base(b, rod);
            codec_put(b, "}", 1);
        }
        codec_put(b, "]", 1);
    } else {
        point_fields(b, f, fields);
    }
    if (fields & FRAME_F_ENERGY) {
        codec_str(b, ",\"energy\":{\"kinetic\":");
        codec_num(b, f->e_kinetic);
        codec_str(b, ",\"elastic\":");
        codec_num(b, f->e_elastic);
        codec_str(b, ",\"gravity\":");
        codec_num(b, f->e_gravity);
        codec_put(b, "}", 1);
    }
    if (fields & FRAME_F_VOLUME) {
        codec_str(b, ",\"volume_change\":");
        codec_num(b, f->volume_change);
    }
    if (mech) mechanics(b, f);
    codec_put(b, "}", 1);
    return b->oom ? -1 : 0;
}

char *frame_codec_json_text(const rod_frame *f)
{
    codec_buf b = {0};
    if (frame_codec_json(&b, f, FRAME_F_ALL, 1, NULL) != 0) {
        free(b.b);
        return NULL;
    }
    return b.b;
}

cJSON *frame_codec_cjson(const rod_frame *f)
{
    char *text = frame_codec_json_text(f);
    cJSON *o = text ? cJSON_Parse(text) : NULL;
    free(text);
    return o;
}

/* ---- binary ---- */

static void u32(codec_buf *b, uint32_t v)
{
    const unsigned char x[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                                (unsigned char)(v >> 24)};
    codec_put(b, x, 4);
}

/* float32, little-endian byte by byte whatever the host, into room reserved for all of them */
static void f32s(codec_buf *b, const double *v, size_t n)
{
    if (!codec_reserve(b, 4 * n)) return;
    unsigned char *p = (unsigned char *)b->b + b->len;
    for (size_t i = 0; i < n; i++) {
        const float x = (float)v[i];
        uint32_t u;
        memcpy(&u, &x, 4);
        for (int k = 0; k < 4; k++) p[4 * i + k] = (unsigned char)(u >> (8 * k));
    }
    b->len += 4 * n;
    b->b[b->len] = '\0';
}

static void binary_points(codec_buf *b, const rod_frame *f, unsigned fields)
{
    for (int i = 0; i < FRAME_F_COUNT; i++) {
        const unsigned bit = 1u << i;
        const int w = frame_field_width(bit);
        if (w && (fields & bit)) f32s(b, frame_field_values(f, bit), (size_t)w * (size_t)f->n);
    }
}

int frame_codec_binary(codec_buf *b, const rod_frame *f, unsigned fields, uint64_t seq)
{
    unsigned char h[FRAME_BINARY_HEADER] = {'R', 'O', 'D', 'F', f->nrods ? 2 : 1, 0, FRAME_BINARY_HEADER, 0};
    for (int i = 0; i < 8; i++) h[8 + i] = (unsigned char)(seq >> (8 * i));
    uint64_t tb;
    memcpy(&tb, &f->t, 8);
    for (int i = 0; i < 8; i++) h[16 + i] = (unsigned char)(tb >> (8 * i));
    const uint32_t count = (uint32_t)(f->nrods ? f->nrods : f->n);
    for (int i = 0; i < 4; i++) {
        h[24 + i] = (unsigned char)(count >> (8 * i));
        h[28 + i] = (unsigned char)(fields >> (8 * i));
    }
    codec_put(b, h, sizeof h);
    if (f->nrods) {
        for (int r = 0; r < f->nrods; r++) {
            const rod_frame *rod = &f->rods[r];
            const size_t k = strlen(rod->name);
            static const char pad[4];
            u32(b, (uint32_t)rod->n);
            u32(b, (uint32_t)k);
            codec_put(b, rod->name, k);
            codec_put(b, pad, (4 - k % 4) % 4);
            binary_points(b, rod, fields);
        }
    } else {
        binary_points(b, f, fields);
    }
    if (fields & FRAME_F_ENERGY) {
        const double e[3] = {f->e_kinetic, f->e_elastic, f->e_gravity};
        f32s(b, e, 3);
    }
    if (fields & FRAME_F_VOLUME) f32s(b, &f->volume_change, 1);
    return b->oom ? -1 : 0;
}
