/* Rods curved at rest (rod.rest_strain, xi* of Eq. 42) against independent answers:
 *  (a) constant rest curvature and no load: the exact circular arc, and a full ring closing;
 *  (b) a rest-curved cantilever straightened by the end moment M = -EI k;
 *  (c) a rest helix under an axial force: the small-load stiffness of a Kirchhoff helical
 *      spring (Love's; Wahl's for the circular wire) in EI, GJ, radius and pitch angle;
 *  (d) a pre-curved cantilever under a dead end load out of its plane, large deflection:
 *      a shooting solution of the Kirchhoff equations (tests/support/kirchhoff.c) and the
 *      45-degree bend of Bathe and Bolourchi (1979);
 * and a cable on a curled, twisted rod (its helical route cut with the rod), a run from the
 * rest shape staying there, energy conservation and settling onto statics from it, and the
 * error indicator against the straight rod carrying the same constant. */
#include "kirchhoff.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* load_steps: the statics' continuation in the load (1 for a small load) */
static char *classic_spec_steps(double L, double r, double E, double nu, const char *rest,
                                const char *strains, const char *loads, int load_steps)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"model\": \"classic\", \"rod\": {\"length\": %.17g, \"radius\": %.17g, \"density\": 1000, "
             "\"youngs_modulus\": %.17g, \"poisson_ratio\": %.17g, \"rest_strain\": {%s}}, "
             "\"strains\": {%s}, \"loads\": [%s], \"solver\": {\"tolerance\": 1e-13, \"max_iterations\": 200, "
             "\"load_steps\": %d}}",
             L, r, E, nu, rest, strains, loads, load_steps);
    return buf;
}

static char *classic_spec(double L, double r, double E, double nu, const char *rest,
                          const char *strains, const char *loads)
{
    return classic_spec_steps(L, r, E, nu, rest, strains, loads, 1);
}

static double dist3(const double *a, const double *b)
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* ---- (a) the circular arc and the ring ---- */

/* A constant xi* makes each Magnus step's Omega = h xi* exactly and its exponential the exact
 * screw motion, so the arc is exact up to rounding: 1e-12 of the length over the few hundred
 * steps. */
static void check_free_arc(const char *rest, int comp, double k, int n_out)
{
    const double L = 0.5;
    rod_model *m = tu_model(classic_spec(L, 0.01, 1e6, 0.3, rest, "\"bend1\": 3, \"bend2\": 3", ""));
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, n_out);
    for (int i = 0; i < f.n; i++) {
        const double s = f.s[i];
        /* bend2 curls toward +x in the x-z plane; bend1 (about d1 = x) toward -y */
        const double a = comp == 1 ? (1 - cos(k * s)) / k : 0.0;
        const double b = comp == 0 ? -(1 - cos(k * s)) / k : 0.0;
        cr_assert_float_eq(f.position[3 * i + 0], a, 1e-12 * L, "x at s = %g: %.15g vs %.15g", s, f.position[3 * i], a);
        cr_assert_float_eq(f.position[3 * i + 1], b, 1e-12 * L, "y at s = %g", s);
        cr_assert_float_eq(f.position[3 * i + 2], sin(k * s) / k, 1e-12 * L, "z at s = %g", s);
        /* FRAMEs report the strain itself, rest included */
        cr_assert_float_eq(f.kappa[3 * i + comp], k, 1e-12 * fabs(k));
    }
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(rest_strain, constant_rest_curvature_is_an_exact_circular_arc)
{
    check_free_arc("\"bend2\": 2.5", 1, 2.5, 41);
    check_free_arc("\"bend1\": -4", 0, -4.0, 41);
    /* the same constant as an expression in s and X */
    check_free_arc("\"bend2\": \"2.5 + 0*s*X\"", 1, 2.5, 17);
}

