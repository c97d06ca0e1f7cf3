#include "muscle.h"

#include <math.h>

/* Cox-de Boor on the knot vector of muscle_bspline: the knot span holding X, then the
 * four non-zero cubic basis functions by the triangular recurrence. */
double muscle_bspline(int n, const double *beta, double X)
{
    if (!(X >= 0)) X = 0;
    if (X > 1) X = 1;
    const int nc = n + 2;          /* coefficients */
    const int nk = nc + 4;         /* knots */
    double knot[32 + 6 + 2], coef[32 + 2];
    for (int i = 0; i < 4; i++) {
        knot[i] = 0.0;
        knot[nk - 1 - i] = 1.0;
    }
    for (int i = 1; i <= n - 2; i++) knot[3 + i] = (double)i / (n - 1);
    coef[0] = coef[nc - 1] = 0.0;
    for (int i = 0; i < n; i++) coef[i + 1] = beta[i];
    /* the span j with knot[j] <= X < knot[j+1], 3 <= j <= nc - 1 */
    int j = 3;
    while (j < nc - 1 && X >= knot[j + 1]) j++;
    double N[4] = {1.0, 0, 0, 0}, left[4], right[4];
    for (int d = 1; d <= 3; d++) {
        left[d] = X - knot[j + 1 - d];
        right[d] = knot[j + d] - X;
        double saved = 0.0;
        for (int r = 0; r < d; r++) {
            const double den = right[r + 1] + left[d - r];
            const double tmp = den > 0 ? N[r] / den : 0.0;
            N[r] = saved + right[r + 1] * tmp;
            saved = left[d - r] * tmp;
        }
        N[d] = saved;
    }
    double v = 0;
    for (int r = 0; r < 4; r++) v += N[r] * coef[j - 3 + r];
    return v;
}

int muscle_forces(const rod_model *m, rod_state *st, int a, double t, double factor, double *Q)
{
    const spec_actuator *act = &m->spec->acts[a];
    const int first = m->input_of_act[a], nx = m->n_xi, comp = act->about;
    double beta[32];
    for (int b = 0; b < act->nbeta; b++) {
        beta[b] = state_input_value(st, first + b, t, 0.0);
        if (!isfinite(beta[b])) {
            state_set_error(st, "actuator %s: beta%d is not finite at t = %g", act->name, b, t);
            return -1;
        }
    }
    const double k = act->wavelength > 0 ? 2 * M_PI / act->wavelength : 0.0;
    const double wt = 2 * M_PI * t / act->period + act->phase;
    for (int i = 0; i < m->ns; i++) {
        if (m->w[i] == 0) continue;
        const double sh = m->L - m->s[i]; /* from the head */
        const double M = muscle_bspline(act->nbeta, beta, sh / m->L) * sin(wt - k * sh);
        const double *leg = m->leg + (size_t)i * nx;
        for (int j = 0; j < nx; j++)
            if (m->cols[j].comp == comp) Q[j] += factor * m->w[i] * leg[j] * M;
    }
    return 0;
}
