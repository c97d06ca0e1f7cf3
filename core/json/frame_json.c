/* A FRAME as JSON (rod_json.h): as text for streams and NDJSON, numbers to 10 significant
 * digits, and as a cJSON tree for the documents REST and the command line build around it. */
#include "rod_json.h"

#include "numfmt.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static cJSON *array_of(const double *v, int n)
{
    return cJSON_CreateDoubleArray(v, n);
}

static cJSON *nested(const double *v, int n, int w)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++) {
        cJSON *e = cJSON_CreateDoubleArray(v + (size_t)w * i, w);
        if (!e || !cJSON_AddItemToArray(a, e)) {
            cJSON_Delete(e);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

static void add_points(cJSON *o, const rod_frame *f)
{
    cJSON_AddItemToObject(o, "s", array_of(f->s, f->n));
    cJSON_AddItemToObject(o, "position", nested(f->position, f->n, 3));
    cJSON_AddItemToObject(o, "rotation", nested(f->rotation, f->n, 9));
    cJSON_AddItemToObject(o, "rho", array_of(f->rho, f->n));
    cJSON_AddItemToObject(o, "radius", array_of(f->radius, f->n));
    cJSON_AddItemToObject(o, "kappa", nested(f->kappa, f->n, 3));
    cJSON_AddItemToObject(o, "nu", nested(f->nu, f->n, 3));
}

cJSON *rod_frame_to_cjson(const rod_frame *f)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddNumberToObject(o, "t", f->t);
    if (f->nrods) {
        /* several rods (issue 29): each rod's points under its name, the rest at the top */
        cJSON *rs = cJSON_AddArrayToObject(o, "rods");
        for (int i = 0; rs && i < f->nrods; i++) {
            const rod_frame *r = &f->rods[i];
            cJSON *e = cJSON_CreateObject();
            if (!e || !cJSON_AddItemToArray(rs, e)) {
                cJSON_Delete(e);
                break;
            }
            cJSON_AddStringToObject(e, "name", r->name);
            add_points(e, r);
            if (r->base_moving) {
                cJSON *b = cJSON_AddObjectToObject(e, "base");
                if (b) {
                    cJSON_AddItemToObject(b, "position", array_of(r->base_position, 3));
                    cJSON_AddItemToObject(b, "rotation", array_of(r->base_rotation, 9));
                }
            }
        }
    } else {
        add_points(o, f);
    }
    cJSON *e = cJSON_AddObjectToObject(o, "energy");
    if (e) {
        cJSON_AddNumberToObject(e, "kinetic", f->e_kinetic);
        cJSON_AddNumberToObject(e, "elastic", f->e_elastic);
        cJSON_AddNumberToObject(e, "gravity", f->e_gravity);
    }
    cJSON_AddNumberToObject(o, "volume_change", f->volume_change);
    if (f->nbodies) {
        cJSON *bs = cJSON_AddObjectToObject(o, "bodies");
        for (int i = 0; bs && i < f->nbodies; i++) {
            cJSON *e = cJSON_AddObjectToObject(bs, f->bodies[i].name);
            if (e) cJSON_AddItemToObject(e, "position", array_of(f->bodies[i].position, 3));
        }
    }
    if (f->base_moving) {
        cJSON *b = cJSON_AddObjectToObject(o, "base");
        if (b) {
            cJSON_AddItemToObject(b, "position", array_of(f->base_position, 3));
            cJSON_AddItemToObject(b, "rotation", array_of(f->base_rotation, 9));
        }
    }
    if (f->ncons) {
        cJSON *cs = cJSON_AddObjectToObject(o, "constraints");
        for (int i = 0; cs && i < f->ncons; i++) {
            const rod_frame_constraint *c = &f->cons[i];
            cJSON *e = cJSON_AddObjectToObject(cs, c->name);
            if (!e) continue;
            if (c->volume) {
                cJSON_AddNumberToObject(e, "pressure", c->pressure);
            } else {
                cJSON_AddItemToObject(e, "force", array_of(c->force, 3));
                cJSON_AddItemToObject(e, "moment", array_of(c->moment, 3));
                cJSON_AddItemToObject(e, "point", array_of(c->point, 3));
                cJSON_AddItemToObject(e, "target", array_of(c->target, 3));
            }
            cJSON_AddNumberToObject(e, "violation", c->violation);
        }
    }
    if (f->has_contacts) {
        cJSON *ca = cJSON_AddArrayToObject(o, "contacts");
        for (int i = 0; ca && i < f->ncontacts; i++) {
            cJSON *c = cJSON_CreateObject();
            if (!c || !cJSON_AddItemToArray(ca, c)) {
                cJSON_Delete(c);
                break;
            }
            if (f->contact_rod && f->nrods) cJSON_AddStringToObject(c, "rod", f->rods[f->contact_rod[i]].name);
            cJSON_AddNumberToObject(c, "s", f->contact_s[i]);
            cJSON_AddItemToObject(c, "point", array_of(f->contact_point + 3 * i, 3));
            cJSON_AddItemToObject(c, "force", array_of(f->contact_force + 3 * i, 3));
        }
    }
    return o;
}

/* A frame is thousands of numbers printed 30 times a second: written directly with 10
 * significant digits (far below any physical uncertainty) instead of cJSON's print-and-verify
 * per number, which costs several times more. */
typedef struct {
    char *buf;
    size_t len, cap;
    int oom;
} sbuf;

static void sb_reserve(sbuf *b, size_t more)
{
    if (b->oom || b->len + more < b->cap) return;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap <= b->len + more) cap *= 2;
    char *p = realloc(b->buf, cap);
    if (!p) {
        b->oom = 1;
        return;
    }
    b->buf = p;
    b->cap = cap;
}

