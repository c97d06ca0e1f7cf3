/* The biological profiles of Sec. 5.2 from `rodd run` frames (NDJSON on stdin, frames with
 * points on a 0.01 L grid, i.e. --points 101): arm length L(t) = int |nu| ds, the bend point
 * s_b(t) = argmax |kappa2| over X < 0.95 (the authors' code also skips |kappa2| >= 40, the
 * curled tip), its trajectory and travel, the speed of the material at the bend point, and
 * the volume change Delta V(t). Curves are smoothed with 5th-order polynomials as the paper's
 * figures are. Prints one JSON object. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double t, length, volume, volume_axial, sb, bx, bz, speed;
    int bi;
} sample;

static int fit_poly5(const double *x, const double *y, int n, double c[6])
{
    /* normal equations on x scaled to [-1, 1], solved by Gaussian elimination */
    double lo = x[0], hi = x[n - 1];
    double A[6][7] = {{0}};
    for (int i = 0; i < n; i++) {
        double u = (2 * x[i] - lo - hi) / (hi - lo), p[6] = {1};
        for (int k = 1; k < 6; k++) p[k] = p[k - 1] * u;
        for (int r = 0; r < 6; r++) {
            for (int k = 0; k < 6; k++) A[r][k] += p[r] * p[k];
            A[r][6] += p[r] * y[i];
        }
    }
    for (int col = 0; col < 6; col++) {
        int piv = col;
        for (int r = col + 1; r < 6; r++)
            if (fabs(A[r][col]) > fabs(A[piv][col])) piv = r;
        if (fabs(A[piv][col]) < 1e-300) return -1;
        for (int k = 0; k < 7; k++) {
            double tmp = A[col][k];
            A[col][k] = A[piv][k];
            A[piv][k] = tmp;
        }
        for (int r = 0; r < 6; r++) {
            if (r == col) continue;
            double f = A[r][col] / A[col][col];
            for (int k = col; k < 7; k++) A[r][k] -= f * A[col][k];
        }
    }
    for (int k = 0; k < 6; k++) c[k] = A[k][6] / A[k][k];
    return 0;
}

