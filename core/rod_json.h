/* The engine's values as JSON, for callers that speak it (the daemon, the command line): an
 * optional header beside rod.h, which itself knows nothing of cJSON. */
#ifndef ROD_JSON_H
#define ROD_JSON_H

#include "rod.h"

#include <cjson/cJSON.h>

/* The frame as JSON text (DESIGN.md's FRAME), numbers to 10 significant digits; malloc'd,
 * caller frees. NULL on no memory. */
char *rod_frame_to_json(const rod_frame *f);
/* The same as a cJSON tree the caller owns (cJSON_Delete), to embed in larger documents. */
cJSON *rod_frame_to_cjson(const rod_frame *f);
/* environment.obstacles for drawing: [{"name"?, "type", "point" | "center", "normal" | "axis",
 * "radius"?}] (unit normals and axes); NULL without obstacles. The caller owns the tree. */
cJSON *rod_model_obstacles_cjson(const rod_model *m);

#endif