static void sb_str(sbuf *b, const char *s)
{
    size_t n = strlen(s);
    sb_reserve(b, n + 1);
    if (b->oom) return;
    memcpy(b->buf + b->len, s, n + 1);
    b->len += n;
}

static void sb_num(sbuf *b, double v)
{
    sb_reserve(b, 32);
    if (b->oom) return;
    if (!isfinite(v)) { /* JSON has no inf or NaN */
        memcpy(b->buf + b->len, "null", 5);
        b->len += 4;
        return;
    }
    b->len += num_g10(b->buf + b->len, v);
}

static void sb_array(sbuf *b, const char *key, const double *v, int n, int w)
{
    sb_str(b, ",\"");
    sb_str(b, key);
    sb_str(b, "\":[");
    for (int i = 0; i < n; i++) {
        if (i) sb_str(b, ",");
        if (w > 1) sb_str(b, "[");
        for (int k = 0; k < w; k++) {
            if (k) sb_str(b, ",");
            sb_num(b, v[(size_t)w * i + k]);
        }
        if (w > 1) sb_str(b, "]");
    }
    sb_str(b, "]");
}

/* "key":[v0,...] without a leading comma */
static void sb_vec(sbuf *b, const char *key, const double *v, int n)
{
    sb_str(b, "\"");
    sb_str(b, key);
    sb_str(b, "\":[");
    for (int i = 0; i < n; i++) {
        if (i) sb_str(b, ",");
        sb_num(b, v[i]);
    }
    sb_str(b, "]");
}

static void sb_points(sbuf *b, const rod_frame *f)
{
    sb_array(b, "s", f->s, f->n, 1);
    sb_array(b, "position", f->position, f->n, 3);
    sb_array(b, "rotation", f->rotation, f->n, 9);
    sb_array(b, "rho", f->rho, f->n, 1);
    sb_array(b, "radius", f->radius, f->n, 1);
    sb_array(b, "kappa", f->kappa, f->n, 3);
    sb_array(b, "nu", f->nu, f->n, 3);
}

