/**
 * @file serve_proto.c
 * @brief The `pcsim serve` frame splitter, message decoder and reply writer
 *        (docs/protocol.md); pure functions, fuzzed by tests/fuzz/fuzz_serve.c.
 *
 * Decoding is strict because a request the server half-understood is worse
 * than one it refuses: every key is checked against the message type's
 * fields (an unknown key is an error, so a typo such as "chanels" is named
 * rather than ignored), every number against its range and kind (a step of
 * 2.5 ticks is refused, not truncated), and duplicate keys are refused
 * (JSON_REJECT_DUPLICATES). What reaches the server is a serve_msg of fixed
 * size: the only allocation is jansson's parse of one payload of at most
 * SERVE_MAX_MESSAGE bytes, freed before returning.
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/serve_proto.h"

serve_frame serve_frame_next(const uint8_t *buf, size_t len, uint32_t *payload_len)
{
    if (len < SERVE_FRAME_HEADER)
        return SERVE_FRAME_MORE;
    uint32_t n =
        (uint32_t)buf[0] << 24 | (uint32_t)buf[1] << 16 | (uint32_t)buf[2] << 8 | (uint32_t)buf[3];
    *payload_len = n;
    if (n == 0)
        return SERVE_FRAME_EMPTY;
    if (n > SERVE_MAX_MESSAGE)
        return SERVE_FRAME_LARGE;
    return len - SERVE_FRAME_HEADER >= n ? SERVE_FRAME_OK : SERVE_FRAME_MORE;
}

static const char *const type_names[] = {
    [SERVE_MSG_HELLO] = "hello",
    [SERVE_MSG_RESET] = "reset",
    [SERVE_MSG_STEP] = "step",
    [SERVE_MSG_OBSERVE] = "observe",
    [SERVE_MSG_ACT] = "act",
    [SERVE_MSG_LOAD] = "load",
    [SERVE_MSG_SAVE] = "save",
    [SERVE_MSG_CLOSE] = "close",
    [SERVE_MSG_SUBSCRIBE] = "subscribe",
};
#define N_TYPES (sizeof type_names / sizeof type_names[0])

const char *serve_type_name(serve_type t)
{
    return (unsigned)t < N_TYPES && type_names[t] ? type_names[t] : "?";
}

static int fail(serve_err *err, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(serve_err *err, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err->code = code;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return -1;
}

/* A field's bit in the mask of the types that take it. */
#define T(x) (1u << (x))
#define ALL_TYPES 0xffffffffu

typedef int (*field_fn)(const char *key, json_t *v, serve_msg *m, serve_err *err);

static int want_u64(const char *key, json_t *v, uint64_t lo, uint64_t hi, uint64_t *out,
                    serve_err *err)
{
    if (!json_is_integer(v))
        return fail(err, "bad_message", "\"%s\": expected an integer in [%" PRIu64 ", %" PRIu64 "]",
                    key, lo, hi);
    json_int_t x = json_integer_value(v);
    if (x < 0 || (uint64_t)x < lo || (uint64_t)x > hi)
        return fail(err, "bad_message",
                    "\"%s\": %lld is out of range; allowed [%" PRIu64 ", %" PRIu64 "]", key,
                    (long long)x, lo, hi);
    *out = (uint64_t)x;
    return 0;
}

static int want_str(const char *key, json_t *v, size_t max, char *out, serve_err *err)
{
    if (!json_is_string(v))
        return fail(err, "bad_message", "\"%s\": expected a string", key);
    size_t n = json_string_length(v);
    if (n == 0 || n > max)
        return fail(err, "bad_message", "\"%s\": %zu bytes; allowed 1..%zu", key, n, max);
    memcpy(out, json_string_value(v), n + 1);
    return 0;
}

/* want_u64 for a 32-bit field: @p hi is at most UINT32_MAX, so the value fits. */
static int want_u32(const char *key, json_t *v, uint32_t lo, uint32_t hi, uint32_t *out,
                    serve_err *err)
{
    uint64_t x = 0;
    if (want_u64(key, v, lo, hi, &x, err) != 0)
        return -1;
    *out = (uint32_t)x;
    return 0;
}

