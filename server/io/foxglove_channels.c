/* The Foxglove channels of a frame (foxglove_channels.h). The schemas are written from
 * Foxglove's message reference (docs.foxglove.dev, "SceneUpdate" and the types it holds): the
 * fields rodd fills are typed, the primitive lists it leaves empty are plain arrays. Numbers
 * carry 10 significant digits, as rodd's JSON frames do. */
#include "foxglove_channels.h"
#include "frame_codec.h"
#include "frame_fields.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NUM "{\"type\":\"number\"}"
#define XYZ "\"x\":" NUM ",\"y\":" NUM ",\"z\":" NUM
#define OBJ(props, req) "{\"type\":\"object\",\"properties\":{" props "},\"required\":[" req "]}"
#define ARR(items) "{\"type\":\"array\",\"items\":" items "}"
#define REF(name) "{\"$ref\":\"#/$defs/" name "\"}"

static const char scene_schema[] =
    "{\"title\":\"foxglove.SceneUpdate\",\"description\":\"The rod: its centreline as a line strip "
    "and its deformed radius as cylinders between neighbouring points\",\"$defs\":{"
    "\"time\":" OBJ("\"sec\":{\"type\":\"integer\",\"minimum\":0},\"nsec\":{\"type\":\"integer\",\"minimum\":0,"
                    "\"maximum\":999999999}", "\"sec\",\"nsec\"") ","
    "\"vector3\":" OBJ(XYZ, "\"x\",\"y\",\"z\"") ","
    "\"point3\":" OBJ(XYZ, "\"x\",\"y\",\"z\"") ","
    "\"quaternion\":" OBJ(XYZ ",\"w\":" NUM, "\"x\",\"y\",\"z\",\"w\"") ","
    "\"pose\":" OBJ("\"position\":" REF("vector3") ",\"orientation\":" REF("quaternion"), "\"position\",\"orientation\"") ","
    "\"color\":" OBJ("\"r\":" NUM ",\"g\":" NUM ",\"b\":" NUM ",\"a\":" NUM, "\"r\",\"g\",\"b\",\"a\"") ","
    "\"line\":" OBJ("\"type\":{\"type\":\"integer\",\"enum\":[0,1,2],\"description\":\"0 line strip, 1 loop, 2 list\"},"
                    "\"pose\":" REF("pose") ",\"thickness\":{\"type\":\"number\",\"minimum\":0},"
                    "\"scale_invariant\":{\"type\":\"boolean\"},\"points\":" ARR(REF("point3")) ","
                    "\"color\":" REF("color") ",\"colors\":" ARR(REF("color")) ","
                    "\"indices\":" ARR("{\"type\":\"integer\",\"minimum\":0}"),
                    "\"type\",\"pose\",\"thickness\",\"scale_invariant\",\"points\",\"color\",\"colors\",\"indices\"") ","
    "\"cylinder\":" OBJ("\"pose\":" REF("pose") ",\"size\":" REF("vector3") ","
                        "\"bottom_scale\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1},"
                        "\"top_scale\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1},\"color\":" REF("color"),
                        "\"pose\",\"size\",\"bottom_scale\",\"top_scale\",\"color\"") ","
    "\"entity\":" OBJ("\"timestamp\":" REF("time") ",\"frame_id\":{\"type\":\"string\"},\"id\":{\"type\":\"string\"},"
                      "\"lifetime\":" REF("time") ",\"frame_locked\":{\"type\":\"boolean\"},"
                      "\"metadata\":" ARR(OBJ("\"key\":{\"type\":\"string\"},\"value\":{\"type\":\"string\"}",
                                             "\"key\",\"value\"")) ","
                      "\"arrows\":{\"type\":\"array\"},\"cubes\":{\"type\":\"array\"},\"spheres\":{\"type\":\"array\"},"
                      "\"cylinders\":" ARR(REF("cylinder")) ",\"lines\":" ARR(REF("line")) ","
                      "\"triangles\":{\"type\":\"array\"},\"texts\":{\"type\":\"array\"},\"models\":{\"type\":\"array\"}",
                      "\"timestamp\",\"frame_id\",\"id\",\"lifetime\",\"frame_locked\",\"metadata\",\"arrows\","
                      "\"cubes\",\"spheres\",\"cylinders\",\"lines\",\"triangles\",\"texts\",\"models\"") "},"
    "\"type\":\"object\",\"properties\":{\"deletions\":" ARR(OBJ("\"timestamp\":" REF("time") ","
    "\"type\":{\"type\":\"integer\",\"enum\":[0,1]},\"id\":{\"type\":\"string\"}", "\"timestamp\",\"type\",\"id\"")) ","
    "\"entities\":" ARR(REF("entity")) "},\"required\":[\"deletions\",\"entities\"]}";

