/* The FRAME's writers (server/io/frame_codec.c): the text and the tree say the same, every
 * number has 10 significant digits, chosen fields leave the rest out, and a frame of several
 * rods (built by hand: rods_frame.h) is written as issue 29's contract has it, in JSON and in
 * the binary stream's version 2. */
#include "frame_codec.h"
#include "frame_fields.h"
#include "rods_frame.h"
#include "testutil.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void same_vec(const cJSON *a, const cJSON *b, const char *what, int i)
{
    cr_assert(cJSON_IsArray(a) && cJSON_IsArray(b), "contact %d %s: not arrays", i, what);
    cr_assert_eq(cJSON_GetArraySize(a), 3, "contact %d %s: %d values in the text", i, what, cJSON_GetArraySize(a));
    cr_assert_eq(cJSON_GetArraySize(b), 3);
    for (int k = 0; k < 3; k++) {
        const cJSON *x = cJSON_GetArrayItem(a, k), *y = cJSON_GetArrayItem(b, k);
        cr_assert(cJSON_IsNumber(x) && cJSON_IsNumber(y), "contact %d %s[%d]: not a number", i, what, k);
        cr_assert_eq(x->valuedouble, y->valuedouble, "contact %d %s[%d]: %.17g vs %.17g", i, what, k,
                     x->valuedouble, y->valuedouble);
    }
}

