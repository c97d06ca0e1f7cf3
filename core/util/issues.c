#include "issues.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rod_issues_init(rod_issues *l)
{
    memset(l, 0, sizeof *l);
}

void rod_issues_free(rod_issues *l)
{
    if (!l) return;
    for (int i = 0; i < l->count; i++) {
        free(l->items[i].path);
        free(l->items[i].message);
    }
    free(l->items);
    memset(l, 0, sizeof *l);
}

void issues_add(rod_issues *l, const char *path, const char *fmt, ...)
{
    if (!l) return;
    if (l->count == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        rod_issue *p = realloc(l->items, (size_t)cap * sizeof *p);
        if (!p) return; /* out of memory: the issues already recorded still stand */
        l->items = p;
        l->cap = cap;
    }
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char *ps = strdup(path ? path : ""), *ms = strdup(msg);
    if (!ps || !ms) {
        free(ps);
        free(ms);
        return;
    }
    l->items[l->count].path = ps;
    l->items[l->count].message = ms;
    l->count++;
}

void rod_issues_format(const rod_issues *l, char *buf, size_t len)
{
    if (!len) return;
    buf[0] = '\0';
    size_t used = 0;
    for (int i = 0; l && i < l->count && used + 1 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s%s\n", l->items[i].path,
                         l->items[i].path[0] ? ": " : "", l->items[i].message);
        if (w < 0) break;
        used += (size_t)w;
    }
}