static int f_id(const char *key, json_t *v, serve_msg *m, serve_err *err)
{
    m->has_id = 1;
    return want_u64(key, v, 0, SERVE_ID_MAX, &m->id, err);
}

static int f_versions(const char *key, json_t *v, serve_msg *m, serve_err *err)
{
    size_t n = json_array_size(v);
    if (!json_is_array(v) || n == 0 || n > SERVE_VERSION_LIST_MAX)
        return fail(err, "bad_message", "\"%s\": expected an array of 1..%u integers", key,
                    SERVE_VERSION_LIST_MAX);
    for (size_t i = 0; i < n; i++) {
        uint64_t ver = 0;
        if (want_u64("versions[]", json_array_get(v, i), 1, 31, &ver, err) != 0)
            return -1;
        m->versions |= 1u << ver;
    }
    return 0;
}

static int f_token(const char *key, json_t *v, serve_msg *m, serve_err *err)
{
    m->has_token = 1;
    return want_str(key, v, SERVE_TOKEN_MAX, m->token, err);
}

static int f_role(const char *key, json_t *v, serve_msg *m, serve_err *err)
{
    const char *s = json_string_value(v);
    if (s && strcmp(s, "observe") == 0)
        m->role = SERVE_ROLE_OBSERVE;
    else if (s && strcmp(s, "control") == 0)
        m->role = SERVE_ROLE_CONTROL;
    else
        return fail(err, "bad_message", "\"%s\": expected \"observe\" or \"control\"", key);
    return 0;
}

static int f_seed(const char *key, json_t *v, serve_msg *m, serve_err *err)
{
    m->has_seed = 1;
    return want_u64(key, v, 0, (uint64_t)INT64_MAX, &m->seed, err);
}

static int f_n(const char *key, json_t *v, serve_msg *m, serve_err *err)
{
    return want_u32(key, v, 1, SERVE_STEP_MAX, &m->n, err);
}

static int f_hash(const char *key, json_t *v, serve_msg *m, serve_err *err)
{
    if (!json_is_boolean(v))
        return fail(err, "bad_message", "\"%s\": expected true or false", key);
    m->want_hash = json_is_true(v);
    return 0;
}

static int f_channels(const char *key, json_t *v, serve_msg *m, serve_err *err)
{
    size_t n = json_array_size(v);
    if (!json_is_array(v) || n == 0 || n > SERVE_MAX_CHANNELS)
        return fail(err, "bad_message", "\"%s\": expected an array of 1..%u channel names", key,
                    SERVE_MAX_CHANNELS);
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *s = json_array_get(v, i);
        size_t len = json_string_length(s);
        if (!json_is_string(s) || len == 0 || len > SERVE_NAME_MAX)
            return fail(err, "bad_message", "\"%s\"[%zu]: expected a name of 1..%u bytes", key, i,
                        SERVE_NAME_MAX);
        /* Each name plus its NUL is shorter than its JSON text (two quotes). */
        if (at + len + 1 > sizeof m->names)
            return fail(err, "bad_message", "\"%s\": names too long", key);
        memcpy(m->names + at, json_string_value(s), len + 1);
        m->channel_at[i] = (uint32_t)at;
        at += len + 1;
    }
    m->has_channels = 1;
    m->n_channels = (uint32_t)n;
    return 0;
}

static int f_every(const char *key, json_t *v, serve_msg *m, serve_err *err)
{
    return want_u32(key, v, 0, SERVE_EVERY_MAX, &m->every, err);
}

static int f_target(const char *key, json_t *v, serve_msg *m, serve_err *err)
{
    return want_str(key, v, SERVE_NAME_MAX, m->target, err);
}

static int f_command(const char *key, json_t *v, serve_msg *m, serve_err *err)
{
    return want_str(key, v, SERVE_COMMAND_MAX, m->command, err);
}

static int f_value(const char *key, json_t *v, serve_msg *m, serve_err *err)
{
    if (!json_is_number(v) || !isfinite(json_number_value(v)))
        return fail(err, "bad_message", "\"%s\": expected a finite number", key);
    m->value = json_number_value(v);
    return 0;
}

