/* Warnings: a spec that is valid but leaves the range where the model means what it says.
 * Each names the JSON pointer concerned and what to do; none refuses the spec. The limits are
 * rules of thumb, stated with each check. */
#include "issues.h"
#include "spec.h"

#include <math.h>
#include <stdio.h>

/* Below this L/r the rod is no longer slender: Cosserat rod theory assumes sections small
 * against the length (a radius typed in millimetres as metres lands far below it). */
#define WARN_SLENDERNESS 5.0
/* Above this Poisson ratio the material is near incompressible, which the classic model
 * (sections that never change) cannot represent. */
#define WARN_POISSON_CLASSIC 0.45

static void warn_geometry(const rod_spec *s, rod_issues *out)
{
    const double r = fmax(s->radius_base, s->radius_tip);
    if (s->length / r < WARN_SLENDERNESS)
        issues_add(out, "/rod/radius",
                   "a %g m radius on a %g m rod (length/radius %.3g) is not slender: the rod model assumes "
                   "a length of at least %g radii; check the units (SI: metres)",
                   r, s->length, s->length / r, WARN_SLENDERNESS);
    if (!s->extended && s->poisson > WARN_POISSON_CLASSIC)
        issues_add(out, "/rod/poisson_ratio",
                   "%g is near incompressible, but the classic model keeps every cross-section as it is, "
                   "so stretching changes the volume; use \"model\": \"extended\" to let the sections "
                   "contract, or the ratio of a compressible material", s->poisson);
}

/* A penalty wall (stiffness k per metre of rod) holds a section of weight w per metre at a
 * depth of w / k: compared with the obstacle's max_penetration of the thickest section's
 * radius (the thickest sinks deepest relative to its radius: w ~ r^2). And a fixed time step
 * must resolve the contact's oscillation, omega = sqrt(k / m') for the lightest section's mass
 * m' per metre: omega h > 1 is fewer than about six steps per period. */
static void warn_obstacles(const rod_spec *s, rod_issues *out)
{
    const double r_max = fmax(s->radius_base, s->radius_tip), r_min = fmin(s->radius_base, s->radius_tip);
    const double rho = s->density - (s->has_fluid ? s->fluid_density : 0.0); /* buoyancy lifts */
    for (int i = 0; i < s->nobstacles; i++) {
        const spec_obstacle *o = &s->obstacles[i];
        char p[96];
        if (o->type == OBSTACLE_PLANE) {
            const double g_n = -(s->gravity[0] * o->normal[0] + s->gravity[1] * o->normal[1] +
                                 s->gravity[2] * o->normal[2]);
            const double w = rho * M_PI * r_max * r_max * g_n; /* N per m of rod, into the wall */
            const double depth = w / o->stiffness;
            if (w > 0 && depth > o->max_penetration * r_max) {
                snprintf(p, sizeof p, "/environment/obstacles/%d/stiffness", i);
                issues_add(out, p,
                           "%g N/m per m of rod is too soft for the rod's weight (%.3g N/m): at rest it "
                           "sinks about %.3g m, %.3g radii, into this penalty wall (max_penetration %g), and "
                           "friction and the contact point follow the sinking; use at least %.3g",
                           o->stiffness, w, depth, depth / r_max, o->max_penetration,
                           w / (o->max_penetration * r_max));
            }
        }
        const double mline = s->density * M_PI * r_min * r_min;
        const double omega = sqrt(o->stiffness / mline);
        /* With the wall in the Newton matrix (solver.jacobian "contact") and damped to at
         * least half its critical 2 sqrt(k m'), the implicit step need not resolve the
         * contact's oscillation: it is damped within about a period, and the step's numerical
         * damping takes what is left (the snake at 4 ms on a wall of period 8.8 ms, 1 / omega 1.4 ms) */
        const int damped = s->jacobian_contact && o->damping >= sqrt(o->stiffness * mline);
        if (s->integrator == INTEGRATOR_GALPHA && s->step * omega > 1.0 && !damped) {
            issues_add(out, "/solver/step",
                       "a fixed step of %g s cannot resolve the contact with obstacle %d (stiffness %g: "
                       "period %.3g s); use a step of at most %.3g s, or the adaptive \"bdf\" integrator",
                       s->step, i, o->stiffness, 2 * M_PI / omega, 1.0 / omega);
        }
    }
}

/* A cable whose constant tension, unbalanced, shortens its fibre to nothing (spec_cable.c):
 * an equilibrium needs other loads to lengthen the rod (past 1/epsilon it is refused). */
static void warn_cables(const rod_spec *s, rod_issues *out)
{
    for (int i = 0; i < s->nacts; i++) {
        double r = 0, limit = 0;
        if (spec_cable_shortening(s, i, &r, &limit) < 1) continue;
        char p[96];
        snprintf(p, sizeof p, "/actuators/%d/tension", i);
        issues_add(out, p,
                   "%g N alone shortens the cable's fibre to nothing (at most %.4g N at radius %g m: 1 - T/(E A) - "
                   "T d^2/(E I) > 0 over the free strains): no equilibrium unless other loads lengthen the rod",
                   s->acts[i].value.v.value, limit, r);
    }
}

/* solver.contact_laws acts on generalized-alpha's Newton corrections with the contacts in its
 * matrix, on walls, without self-contact (galpha.c); anywhere else it changes nothing, which a
 * user comparing "solved" with "linearized" should be told. */
static void warn_solver(const rod_spec *s, rod_issues *out)
{
    if (!s->contact_laws_given) return;
    int multipliers = 0;
    for (int i = 0; i < s->ncons; i++) multipliers |= !s->cons[i].penalty;
    if (s->integrator != INTEGRATOR_GALPHA || !s->jacobian_contact || s->nobstacles == 0 || s->self_contact ||
        multipliers || s->nbodies)
        issues_add(out, "/solver/contact_laws",
                   "has no effect here: it applies to the generalized-alpha integrator with solver.jacobian "
                   "\"contact\" on a rod touching obstacles, without self-contact, multiplier constraints or "
                   "attached bodies");
}

void spec_warnings(const rod_spec *s, rod_issues *out)
{
    warn_solver(s, out);
    warn_geometry(s, out);
    warn_obstacles(s, out);
    warn_cables(s, out);
}
