/* Statics of the classic rod against independent solutions: the circular arc of a pure end
 * moment, the planar elastica of a cantilever solved by shooting inside the test, the
 * constant curvature of an offset cable, torsion (T L / G J), Timoshenko's shear deflection, and
 * convergence in the basis degree. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define L_ROD 0.5
#define R_ROD 0.01
#define E_ROD 1e6
static const double EI = E_ROD * M_PI * R_ROD * R_ROD * R_ROD * R_ROD / 4;

static char *spec_text(const char *strains, const char *loads, const char *acts)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": %g, \"density\": 1000, "
             "\"youngs_modulus\": %g, \"poisson_ratio\": 0.45}, \"strains\": {%s}, \"loads\": [%s], "
             "\"actuators\": [%s], \"solver\": {\"tolerance\": 1e-13}}",
             L_ROD, R_ROD, E_ROD, strains, loads, acts);
    return buf;
}

static void tip_of(const char *json, double tip[3])
{
    rod_model *m = tu_model(json);
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 11);
    memcpy(tip, f.position + 3 * 10, 3 * sizeof *tip);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

/* tol: 1e-8 where the discrete model is exact (the two Zanna points of each step integrate
 * a strain basis of degree <= 3 exactly); higher degrees carry the h^4 error of that rule. */
static void check_arc(const char *frame, int degree, double M, double tol)
{
    char strains[64], loads[256];
    snprintf(strains, sizeof strains, "\"bend2\": %d", degree);
    snprintf(loads, sizeof loads,
             "{\"name\": \"m\", \"type\": \"tip_moment\", \"moment\": [0, %.17g, 0], \"frame\": \"%s\"}", M,
             frame);
    rod_model *m = tu_model(spec_text(strains, loads, ""));
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 21);
    const double k = M / EI;
    for (int i = 0; i < f.n; i++) {
        const double s = f.s[i];
        cr_assert_float_eq(f.position[3 * i + 0], (1 - cos(k * s)) / k, tol * L_ROD, "x at s=%g", s);
        cr_assert_float_eq(f.position[3 * i + 1], 0.0, 1e-12);
        cr_assert_float_eq(f.position[3 * i + 2], sin(k * s) / k, tol * L_ROD, "z at s=%g", s);
        cr_assert_float_eq(f.kappa[3 * i + 1], k, tol * k, "%s degree %d turns %g: kappa2 %.12g vs %.12g at s=%g", frame, degree, k * L_ROD / (2 * M_PI), f.kappa[3 * i + 1], k, s);
        /* d3 = (sin ks, 0, cos ks): third column of the rotation */
        cr_assert_float_eq(f.rotation[9 * i + 2], sin(k * s), tol);
        cr_assert_float_eq(f.rotation[9 * i + 8], cos(k * s), tol);
    }
    cr_assert_float_eq(f.e_elastic, 0.5 * EI * k * k * L_ROD, tol * 0.5 * EI * k * k * L_ROD);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(statics_classic, pure_tip_moment_bends_a_circular_arc)
{
    /* kL from a quarter turn to past a full circle, dead and follower */
    const double turns[] = {0.25, 0.5, 1.1};
    for (int i = 0; i < 3; i++) {
        const double M = 2 * M_PI * turns[i] * EI / L_ROD;
        check_arc("global", 0, M, 1e-8);
        check_arc("local", 3, M, 1e-8);
        check_arc("global", 3, M, 1e-8);
        check_arc("local", 6, M, 1e-6);
    }
}

/* ---- the planar elastica: EI theta'' = -(Fx cos theta - Fz sin theta), theta(0) = 0,
 * theta'(L) = 0, shot from theta'(0) with RK4 ---- */
typedef struct { double th, dth, x, z; } el_state;

static el_state el_rhs(el_state y, double Fx, double Fz)
{
    el_state d = {y.dth, -(Fx * cos(y.th) - Fz * sin(y.th)) / EI, sin(y.th), cos(y.th)};
    return d;
}

