/* The spec's mechanics sections: "constraints" (seeds/003: poses and volume held by Lagrange
 * multipliers or by penalties). */
#include "spec_parse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONSTRAINTS 64

static const char *const keys_con[] = {"name", "type", "s", "position", "rotation", "components",
    "scope", "method", "stiffness", "damping", "relative_to", NULL};
static const char *const keys_relative[] = {"s", NULL};
static const char *const keys_rotation[] = {"axis", "angle", NULL};
static const char *const comp_names[] = {"x", "y", "z", "rx", "ry", "rz", NULL};

static void not_allowed(pctx *c, const cJSON *obj, const char *base, const char *key, const char *why)
{
    if (!spec_member(obj, key)) return;
    char p[320];
    spec_join(p, sizeof p, base, key);
    spec_bad(c, p, "not allowed %s", why);
}

/* "position": three profiles in t, into out[0..2]. */
static int parse_position(pctx *c, const cJSON *con, const char *base, profile *out)
{
    char p[320];
    spec_join(p, sizeof p, base, "position");
    const cJSON *v = spec_member(con, "position");
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3) {
        spec_bad(c, p, "must be an array of 3 numbers or expressions in t");
        return 0;
    }
    int i = 0, ok = 1;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        char pe[340];
        spec_join_index(pe, sizeof pe, p, i);
        memset(&out[i], 0, sizeof out[i]);
        if (spec_parse_scalar(c, e, pe, 0, 0, &out[i].v, NULL))
            out[i].kind = out[i].v.expr >= 0 ? PROFILE_EXPR : PROFILE_CONST;
        else
            ok = 0;
    }
    return ok;
}

/* "rotation": {"axis": [3], "angle": profile}; the axis is normalized. */
static int parse_rotation(pctx *c, const cJSON *obj, const char *base, double axis[3], profile *angle)
{
    char p[320];
    spec_join(p, sizeof p, base, "rotation");
    const cJSON *r = spec_member(obj, "rotation");
    if (!spec_check_object(c, r, p, keys_rotation)) return 0;
    int ok = spec_get_vec(c, r, "axis", p, REQUIRED, 3, axis);
    ok &= spec_parse_profile(c, r, "angle", p, REQUIRED, 0, 0, 0.0, angle);
    if (ok) {
        const double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
        if (!(n > 0)) {
            char pa[340];
            spec_join(pa, sizeof pa, p, "axis");
            spec_bad(c, pa, "must not be the zero vector");
            return 0;
        }
        for (int i = 0; i < 3; i++) axis[i] /= n;
    }
    return ok;
}

static void parse_components(pctx *c, const cJSON *con, const char *base, int held[6])
{
    char p[320];
    spec_join(p, sizeof p, base, "components");
    const cJSON *v = spec_member(con, "components");
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 1 || cJSON_GetArraySize(v) > 6) {
        spec_bad(c, p, "must be an array of 1 to 6 of \"x\", \"y\", \"z\", \"rx\", \"ry\", \"rz\"");
        return;
    }
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        char pe[340];
        spec_join_index(pe, sizeof pe, p, i);
        int k = -1;
        for (int j = 0; cJSON_IsString(e) && comp_names[j]; j++)
            if (strcmp(e->valuestring, comp_names[j]) == 0) k = j;
        if (k < 0)
            spec_bad(c, pe, "must be one of \"x\", \"y\", \"z\", \"rx\", \"ry\", \"rz\"");
        else if (held[k])
            spec_bad(c, pe, "\"%s\" is listed twice", comp_names[k]);
        else
            held[k] = 1;
    }
}

/* "relative_to": {"s": s_rel}: the pose held is the point's relative to the frame of another
 * point of the rod (a ring closed on itself, a rod's two ends twisted against each other). */
