/* libFuzzer target for stream messages: any client message through the codec (subscribe,
 * unsubscribe, ping, describe, anything else), then a frame encoded for the subscription it
 * leaves; never a crash, a leak or undefined behaviour, and every reply is JSON. */
#include "stream_codec.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static published_frame *frame;

static void setup(void)
{
    rod_issues iss;
    rod_issues_init(&iss);
    static const char spec[] = "{\"model\":\"classic\",\"rod\":{\"length\":0.2,\"radius\":0.01,\"density\":1000,"
                               "\"youngs_modulus\":1e5},\"strains\":{\"bend1\":2}}";
    rod_model *m = rod_model_compile(spec, strlen(spec), NULL, 0, &iss);
    rod_issues_free(&iss);
    char err[128];
    rod_state *st = m ? rod_state_create(m, err, sizeof err) : NULL;
    frame = st ? frame_compute(m, st, 5) : NULL;
    if (frame) frame_stamp(frame, 1);
    rod_state_free(st);
    rod_model_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!frame) setup();
    stream_subscription sub = {30, F_ALL, 0, 1};
    stream_action act;
    char *reply = stream_handle_message((const char *)data, size, &sub, 60, &act);
    if (reply) {
        cJSON *o = cJSON_Parse(reply);
        if (!o) __builtin_trap();
        cJSON_Delete(o);
        free(reply);
    }
    if (!(sub.rate > 0 && sub.rate <= 60) || !sub.fields || sub.fields > F_ALL) __builtin_trap();
    stream_buf out = {0};
    if (frame && stream_frame_payload(&sub, frame, &out, 16) == 0 && !sub.binary) {
        cJSON *o = cJSON_ParseWithLength(out.b + 16, out.len - 16);
        if (!o) __builtin_trap();
        cJSON_Delete(o);
    }
    free(out.b);
    return 0;
}
