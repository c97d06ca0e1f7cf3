/* Pose constraints relative to another point of the rod ("relative_to": {"s": ...}) against
 * closed forms and conservation laws:
 *  - a rod whose tip is held at its base, in the base's frame, closes into a ring: a straight
 *    isotropic rod bent into a circle of circumference L carries the constant moment
 *    2 pi EI / L and no force, so the constraint's reaction is that moment alone and the shape
 *    is the circle of radius L / 2 pi wherever a world constraint puts it;
 *  - the reactions of a relative pose are self-equilibrated (it depends on the relative pose
 *    alone, which a rigid motion does not change): a free ring held in the world at the point
 *    that closes it takes no load there, and a free ring floating in space keeps its linear and
 *    angular momentum and, undamped and scleronomic, its energy.
 * The statics tests also put a free base under statics (the base's pose solved with q). */
#include "base.h"
#include "kinematics.h"
#include "lie.h"
#include "model.h"
#include "state.h"
#include "rigid_sums.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define L_RING 1.0
#define R_WIRE 0.01
#define E_WIRE 1e6
static const double EI = E_WIRE * M_PI * R_WIRE * R_WIRE * R_WIRE * R_WIRE / 4;

/* The held pose of the free ring's tip (and so of its base): p0 and angle ALPHA about AXIS. */
static const double P0[3] = {0.1, -0.2, 0.3}, AXIS[3] = {1, 2, -1}, ALPHA = 0.5;

/* A free rod closed into a ring by its tip held at its base (all six components, in the base's
 * frame) and held in the world at its tip; degree deg in both bendings. The guess is the ring
 * laid in the y-z plane at the origin (bend1 = 2 pi / L), so Newton finds the base's pose. An
 * isotropic ring held at one point can turn about its tangent there, its material spinning
 * back (bend1 and bend2 mixed, the base turned): equilibria all, so a gauge holds its middle
 * in the base's y-z plane (x relative to the base), which takes no load. */
static rod_model *free_ring(int deg, int substeps)
{
    const int n = 2 * (deg + 1) + 2 + 2 + 6;
    double g[2 * (SPEC_MAX_DEGREE + 1) + 10] = {2 * M_PI / L_RING};
    char guess[1024], json[4096];
    tu_json_numbers(guess, sizeof guess, g, n);
    snprintf(json, sizeof json,
             "{\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": %g, \"density\": 1000, "
             "\"youngs_modulus\": %g, \"poisson_ratio\": 0.4}, \"base\": {\"type\": \"free\"}, "
             "\"strains\": {\"bend1\": %d, \"bend2\": %d, \"twist\": 1, \"stretch\": 1}, "
             "\"discretization\": {\"substeps\": %d}, \"solver\": {\"tolerance\": 1e-11, \"guess\": [%s]}, "
             "\"constraints\": [{\"name\": \"ring\", \"type\": \"pose\", \"relative_to\": {\"s\": 0}, "
             "\"position\": [0, 0, 0], \"rotation\": {\"axis\": [1, 0, 0], \"angle\": %.17g}}, "
             "{\"name\": \"hold\", \"type\": \"pose\", \"position\": [%g, %g, %g], "
             "\"rotation\": {\"axis\": [%g, %g, %g], \"angle\": %g}}, "
             "{\"name\": \"gauge\", \"type\": \"pose\", \"s\": %g, \"relative_to\": {\"s\": 0}, "
             "\"components\": [\"x\"]}]}",
             L_RING, R_WIRE, E_WIRE, deg, deg, substeps, guess, 2 * M_PI, P0[0], P0[1], P0[2], AXIS[0],
             AXIS[1], AXIS[2], ALPHA, L_RING / 2);
    return tu_model(json);
}

#define NPTS 41

static double norm3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

typedef struct {
    double moment[3], force[3], hold_force[3], hold_moment[3];
    double dev[NPTS][3]; /* each point's position less the circle's */
    double base_dev;     /* |base position - P0| + |base rotation - R| */
    double gauge;        /* the gauge's reaction (N) */
} ring_result;

