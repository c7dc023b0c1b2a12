/**
 * @file test_web_msg.c
 * @brief The control room page's messages (cli/serve_webmsg.c): what is
 *        accepted, with its fields, and what is refused, with the code and
 *        a message naming the field (docs/protocol.md, "HTTP and WebSocket").
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/serve_webmsg.h"

static web_msg *m;
static web_err err;

static void setup(void)
{
    m = malloc(sizeof *m);
    cr_assert_not_null(m);
}

static void teardown(void)
{
    free(m);
}

static int decode(const char *s)
{
    memset(&err, 0, sizeof err);
    return web_msg_decode(s, strlen(s), m, &err);
}

/* Refused with @p code and a message holding @p text. */
static void refused(const char *msg, const char *code, const char *text)
{
    cr_assert_eq(decode(msg), -1, "accepted: %s", msg);
    cr_expect_str_eq(err.code, code, "%s: %s", msg, err.message);
    cr_expect(strstr(err.message, text) != NULL, "%s: message '%s' lacks '%s'", msg, err.message,
              text);
}

TestSuite(web_msg, .init = setup, .fini = teardown);

Test(web_msg, act_with_every_field)
{
    cr_assert_eq(decode("{\"type\":\"act\",\"id\":7,\"target\":\"u1.pump2\","
                        "\"command\":\"pump_trip\",\"value\":0.5}"),
                 0, "%s", err.message);
    cr_expect_eq(m->type, WEB_MSG_ACT);
    cr_expect_eq(m->has_id, 1);
    cr_expect_eq(m->id, 7u);
    cr_expect_str_eq(m->target, "u1.pump2");
    cr_expect_str_eq(m->command, "pump_trip");
    cr_expect_eq(m->value, 0.5);
}

Test(web_msg, act_value_defaults_to_zero_and_id_is_optional)
{
    cr_assert_eq(decode("{\"type\":\"act\",\"target\":\"u1\",\"command\":\"scram\"}"), 0);
    cr_expect_eq(m->has_id, 0);
    cr_expect_eq(m->value, 0.0);
}

Test(web_msg, subscribe_names_classes_priorities)
{
    cr_assert_eq(decode("{\"type\":\"subscribe\",\"channels\":["
                        "{\"name\":\"u1.core.power\",\"class\":\"gauge\"},"
                        "{\"name\":\"u2.alarm.flow_low.2\",\"class\":\"event\",\"priority\":2},"
                        "{\"name\":\"u1.rcs.pressure\",\"class\":\"recorder\",\"priority\":1}]}"),
                 0, "%s", err.message);
    cr_expect_eq(m->type, WEB_MSG_SUBSCRIBE);
    cr_assert_eq(m->n, 3u);
    cr_expect_str_eq(web_msg_channel(m, 0), "u1.core.power");
    cr_expect_str_eq(web_msg_channel(m, 1), "u2.alarm.flow_low.2");
    cr_expect_str_eq(web_msg_channel(m, 2), "u1.rcs.pressure");
    cr_expect_eq(m->rate_class[0], 0);
    cr_expect_eq(m->rate_class[1], 3);
    cr_expect_eq(m->rate_class[2], 2);
    cr_expect_eq(m->priority[0], 0);
    cr_expect_eq(m->priority[1], 2);
    cr_expect_eq(m->priority[2], 1);
}

Test(web_msg, subscribe_of_the_slot_limit_and_one_more)
{
    size_t cap = 40u * (WEB_SLOTS_MAX + 2) + 64;
    char *s = malloc(cap);
    cr_assert_not_null(s);
    for (uint32_t n = WEB_SLOTS_MAX; n <= WEB_SLOTS_MAX + 1; n++) {
        size_t k = (size_t)snprintf(s, cap, "{\"type\":\"subscribe\",\"channels\":[");
        for (uint32_t i = 0; i < n; i++)
            k += (size_t)snprintf(s + k, cap - k, "%s{\"name\":\"c%u\",\"class\":\"display\"}",
                                  i ? "," : "", i);
        snprintf(s + k, cap - k, "]}");
        if (n == WEB_SLOTS_MAX) {
            cr_assert_eq(decode(s), 0, "%s", err.message);
            cr_expect_str_eq(web_msg_channel(m, n - 1), "c1023");
        } else {
            refused(s, "bad_message", "1..1024 entries (got 1025)");
        }
    }
    free(s);
}

