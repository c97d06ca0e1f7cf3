/* Where the data rodd ships (the example specs, the built viewer) is, when the configuration
 * does not say: found from the binary's own location (/proc/self/exe), so that a daemon
 * started from any directory finds them. BIN is the binary's directory (PREFIX/bin for
 * rodd-full in PREFIX/lib/rodd); the first that exists:
 *   examples: BIN/../share/rodd/examples  (make install PREFIX=P: P/bin/rodd, P/share/rodd)
 *             BIN/../api/examples         (a checkout: build/rodd)
 *   viewer:   BIN/../share/rodd/web, then BIN/../web/dist */
#ifndef RODD_INSTALL_PATHS_H
#define RODD_INSTALL_PATHS_H

#include <stddef.h>

typedef enum { INSTALL_EXAMPLES, INSTALL_WEB } install_data;

/* The first candidate directory that exists, into out: 0. -1 when none does (out gets the
 * first candidate, the installed place), with the candidates tried in `tried` for a message. */
int install_find_dir(install_data what, char *out, size_t outlen, char *tried, size_t triedlen);

#endif
