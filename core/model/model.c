/* Spec -> compiled model: bases, stations, quadrature and the constant matrices. */
#include "model.h"

#include "authors.h"
#include "basis.h"
#include "constraints_layout.h"
#include "dense.h"
#include "frame_table.h"
#include "issues.h"
#include "quad.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_KIN_STEPS 20000

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Gauss points for the whole rod when the spec does not fix them: enough that doubling
 * them moves the tip by less than 1e-9 L for the bases in use (tests/unit/test_quadrature
 * checks this on bent, stretched and inflated rods). */
static int default_gauss_points(const rod_spec *sp)
{
    int maxdeg = 0;
    for (int k = 0; k < 6; k++)
        if (sp->degree[k] > maxdeg) maxdeg = sp->degree[k];
    int n = 2 * maxdeg + 8;
    if (n < 12) n = 12;
    if (sp->pieces > 0 && n < 6 * sp->pieces) n = 6 * sp->pieces;
    return n;
}

/* The kinematic rule and its steps per station interval when the spec does not fix them.
 * The integrals converge spectrally in the Gauss points, the kinematics only as h^order: they
 * get their own resolution, at least KIN_STEPS4 4th-order (Zanna) or KIN_STEPS6 6th-order
 * steps along the rod; 32 sixth-order steps leave a smaller kinematic error than 96 Zanna steps
 * (tests/validation/test_kinematics_coarse.c). A sixth-order step costs about 1.4 Zanna steps,
 * so the sixth order is the default only where it saves steps: with KIN_STEPS4 station
 * intervals or more (contact points make many), one Zanna step per interval is the cheaper way
 * to the same accuracy, and a spec that fixes its substeps (without a magnus_order) keeps the
 * Zanna steps it always had. The authors' code steps with Zanna's rule. */
#define KIN_STEPS4 96
#define KIN_STEPS6 32
static void choose_kinematics(rod_model *m, int intervals)
{
    const rod_spec *sp = m->spec;
    int order = sp->magnus_order;
    if (!order) order = sp->authors.global_quadrature || sp->substeps > 0 || intervals >= KIN_STEPS4 ? 4 : 6;
    m->mag = magnus_rule_of(order);
    if (sp->substeps > 0) {
        m->substeps = sp->substeps;
    } else if (sp->authors.global_quadrature) {
        m->substeps = 1; /* their one Zanna step from station to station */
    } else {
        const int steps = order == 6 ? KIN_STEPS6 : KIN_STEPS4;
        const int sub = (steps + intervals - 1) / intervals;
        m->substeps = sub < 1 ? 1 : sub;
    }
}

static int assign_load_stations(rod_model *m)
{
    const rod_spec *sp = m->spec;
    m->load_station = calloc((size_t)(sp->nloads ? sp->nloads : 1), sizeof *m->load_station);
    if (!m->load_station) return -1;
    for (int l = 0; l < sp->nloads; l++) {
        int best = 0;
        for (int j = 0; j < m->ns; j++)
            if (fabs(m->s[j] - sp->loads[l].s) < fabs(m->s[best] - sp->loads[l].s)) best = j;
        m->load_station[l] = best;
    }
    return 0;
}

/* Contact points at both ends and between ncontact - 1 equal pieces of the rod (weights of
 * the trapezoid rule, so the ends are watched too), merged into the stations with weight 0
 * so the kinematics gives their poses and Jacobians. Their spacing
 * h is at most the smallest radius in play (the rod's, a sphere's or a cylinder's): a
 * convex obstacle touching the rod between two points then reaches them with a penetration
 * short of the true one by at most h^2 / (8 (R + r)) <= r / 16 (tests/validation/test_contact.c
 * slides a sphere along the rod to check). */
