#define _GNU_SOURCE /* memmem */
/* The exports of a model of several rods (issue 29), from frames built by hand (rods_frame.h):
 * CSV gains a "rod" column and its rows go rod by rod; NDJSON is the codec's FRAME with "rods";
 * MCAP has a scene and a tip channel per rod. HDF5's rods/NAME groups are checked end to end
 * (clients/python/tests), unit tests link no HDF5. */
#include "export.h"
#include "foxglove_channels.h"
#include "frame_codec.h"
#include "frame_fields.h"
#include "recording.h"
#include "rods_frame.h"
#include "testutil.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const NAMES[] = {"arm1", "arm2"};
static const int POINTS[] = {3, 3};

static char *export_two(export_format fmt, unsigned mask, int contacts, size_t *len)
{
    rod_frame shape = rf_shape(2, NAMES, POINTS, contacts);
    export_meta meta = {3, mask, NULL, &shape};
    char err[256];
    export_writer *w = export_open(fmt, NULL, &meta, err, sizeof err);
    cr_assert_not_null(w, "%s", err);
    for (int k = 0; k < 2; k++) {
        rod_frame f = rf_build(0.5 * k, 2, NAMES, POINTS, contacts);
        cr_assert_eq(export_frame(w, &f, err, sizeof err), 0, "%s", err);
        rod_frame_free(&f);
    }
    char *image = NULL;
    cr_assert_eq(export_close(w, &image, len, err, sizeof err), 0, "%s", err);
    rod_frame_free(&shape);
    char *text = realloc(image, *len + 1);
    text[*len] = '\0';
    return text;
}

Test(export_rods, csv_has_a_rod_column_and_rows_rod_by_rod)
{
    size_t len;
    char *csv = export_two(EXPORT_CSV, FRAME_F_S | FRAME_F_POSITION | FRAME_F_ENERGY, 1, &len);
    const char *header = "t,rod,point,s,x,y,z,e_kinetic,e_elastic,e_gravity,bodies.hub.x,bodies.hub.y,bodies.hub.z,"
                         "bodies.arm1.tip_mass.x,bodies.arm1.tip_mass.y,bodies.arm1.tip_mass.z,";
    cr_assert_eq(strncmp(csv, header, strlen(header)), 0, "%s", csv);
    cr_assert(strstr(csv, "\n0,arm1,0,0,0,0,0,1.5,0.25,-2,0,0,-0.1,"), "%s", csv);
    cr_assert(strstr(csv, "\n0,arm2,2,0.2,1,2,0,1.5,"), "%s", csv);
    cr_assert(strstr(csv, "\n0.5,arm2,0,0,1,0,0.25,"), "%s", csv);
    /* per frame: 2 rods x 3 points, then 2 contacts on arm2 naming it */
    int lines = 0, contact_rows = 0;
    for (const char *p = csv; (p = strchr(p, '\n')); p++) {
        lines++;
        if (strncmp(p + 1, "0,arm2,,,,,,", 12) == 0 || strncmp(p + 1, "0.5,arm2,,,,,,", 14) == 0) contact_rows++;
    }
    cr_assert_eq(lines, 1 + 2 * (6 + 2));
    cr_assert_eq(contact_rows, 4, "%s", csv);
    free(csv);
}

Test(export_rods, ndjson_frames_hold_rods)
{
    size_t len;
    char *nd = export_two(EXPORT_NDJSON, FRAME_F_ALL, 0, &len);
    char *second = strchr(nd, '\n');
    cr_assert_not_null(second);
    *second = '\0';
    cJSON *o = cJSON_Parse(nd);
    cr_assert_not_null(o, "%s", nd);
    const cJSON *rods = cJSON_GetObjectItem(o, "rods");
    cr_assert_eq(cJSON_GetArraySize(rods), 2);
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(rods, 1), "name")->valuestring, "arm2");
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(rods, 1), "kappa")), 3);
    cr_assert_not_null(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "constraints"), "arm2.base"));
    cJSON_Delete(o);
    free(nd);
}

