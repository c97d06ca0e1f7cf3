#include "galpha.h"

#include "base.h"
#include "constraints.h"
#include "contact.h"
#include "dense.h"
#include "dynamics.h"
#include "vector_clones.h"
#include "wall_newton.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* With the contacts in the Newton matrix it is formed again at a correction after one larger
 * than this (in units of the tolerance that NEWTON_TOL scales), or after one that shrank less
 * than CONTRACT times: Newton there has crossed a switch the old matrix does not know. After
 * a correction that converges quickly the matrix is kept (the snake: 5,795 -> 4,115
 * matrices, the solenoid 19,843 -> 8,302, the same evaluations to 2 %). */
#define REFORM_AFTER 1.0
#define CONTRACT 0.1
/* Newton corrections per step before the step is halved and retried */
enum { MAX_NEWTON = 8, MAX_HALVINGS = 10 };
/* With the walls' laws solved along each correction, Newton goes on while it progresses (up to
 * MAX_NEWTON_WALLS corrections) and the step is cut as soon as it does not: a correction no
 * smaller than NO_PROGRESS times the one two before (a cycle between two contact sets, or a
 * stall), or one under the tolerance that the laws' solve could not accept (the iterate cannot
 * leave the point where it stands). The points' Jacobians, kept within a try while the same
 * points touch, are taken again at the iterate after a correction that shrank less than
 * RELINEARIZE times. Over 23 perturbed variants of the snake's first second (the start and the
 * stick-slip burst of the muscles' ramp), evaluations 22,625 -> 19,817 (-12 %). */
enum { MAX_NEWTON_WALLS = 12 };
#define NO_PROGRESS 0.9
#define RELINEARIZE 0.5
/* Newton has converged when its correction is under this fraction of the tolerance weights
 * (rtol |q| + atol): CVODE's coefficient (nlscoef 0.1). At 0.01, over 11 variants of the snake
 * (gravity, period and v_eps perturbed: single runs of a stick-slip gait vary by 10 % from a
 * rounding's difference), 36,438 evaluations and 389 failed tries became 29,351 and 248, the
 * forward speeds within 0.5 % of each other; the grasp 603 -> 477; the cantilever unchanged. */
#define NEWTON_TOL 0.1
/* The walls' laws solved along a correction to a tenth of the tolerance weights */
#define WALLS_TOL 0.1
/* Without contacts in the Newton matrix, a step is taken after its first correction when that
 * correction times the contraction rate Newton showed with the same matrix (CVODE's test:
 * the rate's estimate falls by CRDOWN at most per correction) is below NEWTON_TOL: the error
 * left is about that product. The first correction carries the predictor's error in the stiff
 * modes (1e3-4e4 tolerances for the cantilever), the second is the verification (1e-5-3e-3):
 * with the rate (about 1e-7 there) known, the step needs one evaluation of f instead of two.
 * At least every VERIFY_EVERY steps a second correction measures the rate again. */
#define CRDOWN 0.3
enum { VERIFY_EVERY = 20 };
/* A step whose Newton took more corrections than this forms the matrix again for the next.
 * The elastic matrix costs a factorization, so it is formed again soon; a difference Jacobian
 * costs 2n + 1 evaluations of f, more than many slow corrections (the solenoid: 2914 of its
 * 3158 matrices were formed after steps of 4 corrections, 77 % of its evaluations). */
enum { SLOW_NEWTON_ELASTIC = 3, SLOW_NEWTON_DIFFERENCE = 5 };
/* A step that had to be halved stays halved for this many successful steps before it is
 * doubled again (up to solver.step): starting every step at the full length again failed
 * Newton on about every other step of a soft rod that needs half steps. */
enum { REGROW_AFTER = 20 };
/* With solver.jacobian "contact" the step is cut where a contact switches (first touch, stick
 * to slip) and is wanted back as soon as the switch is past: doubled again after this many
 * successful steps. */