#define MAX_CONTACT_POINTS 2000
static int add_contact_stations(rod_model *m)
{
    const rod_spec *sp = m->spec;
    if (!sp->nobstacles && !sp->self_contact) return 0;
    double h = fmin(sp->radius_base, sp->radius_tip);
    for (int i = 0; i < sp->nobstacles; i++)
        if (sp->obstacles[i].type != OBSTACLE_PLANE) h = fmin(h, sp->obstacles[i].radius);
    double want = ceil(m->L / h - 1e-9);
    if (want < m->ngauss) want = m->ngauss;
    if (want > MAX_CONTACT_POINTS) want = MAX_CONTACT_POINTS;
    const int pieces = (int)want, nc = pieces + 1;
    double *s = malloc((size_t)(m->ns + nc) * sizeof *s), *w = malloc((size_t)(m->ns + nc) * sizeof *w);
    m->contact_station = malloc((size_t)nc * sizeof *m->contact_station);
    m->contact_w = malloc((size_t)nc * sizeof *m->contact_w);
    m->J_deferred = calloc((size_t)(m->ns + nc), sizeof *m->J_deferred);
    if (!s || !w || !m->contact_station || !m->contact_w || !m->J_deferred) {
        free(s);
        free(w);
        return -1;
    }
    m->ncontact = nc;
    m->contact_ds = m->L / pieces;
    for (int c = 0; c < nc; c++) m->contact_w[c] = (c == 0 || c == nc - 1 ? 0.5 : 1.0) * m->contact_ds;
    int a = 0, b = 0, k = 0;
    while (a < m->ns || b < nc) {
        const double sc = b == nc - 1 ? m->L : b * m->contact_ds;
        if (b < nc && a < m->ns && fabs(m->s[a] - sc) <= 1e-12 * m->L) {
            m->contact_station[b++] = k;
            s[k] = m->s[a];
            w[k++] = m->w[a++];
        } else if (b >= nc || (a < m->ns && m->s[a] < sc)) {
            s[k] = m->s[a];
            w[k++] = m->w[a++];
        } else {
            m->contact_station[b++] = k;
            m->J_deferred[k] = 1;
            s[k] = sc;
            w[k++] = 0.0;
        }
    }
    free(m->s);
    free(m->w);
    m->s = s;
    m->w = w;
    m->ns = k;
    return 0;
}

/* The bodies' attachment points, which must be stations: appended to bp[*nb]. */
static int bodies_nbreakpoints(const rod_spec *sp) { return sp->nbodies; }

static void bodies_breakpoints(const rod_spec *sp, double *bp, int *nb)
{
    for (int i = 0; i < sp->nbodies; i++) bp[(*nb)++] = sp->bodies[i].s;
}

static int build_stations(rod_model *m)
{
    const rod_spec *sp = m->spec;
    const double L = m->L;
    if (sp->authors.global_quadrature) {
        /* their one Zanna step from station to station */
        if (authors_stations(m) || add_contact_stations(m)) return -1;
        choose_kinematics(m, m->ns - 1);
        return assign_load_stations(m);
    }
    int nb_cap = 2 + (sp->pieces + 1) + 2 * sp->nacts + sp->nloads + constraints_nbreakpoints(sp) +
                 bodies_nbreakpoints(sp);
    double *bp = malloc((size_t)nb_cap * sizeof *bp);
    if (!bp) return -1;
    int nb = 0;
    bp[nb++] = 0.0;
    bp[nb++] = L;
    for (int k = 1; k < sp->pieces; k++) bp[nb++] = L * k / sp->pieces;
    for (int a = 0; a < sp->nacts; a++) {
        bp[nb++] = sp->acts[a].span[0];
        bp[nb++] = sp->acts[a].span[1];
    }
    for (int l = 0; l < sp->nloads; l++) bp[nb++] = sp->loads[l].s;
    constraints_breakpoints(sp, bp, &nb);
    bodies_breakpoints(sp, bp, &nb);
    qsort(bp, (size_t)nb, sizeof *bp, cmp_double);
    int u = 0;
    for (int i = 0; i < nb; i++)
        if (u == 0 || bp[i] - bp[u - 1] > 1e-12 * L) bp[u++] = bp[i];
    bp[u - 1] = L;
    nb = u;

    const int total = sp->points > 0 ? sp->points : default_gauss_points(sp);
    int *ng = malloc((size_t)nb * sizeof *ng);
    if (!ng) {
        free(bp);
        return -1;
    }
    int ngauss = 0;
    for (int i = 0; i + 1 < nb; i++) {
        double frac = (bp[i + 1] - bp[i]) / L;
        ng[i] = (int)ceil(total * frac - 1e-9);
        if (ng[i] < 2) ng[i] = 2;
        ngauss += ng[i];
    }
    m->ngauss = ngauss;
    m->ns = ngauss + nb;
    m->s = malloc((size_t)m->ns * sizeof *m->s);
    m->w = malloc((size_t)m->ns * sizeof *m->w);
    if (!m->s || !m->w) {
        free(bp);
        free(ng);
        return -1;
    }
    int k = 0;
    for (int i = 0; i + 1 < nb; i++) {
        m->s[k] = bp[i];
        m->w[k++] = 0.0;
        quad_gauss_legendre(ng[i], bp[i], bp[i + 1], m->s + k, m->w + k);
        k += ng[i];
    }
    m->s[k] = L;
    m->w[k++] = 0.0;
    if (add_contact_stations(m)) {
        free(bp);
        free(ng);
        return -1;
    }
    choose_kinematics(m, m->ns - 1);
    free(bp);
    free(ng);
    return assign_load_stations(m);
}

