/* rodd help, rodd COMMAND --help, and the check every command's options pass before the
 * command parses them: an unknown command or option is refused with the nearest known one
 * ("did you mean --until?"), so a typo never silently runs something else. The one table
 * below is the list of commands and options; the commands' own parsers still check values. */
#include "cli.h"
#include "rod.h"
#include "rod_text.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const char *name;
    int takes_value; /* the next argument (or "--name=VALUE") is this option's value */
} cli_option;

typedef struct {
    const char *name;
    const char *summary;     /* one line for `rodd help` */
    const char *help;        /* what `rodd NAME --help` prints */
    const cli_option *options; /* terminated by a NULL name */
} cli_command;

#define SET_HELP                                                                                         \
    "  --set PATH=VALUE  change one value of the spec before it is checked (repeatable). PATH is\n"      \
    "                    dotted keys and array indices (rod.youngs_modulus, actuators.0.tension);\n"      \
    "                    VALUE is JSON when it parses as JSON (3000, [0.8, 0], {\"base\": 0.02},\n"    \
    "                    true, \"text\"), else taken as a string (--set actuators.0.tension=0.1*t).\n"

#define EXIT_HELP "exit status: 0 ok, 1 failure, 2 bad spec, 3 no convergence, 64 usage\n"

static const cli_option spec_options[] = {{"--set", 1}, {"--points", 1}, {NULL, 0}};
static const cli_option run_options[] = {{"--set", 1},    {"--points", 1}, {"--until", 1},
                                         {"--every", 1},  {"--format", 1}, {"--out", 1}, {NULL, 0}};
static const cli_option sweep_options[] = {{"--grid", 1}, {"--set", 1},   {"--until", 1}, {"--points", 1},
                                           {"--out", 1},  {"--index", 1}, {"--list", 0},  {"--jobs", 1},
                                           {"--collect", 1}, {NULL, 0}};
static const cli_option converge_options[] = {{"--set", 1},    {"--points", 1}, {"--until", 1}, {"--every", 1},
                                              {"--levels", 1}, {"--budget", 1}, {NULL, 0}};
static const cli_option optimize_options[] = {{"--vary", 1},   {"--minimize", 1},    {"--maximize", 1}, {"--until", 1},
                                              {"--from", 1},   {"--method", 1},      {"--evaluations", 1},
                                              {"--seed", 1},   {"--restarts", 1},    {"--jobs", 1},
                                              {"--out", 1},    {"--set", 1},         {"--daemon", 1},
                                              {"--open", 1},   {"--fd-step", 1},     {"--gradient", 1},
                                              {NULL, 0}};
static const cli_option serve_options[] = {{"--config", 1},  {"--listen", 1},   {"--ws-port", 1},
                                           {"--state-dir", 1}, {"--web-root", 1}, {"--example", 1},
                                           {NULL, 0}};
static const cli_option probe_options[] = {{"--listen", 1}, {"--config", 1}, {"--path", 1}, {NULL, 0}};
static const cli_option no_options[] = {{NULL, 0}};