enum { REGROW_AFTER_CONTACT = 2 };
/* At most this many halvings of a first step from rest on walls (start_under_creep) */
enum { START_HALVINGS = 12 };

struct galpha {
    int n;
    double am, af, beta, gamma; /* the method's parameters from rho_inf */
    double t, h;                /* the method's own time and step */
    double *q, *v, *x, *a;      /* at t: q, q_dot, q_ddot = f, pseudo-acceleration */
    double *q0, *v0, *x0;       /* at the previous step's start, for the interpolant and the
                                 * predictor (t0 = t after a start: none) */
    double t0;
    double *qn, *vn, *xn, *an, *f, *r, *w, *S; /* the step in progress; S: n x n Newton matrix */
    double *Jq, *Jv;            /* difference Jacobians df/dq, df/dq_dot S was formed from */
    int *piv;
    double crate;               /* the corrections' contraction rate with the matrix in use */
    int unverified;             /* steps taken after one correction since the rate was measured */
    int stale;                  /* the Jacobian must be formed again before the next correction */
    int fresh;                  /* the Jacobian was formed in the step being tried */
    double S_h;                 /* the step S was formed for */
    int force_form;             /* the residual in force form (dyn_residual): the elastic or
                                 * contact matrix on a model that allows it */
    int mass_in_try;            /* st->Mxi holds M from this try of the step (force form) */
    double h_cur, h_min;        /* the step in use (h or h halved) and the shortest one taken */
    int since_cut;              /* successful steps at h_cur since it was last cut or grown */
    long steps, rhs, factorizations, newton, failures, recharts, reduced;
    /* solver.contact_laws "solved": the walls' laws solved along each correction */
    wall_newton *walls;
    contact_lin *lin;
    double *wq, *wv; /* a correction's weights in the error norm */
};

void galpha_free(galpha *g)
{
    if (!g) return;
    free(g->q);
    free(g->piv);
    wall_newton_free(g->walls);
    contact_lin_free(g->lin);
    free(g->wq);
    free(g);
}

galpha *galpha_create(const rod_model *m)
{
    galpha *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    const int n = m->n;
    g->n = n;
    /* 14 vectors of n and the n x n matrix in one block, and the two Jacobians a difference
     * matrix is formed from, kept for a change of step */
    const int njac = m->spec->jacobian_elastic ? 0 : 2;
    /* with the elastic Newton matrix (M times the residual's Jacobian) the residual is taken
     * in force form, M x - Q, which needs neither M nor its factor */
    g->force_form = m->spec->jacobian_elastic && dyn_residual_ok(m);
    g->q = calloc((size_t)n * (14 + (1 + njac) * (size_t)n), sizeof *g->q);
    g->piv = calloc((size_t)(n ? n : 1), sizeof *g->piv);
    if (!g->q || !g->piv) {
        galpha_free(g);
        return NULL;
    }
    double *p = g->q + n;
    g->v = p, p += n;
    g->x = p, p += n;
    g->a = p, p += n;
    g->q0 = p, p += n;
    g->v0 = p, p += n;
    g->x0 = p, p += n;
    g->qn = p, p += n;
    g->vn = p, p += n;
    g->xn = p, p += n;
    g->an = p, p += n;
    g->f = p, p += n;
    g->r = p, p += n;
    g->w = p, p += n;
    g->S = p, p += (size_t)n * n;
    if (njac) {
        g->Jq = p, p += (size_t)n * n;
        g->Jv = p;
    }
    g->stale = 1;
    if (g->force_form && m->spec->jacobian_contact && !m->spec->contact_laws_linearized && m->ncontact > 0 &&
        m->spec->nobstacles > 0 && !m->spec->self_contact) {
        g->walls = wall_newton_create(m);
        g->lin = contact_lin_create(m);
        g->wq = calloc(2 * (size_t)n + 1, sizeof *g->wq);
        if (!g->walls || !g->lin || !g->wq) {
            galpha_free(g);
            return NULL;
        }
        g->wv = g->wq + n;
    }
    /* Chung & Hulbert's optimal parameters for a spectral radius rho_inf at infinite step */
    const double ri = m->spec->rho_inf;
    g->am = (2 * ri - 1) / (ri + 1);
    g->af = ri / (ri + 1);
    g->gamma = 0.5 - g->am + g->af;
    g->beta = 0.25 * (1 - g->am + g->af) * (1 - g->am + g->af);
    return g;
}

