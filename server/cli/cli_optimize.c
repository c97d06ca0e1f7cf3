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
#include "optim_gradient.h"
#include "optim_http.h"
#include "optim_nlopt.h"
#include "optim_objective.h"
#include "optim_plot.h"
#include "optim_problem.h"
#include "optim_remote.h"
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

#define OPTIM_MAX_DAEMONS 32
#define OPTIM_MAX_THREADS (64 * OPTIM_MAX_DAEMONS)

typedef struct {
    double value;  /* the user's objective (NaN when failed) */
    int status;
    char message[200];
} outcome;

typedef struct {
    optim_problem pb;
    const char *expr;
    double sign;         /* +1 minimize, -1 maximize */
    const char *method;
    long evaluations;
    uint64_t seed;
    int restarts;
    int jobs;
    const char *out_dir;
    const char *daemons[OPTIM_MAX_DAEMONS]; /* --daemon URL: evaluations there, not here */
    int ndaemons;
    const char *token;   /* RODD_TOKEN, the daemons' bearer token */
    const char *open_url; /* --open URL: the best as a session there */
    double fd_step;      /* --fd-step H, relative to each parameter's range; 0: NLopt's wrapper's 1e-6 */
    const char *gradient; /* --gradient implicit|fd (NULL: implicit for statics in-process, else fd) */
    int nthreads;        /* jobs, or jobs per daemon times the daemons */
    optim_http_conn **conns; /* with --daemon: thread t's kept-alive connection to daemon t mod n */
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
    int have_gradient;   /* a gradient method's last gradient (unit box) and its point */
    double grad_u[OPTIM_MAX_VARY], grad_at[OPTIM_MAX_VARY];
    int tty;
    double t0;
} optimize;

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
        double x[OPTIM_MAX_VARY], q[Q_MAX];
        optim_problem_physical(&o->pb, o->U + (size_t)j * o->pb.n, x);
        outcome *r = &o->res[j];
        r->message[0] = '\0';
        /* thread t works for daemon t mod n: --jobs requests in flight on each */
        r->status = o->ndaemons ? optim_remote_run(&o->pb, o->conns[w->thread], o->token, x, q, r->message,
                                                   sizeof r->message)
                                : optim_problem_run(&o->pb, x, q, r->message, sizeof r->message);
        r->value = r->status == OPTIM_OK ? optim_objective_eval(o->obj[w->thread], q, x) : NAN;
        if (r->status == OPTIM_OK && isnan(r->value)) {
            r->status = OPTIM_FAILED;
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
    for (int i = 0; i < o->pb.n && at < len; i++) at += (size_t)snprintf(b + at, len - at, ",%.17g", x[i]);
}

static void log_row(optimize *o, long index, const double *x, const outcome *r)
{
    if (!o->csv) return;
    char p[OPTIM_MAX_VARY * 32];
    csv_params(o, x, p, sizeof p);
    fprintf(o->csv, "%ld,%d,%s,%.17g%s,\"", index, o->generation, optim_status_names[r->status], r->value, p);
    for (const char *c = r->message; *c; c++) fputc(*c == '"' ? '\'' : *c == '\n' ? ' ' : *c, o->csv);
    fputs("\"\n", o->csv);
}

