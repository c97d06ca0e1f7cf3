/* optim_gradient.h: a static solve and its tangent, and the chain rule through the
 * objective's quantities. */
#include "optim_gradient.h"

#include "rod.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The model at x with parameter i at xi, and a state of it; 0, or -1 with msg set. */
static int load_at(const optim_problem *o, const double *x, int i, double xi, rod_model **m, rod_state **st,
                   char *msg, size_t len)
{
    double y[OPTIM_MAX_VARY];
    memcpy(y, x, sizeof(double) * o->n);
    y[i] = xi;
    rod_issues iss;
    rod_issues_init(&iss);
    *m = optim_problem_load(o, y, &iss);
    if (!*m) {
        snprintf(msg, len, "gradient: the spec is invalid at %s=%.17g: ", o->v[i].text, xi);
        size_t at = strlen(msg);
        rod_issues_format(&iss, msg + at, len - at);
    }
    rod_issues_free(&iss);
    *st = *m ? rod_state_create(*m, msg, len) : NULL;
    return *st ? 0 : -1;
}

/* The statics quantities (optim_problem_run's) of model m at generalized coordinates q. */
static int quantities_at(const optim_problem *o, const rod_model *m, rod_state *st, const double *q, double Q[Q_MAX])
{
    const double com0[3 * OPTIM_MAX_RODS] = {0};
    for (int k = 0; k < Q_MAX; k++) Q[k] = 0;
    if (rod_state_set_q(st, q, rod_model_ndof(m)) != ROD_OK) return -1;
    Q[Q_EFFORT] = optim_problem_effort_rate(m, st);
    return optim_problem_final(o, m, st, com0, Q);
}

