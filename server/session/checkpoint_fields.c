#include "checkpoint_fields.h"

#include "session.h"
#include "utf8.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int bad(char *path, size_t plen, const char *p, char *msg, size_t mlen, const char *m)
{
    snprintf(path, plen, "%s", p);
    snprintf(msg, mlen, "%s", m);
    return -1;
}

/* A member that, when present, is a number in [lo, hi]. */
static int number_in(const cJSON *ck, const char *key, double lo, double hi, int whole, char *path, size_t plen,
                     char *msg, size_t mlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(ck, key);
    if (!v) return 0;
    char p[64], m[160];
    snprintf(p, sizeof p, "/%s", key);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < lo || v->valuedouble > hi ||
        (whole && v->valuedouble != floor(v->valuedouble))) {
        snprintf(m, sizeof m, "must be a%s number in [%g, %g]", whole ? " whole" : "", lo, hi);
        return bad(path, plen, p, msg, mlen, m);
    }
    return 0;
}

int checkpoint_fields_check(const cJSON *ck, int max_points, char *path, size_t plen, char *msg, size_t mlen)
{
    if (!cJSON_IsObject(ck)) return bad(path, plen, "", msg, mlen, "a checkpoint is a JSON object");
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(ck, "spec");
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(ck, "state");
    if (!cJSON_IsObject(spec)) return bad(path, plen, "/spec", msg, mlen, "must be an object (the session's spec)");
    if (!cJSON_IsObject(state))
        return bad(path, plen, "/state", msg, mlen, "must be an object (the engine state)");
    char where[256];
    if (json_find_bad_utf8(ck, where, sizeof where)) return bad(path, plen, where, msg, mlen, "not valid UTF-8");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(ck, "id");
    if (v && !cJSON_IsString(v)) return bad(path, plen, "/id", msg, mlen, "must be a string");
    v = cJSON_GetObjectItemCaseSensitive(ck, "name");
    if (v && (!cJSON_IsString(v) || strlen(v->valuestring) > 200))
        return bad(path, plen, "/name", msg, mlen, "must be a string of at most 200 bytes");
    v = cJSON_GetObjectItemCaseSensitive(ck, "failure");
    if (v && (!cJSON_IsString(v) || strlen(v->valuestring) > 511))
        return bad(path, plen, "/failure", msg, mlen, "must be a string of at most 511 bytes");
    v = cJSON_GetObjectItemCaseSensitive(ck, "status");
    session_status st;
    if (v && (!cJSON_IsString(v) || session_status_parse(v->valuestring, &st) != 0))
        return bad(path, plen, "/status", msg, mlen, "must be created, running, paused, finished or failed");
    if (number_in(ck, "pace", 0, CHECKPOINT_MAX_PACE, 0, path, plen, msg, mlen) ||
        number_in(ck, "until", 0, CHECKPOINT_MAX_TIME, 0, path, plen, msg, mlen) ||
        number_in(ck, "repeat", 0, CHECKPOINT_MAX_TIME, 0, path, plen, msg, mlen) ||
        number_in(ck, "points", 2, max_points, 1, path, plen, msg, mlen) ||
        number_in(ck, "created", 0, 1e11, 0, path, plen, msg, mlen) ||
        number_in(ck, "version", 1, 1, 1, path, plen, msg, mlen))
        return -1;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(state, "t");
    if (t && (!cJSON_IsNumber(t) || !isfinite(t->valuedouble) || t->valuedouble < 0 ||
              t->valuedouble > CHECKPOINT_MAX_TIME)) {
        char m[96];
        snprintf(m, sizeof m, "must be a simulated time in [0, %g] s", CHECKPOINT_MAX_TIME);
        return bad(path, plen, "/state/t", msg, mlen, m);
    }
    return 0;
}