static el_state el_shoot(double a, double Fx, double Fz)
{
    const int N = 4000;
    const double h = L_ROD / N;
    el_state y = {0, a, 0, 0};
    for (int i = 0; i < N; i++) {
        el_state k1 = el_rhs(y, Fx, Fz);
        el_state y2 = {y.th + 0.5 * h * k1.th, y.dth + 0.5 * h * k1.dth, 0, 0};
        el_state k2 = el_rhs(y2, Fx, Fz);
        el_state y3 = {y.th + 0.5 * h * k2.th, y.dth + 0.5 * h * k2.dth, 0, 0};
        el_state k3 = el_rhs(y3, Fx, Fz);
        el_state y4 = {y.th + h * k3.th, y.dth + h * k3.dth, 0, 0};
        el_state k4 = el_rhs(y4, Fx, Fz);
        y.th += h / 6 * (k1.th + 2 * k2.th + 2 * k3.th + k4.th);
        y.dth += h / 6 * (k1.dth + 2 * k2.dth + 2 * k3.dth + k4.dth);
        y.x += h / 6 * (k1.x + 2 * k2.x + 2 * k3.x + k4.x);
        y.z += h / 6 * (k1.z + 2 * k2.z + 2 * k3.z + k4.z);
    }
    return y;
}

static void elastica_tip(double Fx, double Fz, double tip[2])
{
    /* theta'(L) as a function of a = theta'(0) is monotone near the small-load branch:
     * bracket from 0 and bisect */
    double lo = 0, hi = fabs(Fx) * L_ROD / EI * 1.5 + 1e-9;
    if (Fx < 0) { lo = -hi; hi = 0; }
    for (int it = 0; it < 200; it++) {
        double mid = 0.5 * (lo + hi);
        double r = el_shoot(mid, Fx, Fz).dth;
        double rl = el_shoot(lo, Fx, Fz).dth;
        if ((r > 0) == (rl > 0)) lo = mid; else hi = mid;
    }
    el_state y = el_shoot(0.5 * (lo + hi), Fx, Fz);
    tip[0] = y.x;
    tip[1] = y.z;
}

static double cantilever_error(int degree, double Fx, double Fz, const double ref[2])
{
    char strains[64], loads[256];
    snprintf(strains, sizeof strains, "\"bend2\": %d", degree);
    snprintf(loads, sizeof loads,
             "{\"name\": \"f\", \"type\": \"tip_force\", \"force\": [%.17g, 0, %.17g]}", Fx, Fz);
    double tip[3];
    tip_of(spec_text(strains, loads, ""), tip);
    cr_assert_float_eq(tip[1], 0.0, 1e-12);
    return hypot(tip[0] - ref[0], tip[2] - ref[1]);
}

Test(statics_classic, cantilever_under_dead_tip_force_matches_the_elastica)
{
    /* F L^2 / EI = 3: the tip swings through about 60 degrees */
    const double F = 3 * EI / (L_ROD * L_ROD);
    double ref[2];
    elastica_tip(F, 0, ref);
    cr_assert_gt(ref[0], 0.25 * L_ROD, "a large deflection (%g)", ref[0]);
    double err = cantilever_error(8, F, 0, ref);
    cr_assert_lt(err, 1e-4 * L_ROD, "tip off the elastica by %g", err);
    /* an oblique load, partly compressive */
    elastica_tip(0.7 * F, -0.5 * F, ref);
    err = cantilever_error(8, 0.7 * F, -0.5 * F, ref);
    cr_assert_lt(err, 1e-4 * L_ROD, "oblique load: tip off by %g", err);
}

Test(statics_classic, tip_converges_as_the_basis_degree_grows)
{
    const double F = 3 * EI / (L_ROD * L_ROD);
    double ref[2];
    elastica_tip(F, 0, ref);
    const int deg[] = {1, 2, 3, 4, 6};
    double prev = INFINITY;
    for (int i = 0; i < 5; i++) {
        double e = cantilever_error(deg[i], F, 0, ref);
        cr_log_info("degree %d: tip error %.3e L", deg[i], e / L_ROD);
        cr_assert_lt(e, prev, "degree %d error %g not below degree %d's %g", deg[i], e,
                     deg[i > 0 ? i - 1 : 0], prev);
        prev = e;
    }
    cr_assert_lt(prev, 1e-8 * L_ROD);
}

static void check_cable(const char *strains, double T, double d)
{
    char acts[256];
    snprintf(acts, sizeof acts,
             "{\"name\": \"c\", \"type\": \"cable\", \"route\": {\"offset\": [%.17g, 0]}, \"tension\": %.17g}",
             d, T);
    rod_model *m = tu_model(spec_text(strains, "", acts));
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 21);
    const double k = T * d / EI;
    for (int i = 0; i < f.n; i++)
        cr_assert_float_eq(f.kappa[3 * i + 1], k, 1e-9 * k, "kappa2 at s=%g: %.12g vs %.12g", f.s[i],
                           f.kappa[3 * i + 1], k);
    /* toward the cable, which sits at +x */
    cr_assert_gt(f.position[3 * 20 + 0], 0.0);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(statics_classic, cable_at_constant_offset_bends_with_constant_curvature_toward_it)
{
    check_cable("\"bend2\": 4", 0.05, 0.005);
    check_cable("\"bend2\": 3, \"stretch\": 2", 0.2, 0.008);
    check_cable("\"bend1\": 2, \"bend2\": 2, \"twist\": 1", 0.1, 0.004);
}

