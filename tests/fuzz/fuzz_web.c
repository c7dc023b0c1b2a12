/**
 * @file fuzz_web.c
 * @brief libFuzzer target: the control room page's message decoder
 *        (cli/serve_webmsg.c), the code every text message a browser sends
 *        to `pcsim serve --http` goes through.
 *
 * Checked per input, beyond "no crash, no leak, no undefined behaviour":
 *  - a refusal has a known code (bad_json, bad_message, unknown_type) and a
 *    non-empty message;
 *  - an accepted message has every field within its documented range
 *    (docs/protocol.md, "HTTP and WebSocket"): a known type; id at most
 *    2^53; act: target 1..127 and command 1..31 bytes without NUL, a finite
 *    value; subscribe: 1..1024 names of 1..127 bytes, each inside the name
 *    buffer, class 0..3, priority 0..2;
 *  - decoding is a function: the same bytes decode again to the same
 *    result.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/serve_webmsg.h"
#include "tests/fuzz/fuzz_common.h"

static web_msg a, b;

static void check_ok(const web_msg *m)
{
    if (m->type < WEB_MSG_SUBSCRIBE || m->type > WEB_MSG_KEYFRAME)
        fuzz_fail("accepted type %d", (int)m->type);
    if (m->has_id && m->id > SERVE_ID_MAX)
        fuzz_fail("id %llu above 2^53", (unsigned long long)m->id);
    if (m->type == WEB_MSG_ACT) {
        size_t t = strnlen(m->target, sizeof m->target), c = strnlen(m->command, sizeof m->command);
        if (t == 0 || t > SERVE_NAME_MAX || c == 0 || c > SERVE_COMMAND_MAX)
            fuzz_fail("act target %zu bytes, command %zu bytes", t, c);
        if (!isfinite(m->value))
            fuzz_fail("act value not finite");
    }
    if (m->type == WEB_MSG_SUBSCRIBE) {
        if (m->n == 0 || m->n > WEB_SLOTS_MAX)
            fuzz_fail("subscribe of %u channels", m->n);
        for (uint32_t i = 0; i < m->n; i++) {
            if (m->name_at[i] >= sizeof m->names)
                fuzz_fail("name %u at %u, outside the buffer", i, m->name_at[i]);
            size_t n = strnlen(web_msg_channel(m, i), sizeof m->names - m->name_at[i]);
            if (n == 0 || n > SERVE_NAME_MAX || m->rate_class[i] > 3 || m->priority[i] > 2)
                fuzz_fail("slot %u: name %zu bytes, class %u, priority %u", i, n, m->rate_class[i],
                          m->priority[i]);
        }
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    web_err ea, eb;
    int ra = web_msg_decode((const char *)data, size, &a, &ea);
    int rb = web_msg_decode((const char *)data, size, &b, &eb);
    if (ra != rb)
        fuzz_fail("decoded twice: %d then %d", ra, rb);
    if (ra != 0) {
        if (!ea.code || (strcmp(ea.code, "bad_json") && strcmp(ea.code, "bad_message") &&
                         strcmp(ea.code, "unknown_type")))
            fuzz_fail("refusal code '%s'", ea.code ? ea.code : "(null)");
        if (!ea.message[0] || strcmp(ea.message, eb.message) != 0)
            fuzz_fail("refusal message '%s' then '%s'", ea.message, eb.message);
        return 0;
    }
    check_ok(&a);
    if (a.type != b.type || a.n != b.n || a.has_id != b.has_id || a.id != b.id ||
        strcmp(a.target, b.target) || strcmp(a.command, b.command))
        fuzz_fail("decoded twice to different messages");
    return 0;
}
