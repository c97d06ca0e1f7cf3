/* Seed 002's friction validations (its appendix: Fig. 17 rolling friction, Fig. 18 anisotropic
 * axial friction) on a free rod: a free base, lying on a plane, touched by nothing else. Each
 * compares the translational and rotational energies E_T = m v^2 / 2, E_R = J w^2 / 2 at the
 * end time with the rigid rod's analytic ones, with the seed's parameters: L = 1 m, r = 0.025 m,
 * m = 1 kg, E = 1e9 Pa (Fig. 18: 1e5), G = 2E/3, g = 9.81, mu_s = 0.4, mu_k = 0.2 (Fig. 18:
 * forward 0.8 / 0.4, backward 0.4 / 0.2), v_eps = 1e-4 m/s (Fig. 17e: 1e-6), and its end times;
 * the sweeps take points on both sides of each threshold, as the seed's do.
 *
 * What differs from the seed, and why it cannot move the energies the analytic results speak of:
 * - The wall. PyElastica's plane (Fig. 7) first cancels whatever pushes the rod into it, so its
 *   k_w = 10 N/m per element only corrects drift; rodd's is a penalty, so it needs a real
 *   stiffness: 1e4 N/m per m (a penetration of 1e-3 m, 4 % of r). The rod starts settled on it
 *   (a first run without friction or tangential load brings it to rest; the contact points'
 *   trapezoid rule and the stations' Gauss rule weigh the rod's quadratic bending mode
 *   differently, so the straight rod is not quite at rest on the wall). The contact point lies
 *   a radius from the centre line whatever the penetration, so rolling is v = w r exactly.
 * - The seed's dissipation gamma = 1e-6 kg/(m s) (a drag on every velocity, 5e-7 of the
 *   motion over these times) is left out. Where the rod spins slower than 100 rad/s a
 *   Kelvin-Voigt viscosity of 5e5 Pa s damps its elastic vibrations (it acts on deformation
 *   only, which the rigid-rod results do not have) so the integrator need not resolve them.
 *   The couple sweep spins the rod to 390 rad/s and runs without it: above about 200 rad/s
 *   that internal (rotating) damping makes the spinning rod whirl, as it does a supercritical
 *   shaft (measured: the wall's load swinging by 0.1 % and growing, E_T 8e-4 off at C = 0.17).
 * - The friction law is the regularized Coulomb law of core/stages/contact.c: below v_eps the force
 *   grows linearly with the slip (a stuck contact creeps at u < v_eps), above it the
 *   coefficient falls from mu_s to mu_k as exp(-(u - v_eps) / v_eps). The tolerances are what
 *   that regularization can do to the ideal stick-slip solution, bounded from the rigid rod's
 *   equations (below), plus the integrator's share.
 * - The couple of Fig. 17c is a distributed_moment (PyElastica's UniformTorques): a couple at
 *   one section would twist the rod and let that section slip first (measured: C = 0.14 N m,
 *   5 % under the rolling limit, slipped at once). */
#include "base.h"
#include "kinematics.h"
#include "model.h"
#include "state.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define RL 1.0      /* m */
#define RR 0.025    /* m */
#define RM 1.0      /* kg */
#define G 9.81
#define KW 1e4      /* N/m per m of rod */
#define RTOL 1e-8

typedef struct {
    double E;            /* Young's modulus */
    double g_normal;     /* gravity into the plane, m/s^2 */
    double g_tangent[2]; /* gravity (or a uniform pull per unit mass) along y and z */
    const char *friction;
    const char *extra;   /* more members of the spec's root (loads), or "" */
    double inertia;      /* rod.rotary_inertia_factor */
    double viscosity;    /* rod.shear_viscosity */
    double atol;
} plane_case;

/* The rod along z with its centre line at x = 0, the plane x = -(r - eps) below it, normal +x.
 * settle: the same rod without friction, tangential load or extra, its wall critically damped. */