Test(statics_classic, cable_offset_along_y_bends_about_d1)
{
    /* a cable at +y: kappa1 = -T d / EI, which curls the rod toward +y */
    rod_model *m = tu_model(spec_text("\"bend1\": 2", "",
        "{\"name\": \"c\", \"type\": \"cable\", \"route\": {\"offset\": [0, 0.005]}, \"tension\": 0.05}"));
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 5);
    cr_assert_float_eq(f.kappa[3 * 2 + 0], -0.05 * 0.005 / EI, 1e-9);
    cr_assert_gt(f.position[3 * 4 + 1], 0.0);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(statics_classic, passive_axial_stiffness_is_EA_over_L)
{
    const double A = M_PI * R_ROD * R_ROD, F = 2.0;
    double tip[3];
    tip_of(spec_text("\"stretch\": 2", "{\"name\": \"f\", \"type\": \"tip_force\", \"force\": [0, 0, -2]}", ""), tip);
    cr_assert_float_eq(F / (L_ROD - tip[2]), E_ROD * A / L_ROD, 1e-9 * E_ROD * A / L_ROD);
}

Test(statics_classic, gravity_cantilever_small_deflection_matches_beam_theory)
{
    /* q L^4 / (8 EI) for a uniform load, with the load far too small for nonlinearity */
    const char *json =
        "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 10, "
        "\"youngs_modulus\": 1e9, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 4}, "
        "\"environment\": {\"gravity\": [-9.81, 0, 0]}, \"solver\": {\"tolerance\": 1e-14}}";
    rod_model *m = tu_model(json);
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 3);
    const double q = 10 * M_PI * 1e-4 * 9.81, EIg = 1e9 * M_PI * 1e-8 / 4;
    const double w = q * pow(0.5, 4) / (8 * EIg);
    cr_assert_float_eq(f.position[3 * 2 + 0], -w, 1e-6 * w, "%.9g vs %.9g", f.position[6], -w);
    /* gravitational energy: -int m g . r = -(rho A g_x) int x ds, x < 0 so positive... */
    cr_assert_lt(f.e_gravity, 0.0);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(statics_classic, point_force_small_deflection_matches_beam_theory)
{
    /* F at s = a on a cantilever: w(a) = F a^3 / (3 EI), tip w(L) = F a^2 (3L - a) / (6 EI) */
    const double a = 0.3, F = 1e-6 * EI / (L_ROD * L_ROD) * 100;
    char loads[256];
    snprintf(loads, sizeof loads,
             "{\"name\": \"p\", \"type\": \"point_force\", \"force\": [%.17g, 0, 0], \"s\": %g}", F, a);
    rod_model *m = tu_model(spec_text("\"bend2\": 6", loads, ""));
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 51); /* s = 0.3 is point 30 */
    const double wa = F * a * a * a / (3 * EI), wL = F * a * a * (3 * L_ROD - a) / (6 * EI);
    cr_assert_float_eq(f.position[3 * 30], wa, 1e-3 * wa, "%.9g vs %.9g", f.position[90], wa);
    cr_assert_float_eq(f.position[3 * 50], wL, 1e-3 * wL, "%.9g vs %.9g", f.position[150], wL);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(statics_classic, follower_force_stays_normal_to_the_tip)
{
    /* a local force along d1 at the tip turns with it: the internal force at the tip is
     * perpendicular to d3 there, so the tip curvature is 0 and the shear resultant aligns */
    const double F = 2 * EI / (L_ROD * L_ROD);
    char loads[256];
    snprintf(loads, sizeof loads,
             "{\"name\": \"f\", \"type\": \"tip_force\", \"force\": [%.17g, 0, 0], \"frame\": \"local\"}", F);
    rod_model *m = tu_model(spec_text("\"bend2\": 8", loads, ""));
    rod_state *st = tu_solve(m);
    rod_frame fl = tu_frame(m, st, 3);
    rod_state_free(st);
    rod_model_free(m);
    snprintf(loads, sizeof loads, "{\"name\": \"f\", \"type\": \"tip_force\", \"force\": [%.17g, 0, 0]}", F);
    m = tu_model(spec_text("\"bend2\": 8", loads, ""));
    st = tu_solve(m);
    rod_frame fd = tu_frame(m, st, 3);
    /* the follower bends further than the dead load, which loses its lever arm as the tip turns */
    cr_assert_gt(fl.position[6], fd.position[6] + 1e-3 * L_ROD);
    cr_assert_float_eq(fl.kappa[3 * 2 + 1], 0.0, 1e-3 * F * L_ROD / EI, "no moment at a free tip");
    rod_frame_free(&fl);
    rod_frame_free(&fd);
    rod_state_free(st);
    rod_model_free(m);
}

