/* rodd: one binary for the daemon and the offline commands. */
#include "cli.h"
#include "rod.h"
#include "serve.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rodd COMMAND [options]\n"
            "  rodd check SPEC.json [--set PATH=VALUE]...   validate a spec (exit 2 if invalid)\n"
            "  rodd solve SPEC.json [--set PATH=VALUE]... [--points N]\n"
            "                                            static equilibrium as JSON on stdout\n"
            "  rodd run SPEC.json --until T [--every DT] [--format ndjson|csv|hdf5] [--out FILE]\n"
            "           [--set PATH=VALUE]... [--points N]\n"
            "                                            dynamics, one FRAME per line (NDJSON)\n"
            "  rodd sweep SPEC.json --grid PATH=V1,V2,... [--grid ...] [--until T] [--index I] [--out DIR]\n"
            "  rodd sweep --collect DIR [--out FILE.csv]   parameter grids, locally or one point a task\n"
            "  rodd converge SPEC.json [--until T] [--every DT] [--levels K] [--budget S] [--set ...]\n"
            "                                            error estimate: the spec against refined copies\n"
            "  rodd serve [--config FILE] [--listen ADDR:PORT] [--state-dir DIR] [--example NAME]\n"
            "                                            the daemon: REST, streams, the viewer\n"
            "  rodd probe [--listen ADDR:PORT] [--path /readyz]   health check of a running daemon\n"
            "  rodd --version\n"
            "exit status: 0 ok, 1 failure, 2 bad spec, 3 no convergence, 64 usage\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("rodd %s\n", ROD_VERSION);
        return EXIT_OK;
    }
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "check") == 0) return cli_check(argc, argv);
    if (strcmp(cmd, "solve") == 0) return cli_solve(argc, argv);
    if (strcmp(cmd, "run") == 0) return cli_run(argc, argv);
    if (strcmp(cmd, "sweep") == 0) return cli_sweep(argc, argv);
    if (strcmp(cmd, "converge") == 0) return cli_converge(argc, argv);
    if (strcmp(cmd, "serve") == 0) return cli_serve(argc, argv);
    if (strcmp(cmd, "probe") == 0) return cli_probe(argc, argv);
    fprintf(stderr, "rodd: unknown command \"%s\"\n", cmd);
    usage(stderr);
    return EXIT_USAGE;
}
