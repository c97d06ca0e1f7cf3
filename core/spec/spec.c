/* Spec validation: walks the cJSON tree once, records every problem with its JSON pointer,
 * and returns a rod_spec only when there is none. */
#include "spec.h"

#include "issues.h"
#include "spec_parse.h"

#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const spec_strain_names[6] = {"bend1", "bend2", "twist", "shear1", "shear2", "stretch"};
static const char *const spec_strain_names_null[7] = {"bend1", "bend2", "twist", "shear1", "shear2",
                                                      "stretch", NULL};

#define MAX_DEGREE SPEC_MAX_DEGREE
#define MAX_PIECES SPEC_MAX_PIECES
#define MAX_POINTS 5000
#define MAX_INPUTS SPEC_MAX_INPUTS
#define MAX_NAME SPEC_MAX_NAME

/* ---- the keys each object accepts; spec_known_paths below lists the same tree ---- */
static const char *const keys_root[] = {"model", "name", "description", "duration", "rod", "strains",
    "inflation", "environment", "loads", "actuators", "discretization", "solver", "initial",
    "authors_code", "constraints", "bodies", "base", NULL};
static const char *const keys_rod[] = {"length", "radius", "density", "youngs_modulus",
    "poisson_ratio", "shear_modulus", "shear_coefficient", "shear_viscosity", "inertia",
    "rotary_inertia_factor", "rest_strain", NULL};
static const char *const keys_radius[] = {"base", "tip", NULL};
static const char *const keys_inflation[] = {"pieces", "boundary", NULL};
static const char *const keys_env[] = {"gravity", "fluid", "obstacles", "self_contact", NULL};
static const char *const keys_fluid[] = {"model", "density", "added_mass", "drag", "lift",
    "viscosity", NULL};
static const char *const keys_load[] = {"name", "type", "force", "moment", "s", "frame",
    "scale", NULL};
static const char *const keys_act[] = {"name", "type", "route", "tension", "pressure", "span",
    "about", "beta", "wavelength", "period", "phase", NULL};
static const char *const keys_route[] = {"offset", "helix", "relative_to_radius", NULL};
static const char *const keys_helix[] = {"radius", "turns", "phase", NULL};
static const char *const keys_disc[] = {"points", "substeps", "magnus_order", NULL};
static const char *const keys_solver[] = {"tolerance", "max_iterations", "load_steps", "guess",
    "rtol", "atol", "rate_time_scale", "jacobian", "integrator", "step", "rho_infinity", "command_ramp", "contact_laws", NULL};
static const char *const keys_authors[] = {"no_cable_work_on_inflation", "global_quadrature",
    "damping_slips", "slope_per_X", "mass_rate_slip", NULL};
static const char *const keys_obstacle[] = {"name", "type", "point", "normal", "center", "axis",
    "radius", "stiffness", "damping", "friction", "displacement", "max_penetration", NULL};
static const char *const keys_friction[] = {"static", "kinetic", "threshold_velocity", NULL};
static const char *const keys_self_contact[] = {"stiffness", "damping", "friction", NULL};

const char *const spec_known_paths[] = {
    "/model", "/name", "/description", "/duration",
    "/rod", "/rod/length", "/rod/radius", "/rod/radius/base", "/rod/radius/tip",
    "/rod/density", "/rod/youngs_modulus", "/rod/poisson_ratio", "/rod/shear_modulus",
    "/rod/shear_coefficient", "/rod/shear_viscosity", "/rod/rotary_inertia_factor",
    "/rod/inertia", "/rod/rest_strain", "/rod/rest_strain/bend1", "/rod/rest_strain/bend2",
    "/rod/rest_strain/twist", "/rod/rest_strain/shear1", "/rod/rest_strain/shear2",
    "/rod/rest_strain/stretch",
    "/strains", "/strains/bend1", "/strains/bend2", "/strains/twist", "/strains/shear1",
    "/strains/shear2", "/strains/stretch",
    "/inflation", "/inflation/pieces", "/inflation/boundary",
    "/environment", "/environment/gravity", "/environment/fluid", "/environment/fluid/density",
    "/environment/fluid/added_mass", "/environment/fluid/drag", "/environment/fluid/lift",
    "/environment/fluid/model", "/environment/fluid/viscosity",
    "/environment/obstacles", "/environment/obstacles/*", "/environment/obstacles/*/name",
    "/environment/obstacles/*/type", "/environment/obstacles/*/point",
    "/environment/obstacles/*/normal", "/environment/obstacles/*/center",
    "/environment/obstacles/*/axis", "/environment/obstacles/*/radius",
    "/environment/obstacles/*/stiffness", "/environment/obstacles/*/damping",
    "/environment/obstacles/*/max_penetration",
    "/environment/obstacles/*/friction", "/environment/obstacles/*/friction/static",
    "/environment/obstacles/*/friction/kinetic",
    "/environment/obstacles/*/friction/threshold_velocity", "/environment/obstacles/*/displacement",
    "/environment/self_contact", "/environment/self_contact/stiffness",
    "/environment/self_contact/damping", "/environment/self_contact/friction",
    "/environment/self_contact/friction/static", "/environment/self_contact/friction/kinetic",
    "/environment/self_contact/friction/threshold_velocity",
    "/loads", "/loads/*", "/loads/*/name", "/loads/*/type", "/loads/*/force",
    "/loads/*/moment", "/loads/*/s", "/loads/*/frame", "/loads/*/scale",
    "/actuators", "/actuators/*", "/actuators/*/name", "/actuators/*/type",
    "/actuators/*/route", "/actuators/*/route/offset", "/actuators/*/route/helix",
    "/actuators/*/route/helix/radius", "/actuators/*/route/helix/turns",
    "/actuators/*/route/helix/phase", "/actuators/*/route/relative_to_radius",
    "/actuators/*/tension", "/actuators/*/tension/wave", "/actuators/*/tension/wave/alpha",
    "/actuators/*/tension/wave/mu", "/actuators/*/tension/wave/sigma",
    "/actuators/*/pressure", "/actuators/*/pressure/wave", "/actuators/*/pressure/wave/alpha",
    "/actuators/*/pressure/wave/mu", "/actuators/*/pressure/wave/sigma",
    "/actuators/*/span", "/actuators/*/about", "/actuators/*/beta", "/actuators/*/wavelength",
    "/actuators/*/period", "/actuators/*/phase",
    "/discretization", "/discretization/points", "/discretization/substeps",
    "/discretization/magnus_order",
    "/solver", "/solver/tolerance", "/solver/max_iterations", "/solver/load_steps",
    "/solver/guess", "/solver/rtol", "/solver/atol", "/solver/rate_time_scale", "/solver/jacobian",
    "/solver/integrator", "/solver/step", "/solver/rho_infinity", "/solver/command_ramp", "/solver/contact_laws",
    "/initial",
    "/authors_code", "/authors_code/no_cable_work_on_inflation", "/authors_code/global_quadrature",
    "/authors_code/damping_slips", "/authors_code/slope_per_X", "/authors_code/mass_rate_slip",
    SPEC_MECH_PATHS
    NULL};

