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
#include "linking.h"
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

/* How far the penalty lets two contact points in at a pair force F (N), in diameters: F over
 * k_sc w_i w_j, the points' weights w = r on the 1 m rod. */
static double penalty_overlap(double F, double k_sc)
{
    const double w = PR;
    return F / (k_sc * w * w) / (2 * PR);
}

/* The largest contact force of a frame's reports (N). */
static double largest_contact_force(const rod_frame *f)
{
    double F = 0;
    for (int c = 0; c < f->ncontacts; c++)
        F = fmax(F, sqrt(f->contact_force[3 * c] * f->contact_force[3 * c] +
                         f->contact_force[3 * c + 1] * f->contact_force[3 * c + 1] +
                         f->contact_force[3 * c + 2] * f->contact_force[3 * c + 2]));
    return F;
}

/* 1 - y(t) for the Kelvin-Voigt creep tau y' + y = S(t) from y(0) = 0 under the pull's ramp
 * S = 3 t^2 - 2 t^3 (t < 1), then 1: how far a uniformly stretched viscoelastic rod still is
 * from its elastic length (RK4 at 1e-4 s, exact to far below what is checked). */
static double kelvin_voigt_lag(double tau, double t_end)
{
    double y = 0;
    const int n = (int)lround(t_end / 1e-4);
    const double h = t_end / n;
    for (int i = 0; i < n; i++) {
        double k[4], t = i * h, yk = y;
        for (int j = 0; j < 4; j++) {
            const double tj = t + (j == 0 ? 0 : j == 3 ? h : h / 2), S = tj < 1 ? tj * tj * (3 - 2 * tj) : 1;
            k[j] = (S - yk) / tau;
            yk = y + (j == 2 ? h : h / 2) * k[j];
        }
        y += h / 6 * (k[0] + 2 * k[1] + 2 * k[2] + k[3]);
    }
    return 1 - y;
}

/* Writhe of the frame's centre line closed along the z axis through its ends, and its
 * linking number Tw + Wr (Calugareanu), in turns. */
static double frame_linking(const rod_frame *f, double *wr)
{
    const double axis[3] = {0, 0, 1};
    int np = 0;
    double *p = linking_closed_centreline(f, axis, 10.0, &np);
    cr_assert_not_null(p);
    *wr = linking_writhe(p, np, 1);
    free(p);
    return linking_frame_twist(f) + *wr;
}

Test(self_contact, fig9_the_twisted_rod_buckles_into_a_loop_that_does_not_pass_through_itself, .timeout = 600)
{
    char *json = tu_read_file("api/examples/plectoneme.json");
    rod_model *m = tu_model(json);
    free(json);
    rod_state *st = tu_started(m);
    const double k_sc = 1e8;
    double gap = INFINITY, Fmax = 0, zmin = INFINITY, t_gap = 0;
    int touching = 0;
    const int frames = 60;
    for (int i = 1; i <= frames; i++) {
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
        Fmax = fmax(Fmax, largest_contact_force(&f));
        rod_frame_free(&f);
    }
    const double sampling = sqrt(1 - 1.0 / 8), penalty = penalty_overlap(Fmax, k_sc), bound = sampling - penalty;
    cr_log_info("Fig. 9 plectoneme: tip down to z = %.3f m, self-contact in %d of %d frames; closest distant "
                "sections %.4f diameters apart (t = %.2f s); allowed down to %.4f (broad phase %.4f less the "
                "penalty's %.4f at the largest pair force %.2f N)",
                zmin, touching, frames, gap / (2 * PR), t_gap, bound, sampling, penalty, Fmax);
    cr_assert_lt(zmin, 0.5, "the twisted rod must buckle and come down");
    cr_assert_gt(touching, frames / 6, "the loop must touch itself");
    cr_assert_gt(gap / (2 * PR), bound, "the rod passes through itself");
    rod_state_free(st);
    rod_model_free(m);
}

/* Seed 002 Fig. 9c, the solenoid (F = 300 N, R = 13): api/examples/solenoid.json. The rod is
 * first pulled by F along its axis (a smooth ramp over 1 s), then its tip is turned 13 times
 * over 13 s. Checked against what holds exactly:
 * - before the twist, the tip stands at z = L (1 + F / (E A)) less the lag of the Kelvin-Voigt
 *   creep toward it, tau y' + y = F(t) / F with tau = 3 eta / E = 0.24 s (4.5e-5 of the
 *   elongation at t = 3 s); the uniform mode's inertia shortens tau by 1 / (tau w1^2) = 0.4 %
 *   (w1 = pi / (2 L) sqrt(E / rho), the first axial mode), about 1e-6 of the elongation there:
 *   the elongation is allowed the integration's rtol, 1e-5;
 * - the tip's rotation is imposed, so the centre line closed along the axis and its material
 *   frame link as many times as the tip has turned: Lk = Tw + Wr = R(t) (Calugareanu-White),
 *   exact for the smooth rod; here the polyline of the frame's points is the only error, so
 *   the test takes Lk at 201 and at 401 points and allows three times their difference
 *   (the polyline's error falls as h^2: 1/3 of the coarse one's) plus 1e-3 turn. The centre
 *   line is closed up the axis from the tip, which holds while no part of the rod crosses the
 *   axis above the tip (the taut solenoid's tip is its highest point; the plectoneme's loop
 *   swings across that line, changing the closed curve's Lk by 2, so it is not checked there);
 * - under load the twisted rod does not form a plectoneme's side loop but coils about its
 *   own axis: the tip comes down below half the rod's length, the writhe exceeds 3 turns and
 *   no section strays further than a diameter from the axis;
 * - no self-intersection, bounded as for the plectoneme above (at k_sc 1e8 N/m per m^2, the
 *   seed's k_sc per 1 cm element pair, the coils squeezed through one another: the linking
 *   number fell by 2 turns at t = 26.5 s; hence k_sc 1e9). */
