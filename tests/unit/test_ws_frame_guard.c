/* The client frame guard (server/stream/ws_frame_guard.c) against RFC 6455's framing rules, frames
 * built here byte by byte from the RFC's layout; and the pump (splice_add_ws) putting a Close
 * in place of the first frame that breaks them. */
#include "splice.h"
#include "ws_frame_guard.h"

#include "clock.h"

#include <criterion/criterion.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A frame as the RFC lays it out: FIN/RSV/opcode, MASK + length (7, 7+16 or 7+64 bits, in the
 * shortest form unless `len_form` forces 126 or 127), the key when masked, the payload masked. */
static size_t frame(unsigned char *out, int fin, int rsv, int op, int masked, const unsigned char *pl, size_t n,
                    int len_form)
{
    size_t h = 0;
    out[h++] = (unsigned char)((fin ? 0x80 : 0) | (rsv << 4) | op);
    const int form = len_form ? len_form : n < 126 ? 0 : n <= 0xffff ? 126 : 127;
    const unsigned char m = masked ? 0x80 : 0;
    if (form == 0) out[h++] = (unsigned char)(m | n);
    else if (form == 126) {
        out[h++] = m | 126;
        out[h++] = (unsigned char)(n >> 8);
        out[h++] = (unsigned char)n;
    } else {
        out[h++] = m | 127;
        for (int i = 7; i >= 0; i--) out[h++] = (unsigned char)((uint64_t)n >> (8 * i));
    }
    const unsigned char key[4] = {1, 2, 3, 4};
    if (masked) memcpy(out + h, key, 4), h += 4;
    for (size_t i = 0; i < n; i++) out[h + i] = masked ? pl[i] ^ key[i % 4] : pl[i];
    return h + n;
}

static unsigned char payload[70000];
static unsigned char buf[1 << 18];

static size_t good_stream(void)
{
    for (size_t i = 0; i < sizeof payload; i++) payload[i] = (unsigned char)(i * 31);
    size_t n = 0;
    n += frame(buf + n, 1, 0, 1, 1, (const unsigned char *)"{\"subscribe\":{}}", 16, 0); /* text */
    n += frame(buf + n, 1, 0, 2, 1, payload, 300, 0);                                     /* 16-bit length */
    n += frame(buf + n, 1, 0, 2, 1, payload, 70000, 0);                                   /* 64-bit length */
    n += frame(buf + n, 0, 0, 1, 1, (const unsigned char *)"ab", 2, 0);                   /* fragmented ... */
    n += frame(buf + n, 1, 0, 9, 1, (const unsigned char *)"p", 1, 0);                    /* a ping between */
    n += frame(buf + n, 0, 0, 0, 1, (const unsigned char *)"cd", 2, 0);
    n += frame(buf + n, 1, 0, 0, 1, (const unsigned char *)"ef", 2, 0);                   /* ... ends */
    n += frame(buf + n, 1, 0, 10, 1, NULL, 0, 0);                                         /* pong */
    n += frame(buf + n, 1, 0, 8, 1, (const unsigned char *)"\x03\xe8", 2, 0);             /* close 1000 */
    return n;
}

Test(ws_frame_guard, frames_that_keep_the_rules_pass_whole_in_any_pieces)
{
    const size_t n = good_stream();
    ws_frame_guard g;
    ws_frame_guard_init(&g, 0);
    cr_assert_eq(ws_frame_guard_scan(&g, buf, n), n);
    cr_assert_null(g.why);
    /* one byte at a time: a cut header is held back and given again with its next byte */
    ws_frame_guard_init(&g, 0);
    size_t passed = 0;
    for (size_t end = 1; end <= n; end++) passed += ws_frame_guard_scan(&g, buf + passed, end - passed);
    cr_assert_eq(passed, n);
    cr_assert_null(g.why);
}