static void parse_relative(pctx *c, const cJSON *con, const char *base, spec_constraint *k)
{
    const rod_spec *s = c->s;
    const cJSON *r = spec_member(con, "relative_to");
    if (!r) return;
    char p[320], ps[340];
    spec_join(p, sizeof p, base, "relative_to");
    if (!spec_check_object(c, r, p, keys_relative)) return;
    if (!spec_get_number(c, r, "s", p, REQUIRED, R_NONNEG, &k->s_rel)) return;
    spec_join(ps, sizeof ps, p, "s");
    if (s->length > 0 && !(k->s_rel <= s->length * (1 + 1e-12))) {
        spec_bad(c, ps, "must be in [0, length] (m from the base)");
        return;
    }
    if (k->s_rel > s->length) k->s_rel = s->length;
    if (fabs(k->s_rel - k->s) <= 1e-12 * s->length) {
        spec_bad(c, ps, "must differ from the constrained point's s (%g): a point is always where "
                 "it is relative to itself", k->s);
        return;
    }
    k->relative = 1;
}

static void parse_pose(pctx *c, const cJSON *con, const char *base, spec_constraint *k)
{
    rod_spec *s = c->s;
    char p[320];
    k->s = s->length;
    /* a free base may be held (s = 0): its reaction is then the one the frame reports */
    if (spec_get_number(c, con, "s", base, OPTIONAL, R_NONNEG, &k->s) && s->length > 0 &&
        !((k->s > 0 || (s->base_free && k->s == 0)) && k->s <= s->length * (1 + 1e-12))) {
        spec_join(p, sizeof p, base, "s");
        spec_bad(c, p, s->base_free ? "must be in [0, length]" : "must be in (0, length]: the base (s = 0) is clamped");
    }
    if (k->s > s->length) k->s = s->length;
    parse_relative(c, con, base, k);
    for (int i = 0; i < 3; i++) {
        k->position[i].kind = PROFILE_CONST;
        k->position[i].v.expr = -1;
        k->position[i].v.value = i == 2 ? k->s - (k->relative ? k->s_rel : 0.0) : 0.0;
    }
    k->axis[2] = 1.0;
    k->angle.kind = PROFILE_CONST;
    k->angle.v.expr = -1;
    const int has_pos = spec_member(con, "position") != NULL;
    const int has_rot = spec_member(con, "rotation") != NULL;
    k->position_given = has_pos;
    k->rotation_given = has_rot;
    if (has_pos) parse_position(c, con, base, k->position);
    if (has_rot) parse_rotation(c, con, base, k->axis, &k->angle);
    if (spec_member(con, "components")) {
        parse_components(c, con, base, k->held);
    } else if (has_pos || has_rot) {
        for (int i = 0; i < 3; i++) {
            k->held[i] = has_pos;
            k->held[3 + i] = has_rot;
        }
    } else {
        spec_bad(c, base, "a pose constraint needs \"position\", \"rotation\" or \"components\"");
    }
    not_allowed(c, con, base, "scope", "for a pose constraint");
}

/* A pose's targets become inputs named NAME.x, .y, .z, .angle: none may be a load's or an
 * actuator's name. */
static void check_target_names(pctx *c, const spec_constraint *k, const char *base)
{
    static const char *const suffix[4] = {"x", "y", "z", "angle"};
    const rod_spec *s = c->s;
    if (!k->name) return;
    for (int a = 0; a < 4; a++) {
        char nm[96], p[320];
        snprintf(nm, sizeof nm, "%s.%s", k->name, suffix[a]);
        for (int i = 0; i < s->nloads + s->nacts; i++) {
            const char *other = i < s->nloads ? s->loads[i].name : s->acts[i - s->nloads].name;
            if (other && strcmp(other, nm) == 0) {
                spec_join(p, sizeof p, base, "name");
                spec_bad(c, p, "\"%s\" names this constraint's target input, which a load or "
                         "actuator already is", nm);
            }
        }
    }
}