/* rod.rest_strain: xi* per component, a number or an expression in s and X (Eq. 42). */
static void parse_rest_strain(pctx *c, const cJSON *rs)
{
    rod_spec *s = c->s;
    for (int k = 0; k < 6; k++) s->rest_value[k] = k == 5 ? 1.0 : 0.0;
    if (!rs) return;
    if (!spec_check_object(c, rs, "/rod/rest_strain", spec_strain_names_null)) return;
    for (int k = 0; k < 6; k++) {
        const cJSON *v = spec_member(rs, spec_strain_names[k]);
        if (!v) continue;
        char p[64];
        snprintf(p, sizeof p, "/rod/rest_strain/%s", spec_strain_names[k]);
        if (cJSON_IsNumber(v)) {
            if (!isfinite(v->valuedouble)) {
                spec_bad(c, p, "must be finite");
                continue;
            }
            s->rest_value[k] = v->valuedouble;
            if (s->rest_value[k] != (k == 5 ? 1.0 : 0.0)) s->has_rest = 1;
        } else if (cJSON_IsString(v)) {
            char msg[400];
            if (strlen(v->valuestring) > 1000) {
                spec_bad(c, p, "expression longer than 1000 characters");
            } else if (profile_check_arc_expr(v->valuestring, msg, sizeof msg) != 0) {
                spec_bad(c, p, "%s", msg);
            } else {
                s->rest_expr[k] = spec_dup_string(c, v->valuestring);
                s->has_rest = 1;
            }
        } else {
            spec_bad(c, p, "must be a number or an expression string in s (m) and X = s/L");
        }
    }
    if (s->rest_value[5] <= 0 && !s->rest_expr[5])
        spec_bad(c, "/rod/rest_strain/stretch", "must be > 0 (the rest length per unit of s)");
}

static void parse_rod(pctx *c, const cJSON *rod)
{
    rod_spec *s = c->s;
    if (!rod) {
        spec_bad(c, "/rod", "is required");
        return;
    }
    if (!spec_check_object(c, rod, "/rod", keys_rod)) return;
    spec_get_number(c, rod, "length", "/rod", REQUIRED, R_POS, &s->length);
    const cJSON *r = spec_member(rod, "radius");
    if (!r) {
        spec_bad(c, "/rod/radius", "is required");
    } else if (cJSON_IsNumber(r)) {
        if (spec_get_number(c, rod, "radius", "/rod", REQUIRED, R_POS, &s->radius_base))
            s->radius_tip = s->radius_base;
    } else if (cJSON_IsObject(r)) {
        spec_check_object(c, r, "/rod/radius", keys_radius);
        spec_get_number(c, r, "base", "/rod/radius", REQUIRED, R_POS, &s->radius_base);
        spec_get_number(c, r, "tip", "/rod/radius", REQUIRED, R_POS, &s->radius_tip);
    } else {
        spec_bad(c, "/rod/radius", "must be a number or an object {\"base\", \"tip\"}");
    }
    spec_get_number(c, rod, "density", "/rod", REQUIRED, R_POS, &s->density);
    spec_get_number(c, rod, "youngs_modulus", "/rod", REQUIRED, R_POS, &s->youngs);
    /* the shear modulus comes from the Poisson ratio or is given: one or the other */
    const int has_nu = spec_member(rod, "poisson_ratio") != NULL, has_G = spec_member(rod, "shear_modulus") != NULL;
    if (has_nu && has_G) {
        spec_bad(c, "/rod/shear_modulus", "give poisson_ratio or shear_modulus, not both (each fixes G)");
    } else if (has_G) {
        int ok_E = spec_member(rod, "youngs_modulus") && s->youngs > 0;
        if (spec_get_number(c, rod, "shear_modulus", "/rod", REQUIRED, R_POS, &s->shear_modulus) && ok_E) {
            s->poisson = s->youngs / (2 * s->shear_modulus) - 1;
            if (s->extended && !(s->poisson > -1 && s->poisson < 0.5))
                spec_bad(c, "/rod/shear_modulus", "must be > youngs_modulus / 3 for model \"extended\" (it "
                         "implies a Poisson ratio E / (2 G) - 1 = %g, outside (-1, 0.5))", s->poisson);
        }
    } else if (!has_nu) {
        spec_bad(c, "/rod/poisson_ratio", "is required (or give shear_modulus instead)");
    } else if (spec_get_number(c, rod, "poisson_ratio", "/rod", REQUIRED, R_POISSON, &s->poisson)) {
        s->shear_modulus = s->youngs / (2 * (1 + s->poisson));
    }
    s->shear_coefficient = 1.0;
    spec_get_number(c, rod, "shear_coefficient", "/rod", OPTIONAL, R_POS, &s->shear_coefficient);
    spec_get_number(c, rod, "shear_viscosity", "/rod", OPTIONAL, R_NONNEG, &s->eta);
    static const char *const inertias[] = {"conserving", "paper", NULL};
    s->inertia_paper = spec_get_enum(c, rod, "inertia", "/rod", OPTIONAL, inertias, 0) == 1;
    s->rotary_inertia_factor = 1.0;
    spec_get_number(c, rod, "rotary_inertia_factor", "/rod", OPTIONAL, R_POS, &s->rotary_inertia_factor);
    parse_rest_strain(c, spec_member(rod, "rest_strain"));
}

