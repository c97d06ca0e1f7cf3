/* A free (floating) base against conservation laws and exact solutions. The semi-discrete
 * model (the stations' quadrature of the kinetic energy, the strain energy, internal damping)
 * is invariant under rigid motions of the whole rod, so its linear and angular momentum, taken
 * with the same quadrature, are exact invariants without external loads; what is left is the
 * time integrator's error, which CVODE keeps below rtol |y| + atol per step. The tolerances
 * below are that bound summed over the steps taken (each step's local error can move an
 * invariant by at most it), read from the run itself.
 * In uniform gravity every point of a free rod falls alike: the rod keeps its shape exactly
 * and its centre of mass follows g t^2 / 2. */
#include "base.h"
#include "constraints.h"
#include "dynamics.h"
#include "kinematics.h"
#include "model.h"
#include "state.h"
#include "rigid_sums.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define ROD_PROPS                                                                                   \
    "\"model\": \"classic\", \"base\": {\"type\": \"free\"}, \"rod\": {\"length\": 0.5, \"radius\": 0.01, " \
    "\"density\": 1000, \"youngs_modulus\": 1e5, \"poisson_ratio\": 0.45, \"shear_viscosity\": %g}, " \
    "\"strains\": {\"bend1\": 2, \"bend2\": 2, \"twist\": 1, \"stretch\": 1}, "                   \
    "\"solver\": {\"rtol\": %g, \"atol\": %g}, \"environment\": {\"gravity\": [0, 0, %g]}"

static const double RTOL = 1e-10, ATOL = 1e-12;

static rod_model *free_rod(double eta, double gz)
{
    char json[1024];
    snprintf(json, sizeof json, "{" ROD_PROPS "}", eta, RTOL, ATOL, gz);
    return tu_model(json);
}

static double norm3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

static double dist3(const double a[3], const double b[3])
{
    const double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return norm3(d);
}

static void advance(const rod_model *m, rod_state *st, double t)
{
    cr_assert_eq(rod_dynamics_advance(m, st, t), ROD_OK, "advance to %g: %s", t, rod_state_error(st));
}

/* The base's twist (x_dot at x = 0 is the base's body twist) and strain rates. */
static void set_velocity(const rod_model *m, rod_state *st, const double base_twist[6], double strain_rate)
{
    for (int j = 0; j < m->base_col; j++) st->qd[j] = strain_rate * (1 + j % 3);
    memcpy(st->qd + m->base_col, base_twist, 6 * sizeof *st->qd);
    rod_state_mark_restart(st);
}

static long steps_taken(const rod_state *st)
{
    rod_dynamics_stats s;
    cr_assert_eq(rod_dynamics_get_stats(st, &s), ROD_OK);
    return s.steps;
}

Test(free_base, tumbling_vibrating_rod_conserves_momentum_and_energy, .timeout = 120)
{
    rod_model *m = free_rod(0.0, 0.0);
    cr_assert_eq(m->base_col, m->n_xi - 6);
    rod_state *st = tu_started(m);
    const double twist[6] = {1.0, 0.5, 0.3, 0.05, -0.02, 0.1};
    set_velocity(m, st, twist, 0.5);
    const rigid_sums s0 = rigid_sums_of(m, st);
    rod_frame f0 = tu_frame(m, st, 2);
    const double E0 = f0.e_kinetic + f0.e_elastic;
    rod_frame_free(&f0);
    double dP = 0, dH = 0, dE = 0, emax = 0;
    for (int k = 1; k <= 10; k++) {
        advance(m, st, 0.1 * k);
        const rigid_sums s = rigid_sums_of(m, st);
        dP = fmax(dP, dist3(s.P, s0.P));
        dH = fmax(dH, dist3(s.H, s0.H));
        rod_frame f = tu_frame(m, st, 2);
        dE = fmax(dE, fabs(f.e_kinetic + f.e_elastic - E0));
        emax = fmax(emax, f.e_elastic);
        rod_frame_free(&f);
    }
    const long steps = steps_taken(st);
    const double relP = dP / norm3(s0.P), relH = dH / norm3(s0.H), relE = dE / E0;
    cr_log_info("free tumbling rod, 1 s, %ld steps: |dP|/|P| = %.2e, |dH|/|H| = %.2e, |dE|/E = %.2e "
                "(elastic energy up to %.2e of %.2e J)", steps, relP, relH, relE, emax, E0);
    cr_assert_gt(emax, 1e-3 * E0, "the rod really deforms while it tumbles");
    const double bound = steps * RTOL;
    cr_assert_lt(relP, bound);
    cr_assert_lt(relH, bound);
    cr_assert_lt(relE, bound);
    rod_state_free(st);
    rod_model_free(m);
}