/* The bytes before a bad frame pass, and the count stops at its header with the reason. */
static void refused(const unsigned char *bad, size_t nbad, int allow_rsv1, const char *why_part)
{
    unsigned char s[256];
    size_t n = frame(s, 1, 0, 1, 1, (const unsigned char *)"ok", 2, 0);
    const size_t before = n;
    memcpy(s + n, bad, nbad);
    n += nbad;
    n += frame(s + n, 1, 0, 1, 1, (const unsigned char *)"after", 5, 0);
    ws_frame_guard g;
    ws_frame_guard_init(&g, allow_rsv1);
    cr_assert_eq(ws_frame_guard_scan(&g, s, n), before, "stops at the bad header");
    cr_assert_not_null(g.why, "refused: %s", why_part);
    cr_assert(strstr(g.why, why_part), "%s (want %s)", g.why, why_part);
    cr_assert_eq(ws_frame_guard_scan(&g, s + before, n - before), 0, "and passes nothing more");
}

Test(ws_frame_guard, each_rule_broken_is_refused_with_its_reason)
{
    unsigned char f[160];
    refused(f, frame(f, 1, 0, 1, 0, (const unsigned char *)"x", 1, 0), 0, "unmasked");
    refused(f, frame(f, 1, 4, 1, 1, (const unsigned char *)"x", 1, 0), 0, "reserved bits");
    refused(f, frame(f, 1, 2, 2, 1, (const unsigned char *)"x", 1, 0), 1, "reserved bits"); /* RSV2 */
    refused(f, frame(f, 1, 0, 3, 1, NULL, 0, 0), 0, "unknown opcode");
    refused(f, frame(f, 1, 0, 11, 1, NULL, 0, 0), 0, "unknown opcode");
    refused(f, frame(f, 0, 0, 9, 1, NULL, 0, 0), 0, "control frame");        /* a ping without FIN */
    refused(f, frame(f, 1, 0, 8, 1, payload, 126, 0), 0, "control frame"); /* 126 > 125 */
    refused(f, frame(f, 1, 4, 9, 1, NULL, 0, 0), 1, "compressed control");
    refused(f, frame(f, 1, 0, 0, 1, (const unsigned char *)"x", 1, 0), 0, "continuation");
    refused(f, frame(f, 1, 0, 2, 1, payload, 100, 126), 0, "shortest");
    refused(f, frame(f, 1, 0, 2, 1, payload, 100, 127), 0, "shortest");
    size_t k = frame(f, 1, 0, 2, 1, NULL, 0, 127);
    f[2] |= 0x80; /* the 64-bit length's top bit */
    refused(f, k, 0, "top bit");
    /* a new message inside a fragmented one */
    k = frame(f, 0, 0, 1, 1, (const unsigned char *)"a", 1, 0);
    k += frame(f + k, 1, 0, 1, 1, (const unsigned char *)"b", 1, 0);
    ws_frame_guard g;
    ws_frame_guard_init(&g, 0);
    cr_assert_eq(ws_frame_guard_scan(&g, f, k), 7);
    cr_assert(g.why && strstr(g.why, "inside a fragmented"), "%s", g.why ? g.why : "(passed)");
}

Test(ws_frame_guard, rsv1_passes_once_permessage_deflate_is_agreed)
{
    unsigned char f[32];
    const size_t n = frame(f, 1, 4, 1, 1, (const unsigned char *)"x", 1, 0);
    ws_frame_guard g;
    ws_frame_guard_init(&g, 1);
    cr_assert_eq(ws_frame_guard_scan(&g, f, n), n);
    cr_assert_null(g.why);
}

Test(ws_frame_guard, the_close_it_sends_is_a_masked_1002_with_the_reason)
{
    unsigned char c[140];
    const size_t n = ws_frame_guard_close(c, sizeof c, "an unmasked frame from the client");
    cr_assert_eq(n, 6 + 2 + strlen("an unmasked frame from the client"));
    cr_assert_eq(c[0], 0x88, "FIN and close");
    cr_assert_eq(c[1] & 0x80, 0x80, "masked, as a client's frame must be");
    cr_assert_eq((size_t)(c[1] & 0x7f), n - 6);
    unsigned char p[130];
    for (size_t i = 0; i < n - 6; i++) p[i] = c[6 + i] ^ c[2 + i % 4];
    cr_assert_eq(p[0] << 8 | p[1], 1002);
    cr_assert(memcmp(p + 2, "an unmasked frame from the client", n - 8) == 0);
    ws_frame_guard g;
    ws_frame_guard_init(&g, 0);
    cr_assert_eq(ws_frame_guard_scan(&g, c, n), n, "and keeps the rules itself");
    char longer[300];
    memset(longer, 'r', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    cr_assert_eq(ws_frame_guard_close(c, sizeof c, longer), 131, "a reason is cut to the 125 bytes a control frame holds");
    cr_assert_eq(ws_frame_guard_close(c, 10, "too long for ten bytes"), 0);
}

/* Over the pump: good frames written a byte at a time reach the server unchanged; a bad one
 * reaches it as a Close 1002 instead, and nothing the client sends after. */
static atomic_int done;
static int ends[2];
static void on_done(void *cls)
{
    (void)cls;
    close(ends[0]);
    close(ends[1]);
    atomic_store(&done, 1);
}

static size_t read_for(int fd, unsigned char *out, size_t cap, double seconds)
{
    size_t got = 0;
    const double end = mono_now() + seconds;
    while (got < cap && mono_now() < end) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 50) <= 0) continue;
        const ssize_t k = read(fd, out + got, cap - got);
        if (k <= 0) break;
        got += (size_t)k;
    }
    return got;
}

