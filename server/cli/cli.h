/* The rodd command line: one function per subcommand, each returning the exit status. */
#ifndef RODD_CLI_H
#define RODD_CLI_H

#include <stdio.h>

enum {
    EXIT_OK = 0,
    EXIT_FAILURE_OTHER = 1, /* I/O, memory, solver failure */
    EXIT_BAD_SPEC = 2,
    EXIT_NO_CONVERGENCE = 3,
    EXIT_USAGE = 64,
};

/* Options every subcommand that reads a spec shares. */
typedef struct {
    const char *spec_path;
    const char **overrides; /* --set PATH=VALUE, in order */
    int n_overrides;
    int points;             /* --points N, output points base to tip */
} cli_common;

/* Parses argv[first..] into common options; unknown options are reported. Returns 0, or
 * EXIT_USAGE (EXIT_FAILURE_OTHER out of memory) with o freed. extra(arg) may claim extra
 * options: it returns how many argv entries it consumed (0 if not its option). */
int cli_parse_common(int argc, char **argv, int first, cli_common *o,
                     int (*extra)(int argc, char **argv, int i, void *data), void *data);
void cli_free_common(cli_common *o);
/* Loads o's spec with its overrides; on failure prints every issue as "SPEC: PATH: MESSAGE"
 * on stderr and returns NULL. */
struct rod_model;
struct rod_model *cli_load_model(const cli_common *o);
/* The prologue of a command that loads its spec: the common options from argv[2..] (extra
 * claims the command's own into data, check(data) may then refuse them with an exit status),
 * the spec loaded with its overrides, the options freed. The model (the caller frees it) and
 * *points; NULL with *status the exit status (EXIT_USAGE, EXIT_BAD_SPEC, ...). */
struct rod_model *cli_open(int argc, char **argv, int (*extra)(int argc, char **argv, int i, void *data),
                           int (*check)(void *data), void *data, int *points, int *status);
/* 1 for a model of several rods (issue 29), which rodd converge does not take yet (its levels
 * refine the top-level strains and warm-start one rod's coefficients): the message is printed
 * here. */
int cli_several_rods(const struct rod_model *m, const char *command);
/* A fresh state for m; on failure prints why, frees m and returns NULL. */
struct rod_state;
struct rod_state *cli_new_state(struct rod_model *m);
/* Monotonic seconds, for the wall times the commands report. */
double cli_now(void);

/* rodd help [COMMAND]; the overview of every command on f. */
int cli_help(const char *command);
void cli_usage(FILE *f);
/* Refuses an unknown command with the nearest known one; returns EXIT_USAGE. */
int cli_unknown_command(const char *name);
/* Before argv[1]'s own parser runs: prints its help for --help or -h, refuses an unknown option
 * naming the nearest known one. *handled is 1 when the command should not run; the return
 * value is then its exit status. */
int cli_check_options(int argc, char **argv, int *handled);

int cli_check(int argc, char **argv);
int cli_solve(int argc, char **argv);
int cli_run(int argc, char **argv);
int cli_sweep(int argc, char **argv);
int cli_converge(int argc, char **argv);
int cli_optimize(int argc, char **argv);

#endif