Test(free_base, damped_spinning_rod_keeps_its_angular_momentum, .timeout = 120)
{
    /* spun about an oblique axis through its centre of mass: it bends, twists and stretches
     * while internal damping takes energy out; momentum is untouched by internal forces */
    rod_model *m = free_rod(20.0, 0.0);
    rod_state *st = tu_started(m);
    const double w[3] = {2.0, 0.6, 1.0}, rc[3] = {0, 0, -0.25}; /* base relative to the centre */
    double twist[6] = {w[0], w[1], w[2], w[1] * rc[2] - w[2] * rc[1], w[2] * rc[0] - w[0] * rc[2],
                       w[0] * rc[1] - w[1] * rc[0]};
    set_velocity(m, st, twist, 0.0);
    const rigid_sums s0 = rigid_sums_of(m, st);
    cr_assert_lt(norm3(s0.P), 1e-12 * s0.mass, "spun about its centre of mass");
    rod_frame f0 = tu_frame(m, st, 2);
    const double E0 = f0.e_kinetic;
    rod_frame_free(&f0);
    double dH = 0, dc = 0;
    for (int k = 1; k <= 10; k++) {
        advance(m, st, 0.12 * k);
        const rigid_sums s = rigid_sums_of(m, st);
        dH = fmax(dH, dist3(s.H, s0.H));
        dc = fmax(dc, dist3(s.com, s0.com));
    }
    rod_frame f = tu_frame(m, st, 2);
    const double lost = 1 - (f.e_kinetic + f.e_elastic) / E0;
    rod_frame_free(&f);
    const long steps = steps_taken(st);
    const double relH = dH / norm3(s0.H);
    cr_log_info("damped spinning free rod, 1.2 s, %ld steps: |dH|/|H| = %.2e, centre of mass moved "
                "%.2e m, energy dissipated %.2e of it", steps, relH, dc, lost);
    cr_assert_gt(lost, 1e-6, "internal damping does work");
    cr_assert_lt(relH, steps * RTOL);
    cr_assert_lt(dc, steps * (RTOL * 0.5 + ATOL));
    rod_state_free(st);
    rod_model_free(m);
}

Test(free_base, falling_rod_keeps_its_shape_and_its_centre_falls_as_g_t2_over_2, .timeout = 120)
{
    const double g = -9.81;
    rod_model *m = free_rod(0.0, g);
    rod_state *st = tu_started(m);
    /* tilted, so gravity is along none of its axes, and thrown sideways */
    const double tilt[3] = {0.7, 0.3, 0.0}, twist[6] = {0, 0, 0, 0.3, 0.0, 0.1};
    memcpy(st->q + m->base_col, tilt, sizeof tilt);
    set_velocity(m, st, twist, 0.0);
    const rigid_sums s0 = rigid_sums_of(m, st);
    double dz = 0, strain = 0, Hc_max = 0;
    for (int k = 1; k <= 10; k++) {
        const double t = 0.05 * k;
        advance(m, st, t);
        const rigid_sums s = rigid_sums_of(m, st);
        const double expect[3] = {s0.com[0] + s0.P[0] / s0.mass * t, s0.com[1] + s0.P[1] / s0.mass * t,
                                  s0.com[2] + s0.P[2] / s0.mass * t + g * t * t / 2};
        dz = fmax(dz, dist3(s.com, expect));
        for (int j = 0; j < m->base_col; j++) strain = fmax(strain, fabs(st->q[j]));
        /* about the centre of mass, the angular momentum stays zero (gravity has no moment) */
        double Hc[3];
        const double *c = s.com, *p = s.P;
        for (int a = 0; a < 3; a++) {
            const int b = (a + 1) % 3, d = (a + 2) % 3;
            Hc[a] = s.H[a] - (c[b] * p[d] - c[d] * p[b]);
        }
        Hc_max = fmax(Hc_max, norm3(Hc));
    }
    const long steps = steps_taken(st);
    const double fall = fabs(g) * 0.25 / 2;
    cr_log_info("free rod falling 0.5 s (%.4f m), %ld steps: centre of mass within %.2e m of g t^2/2, "
                "largest strain coordinate %.2e, |H_c| up to %.2e kg m^2/s (m g t L = %.2e)",
                fall, steps, dz, strain, Hc_max, s0.mass * fabs(g) * 0.5 * 0.5);
    cr_assert_lt(dz, steps * (RTOL * fall + ATOL));
    cr_assert_lt(strain, steps * ATOL, "the rod keeps its shape");
    cr_assert_lt(Hc_max, steps * RTOL * s0.mass * fabs(g) * 0.5 * 0.5);
    rod_state_free(st);
    rod_model_free(m);
}

/* Statics with a free base solves for the base's pose too, which needs constraints holding all
 * six rigid motions: none, or a pin alone (three), is refused with the count. */
