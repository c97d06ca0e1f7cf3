/* Friction between rods (issue 29 items 3-4): a free rod (on a free sled body) lies along an
 * upright cantilever of the same length, 2 radii off its axis, pressed onto it by a dead
 * distributed force N in all and pulled along the axis by T in all. (Side by side, not
 * crossed: a rod lying across another rolls along it freely, friction or not.) The regularized
 * Coulomb law's own statements are the answer: below mu_s N the rod creeps at
 * v_eps T / (mu_s N) and the friction equals the pull; above it, it slides and the friction
 * is mu_k N (its static share exp(-(u - v_eps)/v_eps) gone once the slip is tens of v_eps).
 * The pull starts at t = 0.1 s, once the pressed contact has settled. */
#include "assembly.h"
#include "dynamics.h"
#include "model.h"
#include "state.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#define MU_S 0.5
#define MU_K 0.3
#define V_EPS 1e-4
#define PRESS 0.5 /* N */

static rod_model *crossing(double pull)
{
    const char *stiff = "\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": 0.01, \"density\": 1000, "
                        "\"youngs_modulus\": 1e10, \"poisson_ratio\": 0.45, \"shear_viscosity\": 1e5}, "
                        "\"strains\": {\"bend1\": 2, \"bend2\": 2, \"twist\": 1, \"stretch\": 1}";
    char a[400], b[400], js[4000];
    snprintf(a, sizeof a, stiff, 0.1);
    snprintf(b, sizeof b, stiff, 0.1);
    const char *ramp = "min(1, max(0, (t - 0.1) / 0.01))";
    snprintf(js, sizeof js,
             "{\"environment\": {\"gravity\": [0, 0, 0], \"self_contact\": {\"stiffness\": 1e8, \"damping\": 1e5, "
             "\"friction\": {\"static\": %g, \"kinetic\": %g, \"threshold_velocity\": %g}}}, "
             "\"solver\": {\"rtol\": 1e-8, \"atol\": 1e-10}, "
             "\"bodies\": [{\"name\": \"sled\", \"mass\": 0.01, \"inertia\": [1e-6, 1e-6, 1e-6], \"base\": {\"type\": "
             "\"free\", \"position\": [0.02, 0, 0]}}], "
             "\"rods\": [{\"name\": \"a\", %s}, {\"name\": \"b\", %s, \"base\": {\"type\": \"joint\", \"to\": "
             "{\"body\": \"sled\"}, \"joint\": \"fixed\"}, \"loads\": ["
             "{\"name\": \"press\", \"type\": \"distributed_force\", \"frame\": \"global\", \"force\": [%.17g, 0, 0]}, "
             "{\"name\": \"pull\", \"type\": \"distributed_force\", \"frame\": \"global\", \"force\": [0, 0, %.17g], "
             "\"scale\": \"%s\"}]}]}",
             MU_S, MU_K, V_EPS, a, b, -PRESS / 0.1, pull / 0.1, ramp);
    return tu_model(js);
}

/* the contact force on rod b summed (x: the press's line, z: the pull's), and b's middle less a's */
static void on_b(const rod_model *m, const rod_state *st, double F[3], double mid[3])
{
    rod_frame f = tu_frame(m, st, 3);
    F[0] = F[1] = F[2] = 0;
    for (int k = 0; k < f.ncontacts; k++)
        if (f.contact_rod[k] == 1)
            for (int l = 0; l < 3; l++) F[l] += f.contact_force[3 * k + l];
    for (int l = 0; l < 3; l++) mid[l] = f.rods[1].position[3 + l] - f.rods[0].position[3 + l];
    rod_frame_free(&f);
}

Test(assembly, friction_between_rods_holds_below_mu_n_and_slides_at_mu_k_above, .timeout = 300)
{
    /* below: half the static limit */
    const double T1 = 0.5 * MU_S * PRESS;
    rod_model *m = crossing(T1);
    rod_state *st = tu_started(m);
    double F[3], p0[3], p1[3];
    cr_assert_eq(rod_dynamics_advance(m, st, 0.4), ROD_OK, "%s", rod_state_error(st));
    on_b(m, st, F, p0);
    cr_assert_eq(rod_dynamics_advance(m, st, 0.5), ROD_OK, "%s", rod_state_error(st));
    double G[3];
    on_b(m, st, G, p1);
    const double creep = (p1[2] - p0[2]) / 0.1, creep_law = V_EPS * T1 / (MU_S * PRESS);
    cr_log_info("rods, friction below mu_s N: normal %.6f N (press %.3f), friction %.6f N (pull %.4f), creep %.3e m/s "
                "(law %.3e)", G[0], PRESS, G[2], T1, creep, creep_law);
    cr_assert_lt(fabs(G[0] - PRESS), 1e-3 * PRESS, "the contact carries the press");
    cr_assert_lt(fabs(G[2] + T1), 1e-3 * T1, "the friction holds the pull");
    cr_assert_lt(fabs(creep - creep_law), 0.05 * creep_law, "a stuck contact creeps as the law says");
    rod_state_free(st);
    rod_model_free(m);

    /* above: 1.1 times the static limit; judged 2 ms after the pull is whole (slip >> v_eps,
     * slid a few um) */
    const double T2 = 1.1 * MU_S * PRESS;
    m = crossing(T2);
    st = tu_started(m);
    double ps[3];
    cr_assert_eq(rod_dynamics_advance(m, st, 0.1), ROD_OK, "%s", rod_state_error(st));
    on_b(m, st, F, ps);
    cr_assert_eq(rod_dynamics_advance(m, st, 0.112), ROD_OK, "%s", rod_state_error(st));
    on_b(m, st, F, p0);
    cr_assert_eq(rod_dynamics_advance(m, st, 0.1121), ROD_OK, "%s", rod_state_error(st));
    on_b(m, st, G, p1);
    const double u = (p1[2] - p0[2]) / 1e-4;
    cr_log_info("rods, friction above mu_s N: normal %.6f N, friction %.6f N = %.5f of the normal (mu_k %.2f), "
                "slip %.3e m/s, slid %.3e m", G[0], G[2], -G[2] / G[0], MU_K, u, p1[2] - ps[2]);
    cr_assert_gt(u, 30 * V_EPS, "it slides");
    /* the penalty law's own error: a pair of contact points slid d apart along the rods pushes
     * along their joining line, tilted d / (r_a + r_b) from the normal, so the force along the
     * slide is off by that share of the normal (the static share, exp(-(u - v_eps)/v_eps), is
     * nil here) */
    const double tilt = p1[2] / 0.02;
    cr_log_info("rods, kinetic: the ratio %.5f, mu_k less the contact points' tilt %.5f", -G[2] / G[0], MU_K - tilt);
    cr_assert_lt(fabs(-G[2] / G[0] - (MU_K - tilt)), 0.2 * tilt + 1e-5, "kinetic friction");
    cr_assert_lt(fabs(G[0] - PRESS), 1e-2 * PRESS);
    rod_state_free(st);
    rod_model_free(m);
}
