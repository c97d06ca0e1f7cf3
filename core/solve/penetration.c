/* How deep a frame's sections sit in the obstacles: a penalty wall lets a rod sink, and past
 * the obstacle's max_penetration the contact point and friction's normal force no longer mean
 * a rigid wall's. Measured on the frame's points (not the quadrature points the contact acts
 * at: between them a section may sink a little deeper), with the deformed radius. */
#include "one_rod.h"
#include "model.h"
#include "state.h"
#include "vec3.h"

#include <math.h>

/* Depth of a section of radius rr centred at x in obstacle o, displaced by d (< 0: apart).
 * The same geometry as the contact stage's. */
static double depth(const spec_obstacle *o, const double d[3], const double x[3], double rr)
{
    double v[3];
    for (int i = 0; i < 3; i++) v[i] = x[i] - o->point[i] - d[i];
    if (o->type == OBSTACLE_PLANE) return rr - vec3_dot(v, o->normal);
    if (o->type == OBSTACLE_CYLINDER) {
        const double a = vec3_dot(v, o->normal);
        for (int i = 0; i < 3; i++) v[i] -= a * o->normal[i];
    }
    return rr + o->radius - sqrt(vec3_dot(v, v));
}

int penetration_one(const rod_model *m, const rod_state *st, const rod_frame *f, rod_penetration *out)
{
    const rod_spec *sp = m->spec;
    out->obstacle = -1;
    out->name = NULL;
    out->s = out->depth = out->fraction = out->limit = 0;
    double worst = 0; /* depth / radius / limit of the deepest so far */
    for (int o = 0; o < sp->nobstacles; o++) {
        const spec_obstacle *ob = &sp->obstacles[o];
        double d[3] = {0, 0, 0};
        if (ob->moving)
            for (int k = 0; k < 3; k++) d[k] = profile_value(&ob->displacement[k], st->ev, f->t, 0.0);
        for (int i = 0; i < f->n; i++) {
            const double rr = f->radius[i];
            const double e = depth(ob, d, &f->position[3 * i], rr);
            if (!(e > 0 && rr > 0)) continue;
            const double rel = e / rr / ob->max_penetration;
            if (rel > worst) {
                worst = rel;
                *out = (rod_penetration){o, ob->name, f->s[i], e, e / rr, ob->max_penetration};
            }
        }
    }
    return worst > 1;
}
