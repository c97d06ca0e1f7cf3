/* A cheap error indicator from the decay of the strains' Legendre coefficients: what the last
 * coefficients of each strain contribute to the tip. */
#include "one_rod.h"
#include "kinematics.h"
#include "model.h"

#include <math.h>
#include <string.h>

/* The tip by a fixed, coarse Zanna path: an indicator needs the size of a difference, not
 * the model's own kinematic accuracy, and must stay cheap next to a step of a heavy model. */
#define INDICATOR_STEPS MODEL_INDICATOR_STEPS
static const double ZC = MODEL_INDICATOR_ZC;

static void tip_of(const rod_model *m, const double *q, double r[3])
{
    const double h = m->L / INDICATOR_STEPS;
    double a1[MODEL_MAX_XI], a2[MODEL_MAX_XI], xi1[6], xi2[6], Om[6];
    lie_pose g, e;
    lie_pose_identity(&g);
    for (int k = 0; k < INDICATOR_STEPS; k++) {
        model_eval_xi_columns(m, (k + 0.5 - ZC) * h, a1);
        model_eval_xi_columns(m, (k + 0.5 + ZC) * h, a2);
        /* the rest strain at the same points (model.h: ind_xis) */
        const double *x1 = m->ind_xis ? m->ind_xis + 12 * k : model_xis_straight;
        const double *x2 = m->ind_xis ? m->ind_xis + 12 * k + 6 : model_xis_straight;
        model_xi(m, a1, x1, q, xi1);
        model_xi(m, a2, x2, q, xi2);
        kin_zanna_omega(xi1, xi2, h, Om);
        lie_tangent tc;
        lie_tangent_init(Om, &tc);
        lie_exp_tc(&tc, &e);
        lie_pose_mul(&g, &e, &g);
    }
    memcpy(r, g.r, sizeof g.r);
}

/* How far the tip moves when the coefficients [from, to] are dropped. */
static double moved(const rod_model *m, double *q, int from, int to, const double r0[3])
{
    double keep[SPEC_MAX_DEGREE + 1], r[3];
    for (int j = from; j <= to; j++) {
        keep[j - from] = q[j];
        q[j] = 0.0;
    }
    tip_of(m, q, r);
    for (int j = from; j <= to; j++) q[j] = keep[j - from];
    return sqrt((r[0] - r0[0]) * (r[0] - r0[0]) + (r[1] - r0[1]) * (r[1] - r0[1]) +
                (r[2] - r0[2]) * (r[2] - r0[2]));
}

double indicator_one(const rod_model *m, const double *q_in)
{
    const rod_spec *sp = m->spec;
    double q[MODEL_MAX_XI], r0[3], est = 0.0;
    memcpy(q, q_in, (size_t)m->n_xi * sizeof *q);
    tip_of(m, q, r0);
    int j = 0; /* the columns run component by component, degree ascending */
    for (int c = 0; c < 6; c++) {
        const int d = sp->degree[c];
        if (d < 0) continue;
        const int first = j, last = j + d;
        j += d + 1;
        if (d < 1) continue; /* a constant alone shows no decay */
        /* what the last degrees contribute to the tip, e_d and e_(d-2) (two apart: a
         * symmetric load can leave every other coefficient zero, so the larger of each pair) */
        double e_hi = moved(m, q, last, last, r0);
        if (d >= 2) e_hi = fmax(e_hi, moved(m, q, last - 1, last - 1, r0));
        double e_lo = d >= 3 ? moved(m, q, last - 2, last - 2, r0) : 0.0;
        if (d >= 4) e_lo = fmax(e_lo, moved(m, q, last - 3, last - 3, r0));
        const double ratio = e_lo > 0 ? sqrt(e_hi / e_lo) : 1.0; /* decay per degree */
        if (d >= 3 && ratio < 0.8) {
            /* geometric decay: the degrees left out add e_d (r + r^2 + ...) */
            est += e_hi * ratio / (1 - ratio);
        } else {
            /* no decay to extrapolate: the basis does not resolve this strain; what its upper
             * half contributes is the size of the problem */
            est += moved(m, q, first + d / 2 + 1, last, r0);
        }
    }
    return est;
}
