/* Seed 002 Fig. 9's criterion on its plectoneme (F = 0, R = 4): a soft rod clamped at its base
 * whose tip is turned four times about the axis, held in x and y and free along it, buckles
 * into a loop that touches itself, and "no self-intersection": distant sections never come
 * closer than their two radii less a stated tolerance, here what the model can let in:
 * - the self-contact broad phase compares contact points spaced h = r (model.c), so two
 *   tubes crossing between those points are seen once the points are within 2 r, when the
 *   centre lines may be as close as 2 r sqrt(1 - h^2 / (8 r^2)) = 0.935 (2 r);
 * - the penalty lets them in by F / (k_sc w_i w_j) for a pair's force F, read from the run's
 *   own contact reports (under 1 % of the diameter at k_sc = 1e8 N/m per m^2).
 * The run is api/examples/plectoneme.json: the seed's settings (L 1 m, r 2.5 cm, 1 kg, E 1e6,
 * G = 2E/3) with the twist over 10 s instead of 75 and 5 s of relaxation instead of 50, and a
 * Kelvin-Voigt viscosity in place of the seed's drag gamma = 2. The distances are taken
 * between the frame's 101 points every 0.25 s (finer than the contact points), excluding
 * neighbours closer than 4 r along the rod. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define PR 0.025

static double closest_distant(const rod_frame *f)
{
    double best = INFINITY;
    for (int i = 0; i < f->n; i++)
        for (int j = i + 1; j < f->n; j++) {
            if (f->s[j] - f->s[i] <= 4 * PR) continue;
            double d2 = 0;
            for (int a = 0; a < 3; a++) {
                const double d = f->position[3 * i + a] - f->position[3 * j + a];
                d2 += d * d;
            }
            best = fmin(best, sqrt(d2));
        }
    return best;
}

Test(self_contact, fig9_the_twisted_rod_buckles_into_a_loop_that_does_not_pass_through_itself, .timeout = 600)
{
    char *json = tu_read_file("api/examples/plectoneme.json");
    rod_model *m = tu_model(json);
    free(json);
    rod_state *st = tu_started(m);
    const double k_sc = 1e8, w = 1.0 / 40; /* contact points every r on the 1 m rod */
    double gap = INFINITY, Fmax = 0, zmin = INFINITY, t_gap = 0;
    int touching = 0;
    for (int i = 1; i <= 60; i++) {
        const double t = 0.25 * i;
        cr_assert_eq(rod_dynamics_advance(m, st, t), ROD_OK, "t = %g: %s", t, rod_state_error(st));
        rod_frame f = tu_frame(m, st, 101);
        const double g = closest_distant(&f);
        if (g < gap) {
            gap = g;
            t_gap = t;
        }
        zmin = fmin(zmin, f.position[3 * (f.n - 1) + 2]);
        touching += f.ncontacts > 0;
        for (int c = 0; c < f.ncontacts; c++)
            Fmax = fmax(Fmax, sqrt(f.contact_force[3 * c] * f.contact_force[3 * c] +
                                   f.contact_force[3 * c + 1] * f.contact_force[3 * c + 1] +
                                   f.contact_force[3 * c + 2] * f.contact_force[3 * c + 2]));
        rod_frame_free(&f);
    }
    const double sampling = sqrt(1 - 1.0 / 8), penalty = Fmax / (k_sc * w * w) / (2 * PR);
    const double bound = sampling - penalty;
    cr_log_info("Fig. 9 plectoneme: tip down to z = %.3f m, self-contact in %d of 60 frames; closest distant "
                "sections %.4f diameters apart (t = %.2f s); allowed down to %.4f (broad phase %.4f less the "
                "penalty's %.4f at the largest pair force %.2f N)",
                zmin, touching, gap / (2 * PR), t_gap, bound, sampling, penalty, Fmax);
    cr_assert_lt(zmin, 0.5, "the twisted rod must buckle and come down");
    cr_assert_gt(touching, 10, "the loop must touch itself");
    cr_assert_gt(gap / (2 * PR), bound, "the rod passes through itself");
    rod_state_free(st);
    rod_model_free(m);
}
