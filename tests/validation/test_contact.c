/* Contact with obstacles against independent results.
 * - A cantilever lying on a soft plane under its weight is a beam on a Winkler foundation:
 *   EI w'''' + k w = -q with w(0) = w'(0) = 0 at the clamp and w''(L) = w'''(L) = 0 at the
 *   free end (closed form below); the contact carries the weight less what the clamp takes.
 * - A sphere pressed onto the rod and slid along it: the contact force does not depend on
 *   where it touches relative to the contact points (none can slip between them).
 * - Friction on an incline: below the static threshold the rod only creeps (slower than
 *   v_eps); above it, kinetic friction makes the motion exactly the frictionless one under
 *   the lateral load reduced by mu_k times the normal load, as long as it slides one way.
 * - Anisotropic friction: pulled forward or backward along its axis, the rod meets its
 *   forward or backward kinetic coefficient, again equivalent to a reduced axial load. */
#include "testutil.h"

#include <complex.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- the Winkler foundation ---- */

/* Solves the 4x4 system A x = b (row-major) by Gaussian elimination with pivoting. */
static void solve4(double A[4][4], double b[4])
{
    for (int c = 0; c < 4; c++) {
        int p = c;
        for (int r = c + 1; r < 4; r++)
            if (fabs(A[r][c]) > fabs(A[p][c])) p = r;
        for (int k = 0; k < 4; k++) {
            double t = A[c][k];
            A[c][k] = A[p][k];
            A[p][k] = t;
        }
        double t = b[c];
        b[c] = b[p];
        b[p] = t;
        for (int r = c + 1; r < 4; r++) {
            const double f = A[r][c] / A[c][c];
            for (int k = c; k < 4; k++) A[r][k] -= f * A[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int c = 3; c >= 0; c--) {
        for (int k = c + 1; k < 4; k++) b[c] -= A[c][k] * b[k];
        b[c] /= A[c][c];
    }
}

/* w = -q/k + sum_j a_j u_j with u = Re, Im of exp(lambda (x - x0)), lambda = beta (+-1 + i),
 * x0 = L for the growing pair so nothing overflows */
typedef struct {
    double q, k, beta, L, a[4];
} winkler;

static double winkler_basis(const winkler *w, int j, int d, double x)
{
    const double complex lam = w->beta * ((j < 2 ? 1.0 : -1.0) + I);
    const double x0 = j < 2 ? w->L : 0.0;
    const double complex v = cpow(lam, d) * cexp(lam * (x - x0));
    return j % 2 ? cimag(v) : creal(v);
}

static double winkler_w(const winkler *w, int d, double x)
{
    double v = d == 0 ? -w->q / w->k : 0.0;
    for (int j = 0; j < 4; j++) v += w->a[j] * winkler_basis(w, j, d, x);
    return v;
}

static void winkler_solve(winkler *w)
{
    double A[4][4], b[4];
    const int der[4] = {0, 1, 2, 3};
    const double at[4] = {0, 0, w->L, w->L};
    for (int r = 0; r < 4; r++) {
        for (int j = 0; j < 4; j++) A[r][j] = winkler_basis(w, j, der[r], at[r]);
        b[r] = r == 0 ? w->q / w->k : 0.0;
    }
    solve4(A, b);
    memcpy(w->a, b, sizeof b);
}

/* The solved foundation beam for a round rod of radius r, length L, sagging under its own weight. */
static winkler winkler_round_rod(double L, double r, double E, double rho, double g, double k)
{
    const double EI = E * M_PI * pow(r, 4) / 4, q = rho * M_PI * r * r * g;
    winkler w = {q, k, pow(k / (4 * EI), 0.25), L, {0}};
    winkler_solve(&w);
    return w;
}

Test(contact, a_cantilever_on_a_soft_plane_is_a_beam_on_a_winkler_foundation)
{
    const double L = 1, r = 0.01, E = 1.25e9, rho = 1000, g = 9.81, k = 1e4;
    const winkler w = winkler_round_rod(L, r, E, rho, g, k);
    /* the plane touches the straight rod's surface: x = -r, normal +x, gravity -x */
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": %g, \"density\": %g, "
             "\"youngs_modulus\": %g, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 14}, "
             "\"environment\": {\"gravity\": [%g, 0, 0], \"obstacles\": [{\"name\": \"floor\", "
             "\"type\": \"plane\", \"point\": [%g, 0, 0], \"normal\": [1, 0, 0], \"stiffness\": %g}]}, "
             "\"solver\": {\"tolerance\": 1e-12}}",
             L, r, rho, E, -g, -r, k);
    rod_model *m = tu_model(json);
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 2);
    const double tip = f.position[3], tip_theory = winkler_w(&w, 0, L);
    double total = 0;
    for (int i = 0; i < f.ncontacts; i++) total += f.contact_force[3 * i];
    /* what the foundation carries: k times the integral of -w (Simpson on 2000 pieces) */
    double carried = 0;
    for (int i = 0; i <= 2000; i++) {
        const double x = L * i / 2000, c = (i == 0 || i == 2000) ? 1 : (i % 2 ? 4 : 2);
        carried += c * k * -winkler_w(&w, 0, x) * L / 6000;
    }
    cr_log_info("Winkler (beta L = %.2f): tip %.6e m, theory %.6e (error %.1e); contact %.6f N, "
                "theory %.6f (error %.1e) of the weight %.6f N (the clamp takes the rest)",
                w.beta * L, tip, tip_theory, tip / tip_theory - 1, total, carried, total / carried - 1, w.q * L);
    cr_assert_eq(f.has_contacts, 1);
    cr_assert_eq(f.ncontacts, rod_model_quadrature_points(m) > 100 ? rod_model_quadrature_points(m) : 100,
                 "every contact point but the clamped one touches: %d", f.ncontacts);
    /* the contact points integrate the foundation by the trapezoid rule, an error of a few
     * (beta h)^2 / 12 = 1.3e-4 with h = r (allowed: 3 of them); the beam is slender and its
     * slope 1e-3 */
    const double h = L / (f.ncontacts), trap = 3 * pow(w.beta * h, 2) / 12;
    cr_assert_lt(fabs(tip / tip_theory - 1), trap, "tip off by more than 3 (beta h)^2 / 12 = %.1e", trap);
    cr_assert_lt(fabs(total / carried - 1), trap);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

/* ---- friction on an incline ---- */

/* A cantilever (L 0.5 m, r 1 cm) lying on the plane x = -(r - eps0), pressed in by the
 * normal part of gravity exactly as far as the wall holds it (eps0 = q cos(a) / k), and
 * pulled along -y by the lateral part. friction: a JSON friction object, or NULL; g_lat
 * overrides the lateral gravity (the reduced load of the comparison run). Returns the
 * tip's y at each of the n times. */
#define INC_L 0.5
#define INC_R 0.01
#define INC_K 1e4
#define INC_E 1e8
static void incline_run(double alpha, const char *friction, double g_lat, const double *t, int n,
                        double *y)
{
    const double g = 9.81, q = 1000 * M_PI * INC_R * INC_R * g;
    const double gn = g * cos(alpha), eps0 = q * cos(alpha) / INC_K;
    char json[1400], fr[300] = "";
    if (friction) snprintf(fr, sizeof fr, ", \"friction\": %s", friction);
    snprintf(json, sizeof json,
             "{\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": %g, \"density\": 1000, "
             "\"youngs_modulus\": %g, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": 6, \"bend2\": 4}, "
             "\"environment\": {\"gravity\": [%.17g, %.17g, 0], \"obstacles\": [{\"type\": \"plane\", "
             "\"point\": [%.17g, 0, 0], \"normal\": [1, 0, 0], \"stiffness\": %g, \"damping\": 1%s}]}, "
             "\"solver\": {\"rtol\": 1e-7, \"atol\": 1e-10}}",
             INC_L, INC_R, INC_E, -gn, -g_lat, -(INC_R - eps0), INC_K, fr);
    rod_model *m = tu_model(json);
    rod_state *st = tu_started(m);
    for (int i = 0; i < n; i++) {
        cr_assert_eq(rod_dynamics_advance(m, st, t[i]), ROD_OK, "%s", rod_state_error(st));
        rod_frame f = tu_frame(m, st, 2);
        y[i] = f.position[4];
        rod_frame_free(&f);
    }
    rod_state_free(st);
    rod_model_free(m);
}

Test(contact, below_the_static_threshold_the_rod_only_creeps)
{
    /* tan 20 deg = 0.36 < mu_s = 0.5: every section can be held where it lies; with
     * regularized friction it creeps at v_eps tan(a) / mu_s at most */
    const double alpha = 20 * M_PI / 180, ve = 1e-4, T[1] = {0.2};
    double y[1];
    incline_run(alpha, "{\"static\": 0.5, \"kinetic\": 0.3, \"threshold_velocity\": 1e-4}", 9.81 * sin(alpha),
                T, 1, y);
    const double EI = INC_E * M_PI * pow(INC_R, 4) / 4, q = 1000 * M_PI * INC_R * INC_R * 9.81;
    const double free_sag = q * sin(alpha) * pow(INC_L, 4) / (8 * EI);
    cr_log_info("stuck: tip moved %.2e m in %.1f s (creep bound %.2e m; frictionless it would sag %.3f m)",
                -y[0], T[0], ve * tan(alpha) / 0.5 * T[0], free_sag);
    /* the creep's own law, to 1 %: the elastic restoring force is 1e-3 of the load here */
    const double creep = ve * tan(alpha) / 0.5 * T[0];
    cr_assert(fabs(-y[0] / creep - 1) < 1e-2, "moved %g, creep %g", -y[0], creep);
}

Test(contact, above_the_threshold_kinetic_friction_reduces_the_load_by_mu_k_n)
{
    /* tan 30 deg = 0.58 > mu_s = 0.5: it slides down, every section the same way during the
     * first third of a swing (first period 0.28 s), with the tip moving less than 2 % of L
     * so the load stays across the rod */
    const double alpha = 30 * M_PI / 180, mu_k = 0.3, g = 9.81;
    const double T[3] = {0.03, 0.06, 0.09};
    double yf[3], yr[3];
    incline_run(alpha, "{\"static\": 0.5, \"kinetic\": 0.3, \"threshold_velocity\": 1e-4}", g * sin(alpha),
                T, 3, yf);
    incline_run(alpha, NULL, g * (sin(alpha) - mu_k * cos(alpha)), T, 3, yr);
    for (int i = 0; i < 3; i++) {
        cr_log_info("t %.2f s: tip y with friction %.6e m, frictionless under the reduced load %.6e "
                    "(ratio - 1 = %.1e)", T[i], yf[i], yr[i], yf[i] / yr[i] - 1);
        /* breaking free costs the static excess (mu_s - mu_k) N for as long as the slip takes
         * to pass a few v_eps: a velocity lag of order v_eps, so a relative lag in position
         * of order 2 v_eps / (a t) with a = g (sin a - mu_k cos a); allow four times that */
        const double a = g * (sin(alpha) - mu_k * cos(alpha)), lag = 4 * 2 * 1e-4 / (a * T[i]);
        cr_assert_lt(fabs(yf[i] / yr[i] - 1), lag, "t = %g: %g vs %g", T[i], yf[i], yr[i]);
    }
}

/* ---- anisotropic friction along the axis ---- */

/* A rod that can only stretch (so it cannot buckle), lying pressed into a plane like the
 * incline's, with gravity g_a along +z (forward: the sections slide toward the tip) or -z
 * (backward). Returns the tip's z - L at each time. */
static void axial_run(double g_n, double g_a, const char *friction, const double *t, int n, double *dz)
{
    const double r = 0.025, k = 1e4, q = 1000 * M_PI * r * r * g_n;
    char json[1400], fr[300] = "";
    if (friction) snprintf(fr, sizeof fr, ", \"friction\": %s", friction);
    snprintf(json, sizeof json,
             "{\"model\": \"classic\", \"rod\": {\"length\": 1, \"radius\": %g, \"density\": 1000, "
             "\"youngs_modulus\": 1e5, \"poisson_ratio\": 0.45}, \"strains\": {\"stretch\": 6}, "
             "\"environment\": {\"gravity\": [%.17g, 0, %.17g], \"obstacles\": [{\"type\": \"plane\", "
             "\"point\": [%.17g, 0, 0], \"normal\": [1, 0, 0], \"stiffness\": %g, \"damping\": 1%s}]}, "
             "\"solver\": {\"rtol\": 1e-7, \"atol\": 1e-10}}",
             r, -g_n, g_a, -(r - q / k), k, fr);
    rod_model *m = tu_model(json);
    rod_state *st = tu_started(m);
    for (int i = 0; i < n; i++) {
        cr_assert_eq(rod_dynamics_advance(m, st, t[i]), ROD_OK, "%s", rod_state_error(st));
        rod_frame f = tu_frame(m, st, 2);
        dz[i] = f.position[5] - 1.0;
        rod_frame_free(&f);
    }
    rod_state_free(st);
    rod_model_free(m);
}

Test(contact, forward_and_backward_slides_meet_their_own_kinetic_coefficients)
{
    /* seed 002 Fig. 18's coefficients: forward 0.8 / 0.4, backward 0.4 / 0.2 (static /
     * kinetic); the axial load g_a = g_n beats both static ones. The first axial period
     * is 4 L / sqrt(E / rho) = 0.4 s: every section moves one way until 0.2 s. */
    const char *fr = "{\"static\": [0.8, 0.4, 0.6], \"kinetic\": [0.4, 0.2, 0.3], \"threshold_velocity\": 1e-4}";
    const double g_n = 9.81 / sqrt(2), T[2] = {0.08, 0.15};
    const double mu_k[2] = {0.4, 0.2}, sign[2] = {1, -1};
    const char *name[2] = {"forward", "backward"};
    for (int d = 0; d < 2; d++) {
        double zf[2], zr[2];
        axial_run(g_n, sign[d] * g_n, fr, T, 2, zf);
        const double a = g_n * (1 - mu_k[d]);
        axial_run(g_n, sign[d] * a, NULL, T, 2, zr);
        for (int i = 0; i < 2; i++) {
            cr_log_info("%s, t %.2f s: tip dz with friction %.6e m, frictionless under g_a (1 - mu_k) "
                        "%.6e (ratio - 1 = %.1e)", name[d], T[i], zf[i], zr[i], zf[i] / zr[i] - 1);
            cr_assert(sign[d] * zf[i] > 0, "%s: the tip must move %s", name[d], name[d]);
            /* the breakaway lag of the incline test */
            cr_assert_lt(fabs(zf[i] / zr[i] - 1), 4 * 2 * 1e-4 / (a * T[i]), "%s t = %g", name[d], T[i]);
        }
    }
}

/* ---- contact points ---- */

Test(contact, a_sphere_touching_between_contact_points_is_not_lost)
{
    /* a sphere (R 5 cm) pressing r/4 into a straight rod (r 1 cm), moved along it across
     * one contact point spacing: its force against the continuous integral
     * k int eps(s) ds, eps = r + R - sqrt((R + r - delta)^2 + (s - z0)^2) */
    const double r = 0.01, R = 0.05, delta = r / 4, k = 1e3;
    const double d0 = R + r - delta;
    double exact = 0;
    for (int i = 0; i <= 20000; i++) {
        const double s = -0.1 + 0.2 * i / 20000, e = r + R - sqrt(d0 * d0 + s * s);
        if (e > 0) exact += k * e * 0.2 / 20000;
    }
    double lo = INFINITY, hi = 0;
    int npoints = 0;
    for (int j = 0; j <= 10; j++) {
        const double z0 = 0.5 + 0.01 * j / 10; /* contact points every 1 cm */
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"model\": \"classic\", \"rod\": {\"length\": 1, \"radius\": %g, \"density\": 1000, "
                 "\"youngs_modulus\": 1e7, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 2}, "
                 "\"environment\": {\"obstacles\": [{\"type\": \"sphere\", \"center\": [%.17g, 0, %.17g], "
                 "\"radius\": %g, \"stiffness\": %g}]}}",
                 r, d0, z0, R, k);
        rod_model *m = tu_model(json);
        char err[128];
        rod_state *st = rod_state_create(m, err, sizeof err);
        rod_frame f = tu_frame(m, st, 2);
        double fx = 0;
        for (int i = 0; i < f.ncontacts; i++) fx += f.contact_force[3 * i];
        npoints = f.ncontacts;
        lo = fmin(lo, -fx);
        hi = fmax(hi, -fx);
        rod_frame_free(&f);
        rod_state_free(st);
        rod_model_free(m);
    }
    cr_log_info("sphere slid across a spacing: force %.4f to %.4f N, continuous %.4f N (%.1f %% to %.1f %%), "
                "%d points touching at the last", lo, hi, exact, 100 * (lo / exact - 1), 100 * (hi / exact - 1), npoints);
    /* the contact patch, 2 sqrt(2 (R + r) delta) = 3.5 cm, spans 3 to 4 points */
    cr_assert_gt(lo, 0.9 * exact);
    cr_assert_lt(hi, 1.1 * exact);
}

