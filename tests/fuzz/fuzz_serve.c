/**
 * @file fuzz_serve.c
 * @brief libFuzzer target: the `pcsim serve` frame splitter and message
 *        decoder (cli/serve_proto.c), the code every byte a TCP client sends
 *        goes through, and the reply writer that quotes it back.
 *
 * The first input byte picks the mode: even, the rest is one frame payload
 * (straight to serve_msg_decode, so the fuzzer explores JSON without having
 * to keep a length header in step); odd, the rest is the byte stream of a
 * connection, split into frames as cli/serve_net.c splits it, each whole
 * frame decoded until the server would drop the connection (an empty or
 * oversized frame, or a message that does not decode).
 *
 * Checked per input, beyond "no crash, no leak, no undefined behaviour":
 *  - the splitter asks for more only when the frame is incomplete, and a
 *    whole frame's length is in [1, SERVE_MAX_MESSAGE] and within the input;
 *  - a refusal has a known code and a non-empty message;
 *  - an accepted message has every field within its documented range
 *    (docs/protocol.md): type, id, versions, n, every, channel names and
 *    counts, target and command lengths, a finite value, a save name of
 *    [A-Za-z0-9_-];
 *  - an error reply quoting the refusal, and a reply quoting every string
 *    the message carried, are JSON objects jansson parses back (valid
 *    UTF-8, escaped), with the same type.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/serve_proto.h"
#include "tests/fuzz/fuzz_common.h"

static serve_msg msg;
static char out[SERVE_FRAME_HEADER + SERVE_MAX_MESSAGE];

static void check_reparses(size_t n, const char *type)
{
    if (n == 0)
        return; /* did not fit: the writer refuses rather than truncating */
    json_error_t e;
    json_t *doc = json_loadb(out + SERVE_FRAME_HEADER, n - SERVE_FRAME_HEADER, 0, &e);
    if (!doc)
        fuzz_fail("reply '%.*s' is not JSON: %s", (int)(n - SERVE_FRAME_HEADER),
                  out + SERVE_FRAME_HEADER, e.text);
    const char *t = json_string_value(json_object_get(doc, "type"));
    if (!t || strcmp(t, type) != 0)
        fuzz_fail("reply type '%s', wrote '%s'", t ? t : "(none)", type);
    json_decref(doc);
    uint32_t len;
    if (serve_frame_next((const uint8_t *)out, n, &len) != SERVE_FRAME_OK ||
        len + SERVE_FRAME_HEADER != n)
        fuzz_fail("reply frame header says %u for %zu bytes", len, n);
}

static void check_refusal(const serve_err *err)
{
    static const char *const codes[] = {"bad_json", "bad_message", "unknown_type"};
    int known = 0;
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        known |= err->code && strcmp(err->code, codes[i]) == 0;
    if (!known || err->message[0] == '\0')
        fuzz_fail("refusal code '%s' message '%s'", err->code ? err->code : "(null)", err->message);
    serve_out o;
    serve_out_begin(&o, out, sizeof out, "error");
    serve_out_str(&o, "code", err->code);
    serve_out_str(&o, "message", err->message);
    serve_out_bool(&o, "fatal", 1);
    check_reparses(serve_out_finish(&o), "error");
}

static void check_name(const char *s, size_t max, const char *what)
{
    size_t n = strnlen(s, max + 1);
    if (n == 0 || n > max)
        fuzz_fail("%s of %zu bytes accepted (1..%zu)", what, n, max);
}

