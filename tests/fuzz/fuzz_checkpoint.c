/* libFuzzer target for checkpoint files: any bytes as a state directory's session file go
 * through the restore the daemon runs at start (checks, compile, state load, registration),
 * restored or rejected with a reason, never a crash, a leak or undefined behaviour. */
#include "persist.h"
#include "service.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static daemon_ctx d;
static int ready;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ready) {
        config_defaults(&d.cfg);
        d.cfg.max_sessions = 2;
        char err[128];
        d.auth = auth_new(&d.cfg, err, sizeof err);
        d.pool = pool_new(1, d.cfg.max_sessions);
        snprintf(d.ordinal, sizeof d.ordinal, "r0");
        ready = 1;
    }
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char why[512] = "";
    const int rc = daemon_restore_one(&d, "r0-000000000001", "fuzz.json", text, size, why, sizeof why);
    if (rc == PERSIST_REJECT && !why[0]) __builtin_trap(); /* a rejection says why */
    if (rc == PERSIST_RESTORED) {
        /* its checkpoint written back reads back */
        session *s = pool_find(d.pool, "r0-000000000001");
        int busy;
        char err[256];
        char *again = s ? session_checkpoint(s, 1.0, &busy, NULL, err, sizeof err) : NULL;
        if (s && !again) __builtin_trap();
        free(again);
        session_release(s);
        daemon_delete_session(&d, "r0-000000000001");
    }
    free(text);
    return 0;
}
