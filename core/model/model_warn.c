/* The compiled model's warnings: its spec's (spec_warn.c), for whoever shows them; in a model
 * of several rods each rod's under its own path (the stubs carrying bodies have none). */
#include "assembly.h"
#include "issues.h"
#include "model.h"
#include "spec.h"

#include <stdio.h>

void rod_model_warnings(const rod_model *m, rod_issues *out)
{
    if (!m->as) {
        spec_warnings(m->spec, out);
        return;
    }
    /* the several-rod integrator (asm_integrator.c) is CVODE's BDF with a difference Jacobian
     * taken rod by rod: a choice of the one-rod integrators would otherwise be dropped unsaid */
    const rod_spec *sv = m->as->rod[0]->spec;
    if (sv->integrator == INTEGRATOR_GALPHA)
        issues_add(out, "/solver/integrator", "a model of several rods runs BDF (CVODE); generalized-alpha "
                   "is for one rod: this setting and /solver/step are not used");
    if (sv->jacobian_elastic)
        issues_add(out, "/solver/jacobian", "a model of several rods takes its Newton matrix by differences, "
                   "rod by rod: \"%s\" is not used", sv->jacobian_contact ? "contact" : "elastic");
    for (int i = 0; i < m->as->nreal; i++) {
        rod_issues one;
        rod_issues_init(&one);
        spec_warnings(m->as->rod[i]->spec, &one);
        for (int k = 0; k < one.count; k++) {
            char path[512];
            snprintf(path, sizeof path, "/rods/%d%s", i, one.items[k].path);
            issues_add(out, path, "%s", one.items[k].message);
        }
        rod_issues_free(&one);
    }
}