Test(statics_classic, a_converged_guess_needs_no_iterations)
{
    const double F = 3 * EI / (L_ROD * L_ROD);
    char loads[256];
    snprintf(loads, sizeof loads, "{\"name\": \"f\", \"type\": \"tip_force\", \"force\": [%.17g, 0, 0]}", F);
    rod_model *m = tu_model(spec_text("\"bend2\": 6", loads, ""));
    rod_state *st = tu_solve(m);
    rod_statics_result res;
    cr_assert_eq(rod_statics_solve(m, st, 0.0, &res), ROD_OK);
    cr_assert_leq(res.iterations, 1, "%d iterations from the solution", res.iterations);
    cr_assert_eq(res.load_steps, 1);
    rod_state_free(st);
    rod_model_free(m);
}

Test(statics_classic, tip_torque_twists_by_T_L_over_G_J)
{
    /* Saint-Venant torsion of a circular section: theta = T L / (G J), J = pi r^4 / 2; exact for
     * a straight rod at any angle (the twist strain is constant) */
    const double G = E_ROD / (2 * (1 + 0.45)), J = M_PI * pow(R_ROD, 4) / 2, theta = 0.7;
    const double T = theta * G * J / L_ROD;
    char loads[256];
    snprintf(loads, sizeof loads, "{\"name\": \"T\", \"type\": \"tip_moment\", \"moment\": [0, 0, %.17g]}", T);
    rod_model *m = tu_model(spec_text("\"twist\": 2", loads, ""));
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, 3);
    const double *R = f.rotation + 9 * 2; /* tip, row-major */
    const double got = atan2(R[3], R[0]);
    cr_log_info("tip twist %.9f rad, T L / (G J) = %.9f", got, theta);
    cr_assert_float_eq(got, theta, 1e-8, "twist %.9g vs %.9g", got, theta);
    cr_assert_float_eq(R[8], 1.0, 1e-12, "the axis stays put");
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(statics_classic, short_thick_cantilever_adds_the_shear_deflection_F_L_over_G_A)
{
    /* Timoshenko with the Cosserat rod's shear coefficient 1: w = F L^3 / (3 EI) + F L / (G A).
     * A rod of L = 4 r: shear is a sixth of the tip deflection, and the load is small enough
     * to stay linear. Without the shear strain the Euler-Bernoulli part alone comes back. */
    const double L = 0.04, r = 0.01, G = E_ROD / (2 * (1 + 0.45)), A = M_PI * r * r;
    const double F = 1e-6 * EI / (L * L);
    const double w_bend = F * L * L * L / (3 * EI), w_shear = F * L / (G * A);
    for (int with_shear = 0; with_shear <= 1; with_shear++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": %g, \"density\": 1000, "
                 "\"youngs_modulus\": %g, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 3%s}, "
                 "\"loads\": [{\"name\": \"F\", \"type\": \"tip_force\", \"force\": [%.17g, 0, 0]}], "
                 "\"solver\": {\"tolerance\": 1e-14}}",
                 L, r, E_ROD, with_shear ? ", \"shear1\": 2" : "", F);
        rod_model *m = tu_model(json);
        rod_state *st = tu_solve(m);
        rod_frame f = tu_frame(m, st, 2);
        const double want = w_bend + (with_shear ? w_shear : 0);
        cr_log_info("%s: tip %.9e m, theory %.9e m (shear %.9e)", with_shear ? "with shear" : "no shear",
                    f.position[3], want, w_shear);
        cr_assert_float_eq(f.position[3], want, 1e-5 * want, "tip %.9g vs %.9g", f.position[3], want);
        rod_frame_free(&f);
        rod_state_free(st);
        rod_model_free(m);
    }
}

