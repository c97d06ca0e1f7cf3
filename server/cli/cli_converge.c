/* rodd converge SPEC [--until T] [--every DT] [--levels K] [--budget S]: how far the spec's
 * result is from the converged answer. The spec runs as given (level 0), then as refined
 * copies, each level from the one before:
 *   every strain's Legendre degree d -> min(2 d + 1, 30), the inflation's pieces doubled (at
 *   most 200), the Gauss points doubled (at most 5000) with as many Magnus steps per station,
 *   CVODE's rtol and atol divided by 10;
 * up to K levels (default 2) while the next level's predicted wall time fits the budget
 * (default 600 s). The results are compared at every output time (statics: the one pose) and
 * output point. With two or more refinements the differences shrink by a factor c per level
 * and the finest level's own error is taken as what one more level would change, c times the
 * last change: the whole geometric tail c / (1 - c) overshot on the reaching and fetching arms
 * (1.19x and 1.9x the true error at t = 0), whose refinements converge faster than their first
 * step predicts. With one refinement, level 1 stands for the converged result. One JSON object
 * on stdout. */
#include "cli.h"
#include "rod.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEVELS 4
#define MAX_DEGREE 30
#define MAX_PIECES 200
#define MAX_POINTS 5000

typedef struct {
    double until, every, budget;
    int have_until, levels;
} conv_opts;

/* One level's discretization, as overrides of the spec. */
typedef struct {
    int degree[6]; /* -1: component not free */
    int pieces;    /* 0: no inflation */
    int points, substeps, magnus_order;
    double rtol, atol;
} level_disc;

typedef struct {
    level_disc d;
    int ndof;
    double wall;
    double *pos;   /* times x points x 3 */
    double *guess; /* level 0: the spec's solver.guess (nguess values), or NULL */
    int nguess;
} level_run;

static const char *const strain_names[6] = {"bend1", "bend2", "twist", "shear1", "shear2", "stretch"};

