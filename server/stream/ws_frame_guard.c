/* RFC 6455 sections 5.2-5.5 on a client's frame headers: the mask bit set (5.1, a client MUST
 * mask), no reserved bits without an extension that defines them, a known opcode, control
 * frames unfragmented with at most 125 bytes, continuations only inside a fragmented message
 * and no new message inside one, lengths in their shortest encoding with the top bit clear. */
#include "ws_frame_guard.h"

#include <string.h>

void ws_frame_guard_init(ws_frame_guard *g, int allow_rsv1)
{
    memset(g, 0, sizeof *g);
    g->allow_rsv1 = allow_rsv1 != 0;
}

/* 0: the header at p is whole and keeps the rules (its length in *hlen, its payload's in
 * *plen); 1: it is cut short; -1: it breaks a rule (g->why). */
static int header(ws_frame_guard *g, const unsigned char *p, size_t n, size_t *hlen, uint64_t *plen)
{
    if (n < 2) return 1;
    const int fin = p[0] & 0x80, rsv = p[0] & 0x70, op = p[0] & 0x0f, masked = p[1] & 0x80;
    uint64_t len = p[1] & 0x7f;
    size_t h = 2;
    if (len == 126) h += 2;
    else if (len == 127) h += 8;
    h += 4; /* the masking key; checked below before it matters */
    if (!masked) {
        g->why = "an unmasked frame from the client";
        return -1;
    }
    if (rsv & ~(g->allow_rsv1 ? 0x40 : 0)) {
        g->why = "reserved bits set without an extension that defines them";
        return -1;
    }
    if ((op > 2 && op < 8) || op > 10) {
        g->why = "an unknown opcode";
        return -1;
    }
    if (op >= 8 && (!fin || len > 125)) {
        g->why = "a fragmented or over-long control frame";
        return -1;
    }
    if (op >= 8 && (rsv & 0x40)) {
        g->why = "a compressed control frame";
        return -1;
    }
    if (op == 0 && !g->fragmented) {
        g->why = "a continuation frame outside a fragmented message";
        return -1;
    }
    if ((op == 1 || op == 2) && g->fragmented) {
        g->why = "a new message inside a fragmented one";
        return -1;
    }
    if (n < h) return 1;
    if (len == 126) {
        len = (uint64_t)p[2] << 8 | p[3];
        if (len < 126) {
            g->why = "a length not in its shortest encoding";
            return -1;
        }
    } else if (len == 127) {
        len = 0;
        for (int i = 2; i < 10; i++) len = len << 8 | p[i];
        if (len >> 63) {
            g->why = "a 64-bit length with its top bit set";
            return -1;
        }
        if (len <= 0xffff) {
            g->why = "a length not in its shortest encoding";
            return -1;
        }
    }
    if (op == 1 || op == 2 || op == 0) g->fragmented = !fin;
    *hlen = h;
    *plen = len;
    return 0;
}

size_t ws_frame_guard_scan(ws_frame_guard *g, const unsigned char *p, size_t n)
{
    size_t pos = 0;
    while (pos < n && !g->why) {
        if (g->left) {
            const size_t take = g->left < n - pos ? (size_t)g->left : n - pos;
            pos += take;
            g->left -= take;
            continue;
        }
        size_t h;
        uint64_t len;
        if (header(g, p + pos, n - pos, &h, &len) != 0) break;
        pos += h;
        g->left = len;
    }
    return pos;
}

size_t ws_frame_guard_close(unsigned char *out, size_t cap, const char *reason)
{
    static const unsigned char key[4] = {0x52, 0x4f, 0x44, 0x44};
    size_t rlen = reason ? strlen(reason) : 0;
    if (rlen > 123) rlen = 123;
    const size_t plen = 2 + rlen;
    if (cap < 6 + plen) return 0;
    out[0] = 0x88; /* FIN, close */
    out[1] = (unsigned char)(0x80 | plen);
    memcpy(out + 2, key, 4);
    unsigned char payload[125];
    payload[0] = 1002 >> 8;
    payload[1] = 1002 & 0xff;
    if (rlen) memcpy(payload + 2, reason, rlen);
    for (size_t i = 0; i < plen; i++) out[6 + i] = payload[i] ^ key[i % 4];
    return 6 + plen;
}
