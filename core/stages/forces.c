#include "forces.h"
#include "state.h"
#include "vec3.h"
#include "vector_clones.h"

#include <math.h>
#include <string.h>

void forces_cable_route(const rod_model *m, const spec_actuator *a, double s, double d[3],
                        double dd[3])
{
    const rod_spec *sp = m->spec;
    const double z = sp->radius_base + (sp->radius_tip - sp->radius_base) * s / m->L;
    const double dz = (sp->radius_tip - sp->radius_base) / m->L;
    const double sc = a->relative ? z : 1.0, dsc = a->relative ? dz : 0.0;
    d[2] = dd[2] = 0.0;
    if (a->route == ROUTE_OFFSET) {
        for (int i = 0; i < 2; i++) {
            d[i] = a->offset[i] * sc;
            dd[i] = a->offset[i] * dsc;
        }
        return;
    }
    const double ang = a->helix_phase + 2 * M_PI * a->helix_turns * s / m->L;
    const double dang = 2 * M_PI * a->helix_turns / m->L;
    const double r = a->helix_radius * sc, dr = a->helix_radius * dsc;
    d[0] = r * cos(ang);
    d[1] = r * sin(ang);
    dd[0] = dr * cos(ang) - r * sin(ang) * dang;
    dd[1] = dr * sin(ang) + r * cos(ang) * dang;
}

/* Cables and transverse pressures (Eqs. 29, 53), station by station: rho, rho' and xi once per
 * station for all of them, and one update of Q per station with their summed wrench (a
 * cable's generalized force is Phi_xi^T of its wrench on the section) and their summed weights
 * on Phi_rho and Phi_rho'. Each profile's time-only parts once per call. */
int forces_actuators(const rod_model *m, rod_state *st, const double *q, double t,
                     double factor, double *Q)
{
    const rod_spec *sp = m->spec;
    const int nx = m->n_xi, nr = m->n_rho;
    struct {
        const spec_actuator *a;
        input_at_t pt;
    } act[SPEC_MAX_INPUTS];
    int na = 0;
    for (int i = 0; i < m->ninputs && na < SPEC_MAX_INPUTS; i++) {
        if (m->inputs[i].kind != INPUT_ACTUATOR) continue;
        act[na].a = &sp->acts[m->inputs[i].index];
        state_input_fix_t(st, i, t, &act[na].pt); /* a command's ramp included */
        na++;
    }
    if (!na) return 0;
    const int cable_work_on_rho = nr && !sp->authors.no_cable_work_on_inflation;
    for (int k = 0; k < m->ns; k++) {
        const double s = m->s[k];
        if (m->w[k] == 0) continue;
        const double X = s / m->L;
        double rho = 1.0, drho = 0.0, xi[6];
        for (int j = 0; j < nr; j++) {
            rho += m->phr[(size_t)k * nr + j] * q[nx + j];
            drho += m->dphr[(size_t)k * nr + j] * q[nx + j];
        }
        int have_xi = 0, cables = 0;
        /* W: the cables' wrench; on Phi_rho: the pressures' r and the cables' t.(kappa x d + d')
         * terms; on Phi_rho': the cables' t.d, each times minus its tension */
        double W[6] = {0}, on_phi = 0.0, on_dphi = 0.0;
        for (int i = 0; i < na; i++) {
            const spec_actuator *a = act[i].a;
            if (s < a->span[0] || s > a->span[1]) continue;
            const double val = state_actuator_value(state_input_at_X(&act[i].pt, st->ev, X));
            if (!isfinite(val)) {
                state_set_error(st, "actuator %s: value is not finite at t = %g, s = %g", a->name, t, s);
                return -1;
            }
            if (val == 0) continue;
            if (a->type == ACT_TRANSVERSE) {
                /* r = 2 pi z^2 f0 with f0 = -p (Eq. 29): Q_rho += Phi_rho^T r */
                on_phi += -2.0 * M_PI * m->sec[k].z * m->sec[k].z * val;
                continue;
            }
            if (!have_xi) {
                model_xi(m, m->leg + (size_t)k * nx, model_xis_at(m, k), q, xi);
                have_xi = 1;
            }
            /* cable: tangent of r_c = r + rho R d in the body frame,
             * t ~ nu + kappa x (rho d) + rho' d + rho d' (Sec. 3.2) */
            double d[3], dd[3], rd[3], c[3], tv[3];
            forces_cable_route(m, a, s, d, dd);
            for (int i3 = 0; i3 < 3; i3++) rd[i3] = rho * d[i3];
            vec3_cross(xi, rd, c);
            for (int i3 = 0; i3 < 3; i3++) tv[i3] = xi[3 + i3] + c[i3] + drho * d[i3] + rho * dd[i3];
            const double tn = sqrt(tv[0] * tv[0] + tv[1] * tv[1] + tv[2] * tv[2]);
            if (!(tn > 0)) continue;
            /* one division, not three: their latency sat on each station's chain */
            const double inv_tn = 1.0 / tn;
            for (int i3 = 0; i3 < 3; i3++) tv[i3] *= inv_tn;
            /* Phi_a u with u = -T (Eq. 53): the cable's wrench on the section */
            double Wc[3];
            vec3_cross(rd, tv, Wc);
            for (int i3 = 0; i3 < 3; i3++) {
                W[i3] -= val * Wc[i3];
                W[3 + i3] -= val * tv[i3];
            }
            cables = 1;
            if (!cable_work_on_rho) continue;
            /* The cable's work on the inflation: its route r + rho R d moves with rho and rho',
             * so -T dl/dq_rho = -T int [Phi_rho t.(kappa x d + d') + Phi_rho' t.d] ds. The paper
             * leaves this out of Eq. 56; without it a pulled cable is not conservative and a
             * damped rod can flutter instead of settling. */
            double kd[3];
            vec3_cross(xi, d, kd);
            on_phi -= val * (tv[0] * (kd[0] + dd[0]) + tv[1] * (kd[1] + dd[1]) + tv[2] * (kd[2] + dd[2]));
            on_dphi -= val * (tv[0] * d[0] + tv[1] * d[1] + tv[2] * d[2]);
        }
        const double wk = factor * m->w[k];
        if (cables) {
            const double *leg = m->leg + (size_t)k * nx;
            for (int c = 0; c < 6; c++) /* the columns come grouped by component */
                for (int j = m->comp_first[c]; j < m->comp_first[c + 1]; j++) Q[j] += wk * leg[j] * W[c];
        }
        if (on_phi != 0.0 || on_dphi != 0.0)
            for (int j = 0; j < nr; j++)
                Q[nx + j] += wk * (m->phr[(size_t)k * nr + j] * on_phi + m->dphr[(size_t)k * nr + j] * on_dphi);
    }
    return 0;
}

