/* rodd loads zstd when an MCAP export first compresses a chunk, not at start-up (lazy_lib.h):
 * only `rodd run --format mcap` uses it. */
#include "lazy_lib.h"

#include <pthread.h>
#include <zstd.h>

/* the library's soname (Debian's libzstd1) */
#define ZSTD_SONAME "libzstd.so.1"
#define PURPOSE "MCAP's compressed chunks"

static struct {
    size_t (*compress)(void *, size_t, const void *, size_t, int);
    size_t (*compress_bound)(size_t);
    unsigned (*is_error)(size_t);
} zs;
static pthread_once_t zs_once = PTHREAD_ONCE_INIT;

static void load(void)
{
    void *lib = lazy_lib_open(ZSTD_SONAME, PURPOSE);
#define NEED(field, name) (*(void **)&zs.field = lazy_lib_symbol(lib, ZSTD_SONAME, name, PURPOSE))
    NEED(compress, "ZSTD_compress");
    NEED(compress_bound, "ZSTD_compressBound");
    NEED(is_error, "ZSTD_isError");
#undef NEED
}

/* any of the three may come first */
size_t ZSTD_compressBound(size_t n)
{
    pthread_once(&zs_once, load);
    return zs.compress_bound(n);
}

size_t ZSTD_compress(void *dst, size_t cap, const void *src, size_t n, int level)
{
    pthread_once(&zs_once, load);
    return zs.compress(dst, cap, src, n, level);
}

unsigned ZSTD_isError(size_t code)
{
    pthread_once(&zs_once, load);
    return zs.is_error(code);
}
