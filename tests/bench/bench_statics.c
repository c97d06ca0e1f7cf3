/* Times rodd's static solve of a spec: compile once, then solve from the straight rod R times
 * and print the median CPU and wall time with the solver's counters, and the accuracy held:
 * the tip against a tight solve of the same spec (Gauss points doubled, 4 sixth-order Magnus
 * steps per station interval, tolerance 1e-13, plus any --tight-set overrides, e.g. a higher strain
 * degree for the converged elastica).
 *
 * usage: bench_statics SPEC [REPEATS] [--tight-set PATH=VALUE]... */
#include "bench_util.h"
#include "rod.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SETS 8

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Solves from the straight rod; the tip in tip[3]. */
static int solve_tip(const rod_model *m, double tip[3], double *cpu, double *wall, rod_statics_result *res)
{
    char err[128];
    rod_state *st = rod_state_create(m, err, sizeof err);
    if (!st) return -1;
    const double c0 = cpu_now(), w0 = bench_now();
    int rc = rod_statics_solve(m, st, 0.0, res);
    *cpu = cpu_now() - c0;
    *wall = bench_now() - w0;
    rod_frame f;
    if (rc == ROD_OK && rod_frame_compute(m, st, 2, &f) == ROD_OK) {
        memcpy(tip, f.position + 3, 3 * sizeof *tip);
        rod_frame_free(&f);
    } else {
        fprintf(stderr, "solve: %s\n", rod_state_error(st));
        rc = -1;
    }
    rod_state_free(st);
    return rc;
}

int main(int argc, char **argv)
{
    const char *spec = NULL, *tsets[MAX_SETS + 4];
    int reps = 50, nt = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--tight-set") && i + 1 < argc && nt < MAX_SETS)
            tsets[nt++] = argv[++i];
        else if (!spec)
            spec = argv[i];
        else
            reps = atoi(argv[i]);
    }
    if (!spec || reps < 1) {
        fprintf(stderr, "usage: bench_statics SPEC [REPEATS] [--tight-set PATH=VALUE]...\n");
        return 64;
    }
    double t0 = bench_now();
    rod_model *m = bench_load_model(spec);
    double tcompile = bench_now() - t0;
    if (!m) return 2;
    double *cpu = malloc((size_t)reps * sizeof *cpu), *wall = malloc((size_t)reps * sizeof *wall);
    rod_statics_result res = {0};
    double tip[3] = {0}, tight[3] = {0};
    for (int r = 0; r < reps; r++)
        if (solve_tip(m, tip, &cpu[r], &wall[r], &res) != 0) return 1;
    const double cmed = bench_median(cpu, reps), wmed = bench_median(wall, reps);
    printf("statics %s: %d coordinates, %d Gauss points, %d order-%d Magnus steps along the rod; converged "
           "%d in %d iterations (%d load steps), residual %.2e\n",
           spec, rod_model_ndof(m), rod_model_quadrature_points(m),
           rod_model_substeps(m) * (rod_model_stations(m) - 1), rod_model_magnus_order(m), res.converged,
           res.iterations, res.load_steps, res.residual);
    printf("  compile %.3f ms; solve CPU median %.3f ms (min %.3f, max %.3f), wall median %.3f ms, %d runs\n",
           tcompile * 1e3, cmed * 1e3, cpu[0] * 1e3, cpu[reps - 1] * 1e3, wmed * 1e3, reps);

    char pts[64];
    snprintf(pts, sizeof pts, "discretization.points=%d", 2 * rod_model_quadrature_points(m));
    tsets[nt++] = pts;
    tsets[nt++] = "discretization.substeps=4";
    tsets[nt++] = "discretization.magnus_order=6";
    tsets[nt++] = "solver.tolerance=1e-13";
    rod_issues iss;
    rod_issues_init(&iss);
    rod_model *mt = rod_model_load(spec, tsets, nt, &iss);
    rod_issues_free(&iss);
    double c, w;
    rod_statics_result rt;
    if (mt && solve_tip(mt, tight, &c, &w, &rt) == 0) {
        const double d = sqrt((tip[0] - tight[0]) * (tip[0] - tight[0]) + (tip[1] - tight[1]) * (tip[1] - tight[1]) +
                              (tip[2] - tight[2]) * (tip[2] - tight[2]));
        printf("  accuracy: tip %.4g mm from the tight solve", d * 1e3);
        for (int i = 0; i < nt - 4; i++) printf(" (%s)", tsets[i]);
        printf("\n");
    } else {
        printf("  accuracy: the tight solve failed\n");
    }
    rod_model_free(mt);
    free(cpu);
    free(wall);
    rod_model_free(m);
    return 0;
}
