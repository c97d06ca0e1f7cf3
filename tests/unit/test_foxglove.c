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
    foxws *x = foxws_new(0, NULL);
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
    foxws *x = foxws_new(0, NULL);
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
    foxws *x = foxws_new(0, NULL);
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
    foxws *x = foxws_new(2, NULL), *y = foxws_new(0, NULL);
    char *adv = foxws_advertise(x, names, 2);
    cr_expect(adv && strstr(adv, "\"topic\":\"/rod/inputs\"") && strstr(adv, "\\\"LM1\\\""), "%s", adv);
    free(adv);
    adv = foxws_advertise(y, names, 0);
    cr_expect(adv && !strstr(adv, "/rod/inputs"), "%s", adv);
    free(adv);
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

/* Several rods: the MCAP export's topics (each rod's scene and tip, the joined rod's base, the
 * model's energy), no /rod/scene or /rod/tip (whose rod would that be?); each rod's tip is its
 * own, the base its pose as a quaternion. */
Test(foxws, several_rods_have_channels_of_their_own)
{
    rod_frame rods[2] = {{.n = 2, .t = 1}, {.n = 2, .t = 1, .base_moving = 1}};
    snprintf(rods[0].name, sizeof rods[0].name, "upper");
    snprintf(rods[1].name, sizeof rods[1].name, "lower");
    rod_frame shape = {.nrods = 2, .rods = rods};
    foxws *x = foxws_new(0, &shape);
    cr_assert(x);
    char *adv = foxws_advertise(x, NULL, 0);
    const char *want[] = {"\"id\":3,\"topic\":\"/rod/energy\"", "\"id\":4,\"topic\":\"/rod/volume_change\"",
                          "\"id\":6,\"topic\":\"/rods/upper/scene\"", "\"id\":7,\"topic\":\"/rods/upper/tip\"",
                          "\"id\":9,\"topic\":\"/rods/lower/scene\"", "\"id\":10,\"topic\":\"/rods/lower/tip\"",
                          "\"id\":11,\"topic\":\"/rods/lower/base\"", "foxglove.PoseInFrame"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) cr_expect(adv && strstr(adv, want[i]), "%s in %s", want[i], adv);
    cr_expect(adv && !strstr(adv, "/rod/tip") && !strstr(adv, "/rod/scene") && !strstr(adv, "/rods/upper/base"), "%s", adv);
    free(adv);
    int resend;
    char *r = handle(x, "{\"op\":\"subscribe\",\"subscriptions\":[{\"id\":1,\"channelId\":2}]}", &resend);
    cr_expect(r && strstr(r, "no channel 2 (channels are 3..4, 6..7, 9..11)"), "%s", r);
    free(r);
    r = handle(x, "{\"op\":\"subscribe\",\"subscriptions\":[{\"id\":1,\"channelId\":10},{\"id\":2,\"channelId\":11}]}",
               &resend);
    cr_expect_null(r, "%s", r);
    double s[2] = {0, 1}, zero[18] = {0}, pu[6] = {0, 0, 0, 0, 0, 0.25}, pl[6] = {0, 0, 0.25, 0.1, 0, 0.5};
    for (int k = 0; k < 2; k++) {
        rods[k].s = s, rods[k].rotation = rods[k].rho = rods[k].radius = rods[k].kappa = rods[k].nu = zero;
        rods[k].position = k ? pl : pu;
    }
    /* the lower rod's base at the upper one's tip, turned a quarter about z: q = (0, 0, sin, cos)(pi/4) */
    const double base_rot[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1};
    memcpy(rods[1].base_position, pl, sizeof rods[1].base_position);
    memcpy(rods[1].base_rotation, base_rot, sizeof base_rot);
    rod_frame f = {.t = 1, .nrods = 2, .rods = rods};
    cr_assert_eq(foxws_queue_frame(x, &f, NULL, NULL, 0, 1, 0), 0);
    unsigned char *b;
    size_t n;
    cr_assert(foxws_next(x, &b, &n));
    cr_expect(n > 13 && memcmp(b + 13, "{\"t\":1,\"x\":0.1,\"y\":0,\"z\":0.5}", n - 13) == 0, "the lower tip: %.*s",
              (int)(n - 13), (char *)b + 13);
    cr_assert(foxws_next(x, &b, &n));
    const char *pose = "\"pose\":{\"position\":{\"x\":0,\"y\":0,\"z\":0.25},\"orientation\":{\"x\":0,\"y\":0,"
                       "\"z\":0.7071067812,\"w\":0.7071067812}}}";
    cr_expect(n > 13 && strstr((char *)b + 13, pose), "the base: %.*s", (int)(n - 13), (char *)b + 13);
    cr_expect_not(foxws_next(x, &b, &n));
    foxws_free(x);
}
