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
/* A session id as it may name a file: 1 to 63 of [A-Za-z0-9_-]. */
int persist_id_valid(const char *id);

enum { PERSIST_RESTORED = 0, PERSIST_REJECT = -1, PERSIST_KEEP = -2 };
/* Restores one checkpoint: the id its file name gives, the file's path and text (borrowed,
 * NUL-terminated); PERSIST_REJECT with why filled moves the file to DIR/rejected/,
 * PERSIST_KEEP leaves it (a full pool, say). */
typedef int (*persist_restore_fn)(void *ctx, const char *id, const char *file, const char *text, size_t len,
                                  char *why, size_t whylen);
/* Calls cb for every checkpoint file; files that are not one are quarantined. Returns how many
 * were restored. */
int persist_load_all(const char *dir, persist_restore_fn cb, void *ctx);
/* Moves DIR/sessions/NAME to DIR/rejected/ (logged with why). */
int persist_quarantine(const char *dir, const char *name, const char *why);

#endif