static double poly5(const double c[6], double x, double lo, double hi)
{
    double u = (2 * x - lo - hi) / (hi - lo), v = 0;
    for (int k = 5; k >= 0; k--) v = v * u + c[k];
    return v;
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

int main(void)
{
    size_t cap = 1 << 20, len;
    char *line = malloc(cap);
    int n = 0, ncap = 1024;
    sample *S = malloc((size_t)ncap * sizeof *S);
    double (*pos)[101][3] = malloc((size_t)ncap * sizeof *pos);
    while (line && fgets(line, (int)cap, stdin)) {
        len = strlen(line);
        while (len == cap - 1 && line[len - 1] != '\n') {
            cap *= 2;
            line = realloc(line, cap);
            if (!fgets(line + len, (int)(cap - len), stdin)) break;
            len = strlen(line);
        }
        cJSON *f = cJSON_Parse(line);
        if (!f) continue;
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(f, "s");
        const int np = cJSON_GetArraySize(s);
        if (np != 101) {
            fprintf(stderr, "octopus_metrics: frames need 101 points (--points 101), got %d\n", np);
            return 2;
        }
        if (n == ncap) {
            ncap *= 2;
            S = realloc(S, (size_t)ncap * sizeof *S);
            pos = realloc(pos, (size_t)ncap * sizeof *pos);
        }
        sample *x = &S[n];
        memset(x, 0, sizeof *x);
        x->t = num(f, "t");
        const double L = cJSON_GetArrayItem(s, np - 1)->valuedouble, ds = L / (np - 1);
        const cJSON *nu = cJSON_GetObjectItemCaseSensitive(f, "nu");
        const cJSON *ka = cJSON_GetObjectItemCaseSensitive(f, "kappa");
        const cJSON *rad = cJSON_GetObjectItemCaseSensitive(f, "radius");
        const cJSON *rho = cJSON_GetObjectItemCaseSensitive(f, "rho");
        const cJSON *ps = cJSON_GetObjectItemCaseSensitive(f, "position");
        double best = -1, vol = 0, vol0 = 0;
        for (int i = 0; i < np; i++) {
            const cJSON *v = cJSON_GetArrayItem(nu, i), *k = cJSON_GetArrayItem(ka, i), *p = cJSON_GetArrayItem(ps, i);
            double n1 = cJSON_GetArrayItem(v, 0)->valuedouble, n2 = cJSON_GetArrayItem(v, 1)->valuedouble,
                   n3 = cJSON_GetArrayItem(v, 2)->valuedouble;
            double w = (i == 0 || i == np - 1) ? 0.5 * ds : ds; /* trapezoid */
            double nn = sqrt(n1 * n1 + n2 * n2 + n3 * n3);
            x->length += w * nn;
            double r = cJSON_GetArrayItem(rad, i)->valuedouble, q = cJSON_GetArrayItem(rho, i)->valuedouble;
            double z = r / q;
            vol += w * r * r * nn;
            x->volume_axial += w * r * r * n3;
            vol0 += w * z * z;
            for (int a = 0; a < 3; a++) pos[n][i][a] = cJSON_GetArrayItem(p, a)->valuedouble;
            double k2 = fabs(cJSON_GetArrayItem(k, 1)->valuedouble);
            if (i * ds < 0.95 * L && k2 < 40 && k2 > best) {
                best = k2;
                x->bi = i;
            }
        }
        x->volume = vol / vol0 - 1;
        x->volume_axial = x->volume_axial / vol0 - 1;
        x->sb = x->bi * ds;
        x->bx = pos[n][x->bi][0];
        x->bz = pos[n][x->bi][2];
        cJSON_Delete(f);
        n++;
    }
    if (n < 8) {
        fprintf(stderr, "octopus_metrics: need at least 8 frames\n");
        return 2;
    }
    /* speed of the material point at the bend point, by central differences in time */
    for (int j = 0; j < n; j++) {
        int a = j > 0 ? j - 1 : j, b = j < n - 1 ? j + 1 : j, i = S[j].bi;
        double d2 = 0;
        for (int c = 0; c < 3; c++) d2 += pow(pos[b][i][c] - pos[a][i][c], 2);
        S[j].speed = sqrt(d2) / (S[b].t - S[a].t);
    }
    double *t = malloc((size_t)n * sizeof *t), *y = malloc((size_t)n * sizeof *y), c[6];
    for (int j = 0; j < n; j++) t[j] = S[j].t;
    double path = 0;
    for (int j = 1; j < n; j++) path += hypot(S[j].bx - S[j - 1].bx, S[j].bz - S[j - 1].bz);
    /* the authors' travel: arc length of a quintic z(x) through the bend-point positions */
    double *bx = malloc((size_t)n * sizeof *bx), *bz = malloc((size_t)n * sizeof *bz);
    int *ord = malloc((size_t)n * sizeof *ord);
    for (int j = 0; j < n; j++) ord[j] = j;
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && S[ord[b]].bx < S[ord[b - 1]].bx; b--) {
            int tmp = ord[b];
            ord[b] = ord[b - 1];
            ord[b - 1] = tmp;
        }
    for (int j = 0; j < n; j++) {
        bx[j] = S[ord[j]].bx;
        bz[j] = S[ord[j]].bz;
    }
    double fit_travel = NAN;
    if (bx[n - 1] > bx[0] && fit_poly5(bx, bz, n, c) == 0) {
        fit_travel = 0;
        double px = bx[0], pz = poly5(c, px, bx[0], bx[n - 1]);
        for (int k = 1; k <= 1000; k++) {
            double xx = bx[0] + (bx[n - 1] - bx[0]) * k / 1000.0, zz = poly5(c, xx, bx[0], bx[n - 1]);
            fit_travel += hypot(xx - px, zz - pz);
            px = xx;
            pz = zz;
        }
    }
    for (int j = 0; j < n; j++) y[j] = S[j].speed;
    double peak = 0, peak_t = 0, end_speed = NAN;
    if (fit_poly5(t, y, n, c) == 0) {
        for (int k = 0; k <= 2000; k++) {
            double tt = t[0] + (t[n - 1] - t[0]) * k / 2000.0, v = poly5(c, tt, t[0], t[n - 1]);
            if (v > peak) {
                peak = v;
                peak_t = tt;
            }
        }
        end_speed = poly5(c, t[n - 1], t[0], t[n - 1]);
    }
    double vmin = 0, vmin_t = 0, vaxmin = 0;
    for (int j = 0; j < n; j++) {
        if (S[j].volume < vmin) {
            vmin = S[j].volume;
            vmin_t = S[j].t;
        }
        vaxmin = fmin(vaxmin, S[j].volume_axial);
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "frames", n);
    cJSON_AddNumberToObject(o, "t_end", S[n - 1].t);
    cJSON_AddNumberToObject(o, "arm_length_start_cm", 100 * S[0].length);
    cJSON_AddNumberToObject(o, "arm_length_end_cm", 100 * S[n - 1].length);
    cJSON_AddNumberToObject(o, "bend_point_start_s_cm", 100 * S[0].sb);
    cJSON_AddNumberToObject(o, "bend_point_end_s_cm", 100 * S[n - 1].sb);
    cJSON_AddNumberToObject(o, "bend_point_travel_path_cm", 100 * path);
    cJSON_AddNumberToObject(o, "bend_point_travel_quintic_cm", 100 * fit_travel);
    cJSON_AddNumberToObject(o, "bend_point_peak_speed_cm_s", 100 * peak);
    cJSON_AddNumberToObject(o, "bend_point_peak_speed_time_s", peak_t);
    cJSON_AddNumberToObject(o, "bend_point_end_speed_cm_s", 100 * end_speed);
    cJSON_AddNumberToObject(o, "volume_change_start_pct", 100 * S[0].volume);
    cJSON_AddNumberToObject(o, "volume_change_min_pct", 100 * vmin);
    cJSON_AddNumberToObject(o, "volume_change_min_time_s", vmin_t);
    cJSON_AddNumberToObject(o, "volume_change_end_pct", 100 * S[n - 1].volume);
    cJSON_AddNumberToObject(o, "volume_change_axial_min_pct", 100 * vaxmin);
    cJSON_AddNumberToObject(o, "volume_change_axial_end_pct", 100 * S[n - 1].volume_axial);
    char *txt = cJSON_Print(o);
    puts(txt);
    free(txt);
    cJSON_Delete(o);
    free(t);
    free(y);
    free(bx);
    free(bz);
    free(ord);
    free(S);
    free(pos);
    free(line);
    return 0;
}
