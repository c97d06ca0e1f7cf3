/* The MCAP export: the Foxglove channels (foxglove_channels.h) of every frame in an MCAP file
 * (mcap_writer.h) that Foxglove Studio and Lichtblick open as they are; the spec rides along as
 * the Metadata record "rodd" (key "spec"). Messages are logged at the simulated time; chunks are
 * Zstandard-compressed (both apps and the MCAP libraries read it). A model of several rods has
 * each rod's scene and tip on channels of its own, /rods/NAME/scene and /rods/NAME/tip, and a
 * rod whose base moves (a joined rod's is free) its base's pose on /rods/NAME/base; the energy
 * and the volume change stay the model's. */
#include "export_impl.h"
#include "foxglove_channels.h"
#include "mcap_writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct export_mcap {
    mcap_writer *mw;
    int channel[FOX_CHANNELS]; /* the MCAP channel of each Foxglove channel; -1: not written */
    int nrods;
    int *rod_channel;          /* several rods: [rod * 3 + (0 scene, 1 tip, 2 base)], -1: not written */
};

/* a rod's own channels: the scene and the tip */
static int per_rod(int i)
{
    return i == FOX_SCENE || i == FOX_TIP;
}

export_mcap *export_mcap_open(FILE *out, const export_meta *meta, char *err, size_t errlen)
{
    export_mcap *x = calloc(1, sizeof *x);
    if (!x || !(x->mw = mcap_open(out, "", "rodd", 1))) {
        snprintf(err, errlen, "cannot start the MCAP file: %s", x ? strerror(errno) : "out of memory");
        free(x);
        return NULL;
    }
    int rc = meta->spec_json ? mcap_metadata(x->mw, "rodd", "spec", meta->spec_json) : 0;
    const rod_frame *sh = meta->shape;
    x->nrods = sh ? sh->nrods : 0;
    if (x->nrods && !(x->rod_channel = malloc((size_t)x->nrods * 3 * sizeof *x->rod_channel))) rc = -1;
    for (int r = 0; x->rod_channel && r < 3 * x->nrods; r++) x->rod_channel[r] = -1;
    for (int i = 0; i < FOX_CHANNELS; i++) {
        x->channel[i] = -1;
        if (rc < 0 || !fox_channel_present(i, meta->fields)) continue;
        const fox_channel *c = fox_channel_get(i);
        const int schema = mcap_schema(x->mw, c->schema_name, "jsonschema", c->schema, strlen(c->schema));
        if (schema < 0) {
            rc = -1;
        } else if (x->nrods && per_rod(i)) {
            for (int r = 0; rc >= 0 && r < x->nrods; r++) {
                char topic[128];
                snprintf(topic, sizeof topic, "/rods/%s/%s", sh->rods[r].name, i == FOX_TIP ? "tip" : "scene");
                rc = x->rod_channel[3 * r + (i == FOX_TIP)] = mcap_channel(x->mw, schema, topic, "json");
            }
        } else {
            rc = x->channel[i] = mcap_channel(x->mw, schema, c->topic, "json");
        }
    }
    /* a joined rod's base (free): its pose, as the JSON frames' rods[].base */
    int pose_schema = -1;
    for (int r = 0; rc >= 0 && r < x->nrods; r++) {
        if (!sh->rods[r].base_moving) continue;
        const fox_channel *c = fox_base_channel();
        if (pose_schema < 0) pose_schema = mcap_schema(x->mw, c->schema_name, "jsonschema", c->schema, strlen(c->schema));
        char topic[128];
        snprintf(topic, sizeof topic, "/rods/%s/base", sh->rods[r].name);
        rc = pose_schema < 0 ? -1 : (x->rod_channel[3 * r + 2] = mcap_channel(x->mw, pose_schema, topic, "json"));
    }
    if (rc < 0) {
        snprintf(err, errlen, "cannot write the MCAP file's channels: %s", strerror(errno));
        export_mcap_abort(x);
        return NULL;
    }
    return x;
}

int export_mcap_frame(export_mcap *x, const rod_frame *f, unsigned fields, char *err, size_t errlen)
{
    const int nrods = x->nrods < f->nrods ? x->nrods : f->nrods;
    for (int k = 0; k < (FOX_CHANNELS + 1) * (1 + nrods); k++) {
        /* r < 0: the model's channels; i == FOX_CHANNELS: a rod's base */
        const int i = k % (FOX_CHANNELS + 1), r = k / (FOX_CHANNELS + 1) - 1;
        const int channel = r < 0 ? (i < FOX_CHANNELS ? x->channel[i] : -1)
                            : i == FOX_CHANNELS ? x->rod_channel[3 * r + 2]
                            : per_rod(i) ? x->rod_channel[3 * r + (i == FOX_TIP)] : -1;
        if (channel < 0 || (i == FOX_CHANNELS && !f->rods[r].base_moving)) continue;
        size_t len;
        char *msg = i == FOX_CHANNELS ? fox_base_message(&f->rods[r], f->t, &len)
                                      : fox_message(i, r < 0 ? f : &f->rods[r], fields, &len);
        const int rc = msg ? mcap_message(x->mw, channel, fox_time_ns(f->t), msg, len) : -1;
        free(msg);
        if (rc != 0) {
            snprintf(err, errlen, "cannot write a frame: %s", msg ? strerror(errno) : "out of memory");
            return -1;
        }
    }
    return 0;
}

int export_mcap_close(export_mcap *x, char *err, size_t errlen)
{
    const int rc = mcap_close(x->mw);
    if (rc != 0) snprintf(err, errlen, "cannot finish the MCAP file: %s", strerror(errno));
    free(x->rod_channel);
    free(x);
    return rc;
}

void export_mcap_abort(export_mcap *x)
{
    if (!x) return;
    mcap_abort(x->mw);
    free(x->rod_channel);
    free(x);
}