static int interrupted(rod_state *st)
{
    return atomic_load_explicit(&st->interrupt, memory_order_relaxed) != 0;
}

static int at_rest(const double *qd, int n)
{
    for (int i = 0; i < n; i++)
        if (qd[i] != 0.0) return 0;
    return 1;
}

/* A rod at rest on walls with friction starts with no friction on it: its acceleration is
 * the one it would slide with, and a first step that slides the contacts past v_eps lands on
 * the kinetic branch of a static > kinetic law and stays there (the shipped incline at 0.25 pi
 * slid at mu_k where it rolls, at any step over 2e-5 s). The first step is halved until that
 * acceleration moves no touching point by more than v_eps, so the creep's friction builds up
 * within it; the step then doubles back after two good steps each (REGROW_AFTER_CONTACT). */
static void start_under_creep(galpha *g, const rod_model *m, rod_state *st)
{
    double ve = INFINITY;
    for (int o = 0; o < m->spec->nobstacles; o++)
        if (m->spec->obstacles[o].friction.on) ve = fmin(ve, m->spec->obstacles[o].friction.threshold_velocity);
    if (!isfinite(ve) || contact_lin_points(m, st, g->q, st->eta, g->t, g->lin) == 0) return;
    const double slip = contact_lin_slip_rate(g->lin, g->x);
    double h = g->h_cur;
    for (int k = 0; k < START_HALVINGS && h * slip > ve; k++) h *= 0.5;
    if (h < g->h_cur) {
        g->h_cur = h;
        g->h_min = fmin(g->h_min, h);
        g->since_cut = 0;
    }
}

int galpha_restart(galpha *g, const rod_model *m, rod_state *st)
{
    const size_t nb = (size_t)g->n * sizeof(double);
    g->t = g->t0 = st->t;
    g->h = m->spec->step;
    if (!(g->h_cur > 0)) g->h_cur = g->h_min = g->h; /* a restart keeps a step it had to cut */

    memcpy(g->q, st->q, nb);
    memcpy(g->v, st->qd, nb);
    memcpy(g->q0, st->q, nb);
    memcpy(g->v0, st->qd, nb);
    if (dyn_accel(m, st, g->t, g->q, g->v, g->x) != 0) return ROD_ESOLVER;
    g->rhs++;
    memcpy(g->a, g->x, nb);
    if (g->walls && at_rest(st->qd, g->n)) start_under_creep(g, m, st);
    g->crate = 1.0; /* the rate measured before a restart (an input changed) is not trusted */
    return ROD_OK;
}

/* S = M + gamma' h D + beta' h^2 K, the Newton matrix of the residual x - f(q(x), v(x))
 * multiplied by M, with f's derivatives taken from its stiff linear part -M^{-1} [K D] (the
 * same approximation as solver.jacobian "elastic", with "contact" the contacts' stiff part).
 * M is the mass matrix at the last evaluation's (qn, vn): formed here from its Jacobians
 * after a force-form residual (dyn_residual), else its Cholesky factor is in st->Mxi (q_xi
 * block); M_rho is constant. */
static void smooth_matrix(galpha *g, const rod_model *m, rod_state *st, double cq, double cv, double *S);