static ring_result solve_ring(int deg, int substeps)
{
    rod_model *m = free_ring(deg, substeps);
    rod_state *st = tu_solve(m);
    rod_frame f = tu_frame(m, st, NPTS);
    ring_result r;
    double R[9], a[3];
    const double an = sqrt(AXIS[0] * AXIS[0] + AXIS[1] * AXIS[1] + AXIS[2] * AXIS[2]);
    for (int i = 0; i < 3; i++) a[i] = AXIS[i] / an;
    lie_rotation_about(a, ALPHA, R); /* column-major */
    const double rho = L_RING / (2 * M_PI);
    for (int k = 0; k < NPTS; k++) {
        /* bend1 > 0 turns d3 toward -d2: the ring in the base's y-z plane, centre (0, -rho, 0) */
        const double s = f.s[k], loc[3] = {0, -rho * (1 - cos(s / rho)), rho * sin(s / rho)};
        for (int i = 0; i < 3; i++)
            r.dev[k][i] = f.position[3 * k + i] -
                          (P0[i] + R[i] * loc[0] + R[i + 3] * loc[1] + R[i + 6] * loc[2]);
    }
    cr_assert(f.base_moving);
    r.base_dev = 0;
    for (int i = 0; i < 3; i++) {
        r.base_dev += fabs(f.base_position[i] - P0[i]);
        for (int j = 0; j < 3; j++) r.base_dev += fabs(f.base_rotation[3 * i + j] - R[i + 3 * j]);
    }
    cr_assert_eq(f.ncons, 3);
    r.gauge = norm3(f.cons[2].force);
    memcpy(r.moment, f.cons[0].moment, sizeof r.moment);
    memcpy(r.force, f.cons[0].force, sizeof r.force);
    memcpy(r.hold_force, f.cons[1].force, sizeof r.hold_force);
    memcpy(r.hold_moment, f.cons[1].moment, sizeof r.hold_moment);
    /* the expected moment: 2 pi EI / L about the ring's normal, the held frame's d1 */
    for (int i = 0; i < 3; i++) r.moment[i] -= 2 * M_PI * EI / L_RING * R[i];
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
    return r;
}

static double max_dev(const ring_result *r)
{
    double e = 0;
    for (int k = 0; k < NPTS; k++) e = fmax(e, sqrt(r->dev[k][0] * r->dev[k][0] + r->dev[k][1] * r->dev[k][1] +
                                                    r->dev[k][2] * r->dev[k][2]));
    return e;
}

/* The semi-discrete ring differs from the circle only by the 4th-order Zanna kinematics (the
 * circle is in the basis), so the error falls by 16 as the substeps double, and Richardson's
 * extrapolation of two runs, (16 e_2S - e_S) / 15, leaves only the next order, (kappa h)^2
 * (about 2e-3 here) times e_2S: it must be at least ten times below e_2S, so the model
 * converges to the circle's moment and shape and not to anything else. */