static const cli_command commands[] = {
    {"check", "validate a spec: its sizes as JSON on stdout, or every problem and exit 2",
     "usage: rodd check SPEC.json [--set PATH=VALUE]...\n"
     "Validates a spec. On success prints {\"valid\": true, \"coordinates\", \"q_xi\", \"q_rho\",\n"
     "\"quadrature_points\", \"inputs\"} on stdout; otherwise prints every problem on stderr as\n"
     "SPEC: /json/pointer: message (unknown keys name the nearest known one) and exits 2.\n"
     "SPEC.json may be /dev/stdin.\n" SET_HELP "  --points N        accepted, as for solve\n" EXIT_HELP,
     spec_options},
    {"solve", "static equilibrium (t = 0 loads and actuation) as JSON on stdout",
     "usage: rodd solve SPEC.json [--set PATH=VALUE]... [--points N]\n"
     "Solves the statics at t = 0 and prints {\"converged\", \"iterations\", \"load_steps\", \"residual\",\n"
     "\"q\", \"frame\"} on stdout; iterations and wall time go to stderr.\n" SET_HELP
     "  --points N        points of the output frame, base to tip (default 51, 2..100000)\n" EXIT_HELP,
     spec_options},
    {"run", "dynamics from rest (or the static start): one frame per line (NDJSON)",
     "usage: rodd run SPEC.json [--until T] [--every DT] [--format ndjson|csv|hdf5|mcap] [--out FILE]\n"
     "                [--set PATH=VALUE]... [--points N]\n"
     "Integrates the dynamics to simulated time T (seconds) and writes a frame at t = 0, then\n"
     "every DT (default T/100): one FRAME per line (NDJSON) on stdout by default, or CSV, HDF5\n"
     "or MCAP (README.md, \"Exports\"). stderr gets a progress bar when\n"
     "it is a terminal and, at the end, the integrator's counters and the real-time factor\n"
     "(simulated seconds per wall second: above 1 is faster than real time). Ctrl-C or SIGTERM\n"
     "stops at once; the frames written stand and the exit status is 128 + the signal.\n"
     "  --until T         simulated seconds to run (default: the spec's \"duration\"; one is needed)\n"
     "  --every DT        simulated seconds between frames\n"
     "  --format F        ndjson (default), csv or hdf5 (hdf5 needs --out)\n"
     "  --out FILE        write the frames to FILE instead of stdout\n" SET_HELP
     "  --points N        points per frame, base to tip (default 51)\n" EXIT_HELP,
     run_options},
    {"sweep", "a parameter grid: every point on all cores, or one point a cluster task",
     "usage: rodd sweep SPEC.json --grid PATH=V1,V2,... [--grid ...] [--set PATH=VALUE]...\n"
     "                  [--until T] [--points N] [--out DIR] [--index I | --list] [--jobs N]\n"
     "       rodd sweep --collect DIR [--out FILE.csv]\n"
     "Runs the spec at every combination of the grids' values (statics, or dynamics to --until),\n"
     "each point written to DIR/point-NNNNN.json. A PATH the spec cannot hold (an unknown key)\n"
     "is refused before any point runs. Several rods: tip_x.. are the first rod's.\n"
     "  --grid PATH=V1,V2 one axis of the grid; each value as --set takes it (repeatable)\n" SET_HELP
     "  --until T         run dynamics to T at each point instead of statics\n"
     "  --points N        points of each point's frame\n"
     "  --out DIR         where the points go (with --collect: the CSV file, default stdout)\n"
     "  --index I         run point I alone (a Slurm array task or a Kubernetes Indexed Job)\n"
     "  --list            print the grid's points as JSON lines and run nothing\n"
     "  --jobs N          threads (default: every core)\n"
     "  --collect DIR     gather DIR's points into one CSV\n" EXIT_HELP,
     sweep_options},
    {"converge", "an error estimate: the spec against refined copies of itself",
     "usage: rodd converge SPEC.json [--until T] [--every DT] [--levels K] [--budget S]\n"
     "                     [--set PATH=VALUE]... [--points N]\n"
     "Runs the spec as given and refined copies of it (every strain's degree d -> 2d + 1, the\n"
     "inflation's pieces and the Gauss points doubled, CVODE's tolerances / 10), compares them\n"
     "at every output time and point and prints one JSON object: tip_error_estimate and\n"
     "shape_error_estimate (m), worst_time, each level's discretization and wall time\n"
     "(README.md, \"Error estimates\").\n"
     "  --until T         dynamics to T (s); without it, statics\n"
     "  --every DT        simulated seconds between compared frames\n"
     "  --levels K        refinements (default 2)\n"
     "  --budget S        stop refining when the next level's predicted wall time passes S (default 600)\n"
     SET_HELP "  --points N        output points compared, base to tip\n" EXIT_HELP,
     converge_options},
    {"optimize", "an inverse problem: the parameters that minimize or maximize an expression of the run",
     "usage: rodd optimize SPEC.json --vary PATH=LO:HI [--vary ...] (--minimize EXPR | --maximize EXPR)\n"
     "                     [--until T] [--from T0] [--method M] [--evaluations N] [--seed N]\n"
     "                     [--restarts N] [--jobs J] [--daemon URL]... [--open URL]\n"
     "                     [--gradient implicit|fd] [--fd-step H] [--out DIR] [--set PATH=VALUE]...\n"
     "Each evaluation runs the spec with the varied values set (statics, or dynamics to --until) and\n"
     "reads EXPR (muparser, as profiles) over: tip_x tip_y tip_z, com_x com_y com_z (final frame;\n"
     "com is the area-weighted centroid), com_vx com_vy com_vz (centroid's mean velocity from T0\n"
     "to the end; dynamics only), energy_elastic, energy_kinetic, volume_change, effort (the\n"
     "actuators' squared values, each averaged over X = 0..1, integrated over the run on 50\n"
     "steps; in statics their sum), and the parameters as p0, p1, ... or by PATH with every '.'\n"
     "(any character but letters, digits, '_') as '_'. A model of several rods: tip_* and com_*\n"
     "are the first rod's, and each rod's are ROD.tip_x .. ROD.com_vz (ROD its name, with '_'\n"
     "as above). Prints one JSON object: best (PATH -> value), objective, evaluations, failed,\n"
     "converged, reason, method, gradient (lbfgs, slsqp, mma), connections (--daemon), wall_s.\n"
     "A failed evaluation is the worst value, reported on stderr and in the CSV.\n"
     "  --vary PATH=LO:HI a --set PATH varied in [LO, HI] (repeatable); A,B=LO:HI ties paths to one value\n"
     "  --minimize EXPR, --maximize EXPR  the objective\n"
     "  --until T         dynamics to T (s); without it, statics\n"
     "  --from T0         com_v* average from T0 (default 0)\n"
     "  --method M        cmaes (default: written here, bounds by reflection, sigma0 = 0.3 of the box),\n"
     "                    or NLopt's nelder-mead, sbplx, bobyqa, cobyla, praxis, lbfgs, slsqp, mma\n"
     "                    (lbfgs, slsqp, mma use gradients: see --gradient)\n"
     "  --evaluations N   budget of runs (default 200)\n"
     "  --seed N          the random seed of CMA-ES and NLopt's praxis (default 1)\n"
     "  --restarts N      CMA-ES restarts with doubled population (IPOP; default 0)\n"
     "  --jobs J          evaluations of a generation on J threads (default 1); with --daemon, J in\n"
     "                    flight on each daemon\n"
     "  --daemon URL      evaluate on the rodd daemon at URL (repeatable: a generation spread over\n"
     "                    them): statics by POST /v1/solve, dynamics as a session; RODD_TOKEN is\n"
     "                    the bearer token; /readyz is checked before the first evaluation; each\n"
     "                    thread keeps one connection to its daemon alive (output's connections)\n"
     "  --open URL        create the best as a session on the daemon at URL (output's \"session\")\n"
     "  --gradient G      lbfgs, slsqp, mma: how the gradient is had. implicit (the default in\n"
     "                    statics without --daemon): one static solve a gradient, its derivative by\n"
     "                    the implicit-function theorem, du/dp = -(dR/du)^-1 dR/dp from the\n"
     "                    equilibrium's tangent (dR/dp a difference of residuals at the solution, no\n"
     "                    more solves); an evaluation is one run. fd (the default in dynamics and\n"
     "                    with --daemon): central finite differences of whole runs, 2n+1 runs each\n"
     "  --fd-step H       --gradient fd: the central differences' step, a fraction of each\n"
     "                    range (default 1e-6)\n"
     "  --out DIR         evaluations.csv (every run), generations.csv, state.json, objective.svg,\n"
     "                    best.json (the spec at the best parameters); the same command again\n"
     "                    with the same DIR resumes: logged runs replay\n" SET_HELP EXIT_HELP,
     optimize_options},
    {"serve", "the daemon: sessions over REST, frames over WebSocket, the viewer",
     "usage: rodd serve [--config FILE] [--listen ADDR:PORT] [--ws-port PORT] [--state-dir DIR]\n"
     "                  [--web-root DIR] [--example NAME]\n"
     "Runs the daemon until SIGINT or SIGTERM. Every setting can also come from a JSON config\n"
     "file or a RODD_* environment variable (README.md lists them); the command line wins.\n"
     "Without tokens (RODD_TOKENS or RODD_TOKENS_FILE) it listens on loopback only.\n"
     "  --config FILE     a JSON config file\n"
     "  --listen ADDR:PORT  REST, the viewer and the streams (default 127.0.0.1:8080)\n"
     "  --ws-port PORT    also serve streams on a port of their own (default: none)\n"
     "  --state-dir DIR   where sessions are kept across restarts\n"
     "  --web-root DIR    the built viewer to serve at /\n"
     "  --example NAME    start that example running, unless sessions were restored\n"
     "The shipped examples (GET /v1/examples, --example) and the viewer come from examples_dir\n"
     "and web_root (RODD_EXAMPLES_DIR, RODD_WEB_ROOT) when set; otherwise from beside this\n"
     "binary, whatever the working directory: BIN/../share/rodd/examples and\n"
     "BIN/../share/rodd/web (make install PREFIX=P puts rodd in P/bin and them in\n"
     "P/share/rodd), else BIN/../api/examples and BIN/../web/dist (a checkout's build/rodd).\n"
     "The log's \"data\" lines say which it found.\n",
     serve_options},
    {"probe", "health check of a running daemon: exit 0 when it answers 200",
     "usage: rodd probe [--listen ADDR:PORT] [--config FILE] [--path /readyz]\n"
     "GETs PATH (default /readyz) from the daemon at the configured address; exit 0 on 200,\n"
     "1 otherwise. The container's health check.\n"
     "  --listen ADDR:PORT  the daemon's address (default: as rodd serve would listen)\n"
     "  --config FILE     read the address from this config file\n"
     "  --path PATH       the path to get (/healthz: alive; /readyz: takes new sessions)\n",
     probe_options},
    {"help", "this list, or one command's help: rodd help COMMAND",
     "usage: rodd help [COMMAND]\n", no_options},
    {"version", "the version (also rodd --version)", "usage: rodd version | rodd --version\n", no_options},
};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