/* A tabulated rest strain that is not a strain: not finite, or (positive: a value of xi*, not
 * a step's share of it) a stretch <= 0, the rod folding back on itself. The spec knows only that
 * an expression is well-formed, so its values are checked where they are used; 1 with the
 * problem named by the component's path. */
static int bad_rest(rod_model *m, rod_issues *iss, const double *v, int n, int positive, double s)
{
    for (int i = 0; i < n; i++) {
        const int k = i % 6;
        if (isfinite(v[i]) && (!positive || k != 5 || v[i] > 0)) continue;
        char path[64];
        snprintf(path, sizeof path, "/rod/rest_strain/%s", spec_strain_names[k]);
        issues_add(iss, path, "%s at s = %g m (X = %g)",
                   isfinite(v[i]) ? "must be > 0 (the rest length per unit of s)" : "is not finite", s, s / m->L);
        return 1;
    }
    return 0;
}

/* model.h's planar: no columns and no rest strain (neither an expression nor a constant other
 * than 0) in kappa_1, kappa_3 and nu_2, no free base */
static int model_is_planar(const rod_model *m)
{
    if (m->comp_used[0] || m->comp_used[2] || m->comp_used[4] || m->comp_first[6] != m->n_xi) return 0;
    const rod_spec *sp = m->spec;
    for (int k = 0; k <= 4; k += 2)
        if (sp->rest_expr[k] || sp->rest_value[k] != 0.0) return 0;
    return 1;
}

/* The rest strain's tables (model.h), for a rod that is not straight at rest. 0, -1 out of
 * memory, -2 a value that is not a strain (in iss). */
static int build_rest(rod_model *m, rod_issues *iss)
{
    if (!m->spec->has_rest) return 0;
    const int ns = m->ns, sub = m->substeps, np = m->mag->npts;
    model_rest_reader r;
    if (model_rest_open(m, &r)) return -1;
    m->xis = malloc((size_t)ns * 6 * sizeof *m->xis);
    m->kin_star = calloc((size_t)ns * sub * np * 6, sizeof *m->kin_star);
    m->kin_star1 = calloc((size_t)ns * np * 6, sizeof *m->kin_star1);
    m->ind_xis = malloc((size_t)2 * MODEL_INDICATOR_STEPS * 6 * sizeof *m->ind_xis);
    if (!m->xis || !m->kin_star || !m->kin_star1 || !m->ind_xis) {
        model_rest_close(&r);
        return -1;
    }
    int bad = 0;
    for (int k = 0; k < ns && !bad; k++) {
        model_rest_at(m, &r, m->s[k], m->xis + 6 * k);
        bad = bad_rest(m, iss, m->xis + 6 * k, 6, 1, m->s[k]);
        if (k == 0 || bad) continue;
        const double h = (m->s[k] - m->s[k - 1]) / sub;
        for (int j = 0; j < sub && !bad; j++) {
            double *st = m->kin_star + ((size_t)k * sub + j) * np * 6;
            model_step_star(m, &r, m->s[k - 1] + j * h, h, st);
            bad = bad_rest(m, iss, st, np * 6, 0, m->s[k - 1] + j * h);
        }
        model_step_star(m, &r, m->s[k - 1], m->s[k] - m->s[k - 1], m->kin_star1 + (size_t)k * np * 6);
    }
    const double hi = m->L / MODEL_INDICATOR_STEPS;
    for (int k = 0; k < MODEL_INDICATOR_STEPS && !bad; k++) {
        const double s1 = (k + 0.5 - MODEL_INDICATOR_ZC) * hi, s2 = (k + 0.5 + MODEL_INDICATOR_ZC) * hi;
        model_rest_at(m, &r, s1, m->ind_xis + 12 * k);
        model_rest_at(m, &r, s2, m->ind_xis + 12 * k + 6);
        bad = bad_rest(m, iss, m->ind_xis + 12 * k, 6, 1, s1) || bad_rest(m, iss, m->ind_xis + 12 * k + 6, 6, 1, s2);
    }
    model_rest_close(&r);
    if (bad) return -2;
    /* the rest shape's poses, by the same steps as kin_forward at q = 0 */
    m->g_rest = malloc((size_t)ns * sizeof *m->g_rest);
    if (!m->g_rest) return -1;
    lie_pose_identity(&m->g_rest[0]);
    for (int k = 1; k < ns; k++) {
        lie_pose g = m->g_rest[k - 1];
        for (int j = 0; j < sub; j++) {
            magnus_step ms = {.rule = m->mag};
            const double *st = m->kin_star + ((size_t)k * sub + j) * np * 6;
            for (int i = 0; i < np; i++) memcpy(ms.a[i], st + 6 * i, 6 * sizeof *st);
            double Omega[6];
            magnus_eval(&ms, Omega);
            lie_tangent tc;
            lie_tangent_init(Omega, &tc);
            lie_pose e;
            lie_exp_tc(&tc, &e);
            lie_pose_mul(&g, &e, &g);
        }
        m->g_rest[k] = g;
    }
    return 0;
}

