/* rodd optimize: an inverse problem over a spec. Each --vary PATH=LO:HI is one parameter (a
 * --set PATH; "A,B=LO:HI" ties several paths to one value), each evaluation one run (statics,
 * or dynamics to --until) whose named quantities feed the objective's expression
 * (optim_objective.h). CMA-ES (optim_cmaes.c) or an NLopt method (optim_nlopt.c) works in
 * the unit box u in [0, 1]^n, x = LO + u (HI - LO). A failed evaluation is +inf to the
 * optimizer (the worst value), logged and counted, never fatal. --out DIR keeps every
 * evaluation (evaluations.csv), each generation's summary (generations.csv, state.json) and a
 * plot (objective.svg); a run started again with the same command and DIR replays the logged
 * evaluations instead of running them (the optimizers are deterministic for a seed), so an
 * interrupted run resumes where it stopped. */
#include "cli.h"
#include "optim_cmaes.h"
#include "optim_nlopt.h"
#include "optim_objective.h"
#include "optim_plot.h"
#include "rod.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_VARY 32
#define MAX_TIED 8
#define EFFORT_STEPS 50 /* output points of the dynamics run: effort's trapezoid */

typedef struct {
    char text[512];              /* as given, before '=' */
    char *paths[MAX_TIED];       /* into text */
    int npaths;
    double lo, hi;
} vary;

enum { ST_OK, ST_BAD_SPEC, ST_FAILED, ST_NO_CONVERGENCE };
static const char *const status_names[] = {"ok", "bad_spec", "failed", "no_convergence"};

typedef struct {
    double value;  /* the user's objective (NaN when failed) */
    int status;
    char message[200];
} outcome;

typedef struct {
    const char *spec_path;
    const char *sets[64];
    int nsets;
    vary v[MAX_VARY];
    int n;
    const char *expr;
    double sign;         /* +1 minimize, -1 maximize */
    double until, from;
    const char *method;
    long evaluations;
    uint64_t seed;
    int restarts;
    int jobs;
    const char *out_dir;
    optim_objective **obj; /* one per thread */
    /* the batch in flight */
    const double *U;
    outcome *res;
    int k;
    atomic_int next;
    /* bookkeeping */
    long done;
    int generation, failures;
    FILE *csv, *gens;
    char **replay;       /* the logged evaluations' lines, for a resumed run */
    long nreplay;
    double best_user;
    int tty;
    double t0;
} optimize;

