/* A checkpoint keeps an input's constant only when a command changed it from the spec's
 * (core/solve/checkpoint.c): compared value by value, whatever the padding of the profile
 * structs holds. */
#include "state.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static const char *SPEC =
    "{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
    "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 2}, "
    "\"loads\": [{\"name\": \"push\", \"type\": \"tip_force\", \"force\": [1, 0, 0], \"scale\": 0.25}]}";

Test(checkpoint_inputs, the_specs_own_constant_is_not_saved_whatever_the_padding)
{
    rod_model *m = tu_model(SPEC);
    char err[128];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    /* the spec's constant, written field by field over bytes that are not zero */
    const profile orig = st->input[0];
    cr_assert_eq(orig.kind, PROFILE_CONST);
    memset(&st->input[0], 0xa5, sizeof st->input[0]);
    st->input[0].kind = orig.kind;
    st->input[0].v.expr = orig.v.expr;
    st->input[0].v.value = orig.v.value;
    st->input[0].alpha = orig.alpha;
    st->input[0].mu = orig.mu;
    st->input[0].sigma = orig.sigma;
    st->input[0].uses_X = orig.uses_X;
    char *saved = rod_state_save(m, st);
    cr_assert_not_null(saved);
    cr_assert_null(strstr(saved, "\"push\""), "%s", saved);
    free(saved);

    cr_assert_eq(rod_state_set_input(st, "push", 0.5), ROD_OK);
    saved = rod_state_save(m, st);
    cr_assert_not_null(strstr(saved, "\"inputs\":{\"push\":0.5}"), "%s", saved);
    free(saved);
    rod_state_free(st);
    rod_model_free(m);
}