static void plane_rod_json(const plane_case *c, int settle, char json[3000])
{
    const double rho = RM / (M_PI * RR * RR * RL), q = RM * c->g_normal / RL;
    char fr[400] = "";
    if (!settle) snprintf(fr, sizeof fr, ", \"friction\": %s", c->friction);
    snprintf(json, 3000,
             "{\"model\": \"classic\", \"base\": {\"type\": \"free\"}, \"rod\": {\"length\": %g, \"radius\": %g, "
             "\"density\": %.17g, \"youngs_modulus\": %g, \"shear_modulus\": %.17g, \"shear_viscosity\": %g, "
             "\"rotary_inertia_factor\": %.17g}, "
             "\"strains\": {\"bend1\": 2, \"bend2\": 2, \"twist\": 1, \"stretch\": 1}, "
             "\"environment\": {\"gravity\": [%.17g, %.17g, %.17g], \"obstacles\": [{\"type\": \"plane\", "
             "\"point\": [%.17g, 0, 0], \"normal\": [1, 0, 0], \"stiffness\": %g, \"damping\": %g%s}]}%s, "
             "\"solver\": {\"rtol\": %g, \"atol\": %g}}",
             RL, RR, rho, c->E, 2 * c->E / 3, c->viscosity, c->inertia, -c->g_normal, settle ? 0.0 : c->g_tangent[0],
             settle ? 0.0 : c->g_tangent[1], -(RR - q / KW), KW, settle ? 2 * sqrt(KW * RM / RL) : 10.0, fr,
             settle ? "" : c->extra, RTOL, c->atol);
}

static rod_model *plane_rod(const plane_case *c, int settle)
{
    char json[3000];
    plane_rod_json(c, settle, json);
    return tu_model(json);
}

/* A state of the case's model at rest where the wall holds the rod up. */
static rod_state *settled(const plane_case *c, const rod_model *m)
{
    rod_model *ms = plane_rod(c, 1);
    rod_state *ss = tu_started(ms);
    cr_assert_eq(rod_dynamics_advance(ms, ss, 0.3), ROD_OK, "settling: %s", rod_state_error(ss));
    rod_state *st = tu_started(m);
    cr_assert_eq(rod_state_set_q(st, ss->q, m->n), ROD_OK);
    memset(st->qd, 0, (size_t)m->n * sizeof *st->qd);
    rod_state_mark_restart(st);
    rod_state_free(ss);
    rod_model_free(ms);
    return st;
}

typedef struct {
    double ET, ER;
    double v_axial; /* the centre of mass's velocity along the rod (z) */
} energies;

/* E_T and E_R by the stations' quadrature, as PyElastica sums them over its nodes and elements. */
static energies rod_energies(const rod_model *m, rod_state *st)
{
    energies e = {0, 0, 0};
    kin_forward_twist(m, st->q, st->qd, st->g, st->eta);
    base_free_apply(m, st->q, st->qd, st->g, NULL, m->ns, st->eta, NULL);
    const double f = m->spec->rotary_inertia_factor;
    double mass = 0;
    for (int k = 0; k < m->ns; k++) {
        const double w = m->w[k];
        if (w == 0) continue;
        const section *c = &m->sec[k];
        const double *x = st->eta + 6 * k, *R = st->g[k].R, mu = m->rho0 * c->A0;
        e.ET += 0.5 * w * mu * (x[3] * x[3] + x[4] * x[4] + x[5] * x[5]);
        e.ER += 0.5 * w * f * m->rho0 * (c->I11 * x[0] * x[0] + c->I22 * x[1] * x[1] + c->I33 * x[2] * x[2]);
        e.v_axial += w * mu * (R[2] * x[3] + R[5] * x[4] + R[8] * x[5]); /* (R v)_z */
        mass += w * mu;
    }
    e.v_axial /= mass;
    return e;
}

static energies run_case(const plane_case *c, double T, long *steps)
{
    rod_model *m = plane_rod(c, 0);
    rod_state *st = settled(c, m);
    cr_assert_eq(rod_dynamics_advance(m, st, T), ROD_OK, "%s", rod_state_error(st));
    const energies e = rod_energies(m, st);
    rod_dynamics_stats s;
    cr_assert_eq(rod_dynamics_get_stats(st, &s), ROD_OK);
    *steps = s.steps;
    rod_state_free(st);
    rod_model_free(m);
    return e;
}