/* A rod's base pose (several rods: a joined rod's base is free), foxglove.PoseInFrame */
static const char pose_schema[] =
    "{\"title\":\"foxglove.PoseInFrame\",\"description\":\"The pose of a rod's base: its position (m) and "
    "the rotation taking the world's axes onto its directors d1, d2, d3\",\"$defs\":{"
    "\"time\":" OBJ("\"sec\":{\"type\":\"integer\",\"minimum\":0},\"nsec\":{\"type\":\"integer\",\"minimum\":0,"
                    "\"maximum\":999999999}", "\"sec\",\"nsec\"") ","
    "\"vector3\":" OBJ(XYZ, "\"x\",\"y\",\"z\"") ","
    "\"quaternion\":" OBJ(XYZ ",\"w\":" NUM, "\"x\",\"y\",\"z\",\"w\"") "},"
    "\"type\":\"object\",\"properties\":{\"timestamp\":" REF("time") ",\"frame_id\":{\"type\":\"string\"},"
    "\"pose\":" OBJ("\"position\":" REF("vector3") ",\"orientation\":" REF("quaternion"), "\"position\",\"orientation\"")
    "},\"required\":[\"timestamp\",\"frame_id\",\"pose\"]}";

static const fox_channel base_channel = {"/rods/NAME/base", "foxglove.PoseInFrame", pose_schema};

const fox_channel *fox_base_channel(void)
{
    return &base_channel;
}

#define SCALARS(title, desc, props, req)                                                       \
    "{\"title\":\"" title "\",\"description\":\"" desc "\",\"type\":\"object\",\"properties\":{" \
    "\"t\":{\"type\":\"number\",\"description\":\"simulated time (s)\"}," props "},"            \
    "\"required\":[\"t\"," req "],\"additionalProperties\":false}"

static const fox_channel channels[FOX_CHANNELS] = {
    [FOX_SCENE] = {"/rod/scene", "foxglove.SceneUpdate", scene_schema},
    [FOX_TIP] = {"/rod/tip", "rodd.Tip",
                 SCALARS("rodd.Tip", "The tip's position (m, world)", XYZ, "\"x\",\"y\",\"z\"")},
    [FOX_ENERGY] = {"/rod/energy", "rodd.Energy",
                    SCALARS("rodd.Energy", "The rod's energies (J)",
                            "\"kinetic\":" NUM ",\"elastic\":" NUM ",\"gravity\":" NUM ",\"total\":" NUM,
                            "\"kinetic\",\"elastic\",\"gravity\",\"total\"")},
    [FOX_VOLUME] = {"/rod/volume_change", "rodd.VolumeChange",
                    SCALARS("rodd.VolumeChange", "The volume change Delta V of Sec. 5.2 (m^3)",
                            "\"volume_change\":" NUM, "\"volume_change\"")},
};

static const unsigned needs[FOX_CHANNELS] = {
    [FOX_SCENE] = FRAME_F_POSITION, [FOX_TIP] = FRAME_F_POSITION,
    [FOX_ENERGY] = FRAME_F_ENERGY, [FOX_VOLUME] = FRAME_F_VOLUME,
};

const fox_channel *fox_channel_get(int i)
{
    return i >= 0 && i < FOX_CHANNELS ? &channels[i] : NULL;
}

int fox_channel_present(int i, unsigned fields)
{
    return i >= 0 && i < FOX_CHANNELS && (fields & needs[i]) == needs[i];
}

unsigned long long fox_time_ns(double t)
{
    return t > 0 && isfinite(t) ? (unsigned long long)llround(t * 1e9) : 0;
}

/* A message's text is grown as it is written in frame_codec.h's buffer, its numbers as the
 * frames' JSON writes them (codec_num): written a character and a number at a time to a stdio
 * memory stream, an MCAP export's messages cost more than the frames' JSON. */

/* {"sec":S,"nsec":N} of a time in ns */
static void put_time(codec_buf *o, unsigned long long ns)
{
    char text[64];
    codec_put(o, text, (size_t)snprintf(text, sizeof text, "{\"sec\":%llu,\"nsec\":%llu}", ns / 1000000000ull,
                                        ns % 1000000000ull));
}

