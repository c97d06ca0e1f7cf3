#include "frame_mech.h"

#include <stdlib.h>
#include <string.h>

int mech_shape_copy(rod_frame *dst, const rod_frame *src)
{
    memset(dst, 0, sizeof *dst);
    dst->cons = src->ncons ? calloc((size_t)src->ncons, sizeof *dst->cons) : NULL;
    dst->bodies = src->nbodies ? calloc((size_t)src->nbodies, sizeof *dst->bodies) : NULL;
    dst->rods = src->nrods ? calloc((size_t)src->nrods, sizeof *dst->rods) : NULL;
    if ((src->ncons && !dst->cons) || (src->nbodies && !dst->bodies) || (src->nrods && !dst->rods)) {
        rod_frame_free(dst);
        return -1;
    }
    dst->ncons = src->ncons;
    dst->nbodies = src->nbodies;
    dst->nrods = src->nrods;
    for (int i = 0; i < src->nrods; i++) { /* the rods' names; their values stay empty */
        memcpy(dst->rods[i].name, src->rods[i].name, sizeof dst->rods[i].name);
        dst->rods[i].base_moving = src->rods[i].base_moving;
    }
    for (int i = 0; i < src->ncons; i++) {
        memcpy(dst->cons[i].name, src->cons[i].name, sizeof dst->cons[i].name);
        dst->cons[i].volume = src->cons[i].volume;
    }
    for (int i = 0; i < src->nbodies; i++) memcpy(dst->bodies[i].name, src->bodies[i].name, sizeof dst->bodies[i].name);
    dst->base_moving = src->base_moving;
    dst->has_contacts = src->has_contacts;
    return 0;
}

int mech_contact_values(const rod_frame *shape)
{
    return MECH_CONTACT_VALUES + (shape->nrods ? 1 : 0);
}

int mech_rods(const rod_frame *shape)
{
    return shape->nrods ? shape->nrods : 1;
}

int mech_points(const rod_frame *f)
{
    if (!f->nrods) return f->n;
    for (int i = 1; i < f->nrods; i++)
        if (f->rods[i].n != f->rods[0].n) return -1;
    return f->rods[0].n;
}

int mech_rod_bases(const rod_frame *shape)
{
    int n = 0;
    for (int i = 0; i < shape->nrods; i++) n += shape->rods[i].base_moving != 0;
    return n;
}

int mech_any(const rod_frame *shape)
{
    return shape->base_moving || shape->nbodies || shape->ncons || shape->has_contacts || mech_rod_bases(shape);
}

size_t mech_values(const rod_frame *shape)
{
    size_t n = shape->base_moving ? 12 : 0;
    n += 12 * (size_t)mech_rod_bases(shape);
    n += 3 * (size_t)shape->nbodies;
    for (int i = 0; i < shape->ncons; i++) n += shape->cons[i].volume ? MECH_VOLUME_VALUES : MECH_POSE_VALUES;
    return n + (shape->has_contacts ? 1 : 0);
}

int mech_matches(const rod_frame *shape, const rod_frame *f)
{
    if (!f->base_moving != !shape->base_moving || !f->has_contacts != !shape->has_contacts ||
        f->nbodies != shape->nbodies || f->ncons != shape->ncons || f->nrods != shape->nrods)
        return 0;
    for (int i = 0; i < f->nrods; i++)
        if (strcmp(f->rods[i].name, shape->rods[i].name) || !f->rods[i].base_moving != !shape->rods[i].base_moving)
            return 0;
    for (int i = 0; i < f->ncons; i++)
        if (f->cons[i].volume != shape->cons[i].volume || strcmp(f->cons[i].name, shape->cons[i].name)) return 0;
    for (int i = 0; i < f->nbodies; i++)
        if (strcmp(f->bodies[i].name, shape->bodies[i].name)) return 0;
    return 1;
}

static double *put(double *v, const double *x, int n)
{
    memcpy(v, x, (size_t)n * sizeof *v);
    return v + n;
}

void mech_pack(const rod_frame *shape, const rod_frame *f, double *v)
{
    if (shape->base_moving) {
        v = put(v, f->base_position, 3);
        v = put(v, f->base_rotation, 9);
    }
    for (int i = 0; i < shape->nrods; i++) /* a joined (free) rod's base, rod by rod */
        if (shape->rods[i].base_moving) {
            v = put(v, f->rods[i].base_position, 3);
            v = put(v, f->rods[i].base_rotation, 9);
        }
    for (int i = 0; i < shape->nbodies; i++) v = put(v, f->bodies[i].position, 3);
    for (int i = 0; i < shape->ncons; i++) {
        const rod_frame_constraint *c = &f->cons[i];
        if (c->volume) {
            *v++ = c->pressure;
        } else {
            v = put(v, c->force, 3);
            v = put(v, c->moment, 3);
            v = put(v, c->point, 3);
            v = put(v, c->target, 3);
        }
        *v++ = c->violation;
    }
    if (!shape->has_contacts) return;
    *v++ = f->ncontacts;
    for (int i = 0; i < f->ncontacts; i++) {
        *v++ = f->contact_s[i];
        v = put(v, f->contact_point + 3 * i, 3);
        v = put(v, f->contact_force + 3 * i, 3);
        if (shape->nrods) *v++ = f->contact_rod ? f->contact_rod[i] : -1;
    }
}

int mech_packed_contacts(const rod_frame *shape, const double *v)
{
    if (!shape->has_contacts) return 0;
    const double n = v[mech_values(shape) - 1];
    return n >= 0 && n < 1e9 ? (int)n : 0;
}

static const double *get(const double *v, double *x, int n)
{
    memcpy(x, v, (size_t)n * sizeof *v);
    return v + n;
}

void mech_unpack(const rod_frame *shape, const double *v, rod_frame *f, double *scratch, int *rod_scratch)
{
    f->base_moving = shape->base_moving;
    f->ncons = shape->ncons;
    f->nbodies = shape->nbodies;
    f->has_contacts = shape->has_contacts;
    if (shape->base_moving) {
        v = get(v, f->base_position, 3);
        v = get(v, f->base_rotation, 9);
    }
    for (int i = 0; i < shape->nrods; i++)
        if (shape->rods[i].base_moving) {
            f->rods[i].base_moving = 1;
            v = get(v, f->rods[i].base_position, 3);
            v = get(v, f->rods[i].base_rotation, 9);
        }
    for (int i = 0; i < shape->nbodies; i++) v = get(v, f->bodies[i].position, 3);
    for (int i = 0; i < shape->ncons; i++) {
        rod_frame_constraint *c = &f->cons[i];
        c->volume = shape->cons[i].volume;
        if (c->volume) {
            c->pressure = *v++;
        } else {
            v = get(v, c->force, 3);
            v = get(v, c->moment, 3);
            v = get(v, c->point, 3);
            v = get(v, c->target, 3);
        }
        c->violation = *v++;
    }
    if (!shape->has_contacts) return;
    const int n = (int)*v++;
    f->ncontacts = n;
    f->contact_s = scratch;
    f->contact_point = scratch + n;
    f->contact_force = scratch + 4 * (size_t)n;
    for (int i = 0; i < n; i++) {
        f->contact_s[i] = *v++;
        v = get(v, f->contact_point + 3 * i, 3);
        v = get(v, f->contact_force + 3 * i, 3);
        if (shape->nrods) rod_scratch[i] = (int)*v++;
    }
    f->contact_rod = shape->nrods ? rod_scratch : NULL;
}
