/* Slender-body (low Reynolds number) drag against independent results: a cantilever
 * released from a bent shape in a viscous fluid creeps back with the rate of its first
 * Euler-Bernoulli mode under a drag c_perp per length, and a stretched one with the rate of
 * its first axial mode under c_par; slender-body theory (seed 002, Fig. 11's swimmer) says
 * c_perp = 4 pi mu / ln(L / r) = 2 c_par. With mass m per length the modal equation
 * m a'' + c a' + k a = 0 decays at the slow root (c - sqrt(c^2 - 4 m k)) / (2 m). */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#define L_ROD 1.0
#define R_ROD 0.01
#define RHO_ROD 1000.0

static double slow_root(double m, double c, double k)
{
    return (c - sqrt(c * c - 4 * m * k)) / (2 * m);
}

/* The decay rate of the tip's displacement along axis (0: x, bending; 2: z, stretch) between
 * t1 and t2 after release from the static shape under the tip force f. */
static double measured_rate(double E, double mu, const char *strains, const char *force, int axis,
                            double t1, double t2)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": %g, \"density\": %g, "
             "\"youngs_modulus\": %g, \"poisson_ratio\": 0.45}, \"strains\": %s, "
             "\"environment\": {\"fluid\": {\"model\": \"slender_body\", \"viscosity\": %g}}, "
             "\"loads\": [{\"name\": \"f\", \"type\": \"tip_force\", \"force\": %s}], "
             "\"initial\": \"static\", \"solver\": {\"rtol\": 1e-7, \"atol\": 1e-12}}",
             L_ROD, R_ROD, RHO_ROD, E, strains, mu, force);
    rod_model *m = tu_model(json);
    rod_state *st = tu_started(m);
    rod_frame f0 = tu_frame(m, st, 2);
    const double rest = axis == 2 ? L_ROD : 0.0, x0 = f0.position[3 + axis] - rest;
    rod_frame_free(&f0);
    cr_assert_eq(rod_state_set_input(st, "f", 0.0), ROD_OK);
    double x[2];
    const double ts[2] = {t1, t2};
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(rod_dynamics_advance(m, st, ts[i]), ROD_OK, "%s", rod_state_error(st));
        rod_frame f = tu_frame(m, st, 2);
        x[i] = f.position[3 + axis] - rest;
        rod_frame_free(&f);
    }
    cr_assert(x[0] / x0 > 0 && x[0] / x0 < 1 && x[1] / x[0] > 0 && x[1] / x[0] < 1,
              "the tip must creep back monotonically: %g -> %g -> %g", x0, x[0], x[1]);
    rod_state_free(st);
    rod_model_free(m);
    return log(x[0] / x[1]) / (t2 - t1);
}

Test(flow, slender_body_drag_is_twice_as_strong_across_the_axis_as_along_it)
{
    const double A = M_PI * R_ROD * R_ROD, m = RHO_ROD * A;
    /* each case overdamped (c^2 > 4 m k) with its first mode well apart from the second */
    /* bending: first cantilever mode, k = EI (1.8751 / L)^4 */
    const double Eb = 1e8, mub = 10, c_perp = 4 * M_PI * mub / log(L_ROD / R_ROD);
    const double kb = Eb * M_PI * pow(R_ROD, 4) / 4 * pow(1.8751040687 / L_ROD, 4);
    const double lb = slow_root(m, c_perp, kb);
    const double rb = measured_rate(Eb, mub, "{\"bend2\": 6}", "[0.01, 0, 0]", 0, 1.0 / lb, 3.0 / lb);
    /* stretch: u ~ sin(pi s / 2L), k = EA (pi / 2L)^2, along the axis c_par = c_perp / 2 */
    const double Ea = 1e6, mua = 100, c_par = 0.5 * 4 * M_PI * mua / log(L_ROD / R_ROD);
    const double ka = Ea * A * pow(M_PI / (2 * L_ROD), 2), la = slow_root(m, c_par, ka);
    const double ra = measured_rate(Ea, mua, "{\"stretch\": 6}", "[0, 0, 1]", 2, 2.0 / la, 4.0 / la);
    const double eb = rb / lb - 1, ea = ra / la - 1;
    cr_log_info("bending: rate %.7g 1/s, theory %.7g (error %.1e); stretch: rate %.7g 1/s, theory "
                "%.7g (error %.1e)", rb, lb, eb, ra, la, ea);
    /* Euler-Bernoulli and the bar leave out rotary inertia and shear, O((beta r)^2) = 4e-4
     * for the bending mode; the second modes are down by e^-20 or more when measured */
    cr_assert_lt(fabs(eb), 1e-3, "bending decay %.7g vs %.7g", rb, lb);
    cr_assert_lt(fabs(ea), 1e-3, "axial decay %.7g vs %.7g", ra, la);
}
