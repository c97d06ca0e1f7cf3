/* CMA-ES after Hansen's tutorial (arXiv:1604.00772): sampling Eq. 38-40, mean update Eq. 41,
 * step-size path and control Eqs. 43-44, rank-one plus rank-mu covariance update Eq. 47 with
 * the h_sigma stall of its Appendix A, default parameters of Table 1 with positive weights
 * (the classic mu = lambda/2 recombination of purecma). The eigendecomposition of C is a
 * cyclic Jacobi sweep (n <= a few dozen here: LAPACK would buy nothing) and is redone every
 * lambda / ((c1 + cmu) n 10) evaluations, as the tutorial's purecmaes.m does. */
#include "optim_cmaes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- random numbers: splitmix64-seeded xoshiro256**, Box-Muller normals ---- */
typedef struct {
    uint64_t s[4];
    int has_spare;
    double spare;
} rng;

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t next_u64(rng *r)
{
    uint64_t *s = r->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

static double uniform01(rng *r) { return ((next_u64(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0); }

static double normal(rng *r)
{
    if (r->has_spare) {
        r->has_spare = 0;
        return r->spare;
    }
    double u = uniform01(r), v = uniform01(r), rad = sqrt(-2.0 * log(u));
    r->spare = rad * sin(2 * M_PI * v);
    r->has_spare = 1;
    return rad * cos(2 * M_PI * v);
}

/* ---- symmetric eigendecomposition A = B diag(d) B^T by cyclic Jacobi; A is destroyed ---- */
static void jacobi_eigen(int n, double *A, double *B, double *d)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) B[i * n + j] = i == j;
    for (int sweep = 0; sweep < 60; sweep++) {
        double off = 0, diag = 0;
        for (int i = 0; i < n; i++) {
            diag += A[i * n + i] * A[i * n + i];
            for (int j = i + 1; j < n; j++) off += A[i * n + j] * A[i * n + j];
        }
        if (off <= 1e-30 * diag) break;
        for (int p = 0; p < n; p++)
            for (int q = p + 1; q < n; q++) {
                double apq = A[p * n + q];
                if (apq == 0) continue;
                double theta = (A[q * n + q] - A[p * n + p]) / (2 * apq);
                double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < n; k++) { /* columns p, q */
                    double akp = A[k * n + p], akq = A[k * n + q];
                    A[k * n + p] = c * akp - s * akq;
                    A[k * n + q] = s * akp + c * akq;
                }
                for (int k = 0; k < n; k++) { /* rows p, q */
                    double apk = A[p * n + k], aqk = A[q * n + k];
                    A[p * n + k] = c * apk - s * aqk;
                    A[q * n + k] = s * apk + c * aqk;
                }
                for (int k = 0; k < n; k++) {
                    double bkp = B[k * n + p], bkq = B[k * n + q];
                    B[k * n + p] = c * bkp - s * bkq;
                    B[k * n + q] = s * bkp + c * bkq;
                }
            }
    }
    for (int i = 0; i < n; i++) d[i] = A[i * n + i];
}

int cmaes_default_lambda(int n) { return 4 + (int)floor(3 * log((double)n)); }

double optim_map_unit(double u)
{
    double y = fmod(u, 2.0);
    if (y < 0) y += 2.0;
    return y > 1.0 ? 2.0 - y : y;
}

typedef struct {
    int n, lambda, mu;
    double *w, mueff, cc, cs, c1, cmu, damps, chiN;
    double *xmean, *xold, sigma, *pc, *ps, *C, *B, *D, *invsqrtC, *tmpA;
    double *arz, *arx, *fit;
    int *idx;
    long eigen_at;
    double *fhist;  /* best f of the last generations, for tolfun */
    int nhist, hist_len;
} es;

static void es_free(es *e)
{
    free(e->w);
    free(e->xmean);
    free(e->xold);
    free(e->pc);
    free(e->ps);
    free(e->C);
    free(e->B);
    free(e->D);
    free(e->invsqrtC);
    free(e->tmpA);
    free(e->arz);
    free(e->arx);
    free(e->fit);
    free(e->idx);
    free(e->fhist);
}

