/* The FRAME as text (rod_frame_to_json, what the stream and `rodd run` send) and as a tree
 * (rod_frame_to_cjson, what REST embeds) say the same: here the contacts, which the text
 * writer once nested ("point": [[x, y, z]]) where the contract has "point": [x, y, z]. */
#include "rod_json.h"
#include "testutil.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

static void same_vec(const cJSON *a, const cJSON *b, const char *what, int i)
{
    cr_assert(cJSON_IsArray(a) && cJSON_IsArray(b), "contact %d %s: not arrays", i, what);
    cr_assert_eq(cJSON_GetArraySize(a), 3, "contact %d %s: %d values in the text", i, what, cJSON_GetArraySize(a));
    cr_assert_eq(cJSON_GetArraySize(b), 3);
    for (int k = 0; k < 3; k++) {
        const cJSON *x = cJSON_GetArrayItem(a, k), *y = cJSON_GetArrayItem(b, k);
        cr_assert(cJSON_IsNumber(x) && cJSON_IsNumber(y), "contact %d %s[%d]: not a number", i, what, k);
        cr_assert_leq(fabs(x->valuedouble - y->valuedouble), 1e-6 * fabs(y->valuedouble) + 1e-300,
                      "contact %d %s[%d]: %g vs %g", i, what, k, x->valuedouble, y->valuedouble);
    }
}

Test(frame_json, contacts_are_flat_triples_in_both_writers)
{
    /* a straight rod 2 mm into a plane along it: every contact point touches */
    rod_model *m = tu_model("{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
                            "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 2}, "
                            "\"environment\": {\"obstacles\": [{\"type\": \"plane\", \"point\": [-0.008, 0, 0], "
                            "\"normal\": [1, 0, 0], \"stiffness\": 1e3}]}}");
    char err[128];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    rod_frame f = tu_frame(m, st, 3);
    cr_assert_gt(f.ncontacts, 10);
    char *text = rod_frame_to_json(&f);
    cJSON *a = cJSON_Parse(text), *b = rod_frame_to_cjson(&f);
    cr_assert_not_null(a, "the text is not JSON");
    const cJSON *ca = cJSON_GetObjectItem(a, "contacts"), *cb = cJSON_GetObjectItem(b, "contacts");
    cr_assert_eq(cJSON_GetArraySize(ca), f.ncontacts);
    cr_assert_eq(cJSON_GetArraySize(cb), f.ncontacts);
    for (int i = 0; i < f.ncontacts; i++) {
        const cJSON *x = cJSON_GetArrayItem(ca, i), *y = cJSON_GetArrayItem(cb, i);
        same_vec(cJSON_GetObjectItem(x, "point"), cJSON_GetObjectItem(y, "point"), "point", i);
        same_vec(cJSON_GetObjectItem(x, "force"), cJSON_GetObjectItem(y, "force"), "force", i);
        cr_assert_float_eq(cJSON_GetObjectItem(x, "s")->valuedouble, f.contact_s[i], 1e-9);
    }
    cJSON_Delete(a);
    cJSON_Delete(b);
    free(text);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}
