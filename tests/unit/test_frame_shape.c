/* rod_frame_shape: the layout an export or a recording makes before the first frame is what
 * every computed frame of the model has (constraints and their kinds, bodies, a moving or free
 * base, contacts), for each shipped example with such mechanics and one without. */
#include "rod.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static void same_shape(const char *example)
{
    char path[256], err[256];
    snprintf(path, sizeof path, "api/examples/%s.json", example);
    rod_issues iss;
    rod_issues_init(&iss);
    rod_model *m = rod_model_load(path, NULL, 0, &iss);
    rod_issues_free(&iss);
    cr_assert_not_null(m, "%s", path);
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    cr_assert_eq(rod_dynamics_start(m, st), ROD_OK, "%s: %s", example, rod_state_error(st));
    cr_assert_eq(rod_dynamics_advance(m, st, 0.01), ROD_OK, "%s: %s", example, rod_state_error(st));
    rod_frame shape, f;
    cr_assert_eq(rod_frame_shape(m, &shape), ROD_OK);
    cr_assert_eq(rod_frame_compute(m, st, 5, &f), ROD_OK);
    cr_assert(shape.n == 0 && !shape.position && !shape.s && shape.ncontacts == 0, "%s: a shape has no values", example);
    cr_assert_eq(shape.base_moving, f.base_moving, "%s: base", example);
    cr_assert_eq(shape.has_contacts, f.has_contacts, "%s: contacts", example);
    cr_assert_eq(shape.ncons, f.ncons, "%s: constraints", example);
    for (int i = 0; i < f.ncons; i++) {
        cr_assert_str_eq(shape.cons[i].name, f.cons[i].name, "%s", example);
        cr_assert_eq(shape.cons[i].volume, f.cons[i].volume, "%s: %s", example, f.cons[i].name);
    }
    cr_assert_eq(shape.nbodies, f.nbodies, "%s: bodies", example);
    for (int i = 0; i < f.nbodies; i++) cr_assert_str_eq(shape.bodies[i].name, f.bodies[i].name, "%s", example);
    rod_frame_free(&shape);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

Test(frame_shape, is_what_every_frame_of_the_model_has)
{
    const char *examples[] = {"shaken-rod-with-payload", "free-floating", "euler-column",
                              "octopus-reaching-incompressible", "octopus-grasp", "octopus-reaching"};
    for (size_t i = 0; i < sizeof examples / sizeof *examples; i++) same_shape(examples[i]);
}

Test(frame_shape, says_which_mechanics_a_model_has)
{
    const char *yes[][4] = {{"shaken-rod-with-payload", "base", "bodies", NULL}, {"euler-column", "constraints", NULL, NULL},
                            {"octopus-grasp", "contacts", NULL, NULL}};
    for (size_t k = 0; k < sizeof yes / sizeof *yes; k++) {
        char path[256];
        snprintf(path, sizeof path, "api/examples/%s.json", yes[k][0]);
        rod_issues iss;
        rod_issues_init(&iss);
        rod_model *m = rod_model_load(path, NULL, 0, &iss);
        rod_issues_free(&iss);
        cr_assert_not_null(m);
        rod_frame s;
        cr_assert_eq(rod_frame_shape(m, &s), ROD_OK);
        int want[4] = {0}; /* base, bodies, constraints, contacts */
        const char *names[4] = {"base", "bodies", "constraints", "contacts"};
        for (int j = 1; j < 4 && yes[k][j]; j++)
            for (int n = 0; n < 4; n++) want[n] |= strcmp(yes[k][j], names[n]) == 0;
        const int got[4] = {s.base_moving, s.nbodies > 0, s.ncons > 0, s.has_contacts};
        for (int n = 0; n < 4; n++) cr_assert_eq(got[n], want[n], "%s: %s", yes[k][0], names[n]);
        rod_frame_free(&s);
        rod_model_free(m);
    }
}
