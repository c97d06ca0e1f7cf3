/* Reading a spec's JSON values: each helper records its problems with their JSON pointer and
 * never stops the parse (spec_parse.h), for every file that parses a section of the spec. */
#include "spec_parse.h"

#include "issues.h"
#include "rod_text.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const keys_profile[] = {"wave", NULL};
static const char *const keys_wave[] = {"alpha", "mu", "sigma", NULL};

void spec_bad(pctx *c, const char *path, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    issues_add(c->iss, path, "%s", msg);
    c->nbad++;
}

/* JSON pointer of a member: base + "/" + key with ~ and / escaped (RFC 6901). */
void spec_join(char *out, size_t n, const char *base, const char *key)
{
    size_t used = (size_t)snprintf(out, n, "%s/", base);
    for (const char *p = key; *p && used + 3 < n; p++) {
        if (*p == '~') { out[used++] = '~'; out[used++] = '0'; }
        else if (*p == '/') { out[used++] = '~'; out[used++] = '1'; }
        else out[used++] = *p;
    }
    if (used >= n) used = n - 1;
    out[used] = '\0';
}

void spec_join_index(char *out, size_t n, const char *base, int i)
{
    snprintf(out, n, "%s/%d", base, i);
}

static int in_list(const char *const *list, const char *k)
{
    for (; *list; list++)
        if (strcmp(*list, k) == 0) return 1;
    return 0;
}

/* Unknown and duplicate keys. Returns 0 when obj is not an object (reported). */
int spec_check_object(pctx *c, const cJSON *obj, const char *path, const char *const *keys)
{
    if (!cJSON_IsObject(obj)) {
        spec_bad(c, path, "must be an object");
        return 0;
    }
    char p[320];
    for (const cJSON *it = obj->child; it; it = it->next) {
        spec_join(p, sizeof p, path, it->string ? it->string : "");
        if (!in_list(keys, it->string ? it->string : "")) {
            const char *near = rod_suggest(it->string, keys);
            if (near)
                spec_bad(c, p, "unknown key (did you mean \"%s\"?)", near);
            else
                spec_bad(c, p, "unknown key");
            continue;
        }
        for (const cJSON *prev = obj->child; prev != it; prev = prev->next)
            if (prev->string && strcmp(prev->string, it->string) == 0) {
                spec_bad(c, p, "duplicate key");
                break;
            }
    }
    return 1;
}

const cJSON *spec_member(const cJSON *obj, const char *key)
{
    return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

static const char *range_text(range r)
{
    switch (r) {
    case R_POS: return "must be > 0";
    case R_NONNEG: return "must be >= 0";
    case R_POISSON: return "must be in (-1, 0.5)";
    case R_UNIT: return "must be in [0, 1]";
    case R_UNIT_OPEN: return "must be in (0, 1]";
    default: return "";
    }
}

static int in_range(double v, range r)
{
    switch (r) {
    case R_POS: return v > 0;
    case R_NONNEG: return v >= 0;
    case R_POISSON: return v > -1 && v < 0.5;
    case R_UNIT: return v >= 0 && v <= 1;
    case R_UNIT_OPEN: return v > 0 && v <= 1;
    default: return 1;
    }
}

/* A number member. Returns 1 when *out was set from the document. */
int spec_get_number(pctx *c, const cJSON *obj, const char *key, const char *base, int req,
                    range r, double *out)
{
    char p[320];
    spec_join(p, sizeof p, base, key);
    const cJSON *v = spec_member(obj, key);
    if (!v) {
        if (req) spec_bad(c, p, "is required");
        return 0;
    }
    if (!cJSON_IsNumber(v)) {
        spec_bad(c, p, "must be a number");
        return 0;
    }
    if (!isfinite(v->valuedouble) || !in_range(v->valuedouble, r)) {
        spec_bad(c, p, "%s", isfinite(v->valuedouble) ? range_text(r) : "must be finite");
        return 0;
    }
    *out = v->valuedouble;
    return 1;
}

int spec_get_int(pctx *c, const cJSON *obj, const char *key, const char *base, int req,
                 int lo, int hi, int *out)
{
    char p[320];
    spec_join(p, sizeof p, base, key);
    const cJSON *v = spec_member(obj, key);
    if (!v) {
        if (req) spec_bad(c, p, "is required");
        return 0;
    }
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble)) {
        spec_bad(c, p, "must be an integer");
        return 0;
    }
    if (v->valuedouble < lo || v->valuedouble > hi) {
        spec_bad(c, p, "must be an integer in [%d, %d]", lo, hi);
        return 0;
    }
    *out = (int)v->valuedouble;
    return 1;
}

/* An enumerated string; returns its index or -1. */
int spec_get_enum(pctx *c, const cJSON *obj, const char *key, const char *base, int req,
                  const char *const *names, int dflt)
{
    char p[320];
    spec_join(p, sizeof p, base, key);
    const cJSON *v = spec_member(obj, key);
    if (!v) {
        if (req) spec_bad(c, p, "is required");
        return req ? -1 : dflt;
    }
    if (cJSON_IsString(v))
        for (int i = 0; names[i]; i++)
            if (strcmp(names[i], v->valuestring) == 0) return i;
    char choices[256] = "";
    for (int i = 0; names[i]; i++) {
        strncat(choices, i ? ", \"" : "\"", sizeof choices - strlen(choices) - 1);
        strncat(choices, names[i], sizeof choices - strlen(choices) - 1);
        strncat(choices, "\"", sizeof choices - strlen(choices) - 1);
    }
    const char *near = cJSON_IsString(v) ? rod_suggest(v->valuestring, names) : NULL;
    if (near)
        spec_bad(c, p, "must be one of %s, not \"%s\" (did you mean \"%s\"?)", choices, v->valuestring, near);
    else
        spec_bad(c, p, "must be one of %s", choices);
    return -1;
}