static void key_num(codec_buf *o, const char *key, double v)
{
    codec_str(o, ",\"");
    codec_str(o, key);
    codec_str(o, "\":");
    codec_num(o, v);
}

static void xyz(codec_buf *o, const double *p)
{
    codec_str(o, "{\"x\":");
    codec_num(o, p[0]);
    key_num(o, "y", p[1]);
    key_num(o, "z", p[2]);
    codec_put(o, "}", 1);
}

/* The rotation taking +z (a cylinder's axis in Foxglove) onto the unit vector d, the shortest
 * arc; d = -z turns about x. */
static void z_to(codec_buf *o, const double *d)
{
    double q[4] = {-d[1], d[0], 0, 1 + d[2]};
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[3] * q[3]);
    if (n < 1e-9) {
        q[0] = 1, q[1] = q[2] = q[3] = 0, n = 1;
    }
    codec_str(o, "{\"x\":");
    codec_num(o, q[0] / n);
    key_num(o, "y", q[1] / n);
    key_num(o, "z", q[2] / n);
    key_num(o, "w", q[3] / n);
    codec_put(o, "}", 1);
}

static const char origin_pose[] = "{\"position\":{\"x\":0,\"y\":0,\"z\":0},\"orientation\":{\"x\":0,\"y\":0,\"z\":0,\"w\":1}}";
static const char rod_colour[] = "{\"r\":0.93,\"g\":0.45,\"b\":0.16,\"a\":0.85}";

