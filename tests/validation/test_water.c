/* Water loads (Sec. 3.3, Eqs. 33-34) against independent results: buoyancy scales the sag of
 * a cantilever by (rho - rho_f) as beam theory says; the added mass C_a rho_f A lowers the first
 * bending frequency as Euler-Bernoulli with that extra mass per length (and only in its own
 * direction); lift acts across the motion and does no work; quadratic drag takes the
 * amplitude of the first mode down as the equivalent-damping (energy per cycle) result. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define L_ROD 0.5
#define R_ROD 0.01
#define E_ROD 1e6
#define RHO_ROD 1000.0

static const double beta1 = 1.8751040687; /* first cantilever eigenvalue, beta L */

static double tip_coordinate(const rod_model *m, const rod_state *st, int axis)
{
    rod_frame f = tu_frame(m, st, 2);
    const double x = f.position[3 + axis];
    rod_frame_free(&f);
    return x;
}

Test(water, buoyancy_scales_the_gravity_sag_by_the_density_difference)
{
    /* q L^4 / (8 EI) with q = (rho - rho_f) A g, small enough to stay linear */
    const double EI = 1e9 * M_PI * pow(R_ROD, 4) / 4, A = M_PI * R_ROD * R_ROD;
    const double cases[][2] = {{30, 10}, {10, 10}, {10, 30}}; /* rod, fluid density */
    for (int c = 0; c < 3; c++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": %g, "
                 "\"youngs_modulus\": 1e9, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 3}, "
                 "\"environment\": {\"gravity\": [-9.81, 0, 0], \"fluid\": {\"density\": %g}}, "
                 "\"solver\": {\"tolerance\": 1e-14}}",
                 cases[c][0], cases[c][1]);
        rod_model *m = tu_model(json);
        rod_state *st = tu_solve(m);
        const double q = (cases[c][0] - cases[c][1]) * A * 9.81, w = q * pow(L_ROD, 4) / (8 * EI);
        const double x = tip_coordinate(m, st, 0);
        cr_log_info("rod %g, fluid %g kg/m^3: tip %.6e m, beam theory %.6e m", cases[c][0], cases[c][1], x, -w);
        cr_assert_float_eq(x, -w, 1e-6 * fabs(w) + 1e-15, "tip %.9g vs %.9g", x, -w);
        rod_state_free(st);
        rod_model_free(m);
    }
}

/* The period of the tip's x after release from the static shape of a small tip force, in a
 * fluid with no drag (gravity off), over about four periods of the guess T. */
static double released_period(const char *fluid, double T, double *tip_y_max)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
             "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45, \"shear_viscosity\": 300}, \"strains\": "
             "{\"bend1\": 4, \"bend2\": 4}, \"loads\": [{\"name\": \"f\", \"type\": \"tip_force\", \"force\": "
             "[1e-4, 0, 0]}], \"environment\": {\"fluid\": %s}, \"initial\": \"static\", "
             "\"solver\": {\"rtol\": 1e-8, \"atol\": 1e-12}}",
             fluid);
    rod_model *m = tu_model(json);
    rod_state *st = tu_started(m);
    cr_assert_eq(rod_state_set_input(st, "f", 0.0), ROD_OK);
    enum { N = 600 };
    static double t[N], x[N];
    double ymax = 0;
    for (int i = 0; i < N; i++) {
        t[i] = 4.0 * T * i / (N - 1);
        if (i) cr_assert_eq(rod_dynamics_advance(m, st, t[i]), ROD_OK, "%s", rod_state_error(st));
        x[i] = tip_coordinate(m, st, 0);
        ymax = fmax(ymax, fabs(tip_coordinate(m, st, 1)));
    }
    int nc;
    const double P = tu_period(t, x, N, &nc);
    cr_assert_geq(nc, 3, "%d crossings", nc);
    if (tip_y_max) *tip_y_max = ymax;
    rod_state_free(st);
    rod_model_free(m);
    return P;
}

