/* The compiled model read at a point (a section, the strain columns, xi and rho at s; the
 * weights of a kinematic step) and through its public getters: what the stages and the
 * output ask of a model, apart from compiling it (model.c). */
#include "model.h"
#include "assembly.h"

#include "basis.h"
#include "vector_clones.h"

#include <math.h>
#include <string.h>

section model_section(const rod_model *m, double s)
{
    const rod_spec *sp = m->spec;
    section c;
    c.z = sp->radius_base + (sp->radius_tip - sp->radius_base) * s / m->L;
    const double z2 = c.z * c.z;
    c.A0 = M_PI * z2;
    c.I11 = c.I22 = M_PI * z2 * z2 / 4.0;
    c.I33 = M_PI * z2 * z2 / 2.0;
    return c;
}

void model_eval_xi_columns(const rod_model *m, double s, double *out)
{
    double P[SPEC_MAX_DEGREE + 1];
    int maxdeg = 0;
    for (int k = 0; k < 6; k++)
        if (m->spec->degree[k] > maxdeg) maxdeg = m->spec->degree[k];
    basis_legendre(maxdeg, s / m->L, P, NULL);
    const int nstrain = m->base_col >= 0 ? m->base_col : m->n_xi;
    for (int j = 0; j < nstrain; j++) out[j] = P[m->cols[j].degree];
    for (int j = nstrain; j < m->n_xi; j++) out[j] = 0.0;
}

void model_step_beta(const rod_model *m, double s0, double h, double *beta)
{
    const magnus_rule *r = m->mag;
    const int nx = m->n_xi;
    double v[MAGNUS_MAX_POINTS][MODEL_MAX_XI];
    for (int p = 0; p < r->npts; p++) model_eval_xi_columns(m, s0 + r->c[p] * h, v[p]);
    for (int i = 0; i < r->npts; i++)
        for (int j = 0; j < nx; j++) {
            double b = 0.0;
            for (int p = 0; p < r->npts; p++) b += r->w[i][p] * v[p][j];
            beta[(size_t)i * nx + j] = h * b;
        }
}

const double model_xis_straight[6] = {0, 0, 0, 0, 0, 1};

int model_rest_open(const rod_model *m, model_rest_reader *r)
{
    for (int k = 0; k < 6; k++) r->a[k] = NULL;
    for (int k = 0; k < 6; k++) {
        if (!m->spec->rest_expr[k]) continue;
        r->a[k] = profile_arc_create(m->spec->rest_expr[k], m->L);
        if (!r->a[k]) {
            model_rest_close(r);
            return -1;
        }
    }
    return 0;
}

void model_rest_close(model_rest_reader *r)
{
    for (int k = 0; k < 6; k++) {
        profile_arc_free(r->a[k]);
        r->a[k] = NULL;
    }
}

void model_rest_at(const rod_model *m, model_rest_reader *r, double s, double xis[6])
{
    for (int k = 0; k < 6; k++) xis[k] = r->a[k] ? profile_arc_value(r->a[k], s) : m->spec->rest_value[k];
}

void model_step_star(const rod_model *m, model_rest_reader *r, double s0, double h, double *out)
{
    const magnus_rule *rule = m->mag;
    memset(out, 0, (size_t)rule->npts * 6 * sizeof *out);
    for (int k = 0; k < 6; k++) {
        if (!r->a[k]) {
            out[k] = h * m->spec->rest_value[k];
            continue;
        }
        double v[MAGNUS_MAX_POINTS];
        for (int p = 0; p < rule->npts; p++) v[p] = profile_arc_value(r->a[k], s0 + rule->c[p] * h);
        for (int i = 0; i < rule->npts; i++) {
            double b = 0.0;
            for (int p = 0; p < rule->npts; p++) b += rule->w[i][p] * v[p];
            out[6 * i + k] = h * b;
        }
    }
}

VECTOR_CLONES
void model_xi(const rod_model *m, const double *colvals, const double *xis, const double *q,
              double xi[6])
{
    /* component by component in the columns' order: six independent sums instead of one
     * chain of stores through xi */
    for (int k = 0; k < 6; k++) {
        double x = xis[k];
        for (int j = m->comp_first[k]; j < m->comp_first[k + 1]; j++) x += colvals[j] * q[j];
        xi[k] = x;
    }
}

/* x[i] += rows_t[j][i] q[j] for the rows j0..j1 - 1, in that order */
VECTOR_CLONES
static void add_rows(const double *rows_t, int npts, int j0, int j1, const double *q, double *x)
{
    for (int j = j0; j < j1; j++) {
        const double *row = rows_t + (size_t)j * npts, qj = q[j];
        for (int i = 0; i < npts; i++) x[i] += row[i] * qj;
    }
}

void model_xi_across(const rod_model *m, const double *cols_t, const double *xis, int npts, const double *q,
                     double *xi)
{
    for (int k = 0; k < 6; k++) {
        double *x = xi + (size_t)k * npts;
        for (int i = 0; i < npts; i++) x[i] = xis ? xis[6 * i + k] : model_xis_straight[k];
        add_rows(cols_t, npts, m->comp_first[k], m->comp_first[k + 1], q, x);
    }
}