int spec_get_vec(pctx *c, const cJSON *obj, const char *key, const char *base, int req,
                 int n, double *out)
{
    char p[320];
    spec_join(p, sizeof p, base, key);
    const cJSON *v = spec_member(obj, key);
    if (!v) {
        if (req) spec_bad(c, p, "is required");
        return 0;
    }
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n) {
        spec_bad(c, p, "must be an array of %d numbers", n);
        return 0;
    }
    int i = 0, ok = 1;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) {
            char pe[340];
            spec_join_index(pe, sizeof pe, p, i);
            spec_bad(c, pe, "must be a finite number");
            ok = 0;
        } else {
            out[i] = e->valuedouble;
        }
    }
    return ok;
}

char *spec_dup_string(pctx *c, const char *s)
{
    char *d = strdup(s);
    if (!d) spec_bad(c, "", "out of memory");
    return d;
}

static int add_expr(pctx *c, const char *text)
{
    char **e = realloc(c->s->exprs, (size_t)(c->s->nexprs + 1) * sizeof *e);
    if (!e) {
        spec_bad(c, "", "out of memory");
        return -1;
    }
    c->s->exprs = e;
    e[c->s->nexprs] = spec_dup_string(c, text);
    if (!e[c->s->nexprs]) return -1;
    return c->s->nexprs++;
}

/* A number or an expression string. nonneg: a constant must be >= 0 (an expression's value
 * is clamped at run time instead). */
int spec_parse_scalar(pctx *c, const cJSON *v, const char *path, int allow_X, int nonneg,
                      profile_scalar *out, int *uses_X)
{
    out->expr = -1;
    out->value = 0;
    if (cJSON_IsNumber(v)) {
        if (!isfinite(v->valuedouble)) {
            spec_bad(c, path, "must be finite");
            return 0;
        }
        if (nonneg && v->valuedouble < 0) {
            spec_bad(c, path, "must be >= 0");
            return 0;
        }
        out->value = v->valuedouble;
        return 1;
    }
    if (cJSON_IsString(v)) {
        char msg[400];
        int ux = 0;
        if (strlen(v->valuestring) > 1000) {
            spec_bad(c, path, "expression longer than 1000 characters");
            return 0;
        }
        if (profile_check_expr(v->valuestring, allow_X, &ux, msg, sizeof msg) != 0) {
            spec_bad(c, path, "%s", msg);
            return 0;
        }
        if (uses_X) *uses_X |= ux;
        out->expr = add_expr(c, v->valuestring);
        return out->expr >= 0;
    }
    spec_bad(c, path, "must be a number or an expression string");
    return 0;
}

/* A profile member (number, expression, or {"wave": {...}}); dflt when absent. */
int spec_parse_profile(pctx *c, const cJSON *obj, const char *key, const char *base, int req,
                       int allow_X, int nonneg, double dflt, profile *out)
{
    char p[320];
    spec_join(p, sizeof p, base, key);
    memset(out, 0, sizeof *out);
    out->kind = PROFILE_CONST;
    out->v.expr = -1;
    out->v.value = dflt;
    const cJSON *v = spec_member(obj, key);
    if (!v) {
        if (req) spec_bad(c, p, "is required");
        return 0;
    }
    if (cJSON_IsObject(v)) {
        if (!spec_check_object(c, v, p, keys_profile)) return 0;
        const cJSON *w = spec_member(v, "wave");
        char pw[340];
        spec_join(pw, sizeof pw, p, "wave");
        if (!w) {
            spec_bad(c, pw, "is required");
            return 0;
        }
        if (!spec_check_object(c, w, pw, keys_wave)) return 0;
        if (!allow_X) {
            spec_bad(c, pw, "a wave varies along the rod, which is not allowed here");
            return 0;
        }
        out->kind = PROFILE_WAVE;
        out->uses_X = 1;
        int ok = 1;
        const char *names[2] = {"alpha", "mu"};
        profile_scalar *dst[2] = {&out->alpha, &out->mu};
        for (int i = 0; i < 2; i++) {
            char pa[360];
            spec_join(pa, sizeof pa, pw, names[i]);
            const cJSON *a = spec_member(w, names[i]);
            if (!a) {
                spec_bad(c, pa, "is required");
                ok = 0;
                continue;
            }
            ok &= spec_parse_scalar(c, a, pa, 0, i == 0 && nonneg, dst[i], NULL);
        }
        ok &= spec_get_number(c, w, "sigma", pw, REQUIRED, R_ANY, &out->sigma);
        return ok;
    }
    int ux = 0;
    if (!spec_parse_scalar(c, v, p, allow_X, nonneg, &out->v, &ux)) return 0;
    out->kind = out->v.expr >= 0 ? PROFILE_EXPR : PROFILE_CONST;
    out->uses_X = ux;
    return 1;
}

static int valid_name(const char *n)
{
    size_t len = strlen(n);
    if (len == 0 || len > SPEC_MAX_NAME) return 0;
    for (const char *p = n; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '-' || *p == '.'))
            return 0;
    return 1;
}

char *spec_get_name(pctx *c, const cJSON *obj, const char *base)
{
    char p[320];
    spec_join(p, sizeof p, base, "name");
    const cJSON *v = spec_member(obj, "name");
    if (!v) {
        spec_bad(c, p, "is required");
        return NULL;
    }
    if (!cJSON_IsString(v) || !valid_name(v->valuestring)) {
        spec_bad(c, p, "must be a string of 1 to %d letters, digits, '_', '-' or '.'", SPEC_MAX_NAME);
        return NULL;
    }
    return spec_dup_string(c, v->valuestring);
}