static int newton_matrix(galpha *g, const rod_model *m, rod_state *st, double tn, double cq,
                         double cv)
{
    const int n = g->n;
    double *S = g->S;
    for (size_t i = 0; i < (size_t)n * n; i++) S[i] = cq * m->K[i] + cv * m->D[i];
    /* solver.jacobian "contact": minus the contacts' dQ/dq and dQ/dq_dot at (qn, vn), whose
     * kinematics the last f left in st */
    if (m->spec->jacobian_contact) contact_jacobian(m, st, g->qn, st->eta, tn, -cq, S, -cv, S, n);
    smooth_matrix(g, m, st, cq, cv, S);
    g->factorizations++;
    return dense_lu(S, n, g->piv);
}

/* S += the penalty constraints' and the mass's parts of the Newton matrix */
static void smooth_matrix(galpha *g, const rod_model *m, rod_state *st, double cq, double cv, double *S)
{
    const int n = g->n, nx = m->n_xi, nr = m->n_rho;
    /* the penalty constraints' k A^T A and d A^T A, as CVODE's elastic Jacobian has them: a
     * stiff penalty left out makes Newton crawl or fail at any step that resolves it poorly */
    constraints_penalty_add(m, st, cq, S, cv, S, n);
    const double *L = st->Mxi;
    if (g->force_form) {
        /* M once a try of a step, at its first matrix: a matrix formed again within the try
         * (a contact switched) keeps it, as q moves little within a step and the matrix is
         * only Newton's; M was a third of the snake's matrices' cost (Newton's evaluations
         * 5,462 -> 5,516, instructions -4.8 %; the plectoneme, solenoid and grasp -1.9 to
         * -2.4 %) */
        if (!g->mass_in_try) dyn_mass(m, st, g->qn, g->vn); /* its lower triangle, in st->Mxi */
        g->mass_in_try = 1;
        for (int j = 0; j < nx; j++)
            for (int i = j; i < nx; i++) {
                const double s = st->Mxi[i + (size_t)nx * j];
                S[i + (size_t)n * j] += s;
                if (i != j) S[j + (size_t)n * i] += s;
            }
    } else {
        for (int j = 0; j < nx; j++)
            for (int i = j; i < nx; i++) {
                double s = 0;
                for (int k = 0; k <= j; k++) s += L[i + (size_t)nx * k] * L[j + (size_t)nx * k];
                S[i + (size_t)n * j] += s;
                if (i != j) S[j + (size_t)n * i] += s;
            }
    }
    const double *Lr = m->Mrho_chol;
    for (int j = 0; j < nr; j++)
        for (int i = j; i < nr; i++) {
            double s = 0;
            for (int k = 0; k <= j; k++) s += Lr[i + (size_t)nr * k] * Lr[j + (size_t)nr * k];
            S[nx + i + (size_t)n * (nx + j)] += s;
            if (i != j) S[nx + j + (size_t)n * (nx + i)] += s;
        }
}

/* The correction with the walls' laws solved along it (wall_newton.h), into g->r: 1 solved,
 * 0 not (Newton may go on, not stop at it), -1 a singular matrix. */
static int walls_correction(galpha *g, const rod_model *m, rod_state *st, double tn, double cq, double cv,
                            int it, int relinearize)
{
    const int n = g->n;
    const double rtol = m->spec->rtol, atol = m->spec->atol, atol_v = atol / m->spec->rate_time_scale;
    if (it == 0) {
        double *S0 = wall_newton_smooth(g->walls);
        for (size_t i = 0; i < (size_t)n * n; i++) S0[i] = cq * m->K[i] + cv * m->D[i];
        smooth_matrix(g, m, st, cq, cv, S0);
        wall_newton_new_try(g->walls);
    }
    /* the points' Jacobians from the try's first iterate while the same points touch: the
     * laws are evaluated afresh, the kinematics are a linearization either way (the snake:
     * instructions -13 %, evaluations 3,315 -> 3,151) */
    if (it == 0 || relinearize || contact_lin_update(m, st, g->qn, st->eta, tn, g->lin) != 0) {
        dyn_fresh_J(m, st);
        contact_lin_points(m, st, g->qn, st->eta, tn, g->lin);
    }
    for (int i = 0; i < n; i++) {
        g->wq[i] = cq / (rtol * fabs(g->qn[i]) + atol);
        g->wv[i] = cv / (rtol * fabs(g->vn[i]) + atol_v);
    }
    memcpy(g->w, g->r, (size_t)n * sizeof *g->w);
    return wall_newton_solve(g->walls, g->lin, g->w, cq, cv, g->wq, g->wv, WALLS_TOL, g->r);
}

