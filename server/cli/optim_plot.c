/* A plain SVG plot: no library, three polylines over a framed axis with min/max labels.
 * Non-finite values (a generation that failed entirely) are left out of the lines. */
#include "optim_plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define W 640
#define H 400
#define L 80
#define R 20
#define T 56
#define B 50

static void escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else fputc(*s, f);
    }
}

int optim_plot_svg(const char *csv_path, const char *svg_path, const char *title, int maximize)
{
    FILE *in = fopen(csv_path, "r");
    if (!in) return -1;
    int n = 0, cap = 0;
    double *g = NULL, *y[3] = {NULL, NULL, NULL};
    char line[1024];
    if (!fgets(line, sizeof line, in)) line[0] = '\0'; /* header */
    while (fgets(line, sizeof line, in)) {
        double gen, ev, a, b, c;
        if (sscanf(line, "%lf,%lf,%lf,%lf,%lf", &gen, &ev, &a, &b, &c) != 5) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            double *ng = realloc(g, sizeof(double) * cap);
            if (ng) g = ng;
            for (int k = 0; k < 3; k++) {
                double *nk = realloc(y[k], sizeof(double) * cap);
                if (nk) y[k] = nk;
                else ng = NULL;
            }
            if (!ng) break;
        }
        g[n] = gen, y[0][n] = a, y[1][n] = b, y[2][n] = c;
        n++;
    }
    fclose(in);
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < n; i++)
            if (isfinite(y[k][i])) lo = fmin(lo, y[k][i]), hi = fmax(hi, y[k][i]);
    if (!(hi > lo)) {
        double c = isfinite(lo) ? lo : 0;
        lo = c - 1, hi = c + 1;
    }
    double gmax = n > 1 ? g[n - 1] : 2;
    FILE *f = fopen(svg_path, "w");
    if (!f) {
        free(g), free(y[0]), free(y[1]), free(y[2]);
        return -1;
    }
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H);
    fprintf(f, "<text x=\"%d\" y=\"24\">%s ", L, maximize ? "maximize" : "minimize");
    escaped(f, title);
    fputs("</text>\n", f);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n", L, T, W - L - R,
            H - T - B);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.4g</text>\n", L - 4, T + 4, hi);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.4g</text>\n", L - 4, H - B, lo);
    fprintf(f, "<text x=\"%d\" y=\"%d\">1</text>\n<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.0f</text>\n", L,
            H - B + 16, W - R, H - B + 16, gmax);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">generation</text>\n", (L + W - R) / 2, H - 12);
    static const char *const color[3] = {"#d62728", "#1f77b4", "#999999"};
    static const char *const name[3] = {"best so far", "generation's best", "generation's mean"};
    for (int k = 0; k < 3; k++) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%d\" points=\"", color[k], k ? 1 : 2);
        for (int i = 0; i < n; i++) {
            if (!isfinite(y[k][i])) continue;
            double px = L + (gmax > 1 ? (g[i] - 1) / (gmax - 1) : 0.5) * (W - L - R);
            double py = T + (hi - y[k][i]) / (hi - lo) * (H - T - B);
            fprintf(f, "%.1f,%.1f ", px, py);
        }
        fputs("\"/>\n", f);
        fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>\n", W - R - 130, 14 + 14 * k, color[k], name[k]);
    }
    fputs("</svg>\n", f);
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    free(g), free(y[0]), free(y[1]), free(y[2]);
    return bad ? -1 : 0;
}
