/* The other daemons of a group (pods behind one router): GET /v1/sessions lists their
 * sessions too, asked of each over plain HTTP. */
#ifndef RODD_PEERS_H
#define RODD_PEERS_H

#include <cjson/cJSON.h>

/* Appends to `into` (an array) the sessions of every daemon in peers ("HOST:PORT,...", entry i
 * being ordinal i) but the one of ordinal self, each asked GET /v1/sessions?scope=local with
 * the caller's Host and Authorization (so the URLs in the answers are the caller's, through
 * the router, and the caller's token is the one checked). Waits at most timeout seconds per
 * peer. Returns how many peers did not answer with a list; their names in missing (an array
 * of "HOST:PORT" strings, may be NULL). */
int peers_sessions(const char *peers, int self, const char *host, const char *authorization, double timeout,
                   cJSON *into, cJSON *missing);

#endif