/* S = I - beta' h^2 df/dq - gamma' h df/dq_dot from the kept Jacobians */
static int newton_matrix_from_jacobians(galpha *g, double cq, double cv)
{
    const int n = g->n;
    for (size_t i = 0; i < (size_t)n * n; i++) g->S[i] = -cq * g->Jq[i] - cv * g->Jv[i];
    for (int i = 0; i < n; i++) g->S[i + (size_t)n * i] += 1.0;
    g->factorizations++;
    return dense_lu(g->S, n, g->piv) != 0 ? 1 : 0;
}

/* df/dq and df/dq_dot by forward differences of f (2n evaluations) at (tn, qn, vn), where
 * f = g->f was the state's last evaluation; the increments as in integrator.c. The q_dot
 * columns first: they keep that evaluation's Jacobians and mass matrix (dyn_accel_same_q). */
static int difference_jacobians(galpha *g, const rod_model *m, rod_state *st, double tn)
{
    const int n = g->n;
    double *y[2] = {g->vn, g->qn}, *Jb[2] = {g->Jv, g->Jq};
    for (int blk = 0; blk < 2; blk++)
        for (int j = 0; j < n; j++) {
            const double y0 = y[blk][j], d = 1.4901161193847656e-08 * fmax(fabs(y0), 1e-1);
            y[blk][j] = y0 + d;
            const int rc = blk == 0 ? dyn_accel_same_q(m, st, tn, g->qn, g->vn, g->w)
                                    : dyn_accel(m, st, tn, g->qn, g->vn, g->w);
            y[blk][j] = y0;
            if (rc != 0) return -1;
            g->rhs++;
            double *col = Jb[blk] + (size_t)n * j;
            for (int i = 0; i < n; i++) col[i] = (g->w[i] - g->f[i]) / d;
        }
    return 0;
}

/* r <- M r, with M as above */
static void times_mass(const rod_model *m, const rod_state *st, double *r)
{
    dense_cholesky_mul(st->Mxi, m->n_xi, r);
    dense_cholesky_mul(m->Mrho_chol, m->n_rho, r + m->n_xi);
}

/* The Newton matrix holds the contacts' part (solver.jacobian "contact" on a rod with contact
 * points). */
static int contact_matrix(const galpha *g, const rod_model *m)
{
    (void)g;
    return m->spec->jacobian_contact && m->ncontact > 0;
}

/* The correction Newton's matrix gives (solver.jacobian's, the contacts linearized in it), into
 * g->r: 0, 1 when the step must be cut (a singular matrix), -1 on a failed evaluation. With the
 * contacts in it, the matrix is formed again at a correction while Newton moves far or
 * converges slowly (e1, e2: the last two corrections' sizes): a contact's stiffness and the
 * friction's slope switch within the step, and one formed before the switch sends Newton away
 * (its cost is one factorization, no evaluation). */