static void parse_constraints(pctx *c, const cJSON *cons)
{
    rod_spec *s = c->s;
    if (!cons) return;
    if (!cJSON_IsArray(cons)) {
        spec_bad(c, "/constraints", "must be an array");
        return;
    }
    const int n = cJSON_GetArraySize(cons);
    if (n > MAX_CONSTRAINTS) {
        spec_bad(c, "/constraints", "at most %d constraints", MAX_CONSTRAINTS);
        return;
    }
    s->cons = calloc((size_t)(n ? n : 1), sizeof *s->cons);
    if (!s->cons) {
        spec_bad(c, "/constraints", "out of memory");
        return;
    }
    static const char *const types[] = {"pose", "volume", NULL};
    static const char *const methods[] = {"multiplier", "penalty", NULL};
    static const char *const scopes[] = {"total", "pieces", NULL};
    int i = 0;
    for (const cJSON *con = cons->child; con; con = con->next, i++) {
        char base[64], p[320];
        spec_join_index(base, sizeof base, "/constraints", i);
        spec_constraint *k = &s->cons[s->ncons++];
        if (!spec_check_object(c, con, base, keys_con)) continue;
        k->name = spec_get_name(c, con, base);
        for (int j = 0; k->name && j < i; j++)
            if (s->cons[j].name && strcmp(s->cons[j].name, k->name) == 0) {
                spec_join(p, sizeof p, base, "name");
                spec_bad(c, p, "duplicate name \"%s\" (constraint names must be unique)", k->name);
                break;
            }
        int t = spec_get_enum(c, con, "type", base, REQUIRED, types, 0);
        k->penalty = spec_get_enum(c, con, "method", base, OPTIONAL, methods, 0) == 1;
        if (k->penalty) {
            spec_get_number(c, con, "stiffness", base, REQUIRED, R_POS, &k->stiffness);
            spec_get_number(c, con, "damping", base, OPTIONAL, R_NONNEG, &k->damping);
        } else {
            not_allowed(c, con, base, "stiffness", "with method \"multiplier\" (a penalty's)");
            not_allowed(c, con, base, "damping", "with method \"multiplier\" (a penalty's)");
        }
        if (t < 0) continue;
        k->type = (spec_con_type)t;
        if (k->type == CON_POSE) {
            parse_pose(c, con, base, k);
            check_target_names(c, k, base);
            continue;
        }
        if (!s->extended || s->pieces == 0) {
            spec_join(p, sizeof p, base, "type");
            spec_bad(c, p, "\"volume\" needs model \"extended\" with inflation (the classic rod "
                     "keeps its cross-section)");
        }
        k->pieces = spec_get_enum(c, con, "scope", base, OPTIONAL, scopes, 0) == 1;
        const char *why = "for a volume constraint";
        not_allowed(c, con, base, "s", why);
        not_allowed(c, con, base, "position", why);
        not_allowed(c, con, base, "rotation", why);
        not_allowed(c, con, base, "components", why);
        not_allowed(c, con, base, "relative_to", why);
    }
}

#define MAX_BODIES 16
static const char *const keys_body[] = {"name", "s", "mass", "inertia", "offset", "volume", NULL};

/* "inertia": [3] (principal, along the local axes) or [3][3] (symmetric, positive definite). */
static void parse_inertia(pctx *c, const cJSON *b, const char *base, double J[9])
{
    char p[320];
    spec_join(p, sizeof p, base, "inertia");
    const cJSON *v = spec_member(b, "inertia");
    if (!v) return;
    const int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : 0;
    if (n == 3 && cJSON_IsNumber(v->child)) {
        double d[3];
        if (!spec_get_vec(c, b, "inertia", base, REQUIRED, 3, d)) return;
        for (int i = 0; i < 3; i++) {
            if (!(d[i] >= 0)) {
                spec_bad(c, p, "principal moments must be >= 0");
                return;
            }
            J[4 * i] = d[i];
        }
        return;
    }
    if (n != 3) {
        spec_bad(c, p, "must be 3 principal moments or a 3x3 matrix (kg m^2)");
        return;
    }
    int i = 0;
    for (const cJSON *row = v->child; row; row = row->next, i++) {
        int j = 0;
        if (!cJSON_IsArray(row) || cJSON_GetArraySize(row) != 3) {
            spec_bad(c, p, "must be 3 principal moments or a 3x3 matrix (kg m^2)");
            return;
        }
        for (const cJSON *e = row->child; e; e = e->next, j++) {
            if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) {
                spec_bad(c, p, "must be 3 principal moments or a 3x3 matrix (kg m^2)");
                return;
            }
            J[i + 3 * j] = e->valuedouble;
        }
    }
    for (i = 0; i < 3; i++)
        for (int j = 0; j < i; j++)
            if (fabs(J[i + 3 * j] - J[j + 3 * i]) > 1e-12 * (fabs(J[i + 3 * j]) + fabs(J[j + 3 * i]))) {
                spec_bad(c, p, "must be symmetric");
                return;
            }
    /* positive semidefinite: the leading minors of a 3x3 symmetric matrix */
    const double m1 = J[0], m2 = J[0] * J[4] - J[1] * J[3];
    const double m3 = J[0] * (J[4] * J[8] - J[5] * J[7]) - J[3] * (J[1] * J[8] - J[2] * J[7]) +
                      J[6] * (J[1] * J[5] - J[2] * J[4]);
    if (m1 < 0 || m2 < 0 || m3 < 0) spec_bad(c, p, "must be positive semidefinite");
}

