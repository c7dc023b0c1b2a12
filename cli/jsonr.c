/**
 * @file jsonr.c
 * @brief Checked JSON reads with file/path/reason errors (see jsonr.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/jsonr.h"

json_t *jr_load(jr_ctx *c, const char *file, const char *text)
{
    json_error_t err;
    c->file = file;
    snprintf(c->path, sizeof c->path, "$");
    c->msg[0] = '\0';
    c->failed = 0;
    /* jansson reads a directory as an empty file ("'[' or '{' expected near
     * end of file"), which sends the user looking for a syntax error. */
    struct stat st;
    if (!text && stat(file, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(c->msg, sizeof c->msg, "%s: is a directory, not a scenario file", file);
        c->failed = 1;
        return NULL;
    }
    json_t *root = text ? json_loads(text, JSON_REJECT_DUPLICATES, &err)
                        : json_load_file(file, JSON_REJECT_DUPLICATES, &err);
    if (!root) {
        if (err.line < 0)
            snprintf(c->msg, sizeof c->msg, "%s: %s", file, err.text);
        else
            snprintf(c->msg, sizeof c->msg, "%s:%d:%d: invalid JSON: %s", file, err.line,
                     err.column, err.text);
        c->failed = 1;
        return NULL;
    }
    if (!json_is_object(root)) {
        jr_fail(c, "the document must be a JSON object");
        json_decref(root);
        return NULL;
    }
    return root;
}

int jr_fail(jr_ctx *c, const char *fmt, ...)
{
    if (c->failed)
        return -1;
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(c->msg, sizeof c->msg, "%s: %s: %s", c->file, c->path, why);
    c->failed = 1;
    return -1;
}

size_t jr_push_key(jr_ctx *c, const char *key)
{
    size_t len = strlen(c->path);
    snprintf(c->path + len, sizeof c->path - len, ".%s", key);
    return len;
}

size_t jr_push_index(jr_ctx *c, size_t i)
{
    size_t len = strlen(c->path);
    snprintf(c->path + len, sizeof c->path - len, "[%zu]", i);
    return len;
}

void jr_pop(jr_ctx *c, size_t len)
{
    if (!c->failed) /* keep the path of the first error */
        c->path[len] = '\0';
}

int jr_only_keys(jr_ctx *c, json_t *obj, const char *const *allowed)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        (void)v;
        int known = 0;
        for (const char *const *a = allowed; *a && !known; a++)
            known = strcmp(*a, key) == 0;
        if (!known) {
            char list[400] = "";
            for (const char *const *a = allowed; *a; a++) {
                size_t n = strlen(list);
                snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", *a);
            }
            return jr_fail(c, "unknown field '%s' (allowed: %s)", key, list);
        }
    }
    return 0;
}

static int num_at(jr_ctx *c, json_t *v, double lo, double hi, double *out)
{
    if (!json_is_number(v))
        return jr_fail(c, "expected a number, got %s",
                       json_is_string(v)   ? "a string"
                       : json_is_boolean(v) ? "a boolean"
                       : json_is_null(v)    ? "null"
                       : json_is_array(v)   ? "an array"
                                            : "an object");
    double x = json_number_value(v);
    if (!isfinite(x) || x < lo || x > hi)
        return jr_fail(c, "value %g is outside [%g, %g]", x, lo, hi);
    *out = x;
    return 0;
}

int jr_num(jr_ctx *c, json_t *obj, const char *key, double lo, double hi, double *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return 0;
    size_t p = jr_push_key(c, key);
    int rc = num_at(c, v, lo, hi, out);
    jr_pop(c, p);
    return rc;
}

int jr_num_req(jr_ctx *c, json_t *obj, const char *key, double lo, double hi, double *out)
{
    if (!json_object_get(obj, key))
        return jr_fail(c, "missing required field '%s'", key);
    return jr_num(c, obj, key, lo, hi, out);
}

int jr_u32(jr_ctx *c, json_t *obj, const char *key, uint32_t lo, uint32_t hi, uint32_t *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return 0;
    size_t p = jr_push_key(c, key);
    int rc = 0;
    if (!json_is_integer(v))
        rc = jr_fail(c, "expected an integer");
    else if (json_integer_value(v) < (json_int_t)lo || json_integer_value(v) > (json_int_t)hi)
        rc = jr_fail(c, "value %lld is outside [%u, %u]", (long long)json_integer_value(v), lo,
                     hi);
    else
        *out = (uint32_t)json_integer_value(v);
    jr_pop(c, p);
    return rc;
}

int jr_u64(jr_ctx *c, json_t *obj, const char *key, uint64_t *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return 0;
    size_t p = jr_push_key(c, key);
    int rc = 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        rc = jr_fail(c, "expected a non-negative integer");
    else
        *out = (uint64_t)json_integer_value(v);
    jr_pop(c, p);
    return rc;
}

int jr_str(jr_ctx *c, json_t *obj, const char *key, const char **out)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return 0;
    size_t p = jr_push_key(c, key);
    int rc = 0;
    if (!json_is_string(v) || json_string_length(v) == 0)
        rc = jr_fail(c, "expected a non-empty string");
    else
        *out = json_string_value(v);
    jr_pop(c, p);
    return rc;
}

int jr_str_req(jr_ctx *c, json_t *obj, const char *key, const char **out)
{
    if (!json_object_get(obj, key))
        return jr_fail(c, "missing required field '%s'", key);
    return jr_str(c, obj, key, out);
}

static json_t *typed(jr_ctx *c, json_t *obj, const char *key, int want_array)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return NULL;
    if (want_array ? json_is_array(v) : json_is_object(v))
        return v;
    size_t p = jr_push_key(c, key);
    jr_fail(c, "expected %s", want_array ? "an array" : "an object");
    jr_pop(c, p);
    return NULL;
}

json_t *jr_obj(jr_ctx *c, json_t *obj, const char *key)
{
    return typed(c, obj, key, 0);
}

json_t *jr_arr(jr_ctx *c, json_t *obj, const char *key)
{
    return typed(c, obj, key, 1);
}

int jr_num_array(jr_ctx *c, json_t *obj, const char *key, size_t n, double lo, double hi,
                 double *out)
{
    json_t *a = jr_arr(c, obj, key);
    if (!a)
        return c->failed ? -1 : 0;
    size_t p = jr_push_key(c, key);
    int rc = 0;
    if (json_array_size(a) != n)
        rc = jr_fail(c, "expected %zu numbers, got %zu", n, json_array_size(a));
    for (size_t i = 0; rc == 0 && i < n; i++) {
        size_t q = jr_push_index(c, i);
        rc = num_at(c, json_array_get(a, i), lo, hi, &out[i]);
        jr_pop(c, q);
    }
    jr_pop(c, p);
    return rc;
}
