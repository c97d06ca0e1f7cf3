/* rodd sweep: a parameter grid over a spec. Every point is one `--set` combination, run as
 * statics (or dynamics to --until) and written to DIR/point-NNNNN.json; --index runs one
 * point (one task of a Slurm job array or a Kubernetes Indexed Job), without it the whole
 * grid runs on all cores; --collect gathers a directory into one CSV. */
#include "cli.h"
#include "numtext.h"
#include "rod.h"
#include "frame_codec.h"
#include "textfile.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_GRIDS 16
#define MAX_VALUES 4096

typedef struct {
    char path[256];
    int n;
    char *values[MAX_VALUES]; /* JSON texts, as --set takes them */
} grid_axis;

typedef struct {
    const char *spec_path;
    grid_axis axes[MAX_GRIDS];
    int naxes;
    const char *sets[64];
    int nsets;
    double until;
    int points;
    const char *out_dir;
    char default_out[512]; /* out_dir when --out is not given: sweep-SPECNAME */
    long index;
    int list;
    int jobs;
    long total;
    atomic_long next;
    atomic_int failures;
} sweep;

static const char *const metric_names[] = {"converged", "iterations", "residual", "t", "tip_x", "tip_y", "tip_z",
                                           "elastic_energy", "gravity_energy", "kinetic_energy", "volume_change",
                                           "steps", "rhs_evals"};
#define NMETRICS (sizeof metric_names / sizeof *metric_names)

static int parse_grid(sweep *sw, const char *arg)
{
    if (sw->naxes == MAX_GRIDS) {
        fprintf(stderr, "rodd sweep: at most %d --grid axes\n", MAX_GRIDS);
        return -1;
    }
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1] || (size_t)(eq - arg) >= sizeof sw->axes[0].path) {
        fprintf(stderr, "rodd sweep: --grid takes PATH=V1,V2,...\n");
        return -1;
    }
    grid_axis *a = &sw->axes[sw->naxes++];
    memcpy(a->path, arg, (size_t)(eq - arg));
    a->path[eq - arg] = '\0';
    char *list = strdup(eq + 1), *save = NULL;
    for (char *v = strtok_r(list, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
        if (a->n == MAX_VALUES) {
            fprintf(stderr, "rodd sweep: at most %d values per axis\n", MAX_VALUES);
            free(list);
            return -1;
        }
        a->values[a->n++] = strdup(v);
    }
    free(list);
    if (!a->n) {
        fprintf(stderr, "rodd sweep: --grid %s has no values\n", a->path);
        return -1;
    }
    return 0;
}

/* point index -> one value per axis, the last axis varying fastest */
static void point_values(const sweep *sw, long index, int *which)
{
    for (int k = sw->naxes - 1; k >= 0; k--) {
        which[k] = (int)(index % sw->axes[k].n);
        index /= sw->axes[k].n;
    }
}

static cJSON *point_set(const sweep *sw, const int *which)
{
    cJSON *set = cJSON_CreateObject();
    for (int k = 0; k < sw->naxes; k++) {
        cJSON *v = cJSON_Parse(sw->axes[k].values[which[k]]);
        cJSON_AddItemToObject(set, sw->axes[k].path, v ? v : cJSON_CreateString(sw->axes[k].values[which[k]]));
    }
    return set;
}

/* A number as the CSV and the point files write it: an integer as one (150, 11886, where the
 * shortest %g text would be 1.5e+02), any other in the shortest digits that read back exactly.
 * b holds at least 32 bytes. */
static void number_text(char *b, double v)
{
    if (isfinite(v) && v == floor(v) && fabs(v) < 1e16)
        snprintf(b, 32, "%.0f", v);
    else
        num_shortest(b, v);
}

static cJSON *raw_number(double v)
{
    char b[32];
    if (!isfinite(v)) return cJSON_CreateNull();
    number_text(b, v);
    return cJSON_CreateRaw(b);
}