/* ---- what the regularization can do, from the rigid rod's equations ----
 * Sticking (rolling without slip, or held): the contact creeps at a slip u* < v_eps, so the
 * speeds differ from the ideal ones by less than v_eps and E by less than 2 v_eps / v.
 * Breaking free: until the slip u passes v_eps the friction is at most mu_s N, and afterwards
 * its excess over mu_k N is (mu_s - mu_k) N exp(-(u - v_eps) / v_eps). While the friction is at
 * most mu_s N the slip grows at least at the rate a_min it has with mu_s N, so the excess
 * impulse is at most (mu_s - mu_k) N (v_eps / a_min) for each phase: I <= 2 (mu_s - mu_k) N v_eps
 * / a_min. It changes v by at most I / m and w by I r / J; an energy x^2 by 2 d + d^2 in
 * relative terms, d = dx / x. */
static double creep_bound(double ve, double v) { return 2 * ve / v; }

static double breakaway_impulse(double dmu, double N, double ve, double a_min)
{
    return 2 * dmu * N * ve / a_min;
}

static double energy_bound(double dx, double x)
{
    const double d = fabs(dx / x);
    return 2 * d + d * d;
}

/* The integrator's share: CVODE keeps each step's local error in a velocity x below
 * rtol |x| + atol, so after n steps x is off by at most n (rtol |x| + atol) and x^2 by twice
 * that, relative (the bound test_free_base.c uses for its invariants). */
static double integrator_bound(long steps, double atol, double x)
{
    return 2.0 * steps * (RTOL + atol / fabs(x));
}

static void check(const char *what, double got, double want, double tol)
{
    const double err = fabs(got / want - 1);
    cr_log_info("  %s %.6e J, analytic %.6e J: error %.1e (allowed %.1e)", what, got, want, err, tol);
    cr_expect_lt(err, tol, "%s: %g vs %g (error %.2e > %.2e)", what, got, want, err, tol);
}

/* ---- Fig. 17a-b: a rod on an incline, angle alpha_s pi ---- */

static void incline(double alpha_s)
{
    const double a = alpha_s * M_PI, mu_s = 0.4, mu_k = 0.2, ve = 1e-4, T = 0.5;
    const double J = 0.5 * RM * RR * RR;
    const plane_case c = {1e9, G * cos(a), {-G * sin(a), 0}, "{\"static\": 0.4, \"kinetic\": 0.2, \"threshold_velocity\": 1e-4}", "", 1, 5e5, 1e-9};
    long steps;
    const energies e = run_case(&c, T, &steps);
    /* rolls while the friction rolling needs, m g sin(a) / 3, is within mu_s m g cos(a) */
    const int rolls = sin(a) / 3 <= mu_s * cos(a);
    double v, w, tolT, tolR;
    if (rolls) {
        v = 2.0 / 3 * G * sin(a) * T;
        w = v / RR;
        tolT = tolR = creep_bound(ve, v);
    } else {
        v = G * (sin(a) - mu_k * cos(a)) * T;
        w = mu_k * RM * G * cos(a) * RR * T / J;
        const double N = RM * G * cos(a), a_min = G * sin(a) - mu_s * N / RM * (1 + RM * RR * RR / J);
        const double I = breakaway_impulse(mu_s - mu_k, N, ve, a_min);
        tolT = energy_bound(I / RM, v);
        tolR = energy_bound(I * RR / J, w);
    }
    cr_log_info("incline alpha = %.2f pi (%s; critical tan a = 3 mu_s at %.4f pi), %ld steps:", alpha_s,
                rolls ? "rolls" : "slips", atan(3 * mu_s) / M_PI, steps);
    check("E_T", e.ET, 0.5 * RM * v * v, tolT + integrator_bound(steps, c.atol, v));
    check("E_R", e.ER, 0.5 * J * w * w, tolR + integrator_bound(steps, c.atol, w));
}

/* make test runs the sweeps' ends (the value nearest each limit, and the far end where it
 * says something the near one does not); make test-long (RODD_LONG=1) the seed's whole sweep */
static int long_tier(void)
{
    const char *e = getenv("RODD_LONG");
    return e && strcmp(e, "1") == 0;
}

Test(free_friction, fig17b_a_rod_rolls_down_an_incline_below_the_critical_angle, .timeout = 300)
{
    const double all[] = {0.05, 0.15, 0.25, 0.27}, ends[] = {0.05, 0.27};
    const double *alphas = long_tier() ? all : ends;
    for (int i = 0; i < (long_tier() ? 4 : 2); i++) incline(alphas[i]);
}

Test(free_friction, fig17b_above_the_critical_angle_it_slips, .timeout = 300)
{
    const double alphas[] = {0.28, 0.3, 0.4, 0.45};
    for (int i = 0; i < 4; i++) incline(alphas[i]);
}