Test(frame_codec, contacts_are_flat_triples_in_text_and_tree)
{
    /* a straight rod 2 mm into a plane along it: every contact point touches */
    rod_model *m = tu_model("{\"model\": \"classic\", \"rod\": {\"length\": 0.5, \"radius\": 0.01, \"density\": 1000, "
                            "\"youngs_modulus\": 1e6, \"poisson_ratio\": 0.45}, \"strains\": {\"bend2\": 2}, "
                            "\"environment\": {\"obstacles\": [{\"type\": \"plane\", \"point\": [-0.008, 0, 0], "
                            "\"normal\": [1, 0, 0], \"stiffness\": 1e3}]}}");
    char err[128];
    rod_state *st = rod_state_create(m, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    rod_frame f = tu_frame(m, st, 3);
    cr_assert_gt(f.ncontacts, 10);
    char *text = frame_codec_json_text(&f);
    cJSON *a = cJSON_Parse(text), *b = frame_codec_cjson(&f);
    cr_assert_not_null(a, "the text is not JSON");
    const cJSON *ca = cJSON_GetObjectItem(a, "contacts"), *cb = cJSON_GetObjectItem(b, "contacts");
    cr_assert_eq(cJSON_GetArraySize(ca), f.ncontacts);
    cr_assert_eq(cJSON_GetArraySize(cb), f.ncontacts);
    for (int i = 0; i < f.ncontacts; i++) {
        const cJSON *x = cJSON_GetArrayItem(ca, i), *y = cJSON_GetArrayItem(cb, i);
        cr_assert_null(cJSON_GetObjectItem(x, "rod"), "one rod: contacts name no rod");
        same_vec(cJSON_GetObjectItem(x, "point"), cJSON_GetObjectItem(y, "point"), "point", i);
        same_vec(cJSON_GetObjectItem(x, "force"), cJSON_GetObjectItem(y, "force"), "force", i);
        cr_assert_float_eq(cJSON_GetObjectItem(x, "s")->valuedouble, f.contact_s[i], 1e-9);
    }
    /* the tree prints the text's numbers: 10 digits, not cJSON's 17 */
    char *printed = cJSON_PrintUnformatted(b);
    cr_assert_str_eq(printed, text);
    free(printed);
    cJSON_Delete(a);
    cJSON_Delete(b);
    free(text);
    rod_frame_free(&f);
    rod_state_free(st);
    rod_model_free(m);
}

/* a one-rod frame of two points with values that need every digit */
static rod_frame one_rod(void)
{
    const char *names[] = {"r"};
    const int pts[] = {2};
    rod_frame multi = rf_build(1.0 / 3.0, 1, names, pts, 0);
    rod_frame f = multi.rods[0]; /* the rod's arrays become the frame's own */
    memset(&multi.rods[0], 0, sizeof multi.rods[0]);
    rod_frame_free(&multi);
    f.name[0] = '\0';
    f.e_kinetic = 2.0 / 3.0;
    f.volume_change = -1e-20;
    return f;
}

Test(frame_codec, one_rod_json_to_ten_digits_in_the_frames_order)
{
    rod_frame f = one_rod();
    char *text = frame_codec_json_text(&f);
    cr_assert_str_eq(text,
                     "{\"t\":0.3333333333,\"s\":[0,0.1],\"position\":[[0,0,0.1666666667],[0,1,0.1666666667]],"
                     "\"rotation\":[[1,0,0,0,1,0,0,0,1],[1,0,0,0,1,0,0,0,1]],\"rho\":[1,1],\"radius\":[0.01,0.01],"
                     "\"kappa\":[[0,0,0.3333333333],[0,0.01,0.3333333333]],\"nu\":[[0,0,1],[0,0,1]],"
                     "\"energy\":{\"kinetic\":0.6666666667,\"elastic\":0,\"gravity\":0},\"volume_change\":-1e-20}");
    free(text);
    /* chosen fields, with the stream's head and without the mechanics; non-finite is null */
    f.position[0] = NAN;
    codec_buf b = {0};
    cr_assert_eq(frame_codec_json(&b, &f, FRAME_F_POSITION | FRAME_F_VOLUME, 0, "\"seq\":7,"), 0);
    cr_assert_str_eq(b.b, "{\"seq\":7,\"t\":0.3333333333,\"position\":[[null,0,0.1666666667],[0,1,0.1666666667]],"
                          "\"volume_change\":-1e-20}");
    free(b.b);
    rod_frame_free(&f);
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float rdf(const unsigned char *p)
{
    uint32_t u = rd32(p);
    float x;
    memcpy(&x, &u, 4);
    return x;
}

Test(frame_codec, binary_version_1_for_one_rod)
{
    rod_frame f = one_rod();
    codec_buf b = {0};
    cr_assert_eq(frame_codec_binary(&b, &f, FRAME_F_S | FRAME_F_KAPPA | FRAME_F_ENERGY, 42), 0);
    const unsigned char *p = (const unsigned char *)b.b;
    cr_assert_eq(memcmp(p, "RODF", 4), 0);
    cr_assert_eq(p[4] | p[5] << 8, 1, "version 1");
    cr_assert_eq(p[6] | p[7] << 8, 32);
    cr_assert_eq(p[8], 42);
    double t;
    memcpy(&t, p + 16, 8); /* little-endian host */
    cr_assert_eq(t, f.t);
    cr_assert_eq(rd32(p + 24), 2, "points");
    cr_assert_eq(rd32(p + 28), FRAME_F_S | FRAME_F_KAPPA | FRAME_F_ENERGY);
    cr_assert_eq(b.len, 32 + 4 * (2 + 6 + 3), "s[2], kappa[6], energy[3]");
    cr_assert_eq(rdf(p + 32 + 4), 0.1f);
    cr_assert_eq(rdf(p + 32 + 8 + 4 * 5), (float)(1.0 / 3.0), "kappa[1][2]");
    cr_assert_eq(rdf(p + 32 + 32), (float)(2.0 / 3.0), "kinetic energy");
    free(b.b);
    rod_frame_free(&f);
}

static const char *const NAMES[] = {"arm1", "arm2", "finger"};
static const int POINTS[] = {3, 4, 2};

Test(frame_codec, several_rods_as_json)
{
    rod_frame f = rf_build(0.5, 3, NAMES, POINTS, 1);
    char *text = frame_codec_json_text(&f);
    cJSON *o = cJSON_Parse(text);
    cr_assert_not_null(o, "not JSON: %s", text);
    cr_assert_null(cJSON_GetObjectItem(o, "s"), "no top-level per-point arrays");
    cr_assert_null(cJSON_GetObjectItem(o, "position"));
    const cJSON *rods = cJSON_GetObjectItem(o, "rods");
    cr_assert_eq(cJSON_GetArraySize(rods), 3);
    static const char *const keys[] = {"s", "position", "rotation", "rho", "radius", "kappa", "nu"};
    static const int widths[] = {1, 3, 9, 1, 1, 3, 3};
    for (int i = 0; i < 3; i++) {
        const cJSON *r = cJSON_GetArrayItem(rods, i);
        cr_assert_str_eq(cJSON_GetObjectItem(r, "name")->valuestring, NAMES[i]);
        for (int k = 0; k < 7; k++) {
            const cJSON *a = cJSON_GetObjectItem(r, keys[k]);
            cr_assert_eq(cJSON_GetArraySize(a), POINTS[i], "%s.%s", NAMES[i], keys[k]);
            if (widths[k] > 1) cr_assert_eq(cJSON_GetArraySize(a->child), widths[k]);
        }
        const cJSON *x = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "position"), POINTS[i] - 1);
        cr_assert_eq(cJSON_GetArrayItem(x, 0)->valuedouble, i);
        cr_assert_eq(cJSON_GetArrayItem(x, 1)->valuedouble, POINTS[i] - 1);
        cr_assert_eq(cJSON_GetArrayItem(x, 2)->valuedouble, 0.25);
    }
    cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "energy"), "gravity")->valuedouble, -2);
    const cJSON *hub = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "bodies"), "hub");
    cr_assert_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(hub, "position"), 2)->valuedouble, -0.1);
    cr_assert_not_null(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "bodies"), "arm1.tip_mass"));
    const cJSON *joint = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "constraints"), "arm2.base");
    cr_assert_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(joint, "force"), 0)->valuedouble, 3);
    cr_assert_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(joint, "moment"), 1)->valuedouble, -0.5);
    const cJSON *cs = cJSON_GetObjectItem(o, "contacts");
    cr_assert_eq(cJSON_GetArraySize(cs), 2);
    cr_assert_str_eq(cJSON_GetObjectItem(cs->child, "rod")->valuestring, "finger");
    cr_assert_eq(cJSON_GetObjectItem(cs->child->next, "s")->valuedouble, 0.2);
    /* the stream's chosen fields: each rod's, no mechanics */
    codec_buf b = {0};
    cr_assert_eq(frame_codec_json(&b, &f, FRAME_F_RADIUS, 0, NULL), 0);
    cr_assert_str_eq(b.b, "{\"t\":0.5,\"rods\":[{\"name\":\"arm1\",\"radius\":[0.01,0.01,0.01]},"
                          "{\"name\":\"arm2\",\"radius\":[0.011,0.011,0.011,0.011]},"
                          "{\"name\":\"finger\",\"radius\":[0.012,0.012]}]}");
    free(b.b);
    cJSON_Delete(o);
    free(text);
    rod_frame_free(&f);
}