Test(ws_frame_guard, the_pump_puts_a_close_in_place_of_a_bad_frame)
{
    static unsigned char got[1 << 18];
    signal(SIGPIPE, SIG_IGN); /* a write the pump has stopped reading fails, not kills */
    int x[2], y[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, x), 0);
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, y), 0);
    const int client = x[0], server = y[1];
    ends[0] = x[1];
    ends[1] = y[0];
    atomic_store(&done, 0);
    char err[128];
    splice_pool *p = splice_start(err, sizeof err);
    cr_assert_not_null(p, "%s", err);
    /* the request's early bytes are a good frame and the first byte of the next */
    unsigned char first[16];
    const size_t nfirst = frame(first, 1, 0, 1, 1, (const unsigned char *)"hi", 2, 0);
    const size_t n = good_stream() - 8; /* all but the final close (2 + 4 + 2 bytes) */
    memmove(buf + nfirst, buf, n);
    memcpy(buf, first, nfirst);
    cr_assert_eq(splice_add_ws(p, ends[0], ends[1], "101", 3, buf, nfirst + 1, 0, on_done, NULL), 0);
    unsigned char hello[3];
    cr_assert_eq(read_for(client, hello, 3, 2), 3, "what the server sent with its 101 goes first");
    /* the server's side is read as the bytes go in: the pump holds only so much */
    size_t passed = 0;
    for (size_t i = nfirst + 1; i < nfirst + n; i++) {
        cr_assert_eq(write(client, buf + i, 1), 1);
        struct pollfd q = {.fd = server, .events = POLLIN};
        if (poll(&q, 1, 0) == 1) {
            const ssize_t k = read(server, got + passed, sizeof got - passed);
            cr_assert_gt(k, 0);
            passed += (size_t)k;
        }
    }
    passed += read_for(server, got + passed, nfirst + n - passed, 10);
    cr_assert_eq(passed, nfirst + n, "%zu of %zu bytes", passed, nfirst + n);
    cr_assert(memcmp(got, buf, nfirst + n) == 0, "good frames unchanged, whatever pieces they came in");
    unsigned char bad[16];
    const size_t nbad = frame(bad, 1, 0, 1, 0, (const unsigned char *)"evil", 4, 0);
    cr_assert_eq(write(client, bad, nbad), (ssize_t)nbad);
    cr_assert_eq(write(client, bad, nbad), (ssize_t)nbad);
    unsigned char want[140];
    const size_t nwant = ws_frame_guard_close(want, sizeof want, "an unmasked frame from the client");
    const size_t k = read_for(server, got, sizeof got, 1.0);
    cr_assert_eq(k, nwant, "the Close and nothing else: %zu bytes", k);
    cr_assert(memcmp(got, want, nwant) == 0);
    /* the server answers and ends the stream: the client hears it, the pair finishes */
    cr_assert_eq(write(server, "\x88\x02\x03\xea", 4), 4);
    close(server);
    unsigned char back[8];
    cr_assert_eq(read_for(client, back, sizeof back, 2), 4, "the server's Close reaches the client");
    close(client);
    const double until = mono_now() + 5;
    while (!atomic_load(&done) && mono_now() < until) usleep(5000);
    cr_assert(atomic_load(&done));
    splice_free(p);
}
