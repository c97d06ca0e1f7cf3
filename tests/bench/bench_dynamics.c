/* Times a dynamics run through the stepping API, as a session would take it: frames at a
 * fixed interval are computed but not printed. Prints the median CPU and wall time over R
 * runs, the real-time factor (simulated s per CPU s) and its inverse, the integrator's counters,
 * and the accuracy the run held: its tip against a tight run of the same spec (Gauss points
 * doubled, 4 sixth-order Magnus steps per station interval, BDF at rtol 1e-9, atol 1e-12 for q
 * and q_dot alike) at
 * every frame time.
 *
 * usage: bench_dynamics SPEC T_END [EVERY] [REPEATS] [--release INPUT] [--period T_REF]
 *                       [--set PATH=VALUE]... [--tight-set PATH=VALUE]...
 * --release sets INPUT to 0 once the dynamics started (a cantilever let go from the static
 * shape under a tip force); --period measures the tip's oscillation period (from its
 * upward mean crossings) and compares it with T_REF and with the tight run's. --no-tight skips
 * the tight run (timings only, for quick paired comparisons); --tight-set adds overrides to the
 * tight run only (e.g. generalized-alpha at a 16 times finer step where BDF would resolve a
 * stiff shear mode for minutes); --time-tight adds a run at the same discretization and tight
 * tolerances, for the time integration's share of the error alone. */
#include "bench_util.h"
#include "rod.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SETS 16

typedef struct {
    const char *spec, *release;
    double T, every, tref;
    int reps, no_tight, time_tight;
    const char *sets[MAX_SETS], *tsets[MAX_SETS];
    int nsets, ntsets;
} bench_args;

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* One run: tips (3 per frame, frame 0 at t = 0) when tips != NULL; 0 or -1. */
static int run_once(const rod_model *m, const bench_args *a, int frames, double *tips, double *cpu,
                    double *wall, double *cpu_start, rod_dynamics_stats *s)
{
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    if (!st) {
        fprintf(stderr, "state: %s\n", err);
        return -1;
    }
    const double c0 = cpu_now(), w0 = bench_now();
    int rc = 0;
    if (rod_dynamics_start(m, st) != ROD_OK) {
        fprintf(stderr, "start: %s\n", rod_state_error(st));
        rc = -1;
        goto out;
    }
    *cpu_start = cpu_now() - c0;
    if (a->release && rod_state_set_input(st, a->release, 0.0) != ROD_OK) {
        fprintf(stderr, "--release %s: %s\n", a->release, rod_state_error(st));
        rc = -1;
        goto out;
    }
    for (int k = 0; k <= frames; k++) {
        if (k && rod_dynamics_advance(m, st, k * a->every) != ROD_OK) {
            fprintf(stderr, "advance: %s\n", rod_state_error(st));
            rc = -1;
            goto out;
        }
        rod_frame f;
        if (rod_frame_compute(m, st, 51, &f) == ROD_OK) {
            const rod_frame *tf = f.nrods ? &f.rods[0] : &f; /* several rods: the first's tip */
            if (tips) memcpy(tips + 3 * k, tf->position + 3 * (tf->n - 1), 3 * sizeof *tips);
            rod_frame_free(&f);
        }
    }
    *cpu = cpu_now() - c0;
    *wall = bench_now() - w0;
    rod_dynamics_get_stats(st, s);
out:
    rod_state_free(st);
    return rc;
}

/* The period of the tip's coordinate that moves most, from its upward mean crossings. */
static double tip_period(const double *tips, int frames, double every, int *ncross)
{
    int best = 0;
    double span[3] = {0};
    for (int c = 0; c < 3; c++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int k = 0; k <= frames; k++) {
            lo = fmin(lo, tips[3 * k + c]);
            hi = fmax(hi, tips[3 * k + c]);
        }
        span[c] = hi - lo;
        if (span[c] > span[best]) best = c;
    }
    double mean = 0;
    for (int k = 0; k <= frames; k++) mean += tips[3 * k + best];
    mean /= frames + 1;
    double first = -1, last = -1;
    int n = 0;
    for (int k = 1; k <= frames; k++) {
        const double x0 = tips[3 * (k - 1) + best] - mean, x1 = tips[3 * k + best] - mean;
        if (x0 < 0 && x1 >= 0) {
            const double tc = every * (k - 1 + x0 / (x0 - x1));
            if (first < 0) first = tc;
            last = tc;
            n++;
        }
    }
    *ncross = n;
    return n > 1 ? (last - first) / (n - 1) : NAN;
}