/* model.h's kin_beta_t, from kin_beta (whose rows of station 0 are not steps) */
static int build_beta_t(rod_model *m)
{
    const int nx = m->n_xi, np = m->mag->npts, sub = m->substeps;
    const size_t nrow = (size_t)(m->ns - 1) * sub * np;
    /* 3 more: the kinematics read a block's sums four at a time, past the last row's end */
    m->kin_beta_t = calloc((nx ? nx : 1) * nrow + 3, sizeof *m->kin_beta_t);
    if (!m->kin_beta_t) return -1;
    for (size_t r = 0; r < nrow; r++)
        for (int j = 0; j < nx; j++) m->kin_beta_t[j * nrow + r] = m->kin_beta[((size_t)sub * np + r) * nx + j];
    return 0;
}

static int build_bases(rod_model *m)
{
    const int ns = m->ns, nx = m->n_xi, nr = m->n_rho;
    m->sec = malloc((size_t)ns * sizeof *m->sec);
    m->leg = calloc((size_t)ns * (nx ? nx : 1), sizeof *m->leg);
    const int sub = m->substeps;
    const size_t bsz = (size_t)m->mag->npts * (nx ? nx : 1);
    m->kin_beta = calloc((size_t)ns * sub * bsz, sizeof *m->kin_beta);
    m->kin_beta1 = calloc((size_t)ns * bsz, sizeof *m->kin_beta1);
    m->phr = calloc((size_t)ns * (nr ? nr : 1), sizeof *m->phr);
    m->dphr = calloc((size_t)ns * (nr ? nr : 1), sizeof *m->dphr);
    if (!m->sec || !m->leg || !m->kin_beta || !m->kin_beta1 || !m->phr || !m->dphr) return -1;
    for (int k = 0; k < ns; k++) {
        m->sec[k] = model_section(m, m->s[k]);
        model_eval_xi_columns(m, m->s[k], m->leg + (size_t)k * nx);
        if (k > 0) {
            const double h = (m->s[k] - m->s[k - 1]) / sub;
            if (h > m->h_kin) m->h_kin = h;
            for (int j = 0; j < sub; j++)
                model_step_beta(m, m->s[k - 1] + j * h, h, m->kin_beta + ((size_t)k * sub + j) * bsz);
            model_step_beta(m, m->s[k - 1], m->s[k] - m->s[k - 1], m->kin_beta1 + (size_t)k * bsz);
        }
        if (nr) {
            basis_hermite(m->spec->pieces, m->spec->bc, m->L, m->s[k], m->phr + (size_t)k * nr,
                          m->dphr + (size_t)k * nr);
            if (m->spec->authors.slope_per_X)
                for (int j = 0; j < nr; j++) m->dphr[(size_t)k * nr + j] *= m->L;
        }
    }
    return 0;
}