static void parse_strains(pctx *c, const cJSON *st)
{
    for (int k = 0; k < 6; k++) c->s->degree[k] = -1;
    if (!st) {
        spec_bad(c, "/strains", "is required");
        return;
    }
    static const char *const names[] = {"bend1", "bend2", "twist", "shear1", "shear2",
                                        "stretch", NULL};
    if (!spec_check_object(c, st, "/strains", names)) return;
    int any = 0;
    for (int k = 0; k < 6; k++)
        if (spec_get_int(c, st, names[k], "/strains", OPTIONAL, 0, MAX_DEGREE, &c->s->degree[k]))
            any = 1;
    if (!any && !st->child) spec_bad(c, "/strains", "must name at least one strain component");
}

static void parse_inflation(pctx *c, const cJSON *inf)
{
    rod_spec *s = c->s;
    if (!inf) {
        if (s->extended) spec_bad(c, "/inflation", "is required for model \"extended\"");
        return;
    }
    if (!s->extended) {
        spec_bad(c, "/inflation", "inflation needs model \"extended\" (the classic rod keeps its "
                 "cross-section)");
        return;
    }
    if (!spec_check_object(c, inf, "/inflation", keys_inflation)) return;
    spec_get_int(c, inf, "pieces", "/inflation", REQUIRED, 1, MAX_PIECES, &s->pieces);
    static const char *const bcs[] = {"dirichlet", "neumann", "mixed", NULL};
    int bc = spec_get_enum(c, inf, "boundary", "/inflation", REQUIRED, bcs, 0);
    if (bc >= 0) s->bc = (spec_bc)bc;
}

/* A friction coefficient: one number for every direction, or [forward, backward, lateral]. */
static void get_mu(pctx *c, const cJSON *fr, const char *key, const char *base, double mu[3])
{
    char p[360];
    spec_join(p, sizeof p, base, key);
    const cJSON *v = spec_member(fr, key);
    if (!v) {
        spec_bad(c, p, "is required");
        return;
    }
    if (cJSON_IsNumber(v)) {
        if (spec_get_number(c, fr, key, base, REQUIRED, R_NONNEG, &mu[0])) mu[1] = mu[2] = mu[0];
        return;
    }
    if (!spec_get_vec(c, fr, key, base, REQUIRED, 3, mu)) return;
    for (int i = 0; i < 3; i++)
        if (mu[i] < 0) {
            char pe[380];
            spec_join_index(pe, sizeof pe, p, i);
            spec_bad(c, pe, "must be >= 0");
        }
}

static void parse_friction(pctx *c, const cJSON *fr, const char *base, spec_friction *f)
{
    char p[340];
    spec_join(p, sizeof p, base, "friction");
    if (!fr) return;
    if (!spec_check_object(c, fr, p, keys_friction)) return;
    f->on = 1;
    get_mu(c, fr, "static", p, f->mu_static);
    get_mu(c, fr, "kinetic", p, f->mu_kinetic);
    f->threshold_velocity = 1e-4;
    spec_get_number(c, fr, "threshold_velocity", p, OPTIONAL, R_POS, &f->threshold_velocity);
    for (int i = 0; i < 3; i++)
        if (f->mu_kinetic[i] > f->mu_static[i]) {
            char pk[360];
            spec_join(pk, sizeof pk, p, "kinetic");
            spec_bad(c, pk, "must not exceed the static coefficient (direction %d)", i);
            break;
        }
}

/* environment.self_contact.friction: between two rods there is no one forward direction, so
 * each coefficient is one number (isotropic); the law is the obstacles' (parse_friction). */
static void parse_contact_friction(pctx *c, const cJSON *fr)
{
    const char *p = "/environment/self_contact/friction";
    if (!fr || !cJSON_IsObject(fr)) {
        if (fr) spec_bad(c, p, "must be an object {\"static\", \"kinetic\", \"threshold_velocity\"}");
        return;
    }
    static const char *const mu[] = {"static", "kinetic"};
    for (int i = 0; i < 2; i++) {
        const cJSON *v = spec_member(fr, mu[i]);
        if (v && !cJSON_IsNumber(v)) {
            char pm[80];
            spec_join(pm, sizeof pm, p, mu[i]);
            spec_bad(c, pm, "must be a number >= 0 (friction between rods is the same in every direction)");
            return;
        }
    }
    parse_friction(c, fr, "/environment/self_contact", &c->s->sc_friction);
}

/* A unit vector member (normalized here); 0 when missing, bad or zero. */
static int get_direction(pctx *c, const cJSON *obj, const char *key, const char *base, double v[3])
{
    if (!spec_get_vec(c, obj, key, base, REQUIRED, 3, v)) return 0;
    const double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(n > 0)) {
        char p[340];
        spec_join(p, sizeof p, base, key);
        spec_bad(c, p, "must not be the zero vector");
        return 0;
    }
    for (int i = 0; i < 3; i++) v[i] /= n;
    return 1;
}

