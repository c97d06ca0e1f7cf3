/* Issue 14's grasp: the reaching arm's geometry (seeds/000 Sec. 5.2: a truncated cone, L 0.5 m,
 * r 15 mm to 4 mm, E 2000 Pa, Poisson 0.499, eta 120 Pa s) wrapped by its LM1 cable around a
 * fixed pole (a cylinder with a soft wall and Coulomb friction) holds it against a pull on its
 * tip, and Newton's law on the whole rod closes on the FRAME's contact forces.
 *
 * The arm's base is free and held by a pose constraint at s = 0 on all six components, so its
 * reaction is the one the FRAME reports (a clamped base's is not reported). Gravity is off and
 * there is no fluid: the only external loads are then the contacts, the pull and the hold
 * (water's drag, lift and added mass would be fluid forces the FRAME does not carry). The arm
 * starts from its static equilibrium with the pole (no friction in statics); the pull ramps on
 * over 0.5 s and the damped dynamics (CVODE BDF, rtol 1e-6, atol 1e-8: the defaults) runs to
 * 10 s, where the arm has settled on the pole (about 1.5 CPU s).
 *
 * Newton's law for the discretized rod is exact: the equations of the base's six rigid
 * coordinates are the whole rod's momentum balance with the model's quadrature,
 *   sum F_c + F_pull + F_hold = dP/dt,  sum (r_c x F_c + C_c) + r_tip x F_pull + M_hold = dH/dt,
 * with P = sum_k w_k m_k v_k and H = sum_k w_k (R_k J_k w_k + r_k x m_k v_k) about the origin
 * (m_k = rho0 A0, J_k = rho0 rho^2 I: the model's section inertia), each contact force F_c
 * applied at its section's centre line with the rolling couple C_c = ((o x F_c) . t) t of its
 * surface offset o (core/stages/contact.c: friction turns the section about its axis only). So the
 * static residual (the left sides) is the momentum's rate, which the test measures by central
 * differences of P and H over delta = 50 ms from the integrator's states; the residual must
 * equal that rate within
 * - the difference's truncation delta^2 / 6 |P'''| (P''' from the same samples over 2 delta),
 * - the integrator's error in the sampled momenta over 2 delta: each state is good to about
 *   rtol |q_dot| + atol per coordinate (CVODE's local error control), and a unit error in one
 *   coordinate's rate moves no point faster than L per second (Legendre strain modes are at
 *   most 1, the base's rate is a twist), so e_P <= M n (rtol |q_dot|_max + atol) L, and
 *   e_H <= e_P L.
 * The grip itself: the pole carries a share of the pull and the tip, held by static friction,
 * creeps slower than the friction law's threshold velocity v_eps (1e-4 m/s). */
#include "base.h"
#include "kinematics.h"
#include "model.h"
#include "state.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PULL 0.002 /* N, along +x on the tip */
#define PX 0.062   /* the pole's axis: through (PX, 0, PZ) along y, radius PR */
#define PZ 0.182
#define PR 0.018
#define RTOL 1e-6
#define ATOL 1e-8
#define VEPS 1e-4

static const char *SPEC =
    "{\"model\": \"extended\", \"rod\": {\"length\": 0.5, \"radius\": {\"base\": 0.015, \"tip\": 0.004}, "
    "\"density\": 1000, \"youngs_modulus\": 2000, \"poisson_ratio\": 0.499, \"shear_viscosity\": 120}, "
    "\"strains\": {\"bend2\": 14, \"bend1\": 4, \"stretch\": 4}, \"inflation\": {\"pieces\": 4, \"boundary\": \"neumann\"}, "
    "\"base\": {\"type\": \"free\"}, "
    "\"constraints\": [{\"name\": \"hold\", \"type\": \"pose\", \"s\": 0, \"position\": [0, 0, 0], "
    "\"rotation\": {\"axis\": [0, 0, 1], \"angle\": 0}}], "
    "\"environment\": {\"gravity\": [0, 0, 0], \"obstacles\": [{\"name\": \"pole\", \"type\": \"cylinder\", "
    "\"point\": [%g, 0, %g], \"axis\": [0, 1, 0], \"radius\": %g, \"stiffness\": 500, \"damping\": 0.5, "
    "\"friction\": {\"static\": 0.6, \"kinetic\": 0.4, \"threshold_velocity\": %g}}]}, "
    "\"actuators\": [{\"name\": \"LM1\", \"type\": \"cable\", \"route\": {\"offset\": [0.8, 0], \"relative_to_radius\": true}, "
    "\"tension\": 0.04, \"span\": [0.15, 0.5]}], "
    "\"loads\": [{\"name\": \"pull\", \"type\": \"tip_force\", \"force\": [%g, 0, 0], \"scale\": \"min(t/0.5, 1)\"}], "
    "\"initial\": \"static\", \"solver\": {\"rtol\": %g, \"atol\": %g}}";