Test(free_base, statics_without_constraints_holding_the_base_is_refused, .timeout = 30)
{
    rod_model *m = free_rod(0.0, -9.81);
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st);
    rod_statics_result res;
    cr_assert_eq(rod_statics_solve(m, st, 0.0, &res), ROD_EINVAL);
    cr_assert(strstr(rod_state_error(st), "hold 0 of the base's six rigid motions"), "%s", rod_state_error(st));
    rod_state_free(st);
    rod_model_free(m);
    char json[1024];
    snprintf(json, sizeof json,
             "{" ROD_PROPS ", \"constraints\": [{\"name\": \"pin\", \"type\": \"pose\", "
             "\"position\": [0, 0, 0.5]}]}", 0.0, RTOL, ATOL, -9.81);
    m = tu_model(json);
    st = rod_state_create(m, err, sizeof err);
    cr_assert_eq(rod_statics_solve(m, st, 0.0, &res), ROD_EINVAL);
    cr_assert(strstr(rod_state_error(st), "hold 3 of the base's six"), "%s", rod_state_error(st));
    cr_assert_eq(rod_dynamics_start(m, st), ROD_OK, "dynamics still runs: %s", rod_state_error(st));
    rod_state_free(st);
    rod_model_free(m);
}

/* The statics of a free rod hanging from its tip, held there in all six components, in oblique
 * gravity: the clamped rod in reversed gravity turned upside down, point for point, r_h(s) =
 * (0, 0, L) - r_c(L - s) (an isotropic rod is symmetric under that map). The two are computed
 * from opposite ends with the 4th-order kinematics, so they differ by its error: the tolerance
 * is twice the clamped rod's own change when its Zanna steps are doubled (16/15 of its error). */
Test(free_base, statics_of_a_rod_hanging_from_a_held_tip_is_the_clamped_rod_upside_down, .timeout = 60)
{
    const double L = 0.5;
    const char *rod = "\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
                      "\"youngs_modulus\": 1e5, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": 3, "
                      "\"bend2\": 3, \"stretch\": 3}, \"solver\": {\"tolerance\": 1e-12}";
    char hanging[1024], clamped[1024], fine[1200];
    snprintf(hanging, sizeof hanging,
             "{%s, \"base\": {\"type\": \"free\"}, \"environment\": {\"gravity\": [1, 2, -9.81]}, "
             "\"constraints\": [{\"name\": \"hook\", \"type\": \"pose\", \"position\": [0, 0, %g], "
             "\"rotation\": {\"axis\": [0, 0, 1], \"angle\": 0}}]}", rod, L);
    snprintf(clamped, sizeof clamped, "{%s, \"environment\": {\"gravity\": [-1, -2, 9.81]}}", rod);
    rod_model *mh = tu_model(hanging), *mc = tu_model(clamped);
    snprintf(fine, sizeof fine, "{%s, \"environment\": {\"gravity\": [-1, -2, 9.81]}, "
             "\"discretization\": {\"substeps\": %d}}", rod, 2 * rod_model_substeps(mc));
    rod_model *mf = tu_model(fine);
    rod_state *sh = tu_solve(mh), *sc = tu_solve(mc), *sf = tu_solve(mf);
    const int N = 21;
    rod_frame fh = tu_frame(mh, sh, N), fc = tu_frame(mc, sc, N), ff = tu_frame(mf, sf, N);
    double worst = 0, kin = 0, sway = 0;
    for (int k = 0; k < N; k++) {
        const double *ph = fh.position + 3 * k, *pc = fc.position + 3 * (N - 1 - k), *pf = ff.position + 3 * (N - 1 - k);
        const double d[3] = {ph[0] + pc[0], ph[1] + pc[1], ph[2] + pc[2] - L};
        worst = fmax(worst, sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
        kin = fmax(kin, sqrt((pc[0] - pf[0]) * (pc[0] - pf[0]) + (pc[1] - pf[1]) * (pc[1] - pf[1]) +
                             (pc[2] - pf[2]) * (pc[2] - pf[2])));
        sway = fmax(sway, hypot(pc[0], pc[1]));
    }
    cr_assert_eq(fh.ncons, 1);
    const double *F = fh.cons[0].force;
    const double weight = 1000 * M_PI * 0.01 * 0.01 * L * sqrt(1 + 4 + 9.81 * 9.81);
    cr_log_info("statics, free rod hanging from a held tip: within %.2e m of the clamped rod upside "
                "down (its kinematics' error %.2e m, the base swung %.3f m aside); the hook carries "
                "%.6f N for a weight of %.6f N", worst, kin * 16 / 15, sway,
                sqrt(F[0] * F[0] + F[1] * F[1] + F[2] * F[2]), weight);
    cr_assert_gt(sway, 0.05, "the rod really bends (%g m)", sway);
    cr_assert_lt(worst, 2 * kin * 16 / 15 + 1e-12);
    cr_assert_float_eq(sqrt(F[0] * F[0] + F[1] * F[1] + F[2] * F[2]), weight, 1e-9 * weight,
                       "the hook holds the weight");
    rod_frame_free(&fh);
    rod_frame_free(&fc);
    rod_frame_free(&ff);
    rod_state_free(sh);
    rod_state_free(sc);
    rod_state_free(sf);
    rod_model_free(mh);
    rod_model_free(mc);
    rod_model_free(mf);
}

/* "initial": "static" with a free base starts from that equilibrium: at rest it stays there. */
Test(free_base, initial_static_hanging_rod_stays_at_rest, .timeout = 60)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{" ROD_PROPS ", \"initial\": \"static\", \"constraints\": [{\"name\": \"hook\", "
             "\"type\": \"pose\", \"position\": [0, 0, 0.5], \"rotation\": {\"axis\": [0, 0, 1], "
             "\"angle\": 0}}]}", 0.0, RTOL, ATOL, -9.81);
    rod_model *m = tu_model(json);
    rod_state *st = tu_started(m);
    rod_frame f0 = tu_frame(m, st, 2);
    const double z0 = f0.position[2];
    rod_frame_free(&f0);
    advance(m, st, 0.2);
    rod_frame f = tu_frame(m, st, 2);
    cr_log_info("initial static, free rod hanging from its tip: base at z = %.9f m, %.2e m later, "
                "kinetic energy %.2e J", z0, fabs(f.position[2] - z0), f.e_kinetic);
    cr_assert_lt(z0, -1e-4, "the base hangs below its reference (stretched)");
    cr_assert_lt(fabs(f.position[2] - z0), 1e-9);
    cr_assert_lt(f.e_kinetic, 1e-12);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(free_base, rod_spinning_several_turns_keeps_its_momentum_across_rechartings, .timeout = 120)
{
    /* about an axis across the rod through its centre of mass, 2.4 turns: the exponential
     * coordinates' chart would be singular at one turn; the integrator re-charts at 3 pi / 2 */
    rod_model *m = free_rod(20.0, 0.0);
    rod_state *st = tu_started(m);
    const double w = 6.0, T = 2.5;
    const double twist[6] = {w, 0.1 * w, 0, -0.25 * 0.1 * w, 0.25 * w, 0}; /* omega x (base - centre) */
    set_velocity(m, st, twist, 0.0);
    const rigid_sums s0 = rigid_sums_of(m, st);
    double dH = 0, dc = 0, wmax = 0;
    for (int k = 1; k <= 10; k++) {
        advance(m, st, T * k / 10);
        const rigid_sums s = rigid_sums_of(m, st);
        dH = fmax(dH, dist3(s.H, s0.H));
        dc = fmax(dc, dist3(s.com, s0.com));
        const double *x = st->q + m->base_col;
        wmax = fmax(wmax, sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]));
    }
    const long steps = steps_taken(st);
    const double relH = dH / norm3(s0.H);
    cr_log_info("free rod spinning %.1f turns in %.1f s, %ld steps: |dH|/|H| = %.2e, centre of mass "
                "moved %.2e m, rotation coordinates never above %.3f rad", w * T / (2 * M_PI), T, steps,
                relH, dc, wmax);
    cr_assert_lt(wmax, 1.5 * M_PI + 1e-6, "re-charted");
    cr_assert_lt(relH, steps * RTOL);
    cr_assert_lt(dc, steps * (RTOL * 0.5 + ATOL));
    rod_state_free(st);
    rod_model_free(m);
}