/* One quadrature node's share of K, D and M_rho (Eqs. 50-52, App. D). */
static void add_matrix_node(rod_model *m, double s, double w)
{
    const int n = m->n, nx = m->n_xi, nr = m->n_rho;
    const rod_spec *sp = m->spec;
    const double E = m->E, mu = m->mu, lam = m->lambda, eta = m->eta;
    /* the authors' code damps torsion and rho' with I33 alone, without eta */
    const double eta_t = sp->authors.damping_slips ? 1.0 : eta;
    double P[MODEL_MAX_XI], phi[MODEL_MAX_RHO], dphi[MODEL_MAX_RHO];
    section c = model_section(m, s);
    const double ks = sp->shear_coefficient; /* Timoshenko's correction of G A (and eta A) */
    const double Sigma[6] = {E * c.I11, E * c.I22, mu * c.I33, ks * mu * c.A0, ks * mu * c.A0,
                             (m->extended ? lam + 2 * mu : E) * c.A0};
    const double Ups[6] = {3 * eta * c.I11, 3 * eta * c.I22, eta_t * c.I33, ks * eta * c.A0,
                           ks * eta * c.A0, (m->extended ? 2 : 3) * eta * c.A0};
    model_eval_xi_columns(m, s, P);
    if (nr) {
        basis_hermite(sp->pieces, sp->bc, m->L, s, phi, dphi);
        if (sp->authors.slope_per_X)
            for (int j = 0; j < nr; j++) dphi[j] *= m->L;
    }
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < nx; j++) {
            if (m->cols[i].comp != m->cols[j].comp) continue;
            int cc = m->cols[i].comp;
            m->K[i + (size_t)n * j] += w * P[i] * Sigma[cc] * P[j];
            m->D[i + (size_t)n * j] += w * P[i] * Ups[cc] * P[j];
        }
    for (int i = 0; i < nx; i++) {
        if (m->cols[i].comp != STRAIN_STRETCH) continue;
        for (int j = 0; j < nr; j++) {
            /* Kbar: sigma = 2 lambda A0 couples nu3 and rho (Eqs. 50, 52) */
            double v = w * P[i] * 2 * lam * c.A0 * phi[j];
            m->K[i + (size_t)n * (nx + j)] += v;
            m->K[(nx + j) + (size_t)n * i] += v;
        }
    }
    for (int i = 0; i < nr; i++)
        for (int j = 0; j < nr; j++) {
            /* Eqs. 51-52: Q = mu I33 rho' + eta I33 rho_dot',
             * q = 4 (lambda + mu) A0 (rho - 1) + 4 eta A0 rho_dot + ... */
            size_t ij = (nx + i) + (size_t)n * (nx + j);
            m->K[ij] += w * (mu * c.I33 * dphi[i] * dphi[j] + 4 * (lam + mu) * c.A0 * phi[i] * phi[j]);
            m->D[ij] += w * (eta_t * c.I33 * dphi[i] * dphi[j] + 4 * eta * c.A0 * phi[i] * phi[j]);
            /* M_rho: the section's in-plane inertia rho0 (I11 + I22) (Eq. 28) */
            m->Mrho_chol[i + (size_t)nr * j] +=
                w * sp->rotary_inertia_factor * m->rho0 * (c.I11 + c.I22) * phi[i] * phi[j];
        }
}

/* K and D by a rule exact for their polynomial integrands, piece by piece; or, as the authors'
 * code does, by the stations' global rule. */
