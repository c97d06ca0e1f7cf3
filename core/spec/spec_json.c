/* JSON text in, cJSON tree out: syntax errors with line and column, and --set overrides. */
#include "issues.h"
#include "spec.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void line_col(const char *text, size_t at, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t k = 0; k < at; k++) {
        if (text[k] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

cJSON *spec_parse_json(const char *text, size_t len, rod_issues *issues)
{
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        i++;
    if (i == len) {
        issues_add(issues, "", "the spec is empty");
        return NULL;
    }
    if (len > ROD_SPEC_MAX_BYTES) {
        issues_add(issues, "", "the spec is %zu bytes, more than the %u allowed", len,
                   ROD_SPEC_MAX_BYTES);
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root) {
        size_t at = end ? (size_t)(end - text) : 0;
        if (at > len) at = len;
        char what[160];
        at = spec_json_syntax_hint(text, len, at, what, sizeof what);
        int line, col;
        line_col(text, at, &line, &col);
        issues_add(issues, "", "malformed JSON at line %d, column %d (byte %zu)%s%s", line, col, at,
                   what[0] ? ": " : "", what);
        return NULL;
    }
    /* trailing garbage after the document is an error too */
    size_t used = (size_t)(end - text);
    while (used < len && (text[used] == ' ' || text[used] == '\t' || text[used] == '\n' ||
                          text[used] == '\r'))
        used++;
    if (used < len && text[used] != '\0') {
        int line, col;
        line_col(text, used, &line, &col);
        issues_add(issues, "", "malformed JSON at line %d, column %d (byte %zu): text after the "
                   "document", line, col, used);
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

static int is_index(const char *s, long *out)
{
    if (!*s) return 0;
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9') return 0;
    errno = 0;
    *out = strtol(s, NULL, 10);
    return errno == 0;
}

int spec_apply_override(cJSON *root, const char *assignment, rod_issues *issues)
{
    char where[300];
    snprintf(where, sizeof where, "--set %s", assignment);
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment) {
        issues_add(issues, where, "expected PATH=VALUE");
        return -1;
    }
    size_t plen = (size_t)(eq - assignment);
    char *path = strndup(assignment, plen);
    if (!path) return -1;
    snprintf(where, sizeof where, "--set %s", path);
    const char *vtext = eq + 1;
    cJSON *value = cJSON_Parse(vtext);
    if (!value) value = cJSON_CreateString(vtext);
    if (!value) {
        free(path);
        return -1;
    }
    cJSON *node = root;
    char *save = NULL;
    int rc = -1;
    char *tok = strtok_r(path, ".", &save);
    while (tok) {
        char *next = strtok_r(NULL, ".", &save);
        long idx;
        if (cJSON_IsArray(node)) {
            if (!is_index(tok, &idx) || idx >= cJSON_GetArraySize(node)) {
                issues_add(issues, where, "\"%s\" is not an element of the array", tok);
                goto out;
            }
            if (!next) {
                cJSON_ReplaceItemInArray(node, (int)idx, value);
                value = NULL;
                rc = 0;
                goto out;
            }
            node = cJSON_GetArrayItem(node, (int)idx);
        } else if (cJSON_IsObject(node)) {
            if (!next) {
                if (cJSON_GetObjectItemCaseSensitive(node, tok))
                    cJSON_ReplaceItemInObjectCaseSensitive(node, tok, value);
                else
                    cJSON_AddItemToObject(node, tok, value);
                value = NULL;
                rc = 0;
                goto out;
            }
            cJSON *child = cJSON_GetObjectItemCaseSensitive(node, tok);
            long nidx;
            if (!child && is_index(next, &nidx)) {
                issues_add(issues, where, "\"%s\" is not in the spec, so it has no element %s",
                           tok, next);
                goto out;
            }
            if (!child) {
                child = cJSON_AddObjectToObject(node, tok);
                if (!child) goto out;
            }
            node = child;
        } else {
            issues_add(issues, where, "\"%s\" is inside a value that is neither an object nor "
                       "an array", tok);
            goto out;
        }
        tok = next;
    }
    issues_add(issues, where, "empty path");
out:
    cJSON_Delete(value);
    free(path);
    return rc;
}