static rod_model *load_with(const bench_args *a, const char *const *extra, int nextra)
{
    const char *sets[2 * MAX_SETS + 8];
    int n = 0;
    for (int i = 0; i < a->nsets; i++) sets[n++] = a->sets[i];
    for (int i = 0; i < nextra; i++) sets[n++] = extra[i];
    return bench_load_model_with(a->spec, sets, n);
}

/* the largest distance between two tip tracks (3 per frame) */
static double largest_distance(const double *a, const double *b, int frames)
{
    double worst = 0;
    for (int k = 0; k <= frames; k++) {
        const double *p = a + 3 * k, *q = b + 3 * k;
        worst = fmax(worst, sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                                 (p[2] - q[2]) * (p[2] - q[2])));
    }
    return worst;
}

int main(int argc, char **argv)
{
    bench_args a = {0};
    a.every = 0.01;
    a.reps = 5;
    int pos = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--release") && i + 1 < argc)
            a.release = argv[++i];
        else if (!strcmp(argv[i], "--period") && i + 1 < argc)
            a.tref = atof(argv[++i]);
        else if (!strcmp(argv[i], "--no-tight"))
            a.no_tight = 1;
        else if (!strcmp(argv[i], "--time-tight"))
            a.time_tight = 1;
        else if (!strcmp(argv[i], "--tight-set") && i + 1 < argc && a.ntsets < MAX_SETS)
            a.tsets[a.ntsets++] = argv[++i];
        else if (!strcmp(argv[i], "--set") && i + 1 < argc && a.nsets < MAX_SETS)
            a.sets[a.nsets++] = argv[++i];
        else if (pos == 0 && ++pos)
            a.spec = argv[i];
        else if (pos == 1 && ++pos)
            a.T = atof(argv[i]);
        else if (pos == 2 && ++pos)
            a.every = atof(argv[i]);
        else if (pos == 3 && ++pos)
            a.reps = atoi(argv[i]);
        else {
            fprintf(stderr, "bench_dynamics: unexpected argument %s\n", argv[i]);
            return 64;
        }
    }
    if (pos < 2 || !(a.every > 0) || a.reps < 1) {
        fprintf(stderr, "usage: bench_dynamics SPEC T_END [EVERY] [REPEATS] [--release INPUT] "
                        "[--period T_REF] [--set PATH=VALUE]...\n");
        return 64;
    }
    const int frames = (int)floor(a.T / a.every + 1e-9);
    rod_model *m = load_with(&a, NULL, 0);
    if (!m) return 2;
    double *cpu = malloc((size_t)a.reps * sizeof *cpu), *wall = malloc((size_t)a.reps * sizeof *wall);
    double *cpu_start = malloc((size_t)a.reps * sizeof *cpu_start);
    double *tips = malloc((size_t)(frames + 1) * 3 * sizeof *tips);
    double *tight = malloc((size_t)(frames + 1) * 3 * sizeof *tight);
    rod_dynamics_stats s = {0};
    for (int r = 0; r < a.reps; r++)
        if (run_once(m, &a, frames, tips, &cpu[r], &wall[r], &cpu_start[r], &s) != 0) return 1;

    const double cmed = bench_median(cpu, a.reps), wmed = bench_median(wall, a.reps);
    const double smed = bench_median(cpu_start, a.reps);
    printf("dynamics %s: %d coordinates, %d Gauss points, %d order-%d Magnus steps along the rod, to t = %g s "
           "with a 51-point frame every %g s\n",
           a.spec, rod_model_ndof(m), rod_model_quadrature_points(m),
           rod_model_substeps(m) * (rod_model_stations(m) - 1), rod_model_magnus_order(m), a.T, a.every);
    for (int i = 0; i < a.nsets; i++) printf("  --set %s\n", a.sets[i]);
    printf("  CPU median %.4f s (min %.4f, max %.4f; start %.4f), wall median %.4f s, %d runs; "
           "real-time factor %.3g (simulated s per CPU s), %.4f CPU s per simulated s\n",
           cmed, cpu[0], cpu[a.reps - 1], smed, wmed, a.reps, a.T / cmed, cmed / a.T);
    printf("  %ld steps, %ld RHS evaluations + %ld for %ld Jacobians, %ld Newton iterations, %ld "
           "error-test failures\n",
           s.steps, s.rhs_evals, s.rhs_evals_jacobian, s.jac_evals, s.newton_iterations, s.error_test_failures);
    int n1, n2;
    const double T1 = a.tref > 0 ? tip_period(tips, frames, a.every, &n1) : 0;
    if (a.no_tight) {
        if (a.time_tight) printf("  (--time-tight needs the tight run: left out with --no-tight)\n");
        if (a.tref > 0)
            printf("  period %.6f s over %d crossings: %+.4f %% from the reference %.6f s\n", T1, n1,
                   100 * (T1 / a.tref - 1), a.tref);
        goto done;
    }

    /* the tight run of the same spec */
    char pts[64];
    snprintf(pts, sizeof pts, "discretization.points=%d", 2 * rod_model_quadrature_points(m));
    const char *tight_sets[7 + MAX_SETS] = {pts, "discretization.substeps=4", "discretization.magnus_order=6",
                                            "solver.rtol=1e-9", "solver.atol=1e-12", "solver.rate_time_scale=1",
                                            "solver.integrator=bdf"};
    for (int i = 0; i < a.ntsets; i++) tight_sets[7 + i] = a.tsets[i];
    rod_model *mt = load_with(&a, tight_sets, 7 + a.ntsets);
    if (!mt) return 2;
    double tc, tw, tcs;
    rod_dynamics_stats ts;
    if (run_once(mt, &a, frames, tight, &tc, &tw, &tcs, &ts) != 0) return 1;
    double scale = 0;
    const double worst = largest_distance(tips, tight, frames);
    for (int k = 0; k <= frames; k++) {
        const double *q = tight + 3 * k;
        scale = fmax(scale, sqrt((q[0] - tight[0]) * (q[0] - tight[0]) + (q[1] - tight[1]) * (q[1] - tight[1]) +
                                 (q[2] - tight[2]) * (q[2] - tight[2])));
    }

    printf("  accuracy: tip within %.3g mm of the tight run at every frame (tip travel %.1f mm; "
           "tight run %.2f s CPU, %ld steps",
           worst * 1e3, scale * 1e3, tc, ts.steps);
    for (int i = 0; i < a.ntsets; i++) printf(", %s", a.tsets[i]);
    printf(")\n");
    if (a.tref > 0) {
        const double T2 = tip_period(tight, frames, a.every, &n2);
        printf("  period %.6f s over %d crossings: %+.4f %% from the reference %.6f s; the tight run's "
               "%.6f s (%+.4f %%)\n",
               T1, n1, 100 * (T1 / a.tref - 1), a.tref, T2, 100 * (T2 / a.tref - 1));
    }
    rod_model_free(mt);
    if (a.time_tight) {
        /* the time integration's own share: the same discretization at tight tolerances */
        const char *time_sets[4] = {"solver.rtol=1e-9", "solver.atol=1e-12", "solver.rate_time_scale=1",
                                    "solver.integrator=bdf"};
        rod_model *mtt = load_with(&a, time_sets, 4);
        if (!mtt || run_once(mtt, &a, frames, tight, &tc, &tw, &tcs, &ts) != 0) return 1;
        printf("  time integration alone: tip within %.3g mm of the same discretization at rtol 1e-9, atol "
               "1e-12 (%ld steps)\n",
               largest_distance(tips, tight, frames) * 1e3, ts.steps);
        rod_model_free(mtt);
    }
done:
    free(cpu);
    free(wall);
    free(cpu_start);
    free(tips);
    free(tight);
    rod_model_free(m);
    return 0;
}