static int linearized_correction(galpha *g, const rod_model *m, rod_state *st, double tn, double h, double cq,
                                 double cv, int it, double e1, double e2)
{
    const int n = g->n, elastic = m->spec->jacobian_elastic;
    const int reform = it > 0 && contact_matrix(g, m) && (it == 1 ? e1 > REFORM_AFTER : e1 > CONTRACT * e2);
    if ((it == 0 && (g->stale || g->S_h != h)) || reform) {
        /* the matrix is kept across steps while Newton converges quickly with it; a new
         * step length alone forms it again from the kept difference Jacobians */
        int rc;
        if (elastic) {
            dyn_fresh_J(m, st);
            rc = newton_matrix(g, m, st, tn, cq, cv);
        } else {
            if (g->stale) {
                if (difference_jacobians(g, m, st, tn) != 0) return -1;
                if (dyn_accel(m, st, tn, g->qn, g->vn, g->f) != 0) return -1; /* st scratch */
            }
            rc = newton_matrix_from_jacobians(g, cq, cv);
        }
        if (rc != 0) {
            g->stale = 1;
            return 1;
        }
        g->crate = 1.0;
        g->fresh = g->stale || it > 0; /* formed again in this step: no retry with a new one */
        g->stale = 0;
        g->S_h = h;
    }
    if (elastic && !g->force_form) times_mass(m, st, g->r);
    dense_lu_solve(g->S, n, g->piv, g->r);
    return 0;
}

/* One step of length h from (t, q, v, x, a) into (qn, vn, xn, an); 0 when Newton converged,
 * 1 when it did not, 2 when it did not with a Jacobian formed at an earlier step (worth
 * trying again at the same step with a new one), -1 on a failed evaluation. */