static void check_fields(const serve_msg *m)
{
    if (m->type < SERVE_MSG_HELLO || m->type > SERVE_MSG_SUBSCRIBE)
        fuzz_fail("type %d", (int)m->type);
    if (m->has_id && m->id > SERVE_ID_MAX)
        fuzz_fail("id %llu", (unsigned long long)m->id);
    if (m->type == SERVE_MSG_HELLO && (m->versions == 0 || (m->versions & 1u)))
        fuzz_fail("hello versions mask %#x", m->versions);
    if (m->n < 1 || m->n > SERVE_STEP_MAX || m->every > SERVE_EVERY_MAX)
        fuzz_fail("n %u every %u", m->n, m->every);
    if (m->has_channels != (m->n_channels > 0) || m->n_channels > SERVE_MAX_CHANNELS)
        fuzz_fail("%u channels (has_channels %d)", m->n_channels, m->has_channels);
    for (uint32_t i = 0; i < m->n_channels; i++) {
        if (m->channel_at[i] >= sizeof m->names)
            fuzz_fail("channel %u at %u", i, m->channel_at[i]);
        check_name(serve_msg_channel(m, i), SERVE_NAME_MAX, "channel name");
    }
    if (m->type == SERVE_MSG_ACT) {
        check_name(m->target, SERVE_NAME_MAX, "target");
        check_name(m->command, SERVE_COMMAND_MAX, "command");
    }
    if (!isfinite(m->value))
        fuzz_fail("value %g", m->value);
    if (m->type == SERVE_MSG_LOAD || m->type == SERVE_MSG_SAVE) {
        check_name(m->name, SERVE_SAVE_NAME_MAX, "save name");
        if (strspn(m->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
            strlen(m->name))
            fuzz_fail("save name '%s'", m->name);
    }
    if (m->has_token)
        check_name(m->token, SERVE_TOKEN_MAX, "token");
}

/* A reply quoting every string the message carried, as error texts may. */
static void check_echo(const serve_msg *m)
{
    serve_out o;
    serve_out_begin(&o, out, sizeof out, serve_type_name(m->type));
    if (m->has_id)
        serve_out_u64(&o, "id", m->id);
    serve_out_str(&o, "target", m->target);
    serve_out_str(&o, "command", m->command);
    serve_out_str(&o, "name", m->name);
    serve_out_str(&o, "token", m->token);
    serve_out_f64(&o, "value", m->value);
    for (uint32_t i = 0; i < m->n_channels && i < 64; i++)
        serve_out_str(&o, "channel", serve_msg_channel(m, i));
    check_reparses(serve_out_finish(&o), serve_type_name(m->type));
}

/* @return 0 when the server would go on reading, -1 when it would drop. */
static int decode_one(const uint8_t *payload, size_t len)
{
    serve_err err = {0};
    if (serve_msg_decode(payload, len, &msg, &err) != 0) {
        check_refusal(&err);
        return -1;
    }
    check_fields(&msg);
    check_echo(&msg);
    return 0;
}

static void split_stream(const uint8_t *data, size_t size)
{
    size_t off = 0;
    for (;;) {
        uint32_t n = 0;
        serve_frame f = serve_frame_next(data + off, size - off, &n);
        if (f == SERVE_FRAME_MORE) {
            if (size - off >= SERVE_FRAME_HEADER && n >= 1 && n <= SERVE_MAX_MESSAGE &&
                size - off - SERVE_FRAME_HEADER >= n)
                fuzz_fail("asks for more with a whole frame of %u bytes", n);
            return;
        }
        if (f == SERVE_FRAME_EMPTY || f == SERVE_FRAME_LARGE) {
            if ((f == SERVE_FRAME_EMPTY) != (n == 0) ||
                (f == SERVE_FRAME_LARGE) != (n > SERVE_MAX_MESSAGE))
                fuzz_fail("frame %d for length %u", (int)f, n);
            return;
        }
        if (n < 1 || n > SERVE_MAX_MESSAGE || n > size - off - SERVE_FRAME_HEADER)
            fuzz_fail("whole frame of %u bytes with %zu left", n, size - off);
        if (decode_one(data + off + SERVE_FRAME_HEADER, n) != 0)
            return;
        off += SERVE_FRAME_HEADER + n;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (data[0] & 1)
        split_stream(data + 1, size - 1);
    else if (size - 1 <= SERVE_MAX_MESSAGE)
        decode_one(data + 1, size - 1);
    return 0;
}