/* Runs one point; the result object is deterministic (no wall times). */
static cJSON *run_point(const sweep *sw, long index)
{
    int which[MAX_GRIDS];
    point_values(sw, index, which);
    const char *ov[64 + MAX_GRIDS];
    char assign[MAX_GRIDS][512];
    int n = 0;
    for (int i = 0; i < sw->nsets; i++) ov[n++] = sw->sets[i];
    for (int k = 0; k < sw->naxes; k++) {
        snprintf(assign[k], sizeof assign[k], "%s=%s", sw->axes[k].path, sw->axes[k].values[which[k]]);
        ov[n++] = assign[k];
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "index", (double)index);
    cJSON_AddItemToObject(o, "set", point_set(sw, which));
    rod_issues iss;
    rod_issues_init(&iss);
    rod_model *m = rod_model_load(sw->spec_path, ov, n, &iss);
    if (!m) {
        char msg[2048];
        rod_issues_format(&iss, msg, sizeof msg);
        rod_issues_free(&iss);
        cJSON_AddStringToObject(o, "status", "bad_spec");
        cJSON_AddStringToObject(o, "message", msg);
        return o;
    }
    rod_issues_free(&iss);
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    if (!st) {
        cJSON_AddStringToObject(o, "status", "failed");
        cJSON_AddStringToObject(o, "message", err);
        rod_model_free(m);
        return o;
    }
    double metric[NMETRICS];
    for (size_t i = 0; i < NMETRICS; i++) metric[i] = NAN;
    const char *status = "ok";
    int rc;
    if (sw->until > 0) {
        rc = rod_dynamics_start(m, st);
        if (rc == ROD_OK) rc = rod_dynamics_advance(m, st, sw->until);
        rod_dynamics_stats ds;
        if (rod_dynamics_get_stats(st, &ds) == ROD_OK) {
            metric[11] = (double)ds.steps;
            metric[12] = (double)(ds.rhs_evals + ds.rhs_evals_jacobian);
        }
        if (rc == ROD_ENOCONV) status = "no_convergence";
        else if (rc != ROD_OK) status = "failed";
    } else {
        rod_statics_result res;
        rc = rod_statics_solve(m, st, 0.0, &res);
        metric[0] = res.converged;
        metric[1] = res.iterations;
        metric[2] = res.residual;
        if (rc == ROD_ENOCONV) status = "no_convergence";
        else if (rc != ROD_OK) status = "failed";
    }
    rod_frame f;
    if (rod_frame_compute(m, st, sw->points, &f) == ROD_OK) {
        metric[3] = f.t;
        /* several rods: the first rod's tip (each rod's is in the point's frame), as rodd
         * optimize's tip_x means */
        const rod_frame *first = f.nrods ? &f.rods[0] : &f;
        for (int a = 0; a < 3 && first->n > 0; a++) metric[4 + a] = first->position[3 * (first->n - 1) + a];
        metric[7] = f.e_elastic;
        metric[8] = f.e_gravity;
        metric[9] = f.e_kinetic;
        metric[10] = f.volume_change;
        cJSON_AddItemToObject(o, "frame", frame_codec_cjson(&f));
        rod_frame_free(&f);
    }
    cJSON_AddStringToObject(o, "status", status);
    if (strcmp(status, "ok") != 0) cJSON_AddStringToObject(o, "message", rod_state_error(st));
    cJSON *mo = cJSON_AddObjectToObject(o, "metrics");
    for (size_t i = 0; i < NMETRICS; i++) cJSON_AddItemToObject(mo, metric_names[i], raw_number(metric[i]));
    rod_state_free(st);
    rod_model_free(m);
    return o;
}

