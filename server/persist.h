/* Session checkpoints in a state directory: one file per session, written atomically (write,
 * fsync, rename, fsync the directory), read back when the daemon starts. */
#ifndef RODD_PERSIST_H
#define RODD_PERSIST_H

#include <stddef.h>

/* Creates DIR/sessions if needed. */
int persist_init(const char *dir, char *err, size_t errlen);
int persist_write(const char *dir, const char *id, const char *text, size_t len, char *err, size_t errlen);
/* Removes a session's checkpoint (gone already is fine); the directory is synced. */
int persist_delete(const char *dir, const char *id, char *err, size_t errlen);
/* Calls cb for every checkpoint file (text NUL-terminated, borrowed for the call). */
int persist_load_all(const char *dir, int (*cb)(void *ctx, const char *file, const char *text, size_t len),
                     void *ctx);

#endif