/* ---- Fig. 17c-d: a rod on a level plane set rolling by a couple C_s about its axis ---- */

static void couple(double C)
{
    const double mu_s = 0.4, mu_k = 0.2, ve = 1e-4, T = 1, J = 0.5 * RM * RR * RR;
    char loads[200];
    snprintf(loads, sizeof loads, ", \"loads\": [{\"name\": \"C\", \"type\": \"distributed_moment\", "
             "\"moment\": [0, 0, %.17g], \"frame\": \"local\"}]", C / RL);
    const plane_case c = {1e9, G, {0, 0}, "{\"static\": 0.4, \"kinetic\": 0.2, \"threshold_velocity\": 1e-4}", loads, 1, 0, 1e-8};
    long steps;
    const energies e = run_case(&c, T, &steps);
    /* rolling needs the friction f = C / (r (1 + m r^2 / J)) = 2 C / (3 r), within mu_s m g */
    const double C_crit = mu_s * RM * G * RR * (1 + J / (RM * RR * RR));
    const int rolls = C <= C_crit;
    double v, w, tolT, tolR;
    if (rolls) {
        v = C / (RR * RM * (1 + J / (RM * RR * RR))) * T;
        w = v / RR;
        tolT = tolR = creep_bound(ve, v);
    } else {
        v = mu_k * G * T;
        w = (C - mu_k * RM * G * RR) / J * T;
        /* the slip r w - v grows at least at (r / J) (C - C_crit) while friction is within mu_s m g */
        const double I = breakaway_impulse(mu_s - mu_k, RM * G, ve, RR / J * (C - C_crit));
        tolT = energy_bound(I / RM, v);
        tolR = energy_bound(I * RR / J, w);
    }
    cr_log_info("couple C_s = %.3f N m (%s; critical %.4f N m), %ld steps:", C, rolls ? "rolls" : "slips", C_crit, steps);
    check("E_T", e.ET, 0.5 * RM * v * v, tolT + integrator_bound(steps, c.atol, v));
    check("E_R", e.ER, 0.5 * J * w * w, tolR + integrator_bound(steps, c.atol, w));
}

Test(free_friction, fig17d_a_couple_below_the_limit_rolls_the_rod, .timeout = 300)
{
    const double Cs[] = {0.14, 0.03, 0.09}; /* nearest the rolling limit 0.1472 first */
    for (int i = 0; i < (long_tier() ? 3 : 1); i++) couple(Cs[i]);
}

Test(free_friction, fig17d_a_couple_above_it_spins_the_rod_slipping, .timeout = 300)
{
    const double Cs[] = {0.15, 0.17};
    for (int i = 0; i < (long_tier() ? 2 : 1); i++) couple(Cs[i]);
}

/* ---- Fig. 17e-f: a rod thrown sideways at V_s slides, spins up and ends rolling ----
 * Friction and the wall both act on the line of contact, gravity acts above it, and the
 * normal force balances gravity: the angular momentum about a fixed line in the plane of the
 * contact points, m v r + J w, is conserved whatever the friction law. Once rolling, v = w r:
 * v = V_s / (1 + J / (m r^2)), J = lambda m r^2 / 2 (lambda: rod.rotary_inertia_factor, PyElastica's
 * IFactor), exactly for the regularized law too once its creep has died away (nothing pushes
 * the rolling rod, so it decays at a rate mu_s g (1 + m r^2 / J) / v_eps ~ 1e7 1/s). What is
 * left is the integrator's error. */
static void thrown(double half_lambda)
{
    const double V = 1, T = 2, lam = 2 * half_lambda, J = lam * 0.5 * RM * RR * RR;
    const plane_case c = {1e9, G, {0, 0}, "{\"static\": 0.4, \"kinetic\": 0.2, \"threshold_velocity\": 1e-6}", "", lam, 5e5, 1e-9};
    rod_model *m = plane_rod(&c, 0);
    rod_state *st = settled(&c, m);
    st->qd[m->base_col + 4] = V; /* the base's twist at rest on the plane: every point at V along y */
    rod_state_mark_restart(st);
    cr_assert_eq(rod_dynamics_advance(m, st, T), ROD_OK, "%s", rod_state_error(st));
    const energies e = rod_energies(m, st);
    rod_dynamics_stats s;
    cr_assert_eq(rod_dynamics_get_stats(st, &s), ROD_OK);
    const double v = V / (1 + J / (RM * RR * RR)), w = v / RR;
    cr_log_info("thrown at %.1f m/s, lambda / 2 = %.2f (rolling from t = %.3f s), %ld steps:", V, half_lambda,
                V / (0.2 * G * (1 + RM * RR * RR / J)), s.steps);
    check("E_T", e.ET, 0.5 * RM * v * v, integrator_bound(s.steps, c.atol, v));
    check("E_R", e.ER, 0.5 * J * w * w, integrator_bound(s.steps, c.atol, w));
    rod_state_free(st);
    rod_model_free(m);
}

