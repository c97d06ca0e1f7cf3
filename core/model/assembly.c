/* A spec's "rods" compiled into an assembly (assembly.h): each rod as a one-rod spec of its
 * own (its keys plus the shared environment, solver and discretization), each top-level body
 * as a stub rod carrying it, the joints resolved and checked (targets, cycles, axes). */
#include "assembly.h"

#include "issues.h"
#include "model.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the stubs carrying top-level bodies: short enough that their own length is nothing beside
 * any rod's, long enough for the stations' arithmetic; a spec needs one strain, which a lock
 * row holds at 0 (assembly.h) */
#define STUB_LENGTH 1e-6
#define STUB_RADIUS 1e-4
#define STUB_MODULUS 1e6

static const char *const shared_keys[] = {"environment", "solver", "discretization", NULL};
static const char *const top_keys[] = {"name", "description", "duration", "rods", "bodies",
    "environment", "solver", "discretization", "initial", NULL};
static const char *const rod_keys[] = {"name", "model", "rod", "strains", "inflation", "actuators",
    "loads", "base", "bodies", "constraints", "authors_code", NULL};
static const char *const joint_keys[] = {"type", "to", "joint", "axis", "position", "rotation", "method",
    "stiffness", "damping", NULL};
static const char *const body_keys[] = {"name", "mass", "inertia", "base", NULL};
static const char *const body_base_keys[] = {"type", "position", "rotation", NULL};

const char *const assembly_known_paths[] = {
    "/rods", "/rods/*", "/rods/*/name", "/rods/*/base/to", "/rods/*/base/to/rod", "/rods/*/base/to/body",
    "/rods/*/base/to/s", "/rods/*/base/joint", "/rods/*/base/axis", "/rods/*/base/position",
    "/rods/*/base/rotation", "/rods/*/base/rotation/axis", "/rods/*/base/rotation/angle", "/rods/*/base/method",
    "/rods/*/base/stiffness", "/rods/*/base/damping",
    "/bodies/*/base", "/bodies/*/base/type", "/bodies/*/base/position", "/bodies/*/base/rotation",
    "/bodies/*/base/rotation/axis", "/bodies/*/base/rotation/angle", NULL};

typedef struct {
    int parent_rod;      /* -1 unresolved */
    const char *to_name;
    int to_body;         /* the target is a top-level body */
    int tip;             /* "s": "tip" */
    double s;
    int type;
    double pos[3], axis_rot[3], angle, hinge[3];
    int has_hinge;
    int penalty;
    double stiffness, damping;
} joint_spec;

static int in_list(const char *k, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (!strcmp(k, list[i])) return 1;
    return 0;
}

static int check_keys(const cJSON *o, const char *path, const char *const *keys, rod_issues *iss)
{
    int bad = 0;
    for (const cJSON *c = o->child; c; c = c->next)
        if (!in_list(c->string, keys)) {
            issues_add(iss, path, "has an unknown key \"%s\"", c->string);
            bad = 1;
        }
    return bad;
}

/* v / |v| without overflow (1e308 components) or underflow (1e-320): scaled by the largest
 * component first, so the result is a unit vector whenever v is not 0; 0 when it is */
static int normalize3(double v[3])
{
    const double m = fmax(fabs(v[0]), fmax(fabs(v[1]), fabs(v[2])));
    if (!(m > 0) || !isfinite(m)) return 0;
    for (int i = 0; i < 3; i++) v[i] /= m;
    const double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int i = 0; i < 3; i++) v[i] /= n;
    return 1;
}

static int get_vec3(const cJSON *o, const char *key, const char *path, double v[3], rod_issues *iss)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!a) return 0;
    char kp[240];
    snprintf(kp, sizeof kp, "%s/%s", path, key);
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 3) {
        issues_add(iss, kp, "must be an array of 3 numbers");
        return -1;
    }
    for (int i = 0; i < 3; i++) {
        const cJSON *x = cJSON_GetArrayItem(a, i);
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble)) {
            issues_add(iss, kp, "must be an array of 3 numbers");
            return -1;
        }
        v[i] = x->valuedouble;
    }
    return 1;
}

