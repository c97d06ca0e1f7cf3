/* rodd run SPEC --until T --every DT [--format ndjson|csv|hdf5|mcap] [--out FILE]: dynamics from
 * rest (or "initial": "static"), one frame every DT, the first at t = 0, by default one FRAME
 * per line on stdout (NDJSON); a progress bar on stderr when it is a terminal (with the rate in
 * simulated s per wall s and the ETA), and the integrator's counters at the end. SIGINT or SIGTERM stops the run at once (the step in
 * progress is interrupted): the frames so far stand (an HDF5 file is finished), the counters
 * are printed, and the exit status is 128 + the signal's number. */
#include "cli.h"
#include "export.h"
#include "frame_fields.h"
#include "rod.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    double until, every;
    int have_until;
    export_format format;
    const char *out; /* NULL: stdout */
} run_opts;

static int parse_seconds(const char *s, const char *what, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (*end || !isfinite(v) || v <= 0) {
        fprintf(stderr, "rodd: %s must be a positive number of seconds, not \"%s\"\n", what, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int run_extra(int argc, char **argv, int i, void *data)
{
    run_opts *o = data;
    if (strcmp(argv[i], "--until") == 0 && i + 1 < argc) {
        o->have_until = 1;
        return parse_seconds(argv[i + 1], "--until", &o->until) ? -1 : 2;
    }
    if (strcmp(argv[i], "--every") == 0 && i + 1 < argc)
        return parse_seconds(argv[i + 1], "--every", &o->every) ? -1 : 2;
    if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
        if (export_format_parse(argv[i + 1], &o->format) == 0) return 2;
        fprintf(stderr, "rodd: --format must be ndjson, csv, hdf5 or mcap, not \"%s\"\n", argv[i + 1]);
        return -1;
    }
    if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
        o->out = argv[i + 1];
        return 2;
    }
    return 0;
}

static rod_state *volatile running_state;
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
    stop_signal = sig;
    rod_state *st = running_state;
    if (st) rod_state_interrupt(st); /* an atomic store: safe in a handler */
}

/* Says once per run that a contact sank deeper than its obstacle allows (the first frame that
 * shows it): a penalty wall that soft makes the contact point and friction unlike a wall's. */
static void check_penetration(const rod_model *m, const rod_state *st, const rod_frame *f, int *warned)
{
    rod_penetration p;
    if (*warned || !rod_frame_penetration(m, st, f, &p)) return;
    *warned = 1;
    if (isatty(2)) fputc('\n', stderr); /* off the progress bar's line */
    fprintf(stderr, "rodd: warning: penetration at t = %g s: the section at s = %.4g m sinks %.3g m (%.3g of its "
            "radius, more than max_penetration %g) into /environment/obstacles/%d%s%s%s; raise its stiffness\n",
            f->t, p.s, p.depth, p.fraction, p.limit, p.obstacle, p.name ? " (\"" : "", p.name ? p.name : "",
            p.name ? "\")" : "");
}

static int emit(const rod_model *m, const rod_state *st, int points, export_writer *w, int *warned)
{
    rod_frame f;
    if (rod_frame_compute(m, st, points, &f) != ROD_OK) {
        fprintf(stderr, "rodd: out of memory for a frame\n");
        return -1;
    }
    check_penetration(m, st, &f, warned);
    char err[256];
    int rc = export_frame(w, &f, err, sizeof err);
    if (rc) fprintf(stderr, "rodd: %s\n", err);
    rod_frame_free(&f);
    return rc;
}

/* A duration for people: "42 s", "3:07", "1:02:09", "420 h". */
static void duration_text(char *b, size_t n, double s)
{
    if (!(s < 360000)) { /* no lround of a rate near zero's ETA */
        snprintf(b, n, "%.0f h", s / 3600);
        return;
    }
    const long r = lround(s);
    if (r < 60) snprintf(b, n, "%ld s", r);
    else if (r < 3600) snprintf(b, n, "%ld:%02ld", r / 60, r % 60);
    else snprintf(b, n, "%ld:%02ld:%02ld", r / 3600, r / 60 % 60, r % 60);
}

/* The bar, the simulated time, the rate (simulated s per wall s, over the run so far: a stiff
 * stretch slows it, and an ETA from the last frame alone would jump) and the time left at
 * that rate. Padded so that a shorter line overwrites a longer one. */
static void progress(double t, double until, double wall)
{
    const int width = 40;
    int done = (int)(width * t / until);
    if (done > width) done = width;
    const double rate = wall > 0 ? t / wall : 0;
    char eta[32] = "-";
    if (rate > 0) duration_text(eta, sizeof eta, (until - t) / rate);
    fprintf(stderr, "\r[%.*s%*s] t = %.3f / %.3f s, %.1f s wall, %.3g sim s/s, ETA %-8s", done,
            "########################################", width - done, "", t, until, wall, rate, eta);
    fflush(stderr);
}

