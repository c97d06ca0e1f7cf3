/* rodd loads some libraries at their first use, not at start-up (issue 30, item 3): a command
 * that does not need them does not pay their loading and relocation. Each such library has a
 * file here whose definitions stand in for the library's own in rodd's link and forward to it;
 * rodd-full and the tests link the libraries themselves. */
#ifndef RODD_LAZY_LIB_H
#define RODD_LAZY_LIB_H

/* The library soname, opened once; `purpose` completes "which ... need" in the message with
 * which rodd exits (EXIT_FAILURE_OTHER) when it is missing. */
void *lazy_lib_open(const char *soname, const char *purpose);
/* Symbol `name` of lib, or an exit naming soname, name and purpose. */
void *lazy_lib_symbol(void *lib, const char *soname, const char *name, const char *purpose);

#endif