static int write_point(const sweep *sw, long index, cJSON *o)
{
    char path[1200], tmp[1300];
    snprintf(path, sizeof path, "%s/point-%05ld.json", sw->out_dir, index);
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    char *text = cJSON_PrintUnformatted(o);
    FILE *f = text ? fopen(tmp, "w") : NULL;
    int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f) ok &= fclose(f) == 0;
    free(text);
    if (!ok || rename(tmp, path) != 0) {
        fprintf(stderr, "rodd sweep: cannot write %s: %s\n", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

static void *worker(void *arg)
{
    sweep *sw = arg;
    for (;;) {
        long i = atomic_fetch_add(&sw->next, 1);
        if (i >= sw->total) break;
        cJSON *o = run_point(sw, i);
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "status");
        if (strcmp(st->valuestring, "ok") != 0) atomic_fetch_add(&sw->failures, 1);
        if (write_point(sw, i, o) != 0) atomic_fetch_add(&sw->failures, 1);
        fprintf(stderr, "rodd sweep: point %ld/%ld %s\n", i + 1, sw->total, st->valuestring);
        cJSON_Delete(o);
    }
    return NULL;
}

/* ---- collect ---- */
static int cmp_index(const void *a, const void *b)
{
    const cJSON *x = *(cJSON *const *)a, *y = *(cJSON *const *)b;
    double i = cJSON_GetObjectItemCaseSensitive(x, "index")->valuedouble;
    double j = cJSON_GetObjectItemCaseSensitive(y, "index")->valuedouble;
    return (i > j) - (i < j);
}

static void csv_field(FILE *out, const cJSON *v)
{
    if (!v || cJSON_IsNull(v)) return;
    if (cJSON_IsNumber(v)) {
        char b[32];
        number_text(b, v->valuedouble);
        fputs(b, out);
    } else if (cJSON_IsRaw(v)) {
        fputs(v->valuestring, out);
    } else if (cJSON_IsString(v)) {
        fputc('"', out);
        for (const char *p = v->valuestring; *p; p++) {
            if (*p == '"') fputc('"', out);
            fputc(*p == '\n' ? ' ' : *p, out);
        }
        fputc('"', out);
    } else {
        char *t = cJSON_PrintUnformatted(v);
        cJSON tmp = {0};
        tmp.type = cJSON_String;
        tmp.valuestring = t;
        csv_field(out, &tmp);
        free(t);
    }
}

static int collect(const char *dir, const char *out_path)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "rodd sweep: cannot open %s: %s\n", dir, strerror(errno));
        return EXIT_FAILURE_OTHER;
    }
    int n = 0, cap = 64;
    cJSON **pts = malloc((size_t)cap * sizeof *pts);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (strncmp(e->d_name, "point-", 6) != 0 || l < 11 || strcmp(e->d_name + l - 5, ".json") != 0) continue;
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        char *buf = read_text_file(path, 64u << 20, NULL);
        if (!buf) {
            fprintf(stderr, "rodd sweep: %s: %s\n", path, strerror(errno));
            continue;
        }
        cJSON *o = cJSON_Parse(buf);
        free(buf);
        if (!o || !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "index"))) {
            fprintf(stderr, "rodd sweep: %s is not a sweep point\n", path);
            cJSON_Delete(o);
            continue;
        }
        if (n == cap) {
            cJSON **grown = realloc(pts, (size_t)cap * 2 * sizeof *pts);
            if (!grown) {
                fprintf(stderr, "rodd sweep: out of memory after %d points\n", n);
                cJSON_Delete(o);
                for (int i = 0; i < n; i++) cJSON_Delete(pts[i]);
                free(pts);
                closedir(d);
                return EXIT_FAILURE_OTHER;
            }
            pts = grown;
            cap *= 2;
        }
        pts[n++] = o;
    }
    closedir(d);
    if (!n) {
        fprintf(stderr, "rodd sweep: no point-*.json in %s\n", dir);
        free(pts);
        return EXIT_FAILURE_OTHER;
    }
    qsort(pts, (size_t)n, sizeof *pts, cmp_index);
    FILE *out = out_path ? fopen(out_path, "w") : stdout;
    if (!out) {
        fprintf(stderr, "rodd sweep: cannot write %s: %s\n", out_path, strerror(errno));
        return EXIT_FAILURE_OTHER;
    }
    /* the columns: the first point's grid paths (every point has the same) */
    const cJSON *set0 = cJSON_GetObjectItemCaseSensitive(pts[0], "set");
    char *keys[MAX_GRIDS];
    int nkeys = 0;
    for (const cJSON *k = set0 ? set0->child : NULL; k && nkeys < MAX_GRIDS; k = k->next) keys[nkeys++] = strdup(k->string);
    fputs("index", out);
    for (int k = 0; k < nkeys; k++) fprintf(out, ",%s", keys[k]);
    fputs(",status", out);
    for (size_t i = 0; i < NMETRICS; i++) fprintf(out, ",%s", metric_names[i]);
    fputc('\n', out);
    for (int p = 0; p < n; p++) {
        fprintf(out, "%.0f", cJSON_GetObjectItemCaseSensitive(pts[p], "index")->valuedouble);
        const cJSON *set = cJSON_GetObjectItemCaseSensitive(pts[p], "set");
        for (int k = 0; k < nkeys; k++) {
            fputc(',', out);
            csv_field(out, cJSON_GetObjectItemCaseSensitive(set, keys[k]));
        }
        fputc(',', out);
        csv_field(out, cJSON_GetObjectItemCaseSensitive(pts[p], "status"));
        const cJSON *mo = cJSON_GetObjectItemCaseSensitive(pts[p], "metrics");
        for (size_t i = 0; i < NMETRICS; i++) {
            fputc(',', out);
            csv_field(out, cJSON_GetObjectItemCaseSensitive(mo, metric_names[i]));
        }
        fputc('\n', out);
        cJSON_Delete(pts[p]);
    }
    free(pts);
    for (int k = 0; k < nkeys; k++) free(keys[k]);
    /* a full disk shows only here (stdio buffers): a CSV cut short must not exit 0 */
    int bad = ferror(out) || fflush(out) != 0;
    if (out != stdout) bad |= fclose(out) != 0;
    if (bad) {
        fprintf(stderr, "rodd sweep: cannot write %s: %s\n", out_path ? out_path : "the CSV to stdout", strerror(errno));
        return EXIT_FAILURE_OTHER;
    }
    return EXIT_OK;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: rodd sweep SPEC.json --grid PATH=V1,V2,... [--grid ...] [--set PATH=VALUE]...\n"
            "                  [--until T] [--points N] [--out DIR] [--index I | --list] [--jobs N]\n"
            "       rodd sweep --collect DIR [--out FILE.csv]\n");
}