/* {"axis": [3], "angle": rad} -> axis (unit) and angle */
static void get_rotation(const cJSON *o, const char *path, double axis[3], double *angle, rod_issues *iss)
{
    axis[0] = axis[1] = 0;
    axis[2] = 1;
    *angle = 0;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "rotation");
    if (!r) return;
    char p[160];
    snprintf(p, sizeof p, "%s/rotation", path);
    const cJSON *an = cJSON_GetObjectItemCaseSensitive(r, "angle");
    if (!cJSON_IsObject(r) || !cJSON_IsNumber(an) || get_vec3(r, "axis", p, axis, iss) != 1) {
        issues_add(iss, p, "must be {\"axis\": [x, y, z], \"angle\": radians}");
        return;
    }
    static const char *const rot_keys[] = {"axis", "angle", NULL};
    check_keys(r, p, rot_keys, iss);
    if (!normalize3(axis)) {
        issues_add(iss, p, "axis must not be zero");
        return;
    }
    *angle = an->valuedouble;
}

static int name_ok(const char *s)
{
    const size_t n = strlen(s);
    if (n < 1 || n > 64) return 0;
    for (size_t i = 0; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '-')) return 0;
    return 1;
}

static rod_model *compile_sub(cJSON *sub, const char *prefix, int shared_too, rod_issues *iss)
{
    char *text = cJSON_PrintUnformatted(sub);
    if (!text) {
        issues_add(iss, "", "out of memory");
        return NULL;
    }
    rod_issues tmp;
    rod_issues_init(&tmp);
    rod_model *m = model_compile_one(text, strlen(text), NULL, 0, &tmp);
    free(text);
    for (int i = 0; i < tmp.count; i++) {
        const char *p = tmp.items[i].path;
        int shared = 0;
        for (int k = 0; shared_keys[k]; k++) {
            const size_t l = strlen(shared_keys[k]);
            if (p[0] == '/' && !strncmp(p + 1, shared_keys[k], l) && (p[l + 1] == '/' || !p[l + 1])) shared = 1;
        }
        if (shared && !shared_too) continue;
        /* a top-level body's stub carries it as its one body: /bodies/0/KEY is /bodies/I/KEY */
        if (!strncmp(prefix, "/bodies/", 8) && !strncmp(p, "/bodies/0", 9) && (p[9] == '/' || !p[9])) p += 9;
        char path[512];
        snprintf(path, sizeof path, "%s%s", shared ? "" : prefix, p);
        issues_add(iss, path, "%s", tmp.items[i].message);
    }
    rod_issues_free(&tmp);
    return m;
}

static void copy_shared(const cJSON *root, cJSON *sub, int gravity_only)
{
    for (int k = 0; shared_keys[k]; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, shared_keys[k]);
        if (!v) continue;
        if (gravity_only) {
            const cJSON *g = cJSON_IsObject(v) && !strcmp(shared_keys[k], "environment")
                                 ? cJSON_GetObjectItemCaseSensitive(v, "gravity") : NULL;
            if (g) {
                cJSON *env = cJSON_AddObjectToObject(sub, "environment");
                if (env) cJSON_AddItemToObject(env, "gravity", cJSON_Duplicate(g, 1));
            }
            continue;
        }
        cJSON *d = cJSON_Duplicate(v, 1);
        if (d && !strcmp(shared_keys[k], "solver")) cJSON_DeleteItemFromObjectCaseSensitive(d, "guess");
        if (d) cJSON_AddItemToObject(sub, shared_keys[k], d);
    }
}

/* "method": "multiplier" (default) or "penalty" with its "stiffness" (> 0) and "damping"
 * (>= 0), the keys and words of a pose constraint's */
