#include "utf8.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

int utf8_valid(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < n;) {
        const unsigned c = s[i];
        size_t k;
        unsigned cp;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            k = 1;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            k = 2;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            k = 3;
            cp = c & 0x07;
        } else {
            return 0;
        }
        if (i + k >= n) return 0; /* fewer than k continuation bytes left */
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xc0) != 0x80) return 0;
            cp = (cp << 6) | (s[i + j] & 0x3f);
        }
        if ((k == 2 && cp < 0x800) || (k == 3 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        i += k + 1;
    }
    return 1;
}

/* Appends "/" and the token, escaped as RFC 6901 says (~ as ~0, / as ~1). */
static void push(char *path, size_t len, const char *token)
{
    size_t at = strlen(path);
    if (at + 1 >= len) return;
    path[at++] = '/';
    for (const char *p = token; *p && at + 2 < len; p++) {
        if (*p == '~' || *p == '/') {
            path[at++] = '~';
            path[at++] = *p == '~' ? '0' : '1';
        } else {
            path[at++] = *p;
        }
    }
    path[at] = '\0';
}

static int find(const cJSON *it, char *path, size_t len)
{
    if (cJSON_IsString(it) && it->valuestring && !utf8_valid(it->valuestring, strlen(it->valuestring))) return 1;
    int i = 0;
    for (const cJSON *c = it->child; c; c = c->next, i++) {
        const size_t at = strlen(path);
        if (cJSON_IsObject(it)) {
            if (c->string && !utf8_valid(c->string, strlen(c->string))) {
                push(path, len, "(a key that is not UTF-8)");
                return 1;
            }
            push(path, len, c->string ? c->string : "");
        } else {
            char n[24];
            snprintf(n, sizeof n, "%d", i);
            push(path, len, n);
        }
        if (find(c, path, len)) return 1;
        path[at] = '\0';
    }
    return 0;
}

int json_find_bad_utf8(const cJSON *root, char *path, size_t len)
{
    if (len) path[0] = '\0';
    return root && len ? find(root, path, len) : 0;
}
