/* The constraints' layout in the model and their work buffers in a state
 * (constraints_layout.h). */
#include "constraints_layout.h"

#include <stdlib.h>
#include <string.h>

int constraints_nbreakpoints(const rod_spec *sp) { return 2 * sp->ncons; }

void constraints_breakpoints(const rod_spec *sp, double *bp, int *nb)
{
    for (int i = 0; i < sp->ncons; i++)
        if (sp->cons[i].type == CON_POSE) {
            bp[(*nb)++] = sp->cons[i].s;
            if (sp->cons[i].relative) bp[(*nb)++] = sp->cons[i].s_rel;
        }
}

int constraints_count(const rod_model *m) { return m->spec->ncons; }
int constraints_nmult(const rod_model *m) { return m->con ? m->con->nmult : 0; }
int constraints_nrows(const rod_model *m) { return m->con ? m->con->nrows : 0; }
const char *constraints_name(const rod_model *m, int i) { return m->spec->cons[i].name; }
int constraints_is_volume(const rod_model *m, int i) { return m->spec->cons[i].type == CON_VOLUME; }

void constraints_model_free(rod_model *m)
{
    struct con_layout *L = m->con;
    if (!L) return;
    free(L->rows);
    free(L->mult_row);
    free(L->station);
    free(L->station_rel);
    free(L->ref);
    free(L->vol0);
    free(L->first_row);
    free(L->nrow);
    free(L->target);
    free(L);
    m->con = NULL;
}

static int nearest_station(const rod_model *m, double s)
{
    int best = 0;
    for (int j = 0; j < m->ns; j++)
        if (fabs(m->s[j] - s) < fabs(m->s[best] - s)) best = j;
    return best;
}

/* A pose constraint on a rod curved at rest: its value at rest (L->ref), and the targets the
 * spec left out set to it, so that a constraint given by its components alone holds the point
 * where the rest shape has it. */
static int rest_reference(rod_model *m, int i)
{
    struct con_layout *L = m->con;
    if (!L->ref) {
        L->ref = calloc((size_t)m->spec->ncons * 12, sizeof *L->ref);
        if (!L->ref) return -1;
    }
    spec_constraint *k = &m->spec->cons[i];
    const lie_pose *ga = &m->g_rest[L->station[i]];
    double *pos = L->ref + 12 * i, *R = pos + 3;
    if (k->relative) {
        const lie_pose *gb = &m->g_rest[L->station_rel[i]];
        const double d[3] = {ga->r[0] - gb->r[0], ga->r[1] - gb->r[1], ga->r[2] - gb->r[2]};
        for (int a = 0; a < 3; a++) {
            pos[a] = gb->R[3 * a] * d[0] + gb->R[3 * a + 1] * d[1] + gb->R[3 * a + 2] * d[2];
            for (int b = 0; b < 3; b++) { /* R_b^T R_a */
                double s = 0;
                for (int l = 0; l < 3; l++) s += gb->R[l + 3 * a] * ga->R[l + 3 * b];
                R[a + 3 * b] = s;
            }
        }
    } else {
        memcpy(pos, ga->r, 3 * sizeof *pos);
        memcpy(R, ga->R, 9 * sizeof *R);
    }
    if (!k->position_given)
        for (int a = 0; a < 3; a++) k->position[a].v.value = pos[a];
    if (!k->rotation_given) {
        double e[3];
        lie_so3_log(R, e);
        const double th = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
        if (th > 0)
            for (int a = 0; a < 3; a++) k->axis[a] = e[a] / th;
        k->angle.v.value = th;
    }
    return 0;
}

