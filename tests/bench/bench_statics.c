/* Times rodd's static solve of a spec: compile once, then solve from the straight rod R times
 * and print the median, min and max wall time with the solver's iteration count. */
#include "bench_util.h"
#include "rod.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>


int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_statics SPEC [REPEATS]\n");
        return 64;
    }
    const int reps = argc > 2 ? atoi(argv[2]) : 50;
    double t0 = bench_now();
    rod_model *m = bench_load_model(argv[1]);
    double tcompile = bench_now() - t0;
    if (!m) return 2;
    double *t = malloc((size_t)reps * sizeof *t);
    rod_statics_result res = {0};
    for (int r = 0; r < reps; r++) {
        char err[128];
        rod_state *st = rod_state_create(m, err, sizeof err);
        double a = bench_now();
        rod_statics_solve(m, st, 0.0, &res);
        t[r] = bench_now() - a;
        rod_state_free(st);
    }
    bench_median(t, reps);
    printf("statics %s: %d coordinates, %d Gauss points; converged %d in %d iterations (%d load "
           "steps), residual %.2e\n",
           argv[1], rod_model_ndof(m), rod_model_quadrature_points(m), res.converged,
           res.iterations, res.load_steps, res.residual);
    printf("  compile %.3f ms; solve median %.3f ms (min %.3f, max %.3f) over %d runs\n",
           tcompile * 1e3, t[reps / 2] * 1e3, t[0] * 1e3, t[reps - 1] * 1e3, reps);
    free(t);
    rod_model_free(m);
    return 0;
}