static const cli_command *find_command(const char *name)
{
    for (int i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
    return NULL;
}

void cli_usage(FILE *f)
{
    fprintf(f, "rodd %s: soft robotic rods, simulated (extended Cosserat rod, GVS)\n"
               "usage: rodd COMMAND [options]   (rodd COMMAND --help for one command)\n\n",
            ROD_VERSION);
    for (int i = 0; i < NCOMMANDS; i++) fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fputs("\n" EXIT_HELP, f);
}

int cli_help(const char *name)
{
    if (!name) {
        cli_usage(stdout);
        return EXIT_OK;
    }
    const cli_command *c = find_command(name);
    if (!c) return cli_unknown_command(name);
    fputs(c->help, stdout);
    return EXIT_OK;
}

int cli_unknown_command(const char *name)
{
    const char *names[NCOMMANDS + 1];
    for (int i = 0; i < NCOMMANDS; i++) names[i] = commands[i].name;
    names[NCOMMANDS] = NULL;
    const char *near = rod_suggest(name, names);
    if (near)
        fprintf(stderr, "rodd: unknown command \"%s\" (did you mean \"%s\"?); rodd help lists them\n", name, near);
    else
        fprintf(stderr, "rodd: unknown command \"%s\"; rodd help lists them\n", name);
    return EXIT_USAGE;
}

int cli_check_options(int argc, char **argv, int *handled)
{
    *handled = 0;
    const cli_command *c = find_command(argv[1]);
    if (!c) return cli_unknown_command(argv[1]);
    const char *names[16];
    int n = 0;
    for (const cli_option *o = c->options; o->name && n < 15; o++) names[n++] = o->name;
    names[n] = NULL;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            *handled = 1;
            fputs(c->help, stdout);
            return EXIT_OK;
        }
        if (a[0] != '-' || !a[1]) continue; /* a positional argument, or - for stdin */
        char opt[64];
        size_t len = strcspn(a, "=");
        snprintf(opt, sizeof opt, "%.*s", (int)(len < sizeof opt ? len : sizeof opt - 1), a);
        const cli_option *o = c->options;
        while (o->name && strcmp(o->name, opt) != 0) o++;
        if (!o->name) {
            const char *near = rod_suggest(opt, names);
            if (near)
                fprintf(stderr, "rodd %s: unknown option %s (did you mean %s?); see rodd %s --help\n", c->name, opt,
                        near, c->name);
            else
                fprintf(stderr, "rodd %s: unknown option %s; see rodd %s --help\n", c->name, opt, c->name);
            *handled = 1;
            return EXIT_USAGE;
        }
        if (o->takes_value && !a[len]) i++; /* its value may itself start with - */
    }
    return EXIT_OK;
}
