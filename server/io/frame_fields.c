#include "frame_fields.h"

#include <string.h>

static const char *const names[FRAME_F_COUNT] = {"s",     "position", "rotation", "rho", "radius",
                                                 "kappa", "nu",       "energy",   "volume_change"};

const char *frame_field_name(int i)
{
    return i >= 0 && i < FRAME_F_COUNT ? names[i] : NULL;
}

unsigned frame_field_bit(const char *name)
{
    for (int i = 0; name && i < FRAME_F_COUNT; i++)
        if (strcmp(names[i], name) == 0) return 1u << i;
    return 0;
}

int frame_field_width(unsigned bit)
{
    switch (bit) {
    case FRAME_F_S: case FRAME_F_RHO: case FRAME_F_RADIUS: return 1;
    case FRAME_F_POSITION: case FRAME_F_KAPPA: case FRAME_F_NU: return 3;
    case FRAME_F_ROTATION: return 9;
    default: return 0;
    }
}

const double *frame_field_values(const rod_frame *f, unsigned bit)
{
    switch (bit) {
    case FRAME_F_S: return f->s;
    case FRAME_F_POSITION: return f->position;
    case FRAME_F_ROTATION: return f->rotation;
    case FRAME_F_RHO: return f->rho;
    case FRAME_F_RADIUS: return f->radius;
    case FRAME_F_KAPPA: return f->kappa;
    case FRAME_F_NU: return f->nu;
    default: return NULL;
    }
}
