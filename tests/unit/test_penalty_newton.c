/* constraints_penalty_add (generalized-alpha's Newton matrix): a penalty row's force is
 * -k c - d c_dot with c_dot = A q_dot, so at fixed q the generalized force A^T f is linear in
 * q_dot with slope -d A^T A, and its q slope is -k A^T A plus A's own turning with q, which a
 * Newton matrix leaves out. Checked against difference quotients of the force that
 * constraints_accel applies: the q_dot block exactly, the q block near the rest shape (c = 0,
 * where A's turning multiplies c and drops out). */
#include "constraints.h"
#include "dynamics.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *SPEC =
    "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
    "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend1\": 2, \"bend2\": 2, \"twist\": 1}, "
    "\"constraints\": [{\"name\": \"tip\", \"type\": \"pose\", \"position\": [0, 0, 0.5], "
    "\"components\": [\"x\", \"y\", \"rz\"], \"method\": \"penalty\", \"stiffness\": 300, \"damping\": 7}]}";

/* the penalty rows' generalized force at (q, q_dot) */
static void penalty_q(const rod_model *m, rod_state *st, const double *q, const double *qd, double *Q)
{
    double *acc = calloc((size_t)m->n, sizeof *acc);
    cr_assert(acc);
    cr_assert_eq(dyn_accel(m, st, 0.0, q, qd, acc), 0, "%s", rod_state_error(st));
    memset(Q, 0, (size_t)m->n * sizeof *Q);
    constraints_force(m, st, Q);
    free(acc);
}

Test(penalty_newton, the_matrix_is_the_penalty_forces_derivative)
{
    rod_model *m = tu_model(SPEC);
    char err[128];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    const int n = m->n;
    double *q = calloc((size_t)n, sizeof *q), *qd = calloc((size_t)n, sizeof *qd);
    double *Q0 = calloc((size_t)n, sizeof *Q0), *Q1 = calloc((size_t)n, sizeof *Q1);
    double *K = calloc((size_t)n * n, sizeof *K), *C = calloc((size_t)n * n, sizeof *C);
    double *S = calloc((size_t)n * n, sizeof *S);
    cr_assert(q && qd && Q0 && Q1 && K && C && S);
    for (int j = 0; j < n; j++) qd[j] = 0.2 * sin(1.0 + 2.3 * j);
    penalty_q(m, st, q, qd, Q0);
    constraints_penalty_add(m, st, 1.0, K, 1.0, C, n);
    /* one matrix for both (as generalized-alpha passes it): their weighted sum */
    constraints_penalty_add(m, st, 0.3, S, 0.7, S, n);
    double kmax = 0, cmax = 0, ek = 0, ec = 0, es = 0;
    for (int i = 0; i < n * n; i++) es = fmax(es, fabs(S[i] - 0.3 * K[i] - 0.7 * C[i]));
    for (int blk = 0; blk < 2; blk++)
        for (int j = 0; j < n; j++) {
            double *y = blk ? q : qd;
            const double h = 1e-6;
            y[j] += h;
            penalty_q(m, st, q, qd, Q1);
            y[j] -= h;
            const double *M = blk ? K : C;
            for (int i = 0; i < n; i++) {
                const double d = -(Q1[i] - Q0[i]) / h; /* the matrix holds minus the slope */
                if (blk) {
                    kmax = fmax(kmax, fabs(d));
                    ek = fmax(ek, fabs(d - M[i + (size_t)n * j]));
                } else {
                    cmax = fmax(cmax, fabs(d));
                    ec = fmax(ec, fabs(d - M[i + (size_t)n * j]));
                }
            }
        }
    cr_log_info("penalty Newton matrix: q_dot block off by %.3g of %.3g, q block by %.3g of %.3g", ec, cmax, ek, kmax);
    cr_assert_gt(cmax, 0.0, "the penalty depends on q_dot");
    cr_assert_gt(kmax, 0.0, "the penalty depends on q");
    cr_assert_lt(ec, 1e-6 * cmax, "d A^T A off by %g of %g", ec, cmax);
    /* near the rest shape the q_dot term's own A' q_dot d is what remains: small against k */
    cr_assert_lt(ek, 5e-3 * kmax, "k A^T A off by %g of %g", ek, kmax);
    cr_assert_lt(es, 1e-12 * (kmax + cmax), "one matrix differs from the two weighted by %g", es);
    free(q), free(qd), free(Q0), free(Q1), free(K), free(C), free(S);
    rod_state_free(st);
    rod_model_free(m);
}