int constraints_compile(rod_model *m)
{
    const rod_spec *sp = m->spec;
    if (!sp->ncons) return 0;
    struct con_layout *L = calloc(1, sizeof *L);
    if (!L) return -1;
    m->con = L;
    const int nc = sp->ncons;
    L->station = calloc((size_t)nc, sizeof *L->station);
    L->station_rel = calloc((size_t)nc, sizeof *L->station_rel);
    L->first_row = calloc((size_t)nc, sizeof *L->first_row);
    L->nrow = calloc((size_t)nc, sizeof *L->nrow);
    L->target = malloc((size_t)nc * 4 * sizeof *L->target);
    if (!L->station || !L->station_rel || !L->first_row || !L->nrow || !L->target) return -1;
    for (int i = 0; i < 4 * nc; i++) L->target[i] = -1;
    for (int i = 0; i < m->ninputs; i++)
        if (m->inputs[i].kind == INPUT_TARGET) L->target[4 * m->inputs[i].index + m->inputs[i].comp] = i;
    for (int i = 0; i < nc; i++) {
        const spec_constraint *k = &sp->cons[i];
        L->first_row[i] = L->nrows;
        if (k->type == CON_POSE)
            for (int a = 0; a < 6; a++) L->nrow[i] += k->held[a];
        else
            L->nrow[i] = k->pieces ? sp->pieces : 1;
        L->nrows += L->nrow[i];
    }
    L->rows = calloc((size_t)L->nrows, sizeof *L->rows);
    L->mult_row = calloc((size_t)L->nrows, sizeof *L->mult_row);
    L->vol0 = calloc((size_t)L->nrows, sizeof *L->vol0);
    if (!L->rows || !L->mult_row || !L->vol0) return -1;
    int r = 0;
    for (int i = 0; i < nc; i++) {
        const spec_constraint *k = &sp->cons[i];
        if (k->type == CON_POSE) {
            L->station[i] = nearest_station(m, k->s);
            L->station_rel[i] = k->relative ? nearest_station(m, k->s_rel) : 0;
        }
        if (k->type == CON_POSE && m->g_rest && rest_reference(m, i) != 0) return -1;
        for (int a = 0; a < (k->type == CON_POSE ? 6 : L->nrow[i]); a++) {
            if (k->type == CON_POSE && !k->held[a]) continue;
            con_row *row = &L->rows[r];
            row->con = i;
            row->comp = a;
            row->mult = k->penalty ? -1 : L->nmult;
            if (!k->penalty) L->mult_row[L->nmult++] = r;
            if (k->type == CON_VOLUME)
                for (int s = 0; s < m->ns; s++)
                    if (m->w[s] > 0 && (!k->pieces || constraints_piece_of(m, s) == a))
                        L->vol0[r] += m->w[s] * m->sec[s].A0 * model_rest_nu_norm(m, s);
            r++;
        }
    }
    return 0;
}

int constraints_state_init(rod_state *st)
{
    const rod_model *m = st->m;
    if (!m->con) return 0;
    const size_t R = (size_t)m->con->nrows, nm = (size_t)(m->con->nmult ? m->con->nmult : 1),
                 n = (size_t)m->n;
    struct con_work *w = calloc(1, sizeof *w);
    if (!w) return -1;
    st->con = w;
    w->c = calloc(R, sizeof *w->c);
    w->cd = calloc(R, sizeof *w->cd);
    w->A = calloc(R * n, sizeof *w->A);
    w->bias = calloc(R, sizeof *w->bias);
    w->lam = calloc(R, sizeof *w->lam);
    w->viol = calloc(R, sizeof *w->viol);
    w->B = calloc(nm * n, sizeof *w->B);
    w->S = calloc(nm * nm, sizeof *w->S);
    w->mu = calloc(nm, sizeof *w->mu);
    w->tmp = calloc(n, sizeof *w->tmp);
    w->Jwa = calloc((size_t)6 * (m->n_xi ? m->n_xi : 1), sizeof *w->Jwa);
    w->Jwb = calloc((size_t)6 * (m->n_xi ? m->n_xi : 1), sizeof *w->Jwb);
    w->Rb = calloc((size_t)9 * m->spec->ncons, sizeof *w->Rb);
    if (!w->c || !w->cd || !w->A || !w->bias || !w->lam || !w->viol || !w->B || !w->S || !w->mu ||
        !w->tmp || !w->Jwa || !w->Jwb || !w->Rb)
        return -1;
    return 0;
}

void constraints_state_free(rod_state *st)
{
    struct con_work *w = st->con;
    if (!w) return;
    free(w->c);
    free(w->cd);
    free(w->A);
    free(w->bias);
    free(w->lam);
    free(w->viol);
    free(w->B);
    free(w->S);
    free(w->mu);
    free(w->tmp);
    free(w->Jwa);
    free(w->Jwb);
    free(w->Rb);
    free(w);
    st->con = NULL;
}