/* A logged row of the same index and parameters: its outcome, 1; else 0. */
static int replayed(const optimize *o, long index, const double *x, outcome *r)
{
    if (index >= o->nreplay) return 0;
    char p[OPTIM_MAX_VARY * 32], head[64];
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
    r->status = OPTIM_FAILED;
    for (int s = 0; s < 4; s++)
        if (strcmp(st, optim_status_names[s]) == 0) r->status = s;
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
    double *Ut = malloc(sizeof(double) * k * o->pb.n);
    if (!todo || !Ut) {
        free(res), free(todo), free(Ut);
        return 1;
    }
    for (int j = 0; j < k; j++) {
        double x[OPTIM_MAX_VARY];
        optim_problem_physical(&o->pb, U + (size_t)j * o->pb.n, x);
        if (!replayed(o, o->done + j, x, &res[j])) {
            if (o->done + j < o->nreplay) { /* another command's log: replaying it would lie */
                fprintf(stderr, "rodd optimize: evaluation %ld in %s/evaluations.csv is not this command's "
                        "(another --vary, --set, --method or --seed?): use another --out\n",
                        o->done + j, o->out_dir);
                free(res), free(todo), free(Ut);
                return 1;
            }
            memcpy(Ut + (size_t)ntodo * o->pb.n, U + (size_t)j * o->pb.n, sizeof(double) * o->pb.n);
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
        int nt = o->nthreads < ntodo ? o->nthreads : ntodo;
        pthread_t th[OPTIM_MAX_THREADS];
        worker_arg wa[OPTIM_MAX_THREADS];
        for (int t = 0; t < nt; t++) {
            wa[t] = (worker_arg){o, t};
            pthread_create(&th[t], NULL, worker, &wa[t]);
        }
        for (int t = 0; t < nt; t++) pthread_join(th[t], NULL);
        for (int j = 0; j < ntodo; j++) res[todo[j]] = fresh[j];
        free(fresh);
    }
    for (int j = 0; j < k; j++) {
        double x[OPTIM_MAX_VARY];
        optim_problem_physical(&o->pb, U + (size_t)j * o->pb.n, x);
        long index = o->done + j;
        if (index >= o->nreplay) log_row(o, index, x, &res[j]);
        if (res[j].status != OPTIM_OK) {
            o->failures++;
            if (index >= o->nreplay)
                fprintf(stderr, "%srodd optimize: evaluation %ld %s: %s\n", o->tty ? "\n" : "", index,
                        optim_status_names[res[j].status], res[j].message);
        }
        F[j] = res[j].status == OPTIM_OK ? o->sign * res[j].value : HUGE_VAL;
    }
    if (o->csv) fflush(o->csv);
    o->done += k;
    free(res), free(todo), free(Ut);
    return 0;
}

/* --gradient implicit: one statics run at u with the objective's gradient (optim_gradient.h),
 * logged as one evaluation. A resumed run checks a logged row as batch does but runs it again:
 * the log keeps no gradients. */
static int point_gradient(void *ctx, const double *u, double *f, double *g)
{
    optimize *o = ctx;
    o->generation++;
    double x[OPTIM_MAX_VARY], gx[OPTIM_MAX_VARY], q[Q_MAX];
    optim_problem_physical(&o->pb, u, x);
    long index = o->done;
    outcome r = {0};
    if (index < o->nreplay && !replayed(o, index, x, &r)) {
        fprintf(stderr, "rodd optimize: evaluation %ld in %s/evaluations.csv is not this command's "
                "(another --vary, --set, --method, --gradient or --seed?): use another --out\n", index, o->out_dir);
        return 1;
    }
    r.message[0] = '\0';
    r.status = optim_problem_run_gradient(&o->pb, o->obj[0], x, &r.value, gx, q, r.message, sizeof r.message);
    if (r.status != OPTIM_OK) r.value = NAN;
    if (index >= o->nreplay) log_row(o, index, x, &r);
    if (r.status != OPTIM_OK) {
        o->failures++;
        if (index >= o->nreplay)
            fprintf(stderr, "%srodd optimize: evaluation %ld %s: %s\n", o->tty ? "\n" : "", index,
                    optim_status_names[r.status], r.message);
    }
    /* the optimizer's unit box: x = LO + u (HI - LO) inside it (NLopt keeps u in [0, 1]) */
    *f = r.status == OPTIM_OK ? o->sign * r.value : HUGE_VAL;
    for (int i = 0; i < o->pb.n; i++) g[i] = o->sign * gx[i] * (o->pb.v[i].hi - o->pb.v[i].lo);
    if (o->csv) fflush(o->csv);
    o->done++;
    return 0;
}

static void write_state(const optimize *o, int generations, long evaluations, const double *u, double f,
                        double sigma, const char *reason);

static void progress(void *ctx, const optim_progress *p)
{
    optimize *o = ctx;
    double best = o->sign * p->best, gbest = o->sign * p->gen_best, mean = o->sign * p->gen_mean;
    o->best_user = best;
    if (p->gradient) {
        o->have_gradient = 1;
        memcpy(o->grad_u, p->gradient, sizeof(double) * o->pb.n);
        memcpy(o->grad_at, p->x, sizeof(double) * o->pb.n);
    }
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
                    "                     [--restarts N] [--jobs J] [--daemon URL]... [--open URL]\n"
                    "                     [--gradient implicit|fd] [--fd-step H]\n"
                    "                     [--out DIR] [--set PATH=VALUE]...\n");
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
        for (int i = 0; i < o->pb.n; i++) fprintf(o->csv, ",%s", o->pb.v[i].paths[0]);
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
    for (int i = 0; i < o->pb.n; i++) cJSON_AddNumberToObject(b, o->pb.v[i].paths[0], x[i]);
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
    double x[OPTIM_MAX_VARY];
    optim_problem_physical(&o->pb, u, x);
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "method", o->method);
    cJSON_AddNumberToObject(s, "seed", (double)o->seed);
    cJSON_AddNumberToObject(s, "generations", generations);
    cJSON_AddNumberToObject(s, "evaluations", (double)evaluations);
    cJSON_AddItemToObject(s, "best", best_object(o, x));
    if (isfinite(f)) cJSON_AddNumberToObject(s, "objective", o->sign * f);
    else cJSON_AddNullToObject(s, "objective");
    if (sigma > 0) cJSON_AddNumberToObject(s, "sigma", sigma);
    if (o->have_gradient) { /* the user's objective's derivative by each parameter, physical units */
        double xg[OPTIM_MAX_VARY];
        optim_problem_physical(&o->pb, o->grad_at, xg);
        cJSON_AddItemToObject(s, "gradient_at", best_object(o, xg));
        for (int i = 0; i < o->pb.n; i++) xg[i] = o->sign * o->grad_u[i] / (o->pb.v[i].hi - o->pb.v[i].lo);
        cJSON_AddItemToObject(s, "gradient", best_object(o, xg));
    }
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

