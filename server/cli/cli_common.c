#include "cli.h"
#include "rod.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the parse of cli_parse_common, leaving o to the caller to free whatever it returns */
static int parse(int argc, char **argv, int first, cli_common *o,
                 int (*extra)(int argc, char **argv, int i, void *data), void *data)
{
    memset(o, 0, sizeof *o);
    o->points = ROD_FRAME_DEFAULT_POINTS;
    o->overrides = calloc((size_t)argc, sizeof *o->overrides);
    if (!o->overrides) return EXIT_FAILURE_OTHER;
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--set") == 0 && i + 1 < argc) {
            o->overrides[o->n_overrides++] = argv[++i];
        } else if (strncmp(a, "--set=", 6) == 0) {
            o->overrides[o->n_overrides++] = a + 6;
        } else if (strcmp(a, "--points") == 0 && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 2 || v > 100000) {
                fprintf(stderr, "rodd: --points must be an integer in [2, 100000]\n");
                return EXIT_USAGE;
            }
            o->points = (int)v;
        } else if (extra && a[0] == '-' && a[1]) {
            int used = extra(argc, argv, i, data);
            if (used < 0) return EXIT_USAGE;
            if (used == 0) {
                fprintf(stderr, "rodd: unknown option %s\n", a);
                return EXIT_USAGE;
            }
            i += used - 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "rodd: unknown option %s\n", a);
            return EXIT_USAGE;
        } else if (!o->spec_path) {
            o->spec_path = a;
        } else {
            fprintf(stderr, "rodd: unexpected argument %s\n", a);
            return EXIT_USAGE;
        }
    }
    if (!o->spec_path) {
        fprintf(stderr, "rodd: missing SPEC.json\n");
        return EXIT_USAGE;
    }
    return 0;
}

int cli_parse_common(int argc, char **argv, int first, cli_common *o,
                     int (*extra)(int argc, char **argv, int i, void *data), void *data)
{
    const int rc = parse(argc, argv, first, o, extra, data);
    if (rc) cli_free_common(o);
    return rc;
}

void cli_free_common(cli_common *o)
{
    free(o->overrides);
    o->overrides = NULL;
}

rod_model *cli_load_model(const cli_common *o)
{
    rod_issues iss;
    rod_issues_init(&iss);
    rod_model *m = rod_model_load(o->spec_path, o->overrides, o->n_overrides, &iss);
    for (int i = 0; !m && i < iss.count; i++)
        fprintf(stderr, "%s: %s%s%s\n", o->spec_path, iss.items[i].path, iss.items[i].path[0] ? ": " : "",
                iss.items[i].message);
    rod_issues_free(&iss);
    if (m) { /* valid but implausible: said on stderr, stdout keeps the result alone */
        rod_issues_init(&iss);
        rod_model_warnings(m, &iss);
        for (int i = 0; i < iss.count; i++)
            fprintf(stderr, "%s: warning: %s: %s\n", o->spec_path, iss.items[i].path, iss.items[i].message);
        rod_issues_free(&iss);
    }
    return m;
}

rod_state *cli_new_state(rod_model *m)
{
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    if (!st) {
        fprintf(stderr, "rodd: %s\n", err);
        rod_model_free(m);
    }
    return st;
}

rod_model *cli_open(int argc, char **argv, int (*extra)(int argc, char **argv, int i, void *data),
                    int (*check)(void *data), void *data, int *points, int *status)
{
    cli_common o;
    *status = cli_parse_common(argc, argv, 2, &o, extra, data);
    if (*status) return NULL;
    if (check && (*status = check(data)) != 0) {
        cli_free_common(&o);
        return NULL;
    }
    rod_model *m = cli_load_model(&o);
    *points = o.points;
    cli_free_common(&o);
    *status = m ? EXIT_OK : EXIT_BAD_SPEC;
    return m;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int cli_several_rods(const rod_model *m, const char *command)
{
    rod_frame f;
    if (rod_frame_shape(m, &f) != ROD_OK) return 0;
    const int several = f.nrods > 0;
    rod_frame_free(&f);
    if (several)
        fprintf(stderr, "rodd %s: a model of several rods is not supported yet: it refines one rod's strains (rodd "
                        "solve, run, sweep and optimize take several rods)\n", command);
    return several;
}