static void parse_method(const cJSON *b, const char *path, joint_spec *j, rod_issues *iss)
{
    const cJSON *me = cJSON_GetObjectItemCaseSensitive(b, "method"),
                *k = cJSON_GetObjectItemCaseSensitive(b, "stiffness"),
                *d = cJSON_GetObjectItemCaseSensitive(b, "damping");
    char p[200];
    snprintf(p, sizeof p, "%s/method", path);
    if (me && !(cJSON_IsString(me) && (!strcmp(me->valuestring, "multiplier") || !strcmp(me->valuestring, "penalty")))) {
        issues_add(iss, p, "must be \"multiplier\" or \"penalty\"");
        return;
    }
    j->penalty = me && !strcmp(me->valuestring, "penalty");
    if (!j->penalty) {
        snprintf(p, sizeof p, "%s/%s", path, k ? "stiffness" : "damping");
        if (k || d) issues_add(iss, p, "is not allowed with method \"multiplier\" (a penalty's)");
        return;
    }
    snprintf(p, sizeof p, "%s/stiffness", path);
    if (!cJSON_IsNumber(k) || !(k->valuedouble > 0) || !isfinite(k->valuedouble))
        issues_add(iss, p, "a penalty joint needs its stiffness, a number > 0 (N/m, N m/rad)");
    else
        j->stiffness = k->valuedouble;
    snprintf(p, sizeof p, "%s/damping", path);
    if (d && (!cJSON_IsNumber(d) || !(d->valuedouble >= 0) || !isfinite(d->valuedouble)))
        issues_add(iss, p, "must be a number >= 0 (N s/m, N m s/rad)");
    else if (d)
        j->damping = d->valuedouble;
}

/* the joint of rod i's base, its problems reported under path */
static void parse_joint(const cJSON *b, const char *path, joint_spec *j, rod_issues *iss)
{
    check_keys(b, path, joint_keys, iss);
    char p[200];
    const cJSON *to = cJSON_GetObjectItemCaseSensitive(b, "to");
    snprintf(p, sizeof p, "%s/to", path);
    j->tip = 1;
    if (!cJSON_IsObject(to)) {
        issues_add(iss, p, "must be {\"rod\": NAME, \"s\": \"tip\"} or {\"body\": NAME}");
    } else {
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(to, "rod"),
                    *bd = cJSON_GetObjectItemCaseSensitive(to, "body"),
                    *s = cJSON_GetObjectItemCaseSensitive(to, "s");
        static const char *const to_keys[] = {"rod", "body", "s", NULL};
        check_keys(to, p, to_keys, iss);
        if (cJSON_IsString(r) && !bd) {
            j->to_name = r->valuestring;
        } else if (cJSON_IsString(bd) && !r) {
            j->to_name = bd->valuestring;
            j->to_body = 1;
            if (s) issues_add(iss, p, "s is for a rod, not a body");
        } else {
            issues_add(iss, p, "must name either a \"rod\" or a \"body\" (a string)");
        }
        if (s && !j->to_body) {
            if (cJSON_IsString(s) && !strcmp(s->valuestring, "tip")) {
                j->tip = 1;
            } else if (cJSON_IsNumber(s) && s->valuedouble > 0) {
                j->tip = 0;
                j->s = s->valuedouble;
            } else {
                snprintf(p, sizeof p, "%s/to/s", path);
                issues_add(iss, p, "must be \"tip\" or a positive number (m)");
            }
        }
    }
    static const char *const types[] = {"fixed", "ball", "hinge", NULL};
    const cJSON *jt = cJSON_GetObjectItemCaseSensitive(b, "joint");
    snprintf(p, sizeof p, "%s/joint", path);
    j->type = -1;
    for (int k = 0; types[k] && cJSON_IsString(jt); k++)
        if (!strcmp(jt->valuestring, types[k])) j->type = k;
    if (j->type < 0) issues_add(iss, p, "must be \"fixed\", \"ball\" or \"hinge\"");
    const int ha = get_vec3(b, "axis", path, j->hinge, iss);
    snprintf(p, sizeof p, "%s/axis", path);
    if (j->type == JOINT_HINGE && ha == 0) issues_add(iss, p, "a hinge needs its axis (in the parent's frame)");
    if (j->type != JOINT_HINGE && ha) issues_add(iss, p, "is only for a \"hinge\"");
    if (j->type == JOINT_HINGE && ha == 1) {
        j->has_hinge = normalize3(j->hinge);
        if (!j->has_hinge) issues_add(iss, p, "must not be zero");
    }
    get_vec3(b, "position", path, j->pos, iss);
    get_rotation(b, path, j->axis_rot, &j->angle, iss);
    parse_method(b, path, j, iss);
}

