/* Who may open a stream: the path it names and the browser origin it comes from. */
#ifndef RODD_STREAM_ADMIT_H
#define RODD_STREAM_ADMIT_H

#include <stddef.h>

/* "/v1/sessions/ID/stream[?query]" -> ID; 0, or -1 when the path is not a stream path. */
int stream_session_id_of(const char *uri, char *id, size_t len);
/* Whether a browser page at `origin` may connect: it is in the comma-separated allowed list
 * (or the list has "*"), or it is the host the request was sent to. */
int stream_origin_allowed(const char *allowed, const char *origin, const char *host);

#endif