Test(rest_strain, a_full_ring_closes_on_itself)
{
    const double L = 0.5, k = 2 * M_PI / L;
    char rest[64];
    snprintf(rest, sizeof rest, "\"bend2\": %.17g", k);
    rod_model *m = tu_model(classic_spec(L, 0.01, 1e6, 0.3, rest, "\"bend2\": 3, \"twist\": 2", ""));
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 21);
    const double *p = f.position + 3 * 20, *R = f.rotation + 9 * 20;
    for (int a = 0; a < 3; a++) cr_assert_float_eq(p[a], 0.0, 1e-12 * L, "tip %d: %g", a, p[a]);
    for (int a = 0; a < 9; a++) cr_assert_float_eq(R[a], a % 4 == 0 ? 1.0 : 0.0, 1e-12, "R[%d] = %g", a, R[a]);
    /* the ring's diameter, across at s = L/2 */
    cr_assert_float_eq(f.position[3 * 10 + 0], 2 / k, 1e-12 * L);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(rest_strain, a_rod_at_rest_stays_there_in_dynamics)
{
    /* q = 0 is the rest shape: no elastic force there, so a run from rest under no load stays
     * put (with forces measured from the straight rod it would spring open at once) */
    rod_model *m = tu_model(classic_spec(0.5, 0.01, 1e6, 0.3, "\"bend2\": 3, \"twist\": \"2*X\"",
                                         "\"bend1\": 2, \"bend2\": 2, \"twist\": 2", ""));
    rod_state *st = tu_started(m);
    cr_assert_eq(rod_dynamics_advance(m, st, 0.05), ROD_OK, "%s", rod_state_error(st));
    const int n = rod_model_ndof(m);
    const double *q = rod_state_q(st);
    for (int i = 0; i < n; i++) cr_assert_float_eq(q[i], 0.0, 1e-12, "q[%d] = %g", i, q[i]);
    rod_state_free(st);
    rod_model_free(m);
}

/* ---- (b) the end moment that cancels the rest curvature ---- */

/* The straight rod is then the equilibrium, and a constant strain is in every basis: the tip
 * is at (0, 0, L) to the solver's tolerance (scaled residual 1e-13). */
static void check_straightened(const char *model_extra, int extended)
{
    const double L = 0.4, r = 0.01, E = 1e6, k = 3.0; /* 69 degrees of arc at rest */
    const double EI = E * M_PI * pow(r, 4) / 4;
    char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"model\": \"%s\", \"rod\": {\"length\": %g, \"radius\": %g, \"density\": 1000, "
             "\"youngs_modulus\": %g, \"poisson_ratio\": 0.45, \"rest_strain\": {\"bend2\": %g, \"bend1\": 0}}, "
             "\"strains\": {\"bend1\": 2, \"bend2\": 2, \"twist\": 1%s}, %s"
             "\"loads\": [{\"name\": \"m\", \"type\": \"tip_moment\", \"moment\": [0, %.17g, 0]}], "
             "\"solver\": {\"tolerance\": 1e-13, \"load_steps\": 4}}",
             extended ? "extended" : "classic", L, r, E, k, extended ? ", \"stretch\": 2, \"shear1\": 1" : "",
             model_extra, -EI * k);
    rod_model *m = tu_model(buf);
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 21);
    for (int i = 0; i < f.n; i++) {
        cr_assert_float_eq(f.position[3 * i + 0], 0.0, 1e-10 * L, "x(%g) = %g", f.s[i], f.position[3 * i]);
        cr_assert_float_eq(f.position[3 * i + 1], 0.0, 1e-10 * L);
        cr_assert_float_eq(f.position[3 * i + 2], f.s[i], 1e-10 * L, "z(%g) = %.15g", f.s[i], f.position[3 * i + 2]);
        cr_assert_float_eq(f.kappa[3 * i + 1], 0.0, 1e-10 * k);
        cr_assert_float_eq(f.rho[i], 1.0, 1e-10);
    }
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(rest_strain, the_end_moment_that_cancels_the_rest_curvature_straightens_the_rod)
{
    check_straightened("", 0);
    /* the extended rod: free stretch, shear and inflation stay at rest under a pure moment */
    check_straightened("\"inflation\": {\"pieces\": 2, \"boundary\": \"neumann\"}, ", 1);
}

/* ---- a cable along the curved rod ---- */