static int f_name(const char *key, json_t *v, serve_msg *m, serve_err *err)
{
    if (want_str(key, v, SERVE_SAVE_NAME_MAX, m->name, err) != 0)
        return -1;
    for (const char *p = m->name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '-'))
            return fail(err, "bad_message", "\"%s\": only A-Z a-z 0-9 _ - are allowed", key);
    return 0;
}

/* Every field: its key, the types that take it, and whether they require it. */
static const struct field {
    const char *key;
    uint32_t types;
    uint32_t required;
    field_fn fn;
} fields[] = {
    {"id", ALL_TYPES, 0, f_id},
    {"versions", T(SERVE_MSG_HELLO), T(SERVE_MSG_HELLO), f_versions},
    {"token", T(SERVE_MSG_HELLO), 0, f_token},
    {"role", T(SERVE_MSG_HELLO), 0, f_role},
    {"seed", T(SERVE_MSG_RESET), 0, f_seed},
    {"n", T(SERVE_MSG_STEP), 0, f_n},
    {"hash", T(SERVE_MSG_STEP) | T(SERVE_MSG_RESET), 0, f_hash},
    {"channels", T(SERVE_MSG_OBSERVE) | T(SERVE_MSG_SUBSCRIBE), 0, f_channels},
    {"every", T(SERVE_MSG_SUBSCRIBE), T(SERVE_MSG_SUBSCRIBE), f_every},
    {"target", T(SERVE_MSG_ACT), T(SERVE_MSG_ACT), f_target},
    {"command", T(SERVE_MSG_ACT), T(SERVE_MSG_ACT), f_command},
    {"value", T(SERVE_MSG_ACT), 0, f_value},
    {"name", T(SERVE_MSG_LOAD) | T(SERVE_MSG_SAVE), T(SERVE_MSG_LOAD) | T(SERVE_MSG_SAVE), f_name},
};
#define N_FIELDS (sizeof fields / sizeof fields[0])

static int decode_type(json_t *doc, serve_msg *m, serve_err *err)
{
    json_t *t = json_object_get(doc, "type");
    if (!json_is_string(t))
        return fail(err, "bad_message", "\"type\": missing or not a string");
    for (unsigned i = 1; i < N_TYPES; i++)
        if (strcmp(json_string_value(t), type_names[i]) == 0) {
            m->type = (serve_type)i;
            return 0;
        }
    return fail(err, "unknown_type",
                "\"type\": unknown message type \"%.40s\"; allowed hello, reset, step, observe, "
                "act, load, save, close, subscribe",
                json_string_value(t));
}

/* Every key but "type" goes through its field; then the required ones. */
static int decode_fields(json_t *doc, serve_msg *m, serve_err *err)
{
    const char *key;
    json_t *v;
    uint32_t seen = 0;
    json_object_foreach(doc, key, v)
    {
        if (strcmp(key, "type") == 0)
            continue;
        size_t f = 0;
        while (f < N_FIELDS && strcmp(fields[f].key, key) != 0)
            f++;
        if (f == N_FIELDS || !(fields[f].types & T(m->type)))
            return fail(err, "bad_message", "\"%.40s\": not a field of a %s message", key,
                        serve_type_name(m->type));
        if (fields[f].fn(key, v, m, err) != 0)
            return -1;
        seen |= 1u << f;
    }
    for (size_t f = 0; f < N_FIELDS; f++)
        if ((fields[f].required & T(m->type)) && !(seen & (1u << f)))
            return fail(err, "bad_message", "\"%s\": required in a %s message", fields[f].key,
                        serve_type_name(m->type));
    return 0;
}

int serve_msg_decode(const uint8_t *payload, size_t len, serve_msg *out, serve_err *err)
{
    /* The names area is written only as far as it is used. */
    memset(out, 0, offsetof(serve_msg, channel_at));
    out->n = 1;
    memset(out->target, 0, sizeof out->target);
    memset(out->command, 0, sizeof out->command);
    out->value = 0.0;
    memset(out->name, 0, sizeof out->name);
    json_error_t je;
    json_t *doc = json_loadb((const char *)payload, len, JSON_REJECT_DUPLICATES, &je);
    if (!doc)
        return fail(err, "bad_json", "not JSON: %s (byte %d)", je.text, je.position);
    int rc = 0;
    if (!json_is_object(doc))
        rc = fail(err, "bad_json", "a message is a JSON object");
    else if (decode_type(doc, out, err) != 0 || decode_fields(doc, out, err) != 0)
        rc = -1;
    json_decref(doc);
    return rc;
}

