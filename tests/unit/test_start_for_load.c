/* rod_dynamics_start_for_load starts the integrator without the spec's static start, which a
 * checkpoint is about to replace (a daemon restoring its sessions, issue 10's checkpoint fuzzer
 * found a restore that spent 10 s on a solve it threw away); the checkpoint's state is then the
 * state, whatever the static start would have found. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* one Newton iteration cannot reach the bent equilibrium: the static start fails */
static const char *spec =
    "{\"model\": \"classic\", \"rod\": {\"length\": 0.3, \"radius\": 0.01, \"density\": 1000,"
    " \"youngs_modulus\": 1e5, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 3},"
    " \"loads\": [{\"name\": \"push\", \"type\": \"tip_force\", \"force\": [0.05, 0, 0]}],"
    " \"initial\": \"static\", \"solver\": {\"max_iterations\": 1, \"load_steps\": 1}}";

Test(start_for_load, skips_the_static_start_and_takes_the_checkpoints_state)
{
    rod_model *m = tu_model(spec);
    char err[256];
    rod_state *a = rod_state_create(m, err, sizeof err);
    cr_assert_neq(rod_dynamics_start(m, a), ROD_OK, "the static start cannot converge in one iteration");
    rod_state *b = rod_state_create(m, err, sizeof err);
    cr_assert_eq(rod_dynamics_start_for_load(m, b), ROD_OK, "%s", rod_state_error(b));
    /* a checkpoint of some other state: its q, t and inputs come back */
    rod_state *c = rod_state_create(m, err, sizeof err);
    cr_assert_eq(rod_dynamics_start_for_load(m, c), ROD_OK);
    cr_assert_eq(rod_state_set_input(c, "push", 0.2), ROD_OK);
    cr_assert_eq(rod_dynamics_advance(m, c, 0.01), ROD_OK, "%s", rod_state_error(c));
    char *ck = rod_state_save(m, c);
    cr_assert_not_null(ck);
    cr_assert_eq(rod_state_load(m, b, ck, strlen(ck)), ROD_OK, "%s", rod_state_error(b));
    cr_assert_eq(rod_state_time(b), rod_state_time(c));
    cr_assert_eq(memcmp(rod_state_q(b), rod_state_q(c), (size_t)rod_model_ndof(m) * sizeof(double)), 0);
    cr_assert_eq(rod_dynamics_advance(m, b, 0.02), ROD_OK, "%s", rod_state_error(b));
    free(ck);
    rod_state_free(a);
    rod_state_free(b);
    rod_state_free(c);
    rod_model_free(m);
}