/* ---- self-contact ---- */

/* The smallest distance between centre-line points (of 201) farther apart along the rod
 * than 4 r, over 2 r: below 1 the tube passes through itself. */
static double self_gap(const rod_frame *f, double r)
{
    double best = INFINITY;
    for (int i = 0; i < f->n; i++)
        for (int j = i + 1; j < f->n; j++) {
            if (f->s[j] - f->s[i] <= 4 * r) continue;
            double d2 = 0;
            for (int a = 0; a < 3; a++) {
                const double d = f->position[3 * i + a] - f->position[3 * j + a];
                d2 += d * d;
            }
            best = fmin(best, sqrt(d2) / (2 * r));
        }
    return best;
}

Test(contact, a_rod_curled_past_a_full_loop_does_not_pass_through_itself)
{
    /* a follower tip moment of 1.25 loops (M L / EI = 2.5 pi) curls the rod's end onto
     * its base; self-contact (k_sc 1e7 N/m per m^2) keeps the tubes apart */
    const char *fmt =
        "{\"model\": \"classic\", \"rod\": {\"length\": 1, \"radius\": 0.02, \"density\": 1000, "
        "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 12, \"bend1\": 8}, "
        "\"loads\": [{\"name\": \"m\", \"type\": \"tip_moment\", \"moment\": [0, 0.98696, 0], \"frame\": \"local\"}]%s, "
        "\"solver\": {\"tolerance\": 1e-9}}";
    char json[1024];
    double gap[2];
    int ncont = 0;
    for (int c = 0; c < 2; c++) {
        snprintf(json, sizeof json, fmt, c ? ", \"environment\": {\"self_contact\": {\"stiffness\": 1e7}}" : "");
        rod_model *m = tu_model(json);
        rod_state *st = tu_solve(m);
        rod_frame f = tu_frame(m, st, 201);
        gap[c] = self_gap(&f, 0.02);
        if (c) ncont = f.ncontacts;
        rod_frame_free(&f);
        rod_state_free(st);
        rod_model_free(m);
    }
    cr_log_info("closest approach of distant sections over 2 r: %.3f without self-contact, %.3f with "
                "(%d contact reports)", gap[0], gap[1], ncont);
    cr_assert_lt(gap[0], 0.5, "without self-contact the tube must pass through itself");
    cr_assert_gt(ncont, 0);
    /* the penalty lets the tubes in by F / (k_sc w_i w_j): 2 % of the diameter here */
    cr_assert_gt(gap[1], 0.95);
}