static double norm3(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

static void cross(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* R v, R column-major as lie_pose keeps it */
static void rot(const double R[9], const double v[3], double o[3])
{
    for (int i = 0; i < 3; i++) o[i] = R[i] * v[0] + R[i + 3] * v[1] + R[i + 6] * v[2];
}

static double rho_of(const rod_model *m, const double *q, int k)
{
    double rho = 1.0;
    for (int j = 0; j < m->n_rho; j++) rho += m->phr[(size_t)k * m->n_rho + j] * q[m->n_xi + j];
    return rho;
}

/* The stations' world poses and body twists of the state. */
static void poses(const rod_model *m, const rod_state *st, lie_pose *g, double *eta)
{
    kin_forward_twist(m, st->q, st->qd, g, eta);
    base_free_apply(m, st->q, st->qd, g, NULL, m->ns, eta, NULL);
}

/* The rod's linear momentum P and angular momentum H about the origin (world). */
static void momenta(const rod_model *m, const rod_state *st, double P[3], double H[3])
{
    lie_pose *g = malloc((size_t)m->ns * sizeof *g);
    double *eta = malloc((size_t)m->ns * 6 * sizeof *eta);
    cr_assert(g && eta);
    poses(m, st, g, eta);
    P[0] = P[1] = P[2] = H[0] = H[1] = H[2] = 0;
    for (int k = 0; k < m->ns; k++) {
        if (m->w[k] == 0) continue;
        const section *c = &m->sec[k];
        const double rho = rho_of(m, st->q, k), ri = m->spec->rotary_inertia_factor * rho * rho;
        const double Iw[3] = {m->rho0 * ri * c->I11 * eta[6 * k], m->rho0 * ri * c->I22 * eta[6 * k + 1],
                              m->rho0 * ri * c->I33 * eta[6 * k + 2]};
        const double mv[3] = {m->rho0 * c->A0 * eta[6 * k + 3], m->rho0 * c->A0 * eta[6 * k + 4],
                              m->rho0 * c->A0 * eta[6 * k + 5]};
        double p[3], h[3], rp[3];
        rot(g[k].R, mv, p);
        rot(g[k].R, Iw, h);
        cross(g[k].r, p, rp);
        for (int a = 0; a < 3; a++) {
            P[a] += m->w[k] * p[a];
            H[a] += m->w[k] * (h[a] + rp[a]);
        }
    }
    free(g);
    free(eta);
}

typedef struct {
    double F[3], M[3];   /* the static residual: external force and moment about the origin */
    double Fc[3];        /* the contacts' resultant */
    double tip[3];
    int ncontacts;
} balance;

/* The external loads' resultant from the FRAME: its contacts (each at its section's centre
 * line with the rolling couple, as core/stages/contact.c applies them), the hold's reaction and the
 * pull at the tip. */
static balance external(const rod_model *m, const rod_state *st)
{
    balance b = {0};
    rod_frame f = tu_frame(m, st, 11);
    lie_pose *g = malloc((size_t)m->ns * sizeof *g);
    double *eta = malloc((size_t)m->ns * 6 * sizeof *eta);
    cr_assert(g && eta);
    poses(m, st, g, eta);
    for (int c = 0; c < f.ncontacts; c++) {
        int k = -1;
        for (int j = 0; j < m->ncontact && k < 0; j++)
            if (fabs(m->s[m->contact_station[j]] - f.contact_s[c]) < 1e-12) k = m->contact_station[j];
        cr_assert_geq(k, 0, "contact at s = %g is at no contact point", f.contact_s[c]);
        const double *Fc = f.contact_force + 3 * c, *r = g[k].r;
        double xi[6], t[3], n[3] = {r[0] - PX, 0, r[2] - PZ}, off[3], o[3], rF[3];
        model_xi(m, m->leg + (size_t)k * m->n_xi, model_xis_at(m, k), st->q, xi);
        rot(g[k].R, xi + 3, t);
        const double tn = norm3(t), nn = norm3(n), radius = rho_of(m, st->q, k) * m->sec[k].z;
        for (int a = 0; a < 3; a++) {
            t[a] /= tn;
            off[a] = -radius * n[a] / nn;
        }
        cross(off, Fc, o);
        const double roll = o[0] * t[0] + o[1] * t[1] + o[2] * t[2];
        cross(r, Fc, rF);
        for (int a = 0; a < 3; a++) {
            b.Fc[a] += Fc[a];
            b.F[a] += Fc[a];
            b.M[a] += rF[a] + roll * t[a];
        }
    }
    b.ncontacts = f.ncontacts;
    cr_assert_eq(f.ncons, 1);
    const rod_frame_constraint *h = &f.cons[0];
    double rh[3];
    cross(h->point, h->force, rh);
    const double pull[3] = {PULL * fmin(st->t / 0.5, 1.0), 0, 0};
    const double *tip = g[m->ns - 1].r;
    double rp[3];
    cross(tip, pull, rp);
    for (int a = 0; a < 3; a++) {
        b.F[a] += h->force[a] + pull[a];
        b.M[a] += rh[a] + h->moment[a] + rp[a];
        b.tip[a] = tip[a];
    }
    rod_frame_free(&f);
    free(g);
    free(eta);
    return b;
}

static void advance(const rod_model *m, rod_state *st, double t)
{
    cr_assert_eq(rod_dynamics_advance(m, st, t), ROD_OK, "t = %g: %s", t, rod_state_error(st));
}

Test(grasp, the_wrapped_arm_holds_the_pole_and_newtons_law_closes_on_the_contact_forces, .timeout = 300)
{
    char json[4000];
    snprintf(json, sizeof json, SPEC, PX, PZ, PR, VEPS, PULL, RTOL, ATOL);
    rod_model *m = tu_model(json);
    rod_state *st = tu_started(m);
    const balance b0 = external(m, st);
    cr_assert_geq(b0.ncontacts, 3, "the cable must wrap the arm onto the pole");
    const double t_end = 10.0, delta = 0.05;
    double tip_before[3] = {0};
    /* the samples t_end + j delta, j = -2..2 */
    double P[5][3], H[5][3], qd_max = 0;
    balance b = {0};
    advance(m, st, t_end - 1.0);
    memcpy(tip_before, external(m, st).tip, sizeof tip_before);
    for (int j = -2; j <= 2; j++) {
        advance(m, st, t_end + j * delta);
        momenta(m, st, P[j + 2], H[j + 2]);
        for (int i = 0; i < m->n; i++) qd_max = fmax(qd_max, fabs(st->qd[i]));
        if (j == 0) b = external(m, st);
    }
    double Pd[3], Hd[3], P3[3], H3[3], dF[3], dM[3];
    for (int a = 0; a < 3; a++) {
        Pd[a] = (P[3][a] - P[1][a]) / (2 * delta);
        Hd[a] = (H[3][a] - H[1][a]) / (2 * delta);
        P3[a] = (P[4][a] - 2 * P[3][a] + 2 * P[1][a] - P[0][a]) / (2 * delta * delta * delta);
        H3[a] = (H[4][a] - 2 * H[3][a] + 2 * H[1][a] - H[0][a]) / (2 * delta * delta * delta);
        dF[a] = b.F[a] - Pd[a];
        dM[a] = b.M[a] - Hd[a];
    }
    const double L = rod_model_length(m);
    double mass = 0;
    for (int k = 0; k < m->ns; k++) mass += m->w[k] * m->rho0 * m->sec[k].A0;
    const double eP = mass * m->n * (RTOL * qd_max + ATOL) * L, eH = eP * L;
    const double boundF = delta * delta / 6 * norm3(P3) + 2 * eP / (2 * delta);
    const double boundM = delta * delta / 6 * norm3(H3) + 2 * eH / (2 * delta);
    const double creep = sqrt(pow(b.tip[0] - tip_before[0], 2) + pow(b.tip[1] - tip_before[1], 2) +
                              pow(b.tip[2] - tip_before[2], 2));
    cr_log_info("grasp: %d contacts carry (%.3e, %.3e, %.3e) N of the %.1e N pull (%.0f %%); static residual "
                "|F| %.2e N (%.1e of the pull), |M| %.2e N m; momentum rates |dP/dt| %.2e N, |dH/dt| %.2e N m; "
                "Newton closes to %.2e N (bound %.2e) and %.2e N m (bound %.2e); tip crept %.2e m in the last second",
                b.ncontacts, b.Fc[0], b.Fc[1], b.Fc[2], PULL, 100 * norm3(b.Fc) / PULL, norm3(b.F),
                norm3(b.F) / PULL, norm3(b.M), norm3(Pd), norm3(Hd), norm3(dF), boundF, norm3(dM), boundM, creep);
    cr_assert_geq(b.ncontacts, 3, "the arm must still hold the pole");
    cr_assert_gt(norm3(b.Fc), 0.25 * PULL, "the pole must carry a share of the pull");
    cr_assert_lt(creep, VEPS * 1.0, "the grip slips: the tip moved %g m in 1 s", creep);
    cr_assert_lt(norm3(dF), boundF, "the forces do not balance the momentum's rate");
    cr_assert_lt(norm3(b.F), norm3(Pd) + boundF, "the static residual exceeds what the remaining motion explains");
    cr_assert_lt(norm3(b.M), norm3(Hd) + boundM, "the static moment exceeds what the remaining motion explains");
    cr_assert_lt(norm3(dM), boundM, "the moments do not balance the angular momentum's rate");
    rod_state_free(st);
    rod_model_free(m);
}