static int es_init(es *e, int n, int lambda, const double *x0, double sigma0)
{
    memset(e, 0, sizeof *e);
    e->n = n;
    e->lambda = lambda;
    e->mu = lambda / 2;
    size_t nn = (size_t)n * n;
    e->w = malloc(sizeof(double) * e->mu);
    e->xmean = malloc(sizeof(double) * n);
    e->xold = malloc(sizeof(double) * n);
    e->pc = calloc((size_t)n, sizeof(double));
    e->ps = calloc((size_t)n, sizeof(double));
    e->C = calloc(nn, sizeof(double));
    e->B = calloc(nn, sizeof(double));
    e->D = malloc(sizeof(double) * n);
    e->invsqrtC = calloc(nn, sizeof(double));
    e->tmpA = malloc(sizeof(double) * nn);
    e->arz = malloc(sizeof(double) * n * lambda);
    e->arx = malloc(sizeof(double) * n * lambda);
    e->fit = malloc(sizeof(double) * lambda);
    e->idx = malloc(sizeof(int) * lambda);
    e->hist_len = 10 + (int)ceil(30.0 * n / lambda);
    e->fhist = malloc(sizeof(double) * e->hist_len);
    if (!e->w || !e->xmean || !e->xold || !e->pc || !e->ps || !e->C || !e->B || !e->D || !e->invsqrtC || !e->tmpA ||
        !e->arz || !e->arx || !e->fit || !e->idx || !e->fhist) {
        es_free(e);
        return -1;
    }
    double sw = 0, sw2 = 0;
    for (int i = 0; i < e->mu; i++) {
        e->w[i] = log(e->mu + 0.5) - log(i + 1.0);
        sw += e->w[i];
    }
    for (int i = 0; i < e->mu; i++) {
        e->w[i] /= sw;
        sw2 += e->w[i] * e->w[i];
    }
    e->mueff = 1 / sw2;
    double N = n;
    e->cc = (4 + e->mueff / N) / (N + 4 + 2 * e->mueff / N);
    e->cs = (e->mueff + 2) / (N + e->mueff + 5);
    e->c1 = 2 / ((N + 1.3) * (N + 1.3) + e->mueff);
    double cmu = 2 * (e->mueff - 2 + 1 / e->mueff) / ((N + 2) * (N + 2) + e->mueff);
    e->cmu = cmu < 1 - e->c1 ? cmu : 1 - e->c1;
    double dd = sqrt((e->mueff - 1) / (N + 1)) - 1;
    e->damps = 1 + 2 * (dd > 0 ? dd : 0) + e->cs;
    e->chiN = sqrt(N) * (1 - 1 / (4 * N) + 1 / (21 * N * N));
    memcpy(e->xmean, x0, sizeof(double) * n);
    e->sigma = sigma0;
    for (int i = 0; i < n; i++) {
        e->C[i * n + i] = e->B[i * n + i] = e->invsqrtC[i * n + i] = 1;
        e->D[i] = 1;
    }
    return 0;
}

static void es_sample(es *e, rng *r)
{
    int n = e->n;
    for (int k = 0; k < e->lambda; k++) {
        double *z = e->arz + (size_t)k * n, *x = e->arx + (size_t)k * n;
        for (int i = 0; i < n; i++) z[i] = normal(r);
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int j = 0; j < n; j++) s += e->B[i * n + j] * e->D[j] * z[j];
            x[i] = e->xmean[i] + e->sigma * s;
        }
    }
}

/* idx by ascending fit: an insertion sort (lambda is small; no qsort context to share) */
static void rank(const double *fit, int *idx, int lambda)
{
    for (int k = 0; k < lambda; k++) {
        int j = k;
        while (j > 0 && fit[idx[j - 1]] > fit[k]) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = k;
    }
}

/* Returns 0, or 1 when C is too ill-conditioned to go on. */
static int es_update(es *e, long counteval)
{
    int n = e->n;
    rank(e->fit, e->idx, e->lambda);
    memcpy(e->xold, e->xmean, sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int k = 0; k < e->mu; k++) s += e->w[k] * e->arx[(size_t)e->idx[k] * n + i];
        e->xmean[i] = s;
    }
    /* ps = (1 - cs) ps + sqrt(cs (2 - cs) mueff) C^-1/2 (xmean - xold) / sigma (Eq. 43) */
    double a = sqrt(e->cs * (2 - e->cs) * e->mueff), psn = 0;
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < n; j++) s += e->invsqrtC[i * n + j] * (e->xmean[j] - e->xold[j]) / e->sigma;
        e->ps[i] = (1 - e->cs) * e->ps[i] + a * s;
        psn += e->ps[i] * e->ps[i];
    }
    psn = sqrt(psn);
    double gens = (double)counteval / e->lambda;
    int hsig = psn / sqrt(1 - pow(1 - e->cs, 2 * gens)) / e->chiN < 1.4 + 2.0 / (n + 1);
    double b = sqrt(e->cc * (2 - e->cc) * e->mueff);
    for (int i = 0; i < n; i++) e->pc[i] = (1 - e->cc) * e->pc[i] + hsig * b * (e->xmean[i] - e->xold[i]) / e->sigma;
    /* C update, Eq. 47 */
    double c1a = e->c1 * (1 - (1 - hsig) * e->cc * (2 - e->cc));
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            double rmu = 0;
            for (int k = 0; k < e->mu; k++) {
                const double *x = e->arx + (size_t)e->idx[k] * n;
                rmu += e->w[k] * (x[i] - e->xold[i]) * (x[j] - e->xold[j]);
            }
            rmu /= e->sigma * e->sigma;
            double v = (1 - c1a - e->cmu) * e->C[i * n + j] + e->c1 * e->pc[i] * e->pc[j] + e->cmu * rmu;
            e->C[i * n + j] = e->C[j * n + i] = v;
        }
    e->sigma *= exp((e->cs / e->damps) * (psn / e->chiN - 1));
    if (counteval - e->eigen_at > e->lambda / (e->c1 + e->cmu) / n / 10) {
        e->eigen_at = counteval;
        memcpy(e->tmpA, e->C, sizeof(double) * n * n);
        jacobi_eigen(n, e->tmpA, e->B, e->D);
        double dmin = HUGE_VAL, dmax = 0;
        for (int i = 0; i < n; i++) {
            if (e->D[i] < dmin) dmin = e->D[i];
            if (e->D[i] > dmax) dmax = e->D[i];
        }
        if (!(dmin > 0) || dmax / dmin > 1e14) return 1;
        for (int i = 0; i < n; i++) e->D[i] = sqrt(e->D[i]);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int k = 0; k < n; k++) s += e->B[i * n + k] / e->D[k] * e->B[j * n + k];
                e->invsqrtC[i * n + j] = s;
            }
    }
    return 0;
}