Test(water, added_mass_lowers_the_first_frequency_as_euler_bernoulli_with_the_extra_mass, .timeout = 240)
{
    const double EI = E_ROD * M_PI * pow(R_ROD, 4) / 4, A = M_PI * R_ROD * R_ROD;
    const double Ca = 0.6, rho_f = 1000;
    const double T_dry = 2 * M_PI / (beta1 * beta1 * sqrt(EI / (RHO_ROD * A * pow(L_ROD, 4))));
    const double T_wet = T_dry * sqrt((RHO_ROD + Ca * rho_f) / RHO_ROD);
    /* the other direction's coefficient (3.0) must not matter to motion along d1 */
    double ymax;
    const double P = released_period("{\"density\": 1000, \"added_mass\": [0.6, 3.0], \"drag\": 0, \"lift\": 0}", T_wet, &ymax);
    const double P_dry = released_period("{\"density\": 0}", T_dry, NULL);
    cr_log_info("period in water %.6f s (Euler-Bernoulli with C_a rho_f A: %.6f), dry %.6f (%.6f); ratio %.6f vs %.6f",
                P, T_wet, P_dry, T_dry, P / P_dry, T_wet / T_dry);
    cr_assert_float_eq(P / P_dry, T_wet / T_dry, 1e-3 * T_wet / T_dry, "ratio %.6f vs %.6f", P / P_dry, T_wet / T_dry);
    cr_assert_float_eq(P, T_wet, 0.01 * T_wet);
    cr_assert_lt(ymax, 1e-12, "no motion across (%g)", ymax);
}

Test(water, lift_acts_across_the_motion_and_does_no_work, .timeout = 240)
{
    /* no damping, no drag, no added mass: the energy of the rod alone is conserved while lift
     * turns a planar swing into a three-dimensional one */
    rod_model *m = tu_model(
        "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
        "\"youngs_modulus\": 1e5, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": 4, \"bend2\": 4}, "
        "\"loads\": [{\"name\": \"f\", \"type\": \"tip_force\", \"force\": [2e-3, 0, 0]}], "
        "\"environment\": {\"fluid\": {\"density\": 1000, \"drag\": 0, \"lift\": 0.8}}, "
        "\"initial\": \"static\", \"solver\": {\"rtol\": 1e-10, \"atol\": 1e-13}}");
    rod_state *st = tu_started(m);
    cr_assert_eq(rod_state_set_input(st, "f", 0.0), ROD_OK);
    /* the force ramps out over solver.command_ramp from where the command takes effect: the
     * energy is the rod's own from the end of that ramp */
    const double off = rod_state_input_change_time(st) + 0.01;
    cr_assert_eq(rod_dynamics_advance(m, st, off), ROD_OK, "%s", rod_state_error(st));
    rod_frame f0 = tu_frame(m, st, 2);
    const double e0 = f0.e_kinetic + f0.e_elastic;
    rod_frame_free(&f0);
    double worst = 0, ymax = 0;
    for (int k = 1; k <= 30; k++) {
        cr_assert_eq(rod_dynamics_advance(m, st, off + 0.05 * k), ROD_OK, "%s", rod_state_error(st));
        rod_frame f = tu_frame(m, st, 2);
        worst = fmax(worst, fabs(f.e_kinetic + f.e_elastic - e0));
        ymax = fmax(ymax, fabs(f.position[4]));
        rod_frame_free(&f);
    }
    cr_log_info("lift: energy drift %.3e of %.3e J, tip moved %.3e m across", worst, e0, ymax);
    cr_assert_gt(ymax, 1e-3, "lift turned the swing (tip y %g m)", ymax);
    cr_assert_lt(worst, 1e-6 * e0, "energy drifted %.3e of %.3e J", worst, e0);
    rod_state_free(st);
    rod_model_free(m);
}

/* The first cantilever mode, phi(0) = 0 and phi(L) = 1. */
static double mode1(double x)
{
    const double b = beta1 / L_ROD, bl = beta1;
    const double sig = (cosh(bl) + cos(bl)) / (sinh(bl) + sin(bl));
    const double raw = cosh(bl) - cos(bl) - sig * (sinh(bl) - sin(bl));
    return (cosh(b * x) - cos(b * x) - sig * (sinh(b * x) - sin(b * x))) / raw;
}