Test(web_msg, keyframe)
{
    cr_assert_eq(decode("{\"type\":\"keyframe\"}"), 0);
    cr_expect_eq(m->type, WEB_MSG_KEYFRAME);
    refused("{\"type\":\"keyframe\",\"all\":true}", "bad_message", "keyframe: unknown key \"all\"");
}

Test(web_msg, not_an_object)
{
    refused("{nope", "bad_json", "byte");
    refused("[1,2]", "bad_json", "not a JSON object");
    refused("", "bad_json", "not one JSON object");
    refused("{\"type\":\"act\",\"type\":\"act\"}", "bad_json", "duplicate");
    refused("{\"type\":\"act\"} {}", "bad_json", "end of file expected");
}

Test(web_msg, types)
{
    refused("{\"id\":1}", "bad_message", "\"type\": a string is required");
    refused("{\"type\":7}", "bad_message", "\"type\": a string is required");
    refused("{\"type\":\"launch\"}", "unknown_type", "'launch' is not subscribe, act or keyframe");
}

Test(web_msg, act_fields)
{
    refused("{\"type\":\"act\",\"target\":\"u1\",\"command\":\"scram\",\"x\":1}", "bad_message",
            "act: unknown key \"x\"");
    refused("{\"type\":\"act\",\"command\":\"scram\"}", "bad_message",
            "\"target\" must be a string of 1..127 bytes");
    refused("{\"type\":\"act\",\"target\":\"\",\"command\":\"scram\"}", "bad_message",
            "\"target\" must be");
    refused("{\"type\":\"act\",\"target\":\"u1\",\"command\":\"a_command_name_of_32_bytes_long_\"}",
            "bad_message", "\"command\" must be a string of 1..31 bytes");
    refused("{\"type\":\"act\",\"target\":\"u1\",\"command\":\"scram\",\"value\":\"1\"}",
            "bad_message", "\"value\" must be a number");
    refused("{\"type\":\"act\",\"target\":\"u1\",\"command\":\"scram\",\"value\":1e999}",
            "bad_json", "");
    refused("{\"type\":\"act\",\"id\":-1,\"target\":\"u1\",\"command\":\"scram\"}", "bad_message",
            "\"id\": must be an integer in [0, 2^53]");
    refused("{\"type\":\"act\",\"id\":9007199254740993,\"target\":\"u1\",\"command\":\"scram\"}",
            "bad_message", "\"id\"");
    cr_assert_eq(decode("{\"type\":\"act\",\"id\":9007199254740992,\"target\":\"u1\","
                        "\"command\":\"scram\"}"),
                 0);
}

Test(web_msg, subscribe_fields)
{
    refused("{\"type\":\"subscribe\",\"channels\":[]}", "bad_message", "1..1024 entries (got 0)");
    refused("{\"type\":\"subscribe\",\"channels\":{}}", "bad_message", "must be an array");
    refused("{\"type\":\"subscribe\",\"channels\":[7]}", "bad_message", "\"channels\"[0]: want");
    refused("{\"type\":\"subscribe\",\"channels\":[{\"name\":\"a\",\"class\":\"gauge\"},"
            "{\"name\":\"b\",\"class\":\"lamp\"}]}",
            "bad_message", "\"channels\"[1]: \"class\" 'lamp'; allowed gauge, display, recorder");
    refused("{\"type\":\"subscribe\",\"channels\":[{\"name\":\"a\",\"class\":\"gauge\","
            "\"priority\":3}]}",
            "bad_message", "\"priority\" must be an integer in [0, 2]");
    refused("{\"type\":\"subscribe\",\"channels\":[{\"name\":\"a\",\"class\":\"gauge\","
            "\"far\":1}]}",
            "bad_message", "\"channels\"[0]: unknown key \"far\"");
    refused("{\"type\":\"subscribe\",\"channels\":[{\"class\":\"gauge\"}]}", "bad_message",
            "\"name\" must be a string");
}

Test(web_msg, oversized_message)
{
    size_t n = WEB_MAX_MESSAGE + 1;
    char *s = malloc(n);
    cr_assert_not_null(s);
    memset(s, ' ', n);
    cr_expect_eq(web_msg_decode(s, n, m, &err), -1);
    cr_expect_str_eq(err.code, "bad_message");
    cr_expect(strstr(err.message, "65537 bytes; at most 65536") != NULL, "%s", err.message);
    free(s);
}
