#include "kirchhoff.h"

#include <math.h>
#include <string.h>

/* state: r (3), R (9, row-major), m (3) */
#define NY 15

static void rhs(const kh_problem *p, double s, const double *y, const double F[3], double *dy)
{
    const double *r = y, *R = y + 3, *m = y + 12;
    (void)r;
    double k0[3] = {0, 0, 0};
    if (p->rest) p->rest(s, p->ctx, k0);
    double k[3];
    for (int a = 0; a < 3; a++) {
        double mt = R[0 * 3 + a] * m[0] + R[1 * 3 + a] * m[1] + R[2 * 3 + a] * m[2]; /* R^T m */
        k[a] = k0[a] + mt / p->B[a];
    }
    /* r' = R e3 */
    for (int i = 0; i < 3; i++) dy[i] = R[3 * i + 2];
    /* R' = R [k]x: (R K)_ij = sum_l R_il K_lj, K = [[0,-k3,k2],[k3,0,-k1],[-k2,k1,0]] */
    for (int i = 0; i < 3; i++) {
        const double *Ri = R + 3 * i;
        dy[3 + 3 * i + 0] = Ri[1] * k[2] - Ri[2] * k[1];
        dy[3 + 3 * i + 1] = -Ri[0] * k[2] + Ri[2] * k[0];
        dy[3 + 3 * i + 2] = Ri[0] * k[1] - Ri[1] * k[0];
    }
    /* m' = -r' x F */
    const double *t = dy;
    dy[12] = -(t[1] * F[2] - t[2] * F[1]);
    dy[13] = -(t[2] * F[0] - t[0] * F[2]);
    dy[14] = -(t[0] * F[1] - t[1] * F[0]);
}

static void shoot(const kh_problem *p, const double m0[3], const double F[3], double *y)
{
    memset(y, 0, NY * sizeof *y);
    y[3] = y[7] = y[11] = 1.0;
    memcpy(y + 12, m0, 3 * sizeof *y);
    const double h = p->L / p->steps;
    double k1[NY], k2[NY], k3[NY], k4[NY], yt[NY];
    for (int n = 0; n < p->steps; n++) {
        const double s = n * h;
        rhs(p, s, y, F, k1);
        for (int i = 0; i < NY; i++) yt[i] = y[i] + 0.5 * h * k1[i];
        rhs(p, s + 0.5 * h, yt, F, k2);
        for (int i = 0; i < NY; i++) yt[i] = y[i] + 0.5 * h * k2[i];
        rhs(p, s + 0.5 * h, yt, F, k3);
        for (int i = 0; i < NY; i++) yt[i] = y[i] + h * k3[i];
        rhs(p, s + h, yt, F, k4);
        for (int i = 0; i < NY; i++) y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    }
}

/* 3x3 solve by Cramer's rule; -1 when singular */
static int solve3(const double A[9], const double b[3], double x[3])
{
    const double det = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
                       A[2] * (A[3] * A[7] - A[4] * A[6]);
    if (!(fabs(det) > 0)) return -1;
    for (int c = 0; c < 3; c++) {
        double B[9];
        memcpy(B, A, sizeof B);
        for (int r = 0; r < 3; r++) B[3 * r + c] = b[r];
        x[c] = (B[0] * (B[4] * B[8] - B[5] * B[7]) - B[1] * (B[3] * B[8] - B[5] * B[6]) +
                B[2] * (B[3] * B[7] - B[4] * B[6])) / det;
    }
    return 0;
}

int kh_solve(const kh_problem *p, double r_tip[3], double R_tip[9])
{
    double y[NY], m0[3] = {0, 0, 0};
    const int ls = p->load_steps > 0 ? p->load_steps : 1;
    /* a moment's size: the stiffness's, or the load's */
    const double scale = fmax(fmax(p->B[0], p->B[1]), p->B[2]) / p->L +
                         p->L * sqrt(p->F[0] * p->F[0] + p->F[1] * p->F[1] + p->F[2] * p->F[2]) +
                         sqrt(p->M[0] * p->M[0] + p->M[1] * p->M[1] + p->M[2] * p->M[2]);
    for (int l = 1; l <= ls; l++) {
        const double f = (double)l / ls;
        double F[3], M[3];
        for (int i = 0; i < 3; i++) {
            F[i] = f * p->F[i];
            M[i] = f * p->M[i];
        }
        int ok = 0;
        for (int it = 0; it < 50; it++) {
            double res[3];
            shoot(p, m0, F, y);
            for (int i = 0; i < 3; i++) res[i] = y[12 + i] - M[i];
            if (sqrt(res[0] * res[0] + res[1] * res[1] + res[2] * res[2]) < 1e-12 * scale) {
                ok = 1;
                break;
            }
            double J[9];
            const double e = 1e-7 * scale;
            for (int c = 0; c < 3; c++) {
                double mp[3], mm[3], yp[NY], ym[NY];
                memcpy(mp, m0, sizeof mp);
                memcpy(mm, m0, sizeof mm);
                mp[c] += e;
                mm[c] -= e;
                shoot(p, mp, F, yp);
                shoot(p, mm, F, ym);
                for (int r = 0; r < 3; r++) J[3 * r + c] = (yp[12 + r] - ym[12 + r]) / (2 * e);
            }
            double dx[3];
            if (solve3(J, res, dx)) return -1;
            for (int i = 0; i < 3; i++) m0[i] -= dx[i];
        }
        if (!ok) return -1;
    }
    shoot(p, m0, p->F, y);
    memcpy(r_tip, y, 3 * sizeof *r_tip);
    memcpy(R_tip, y + 3, 9 * sizeof *R_tip);
    return 0;
}
