/**
 * @file jsonr.c
 * @brief Checked JSON reads with file/path/reason errors (see jsonr.h).
 *
 * Numbers a double cannot hold. jansson keeps only the double it converted
 * (1e-400 arrives as 0, a subnormal as itself, and 1e400 or a 30-digit
 * integer fail the parse in its words), so the text is checked first:
 * jsonscan.c walks the raw bytes with jansson's number grammar and lists the
 * tokens that underflow, overflow or leave int64. Each such token is replaced,
 * in a copy of the text, by a string marker "\u0000<kind><text as written>"
 * and the copy is parsed with JSON_ALLOW_NUL. The marker sits where the number
 * was, survives schema migration (it is the same json_t), and every getter
 * here recognises it, so the error names the JSON path, the text as written
 * and the field's allowed range, wherever the field is read (station/station.c
 * reads the unit sections later with its own context). A marker cannot be
 * forged: the scan refuses any string holding \u0000 before parsing, so a
 * string starting with NUL is always ours.
 *
 * jansson's own messages. A parse failure is re-worded from its error code
 * (and, for syntax, the kind of token it expected), placed by line:column in
 * the original text, and given the JSON path at that byte by a second,
 * bounded scan; the text near the error is quoted as "found '...'".
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "station/jsonr.h"
#include "station/jsonscan.h"

/* Longest number text a marker keeps; longer ones end in "...". */
#define MARK_TEXT_MAX 400

static void jr_reset(jr_ctx *c, const char *file)
{
    c->file = file;
    snprintf(c->path, sizeof c->path, "$");
    c->msg[0] = '\0';
    c->failed = 0;
}