Test(contact, a_cantilever_dropped_on_the_plane_settles_where_the_wall_holds_it)
{
    /* seed 002 Fig. 7 on a clamped rod: released straight onto the soft plane, it bounces on
     * the wall's damping and comes to rest on the Winkler solution of the first test */
    const double L = 1, r = 0.02, E = 7.8125e7, rho = 1000, g = 9.81, k = 1e4;
    const winkler w = winkler_round_rod(L, r, E, rho, g, k);
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": %g, \"density\": %g, "
             "\"youngs_modulus\": %g, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 10}, "
             "\"environment\": {\"gravity\": [%g, 0, 0], \"obstacles\": [{\"name\": \"floor\", "
             "\"type\": \"plane\", \"point\": [%g, 0, 0], \"normal\": [1, 0, 0], \"stiffness\": %g, "
             "\"damping\": 60}]}, \"solver\": {\"rtol\": 1e-6, \"atol\": 1e-10}}",
             L, r, rho, E, -g, -r, k);
    rod_model *m = tu_model(json);
    rod_state *st = tu_started(m);
    /* the wall's damping takes the slowest motion down at gamma / (2 rho A) = 24 1/s */
    cr_assert_eq(rod_dynamics_advance(m, st, 0.6), ROD_OK, "%s", rod_state_error(st));
    rod_frame f = tu_frame(m, st, 2);
    const double tip = f.position[3], tip_theory = winkler_w(&w, 0, L);
    cr_log_info("dropped: tip at rest %.6e m, Winkler %.6e (error %.1e), kinetic energy left %.1e J",
                tip, tip_theory, tip / tip_theory - 1, f.e_kinetic);
    /* the contact points' trapezoid rule, as in the resting test: 3 (beta h)^2 / 12 */
    const double trap = 3 * pow(w.beta * r, 2) / 12; /* contact points every h = r */
    cr_assert_lt(fabs(tip / tip_theory - 1), trap, "tip off by more than %.1e", trap);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(contact, a_moving_belt_drags_the_rod_by_kinetic_friction)
{
    /* the incline's cantilever on a level plane moving along +y at 0.5 m/s (a belt): the rod
     * slips backward relative to it all the time, so friction is a steady mu_k q per length
     * along +y and the damped rod settles at the cantilever's q L^4 / (8 EI) under it */
    const double alpha = 0, mu_k = 0.3, q = 1000 * M_PI * INC_R * INC_R * 9.81;
    const double eps0 = q / INC_K, EI = INC_E * M_PI * pow(INC_R, 4) / 4;
    char json[1400];
    snprintf(json, sizeof json,
             "{\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": %g, \"density\": 1000, "
             "\"youngs_modulus\": %g, \"poisson_ratio\": 0.45, \"shear_viscosity\": 2e6}, "
             "\"strains\": {\"bend1\": 6, \"bend2\": 4}, \"environment\": {\"gravity\": [-9.81, 0, 0], "
             "\"obstacles\": [{\"type\": \"plane\", \"point\": [%.17g, 0, 0], \"normal\": [1, 0, 0], "
             "\"stiffness\": %g, \"damping\": 1, \"displacement\": [0, \"0.5*t\", 0], "
             "\"friction\": {\"static\": 0.5, \"kinetic\": %g}}]}, \"solver\": {\"rtol\": 1e-7, \"atol\": 1e-10}}",
             INC_L, INC_R, INC_E, -(INC_R - eps0), INC_K, mu_k);
    (void)alpha;
    rod_model *m = tu_model(json);
    rod_state *st = tu_started(m);
    cr_assert_eq(rod_dynamics_advance(m, st, 1.5), ROD_OK, "%s", rod_state_error(st));
    rod_frame f = tu_frame(m, st, 2);
    const double tip = f.position[4], theory = mu_k * q * pow(INC_L, 4) / (8 * EI);
    cr_log_info("belt: tip y %.6e m, mu_k q L^4 / 8EI %.6e (error %.1e), kinetic energy left %.1e J",
                tip, theory, tip / theory - 1, f.e_kinetic);
    /* small deflection (tip 1.8 %% of L): beam theory to (w/L)^2 ~ 3e-4 */
    cr_assert_lt(fabs(tip / theory - 1), 2e-3);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(contact, the_self_contact_broad_phase_finds_every_overlapping_pair)
{
    /* a rod set (not solved) to a circle of 1.25 turns in the xz plane, tilted out of it a
     * little so the overlapping quarter lies at many distances: every pair of contact points
     * farther apart than 2 (r_i + r_j) along the rod whose tubes overlap must be reported,
     * as a brute-force search over the same points finds them */
    rod_model *m = tu_model(
        "{\"model\": \"classic\", \"rod\": {\"length\": 1, \"radius\": 0.02, \"density\": 1000, "
        "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 0, \"bend1\": 1}, "
        "\"environment\": {\"self_contact\": {\"stiffness\": 1e7}}}");
    char err[128];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    /* q = (bend1: P0, P1; bend2: P0) */
    const double q[3] = {0.0, 0.6, 2.5 * M_PI};
    cr_assert_eq(rod_state_set_q(st, q, 3), ROD_OK);
    rod_frame c = tu_frame(m, st, 2);
    const int reported = c.ncontacts / 2;
    rod_frame_free(&c);
    /* the contact points are s = i L / n: a frame at n + 1 points has them all */
    int n = 0;
    for (double h = 0.02; n == 0 || 1.0 / n > h + 1e-12;) n++;
    rod_frame f = tu_frame(m, st, n + 1);
    int pairs = 0;
    for (int i = 0; i < f.n; i++)
        for (int j = i + 1; j < f.n; j++) {
            const double sum = f.radius[i] + f.radius[j];
            if (f.s[j] - f.s[i] <= 2 * sum) continue;
            double d2 = 0;
            for (int a = 0; a < 3; a++) {
                const double d = f.position[3 * i + a] - f.position[3 * j + a];
                d2 += d * d;
            }
            pairs += sqrt(d2) < sum;
        }
    cr_log_info("self-contact: %d overlapping pairs reported, %d by brute force over %d points", reported, pairs, f.n);
    cr_assert_gt(pairs, 10);
    cr_assert_eq(reported, pairs);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

/* A sphere pushed 2 cm into a resting clamped rod from t = 0.1 s (over 20 ms), swept along it
 * and withdrawn at 0.5 s. A rod at rest has a right-hand side of zero until the sphere reaches
 * it, and BDF's error test let it step over the whole passage (2 steps for 0.8 s, the tip
 * where it started); its steps are now held to the obstacle's pace. The tip it ends at is
 * generalized-alpha's at a 1 ms step (walls solved), another integrator of the same contact,
 * to 5 % of how far the tip went. */
#define JAB_ROD                                                                                    \
    "\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "              \
    "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45, \"shear_viscosity\": 50}, "                           \
    "\"strains\": {\"bend1\": 4, \"bend2\": 4, \"twist\": 1, \"stretch\": 1}"
#define JAB_SPHERE                                                                                 \
    "\"environment\": {\"gravity\": [0, 0, 0], \"obstacles\": [{\"type\": \"sphere\", \"center\": [0, 0.06, 0.4], " \
    "\"radius\": 0.05, \"stiffness\": 5000, \"damping\": 0, \"displacement\": [0, "                       \
    "\"-0.02*min(max((t-0.1)*50,0),1)+0.02*min(max((t-0.5)*50,0),1)\", \"0.1*sin(20*t)\"], "                 \
    "\"friction\": {\"static\": 0.8, \"kinetic\": 0.2, \"threshold_velocity\": 0.001}}]}"

static void jabbed_tip(const char *solver, double tip[3], long *steps)
{
    char json[2000];
    snprintf(json, sizeof json, "{" JAB_ROD ", " JAB_SPHERE ", \"solver\": %s}", solver);
    rod_model *m = tu_model(json);
    rod_state *st = tu_started(m);
    cr_assert_eq(rod_dynamics_advance(m, st, 0.8), ROD_OK, "%s", rod_state_error(st));
    rod_frame f = tu_frame(m, st, 2);
    for (int i = 0; i < 3; i++) tip[i] = f.position[3 + i];
    rod_dynamics_stats s;
    cr_assert_eq(rod_dynamics_get_stats(st, &s), ROD_OK);
    *steps = s.steps;
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(contact, bdf_feels_a_sphere_pushed_into_a_resting_rod)
{
    double bdf[3], ga[3];
    long nb, ng;
    jabbed_tip("{\"rtol\": 1e-6, \"atol\": 1e-9, \"jacobian\": \"contact\"}", bdf, &nb);
    jabbed_tip("{\"integrator\": \"generalized-alpha\", \"step\": 1e-3, \"rtol\": 1e-6, \"atol\": 1e-9, "
               "\"jacobian\": \"contact\"}", ga, &ng);
    const double moved = hypot(ga[1], ga[2] - 0.5), apart = hypot(hypot(bdf[0] - ga[0], bdf[1] - ga[1]), bdf[2] - ga[2]);
    cr_log_info("jabbed rod's tip at 0.8 s: BDF (%.4f, %.4f, %.4f) in %ld steps, generalized-alpha (%.4f, %.4f, %.4f) "
                "in %ld: %.2f mm apart, moved %.0f mm", bdf[0], bdf[1], bdf[2], nb, ga[0], ga[1], ga[2], ng,
                1e3 * apart, 1e3 * moved);
    cr_assert_gt(moved, 0.1, "the sphere must push the tip away");
    cr_expect_lt(apart, 0.05 * moved, "BDF's tip %.3g m from generalized-alpha's", apart);
}

/* The same sphere against two rods joined end to end (a model of several rods, its own BDF
 * driver, asm_integrator.c): it pushes 2 cm into the proximal rod's surface, so the rod must
 * make way by more than the 1 cm its penalty wall lets the sphere sink (max_penetration 0.1 of
 * the radius aside); BDF had stepped over it there too (2 steps for 0.8 s, the rod unmoved). */
Test(contact, bdf_feels_a_sphere_pushed_into_resting_joined_rods)
{
    const char *json = "{" JAB_SPHERE ", \"rods\": [{\"name\": \"proximal\", " JAB_ROD "}, {\"name\": \"distal\", " JAB_ROD
                       ", \"base\": {\"type\": \"joint\", \"to\": {\"rod\": \"proximal\", \"s\": \"tip\"}, "
                       "\"joint\": \"fixed\"}}], \"solver\": {\"rtol\": 1e-6, \"atol\": 1e-9}}";
    rod_model *m = tu_model(json);
    rod_state *st = tu_started(m);
    double most = 0;
    for (int k = 1; k <= 8; k++) {
        cr_assert_eq(rod_dynamics_advance(m, st, 0.1 * k), ROD_OK, "%s", rod_state_error(st));
        rod_frame f = tu_frame(m, st, 11);
        const double *tip = f.rods[0].position + 3 * 10;
        most = fmax(most, hypot(tip[0], tip[1]));
        rod_frame_free(&f);
    }
    cr_log_info("joined rods jabbed: the proximal tip at most %.1f mm off the axis", 1e3 * most);
    cr_assert_gt(most, 0.01, "the sphere went through: the proximal tip at most %.3g m off the axis", most);
    rod_state_free(st);
    rod_model_free(m);
}
