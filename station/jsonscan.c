/**
 * @file jsonscan.c
 * @brief Raw-byte pass over a JSON document (see jsonscan.h for why).
 *
 * A small state machine, not a parser: a stack of open containers with the
 * current key (as raw bytes) or element index, so the JSON path is known at
 * every byte. Strings are skipped honouring escapes, numbers are cut with
 * jansson's grammar and converted with strtod/strtoll (the host never calls
 * setlocale, so the decimal point is '.'), punctuation moves the stack.
 * Malformed input is not diagnosed here: the pass keeps going and jansson
 * reports the syntax error, which jsonr.c then places with js_scan_run(until).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "station/jsonscan.h"

typedef struct frame {
    char open;      /* '{' or '[' */
    int want_key;   /* object: the next string is a key */
    int has_key;    /* object: key_off/key_len are set */
    size_t key_off; /* raw key bytes (between the quotes) */
    size_t key_len;
    size_t index; /* array: current element */
} frame;

typedef struct scan_state {
    const char *text;
    size_t len;
    frame stack[JS_MAX_DEPTH];
    size_t depth;
    js_scan *out;
} scan_state;

static int is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

static void path_of(const scan_state *s, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "$");
    for (size_t d = 0; d < s->depth && n < cap; d++) {
        const frame *f = &s->stack[d];
        if (f->open == '[') {
            n += (size_t)snprintf(buf + n, cap - n, "[%zu]", f->index);
        } else if (f->has_key && n + 1 < cap) {
            buf[n++] = '.';
            /* Raw key bytes, control bytes shown as '?': a path is for reading. */
            for (size_t k = 0; k < f->key_len && n + 1 < cap; k++) {
                unsigned char ch = (unsigned char)s->text[f->key_off + k];
                buf[n++] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
            }
            buf[n] = '\0';
        }
    }
    if (n >= cap && cap > 4)
        memcpy(buf + cap - 4, "...", 4); /* cut paths say so */
}

static void stop_at(scan_state *s, size_t consumed, const char *problem)
{
    s->out->problem = problem;
    s->out->stop = consumed;
    path_of(s, s->out->path, sizeof s->out->path);
}

static int note_bad(scan_state *s, size_t off, size_t len, char kind)
{
    js_scan *o = s->out;
    if (o->n_bad == o->cap_bad) {
        size_t cap = o->cap_bad ? 2 * o->cap_bad : 8;
        js_bad_number *b = realloc(o->bad, cap * sizeof *b);
        if (!b)
            return -1;
        o->bad = b;
        o->cap_bad = cap;
    }
    o->bad[o->n_bad++] = (js_bad_number){.off = off, .len = len, .kind = kind};
    return 0;
}

/* Kind of the number text [p, p+n): 0 when a double (or int64) holds it. */
static char classify(const char *p, size_t n, int integer)
{
    char small[512];
    char *buf = n < sizeof small ? small : malloc(n + 1);
    if (!buf)
        return 0; /* jansson will convert it as before */
    memcpy(buf, p, n);
    buf[n] = '\0';
    char kind = 0;
    errno = 0;
    if (integer) {
        (void)strtoll(buf, NULL, 10);
        kind = errno == ERANGE ? JS_INT_BIG : 0;
    } else {
        double d = strtod(buf, NULL);
        int nonzero = 0;
        for (const char *q = buf; *q && *q != 'e' && *q != 'E'; q++)
            nonzero |= *q >= '1' && *q <= '9';
        if (isinf(d))
            kind = JS_OVERFLOW;
        else if (nonzero && (d == 0.0 || fpclassify(d) == FP_SUBNORMAL))
            kind = JS_UNDERFLOW;
    }
    if (buf != small)
        free(buf);
    return kind;
}