Test(water, drag_takes_the_first_mode_down_as_quadratic_damping_theory_says, .timeout = 240)
{
    /* Energy per cycle: drag f = -rho_f C_D r |u| u takes rho_f C_D r A^3 w^2 (8/3) int |phi|^3
     * from E = A^2 w^2 rho pi r^2 int phi^2 / 2, so the tip amplitude per cycle falls as
     * 1/A_n = 1/A_0 + k n, k = (8/3) (rho_f / rho) C_D int |phi|^3 / (pi r int phi^2): a
     * perturbation result for small decay per cycle, independent of the engine. */
    const double rho_f = 40, Cd = 1.0;
    double I2 = 0, I3 = 0;
    const int nq = 4000;
    for (int i = 0; i <= nq; i++) { /* Simpson */
        const double x = L_ROD * i / nq, w = (i == 0 || i == nq) ? 1 : (i % 2 ? 4 : 2);
        const double p = mode1(x);
        I2 += w * p * p;
        I3 += w * fabs(p * p * p);
    }
    const double k_theory = 8.0 / 3.0 * (rho_f / RHO_ROD) * Cd * I3 / (M_PI * R_ROD * I2);
    const double EI = E_ROD * M_PI * pow(R_ROD, 4) / 4, A = M_PI * R_ROD * R_ROD;
    const double T1 = 2 * M_PI / (beta1 * beta1 * sqrt(EI / (RHO_ROD * A * pow(L_ROD, 4))));
    /* No Kelvin-Voigt damping: only the drag takes energy out. Released from the mode's own
     * shape with a 1 cm tip: the static shape under the load EI beta^4 A_0 phi(s), applied as
     * NP point forces; from a tip force's shape instead, the second mode's share (its velocity
     * is 6 times larger for its amplitude) adds visibly to the drag. */
    enum { NP = 24 };
    const double lam = 0.01 * EI * pow(beta1 / L_ROD, 4), ds = L_ROD / NP;
    char loads[NP * 120] = "", *w = loads;
    for (int i = 0; i < NP; i++) {
        const double si = (i + 0.5) * ds;
        w += snprintf(w, sizeof loads - (size_t)(w - loads),
                      "%s{\"name\": \"p%d\", \"type\": \"point_force\", \"s\": %.17g, \"force\": [%.17g, 0, 0]}",
                      i ? ", " : "", i, si, lam * mode1(si) * ds);
    }
    static char json[NP * 120 + 1024];
    snprintf(json, sizeof json,
             "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
             "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 3}, "
             "\"loads\": [%s], \"environment\": {\"fluid\": {\"density\": %g, \"drag\": %g}}, "
             "\"initial\": \"static\", \"solver\": {\"rtol\": 1e-6, \"atol\": 1e-8}}",
             loads, rho_f, Cd);
    rod_model *m = tu_model(json);
    rod_state *st = tu_started(m);
    for (int i = 0; i < NP; i++) {
        char name[16]; /* room for any int: gcc -O1 warns of truncation at 8 */
        snprintf(name, sizeof name, "p%d", i);
        cr_assert_eq(rod_state_set_input(st, name, 0.0), ROD_OK);
    }
    enum { CYCLES = 6, PER = 200, N = CYCLES * PER + 1 };
    static double x[N];
    for (int i = 0; i < N; i++) {
        if (i) cr_assert_eq(rod_dynamics_advance(m, st, T1 * i / PER), ROD_OK, "%s", rod_state_error(st));
        x[i] = tip_coordinate(m, st, 0);
    }
    /* the peaks, by a parabola through the largest sample of each cycle and its neighbours */
    double peak[CYCLES + 1];
    int np = 0;
    peak[np++] = x[0];
    for (int c = 1; c <= CYCLES - 1; c++) {
        int best = c * PER - PER / 4;
        for (int i = c * PER - PER / 4; i <= c * PER + PER / 4; i++)
            if (x[i] > x[best]) best = i;
        const double a = x[best - 1], b = x[best], d = x[best + 1];
        peak[np++] = b + 0.125 * (a - d) * (a - d) / (2 * b - a - d);
    }
    /* least squares of 1/A_n = 1/A_0 + k n */
    double sn = 0, sy = 0, snn = 0, sny = 0;
    for (int n = 0; n < np; n++) {
        sn += n;
        sy += 1 / peak[n];
        snn += (double)n * n;
        sny += n / peak[n];
    }
    const double k_sim = (np * sny - sn * sy) / (np * snn - sn * sn);
    cr_log_info("drag: tip peaks %.5f -> %.5f m over %d cycles; k = %.5f per m per cycle, theory %.5f (%.2f %%)",
                peak[0], peak[np - 1], np - 1, k_sim, k_theory, 100 * (k_sim / k_theory - 1));
    cr_assert_lt(peak[np - 1], 0.95 * peak[0], "the drag really takes the swing down");
    cr_assert_float_eq(k_sim, k_theory, 0.03 * k_theory, "k %.5f vs %.5f", k_sim, k_theory);
    rod_state_free(st);
    rod_model_free(m);
}