static void parse_obstacles(pctx *c, const cJSON *obs)
{
    rod_spec *s = c->s;
    const char *op = "/environment/obstacles";
    if (!obs) return;
    if (!cJSON_IsArray(obs)) {
        spec_bad(c, op, "must be an array");
        return;
    }
    const int n = cJSON_GetArraySize(obs);
    if (n > SPEC_MAX_OBSTACLES) {
        spec_bad(c, op, "at most %d obstacles", SPEC_MAX_OBSTACLES);
        return;
    }
    s->obstacles = calloc((size_t)(n ? n : 1), sizeof *s->obstacles);
    if (!s->obstacles) {
        spec_bad(c, op, "out of memory");
        return;
    }
    static const char *const types[] = {"plane", "sphere", "cylinder", NULL};
    int i = 0;
    for (const cJSON *o = obs->child; o; o = o->next, i++) {
        char base[64], p[320];
        spec_join_index(base, sizeof base, op, i);
        spec_obstacle *ob = &s->obstacles[s->nobstacles++];
        if (!spec_check_object(c, o, base, keys_obstacle)) continue;
        if (spec_member(o, "name")) ob->name = spec_get_name(c, o, base);
        const int t = spec_get_enum(c, o, "type", base, REQUIRED, types, 0);
        spec_get_number(c, o, "stiffness", base, REQUIRED, R_POS, &ob->stiffness);
        spec_get_number(c, o, "damping", base, OPTIONAL, R_NONNEG, &ob->damping);
        ob->max_penetration = SPEC_MAX_PENETRATION;
        spec_get_number(c, o, "max_penetration", base, OPTIONAL, R_UNIT_OPEN, &ob->max_penetration);
        parse_friction(c, spec_member(o, "friction"), base, &ob->friction);
        const cJSON *dv = spec_member(o, "displacement");
        if (dv) {
            spec_join(p, sizeof p, base, "displacement");
            if (!cJSON_IsArray(dv) || cJSON_GetArraySize(dv) != 3) {
                spec_bad(c, p, "must be an array of 3 numbers or expressions in t");
            } else {
                ob->moving = 1;
                int k = 0;
                for (const cJSON *e = dv->child; e; e = e->next, k++) {
                    char pe[340];
                    spec_join_index(pe, sizeof pe, p, k);
                    profile *pr = &ob->displacement[k];
                    pr->kind = PROFILE_CONST;
                    if (spec_parse_scalar(c, e, pe, 0, 0, &pr->v, NULL) && pr->v.expr >= 0) pr->kind = PROFILE_EXPR;
                }
            }
        }
        if (t < 0) continue;
        ob->type = (spec_obstacle_type)t;
        /* each type takes its own keys; the others are refused by name */
        static const char *const own[3][3] = {{"point", "normal", NULL},
                                              {"center", "radius", NULL},
                                              {"point", "axis", "radius"}};
        static const char *const geo[] = {"point", "normal", "center", "axis", "radius", NULL};
        for (int g = 0; geo[g]; g++) {
            int mine = 0;
            for (int k = 0; k < 3; k++) mine |= own[t][k] && strcmp(own[t][k], geo[g]) == 0;
            if (!mine && spec_member(o, geo[g])) {
                spec_join(p, sizeof p, base, geo[g]);
                spec_bad(c, p, "not allowed for a %s", types[t]);
            }
        }
        if (ob->type == OBSTACLE_PLANE) {
            spec_get_vec(c, o, "point", base, REQUIRED, 3, ob->point);
            get_direction(c, o, "normal", base, ob->normal);
        } else if (ob->type == OBSTACLE_SPHERE) {
            spec_get_vec(c, o, "center", base, REQUIRED, 3, ob->point);
            spec_get_number(c, o, "radius", base, REQUIRED, R_POS, &ob->radius);
        } else {
            spec_get_vec(c, o, "point", base, REQUIRED, 3, ob->point);
            get_direction(c, o, "axis", base, ob->normal);
            spec_get_number(c, o, "radius", base, REQUIRED, R_POS, &ob->radius);
        }
    }
    for (int a = 0; a < s->nobstacles; a++)
        for (int b = 0; b < a && s->obstacles[a].name; b++)
            if (s->obstacles[b].name && strcmp(s->obstacles[a].name, s->obstacles[b].name) == 0) {
                char p[96];
                snprintf(p, sizeof p, "%s/%d/name", op, a);
                spec_bad(c, p, "duplicate obstacle name \"%s\"", s->obstacles[a].name);
                break;
            }
}

