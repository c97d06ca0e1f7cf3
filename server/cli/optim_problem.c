/* optim_problem.h: the problem's parameters, its checks before any run, and one evaluation.
 * Quantities (README, "Inverse problems"): the final frame's tip and centroid, the centroid's
 * mean velocity over [from, until], the energies, and the actuators' effort. */
#include "optim_problem.h"

#include "cli.h"
#include "optim_cmaes.h"
#include "rod.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>



const char *const optim_status_names[4] = {"ok", "bad_spec", "failed", "no_convergence"};

int optim_problem_add_vary(optim_problem *o, const char *arg)
{
    if (o->n == OPTIM_MAX_VARY) {
        fprintf(stderr, "rodd optimize: at most %d --vary\n", OPTIM_MAX_VARY);
        return -1;
    }
    optim_vary *v = &o->v[o->n];
    const char *eq = strrchr(arg, '=');
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof v->text) {
        fprintf(stderr, "rodd optimize: --vary takes PATH=LO:HI, got \"%s\"\n", arg);
        return -1;
    }
    char *end;
    v->lo = strtod(eq + 1, &end);
    if (end == eq + 1 || *end != ':') {
        fprintf(stderr, "rodd optimize: --vary %s: LO:HI must be two numbers, got \"%s\"\n", arg, eq + 1);
        return -1;
    }
    const char *h = end + 1;
    v->hi = strtod(h, &end);
    if (end == h || *end || !isfinite(v->lo) || !isfinite(v->hi)) {
        fprintf(stderr, "rodd optimize: --vary %s: LO:HI must be two finite numbers, got \"%s\"\n", arg, eq + 1);
        return -1;
    }
    if (!(v->lo < v->hi)) {
        fprintf(stderr, "rodd optimize: --vary %s: LO must be below HI\n", arg);
        return -1;
    }
    memcpy(v->text, arg, (size_t)(eq - arg));
    v->text[eq - arg] = '\0';
    char *save = NULL, *copy = v->text;
    for (char *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        if (v->npaths == OPTIM_MAX_TIED) {
            fprintf(stderr, "rodd optimize: --vary %s: at most %d tied paths\n", arg, OPTIM_MAX_TIED);
            return -1;
        }
        v->paths[v->npaths++] = p;
    }
    if (!v->npaths) return -1;
    o->n++;
    return 0;
}

/* The value at PATH (dotted keys, array indices) of the compiled spec, or NULL. */
static const cJSON *at_path(const cJSON *root, const char *path)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    const cJSON *cur = root;
    char *save = NULL;
    for (char *k = strtok_r(buf, ".", &save); k && cur; k = strtok_r(NULL, ".", &save)) {
        if (cJSON_IsArray(cur)) {
            char *end;
            long i = strtol(k, &end, 10);
            cur = *end || i < 0 ? NULL : cJSON_GetArrayItem(cur, (int)i);
        } else {
            cur = cJSON_GetObjectItemCaseSensitive(cur, k);
        }
    }
    return cur;
}

void optim_problem_physical(const optim_problem *o, const double *u, double *x)
{
    for (int i = 0; i < o->n; i++) x[i] = o->v[i].lo + optim_map_unit(u[i]) * (o->v[i].hi - o->v[i].lo);
}

rod_model *optim_problem_load(const optim_problem *o, const double *x, rod_issues *iss)
{
    const char *ov[64 + OPTIM_MAX_VARY * OPTIM_MAX_TIED];
    char assign[OPTIM_MAX_VARY * OPTIM_MAX_TIED][600];
    int n = 0, a = 0;
    for (int i = 0; i < o->nsets; i++) ov[n++] = o->sets[i];
    for (int i = 0; i < o->n; i++)
        for (int j = 0; j < o->v[i].npaths; j++, a++) {
            snprintf(assign[a], sizeof assign[a], "%s=%.17g", o->v[i].paths[j], x[i]);
            ov[n++] = assign[a];
        }
    return rod_model_load(o->spec_path, ov, n, iss);
}