static void sweep_free(sweep *sw)
{
    if (!sw) return;
    for (int k = 0; k < sw->naxes; k++)
        for (int j = 0; j < sw->axes[k].n; j++) free(sw->axes[k].values[j]);
    free(sw);
}

/* The options into *sw (and --collect's directory, --out's path); -1 to go on, else the exit
 * status. */
static int parse_args(sweep *sw, int argc, char **argv, const char **collect_dir, const char **out)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;
        if (strcmp(a, "--grid") == 0 && v) {
            if (parse_grid(sw, v) != 0) return EXIT_USAGE;
            i++;
        } else if (strcmp(a, "--set") == 0 && v) {
            if (sw->nsets == 64) return EXIT_USAGE;
            sw->sets[sw->nsets++] = v;
            i++;
        } else if (strcmp(a, "--until") == 0 && v) {
            sw->until = strtod(v, &end);
            if (*end || !(sw->until > 0)) {
                fprintf(stderr, "rodd sweep: --until must be > 0\n");
                return EXIT_USAGE;
            }
            i++;
        } else if (strcmp(a, "--points") == 0 && v) {
            sw->points = (int)strtol(v, &end, 10);
            if (*end || sw->points < 2) return EXIT_USAGE;
            i++;
        } else if (strcmp(a, "--out") == 0 && v) {
            *out = v;
            i++;
        } else if (strcmp(a, "--index") == 0 && v) {
            sw->index = strtol(v, &end, 10);
            if (*end || sw->index < 0) {
                fprintf(stderr, "rodd sweep: --index must be an integer >= 0\n");
                return EXIT_USAGE;
            }
            i++;
        } else if (strcmp(a, "--jobs") == 0 && v) {
            sw->jobs = (int)strtol(v, &end, 10);
            if (*end || sw->jobs < 1) return EXIT_USAGE;
            i++;
        } else if (strcmp(a, "--list") == 0) {
            sw->list = 1;
        } else if (strcmp(a, "--collect") == 0 && v) {
            *collect_dir = v;
            i++;
        } else if (a[0] != '-' && !sw->spec_path) {
            sw->spec_path = a;
        } else {
            usage();
            return EXIT_USAGE;
        }
    }
    return -1;
}

