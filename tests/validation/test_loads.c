/* Distributed loads (load types distributed_force and distributed_moment: per unit length,
 * along the whole rod) and rod.rotary_inertia_factor against beam theory and rigid-body
 * dynamics.
 * - A cantilever under a small uniform transverse load q: tip deflection q L^4 / (8 EI).
 * - Under a uniform distributed moment m: the bending moment is m (L - s), the tip slope
 *   m L^2 / (2 EI) and the tip deflection m L^3 / (3 EI).
 *   Both to the geometric nonlinearity linear theory drops, of order the tip slope squared.
 * - A free rod in zero gravity spun by a distributed couple C / L about its axis turns at
 *   w = C t / (lambda J), J = m r^2 / 2: the factor scales the rotary inertia only. */
#include "base.h"
#include "model.h"
#include "state.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#define CL 0.5
#define CR 0.01
#define CE 1e7

static rod_state *cantilever(const char *load, rod_model **m)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": \"classic\", \"rod\": {\"length\": %g, \"radius\": %g, \"density\": 1000, "
             "\"youngs_modulus\": %g, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 4}, "
             "\"loads\": [%s], \"solver\": {\"tolerance\": 1e-12}}",
             CL, CR, CE, load);
    *m = tu_model(json);
    return tu_solve(*m);
}

Test(loads, a_uniform_transverse_load_bends_a_cantilever_by_q_L4_over_8EI)
{
    const double EI = CE * M_PI * pow(CR, 4) / 4, q = 1e-3 * 8 * EI / pow(CL, 4); /* tip at 1e-3 L */
    char load[200];
    snprintf(load, sizeof load, "{\"name\": \"q\", \"type\": \"distributed_force\", \"force\": [%.17g, 0, 0]}", q);
    rod_model *m;
    rod_state *st = cantilever(load, &m);
    rod_frame f = tu_frame(m, st, 2);
    const double tip = f.position[3], theory = q * pow(CL, 4) / (8 * EI), slope = q * pow(CL, 3) / (6 * EI);
    cr_log_info("uniform load: tip %.9e m, q L^4 / 8EI %.9e (error %.1e; slope^2 %.1e)", tip, theory,
                tip / theory - 1, slope * slope);
    cr_assert_lt(fabs(tip / theory - 1), slope * slope);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(loads, a_uniform_moment_bends_a_cantilever_by_m_L3_over_3EI)
{
    const double EI = CE * M_PI * pow(CR, 4) / 4, mu = 1e-3 * 3 * EI / pow(CL, 3);
    char load[200];
    /* a moment about +y bends +z toward +x */
    snprintf(load, sizeof load, "{\"name\": \"m\", \"type\": \"distributed_moment\", \"moment\": [0, %.17g, 0]}", mu);
    rod_model *m;
    rod_state *st = cantilever(load, &m);
    rod_frame f = tu_frame(m, st, 2);
    const double tip = f.position[3], theory = mu * pow(CL, 3) / (3 * EI), slope = mu * CL * CL / (2 * EI);
    cr_log_info("uniform moment: tip %.9e m, m L^3 / 3EI %.9e (error %.1e; slope^2 %.1e)", tip, theory,
                tip / theory - 1, slope * slope);
    cr_assert_lt(fabs(tip / theory - 1), slope * slope);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(loads, a_distributed_couple_spins_a_free_rod_against_its_scaled_rotary_inertia)
{
    const double lambda[2] = {1.0, 0.3}, C = 1e-4, T = 0.5, rtol = 1e-10;
    const double mass = 1000 * M_PI * CR * CR * CL, J = 0.5 * mass * CR * CR;
    for (int i = 0; i < 2; i++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"model\": \"classic\", \"base\": {\"type\": \"free\"}, \"rod\": {\"length\": %g, \"radius\": %g, "
                 "\"density\": 1000, \"youngs_modulus\": %g, \"poisson_ratio\": 0.45, \"rotary_inertia_factor\": %g}, "
                 "\"strains\": {\"bend2\": 2, \"twist\": 1}, \"loads\": [{\"name\": \"c\", \"type\": "
                 "\"distributed_moment\", \"moment\": [0, 0, %.17g], \"frame\": \"local\"}], "
                 "\"solver\": {\"rtol\": %g, \"atol\": 1e-14}}",
                 CL, CR, CE, lambda[i], C / CL, rtol);
        rod_model *m = tu_model(json);
        rod_state *st = tu_started(m);
        cr_assert_eq(rod_dynamics_advance(m, st, T), ROD_OK, "%s", rod_state_error(st));
        /* at the base, x_dot's angular part about z is the spin (the rotation stays about z) */
        const double w = st->qd[m->base_col + 2], theory = C * T / (lambda[i] * J);
        rod_dynamics_stats s;
        cr_assert_eq(rod_dynamics_get_stats(st, &s), ROD_OK);
        cr_log_info("rotary_inertia_factor %.1f: spin %.9e rad/s, C t / (lambda J) %.9e (error %.1e, %ld steps)",
                    lambda[i], w, theory, w / theory - 1, s.steps);
        /* the steps' local errors summed (as test_free_base.c bounds its invariants) */
        cr_assert_lt(fabs(w / theory - 1), s.steps * rtol + 1e-12);
        rod_state_free(st);
        rod_model_free(m);
    }
}
