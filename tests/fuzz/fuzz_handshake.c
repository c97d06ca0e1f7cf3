/* libFuzzer target for the stream handshake's text (server/stream/stream_handshake.c): any bytes as
 * the stream server's answer parse or are refused, and what parses lies inside them; the same
 * bytes cut into a request target and header values either make a request with exactly one
 * peer header and no line a value could add, or are refused. */
#include "stream_handshake.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *value_of(void *ctx, const char *name)
{
    /* every forwarded header gets the same client-chosen value */
    (void)name;
    return ctx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    handshake_answer a;
    const int rc = handshake_parse_answer((const char *)data, size, &a);
    if (rc < -1 || rc > 1) __builtin_trap();
    if (rc == 1 && (a.header_len > size || a.header_len < 16 || a.status < 100 || a.status > 999)) __builtin_trap();
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    /* the first line is the target, the rest one header value */
    char *nl = strchr(text, '\n');
    const char *value = nl ? nl + 1 : "";
    if (nl) *nl = '\0';
    char out[4096];
    const long n = handshake_request(out, sizeof out, text, value_of, (void *)value, "192.0.2.1");
    if (n >= 0) {
        if ((size_t)n != strlen(out) || n < 4 || strcmp(out + n - 4, "\r\n\r\n") != 0) __builtin_trap();
        /* lines: the request line, 8 forwarded headers at most, Upgrade, Connection, the peer */
        int lines = 0, peers = 0;
        for (const char *p = out; (p = strstr(p, "\r\n")) != NULL; p += 2) lines++;
        for (const char *p = out; (p = strstr(p, "\r\n" HANDSHAKE_PEER_HEADER ":")) != NULL; p += 2) peers++;
        if (lines > 13 || peers != 1) __builtin_trap();
    }
    free(text);
    return 0;
}
