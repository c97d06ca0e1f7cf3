/* libFuzzer target for the spec parser and compiler: any bytes in, a model or a list of
 * issues out, never a crash, a leak or undefined behaviour. */
#include "rod.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rod_issues iss;
    rod_issues_init(&iss);
    rod_model *m = rod_model_compile((const char *)data, size, NULL, 0, &iss);
    char buf[256];
    rod_issues_format(&iss, buf, sizeof buf);
    rod_issues_free(&iss);
    if (!m) return 0;
    char err[128];
    rod_state *st = rod_state_create(m, err, sizeof err);
    if (st) {
        rod_frame f;
        if (rod_frame_compute(m, st, 3, &f) == ROD_OK) rod_frame_free(&f);
        rod_state_free(st);
    }
    rod_model_free(m);
    return 0;
}
