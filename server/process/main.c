/* rodd: the daemon and the offline commands. Built twice: as rodd-full with everything, and
 * with RODD_FRONT as rodd, the command users call, which hands serve, probe and the HDF5
 * export to rodd-full so that the other commands load none of their libraries
 * (server/front/delegate.h). */
#include "cli.h"
#include "rod.h"
#ifdef RODD_FRONT
#include "front/delegate.h"
#else
#include "serve.h"
#endif

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        cli_usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    const int help_asked = argc > 2 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0);
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        if (help_asked) return cli_help("version");
        printf("rodd %s\n", ROD_VERSION);
        return EXIT_OK;
    }
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0)
        return cli_help(help_asked ? "help" : argc > 2 ? argv[2] : NULL);
    if (cmd[0] == '-') {
        fprintf(stderr, "rodd: %s before a command; usage: rodd COMMAND [options], rodd help lists them\n", cmd);
        return EXIT_USAGE;
    }
    int handled;
    int rc = cli_check_options(argc, argv, &handled);
    if (handled || rc != EXIT_OK) return rc;
#ifdef RODD_FRONT
    if (delegate_wanted(argc, argv)) return delegate_exec(argv);
#endif
    if (strcmp(cmd, "check") == 0) return cli_check(argc, argv);
    if (strcmp(cmd, "solve") == 0) return cli_solve(argc, argv);
    if (strcmp(cmd, "run") == 0) return cli_run(argc, argv);
    if (strcmp(cmd, "sweep") == 0) return cli_sweep(argc, argv);
    if (strcmp(cmd, "converge") == 0) return cli_converge(argc, argv);
    if (strcmp(cmd, "optimize") == 0) return cli_optimize(argc, argv);
#ifndef RODD_FRONT
    if (strcmp(cmd, "serve") == 0) return cli_serve(argc, argv);
    if (strcmp(cmd, "probe") == 0) return cli_probe(argc, argv);
#endif
    return cli_unknown_command(cmd);
}
