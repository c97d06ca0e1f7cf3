/* The handshake text the REST port passes to the stream server and reads back
 * (server/stream/stream_handshake.c). */
#include "stream_handshake.h"

#include <criterion/criterion.h>
#include <string.h>
#include <strings.h>

typedef struct {
    const char *name, *value;
} hdr;

static const char *from_table(void *ctx, const char *name)
{
    for (const hdr *h = ctx; h->name; h++)
        if (strcasecmp(h->name, name) == 0) return h->value;
    return NULL;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

Test(stream_handshake, request_carries_the_deciding_headers_and_the_peer)
{
    hdr h[] = {{"Host", "127.0.0.1:8080"}, {"Origin", "http://127.0.0.1:8080"}, {"Sec-WebSocket-Key", "dGhlIHNhbXBsZQ=="},
               {"Sec-WebSocket-Version", "13"}, {"Authorization", "Bearer abc"}, {"Cookie", "secret=1"},
               {"X-Rodd-Peer", "6.6.6.6"}, {"X-Forwarded-For", "7.7.7.7"}, {NULL, NULL}};
    char out[2048];
    long n = handshake_request(out, sizeof out, "/v1/sessions/r0-1/stream?ticket=t&format=binary", from_table, h,
                               "192.0.2.7");
    cr_assert_gt(n, 0);
    cr_assert_eq((size_t)n, strlen(out));
    const char *line = "GET /v1/sessions/r0-1/stream?ticket=t&format=binary HTTP/1.1\r\n";
    cr_assert(strncmp(out, line, strlen(line)) == 0, "%s", out);
    cr_assert(strstr(out, "\r\nHost: 127.0.0.1:8080\r\n"));
    cr_assert(strstr(out, "\r\nOrigin: http://127.0.0.1:8080\r\n"));
    cr_assert(strstr(out, "\r\nAuthorization: Bearer abc\r\n"));
    cr_assert(strstr(out, "\r\nSec-WebSocket-Key: dGhlIHNhbXBsZQ==\r\n"));
    cr_assert(strstr(out, "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"));
    /* the client's own peer header never crosses: only the one the REST port writes */
    cr_assert_eq(count(out, "X-Rodd-Peer"), 1);
    cr_assert(strstr(out, "\r\nX-Rodd-Peer: 192.0.2.7\r\n"));
    cr_assert_null(strstr(out, "Cookie"));
    cr_assert_null(strstr(out, "7.7.7.7"));
    cr_assert(strcmp(out + n - 4, "\r\n\r\n") == 0);
}

Test(stream_handshake, request_refuses_what_would_split_a_header_or_not_fit)
{
    hdr bad[] = {{"Host", "a\r\nX-Rodd-Peer: 6.6.6.6"}, {NULL, NULL}};
    hdr ok[] = {{"Host", "h"}, {NULL, NULL}};
    char out[512];
    cr_assert_eq(handshake_request(out, sizeof out, "/v1/sessions/x/stream", from_table, bad, "1.2.3.4"), -1);
    cr_assert_eq(handshake_request(out, sizeof out, "/v1/sessions/x/stream HTTP/1.0", from_table, ok, "1.2.3.4"), -1);
    cr_assert_eq(handshake_request(out, sizeof out, "v1/sessions/x/stream", from_table, ok, "1.2.3.4"), -1);
    cr_assert_eq(handshake_request(out, sizeof out, "/v1/sessions/x/stream\n", from_table, ok, "1.2.3.4"), -1);
    cr_assert_eq(handshake_request(out, sizeof out, "/v1/sessions/x/stream", from_table, ok, "1.2.3.4\r\n"), -1);
    cr_assert_eq(handshake_request(out, 40, "/v1/sessions/x/stream", from_table, ok, "1.2.3.4"), -1);
    cr_assert_eq(handshake_request(out, 0, "/v1/sessions/x/stream", from_table, ok, "1.2.3.4"), -1);
    cr_assert_gt(handshake_request(out, sizeof out, "/v1/sessions/x/stream", from_table, ok, "1.2.3.4"), 0);
}

Test(stream_handshake, answer_101_with_its_accept_and_what_follows)
{
    const char a101[] = "HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n"
                        "sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nsec-websocket-protocol:  rodd-stream \r\n"
                        "\r\n\x81\x05hello";
    handshake_answer a;
    /* not complete until the blank line is in */
    for (size_t n = 0; n < strlen(a101) - 8; n++) cr_assert_eq(handshake_parse_answer(a101, n, &a), 0, "at %zu", n);
    cr_assert_eq(handshake_parse_answer(a101, sizeof a101 - 1, &a), 1);
    cr_assert_eq(a.status, 101);
    cr_assert_str_eq(a.accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    cr_assert_str_eq(a.protocol, "rodd-stream");
    cr_assert_str_eq(a.extensions, "");
    cr_assert_eq(a.content_length, -1);
    cr_assert_eq(a.header_len, sizeof a101 - 1 - 7, "the first frame (7 bytes) follows the header");
}

Test(stream_handshake, answer_refusal_with_its_body_length)
{
    const char r403[] = "HTTP/1.1 403 Forbidden\r\ncontent-type: text/html\r\ncontent-length: 12\r\n\r\n<html></html>";
    handshake_answer a;
    cr_assert_eq(handshake_parse_answer(r403, sizeof r403 - 1, &a), 1);
    cr_assert_eq(a.status, 403);
    cr_assert_eq(a.content_length, 12);
    cr_assert_str_eq(a.content_type, "text/html");
    cr_assert_str_eq(a.accept, "");
}

Test(stream_handshake, answer_that_is_not_http_is_refused)
{
    handshake_answer a;
    const char *bad[] = {"SSH-2.0-OpenSSH\r\n\r\n", "HTTP/1.1 1x1 No\r\n\r\n", "HTTP/1.1 099 Low\r\n\r\n",
                         "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "HTTP/1.1 200 OK\r\ncontent-length: -3\r\n\r\n",
                         "HTTP/1.1 200 OK\r\ncontent-length: 12abc\r\n\r\n", "HTTP/2 200\r\n\r\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert_eq(handshake_parse_answer(bad[i], strlen(bad[i]), &a), -1, "%s", bad[i]);
    char big[1200] = "HTTP/1.1 101 Switching Protocols\r\nSec-WebSocket-Extensions: ";
    size_t n = strlen(big);
    memset(big + n, 'x', 600);
    memcpy(big + n + 600, "\r\n\r\n", 5);
    cr_assert_eq(handshake_parse_answer(big, strlen(big), &a), -1, "a value too long to repeat");
    const char bare[] = "HTTP/1.1 101\r\n\r\n";
    cr_assert_eq(handshake_parse_answer(bare, sizeof bare - 1, &a), 1);
    cr_assert_eq(a.status, 101);
}

Test(stream_handshake, key_must_be_base64_of_16_bytes)
{
    cr_expect(handshake_key_ok("dGhlIHNhbXBsZSBub25jZQ==")); /* RFC 6455's own example */
    cr_expect(handshake_key_ok("AAAAAAAAAAAAAAAAAAAAAA=="));
    cr_expect(handshake_key_ok("/////////////////////w=="));
    cr_expect(!handshake_key_ok(NULL));
    cr_expect(!handshake_key_ok(""));
    cr_expect(!handshake_key_ok("not-a-key"));
    cr_expect(!handshake_key_ok("dGhlIHNhbXBsZSBub25jZQ"));     /* padding left off */
    cr_expect(!handshake_key_ok("dGhlIHNhbXBsZSBub25jZQ==="));  /* 25 characters */
    cr_expect(!handshake_key_ok("dGhlIHNhbXBsZSBub25jZR=="));   /* low bits set: not 16 bytes */
    cr_expect(!handshake_key_ok("dGhlIHNhbXBsZSBub25j*Q=="));   /* outside the alphabet */
    cr_expect(!handshake_key_ok("dGhlIHNhbXBsZSBub25jZXMx"));   /* 18 bytes, no padding */
    cr_expect(!handshake_key_ok("dGhlIHNhbXBsZSBub25jZQ= "));
}

Test(stream_handshake, version_must_be_13)
{
    cr_expect(handshake_version_ok("13"));
    cr_expect(!handshake_version_ok(NULL));
    cr_expect(!handshake_version_ok("8"));
    cr_expect(!handshake_version_ok("13, 8"));
    cr_expect(!handshake_version_ok("130"));
    cr_expect(!handshake_version_ok(""));
}
