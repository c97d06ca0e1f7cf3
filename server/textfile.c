#include "textfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

char *read_text_file(const char *path, size_t max, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
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
