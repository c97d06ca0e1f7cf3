/* api/spec.schema.json and the parser accept the same keys: every key the parser knows is in
 * the schema and every property the schema names is one the parser knows. */
#include "assembly.h"
#include "spec.h"
#include "testutil.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#define MAXP 512
static char *found[MAXP];
static int nfound;

static void add(const char *p)
{
    for (int i = 0; i < nfound; i++)
        if (strcmp(found[i], p) == 0) return;
    cr_assert_lt(nfound, MAXP);
    found[nfound++] = strdup(p);
}

static const cJSON *resolve(const cJSON *root, const cJSON *node)
{
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(node, "$ref");
    if (!cJSON_IsString(ref)) return node;
    cr_assert(strncmp(ref->valuestring, "#/$defs/", 8) == 0, "unsupported $ref %s", ref->valuestring);
    const cJSON *defs = cJSON_GetObjectItemCaseSensitive(root, "$defs");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(defs, ref->valuestring + 8);
    cr_assert_not_null(t, "dangling $ref %s", ref->valuestring);
    return resolve(root, t);
}

static void walk(const cJSON *root, const cJSON *node, const char *path, int depth)
{
    cr_assert_lt(depth, 32);
    node = resolve(root, node);
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(node, "properties");
    for (const cJSON *p = props ? props->child : NULL; p; p = p->next) {
        char sub[300];
        snprintf(sub, sizeof sub, "%s/%s", path, p->string);
        add(sub);
        walk(root, p, sub, depth + 1);
    }
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(node, "items");
    if (cJSON_IsObject(items)) {
        const cJSON *it = resolve(root, items);
        if (cJSON_GetObjectItemCaseSensitive(it, "properties")) {
            char sub[300];
            snprintf(sub, sizeof sub, "%s/*", path);
            add(sub);
            walk(root, it, sub, depth + 1);
        }
    }
    const char *combos[] = {"oneOf", "anyOf", "allOf"};
    for (int c = 0; c < 3; c++) {
        const cJSON *arr = cJSON_GetObjectItemCaseSensitive(node, combos[c]);
        for (const cJSON *e = arr ? arr->child : NULL; e; e = e->next) walk(root, e, path, depth + 1);
    }
}

Test(schema, parser_and_schema_accept_the_same_keys)
{
    char *text = tu_read_file("api/spec.schema.json");
    cJSON *root = cJSON_Parse(text);
    free(text);
    cr_assert_not_null(root, "the schema is not JSON");
    nfound = 0;
    walk(root, root, "", 0);
    for (int i = 0; spec_known_paths[i]; i++) {
        int in = 0;
        for (int j = 0; j < nfound; j++) in |= strcmp(found[j], spec_known_paths[i]) == 0;
        cr_expect(in, "the parser accepts %s, the schema does not name it", spec_known_paths[i]);
    }
    for (int j = 0; j < nfound; j++) {
        int in = 0;
        /* a spec of several rods: its own keys, and each rod's one-rod keys under /rods/N */
        const char *own = strncmp(found[j], "/rods/*/", 8) == 0 ? found[j] + 7 : found[j];
        for (int i = 0; spec_known_paths[i]; i++) in |= strcmp(own, spec_known_paths[i]) == 0;
        for (int i = 0; assembly_known_paths[i]; i++) in |= strcmp(found[j], assembly_known_paths[i]) == 0;
        cr_expect(in, "the schema names %s, the parser does not accept it", found[j]);
    }
    for (int j = 0; j < nfound; j++) free(found[j]);
    cJSON_Delete(root);
}
