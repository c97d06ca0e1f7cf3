#include "frame_table.h"

#include "basis.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Distinct point counts kept per model: sessions use one or two (51 by default); a client
 * asking for every n in turn gets tables built per call beyond these. */
#define FRAME_TABLES_KEPT 8

struct frame_cache {
    pthread_mutex_t lock;
    frame_table *first;
    int count;
};

struct frame_cache *frame_cache_create(void)
{
    struct frame_cache *c = calloc(1, sizeof *c);
    if (c && pthread_mutex_init(&c->lock, NULL) != 0) {
        free(c);
        return NULL;
    }
    return c;
}

static void table_free(frame_table *t)
{
    if (!t) return;
    free(t->s);
    free(t->station);
    free(t->first);
    free(t->h);
    free(t->beta);
    free(t->star);
    free(t->xis);
    free(t->cols);
    free(t->phi);
    free(t->z);
    free(t->beta_t);
    free(t->cols_t);
    free(t->phi_t);
    free(t->leg_t);
    free(t->phr_t);
    free(t->k_row);
    free(t->k_col);
    free(t->k_val);
    free(t);
}

void frame_cache_free(struct frame_cache *c)
{
    if (!c) return;
    for (frame_table *t = c->first, *nx; t; t = nx) {
        nx = t->next;
        table_free(t);
    }
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* Steps from s0 to s1 no longer than the model's longest (kin_forward's resolution). */
static int steps_between(const rod_model *m, double s0, double s1)
{
    if (!(s1 > s0)) return 0;
    const int sub = (int)ceil((s1 - s0) / m->h_kin * (1 - 1e-12));
    return sub < 1 ? 1 : sub;
}

/* rows x cols (row-major) as cols x rows; NULL when out of memory */
static double *transposed(const double *a, size_t rows, size_t cols)
{
    double *t = malloc((rows * cols > 0 ? rows * cols : 1) * sizeof *t);
    if (!t) return NULL;
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) t[c * rows + r] = a[r * cols + c];
    return t;
}

/* frame_table's side-by-side copies */
static int table_transpose(const rod_model *m, frame_table *t)
{
    const size_t nx = (size_t)m->n_xi, nr = (size_t)m->n_rho, n = (size_t)t->n, ns = (size_t)m->ns;
    t->beta_t = transposed(t->beta, (size_t)t->first[n] * m->mag->npts, nx);
    t->cols_t = transposed(t->cols, n, nx);
    t->phi_t = transposed(t->phi, n, nr);
    t->leg_t = transposed(m->leg, ns, nx);
    t->phr_t = transposed(m->phr, ns, nr);
    return t->beta_t && t->cols_t && t->phi_t && t->leg_t && t->phr_t ? 0 : -1;
}

/* frame_table's K without its zeros */
static int table_stiffness(const rod_model *m, frame_table *t)
{
    const int n = m->n;
    int nk = 0;
    for (int i = 0; i < n * n; i++) nk += m->K[i] != 0;
    t->k_row = malloc((size_t)(nk ? nk : 1) * sizeof *t->k_row);
    t->k_col = malloc((size_t)(nk ? nk : 1) * sizeof *t->k_col);
    t->k_val = malloc((size_t)(nk ? nk : 1) * sizeof *t->k_val);
    if (!t->k_row || !t->k_col || !t->k_val) return -1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            const double k = m->K[i + (size_t)n * j];
            if (k == 0) continue;
            t->k_row[t->nk] = i;
            t->k_col[t->nk] = j;
            t->k_val[t->nk++] = k;
        }
    return 0;
}

static frame_table *table_build(const rod_model *m, int n)
{
    const int nx = m->n_xi, nr = m->n_rho, np = m->mag->npts;
    const size_t bsz = (size_t)np * nx;
    frame_table *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->n = n;
    t->s = malloc((size_t)n * sizeof *t->s);
    t->station = malloc((size_t)n * sizeof *t->station);
    t->first = malloc((size_t)(n + 1) * sizeof *t->first);
    t->cols = malloc((size_t)n * (nx ? nx : 1) * sizeof *t->cols);
    t->phi = malloc((size_t)n * (nr ? nr : 1) * sizeof *t->phi);
    t->z = malloc((size_t)n * sizeof *t->z);
    if (!t->s || !t->station || !t->first || !t->cols || !t->phi || !t->z) goto fail;
    int k = 0, steps = 0;
    for (int i = 0; i < n; i++) {
        t->s[i] = i == n - 1 ? m->L : m->L * i / (n - 1);
        while (k < m->ns - 1 && m->s[k + 1] <= t->s[i]) k++;
        t->station[i] = k;
        t->first[i] = steps;
        steps += steps_between(m, m->s[k], t->s[i]);
    }
    t->first[n] = steps;
    t->h = malloc((size_t)(steps ? steps : 1) * sizeof *t->h);
    t->beta = malloc((size_t)(steps ? steps : 1) * (bsz ? bsz : 1) * sizeof *t->beta);
    if (!t->h || !t->beta) goto fail;
    model_rest_reader rr;
    if (m->xis) {
        t->star = malloc((size_t)(steps ? steps : 1) * np * 6 * sizeof *t->star);
        t->xis = malloc((size_t)n * 6 * sizeof *t->xis);
        if (!t->star || !t->xis || model_rest_open(m, &rr)) goto fail;
    }
    for (int i = 0; i < n; i++) {
        const double s0 = m->s[t->station[i]];
        const int sub = t->first[i + 1] - t->first[i];
        for (int j = 0; j < sub; j++) {
            const int st = t->first[i] + j;
            t->h[st] = (t->s[i] - s0) / sub;
            model_step_beta(m, s0 + j * t->h[st], t->h[st], t->beta + (size_t)st * bsz);
            if (t->star) model_step_star(m, &rr, s0 + j * t->h[st], t->h[st], t->star + (size_t)st * np * 6);
        }
        if (t->xis) model_rest_at(m, &rr, t->s[i], t->xis + 6 * i);
        model_eval_xi_columns(m, t->s[i], t->cols + (size_t)i * nx);
        if (nr) {
            double dphi[MODEL_MAX_RHO];
            basis_hermite(m->spec->pieces, m->spec->bc, m->L, t->s[i], t->phi + (size_t)i * nr, dphi);
        }
        t->z[i] = model_section(m, t->s[i]).z;
    }
    if (m->xis) model_rest_close(&rr);
    if (table_transpose(m, t) != 0 || table_stiffness(m, t) != 0) goto fail;
    return t;
fail:
    table_free(t);
    return NULL;
}

const frame_table *frame_table_acquire(const rod_model *m, int n, int *own)
{
    struct frame_cache *c = m->frame_cache;
    *own = 0;
    pthread_mutex_lock(&c->lock);
    for (frame_table *t = c->first; t; t = t->next)
        if (t->n == n) {
            pthread_mutex_unlock(&c->lock);
            return t;
        }
    frame_table *t = table_build(m, n);
    if (t && c->count < FRAME_TABLES_KEPT) {
        t->next = c->first;
        c->first = t;
        c->count++;
    } else if (t) {
        *own = 1;
    }
    pthread_mutex_unlock(&c->lock);
    return t;
}

void frame_table_release(const frame_table *t, int own)
{
    if (own) table_free((frame_table *)t);
}