Test(free_friction, fig17f_a_sliding_light_rod_ends_rolling_with_its_angular_momentum, .timeout = 300)
{
    if (!long_tier()) cr_skip_test("in make test-long: make test throws the heavy rod (lambda / 2 = 0.5)");
    thrown(0.1);
}

Test(free_friction, fig17f_a_sliding_heavy_rod_ends_rolling_with_its_angular_momentum, .timeout = 300)
{
    thrown(0.5);
    if (long_tier()) thrown(0.95);
}

/* ---- Fig. 18: a soft rod pulled along its axis by F against anisotropic friction ----
 * F is a uniform pull (PyElastica's UniformForces): a gravity component F / m along the rod.
 * Below the static threshold mu_s m g the rod holds, creeping at less than v_eps: E_T is 0
 * in the ideal law and here at most m v_eps^2 / 2 in the axial motion (the wall's own small
 * vertical motion adds to E_T, reported). Above it, E_T = (F - mu_k m g)^2 T^2 / (2 m). */
static void pull(double F)
{
    const double T = 0.25, ve = 1e-4;
    const int fwd = F >= 0;
    const double mu_s = fwd ? 0.8 : 0.4, mu_k = fwd ? 0.4 : 0.2;
    const plane_case c = {1e5, G, {0, F / RM},
                          "{\"static\": [0.8, 0.4, 0.4], \"kinetic\": [0.4, 0.2, 0.2], \"threshold_velocity\": 1e-4}", "", 1, 5e5, 1e-9};
    long steps;
    const energies e = run_case(&c, T, &steps);
    const double N = RM * G, Fs = mu_s * N;
    if (fabs(F) <= Fs) {
        const double Ea = 0.5 * RM * e.v_axial * e.v_axial;
        cr_log_info("pulled %s with %.2f N (holds: static threshold %.3f N), %ld steps: E_T %.2e J (axial "
                    "%.2e J, creep at %.2e m/s; bound m v_eps^2 / 2 = %.1e J)", fwd ? "forward" : "backward",
                    fabs(F), Fs, steps, e.ET, Ea, fabs(e.v_axial), 0.5 * RM * ve * ve);
        cr_expect_lt(fabs(e.v_axial), ve, "a held rod creeps below v_eps");
        cr_expect(e.v_axial * F >= 0, "it creeps the way it is pulled");
        return;
    }
    const double v = (fabs(F) - mu_k * N) / RM * T;
    const double I = breakaway_impulse(mu_s - mu_k, N, ve, (fabs(F) - Fs) / RM);
    cr_log_info("pulled %s with %.2f N (slides: static threshold %.3f N), %ld steps:", fwd ? "forward" : "backward",
                fabs(F), Fs, steps);
    check("E_T", e.ET, 0.5 * RM * v * v, energy_bound(I / RM, v) + integrator_bound(steps, c.atol, v));
    cr_expect(e.v_axial * F > 0, "it slides the way it is pulled");
}

Test(free_friction, fig18_a_pulled_rod_holds_below_its_static_threshold_and_slides_above, .timeout = 300)
{
    const double F[] = {2, 5, 7.5, 8, 10.5, -2, -3.5, -4, -6, -10.5};
    for (int i = 0; i < 10; i++) pull(F[i]);
}