static json_t *jr_fail_load(jr_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static json_t *jr_fail_load(jr_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    c->failed = 1;
    return NULL;
}

/* ---- markers for numbers a double cannot hold ---------------------------- */

typedef struct subst {
    size_t off, len_old, len_new;
} subst;

/* Copy @p data with each bad number replaced by its marker string. */
static char *with_markers(const char *data, size_t len, const js_scan *sc, subst *subs,
                          size_t *out_len)
{
    size_t cap = len + sc->n_bad * (MARK_TEXT_MAX + 16) + 1;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    size_t at = 0, n = 0;
    for (size_t k = 0; k < sc->n_bad; k++) {
        const js_bad_number *b = &sc->bad[k];
        memcpy(buf + n, data + at, b->off - at);
        n += b->off - at;
        int keep = b->len > MARK_TEXT_MAX ? MARK_TEXT_MAX : (int)b->len;
        size_t start = n;
        n += (size_t)snprintf(buf + n, cap - n, "\"\\u0000%c%.*s%s\"", b->kind, keep, data + b->off,
                              b->len > MARK_TEXT_MAX ? "..." : "");
        subs[k] = (subst){.off = b->off, .len_old = b->len, .len_new = n - start};
        at = b->off + b->len;
    }
    memcpy(buf + n, data + at, len - at);
    n += len - at;
    *out_len = n;
    return buf;
}

/* A byte offset in the marked copy -> the same place in the original text. */
static size_t original_offset(const subst *subs, size_t n, size_t pos)
{
    size_t grown = 0; /* bytes the markers before pos added */
    for (size_t k = 0; k < n; k++) {
        size_t at = subs[k].off + grown;
        if (pos <= at)
            break;
        if (pos < at + subs[k].len_new)
            return subs[k].off + (pos - at < subs[k].len_old ? pos - at : subs[k].len_old);
        grown += subs[k].len_new - subs[k].len_old;
    }
    return pos - grown;
}

/* ---- jansson's errors in our words -------------------------------------- */

/* What was expected, from jansson's syntax message (its text names the token
 * it wanted; the code alone does not). */
static const char *expected_for(const char *jansson_text)
{
    static const struct {
        const char *theirs, *ours;
    } words[] = {
        {"string or '}' expected", "expected a field name in double quotes (no comma before '}')"},
        {"':' expected", "expected ':' after the field name"},
        {"'}' expected", "expected ',' or '}' after this field's value"},
        {"']' expected", "expected ',' or ']' after this array element"},
        {"'[' or '{' expected", "expected the scenario object '{'"},
        {"unexpected newline", "a string may not span lines (write \\n)"},
        {"control character", "a raw control character in a string (escape it, e.g. \\t)"},
        {"invalid escape",
         "invalid escape in a string; expected \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX"},
        {"invalid Unicode", "invalid \\u escape; expected a valid UTF-16 code unit or pair"},
        {"premature end of input", "the text ends inside a string; expected its closing '\"'"},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strstr(jansson_text, words[i].theirs))
            return words[i].ours;
    return "expected a JSON value here (an object, array, string, number, true, false or null)";
}

/* The text jansson saw at the error ("... near 'x'"), without the quotes; "". */
static void near_text(const char *jansson_text, char *out, size_t cap)
{
    const char *near = strstr(jansson_text, " near '");
    out[0] = '\0';
    if (near && strstr(jansson_text, "near end of file") == NULL) {
        const char *q = near + 7;
        size_t n = strlen(q);
        if (n && q[n - 1] == '\'')
            n--;
        snprintf(out, cap, "%.*s", (int)n, q);
    }
}

static void reword(const json_error_t *err, char *why, size_t cap)
{
    char near[48], found[64] = "";
    near_text(err->text, near, sizeof near);
    if (near[0])
        snprintf(found, sizeof found, ", found '%s'", near);
    switch (json_error_code(err)) {
    case json_error_invalid_utf8: {
        unsigned byte = 0;
        const char *b = strstr(err->text, "byte 0x");
        if (b)
            sscanf(b + 7, "%x", &byte);
        snprintf(why, cap, "invalid JSON: byte 0x%x is not UTF-8 (a scenario file is UTF-8 text)",
                 byte);
        break;
    }
    case json_error_end_of_input_expected:
        snprintf(why, cap,
                 "invalid JSON: more text after the scenario object%s; expected the end "
                 "of the file",
                 found);
        break;
    case json_error_premature_end_of_input:
        snprintf(why, cap, "invalid JSON: the file ends early; %s",
                 strstr(err->text, "premature end of input") ? expected_for(err->text)
                 : strstr(err->text, "'[' or '{'")
                     ? "expected the scenario object '{'"
                     : "expected the rest of the document (a closing '}' or ']'?)");
        break;
    case json_error_duplicate_key: {
        size_t n = strlen(near);
        int quoted = n >= 2 && near[0] == '"' && near[n - 1] == '"';
        snprintf(why, cap,
                 "the field '%.*s' appears twice in this object (each field may appear once)",
                 quoted ? (int)n - 2 : (int)n, near + quoted);
        break;
    }
    case json_error_stack_overflow:
        snprintf(why, cap, "nested deeper than %d levels (a scenario needs at most 4)",
                 JS_MAX_DEPTH);
        break;
    case json_error_out_of_memory:
        snprintf(why, cap, "out of memory while reading the JSON");
        break;
    default:
        snprintf(why, cap, "invalid JSON: %s%s", expected_for(err->text), found);
        break;
    }
}

static json_t *parse_failed(jr_ctx *c, const char *data, size_t len, const subst *subs,
                            size_t n_subs, const json_error_t *err)
{
    size_t pos = original_offset(subs, n_subs, (size_t)err->position);
    if (pos > len)
        pos = len;
    int line, col;
    js_line_column(data, pos, &line, &col);
    js_scan at;
    if (js_scan_run(data, len, pos, &at) != 0)
        snprintf(at.path, sizeof at.path, "$");
    js_scan_free(&at);
    char why[400];
    reword(err, why, sizeof why);
    return jr_fail_load(c, "%s:%d:%d: %s: %s", c->file, line, col, at.path, why);
}

static json_t *root_object(jr_ctx *c, json_t *root)
{
    if (!json_is_object(root)) {
        jr_fail(c, "the document must be a JSON object");
        json_decref(root);
        return NULL;
    }
    return root;
}

json_t *jr_load_buffer(jr_ctx *c, const char *file, const char *data, size_t len)
{
    jr_reset(c, file);
    size_t lead = 0;
    while (lead < len && strchr(" \t\r\n", data[lead]) && data[lead] != '\0')
        lead++;
    if (lead == len)
        return jr_fail_load(c, "%s: the file is empty; expected a scenario object {...}", file);
    js_scan sc;
    if (js_scan_run(data, len, len, &sc) != 0) {
        js_scan_free(&sc);
        return jr_fail_load(c, "%s: out of memory while reading the JSON", file);
    }
    if (sc.problem) {
        int line, col;
        js_line_column(data, sc.stop, &line, &col);
        jr_fail_load(c, "%s:%d:%d: %s: %s", file, line, col, sc.path, sc.problem);
        js_scan_free(&sc);
        return NULL;
    }
    subst *subs = sc.n_bad ? calloc(sc.n_bad, sizeof *subs) : NULL;
    size_t blen = len;
    char *marked = sc.n_bad && subs ? with_markers(data, len, &sc, subs, &blen) : NULL;
    size_t n_subs = sc.n_bad;
    js_scan_free(&sc);
    if (n_subs && !marked) {
        free(subs);
        return jr_fail_load(c, "%s: out of memory while reading the JSON", file);
    }
    json_error_t err;
    json_t *root =
        json_loadb(marked ? marked : data, blen, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &err);
    if (!root)
        parse_failed(c, data, len, subs, n_subs, &err);
    free(marked);
    free(subs);
    return root ? root_object(c, root) : NULL;
}

static const char *file_kind(mode_t m)
{
    return S_ISFIFO(m)   ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a plain file";
}

/* Read fd to its end, but never more than max_bytes + 1 bytes (the extra
 * byte tells a file that grew past the limit after fstat). The buffer starts
 * at the size fstat gave and grows only for such a file. */
static char *read_bounded(int fd, size_t size, size_t max_bytes, size_t *n_out)
{
    size_t limit = max_bytes + 1, cap = (size < max_bytes ? size : max_bytes) + 1, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            if (cap == limit)
                break;
            size_t grown = cap > limit / 2 ? limit : 2 * cap;
            char *b = realloc(buf, grown);
            if (!b) {
                free(buf);
                errno = ENOMEM;
                return NULL;
            }
            buf = b;
            cap = grown;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            free(buf);
            return NULL;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    *n_out = n;
    return buf;
}

/* Bounded read (trust nothing that is read: docs/ARCHITECTURE.md section 9): opened without
 * blocking (a FIFO with no writer would block in open) and without becoming
 * a controlling terminal, checked with fstat to be a regular file no larger
 * than max_bytes, and only then read; O_NONBLOCK is cleared for the read. */
json_t *jr_load_file(jr_ctx *c, const char *file, size_t max_bytes)
{
    jr_reset(c, file);
    int fd = open(file, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return jr_fail_load(c, "%s: cannot open: %s", file, strerror(errno));
    struct stat st;
    const char *refused = NULL;
    if (fstat(fd, &st) != 0)
        refused = strerror(errno);
    else if (S_ISDIR(st.st_mode))
        refused = "is a directory, not a scenario file";
    if (refused || !S_ISREG(st.st_mode)) {
        close(fd);
        if (refused)
            return jr_fail_load(c, "%s: %s", file, refused);
        return jr_fail_load(c, "%s: is not a regular file (%s); a scenario must be a regular file",
                            file, file_kind(st.st_mode));
    }
    if ((unsigned long long)st.st_size > max_bytes) {
        close(fd);
        return jr_fail_load(c,
                            "%s: %lld bytes is more than the scenario size limit of %zu bytes "
                            "(set with --max-scenario-bytes)",
                            file, (long long)st.st_size, max_bytes);
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    size_t n = 0;
    char *buf = read_bounded(fd, (size_t)st.st_size, max_bytes, &n);
    int read_errno = errno;
    close(fd);
    if (!buf)
        return jr_fail_load(c, "%s: cannot read: %s", file, strerror(read_errno));
    if (n > max_bytes) {
        free(buf);
        return jr_fail_load(c,
                            "%s: grew past the scenario size limit of %zu bytes while being read",
                            file, max_bytes);
    }
    json_t *root = jr_load_buffer(c, file, buf, n);
    free(buf);
    return root;
}

json_t *jr_load(jr_ctx *c, const char *file, const char *text)
{
    if (text)
        return jr_load_buffer(c, file, text, strlen(text));
    return jr_load_file(c, file, JR_DEFAULT_MAX_BYTES);
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

/* A marker left by jr_load_buffer for a number a double cannot hold: its kind
 * (JS_UNDERFLOW, JS_OVERFLOW, JS_INT_BIG) and its text as written. */
static char marker(json_t *v, const char **text)
{
    if (!json_is_string(v) || json_string_length(v) < 2 || json_string_value(v)[0] != '\0')
        return 0;
    *text = json_string_value(v) + 2;
    return json_string_value(v)[1];
}

/* Shown text of a marker: cut at 40 characters. */
static void shown(const char *text, char *out, size_t cap)
{
    snprintf(out, cap, "%.40s%s", text, strlen(text) > 40 ? "..." : "");
}

static const char *type_name(json_t *v)
{
    const char *text;
    return marker(v, &text)     ? "a number"
           : json_is_integer(v) ? "an integer"
           : json_is_real(v)    ? "a number with a fraction or exponent"
           : json_is_string(v)  ? "a string"
           : json_is_boolean(v) ? "a boolean"
           : json_is_null(v)    ? "null"
           : json_is_array(v)   ? "an array"
                                : "an object";
}

/* A marker where a real is read: refuse with its text, unless it is an
 * integer outside int64 that a double holds (jansson only refused the int). */
static int marker_num(jr_ctx *c, char kind, const char *text, double lo, double hi, double *x)
{
    char t[48];
    shown(text, t, sizeof t);
    if (kind == JS_INT_BIG && !strstr(text, "...")) {
        *x = strtod(text, NULL);
        if (isfinite(*x))
            return 1;
        kind = JS_OVERFLOW;
    }
    if (kind == JS_UNDERFLOW)
        return jr_fail(c,
                       "value %s is too small for a double (non-zero magnitudes start at "
                       "2.2e-308); allowed [%g, %g]",
                       t, lo, hi);
    return jr_fail(c,
                   "value %s is too large for a double (magnitudes up to 1.8e+308); allowed "
                   "[%g, %g]",
                   t, lo, hi);
}

static int num_at(jr_ctx *c, json_t *v, double lo, double hi, double *out)
{
    const char *text;
    char kind = marker(v, &text);
    double x = 0.0; /* set on every path that reaches the range check; gcc -O1 cannot see it */
    if (kind) {
        if (marker_num(c, kind, text, lo, hi, &x) != 1)
            return -1;
    } else if (!json_is_number(v)) {
        return jr_fail(c, "expected a number, got %s; allowed [%g, %g]", type_name(v), lo, hi);
    } else {
        x = json_number_value(v);
    }
    if (!isfinite(x) || x < lo || x > hi)
        return jr_fail(c, "value %g is outside [%g, %g]", x, lo, hi);
    *out = x;
    return 0;
}

/* An integer in [lo, hi] at v (the current path). */
static int int_at(jr_ctx *c, json_t *v, json_int_t lo, json_int_t hi, json_int_t *out)
{
    const char *text;
    char kind = marker(v, &text);
    char t[48];
    if (kind) {
        shown(text, t, sizeof t);
        if (kind == JS_INT_BIG)
            return jr_fail(c, "value %s does not fit a 64-bit integer; allowed [%lld, %lld]", t,
                           (long long)lo, (long long)hi);
        return jr_fail(c, "expected an integer, got %s; allowed [%lld, %lld]", t, (long long)lo,
                       (long long)hi);
    }
    if (!json_is_integer(v))
        return jr_fail(c, "expected an integer, got %s; allowed [%lld, %lld]", type_name(v),
                       (long long)lo, (long long)hi);
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi)
        return jr_fail(c, "value %lld is outside [%lld, %lld]", (long long)x, (long long)lo,
                       (long long)hi);
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
    json_int_t x;
    int rc = int_at(c, v, lo, hi, &x);
    if (rc == 0)
        *out = (uint32_t)x;
    jr_pop(c, p);
    return rc;
}

int jr_u64(jr_ctx *c, json_t *obj, const char *key, uint64_t *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return 0;
    size_t p = jr_push_key(c, key);
    json_int_t x; /* jansson's integers are int64: [0, 2^63 - 1] */
    int rc = int_at(c, v, 0, LLONG_MAX, &x);
    if (rc == 0)
        *out = (uint64_t)x;
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
    const char *text;
    if (marker(v, &text) || !json_is_string(v) || json_string_length(v) == 0)
        rc = jr_fail(c, "expected a non-empty string, got %s",
                     json_is_string(v) && !marker(v, &text) ? "\"\"" : type_name(v));
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
    jr_fail(c, "expected %s, got %s", want_array ? "an array" : "an object", type_name(v));
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

int jr_section(jr_ctx *c, json_t *obj, const char *key, const char *const *allowed,
               jr_fields_fn fields, void *out)
{
    json_t *o = jr_obj(c, obj, key);
    if (!o)
        return c->failed ? -1 : 0;
    size_t p = jr_push_key(c, key);
    int rc = jr_only_keys(c, o, allowed);
    rc |= fields(c, o, out);
    jr_pop(c, p);
    return rc ? -1 : 0;
}

/* One table field into its place in out. */
static int table_field(jr_ctx *c, json_t *o, const jr_field *f, void *out)
{
    char *at = (char *)out + f->offset;
    switch (f->type) {
    case JR_U32:
        return jr_u32(c, o, f->key, (uint32_t)f->lo, (uint32_t)f->hi, (uint32_t *)(void *)at);
    case JR_U64:
        return jr_u64(c, o, f->key, (uint64_t *)(void *)at);
    default:
        return jr_num(c, o, f->key, f->lo, f->hi, (double *)(void *)at);
    }
}

/* A table section's reads, for jr_section. */
typedef struct table_read {
    const jr_field *fields;
    size_t n;
    void *out;
} table_read;

static int table_fields(jr_ctx *c, json_t *o, void *arg)
{
    const table_read *t = arg;
    int rc = 0;
    for (size_t i = 0; i < t->n; i++)
        rc |= table_field(c, o, &t->fields[i], t->out);
    return rc;
}

int jr_table_section(jr_ctx *c, json_t *obj, const char *key, const jr_field *fields, size_t n,
                     void *out)
{
    const char *allowed[JR_TABLE_MAX + 1];
    if (n > JR_TABLE_MAX)
        return jr_fail(c, "internal: section '%s' lists %zu fields; at most %d", key, n,
                       JR_TABLE_MAX);
    for (size_t i = 0; i < n; i++)
        allowed[i] = fields[i].key;
    allowed[n] = NULL;
    table_read t = {fields, n, out};
    return jr_section(c, obj, key, allowed, table_fields, &t);
}

int jr_array_section(jr_ctx *c, json_t *obj, const char *key, size_t max, const char *what,
                     jr_item_fn item, void *out)
{
    json_t *arr = jr_arr(c, obj, key);
    if (!arr)
        return c->failed ? -1 : 0;
    size_t p = jr_push_key(c, key);
    if (json_array_size(arr) > max)
        return jr_fail(c, "%zu %s; at most %zu", json_array_size(arr), what, max);
    for (size_t i = 0; i < json_array_size(arr); i++) {
        size_t q = jr_push_index(c, i);
        if (item(c, json_array_get(arr, i), i, out) != 0)
            return -1;
        jr_pop(c, q);
    }
    jr_pop(c, p);
    return 0;
}
