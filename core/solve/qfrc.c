/* The generalized forces summed kind by kind (forces_by_kind, qfrc.h): the order of the sums is
 * the stages' order here, the same for statics (one vector for every kind) and dynamics. */
#include "qfrc.h"

#include "contact.h"
#include "flow.h"
#include "forces.h"
#include "muscle.h"

#include <string.h>

int forces_static(const rod_model *m, rod_state *st, const double *q, double t, double factor,
                  double *Q)
{
    double *const all[QFRC_KINDS] = {Q, Q, Q, Q, Q, Q, Q, Q};
    return forces_by_kind(m, st, q, t, factor, all);
}

int forces_by_kind(const rod_model *m, rod_state *st, const double *q, double t, double factor,
                   double *const *Qk)
{
    const rod_spec *sp = m->spec;
    static const int mine[4] = {QFRC_ACTUATOR, QFRC_LOAD, QFRC_CONTACT, QFRC_FLUID};
    for (int i = 0; i < 4; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++) seen |= Qk[mine[j]] == Qk[mine[i]];
        if (!seen) memset(Qk[mine[i]], 0, (size_t)m->n * sizeof *Qk[mine[i]]);
    }
    forces_gravity(m, st, q, factor, Qk[QFRC_LOAD]);
    for (int i = 0; i < m->ninputs; i++) {
        const model_input *in = &m->inputs[i];
        if (in->kind == INPUT_TARGET) continue; /* a constraint's, not a force */
        if (in->kind == INPUT_MUSCLE_BETA) {
            if (in->comp == 0 && muscle_forces(m, st, in->index, t, factor, Qk[QFRC_ACTUATOR]) != 0) return -1;
            continue;
        }
        if (in->kind == INPUT_LOAD && forces_load(m, st, i, t, factor, Qk[QFRC_LOAD]) != 0) return -1;
    }
    if (forces_actuators(m, st, q, t, factor, Qk[QFRC_ACTUATOR]) != 0) return -1;
    /* the environment: contacts (their damping and friction only with velocities) and
     * low-Reynolds drag */
    if (contact_forces(m, st, q, st->vel_eta, t, factor, Qk[QFRC_CONTACT], NULL, 0, NULL) != 0) return -1;
    if (sp->fluid_slender && st->vel_eta) flow_slender_body(m, st, q, st->vel_eta, factor, Qk[QFRC_FLUID]);
    return 0;
}
