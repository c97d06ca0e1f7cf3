#include "install_paths.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The directory of the running binary, or "" when the kernel does not say. */
static void binary_dir(char *out, size_t outlen)
{
    char exe[1024];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    out[0] = '\0';
    if (n <= 0 || (size_t)n >= sizeof exe - 1) return;
    exe[n] = '\0';
    const char *dir = dirname(exe);
    /* rodd-full installed in PREFIX/lib/rodd finds the data as PREFIX/bin/rodd does */
    const size_t len = strlen(dir), tail = strlen("/lib/rodd");
    if (len >= tail && strcmp(dir + len - tail, "/lib/rodd") == 0)
        snprintf(out, outlen, "%s/../../bin", dir);
    else
        snprintf(out, outlen, "%s", dir);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int install_find_dir(install_data what, char *out, size_t outlen, char *tried, size_t triedlen)
{
    static const char *const installed[] = {"share/rodd/examples", "share/rodd/web"};
    static const char *const checkout[] = {"api/examples", "web/dist"};
    const char *const rel[2] = {installed[what], checkout[what]};
    char bin[1024];
    binary_dir(bin, sizeof bin);
    if (tried) tried[0] = '\0';
    if (!bin[0]) {
        if (tried) snprintf(tried, triedlen, "(the binary's location is unknown: /proc/self/exe)");
        if (outlen) out[0] = '\0';
        return -1;
    }
    char first[1100] = "";
    for (int i = 0; i < 2; i++) {
        char dir[1100];
        snprintf(dir, sizeof dir, "%s/../%s", bin, rel[i]);
        char *canon = realpath(dir, NULL);
        const int found = canon && is_dir(canon);
        if (found) {
            snprintf(out, outlen, "%s", canon);
            free(canon);
            return 0;
        }
        free(canon);
        if (!i) snprintf(first, sizeof first, "%s", dir);
        if (tried) {
            const size_t used = strlen(tried);
            snprintf(tried + used, triedlen - used, "%s%s", used ? ", " : "", dir);
        }
    }
    snprintf(out, outlen, "%s", first);
    return -1;
}