/* --list: each point's index and overrides, one JSON object a line */
static int list_points(const sweep *sw)
{
    for (long i = 0; i < sw->total; i++) {
        int which[MAX_GRIDS];
        point_values(sw, i, which);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "index", (double)i);
        cJSON_AddItemToObject(o, "set", point_set(sw, which));
        char *t = cJSON_PrintUnformatted(o);
        puts(t);
        free(t);
        cJSON_Delete(o);
    }
    return EXIT_OK;
}

/* --index I: point I alone (a cluster task), its exit status the point's */
static int run_one(sweep *sw)
{
    if (sw->index >= sw->total) {
        fprintf(stderr, "rodd sweep: --index %ld is past the grid's %ld points\n", sw->index, sw->total);
        return EXIT_USAGE;
    }
    cJSON *o = run_point(sw, sw->index);
    int rc = write_point(sw, sw->index, o);
    const char *st = cJSON_GetObjectItemCaseSensitive(o, "status")->valuestring;
    fprintf(stderr, "rodd sweep: point %ld of %ld: %s\n", sw->index, sw->total, st);
    int status = rc != 0 ? EXIT_FAILURE_OTHER : strcmp(st, "ok") == 0 ? EXIT_OK
                 : strcmp(st, "bad_spec") == 0 ? EXIT_BAD_SPEC : strcmp(st, "no_convergence") == 0 ? EXIT_NO_CONVERGENCE
                 : EXIT_FAILURE_OTHER;
    cJSON_Delete(o);
    return status;
}

/* every point on sw->jobs threads, then the CSV of them all on stdout */
static int run_all(sweep *sw)
{
    int nthreads = sw->jobs < sw->total ? sw->jobs : (int)sw->total;
    pthread_t th[256];
    if (nthreads > 256) nthreads = 256;
    for (int t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, worker, sw);
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    char csv[1200];
    snprintf(csv, sizeof csv, "%s/results.csv", sw->out_dir);
    int rc = collect(sw->out_dir, csv);
    if (rc == EXIT_OK) {
        FILE *f = fopen(csv, "r");
        char line[8192];
        while (f && fgets(line, sizeof line, f)) fputs(line, stdout);
        if (f) fclose(f);
        fprintf(stderr, "rodd sweep: %ld points, %d not ok; results in %s\n", sw->total, atomic_load(&sw->failures), csv);
    }
    return rc != EXIT_OK ? rc : atomic_load(&sw->failures) ? EXIT_FAILURE_OTHER : EXIT_OK;
}

/* 1 when the issue says the path itself is wrong rather than its value: the override could
 * not be placed ("--set PATH: ..."), or the spec reader knows no such key at the path or above
 * it (a one-rod key in a spec of several rods, too). ptr is the path as a JSON pointer. */
static int path_issue(const rod_issue *it, const char *path, const char *ptr)
{
    char where[300];
    snprintf(where, sizeof where, "--set %s", path);
    if (strcmp(it->path, where) == 0) return 1;
    const size_t n = strlen(it->path);
    const int at_or_above = strncmp(ptr, it->path, n) == 0 && (ptr[n] == '\0' || ptr[n] == '/');
    return at_or_above && (strncmp(it->message, "unknown key", 11) == 0 || strstr(it->message, "belongs in each rod"));
}