Test(export_rods, mcap_has_a_scene_and_a_tip_per_rod)
{
    size_t len;
    char *image = export_two(EXPORT_MCAP, FRAME_F_ALL, 0, &len);
    static const char *const topics[] = {"/rods/arm1/scene", "/rods/arm1/tip", "/rods/arm2/scene",
                                         "/rods/arm2/tip", "/rod/energy"};
    for (int i = 0; i < 5; i++) cr_assert_not_null(memmem(image, len, topics[i], strlen(topics[i])), "%s", topics[i]);
    cr_assert_null(memmem(image, len, "/rod/scene", 10), "no one-rod scene");
    free(image);
}

Test(export_rods, a_frame_of_other_rods_is_refused)
{
    rod_frame shape = rf_shape(2, NAMES, POINTS, 0);
    export_meta meta = {3, FRAME_F_S, NULL, &shape};
    char err[256];
    export_writer *w = export_open(EXPORT_CSV, NULL, &meta, err, sizeof err);
    cr_assert_not_null(w, "%s", err);
    static const char *const other[] = {"arm1", "arm3"};
    rod_frame f = rf_build(0, 2, other, POINTS, 0);
    cr_assert_neq(export_frame(w, &f, err, sizeof err), 0);
    rod_frame_free(&f);
    static const int short_points[] = {3, 2};
    f = rf_build(0, 2, NAMES, short_points, 0);
    cr_assert_neq(export_frame(w, &f, err, sizeof err), 0);
    cr_assert(strstr(err, "rod arm2"), "%s", err);
    rod_frame_free(&f);
    export_abort(w);
    rod_frame_free(&shape);
}

/* A recording (server/io/recording.c) of frames of several rods: each rod's fields packed rod
 * after rod and the contacts' rods kept, read back through an export as they went in. */
Test(export_rods, a_recording_keeps_every_rod_and_the_contacts_rods)
{
    rod_frame shape = rf_shape(2, NAMES, POINTS, 1);
    recording_opts o;
    recording_opts_default(&o);
    o.enabled = 1;
    o.rate = 10;
    char err[256];
    recording *r = recording_open("", "rods", 3, &shape, &o, NULL, err, sizeof err);
    cr_assert_not_null(r, "%s", err);
    for (int k = 0; k < 3; k++) {
        rod_frame f = rf_build(0.1 * k, 2, NAMES, POINTS, 1);
        recording_add(r, &f);
        rod_frame_free(&f);
    }
    char path[] = "/tmp/rodd-rods-XXXXXX";
    const int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert_eq(recording_export(r, EXPORT_NDJSON, 0, 1, NULL, path, err, sizeof err), 3, "%s", err);
    char *text = tu_read_file(path);
    cr_assert_not_null(text);
    /* the third frame as the codec writes it directly */
    rod_frame f = rf_build(0.2, 2, NAMES, POINTS, 1);
    char *want = frame_codec_json_text(&f);
    cr_assert(strstr(text, want), "recorded:\n%s\nwanted:\n%s", text, want);
    cr_assert(strstr(text, "{\"rod\":\"arm2\",\"s\":0.1,"), "%s", text);
    free(want);
    free(text);
    rod_frame_free(&f);
    unlink(path);
    recording_close(r, 1);
    rod_frame_free(&shape);
}

/* The live Foxglove stream's messages of a frame of several rods: an entity per rod in the
 * scene, the first rod's tip (it read past an empty position array before). */
Test(export_rods, foxglove_messages_of_several_rods)
{
    rod_frame f = rf_build(0.5, 2, NAMES, POINTS, 0);
    size_t len;
    char *scene = fox_message(FOX_SCENE, &f, FRAME_F_ALL, &len);
    cJSON *o = cJSON_Parse(scene);
    cr_assert_not_null(o, "%s", scene);
    const cJSON *ents = cJSON_GetObjectItem(o, "entities");
    cr_assert_eq(cJSON_GetArraySize(ents), 2);
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(ents, 1), "id")->valuestring, "arm2");
    const cJSON *line = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(ents, 1), "lines"), 0);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(line, "points")), 3);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(ents, 0), "cylinders")), 2);
    char *tip = fox_message(FOX_TIP, &f, FRAME_F_ALL, &len);
    cr_assert_str_eq(tip, "{\"t\":0.5,\"x\":0,\"y\":2,\"z\":0.25}");
    free(tip);
    cJSON_Delete(o);
    free(scene);
    rod_frame_free(&f);
}
