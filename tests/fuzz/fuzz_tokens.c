/* libFuzzer target for the tokens file: any bytes are tokens or a message saying what is
 * wrong; a header then names a role or none. */
#include "auth.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    server_config c;
    config_defaults(&c);
    char err[256] = "";
    auth *a = auth_new(&c, err, sizeof err);
    if (!a) return 0;
    char *text = malloc(size + 1);
    if (!text) {
        auth_free(a);
        return 0;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    /* the last line doubles as an Authorization header to check against what loaded */
    const char *last = strrchr((const char *)text, '\n');
    char header[300];
    snprintf(header, sizeof header, "Bearer %.280s", last ? last + 1 : text);
    if (auth_load_tokens_text(a, "fuzz", text, err, sizeof err) != 0 && !err[0]) __builtin_trap();
    const role r = auth_bearer(a, header);
    if (r != ROLE_NONE && r != ROLE_VIEWER && r != ROLE_OPERATOR) __builtin_trap();
    char t[80];
    if (auth_issue_ticket(a, "s", ROLE_VIEWER, 10, auth_token_owner(a, header), t, sizeof t) == 0 &&
        auth_redeem_ticket(a, t, "s") != ROLE_VIEWER)
        __builtin_trap();
    free(text);
    auth_free(a);
    return 0;
}