static void parse_bodies(pctx *c, const cJSON *bodies)
{
    rod_spec *s = c->s;
    if (!bodies) return;
    if (!cJSON_IsArray(bodies)) {
        spec_bad(c, "/bodies", "must be an array");
        return;
    }
    const int n = cJSON_GetArraySize(bodies);
    if (n > MAX_BODIES) {
        spec_bad(c, "/bodies", "at most %d bodies", MAX_BODIES);
        return;
    }
    s->bodies = calloc((size_t)(n ? n : 1), sizeof *s->bodies);
    if (!s->bodies) {
        spec_bad(c, "/bodies", "out of memory");
        return;
    }
    int i = 0;
    for (const cJSON *b = bodies->child; b; b = b->next, i++) {
        char base[64], p[320];
        spec_join_index(base, sizeof base, "/bodies", i);
        spec_body *k = &s->bodies[s->nbodies++];
        k->s = s->length;
        if (!spec_check_object(c, b, base, keys_body)) continue;
        k->name = spec_get_name(c, b, base);
        for (int j = 0; k->name && j < i; j++)
            if (s->bodies[j].name && strcmp(s->bodies[j].name, k->name) == 0) {
                spec_join(p, sizeof p, base, "name");
                spec_bad(c, p, "duplicate name \"%s\" (body names must be unique)", k->name);
                break;
            }
        if (spec_get_number(c, b, "s", base, OPTIONAL, R_NONNEG, &k->s) && s->length > 0 &&
            !(k->s > 0 && k->s <= s->length * (1 + 1e-12))) {
            spec_join(p, sizeof p, base, "s");
            spec_bad(c, p, "must be in (0, length]: the base (s = 0) is clamped");
        }
        if (k->s > s->length) k->s = s->length;
        spec_get_number(c, b, "mass", base, REQUIRED, R_POS, &k->mass);
        parse_inertia(c, b, base, k->inertia);
        spec_get_vec(c, b, "offset", base, OPTIONAL, 3, k->offset);
        spec_get_number(c, b, "volume", base, OPTIONAL, R_NONNEG, &k->volume);
    }
}

static const char *const keys_base[] = {"type", "position", "rotation", NULL};

static void parse_base(pctx *c, const cJSON *b)
{
    rod_spec *s = c->s;
    for (int i = 0; i < 3; i++) {
        s->base_position[i].kind = PROFILE_CONST;
        s->base_position[i].v.expr = -1;
    }
    s->base_axis[2] = 1.0;
    s->base_angle.kind = PROFILE_CONST;
    s->base_angle.v.expr = -1;
    if (!b) return;
    if (!spec_check_object(c, b, "/base", keys_base)) return;
    static const char *const types[] = {"clamped", "moving", "free", NULL};
    const int t = spec_get_enum(c, b, "type", "/base", REQUIRED, types, 0);
    s->base_moving = t == 1;
    s->base_free = t == 2;
    if (t != 1) {
        const char *why = "unless the base is \"moving\"";
        not_allowed(c, b, "/base", "position", why);
        not_allowed(c, b, "/base", "rotation", why);
        return;
    }
    if (spec_member(b, "position")) parse_position(c, b, "/base", s->base_position);
    if (spec_member(b, "rotation")) parse_rotation(c, b, "/base", s->base_axis, &s->base_angle);
}

void spec_parse_mechanics(pctx *c, const cJSON *root)
{
    parse_base(c, spec_member(root, "base"));
    parse_constraints(c, spec_member(root, "constraints"));
    parse_bodies(c, spec_member(root, "bodies"));
}

void spec_free_mechanics(rod_spec *s)
{
    for (int i = 0; i < s->ncons; i++) free(s->cons[i].name);
    free(s->cons);
    for (int i = 0; i < s->nbodies; i++) free(s->bodies[i].name);
    free(s->bodies);
}
