/* libFuzzer target for the config file: any bytes are a configuration or a message saying
 * what is wrong; what is accepted is finite and in range. */
#include "config.h"

#include <math.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    server_config c;
    config_defaults(&c);
    char err[256] = "";
    if (config_load_text(&c, "fuzz", (const char *)data, size, err, sizeof err) != 0) {
        if (!err[0]) __builtin_trap();
        return 0;
    }
    const double nums[] = {c.checkpoint_period, c.ticket_ttl, c.stream_idle_timeout, c.default_rate, c.max_rate,
                           c.advance_limit, c.drain_timeout, c.min_sim_rate, c.sim_rate_window, c.request_timeout};
    for (unsigned i = 0; i < sizeof nums / sizeof *nums; i++)
        if (!isfinite(nums[i]) || nums[i] < 0) __builtin_trap();
    if (c.workers < 0 || c.max_sessions < 0 || c.http_port < 0) __builtin_trap();
    return 0;
}
