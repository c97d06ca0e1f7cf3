/* How a run starts, the one place that orders it: the integrator prepared (the state at t = 0
 * at rest), the spec's static start ("initial": "static") solved from there, then the
 * integrator begun from that shape. */
#include "one_rod.h"
#include "integrator.h"

static int start(const rod_model *m, rod_state *st, int static_start)
{
    int rc = integrator_prepare(m, st);
    if (rc != ROD_OK) return rc;
    if (static_start) {
        rod_statics_result res;
        rc = statics_solve_one(m, st, 0.0, &res);
        if (rc != ROD_OK) return rc;
    }
    return integrator_begin(m, st);
}

int dynamics_start_one(const rod_model *m, rod_state *st)
{
    return start(m, st, m->spec->initial_static);
}

int dynamics_start_for_load_one(const rod_model *m, rod_state *st)
{
    return start(m, st, 0);
}
