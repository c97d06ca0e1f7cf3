/* The text exports (server/io/export_text.c) of a field subset, as recordings with `fields`
 * write them: the mechanics (a moving base and its bodies, constraints) come along whatever
 * the subset, and numbers JSON cannot hold are null in NDJSON and nan/inf in CSV. */
#include "export.h"
#include "frame_fields.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* example NAME's frame at its start, in *f (free with rod_frame_free), and its shape */
static rod_model *frame_of(const char *name, rod_frame *f, rod_frame *shape)
{
    char path[256];
    snprintf(path, sizeof path, "api/examples/%s.json", name);
    rod_model *m = rod_model_load(path, NULL, 0, NULL);
    cr_assert_not_null(m, "%s loads", path);
    char err[256];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    cr_assert_eq(rod_dynamics_start(m, st), ROD_OK);
    cr_assert_eq(rod_frame_compute(m, st, 4, f), ROD_OK);
    cr_assert_eq(rod_frame_shape(m, shape), ROD_OK);
    rod_state_free(st);
    return m;
}

/* the file fmt makes of f with the fields in mask, in memory (free it) */
static char *export_one(export_format fmt, unsigned mask, const rod_frame *f, const rod_frame *shape)
{
    export_meta meta = {4, mask, NULL, shape};
    char err[256];
    export_writer *w = export_open(fmt, NULL, &meta, err, sizeof err);
    cr_assert_not_null(w, "%s", err);
    cr_assert_eq(export_frame(w, f, err, sizeof err), 0, "%s", err);
    char *image = NULL;
    size_t len = 0;
    cr_assert_eq(export_close(w, &image, &len, err, sizeof err), 0, "%s", err);
    char *text = malloc(len + 1);
    memcpy(text, image, len);
    text[len] = '\0';
    free(image);
    return text;
}

Test(export_text, a_subset_keeps_the_base_and_bodies)
{
    rod_frame f, shape;
    rod_model *m = frame_of("shaken-rod-with-payload", &f, &shape);
    char *nd = export_one(EXPORT_NDJSON, FRAME_F_POSITION | FRAME_F_ENERGY | FRAME_F_VOLUME, &f, &shape);
    cr_assert(strstr(nd, "\"position\":[["), "%s", nd);
    cr_assert(strstr(nd, "\"energy\":{\"kinetic\":"), "%s", nd);
    cr_assert(strstr(nd, "\"volume_change\":"), "%s", nd);
    cr_assert(strstr(nd, "\"base\":{\"position\":["), "the moving base comes along: %s", nd);
    cr_assert(strstr(nd, "\"bodies\":{"), "the bodies come along: %s", nd);
    cr_assert_null(strstr(nd, "\"rho\""), "no field outside the subset: %s", nd);
    free(nd);
    rod_frame_free(&f);
    rod_frame_free(&shape);
    rod_model_free(m);
}

Test(export_text, a_subset_keeps_the_constraints)
{
    rod_frame f, shape;
    rod_model *m = frame_of("octopus-reaching-incompressible", &f, &shape);
    char *nd = export_one(EXPORT_NDJSON, FRAME_F_RHO, &f, &shape);
    cr_assert(strstr(nd, "\"constraints\":{"), "%s", nd);
    cr_assert(strstr(nd, "\"pressure\":"), "the volume constraint's pressure: %s", nd);
    cr_assert(strstr(nd, "\"violation\":"), "%s", nd);
    free(nd);
    rod_frame_free(&f);
    rod_frame_free(&shape);
    rod_model_free(m);
    m = frame_of("euler-column", &f, &shape);
    nd = export_one(EXPORT_NDJSON, FRAME_F_S, &f, &shape);
    cr_assert(strstr(nd, "\"target\":["), "a pose constraint's target: %s", nd);
    free(nd);
    rod_frame_free(&f);
    rod_frame_free(&shape);
    rod_model_free(m);
}

Test(export_text, numbers_json_cannot_hold_are_null_in_ndjson_and_named_in_csv)
{
    rod_frame f, shape;
    rod_model *m = frame_of("euler-column", &f, &shape);
    f.e_kinetic = NAN;
    f.e_elastic = INFINITY;
    f.e_gravity = -INFINITY;
    char *nd = export_one(EXPORT_NDJSON, FRAME_F_ENERGY, &f, &shape);
    cr_assert(strstr(nd, "\"energy\":{\"kinetic\":null,\"elastic\":null,\"gravity\":null}"), "%s", nd);
    free(nd);
    char *csv = export_one(EXPORT_CSV, FRAME_F_ENERGY, &f, &shape);
    cr_assert(strstr(csv, "nan,inf,-inf"), "%s", csv);
    free(csv);
    rod_frame_free(&f);
    rod_frame_free(&shape);
    rod_model_free(m);
}
