/* A session's status by name, as descriptions, checkpoints and metrics spell it; apart from
 * the session object so that the state machine (session_control.c) and the object
 * (session.c) need not need each other for it. */
#include "session.h"

#include <string.h>

static const char *const status_names[] = {"created", "running", "paused", "finished", "failed"};

const char *session_status_name(session_status s)
{
    return status_names[s];
}

int session_status_parse(const char *name, session_status *out)
{
    for (int i = 0; i < 5; i++)
        if (strcmp(name, status_names[i]) == 0) {
            *out = (session_status)i;
            return 0;
        }
    return -1;
}