void model_rho_across(const rod_model *m, const double *phi_t, int npts, const double *q, double *rho)
{
    for (int i = 0; i < npts; i++) rho[i] = 1.0;
    add_rows(phi_t, npts, 0, m->n_rho, q + m->n_xi, rho);
}

void model_rho(const rod_model *m, double s, const double *q, double *rho, double *drho)
{
    *rho = 1.0;
    if (drho) *drho = 0.0;
    if (!m->n_rho) return;
    double phi[MODEL_MAX_RHO], dphi[MODEL_MAX_RHO];
    basis_hermite(m->spec->pieces, m->spec->bc, m->L, s, phi, dphi);
    for (int j = 0; j < m->n_rho; j++) {
        *rho += phi[j] * q[m->n_xi + j];
        if (drho) *drho += dphi[j] * q[m->n_xi + j];
    }
}

const profile *model_input_profile(const rod_model *m, int i)
{
    const model_input *in = &m->inputs[i];
    switch (in->kind) {
    case INPUT_LOAD: return &m->spec->loads[in->index].scale;
    case INPUT_ACTUATOR: return &m->spec->acts[in->index].value;
    case INPUT_MUSCLE_BETA: return &m->spec->acts[in->index].beta[in->comp];
    default: {
        const spec_constraint *k = &m->spec->cons[in->index];
        return in->comp < 3 ? &k->position[in->comp] : &k->angle;
    }
    }
}

int rod_model_ndof(const rod_model *m) { return m->as ? m->as->n : m->n; }
/* several rods: q is rod after rod, each [q_xi; q_rho]; these count over all of them */
int rod_model_ndof_xi(const rod_model *m)
{
    int n = 0;
    for (int i = 0; m->as && i < m->as->nrods; i++) n += m->as->rod[i]->n_xi;
    return m->as ? n : m->n_xi;
}
int rod_model_ndof_rho(const rod_model *m)
{
    return m->as ? m->as->n - rod_model_ndof_xi(m) : m->n_rho;
}
double rod_model_length(const rod_model *m) { return m->L; }
double rod_model_duration(const rod_model *m) { return m->as ? m->as->duration : m->spec->duration; }
int rod_model_is_extended(const rod_model *m) { return m->extended; }
int rod_model_quadrature_points(const rod_model *m) { return m->ngauss; }
int rod_model_substeps(const rod_model *m) { return m->substeps; }
int rod_model_magnus_order(const rod_model *m) { return m->mag->order; }
int rod_model_stations(const rod_model *m) { return m->ns; }
void rod_model_gravity(const rod_model *m, double g[3])
{
    for (int i = 0; i < 3; i++) g[i] = m->grav[i];
}
double rod_model_base_radius(const rod_model *m) { return m->sec[0].z; }
int rod_model_has_attachments(const rod_model *m)
{
    if (m->as) return 1;
    return m->spec->ncons > 0 || m->spec->nbodies > 0 || m->spec->base_moving ||
           m->spec->base_free || m->ncontact > 0;
}
const char *rod_model_spec_json(const rod_model *m) { return m->as ? m->as->spec_json : m->spec_json; }
int rod_model_ninputs(const rod_model *m) { return m->as ? m->as->ninputs : m->ninputs; }
const char *rod_model_input_name(const rod_model *m, int i)
{
    if (m->as) return i >= 0 && i < m->as->ninputs ? m->as->input[i].name : NULL;
    return i >= 0 && i < m->ninputs ? m->inputs[i].name : NULL;
}

/* one rod's (rod 0 of several holds the assembly itself: no dispatch here) */
static const char *input_type_one(const rod_model *m, int i)
{
    static const char *const loads[] = {"tip_force", "tip_moment", "point_force", "point_moment",
                                        "distributed_force", "distributed_moment"};
    if (i < 0 || i >= m->ninputs) return NULL;
    const model_input *in = &m->inputs[i];
    if (in->kind == INPUT_LOAD) return loads[m->spec->loads[in->index].type];
    if (in->kind == INPUT_TARGET) return "target";
    static const char *const acts[] = {"cable", "transverse", "muscle_torque"};
    return acts[m->spec->acts[in->index].type];
}

const char *rod_model_input_type(const rod_model *m, int i)
{
    if (m->as)
        return i >= 0 && i < m->as->ninputs
                   ? input_type_one(m->as->rod[m->as->input[i].rod], m->as->input[i].index) : NULL;
    return input_type_one(m, i);
}

int rod_model_input_is_actuator(const rod_model *m, int i)
{
    if (m->as) {
        if (i < 0 || i >= m->as->ninputs) return 0;
        const rod_model *r = m->as->rod[m->as->input[i].rod];
        const int k = m->as->input[i].index;
        return r->inputs[k].kind == INPUT_ACTUATOR || r->inputs[k].kind == INPUT_MUSCLE_BETA;
    }
    return i >= 0 && i < m->ninputs &&
           (m->inputs[i].kind == INPUT_ACTUATOR || m->inputs[i].kind == INPUT_MUSCLE_BETA);
}

int rod_model_input_index(const rod_model *m, const char *name)
{
    if (m->as) {
        for (int i = 0; i < m->as->ninputs; i++)
            if (strcmp(m->as->input[i].name, name) == 0) return i;
        return -1;
    }
    for (int i = 0; i < m->ninputs; i++)
        if (strcmp(m->inputs[i].name, name) == 0) return i;
    return -1;
}