/* ---- Writer -------------------------------------------------------------- */

static void put(serve_out *o, const char *s, size_t n)
{
    if (!o->ok || o->len + n > o->cap) {
        o->ok = 0;
        return;
    }
    memcpy(o->buf + SERVE_FRAME_HEADER + o->len, s, n);
    o->len += n;
}

static void putf(serve_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void putf(serve_out *o, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp)
        o->ok = 0;
    else
        put(o, tmp, (size_t)n);
}

/* Length of the well-formed UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t want = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (s[0] >= 0xf5 || want == 0 || want > n)
        return 0;
    for (size_t i = 1; i < want; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
        (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
        return 0; /* overlong, surrogate or above U+10FFFF */
    return want;
}

/* A JSON string of @p s: escapes as JSON requires, and a '?' for each byte
 * that is not part of well-formed UTF-8 (error texts may quote client bytes
 * cut at a length limit), so every reply is valid UTF-8. */
static void put_string(serve_out *o, const char *s)
{
    put(o, "\"", 1);
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    while (n > 0) {
        if (*p == '"' || *p == '\\') {
            char e[2] = {'\\', (char)*p};
            put(o, e, 2);
        } else if (*p < 0x20) {
            putf(o, "\\u%04x", *p);
        } else if (*p >= 0x80) {
            size_t k = utf8_len(p, n);
            put(o, k ? (const char *)p : "?", k ? k : 1);
            if (k > 1) {
                p += k - 1;
                n -= k - 1;
            }
        } else {
            put(o, (const char *)p, 1);
        }
        p++;
        n--;
    }
    put(o, "\"", 1);
}

static void put_key(serve_out *o, const char *key)
{
    put(o, ",", 1);
    put_string(o, key);
    put(o, ":", 1);
}

/* The shortest of %.15g, %.16g and %.17g that reads back as the same double
 * (0.05, not 0.050000000000000003): exact and readable. */
static void put_f64(serve_out *o, double v)
{
    if (!isfinite(v)) {
        put(o, "null", 4);
        return;
    }
    char tmp[32];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(tmp, sizeof tmp, "%.*g", digits, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    put(o, tmp, strlen(tmp));
}

void serve_out_begin(serve_out *o, char *buf, size_t size, const char *type)
{
    o->buf = buf;
    o->cap = size > SERVE_FRAME_HEADER ? size - SERVE_FRAME_HEADER : 0;
    o->len = 0;
    o->ok = size > SERVE_FRAME_HEADER;
    put(o, "{\"type\":", 8);
    put_string(o, type);
}

void serve_out_str(serve_out *o, const char *key, const char *value)
{
    put_key(o, key);
    put_string(o, value);
}

void serve_out_u64(serve_out *o, const char *key, uint64_t value)
{
    put_key(o, key);
    putf(o, "%" PRIu64, value);
}

void serve_out_f64(serve_out *o, const char *key, double value)
{
    put_key(o, key);
    put_f64(o, value);
}

void serve_out_bool(serve_out *o, const char *key, int value)
{
    put_key(o, key);
    put(o, value ? "true" : "false", value ? 4 : 5);
}

void serve_out_hex(serve_out *o, const char *key, uint64_t value)
{
    put_key(o, key);
    putf(o, "\"%016" PRIx64 "\"", value);
}

void serve_out_f64s(serve_out *o, const char *key, const double *v, uint32_t n)
{
    put_key(o, key);
    put(o, "[", 1);
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            put(o, ",", 1);
        put_f64(o, v[i]);
    }
    put(o, "]", 1);
}

size_t serve_out_finish(serve_out *o)
{
    put(o, "}", 1);
    if (!o->ok || o->len > SERVE_MAX_MESSAGE)
        return 0;
    uint32_t n = (uint32_t)o->len;
    o->buf[0] = (char)(n >> 24);
    o->buf[1] = (char)(n >> 16);
    o->buf[2] = (char)(n >> 8);
    o->buf[3] = (char)n;
    return SERVE_FRAME_HEADER + o->len;
}
