/**
 * @file journal.c
 * @brief Journal reading: bounded lines from a regular file or a buffer, each
 *        checked on its own, then the whole checked for what a replay needs
 *        (see journal.h for the format). What depends on the station a
 *        journal is replayed on is checked by the replay (journal_replay.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "station/journal.h"

/* One parse: where messages point and what they fill. */
typedef struct ctx {
    const char *file;
    journal *j;
    char *err;
    size_t len;
} ctx;

static int fail(char *err, size_t len, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t len, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return code;
}

/* "<file>:<line>: <message>" for the line being read; returns 2 (bad input). */
static int bad(const ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(const ctx *c, const char *fmt, ...)
{
    int n = snprintf(c->err, c->len, "%s:%u: ", c->file, c->j->lineno);
    if (n >= 0 && (size_t)n < c->len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err + n, c->len - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return 2;
}

/* The blank-separated field at or after @p p: its start, and its length in
 * *n (0 when the line has no more fields). */
static const char *field_span(const char *p, size_t *n)
{
    while (*p == ' ' || *p == '\t')
        p++;
    size_t k = 0;
    while (p[k] && p[k] != ' ' && p[k] != '\t')
        k++;
    *n = k;
    return p;
}

/* The next blank-separated field, at most 63 bytes (longer ones are reported
 * by length, not copied); returns its length, 0 if none. */
static size_t next_field(const char **at, char *out)
{
    size_t n;
    const char *p = field_span(*at, &n);
    if (n == 0 || n > 63)
        return n;
    memcpy(out, p, n);
    out[n] = '\0';
    *at = p + n;
    return n;
}

/* Nothing but blanks left on the line. */
static int at_end(const char *at)
{
    while (*at == ' ' || *at == '\t')
        at++;
    return *at == '\0';
}

/* The next field of a numeric value into @p tok (64 bytes), its length in
 * @p n; bad() "expected '<syntax>'" when the line has no more fields. */
static int take_field(const ctx *c, const char **at, const char *syntax, char *tok, size_t *n)
{
    *n = next_field(at, tok);
    return *n == 0 ? bad(c, "expected '%s'", syntax) : 0;
}

/* Field @p field (@p name), the token @p tok of length @p n, is not @p what. */
static int bad_field(const ctx *c, int field, const char *name, const char *tok, size_t n,
                     const char *what)
{
    return bad(c, "field %d (%s) '%.63s' is not %s", field, name, n <= 63 ? tok : "(too long)",
               what);
}

/* The token @p tok of length @p n has at most @p max characters, all in @p set
 * (a token longer than max was never copied: it is not read). */
static int token_of(const char *tok, size_t n, size_t max, const char *set)
{
    return n <= max && strspn(tok, set) == n;
}

/* Fields are read with strtoull/strtod and checked whole: sscanf's %u wraps
 * 4294967297 to 1 and -1 to 4294967295, and %lf takes "nan". @p syntax is
 * what the line should look like, for the message when the field is missing. */
static int next_uint(const ctx *c, const char **at, const char *syntax, int field, const char *name,
                     uint64_t max, uint64_t *out)
{
    char tok[64];
    size_t n;
    int rc = take_field(c, at, syntax, tok, &n);
    if (rc)
        return rc;
    int digits = token_of(tok, n, 63, "0123456789");
    errno = 0;
    unsigned long long v = digits ? strtoull(tok, NULL, 10) : 0;
    if (!digits || errno == ERANGE || v > max) {
        char what[64];
        snprintf(what, sizeof what, "a whole number in [0, %" PRIu64 "]", max);
        return bad_field(c, field, name, tok, n, what);
    }
    *out = v;
    return 0;
}

/* 1 to 16 hex digits, as the writer's %016x. */
static int next_hex(const ctx *c, const char **at, const char *syntax, int field, const char *name,
                    uint64_t *out)
{
    char tok[64];
    size_t n;
    int rc = take_field(c, at, syntax, tok, &n);
    if (rc)
        return rc;
    if (!token_of(tok, n, 16, "0123456789abcdefABCDEF"))
        return bad_field(c, field, name, tok, n, "1 to 16 hex digits");
    *out = strtoull(tok, NULL, 16);
    return 0;
}

static int next_real(const ctx *c, const char **at, int field, const char *name, double *out)
{
    char tok[64], *end = NULL;
    size_t n;
    int rc = take_field(c, at, "tick kind target a0 a1 a2 a3", tok, &n);
    if (rc)
        return rc;
    double v = n <= 63 ? strtod(tok, &end) : 0.0;
    if (n > 63 || end == tok || *end != '\0' || !isfinite(v))
        return bad_field(c, field, name, tok, n, "a finite number");
    *out = v;
    return 0;
}

/* A name field of at most @p max bytes of [A-Za-z0-9_] (and '.', '-' when
 * @p dotted), as the engine's target names and the station's command names. */
static int next_name(const ctx *c, const char **at, const char *syntax, const char *name,
                     size_t max, int dotted, char *out)
{
    size_t n;
    const char *p = field_span(*at, &n);
    if (n == 0)
        return bad(c, "expected '%s'", syntax);
    int ok = n <= max;
    for (size_t i = 0; ok && i < n; i++) {
        char ch = p[i];
        ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' ||
             (dotted && ((ch >= 'A' && ch <= 'Z') || ch == '.' || ch == '-'));
    }
    if (!ok)
        return bad(c, "%s '%.*s' is not %zu or fewer of %s", name, (int)(n < 64 ? n : 64), p, max,
                   dotted ? "[A-Za-z0-9_.-]" : "[a-z0-9_]");
    memcpy(out, p, n);
    out[n] = '\0';
    *at = p + n;
    return 0;
}

static int line_done(const ctx *c, const char *at, const char *syntax)
{
    return at_end(at) ? 0 : bad(c, "expected '%s', found more after it", syntax);
}

/* ---- the header ---- */

static const char *const item_names[] = {"# scenario",   "# scenario_hash", "# seed",
                                         "# start_tick", "# kinds",         "# scenario_text"};

static uint32_t bit_index(uint32_t bit)
{
    uint32_t i = 0;
    while (bit > 1u) {
        bit >>= 1;
        i++;
    }
    return i;
}

/* Each header item once, and only in the header. */
static int item_begin(const ctx *c, uint32_t bit)
{
    journal *j = c->j;
    uint32_t i = bit_index(bit);
    if (j->header_end)
        return bad(c, "'%s' after the header, which line %u ended", item_names[i], j->header_end);
    if (j->have & bit)
        return bad(c, "a second '%s' line (the first is line %u)", item_names[i], j->item_line[i]);
    j->have |= bit;
    j->item_line[i] = j->lineno;
    return 0;
}

/* The header ends at the first target, command or end line (or the end of
 * the file): it must be whole by then, so a journal cut short in its header
 * or missing an item is refused here with the line it got to. */
static int header_close(const ctx *c)
{
    journal *j = c->j;
    if (j->header_end)
        return 0;
    for (uint32_t i = 0; i < 5; i++)
        if (!(j->have & (1u << i)))
            return bad(c,
                       "the header has no '%s' line (a v3 header holds # scenario, "
                       "# scenario_hash, # seed, # start_tick and # kinds)",
                       item_names[i]);
    if (j->n_kinds < j->want_kinds)
        return bad(c, "the header has %u of the %u '# kind' lines line %u gives", j->n_kinds,
                   j->want_kinds, j->item_line[bit_index(JH_KINDS)]);
    if ((j->have & JH_TEXT) && j->text_len < j->text_want)
        return bad(c, "the scenario text has %zu of the %zu bytes line %u gives", j->text_len,
                   j->text_want, j->text_line);
    j->header_end = j->lineno;
    return 0;
}

/* The kind and text lines follow their count line without a gap, so a
 * journal cut or spliced inside a list is refused at the first line that
 * is not the list's. */
static int list_open(const ctx *c, const char *line)
{
    const journal *j = c->j;
    if (j->n_kinds < j->want_kinds && strncmp(line, "# kind ", 7) != 0)
        return bad(c, "the header has %u of the %u '# kind' lines line %u gives", j->n_kinds,
                   j->want_kinds, j->item_line[bit_index(JH_KINDS)]);
    if (j->text_len < j->text_want && strncmp(line, "# text", 6) != 0)
        return bad(c, "the scenario text has %zu of the %zu bytes line %u gives", j->text_len,
                   j->text_want, j->text_line);
    return 0;
}

static int item_scenario(const ctx *c, const char *at)
{
    int rc = item_begin(c, JH_SCENARIO);
    while (!rc && (*at == ' ' || *at == '\t'))
        at++;
    size_t n = strlen(at);
    if (!rc && (n == 0 || n >= sizeof c->j->scenario))
        rc = bad(c, "'# scenario SOURCE': the source has %zu bytes, not 1 to %zu", n,
                 sizeof c->j->scenario - 1);
    if (!rc)
        memcpy(c->j->scenario, at, n + 1);
    return rc;
}

static int item_number(const ctx *c, const char *at, uint32_t bit)
{
    static const char *const syntax[] = {"",          "# scenario_hash H",
                                         "# seed N",  "# start_tick N",
                                         "# kinds N", "# scenario_text BYTES"};
    journal *j = c->j;
    uint32_t i = bit_index(bit);
    int rc = item_begin(c, bit);
    uint64_t v = 0;
    if (!rc && bit == JH_HASH)
        rc = next_hex(c, &at, syntax[i], 1, "H", &j->scenario_hash);
    else if (!rc && bit == JH_SEED)
        rc = next_uint(c, &at, syntax[i], 1, "N", UINT64_MAX, &j->seed);
    else if (!rc && bit == JH_START)
        rc = next_uint(c, &at, syntax[i], 1, "N", PCS_CLOCK_TICK_MAX, &j->start_tick);
    else if (!rc && bit == JH_KINDS &&
             !(rc = next_uint(c, &at, syntax[i], 1, "N", PCS_COMMAND_KINDS_MAX - 1, &v)))
        j->want_kinds = (uint32_t)v;
    else if (!rc && bit == JH_TEXT &&
             !(rc = next_uint(c, &at, syntax[i], 1, "BYTES", PCS_SCENARIO_DEFAULT_MAX_BYTES, &v))) {
        j->text_want = (size_t)v;
        j->text_line = j->lineno;
        if (v == 0)
            rc = bad(c, "an empty scenario text (BYTES 0)");
    }
    return rc ? rc : line_done(c, at, syntax[i]);
}

/* "NAME N" and nothing after: the rest of a kind or a target line. */
static int name_and_number(const ctx *c, const char *at, const char *syntax, const char *what,
                           size_t name_max, int dotted, char *name, const char *number,
                           uint64_t *out)
{
    int rc = next_name(c, &at, syntax, what, name_max, dotted, name);
    if (!rc)
        rc = next_uint(c, &at, syntax, 2, number, UINT64_MAX, out);
    return rc ? rc : line_done(c, at, syntax);
}

/* The line of an earlier kind line of @p name, or 0. */
static uint32_t kind_listed(const journal *j, const char *name)
{
    for (uint32_t i = 0; i < j->n_kinds; i++)
        if (strcmp(j->kinds[i].name, name) == 0)
            return j->kinds[i].line;
    return 0;
}

static int item_kind(const ctx *c, const char *at)
{
    static const char syntax[] = "# kind NAME K";
    journal *j = c->j;
    if (j->header_end)
        return bad(c, "'# kind' after the header, which line %u ended", j->header_end);
    if (!(j->have & JH_KINDS))
        return bad(c, "'# kind' before the '# kinds N' line");
    if (j->n_kinds == j->want_kinds)
        return bad(c, "more '# kind' lines than the %u line %u gives", j->want_kinds,
                   j->item_line[bit_index(JH_KINDS)]);
    if (!j->kinds && !(j->kinds = calloc(j->want_kinds, sizeof *j->kinds)))
        return fail(c->err, c->len, 1, "out of memory");
    journal_kind *k = &j->kinds[j->n_kinds];
    uint64_t v = 0;
    int rc =
        name_and_number(c, at, syntax, "command name", JOURNAL_KIND_NAME_MAX, 0, k->name, "K", &v);
    uint32_t first = rc ? 0 : kind_listed(j, k->name);
    if (!rc && (v == 0 || v >= PCS_COMMAND_KINDS_MAX))
        rc = bad(c, "command kind %" PRIu64 " is outside [1, %u]", v, PCS_COMMAND_KINDS_MAX - 1);
    else if (first)
        rc = bad(c, "kind '%s' is listed twice (the first is line %u)", k->name, first);
    else if (!rc) {
        k->kind = (uint32_t)v;
        k->line = j->lineno;
        j->n_kinds++;
    }
    return rc;
}

/* Verbatim after "# text ": the writer splits compact JSON, which has no
 * newline or NUL in it, and a chunk may start or end with a blank. */
static int item_text(const ctx *c, const char *chunk)
{
    journal *j = c->j;
    if (j->header_end)
        return bad(c, "'# text' after the header, which line %u ended", j->header_end);
    if (!(j->have & JH_TEXT))
        return bad(c, "'# text' before the '# scenario_text BYTES' line");
    size_t n = strlen(chunk);
    if (n == 0)
        return bad(c, "an empty '# text' line");
    if (n > j->text_want - j->text_len)
        return bad(c, "the scenario text is longer than the %zu bytes line %u gives", j->text_want,
                   j->text_line);
    if (!j->text) { /* grown as lines come: the count is a claim until then */
        size_t cap = j->text_want < 65536 ? j->text_want : 65536;
        j->text = malloc(cap + 1);
        j->text_cap = cap;
    } else if (j->text_len + n > j->text_cap) {
        size_t cap = 2 * j->text_cap > j->text_want ? j->text_want : 2 * j->text_cap;
        char *more = realloc(j->text, cap + 1);
        if (!more)
            return fail(c->err, c->len, 1, "out of memory");
        j->text = more;
        j->text_cap = cap;
    }
    if (!j->text)
        return fail(c->err, c->len, 1, "out of memory");
    memcpy(j->text + j->text_len, chunk, n);
    j->text_len += n;
    j->text[j->text_len] = '\0';
    return 0;
}

/* A target or command line: the header is whole before it, and only
 * comments follow the end line. */
static int body_line(const ctx *c, const char *what)
{
    int rc = header_close(c);
    if (!rc && c->j->have_end)
        rc = bad(c, "%s after the end line %u", what, c->j->end_line);
    return rc;
}

static int grow_targets(const ctx *c)
{
    journal *j = c->j;
    uint32_t cap = j->targets_cap ? 2 * j->targets_cap : 64;
    journal_target *more = realloc(j->targets, cap * sizeof *more);
    if (!more)
        return fail(c->err, c->len, 1, "out of memory");
    j->targets = more;
    j->targets_cap = cap;
    return 0;
}

static int grow_actions(const ctx *c);

/* Room for one more target or command line: the header is whole, no end
 * line came yet, the count is below its bound, and the array has a slot. */
static int body_reserve(const ctx *c, int is_command)
{
    journal *j = c->j;
    int rc = body_line(c, is_command ? "a command" : "a target line");
    if (rc)
        return rc;
    if (!is_command) {
        if (j->n_targets == JOURNAL_MAX_TARGETS)
            return bad(c, "more than %u target lines", JOURNAL_MAX_TARGETS);
        return j->n_targets == j->targets_cap ? grow_targets(c) : 0;
    }
    if (j->n_actions == JOURNAL_MAX_COMMANDS)
        return bad(c, "more than %u commands (a run journals at most its script's %u)",
                   JOURNAL_MAX_COMMANDS, PCS_SCENARIO_ACTIONS_MAX);
    return j->n_actions == j->cap ? grow_actions(c) : 0;
}

static const char target_syntax[] = "# target NAME ID";

static int item_target(const ctx *c, const char *at)
{
    journal *j = c->j;
    uint64_t id = 0;
    int rc = body_reserve(c, 0); /* may move j->targets: index it only after */
    if (!rc)
        rc = name_and_number(c, at, target_syntax, "target name", JOURNAL_TARGET_NAME_MAX, 1,
                             j->targets[j->n_targets].name, "ID", &id);
    if (!rc && (id > UINT32_MAX || pcs_target_id_load((uint32_t)id).generation == 0))
        return bad(c,
                   "target id %" PRIu64 " is not a stored target id (generation 1 or more, "
                   "32 bits)",
                   id);
    if (!rc) { /* the name is in place already */
        journal_target *t = &j->targets[j->n_targets++];
        t->id = (uint32_t)id;
        t->line = j->lineno;
    }
    return rc;
}

/* Read into locals: a bad end line must not leave half its values. */
static int item_end(const ctx *c, const char *at)
{
    static const char syntax[] = "# end_tick N hash H";
    journal *j = c->j;
    int rc = header_close(c);
    if (rc)
        return rc;
    if (j->have_end)
        return bad(c, "a second end line (the first is line %u)", j->end_line);
    uint64_t tick, hash;
    char word[64];
    rc = next_uint(c, &at, syntax, 1, "N", UINT64_MAX, &tick);
    if (!rc && tick > PCS_CLOCK_TICK_MAX)
        rc = bad(c, "end tick %" PRIu64 " is outside [0, %" PRIu64 "]", tick,
                 (uint64_t)PCS_CLOCK_TICK_MAX);
    if (!rc && (next_field(&at, word) != 4 || strcmp(word, "hash") != 0))
        rc = bad(c, "expected '%s'", syntax);
    if (!rc)
        rc = next_hex(c, &at, syntax, 3, "H", &hash);
    if (!rc)
        rc = line_done(c, at, syntax);
    if (!rc && tick < j->start_tick)
        rc = bad(c, "end tick %" PRIu64 " is before the start tick %" PRIu64 " (line %u)", tick,
                 j->start_tick, j->item_line[bit_index(JH_START)]);
    if (rc)
        return rc;
    j->end_tick = tick;
    j->want_hash = hash;
    j->have_end = 1;
    j->end_line = j->lineno;
    return 0;
}

/* Line 1 says what the file is; other versions are refused by number. */
static int parse_version(const ctx *c, const char *line)
{
    static const char head[] = "# pcsim journal v";
    const char *v = line + sizeof head - 1;
    size_t digits = strncmp(line, head, sizeof head - 1) == 0 ? strspn(v, "0123456789") : 0;
    if (digits == 0 || v[digits] != '\0')
        return bad(c, "expected '# pcsim journal v%u' (is this a pcsim journal?), found '%.60s'",
                   JOURNAL_VERSION, line);
    if (digits == 1 && v[0] - '0' == (int)JOURNAL_VERSION)
        return 0;
    return bad(c,
               "journal format v%.20s; this pcsim reads v%u (v3 adds the scenario hash, the "
               "command kind table and the scenario text to the header): re-record it with "
               "pcsim run --journal",
               v, JOURNAL_VERSION);
}

static int item_hash(const ctx *c, const char *at)
{
    return item_number(c, at, JH_HASH);
}

static int item_seed(const ctx *c, const char *at)
{
    return item_number(c, at, JH_SEED);
}

static int item_start(const ctx *c, const char *at)
{
    return item_number(c, at, JH_START);
}

static int item_kinds(const ctx *c, const char *at)
{
    return item_number(c, at, JH_KINDS);
}

static int item_text_size(const ctx *c, const char *at)
{
    return item_number(c, at, JH_TEXT);
}

static int item_text_line(const ctx *c, const char *at)
{
    return *at == ' ' ? item_text(c, at + 1) : bad(c, "an empty '# text' line");
}

static int item_version_again(const ctx *c, const char *at)
{
    (void)at;
    return bad(c, "a second '# pcsim journal' line (line 1 is the first)");
}

/* "# keyword ..." lines; other '#' lines are comments. */
static int parse_hash_line(const ctx *c, const char *line)
{
    static const struct {
        const char *word;
        int (*fn)(const ctx *c, const char *rest);
    } items[] = {{"scenario", item_scenario},
                 {"scenario_hash", item_hash},
                 {"seed", item_seed},
                 {"start_tick", item_start},
                 {"kinds", item_kinds},
                 {"kind", item_kind},
                 {"scenario_text", item_text_size},
                 {"text", item_text_line},
                 {"target", item_target},
                 {"end_tick", item_end},
                 {"pcsim", item_version_again}};
    if (line[1] != ' ')
        return 0;
    const char *word = line + 2;
    size_t n = strcspn(word, " \t");
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++)
        if (strlen(items[i].word) == n && strncmp(word, items[i].word, n) == 0)
            return items[i].fn(c, word + n);
    return 0;
}

/* ---- command lines ---- */

static int grow_actions(const ctx *c)
{
    journal *j = c->j;
    uint32_t cap = j->cap ? 2 * j->cap : 1024;
    pcs_timed_command *more = realloc(j->actions, cap * sizeof *more);
    if (more)
        j->actions = more;
    uint32_t *lines = realloc(j->lines, cap * sizeof *lines);
    if (lines)
        j->lines = lines;
    if (!more || !lines)
        return fail(c->err, c->len, 1, "out of memory");
    j->cap = cap;
    return 0;
}

/* A damaged or hand-edited line gets a message, never a hang or a silent
 * drop (a bad kind was refused by the queue and skipped; a tick past the end
 * was never submitted). */
static const char command_syntax[] = "tick kind target a0 a1 a2 a3";

static int parse_command(const ctx *c, const char *line)
{
    journal *j = c->j;
    int rc = body_reserve(c, 1);
    if (rc)
        return rc;
    pcs_timed_command *a = &j->actions[j->n_actions];
    memset(a, 0, sizeof *a);
    const char *at = line;
    uint64_t kind = 0, target = 0;
    rc = next_uint(c, &at, command_syntax, 1, "tick", UINT64_MAX, &a->tick);
    if (!rc)
        rc = next_uint(c, &at, command_syntax, 2, "kind", UINT64_MAX, &kind);
    if (!rc)
        rc = next_uint(c, &at, command_syntax, 3, "target", UINT32_MAX, &target);
    static const char *const arg_names[4] = {"a0", "a1", "a2", "a3"};
    for (int i = 0; i < 4 && !rc; i++)
        rc = next_real(c, &at, 4 + i, arg_names[i], &a->cmd.args[i]);
    if (!rc && !at_end(at))
        rc = bad(c, "expected '%s', found more after the seventh field", command_syntax);
    if (rc)
        return rc;
    if (kind == 0 || kind >= PCS_COMMAND_KINDS_MAX)
        return bad(c, "command kind %" PRIu64 " is outside [1, %u]", kind,
                   PCS_COMMAND_KINDS_MAX - 1);
    a->cmd.kind = (uint32_t)kind;
    a->cmd.target = (uint32_t)target;
    const pcs_timed_command *prev = j->n_actions ? &j->actions[j->n_actions - 1] : NULL;
    if (prev && a->tick < prev->tick)
        return bad(c, "tick %" PRIu64 " is earlier than the previous line's %" PRIu64, a->tick,
                   prev->tick);
    if (a->tick < j->start_tick)
        return bad(c, "tick %" PRIu64 " is before the start tick %" PRIu64 " (line %u)", a->tick,
                   j->start_tick, j->item_line[bit_index(JH_START)]);
    /* More than the replay's ring holds would leave it unable to queue the
     * tick; the scenario's own commands_per_tick is checked by the replay. */
    j->tick_run = (prev && a->tick == prev->tick) ? j->tick_run + 1 : 1;
    if (j->tick_run > PCS_JOURNAL_TICK_COMMANDS_MAX)
        return bad(
            c, "more than %u commands at tick %" PRIu64 " (a replay queues at most %u per tick)",
            PCS_JOURNAL_TICK_COMMANDS_MAX, a->tick, PCS_JOURNAL_TICK_COMMANDS_MAX);
    j->lines[j->n_actions++] = j->lineno;
    return 0;
}

/* One line of @p n bytes (no newline), not NUL-terminated. Every line is
 * counted and bounded before it is looked at. */
static int take_line(const ctx *c, const char *s, size_t n)
{
    journal *j = c->j;
    if (j->lineno == JOURNAL_MAX_LINES)
        return fail(c->err, c->len, 2, "%s:%u: more than %u lines", c->file, j->lineno + 1,
                    JOURNAL_MAX_LINES);
    j->lineno++;
    if (n > JOURNAL_LINE_MAX)
        return bad(c, "line is longer than %u bytes (the longest a journal line needs is %u)",
                   JOURNAL_LINE_MAX, JOURNAL_LINE_WRITTEN_MAX);
    const char *nul = memchr(s, '\0', n);
    if (nul)
        return bad(c, "NUL byte at column %zu (a journal is text)", (size_t)(nul - s) + 1);
    char line[JOURNAL_LINE_MAX + 1];
    memcpy(line, s, n);
    line[n] = '\0';
    if (j->lineno == 1)
        return parse_version(c, line);
    int rc = list_open(c, line);
    if (rc)
        return rc;
    if (line[0] == '\0')
        return 0;
    if (line[0] == '#')
        return parse_hash_line(c, line);
    return parse_command(c, line);
}

/* The whole: a complete header and an end line, every command before it. */
static int finish(const ctx *c)
{
    journal *j = c->j;
    if (j->lineno == 0)
        return fail(c->err, c->len, 2, "%s: empty file (expected '# pcsim journal v%u')", c->file,
                    JOURNAL_VERSION);
    int rc = header_close(c);
    if (rc)
        return rc;
    if (!j->have_end)
        return fail(c->err, c->len, 2, "%s: no '# end_tick N hash H' line (was the run completed?)",
                    c->file);
    for (uint32_t i = 0; i < j->n_actions; i++)
        if (j->actions[i].tick >= j->end_tick)
            return fail(c->err, c->len, 2,
                        "%s:%u: tick %" PRIu64 " is not before the end tick %" PRIu64, c->file,
                        j->lines[i], j->actions[i].tick, j->end_tick);
    return 0;
}

/* Take the complete lines of buf[0, *n) and move the unfinished rest to the
 * front. A rest longer than a line may be is taken now, to be refused. */
static int take_lines(const ctx *c, char *buf, size_t *n)
{
    size_t at = 0;
    int rc = 0;
    const char *nl;
    while (!rc && (nl = memchr(buf + at, '\n', *n - at)) != NULL) {
        rc = take_line(c, buf + at, (size_t)(nl - (buf + at)));
        at = (size_t)(nl - buf) + 1;
    }
    if (!rc && *n - at > JOURNAL_LINE_MAX)
        rc = take_line(c, buf + at, *n - at);
    memmove(buf, buf + at, *n - at);
    *n -= at;
    return rc;
}

int journal_parse(const char *file, const char *buf, size_t len, journal *j, char *err,
                  size_t err_len)
{
    memset(j, 0, sizeof *j);
    ctx c = {file, j, err, err_len};
    size_t at = 0;
    int rc = 0;
    while (!rc && at < len) {
        const char *nl = memchr(buf + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - buf) : len;
        rc = take_line(&c, buf + at, end - at);
        at = end + 1;
    }
    return rc ? rc : finish(&c);
}

static const char *file_kind(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a file";
}

/* O_NONBLOCK so that opening a FIFO with no writer returns at once; fstat
 * refuses anything but a regular file, which then reads normally. */
static int open_regular(const char *path, int *out, char *err, size_t len)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return fail(err, len, 2, "replay: cannot open journal '%s': %s", path, strerror(errno));
    struct stat st;
    int flags;
    if (fstat(fd, &st) != 0 || (flags = fcntl(fd, F_GETFL)) < 0 ||
        (S_ISREG(st.st_mode) && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)) {
        int e = errno;
        close(fd);
        return fail(err, len, 2, "replay: cannot open journal '%s': %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return fail(err, len, 2, "%s: not a regular file (%s)", path, file_kind(st.st_mode));
    }
    *out = fd;
    return 0;
}

int journal_load(const char *file, journal *j, char *err, size_t err_len)
{
    memset(j, 0, sizeof *j);
    ctx c = {file, j, err, err_len};
    int fd = -1;
    int rc = open_regular(file, &fd, err, err_len);
    if (rc)
        return rc;
    char buf[4 * JOURNAL_LINE_MAX]; /* holds a whole line and more */
    size_t n = 0;
    for (;;) {
        ssize_t got = read(fd, buf + n, sizeof buf - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = fail(err, err_len, 2, "%s: cannot read: %s", file, strerror(errno));
            break;
        }
        if (got == 0) { /* the last line may lack its newline */
            if (n)
                rc = take_line(&c, buf, n);
            break;
        }
        n += (size_t)got;
        rc = take_lines(&c, buf, &n);
        if (rc)
            break;
    }
    close(fd);
    return rc ? rc : finish(&c);
}

void journal_free(journal *j)
{
    free(j->actions);
    free(j->lines);
    free(j->kinds);
    free(j->text);
    free(j->targets);
    memset(j, 0, sizeof *j);
}