/* A number token at i (jansson's grammar); returns the offset after it. */
static size_t scan_number(scan_state *s, size_t i, int *err)
{
    const char *t = s->text;
    size_t j = i, n = s->len;
    if (t[j] == '-')
        j++;
    if (j < n && t[j] == '0')
        j++;
    else if (j < n && is_digit(t[j]))
        while (j < n && is_digit(t[j]))
            j++;
    else
        return j > i ? j : i + 1; /* not a number: jansson reports it */
    int integer = 1;
    if (j + 1 < n && t[j] == '.' && is_digit(t[j + 1])) {
        integer = 0;
        for (j++; j < n && is_digit(t[j]); j++)
            ;
    }
    if (j < n && (t[j] == 'e' || t[j] == 'E')) {
        size_t k = j + 1;
        if (k < n && (t[k] == '+' || t[k] == '-'))
            k++;
        if (k < n && is_digit(t[k])) {
            integer = 0;
            for (j = k; j < n && is_digit(t[j]); j++)
                ;
        }
    }
    char kind = classify(t + i, j - i, integer);
    if (kind && note_bad(s, i, j - i, kind) != 0)
        *err = -1;
    return j;
}

/* A string at i (the opening quote); returns the offset after it, or 0 at a
 * \u0000 escape (the scan stops there). */
static size_t scan_string(scan_state *s, size_t i)
{
    const char *t = s->text;
    size_t j = i + 1;
    while (j < s->len && t[j] != '"') {
        if (t[j] == '\\') {
            if (j + 5 < s->len && memcmp(t + j + 1, "u0000", 5) == 0) {
                stop_at(s, j + 1,
                        "a string holds \\u0000 (NUL), which no scenario field may contain");
                return 0;
            }
            j++;
        }
        j++;
    }
    frame *f = s->depth ? &s->stack[s->depth - 1] : NULL;
    if (f && f->open == '{' && f->want_key) {
        f->want_key = 0;
        f->has_key = 1;
        f->key_off = i + 1;
        f->key_len = (j < s->len ? j : s->len) - (i + 1);
    }
    return j < s->len ? j + 1 : s->len;
}

/* Punctuation at i; returns -1 at a nesting deeper than JS_MAX_DEPTH. */
static int scan_punct(scan_state *s, size_t i)
{
    char ch = s->text[i];
    frame *top = s->depth ? &s->stack[s->depth - 1] : NULL;
    if (ch == '{' || ch == '[') {
        if (s->depth == JS_MAX_DEPTH) {
            stop_at(s, i + 1, "nested deeper than 32 levels (a scenario needs at most 4)");
            return -1;
        }
        s->stack[s->depth++] = (frame){.open = ch, .want_key = ch == '{'};
    } else if ((ch == '}' || ch == ']') && top) {
        s->depth--;
    } else if (ch == ',' && top) {
        if (top->open == '{')
            top->want_key = 1;
        else
            top->index++;
    }
    return 0;
}

int js_scan_run(const char *text, size_t len, size_t until, js_scan *out)
{
    memset(out, 0, sizeof *out);
    scan_state s = {.text = text, .len = len, .out = out};
    size_t end = until < len ? until : len;
    int err = 0;
    size_t i = 0;
    while (i < end && err == 0) {
        char ch = text[i];
        if (ch == '"') {
            i = scan_string(&s, i);
            if (i == 0)
                return 0;
        } else if (ch == '-' || is_digit(ch)) {
            i = scan_number(&s, i, &err);
        } else {
            if (scan_punct(&s, i) != 0)
                return 0;
            i++;
        }
    }
    stop_at(&s, end, NULL);
    return err;
}

void js_scan_free(js_scan *s)
{
    free(s->bad);
    s->bad = NULL;
    s->n_bad = s->cap_bad = 0;
}

void js_line_column(const char *text, size_t pos, int *line, int *column)
{
    int l = 1, c = 0;
    for (size_t i = 0; i < pos; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '\n') {
            l++;
            c = 0;
        } else if ((ch & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *column = c;
}
