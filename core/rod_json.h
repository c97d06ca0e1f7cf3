/* The engine's values as JSON, for callers that speak it (the daemon, the command line): an
 * optional header beside rod.h, which itself knows nothing of cJSON. A FRAME's writers are the
 * daemon's (server/io/frame_codec.h), not the engine's. */
#ifndef ROD_JSON_H
#define ROD_JSON_H

#include "rod.h"

#include <cjson/cJSON.h>

/* environment.obstacles for drawing: [{"name"?, "type", "point" | "center", "normal" | "axis",
 * "radius"?}] (unit normals and axes); NULL without obstacles. The caller owns the tree. */
cJSON *rod_model_obstacles_cjson(const rod_model *m);

#endif