VECTOR_CLONES
void forces_gravity(const rod_model *m, const rod_state *st, const double *q, double factor,
                    double *Q)
{
    const int nx = m->n_xi, nr = m->n_rho;
    /* gravity and buoyancy, f_b = (rho0 - rho_a) A G (Sec. 3.3); the mass per unit length is
     * rho0 A0, or rho0 rho^2 A0 under the paper's inertia */
    const double gn = fabs(m->grav[0]) + fabs(m->grav[1]) + fabs(m->grav[2]);
    if (gn > 0) {
        for (int k = 0; k < m->ns; k++) {
            if (m->w[k] == 0) continue;
            double rho = 1.0;
            for (int j = 0; j < nr; j++) rho += m->phr[(size_t)k * nr + j] * q[nx + j];
            const double mass = (m->rho0 - m->fluid_rho) * m->sec[k].A0 * model_mass_factor(m, rho);
            double f[3] = {mass * m->grav[0], mass * m->grav[1], mass * m->grav[2]}, W[6] = {0};
            vec3_rot_t(st->g[k].R, f, W + 3);
            state_add_wrench(m, st, k, W, factor * m->w[k], Q);
        }
    }
}

int forces_load(const rod_model *m, rod_state *st, int i, double t, double factor, double *Q)
{
    const model_input *in = &m->inputs[i];
    const rod_spec *sp = m->spec;
    const spec_load *l = &sp->loads[in->index];
    const double sc = state_input_value(st, i, t, l->s / m->L);
    if (!isfinite(sc)) {
        state_set_error(st, "load %s: scale is not finite at t = %g", l->name, t);
        return -1;
    }
    double v[3] = {l->vec[0] * sc, l->vec[1] * sc, l->vec[2] * sc};
    const int is_moment = l->type == LOAD_TIP_MOMENT || l->type == LOAD_POINT_MOMENT ||
                          l->type == LOAD_DIST_MOMENT;
    const int dist = l->type == LOAD_DIST_FORCE || l->type == LOAD_DIST_MOMENT;
    /* a point load at its station; a distributed one by the stations' quadrature */
    const int k0 = dist ? 0 : m->load_station[in->index], k1 = dist ? m->ns : k0 + 1;
    for (int k = k0; k < k1; k++) {
        const double wk = dist ? m->w[k] : 1.0;
        if (wk == 0) continue;
        double W[6] = {0}, *dst = is_moment ? W : W + 3;
        if (l->local)
            memcpy(dst, v, sizeof v);
        else
            vec3_rot_t(st->g[k].R, v, dst);
        state_add_wrench(m, st, k, W, factor * wk, Q);
    }
    return 0;
}
