/* Statics among obstacles (statics.c solve_walls): the grasp's arm curled by its cable onto
 * the pole, from the straight rod. KINSOL's steps went through the pole and took 61
 * iterations in 3 load steps; the Newton that sees the walls it meets reaches the full load
 * at once. Its answer is an equilibrium (the residual, formed afresh, within the tolerance)
 * and KINSOL's: the tip where the load-stepped KINSOL solve put it (10 digits, as rodd run
 * printed it), and the pole carrying the arm at the same three points of contact. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

Test(statics_walls, the_grasp_curls_onto_the_pole_at_the_full_load_at_once)
{
    char *json = tu_read_file("api/examples/octopus-grasp.json");
    cr_assert_not_null(json);
    rod_model *m = tu_model(json);
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    rod_statics_result res;
    cr_assert_eq(rod_statics_solve(m, st, 0.0, &res), ROD_OK, "%s", rod_state_error(st));
    cr_expect_eq(res.load_steps, 1);
    cr_expect_leq(res.iterations, 25, "%d Newton iterations", res.iterations);

    const int N = rod_statics_nunknowns(m), n = rod_model_ndof(m);
    cr_assert_eq(N, n, "no multipliers");
    double *u = calloc((size_t)N, sizeof *u), *R = calloc((size_t)N, sizeof *R);
    cr_assert_eq(rod_statics_unknowns(m, st, u), N);
    rod_frame f0 = tu_frame(m, st, 2); /* before the residual leaves its own state behind */
    cr_assert_eq(rod_statics_residual(m, st, 0.0, u, R), ROD_OK, "%s", rod_state_error(st));
    double worst = 0;
    for (int i = 0; i < n; i++) worst = fmax(worst, fabs(R[i]));
    cr_expect_leq(res.residual, 1e-9, "scaled residual %.3g", res.residual);
    cr_expect_lt(worst, 1e-12, "residual %.3g N m", worst); /* the cable's moments: 1e-3 N m */

    const double tip[3] = {0.1124752736, 0, 0.2192972337};
    for (int i = 0; i < 3; i++)
        cr_expect(fabs(f0.position[3 + i] - tip[i]) < 2e-9, "tip[%d] %.10f, KINSOL's %.10f", i,
                  f0.position[3 + i], tip[i]);
    cr_expect_eq(f0.ncontacts, 3, "%d contacts", f0.ncontacts);
    cr_log_info("statics_walls: %d iterations, scaled residual %.2e, residual %.2e N m, tip off KINSOL's by "
                "(%.1e, %.1e, %.1e) m", res.iterations, res.residual, worst, f0.position[3] - tip[0],
                f0.position[4] - tip[1], f0.position[5] - tip[2]);
    rod_frame_free(&f0);
    free(u);
    free(R);
    free(json);
    rod_state_free(st);
    rod_model_free(m);
}
