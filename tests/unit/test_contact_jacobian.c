/* contact_jacobian (solver.jacobian "contact"): at fixed q the contacts' generalized force is
 * ds Jv^T F(Jv q_dot) per point, so its q_dot block must be the derivative of contact_forces
 * along q_dot, friction and damping included, wherever the point laws are smooth (here every
 * point slips well past v_eps, or creeps well below it; slipping, so far past it that the
 * static share, which the Newton matrix holds fixed, is gone). The q block leaves the frames'
 * turning out (an approximation for a Newton matrix) and is not checked here. */
#include "contact.h"
#include "kinematics.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *SPEC_FMT =
    "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
    "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": 2, \"bend2\": 2, \"twist\": 1}, "
    "\"environment\": {\"obstacles\": [{\"type\": \"plane\", \"point\": [-0.008, 0, 0], \"normal\": [1, 0, 0], "
    "\"stiffness\": 1e4, \"damping\": 20, \"friction\": {\"static\": [0.8, 1.0, 1.2], \"kinetic\": [0.4, 0.5, 0.6], "
    "\"threshold_velocity\": %g}}]}}";

/* Q(q_dot) of the contacts alone at (q, q_dot) */
static void contact_q(const rod_model *m, rod_state *st, const double *q, const double *qd, double *Q)
{
    kin_forward_vel_state(m, st, q, qd, 1);
    memset(Q, 0, (size_t)m->n * sizeof *Q);
    contact_forces(m, st, q, st->eta, 0.0, 1.0, Q, NULL, 0, NULL);
}

/* A rod curved at rest into a hairpin whose second leg lies 2 x 0.005 m beside its first,
 * radius 0.0055 m: the legs overlap at rest. Self-contact with friction and no normal damping
 * (the Newton matrix takes the normal damping through the centre lines, the force through the
 * surfaces: not a derivative to test), so the q_dot block is the pair friction's alone. */
static const char *SELF_FMT =
    "{\"model\": \"classic\", \"rod\": {\"length\": 0.28, \"radius\": 0.0055, \"density\": 1000, "
    "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45, \"rest_strain\": {\"bend2\": \"(s > 0.1 && s < 0.2) ? "
    "(3.141592653589793 / 0.1 * (1 - cos(2 * 3.141592653589793 * (s - 0.1) / 0.1)) + (-32.533266132919536) * (cos(2 * 3.141592653589793 * (s - 0.1) / 0.1) - "
    "cos(4 * 3.141592653589793 * (s - 0.1) / 0.1))) : 0\"}}, \"strains\": {\"bend1\": 2, \"bend2\": 2, \"twist\": 1}, "
    "\"environment\": {\"self_contact\": {\"stiffness\": 1e6, \"friction\": {\"static\": 0.8, \"kinetic\": 0.5, "
    "\"threshold_velocity\": %g}}}}";

static void check_fmt(const char *fmt, double ve, double speed)
{
    char json[2048];
    snprintf(json, sizeof json, fmt, ve);
    rod_model *m = tu_model(json);
    char err[128];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    const int n = m->n, nx = m->n_xi;
    double *q = calloc((size_t)n, sizeof *q), *qd = calloc((size_t)n, sizeof *qd);
    double *Q0 = calloc((size_t)n, sizeof *Q0), *Q1 = calloc((size_t)n, sizeof *Q1);
    double *K = calloc((size_t)nx * nx, sizeof *K), *C = calloc((size_t)nx * nx, sizeof *C);
    cr_assert(q && qd && Q0 && Q1 && K && C);
    /* a slightly bent rod whose every section slides (or creeps) sideways and along */
    for (int j = 0; j < nx; j++) qd[j] = speed * (0.3 + 0.7 * sin(1.0 + 2.3 * j));
    q[0] = 0.01;
    contact_q(m, st, q, qd, Q0);
    contact_jacobian(m, st, q, st->eta, 0.0, 1.0, K, 1.0, C, nx);
    double cmax = 0, emax = 0;
    for (int j = 0; j < nx; j++) {
        const double h = 1e-4 * speed;
        qd[j] += h;
        contact_q(m, st, q, qd, Q1);
        qd[j] -= h;
        for (int i = 0; i < nx; i++) {
            const double d = (Q1[i] - Q0[i]) / h;
            cmax = fmax(cmax, fabs(d));
            emax = fmax(emax, fabs(d - C[i + (size_t)nx * j]));
        }
    }
    cr_assert_gt(cmax, 0.0, "the contacts depend on q_dot");
    cr_assert_lt(emax, 2e-3 * cmax, "v_eps %g, |q_dot| ~ %g: dQ/dq_dot off by %g of %g", ve, speed, emax, cmax);
    free(q), free(qd), free(Q0), free(Q1), free(K), free(C);
    rod_state_free(st);
    rod_model_free(m);
}

static void check(double ve, double speed)
{
    check_fmt(SPEC_FMT, ve, speed);
}

Test(contact_jacobian, the_rates_block_is_the_derivative_of_the_contact_forces_while_slipping)
{
    check(1e-5, 1.0);
}

Test(contact_jacobian, a_rod_against_itself_slipping)
{
    check_fmt(SELF_FMT, 1e-5, 1.0);
}

Test(contact_jacobian, a_rod_against_itself_creeping)
{
    check_fmt(SELF_FMT, 10.0, 1e-2);
}

Test(contact_jacobian, the_rates_block_is_the_derivative_of_the_contact_forces_while_creeping)
{
    check(10.0, 1e-2);
}
