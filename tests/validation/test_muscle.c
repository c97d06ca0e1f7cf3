/* Muscle couples (seed 002 Figs. 6 and 10) on a clamped rod at rest: the muscle is an
 * internal moment M(s), so with no other load the rod's own moment cancels it section by
 * section, EI kappa(s) = M(s), whatever the shape of M. With two beta values the spline is
 * 3 b X~ (1 - X~) (X~ from the head, the tip), times the wave sin(phi - 2 pi (L - s) / lambda). */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

static double max_curvature_error(int degree, double *kmax)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": \"classic\", \"rod\": {\"length\": 1, \"radius\": 0.025, \"density\": 1000, "
             "\"youngs_modulus\": 1e7, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": %d}, "
             "\"actuators\": [{\"name\": \"m\", \"type\": \"muscle_torque\", \"about\": \"d1\", "
             "\"beta\": [2, 2], \"period\": 1, \"wavelength\": 0.97, \"phase\": 0.3}], "
             "\"solver\": {\"tolerance\": 1e-13}}",
             degree);
    rod_model *m = tu_model(json);
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 41);
    const double EI = 1e7 * M_PI * pow(0.025, 4) / 4;
    double err = 0;
    *kmax = 0;
    for (int i = 0; i < f.n; i++) {
        const double Xh = 1 - f.s[i];
        const double M = 3 * 2 * Xh * (1 - Xh) * sin(0.3 - 2 * M_PI * Xh / 0.97);
        err = fmax(err, fabs(f.kappa[3 * i] - M / EI));
        *kmax = fmax(*kmax, fabs(M / EI));
        cr_assert_lt(fabs(f.kappa[3 * i + 1]) + fabs(f.kappa[3 * i + 2]), 1e-12, "only bend1 moves");
    }
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
    return err;
}

Test(muscle, the_rod_bends_to_the_muscle_moment_over_its_stiffness)
{
    double kmax;
    const double e8 = max_curvature_error(8, &kmax), e12 = max_curvature_error(12, &kmax);
    cr_log_info("max |kappa - M/EI| / max |M/EI|: degree 8 %.2e, degree 12 %.2e", e8 / kmax, e12 / kmax);
    /* the statics solution is the Legendre projection of M / EI, which converges
     * spectrally: four more degrees must gain well over an order of magnitude */
    cr_assert_lt(e12, 1e-5 * kmax, "degree 12: %g of %g", e12, kmax);
    cr_assert_lt(e12, e8 / 30, "no spectral convergence: %g then %g", e8, e12);
}

/* kappa1 at s (of 101 output points) after solving the statics at time t */
static double kappa_at(const rod_model *m, rod_state *st, double t, double s, double *kmax)
{
    rod_statics_result res;
    cr_assert_eq(rod_statics_solve(m, st, t, &res), ROD_OK, "%s", rod_state_error(st));
    rod_frame f = tu_frame(m, st, 101);
    const int i = (int)lround(s * 100);
    const double k = f.kappa[3 * i];
    *kmax = 0;
    for (int j = 0; j < f.n; j++) *kmax = fmax(*kmax, fabs(f.kappa[3 * j]));
    rod_frame_free(&f);
    return k;
}

Test(muscle, each_beta_is_an_input_and_the_wave_travels_from_head_to_tail)
{
    rod_model *m = tu_model(
        "{\"model\": \"classic\", \"rod\": {\"length\": 1, \"radius\": 0.025, \"density\": 1000, "
        "\"youngs_modulus\": 1e7, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": 14}, "
        "\"actuators\": [{\"name\": \"m\", \"type\": \"muscle_torque\", \"about\": \"d1\", "
        "\"beta\": [3, 3], \"period\": 2, \"wavelength\": 0.5}]}");
    cr_assert_eq(rod_model_ninputs(m), 2);
    cr_assert_str_eq(rod_model_input_name(m, 1), "m.beta1");
    cr_assert_str_eq(rod_model_input_type(m, 1), "muscle_torque");
    rod_state *st = tu_solve(m);
    /* a node of sin(2 pi t / T - 2 pi (L - s) / lambda) sits at s = 0.5 at t = 0 and moves
     * toward the base at lambda / T = 0.25 m/s: at s = 0.45 at t = 0.2 */
    double kmax;
    const double k0 = kappa_at(m, st, 0.0, 0.5, &kmax), k0b = kappa_at(m, st, 0.2, 0.5, &kmax);
    const double k1 = kappa_at(m, st, 0.2, 0.45, &kmax);
    cr_log_info("kappa1 / max: at the node %.1e then %.1e, off it %.2f", k0 / kmax, k1 / kmax, k0b / kmax);
    cr_assert_lt(fabs(k0), 1e-4 * kmax);
    cr_assert_lt(fabs(k1), 1e-4 * kmax);
    cr_assert_gt(fabs(k0b), 0.1 * kmax);
    /* negative values are allowed: a muscle pulls on either side */
    cr_assert_eq(rod_state_set_input(st, "m.beta1", -3.0), ROD_OK);
    rod_state_free(st);
    rod_model_free(m);
}