Test(relative, ring_closed_on_its_base_is_a_circle_with_moment_2_pi_EI_over_L, .timeout = 60)
{
    const double M = 2 * M_PI * EI / L_RING, rho = L_RING / (2 * M_PI);
    const ring_result a = solve_ring(4, 4), b = solve_ring(4, 8);
    const double ea = norm3(a.moment), eb = norm3(b.moment), sa = max_dev(&a), sb = max_dev(&b);
    double mx = 0, sx = 0;
    for (int i = 0; i < 3; i++) mx = fmax(mx, fabs(16 * b.moment[i] - a.moment[i]) / 15);
    for (int k = 0; k < NPTS; k++)
        for (int i = 0; i < 3; i++) sx = fmax(sx, fabs(16 * b.dev[k][i] - a.dev[k][i]) / 15);
    cr_log_info("free ring closed on its base: moment off 2 pi EI / L = %.6g N m by %.2e / %.2e "
                "(substeps 4 / 8, ratio %.1f, extrapolated %.1e); circle of radius %.4f m within %.2e / "
                "%.2e m (ratio %.1f, extrapolated %.1e); base pose within %.1e of the held tip's; force "
                "%.1e N", M, ea / M, eb / M, ea / eb, mx / M, rho, sa, sb, sa / sb, sx, b.base_dev,
                norm3(b.force));
    cr_assert_gt(ea / eb, 12, "4th order in the Zanna steps");
    cr_assert_lt(ea / eb, 20, "4th order in the Zanna steps");
    cr_assert_gt(sa / sb, 12);
    cr_assert_lt(sa / sb, 20);
    cr_assert_lt(mx, 0.1 * eb);
    cr_assert_lt(sx, 0.1 * sb);
    cr_assert_lt(b.base_dev, 1e-8, "the base sits where the held tip is");
    cr_assert_lt(norm3(b.force), 1e-6 * M / L_RING, "a circle carries no force");
}

/* The world constraint holds the ring at the very point the relative one closes it: the
 * relative reactions on the tip and on the base cancel, so the world one carries nothing
 * (to the Newton tolerance on the base's rows, 1e-13 EI per L and per L^2). */
Test(relative, relative_reactions_are_self_equilibrated, .timeout = 60)
{
    const ring_result r = solve_ring(4, 8);
    const double M = 2 * M_PI * EI / L_RING;
    cr_log_info("free ring held at its closing point: that hold carries %.1e N and %.1e N m "
                "against the ring's %.4g N m (the gauge %.1e N)", norm3(r.hold_force), norm3(r.hold_moment),
                M, r.gauge);
    cr_assert_lt(r.gauge, 1e-10 * M / L_RING);
    cr_assert_lt(norm3(r.hold_force), 1e-10 * M / L_RING);
    cr_assert_lt(norm3(r.hold_moment), 1e-10 * M);
}

static double dist3(const double a[3], const double b[3])
{
    const double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return norm3(d);
}

/* Energy and both momenta of an undamped free rod whose only constraint is a relative pose,
 * tumbling and vibrating from its guess (the start projects it onto the constraint) for 0.5 s:
 * the constraint is scleronomic and invariant under rigid motions, so all three are exact
 * invariants of the semi-discrete model; what moves them is CVODE's local error, at most
 * rtol |y| + atol per step, summed over the steps taken. */
