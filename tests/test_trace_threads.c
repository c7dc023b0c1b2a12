/**
 * @file test_trace_threads.c
 * @brief `pcsim run --trace`: every thread that works during the run has a
 *        named track with its spans, and spans the buffer could not hold are
 *        counted in the trace file and in the run's summary (text and JSON).
 *
 * Runs cmd_run in the (forked) test process with stdout in a file, as
 * test_schedule.c does for `pcsim info`. The runs are short: load-step's first
 * action is at t = 20 s, so 21 s (420 ticks) holds exactly one scripted
 * submission.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/host.h"
#include "tests/cli_capture.h"
#include "pcsim/pcsim.h"

/* Run `pcsim run ARGS...` here with stdout in a file; return the text (malloc'd). */
static char *run_captured(int argc, char **argv)
{
    return cli_capture(cmd_run, argc, argv, "pcsim run");
}

static void trace_path(char *buf, size_t cap)
{
    snprintf(buf, cap, "/tmp/pcsim_trace_threads_XXXXXX");
    int fd = mkstemp(buf);
    cr_assert_geq(fd, 0);
    close(fd);
}

static json_t *load_json_file(const char *path)
{
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    cr_assert_not_null(root, "%s is not valid JSON: %s (line %d)", path, err.text, err.line);
    return root;
}

#define MAX_TRACKS 16

/* The trace's named tracks, and per track the spans it holds by name. */
typedef struct tracks {
    json_int_t tid[MAX_TRACKS];
    const char *name[MAX_TRACKS];
    int n;
    size_t x_total;
} tracks;

static int track_of(const tracks *t, json_int_t tid)
{
    for (int i = 0; i < t->n; i++)
        if (t->tid[i] == tid)
            return i;
    return -1;
}

static int track_named(const tracks *t, const char *name)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->name[i], name) == 0)
            return i;
    return -1;
}

static void read_tracks(json_t *root, tracks *t)
{
    memset(t, 0, sizeof *t);
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(root, "traceEvents"), i, e)
    {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *name = json_string_value(json_object_get(e, "name"));
        if (strcmp(ph, "X") == 0)
            t->x_total++;
        if (strcmp(ph, "M") != 0 || strcmp(name, "thread_name") != 0)
            continue;
        cr_assert_lt(t->n, MAX_TRACKS);
        json_int_t tid = json_integer_value(json_object_get(e, "tid"));
        cr_assert_eq(track_of(t, tid), -1, "tid %lld named twice", (long long)tid);
        t->tid[t->n] = tid;
        t->name[t->n] = json_string_value(json_object_get(json_object_get(e, "args"), "name"));
        t->n++;
    }
}

/* Spans named @p span on the track named @p track (-1: no such track). */
static long spans_on(json_t *root, const tracks *t, const char *track, const char *span)
{
    int k = track_named(t, track);
    if (k < 0)
        return -1;
    long n = 0;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(root, "traceEvents"), i, e)
    {
        if (strcmp(json_string_value(json_object_get(e, "ph")), "X") == 0 &&
            json_integer_value(json_object_get(e, "tid")) == t->tid[k] &&
            strcmp(json_string_value(json_object_get(e, "name")), span) == 0)
            n++;
    }
    return n;
}

Test(trace_threads, every_working_thread_has_a_named_track_with_its_spans)
{
    char path[64];
    trace_path(path, sizeof path);
    char *argv[] = {"run",       "--scenario", "scenarios/load-step.json",
                    "--seconds", "21",         "--readers",
                    "2",         "--workers",  "1",
                    "--json",    "--trace",    path,
                    NULL};
    char *out = run_captured((int)(sizeof argv / sizeof *argv) - 1, argv);
    json_error_t err;
    json_t *sum = json_loads(out, 0, &err);
    cr_assert_not_null(sum, "summary is not JSON: %s: %s", err.text, out);
    json_t *trace = load_json_file(path);
    tracks t;
    read_tracks(trace, &t);

    /* The ticking thread, both readers and the producer each did work. */
    cr_assert_eq(spans_on(trace, &t, "pcsim-main", "tick"), 420);
    cr_assert_gt(spans_on(trace, &t, "pcsim-r0", "reader.read"), 0);
    cr_assert_gt(spans_on(trace, &t, "pcsim-r1", "reader.read"), 0);
    cr_assert_eq(spans_on(trace, &t, "pcsim-script", "script.submit"), 1,
                 "load-step's one action before t = 21 s");
    /* Slow-job chunks run on the worker or, when the host gets there first,
     * on the ticking thread: each on its own named track. */
    long on_worker = spans_on(trace, &t, "pcsim-w0", "exec.chunk");
    long on_main = spans_on(trace, &t, "pcsim-main", "exec.chunk");
    cr_assert_gt((on_worker > 0 ? on_worker : 0) + on_main, 0);
    cr_assert(t.n == 4 + (on_worker > 0), "%d named tracks", t.n);
    for (int i = 0; i < t.n; i++)
        cr_assert(strncmp(t.name[i], "pcsim-", 6) == 0, "track '%s'", t.name[i]);

    /* Nothing dropped, and the summary says what the file holds. */
    json_t *other = json_object_get(trace, "otherData");
    cr_assert_eq(json_integer_value(json_object_get(other, "dropped_spans")), 0);
    json_t *st = json_object_get(sum, "trace");
    cr_assert_not_null(st, "summary has no \"trace\": %s", out);
    cr_assert_eq(json_integer_value(json_object_get(st, "dropped_spans")), 0);
    cr_assert_eq(json_integer_value(json_object_get(st, "spans")), (json_int_t)t.x_total);
    cr_assert_eq(json_integer_value(json_object_get(st, "named_threads")), t.n);

    json_decref(trace);
    json_decref(sum);
    free(out);
    remove(path);
}

Test(trace_threads, a_buffer_too_small_reports_its_drops_in_the_file_and_the_summary)
{
    char path[64];
    trace_path(path, sizeof path);
    char *argv[] = {"run", "--seconds",     "2",  "--readers", "1", "--quiet", "--trace",
                    path,  "--trace-spans", "50", NULL};
    char *out = run_captured((int)(sizeof argv / sizeof *argv) - 1, argv);
    json_t *trace = load_json_file(path);
    tracks t;
    read_tracks(trace, &t);
    json_int_t file_dropped =
        json_integer_value(json_object_get(json_object_get(trace, "otherData"), "dropped_spans"));

    const char *line = strstr(out, "\ntrace ");
    cr_assert_not_null(line, "no trace line in the summary:\n%s", out);
    char fmt[256];
    snprintf(fmt, sizeof fmt,
             "\ntrace %s: %%" SCNu64 " spans on %%u named threads, %%" SCNu64
             " dropped (the buffer was full: raise --trace-spans)",
             path);
    uint64_t kept = 0, dropped = 0;
    unsigned named = 0;
    cr_assert_eq(sscanf(line, fmt, &kept, &named, &dropped), 3, "summary line: %.200s", line);

    /* 40 ticks of 14 spans (the tick and its 13 stages) alone are 560 > 50. */
    cr_assert_eq(kept, 50);
    cr_assert_eq(t.x_total, 50);
    cr_assert_geq(dropped, 40u * 14u - 50u);
    cr_assert_eq((json_int_t)dropped, file_dropped);
    cr_assert_eq(named, (unsigned)t.n);

    json_decref(trace);
    free(out);
    remove(path);
}
