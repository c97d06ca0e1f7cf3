/* The daemon's configuration table (server/daemon/config.c): one rule for every source. */
#include <criterion/criterion.h>

#include "config.h"

#include <stdio.h>
#include <string.h>

static server_config fresh(void)
{
    server_config c;
    config_defaults(&c);
    return c;
}

Test(config, numbers_are_decimal_and_whole_where_they_count)
{
    char err[256];
    server_config c = fresh();
    const char *refused[] = {"8080x", "0x1f90", "abc", "", " 80", "80 ", "nan", "inf", "-inf", "1e3.5", "80.5", "--1"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        err[0] = '\0';
        cr_expect_eq(config_set_text(&c, "ws_port", refused[i], "--ws-port", err, sizeof err), -1, "\"%s\"", refused[i]);
        cr_expect(strstr(err, "--ws-port: must be a finite whole number in [0, 65535]") != NULL, "%s", err);
        cr_expect_eq(c.ws_port, 0, "a refused value leaves the option as it was");
    }
    cr_expect_eq(config_set_text(&c, "ws_port", "8081", "--ws-port", err, sizeof err), 0);
    cr_expect_eq(c.ws_port, 8081);
    cr_expect_eq(config_set_text(&c, "max_body", "2e3", "RODD_MAX_BODY", err, sizeof err), 0, "%s", err);
    cr_expect_eq(c.max_body, 2000u);
    cr_expect_eq(config_set_text(&c, "request_timeout", "2.5", "RODD_REQUEST_TIMEOUT", err, sizeof err), 0);
    cr_expect_eq(c.request_timeout, 2.5);
}

Test(config, ranges_include_their_ends_and_nothing_past_them)
{
    char err[256];
    server_config c = fresh();
    struct {
        const char *key, *ok_lo, *ok_hi, *bad_lo, *bad_hi;
    } const cases[] = {
        {"ws_port", "0", "65535", "-1", "65536"},
        {"http_port", "0", "65535", "-1", "70000"},
        {"workers", "1", "1024", "0", "100000"},
        {"max_streams", "1", "65536", "0", "65537"},
        {"stream_idle_timeout", "1", "3600", "0.5", "3601"},
        {"checkpoint_period", "0", "86400", "-0.001", "86401"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cr_expect_eq(config_set_text(&c, cases[i].key, cases[i].ok_lo, "x", err, sizeof err), 0, "%s", err);
        cr_expect_eq(config_set_text(&c, cases[i].key, cases[i].ok_hi, "x", err, sizeof err), 0, "%s", err);
        cr_expect_eq(config_set_text(&c, cases[i].key, cases[i].bad_lo, "x", err, sizeof err), -1, "%s %s",
                     cases[i].key, cases[i].bad_lo);
        cr_expect_eq(config_set_text(&c, cases[i].key, cases[i].bad_hi, "x", err, sizeof err), -1, "%s %s",
                     cases[i].key, cases[i].bad_hi);
    }
}

Test(config, defaults_are_within_their_ranges)
{
    /* the defaults, written back as a config file, must load: a default outside its own
     * range would be refused the moment someone wrote it down */
    server_config c = fresh();
    char text[2048], err[256];
    snprintf(text, sizeof text,
             "{\"http_port\": %d, \"ws_port\": %d, \"workers\": %d, \"max_sessions\": %d, \"max_dof\": %d, "
             "\"max_points\": %d, \"max_body\": %zu, \"http_threads\": %d, \"connection_timeout\": %d, "
             "\"request_timeout\": %.17g, \"max_bodies_in_flight\": %zu, \"per_ip_connections\": %d, "
             "\"max_connections\": %d, \"max_streams\": %d, \"checkpoint_period\": %.17g, \"ticket_ttl\": %.17g, "
             "\"stream_idle_timeout\": %.17g, \"default_rate\": %.17g, \"max_rate\": %.17g, "
             "\"advance_limit\": %.17g, \"drain_timeout\": %.17g, \"min_sim_rate\": %.17g, "
             "\"sim_rate_window\": %.17g, \"ws_max_message\": %zu}",
             c.http_port, c.ws_port, c.workers, c.max_sessions, c.max_dof, c.max_points, c.max_body, c.http_threads,
             c.connection_timeout, c.request_timeout, c.max_bodies_in_flight, c.per_ip_connections,
             c.max_connections, c.max_streams, c.checkpoint_period, c.ticket_ttl, c.stream_idle_timeout,
             c.default_rate, c.max_rate, c.advance_limit, c.drain_timeout, c.min_sim_rate, c.sim_rate_window,
             c.ws_max_message);
    cr_expect_eq(config_load_text(&c, "defaults", text, strlen(text), err, sizeof err), 0, "%s", err);
    cr_expect_eq(config_check(&c, err, sizeof err), 0, "%s", err);
    cr_expect_eq(c.ordinal, -1, "no ordinal: from the host name");
    cr_expect_str_empty(c.examples_dir, "no examples_dir: found from the binary's location");
}

Test(config, errors_name_the_option_as_given)
{
    char err[256];
    server_config c = fresh();
    const char *file = "{\"max_streams\": 0}";
    cr_expect_eq(config_load_text(&c, "c.json", file, strlen(file), err, sizeof err), -1);
    cr_expect_str_eq(err, "config c.json: max_streams: must be a finite whole number in [1, 65536], not 0");
    cr_expect_eq(config_set_listen(&c, "127.0.0.1:8080x", err, sizeof err), -1);
    cr_expect(strstr(err, "listen address \"127.0.0.1:8080x\"") && strstr(err, "not \"8080x\""), "%s", err);
    cr_expect_str_eq(c.listen_host, "127.0.0.1", "a refused address changes nothing");
    c.ws_port = c.http_port;
    cr_expect_eq(config_check(&c, err, sizeof err), -1);
    cr_expect(strstr(err, "is the REST port") != NULL, "%s", err);
}
