/**
 * @file journal.c
 * @brief Journal reading for `pcsim replay`: bounded lines from a regular
 *        file or a buffer, each checked, then the whole checked against the
 *        scenario (see journal.h for the format).
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

/* The next blank-separated field of a command line, at most 63 bytes; 0 if none. */
static size_t next_field(const char **at, char *out)
{
    const char *p = *at;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t n = 0;
    while (p[n] && p[n] != ' ' && p[n] != '\t' && p[n] != '\n')
        n++;
    if (n == 0 || n > 63)
        return n;
    memcpy(out, p, n);
    out[n] = '\0';
    *at = p + n;
    return n;
}

/* Fields are read with strtoull/strtod and checked whole: sscanf's %u wraps
 * 4294967297 to 1 and -1 to 4294967295, and %lf takes "nan". */
static int next_uint(const char **at, int field, const char *name, uint64_t max, uint64_t *out,
                     const journal_expect *x, const journal *j, char *err, size_t len)
{
    char tok[64];
    size_t n = next_field(at, tok);
    if (n == 0)
        return fail(err, len, 2, "%s:%u: expected 'tick kind target a0 a1 a2 a3'", x->file,
                    j->lineno);
    int digits = n <= 63;
    for (size_t i = 0; digits && i < n; i++)
        digits = tok[i] >= '0' && tok[i] <= '9';
    errno = 0;
    unsigned long long v = digits ? strtoull(tok, NULL, 10) : 0;
    if (!digits || errno == ERANGE || v > max)
        return fail(err, len, 2,
                    "%s:%u: field %d (%s) '%.63s' is not a whole number in [0, %" PRIu64 "]",
                    x->file, j->lineno, field, name, n <= 63 ? tok : "(too long)", max);
    *out = v;
    return 0;
}

static int next_real(const char **at, int field, const char *name, double *out,
                     const journal_expect *x, const journal *j, char *err, size_t len)
{
    char tok[64], *end = NULL;
    size_t n = next_field(at, tok);
    if (n == 0)
        return fail(err, len, 2, "%s:%u: expected 'tick kind target a0 a1 a2 a3'", x->file,
                    j->lineno);
    double v = n <= 63 ? strtod(tok, &end) : 0.0;
    if (n > 63 || end == tok || *end != '\0' || !isfinite(v))
        return fail(err, len, 2, "%s:%u: field %d (%s) '%.63s' is not a finite number", x->file,
                    j->lineno, field, name, n <= 63 ? tok : "(too long)");
    *out = v;
    return 0;
}

/* A damaged or hand-edited line gets a message, never a hang or a silent
 * drop (a bad kind was refused by the queue and skipped; a tick past the end
 * was never submitted). */
static int parse_command(const journal_expect *x, journal *j, const char *line, char *err,
                         size_t len)
{
    if (j->n_actions == JOURNAL_MAX_COMMANDS)
        return fail(err, len, 2,
                    "%s:%u: more than %u commands (a run journals at most its "
                    "script's %u)",
                    x->file, j->lineno, JOURNAL_MAX_COMMANDS, PCS_SCENARIO_ACTIONS_MAX);
    if (j->n_actions == j->cap) {
        uint32_t cap = j->cap ? 2 * j->cap : 1024;
        pcs_timed_command *more = realloc(j->actions, cap * sizeof *more);
        if (more)
            j->actions = more;
        uint32_t *lines = realloc(j->lines, cap * sizeof *lines);
        if (lines)
            j->lines = lines;
        if (!more || !lines)
            return fail(err, len, 1, "out of memory");
        j->cap = cap;
    }
    pcs_timed_command *a = &j->actions[j->n_actions];
    memset(a, 0, sizeof *a);
    const char *at = line;
    uint64_t kind = 0, target = 0;
    int rc = next_uint(&at, 1, "tick", UINT64_MAX, &a->tick, x, j, err, len);
    if (!rc)
        rc = next_uint(&at, 2, "kind", UINT64_MAX, &kind, x, j, err, len);
    if (!rc)
        rc = next_uint(&at, 3, "target", UINT32_MAX, &target, x, j, err, len);
    static const char *const arg_names[4] = {"a0", "a1", "a2", "a3"};
    for (int i = 0; i < 4 && !rc; i++)
        rc = next_real(&at, 4 + i, arg_names[i], &a->cmd.args[i], x, j, err, len);
    if (rc)
        return rc;
    while (*at == ' ' || *at == '\t')
        at++;
    if (*at != '\0' && *at != '\n')
        return fail(err, len, 2,
                    "%s:%u: expected 'tick kind target a0 a1 a2 a3', found more "
                    "after the seventh field",
                    x->file, j->lineno);
    if (kind == 0 || kind >= PCS_COMMAND_KINDS_MAX)
        return fail(err, len, 2, "%s:%u: command kind %" PRIu64 " is outside [1, %u]", x->file,
                    j->lineno, kind, PCS_COMMAND_KINDS_MAX - 1);
    a->cmd.kind = (uint32_t)kind;
    a->cmd.target = (uint32_t)target;
    if (j->n_actions && a->tick < j->actions[j->n_actions - 1].tick)
        return fail(err, len, 2,
                    "%s:%u: tick %" PRIu64 " is earlier than the previous line's %" PRIu64, x->file,
                    j->lineno, a->tick, j->actions[j->n_actions - 1].tick);
    j->lines[j->n_actions++] = j->lineno;
    return 0;
}