static int build_matrices(rod_model *m)
{
    const int n = m->n, nr = m->n_rho;
    const rod_spec *sp = m->spec;
    m->K = calloc((size_t)n * n, sizeof *m->K);
    m->D = calloc((size_t)n * n, sizeof *m->D);
    m->Kdiag_inv = calloc((size_t)n, sizeof *m->Kdiag_inv);
    m->Mrho_chol = calloc((size_t)(nr ? nr * nr : 1), sizeof *m->Mrho_chol);
    if (!m->K || !m->D || !m->Kdiag_inv || !m->Mrho_chol) return -1;
    if (sp->authors.global_quadrature) {
        for (int k = 0; k < m->ns; k++)
            if (m->w[k] > 0) add_matrix_node(m, m->s[k], m->w[k]);
    } else {
        int maxdeg = 0;
        for (int k = 0; k < 6; k++)
            if (sp->degree[k] > maxdeg) maxdeg = sp->degree[k];
        const int nq = (maxdeg + 3 > 5 ? maxdeg + 3 : 5) + 1;
        const int pieces = sp->pieces > 0 ? sp->pieces : 1;
        double xq[SPEC_MAX_DEGREE + 4], wq[SPEC_MAX_DEGREE + 4]; /* nq <= maxdeg + 4 */
        for (int e = 0; e < pieces; e++) {
            quad_gauss_legendre(nq, m->L * e / pieces, m->L * (e + 1) / pieces, xq, wq);
            for (int g = 0; g < nq; g++) add_matrix_node(m, xq[g], wq[g]);
        }
    }
    for (int i = 0; i < n; i++) {
        double d = m->K[i + (size_t)n * i];
        m->Kdiag_inv[i] = d > 0 ? 1.0 / d : 1.0;
    }
    if (nr && dense_cholesky(m->Mrho_chol, nr) != 0) return -1;
    return 0;
}

/* Loads, actuators (a muscle contributes one input per beta value instead of one for itself,
 * so each can be commanded), then the pose constraints' targets (each held position
 * component, and the angle when a rotation component is held), so commands can move a
 * target as they set an actuator. */
static int build_inputs(rod_model *m)
{
    const rod_spec *sp = m->spec;
    static const char *const suffix[4] = {"x", "y", "z", "angle"};
    int ntargets = 0, nact = 0;
    size_t names = 1;
    for (int i = 0; i < sp->ncons; i++) {
        const spec_constraint *k = &sp->cons[i];
        if (k->type != CON_POSE) continue;
        for (int c = 0; c < 4; c++)
            if (c < 3 ? k->held[c] : k->held[3] || k->held[4] || k->held[5]) {
                ntargets++;
                names += strlen(k->name) + strlen(suffix[c]) + 2;
            }
    }
    for (int i = 0; i < sp->nacts; i++)
        nact += sp->acts[i].type == ACT_MUSCLE_TORQUE ? sp->acts[i].nbeta : 1;
    m->ninputs = sp->nloads + nact + ntargets;
    m->inputs = calloc((size_t)(m->ninputs ? m->ninputs : 1), sizeof *m->inputs);
    m->input_of_act = calloc((size_t)(sp->nacts ? sp->nacts : 1), sizeof *m->input_of_act);
    m->target_names = malloc(names);
    if (!m->inputs || !m->input_of_act || !m->target_names) return -1;
    int j = 0;
    for (int i = 0; i < sp->nloads; i++)
        m->inputs[j++] = (model_input){sp->loads[i].name, INPUT_LOAD, i, 0};
    for (int i = 0; i < sp->nacts; i++) {
        m->input_of_act[i] = j;
        if (sp->acts[i].type != ACT_MUSCLE_TORQUE) {
            m->inputs[j++] = (model_input){sp->acts[i].name, INPUT_ACTUATOR, i, 0};
            continue;
        }
        for (int b = 0; b < sp->acts[i].nbeta; b++)
            m->inputs[j++] = (model_input){sp->acts[i].beta_names[b], INPUT_MUSCLE_BETA, i, b};
    }
    char *p = m->target_names;
    for (int i = 0; i < sp->ncons; i++) {
        const spec_constraint *k = &sp->cons[i];
        if (k->type != CON_POSE) continue;
        for (int c = 0; c < 4; c++)
            if (c < 3 ? k->held[c] : k->held[3] || k->held[4] || k->held[5]) {
                const int len = sprintf(p, "%s.%s", k->name, suffix[c]);
                m->inputs[j++] = (model_input){p, INPUT_TARGET, i, c};
                p += len + 1;
            }
    }
    return 0;
}

