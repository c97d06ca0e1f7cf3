#ifndef RODD_TEXTFILE_H
#define RODD_TEXTFILE_H

#include <stddef.h>

/* The whole file at path as a NUL-terminated string of at most max bytes (len, when not
 * NULL, gets its length). NULL with errno set when it cannot be read; EFBIG when it is
 * longer than max, so a file is never silently cut short. The caller frees it. */
char *read_text_file(const char *path, size_t max, size_t *len);
/* The same for a regular file only: anything else (a FIFO, a device, a directory) is refused
 * at once with EINVAL, without waiting for a writer. For files the daemon finds in
 * directories others can write to (checkpoints, examples). */
char *read_regular_file(const char *path, size_t max, size_t *len);

#endif
