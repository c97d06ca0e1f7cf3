/* Which stream a handshake asks for (who may open it is origin.h's and auth.h's). */
#ifndef RODD_STREAM_ADMIT_H
#define RODD_STREAM_ADMIT_H

#include <stddef.h>

/* "/v1/sessions/ID/stream[?query]" -> ID; 0, or -1 when the path is not a stream path. */
int stream_session_id_of(const char *uri, char *id, size_t len);

#endif