static void parse_environment(pctx *c, const cJSON *env)
{
    rod_spec *s = c->s;
    if (!env) return;
    if (!spec_check_object(c, env, "/environment", keys_env)) return;
    spec_get_vec(c, env, "gravity", "/environment", OPTIONAL, 3, s->gravity);
    parse_obstacles(c, spec_member(env, "obstacles"));
    const cJSON *sc = spec_member(env, "self_contact");
    if (sc && spec_check_object(c, sc, "/environment/self_contact", keys_self_contact)) {
        s->self_contact = 1;
        spec_get_number(c, sc, "stiffness", "/environment/self_contact", REQUIRED, R_POS, &s->sc_stiffness);
        spec_get_number(c, sc, "damping", "/environment/self_contact", OPTIONAL, R_NONNEG, &s->sc_damping);
        parse_contact_friction(c, spec_member(sc, "friction"));
    }
    const cJSON *f = spec_member(env, "fluid");
    if (!f) return;
    if (!spec_check_object(c, f, "/environment/fluid", keys_fluid)) return;
    const char *fp = "/environment/fluid";
    static const char *const fluids[] = {"water", "slender_body", NULL};
    s->fluid_slender = spec_get_enum(c, f, "model", fp, OPTIONAL, fluids, 0) == 1;
    if (s->fluid_slender) {
        /* Stokes flow: no added mass, buoyancy or quadratic drag, only the viscosity */
        spec_get_number(c, f, "viscosity", fp, REQUIRED, R_POS, &s->viscosity);
        static const char *const water_only[] = {"density", "added_mass", "drag", "lift", NULL};
        for (int k = 0; water_only[k]; k++)
            if (spec_member(f, water_only[k])) {
                char p[80];
                spec_join(p, sizeof p, fp, water_only[k]);
                spec_bad(c, p, "not allowed for model \"slender_body\" (it takes \"viscosity\")");
            }
        return;
    }
    if (spec_member(f, "viscosity"))
        spec_bad(c, "/environment/fluid/viscosity", "only for model \"slender_body\"");
    s->has_fluid = 1;
    spec_get_number(c, f, "density", fp, REQUIRED, R_NONNEG, &s->fluid_density);
    if (spec_get_vec(c, f, "added_mass", fp, OPTIONAL, 2, s->added_mass))
        for (int i = 0; i < 2; i++)
            if (s->added_mass[i] < 0) {
                char p[80];
                snprintf(p, sizeof p, "%s/added_mass/%d", fp, i);
                spec_bad(c, p, "must be >= 0");
            }
    spec_get_number(c, f, "drag", fp, OPTIONAL, R_NONNEG, &s->drag);
    spec_get_number(c, f, "lift", fp, OPTIONAL, R_ANY, &s->lift);
}

static void parse_span(pctx *c, const cJSON *obj, const char *base, double L, double span[2])
{
    span[0] = 0;
    span[1] = L;
    char p[320];
    spec_join(p, sizeof p, base, "span");
    if (!spec_member(obj, "span")) return;
    double v[2];
    if (!spec_get_vec(c, obj, "span", base, OPTIONAL, 2, v)) return;
    if (!(v[0] >= 0 && v[0] < v[1] && (L <= 0 || v[1] <= L * (1 + 1e-12)))) {
        spec_bad(c, p, "must be [s0, s1] with 0 <= s0 < s1 <= length");
        return;
    }
    span[0] = v[0];
    span[1] = v[1] > L ? L : v[1];
}

static void parse_loads(pctx *c, const cJSON *loads)
{
    rod_spec *s = c->s;
    if (!loads) return;
    if (!cJSON_IsArray(loads)) {
        spec_bad(c, "/loads", "must be an array");
        return;
    }
    int n = cJSON_GetArraySize(loads);
    if (n > MAX_INPUTS) {
        spec_bad(c, "/loads", "at most %d loads", MAX_INPUTS);
        return;
    }
    s->loads = calloc((size_t)(n ? n : 1), sizeof *s->loads);
    if (!s->loads) {
        spec_bad(c, "/loads", "out of memory");
        return;
    }
    static const char *const types[] = {"tip_force", "tip_moment", "point_force",
                                        "point_moment", "distributed_force",
                                        "distributed_moment", NULL};
    static const char *const frames[] = {"global", "local", NULL};
    int i = 0;
    for (const cJSON *ld = loads->child; ld; ld = ld->next, i++) {
        char base[64];
        spec_join_index(base, sizeof base, "/loads", i);
        spec_load *l = &s->loads[s->nloads++];
        l->scale.kind = PROFILE_CONST;
        l->scale.v.expr = -1;
        l->scale.v.value = 1.0;
        if (!spec_check_object(c, ld, base, keys_load)) continue;
        l->name = spec_get_name(c, ld, base);
        int t = spec_get_enum(c, ld, "type", base, REQUIRED, types, 0);
        int fr = spec_get_enum(c, ld, "frame", base, OPTIONAL, frames, 0);
        l->local = fr == 1;
        if (t < 0) continue;
        l->type = (spec_load_type)t;
        int is_force = l->type == LOAD_TIP_FORCE || l->type == LOAD_POINT_FORCE ||
                       l->type == LOAD_DIST_FORCE;
        int is_dist = l->type == LOAD_DIST_FORCE || l->type == LOAD_DIST_MOMENT;
        int is_point = l->type == LOAD_POINT_FORCE || l->type == LOAD_POINT_MOMENT;
        const char *need = is_force ? "force" : "moment", *other = is_force ? "moment" : "force";
        spec_get_vec(c, ld, need, base, REQUIRED, 3, l->vec);
        char p[320];
        if (spec_member(ld, other)) {
            spec_join(p, sizeof p, base, other);
            spec_bad(c, p, "not allowed for type \"%s\" (it takes \"%s\")", types[t], need);
        }
        if (is_point) {
            if (spec_get_number(c, ld, "s", base, REQUIRED, R_NONNEG, &l->s) && s->length > 0 &&
                l->s > s->length) {
                spec_join(p, sizeof p, base, "s");
                spec_bad(c, p, "must be in [0, length]");
            }
        } else {
            l->s = s->length;
            if (spec_member(ld, "s")) {
                spec_join(p, sizeof p, base, "s");
                spec_bad(c, p, "not allowed for type \"%s\" (%s)", types[t],
                         is_dist ? "a distributed load acts along the whole rod" : "a tip load acts at s = length");
            }
        }
        spec_parse_profile(c, ld, "scale", base, OPTIONAL, 0, 0, 1.0, &l->scale);
    }
}