VECTOR_CLONES
static int try_step(galpha *g, const rod_model *m, rod_state *st, double h)
{
    const int n = g->n;
    const double am = g->am, af = g->af, be = g->beta, ga = g->gamma;
    const double cx = (1 - af) / (1 - am); /* d a_{n+1} / d x_{n+1} */
    const double cq = be * cx * h * h, cv = ga * cx * h; /* d q_{n+1}, d q_dot_{n+1} / d x_{n+1} */
    const double rtol = m->spec->rtol, atol = m->spec->atol, atol_v = atol / m->spec->rate_time_scale;
    const double tn = g->t + h;
    /* predictor: q_ddot extrapolated linearly from the last two steps' starts when the step
     * keeps its length, held otherwise (after a start, a cut or a regrowth, often at a contact's
     * switch, where extrapolating sent the snake's Newton further: 5,796 evaluations against
     * 5,635 held). Evaluations, held -> extrapolated: the snake 4 s 5,635 -> 5,462, the
     * plectoneme 9,465 -> 8,269, the solenoid 26,581 -> 21,224, the grasp 747 -> 641; the
     * snake's speed 0.14732 -> 0.14724 L/T (tight run 0.14719), the twisted rods' checks the
     * same to six digits */
    const double ex = fabs(g->t - g->t0 - h) < 1e-9 * h ? 1.0 : 0.0; /* steps differ by factors of 2 */
    for (int i = 0; i < n; i++) g->xn[i] = g->x[i] + ex * (g->x[i] - g->x0[i]);
    double e1 = INFINITY, e2 = INFINITY, e3 = INFINITY; /* the last three corrections' sizes */
    const int elastic = m->spec->jacobian_elastic, force_form = g->force_form;
    g->mass_in_try = 0; /* the residuals in between leave st->Mxi alone */
    const int max_newton = g->walls ? MAX_NEWTON_WALLS : MAX_NEWTON;
    for (int it = 0; it < max_newton; it++) {
        for (int i = 0; i < n; i++) {
            g->an[i] = (af * g->x[i] + (1 - af) * g->xn[i] - am * g->a[i]) / (1 - am);
            g->qn[i] = g->q[i] + h * g->v[i] + h * h * ((0.5 - be) * g->a[i] + be * g->an[i]);
            g->vn[i] = g->v[i] + h * ((1 - ga) * g->a[i] + ga * g->an[i]);
        }
        if (interrupted(st)) return -1;
        /* after a try's first residual, whose Jacobians the Newton matrices take and at whose
         * iterate M was formed for this try, the wrench form: J not formed, M x from that M */
        if (force_form ? (it > 0 && g->mass_in_try ? dyn_residual_wrench(m, st, tn, g->qn, g->vn, g->xn, g->r)
                                                   : dyn_residual(m, st, tn, g->qn, g->vn, g->xn, g->r)) != 0
                       : dyn_accel(m, st, tn, g->qn, g->vn, g->f) != 0) {
            /* a Newton iterate far from the solution (a rod pushed deep into a wall by a too
             * long step) can make the forces fail: a shorter step, as for no convergence */
            g->stale = 1;
            return 1;
        }
        g->rhs++;
        g->newton++;
        if (!force_form)
            for (int i = 0; i < n; i++) g->r[i] = g->f[i] - g->xn[i];
        int solved = 1;
        if (g->walls) {
            solved = walls_correction(g, m, st, tn, cq, cv, it, it >= 2 && e1 > RELINEARIZE * e2);
            if (solved < 0) return 1;
            g->fresh = 1; /* its matrices are this step's: no retry at the same step */
        } else {
            const int rc = linearized_correction(g, m, st, tn, h, cq, cv, it, e1, e2);
            if (rc != 0) return rc;
        }
        /* converged when the correction moves q and q_dot by under NEWTON_TOL of their
         * tolerances, q_dot's atol / rate_time_scale (root mean square, as CVODE weighs its
         * Newton corrections) */
        double e = 0;
        for (int i = 0; i < n; i++) {
            g->xn[i] += g->r[i];
            const double dq = cq * g->r[i] / (rtol * fabs(g->qn[i]) + atol);
            const double dv = cv * g->r[i] / (rtol * fabs(g->vn[i]) + atol_v);
            e += dq * dq + dv * dv;
        }
        e = sqrt(e / (2 * n));
        e3 = e2;
        e2 = e1;
        e1 = e;
        if (!isfinite(e)) return 1;
        if (g->walls && ((it >= 1 && !solved && e < NEWTON_TOL) || (it >= 3 && e >= NEWTON_TOL && e > NO_PROGRESS * e3))) {
            g->stale = 1;
            return 1;
        }
        if (it > 0) {
            g->crate = fmax(CRDOWN * g->crate, e / e2);
            g->unverified = 0;
        }
        const int by_rate = it == 0 && !contact_matrix(g, m) && g->unverified < VERIFY_EVERY &&
                            e * fmin(1.0, g->crate) < NEWTON_TOL;
        if (by_rate) g->unverified++;
        /* after a second correction the rate is this step's own: the error left is about the
         * correction times it (CVODE's test). With the contacts in the matrix it is taken
         * where a formed-again matrix leaves the rate at CRDOWN or more; the snake's steps of
         * three corrections (e 150, 5, 0.03) end a correction sooner (6,208 -> 5,635
         * evaluations, its speed moved by 3e-5 L per period) */
        const int by_own_rate = it > 0 && e * fmin(1.0, g->crate) < NEWTON_TOL;
        if ((e < NEWTON_TOL || by_rate || by_own_rate) && solved) {
            if (it >= (elastic ? SLOW_NEWTON_ELASTIC : SLOW_NEWTON_DIFFERENCE)) g->stale = 1;
            for (int i = 0; i < n; i++) {
                g->an[i] = (af * g->x[i] + (1 - af) * g->xn[i] - am * g->a[i]) / (1 - am);
                g->qn[i] = g->q[i] + h * g->v[i] + h * h * ((0.5 - be) * g->a[i] + be * g->an[i]);
                g->vn[i] = g->v[i] + h * ((1 - ga) * g->a[i] + ga * g->an[i]);
            }
            return 0;
        }
    }
    const int old = !g->fresh;
    g->stale = 1;
    return old ? 2 : 1;
}

