/* The spec parser's helpers (spec_read.c), shared by the files that parse one section each
 * (spec.c for the rod, loads and actuators; spec_mech.c for constraints, base and bodies).
 * Every helper records its problems with their JSON pointer and never stops the parse. */
#ifndef ROD_SPEC_PARSE_H
#define ROD_SPEC_PARSE_H

#include "spec.h"

#include <cjson/cJSON.h>

typedef struct {
    rod_issues *iss;
    rod_spec *s;
    int nbad; /* issues recorded by this parse */
} pctx;

enum { OPTIONAL = 0, REQUIRED = 1 };
#define SPEC_MAX_NAME 64
typedef enum { R_ANY, R_POS, R_NONNEG, R_POISSON, R_UNIT, R_UNIT_OPEN } range;

void spec_bad(pctx *c, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void spec_join(char *out, size_t n, const char *base, const char *key);
void spec_join_index(char *out, size_t n, const char *base, int i);
int spec_check_object(pctx *c, const cJSON *obj, const char *path, const char *const *keys);
const cJSON *spec_member(const cJSON *obj, const char *key);
int spec_get_number(pctx *c, const cJSON *obj, const char *key, const char *base, int req,
                    range r, double *out);
int spec_get_enum(pctx *c, const cJSON *obj, const char *key, const char *base, int req,
                  const char *const *names, int dflt);
int spec_get_int(pctx *c, const cJSON *obj, const char *key, const char *base, int req, int lo,
                 int hi, int *out);
int spec_get_vec(pctx *c, const cJSON *obj, const char *key, const char *base, int req, int n,
                 double *out);
char *spec_dup_string(pctx *c, const char *s);
/* A number or an expression (in t, and X = s/L when allow_X; uses_X, when not NULL, learns
 * whether it does). nonneg: a constant must be >= 0 (an expression is clamped at run time). */
int spec_parse_scalar(pctx *c, const cJSON *v, const char *path, int allow_X, int nonneg,
                      profile_scalar *out, int *uses_X);
/* A profile member (number, expression, or {"wave": {...}} when allow_X); dflt when absent. */
int spec_parse_profile(pctx *c, const cJSON *obj, const char *key, const char *base, int req,
                       int allow_X, int nonneg, double dflt, profile *out);
/* A "name": 1 to SPEC_MAX_NAME letters, digits, '_', '-' or '.'. */
char *spec_get_name(pctx *c, const cJSON *obj, const char *base);

/* spec_cable.c: a constant cable tension no equilibrium can carry (the fibre under the cable
 * shortened to nothing), refused at its JSON path. After the rod, strains and actuators. */
void spec_check_cables(pctx *c);

/* spec_mech.c: "constraints", "bodies" and "base" of the root object. */
void spec_parse_mechanics(pctx *c, const cJSON *root);
void spec_free_mechanics(rod_spec *s);

/* The JSON pointers spec_mech.c accepts, for spec_known_paths. */
#define SPEC_MECH_PATHS \
    "/constraints", "/constraints/*", "/constraints/*/name", "/constraints/*/type", \
    "/constraints/*/s", "/constraints/*/position", "/constraints/*/rotation", \
    "/constraints/*/rotation/axis", "/constraints/*/rotation/angle", \
    "/constraints/*/components", "/constraints/*/scope", "/constraints/*/method", \
    "/constraints/*/stiffness", "/constraints/*/damping", "/constraints/*/relative_to", \
    "/constraints/*/relative_to/s", \
    "/bodies", "/bodies/*", "/bodies/*/name", "/bodies/*/s", "/bodies/*/mass", \
    "/bodies/*/inertia", "/bodies/*/offset", "/bodies/*/volume", \
    "/base", "/base/type", "/base/position", "/base/rotation", "/base/rotation/axis", \
    "/base/rotation/angle",

#endif