/* The header says how the run was made: replaying it on another scenario or
 * from another start tick cannot reproduce it, so say which option is
 * missing instead of reporting a hash mismatch at the end. */
static int parse_header(const journal_expect *x, journal *j, const char *line, char *err,
                        size_t len)
{
    char scn[JOURNAL_LINE_MAX];
    uint64_t start;
    unsigned version;
    if (sscanf(line, "# pcsim journal v%u", &version) == 1 && version != JOURNAL_VERSION)
        return fail(err, len, 2,
                    "%s:%u: journal format v%u; this pcsim reads v%u (since v2 a command's kind "
                    "is allocated to its model's family and its target is a target id): "
                    "re-record it with pcsim run --journal",
                    x->file, j->lineno, version, JOURNAL_VERSION);
    if (sscanf(line, "# scenario %511[^\n]", scn) == 1 && !x->scenario_given &&
        strcmp(scn, x->scenario) != 0)
        return fail(err, len, 2, "%s:%u: recorded with scenario '%s'; pass --scenario %s", x->file,
                    j->lineno, scn, scn);
    if (sscanf(line, "# start_tick %" SCNu64, &start) == 1 && start != x->start_tick)
        return fail(err, len, 2,
                    "%s:%u: the run started at tick %" PRIu64 " (resumed with --load); "
                    "replay from tick %" PRIu64 " cannot match: pass --load with its save",
                    x->file, j->lineno, start, x->start_tick);
    return 0;
}

/* Read into locals: a partial "# end_tick N" must not change a complete
 * line's tick while leaving its hash. */
static int parse_end(const journal_expect *x, journal *j, const char *line, char *err, size_t len)
{
    uint64_t tick, hash;
    if (sscanf(line, "# end_tick %" SCNu64 " hash %" SCNx64, &tick, &hash) != 2)
        return 0;
    if (tick > PCS_CLOCK_TICK_MAX)
        return fail(err, len, 2, "%s:%u: end tick %" PRIu64 " is outside [0, %" PRIu64 "]", x->file,
                    j->lineno, tick, (uint64_t)PCS_CLOCK_TICK_MAX);
    j->end_tick = tick;
    j->want_hash = hash;
    j->have_end = 1;
    return 0;
}

/* One line of @p n bytes (no newline), not NUL-terminated. Every line is
 * counted and bounded before it is looked at. */
static int take_line(const journal_expect *x, journal *j, const char *s, size_t n, char *err,
                     size_t len)
{
    if (j->lineno == JOURNAL_MAX_LINES)
        return fail(err, len, 2, "%s:%u: more than %u lines", x->file, j->lineno + 1,
                    JOURNAL_MAX_LINES);
    j->lineno++;
    if (n > JOURNAL_LINE_MAX)
        return fail(err, len, 2,
                    "%s:%u: line is longer than %u bytes (the longest a journal "
                    "line needs is 266)",
                    x->file, j->lineno, JOURNAL_LINE_MAX);
    const char *nul = memchr(s, '\0', n);
    if (nul)
        return fail(err, len, 2, "%s:%u: NUL byte at column %zu (a journal is text)", x->file,
                    j->lineno, (size_t)(nul - s) + 1);
    char line[JOURNAL_LINE_MAX + 1];
    memcpy(line, s, n);
    line[n] = '\0';
    int rc = parse_header(x, j, line, err, len);
    if (!rc)
        rc = parse_end(x, j, line, err, len);
    if (rc || line[0] == '#' || line[0] == '\0')
        return rc;
    return parse_command(x, j, line, err, len);
}