/* Dead loads at the tip in zero gravity: a force F moves the centre of mass as F t^2 / 2m
 * (dP/dt = F), a couple M turns the angular momentum as M t (dH/dt = M, P stays zero), while
 * the rod bends under them. */
static rod_model *loaded_rod(const char *type, const char *key, const double v[3])
{
    char json[1536];
    snprintf(json, sizeof json,
             "{" ROD_PROPS ", \"loads\": [{\"name\": \"l\", \"type\": \"%s\", \"frame\": \"global\", "
             "\"%s\": [%g, %g, %g]}]}", 5.0, RTOL, ATOL, 0.0, type, key, v[0], v[1], v[2]);
    return tu_model(json);
}

Test(free_base, tip_force_and_couple_change_the_momenta_by_their_impulses, .timeout = 120)
{
    const double F[3] = {0.002, 0.0, 0.001}, M[3] = {0.0, 2e-4, 1e-4}, T = 0.5;
    rod_model *mf = loaded_rod("tip_force", "force", F), *mm = loaded_rod("tip_moment", "moment", M);
    rod_state *sf = tu_started(mf), *sm = tu_started(mm);
    const rigid_sums f0 = rigid_sums_of(mf, sf), m0 = rigid_sums_of(mm, sm);
    double dcom = 0, dP = 0, dH = 0, bend = 0;
    for (int k = 1; k <= 10; k++) {
        const double t = T * k / 10;
        advance(mf, sf, t);
        advance(mm, sm, t);
        const rigid_sums f = rigid_sums_of(mf, sf), m = rigid_sums_of(mm, sm);
        double ec[3], eP[3], eH[3];
        for (int a = 0; a < 3; a++) {
            ec[a] = f0.com[a] + F[a] * t * t / (2 * f0.mass);
            eP[a] = F[a] * t;
            eH[a] = m0.H[a] + M[a] * t;
        }
        dcom = fmax(dcom, dist3(f.com, ec));
        dP = fmax(dP, dist3(f.P, eP) + norm3(m.P));
        dH = fmax(dH, dist3(m.H, eH));
        for (int j = 0; j < mf->base_col; j++) bend = fmax(bend, fabs(sf->q[j]) + fabs(sm->q[j]));
    }
    const long steps = steps_taken(sf) + steps_taken(sm);
    const double shift = norm3(F) * T * T / (2 * f0.mass);
    cr_log_info("tip force and couple on a free rod, %.1f s, %ld steps: centre of mass within %.2e m of "
                "F t^2/2m (%.3g m), |dP| %.2e of F T, |dH| %.2e of M T (strain coordinates up to %.2e)",
                T, steps, dcom, shift, dP / (norm3(F) * T), dH / (norm3(M) * T), bend);
    cr_assert_gt(bend, 1e-3, "the loads bend the rod");
    cr_assert_lt(dcom, steps * (RTOL * shift + ATOL));
    cr_assert_lt(dP / (norm3(F) * T), steps * RTOL);
    cr_assert_lt(dH / (norm3(M) * T), steps * RTOL);
    rod_state_free(sf);
    rod_state_free(sm);
    rod_model_free(mf);
    rod_model_free(mm);
}