int optim_problem_run_gradient(const optim_problem *o, optim_objective *obj, const double *x, double *f, double *g,
                               double q[Q_MAX], char *msg, size_t len)
{
    const int P = o->n;
    for (int i = 0; i < P; i++) g[i] = 0;
    *f = NAN;
    for (int k = 0; k < Q_MAX; k++) q[k] = 0;
    rod_model *m = NULL, *mp[OPTIM_MAX_VARY] = {0}, *mm[OPTIM_MAX_VARY] = {0};
    rod_state *st = NULL, *sp[OPTIM_MAX_VARY] = {0}, *sm[OPTIM_MAX_VARY] = {0};
    double *u = NULL, *B = NULL, *Rp = NULL, *Rm = NULL, *qd = NULL;
    double xp[OPTIM_MAX_VARY], xm[OPTIM_MAX_VARY];
    int status = OPTIM_FAILED;

    /* the run itself, as optim_problem_run's statics */
    rod_issues iss;
    rod_issues_init(&iss);
    m = optim_problem_load(o, x, &iss);
    if (!m) {
        rod_issues_format(&iss, msg, len);
        rod_issues_free(&iss);
        return OPTIM_BAD_SPEC;
    }
    rod_issues_free(&iss);
    st = rod_state_create(m, msg, len);
    if (!st) goto out;
    rod_statics_result res;
    int rc = rod_statics_solve(m, st, 0.0, &res);
    if (rc != ROD_OK) {
        status = rc == ROD_ENOCONV ? OPTIM_NO_CONVERGENCE : OPTIM_FAILED;
        snprintf(msg, len, "%s", rod_state_error(st));
        goto out;
    }
    q[Q_EFFORT] = optim_problem_effort_rate(m, st);
    const double com0[3 * OPTIM_MAX_RODS] = {0};
    if (optim_problem_final(o, m, st, com0, q) != 0) {
        snprintf(msg, len, "%s", rod_state_error(st));
        goto out;
    }
    *f = optim_objective_eval(obj, q, x);

    /* dR/dp at the solution, one column a parameter */
    const int N = rod_statics_nunknowns(m), n = rod_model_ndof(m);
    u = malloc(sizeof(double) * N);
    B = malloc(sizeof(double) * (size_t)N * P);
    Rp = malloc(sizeof(double) * N);
    Rm = malloc(sizeof(double) * N);
    qd = malloc(sizeof(double) * n);
    if (!u || !B || !Rp || !Rm || !qd) {
        snprintf(msg, len, "out of memory");
        goto out;
    }
    rod_statics_unknowns(m, st, u);
    for (int i = 0; i < P; i++) {
        const double h = OPTIM_GRADIENT_STEP * (o->v[i].hi - o->v[i].lo);
        xp[i] = fmin(x[i] + h, o->v[i].hi);
        xm[i] = fmax(x[i] - h, o->v[i].lo);
        if (load_at(o, x, i, xp[i], &mp[i], &sp[i], msg, len) != 0 ||
            load_at(o, x, i, xm[i], &mm[i], &sm[i], msg, len) != 0)
            goto out;
        if (rod_statics_nunknowns(mp[i]) != N || rod_statics_nunknowns(mm[i]) != N) {
            snprintf(msg, len, "gradient: %s changes the model's unknowns (a discrete parameter?): use --gradient fd",
                     o->v[i].text);
            goto out;
        }
        if (rod_statics_residual(mp[i], sp[i], 0.0, u, Rp) != ROD_OK) {
            snprintf(msg, len, "gradient: %s", rod_state_error(sp[i]));
            goto out;
        }
        if (rod_statics_residual(mm[i], sm[i], 0.0, u, Rm) != ROD_OK) {
            snprintf(msg, len, "gradient: %s", rod_state_error(sm[i]));
            goto out;
        }
        for (int r = 0; r < N; r++) B[(size_t)N * i + r] = (Rp[r] - Rm[r]) / (xp[i] - xm[i]);
    }
    /* du/dp = -(dR/du)^-1 dR/dp */
    if (rod_statics_tangent(m, st, 0.0, u, P, B) != ROD_OK) {
        snprintf(msg, len, "gradient: %s", rod_state_error(st));
        goto out;
    }
    /* d objective / dp_i: along (dp_i, du/dp_i) through the quantities and the parameters */
    for (int i = 0; i < P; i++) {
        double Qp[Q_MAX], Qm[Q_MAX], yp[OPTIM_MAX_VARY], ym[OPTIM_MAX_VARY];
        const double *dq = B + (size_t)N * i;
        memcpy(yp, x, sizeof(double) * P);
        memcpy(ym, x, sizeof(double) * P);
        yp[i] = xp[i];
        ym[i] = xm[i];
        for (int k = 0; k < n; k++) qd[k] = u[k] + (xp[i] - x[i]) * dq[k];
        int bad = quantities_at(o, mp[i], sp[i], qd, Qp) != 0;
        for (int k = 0; k < n; k++) qd[k] = u[k] + (xm[i] - x[i]) * dq[k];
        bad = bad || quantities_at(o, mm[i], sm[i], qd, Qm) != 0;
        if (bad) {
            snprintf(msg, len, "gradient: the quantities near the solution: %s", rod_state_error(sp[i]));
            goto out;
        }
        g[i] = (optim_objective_eval(obj, Qp, yp) - optim_objective_eval(obj, Qm, ym)) / (xp[i] - xm[i]);
        if (!isfinite(g[i])) {
            snprintf(msg, len, "gradient: d/d%s is not a finite number", o->v[i].text);
            goto out;
        }
    }
    status = isfinite(*f) ? OPTIM_OK : OPTIM_FAILED;
    if (status != OPTIM_OK) snprintf(msg, len, "the objective is not a finite number");
out:
    if (status != OPTIM_OK)
        for (int i = 0; i < P; i++) g[i] = 0;
    for (int i = 0; i < P; i++) {
        rod_state_free(sp[i]);
        rod_state_free(sm[i]);
        rod_model_free(mp[i]);
        rod_model_free(mm[i]);
    }
    rod_state_free(st);
    rod_model_free(m);
    free(u), free(B), free(Rp), free(Rm), free(qd);
    return status;
}