/* ---- checks before any evaluation ---- */
int optim_problem_check_paths(optim_problem *o)
{
    rod_issues iss;
    rod_issues_init(&iss);
    rod_model *m = rod_model_load(o->spec_path, o->sets, o->nsets, &iss);
    if (!m) {
        for (int i = 0; i < iss.count; i++)
            fprintf(stderr, "%s: %s%s%s\n", o->spec_path, iss.items[i].path, iss.items[i].path[0] ? ": " : "",
                    iss.items[i].message);
        rod_issues_free(&iss);
        return EXIT_BAD_SPEC;
    }
    rod_issues_free(&iss);
    rod_frame shape; /* several rods: their names, for ROD.tip_x .. */
    if (rod_frame_shape(m, &shape) == ROD_OK) {
        if (shape.nrods > OPTIM_MAX_RODS) {
            fprintf(stderr, "rodd optimize: a model of %d rods: at most %d\n", shape.nrods, OPTIM_MAX_RODS);
            rod_frame_free(&shape);
            rod_model_free(m);
            return EXIT_BAD_SPEC;
        }
        o->nrods = shape.nrods;
        for (int r = 0; r < shape.nrods; r++) {
            snprintf(o->rod_names[r], sizeof o->rod_names[r], "%s", shape.rods[r].name);
            o->rods[r] = o->rod_names[r];
        }
        rod_frame_free(&shape);
    }
    cJSON *spec = cJSON_Parse(rod_model_spec_json(m));
    int rc = EXIT_OK;
    for (int i = 0; i < o->n && rc == EXIT_OK; i++)
        for (int j = 0; j < o->v[i].npaths; j++) {
            const cJSON *v = at_path(spec, o->v[i].paths[j]);
            if (!v) {
                fprintf(stderr, "rodd optimize: --vary %s: the spec has no value there\n", o->v[i].paths[j]);
                rc = EXIT_USAGE;
                break;
            }
            if (!cJSON_IsNumber(v)) {
                fprintf(stderr, "rodd optimize: --vary %s: the spec's value there is not a number\n", o->v[i].paths[j]);
                rc = EXIT_USAGE;
                break;
            }
        }
    cJSON_Delete(spec);
    rod_model_free(m);
    return rc;
}

/* The spec must compile at the box's corners (all 2^n up to 10 parameters; beyond, the
 * all-low and all-high corners and each parameter alone at either end). */
int optim_problem_check_corners(const optim_problem *o)
{
    double x[OPTIM_MAX_VARY];
    long ncorner = o->n <= 10 ? 1L << o->n : 2 + 2L * o->n;
    for (long c = 0; c < ncorner; c++) {
        for (int i = 0; i < o->n; i++) {
            if (o->n <= 10) x[i] = (c >> i) & 1 ? o->v[i].hi : o->v[i].lo;
            else if (c < 2) x[i] = c ? o->v[i].hi : o->v[i].lo;
            else x[i] = (i == (c - 2) / 2) == ((c - 2) % 2) ? o->v[i].hi : o->v[i].lo;
        }
        rod_issues iss;
        rod_issues_init(&iss);
        rod_model *m = optim_problem_load(o, x, &iss);
        if (!m) {
            fprintf(stderr, "rodd optimize: the spec is invalid at the corner");
            for (int i = 0; i < o->n; i++) fprintf(stderr, " %s=%g", o->v[i].text, x[i]);
            fputc('\n', stderr);
            for (int i = 0; i < iss.count; i++)
                fprintf(stderr, "%s: %s%s%s\n", o->spec_path, iss.items[i].path, iss.items[i].path[0] ? ": " : "",
                        iss.items[i].message);
            rod_issues_free(&iss);
            return EXIT_BAD_SPEC;
        }
        rod_issues_free(&iss);
        rod_model_free(m);
    }
    return EXIT_OK;
}

/* ---- one evaluation ---- */
/* Actuators' squared values now, each the mean over X = 0, 1/4, .., 1 (a muscle's profile
 * varies along the rod). */
double optim_problem_effort_rate(const rod_model *m, rod_state *st)
{
    double s = 0;
    for (int i = 0; i < rod_model_ninputs(m); i++) {
        if (!rod_model_input_is_actuator(m, i)) continue;
        double a = 0;
        for (int j = 0; j <= 4; j++) {
            double u = rod_state_input_value(st, i, j / 4.0);
            a += u * u / 5;
        }
        s += a;
    }
    return s;
}

/* A rod's centroid, its points weighted by cross-section area (uniform density) and arc. */
static void centroid(const rod_frame *f, double c[3])
{
    double w = 0;
    c[0] = c[1] = c[2] = 0;
    for (int i = 0; i < f->n; i++) {
        double ds = (i > 0 ? f->s[i] - f->s[i - 1] : 0) + (i + 1 < f->n ? f->s[i + 1] - f->s[i] : 0);
        double wi = f->radius[i] * f->radius[i] * ds;
        for (int a = 0; a < 3; a++) c[a] += wi * f->position[3 * i + a];
        w += wi;
    }
    for (int a = 0; a < 3; a++) c[a] = w > 0 ? c[a] / w : NAN;
}

/* Rod r of the frame (one rod: the frame itself), r < rods_of(f). */
static int rods_of(const rod_frame *f)
{
    return f->nrods ? (f->nrods < OPTIM_MAX_RODS ? f->nrods : OPTIM_MAX_RODS) : 1;
}

