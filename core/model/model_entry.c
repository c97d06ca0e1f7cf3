/* The model's entry points: a spec with "rods" goes to the assembly (assembly.c), any other to
 * the one-rod compile (model.c), so a one-rod spec compiles exactly as it always has. */
#include "assembly.h"
#include "issues.h"
#include "model.h"
#include "spec.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

rod_model *rod_model_compile(const char *json, size_t len, const char *const *overrides,
                             int n_overrides, rod_issues *issues)
{
    rod_issues quiet;
    rod_issues_init(&quiet);
    cJSON *root = spec_parse_json(json, len, &quiet);
    rod_issues_free(&quiet);
    if (!cJSON_IsObject(root) || !cJSON_GetObjectItemCaseSensitive(root, "rods")) {
        cJSON_Delete(root);
        return model_compile_one(json, len, overrides, n_overrides, issues);
    }
    int bad = 0;
    for (int i = 0; i < n_overrides; i++)
        bad |= spec_apply_override(root, overrides[i], issues) != 0;
    rod_model *m = bad ? NULL : assembly_compile(root, issues);
    cJSON_Delete(root);
    return m;
}

void rod_model_free(rod_model *m)
{
    if (!m) return;
    assembly_free(m->as);
    model_free_one(m);
}

rod_model *rod_model_load(const char *path, const char *const *overrides, int n_overrides,
                          rod_issues *issues)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        issues_add(issues, "", "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size > ROD_SPEC_MAX_BYTES) {
        issues_add(issues, "", "%s is %lld bytes, more than the %u a spec may have", path,
                   (long long)st.st_size, ROD_SPEC_MAX_BYTES);
        fclose(f);
        return NULL;
    }
    /* read at most the cap plus one byte, so a pipe or a growing file cannot exhaust memory */
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (len == cap) {
            if (cap > ROD_SPEC_MAX_BYTES) break;
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + len, 1, cap - len, f);
        len += r;
        if (r == 0) break;
    }
    int rerr = ferror(f);
    fclose(f);
    if (!buf) {
        issues_add(issues, "", "out of memory reading %s", path);
        return NULL;
    }
    if (rerr) {
        issues_add(issues, "", "error reading %s", path);
        free(buf);
        return NULL;
    }
    if (len > ROD_SPEC_MAX_BYTES) {
        issues_add(issues, "", "%s is more than the %u bytes a spec may have", path,
                   ROD_SPEC_MAX_BYTES);
        free(buf);
        return NULL;
    }
    rod_model *m = rod_model_compile(buf, len, overrides, n_overrides, issues);
    free(buf);
    return m;
}