/* The same pull on generalized-alpha at the snake's 4 ms step and Newton tolerances, its wall's
 * laws solved along each correction, with v_eps 1e-6 (nearly Coulomb's law): between the
 * kinetic and the static friction a correction's laws have two solutions, stuck and sliding at
 * mu_k, and only the first is the rod's (it starts at rest). Pulled at 0.9 of its static
 * friction it holds (creeping below v_eps at 0.25 s); at 1.1 it slides at (F - mu_k N) / m,
 * within the breakaway's impulse (breakaway_impulse) and the step's error in the start of the
 * slide (the force ramps over one step: v moves by at most (F - mu_k N) h / m). An inner solve
 * that evaluated the shares' fall along the correction held this uniform pull too; it broke
 * the snake loose early (test_locomotion, the snake on nearly Coulomb friction). */
static double pulled_on_galpha(double F)
{
    const double T = 0.25;
    const plane_case c = {1e5, G, {0, F / RM},
                          "{\"static\": [0.8, 0.4, 0.4], \"kinetic\": [0.4, 0.2, 0.2], \"threshold_velocity\": 1e-6}", "", 1, 5e5,
                          1e-9};
    char json[3000];
    plane_rod_json(&c, 0, json);
    const char *sets[] = {"solver.integrator=generalized-alpha", "solver.step=0.004", "solver.jacobian=contact",
                          "solver.rtol=1e-2", "solver.atol=1e-5"};
    rod_model *m = tu_model_set(json, sets, 5);
    rod_state *st = settled(&c, m);
    cr_assert_eq(rod_dynamics_advance(m, st, T), ROD_OK, "%s", rod_state_error(st));
    const energies e = rod_energies(m, st);
    rod_state_free(st);
    rod_model_free(m);
    return e.v_axial;
}

Test(free_friction, generalized_alpha_with_the_walls_solved_holds_a_pull_below_static_friction, .timeout = 300)
{
    const double ve = 1e-6, T = 0.25, h = 0.004, N = RM * G, Fs = 0.8 * N, mu_k = 0.4;
    const double v_hold = pulled_on_galpha(0.9 * Fs);
    cr_log_info("generalized-alpha, 4 ms, v_eps 1e-6: pulled with 0.9 of the static friction, %.3e m/s at %.2f s",
                v_hold, T);
    cr_expect_lt(fabs(v_hold), ve, "held below the static threshold, it slid at %.3e m/s", v_hold);
    const double F = 1.1 * Fs, v = pulled_on_galpha(F), a = (F - mu_k * N) / RM;
    const double bound = breakaway_impulse(0.8 - mu_k, N, ve, (F - Fs) / RM) / RM + a * h;
    cr_log_info("pulled with 1.1 of it: %.5f m/s against (F - mu_k N) T / m = %.5f (bound %.1e)", v, a * T, bound);
    cr_expect_lt(fabs(v - a * T), bound, "slid at %.5f m/s against %.5f", v, a * T);
}

/* ---- the shipped rolling rod (api/examples/rod-rolling-incline.json, mu_s 0.4, mu_k 0.2) on
 * generalized-alpha with its wall's laws solved along each Newton correction ----
 * Rolling is sticking at the contact line: the case the solved laws are for. The incline is
 * the example's 0.1 pi and 0.25 pi, near the critical angle (0.279 pi), where a first step
 * from rest that slides the contact line past v_eps lands on the kinetic branch (mu_k cannot
 * hold it) and the rod slid at any step over 2e-5 s until the start was made to build the
 * creep's friction first (galpha.c, start_under_creep). The centre's acceleration from second
 * differences of its position at 0.1, 0.4 and 0.7 s (the start's velocity offset cancels)
 * converges at the method's second order to 2/3 g sin(alpha), and the Richardson
 * extrapolation of the two finest steps is the analytic one within what the creep allows: a
 * slip below v_eps moves each of the two velocity differences by less than v_eps over 0.3 s. */