/* before the spec is loaded: HDF5 and MCAP go to a file or a pipe, never to a terminal */
static int run_check(void *data)
{
    const run_opts *ro = data;
    if ((ro->format == EXPORT_HDF5 || ro->format == EXPORT_MCAP) && !ro->out && isatty(1)) {
        fprintf(stderr, "rodd: %s is binary: give --out FILE or redirect stdout\n",
                ro->format == EXPORT_HDF5 ? "HDF5" : "MCAP");
        return EXIT_USAGE;
    }
    return 0;
}

int cli_run(int argc, char **argv)
{
    run_opts ro = {0, 0, 0, EXPORT_NDJSON, NULL};
    int points, rc;
    rod_model *m = cli_open(argc, argv, run_extra, run_check, &ro, &points, &rc);
    if (!m) return rc;
    if (!ro.have_until) {
        /* the spec may say how long it is meant to run */
        ro.until = rod_model_duration(m);
        if (!(ro.until > 0)) {
            fprintf(stderr, "rodd: run needs --until T (the spec gives no \"duration\")\n");
            rod_model_free(m);
            return EXIT_USAGE;
        }
    }
    if (ro.every <= 0) ro.every = ro.until / 100;
    rod_state *st = cli_new_state(m);
    if (!st) return EXIT_FAILURE_OTHER;
    char err[512];
    rod_frame shape;
    export_writer *w = NULL;
    if (rod_frame_shape(m, &shape) != ROD_OK) {
        snprintf(err, sizeof err, "out of memory");
    } else {
        const export_meta meta = {points, FRAME_F_ALL, rod_model_spec_json(m), &shape};
        w = export_open(ro.format, ro.out ? ro.out : "-", &meta, err, sizeof err);
        rod_frame_free(&shape);
    }
    if (!w) {
        fprintf(stderr, "rodd: %s\n", err);
        rod_state_free(st);
        rod_model_free(m);
        return EXIT_FAILURE_OTHER;
    }
    const int tty = isatty(2);
    const double t0 = cli_now();
    running_state = st;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    int status = EXIT_OK, interrupted = 0, pen_warned = 0;
    rc = rod_dynamics_start(m, st);
    if (rc != ROD_OK) {
        fprintf(stderr, "rodd: cannot start: %s\n", rod_state_error(st));
        status = rc == ROD_ENOCONV ? EXIT_NO_CONVERGENCE : EXIT_FAILURE_OTHER;
    } else if (emit(m, st, points, w, &pen_warned) != 0) {
        status = EXIT_FAILURE_OTHER;
    }
    const long nframes = (long)floor(ro.until / ro.every + 1e-9);
    for (long k = 1; status == EXIT_OK && k <= nframes + 1; k++) {
        double t = k <= nframes ? k * ro.every : ro.until;
        if (k > nframes && t <= rod_state_time(st) + 1e-12 * ro.until) break;
        rc = stop_signal ? ROD_EINTERRUPTED : rod_dynamics_advance(m, st, t);
        if (rc == ROD_EINTERRUPTED) {
            if (tty) fputc('\n', stderr);
            fprintf(stderr, "rodd: interrupted by %s at t = %g s\n", stop_signal == SIGTERM ? "SIGTERM" : "SIGINT",
                    rod_state_time(st));
            status = 128 + (stop_signal ? stop_signal : SIGINT);
            interrupted = 1;
            break;
        }
        if (rc != ROD_OK) {
            if (tty) fputc('\n', stderr);
            fprintf(stderr, "rodd: %s\n", rod_state_error(st));
            status = EXIT_FAILURE_OTHER;
            break;
        }
        if (emit(m, st, points, w, &pen_warned) != 0) status = EXIT_FAILURE_OTHER;
        if (tty) progress(t, ro.until, cli_now() - t0);
    }
    const double wall = cli_now() - t0;
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    running_state = NULL;
    if (tty && !interrupted) fputc('\n', stderr); /* an interrupt already ended the bar's line */
    rod_dynamics_stats s;
    if (rod_dynamics_get_stats(st, &s) == ROD_OK)
        fprintf(stderr, "rodd: t = %g s in %.3f s wall (real-time factor %.3g: simulated s per wall s, > 1 is "
                "faster than real time): %ld steps, %ld RHS evaluations (+%ld for Jacobians), %ld Jacobians, "
                "%ld error-test failures\n",
                rod_state_time(st), wall, rod_state_time(st) / fmax(wall, 1e-9), s.steps, s.rhs_evals,
                s.rhs_evals_jacobian, s.jac_evals, s.error_test_failures);
    if (rod_dynamics_get_stats(st, &s) == ROD_OK && s.reduced_steps > 0)
        fprintf(stderr, "rodd: %ld of the %ld steps were shorter than solver.step (Newton failed at "
                "it; the shortest %.3g s, the last %.3g s)\n", s.reduced_steps, s.steps, s.min_step,
                s.last_step);
    if (export_close(w, NULL, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "rodd: %s\n", err);
        if (status == EXIT_OK) status = EXIT_FAILURE_OTHER;
    }
    rod_state_free(st);
    rod_model_free(m);
    return status;
}
