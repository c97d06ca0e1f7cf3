/* A cable's tension that no equilibrium can carry, refused when the spec is read (issue 29's
 * hostile testing: a tension of 1e308 N passed rodd check and failed at the first step).
 *
 * A cable routed at a constant offset d from the centreline pulls each section it spans with
 * T along its own tangent, so at equilibrium the section carries N = -T along d3 and the moment
 * d x (-T d3), whatever the deformation (a follower load), and with the linear elastic law the
 * cable's own fibre stretches by
 *     1 - T/(E A) - T |d|^2/(E I)
 * (the first term where stretch is free, the second where bending is; A = pi r^2, I = pi r^4/4).
 * At zero or below, the fibre under the cable has no length left: its tangent, hence the
 * cable's force, is undefined and no equilibrium exists; the solvers fail at their first step.
 * That holds for the cable alone: other loads (a tip pull, the transverse actuator's Poisson
 * lengthening) may balance it, so past the limit spec_warn.c warns, and only a tension past
 * the limit by 1/epsilon is refused (below). The thinnest section of the span is the worst
 * (the terms grow as 1/r^2 and, for a route relative to the radius, stay so), so it is the one
 * checked. A tension given as an expression
 * or a wave is the model's to clamp; a rest-curved rod's fibres are not straight at rest, and
 * are left out of this estimate. */
#include "spec_parse.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

/* the route's largest distance from the centreline over the span, at radius r */
static double route_offset(const spec_actuator *a, double r)
{
    const double d = a->route == ROUTE_HELIX ? fabs(a->helix_radius) : hypot(a->offset[0], a->offset[1]);
    return a->relative ? d * r : d;
}

static double radius_at(const rod_spec *s, double at)
{
    return s->radius_base + (s->radius_tip - s->radius_base) * (s->length > 0 ? at / s->length : 0);
}

double spec_cable_shortening(const rod_spec *s, int i, double *radius, double *limit)
{
    const int stretch = s->degree[5] >= 0, bend = s->degree[0] >= 0 || s->degree[1] >= 0;
    const spec_actuator *a = &s->acts[i];
    if (s->has_rest || !(s->youngs > 0) || !(stretch || bend) || a->type != ACT_CABLE ||
        a->value.kind != PROFILE_CONST || a->value.v.expr >= 0)
        return 0;
    const double T = a->value.v.value;
    const double r = fmin(radius_at(s, a->span[0]), radius_at(s, a->span[1]));
    if (!(T > 0) || !(r > 0)) return 0;
    const double d = route_offset(a, r), EA = s->youngs * M_PI * r * r, EI = EA * r * r / 4;
    *radius = r;
    *limit = 1 / ((stretch ? 1 / EA : 0) + (bend ? d * d / EI : 0));
    const double shortening = (stretch ? T / EA : 0) + (bend ? T * d * d / EI : 0);
    return isnan(shortening) ? INFINITY : shortening;
}

/* Other loads may lengthen the rod and balance a tension past the limit (spec_warn.c says so
 * then); but past 1/epsilon times it, the force balance's own rounding (epsilon T) exceeds the
 * force that shortens the fibre to nothing: no computed equilibrium means anything, whatever
 * else acts. Refused. */
void spec_check_cables(pctx *c)
{
    for (int i = 0; i < c->s->nacts; i++) {
        double r = 0, limit = 0;
        const double shortening = spec_cable_shortening(c->s, i, &r, &limit);
        if (shortening < 1 / DBL_EPSILON) continue;
        char p[96];
        snprintf(p, sizeof p, "/actuators/%d/tension", i);
        spec_bad(c, p,
                 "%g N is over 1/epsilon = %.3g times the %.4g N that shorten the cable's fibre to nothing at "
                 "radius %g m (1 - T/(E A) - T d^2/(E I) = 0, the terms of free strains): the force balance's "
                 "rounding alone exceeds that, so no equilibrium can be computed",
                 c->s->acts[i].value.v.value, 1 / DBL_EPSILON, limit, r);
    }
}