static rod_model *compile_spec(rod_spec *sp, char *json, rod_issues *iss)
{
    rod_model *m = calloc(1, sizeof *m);
    if (!m) {
        spec_free(sp);
        free(json);
        issues_add(iss, "", "out of memory");
        return NULL;
    }
    m->spec = sp;
    m->spec_json = json;
    m->extended = sp->extended;
    m->L = sp->length;
    m->E = sp->youngs;
    m->nu0 = sp->poisson;
    m->mu = sp->shear_modulus;
    m->lambda = sp->youngs * sp->poisson / ((1 + sp->poisson) * (1 - 2 * sp->poisson));
    m->eta = sp->eta;
    m->rho0 = sp->density;
    memcpy(m->grav, sp->gravity, sizeof m->grav);
    m->fluid_rho = sp->has_fluid ? sp->fluid_density : 0.0;

    for (int k = 0; k < 6; k++) m->n_xi += sp->degree[k] + 1;
    m->base_col = sp->base_free ? m->n_xi : -1;
    if (sp->base_free) m->n_xi += 6;
    m->n_rho = sp->extended ? basis_hermite_ndof(sp->pieces, sp->bc) : 0;
    m->n = m->n_xi + m->n_rho;
    m->cols = calloc((size_t)(m->n_xi ? m->n_xi : 1), sizeof *m->cols);
    if (!m->cols) goto nomem;
    int j = 0;
    for (int k = 0; k < 6; k++) {
        m->comp_first[k] = j;
        for (int d = 0; d <= sp->degree[k]; d++) {
            m->cols[j++] = (xi_column){k, d};
            m->comp_used[k] = 1;
        }
    }
    m->comp_first[6] = j;
    while (j < m->n_xi) m->cols[j++] = (xi_column){0, 0}; /* a free base's: zero columns */

    if (sp->nguess && sp->nguess != m->n) {
        issues_add(iss, "/solver/guess", "has %d values; this model has %d coordinates "
                   "(q_xi then q_rho)", sp->nguess, m->n);
        model_free_one(m);
        return NULL;
    }
    m->frame_cache = frame_cache_create();
    if (!m->frame_cache) goto nomem;
    if (build_stations(m)) goto nomem;
    if ((long)(m->ns - 1) * m->substeps > MAX_KIN_STEPS) {
        issues_add(iss, "/discretization", "%d Gauss points with %d substeps make %ld Magnus steps, "
                   "more than the %d allowed", m->ngauss, m->substeps, (long)(m->ns - 1) * m->substeps,
                   MAX_KIN_STEPS);
        model_free_one(m);
        return NULL;
    }
    if (build_bases(m)) goto nomem;
    const int rest = build_rest(m, iss);
    if (rest == -2) {
        model_free_one(m);
        return NULL;
    }
    if (rest || build_matrices(m) || build_inputs(m) || constraints_compile(m)) goto nomem;
    m->planar = model_is_planar(m);
    if (m->planar && build_beta_t(m)) goto nomem;
    return m;
nomem:
    issues_add(iss, "", "out of memory compiling the model");
    model_free_one(m);
    return NULL;
}

rod_model *model_compile_one(const char *json, size_t len, const char *const *overrides,
                             int n_overrides, rod_issues *issues)
{
    cJSON *root = spec_parse_json(json, len, issues);
    if (!root) return NULL;
    int bad = 0;
    for (int i = 0; i < n_overrides; i++)
        bad |= spec_apply_override(root, overrides[i], issues) != 0;
    rod_spec *sp = bad ? NULL : spec_parse(root, issues);
    char *canon = sp ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    if (!sp) return NULL;
    if (!canon) {
        spec_free(sp);
        issues_add(issues, "", "out of memory");
        return NULL;
    }
    return compile_spec(sp, canon, issues);
}

void model_free_one(rod_model *m)
{
    if (!m) return;
    frame_cache_free(m->frame_cache);
    spec_free(m->spec);
    free(m->spec_json);
    free(m->cols);
    free(m->s);
    free(m->w);
    free(m->sec);
    free(m->leg);
    free(m->kin_beta);
    free(m->kin_beta_t);
    free(m->kin_beta1);
    free(m->xis);
    free(m->kin_star);
    free(m->kin_star1);
    free(m->ind_xis);
    free(m->g_rest);
    free(m->phr);
    free(m->dphr);
    free(m->K);
    free(m->D);
    free(m->Kdiag_inv);
    free(m->Mrho_chol);
    free(m->inputs);
    free(m->input_of_act);
    free(m->contact_station);
    free(m->contact_w);
    free(m->J_deferred);
    free(m->load_station);
    free(m->target_names);
    constraints_model_free(m);
    free(m);
}