static int parse_pos(const char *s, const char *what, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (*end || !isfinite(v) || v <= 0) {
        fprintf(stderr, "rodd: %s must be a positive number, not \"%s\"\n", what, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int conv_extra(int argc, char **argv, int i, void *data)
{
    conv_opts *o = data;
    if (i + 1 >= argc) return 0;
    if (strcmp(argv[i], "--until") == 0) {
        o->have_until = 1;
        return parse_pos(argv[i + 1], "--until", &o->until) ? -1 : 2;
    }
    if (strcmp(argv[i], "--every") == 0) return parse_pos(argv[i + 1], "--every", &o->every) ? -1 : 2;
    if (strcmp(argv[i], "--budget") == 0) return parse_pos(argv[i + 1], "--budget", &o->budget) ? -1 : 2;
    if (strcmp(argv[i], "--levels") == 0) {
        char *end;
        long v = strtol(argv[i + 1], &end, 10);
        if (*end || v < 1 || v > MAX_LEVELS) {
            fprintf(stderr, "rodd: --levels must be an integer in [1, %d]\n", MAX_LEVELS);
            return -1;
        }
        o->levels = (int)v;
        return 2;
    }
    return 0;
}

/* Level 0: what the spec as compiled uses. */
static void base_disc(const rod_model *m, level_disc *d)
{
    cJSON *spec = cJSON_Parse(rod_model_spec_json(m));
    const cJSON *strains = cJSON_GetObjectItemCaseSensitive(spec, "strains");
    const cJSON *inf = cJSON_GetObjectItemCaseSensitive(spec, "inflation");
    const cJSON *solver = cJSON_GetObjectItemCaseSensitive(spec, "solver");
    for (int c = 0; c < 6; c++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(strains, strain_names[c]);
        d->degree[c] = cJSON_IsNumber(v) ? v->valueint : -1;
    }
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(inf, "pieces");
    d->pieces = rod_model_is_extended(m) && cJSON_IsNumber(p) ? p->valueint : 0;
    d->points = rod_model_quadrature_points(m);
    d->substeps = rod_model_substeps(m);
    d->magnus_order = rod_model_magnus_order(m);
    const cJSON *rt = cJSON_GetObjectItemCaseSensitive(solver, "rtol");
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(solver, "atol");
    d->rtol = cJSON_IsNumber(rt) ? rt->valuedouble : 1e-6; /* the parser's defaults */
    d->atol = cJSON_IsNumber(at) ? at->valuedouble : 1e-8;
    cJSON_Delete(spec);
}

/* The spec's solver.guess (level 0's), kept for the refined levels; 0, or -1 out of memory. */
static int base_guess(const rod_model *m, level_run *r)
{
    cJSON *spec = cJSON_Parse(rod_model_spec_json(m));
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(spec, "solver"), "guess");
    const int n = cJSON_IsArray(g) ? cJSON_GetArraySize(g) : 0;
    r->guess = n ? malloc((size_t)n * sizeof *r->guess) : NULL;
    if (n && !r->guess) {
        cJSON_Delete(spec);
        return -1;
    }
    r->nguess = n;
    for (int i = 0; i < n; i++) r->guess[i] = cJSON_GetArrayItem(g, i)->valuedouble;
    cJSON_Delete(spec);
    return 0;
}

/* "solver.guess=[...]" for a refined level from level 0's guess: the Legendre bases are
 * hierarchical, so each strain keeps its coefficients and its added degrees start at 0; the
 * inflation's Hermite coordinates (its pieces change) start at the reference, 0. A guess of
 * the wrong length was refused at level 0. NULL without a guess or memory; the caller frees. */
static char *refined_guess(const level_run *base, const level_disc *d, int ndof)
{
    if (!base->guess) return NULL;
    char *out = malloc((size_t)ndof * 26 + 32);
    if (!out) return NULL;
    size_t used = (size_t)sprintf(out, "solver.guess=[");
    int from = 0, written = 0;
    for (int c = 0; c < 6; c++) {
        if (base->d.degree[c] < 0) continue;
        for (int k = 0; k <= d->degree[c]; k++, written++)
            used += (size_t)sprintf(out + used, "%s%.17g", written ? ", " : "",
                                    k <= base->d.degree[c] ? base->guess[from + k] : 0.0);
        from += base->d.degree[c] + 1;
    }
    for (; written < ndof; written++) used += (size_t)sprintf(out + used, "%s0", written ? ", " : "");
    sprintf(out + used, "]");
    return out;
}

static void refine(const level_disc *a, level_disc *b)
{
    *b = *a;
    for (int c = 0; c < 6; c++)
        if (a->degree[c] >= 0) b->degree[c] = a->degree[c] * 2 + 1 > MAX_DEGREE ? MAX_DEGREE : a->degree[c] * 2 + 1;
    if (a->pieces) b->pieces = a->pieces * 2 > MAX_PIECES ? MAX_PIECES : a->pieces * 2;
    b->points = a->points * 2 > MAX_POINTS ? MAX_POINTS : a->points * 2;
    b->rtol = a->rtol / 10;
    b->atol = a->atol / 10;
}

/* The level's overrides after the user's; texts live in buf. */
static int level_overrides(const cli_common *o, const level_disc *d, int level, const char **out,
                           char buf[][64])
{
    int n = 0;
    for (int i = 0; i < o->n_overrides; i++) out[n++] = o->overrides[i];
    if (level == 0) return n;
    int k = 0;
    for (int c = 0; c < 6; c++)
        if (d->degree[c] >= 0) snprintf(buf[k], 64, "strains.%s=%d", strain_names[c], d->degree[c]), out[n++] = buf[k++];
    if (d->pieces) snprintf(buf[k], 64, "inflation.pieces=%d", d->pieces), out[n++] = buf[k++];
    snprintf(buf[k], 64, "discretization.points=%d", d->points), out[n++] = buf[k++];
    snprintf(buf[k], 64, "discretization.substeps=%d", d->substeps), out[n++] = buf[k++];
    snprintf(buf[k], 64, "discretization.magnus_order=%d", d->magnus_order), out[n++] = buf[k++];
    snprintf(buf[k], 64, "solver.rtol=%.17g", d->rtol), out[n++] = buf[k++];
    snprintf(buf[k], 64, "solver.atol=%.17g", d->atol), out[n++] = buf[k++];
    return n;
}

static int store_frame(const rod_model *m, const rod_state *st, int points, double *dst)
{
    rod_frame f;
    if (rod_frame_compute(m, st, points, &f) != ROD_OK) return -1;
    memcpy(dst, f.position, (size_t)points * 3 * sizeof *dst);
    rod_frame_free(&f);
    return 0;
}

/* Runs one level: statics, or dynamics with a frame every `every`. 0 or an exit status. */
static int run_level(const cli_common *o, const conv_opts *co, int level, int ntimes,
                     const level_run *base, level_run *r)
{
    const char *ov[64 + 16 + 1];
    char buf[16][64];
    if (o->n_overrides > 64) return EXIT_USAGE;
    int nov = level_overrides(o, &r->d, level, ov, buf);
    char *guess = NULL;
    if (level > 0 && base->guess) {
        /* the refined model's size: its strains' degrees plus the inflation's coordinates, as
         * many per piece as level 0 has (two: every boundary type keeps 2 P of the 2 P + 2) */
        int nxi0 = 0, nxi = 0;
        for (int c = 0; c < 6; c++)
            if (base->d.degree[c] >= 0) nxi0 += base->d.degree[c] + 1, nxi += r->d.degree[c] + 1;
        const int nrho = base->d.pieces ? (base->ndof - nxi0) / base->d.pieces * r->d.pieces : 0;
        if (!(guess = refined_guess(base, &r->d, nxi + nrho))) return EXIT_FAILURE_OTHER;
        ov[nov++] = guess;
    }
    rod_issues iss;
    rod_issues_init(&iss);
    rod_model *m = rod_model_load(o->spec_path, ov, nov, &iss);
    free(guess);
    for (int i = 0; !m && i < iss.count; i++)
        fprintf(stderr, "%s (level %d): %s%s%s\n", o->spec_path, level, iss.items[i].path,
                iss.items[i].path[0] ? ": " : "", iss.items[i].message);
    rod_issues_free(&iss);
    if (!m) return level == 0 ? EXIT_BAD_SPEC : EXIT_FAILURE_OTHER;
    if (cli_several_rods(m, "converge")) {
        rod_model_free(m);
        return EXIT_FAILURE_OTHER;
    }
    if (level == 0) {
        base_disc(m, &r->d);
        if (base_guess(m, r) != 0) {
            rod_model_free(m);
            return EXIT_FAILURE_OTHER;
        }
    }
    r->ndof = rod_model_ndof(m);
    r->pos = calloc((size_t)ntimes * o->points * 3, sizeof *r->pos);
    rod_state *st = r->pos ? cli_new_state(m) : NULL;
    if (!st) {
        if (r->pos) return EXIT_FAILURE_OTHER; /* cli_new_state freed m */
        rod_model_free(m);
        return EXIT_FAILURE_OTHER;
    }
    const double t0 = cli_now();
    int status = EXIT_OK, rc;
    if (!co->have_until) {
        rod_statics_result res;
        rc = rod_statics_solve(m, st, 0.0, &res);
        if (rc != ROD_OK) {
            fprintf(stderr, "rodd: level %d: %s\n", level, rod_state_error(st));
            status = rc == ROD_ENOCONV ? EXIT_NO_CONVERGENCE : EXIT_FAILURE_OTHER;
        } else if (store_frame(m, st, o->points, r->pos) != 0) {
            status = EXIT_FAILURE_OTHER;
        }
    } else {
        rc = rod_dynamics_start(m, st);
        if (rc != ROD_OK) {
            fprintf(stderr, "rodd: level %d: cannot start: %s\n", level, rod_state_error(st));
            status = rc == ROD_ENOCONV ? EXIT_NO_CONVERGENCE : EXIT_FAILURE_OTHER;
        }
        for (int k = 0; status == EXIT_OK && k < ntimes; k++) {
            const double t = k == ntimes - 1 ? co->until : k * co->every;
            if (k > 0 && (rc = rod_dynamics_advance(m, st, t)) != ROD_OK) {
                fprintf(stderr, "rodd: level %d: %s\n", level, rod_state_error(st));
                status = EXIT_FAILURE_OTHER;
            } else if (store_frame(m, st, o->points, r->pos + (size_t)k * o->points * 3) != 0) {
                status = EXIT_FAILURE_OTHER;
            }
        }
    }
    r->wall = cli_now() - t0;
    fprintf(stderr, "rodd: level %d: %d coordinates, %d Gauss points, %.3f s wall\n", level, r->ndof,
            r->d.points, r->wall);
    rod_state_free(st);
    rod_model_free(m);
    return status;
}

static double dist3(const double *a, const double *b)
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* The largest distance between two levels: over all points, or at the tip only. */
static double max_diff(const level_run *a, const level_run *b, int ntimes, int np, int tip_only)
{
    double mx = 0;
    for (int k = 0; k < ntimes; k++)
        for (int j = tip_only ? np - 1 : 0; j < np; j++) {
            const size_t at = ((size_t)k * np + j) * 3;
            double d = dist3(a->pos + at, b->pos + at);
            if (d > mx) mx = d;
        }
    return mx;
}

/* Level 0's error: e = (x0 - xF) + (x(F-1) - xF) c at every time and point. */
static double estimate(const level_run *r, int nl, double c, int ntimes, int np, int tip_only,
                       double *worst_t_index)
{
    const level_run *x0 = &r[0], *xf = &r[nl - 1], *xp = &r[nl - 2];
    const double g = nl >= 3 ? c : 0.0;
    double mx = 0;
    for (int k = 0; k < ntimes; k++)
        for (int j = tip_only ? np - 1 : 0; j < np; j++) {
            const size_t at = ((size_t)k * np + j) * 3;
            double e[3];
            for (int i = 0; i < 3; i++) e[i] = x0->pos[at + i] - xf->pos[at + i] + g * (xp->pos[at + i] - xf->pos[at + i]);
            const double d = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
            if (d > mx) {
                mx = d;
                if (worst_t_index) *worst_t_index = k;
            }
        }
    return mx;
}

static cJSON *disc_json(const level_run *r)
{
    cJSON *o = cJSON_CreateObject(), *s = cJSON_AddObjectToObject(o, "strains");
    for (int c = 0; c < 6; c++)
        if (r->d.degree[c] >= 0) cJSON_AddNumberToObject(s, strain_names[c], r->d.degree[c]);
    if (r->d.pieces) cJSON_AddNumberToObject(o, "pieces", r->d.pieces);
    cJSON_AddNumberToObject(o, "points", r->d.points);
    cJSON_AddNumberToObject(o, "substeps", r->d.substeps);
    cJSON_AddNumberToObject(o, "rtol", r->d.rtol);
    cJSON_AddNumberToObject(o, "atol", r->d.atol);
    cJSON_AddNumberToObject(o, "coordinates", r->ndof);
    cJSON_AddNumberToObject(o, "wall_s", r->wall);
    return o;
}

int cli_converge(int argc, char **argv)
{
    cli_common o;
    conv_opts co = {0, 0, 600, 0, 2};
    int rc = cli_parse_common(argc, argv, 2, &o, conv_extra, &co);
    if (rc) return rc;
    if (co.every <= 0) co.every = co.have_until ? co.until / 100 : 1;
    const int nsteps = (int)floor(co.until / co.every + 1e-9);
    const int ntimes = co.have_until ? nsteps + 1 + (co.until - nsteps * co.every > 1e-9 * co.until ? 1 : 0) : 1;
    if (ntimes > 20001 || (long)ntimes * o.points > 2000000) {
        fprintf(stderr, "rodd: --every and --points give more than 20000 output times or 2e6 "
                "output points in all\n");
        cli_free_common(&o);
        return EXIT_USAGE;
    }
    level_run runs[MAX_LEVELS + 1];
    memset(runs, 0, sizeof runs);
    const double t_start = cli_now();
    int nl = 0, status = EXIT_OK, budget_stop = 0;
    for (int level = 0; level <= co.levels; level++) {
        if (level > 0) {
            refine(&runs[level - 1].d, &runs[level].d);
            /* the wall time grows by about the last level's factor (8 when unknown) */
            const double growth = level >= 2 && runs[level - 2].wall > 0 ? runs[level - 1].wall / runs[level - 2].wall : 8;
            const double predicted = runs[level - 1].wall * (growth > 1 ? growth : 1);
            if (cli_now() - t_start + predicted > co.budget) {
                budget_stop = 1;
                break;
            }
        }
        status = run_level(&o, &co, level, ntimes, &runs[0], &runs[level]);
        nl = level + 1;
        if (status != EXIT_OK) break;
    }
    const int np = o.points;
    if (status == EXIT_OK && nl < 2) {
        fprintf(stderr, "rodd: the budget of %g s leaves no room for a refined run\n", co.budget);
        status = EXIT_FAILURE_OTHER;
    }
    if (status == EXIT_OK) {
        /* contraction per level from the first and last differences between levels */
        double c = 0;
        int converging = 1;
        if (nl >= 3) {
            const double d1 = max_diff(&runs[0], &runs[1], ntimes, np, 0);
            const double dl = max_diff(&runs[nl - 2], &runs[nl - 1], ntimes, np, 0);
            c = d1 > 0 ? pow(dl / d1, 1.0 / (nl - 2)) : 0;
            if (!(c < 0.9)) { /* not shrinking: no extrapolation, the finest level stands */
                converging = 0;
                c = 0;
            }
        }
        double worst_k = 0;
        const double tip = estimate(runs, nl, c, ntimes, np, 1, &worst_k);
        const double shape = estimate(runs, nl, c, ntimes, np, 0, NULL);
        cJSON *out = cJSON_CreateObject();
        cJSON_AddNumberToObject(out, "tip_error_estimate", tip);
        cJSON_AddNumberToObject(out, "shape_error_estimate", shape);
        cJSON_AddNumberToObject(out, "worst_time", co.have_until ? fmin(worst_k * co.every, co.until) : 0);
        cJSON_AddNumberToObject(out, "contraction", c);
        cJSON_AddBoolToObject(out, "converging", converging);
        cJSON_AddBoolToObject(out, "budget_stopped", budget_stop);
        cJSON *dif = cJSON_AddArrayToObject(out, "tip_difference_to_finest");
        for (int l = 0; l + 1 < nl; l++)
            cJSON_AddItemToArray(dif, cJSON_CreateNumber(max_diff(&runs[l], &runs[nl - 1], ntimes, np, 1)));
        cJSON *arr = cJSON_AddArrayToObject(out, "runs");
        for (int l = 0; l < nl; l++) cJSON_AddItemToArray(arr, disc_json(&runs[l]));
        cJSON_AddNumberToObject(out, "times", ntimes);
        cJSON_AddNumberToObject(out, "output_points", np);
        cJSON_AddNumberToObject(out, "wall_s", cli_now() - t_start);
        char *text = cJSON_PrintUnformatted(out);
        if (text) puts(text);
        else status = EXIT_FAILURE_OTHER;
        free(text);
        cJSON_Delete(out);
    }
    for (int l = 0; l <= MAX_LEVELS; l++) {
        free(runs[l].pos);
        free(runs[l].guess);
    }
    cli_free_common(&o);
    return status;
}