static const rod_frame *rod_of(const rod_frame *f, int r)
{
    return f->nrods ? &f->rods[r] : f;
}

int optim_problem_centroid_now(const rod_model *m, rod_state *st, double c[3 * OPTIM_MAX_RODS])
{
    rod_frame f;
    if (rod_frame_compute(m, st, ROD_FRAME_DEFAULT_POINTS, &f) != ROD_OK) return -1;
    for (int r = 0; r < rods_of(&f); r++) centroid(rod_of(&f, r), c + 3 * r);
    rod_frame_free(&f);
    return 0;
}

int optim_problem_final(const optim_problem *o, const rod_model *m, rod_state *st,
                        const double com0[3 * OPTIM_MAX_RODS], double q[Q_MAX])
{
    rod_frame f;
    if (rod_frame_compute(m, st, ROD_FRAME_DEFAULT_POINTS, &f) != ROD_OK) return -1;
    /* each rod's tip, centroid and its velocity; the first rod's are also the plain names */
    for (int r = rods_of(&f) - 1; r >= 0; r--) {
        const rod_frame *rod = rod_of(&f, r);
        double *qr = f.nrods ? q + Q_COUNT + Q_ROD_COUNT * r : q;
        double c[3];
        centroid(rod, c);
        for (int a = 0; a < 3; a++) {
            qr[Q_TIP_X + a] = rod->position[3 * (rod->n - 1) + a];
            qr[Q_COM_X + a] = c[a];
            if (o->until > 0) qr[Q_COM_VX + a] = (c[a] - com0[3 * r + a]) / (o->until - o->from);
        }
        if (f.nrods && r == 0) memcpy(q, qr, Q_ROD_COUNT * sizeof *q);
    }
    q[Q_ENERGY_ELASTIC] = f.e_elastic;
    q[Q_ENERGY_KINETIC] = f.e_kinetic;
    q[Q_VOLUME_CHANGE] = f.volume_change;
    rod_frame_free(&f);
    return 0;
}

int optim_problem_run(const optim_problem *o, const double *x, double q[Q_MAX], char *msg, size_t len)
{
    for (int i = 0; i < Q_MAX; i++) q[i] = 0;
    rod_issues iss;
    rod_issues_init(&iss);
    rod_model *m = optim_problem_load(o, x, &iss);
    if (!m) {
        rod_issues_format(&iss, msg, len);
        rod_issues_free(&iss);
        return OPTIM_BAD_SPEC;
    }
    rod_issues_free(&iss);
    rod_state *st = rod_state_create(m, msg, len);
    if (!st) {
        rod_model_free(m);
        return OPTIM_FAILED;
    }
    int status = OPTIM_OK, rc = ROD_OK;
    double com0[3 * OPTIM_MAX_RODS] = {0};
    if (o->until > 0) {
        rc = rod_dynamics_start(m, st);
        double t_prev = 0, e_prev = rc == ROD_OK ? optim_problem_effort_rate(m, st) : 0;
        int have0 = 0;
        for (int k = 1; k <= OPTIM_EFFORT_STEPS && rc == ROD_OK; k++) {
            double t = o->until * k / OPTIM_EFFORT_STEPS;
            if (!have0 && o->from <= 0) { /* the start's centroids */
                optim_problem_centroid_now(m, st, com0);
                have0 = 1;
            }
            if (!have0 && t >= o->from) { /* stop at --from on the way */
                rc = rod_dynamics_advance(m, st, o->from);
                if (rc == ROD_OK) optim_problem_centroid_now(m, st, com0);
                have0 = 1;
                if (rc != ROD_OK) break;
            }
            rc = rod_dynamics_advance(m, st, t);
            if (rc != ROD_OK) break;
            double e = optim_problem_effort_rate(m, st);
            q[Q_EFFORT] += 0.5 * (e + e_prev) * (t - t_prev);
            e_prev = e;
            t_prev = t;
        }
    } else {
        rod_statics_result res;
        rc = rod_statics_solve(m, st, 0.0, &res);
        q[Q_EFFORT] = optim_problem_effort_rate(m, st);
    }
    if (rc == ROD_ENOCONV) status = OPTIM_NO_CONVERGENCE;
    else if (rc != ROD_OK) status = OPTIM_FAILED;
    if (status == OPTIM_OK && optim_problem_final(o, m, st, com0, q) != 0) status = OPTIM_FAILED;
    if (status != OPTIM_OK) snprintf(msg, len, "%s", rod_state_error(st));
    rod_state_free(st);
    rod_model_free(m);
    return status;
}

