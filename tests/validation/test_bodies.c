/* Attached rigid bodies against independent results: a tip mass's weight, with and without an
 * offset, bends a cantilever as beam theory says, and in water by its mass less the water it
 * displaces; seeds/002 Fig. 4's heavy end mass (m_p =
 * 100 m_r) oscillates with the exact period of a rod carrying an end mass and about the
 * static elongation g (m_p + m_r/2) / k. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define L_ROD 0.5
#define R_ROD 0.01
#define E_ROD 1e6
static const double EI = E_ROD * M_PI * R_ROD * R_ROD * R_ROD * R_ROD / 4;

/* P = m g = 1e-4 EI/L^2 (the rod itself nearly massless) against beam theory, whose error is
 * O((P L^2/EI)^2) = 1e-8, and against the same rod carrying the equivalent tip_force and
 * tip_moment instead of the body (the loads' own code path), equal to the solver's tolerance. */
Test(bodies, tip_mass_weight_bends_the_cantilever_by_beam_theory)
{
    const double g = 9.81, m = 1e-4 * EI / (L_ROD * L_ROD) / g, e = 0.1;
    for (int off = 0; off < 2; off++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": %g, \"density\": 1e-15, "
                 "\"youngs_modulus\": %g, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 2}, "
                 "\"environment\": {\"gravity\": [%g, 0, 0]}, \"solver\": {\"tolerance\": 1e-13}, "
                 "\"bodies\": [{\"name\": \"tip\", \"mass\": %.17g, \"inertia\": [1e-6, 1e-6, 1e-6], "
                 "\"offset\": [0, 0, %g]}]}",
                 L_ROD, R_ROD, E_ROD, g, m, off ? e : 0.0);
        rod_model *md = tu_model(json);
        rod_state *st = tu_solve(md);
        rod_frame f = tu_frame(md, st, 2);
        const double P = m * g;
        const double want = P * pow(L_ROD, 3) / (3 * EI) + (off ? P * e * L_ROD * L_ROD / (2 * EI) : 0.0);
        cr_log_info("tip mass %s offset: tip %.12g m, beam theory %.12g (%.2e)", off ? "with" : "without",
                    f.position[3], want, fabs(f.position[3] / want - 1));
        cr_assert_float_eq(f.position[3], want, 1e-7 * want);
        char loads[512];
        snprintf(loads, sizeof loads,
                 "{\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": %g, \"density\": 1e-15, "
                 "\"youngs_modulus\": %g, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 2}, "
                 "\"solver\": {\"tolerance\": 1e-13}, \"loads\": [{\"name\": \"f\", \"type\": \"tip_force\", "
                 "\"force\": [%.17g, 0, 0]}, {\"name\": \"m\", \"type\": \"tip_moment\", \"moment\": [0, %.17g, 0]}]}",
                 L_ROD, R_ROD, E_ROD, P, off ? P * e : 0.0);
        rod_model *ml = tu_model(loads);
        rod_state *sl = tu_solve(ml);
        rod_frame fl = tu_frame(ml, sl, 2);
        cr_assert_float_eq(f.position[3], fl.position[3], 1e-9 * want, "body %.15g, loads %.15g",
                           f.position[3], fl.position[3]);
        rod_frame_free(&fl);
        rod_state_free(sl);
        rod_model_free(ml);
        rod_frame_free(&f);
        rod_state_free(st);
        rod_model_free(md);
    }
}

/* In water a body weighs its mass less the water it displaces: a rod as dense as the water
 * (its own weight and buoyancy cancel) carrying a body of mass 3 m and volume 2 m / rho_f bends
 * as the dry rod carrying m, by beam theory (P L^3 / 3EI, O((P L^2/EI)^2) = 1e-8); a body as
 * dense as the water bends nothing. */
Test(bodies, a_body_in_water_weighs_its_mass_less_the_water_it_displaces)
{
    const double g = 9.81, rho_f = 1000, m = 1e-4 * EI / (L_ROD * L_ROD) / g;
    const double masses[2] = {3 * m, 2 * m}, want[2] = {m * g * pow(L_ROD, 3) / (3 * EI), 0.0};
    for (int k = 0; k < 2; k++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": %g, \"density\": %g, "
                 "\"youngs_modulus\": %g, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 2}, "
                 "\"environment\": {\"gravity\": [%g, 0, 0], \"fluid\": {\"density\": %g}}, "
                 "\"solver\": {\"tolerance\": 1e-13}, \"bodies\": [{\"name\": \"float\", \"mass\": %.17g, "
                 "\"volume\": %.17g, \"inertia\": [1e-6, 1e-6, 1e-6]}]}",
                 L_ROD, R_ROD, rho_f, E_ROD, g, rho_f, masses[k], 2 * m / rho_f);
        rod_model *md = tu_model(json);
        rod_state *st = tu_solve(md);
        rod_frame f = tu_frame(md, st, 2);
        cr_log_info("body of %.3g kg displacing %.3g kg of water: tip %.12g m, beam theory %.12g", masses[k], 2 * m,
                    f.position[3], want[k]);
        cr_assert_float_eq(f.position[3], want[k], 1e-7 * want[0]);
        rod_frame_free(&f);
        rod_state_free(st);
        rod_model_free(md);
    }
}

