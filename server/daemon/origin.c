#include "origin.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

int host_is_loopback(const char *host)
{
    if (strcasecmp(host, "localhost") == 0 || strcasecmp(host, "localhost.") == 0) return 1;
    char h[64];
    size_t n = strlen(host);
    if (n >= sizeof h) return 0;
    memcpy(h, host, n + 1);
    if (h[0] == '[' && n > 2 && h[n - 1] == ']') { /* "[::1]" */
        memmove(h, h + 1, n - 2);
        h[n - 2] = '\0';
    }
    unsigned char a[16];
    if (inet_pton(AF_INET, h, a) == 1) return a[0] == 127;
    if (inet_pton(AF_INET6, h, a) == 1) {
        static const unsigned char one[16] = {[15] = 1};
        static const unsigned char mapped[12] = {[10] = 0xff, [11] = 0xff};
        return memcmp(a, one, 16) == 0 || (memcmp(a, mapped, 12) == 0 && a[12] == 127);
    }
    return 0;
}

/* "host", "host:port", "[v6]" or "[v6]:port" -> the name, lower case, without a final dot.
 * -1 when it does not parse. */
static int host_name(const char *in, char *out, size_t len)
{
    size_t i = 0;
    const char *p = in;
    if (*p == '[') {
        const char *end = strchr(p, ']');
        if (!end || (end[1] && end[1] != ':')) return -1;
        if ((size_t)(end - p + 1) >= len) return -1;
        memcpy(out, p, (size_t)(end - p + 1));
        out[end - p + 1] = '\0';
        return 0;
    }
    for (; *p && *p != ':'; p++) {
        if (i + 1 >= len) return -1;
        const char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
              c == '.' || c == '_'))
            return -1;
        out[i++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    if (*p == ':') {
        for (const char *q = p + 1; *q; q++)
            if (*q < '0' || *q > '9') return -1;
    }
    if (i && out[i - 1] == '.') i--;
    out[i] = '\0';
    return i ? 0 : -1;
}

static int listed(const char *list, const char *item)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", list);
    char *save = NULL;
    for (char *it = strtok_r(copy, ", ", &save); it; it = strtok_r(NULL, ", ", &save))
        if (strcmp(it, "*") == 0 || strcasecmp(it, item) == 0) return 1;
    return 0;
}

static int is_wildcard(const char *listen)
{
    return !listen[0] || strcmp(listen, "0.0.0.0") == 0 || strcmp(listen, "::") == 0 || strcmp(listen, "*") == 0;
}

/* A host name (no port) this daemon answers to. */
static int name_allowed(const server_config *cfg, const char *name)
{
    if (cfg->allowed_hosts[0] && listed(cfg->allowed_hosts, name)) return 1;
    if (is_wildcard(cfg->listen_host)) return !cfg->allowed_hosts[0]; /* any name reaches it */
    char listen[160];
    if (host_name(cfg->listen_host, listen, sizeof listen) == 0 && strcmp(listen, name) == 0) return 1;
    if (strchr(cfg->listen_host, ':') && !strchr(cfg->listen_host, '[')) {
        char bracketed[160]; /* an IPv6 listen address as a Host names it */
        snprintf(bracketed, sizeof bracketed, "[%s]", cfg->listen_host);
        if (strcasecmp(bracketed, name) == 0) return 1;
    }
    /* a loopback daemon answers to every loopback name, and to those only */
    return host_is_loopback(cfg->listen_host) && host_is_loopback(name);
}

int host_allowed(const server_config *cfg, const char *host_header)
{
    if (!host_header) return 1;
    char name[256];
    if (host_name(host_header, name, sizeof name) != 0) return 0;
    return name_allowed(cfg, name);
}

int origin_allowed(const server_config *cfg, const char *origin, const char *host_header)
{
    if (!origin) return 1;
    if (cfg->allowed_origins[0] && listed(cfg->allowed_origins, origin)) return 1;
    const char *p = strstr(origin, "://");
    if (!p || (strncmp(origin, "http://", 7) != 0 && strncmp(origin, "https://", 8) != 0)) return 0;
    char name[256];
    if (host_name(p + 3, name, sizeof name) != 0) return 0;
    if (is_wildcard(cfg->listen_host) && !cfg->allowed_hosts[0]) {
        /* any name reaches it (tokens are required there): the page must come from the host
         * the request went to, the viewer this daemon serves */
        char host[256];
        return host_header && host_name(host_header, host, sizeof host) == 0 && strcmp(host, name) == 0;
    }
    return name_allowed(cfg, name);
}

int media_type_is_json(const char *ct)
{
    if (!ct) return 0;
    while (*ct == ' ' || *ct == '\t') ct++;
    size_t n = strcspn(ct, "; \t");
    if (n == 16 && strncasecmp(ct, "application/json", 16) == 0) return 1;
    return n > 17 && strncasecmp(ct, "application/", 12) == 0 && strncasecmp(ct + n - 5, "+json", 5) == 0;
}
