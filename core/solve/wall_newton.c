#include "wall_newton.h"

#include "dense.h"
#include "vector_clones.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Inner iterations per correction, and step halvings per inner iteration. */
enum { MAX_INNER = 12, MAX_CUTS = 6 };
/* An inner step that shrank less than this against the one before forms the matrix again. */
#define KEEP_RATE 0.3
/* Armijo's sufficient decrease */
#define DECREASE 1e-4

struct wall_newton {
    int n;
    double *S0, *A, *G, *Gt, *trial, *scale;
    int *piv;
    int A_kept; /* A is factored from an earlier correction of this try */
    long matrices, passes;
};

void wall_newton_free(wall_newton *w)
{
    if (!w) return;
    free(w->S0);
    free(w->piv);
    free(w);
}

wall_newton *wall_newton_create(const rod_model *m)
{
    wall_newton *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    const size_t n = (size_t)m->n;
    w->n = m->n;
    w->S0 = calloc(2 * n * n + 4 * n + 1, sizeof *w->S0);
    w->piv = calloc(n + 1, sizeof *w->piv);
    if (!w->S0 || !w->piv) {
        wall_newton_free(w);
        return NULL;
    }
    w->A = w->S0 + n * n;
    w->G = w->A + n * n;
    w->Gt = w->G + n;
    w->trial = w->Gt + n;
    w->scale = w->trial + n;
    return w;
}

double *wall_newton_smooth(wall_newton *w) { return w->S0; }

void wall_newton_new_try(wall_newton *w) { w->A_kept = 0; }

void wall_newton_counts(const wall_newton *w, long *matrices, long *passes)
{
    *matrices = w->matrices;
    *passes = w->passes;
}

/* G = r - S0 x plus the walls' change at x = dx + alpha d, the point of L's line at alpha; with A
 * (not NULL), A = S0 minus their slopes */
VECTOR_CLONES
static void residual_at(wall_newton *w, const contact_lin *L, const double *r, const double *x, double alpha,
                        int x_zero, double cq, double cv, double *G, double *A)
{
    const int n = w->n;
    memcpy(G, r, (size_t)n * sizeof *G);
    if (x_zero && !A) return; /* the laws and S0 add nothing at a zero correction */
    for (int j = 0; j < n; j++) {
        const double xj = x[j], *col = w->S0 + (size_t)n * j;
        if (xj == 0.0) continue;
        for (int i = 0; i < n; i++) G[i] -= col[i] * xj;
    }
    if (A) memcpy(A, w->S0, (size_t)n * n * sizeof *A);
    contact_lin_force_on_line(L, alpha, cq, cv, G, A, n);
    w->passes++;
}

static double merit_of(const wall_newton *w, const double *G)
{
    double s = 0;
    for (int i = 0; i < w->n; i++) {
        const double g = G[i] * w->scale[i];
        s += g * g;
    }
    return s;
}

static double weighted_norm(const double *wq, const double *wv, const double *d, int n)
{
    double e = 0;
    for (int i = 0; i < n; i++) e += (wq[i] * d[i]) * (wq[i] * d[i]) + (wv[i] * d[i]) * (wv[i] * d[i]);
    return sqrt(e / (2 * n));
}

int wall_newton_solve(wall_newton *w, contact_lin *L, const double *r, double cq, double cv,
                      const double *wq, const double *wv, double tol, double *dx)
{
    const int n = w->n;
    double *G = w->G, *Gt = w->Gt, *trial = w->trial;
    /* the residual in the units of dx: S0's diagonal, the mass and the stiff parts */
    for (int i = 0; i < n; i++) {
        const double d = fabs(w->S0[i + (size_t)n * i]);
        w->scale[i] = d > 0 ? 1.0 / d : 1.0;
    }
    memset(dx, 0, (size_t)n * sizeof *dx);
    contact_lin_line_start(L);
    int form = !w->A_kept, G_here = 0, retried = 0;
    double merit = -1, last = INFINITY;
    for (int k = 0; k < MAX_INNER; k++) {
        if (form || !G_here) residual_at(w, L, r, dx, 0.0, k == 0 && !retried, cq, cv, G, form ? w->A : NULL);
        if (merit < 0) merit = merit_of(w, G);
        if (form) {
            w->matrices++;
            if (dense_lu(w->A, n, w->piv) != 0) {
                w->A_kept = 0;
                return -1;
            }
            w->A_kept = 1;
        }
        dense_lu_solve(w->A, n, w->piv, G);
        /* no further than a slip's reversal through a stick disk, then cut back until the
         * residual falls (a switch of a law in between) */
        contact_lin_line_direction(L, G);
        double alpha = contact_lin_line_limit(L, cv), mt = 0;
        int fell = 0;
        for (int cut = 0; cut <= MAX_CUTS; cut++, alpha *= 0.5) {
            for (int i = 0; i < n; i++) trial[i] = dx[i] + alpha * G[i];
            residual_at(w, L, r, trial, alpha, 0, cq, cv, Gt, NULL);
            mt = merit_of(w, Gt);
            if (mt <= (1 - DECREASE * alpha) * merit) {
                fell = 1;
                break;
            }
        }
        if (!fell) {
            /* at a law's kink the residual may not fall along Newton's step however short;
             * a step within the tolerance is Newton's own test passed */
            const int small = weighted_norm(wq, wv, G, n) < tol;
            if (!small && !form && !retried) {
                /* the kept matrix led nowhere: once more with one formed here */
                form = 1;
                G_here = 0;
                retried = 1;
                continue;
            }
            /* Newton's own step then, as without the walls solved: the next correction starts
             * from a new iterate, past the kink */
            for (int i = 0; i < n; i++) dx[i] += G[i];
            return small;
        }
        retried = 0;
        merit = mt;
        for (int i = 0; i < n; i++) {
            G[i] *= alpha;
            dx[i] += G[i];
        }
        contact_lin_line_advance(L, alpha);
        const double e = weighted_norm(wq, wv, G, n);
        /* the residual at the new dx is the last trial's */
        memcpy(G, Gt, (size_t)n * sizeof *G);
        G_here = 1;
        if (e < tol) return 1;
        form = alpha < 1 || e > KEEP_RATE * last;
        last = e;
    }
    return 0;
}