static void parse_route(pctx *c, const cJSON *route, const char *base, spec_actuator *a)
{
    char p[320];
    spec_join(p, sizeof p, base, "route");
    if (!route) {
        spec_bad(c, p, "is required for a cable");
        return;
    }
    if (!spec_check_object(c, route, p, keys_route)) return;
    const cJSON *rel = spec_member(route, "relative_to_radius");
    if (rel) {
        char pr[340];
        spec_join(pr, sizeof pr, p, "relative_to_radius");
        if (!cJSON_IsBool(rel)) spec_bad(c, pr, "must be true or false");
        a->relative = cJSON_IsTrue(rel);
    }
    int has_off = spec_member(route, "offset") != NULL, has_hel = spec_member(route, "helix") != NULL;
    if (has_off == has_hel) {
        spec_bad(c, p, "must have exactly one of \"offset\" or \"helix\"");
        return;
    }
    if (has_off) {
        a->route = ROUTE_OFFSET;
        spec_get_vec(c, route, "offset", p, REQUIRED, 2, a->offset);
        return;
    }
    a->route = ROUTE_HELIX;
    char ph[340];
    spec_join(ph, sizeof ph, p, "helix");
    const cJSON *h = spec_member(route, "helix");
    if (!spec_check_object(c, h, ph, keys_helix)) return;
    spec_get_number(c, h, "radius", ph, REQUIRED, R_NONNEG, &a->helix_radius);
    spec_get_number(c, h, "turns", ph, REQUIRED, R_ANY, &a->helix_turns);
    spec_get_number(c, h, "phase", ph, OPTIONAL, R_ANY, &a->helix_phase);
}

#define MAX_BETA 32

/* The muscle couple of seed 002 (Figs. 6 and 10): beta control values (each a profile in t)
 * of a cubic B-spline along the rod times a travelling wave. */
static void parse_muscle(pctx *c, const cJSON *ac, const char *base, spec_actuator *a)
{
    char p[320];
    static const char *const abouts[] = {"d1", "d2", NULL};
    a->about = spec_get_enum(c, ac, "about", base, REQUIRED, abouts, 0);
    spec_get_number(c, ac, "period", base, REQUIRED, R_POS, &a->period);
    spec_get_number(c, ac, "wavelength", base, OPTIONAL, R_POS, &a->wavelength);
    spec_get_number(c, ac, "phase", base, OPTIONAL, R_ANY, &a->phase);
    static const char *const others[] = {"tension", "pressure", "route", "span", NULL};
    for (int k = 0; others[k]; k++)
        if (spec_member(ac, others[k])) {
            spec_join(p, sizeof p, base, others[k]);
            spec_bad(c, p, "not allowed for a muscle_torque actuator");
        }
    spec_join(p, sizeof p, base, "beta");
    const cJSON *b = spec_member(ac, "beta");
    if (!b) {
        spec_bad(c, p, "is required");
        return;
    }
    const int n = cJSON_IsArray(b) ? cJSON_GetArraySize(b) : 0;
    if (n < 2 || n > MAX_BETA) {
        spec_bad(c, p, "must be an array of 2 to %d values (numbers or expressions in t)", MAX_BETA);
        return;
    }
    a->beta = calloc((size_t)n, sizeof *a->beta);
    a->beta_names = calloc((size_t)n, sizeof *a->beta_names);
    if (!a->beta || !a->beta_names) {
        spec_bad(c, p, "out of memory");
        return;
    }
    a->nbeta = n;
    int i = 0;
    for (const cJSON *e = b->child; e; e = e->next, i++) {
        char pe[340], nm[MAX_NAME + 16];
        spec_join_index(pe, sizeof pe, p, i);
        profile *pr = &a->beta[i];
        pr->kind = PROFILE_CONST;
        if (spec_parse_scalar(c, e, pe, 0, 0, &pr->v, NULL) && pr->v.expr >= 0) pr->kind = PROFILE_EXPR;
        snprintf(nm, sizeof nm, "%s.beta%d", a->name ? a->name : "", i);
        a->beta_names[i] = spec_dup_string(c, nm);
    }
}

static void parse_actuators(pctx *c, const cJSON *acts)
{
    rod_spec *s = c->s;
    if (!acts) return;
    if (!cJSON_IsArray(acts)) {
        spec_bad(c, "/actuators", "must be an array");
        return;
    }
    int n = cJSON_GetArraySize(acts);
    if (n > MAX_INPUTS) {
        spec_bad(c, "/actuators", "at most %d actuators", MAX_INPUTS);
        return;
    }
    s->acts = calloc((size_t)(n ? n : 1), sizeof *s->acts);
    if (!s->acts) {
        spec_bad(c, "/actuators", "out of memory");
        return;
    }
    static const char *const types[] = {"cable", "transverse", "muscle_torque", NULL};
    int i = 0;
    for (const cJSON *ac = acts->child; ac; ac = ac->next, i++) {
        char base[64], p[320];
        spec_join_index(base, sizeof base, "/actuators", i);
        spec_actuator *a = &s->acts[s->nacts++];
        a->value.kind = PROFILE_CONST;
        a->value.v.expr = -1;
        if (!spec_check_object(c, ac, base, keys_act)) continue;
        a->name = spec_get_name(c, ac, base);
        int t = spec_get_enum(c, ac, "type", base, REQUIRED, types, 0);
        parse_span(c, ac, base, s->length, a->span);
        if (t < 0) continue;
        a->type = (spec_act_type)t;
        if (a->type == ACT_MUSCLE_TORQUE) {
            parse_muscle(c, ac, base, a);
            continue;
        }
        static const char *const muscle_keys[] = {"about", "beta", "wavelength", "period", "phase", NULL};
        for (int k = 0; muscle_keys[k]; k++)
            if (spec_member(ac, muscle_keys[k])) {
                spec_join(p, sizeof p, base, muscle_keys[k]);
                spec_bad(c, p, "only for a muscle_torque actuator");
            }
        if (a->type == ACT_CABLE) {
            parse_route(c, spec_member(ac, "route"), base, a);
            spec_parse_profile(c, ac, "tension", base, REQUIRED, 1, 1, 0.0, &a->value);
            if (spec_member(ac, "pressure")) {
                spec_join(p, sizeof p, base, "pressure");
                spec_bad(c, p, "not allowed for a cable (it takes \"tension\")");
            }
        } else {
            if (!s->extended) {
                spec_join(p, sizeof p, base, "type");
                spec_bad(c, p, "\"transverse\" needs model \"extended\" (the classic rod has no "
                         "cross-section to squeeze)");
            }
            spec_parse_profile(c, ac, "pressure", base, REQUIRED, 1, 1, 0.0, &a->value);
            if (spec_member(ac, "tension")) {
                spec_join(p, sizeof p, base, "tension");
                spec_bad(c, p, "not allowed for a transverse actuator (it takes \"pressure\")");
            }
            if (spec_member(ac, "route")) {
                spec_join(p, sizeof p, base, "route");
                spec_bad(c, p, "not allowed for a transverse actuator");
            }
        }
    }
}