/* Every action lands before the end, and no tick holds more commands than a
 * run can apply on it: more than commands_per_tick never come from a real
 * run, and more than the script ring holds would leave the main thread
 * waiting for a submission that waits for the main thread. */
static int check_actions(const journal_expect *x, const journal *j, char *err, size_t len)
{
    uint32_t limit = x->commands_per_tick;
    if (limit > PCS_JOURNAL_TICK_COMMANDS_MAX)
        limit = PCS_JOURNAL_TICK_COMMANDS_MAX;
    uint32_t same = 0;
    for (uint32_t i = 0; i < j->n_actions; i++) {
        const pcs_timed_command *a = &j->actions[i];
        if (a->tick >= j->end_tick)
            return fail(err, len, 2, "%s:%u: tick %" PRIu64 " is not before the end tick %" PRIu64,
                        x->file, j->lines[i], a->tick, j->end_tick);
        same = (i && a->tick == j->actions[i - 1].tick) ? same + 1 : 1;
        if (same > limit)
            return fail(err, len, 2,
                        "%s:%u: more than %u commands at tick %" PRIu64
                        " (commands_per_tick %u, script ring %u): not a journal of "
                        "this scenario",
                        x->file, j->lines[i], limit, a->tick, x->commands_per_tick,
                        PCS_JOURNAL_TICK_COMMANDS_MAX);
    }
    return 0;
}

static int finish(const journal_expect *x, const journal *j, char *err, size_t len)
{
    if (!j->have_end)
        return fail(err, len, 2, "%s: no '# end_tick N hash H' line (was the run completed?)",
                    x->file);
    return check_actions(x, j, err, len);
}

/* Take the complete lines of buf[0, *n) and move the unfinished rest to the
 * front. A rest longer than a line may be is taken now, to be refused. */
static int take_lines(const journal_expect *x, journal *j, char *buf, size_t *n, char *err,
                      size_t len)
{
    size_t at = 0;
    int rc = 0;
    const char *nl;
    while (!rc && (nl = memchr(buf + at, '\n', *n - at)) != NULL) {
        rc = take_line(x, j, buf + at, (size_t)(nl - (buf + at)), err, len);
        at = (size_t)(nl - buf) + 1;
    }
    if (!rc && *n - at > JOURNAL_LINE_MAX)
        rc = take_line(x, j, buf + at, *n - at, err, len);
    memmove(buf, buf + at, *n - at);
    *n -= at;
    return rc;
}

int journal_parse(const journal_expect *x, const char *buf, size_t len, journal *j, char *err,
                  size_t err_len)
{
    memset(j, 0, sizeof *j);
    size_t at = 0;
    int rc = 0;
    while (!rc && at < len) {
        const char *nl = memchr(buf + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - buf) : len;
        rc = take_line(x, j, buf + at, end - at, err, err_len);
        at = end + 1;
    }
    return rc ? rc : finish(x, j, err, err_len);
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

int journal_load(const journal_expect *x, journal *j, char *err, size_t err_len)
{
    memset(j, 0, sizeof *j);
    int fd = -1;
    int rc = open_regular(x->file, &fd, err, err_len);
    if (rc)
        return rc;
    char buf[4 * JOURNAL_LINE_MAX]; /* holds a whole line and more */
    size_t n = 0;
    for (;;) {
        ssize_t got = read(fd, buf + n, sizeof buf - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = fail(err, err_len, 2, "%s: cannot read: %s", x->file, strerror(errno));
            break;
        }
        if (got == 0) { /* the last line may lack its newline */
            if (n)
                rc = take_line(x, j, buf, n, err, err_len);
            break;
        }
        n += (size_t)got;
        rc = take_lines(x, j, buf, &n, err, err_len);
        if (rc)
            break;
    }
    close(fd);
    return rc ? rc : finish(x, j, err, err_len);
}

void journal_free(journal *j)
{
    free(j->actions);
    free(j->lines);
    j->actions = NULL;
    j->lines = NULL;
    j->n_actions = j->cap = 0;
}