static double rolling_acceleration(double alpha_s, double h, long *steps)
{
    char *json = tu_read_file("api/examples/rod-rolling-incline.json");
    cr_assert_not_null(json);
    const double a = alpha_s * M_PI;
    char step[64], gravity[96], point[96];
    snprintf(step, sizeof step, "solver.step=%g", h);
    snprintf(gravity, sizeof gravity, "environment.gravity=[%.17g, %.17g, 0]", -G * cos(a), -G * sin(a));
    snprintf(point, sizeof point, "environment.obstacles.0.point=[%.17g, 0, 0]", -(RR - RM * G * cos(a) / (RL * KW)));
    const char *sets[] = {"solver.integrator=generalized-alpha", step, "solver.rtol=1e-6", "solver.atol=1e-8", gravity,
                          point};
    rod_model *m = tu_model_set(json, sets, 6);
    free(json);
    rod_state *st = tu_started(m);
    double y[3];
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(rod_dynamics_advance(m, st, 0.1 + 0.3 * i), ROD_OK, "%s", rod_state_error(st));
        double c[3];
        tu_centre_of_mass(m, st, c);
        y[i] = c[1];
    }
    rod_dynamics_stats s;
    cr_assert_eq(rod_dynamics_get_stats(st, &s), ROD_OK);
    *steps = s.steps;
    rod_state_free(st);
    rod_model_free(m);
    return -(y[2] - 2 * y[1] + y[0]) / (0.3 * 0.3); /* down the incline, -y */
}

Test(free_friction, generalized_alpha_with_the_walls_solved_rolls_at_two_thirds_g_sin_alpha, .timeout = 300)
{
    const double a = 2.0 / 3 * G * sin(0.1 * M_PI), ve = 1e-4;
    long n1, n2;
    const double a1 = rolling_acceleration(0.1, 5e-4, &n1), a2 = rolling_acceleration(0.1, 2.5e-4, &n2);
    const double e1 = a1 / a - 1, e2 = a2 / a - 1, ar = (4 * a2 - a1) / 3, creep = 2 * ve / 0.3 / a;
    cr_log_info("rolling at 0.1 pi on generalized-alpha, walls solved: h 0.5 ms %.3e (%ld steps), 0.25 ms %.3e "
                "(%ld steps), extrapolated %.2e (creep bound %.1e)", e1, n1, e2, n2, ar / a - 1, creep);
    cr_expect_gt(fabs(e1), 3 * fabs(e2), "not second order: %.3e then %.3e", e1, e2);
    cr_expect_lt(fabs(ar / a - 1), creep, "extrapolated %.6f against %.6f", ar, a);
}

/* At 0.25 pi the rod needs 0.83 of mu_s N to roll. Started from rest at a 1 ms step it must
 * take the rolling branch, not the sliding one (g (sin - mu_k cos), 20 % faster): its centre at
 * 0.15 s nearer the rolling one than a tenth of the way to the sliding one. (Later, near 0.22
 * s at 0.5 ms, it does break into sliding: the creep slip sits at 0.83 v_eps, and an error of
 * 2e-5 m/s in the contact line's velocity at 1 m/s crosses v_eps; BDF at rtol 1e-8 rolls on.) */
Test(free_friction, generalized_alpha_from_rest_near_the_static_limit_starts_rolling, .timeout = 300)
{
    char *json = tu_read_file("api/examples/rod-rolling-incline.json");
    cr_assert_not_null(json);
    const double a = 0.25 * M_PI, T = 0.15;
    char gravity[96], point[96];
    snprintf(gravity, sizeof gravity, "environment.gravity=[%.17g, %.17g, 0]", -G * cos(a), -G * sin(a));
    snprintf(point, sizeof point, "environment.obstacles.0.point=[%.17g, 0, 0]", -(RR - RM * G * cos(a) / (RL * KW)));
    const char *sets[] = {"solver.integrator=generalized-alpha", "solver.step=1e-3", gravity, point};
    rod_model *m = tu_model_set(json, sets, 4);
    free(json);
    rod_state *st = tu_started(m);
    const double y0 = st->g[0].r[1];
    cr_assert_eq(rod_dynamics_advance(m, st, T), ROD_OK, "%s", rod_state_error(st));
    kin_forward_twist(m, st->q, st->qd, st->g, st->eta);
    base_free_apply(m, st->q, st->qd, st->g, NULL, m->ns, st->eta, NULL);
    const double d = y0 - st->g[0].r[1], roll = 0.5 * 2.0 / 3 * G * sin(a) * T * T;
    const double slide = 0.5 * G * (sin(a) - 0.2 * cos(a)) * T * T;
    cr_log_info("from rest at 0.25 pi, 1 ms: %.6f m down in %.2f s; rolling %.6f, sliding %.6f", d, T, roll, slide);
    cr_expect_lt(fabs(d - roll), 0.1 * fabs(slide - roll), "slid: %.6f m against rolling %.6f, sliding %.6f", d, roll,
                 slide);
    rod_state_free(st);
    rod_model_free(m);
}
