/* The friction law of core/stages/contact.c against its definition: per direction (forward and
 * backward along the rod's axis on the surface, lateral across it), the static coefficient
 * reached linearly at the threshold velocity, the kinetic one well above it, always opposing
 * the slip. */
#include "contact.h"

#include <criterion/criterion.h>
#include <math.h>

static const spec_friction F = {1, {0.8, 0.4, 0.6}, {0.4, 0.2, 0.3}, 1e-4};
static const double ax[3] = {0, 0, 1}, lat[3] = {0, 1, 0};

static void slip(double va, double vl, double out[3])
{
    const double v[3] = {0, vl, va};
    contact_friction(&F, 10.0, v, ax, lat, out);
}

Test(friction, well_above_the_threshold_each_direction_meets_its_kinetic_coefficient)
{
    double f[3];
    slip(1.0, 0, f);
    cr_assert_float_eq(f[2], -0.4 * 10, 1e-12, "forward: %g", f[2]);
    slip(-1.0, 0, f);
    cr_assert_float_eq(f[2], 0.2 * 10, 1e-12, "backward: %g", f[2]);
    slip(0, 1.0, f);
    cr_assert_float_eq(f[1], -0.3 * 10, 1e-12, "lateral: %g", f[1]);
    cr_assert_float_eq(f[2], 0.0, 1e-15);
}

Test(friction, up_to_the_threshold_it_grows_linearly_to_the_static_coefficient)
{
    double f[3];
    slip(0.5e-4, 0, f);
    cr_assert_float_eq(f[2], -0.8 * 10 * 0.5, 1e-12, "half the threshold: %g", f[2]);
    slip(1e-4, 0, f);
    cr_assert_float_eq(f[2], -0.8 * 10, 1e-12, "at the threshold: %g", f[2]);
    slip(0, -1e-4, f);
    cr_assert_float_eq(f[1], 0.6 * 10, 1e-12, "lateral at the threshold: %g", f[1]);
    slip(0, 0, f);
    cr_assert_float_eq(f[0] + f[1] + f[2], 0.0, 1e-15, "no slip, no friction");
}

Test(friction, it_opposes_the_slip_and_never_does_work_on_it)
{
    for (int k = 0; k < 16; k++) {
        const double ang = 2 * M_PI * k / 16, u = 3e-4 * (1 + k % 3);
        double f[3];
        slip(u * cos(ang), u * sin(ang), f);
        const double power = f[1] * u * sin(ang) + f[2] * u * cos(ang);
        cr_assert_leq(power, 0.0, "angle %g: power %g", ang, power);
    }
}
