/* The MCAP writer's CRC and record layout (server/io/mcap_writer.c) and the Foxglove protocol's
 * client messages (server/stream/stream_foxglove.c), without sockets. */
#include "mcap_writer.h"
#include "stream_foxglove.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

Test(mcap, crc32_is_the_iso_hdlc_one)
{
    cr_expect_eq(mcap_crc32(0, "123456789", 9), 0xCBF43926u); /* the check value of CRC-32 */
    cr_expect_eq(mcap_crc32(mcap_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u, "continued");
    cr_expect_eq(mcap_crc32(0, "", 0), 0u);
}

Test(mcap, an_empty_file_is_magic_header_dataend_summary_footer_magic)
{
    char *img = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&img, &len);
    mcap_writer *w = mcap_open(o, "", "t", 1);
    cr_assert(w);
    cr_expect_eq(mcap_message(w, 0, 1, "x", 1), -1, "no channel 0 yet");
    mcap_abort(w); /* frees without writing more */
    w = mcap_open(o, "", "t", 1);
    cr_assert_eq(mcap_close(w), 0);
    fclose(o);
    static const unsigned char magic[8] = {0x89, 'M', 'C', 'A', 'P', '0', '\r', '\n'};
    cr_assert_gt(len, 2 * 8 + 2 * 9);
    cr_expect_eq(memcmp(img + len - 8, magic, 8), 0, "ends with the magic");
    cr_expect_eq((unsigned char)img[len - 8 - 29], 0x02, "a footer (opcode 2, 20 bytes) before it");
    cr_expect_eq((unsigned char)img[len - 8 - 28], 20);
    free(img);
}

static char *handle(foxws *x, const char *msg, int *resend)
{
    return foxws_handle(x, msg, strlen(msg), resend);
}

Test(foxws, subscribe_and_unsubscribe)
{
    foxws *x = foxws_new(0);
    int resend;
    cr_expect_not(foxws_subscribed(x));
    char *r = handle(x, "{\"op\":\"subscribe\",\"subscriptions\":[{\"id\":7,\"channelId\":2}]}", &resend);
    cr_expect_null(r);
    cr_expect(resend && foxws_subscribed(x));
    r = handle(x, "{\"op\":\"subscribe\",\"subscriptions\":[{\"id\":8,\"channelId\":2}]}", &resend);
    cr_expect(r && strstr(r, "\"level\":2") && strstr(r, "already subscribed"), "%s", r);
    cr_expect_not(resend);
    free(r);
    r = handle(x, "{\"op\":\"subscribe\",\"subscriptions\":[{\"id\":9,\"channelId\":99}]}", &resend);
    cr_expect(r && strstr(r, "no channel 99"), "%s", r);
    free(r);
    r = handle(x, "{\"op\":\"subscribe\",\"subscriptions\":[{\"id\":-1,\"channelId\":1}]}", &resend);
    cr_expect(r && strstr(r, "uint32"), "%s", r);
    free(r);
    r = handle(x, "{\"op\":\"unsubscribe\",\"subscriptionIds\":[7]}", &resend);
    cr_expect_null(r);
    cr_expect_not(foxws_subscribed(x));
    r = handle(x, "{\"op\":\"unsubscribe\",\"subscriptionIds\":[7]}", &resend);
    cr_expect(r && strstr(r, "\"level\":1") && strstr(r, "no subscription 7"), "%s", r);
    free(r);
    foxws_free(x);
}

Test(foxws, bad_messages_get_a_status)
{
    foxws *x = foxws_new(0);
    int resend;
    const char *bad[] = {"", "[", "{}", "{\"op\":1}", "{\"op\":\"subscribe\"}", "{\"op\":\"unsubscribe\",\"subscriptionIds\":3}",
                         "{\"op\":\"advertise\",\"channels\":[]}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *r = handle(x, bad[i], &resend);
        cr_expect(r && strstr(r, "\"op\":\"status\""), "%s -> %s", bad[i], r);
        free(r);
    }
    foxws_free(x);
}

Test(foxws, a_frame_goes_to_each_subscription_once)
{
    foxws *x = foxws_new(0);
    int resend;
    free(handle(x, "{\"op\":\"subscribe\",\"subscriptions\":[{\"id\":5,\"channelId\":2}]}", &resend));
    double s[2] = {0, 1}, p[6] = {0, 0, 0, 0.25, 0, 0.5}, zero[18] = {0};
    rod_frame f = {.n = 2, .t = 1.5, .s = s, .position = p, .rotation = zero, .rho = zero, .radius = zero,
                   .kappa = zero, .nu = zero};
    cr_assert_eq(foxws_queue_frame(x, &f, NULL, NULL, 0, 3, 4), 0);
    unsigned char *b;
    size_t n;
    cr_assert(foxws_next(x, &b, &n));
    const unsigned char head[13] = {1, 5, 0, 0, 0, 0x00, 0x2f, 0x68, 0x59, 0, 0, 0, 0}; /* 1.5e9 ns LE */
    cr_expect_eq(memcmp(b + 4, head, 13), 0, "opcode 1, subscription 5, 1.5 s");
    cr_expect(n > 13 && memcmp(b + 4 + 13, "{\"t\":1.5,\"x\":0.25,\"y\":0,\"z\":0.5}", n - 13) == 0, "%.*s", (int)(n - 13),
              (char *)b + 17);
    cr_expect_not(foxws_next(x, &b, &n));
    cr_assert_eq(foxws_queue_frame(x, &f, NULL, NULL, 0, 3, 4), 0);
    cr_expect_not(foxws_pending(x), "frame 3 went out already");
    foxws_free(x);
}

Test(foxws, the_inputs_channel_is_there_with_inputs)
{
    const char *names[] = {"LM1", "TM"};
    char *adv = foxws_advertise(names, 2);
    cr_expect(adv && strstr(adv, "\"topic\":\"/rod/inputs\"") && strstr(adv, "\\\"LM1\\\""), "%s", adv);
    free(adv);
    adv = foxws_advertise(names, 0);
    cr_expect(adv && !strstr(adv, "/rod/inputs"), "%s", adv);
    free(adv);
    foxws *x = foxws_new(2), *y = foxws_new(0);
    int resend;
    const char *sub5 = "{\"op\":\"subscribe\",\"subscriptions\":[{\"id\":1,\"channelId\":5}]}";
    char *r = handle(x, sub5, &resend);
    cr_expect_null(r, "%s", r);
    r = handle(y, sub5, &resend);
    cr_expect(r && strstr(r, "no channel 5"), "%s", r);
    free(r);
    double s[2] = {0, 1}, p[6] = {0}, zero[18] = {0}, v[2] = {0.25, -3};
    rod_frame f = {.n = 2, .t = 2, .s = s, .position = p, .rotation = zero, .rho = zero, .radius = zero,
                   .kappa = zero, .nu = zero};
    cr_assert_eq(foxws_queue_frame(x, &f, names, v, 2, 1, 0), 0);
    unsigned char *b;
    size_t n;
    cr_assert(foxws_next(x, &b, &n));
    cr_expect(n > 13 && memcmp(b + 13, "{\"t\":2,\"LM1\":0.25,\"TM\":-3}", n - 13) == 0, "%.*s", (int)(n - 13), (char *)b + 13);
    foxws_free(x);
    foxws_free(y);
}