Test(rest_strain, a_cable_follows_the_curved_rest_shape)
{
    /* A cable at the constant offset d d1 of the section, on a rod with a rest curl kappa2* and
     * a rest twist kappa3*: in the section's frame the cable runs along t ~ (1 - kappa2 d) d3 +
     * kappa3 d d2 (the route r + d d1 differentiated), round the rod as a helix because of the
     * twist. Cut the rod and the cable together at s: the piece beyond carries no load, so the
     * rod's internal moment is minus the cable's, -(d d1) x T t = T d (t3 d2 - t2 d3), the same
     * at every s in the section's frame. An unshearable, inextensible rod then keeps constant
     * strains with EI (kappa2 - kappa2*) = T d t3 and GJ (kappa3 - kappa3*) = -T d t2, solved
     * here by fixed-point iteration (t depends on kappa). A cable whose tangent missed the rest
     * strain would not twist the rod at all (t2 = 0). */
    const double L = 0.5, r = 0.01, E = 1e6, nu = 0.45, k2 = 4.0, k3 = 20.0, T = 0.1, d = 0.005;
    const double EI = E * M_PI * pow(r, 4) / 4, GJ = E / (2 * (1 + nu)) * M_PI * pow(r, 4) / 2;
    double K2 = k2, K3 = k3;
    for (int it = 0; it < 200; it++) {
        const double a3 = 1 - K2 * d, a2 = K3 * d, n = hypot(a3, a2);
        K2 = k2 + T * d * (a3 / n) / EI;
        K3 = k3 - T * d * (a2 / n) / GJ;
    }
    char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": %g, \"density\": 1000, "
             "\"youngs_modulus\": %g, \"poisson_ratio\": %g, \"rest_strain\": {\"bend2\": %g, \"twist\": \"%g + 0*X\"}}, "
             "\"strains\": {\"bend1\": 2, \"bend2\": 2, \"twist\": 2}, "
             "\"actuators\": [{\"name\": \"c\", \"type\": \"cable\", \"route\": {\"offset\": [%g, 0]}, \"tension\": %g}], "
             "\"solver\": {\"tolerance\": 1e-13}}",
             L, r, E, nu, k2, k3, d, T);
    rod_model *m = tu_model(buf);
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 21);
    cr_assert_gt(fabs(K3 - k3), 1e-3 * (K2 - k2), "the reference twists the rod");
    for (int i = 0; i < f.n; i++) {
        cr_assert_float_eq(f.kappa[3 * i + 0], 0.0, 1e-9 * (K2 - k2), "kappa1 at s = %g", f.s[i]);
        cr_assert_float_eq(f.kappa[3 * i + 1], K2, 1e-9 * (K2 - k2), "kappa2 at s = %g: %.12g vs %.12g", f.s[i],
                           f.kappa[3 * i + 1], K2);
        cr_assert_float_eq(f.kappa[3 * i + 2], K3, 1e-9 * fabs(K3 - k3), "kappa3 at s = %g: %.12g vs %.12g", f.s[i],
                           f.kappa[3 * i + 2], K3);
    }
    cr_log_info("cable on a curled, twisted rod: kappa2 %.10g (rest %g), kappa3 %.10g (rest %g)\n", f.kappa[3 * 10 + 1],
                k2, f.kappa[3 * 10 + 2], k3);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

/* ---- (c) the helical spring ---- */

/* The rest helix's tip pulled along the helix's axis through a rigid arm at the axis (force P a
 * at the point c of the axis, i.e. the tip force P a and the moment (c - r_tip) x P a), and
 * the arm's end c moving along the axis by delta. */
static double helix_delta(const char *spec_fmt, double P, const double a[3], const double c[3],
                          const double r0[3], const double R0[9])
{
    const double F[3] = {P * a[0], P * a[1], P * a[2]};
    const double d[3] = {c[0] - r0[0], c[1] - r0[1], c[2] - r0[2]};
    const double M[3] = {d[1] * F[2] - d[2] * F[1], d[2] * F[0] - d[0] * F[2], d[0] * F[1] - d[1] * F[0]};
    char buf[4096];
    snprintf(buf, sizeof buf, spec_fmt, F[0], F[1], F[2], M[0], M[1], M[2]);
    rod_model *m = tu_model(buf);
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 3);
    const double *r1 = f.position + 6, *R1 = f.rotation + 18;
    /* c rides with the tip: c' = r1 + R1 R0^T (c - r0) */
    double local[3], c1[3];
    for (int i = 0; i < 3; i++) local[i] = R0[0 * 3 + i] * d[0] + R0[1 * 3 + i] * d[1] + R0[2 * 3 + i] * d[2];
    for (int i = 0; i < 3; i++) c1[i] = r1[i] + R1[3 * i + 0] * local[0] + R1[3 * i + 1] * local[1] + R1[3 * i + 2] * local[2];
    const double delta = (c1[0] - c[0]) * a[0] + (c1[1] - c[1]) * a[1] + (c1[2] - c[2]) * a[2];
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
    return delta;
}

