/* The compiled model's warnings: its spec's (spec_warn.c), for whoever shows them. */
#include "model.h"

void rod_model_warnings(const rod_model *m, rod_issues *out)
{
    spec_warnings(m->spec, out);
}
