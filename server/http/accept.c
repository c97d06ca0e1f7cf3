#include "accept.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t') p++;
    return p;
}

/* The q parameter among a range's parameters [p, end): 1 when absent, 0 when malformed. */
static double range_q(const char *p, const char *end)
{
    double q = 1;
    while (p < end) {
        p = skip_ws(p + 1); /* past the ';' */
        const char *next = memchr(p, ';', (size_t)(end - p));
        if (!next) next = end;
        if (next - p >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
            char num[16];
            const char *v = p + 2, *ve = next;
            while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t')) ve--;
            const size_t n = (size_t)(ve - v);
            if (n == 0 || n >= sizeof num) return 0;
            memcpy(num, v, n);
            num[n] = '\0';
            if (strspn(num, "0123456789.") != strlen(num)) return 0; /* no 0x10, no inf, no -1 */
            char *e;
            q = strtod(num, &e);
            if (*e || q < 0 || q > 1) return 0;
        }
        p = next;
    }
    return q;
}

double accept_quality(const char *accept, const char *type)
{
    if (!accept || !*skip_ws(accept)) return 1;
    const char *slash = strchr(type, '/');
    const size_t tlen = strlen(type), major = slash ? (size_t)(slash - type) : tlen;
    int best = 0; /* 3 the type, 2 its major type and any subtype, 1 anything */
    double q = 0;
    for (const char *p = accept; *p;) {
        p = skip_ws(p);
        const char *end = strchr(p, ',');
        if (!end) end = p + strlen(p);
        const char *params = memchr(p, ';', (size_t)(end - p));
        const char *rend = params ? params : end;
        while (rend > p && (rend[-1] == ' ' || rend[-1] == '\t')) rend--;
        const size_t rlen = (size_t)(rend - p);
        int spec = 0;
        if (rlen == tlen && strncasecmp(p, type, tlen) == 0) spec = 3;
        else if (rlen == major + 2 && strncasecmp(p, type, major + 1) == 0 && p[major + 1] == '*') spec = 2;
        else if (rlen == 3 && strncmp(p, "*/*", 3) == 0) spec = 1;
        if (spec > best) {
            best = spec;
            q = range_q(params ? params : end, end);
        }
        p = *end ? end + 1 : end;
    }
    return q;
}
