#include "testutil.h"

#include "base.h"
#include "kinematics.h"
#include "model.h"
#include "state.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rod_model *tu_model_set(const char *json, const char *const *sets, int nsets)
{
    rod_issues iss;
    rod_issues_init(&iss);
    rod_model *m = rod_model_compile(json, strlen(json), sets, nsets, &iss);
    if (!m) {
        char buf[4096];
        rod_issues_format(&iss, buf, sizeof buf);
        rod_issues_free(&iss);
        cr_assert_fail("spec did not compile:\n%s", buf);
    }
    rod_issues_free(&iss);
    return m;
}

/* RODD_TEST_SET="PATH=VALUE" applies one override to every model of tu_model: the same
 * validations run under another solver option (solver.jacobian=contact). */
rod_model *tu_model(const char *json)
{
    const char *set = getenv("RODD_TEST_SET");
    if (set && *set) return tu_model_set(json, &set, 1);
    return tu_model_set(json, NULL, 0);
}

const char *tu_issues(const char *json)
{
    static char buf[8192];
    rod_issues iss;
    rod_issues_init(&iss);
    rod_model *m = rod_model_compile(json, strlen(json), NULL, 0, &iss);
    if (m) {
        rod_model_free(m);
        rod_issues_free(&iss);
        cr_assert_fail("expected the spec to be refused:\n%s", json);
    }
    cr_assert_gt(iss.count, 0, "refused without any issue");
    rod_issues_format(&iss, buf, sizeof buf);
    rod_issues_free(&iss);
    return buf;
}

rod_state *tu_solve(const rod_model *m)
{
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "state: %s", err);
    rod_statics_result res;
    int rc = rod_statics_solve(m, st, 0.0, &res);
    cr_assert_eq(rc, ROD_OK, "statics failed: %s", rod_state_error(st));
    cr_assert(res.converged);
    return st;
}

rod_state *tu_started(const rod_model *m)
{
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "state: %s", err);
    cr_assert_eq(rod_dynamics_start(m, st), ROD_OK, "start: %s", rod_state_error(st));
    return st;
}

rod_frame tu_frame(const rod_model *m, const rod_state *st, int n)
{
    rod_frame f;
    cr_assert_eq(rod_frame_compute(m, st, n, &f), ROD_OK);
    return f;
}

void tu_json_numbers(char *buf, size_t len, const double *v, int n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        used += (size_t)snprintf(buf + used, len - used, "%s%.17g", i ? ", " : "", v[i]);
        cr_assert_lt(used, len, "%d numbers do not fit in %zu bytes", n, len);
    }
}

char *tu_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

double tu_period(const double *t, const double *x, int n, int *ncross)
{
    double mean = 0;
    for (int i = 0; i < n; i++) mean += x[i];
    mean /= n;
    double first = -1, last = -1;
    int c = 0;
    for (int i = 1; i < n; i++) {
        double a = x[i - 1] - mean, b = x[i] - mean;
        if (a < 0 && b >= 0) {
            double tc = t[i - 1] + (t[i] - t[i - 1]) * (-a) / (b - a);
            if (first < 0) first = tc;
            last = tc;
            c++;
        }
    }
    *ncross = c;
    return c > 1 ? (last - first) / (c - 1) : NAN;
}

void tu_centre_of_mass(const rod_model *m, rod_state *st, double c[3])
{
    kin_forward_twist(m, st->q, st->qd, st->g, st->eta);
    base_free_apply(m, st->q, st->qd, st->g, NULL, m->ns, st->eta, NULL);
    double mass = 0;
    c[0] = c[1] = c[2] = 0;
    for (int k = 0; k < m->ns; k++) {
        const double w = m->w[k] * m->sec[k].A0;
        for (int i = 0; i < 3; i++) c[i] += w * st->g[k].r[i];
        mass += w;
    }
    for (int i = 0; i < 3; i++) c[i] /= mass;
}