/* A free rod hanging from its tip, held there in all six components by a multiplier, is the
 * clamped rod turned upside down: with gravity reversed, the clamped rod's tip moves by
 * delta(t) exactly where the hanging rod's base moves by -delta(t) (the Legendre bases and the
 * Gauss points are symmetric under s -> L - s). */
Test(free_base, rod_hanging_from_a_held_tip_is_the_clamped_rod_upside_down, .timeout = 120)
{
    const double L = 0.5, g = 9.81;
    const char *rod = "\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
                      "\"youngs_modulus\": 1e5, \"poisson_ratio\": 0.45, \"shear_viscosity\": 20}, "
                      "\"strains\": {\"stretch\": 3}, \"solver\": {\"rtol\": 1e-10, \"atol\": 1e-12}";
    char hanging[1024], clamped[1024];
    snprintf(hanging, sizeof hanging,
             "{%s, \"base\": {\"type\": \"free\"}, \"environment\": {\"gravity\": [0, 0, %g]}, "
             "\"constraints\": [{\"name\": \"hook\", \"type\": \"pose\", \"position\": [0, 0, %g], "
             "\"rotation\": {\"axis\": [0, 0, 1], \"angle\": 0}}]}", rod, -g, L);
    snprintf(clamped, sizeof clamped, "{%s, \"environment\": {\"gravity\": [0, 0, %g]}}", rod, g);
    rod_model *mh = tu_model(hanging), *mc = tu_model(clamped);
    rod_state *sh = tu_started(mh), *sc = tu_started(mc);
    double worst = 0, stretch = 0, drift = 0;
    for (int k = 1; k <= 10; k++) {
        const double t = 0.05 * k;
        advance(mh, sh, t);
        advance(mc, sc, t);
        rod_frame fh = tu_frame(mh, sh, 2), fc = tu_frame(mc, sc, 2);
        const double delta = fc.position[5] - L;
        worst = fmax(worst, fabs(fh.position[2] + delta) + fabs(fh.position[0]) + fabs(fh.position[1]));
        stretch = fmax(stretch, fabs(delta));
        drift = fmax(drift, fabs(fh.position[5] - L));
        rod_frame_free(&fh);
        rod_frame_free(&fc);
    }
    cr_log_info("rod hanging from a held tip: base within %.2e m of the clamped rod's mirrored tip "
                "(stretch up to %.3g m), the held tip within %.2e m of its hook", worst, stretch, drift);
    cr_assert_gt(stretch, 1e-4, "the rod really stretches (%g m)", stretch);
    cr_assert_lt(worst, 1e-7 * stretch);
    cr_assert_lt(drift, 1e-9 * L);
    rod_state_free(sh);
    rod_state_free(sc);
    rod_model_free(mh);
    rod_model_free(mc);
}

/* The same rod pinned at its tip (position only) in oblique gravity swings as a flexible
 * pendulum about the pin: the constraint is scleronomic, so energy is conserved. */