int cmaes_minimize(const cmaes_problem *p, optim_result *res)
{
    int n = p->n;
    if (n < 1 || !p->x0 || !(p->sigma0 > 0) || !p->eval) return -1;
    double tolfun = p->tolfun > 0 ? p->tolfun : 1e-12, tolx = p->tolx > 0 ? p->tolx : 1e-11 * p->sigma0;
    double *xbest = malloc(sizeof(double) * n);
    if (!xbest) return -1;
    memcpy(xbest, p->x0, sizeof(double) * n); /* what "best" is if every evaluation fails */
    rng r = {{0}, 0, 0};
    uint64_t sd = p->seed;
    for (int i = 0; i < 4; i++) r.s[i] = splitmix(&sd);
    double fbest = HUGE_VAL;
    long evals = 0;
    int gen = 0, restart = 0;
    const char *reason = "max_evaluations";
    int lambda = p->lambda > 0 ? p->lambda : cmaes_default_lambda(n);
    int done = 0;
    for (; !done; restart++) {
        es e;
        if (es_init(&e, n, lambda, p->x0, p->sigma0) != 0) {
            free(xbest);
            return -1;
        }
        const char *why = NULL;
        while (!why) {
            if (p->max_evals > 0 && evals + e.lambda > p->max_evals) {
                why = "max_evaluations";
                break;
            }
            es_sample(&e, &r);
            if (p->eval(p->ctx, e.lambda, e.arx, e.fit) != 0) {
                why = "interrupted";
                break;
            }
            evals += e.lambda;
            gen++;
            double gbest = HUGE_VAL, mean = 0;
            int ib = 0;
            for (int k = 0; k < e.lambda; k++) {
                mean += e.fit[k] / e.lambda;
                if (e.fit[k] < gbest) gbest = e.fit[k], ib = k;
            }
            if (gbest < fbest) {
                fbest = gbest;
                memcpy(xbest, e.arx + (size_t)ib * n, sizeof(double) * n);
            }
            if (p->progress) {
                optim_progress pr = {gen, restart, evals, fbest, gbest, mean, e.sigma, xbest, NULL, NULL};
                p->progress(p->ctx, &pr);
            }
            if (fbest <= p->ftarget) {
                why = "ftarget";
                break;
            }
            if (es_update(&e, evals)) {
                why = "condition";
                break;
            }
            /* tolfun: the best values of the last 10 + 30 n / lambda generations and this
             * generation's values all within tolfun (Hansen's TolHistFun and TolFun) */
            e.fhist[e.nhist++ % e.hist_len] = gbest;
            if (e.nhist >= e.hist_len) {
                double lo = HUGE_VAL, hi = -HUGE_VAL;
                for (int i = 0; i < e.hist_len; i++) {
                    lo = fmin(lo, e.fhist[i]);
                    hi = fmax(hi, e.fhist[i]);
                }
                for (int k = 0; k < e.lambda; k++) {
                    lo = fmin(lo, e.fit[k]);
                    hi = fmax(hi, e.fit[k]);
                }
                if (hi - lo < tolfun) why = "tolfun";
            }
            /* tolx: every axis's standard deviation and pc component below tolx */
            int small = 1;
            for (int i = 0; i < n && small; i++)
                small = e.sigma * fmax(fabs(e.pc[i]), sqrt(e.C[i * n + i])) < tolx;
            if (small && !why) why = "tolx";
        }
        es_free(&e);
        reason = why;
        done = strcmp(why, "max_evaluations") == 0 || strcmp(why, "interrupted") == 0 ||
               strcmp(why, "ftarget") == 0 || restart >= p->restarts;
        lambda *= 2; /* IPOP */
    }
    res->x = xbest;
    res->f = fbest;
    res->evaluations = evals;
    res->generations = gen;
    res->restarts = restart - 1;
    res->converged = strcmp(reason, "ftarget") == 0 || strcmp(reason, "tolfun") == 0 || strcmp(reason, "tolx") == 0;
    snprintf(res->reason, sizeof res->reason, "%s", reason);
    return 0;
}
