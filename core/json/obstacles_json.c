/* A model's obstacles as JSON, for drawing (rod_json.h). */
#include "rod_json.h"

#include "model.h"

#include <cjson/cJSON.h>

cJSON *rod_model_obstacles_cjson(const rod_model *m)
{
    const rod_spec *sp = m->spec;
    if (!sp->nobstacles) return NULL;
    static const char *const types[] = {"plane", "sphere", "cylinder"};
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < sp->nobstacles; i++) {
        const spec_obstacle *o = &sp->obstacles[i];
        cJSON *e = cJSON_CreateObject();
        if (!e || !cJSON_AddItemToArray(a, e)) {
            cJSON_Delete(e);
            cJSON_Delete(a);
            return NULL;
        }
        if (o->name) cJSON_AddStringToObject(e, "name", o->name);
        cJSON_AddStringToObject(e, "type", types[o->type]);
        cJSON_AddItemToObject(e, o->type == OBSTACLE_SPHERE ? "center" : "point",
                              cJSON_CreateDoubleArray(o->point, 3));
        if (o->type != OBSTACLE_SPHERE)
            cJSON_AddItemToObject(e, o->type == OBSTACLE_PLANE ? "normal" : "axis",
                                  cJSON_CreateDoubleArray(o->normal, 3));
        if (o->type != OBSTACLE_PLANE) cJSON_AddNumberToObject(e, "radius", o->radius);
    }
    return a;
}
