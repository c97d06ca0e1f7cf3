/* The most obstacles a spec may have (SPEC_MAX_OBSTACLES) all act, the last one too, and one
 * more is refused: core/stages/contact.c keeps per-obstacle arrays of that length. */
#include "spec.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A straight rod along z with n planes: all but the last 1 m away, the last 2 mm into it. */
static char *spec_with_planes(int n)
{
    const size_t cap = 512 + (size_t)n * 128;
    char *s = malloc(cap);
    cr_assert_not_null(s);
    int len = snprintf(s, cap,
                       "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
                       "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 2}, "
                       "\"environment\": {\"obstacles\": [");
    for (int i = 0; i < n; i++)
        len += snprintf(s + len, cap - (size_t)len,
                        "%s{\"type\": \"plane\", \"point\": [%s, 0, 0], \"normal\": [1, 0, 0], \"stiffness\": 1e3}",
                        i ? ", " : "", i == n - 1 ? "-0.008" : "-1");
    snprintf(s + len, cap - (size_t)len, "]}}");
    return s;
}

Test(contact_limits, the_last_of_the_most_obstacles_a_spec_may_have_acts)
{
    char *json = spec_with_planes(SPEC_MAX_OBSTACLES);
    rod_model *m = tu_model(json);
    char err[128];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    rod_frame f = tu_frame(m, st, 3);
    cr_assert_gt(f.ncontacts, 10, "%d contacts with the last plane", f.ncontacts);
    for (int i = 0; i < f.ncontacts; i++)
        cr_assert_gt(f.contact_force[3 * i], 0.0, "contact %d pushes along -x", i);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
    free(json);
}

Test(contact_limits, one_obstacle_more_is_refused)
{
    char *json = spec_with_planes(SPEC_MAX_OBSTACLES + 1);
    char want[64];
    snprintf(want, sizeof want, "at most %d obstacles", SPEC_MAX_OBSTACLES);
    const char *issues = tu_issues(json);
    cr_assert_not_null(strstr(issues, want), "%s", issues);
    free(json);
}