Test(rest_strain, rest_helix_has_the_axial_stiffness_of_a_kirchhoff_helical_spring)
{
    /* A helix of radius Rh and pitch angle alpha has curvature kappa = cos^2 alpha / Rh and
     * torsion tau = sin alpha cos alpha / Rh; with the material frame on its Frenet frame (d1 the
     * principal normal, toward the axis) its rest strain is bend2 = kappa, twist = tau, and its
     * axis runs along the Darboux vector kappa d2 + tau d3 through the point Rh d1 of the base.
     * A force P along the axis, applied at the axis, loads every section by the same moment P
     * Rh: its component along the wire, P Rh cos alpha, twists it, and P Rh sin alpha bends it
     * about the binormal. The energy P^2 Rh^2 l (cos^2 alpha / GJ + sin^2 alpha / EI) / 2 of a
     * wire of length l gives (Castigliano) the small-load compliance
     *     delta / P = Rh^2 l (cos^2 alpha / GJ + sin^2 alpha / EI)
     * (Love, A Treatise on the Mathematical Theory of Elasticity, 4th ed. 1927, Sec. 270-271;
     * Wahl, Mechanical Springs, 1963: delta = 64 P Rh^3 n / (d^4 cos alpha) (cos^2 alpha / G + 2
     * sin^2 alpha / E) for the round wire of diameter d, which is this with n = l cos alpha /
     * (2 pi Rh); alpha -> 0 gives k = G d^4 / (8 D^3 n)). It is exact for the inextensible,
     * unshearable rod in the linear limit, and every strain stays constant along the wire, so
     * rodd's basis holds it exactly. What is left: the load's own size, O((delta / Rh)^2) = 1e-8
     * relatively after averaging +P and -P (the even orders cancel), and the solver's scaled
     * residual 1e-13: 1e-6 relatively is a bound with margin, not a fit. */
    const double Rh = 0.05, alpha = 10 * M_PI / 180, turns = 3, r = 0.002, E = 1e6, nu = 0.3;
    const double kap = cos(alpha) * cos(alpha) / Rh, tau = sin(alpha) * cos(alpha) / Rh;
    const double l = 2 * M_PI * Rh * turns / cos(alpha);
    const double EI = E * M_PI * pow(r, 4) / 4, GJ = E / (2 * (1 + nu)) * M_PI * pow(r, 4) / 2;
    const double compliance = Rh * Rh * l * (cos(alpha) * cos(alpha) / GJ + sin(alpha) * sin(alpha) / EI);
    char fmt[2048];
    snprintf(fmt, sizeof fmt,
             "{\"model\": \"classic\", \"rod\": {\"length\": %.17g, \"radius\": %g, \"density\": 1000, "
             "\"youngs_modulus\": %g, \"poisson_ratio\": %g, \"rest_strain\": {\"bend2\": %.17g, \"twist\": %.17g}}, "
             "\"strains\": {\"bend1\": 2, \"bend2\": 2, \"twist\": 2}, "
             "\"loads\": [{\"name\": \"f\", \"type\": \"tip_force\", \"force\": [%%.17g, %%.17g, %%.17g]}, "
             "{\"name\": \"m\", \"type\": \"tip_moment\", \"moment\": [%%.17g, %%.17g, %%.17g]}], "
             "\"solver\": {\"tolerance\": 1e-13}}",
             l, r, E, nu, kap, tau);
    /* the rest shape: the unloaded solve */
    const double w = hypot(kap, tau), a[3] = {0, kap / w, tau / w}, c0[3] = {Rh, 0, 0};
    double r0[3], R0[9];
    {
        char buf[4096];
        snprintf(buf, sizeof buf, fmt, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        rod_model *m = tu_model(buf);
        rod_state *st = tu_solve(m);
        rod_frame f = tu_frame(m, st, 3);
        memcpy(r0, f.position + 6, sizeof r0);
        memcpy(R0, f.rotation + 18, sizeof R0);
        rod_frame_free(&f);
        rod_state_free(st);
        rod_model_free(m);
    }
    /* the tip is on the helix: Rh from the axis, 3 turns' rise l sin alpha along it */
    const double rel[3] = {r0[0] - c0[0], r0[1] - c0[1], r0[2] - c0[2]};
    const double along = rel[0] * a[0] + rel[1] * a[1] + rel[2] * a[2];
    const double c[3] = {c0[0] + along * a[0], c0[1] + along * a[1], c0[2] + along * a[2]};
    cr_assert_float_eq(along, l * sin(alpha), 1e-12 * l, "rise %g vs %g", along, l * sin(alpha));
    cr_assert_float_eq(dist3(r0, c), Rh, 1e-12 * l, "the tip is %g from the axis", dist3(r0, c));
    const double P = 1e-4 * Rh / compliance; /* delta / Rh = 1e-4 */
    const double dp = helix_delta(fmt, P, a, c, r0, R0), dm = helix_delta(fmt, -P, a, c, r0, R0);
    const double got = (dp - dm) / (2 * P);
    cr_assert_float_eq(got, compliance, 1e-6 * compliance, "compliance %.10g m/N, Love/Wahl %.10g", got, compliance);
    cr_log_info("helical spring: %.10g m/N, Love/Wahl %.10g (%.1e relatively)\n", got, compliance,
                fabs(got / compliance - 1));
}

/* ---- (d) the pre-curved cantilever under a dead load out of its plane ---- */

typedef struct {
    double k0, k1, tau; /* kappa2* = k0 + k1 X, kappa3* = tau X */
    double L;
} rest_ctx;

static void rest_fn(double s, void *ctx, double k[3])
{
    const rest_ctx *c = ctx;
    k[0] = 0.0;
    k[1] = c->k0 + c->k1 * s / c->L;
    k[2] = c->tau * s / c->L;
}

/* rodd's tip for the classic (Kirchhoff) rod of circular section: bend1, bend2 and twist at
 * degree d */
static void rodd_tip(double L, double r, double E, double nu, const char *rest, int d,
                     const double F[3], double tip[3], double R[9])
{
    char strains[128], loads[256];
    snprintf(strains, sizeof strains, "\"bend1\": %d, \"bend2\": %d, \"twist\": %d", d, d, d);
    snprintf(loads, sizeof loads,
             "{\"name\": \"f\", \"type\": \"tip_force\", \"force\": [%.17g, %.17g, %.17g]}", F[0], F[1], F[2]);
    /* the load raised in steps: the rod swings through most of a radian */
    rod_model *m = tu_model(classic_spec_steps(L, r, E, nu, rest, strains, loads, 8));
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 3);
    memcpy(tip, f.position + 6, 3 * sizeof *tip);
    if (R) memcpy(R, f.rotation + 18, 9 * sizeof *R);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

/* rodd at degree d against the shooting solution, with rodd's own error estimate: the change
 * from degree d to 2d + 1 (as rodd converge refines). Returns the error. */
static double against_shooting(double L, double r, double E, double nu, const char *rest, int d,
                               const double F[3], const double ref[3])
{
    double t[3], t2[3];
    rodd_tip(L, r, E, nu, rest, d, F, t, NULL);
    rodd_tip(L, r, E, nu, rest, 2 * d + 1, F, t2, NULL);
    const double err = dist3(t, ref), est = dist3(t, t2);
    /* the error is what rodd's refinement says it is; 1e-10 L: the static solve's floor (its
     * scaled residual 1e-13) and the shooting's own error (below) */
    cr_assert_leq(err, 2 * est + 1e-10 * L, "degree %d: %g off the shooting solution, refinement says %g", d, err, est);
    return err;
}

/* The shooting solution with 2000 RK4 steps, checked against 4000 (RK4's h^4: the difference
 * bounds the error of the finer one by 1/15 of itself) */
static void shooting_tip(kh_problem *p, double tip[3])
{
    double t1[3], R[9];
    p->steps = 2000;
    cr_assert_eq(kh_solve(p, t1, R), 0, "the shooting does not converge");
    p->steps = 4000;
    cr_assert_eq(kh_solve(p, tip, R), 0);
    cr_assert_lt(dist3(t1, tip), 1e-11 * p->L, "RK4: %g between 2000 and 4000 steps", dist3(t1, tip));
}

Test(rest_strain, pre_curved_cantilever_under_an_out_of_plane_load_matches_shooting_and_bathe_bolourchi)
{
    /* Bathe and Bolourchi's 45-degree bend (Int. J. Numer. Meth. Eng. 14, 961-986, 1979): R =
     * 100, a 1 x 1 section, E = 1e7, nu = 0 (EI = 8.333e5 about both axes, GJ = 8.333e5 with J =
     * 1/6 as the benchmark's later users take it, e.g. BeamDyn), a dead tip load of 600 out of
     * the bend's plane. Here a circular section with the same EI and GJ: pi r^4 / 4 = 1/12 and G
     * = E / 2. The bend curls from +z toward +x, the load along +y, as the benchmark's axes. */
    const double Rb = 100, L = Rb * M_PI / 4, E = 1e7, r = pow(1.0 / (3 * M_PI), 0.25);
    const double EI = E * M_PI * pow(r, 4) / 4, GJ = E / 2 * M_PI * pow(r, 4) / 2;
    cr_assert_float_eq(EI, 1e7 / 12, 1e-6);
    const double F[3] = {0, 600, 0};
    rest_ctx c = {1 / Rb, 0, 0, L};
    kh_problem p = {L, {EI, EI, GJ}, rest_fn, &c, {0, 600, 0}, {0, 0, 0}, 2000, 10};
    double ref[3];
    shooting_tip(&p, ref);
    char rest[64];
    snprintf(rest, sizeof rest, "\"bend2\": %.17g", 1 / Rb);
    const double e4 = against_shooting(L, r, E, 0.0, rest, 4, F, ref);
    const double e8 = against_shooting(L, r, E, 0.0, rest, 8, F, ref);
    cr_assert_lt(e8, 1e-3 * e4, "spectral convergence: %g at degree 4, %g at 8", e4, e8);
    /* The published tip displacement (x, y, z) = (-13.4, 53.4, -23.5) (Bathe and Bolourchi;
     * BeamDyn, Wang et al. 2015: -13.5, 53.4, -23.7), given to 0.1 by an 8-element
     * shear-deformable model: its solutions scatter by 0.2 and shear and extension (left out of
     * this Kirchhoff rod) move the tip by about 0.1 (F L / kGA, F / EA), so 0.25 per component. */
    double tip[3];
    rodd_tip(L, r, E, 0.0, rest, 8, F, tip, NULL);
    const double u[3] = {tip[0] - Rb * (1 - cos(M_PI / 4)), tip[1], tip[2] - Rb * sin(M_PI / 4)};
    const double bb[3] = {-13.4, 53.4, -23.5};
    for (int a = 0; a < 3; a++)
        cr_assert_float_eq(u[a], bb[a], 0.25, "tip displacement %d: %.4f, Bathe and Bolourchi %.1f", a, u[a], bb[a]);
    cr_log_info("45-degree bend: tip displacement (%.4f, %.4f, %.4f), shooting (%.4f, %.4f, %.4f), "
                "Bathe-Bolourchi (-13.4, 53.4, -23.5); degree 4 %.2g, 8 %.2g off the shooting\n",
                u[0], u[1], u[2], ref[0] - Rb * (1 - cos(M_PI / 4)), ref[1], ref[2] - Rb * sin(M_PI / 4), e4, e8);
}

Test(rest_strain, varying_rest_curvature_and_twist_under_a_large_load_matches_shooting)
{
    /* a tapering curl (kappa2* from 4 to 1 per m along the rod) with a rest twist, under a load
     * out of its plane and along it: expressions in s and X in every Magnus step's quadrature */
    const double L = 0.5, r = 0.01, E = 1e6, nu = 0.3;
    const double EI = E * M_PI * pow(r, 4) / 4, GJ = E / (2 * (1 + nu)) * M_PI * pow(r, 4) / 2;
    const double F[3] = {-1.0 * EI / (L * L), 2.0 * EI / (L * L), 0.5 * EI / (L * L)};
    rest_ctx c = {4, -3, 1.5, L};
    kh_problem p = {L, {EI, EI, GJ}, rest_fn, &c, {F[0], F[1], F[2]}, {0, 0, 0}, 2000, 10};
    double ref[3];
    shooting_tip(&p, ref);
    const char *rest = "\"bend2\": \"4 - 3*X\", \"twist\": \"3*s\"";
    const double e4 = against_shooting(L, r, E, nu, rest, 4, F, ref);
    const double e8 = against_shooting(L, r, E, nu, rest, 8, F, ref);
    cr_assert_lt(e8, 1e-2 * e4, "spectral convergence: %g at degree 4, %g at 8", e4, e8);
    cr_log_info("varying rest curvature: %.2g at degree 4, %.2g at 8 off the shooting (L = %g)\n", e4, e8, L);
}

/* ---- dynamics from the rest shape ---- */

static void advance_to(const rod_model *m, rod_state *st, double t)
{
    cr_assert_eq(rod_dynamics_advance(m, st, t), ROD_OK, "advance to %g: %s", t, rod_state_error(st));
}

Test(rest_strain, undamped_curved_rod_swinging_under_gravity_conserves_energy, .timeout = 120)
{
    /* a tapering curl with a rest twist, released from its rest shape in gravity across it:
     * the elastic energy is measured from the rest shape (1/2 q^T K q), so kinetic + elastic +
     * gravity stays constant only if the elastic forces are too; 1e-5 of the exchange as the
     * straight rods' tests at CVODE's rtol 1e-9 */
    rod_model *m = tu_model(
        "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
        "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45, \"rest_strain\": {\"bend2\": \"3 - 2*X\", \"twist\": 2}}, "
        "\"strains\": {\"bend1\": 3, \"bend2\": 3, \"twist\": 2, \"stretch\": 1}, "
        "\"environment\": {\"gravity\": [0, -9.81, 0]}, \"solver\": {\"rtol\": 1e-9, \"atol\": 1e-11}}");
    rod_state *st = tu_started(m);
    rod_frame f0 = tu_frame(m, st, 2);
    const double e0 = f0.e_kinetic + f0.e_elastic + f0.e_gravity;
    cr_assert_float_eq(f0.e_elastic, 0.0, 1e-15, "no elastic energy at rest");
    rod_frame_free(&f0);
    double scale = 0, worst = 0;
    for (int k = 1; k <= 20; k++) {
        advance_to(m, st, 0.05 * k);
        rod_frame f = tu_frame(m, st, 2);
        scale = fmax(scale, f.e_kinetic); /* the exchange */
        worst = fmax(worst, fabs(f.e_kinetic + f.e_elastic + f.e_gravity - e0));
        rod_frame_free(&f);
    }
    cr_log_info("curved rod: energy drift %.3e of %.3e J over 1 s\n", worst, scale);
    cr_assert_gt(scale, 0.01, "the rod really swings (%g J exchanged)", scale);
    cr_assert_lt(worst, 1e-5 * scale, "energy drifted by %.3e J of %.3e", worst, scale);
    rod_state_free(st);
    rod_model_free(m);
}

Test(rest_strain, damped_curved_extended_rod_settles_to_its_static_equilibrium, .timeout = 120)
{
    /* the extended rod curled at rest, pulled by a cable and squeezed by a transverse muscle in
     * gravity: Kelvin-Voigt damping (of xi - xi*'s rate) brings the run from rest onto rodd
     * solve's equilibrium, inflation included; 1e-6 m as the straight rod's test */
    const char *json =
        "{\"model\": \"extended\", \"rod\": {\"length\": 0.5, \"radius\": {\"base\": 0.015, \"tip\": 0.006}, "
        "\"density\": 1000, \"youngs_modulus\": 2e4, \"poisson_ratio\": 0.49, \"shear_viscosity\": 1e4, "
        "\"rest_strain\": {\"bend2\": \"-4*X\", \"bend1\": 1.5}}, "
        "\"strains\": {\"bend1\": 2, \"bend2\": 4, \"stretch\": 2}, \"inflation\": {\"pieces\": 2, \"boundary\": \"neumann\"}, "
        "\"environment\": {\"gravity\": [-9.81, 0, 0]}, "
        "\"actuators\": [{\"name\": \"LM\", \"type\": \"cable\", \"route\": {\"offset\": [0.8, 0], "
        "\"relative_to_radius\": true}, \"tension\": 0.3}, {\"name\": \"TM\", \"type\": \"transverse\", "
        "\"pressure\": 300}], \"solver\": {\"tolerance\": 1e-12}}";
    rod_model *m = tu_model(json);
    rod_state *eq = tu_solve(m);
    rod_frame fe = tu_frame(m, eq, 11);
    rod_state *st = tu_started(m);
    advance_to(m, st, 40.0);
    rod_frame fd = tu_frame(m, st, 11);
    double worst = 0, moved = 0;
    for (int i = 0; i < 33; i++) worst = fmax(worst, fabs(fd.position[i] - fe.position[i]));
    for (int i = 0; i < 11; i++) worst = fmax(worst, fabs(fd.rho[i] - fe.rho[i]));
    for (int i = 0; i < 11; i++) moved = fmax(moved, fabs(fe.rho[i] - 1));
    cr_log_info("curved extended rod settled %.3e from the equilibrium (rho moved %.3f)\n", worst, moved);
    cr_assert_gt(moved, 1e-3, "the section inflates");
    cr_assert_lt(worst, 1e-6, "settled %.3e away from rodd solve's equilibrium", worst);
    rod_frame_free(&fe);
    rod_frame_free(&fd);
    rod_state_free(eq);
    rod_state_free(st);
    rod_model_free(m);
}

/* ---- the error indicator ---- */

Test(rest_strain, the_error_indicator_sees_the_rest_curvature_as_the_straight_rod_sees_its_constant)
{
    /* A constant rest curvature k and a straight rod whose bend2 coefficient of degree 0 holds
     * k have the same strains along the rod, so the indicator (which drops upper coefficients
     * and follows the tip) must give both the same number, to rounding; the curved rod's q is
     * its equilibrium under the 45-degree bend's load, far from zero. */
    const double Rb = 100, L = Rb * M_PI / 4, E = 1e7, r = pow(1.0 / (3 * M_PI), 0.25);
    const int d = 5;
    char strains[128], rest[64];
    snprintf(strains, sizeof strains, "\"bend1\": %d, \"bend2\": %d, \"twist\": %d", d, d, d);
    snprintf(rest, sizeof rest, "\"bend2\": %.17g", 1 / Rb);
    const char *load = "{\"name\": \"f\", \"type\": \"tip_force\", \"force\": [0, 600, 0]}";
    rod_model *mc = tu_model(classic_spec_steps(L, r, E, 0.0, rest, strains, load, 8));
    rod_model *ms = tu_model(classic_spec(L, r, E, 0.0, "", strains, load));
    rod_state *st = tu_solve(mc);
    const int n = rod_model_ndof(mc);
    double q[64];
    cr_assert_leq(n, 64);
    memcpy(q, rod_state_q(st), (size_t)n * sizeof *q);
    const double ic = rod_error_indicator(mc, q);
    q[d + 1] += 1 / Rb; /* bend2's degree 0: Legendre P0 = 1 */
    const double is = rod_error_indicator(ms, q);
    cr_log_info("indicator %.6g m (curved), %.6g m (straight with the constant)\n", ic, is);
    cr_assert_gt(ic, 0.0);
    cr_assert_float_eq(ic, is, 1e-9 * is, "curved %.12g, straight %.12g", ic, is);
    rod_state_free(st);
    rod_model_free(mc);
    rod_model_free(ms);
}

/* ---- pose constraints on a curved rod ---- */

Test(rest_strain, a_pose_constraint_without_targets_holds_the_rest_pose)
{
    /* A quarter circle whose tip is held in all six components, the spec naming the components
     * alone: the targets are the rest shape's tip pose, so a dead force at the tip goes
     * straight into the constraint (reaction -F, no moment) and the rod stays at q = 0; so does
     * a point held relative to another by its x and z (the rest shape's relative position in
     * that point's frame). Held at the straight rod's (0, 0, L), identity and (0, 0, 0.3)
     * instead, the rod would be bent straight. */
    const double L = 0.5, k = M_PI / (2 * L), F[3] = {0.3, 0.2, -0.1};
    char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": 0.01, \"density\": 1000, "
             "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.3, \"rest_strain\": {\"bend2\": %.17g}}, "
             "\"strains\": {\"bend1\": 4, \"bend2\": 4, \"twist\": 4}, "
             "\"loads\": [{\"name\": \"f\", \"type\": \"tip_force\", \"force\": [%g, %g, %g]}], "
             "\"constraints\": [{\"name\": \"tip\", \"type\": \"pose\", \"components\": [\"x\", \"y\", \"z\", \"rx\", \"ry\", \"rz\"]}, "
             "{\"name\": \"mid\", \"type\": \"pose\", \"s\": 0.4, \"relative_to\": {\"s\": 0.1}, "
             "\"components\": [\"x\", \"z\"]}], "
             "\"solver\": {\"tolerance\": 1e-13}}",
             L, k, F[0], F[1], F[2]);
    rod_model *m = tu_model(buf);
    rod_state *st = tu_solve(m);
    const double *q = rod_state_q(st);
    for (int i = 0; i < rod_model_ndof(m); i++) cr_assert_float_eq(q[i], 0.0, 1e-12, "q[%d] = %g", i, q[i]);
    rod_frame f = tu_frame(m, st, 3);
    cr_assert_eq(f.ncons, 2);
    const rod_frame_constraint *c = &f.cons[0];
    cr_assert_float_eq(c->point[0], 1 / k, 1e-12, "the rest tip");
    cr_assert_float_eq(c->point[2], 1 / k, 1e-12);
    for (int a = 0; a < 3; a++) {
        cr_assert_float_eq(c->force[a], -F[a], 1e-10, "reaction %d: %g", a, c->force[a]);
        cr_assert_float_eq(c->moment[a], 0.0, 1e-10);
    }
    rod_frame_free(&f);
    rod_state_free(st);
    /* a run from rest starts consistent with them, and stays put without the load */
    rod_model *m0 = tu_model_set(buf, (const char *const[]){"loads=[]"}, 1);
    rod_state *d = tu_started(m0);
    cr_assert_eq(rod_dynamics_advance(m0, d, 0.02), ROD_OK, "%s", rod_state_error(d));
    q = rod_state_q(d);
    for (int i = 0; i < rod_model_ndof(m0); i++) cr_assert_float_eq(q[i], 0.0, 1e-10, "q[%d] = %g", i, q[i]);
    rod_state_free(d);
    rod_model_free(m0);
    rod_model_free(m);
}