/* Each axis's path must name something the spec can hold: an unknown key would make every
 * point bad_spec after the whole grid ran. Compiled once per axis, at its first value. */
static int check_grid_paths(const sweep *sw)
{
    for (int k = 0; k < sw->naxes; k++) {
        const grid_axis *a = &sw->axes[k];
        const char *ov[65];
        char assign[4352], ptr[300] = "/";
        int n = 0;
        for (int i = 0; i < sw->nsets; i++) ov[n++] = sw->sets[i];
        snprintf(assign, sizeof assign, "%s=%s", a->path, a->values[0]);
        ov[n++] = assign;
        for (size_t i = 0, j = 1; a->path[i] && j + 1 < sizeof ptr; i++) ptr[j++] = a->path[i] == '.' ? '/' : a->path[i];
        rod_issues iss;
        rod_issues_init(&iss);
        rod_model *m = rod_model_load(sw->spec_path, ov, n, &iss);
        rod_model_free(m);
        for (int i = 0; i < iss.count; i++)
            if (path_issue(&iss.items[i], a->path, ptr)) {
                fprintf(stderr, "rodd sweep: --grid %s: %s%s%s\n", a->path, iss.items[i].path,
                        iss.items[i].path[0] ? ": " : "", iss.items[i].message);
                rod_issues_free(&iss);
                return EXIT_USAGE;
            }
        rod_issues_free(&iss);
    }
    return -1;
}

/* After the options: the grid's size, the spec loaded once, the output directory made. -1 to
 * go on, else the exit status. */
static int prepare(sweep *sw, const char *out)
{
    sw->total = 1;
    for (int k = 0; k < sw->naxes; k++) sw->total *= sw->axes[k].n;
    if (sw->list) return list_points(sw);
    /* the spec must at least load before anything runs */
    cli_common probe = {.spec_path = sw->spec_path, .overrides = sw->sets, .n_overrides = sw->nsets};
    rod_model *m = cli_load_model(&probe);
    if (!m) return EXIT_BAD_SPEC;
    rod_model_free(m);
    const int paths = check_grid_paths(sw);
    if (paths >= 0) return paths;
    if (!out) {
        const char *base = strrchr(sw->spec_path, '/');
        base = base ? base + 1 : sw->spec_path;
        snprintf(sw->default_out, sizeof sw->default_out, "sweep-%.*s", (int)(strcspn(base, ".")), base);
        out = sw->default_out;
    }
    sw->out_dir = out;
    if (mkdir(out, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "rodd sweep: cannot create %s: %s\n", out, strerror(errno));
        return EXIT_FAILURE_OTHER;
    }
    return -1;
}

int cli_sweep(int argc, char **argv)
{
    /* on the heap: 16 axes of 4096 values are too much for a thread's stack */
    sweep *sw = calloc(1, sizeof *sw);
    if (!sw) {
        fprintf(stderr, "rodd sweep: out of memory\n");
        return EXIT_FAILURE_OTHER;
    }
    sw->points = ROD_FRAME_DEFAULT_POINTS;
    sw->index = -1;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    sw->jobs = ncpu > 0 ? (int)ncpu : 1;
    const char *collect_dir = NULL, *out = NULL;
    int rc = parse_args(sw, argc, argv, &collect_dir, &out);
    if (rc < 0 && collect_dir) rc = collect(collect_dir, out);
    if (rc < 0 && (!sw->spec_path || !sw->naxes)) {
        usage();
        rc = EXIT_USAGE;
    }
    if (rc < 0) rc = prepare(sw, out);
    if (rc < 0) rc = sw->index >= 0 ? run_one(sw) : run_all(sw);
    sweep_free(sw);
    return rc;
}