Test(frame_codec, several_rods_as_binary_version_2)
{
    rod_frame f = rf_build(0.5, 3, NAMES, POINTS, 0);
    const unsigned mask = FRAME_F_POSITION | FRAME_F_RHO | FRAME_F_ENERGY | FRAME_F_VOLUME;
    codec_buf b = {0};
    cr_assert_eq(frame_codec_binary(&b, &f, mask, 9), 0);
    const unsigned char *p = (const unsigned char *)b.b;
    cr_assert_eq(memcmp(p, "RODF", 4), 0);
    cr_assert_eq(p[4] | p[5] << 8, 2, "version 2");
    cr_assert_eq(rd32(p + 24), 3, "rods");
    cr_assert_eq(rd32(p + 28), mask);
    size_t at = 32;
    for (int i = 0; i < 3; i++) {
        const uint32_t n = rd32(p + at), k = rd32(p + at + 4);
        cr_assert_eq(n, (uint32_t)POINTS[i]);
        cr_assert_eq(k, strlen(NAMES[i]));
        cr_assert_eq(memcmp(p + at + 8, NAMES[i], k), 0);
        at += 8 + (k + 3) / 4 * 4;
        cr_assert_eq(at % 4, 0, "float32 aligned");
        for (uint32_t j = 0; j < n; j++) {
            cr_assert_eq(rdf(p + at + 12 * j), (float)i, "%s x[%u]", NAMES[i], j);
            cr_assert_eq(rdf(p + at + 12 * j + 4), (float)j);
        }
        at += 12 * n;
        for (uint32_t j = 0; j < n; j++) cr_assert_eq(rdf(p + at + 4 * j), (float)(1 + i / 10.0), "rho");
        at += 4 * n;
    }
    cr_assert_eq(rdf(p + at), 1.5f, "kinetic energy after the rods");
    cr_assert_eq(rdf(p + at + 8), -2.0f);
    cr_assert_eq(b.len, at + 16);
    free(b.b);
    rod_frame_free(&f);
}
