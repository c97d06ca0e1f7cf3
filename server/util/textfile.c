#include "textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char *read_stream(FILE *f, size_t max, size_t *len);

char *read_text_file(const char *path, size_t max, size_t *len)
{
    FILE *f = fopen(path, "rb");
    return f ? read_stream(f, max, len) : NULL;
}

char *read_regular_file(const char *path, size_t max, size_t *len)
{
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return NULL;
    struct stat st;
    const int e = fstat(fd, &st) != 0 ? errno : !S_ISREG(st.st_mode) ? EINVAL : 0;
    if (e) {
        close(fd);
        errno = e;
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return NULL;
    }
    return read_stream(f, max, len);
}

/* Reads f to its end and closes it. */
static char *read_stream(FILE *f, size_t max, size_t *len)
{
    /* read in growing pieces up to max plus one byte: a pipe or a growing file cannot
     * exhaust memory, and a file longer than max is refused, not truncated */
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    int err = buf ? 0 : ENOMEM;
    while (!err) {
        if (n + 1 >= cap) {
            if (cap > max + 1) {
                err = EFBIG;
                break;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                err = ENOMEM;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t want = cap - 1 - n;
        if (want > max + 1 - n) want = max + 1 - n;
        size_t got = fread(buf + n, 1, want, f);
        n += got;
        if (n > max) err = EFBIG;
        else if (got == 0) {
            if (ferror(f)) err = EIO;
            break;
        }
    }
    fclose(f);
    if (err) {
        free(buf);
        errno = err;
        return NULL;
    }
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}