/* ---- arguments ---- */
static int parse_vary(optimize *o, const char *arg)
{
    if (o->n == MAX_VARY) {
        fprintf(stderr, "rodd optimize: at most %d --vary\n", MAX_VARY);
        return -1;
    }
    vary *v = &o->v[o->n];
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
        if (v->npaths == MAX_TIED) {
            fprintf(stderr, "rodd optimize: --vary %s: at most %d tied paths\n", arg, MAX_TIED);
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

static void physical(const optimize *o, const double *u, double *x)
{
    for (int i = 0; i < o->n; i++) x[i] = o->v[i].lo + optim_map_unit(u[i]) * (o->v[i].hi - o->v[i].lo);
}

static rod_model *load_at(const optimize *o, const double *x, rod_issues *iss)
{
    const char *ov[64 + MAX_VARY * MAX_TIED];
    char assign[MAX_VARY * MAX_TIED][600];
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
static int check_paths(optimize *o)
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
static int check_corners(const optimize *o)
{
    double x[MAX_VARY];
    long ncorner = o->n <= 10 ? 1L << o->n : 2 + 2L * o->n;
    for (long c = 0; c < ncorner; c++) {
        for (int i = 0; i < o->n; i++) {
            if (o->n <= 10) x[i] = (c >> i) & 1 ? o->v[i].hi : o->v[i].lo;
            else if (c < 2) x[i] = c ? o->v[i].hi : o->v[i].lo;
            else x[i] = (i == (c - 2) / 2) == ((c - 2) % 2) ? o->v[i].hi : o->v[i].lo;
        }
        rod_issues iss;
        rod_issues_init(&iss);
        rod_model *m = load_at(o, x, &iss);
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
static double effort_rate(const rod_model *m, rod_state *st)
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

/* The rod's centroid, its points weighted by cross-section area (uniform density) and arc. */
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

static int run_one(const optimize *o, const double *x, double q[Q_COUNT], char *msg, size_t len)
{
    for (int i = 0; i < Q_COUNT; i++) q[i] = 0;
    rod_issues iss;
    rod_issues_init(&iss);
    rod_model *m = load_at(o, x, &iss);
    if (!m) {
        rod_issues_format(&iss, msg, len);
        rod_issues_free(&iss);
        return ST_BAD_SPEC;
    }
    rod_issues_free(&iss);
    rod_state *st = rod_state_create(m, msg, len);
    if (!st) {
        rod_model_free(m);
        return ST_FAILED;
    }
    int status = ST_OK, rc = ROD_OK;
    double com0[3] = {0, 0, 0};
    rod_frame f;
    if (o->until > 0) {
        rc = rod_dynamics_start(m, st);
        double t_prev = 0, e_prev = rc == ROD_OK ? effort_rate(m, st) : 0;
        int have0 = 0;
        for (int k = 1; k <= EFFORT_STEPS && rc == ROD_OK; k++) {
            double t = o->until * k / EFFORT_STEPS;
            if (!have0 && o->from <= 0) { /* the start's centroid */
                if (rod_frame_compute(m, st, ROD_FRAME_DEFAULT_POINTS, &f) == ROD_OK) {
                    centroid(&f, com0);
                    rod_frame_free(&f);
                }
                have0 = 1;
            }
            if (!have0 && t >= o->from) { /* stop at --from on the way */
                rc = rod_dynamics_advance(m, st, o->from);
                if (rc == ROD_OK && rod_frame_compute(m, st, ROD_FRAME_DEFAULT_POINTS, &f) == ROD_OK) {
                    centroid(&f, com0);
                    rod_frame_free(&f);
                }
                have0 = 1;
                if (rc != ROD_OK) break;
            }
            rc = rod_dynamics_advance(m, st, t);
            if (rc != ROD_OK) break;
            double e = effort_rate(m, st);
            q[Q_EFFORT] += 0.5 * (e + e_prev) * (t - t_prev);
            e_prev = e;
            t_prev = t;
        }
    } else {
        rod_statics_result res;
        rc = rod_statics_solve(m, st, 0.0, &res);
        q[Q_EFFORT] = effort_rate(m, st);
    }
    if (rc == ROD_ENOCONV) status = ST_NO_CONVERGENCE;
    else if (rc != ROD_OK) status = ST_FAILED;
    if (status == ST_OK && rod_frame_compute(m, st, ROD_FRAME_DEFAULT_POINTS, &f) == ROD_OK) {
        for (int a = 0; a < 3; a++) q[Q_TIP_X + a] = f.position[3 * (f.n - 1) + a];
        double c[3];
        centroid(&f, c);
        for (int a = 0; a < 3; a++) {
            q[Q_COM_X + a] = c[a];
            if (o->until > 0) q[Q_COM_VX + a] = (c[a] - com0[a]) / (o->until - o->from);
        }
        q[Q_ENERGY_ELASTIC] = f.e_elastic;
        q[Q_ENERGY_KINETIC] = f.e_kinetic;
        q[Q_VOLUME_CHANGE] = f.volume_change;
        rod_frame_free(&f);
    } else if (status == ST_OK) {
        status = ST_FAILED;
    }
    if (status != ST_OK) snprintf(msg, len, "%s", rod_state_error(st));
    rod_state_free(st);
    rod_model_free(m);
    return status;
}

typedef struct {
    optimize *o;
    int thread;
} worker_arg;

static void *worker(void *arg)
{
    worker_arg *w = arg;
    optimize *o = w->o;
    for (;;) {
        int j = atomic_fetch_add(&o->next, 1);
        if (j >= o->k) break;
        double x[MAX_VARY], q[Q_COUNT];
        physical(o, o->U + (size_t)j * o->n, x);
        outcome *r = &o->res[j];
        r->message[0] = '\0';
        r->status = run_one(o, x, q, r->message, sizeof r->message);
        r->value = r->status == ST_OK ? optim_objective_eval(o->obj[w->thread], q, x) : NAN;
        if (r->status == ST_OK && isnan(r->value)) {
            r->status = ST_FAILED;
            snprintf(r->message, sizeof r->message, "the objective is not a finite number");
        }
    }
    return NULL;
}

/* ---- the log, and replay on resume ---- */
static void csv_params(const optimize *o, const double *x, char *b, size_t len)
{
    size_t at = 0;
    b[0] = '\0';
    for (int i = 0; i < o->n && at < len; i++) at += (size_t)snprintf(b + at, len - at, ",%.17g", x[i]);
}

static void log_row(optimize *o, long index, const double *x, const outcome *r)
{
    if (!o->csv) return;
    char p[MAX_VARY * 32];
    csv_params(o, x, p, sizeof p);
    fprintf(o->csv, "%ld,%d,%s,%.17g%s,\"", index, o->generation, status_names[r->status], r->value, p);
    for (const char *c = r->message; *c; c++) fputc(*c == '"' ? '\'' : *c == '\n' ? ' ' : *c, o->csv);
    fputs("\"\n", o->csv);
}

/* A logged row of the same index and parameters: its outcome, 1; else 0. */
static int replayed(const optimize *o, long index, const double *x, outcome *r)
{
    if (index >= o->nreplay) return 0;
    char p[MAX_VARY * 32], head[64];
    csv_params(o, x, p, sizeof p);
    const char *line = o->replay[index];
    snprintf(head, sizeof head, "%ld,", index);
    if (strncmp(line, head, strlen(head)) != 0) return 0;
    const char *c = strchr(line + strlen(head), ','); /* past generation */
    if (!c) return 0;
    char st[32];
    double v;
    int used = 0;
    if (sscanf(c + 1, "%31[^,],%lf%n", st, &v, &used) != 2) return 0;
    if (strncmp(c + 1 + used, p, strlen(p)) != 0) return 0;
    r->status = ST_FAILED;
    for (int s = 0; s < 4; s++)
        if (strcmp(st, status_names[s]) == 0) r->status = s;
    r->value = v;
    snprintf(r->message, sizeof r->message, "replayed from evaluations.csv");
    return 1;
}

static int batch(void *ctx, int k, const double *U, double *F)
{
    optimize *o = ctx;
    o->generation++;
    outcome *res = calloc((size_t)k, sizeof *res);
    if (!res) return 1;
    int *todo = malloc(sizeof(int) * k), ntodo = 0;
    double *Ut = malloc(sizeof(double) * k * o->n);
    if (!todo || !Ut) {
        free(res), free(todo), free(Ut);
        return 1;
    }
    for (int j = 0; j < k; j++) {
        double x[MAX_VARY];
        physical(o, U + (size_t)j * o->n, x);
        if (!replayed(o, o->done + j, x, &res[j])) {
            memcpy(Ut + (size_t)ntodo * o->n, U + (size_t)j * o->n, sizeof(double) * o->n);
            todo[ntodo++] = j;
        }
    }
    if (ntodo) {
        outcome *fresh = calloc((size_t)ntodo, sizeof *fresh);
        if (!fresh) {
            free(res), free(todo), free(Ut);
            return 1;
        }
        o->U = Ut;
        o->res = fresh;
        o->k = ntodo;
        atomic_store(&o->next, 0);
        int nt = o->jobs < ntodo ? o->jobs : ntodo;
        pthread_t th[64];
        worker_arg wa[64];
        for (int t = 0; t < nt; t++) {
            wa[t] = (worker_arg){o, t};
            pthread_create(&th[t], NULL, worker, &wa[t]);
        }
        for (int t = 0; t < nt; t++) pthread_join(th[t], NULL);
        for (int j = 0; j < ntodo; j++) res[todo[j]] = fresh[j];
        free(fresh);
    }
    for (int j = 0; j < k; j++) {
        double x[MAX_VARY];
        physical(o, U + (size_t)j * o->n, x);
        long index = o->done + j;
        if (index >= o->nreplay) log_row(o, index, x, &res[j]);
        if (res[j].status != ST_OK) {
            o->failures++;
            if (index >= o->nreplay)
                fprintf(stderr, "%srodd optimize: evaluation %ld %s: %s\n", o->tty ? "\n" : "", index,
                        status_names[res[j].status], res[j].message);
        }
        F[j] = res[j].status == ST_OK ? o->sign * res[j].value : HUGE_VAL;
    }
    if (o->csv) fflush(o->csv);
    o->done += k;
    free(res), free(todo), free(Ut);
    return 0;
}

static void write_state(const optimize *o, int generations, long evaluations, const double *u, double f,
                        double sigma, const char *reason);

static void progress(void *ctx, const optim_progress *p)
{
    optimize *o = ctx;
    double best = o->sign * p->best, gbest = o->sign * p->gen_best, mean = o->sign * p->gen_mean;
    o->best_user = best;
    write_state(o, p->generation, p->evaluations, p->best_x, p->best, p->sigma, NULL);
    if (o->gens) {
        fprintf(o->gens, "%d,%ld,%.17g,%.17g,%.17g,%.17g\n", p->generation, p->evaluations, best, gbest, mean, p->sigma);
        fflush(o->gens);
    }
    if (o->tty) {
        double frac = o->evaluations > 0 ? (double)p->evaluations / o->evaluations : 0;
        int bar = (int)(20 * (frac > 1 ? 1 : frac));
        fprintf(stderr, "\rrodd optimize [%.*s%*s] %ld/%ld evaluations, best %.6g  ", bar, "####################",
                20 - bar, "", p->evaluations, o->evaluations, best);
        fflush(stderr);
    }
}

/* ---- output ---- */
static void usage(void)
{
    fprintf(stderr, "usage: rodd optimize SPEC.json --vary PATH=LO:HI [--vary ...] (--minimize EXPR | --maximize EXPR)\n"
                    "                     [--until T] [--from T0] [--method M] [--evaluations N] [--seed N]\n"
                    "                     [--restarts N] [--jobs J] [--out DIR] [--set PATH=VALUE]...\n");
}

static int open_out(optimize *o)
{
    if (!o->out_dir) return 0;
    if (mkdir(o->out_dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "rodd optimize: cannot create %s: %s\n", o->out_dir, strerror(errno));
        return -1;
    }
    char path[1200];
    snprintf(path, sizeof path, "%s/evaluations.csv", o->out_dir);
    FILE *old = fopen(path, "r");
    long cap = 0;
    if (old) { /* a resumed run: its rows (header apart) replay */
        char line[8192];
        int first = 1;
        while (fgets(line, sizeof line, old)) {
            if (first) {
                first = 0;
                continue;
            }
            if (o->nreplay == cap) {
                cap = cap ? 2 * cap : 256;
                char **g = realloc(o->replay, sizeof(char *) * cap);
                if (!g) break;
                o->replay = g;
            }
            o->replay[o->nreplay++] = strdup(line);
        }
        fclose(old);
    }
    o->csv = fopen(path, o->nreplay ? "a" : "w");
    snprintf(path, sizeof path, "%s/generations.csv", o->out_dir);
    o->gens = fopen(path, "w");
    if (!o->csv || !o->gens) {
        fprintf(stderr, "rodd optimize: cannot write in %s: %s\n", o->out_dir, strerror(errno));
        return -1;
    }
    if (!o->nreplay) {
        fputs("evaluation,generation,status,objective", o->csv);
        for (int i = 0; i < o->n; i++) fprintf(o->csv, ",%s", o->v[i].paths[0]);
        fputs(",message\n", o->csv);
    } else {
        fprintf(stderr, "rodd optimize: resuming: %ld evaluations in %s/evaluations.csv replay\n", o->nreplay,
                o->out_dir);
    }
    fputs("generation,evaluations,best,generation_best,generation_mean,sigma\n", o->gens);
    return 0;
}

static cJSON *best_object(const optimize *o, const double *x)
{
    cJSON *b = cJSON_CreateObject();
    for (int i = 0; i < o->n; i++) cJSON_AddNumberToObject(b, o->v[i].paths[0], x[i]);
    return b;
}

/* state.json: where the optimizer stands, rewritten after every generation (by rename, so a
 * reader never sees half of it); reason is NULL while it runs. */
static void write_state(const optimize *o, int generations, long evaluations, const double *u, double f,
                        double sigma, const char *reason)
{
    if (!o->out_dir) return;
    char path[1200], tmp[1300];
    snprintf(path, sizeof path, "%s/state.json", o->out_dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    double x[MAX_VARY];
    physical(o, u, x);
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "method", o->method);
    cJSON_AddNumberToObject(s, "seed", (double)o->seed);
    cJSON_AddNumberToObject(s, "generations", generations);
    cJSON_AddNumberToObject(s, "evaluations", (double)evaluations);
    cJSON_AddItemToObject(s, "best", best_object(o, x));
    if (isfinite(f)) cJSON_AddNumberToObject(s, "objective", o->sign * f);
    else cJSON_AddNullToObject(s, "objective");
    if (sigma > 0) cJSON_AddNumberToObject(s, "sigma", sigma);
    if (reason) cJSON_AddStringToObject(s, "reason", reason);
    else cJSON_AddNullToObject(s, "reason");
    char *t = cJSON_Print(s);
    FILE *fp = fopen(tmp, "w");
    int ok = fp && t && fprintf(fp, "%s\n", t) > 0;
    if (fp) ok &= fclose(fp) == 0;
    if (!ok || rename(tmp, path) != 0) fprintf(stderr, "rodd optimize: cannot write %s\n", path);
    free(t);
    cJSON_Delete(s);
}

static int parse_args(optimize *o, int argc, char **argv)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (a[0] == '-' && !v) {
            fprintf(stderr, "rodd optimize: %s needs a value\n", a);
            return -1;
        }
        if (strcmp(a, "--vary") == 0) {
            if (parse_vary(o, v) != 0) return -1;
        } else if (strcmp(a, "--set") == 0) {
            if (o->nsets == 64) return -1;
            o->sets[o->nsets++] = v;
        } else if (strcmp(a, "--minimize") == 0 || strcmp(a, "--maximize") == 0) {
            if (o->expr) {
                fprintf(stderr, "rodd optimize: one --minimize or --maximize\n");
                return -1;
            }
            o->expr = v;
            o->sign = a[3] == 'i' ? 1 : -1;
        } else if (strcmp(a, "--until") == 0) {
            o->until = strtod(v, &end);
            if (*end || !(o->until > 0)) {
                fprintf(stderr, "rodd optimize: --until must be a number > 0\n");
                return -1;
            }
        } else if (strcmp(a, "--from") == 0) {
            o->from = strtod(v, &end);
            if (*end || !(o->from >= 0)) {
                fprintf(stderr, "rodd optimize: --from must be a number >= 0\n");
                return -1;
            }
        } else if (strcmp(a, "--method") == 0) {
            o->method = v;
        } else if (strcmp(a, "--evaluations") == 0) {
            o->evaluations = strtol(v, &end, 10);
            if (*end || o->evaluations < 1) {
                fprintf(stderr, "rodd optimize: --evaluations must be an integer >= 1\n");
                return -1;
            }
        } else if (strcmp(a, "--seed") == 0) {
            o->seed = strtoull(v, &end, 10);
            if (*end) {
                fprintf(stderr, "rodd optimize: --seed must be an integer >= 0\n");
                return -1;
            }
        } else if (strcmp(a, "--restarts") == 0) {
            o->restarts = (int)strtol(v, &end, 10);
            if (*end || o->restarts < 0) {
                fprintf(stderr, "rodd optimize: --restarts must be an integer >= 0\n");
                return -1;
            }
        } else if (strcmp(a, "--jobs") == 0) {
            o->jobs = (int)strtol(v, &end, 10);
            if (*end || o->jobs < 1 || o->jobs > 64) {
                fprintf(stderr, "rodd optimize: --jobs must be an integer in [1, 64]\n");
                return -1;
            }
        } else if (strcmp(a, "--out") == 0) {
            o->out_dir = v;
        } else if (a[0] != '-' && !o->spec_path) {
            o->spec_path = a;
            continue;
        } else {
            return -1;
        }
        i++;
    }
    return 0;
}

int cli_optimize(int argc, char **argv)
{
    static optimize o;
    memset(&o, 0, sizeof o);
    o.method = "cmaes";
    o.evaluations = 200;
    o.seed = 1;
    o.jobs = 1;
    if (parse_args(&o, argc, argv) != 0) {
        usage();
        return EXIT_USAGE;
    }
    if (!o.spec_path || !o.n || !o.expr) {
        fprintf(stderr, "rodd optimize: %s\n", !o.spec_path ? "missing SPEC.json"
                : !o.n ? "at least one --vary PATH=LO:HI" : "missing --minimize EXPR or --maximize EXPR");
        usage();
        return EXIT_USAGE;
    }
    int gradient = 0;
    if (strcmp(o.method, "cmaes") != 0 && !optim_nlopt_known(o.method, &gradient)) {
        fprintf(stderr, "rodd optimize: unknown --method %s (known: cmaes, %s)\n", o.method, optim_nlopt_names());
        return EXIT_USAGE;
    }
    if (o.until > 0 && o.from >= o.until) {
        fprintf(stderr, "rodd optimize: --from must be below --until\n");
        return EXIT_USAGE;
    }
    if (!(o.until > 0) && o.from > 0) {
        fprintf(stderr, "rodd optimize: --from needs --until (a dynamics run)\n");
        return EXIT_USAGE;
    }
    const char *paths[MAX_VARY];
    for (int i = 0; i < o.n; i++) paths[i] = o.v[i].paths[0];
    o.obj = calloc((size_t)o.jobs, sizeof *o.obj);
    if (!o.obj) return EXIT_FAILURE_OTHER;
    int rc = EXIT_OK;
    for (int t = 0; t < o.jobs && rc == EXIT_OK; t++) {
        char err[600];
        o.obj[t] = optim_objective_create(o.expr, paths, o.n, err, sizeof err);
        if (!o.obj[t]) {
            fprintf(stderr, "rodd optimize: %s: %s\n", o.sign > 0 ? "--minimize" : "--maximize", err);
            rc = EXIT_USAGE;
        }
    }
    if (rc == EXIT_OK && !(o.until > 0))
        for (int q = Q_COM_VX; q <= Q_COM_VZ; q++)
            if (optim_objective_uses(o.obj[0], q)) {
                fprintf(stderr, "rodd optimize: %s is a velocity over the run: it needs --until\n",
                        optim_quantity_names[q]);
                rc = EXIT_USAGE;
                break;
            }
    if (rc == EXIT_OK) rc = check_paths(&o);
    if (rc == EXIT_OK) rc = check_corners(&o);
    if (rc == EXIT_OK && open_out(&o) != 0) rc = EXIT_FAILURE_OTHER;
    if (rc != EXIT_OK) goto done;
    o.tty = isatty(STDERR_FILENO);
    o.t0 = cli_now();
    double u0[MAX_VARY], lb[MAX_VARY], ub[MAX_VARY];
    for (int i = 0; i < o.n; i++) u0[i] = 0.5, lb[i] = 0, ub[i] = 1;
    optim_result r;
    int orc;
    char err[300] = "";
    if (strcmp(o.method, "cmaes") == 0) {
        /* sigma0 0.3 of the box: Hansen's advice, the optimum within x0 +- 3 sigma0 */
        cmaes_problem p = {.n = o.n, .x0 = u0, .sigma0 = 0.3, .seed = o.seed, .restarts = o.restarts,
                           .max_evals = o.evaluations, .ftarget = -HUGE_VAL, .tolfun = 1e-12, .tolx = 1e-9,
                           .eval = batch, .progress = progress, .ctx = &o};
        orc = cmaes_minimize(&p, &r);
        if (orc != 0) snprintf(err, sizeof err, "out of memory");
    } else {
        nlopt_problem p = {.method = o.method, .n = o.n, .x0 = u0, .lb = lb, .ub = ub, .max_evals = o.evaluations,
                           .ftarget = -HUGE_VAL, .xtol_rel = 1e-9, .eval = batch, .progress = progress, .ctx = &o};
        orc = optim_nlopt_minimize(&p, &r, err, sizeof err);
    }
    if (o.tty) fputc('\n', stderr);
    if (orc != 0) {
        fprintf(stderr, "rodd optimize: %s\n", err);
        rc = EXIT_FAILURE_OTHER;
        goto done;
    }
    double x[MAX_VARY];
    physical(&o, r.x, x);
    cJSON *out = cJSON_CreateObject();
    cJSON_AddItemToObject(out, "best", best_object(&o, x));
    if (isfinite(r.f)) cJSON_AddNumberToObject(out, "objective", o.sign * r.f);
    else cJSON_AddNullToObject(out, "objective");
    cJSON_AddNumberToObject(out, "evaluations", (double)r.evaluations);
    cJSON_AddNumberToObject(out, "failed", o.failures);
    cJSON_AddBoolToObject(out, "converged", r.converged);
    cJSON_AddStringToObject(out, "reason", r.reason);
    cJSON_AddStringToObject(out, "method", o.method);
    cJSON_AddNumberToObject(out, "wall_s", round((cli_now() - o.t0) * 1000) / 1000);
    char *text = cJSON_PrintUnformatted(out);
    puts(text);
    free(text);
    cJSON_Delete(out);
    write_state(&o, r.generations, r.evaluations, r.x, r.f, 0, r.reason);
    if (o.gens) {
        fclose(o.gens);
        o.gens = NULL;
        char in[1200], svg[1200];
        snprintf(in, sizeof in, "%s/generations.csv", o.out_dir);
        snprintf(svg, sizeof svg, "%s/objective.svg", o.out_dir);
        if (optim_plot_svg(in, svg, o.expr, o.sign < 0) != 0)
            fprintf(stderr, "rodd optimize: cannot write %s\n", svg);
    }
    free(r.x);
    if (!isfinite(r.f)) rc = EXIT_FAILURE_OTHER; /* every evaluation failed */
done:
    if (o.csv) fclose(o.csv);
    if (o.gens) fclose(o.gens);
    for (long i = 0; i < o.nreplay; i++) free(o.replay[i]);
    free(o.replay);
    for (int t = 0; t < o.jobs; t++) optim_objective_free(o.obj[t]);
    free(o.obj);
    return rc;
}