Test(free_base, flexible_pendulum_pinned_at_its_tip_conserves_energy, .timeout = 120)
{
    const double L = 0.5;
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
             "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": 2, \"bend2\": 2, "
             "\"stretch\": 1}, \"solver\": {\"rtol\": %g, \"atol\": %g}, \"base\": {\"type\": \"free\"}, "
             "\"environment\": {\"gravity\": [3, 1, -9]}, \"constraints\": [{\"name\": \"pin\", "
             "\"type\": \"pose\", \"position\": [0, 0, %g]}]}", RTOL, ATOL, L);
    rod_model *m = tu_model(json);
    rod_state *st = tu_started(m);
    rod_frame f0 = tu_frame(m, st, 2);
    const double E0 = f0.e_kinetic + f0.e_elastic + f0.e_gravity;
    rod_frame_free(&f0);
    double dE = 0, kmax = 0, viol = 0, swing = 0;
    for (int k = 1; k <= 10; k++) {
        advance(m, st, 0.08 * k);
        rod_frame f = tu_frame(m, st, 2);
        dE = fmax(dE, fabs(f.e_kinetic + f.e_elastic + f.e_gravity - E0));
        kmax = fmax(kmax, f.e_kinetic);
        cr_assert_eq(f.ncons, 1);
        viol = fmax(viol, fabs(f.cons[0].violation)); /* at the model's stations */
        swing = fmax(swing, hypot(f.position[0], f.position[1]));
        rod_frame_free(&f);
    }
    const long steps = steps_taken(st);
    cr_log_info("flexible pendulum pinned at its tip, 0.8 s, %ld steps: |dE| %.2e of the kinetic energy "
                "reached (%.3g J), pin within %.2e m, base swung %.3g m", steps, dE / kmax, kmax, viol, swing);
    cr_assert_gt(swing, 0.05, "it swings");
    cr_assert_lt(dE / kmax, steps * RTOL);
    cr_assert_lt(viol, 1e-9 * L);
    rod_state_free(st);
    rod_model_free(m);
}

/* Generalized-alpha with a free base: the rod spinning while it vibrates, 1.2 turns in 1.25 s,
 * across a re-charting (which restarts the method from the true acceleration), at rho_inf = 1
 * (no numerical damping: the trapezoidal member of the family). The method is second order:
 * the largest errors over the run in the angular momentum, the energy and the base's position
 * (from BDF's at rtol 1e-10, sampled alike) fall by about 4 as the step halves; asserted: by
 * more than 10 as it is quartered (oscillating error terms make single ratios vary). */
#define NSPIN 10
typedef struct {
    double dH, dE, pos[NSPIN][3], wmax;
} spin_run;

static spin_run spin(const char *integrator, double step)
{
    char st_set[64], in_set[64];
    snprintf(st_set, sizeof st_set, "solver.step=%.17g", step);
    snprintf(in_set, sizeof in_set, "solver.integrator=\"%s\"", integrator);
    const char *sets[3] = {in_set, st_set, "solver.rho_infinity=1"};
    char json[1024];
    snprintf(json, sizeof json, "{" ROD_PROPS "}", 0.0, RTOL, ATOL, 0.0);
    rod_model *m = tu_model_set(json, sets, strcmp(integrator, "bdf") ? 3 : 0);
    rod_state *st = tu_started(m);
    const double w = 6.0, T = 1.25;
    const double twist[6] = {w, 0.1 * w, 0, -0.25 * 0.1 * w, 0.25 * w, 0};
    set_velocity(m, st, twist, 0.3);
    advance(m, st, 1e-9);
    const rigid_sums s0 = rigid_sums_of(m, st);
    rod_frame f0 = tu_frame(m, st, 2);
    const double E0 = f0.e_kinetic + f0.e_elastic;
    rod_frame_free(&f0);
    spin_run r;
    memset(&r, 0, sizeof r);
    for (int k = 0; k < NSPIN; k++) {
        advance(m, st, T * (k + 1) / NSPIN);
        const double *x = st->q + m->base_col;
        r.wmax = fmax(r.wmax, sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]));
        const rigid_sums s = rigid_sums_of(m, st);
        r.dH = fmax(r.dH, dist3(s.H, s0.H) / norm3(s0.H));
        rod_frame f = tu_frame(m, st, 2);
        r.dE = fmax(r.dE, fabs(f.e_kinetic + f.e_elastic - E0) / E0);
        memcpy(r.pos[k], f.position, sizeof r.pos[k]);
        rod_frame_free(&f);
    }
    rod_state_free(st);
    rod_model_free(m);
    return r;
}

