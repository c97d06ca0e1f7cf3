/* The command users call, `rodd`, links the engine's libraries only (cJSON, SUNDIALS,
 * muparser): loading the daemon's (libmicrohttpd, libwebsockets) and HDF5's (which brings curl,
 * gnutls, krb5, ldap: 49 libraries in all) cost every `rodd version` or `rodd solve` about ten
 * times its own work. The commands that need them run in rodd-full, the whole of server/,
 * which rodd exec's with the same arguments (the same process id, so signals, exit statuses
 * and pid files are the daemon's). */
#ifndef RODD_DELEGATE_H
#define RODD_DELEGATE_H

/* 1 when argv's command needs rodd-full: serve, probe, and run with --format hdf5. */
int delegate_wanted(int argc, char **argv);

/* Replaces this process with rodd-full, found beside this binary (a build directory) or in
 * BIN/../lib/rodd (make install, the image), given argv unchanged. Returns only on failure,
 * after saying why on stderr, with the exit status to use. */
int delegate_exec(char **argv);

#endif