static void conserves(const char *what, const char *constraint, const double *guess0, int deg)
{
    const double RTOL = 1e-10, ATOL = 1e-12;
    const int n = 2 * (deg + 1) + 2 + 2 + 6;
    char guess[1024], json[4096];
    tu_json_numbers(guess, sizeof guess, guess0, n);
    snprintf(json, sizeof json,
             "{\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": %g, \"density\": 1000, "
             "\"youngs_modulus\": %g, \"poisson_ratio\": 0.4}, \"base\": {\"type\": \"free\"}, "
             "\"strains\": {\"bend1\": %d, \"bend2\": %d, \"twist\": 1, \"stretch\": 1}, "
             "\"solver\": {\"rtol\": %g, \"atol\": %g, \"guess\": [%s]}, \"constraints\": [%s]}",
             L_RING, R_WIRE, E_WIRE, deg, deg, RTOL, ATOL, guess, constraint);
    rod_model *m = tu_model(json);
    rod_state *st = tu_started(m);
    /* tumbling about all three axes and drifting, the strains moving too */
    for (int j = 0; j < m->base_col; j++) st->qd[j] = 0.3 * (1 + j % 3);
    const double twist[6] = {1.0, -0.7, 0.4, 0.05, 0.02, -0.03};
    memcpy(st->qd + m->base_col, twist, sizeof twist);
    rod_state_mark_restart(st);
    double t = 0.01;
    cr_assert_eq(rod_dynamics_advance(m, st, t), ROD_OK, "%s", rod_state_error(st));
    const rigid_sums s0 = rigid_sums_of(m, st);
    rod_frame f0 = tu_frame(m, st, 2);
    const double E0 = f0.e_kinetic + f0.e_elastic;
    rod_frame_free(&f0);
    double dP = 0, dH = 0, dE = 0, viol = 0, ek_min = INFINITY, ek_max = 0;
    for (int k = 1; k <= 10; k++) {
        t = 0.01 + 0.05 * k;
        cr_assert_eq(rod_dynamics_advance(m, st, t), ROD_OK, "advance to %g: %s", t, rod_state_error(st));
        const rigid_sums s = rigid_sums_of(m, st);
        dP = fmax(dP, dist3(s.P, s0.P));
        dH = fmax(dH, dist3(s.H, s0.H));
        rod_frame f = tu_frame(m, st, 2);
        dE = fmax(dE, fabs(f.e_kinetic + f.e_elastic - E0));
        ek_min = fmin(ek_min, f.e_kinetic);
        ek_max = fmax(ek_max, f.e_kinetic);
        viol = fmax(viol, fabs(f.cons[0].violation));
        rod_frame_free(&f);
    }
    rod_dynamics_stats ds;
    cr_assert_eq(rod_dynamics_get_stats(st, &ds), ROD_OK);
    const double relP = dP / norm3(s0.P), relH = dH / norm3(s0.H), relE = dE / E0;
    cr_log_info("%s, 0.5 s, %ld steps: |dP|/|P| %.2e, |dH|/|H| %.2e, |dE|/E %.2e (kinetic energy "
                "between %.3g and %.3g J), constraint within %.1e", what, ds.steps, relP, relH, relE,
                ek_min, ek_max, viol);
    cr_assert_gt(ek_max - ek_min, 1e-3 * E0, "energy really moves between kinetic and elastic");
    const double bound = ds.steps * RTOL;
    cr_assert_lt(relP, bound);
    cr_assert_lt(relH, bound);
    cr_assert_lt(relE, bound);
    cr_assert_lt(viol, 1e-9 * L_RING);
    rod_state_free(st);
    rod_model_free(m);
}

/* The ring: the tip held at the base in the base's frame, from the circle bent out of its plane
 * (bend2 of degree 2) and twisted. */
Test(relative, free_ring_keeps_its_energy_and_momenta, .timeout = 120)
{
    const int deg = 3;
    double g[2 * 4 + 2 + 2 + 6] = {0};
    g[0] = 2 * M_PI / L_RING;
    g[deg + 3] = 1.0;
    g[2 * (deg + 1)] = 0.5;
    char c[512];
    snprintf(c, sizeof c, "{\"name\": \"ring\", \"type\": \"pose\", \"relative_to\": {\"s\": 0}, "
             "\"position\": [0, 0, 0], \"rotation\": {\"axis\": [1, 0, 0], \"angle\": %.17g}}", 2 * M_PI);
    conserves("free ring tumbling and vibrating", c, g, deg);
}

/* A link from the middle of the rod to its tip, holding the tip where it is in the straight
 * rod, in the middle's frame, its position and rotation: the points are apart, so the rotation
 * of the middle's frame moves the held position (the d x w_b terms of the gradient). */
Test(relative, rod_with_a_link_from_its_middle_to_its_tip_keeps_its_energy_and_momenta, .timeout = 120)
{
    const int deg = 3;
    double g[2 * 4 + 2 + 2 + 6] = {0};
    g[1] = 2.0;
    g[deg + 2] = -1.0;
    const char *c = "{\"name\": \"link\", \"type\": \"pose\", \"s\": 1, \"relative_to\": {\"s\": 0.5}, "
                    "\"components\": [\"x\", \"y\", \"z\", \"rx\", \"ry\", \"rz\"]}";
    conserves("free rod with a link from its middle to its tip, tumbling and vibrating", c, g, deg);
}