static void check_unique_names(pctx *c)
{
    rod_spec *s = c->s;
    int n = s->nloads + s->nacts;
    for (int i = 0; i < n; i++) {
        const char *ni = i < s->nloads ? s->loads[i].name : s->acts[i - s->nloads].name;
        if (!ni) continue;
        for (int j = 0; j < i; j++) {
            const char *nj = j < s->nloads ? s->loads[j].name : s->acts[j - s->nloads].name;
            if (nj && strcmp(ni, nj) == 0) {
                char p[64];
                if (i < s->nloads)
                    snprintf(p, sizeof p, "/loads/%d/name", i);
                else
                    snprintf(p, sizeof p, "/actuators/%d/name", i - s->nloads);
                spec_bad(c, p, "duplicate name \"%s\" (names of loads and actuators must be unique)", ni);
                break;
            }
        }
    }
}

static void parse_solver(pctx *c, const cJSON *sv)
{
    rod_spec *s = c->s;
    s->tolerance = 1e-10;
    s->max_iterations = 200;
    s->max_load_steps = 64;
    s->rtol = 1e-6;
    s->atol = 1e-8;
    s->rate_time_scale = 1.0;
    s->rho_inf = 0.8;
    s->command_ramp = DEFAULT_COMMAND_RAMP;
    if (!sv) return;
    if (!spec_check_object(c, sv, "/solver", keys_solver)) return;
    double tol;
    if (spec_get_number(c, sv, "tolerance", "/solver", OPTIONAL, R_POS, &tol)) s->tolerance = tol;
    spec_get_int(c, sv, "max_iterations", "/solver", OPTIONAL, 1, 100000, &s->max_iterations);
    spec_get_int(c, sv, "load_steps", "/solver", OPTIONAL, 1, 4096, &s->max_load_steps);
    spec_get_number(c, sv, "rtol", "/solver", OPTIONAL, R_POS, &s->rtol);
    spec_get_number(c, sv, "atol", "/solver", OPTIONAL, R_POS, &s->atol);
    if (spec_get_number(c, sv, "rate_time_scale", "/solver", OPTIONAL, R_POS, &s->rate_time_scale) &&
        !(s->atol / s->rate_time_scale >= DBL_MIN && s->atol / s->rate_time_scale <= 1e300))
        spec_bad(c, "/solver/rate_time_scale", "makes the rates' tolerance atol / rate_time_scale = %g, "
                 "not a positive normal number", s->atol / s->rate_time_scale);
    static const char *const jacs[] = {"difference", "elastic", "contact", NULL};
    const int jac = spec_get_enum(c, sv, "jacobian", "/solver", OPTIONAL, jacs, 0);
    s->jacobian_elastic = jac == 1 || jac == 2;
    s->jacobian_contact = jac == 2;
    static const char *const integrators[] = {"bdf", "generalized-alpha", NULL};
    s->integrator = spec_get_enum(c, sv, "integrator", "/solver", OPTIONAL, integrators, 0) == 1
                        ? INTEGRATOR_GALPHA
                        : INTEGRATOR_BDF;
    spec_get_number(c, sv, "rho_infinity", "/solver", OPTIONAL, R_UNIT, &s->rho_inf);
    static const char *const laws[] = {"solved", "linearized", NULL};
    s->contact_laws_linearized = spec_get_enum(c, sv, "contact_laws", "/solver", OPTIONAL, laws, 0) == 1;
    s->contact_laws_given = spec_member(sv, "contact_laws") != NULL;
    spec_get_number(c, sv, "command_ramp", "/solver", OPTIONAL, R_NONNEG, &s->command_ramp);
    const int has_step = spec_get_number(c, sv, "step", "/solver", OPTIONAL, R_POS, &s->step);
    if (s->integrator == INTEGRATOR_GALPHA && !has_step && !spec_member(sv, "step"))
        spec_bad(c, "/solver/step", "is required with the generalized-alpha integrator (it has no "
                 "error control: the step sets the accuracy)");
    const cJSON *g = spec_member(sv, "guess");
    if (!g) return;
    if (!cJSON_IsArray(g) || cJSON_GetArraySize(g) == 0 || cJSON_GetArraySize(g) > 10000) {
        spec_bad(c, "/solver/guess", "must be a non-empty array of numbers (q, as rodd solve prints it)");
        return;
    }
    int n = cJSON_GetArraySize(g);
    s->guess = calloc((size_t)n, sizeof *s->guess);
    if (!s->guess) {
        spec_bad(c, "/solver/guess", "out of memory");
        return;
    }
    int i = 0;
    for (const cJSON *e = g->child; e; e = e->next, i++) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) {
            char p[64];
            snprintf(p, sizeof p, "/solver/guess/%d", i);
            spec_bad(c, p, "must be a finite number");
        } else {
            s->guess[i] = e->valuedouble;
        }
    }
    s->nguess = n;
}

