/* What a session checkpoint's own fields may hold, whether it comes back from the state
 * directory or is posted to create a session: the spec is the compiler's to check and the
 * engine state's numbers rod_state_load's, but a hand-edited pace, time or name must not
 * make a session that never advances, or text no client can parse. */
#ifndef RODD_CHECKPOINT_FIELDS_H
#define RODD_CHECKPOINT_FIELDS_H

#include <stddef.h>

struct cJSON;

#define CHECKPOINT_MAX_TIME 1e9  /* s of simulated time; beyond, a 10 ms piece does not move t */
#define CHECKPOINT_MAX_PACE 1e6  /* the most POST /v1/sessions takes */

/* 0, or -1 with the JSON pointer (relative to the checkpoint) and what is wrong there. */
int checkpoint_fields_check(const struct cJSON *ck, int max_points, char *path, size_t plen, char *msg,
                            size_t mlen);

#endif
