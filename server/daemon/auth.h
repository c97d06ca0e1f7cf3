/* Bearer tokens with two roles, and short-lived single-use stream tickets for browsers
 * (which cannot set headers on a WebSocket). */
#ifndef RODD_AUTH_H
#define RODD_AUTH_H

#include "config.h"

#include <stddef.h>

typedef enum { ROLE_NONE = 0, ROLE_VIEWER = 1, ROLE_OPERATOR = 2 } role;
const char *role_name(role r);

typedef struct auth auth;

/* Tokens from the config's file ("ROLE TOKEN" lines, or {"tokens": [{"token", "role"}]}) and
 * its "role:token,..." list. NULL with a message when a token source is unreadable or bad. */
auth *auth_new(const server_config *c, char *err, size_t errlen);
void auth_free(auth *a);
/* Adds the tokens of a tokens file's text (modified in place); name is for messages. */
int auth_load_tokens_text(auth *a, const char *name, char *text, char *err, size_t errlen);
/* No tokens configured: everyone may do everything (the daemon then listens on loopback). */
int auth_enabled(const auth *a);
int auth_token_count(const auth *a);
/* The role of an "Authorization: Bearer ..." header value (ROLE_NONE if missing or wrong). */
role auth_bearer(const auth *a, const char *header);
/* Which configured token an Authorization header carries (-1: none): whose tickets are whose. */
int auth_token_owner(const auth *a, const char *header);
/* A ticket for streaming one session (or "" for any) with the given role; written to out
 * (at least 64 bytes). An owner holding many tickets cancels its own oldest, not others'. */
int auth_issue_ticket(auth *a, const char *session_id, role r, double ttl, int owner, char *out, size_t outlen);
/* Redeems a ticket once: its role if valid for session_id and not expired, else ROLE_NONE. */
role auth_redeem_ticket(auth *a, const char *ticket, const char *session_id);

/* Random hex of n bytes into out (2n + 1 chars). */
int random_hex(char *out, size_t nbytes);

#endif
