/* The compiled model's warnings: its spec's (spec_warn.c), for whoever shows them; in a model
 * of several rods each rod's under its own path (the stubs carrying bodies have none). */
#include "assembly.h"
#include "issues.h"
#include "model.h"

#include <stdio.h>

void rod_model_warnings(const rod_model *m, rod_issues *out)
{
    if (!m->as) {
        spec_warnings(m->spec, out);
        return;
    }
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