Test(free_base, generalized_alpha_spinning_rod_converges_at_second_order, .timeout = 120)
{
    static spin_run ref, r[3];
    ref = spin("bdf", 0);
    const double h[3] = {2e-3, 1e-3, 5e-4};
    double dp[3] = {0};
    for (int i = 0; i < 3; i++) {
        r[i] = spin("generalized-alpha", h[i]);
        for (int k = 0; k < NSPIN; k++) dp[i] = fmax(dp[i], dist3(r[i].pos[k], ref.pos[k]));
        cr_log_info("generalized-alpha, free rod spinning 1.2 turns, step %.1e s: |dH|/|H| %.3e, "
                    "|dE|/E %.3e, base within %.3e m of BDF's; rotation coordinates up to %.3f rad", h[i],
                    r[i].dH, r[i].dE, dp[i], r[i].wmax);
        cr_assert_gt(r[i].wmax, M_PI, "past the chart's own limit: a re-charting happens");
        cr_assert_lt(r[i].wmax, 1.5 * M_PI + 0.1, "re-charted");
    }
    for (int i = 0; i < 2; i++)
        cr_log_info("halving %.1e s: the errors fall by %.2f (H), %.2f (E), %.2f (position)", h[i],
                    r[i].dH / r[i + 1].dH, r[i].dE / r[i + 1].dE, dp[i] / dp[i + 1]);
    /* over the two halvings together (a quarter of the step): 16 at second order, 4 at first;
     * one halving alone can land on a lucky cancellation of the oscillating error terms (seen:
     * 25.5 then 0.63 for the energy, after kinematic changes moved the middle run's phase) */
    const double rH = r[0].dH / r[2].dH, rE = r[0].dE / r[2].dE, rp = dp[0] / dp[2];
    cr_log_info("quartering the step: the errors fall by %.2f (H), %.2f (E), %.2f (position)", rH, rE, rp);
    cr_assert_gt(rH, 10);
    cr_assert_gt(rE, 10);
    cr_assert_gt(rp, 10);
}

/* The projection onto the constraints is the M-orthogonal projection onto a manifold that is
 * flat at the scale of its tolerance, so it cannot move two states further apart than they
 * were in the metric of M: ||P(x) - P(y)||_M <= ||x - y||_M, to rounding. Two states whose pin
 * violations straddle the projection's tolerance (0.9 and 1.1 times 1e-13 L) test that: a
 * projection that corrects only above its tolerance moves one by its whole correction and
 * the other not at all (measured: 1.34 times their distance apart, against 0.98 with the
 * projection continuous). In coordinates of small mass that jump
 * exceeded a tight atol and CVODE's error test failed until its step underflowed (this
 * pendulum got stuck at t = 0.284 s with some discretizations). */
Test(free_base, projection_onto_the_pin_is_continuous_across_its_tolerance)
{
    const double L = 0.5;
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
             "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": 2, \"bend2\": 2, "
             "\"stretch\": 1}, \"base\": {\"type\": \"free\"}, \"environment\": {\"gravity\": [3, 1, -9]}, "
             "\"constraints\": [{\"name\": \"pin\", \"type\": \"pose\", \"position\": [0, 0, %g]}]}", L);
    rod_model *m = tu_model(json);
    rod_state *st = tu_started(m);
    advance(m, st, 0.05); /* a bent, moving state on the constraint */
    const int n = m->n;
    double qd0[64], qa[64], qb[64], qda[64], qdb[64], acc[64];
    cr_assert_leq(n, 64);
    cr_assert_eq(dyn_accel(m, st, st->t, st->q, st->qd, acc), 0); /* M's factor into st->Mxi */
    memcpy(qd0, st->qd, (size_t)n * sizeof *qd0);
    /* the base's x coordinate moves the whole rod, the pin with it */
    const int j = m->base_col + 3;
    memcpy(qa, st->q, (size_t)n * sizeof *qa);
    memcpy(qb, st->q, (size_t)n * sizeof *qb);
    qa[j] += 0.9e-13 * L;
    qb[j] += 1.1e-13 * L;
    memcpy(qda, qd0, sizeof qda);
    memcpy(qdb, qd0, sizeof qdb);
    double L_M[64 * 64];
    memcpy(L_M, st->Mxi, (size_t)n * n * sizeof *L_M);
    cr_assert_eq(dyn_project(m, st, st->t, qa, qda), 0);
    cr_assert_eq(dyn_project(m, st, st->t, qb, qdb), 0);
    /* ||x||_M = ||L^T x|| with M = L L^T (the classic model: M is M_xi alone) */
    double before = 0, after = 0;
    for (int c = 0; c < n; c++) {
        double u = 0, v = 0;
        for (int r = c; r < n; r++) {
            u += L_M[r + n * c] * (r == j ? 0.2e-13 * L : 0.0);
            v += L_M[r + n * c] * (qb[r] - qa[r]);
        }
        before += u * u;
        after += v * v;
    }
    before = sqrt(before);
    after = sqrt(after);
    cr_log_info("states %.3e apart in the metric of M, %.3e after the projection", before, after);
    cr_assert_leq(after, before * (1 + 1e-3) + 1e-18, "the projection moved them from %.3e to %.3e apart", before, after);
    rod_state_free(st);
    rod_model_free(m);
}

/* ---- the generalized-alpha integrator with a free base ---- */