void assembly_free(assembly *a)
{
    if (!a) return;
    for (int i = 1; i < a->nrods; i++)
        if (a->rod) model_free_one(a->rod[i]);
    for (int i = 0; a->name && i < a->nrods; i++) free(a->name[i]);
    for (int i = 0; a->input && i < a->ninputs; i++) free(a->input[i].name);
    free(a->rod);
    free(a->name);
    free(a->off);
    free(a->start_pose);
    free(a->order);
    free(a->joint);
    free(a->joint_of);
    free(a->lock_col);
    free(a->lock_rod);
    free(a->input);
    free(a->spec_json);
    free(a);
}

/* rods parents first; -1 with an issue when the joints make a cycle */
static int order_rods(assembly *a, const int *parent, rod_issues *iss)
{
    int *done = calloc((size_t)a->nrods, sizeof *done), k = 0, bad = 0;
    if (!done) return -1;
    for (int i = 0; i < a->nrods; i++) {
        int p = i, steps = 0;
        while (p >= 0 && steps <= a->nrods) {
            p = parent[p];
            steps++;
        }
        if (p >= 0) {
            char path[64];
            snprintf(path, sizeof path, "/rods/%d/base/to", i);
            issues_add(iss, path, "the joints make a cycle through rod \"%s\" (each rod hangs from one "
                       "parent, and the chain must end at a rod or body that is not joined)", a->name[i]);
            bad = 1;
        }
    }
    while (!bad && k < a->nrods)
        for (int i = 0; i < a->nrods; i++)
            if (!done[i] && (parent[i] < 0 || done[parent[i]])) {
                done[i] = 1;
                a->order[k++] = i;
            }
    free(done);
    return bad ? -1 : 0;
}

static void hinge_basis(asm_joint *jt, const joint_spec *js, const double Rj[9])
{
    /* the axis from the parent's frame into the child's base frame: R_j^T a */
    for (int i = 0; i < 3; i++)
        jt->axis[i] = Rj[0 + 3 * i] * js->hinge[0] + Rj[1 + 3 * i] * js->hinge[1] + Rj[2 + 3 * i] * js->hinge[2];
    const double *a = jt->axis;
    const double e[3] = {fabs(a[0]) < 0.9 ? 1 : 0, fabs(a[0]) < 0.9 ? 0 : 1, 0};
    double b1[3] = {a[1] * e[2] - a[2] * e[1], a[2] * e[0] - a[0] * e[2], a[0] * e[1] - a[1] * e[0]};
    const double n = sqrt(b1[0] * b1[0] + b1[1] * b1[1] + b1[2] * b1[2]);
    for (int i = 0; i < 3; i++) jt->b[0][i] = b1[i] / n;
    const double *c = jt->b[0];
    jt->b[1][0] = a[1] * c[2] - a[2] * c[1];
    jt->b[1][1] = a[2] * c[0] - a[0] * c[2];
    jt->b[1][2] = a[0] * c[1] - a[1] * c[0];
}

