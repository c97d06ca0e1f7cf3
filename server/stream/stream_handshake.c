#include "stream_handshake.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* What a request line's target or a header value may hold: visible ASCII, and spaces and
 * tabs in values; never CR, LF or NUL, which would let one header become two. */
static int clean(const char *s, int spaces)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p == 0x7f || (*p < 0x20 && !(spaces && *p == '\t')) || (*p == ' ' && !spaces)) return 0;
    return 1;
}

static const char *const forwarded[] = {
    "Host", "Origin", "Authorization", "User-Agent", "Sec-WebSocket-Key", "Sec-WebSocket-Version",
    "Sec-WebSocket-Protocol", "Sec-WebSocket-Extensions",
};

long handshake_request(char *out, size_t cap, const char *target, handshake_lookup_fn lookup, void *ctx,
                       const char *peer)
{
    if (!target || target[0] != '/' || !clean(target, 0) || !peer || !clean(peer, 0)) return -1;
    size_t n = 0;
#define PUT(...)                                                          \
    do {                                                                  \
        const int k_ = snprintf(out + n, cap - n, __VA_ARGS__);           \
        if (k_ < 0 || (size_t)k_ >= cap - n) return -1;                   \
        n += (size_t)k_;                                                  \
    } while (0)
    if (!cap) return -1;
    PUT("GET %s HTTP/1.1\r\n", target);
    for (size_t i = 0; i < sizeof forwarded / sizeof *forwarded; i++) {
        const char *v = lookup(ctx, forwarded[i]);
        if (!v) continue;
        if (!clean(v, 1)) return -1;
        PUT("%s: %s\r\n", forwarded[i], v);
    }
    PUT("Upgrade: websocket\r\nConnection: Upgrade\r\n%s: %s\r\n\r\n", HANDSHAKE_PEER_HEADER, peer);
#undef PUT
    return (long)n;
}

/* Copies [v, v + len) without its surrounding blanks into dst; -1 when it does not fit. */
static int take(char *dst, size_t cap, const char *v, size_t len)
{
    while (len && (*v == ' ' || *v == '\t')) v++, len--;
    while (len && (v[len - 1] == ' ' || v[len - 1] == '\t')) len--;
    if (len >= cap) return -1;
    memcpy(dst, v, len);
    dst[len] = '\0';
    return 0;
}

static const char *find_blank_line(const char *buf, size_t len)
{
    for (size_t i = 0; i + 3 < len; i++)
        if (buf[i] == '\r' && buf[i + 1] == '\n' && buf[i + 2] == '\r' && buf[i + 3] == '\n') return buf + i;
    return NULL;
}

int handshake_parse_answer(const char *buf, size_t len, handshake_answer *a)
{
    memset(a, 0, sizeof *a);
    a->content_length = -1;
    const char *blank = find_blank_line(buf, len);
    if (!blank) return 0;
    a->header_len = (size_t)(blank - buf) + 4;
    /* HTTP/1.x NNN reason */
    if (blank - buf < 12 || strncmp(buf, "HTTP/1.", 7) != 0 || buf[8] != ' ') return -1;
    int status = 0;
    for (int i = 9; i < 12; i++) {
        if (buf[i] < '0' || buf[i] > '9') return -1;
        status = status * 10 + (buf[i] - '0');
    }
    if (status < 100 || (buf[12] != ' ' && buf[12] != '\r')) return -1;
    a->status = status;
    const char *line = memchr(buf, '\n', (size_t)(blank - buf));
    while (line && line < blank) {
        line++; /* past the \n */
        const char *eol = memchr(line, '\r', (size_t)(blank + 2 - line));
        if (!eol) break;
        const char *colon = memchr(line, ':', (size_t)(eol - line));
        if (!colon) return -1;
        const size_t nlen = (size_t)(colon - line), vlen = (size_t)(eol - colon - 1);
        const char *v = colon + 1;
        char *dst = NULL;
        size_t dcap = 0;
        if (nlen == 20 && strncasecmp(line, "Sec-WebSocket-Accept", nlen) == 0) dst = a->accept, dcap = sizeof a->accept;
        else if (nlen == 22 && strncasecmp(line, "Sec-WebSocket-Protocol", nlen) == 0)
            dst = a->protocol, dcap = sizeof a->protocol;
        else if (nlen == 24 && strncasecmp(line, "Sec-WebSocket-Extensions", nlen) == 0)
            dst = a->extensions, dcap = sizeof a->extensions;
        else if (nlen == 12 && strncasecmp(line, "Content-Type", nlen) == 0)
            dst = a->content_type, dcap = sizeof a->content_type;
        if (dst && take(dst, dcap, v, vlen) != 0) return -1;
        if (nlen == 14 && strncasecmp(line, "Content-Length", nlen) == 0) {
            char num[24];
            if (take(num, sizeof num, v, vlen) != 0 || !num[0]) return -1;
            char *end;
            const long long cl = strtoll(num, &end, 10);
            if (*end || cl < 0) return -1;
            a->content_length = cl;
        }
        line = eol + 1 < blank ? eol + 1 : NULL; /* eol + 1 is the \n */
    }
    return 1;
}

/* RFC 6455 4.1: the key is the base64 of 16 random bytes, so 22 characters of the alphabet,
 * the last of which leaves the unused low 4 bits zero, and "==". */
int handshake_key_ok(const char *key)
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if (!key || strlen(key) != 24 || strcmp(key + 22, "==") != 0) return 0;
    for (int i = 0; i < 22; i++)
        if (!key[i] || !strchr(alphabet, key[i])) return 0;
    return strchr("AQgw", key[21]) != NULL;
}

int handshake_version_ok(const char *version)
{
    return version && strcmp(version, "13") == 0;
}