static rod_model *free_rod_galpha(double eta, double gz, double h)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": \"classic\", \"base\": {\"type\": \"free\"}, \"rod\": {\"length\": 0.5, \"radius\": 0.01, "
             "\"density\": 1000, \"youngs_modulus\": 1e5, \"poisson_ratio\": 0.45, \"shear_viscosity\": %g}, "
             "\"strains\": {\"bend1\": 2, \"bend2\": 2, \"twist\": 1, \"stretch\": 1}, "
             "\"solver\": {\"integrator\": \"generalized-alpha\", \"step\": %.17g, \"rtol\": %g, \"atol\": %g}, "
             "\"environment\": {\"gravity\": [0, 0, %g]}}",
             eta, h, RTOL, ATOL, gz);
    return tu_model(json);
}

Test(free_base, generalized_alpha_drops_a_free_rod_as_g_t2_over_2, .timeout = 120)
{
    /* tilted and thrown as in the BDF test: the rigid motion's coordinates are quadratic in t
     * (the rod keeps its shape), which the method integrates exactly, so what is left is its
     * Newton tolerance, 0.01 of rtol |q| + atol per step */
    const double g = -9.81, h = 1e-3;
    rod_model *m = free_rod_galpha(0.0, g, h);
    rod_state *st = tu_started(m);
    const double tilt[3] = {0.7, 0.3, 0.0}, twist[6] = {0, 0, 0, 0.3, 0.0, 0.1};
    memcpy(st->q + m->base_col, tilt, sizeof tilt);
    set_velocity(m, st, twist, 0.0);
    const rigid_sums s0 = rigid_sums_of(m, st);
    double dz = 0, strain = 0;
    for (int k = 1; k <= 10; k++) {
        const double t = 0.05 * k;
        advance(m, st, t);
        const rigid_sums s = rigid_sums_of(m, st);
        const double expect[3] = {s0.com[0] + s0.P[0] / s0.mass * t, s0.com[1] + s0.P[1] / s0.mass * t,
                                  s0.com[2] + s0.P[2] / s0.mass * t + g * t * t / 2};
        dz = fmax(dz, dist3(s.com, expect));
        for (int j = 0; j < m->base_col; j++) strain = fmax(strain, fabs(st->q[j]));
    }
    const long steps = steps_taken(st);
    const double fall = fabs(g) * 0.25 / 2;
    cr_log_info("generalized-alpha (h = %g s): free rod falling 0.5 s, %ld steps: centre of mass within "
                "%.2e m of g t^2/2, largest strain coordinate %.2e", h, steps, dz, strain);
    cr_assert_lt(dz, steps * 0.01 * (RTOL * fall + ATOL) + 1e-12);
    cr_assert_lt(strain, steps * ATOL);
    rod_state_free(st);
    rod_model_free(m);
}

/* spun 2.4 turns (as the BDF test): the drift of the angular momentum at step h */
static double spin_drift_galpha(double h, double *wmax, long *steps)
{
    rod_model *m = free_rod_galpha(20.0, 0.0, h);
    rod_state *st = tu_started(m);
    const double w = 6.0, T = 2.5;
    const double twist[6] = {w, 0.1 * w, 0, -0.25 * 0.1 * w, 0.25 * w, 0};
    set_velocity(m, st, twist, 0.0);
    const rigid_sums s0 = rigid_sums_of(m, st);
    double dH = 0;
    *wmax = 0;
    for (int k = 1; k <= 50; k++) {
        advance(m, st, T * k / 50);
        const rigid_sums s = rigid_sums_of(m, st);
        dH = fmax(dH, dist3(s.H, s0.H));
        const double *x = st->q + m->base_col;
        *wmax = fmax(*wmax, sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]));
    }
    *steps = steps_taken(st);
    const double rel = dH / norm3(s0.H);
    rod_state_free(st);
    rod_model_free(m);
    return rel;
}

Test(free_base, generalized_alpha_spins_a_free_rod_across_rechartings_at_second_order, .timeout = 120)
{
    /* the method does not conserve angular momentum exactly; its drift must fall as h^2 (a
     * chart change that lost or mangled the twist would not), and the rotation coordinates
     * must stay within pi plus one step's turn */
    double w1, w2;
    long n1, n2;
    const double h = 2e-3, d1 = spin_drift_galpha(h, &w1, &n1), d2 = spin_drift_galpha(h / 2, &w2, &n2);
    cr_log_info("generalized-alpha: free rod spun 2.4 turns: |dH|/|H| %.2e at h = %g s (%ld steps), %.2e at "
                "h / 2 (ratio %.2f, second order 4); rotation coordinates up to %.4f rad", d1, h, n1, d2, d1 / d2,
                fmax(w1, w2));
    cr_assert_lt(fmax(w1, w2), 1.5 * M_PI + 6.0 * h + 1e-9, "re-charted where the chart ends (3 pi / 2, base.h)");
    cr_assert_gt(d1 / d2, 3.0, "not second order: %g then %g", d1, d2);
}