static void advance(const rod_model *m, rod_state *st, double t)
{
    cr_assert_eq(rod_dynamics_advance(m, st, t), ROD_OK, "advance to %g: %s", t, rod_state_error(st));
}

/* The rod's longitudinal modes with an end mass: beta tan beta = m_r / m_p, omega = beta c / L,
 * c = sqrt(E / rho). Bisection on (0, pi/2). */
static double end_mass_beta(double ratio)
{
    double lo = 0, hi = M_PI / 2 - 1e-15;
    for (int i = 0; i < 200; i++) {
        const double mid = 0.5 * (lo + hi);
        if (mid * tan(mid) < ratio)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

Test(bodies, heavy_end_mass_of_seed_002_fig4_oscillates_with_the_end_mass_period, .timeout = 120)
{
    const double E = 1e7, L = 1.0, mr = 1.0, mp = 100.0, rho = 1000, g = 9.81;
    const double A = mr / (L * rho), k = E * A / L;
    const double dL = g * (mp + mr / 2) / k;
    const double T_seed = 2 * M_PI * sqrt((mp + mr / 3) / k);
    const double T_exact = 2 * M_PI * L / (end_mass_beta(mr / mp) * sqrt(E / rho));
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": \"classic\", \"rod\": {\"length\": 1, \"radius\": %.17g, \"density\": 1000, "
             "\"youngs_modulus\": %g, \"poisson_ratio\": 0.49}, \"strains\": {\"stretch\": 4}, "
             "\"environment\": {\"gravity\": [0, 0, %g]}, \"solver\": {\"rtol\": 1e-9, \"atol\": 1e-12}, "
             "\"bodies\": [{\"name\": \"mp\", \"mass\": %g}]}",
             sqrt(A / M_PI), E, g, mp);
    rod_model *m = tu_model(json);
    rod_state *st = tu_started(m);
    enum { N = 401 };
    static double t[N], z[N];
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < N; i++) {
        t[i] = 2 * T_exact * i / (N - 1);
        if (i) advance(m, st, t[i]);
        rod_frame f = tu_frame(m, st, 2);
        z[i] = f.position[5] - L;
        rod_frame_free(&f);
        lo = fmin(lo, z[i]);
        hi = fmax(hi, z[i]);
    }
    int nc;
    const double T = tu_period(t, z, N, &nc);
    cr_log_info("heavy end mass: period %.6f s (exact %.6f, %.2e; seed's T* %.6f), elongation mean %.6e "
                "(Delta L* %.6e, %.2e), range [%.3e, %.3e]", T, T_exact, fabs(T / T_exact - 1), T_seed,
                0.5 * (lo + hi), dL, fabs(0.5 * (lo + hi) / dL - 1), lo, hi);
    /* the sampled crossings time the period to about 1e-4; the seed's T* (Rayleigh's
     * xi = 3) is within 2e-6 of the exact one here */
    cr_assert_float_eq(T, T_exact, 1e-3 * T_exact);
    cr_assert_float_eq(0.5 * (lo + hi), dL, 1e-3 * dL, "equilibrium elongation");
    rod_state_free(st);
    rod_model_free(m);
}

/* An offset body with a full inertia tensor on an undamped rod swinging in 3D: its inertial
 * terms (the offset's lever, ad*) are right exactly when the whole system conserves energy. */
Test(bodies, offset_body_on_a_swinging_rod_conserves_energy, .timeout = 120)
{
    rod_model *m = tu_model(
        "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
        "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": 3, \"bend2\": 3, "
        "\"twist\": 1, \"stretch\": 1}, \"environment\": {\"gravity\": [-9.81, -3, 0]}, "
        "\"solver\": {\"rtol\": 1e-9, \"atol\": 1e-11}, \"bodies\": [{\"name\": \"grip\", \"mass\": 0.05, "
        "\"inertia\": [[2e-5, 3e-6, 0], [3e-6, 1e-5, 1e-6], [0, 1e-6, 3e-5]], \"offset\": [0.02, -0.01, 0.03]}]}");
    rod_state *st = tu_started(m);
    double e0 = NAN, worst = 0, scale = 0;
    for (int k = 0; k <= 20; k++) {
        if (k) advance(m, st, 0.05 * k);
        rod_frame f = tu_frame(m, st, 2);
        const double e = f.e_kinetic + f.e_elastic + f.e_gravity;
        if (k == 0) e0 = e;
        scale = fmax(scale, fabs(f.e_gravity));
        worst = fmax(worst, fabs(e - e0));
        rod_frame_free(&f);
    }
    cr_log_info("offset body: energy drift %.3e of %.3e J over 1 s", worst, scale);
    cr_assert_gt(scale, 0.05, "the rod really swings (%g J)", scale);
    cr_assert_lt(worst, 1e-5 * scale, "energy drifted by %.3e J of %.3e", worst, scale);
    rod_state_free(st);
    rod_model_free(m);
}
