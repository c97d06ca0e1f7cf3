#include "stream_admit.h"

#include <stdio.h>
#include <string.h>

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
