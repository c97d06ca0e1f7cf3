#include "stream_admit.h"

#include <stdio.h>
#include <string.h>

static void host_of(const char *url_or_host, char *out, size_t len)
{
    const char *p = strstr(url_or_host, "://");
    p = p ? p + 3 : url_or_host;
    size_t i = 0;
    if (*p == '[') {
        while (*p && *p != ']' && i < len - 1) out[i++] = *p++;
        if (*p == ']' && i < len - 1) out[i++] = *p;
    } else {
        while (*p && *p != ':' && *p != '/' && i < len - 1) out[i++] = *p++;
    }
    out[i] = '\0';
}

int stream_origin_allowed(const char *allowed, const char *origin, const char *host)
{
    if (allowed[0]) {
        char list[1024];
        snprintf(list, sizeof list, "%s", allowed);
        char *save = NULL;
        for (char *it = strtok_r(list, ",", &save); it; it = strtok_r(NULL, ",", &save))
            if (strcmp(it, "*") == 0 || strcmp(it, origin) == 0) return 1;
    }
    /* the viewer is served by the same host on the REST port */
    char oh[256], hh[256];
    host_of(origin, oh, sizeof oh);
    host_of(host, hh, sizeof hh);
    return oh[0] && strcmp(oh, hh) == 0;
}

/* "/v1/sessions/ID/stream" -> ID */
int stream_session_id_of(const char *uri, char *id, size_t len)
{
    if (strncmp(uri, "/v1/sessions/", 13) != 0) return -1;
    const char *p = uri + 13, *slash = strchr(p, '/');
    if (!slash || strncmp(slash, "/stream", 7) != 0 || (slash[7] && slash[7] != '?')) return -1;
    size_t n = (size_t)(slash - p);
    if (!n || n >= len) return -1;
    memcpy(id, p, n);
    id[n] = '\0';
    return 0;
}