static void cylinders(codec_buf *o, const rod_frame *f)
{
    for (int i = 0; i + 1 < f->n; i++) {
        const double *a = f->position + 3 * i, *b = a + 3;
        double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        const double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        for (int k = 0; k < 3; k++) d[k] = len > 0 ? d[k] / len : k == 2;
        const double ra = fabs(f->radius[i]), rb = fabs(f->radius[i + 1]), r = fmax(ra, rb);
        const double mid[3] = {(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2};
        codec_str(o, i ? ",{\"pose\":{\"position\":" : "{\"pose\":{\"position\":");
        xyz(o, mid);
        codec_str(o, ",\"orientation\":");
        z_to(o, d);
        codec_str(o, "},\"size\":{\"x\":");
        codec_num(o, 2 * r);
        key_num(o, "y", 2 * r);
        key_num(o, "z", len);
        codec_put(o, "}", 1);
        /* the bottom face (-z) is at point i, the top at point i + 1 */
        key_num(o, "bottom_scale", r > 0 ? ra / r : 1);
        key_num(o, "top_scale", r > 0 ? rb / r : 1);
        codec_str(o, ",\"color\":");
        codec_str(o, rod_colour);
        codec_put(o, "}", 1);
    }
}

/* One rod's entity (id: "rod", or the rod's name in a model of several) at time ns. */
static void entity(codec_buf *o, const rod_frame *f, const char *id, unsigned long long ns, unsigned fields)
{
    double length = 0;
    for (int i = 0; i + 1 < f->n; i++) {
        const double *a = f->position + 3 * i;
        length += sqrt(pow(a[3] - a[0], 2) + pow(a[4] - a[1], 2) + pow(a[5] - a[2], 2));
    }
    codec_str(o, "{\"timestamp\":");
    put_time(o, ns);
    codec_str(o, ",\"frame_id\":\"world\",\"id\":\"");
    codec_str(o, id);
    codec_str(o, "\",\"lifetime\":{\"sec\":0,\"nsec\":0},\"frame_locked\":false,"
                 "\"metadata\":[],\"arrows\":[],\"cubes\":[],\"spheres\":[],\"cylinders\":[");
    if (fields & FRAME_F_RADIUS) cylinders(o, f);
    /* the centreline, thin beside the rod (1/200 of its length) so it shows inside the
     * translucent cylinders */
    codec_str(o, "],\"lines\":[{\"type\":0,\"pose\":");
    codec_str(o, origin_pose);
    codec_str(o, ",\"thickness\":");
    codec_num(o, fmax(length / 200, 1e-4));
    codec_str(o, ",\"scale_invariant\":false,\"points\":[");
    for (int i = 0; i < f->n; i++) {
        if (i) codec_put(o, ",", 1);
        xyz(o, f->position + 3 * i);
    }
    codec_str(o, "],\"color\":{\"r\":0.1,\"g\":0.1,\"b\":0.1,\"a\":1},\"colors\":[],\"indices\":[]}],"
                 "\"triangles\":[],\"texts\":[],\"models\":[]}");
}

/* The scene: the rod, or an entity per rod of a model of several, named as the rod. */
static void scene(codec_buf *o, const rod_frame *f, unsigned fields)
{
    const unsigned long long ns = fox_time_ns(f->t);
    codec_str(o, "{\"deletions\":[],\"entities\":[");
    for (int r = 0; r < (f->nrods ? f->nrods : 1); r++) {
        if (r) codec_put(o, ",", 1);
        /* a rod of several on a channel of its own (f is rods[i]) keeps its name too */
        entity(o, f->nrods ? &f->rods[r] : f, f->nrods ? f->rods[r].name : f->name[0] ? f->name : "rod", ns, fields);
    }
    codec_str(o, "]}");
}

/* The unit quaternion (x, y, z, w) of the row-major rotation R (Shepperd's method: from the
 * largest of the trace and the diagonal, so that no division is by a small number). */
static void quaternion(const double *R, double *q)
{
    const double tr = R[0] + R[4] + R[8];
    if (tr >= R[0] && tr >= R[4] && tr >= R[8]) {
        const double w = 0.5 * sqrt(fmax(1 + tr, 0));
        q[3] = w, q[0] = (R[7] - R[5]) / (4 * w), q[1] = (R[2] - R[6]) / (4 * w), q[2] = (R[3] - R[1]) / (4 * w);
    } else if (R[0] >= R[4] && R[0] >= R[8]) {
        const double x = 0.5 * sqrt(fmax(1 + R[0] - R[4] - R[8], 0));
        q[0] = x, q[3] = (R[7] - R[5]) / (4 * x), q[1] = (R[1] + R[3]) / (4 * x), q[2] = (R[2] + R[6]) / (4 * x);
    } else if (R[4] >= R[8]) {
        const double y = 0.5 * sqrt(fmax(1 - R[0] + R[4] - R[8], 0));
        q[1] = y, q[3] = (R[2] - R[6]) / (4 * y), q[0] = (R[1] + R[3]) / (4 * y), q[2] = (R[5] + R[7]) / (4 * y);
    } else {
        const double z = 0.5 * sqrt(fmax(1 - R[0] - R[4] + R[8], 0));
        q[2] = z, q[3] = (R[3] - R[1]) / (4 * z), q[0] = (R[2] + R[6]) / (4 * z), q[1] = (R[5] + R[7]) / (4 * z);
    }
}

/* The message written to o: its text and length, or NULL when out of memory. */
static char *closed(codec_buf *o, size_t *len)
{
    if (o->oom || !o->b) {
        free(o->b);
        return NULL;
    }
    *len = o->len;
    return o->b;
}

char *fox_base_message(const rod_frame *rod, double t, size_t *len)
{
    codec_buf b = {0}, *o = &b;
    const unsigned long long ns = fox_time_ns(t);
    double q[4];
    quaternion(rod->base_rotation, q);
    codec_str(o, "{\"timestamp\":");
    put_time(o, ns);
    codec_str(o, ",\"frame_id\":\"world\",\"pose\":{\"position\":");
    xyz(o, rod->base_position);
    codec_str(o, ",\"orientation\":{\"x\":");
    codec_num(o, q[0]);
    key_num(o, "y", q[1]);
    key_num(o, "z", q[2]);
    key_num(o, "w", q[3]);
    codec_str(o, "}}}");
    return closed(o, len);
}

char *fox_message(int i, const rod_frame *f, unsigned fields, size_t *len)
{
    codec_buf b = {0}, *o = &b;
    if (i == FOX_SCENE) {
        scene(o, f, fields);
    } else {
        codec_str(o, "{\"t\":");
        codec_num(o, f->t);
        if (i == FOX_TIP) { /* several rods: the first rod's (the MCAP export has a tip per rod) */
            const rod_frame *rod = f->nrods ? &f->rods[0] : f;
            const double *tip = rod->position + 3 * (rod->n - 1);
            key_num(o, "x", tip[0]);
            key_num(o, "y", tip[1]);
            key_num(o, "z", tip[2]);
        } else if (i == FOX_ENERGY) {
            key_num(o, "kinetic", f->e_kinetic);
            key_num(o, "elastic", f->e_elastic);
            key_num(o, "gravity", f->e_gravity);
            key_num(o, "total", f->e_kinetic + f->e_elastic + f->e_gravity);
        } else {
            key_num(o, "volume_change", f->volume_change);
        }
        codec_put(o, "}", 1);
    }
    return closed(o, len);
}
