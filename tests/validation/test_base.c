/* A moving base against independent results: a base accelerating uniformly sideways in zero
 * gravity moves the rod relative to it exactly as gravity of the opposite sign moves a clamped
 * rod (the equivalence principle, through the base's linear acceleration); a base spinning at
 * a constant rate about an axis across the rod stretches it, once the axial vibration has
 * died out, by the rotating bar's exact elongation tan(kL)/k - L, k^2 = rho omega^2 / E
 * (through the base's angular velocity: the centrifugal term of the twists). */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static void advance(const rod_model *m, rod_state *st, double t)
{
    cr_assert_eq(rod_dynamics_advance(m, st, t), ROD_OK, "advance to %g: %s", t, rod_state_error(st));
}

Test(base, uniformly_accelerating_base_is_gravity_of_the_opposite_sign, .timeout = 60)
{
    const double a = 3.0;
    const char *rod = "\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
                      "\"youngs_modulus\": 1e5, \"poisson_ratio\": 0.45, \"shear_viscosity\": 20}, "
                      "\"strains\": {\"bend2\": 3, \"stretch\": 1}, \"solver\": {\"rtol\": 1e-10, \"atol\": 1e-12}";
    char moving[1024], clamped[1024];
    snprintf(moving, sizeof moving, "{%s, \"base\": {\"type\": \"moving\", \"position\": [\"%g*t^2/2\", 0, 0]}}",
             rod, a);
    snprintf(clamped, sizeof clamped, "{%s, \"environment\": {\"gravity\": [%g, 0, 0]}}", rod, -a);
    rod_model *mm = tu_model(moving), *mc = tu_model(clamped);
    rod_state *sm = tu_started(mm), *sc = tu_started(mc);
    double worst = 0, lag = 0;
    for (int k = 1; k <= 10; k++) {
        const double t = 0.05 * k;
        advance(mm, sm, t);
        advance(mc, sc, t);
        rod_frame fm = tu_frame(mm, sm, 2), fc = tu_frame(mc, sc, 2);
        cr_assert_eq(fm.base_moving, 1);
        cr_assert_float_eq(fm.base_position[0], a * t * t / 2, 1e-12);
        for (int i = 0; i < 3; i++)
            worst = fmax(worst, fabs(fm.position[3 + i] - fm.base_position[i] - fc.position[3 + i]));
        lag = fmax(lag, fabs(fc.position[3]));
        rod_frame_free(&fm);
        rod_frame_free(&fc);
    }
    cr_log_info("accelerating base: tip relative to the base within %.2e m of the clamped rod in gravity "
                "(tip lags by up to %.3g m)", worst, lag);
    cr_assert_gt(lag, 1e-3, "the tip really lags (%g m)", lag);
    cr_assert_lt(worst, 1e-7 * lag);
    rod_state_free(sm);
    rod_state_free(sc);
    rod_model_free(mm);
    rod_model_free(mc);
}

Test(base, spinning_base_stretches_the_rod_as_the_rotating_bar, .timeout = 120)
{
    /* stretch only (the Coriolis force has no bending to act on); axial damping brings the
     * first axial mode (about 31 rad/s) to rest within the run */
    const double L = 0.5, E = 1e5, rho = 1000, w = 3.0;
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": 0.01, \"density\": %g, "
             "\"youngs_modulus\": %g, \"poisson_ratio\": 0.45, \"shear_viscosity\": 400}, "
             "\"strains\": {\"stretch\": 6}, \"solver\": {\"rtol\": 1e-10, \"atol\": 1e-13}, "
             "\"base\": {\"type\": \"moving\", \"rotation\": {\"axis\": [1, 0, 0], \"angle\": \"%g*t\"}}}",
             L, rho, E, w);
    rod_model *m = tu_model(json);
    rod_state *st = tu_started(m);
    advance(m, st, 3.0);
    rod_frame f = tu_frame(m, st, 2);
    const double len = sqrt(f.position[3] * f.position[3] + f.position[4] * f.position[4] +
                            f.position[5] * f.position[5]);
    const double k = w * sqrt(rho / E), want = tan(k * L) / k - L;
    cr_log_info("spinning base: elongation %.9e m, rotating bar %.9e (%.2e), kinetic %.4g J", len - L, want,
                fabs((len - L) / want - 1), f.e_kinetic);
    cr_assert_float_eq(len - L, want, 1e-6 * want);
    /* the tip turns with the base: d3 of the tip is the base's rotated z */
    cr_assert_float_eq(f.rotation[9 + 5], f.base_rotation[5], 1e-9);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}