static void get_bool(pctx *c, const cJSON *obj, const char *key, const char *base, int *out)
{
    const cJSON *v = spec_member(obj, key);
    if (!v) return;
    if (!cJSON_IsBool(v)) {
        char p[320];
        spec_join(p, sizeof p, base, key);
        spec_bad(c, p, "must be true or false");
        return;
    }
    *out = cJSON_IsTrue(v);
}

static void parse_authors_code(pctx *c, const cJSON *ac)
{
    if (!ac || !spec_check_object(c, ac, "/authors_code", keys_authors)) return;
    spec_authors_code *a = &c->s->authors;
    get_bool(c, ac, "no_cable_work_on_inflation", "/authors_code", &a->no_cable_work_on_inflation);
    get_bool(c, ac, "global_quadrature", "/authors_code", &a->global_quadrature);
    get_bool(c, ac, "damping_slips", "/authors_code", &a->damping_slips);
    get_bool(c, ac, "slope_per_X", "/authors_code", &a->slope_per_X);
    get_bool(c, ac, "mass_rate_slip", "/authors_code", &a->mass_rate_slip);
}

rod_spec *spec_parse(const cJSON *root, rod_issues *issues)
{
    rod_spec *s = calloc(1, sizeof *s);
    pctx c = {issues, s, 0};
    if (!s) {
        issues_add(issues, "", "out of memory");
        return NULL;
    }
    if (!spec_check_object(&c, root, "", keys_root)) {
        spec_free(s);
        return NULL;
    }
    static const char *const models[] = {"classic", "extended", NULL};
    s->extended = spec_get_enum(&c, root, "model", "", REQUIRED, models, 0) == 1;
    const cJSON *nm = spec_member(root, "name");
    if (nm) {
        if (!cJSON_IsString(nm) || strlen(nm->valuestring) > 200)
            spec_bad(&c, "/name", "must be a string of at most 200 characters");
        else
            s->name = spec_dup_string(&c, nm->valuestring);
    }
    const cJSON *ds = spec_member(root, "description");
    if (ds && !cJSON_IsString(ds)) spec_bad(&c, "/description", "must be a string");
    spec_get_number(&c, root, "duration", "", OPTIONAL, R_POS, &s->duration);
    parse_rod(&c, spec_member(root, "rod"));
    parse_strains(&c, spec_member(root, "strains"));
    parse_inflation(&c, spec_member(root, "inflation"));
    parse_environment(&c, spec_member(root, "environment"));
    parse_loads(&c, spec_member(root, "loads"));
    parse_actuators(&c, spec_member(root, "actuators"));
    if (!c.nbad) spec_check_cables(&c); /* needs the rod and the routes as parsed */
    check_unique_names(&c);
    spec_parse_mechanics(&c, root);
    const cJSON *disc = spec_member(root, "discretization");
    if (disc && spec_check_object(&c, disc, "/discretization", keys_disc))
    {
        spec_get_int(&c, disc, "points", "/discretization", OPTIONAL, 2, MAX_POINTS, &s->points);
        spec_get_int(&c, disc, "substeps", "/discretization", OPTIONAL, 1, 100, &s->substeps);
        int order = 0;
        if (spec_get_int(&c, disc, "magnus_order", "/discretization", OPTIONAL, -1000000, 1000000, &order)) {
            if (order == 4 || order == 6)
                s->magnus_order = order;
            else
                spec_bad(&c, "/discretization/magnus_order", "must be 4 or 6");
        }
    }
    parse_solver(&c, spec_member(root, "solver"));
    static const char *const inits[] = {"rest", "static", NULL};
    s->initial_static = spec_get_enum(&c, root, "initial", "", OPTIONAL, inits, 0) == 1;
    parse_authors_code(&c, spec_member(root, "authors_code"));
    if (c.nbad) {
        spec_free(s);
        return NULL;
    }
    return s;
}

void spec_free(rod_spec *s)
{
    if (!s) return;
    for (int k = 0; k < 6; k++) free(s->rest_expr[k]);
    for (int i = 0; i < s->nloads; i++) free(s->loads[i].name);
    for (int i = 0; i < s->nacts; i++) {
        free(s->acts[i].name);
        for (int k = 0; k < s->acts[i].nbeta; k++) free(s->acts[i].beta_names ? s->acts[i].beta_names[k] : NULL);
        free(s->acts[i].beta_names);
        free(s->acts[i].beta);
    }
    for (int i = 0; i < s->nobstacles; i++) free(s->obstacles[i].name);
    free(s->obstacles);
    for (int i = 0; i < s->nexprs; i++) free(s->exprs[i]);
    free(s->loads);
    free(s->acts);
    free(s->exprs);
    free(s->guess);
    free(s->name);
    spec_free_mechanics(s);
    free(s);
}

int spec_parse_input_profile(const cJSON *v, int allow_X, int nonneg, profile *out, char ***exprs, int *nexprs,
                             rod_issues *iss)
{
    rod_spec tmp;
    memset(&tmp, 0, sizeof tmp);
    pctx c = {iss, &tmp, 0};
    /* parse_profile reads a member: wrap the value as {"": v}, so issues carry no key */
    cJSON *holder = cJSON_CreateObject();
    if (!holder || !cJSON_AddItemReferenceToObject(holder, "", (cJSON *)v)) {
        cJSON_Delete(holder);
        return -1;
    }
    const int ok = spec_parse_profile(&c, holder, "", "", REQUIRED, allow_X, nonneg, 0.0, out);
    cJSON_Delete(holder); /* a reference: v itself stays */
    if (!ok || c.nbad) {
        for (int i = 0; i < tmp.nexprs; i++) free(tmp.exprs[i]);
        free(tmp.exprs);
        return -1;
    }
    *exprs = tmp.exprs;
    *nexprs = tmp.nexprs;
    return 0;
}