Test(statics_classic, timoshenko_seed002_fig5)
{
    /* seeds/002 Fig. 5: L = 3 m, r = 0.25 m, E = 1e6 Pa, G = 1e4 Pa (not from a Poisson
     * ratio: rod.shear_modulus) and the shear stiffness 4 G A / 3 (rod.shear_coefficient), a
     * 15 N tip force across the rod. Linear Timoshenko theory: w(s) = F s / (k G A) +
     * F (L s^2 / 2 - s^3 / 6) / EI, a third of the tip deflection from shear. At the seed's 15 N
     * the tip turns by theta = F L^2 / (2 EI) + F / (k G A) = 0.028 rad, so the geometric
     * nonlinearity the linear theory leaves out is of relative size theta^2 = 8e-4; at a
     * thousandth of the load it is 8e-10. Both bound the difference along the whole rod, relative to
     * the tip deflection. */
    const double L = 3, r = 0.25, E = 1e6, G = 1e4, k = 4.0 / 3.0, A = M_PI * r * r;
    const double EIr = E * M_PI * r * r * r * r / 4;
    const double scales[2] = {1e-3, 1};
    for (int i = 0; i < 2; i++) {
        const double F = 15 * scales[i];
        const double theta = F * L * L / (2 * EIr) + F / (k * G * A);
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": %g, \"density\": 5000, "
                 "\"youngs_modulus\": %g, \"shear_modulus\": %g, \"shear_coefficient\": %.17g}, "
                 "\"strains\": {\"bend2\": 6, \"shear1\": 6, \"stretch\": 2}, "
                 "\"loads\": [{\"name\": \"F\", \"type\": \"tip_force\", \"force\": [%.17g, 0, 0]}], "
                 "\"solver\": {\"tolerance\": 1e-14}}",
                 L, r, E, G, k, F);
        rod_model *m = tu_model(json);
        rod_state *st = tu_solve(m);
        rod_frame f = tu_frame(m, st, 7);
        /* plus 1e-8, what this file allows where the discrete model is exact */
        const double tol = theta * theta + 1e-8;
        const double w_tip = F * L / (k * G * A) + F * L * L * L / (3 * EIr);
        for (int j = 1; j < 7; j++) {
            const double s = f.s[j];
            const double want = F * s / (k * G * A) + F * (L * s * s / 2 - s * s * s / 6) / EIr;
            const double got = f.position[3 * j];
            if (j == 6)
                cr_log_info("F = %g N: tip %.9e m, linear Timoshenko %.9e m (Euler-Bernoulli %.9e), "
                            "relative difference %.2e, allowed %.1e", F, got, want,
                            F * L * L * L / (3 * EIr), fabs(got - want) / want, tol);
            cr_assert(fabs(got - want) <= tol * w_tip,
                      "F = %g N, s = %g: w %.9g vs Timoshenko %.9g", F, s, got, want);
        }
        rod_frame_free(&f);
        rod_state_free(st);
        rod_model_free(m);
    }
}

Test(statics_classic, shear_modulus_and_poisson_ratio_agree)
{
    /* G given directly and G from the Poisson ratio build the same rod */
    const double E = 1e6, nu = 0.3;
    char a[1024], b[1024];
    const char *tail = "\"strains\": {\"bend2\": 3, \"shear1\": 2, \"twist\": 1}, \"loads\": [{\"name\": \"F\", "
                       "\"type\": \"tip_force\", \"force\": [0.01, 0, 0]}, {\"name\": \"T\", \"type\": "
                       "\"tip_moment\", \"moment\": [0, 0, 1e-4]}]";
    snprintf(a, sizeof a, "{\"model\": \"classic\", \"rod\": {\"length\": 0.1, \"radius\": 0.01, \"density\": 1000, "
             "\"youngs_modulus\": %g, \"poisson_ratio\": %g}, %s}", E, nu, tail);
    snprintf(b, sizeof b, "{\"model\": \"classic\", \"rod\": {\"length\": 0.1, \"radius\": 0.01, \"density\": 1000, "
             "\"youngs_modulus\": %g, \"shear_modulus\": %.17g}, %s}", E, E / (2 * (1 + nu)), tail);
    double ta[3], tb[3];
    tip_of(a, ta);
    tip_of(b, tb);
    for (int i = 0; i < 3; i++) cr_assert_float_eq(ta[i], tb[i], 1e-12, "component %d", i);
}
