/**
 * @file serve_webmsg.c
 * @brief Decoding the control room page's messages (cli/serve_webmsg.h):
 *        subscribe, act, keyframe; unknown keys refused, every field range
 *        checked, each refusal naming the field, its value and the range.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/serve_webmsg.h"

static int refuse(web_err *err, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int refuse(web_err *err, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->code = code;
    return -1;
}

/* Keys of @p o must be among @p keys (NULL-terminated). */
static int only_keys(json_t *o, const char *where, const char *const *keys, web_err *err)
{
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v)
    {
        int ok = 0;
        for (const char *const *q = keys; *q; q++)
            ok |= strcmp(k, *q) == 0;
        if (!ok)
            return refuse(err, "bad_message", "%s: unknown key \"%.60s\"", where, k);
    }
    return 0;
}

/* A string field of 1..max bytes with no NUL. @return its length, or -1. */
static int text(json_t *o, const char *key, size_t max, const char *where, const char **out,
                web_err *err)
{
    json_t *v = json_object_get(o, key);
    size_t n = json_string_length(v);
    *out = json_string_value(v);
    if (!*out || n == 0 || n > max || strlen(*out) != n)
        return refuse(err, "bad_message",
                      "%s: \"%s\" must be a string of 1..%zu bytes without NUL%s", where, key, max,
                      *out ? "" : " (missing or not a string)");
    return (int)n;
}

static int decode_id(json_t *o, web_msg *m, web_err *err)
{
    json_t *id = json_object_get(o, "id");
    if (!id)
        return 0;
    json_int_t v = json_is_integer(id) ? json_integer_value(id) : -1;
    if (v < 0 || (uint64_t)v > SERVE_ID_MAX)
        return refuse(err, "bad_message", "\"id\": must be an integer in [0, 2^53]");
    m->has_id = 1;
    m->id = (uint64_t)v;
    return 0;
}

static int decode_act(json_t *o, web_msg *m, web_err *err)
{
    static const char *const keys[] = {"type", "id", "target", "command", "value", NULL};
    const char *target, *command;
    if (only_keys(o, "act", keys, err) ||
        text(o, "target", SERVE_NAME_MAX, "act", &target, err) < 0 ||
        text(o, "command", SERVE_COMMAND_MAX, "act", &command, err) < 0)
        return -1;
    json_t *value = json_object_get(o, "value");
    if (value && !json_is_number(value))
        return refuse(err, "bad_message", "act: \"value\" must be a number");
    m->value = value ? json_number_value(value) : 0.0;
    if (!isfinite(m->value))
        return refuse(err, "bad_message", "act: \"value\" must be finite");
    snprintf(m->target, sizeof m->target, "%s", target);
    snprintf(m->command, sizeof m->command, "%s", command);
    return 0;
}

static int class_of(const char *s)
{
    static const char *const names[] = {"gauge", "display", "recorder", "event"};
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

static int decode_slot(json_t *e, uint32_t i, web_msg *m, size_t *used, web_err *err)
{
    static const char *const keys[] = {"name", "class", "priority", NULL};
    char where[48];
    snprintf(where, sizeof where, "subscribe: \"channels\"[%u]", i);
    if (!json_is_object(e))
        return refuse(err, "bad_message",
                      "%s: want {\"name\": string, \"class\": string, \"priority\": 0..2}", where);
    const char *name, *cls;
    int n = text(e, "name", SERVE_NAME_MAX, where, &name, err);
    if (only_keys(e, where, keys, err) || n < 0 || text(e, "class", 16, where, &cls, err) < 0)
        return -1;
    int c = class_of(cls);
    if (c < 0)
        return refuse(err, "bad_message",
                      "%s: \"class\" '%.16s'; allowed gauge, display, recorder, event", where, cls);
    json_t *prio = json_object_get(e, "priority");
    json_int_t p = prio && json_is_integer(prio) ? json_integer_value(prio) : 0;
    if ((prio && !json_is_integer(prio)) || p < 0 || p > 2)
        return refuse(err, "bad_message", "%s: \"priority\" must be an integer in [0, 2]", where);
    m->name_at[i] = (uint32_t)*used;
    memcpy(m->names + *used, name, (size_t)n + 1);
    *used += (size_t)n + 1;
    m->rate_class[i] = (uint8_t)c;
    m->priority[i] = (uint8_t)p;
    return 0;
}

static int decode_subscribe(json_t *o, web_msg *m, web_err *err)
{
    static const char *const keys[] = {"type", "id", "channels", NULL};
    if (only_keys(o, "subscribe", keys, err))
        return -1;
    json_t *arr = json_object_get(o, "channels");
    size_t n = json_array_size(arr);
    if (!json_is_array(arr) || n == 0 || n > WEB_SLOTS_MAX)
        return refuse(err, "bad_message",
                      "subscribe: \"channels\" must be an array of 1..%u entries (got %zu)",
                      WEB_SLOTS_MAX, n);
    size_t used = 0;
    for (uint32_t i = 0; i < n; i++)
        if (decode_slot(json_array_get(arr, i), i, m, &used, err))
            return -1;
    m->n = (uint32_t)n;
    return 0;
}

int web_msg_decode(const char *data, size_t len, web_msg *out, web_err *err)
{
    out->type = 0;
    out->has_id = 0;
    out->id = 0;
    out->n = 0;
    out->value = 0.0;
    out->target[0] = out->command[0] = '\0';
    if (len > WEB_MAX_MESSAGE)
        return refuse(err, "bad_message", "a message of %zu bytes; at most %u", len,
                      WEB_MAX_MESSAGE);
    json_error_t je;
    json_t *o = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
    if (!json_is_object(o)) {
        int r =
            o ? refuse(err, "bad_json", "not a JSON object")
              : refuse(err, "bad_json", "not one JSON object: %s (byte %d)", je.text, je.position);
        json_decref(o);
        return r;
    }
    const char *type = json_string_value(json_object_get(o, "type"));
    int rc;
    if (!type)
        rc = refuse(err, "bad_message", "\"type\": a string is required");
    else if (decode_id(o, out, err))
        rc = -1;
    else if (strcmp(type, "act") == 0) {
        out->type = WEB_MSG_ACT;
        rc = decode_act(o, out, err);
    } else if (strcmp(type, "subscribe") == 0) {
        out->type = WEB_MSG_SUBSCRIBE;
        rc = decode_subscribe(o, out, err);
    } else if (strcmp(type, "keyframe") == 0) {
        static const char *const keys[] = {"type", "id", NULL};
        out->type = WEB_MSG_KEYFRAME;
        rc = only_keys(o, "keyframe", keys, err);
    } else
        rc = refuse(err, "unknown_type", "\"type\": '%.40s' is not subscribe, act or keyframe",
                    type);
    json_decref(o);
    return rc;
}
