/* Times a dynamics run through the stepping API, as a session would take it: frames at a
 * fixed interval are computed but not printed. Prints the median wall time over R runs, the
 * real-time factor (wall / simulated time) and the integrator's counters. */
#include "bench_util.h"
#include "rod.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>


int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_dynamics SPEC T_END [EVERY] [REPEATS]\n");
        return 64;
    }
    const double T = atof(argv[2]), every = argc > 3 ? atof(argv[3]) : 0.01;
    const int reps = argc > 4 ? atoi(argv[4]) : 5;
    rod_model *m = bench_load_model(argv[1]);
    if (!m) return 2;
    double *wall = malloc((size_t)reps * sizeof *wall);
    rod_dynamics_stats s = {0};
    for (int r = 0; r < reps; r++) {
        char err[256];
        rod_state *st = rod_state_create(m, err, sizeof err);
        double a = bench_now();
        if (rod_dynamics_start(m, st) != ROD_OK) {
            fprintf(stderr, "start: %s\n", rod_state_error(st));
            return 1;
        }
        for (int k = 1; k * every <= T + 1e-12; k++) {
            if (rod_dynamics_advance(m, st, k * every) != ROD_OK) {
                fprintf(stderr, "advance: %s\n", rod_state_error(st));
                return 1;
            }
            rod_frame f;
            if (rod_frame_compute(m, st, 51, &f) == ROD_OK) rod_frame_free(&f);
        }
        wall[r] = bench_now() - a;
        rod_dynamics_get_stats(st, &s);
        rod_state_free(st);
    }
    const double med = bench_median(wall, reps);
    printf("dynamics %s: %d coordinates, %d Gauss points, to t = %g s with a 51-point frame every %g s\n",
           argv[1], rod_model_ndof(m), rod_model_quadrature_points(m), T, every);
    printf("  wall median %.3f s (min %.3f, max %.3f, %d runs); real-time factor %.4f\n", med, wall[0],
           wall[reps - 1], reps, med / T);
    printf("  %ld steps, %ld RHS evaluations + %ld for %ld Jacobians, %ld Newton iterations, %ld "
           "error-test failures\n",
           s.steps, s.rhs_evals, s.rhs_evals_jacobian, s.jac_evals, s.newton_iterations, s.error_test_failures);
    free(wall);
    rod_model_free(m);
    return 0;
}