Test(self_contact, fig9c_the_pulled_rod_twisted_13_times_coils_into_a_solenoid, .timeout = 1200)
{
    char *json = tu_read_file("api/examples/solenoid.json");
    rod_model *m = tu_model(json);
    free(json);
    rod_state *st = tu_started(m);
    const double F = 300, E = 1e6, eta = 8e4, A = M_PI * PR * PR, k_sc = 1e9;
    const double until = getenv("RODD_LONG") ? 20.0 : 17.0;

    cr_assert_eq(rod_dynamics_advance(m, st, 3.0), ROD_OK, "%s", rod_state_error(st));
    rod_frame f0 = tu_frame(m, st, 101);
    const double z_tip = f0.position[3 * (f0.n - 1) + 2], stretch = F / (E * A);
    rod_frame_free(&f0);
    const double lag = kelvin_voigt_lag(3 * eta / E, 3.0), z_kv = 1 + stretch * (1 - lag);
    cr_log_info("Fig. 9c solenoid: before the twist (t = 3 s) the tip is at z = %.9f m; 1 + F/(EA) = %.9f, "
                "less the Kelvin-Voigt creep's lag %.2e of it: %.9f (off by %.2e of the elongation)",
                z_tip, 1 + stretch, lag, z_kv, fabs(z_tip - z_kv) / stretch);
    cr_assert_lt(fabs(z_tip - z_kv), 1e-5 * stretch, "the pulled rod's length");

    double gap = INFINITY, Fmax = 0, t_gap = 0, lk_worst = 0, t_worst = 0;
    for (double t = 3.25; t <= until + 1e-9; t += 0.25) {
        cr_assert_eq(rod_dynamics_advance(m, st, t), ROD_OK, "t = %g: %s", t, rod_state_error(st));
        const double x = fmin(fmax((t - 3) / 13, 0), 1), turns = 13 * x * x * (3 - 2 * x);
        rod_frame fc = tu_frame(m, st, 201), ff = tu_frame(m, st, 401);
        double wr_c, wr_f;
        const double lk_c = frame_linking(&fc, &wr_c), lk_f = frame_linking(&ff, &wr_f);
        const double err = fabs(lk_f - turns), allowed = 3 * fabs(lk_f - lk_c) + 1e-3;
        if (err / allowed > lk_worst) {
            lk_worst = err / allowed;
            t_worst = t;
        }
        cr_assert_lt(err, allowed, "t = %.2f: Lk = Tw + Wr = %.4f (201 points %.4f) but the tip has turned %.4f times",
                     t, lk_f, lk_c, turns);
        const double g = closest_distant(&fc);
        if (g < gap) {
            gap = g;
            t_gap = t;
        }
        Fmax = fmax(Fmax, largest_contact_force(&fc));
        if (t + 0.125 > until) {
            double radial = 0;
            for (int i = 0; i < ff.n; i++) radial = fmax(radial, hypot(ff.position[3 * i], ff.position[3 * i + 1]));
            const double z_end = ff.position[3 * (ff.n - 1) + 2];
            cr_log_info("Fig. 9c solenoid at t = %.2f s: Lk = %.4f (Tw %.4f + Wr %.4f; 201 points %.4f) for %.4f "
                        "turns, tip at z = %.3f m, furthest section %.4f m from the axis (%.2f r)",
                        t, lk_f, lk_f - wr_f, wr_f, lk_c, turns, z_end, radial, radial / PR);
            cr_assert_gt(wr_f, 3.0, "the twist must turn into writhe");
            cr_assert_lt(z_end, 0.5, "the coiled rod must come down");
            cr_assert_lt(radial, 2 * PR, "a solenoid coils about its axis; a section %.4f m from it", radial);
        }
        rod_frame_free(&fc);
        rod_frame_free(&ff);
    }
    const double sampling = sqrt(1 - 1.0 / 8), penalty = penalty_overlap(Fmax, k_sc);
    cr_log_info("Fig. 9c solenoid: Lk error at most %.2f of its allowance (t = %.2f s); closest distant sections "
                "%.4f diameters apart (t = %.2f s), allowed down to %.4f (%.4f less the penalty's %.4f at %.1f N)",
                lk_worst, t_worst, gap / (2 * PR), t_gap, sampling - penalty, sampling, penalty, Fmax);
    cr_assert_gt(gap / (2 * PR), sampling - penalty, "the rod passes through itself");
    rod_state_free(st);
    rod_model_free(m);
}
