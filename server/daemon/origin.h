/* Which hosts and browser origins may drive the daemon (DNS rebinding and cross-site requests):
 * the Host a request names must be one the daemon answers to, and a browser's Origin must be
 * one of those hosts or listed in allowed_origins. Shared by the REST port and the streams. */
#ifndef RODD_ORIGIN_H
#define RODD_ORIGIN_H

#include "config.h"

/* A numeric loopback address (127.0.0.0/8, ::1) or "localhost"; names that merely start
 * with "127." are not. */
int host_is_loopback(const char *host);
/* The Host header's name is one this daemon answers to (NULL: no header, an HTTP/1.0 client
 * that is not a browser). */
int host_allowed(const server_config *cfg, const char *host_header);
/* A browser's Origin header may drive the daemon (NULL: not a browser). A daemon listening on
 * every address with no allowed_hosts takes the page's own host (host_header) only. */
int origin_allowed(const server_config *cfg, const char *origin, const char *host_header);
/* The Content-Type names JSON: application/json, or an application/...+json type, with parameters. */
int media_type_is_json(const char *content_type);

#endif