rod_model *assembly_compile(const cJSON *root, rod_issues *iss)
{
    const int before = iss->count;
    /* a rod's key at the top gets its own message below, not "unknown" as well */
    for (const cJSON *c = root->child; c; c = c->next)
        if (!in_list(c->string, top_keys) && !in_list(c->string, rod_keys))
            issues_add(iss, "", "has an unknown key \"%s\"", c->string);
    for (int k = 0; rod_keys[k]; k++)
        if (strcmp(rod_keys[k], "name") && strcmp(rod_keys[k], "bodies") &&
            cJSON_GetObjectItemCaseSensitive(root, rod_keys[k])) {
            char p[64];
            snprintf(p, sizeof p, "/%s", rod_keys[k]);
            issues_add(iss, p, "belongs in each rod of \"rods\" in a model of several rods");
        }
    const cJSON *rods = cJSON_GetObjectItemCaseSensitive(root, "rods");
    const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(root, "bodies");
    const int nreal = cJSON_IsArray(rods) ? cJSON_GetArraySize(rods) : 0;
    const int nb = cJSON_IsArray(bodies) ? cJSON_GetArraySize(bodies) : 0;
    if (nreal < 1 || nreal + nb > ASM_MAX_RODS) {
        issues_add(iss, "/rods", "must be an array of 1 to %d rods (with the top-level bodies)", ASM_MAX_RODS);
        return NULL;
    }
    if (bodies && !cJSON_IsArray(bodies)) issues_add(iss, "/bodies", "must be an array of bodies");
    const cJSON *dur = cJSON_GetObjectItemCaseSensitive(root, "duration");
    if (dur && !(cJSON_IsNumber(dur) && dur->valuedouble >= 0))
        issues_add(iss, "/duration", "must be a number >= 0 (s)");
    const cJSON *ini = cJSON_GetObjectItemCaseSensitive(root, "initial");
    if (ini && !(cJSON_IsString(ini) && (!strcmp(ini->valuestring, "rest") || !strcmp(ini->valuestring, "static"))))
        issues_add(iss, "/initial", "must be \"rest\" or \"static\"");

    assembly *a = calloc(1, sizeof *a);
    const int nr = nreal + nb;
    joint_spec *js = calloc((size_t)nr, sizeof *js);
    double *at_s = NULL;
    int *at_parent = NULL;
    int *parent = malloc((size_t)nr * sizeof *parent);
    if (!a || !js || !parent) goto nomem;
    a->nrods = nr;
    a->nreal = nreal;
    a->rod = calloc((size_t)nr, sizeof *a->rod);
    a->name = calloc((size_t)nr, sizeof *a->name);
    a->off = calloc((size_t)nr + 1, sizeof *a->off);
    a->start_pose = calloc((size_t)nr, sizeof *a->start_pose);
    a->order = calloc((size_t)nr, sizeof *a->order);
    a->joint_of = malloc((size_t)nr * sizeof *a->joint_of);
    a->joint = calloc((size_t)nr, sizeof *a->joint);
    if (!a->rod || !a->name || !a->off || !a->start_pose || !a->order || !a->joint_of || !a->joint) goto nomem;
    a->duration = cJSON_IsNumber(dur) ? dur->valuedouble : 0;
    a->initial_static = cJSON_IsString(ini) && !strcmp(ini->valuestring, "static");

    /* names first: every joint may point at any rod or body */
    for (int i = 0; i < nr; i++) {
        parent[i] = -1;
        a->joint_of[i] = -1;
        const int isb = i >= nreal;
        const cJSON *o = isb ? cJSON_GetArrayItem(bodies, i - nreal) : cJSON_GetArrayItem(rods, i);
        char p[64];
        snprintf(p, sizeof p, isb ? "/bodies/%d" : "/rods/%d", isb ? i - nreal : i);
        const cJSON *nm = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, "name") : NULL;
        if (!cJSON_IsObject(o)) {
            issues_add(iss, p, "must be an object");
            continue;
        }
        strcat(p, "/name");
        if (!cJSON_IsString(nm) || !name_ok(nm->valuestring)) {
            issues_add(iss, p, "must be 1 to 64 letters, digits, '_' or '-' (a rod's inputs are "
                       "addressed as ROD.NAME)");
            continue;
        }
        for (int k = 0; k < i; k++)
            if (a->name[k] && !strcmp(a->name[k], nm->valuestring))
                issues_add(iss, p, "\"%s\" names another rod or body already", nm->valuestring);
        a->name[i] = strdup(nm->valuestring);
        if (!a->name[i]) goto nomem;
    }
    if (iss->count > before) goto fail;

    /* a joint at a point s inside its parent: the parent gets a station there, through a
     * point force of zero named "joint.CHILD" (not an input of the assembly) */
    at_s = calloc((size_t)nr, sizeof *at_s);
    at_parent = malloc((size_t)nr * sizeof *at_parent);
    if (!at_s || !at_parent) goto nomem;
    for (int i = 0; i < nreal; i++) {
        at_parent[i] = -1;
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(rods, i), "base");
        const cJSON *to = cJSON_GetObjectItemCaseSensitive(b, "to");
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(to, "rod"), *sv = cJSON_GetObjectItemCaseSensitive(to, "s");
        if (!cJSON_IsString(r) || !cJSON_IsNumber(sv) || !(sv->valuedouble > 0)) continue;
        for (int k = 0; k < nreal; k++)
            if (!strcmp(a->name[k], r->valuestring)) {
                const cJSON *len = cJSON_GetObjectItemCaseSensitive(
                    cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(rods, k), "rod"), "length");
                if (cJSON_IsNumber(len) && sv->valuedouble < len->valuedouble * (1 - 1e-12)) {
                    at_parent[i] = k;
                    at_s[i] = sv->valuedouble;
                }
            }
    }

    for (int i = 0; i < nr; i++) {
        const int isb = i >= nreal;
        const cJSON *o = isb ? cJSON_GetArrayItem(bodies, i - nreal) : cJSON_GetArrayItem(rods, i);
        char p[64], bp[80];
        snprintf(p, sizeof p, isb ? "/bodies/%d" : "/rods/%d", isb ? i - nreal : i);
        snprintf(bp, sizeof bp, "%s/base", p);
        cJSON *sub = cJSON_CreateObject();
        if (!sub) goto nomem;
        const cJSON *base = cJSON_GetObjectItemCaseSensitive(o, "base");
        const cJSON *bt = cJSON_IsObject(base) ? cJSON_GetObjectItemCaseSensitive(base, "type") : NULL;
        const int joined = cJSON_IsString(bt) && !strcmp(bt->valuestring, "joint");
        if (!isb && !joined && cJSON_IsObject(base) &&
            (cJSON_GetObjectItemCaseSensitive(base, "to") || cJSON_GetObjectItemCaseSensitive(base, "joint"))) {
            char tp[96];
            snprintf(tp, sizeof tp, "%s/type", bp);
            issues_add(iss, tp, "must be \"joint\" for a base with \"to\" or \"joint\"");
            cJSON_Delete(sub);
            continue;
        }
        if (!isb) {
            check_keys(o, p, rod_keys, iss);
            const cJSON *cons = cJSON_GetObjectItemCaseSensitive(o, "constraints");
            for (int k = 0; cJSON_IsArray(cons) && k < cJSON_GetArraySize(cons); k++) {
                const cJSON *nm = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cons, k), "name");
                char cp[96];
                snprintf(cp, sizeof cp, "%s/constraints/%d/name", p, k);
                if (cJSON_IsString(nm) && !strcmp(nm->valuestring, "base"))
                    issues_add(iss, cp, "\"base\" names the rod's joint in a model of several rods "
                               "(its reaction is ROD.base): choose another name");
            }
            for (const cJSON *c = o->child; c; c = c->next)
                if (strcmp(c->string, "name") && !(joined && !strcmp(c->string, "base")))
                    cJSON_AddItemToObject(sub, c->string, cJSON_Duplicate(c, 1));
            copy_shared(root, sub, 0);
            for (int c = 0; c < nreal; c++) {
                if (at_parent[c] != i) continue;
                cJSON *loads = cJSON_GetObjectItemCaseSensitive(sub, "loads");
                if (!loads) loads = cJSON_AddArrayToObject(sub, "loads");
                cJSON *l = cJSON_CreateObject();
                char nm[80];
                snprintf(nm, sizeof nm, "joint.%s", a->name[c]);
                cJSON_AddStringToObject(l, "name", nm);
                cJSON_AddStringToObject(l, "type", "point_force");
                const double zero[3] = {0, 0, 0};
                cJSON_AddItemToObject(l, "force", cJSON_CreateDoubleArray(zero, 3));
                cJSON_AddNumberToObject(l, "s", at_s[c]);
                if (cJSON_IsArray(loads)) cJSON_AddItemToArray(loads, l);
                else cJSON_Delete(l);
            }
        } else {
            check_keys(o, p, body_keys, iss);
            cJSON_AddStringToObject(sub, "model", "classic");
            cJSON *rod = cJSON_AddObjectToObject(sub, "rod");
            cJSON_AddNumberToObject(rod, "length", STUB_LENGTH);
            cJSON_AddNumberToObject(rod, "radius", STUB_RADIUS);
            cJSON_AddNumberToObject(rod, "density", 1000);
            cJSON_AddNumberToObject(rod, "youngs_modulus", STUB_MODULUS);
            cJSON_AddNumberToObject(rod, "poisson_ratio", 0.3);
            cJSON *sn = cJSON_AddObjectToObject(sub, "strains");
            cJSON_AddNumberToObject(sn, "stretch", 0); /* a spec needs one; 1 um of it is rigid */
            cJSON *bl = cJSON_AddArrayToObject(sub, "bodies");
            cJSON *b = cJSON_CreateObject();
            cJSON_AddItemToArray(bl, b);
            cJSON_AddStringToObject(b, "name", a->name[i]);
            const cJSON *ms = cJSON_GetObjectItemCaseSensitive(o, "mass"),
                        *in = cJSON_GetObjectItemCaseSensitive(o, "inertia");
            if (ms) cJSON_AddItemToObject(b, "mass", cJSON_Duplicate(ms, 1));
            if (in) cJSON_AddItemToObject(b, "inertia", cJSON_Duplicate(in, 1));
            copy_shared(root, sub, 1);
            /* its base: fixed (clamped where it is put), moving (its stub's base moves as a
             * one-rod spec's moving base: position and rotation profiles in t, checked by the
             * one-rod parser under this path), free (starting there) */
            const char *t = cJSON_IsString(bt) ? bt->valuestring : "";
            if (!cJSON_IsObject(base) || (strcmp(t, "fixed") && strcmp(t, "free") && strcmp(t, "moving"))) {
                issues_add(iss, bp, "must be {\"type\": \"fixed\", \"moving\" or \"free\", \"position\", "
                           "\"rotation\"}");
            } else if (!strcmp(t, "moving")) {
                check_keys(base, bp, body_base_keys, iss);
                cJSON_AddItemToObject(sub, "base", cJSON_Duplicate(base, 1));
            } else {
                check_keys(base, bp, body_base_keys, iss);
                double pos[3] = {0, 0, 0}, ax[3], ang;
                get_vec3(base, "position", bp, pos, iss);
                get_rotation(base, bp, ax, &ang, iss);
                if (!strcmp(t, "free")) {
                    cJSON *fb = cJSON_AddObjectToObject(sub, "base");
                    cJSON_AddStringToObject(fb, "type", "free");
                    double R[9];
                    lie_rotation_about(ax, ang, R);
                    lie_se3_log(R, pos, a->start_pose[i]);
                } else if (cJSON_GetObjectItemCaseSensitive(base, "position") ||
                           cJSON_GetObjectItemCaseSensitive(base, "rotation")) {
                    cJSON *mb = cJSON_AddObjectToObject(sub, "base");
                    cJSON_AddStringToObject(mb, "type", "moving");
                    cJSON *pp = cJSON_AddArrayToObject(mb, "position");
                    for (int k = 0; k < 3; k++) cJSON_AddItemToArray(pp, cJSON_CreateNumber(pos[k]));
                    cJSON *rr = cJSON_AddObjectToObject(mb, "rotation");
                    cJSON *aa = cJSON_AddArrayToObject(rr, "axis");
                    for (int k = 0; k < 3; k++) cJSON_AddItemToArray(aa, cJSON_CreateNumber(ax[k]));
                    cJSON_AddNumberToObject(rr, "angle", ang);
                }
            }
        }
        if (joined) {
            js[i].parent_rod = -1;
            parse_joint(base, bp, &js[i], iss);
            cJSON *fb = cJSON_AddObjectToObject(sub, "base");
            cJSON_AddStringToObject(fb, "type", "free");
            if (js[i].to_name) {
                for (int k = 0; k < nr; k++)
                    if (a->name[k] && !strcmp(a->name[k], js[i].to_name) && (k >= nreal) == js[i].to_body)
                        parent[i] = k;
                char tp[120];
                snprintf(tp, sizeof tp, "%s/to/%s", bp, js[i].to_body ? "body" : "rod");
                if (parent[i] < 0)
                    issues_add(iss, tp, "no %s named \"%s\" in this model", js[i].to_body ? "top-level body" : "rod",
                               js[i].to_name);
            }
        }
        a->rod[i] = compile_sub(sub, p, i == 0, iss);
        cJSON_Delete(sub);
        if (!a->rod[i] && iss->count == before) goto nomem;
    }
    if (iss->count > before) goto fail;
    if (order_rods(a, parent, iss)) goto fail;

    /* coordinates, joints, inputs */
    for (int i = 0; i < nr; i++) a->off[i + 1] = a->off[i] + a->rod[i]->n;
    a->n = a->off[nr];
    for (int i = 0; i < nr; i++) {
        if (parent[i] < 0) continue;
        asm_joint *jt = &a->joint[a->njoints];
        const rod_model *pm = a->rod[parent[i]];
        jt->child = i;
        jt->parent = parent[i];
        jt->station = pm->ns - 1;
        if (i < nreal && at_parent[i] >= 0)
            for (int k = 0; k < pm->spec->nloads; k++)
                if (!strncmp(pm->spec->loads[k].name, "joint.", 6) && !strcmp(pm->spec->loads[k].name + 6, a->name[i]))
                    jt->station = pm->load_station[k];
        if (!js[i].tip && !(i < nreal && at_parent[i] >= 0) && fabs(js[i].s - pm->L) > 1e-9 * pm->L) {
            char tp[80];
            snprintf(tp, sizeof tp, "/rods/%d/base/to/s", i);
            issues_add(iss, tp, "joins at s = %g m of \"%s\", which is %g m long", js[i].s,
                       a->name[parent[i]], pm->L);
            continue;
        }
        jt->type = js[i].type;
        lie_rotation_about(js[i].axis_rot, js[i].angle, jt->offset.R);
        memcpy(jt->offset.r, js[i].pos, sizeof jt->offset.r);
        if (jt->type == JOINT_HINGE) hinge_basis(jt, &js[i], jt->offset.R);
        jt->nrows = jt->type == JOINT_FIXED ? 6 : jt->type == JOINT_BALL ? 3 : 5;
        jt->penalty = js[i].penalty;
        jt->stiffness = js[i].stiffness;
        jt->damping = js[i].damping;
        jt->row0 = a->nrows;
        a->nrows += jt->nrows;
        a->joint_of[i] = a->njoints++;
    }
    if (iss->count > before) goto fail;
    a->lock_row0 = a->nrows;
    a->lock_col = calloc((size_t)a->n + 1, sizeof *a->lock_col);
    a->lock_rod = calloc((size_t)a->n + 1, sizeof *a->lock_rod);
    if (!a->lock_col || !a->lock_rod) goto nomem;
    for (int i = nreal; i < nr; i++)
        for (int c = 0; c < a->rod[i]->n; c++)
            if (c < a->rod[i]->base_col || a->rod[i]->base_col < 0) {
                a->lock_col[a->nlocks] = a->off[i] + c;
                a->lock_rod[a->nlocks++] = i;
            }
    a->nrows += a->nlocks;
    int ni = 0;
    for (int i = 0; i < nreal; i++) ni += a->rod[i]->ninputs;
    a->input = calloc((size_t)(ni ? ni : 1), sizeof *a->input);
    if (!a->input) goto nomem;
    for (int i = 0; i < nreal; i++)
        for (int k = 0; k < a->rod[i]->ninputs; k++) {
            const model_input *mi = &a->rod[i]->inputs[k];
            if (mi->kind == INPUT_LOAD && !strncmp(mi->name, "joint.", 6)) continue; /* a joint's station */
            asm_input *in = &a->input[a->ninputs++];
            const size_t l = strlen(a->name[i]) + strlen(a->rod[i]->inputs[k].name) + 2;
            in->name = malloc(l);
            if (!in->name) goto nomem;
            snprintf(in->name, l, "%s.%s", a->name[i], a->rod[i]->inputs[k].name);
            in->rod = i;
            in->index = k;
        }
    a->spec_json = cJSON_PrintUnformatted(root);
    if (!a->spec_json) goto nomem;
    free(at_s);
    free(at_parent);
    free(js);
    free(parent);
    rod_model *top = a->rod[0];
    top->as = a;
    return top;
nomem:
    issues_add(iss, "", "out of memory compiling the model");
fail:
    free(at_s);
    free(at_parent);
    if (a && a->rod) model_free_one(a->rod[0]);
    assembly_free(a);
    free(js);
    free(parent);
    return NULL;
}
