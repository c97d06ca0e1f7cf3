/* libFuzzer target for the client frame guard (server/stream/ws_frame_guard.c): any bytes, given whole
 * or cut into pieces where the input says, pass to the same point with the same verdict (the
 * pump hands them over as recv returns them); what passes is a walk of frames that a second,
 * plainer reading of RFC 6455 5.2 accepts header by header; what is held back unrefused is
 * less than one header; and the Close sent in place of a refused frame keeps the rules too. */
#include "ws_frame_guard.h"

#include <stdint.h>
#include <string.h>

/* The plain reading: walks [0, n) frame by frame and traps on a header that breaks a rule;
 * a frame cut by the end (its payload unfinished) is fine. */
static void check_walk(const uint8_t *p, size_t n, int rsv1)
{
    size_t i = 0;
    int open = 0; /* inside a fragmented message */
    while (i < n) {
        if (n - i < 2) __builtin_trap(); /* a header was passed cut short */
        const int fin = p[i] >> 7, rsv = (p[i] >> 4) & 7, op = p[i] & 15;
        if (!(p[i + 1] & 0x80)) __builtin_trap();
        if (rsv != 0 && !(rsv1 && rsv == 4)) __builtin_trap();
        const int control = op == 8 || op == 9 || op == 10;
        if (!control && op > 2) __builtin_trap();
        uint64_t len = p[i + 1] & 0x7f;
        size_t h = 2 + 4;
        if (len == 126) h += 2;
        if (len == 127) h += 8;
        if (n - i < h) __builtin_trap();
        if (len == 126) {
            len = (uint64_t)p[i + 2] * 256 + p[i + 3];
            if (len < 126) __builtin_trap();
        } else if (len == 127) {
            len = 0;
            for (int k = 0; k < 8; k++) len = len * 256 + p[i + 2 + k];
            if (len >= ((uint64_t)1 << 63) || len < 65536) __builtin_trap();
        }
        if (control && (!fin || len > 125 || rsv)) __builtin_trap();
        if (op == 0 && !open) __builtin_trap();
        if ((op == 1 || op == 2) && open) __builtin_trap();
        if (!control) open = !fin;
        if (len > n - i - h) return; /* the payload runs on past what passed */
        i += h + (size_t)len;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    const int rsv1 = data[0] & 1;
    const unsigned step = data[1] ? data[1] : 1; /* the pieces' size */
    const uint8_t *p = data + 2;
    const size_t n = size - 2;

    ws_frame_guard whole;
    ws_frame_guard_init(&whole, rsv1);
    const size_t w = ws_frame_guard_scan(&whole, p, n);
    if (w > n) __builtin_trap();

    ws_frame_guard cut;
    ws_frame_guard_init(&cut, rsv1);
    size_t passed = 0, end = 0;
    while (end < n && !cut.why) {
        end = end + step < n ? end + step : n;
        passed += ws_frame_guard_scan(&cut, p + passed, end - passed);
        if (passed > end) __builtin_trap();
    }
    if (passed != w || (whole.why == NULL) != (cut.why == NULL)) __builtin_trap();
    if (whole.why && strcmp(whole.why, cut.why) != 0) __builtin_trap();
    if (!whole.why && n - w >= 14) __builtin_trap(); /* only a cut header waits */

    check_walk(p, w, rsv1);

    if (whole.why) {
        uint8_t c[140];
        const size_t k = ws_frame_guard_close(c, sizeof c, whole.why);
        ws_frame_guard g;
        ws_frame_guard_init(&g, 0);
        if (k < 8 || ws_frame_guard_scan(&g, c, k) != k || g.why) __builtin_trap();
    }
    return 0;
}