VECTOR_CLONES
int galpha_advance(galpha *g, const rod_model *m, rod_state *st, double t_end)
{
    const int n = g->n;
    const size_t nb = (size_t)n * sizeof(double);
    while (g->t < t_end) {
        if (base_free(m) && base_free_chart_root(m, g->q) < 0) {
            /* a free base's rotation coordinates past 3 pi / 2 (base.h): the same pose and
             * twist in the chart |rotation| <= pi, and the method restarted from there with
             * the true acceleration (its pseudo-acceleration is the old chart's) */
            memcpy(st->q, g->q, nb);
            memcpy(st->qd, g->v, nb);
            st->t = g->t;
            base_free_rechart(m, st->q, st->qd);
            if (galpha_restart(g, m, st) != ROD_OK) return ROD_ESOLVER;
        }
        double h = g->h_cur;
        int rc, halvings = 0;
        g->fresh = 0;
        while ((rc = try_step(g, m, st, h)) > 0) {
            if (rc == 2) continue; /* the same step with a new Jacobian first */
            g->failures++;
            if (++halvings > MAX_HALVINGS) {
                state_set_error(st, "generalized-alpha: Newton did not converge at t = %.9g even "
                                "at step %.3g s", g->t, h);
                return ROD_ESOLVER;
            }
            h *= 0.5;
        }
        if (halvings) {
            g->h_cur = h;
            g->since_cut = 0;
        } else if (h < g->h && ++g->since_cut >= (contact_matrix(g, m) ? REGROW_AFTER_CONTACT : REGROW_AFTER)) {
            g->h_cur = fmin(2 * h, g->h);
            g->since_cut = 0;
        }
        g->h_min = fmin(g->h_min, h);
        if (h < g->h) g->reduced++;
        if (rc < 0) {
            if (atomic_exchange(&st->interrupt, 0)) {
                st->need_reinit = 1;
                state_set_error(st, "interrupted at t = %g", st->t);
                return ROD_EINTERRUPTED;
            }
            return ROD_ESOLVER;
        }
        memcpy(g->q0, g->q, nb);
        memcpy(g->v0, g->v, nb);
        memcpy(g->x0, g->x, nb);
        g->t0 = g->t;
        memcpy(g->q, g->qn, nb);
        memcpy(g->v, g->vn, nb);
        memcpy(g->x, g->xn, nb);
        memcpy(g->a, g->an, nb);
        g->t += h;
        g->steps++;
    }
    /* cubic Hermite on (q, q_dot) at both ends of the last step */
    const double H = g->t - g->t0, s = H > 0 ? (t_end - g->t0) / H : 1.0;
    const double h00 = (1 + 2 * s) * (1 - s) * (1 - s), h10 = s * (1 - s) * (1 - s);
    const double h01 = s * s * (3 - 2 * s), h11 = s * s * (s - 1);
    const double d00 = 6 * s * (s - 1), d10 = (1 - s) * (1 - 3 * s), d01 = -d00, d11 = s * (3 * s - 2);
    for (int i = 0; i < n; i++) {
        st->q[i] = h00 * g->q0[i] + h10 * H * g->v0[i] + h01 * g->q[i] + h11 * H * g->v[i];
        st->qd[i] = H > 0 ? (d00 * g->q0[i] + d01 * g->q[i]) / H + d10 * g->v0[i] + d11 * g->v[i] : g->v[i];
    }
    st->t = t_end;
    return ROD_OK;
}

void galpha_add_stats(const galpha *g, rod_dynamics_stats *out)
{
    if (g->walls) {
        long matrices, passes;
        wall_newton_counts(g->walls, &matrices, &passes);
        out->jac_evals += matrices;
    }
    out->steps += g->steps;
    out->rhs_evals += g->rhs;
    out->jac_evals += g->factorizations;
    out->newton_iterations += g->newton;
    out->error_test_failures += g->failures;
    out->last_step = g->h_cur;
    out->min_step = g->h_min;
    out->reduced_steps += g->reduced;
    out->last_order = 2;
}