char *rod_frame_to_json(const rod_frame *f)
{
    sbuf b = {0};
    sb_str(&b, "{\"t\":");
    sb_num(&b, f->t);
    if (f->nrods) {
        sb_str(&b, ",\"rods\":[");
        for (int i = 0; i < f->nrods; i++) {
            const rod_frame *r = &f->rods[i];
            sb_str(&b, i ? ",{\"name\":\"" : "{\"name\":\"");
            sb_str(&b, r->name); /* letters, digits, '_', '-': nothing to escape */
            sb_str(&b, "\"");
            sb_points(&b, r);
            if (r->base_moving) {
                sb_str(&b, ",\"base\":{");
                sb_vec(&b, "position", r->base_position, 3);
                sb_str(&b, ",");
                sb_vec(&b, "rotation", r->base_rotation, 9);
                sb_str(&b, "}");
            }
            sb_str(&b, "}");
        }
        sb_str(&b, "]");
    } else {
        sb_points(&b, f);
    }
    sb_str(&b, ",\"energy\":{\"kinetic\":");
    sb_num(&b, f->e_kinetic);
    sb_str(&b, ",\"elastic\":");
    sb_num(&b, f->e_elastic);
    sb_str(&b, ",\"gravity\":");
    sb_num(&b, f->e_gravity);
    sb_str(&b, "},\"volume_change\":");
    sb_num(&b, f->volume_change);
    if (f->base_moving) {
        sb_str(&b, ",\"base\":{");
        sb_vec(&b, "position", f->base_position, 3);
        sb_str(&b, ",");
        sb_vec(&b, "rotation", f->base_rotation, 9);
        sb_str(&b, "}");
    }
    if (f->nbodies) {
        sb_str(&b, ",\"bodies\":{");
        for (int i = 0; i < f->nbodies; i++) {
            sb_str(&b, i ? ",\"" : "\"");
            sb_str(&b, f->bodies[i].name);
            sb_str(&b, "\":{");
            sb_vec(&b, "position", f->bodies[i].position, 3);
            sb_str(&b, "}");
        }
        sb_str(&b, "}");
    }
    if (f->ncons) {
        sb_str(&b, ",\"constraints\":{");
        for (int i = 0; i < f->ncons; i++) {
            const rod_frame_constraint *c = &f->cons[i];
            if (i) sb_str(&b, ",");
            sb_str(&b, "\""); /* names are letters, digits, '_', '-', '.': nothing to escape */
            sb_str(&b, c->name);
            sb_str(&b, "\":{");
            if (c->volume) {
                sb_str(&b, "\"pressure\":");
                sb_num(&b, c->pressure);
            } else {
                sb_vec(&b, "force", c->force, 3);
                sb_str(&b, ",");
                sb_vec(&b, "moment", c->moment, 3);
                sb_str(&b, ",");
                sb_vec(&b, "point", c->point, 3);
                sb_str(&b, ",");
                sb_vec(&b, "target", c->target, 3);
            }
            sb_str(&b, ",\"violation\":");
            sb_num(&b, c->violation);
            sb_str(&b, "}");
        }
        sb_str(&b, "}");
    }
    if (f->has_contacts) {
        sb_str(&b, ",\"contacts\":[");
        for (int i = 0; i < f->ncontacts; i++) {
            sb_str(&b, i ? ",{" : "{");
            if (f->contact_rod && f->nrods) {
                sb_str(&b, "\"rod\":\"");
                sb_str(&b, f->rods[f->contact_rod[i]].name);
                sb_str(&b, "\",");
            }
            sb_str(&b, "\"s\":");
            sb_num(&b, f->contact_s[i]);
            sb_str(&b, ",");
            sb_vec(&b, "point", f->contact_point + 3 * i, 3); /* Vec3, as the API has it */
            sb_str(&b, ",");
            sb_vec(&b, "force", f->contact_force + 3 * i, 3);
            sb_str(&b, "}");
        }
        sb_str(&b, "]");
    }
    sb_str(&b, "}");
    if (b.oom) {
        free(b.buf);
        return NULL;
    }
    return b.buf;
}