/* The spec at the best parameters: DIR/best.json (--out), and a session of it on the daemon
 * --open names (its URL in the output's "session"). 0, or -1 with the reason on stderr. */
static int best_spec(const optimize *o, const double *x, cJSON *out)
{
    rod_issues iss;
    rod_issues_init(&iss);
    rod_model *m = optim_problem_load(&o->pb, x, &iss);
    rod_issues_free(&iss);
    if (!m) {
        fprintf(stderr, "rodd optimize: the best parameters no longer give a valid spec\n");
        return -1;
    }
    int rc = 0;
    if (o->out_dir) {
        char path[1200];
        snprintf(path, sizeof path, "%s/best.json", o->out_dir);
        cJSON *j = cJSON_Parse(rod_model_spec_json(m));
        char *t = j ? cJSON_Print(j) : NULL;
        FILE *fp = t ? fopen(path, "w") : NULL;
        if (!fp || fprintf(fp, "%s\n", t) < 0 || fclose(fp) != 0) {
            fprintf(stderr, "rodd optimize: cannot write %s\n", path);
            rc = -1;
        }
        free(t);
        cJSON_Delete(j);
    }
    if (o->open_url) {
        char id[128], err[600];
        if (optim_remote_open(o->open_url, o->token, rod_model_spec_json(m), "rodd optimize: best", id, sizeof id, err,
                              sizeof err) != 0) {
            fprintf(stderr, "rodd optimize: --open %s: %s\n", o->open_url, err);
            rc = -1;
        } else {
            char url[1400];
            int l = (int)strlen(o->open_url);
            while (l > 0 && o->open_url[l - 1] == '/') l--;
            snprintf(url, sizeof url, "%.*s/v1/sessions/%s", l, o->open_url, id);
            cJSON_AddStringToObject(out, "session", url);
        }
    }
    rod_model_free(m);
    return rc;
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
            if (optim_problem_add_vary(&o->pb, v) != 0) return -1;
        } else if (strcmp(a, "--set") == 0) {
            if (o->pb.nsets == 64) return -1;
            o->pb.sets[o->pb.nsets++] = v;
        } else if (strcmp(a, "--minimize") == 0 || strcmp(a, "--maximize") == 0) {
            if (o->expr) {
                fprintf(stderr, "rodd optimize: one --minimize or --maximize\n");
                return -1;
            }
            o->expr = v;
            o->sign = a[3] == 'i' ? 1 : -1;
        } else if (strcmp(a, "--until") == 0) {
            o->pb.until = strtod(v, &end);
            if (*end || !(o->pb.until > 0)) {
                fprintf(stderr, "rodd optimize: --until must be a number > 0\n");
                return -1;
            }
        } else if (strcmp(a, "--from") == 0) {
            o->pb.from = strtod(v, &end);
            if (*end || !(o->pb.from >= 0)) {
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
        } else if (strcmp(a, "--daemon") == 0 || strcmp(a, "--open") == 0) {
            char err[300];
            if (optim_http_check_url(v, err, sizeof err) != 0) {
                fprintf(stderr, "rodd optimize: %s %s\n", a, err);
                return -1;
            }
            if (a[2] == 'o') {
                o->open_url = v;
            } else if (o->ndaemons == OPTIM_MAX_DAEMONS) {
                fprintf(stderr, "rodd optimize: at most %d --daemon\n", OPTIM_MAX_DAEMONS);
                return -1;
            } else {
                o->daemons[o->ndaemons++] = v;
            }
        } else if (strcmp(a, "--gradient") == 0) {
            if (strcmp(v, "implicit") != 0 && strcmp(v, "fd") != 0) {
                fprintf(stderr, "rodd optimize: --gradient must be implicit or fd, got \"%s\"\n", v);
                return -1;
            }
            o->gradient = v;
        } else if (strcmp(a, "--fd-step") == 0) {
            o->fd_step = strtod(v, &end);
            if (*end || !(o->fd_step > 0 && o->fd_step <= 0.5)) {
                fprintf(stderr, "rodd optimize: --fd-step must be a number in (0, 0.5] (a fraction of each range)\n");
                return -1;
            }
        } else if (a[0] != '-' && !o->pb.spec_path) {
            o->pb.spec_path = a;
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
    if (!o.pb.spec_path || !o.pb.n || !o.expr) {
        fprintf(stderr, "rodd optimize: %s\n", !o.pb.spec_path ? "missing SPEC.json"
                : !o.pb.n ? "at least one --vary PATH=LO:HI" : "missing --minimize EXPR or --maximize EXPR");
        usage();
        return EXIT_USAGE;
    }
    int gradient = 0;
    if (strcmp(o.method, "cmaes") != 0 && !optim_nlopt_known(o.method, &gradient)) {
        fprintf(stderr, "rodd optimize: unknown --method %s (known: cmaes, %s)\n", o.method, optim_nlopt_names());
        return EXIT_USAGE;
    }
    if (o.pb.until > 0 && o.pb.from >= o.pb.until) {
        fprintf(stderr, "rodd optimize: --from must be below --until\n");
        return EXIT_USAGE;
    }
    if (!(o.pb.until > 0) && o.pb.from > 0) {
        fprintf(stderr, "rodd optimize: --from needs --until (a dynamics run)\n");
        return EXIT_USAGE;
    }
    if (o.fd_step > 0 && !gradient) {
        fprintf(stderr, "rodd optimize: --fd-step is for the gradient methods (lbfgs, slsqp, mma), not %s\n", o.method);
        return EXIT_USAGE;
    }
    if (o.gradient && !gradient) {
        fprintf(stderr, "rodd optimize: --gradient is for the gradient methods (lbfgs, slsqp, mma), not %s\n", o.method);
        return EXIT_USAGE;
    }
    if (o.gradient && strcmp(o.gradient, "implicit") == 0) {
        const char *why = o.pb.until > 0 ? "a dynamics run (--until) has no implicit gradient: use --gradient fd"
                          : o.ndaemons ? "the daemons (--daemon) return no gradients: use --gradient fd"
                          : o.fd_step > 0 ? "--fd-step sets the step of --gradient fd" : NULL;
        if (why) {
            fprintf(stderr, "rodd optimize: --gradient implicit: %s\n", why);
            return EXIT_USAGE;
        }
    }
    const int gradient_asked = o.gradient != NULL;
    if (gradient && !o.gradient) /* exact where there is a route to it */
        o.gradient = !(o.pb.until > 0) && !o.ndaemons && !(o.fd_step > 0) ? "implicit" : "fd";
    if (gradient && strcmp(o.gradient, "fd") == 0 && o.evaluations > 0 && o.evaluations < 1 + 2L * o.pb.n) {
        fprintf(stderr, "rodd optimize: --evaluations %ld is fewer than the %d runs of one finite-difference gradient "
                "(2n + 1 for n = %d) that %s takes at its first point\n", (long)o.evaluations, 1 + 2 * o.pb.n, o.pb.n, o.method);
        return EXIT_USAGE;
    }
    o.token = getenv("RODD_TOKEN");
    if (o.token && !o.token[0]) o.token = NULL;
    o.nthreads = o.ndaemons ? o.jobs * o.ndaemons : o.jobs;
    const char *paths[OPTIM_MAX_VARY];
    for (int i = 0; i < o.pb.n; i++) paths[i] = o.pb.v[i].paths[0];
    o.obj = calloc((size_t)o.nthreads, sizeof *o.obj);
    if (!o.obj) return EXIT_FAILURE_OTHER;
    int rc = optim_problem_check_paths(&o.pb); /* first: it names the rods the objective may read */
    if (rc == EXIT_OK && o.pb.nrods && o.gradient && strcmp(o.gradient, "implicit") == 0) {
        if (gradient_asked) { /* the equilibrium's tangent is one rod's (rod_statics_tangent) */
            fprintf(stderr, "rodd optimize: --gradient implicit: a model of several rods has none yet: use --gradient fd\n");
            rc = EXIT_USAGE;
        } else
            o.gradient = "fd";
    }
    for (int t = 0; t < o.nthreads && rc == EXIT_OK; t++) {
        char err[600];
        o.obj[t] = optim_objective_create(o.expr, paths, o.pb.n, o.pb.rods, o.pb.nrods, err, sizeof err);
        if (!o.obj[t]) {
            fprintf(stderr, "rodd optimize: %s: %s\n", o.sign > 0 ? "--minimize" : "--maximize", err);
            rc = EXIT_USAGE;
        }
    }
    if (rc == EXIT_OK && !(o.pb.until > 0)) /* com_v*, and each rod's ROD.com_v* */
        for (int r = -1; r < o.pb.nrods && rc == EXIT_OK; r++)
            for (int q = Q_COM_VX; q <= Q_COM_VZ; q++)
                if (optim_objective_uses(o.obj[0], r < 0 ? q : Q_COUNT + Q_ROD_COUNT * r + q)) {
                    fprintf(stderr, "rodd optimize: %s%s%s is a velocity over the run: it needs --until\n",
                            r < 0 ? "" : o.pb.rods[r], r < 0 ? "" : ".", optim_quantity_names[q]);
                    rc = EXIT_USAGE;
                    break;
                }
    if (rc == EXIT_OK) rc = optim_problem_check_corners(&o.pb);
    for (int d = 0; d < o.ndaemons && rc == EXIT_OK; d++) { /* before the first generation */
        char err[600];
        if (optim_remote_ready(o.daemons[d], o.token, err, sizeof err) != 0) {
            fprintf(stderr, "rodd optimize: --daemon %s is not ready: %s\n", o.daemons[d], err);
            rc = EXIT_FAILURE_OTHER;
        }
    }
    if (rc == EXIT_OK && o.ndaemons) { /* one connection per thread, kept across its evaluations */
        o.conns = calloc((size_t)o.nthreads, sizeof *o.conns);
        for (int t = 0; t < o.nthreads && rc == EXIT_OK; t++) {
            char err[300];
            if (!o.conns || !(o.conns[t] = optim_http_conn_new(o.daemons[t % o.ndaemons], err, sizeof err))) {
                fprintf(stderr, "rodd optimize: %s\n", o.conns ? err : "out of memory");
                rc = EXIT_FAILURE_OTHER;
            }
        }
    }
    if (rc == EXIT_OK && open_out(&o) != 0) rc = EXIT_FAILURE_OTHER;
    if (rc != EXIT_OK) goto done;
    o.tty = isatty(STDERR_FILENO);
    o.t0 = cli_now();
    double u0[OPTIM_MAX_VARY], lb[OPTIM_MAX_VARY], ub[OPTIM_MAX_VARY];
    for (int i = 0; i < o.pb.n; i++) u0[i] = 0.5, lb[i] = 0, ub[i] = 1;
    optim_result r;
    int orc;
    char err[300] = "";
    if (strcmp(o.method, "cmaes") == 0) {
        /* sigma0 0.3 of the box: Hansen's advice, the optimum within x0 +- 3 sigma0 */
        cmaes_problem p = {.n = o.pb.n, .x0 = u0, .sigma0 = 0.3, .seed = o.seed, .restarts = o.restarts,
                           .max_evals = o.evaluations, .ftarget = -HUGE_VAL, .tolfun = 1e-12, .tolx = 1e-9,
                           .eval = batch, .progress = progress, .ctx = &o};
        orc = cmaes_minimize(&p, &r);
        if (orc != 0) snprintf(err, sizeof err, "out of memory");
    } else {
        nlopt_problem p = {.method = o.method, .n = o.pb.n, .x0 = u0, .lb = lb, .ub = ub, .max_evals = o.evaluations,
                           .ftarget = -HUGE_VAL, .xtol_rel = 1e-9, .fd_step = o.fd_step, .seed = (unsigned long)o.seed, .eval = batch, .progress = progress, .ctx = &o,
                           .grad = gradient && strcmp(o.gradient, "implicit") == 0 ? point_gradient : NULL};
        orc = optim_nlopt_minimize(&p, &r, err, sizeof err);
    }
    if (o.tty) fputc('\n', stderr);
    if (orc != 0) {
        fprintf(stderr, "rodd optimize: %s\n", err);
        rc = EXIT_FAILURE_OTHER;
        goto done;
    }
    double x[OPTIM_MAX_VARY];
    optim_problem_physical(&o.pb, r.x, x);
    cJSON *out = cJSON_CreateObject();
    cJSON_AddItemToObject(out, "best", best_object(&o, x));
    if (isfinite(r.f)) cJSON_AddNumberToObject(out, "objective", o.sign * r.f);
    else cJSON_AddNullToObject(out, "objective");
    cJSON_AddNumberToObject(out, "evaluations", (double)r.evaluations);
    cJSON_AddNumberToObject(out, "failed", o.failures);
    cJSON_AddBoolToObject(out, "converged", r.converged);
    cJSON_AddStringToObject(out, "reason", r.reason);
    cJSON_AddStringToObject(out, "method", o.method);
    if (o.gradient) cJSON_AddStringToObject(out, "gradient", o.gradient);
    if (o.ndaemons) { /* the evaluations' connections to the daemons: one per thread while they stay open */
        long opened = 0;
        for (int t = 0; t < o.nthreads; t++) opened += optim_http_conn_opened(o.conns[t]);
        cJSON_AddNumberToObject(out, "connections", (double)opened);
    }
    if (isfinite(r.f) && (o.out_dir || o.open_url) && best_spec(&o, x, out) != 0) rc = EXIT_FAILURE_OTHER;
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
    if (!isfinite(r.f) || strcmp(r.reason, "interrupted") == 0) rc = EXIT_FAILURE_OTHER; /* all failed, or stopped */
done:
    if (o.csv) fclose(o.csv);
    if (o.gens) fclose(o.gens);
    for (long i = 0; i < o.nreplay; i++) free(o.replay[i]);
    free(o.replay);
    for (int t = 0; t < o.nthreads; t++) optim_objective_free(o.obj[t]);
    if (o.conns)
        for (int t = 0; t < o.nthreads; t++) optim_http_conn_free(o.conns[t]);
    free(o.conns);
    free(o.obj);
    return rc;
}
