#include "delegate.h"

#include "cli.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define FULL_NAME "rodd-full"

int delegate_wanted(int argc, char **argv)
{
    if (argc < 2) return 0;
    const char *cmd = argv[1];
    if (strcmp(cmd, "serve") == 0 || strcmp(cmd, "probe") == 0) return 1;
    if (strcmp(cmd, "run") != 0) return 0;
    /* cli_run reads the format as the word after --format; anything else it refuses itself */
    for (int i = 2; i + 1 < argc; i++)
        if (strcmp(argv[i], "--format") == 0 && strcmp(argv[i + 1], "hdf5") == 0) return 1;
    return 0;
}

int delegate_exec(char **argv)
{
    char exe[1024];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0 || (size_t)n >= sizeof exe - 1) {
        fprintf(stderr, "rodd: %s needs %s, and this binary's location is unknown (/proc/self/exe)\n",
                argv[1], FULL_NAME);
        return EXIT_FAILURE_OTHER;
    }
    exe[n] = '\0';
    const char *bin = dirname(exe);
    char beside[1100], installed[1100];
    snprintf(beside, sizeof beside, "%s/%s", bin, FULL_NAME);
    snprintf(installed, sizeof installed, "%s/../lib/rodd/%s", bin, FULL_NAME);
    const char *const candidates[] = {beside, installed};
    int err = ENOENT;
    for (int i = 0; i < 2; i++) {
        if (access(candidates[i], X_OK) != 0) continue;
        execv(candidates[i], argv);
        err = errno;
    }
    fprintf(stderr, "rodd: %s needs %s (the daemon's and HDF5's libraries), not found or not runnable "
            "as %s or %s: %s\n", argv[1], FULL_NAME, beside, installed, strerror(err));
    return EXIT_FAILURE_OTHER;
}
