/**
 * @file trace.c
 * @brief The process-wide trace session: span recording from any thread, and the
 *        Chrome/Perfetto trace-event JSON writer.
 *
 * Recording. Spans go into a buffer allocated at begin; a recorder claims a
 * slot with one fetch_add, so threads never wait for each other, and a full
 * buffer counts the span as dropped.
 *
 * Ending safely. end must not read or free the buffer while a recorder on
 * another thread is still writing its slot. Each recorder announces itself
 * (writers += 1) and then checks that the session is still recording; end
 * first flips the state and then waits for writers to reach 0. Both sides are
 * "store mine, then load theirs" (Dekker), so both must be seq_cst: with
 * release/acquire alone, each side could miss the other's store through the
 * store buffer (stress/broken_fixtures.c shows that this really happens on
 * x86-64). With seq_cst either the recorder sees the state change and backs
 * out, or end sees the recorder and waits for it.
 *
 * Output: {"displayTimeUnit":"ns","otherData":{...},"traceEvents":[...]} with
 * "M" metadata (process and thread names) and "X" complete events; ts and dur
 * are microseconds from the session start with three decimals (exact ns).
 */
#include <inttypes.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pcsim/persist.h"
#include "pcsim/profile.h"
#include "pcsim/version.h"
#include "profile/clock.h"
#include "profile/trace_internal.h"

enum { TRACE_IDLE = 0, TRACE_BUSY = 1, TRACE_RECORDING = 2 };

typedef struct trace_span {
    const char *name;
    const char *cat;
    const char *arg_name;
    uint64_t t0_ns;
    uint64_t dur_ns;
    uint64_t arg;
    uint32_t tid;
} trace_span;

/* Track names live in the session (copied), not in the spans: a thread may
 * exit and free its name before the end, and a full span buffer must not
 * leave the tracks unnamed. One slot per named thread and session. */
#define TRACE_NAMES_MAX 256u
#define TRACE_NAME_BYTES 32u

typedef struct trace_name {
    uint32_t tid;
    char name[TRACE_NAME_BYTES];
} trace_name;

static struct {
    _Atomic int state;
    _Atomic uint64_t writers; /* recorders inside the session */
    _Atomic uint64_t next;    /* slots claimed */
    _Atomic uint64_t dropped;
    _Atomic uint64_t names_next; /* name slots claimed */
    _Atomic uint64_t gen;        /* sessions begun: a thread names its track once per session */
    trace_span *spans;           /* written at begin, before state becomes RECORDING */
    trace_name *names;           /* likewise */
    uint64_t cap;
    FILE *out;
    pcs_atomic_file *file; /* out is its stream: renamed over the path at the end */
    uint64_t origin_ns;
} g_trace;

static _Thread_local uint32_t my_tid;
static _Thread_local char my_name[TRACE_NAME_BYTES]; /* "" until the thread names itself */
static _Thread_local uint64_t my_named_gen;          /* session the name was registered in */

static uint32_t current_tid(void)
{
    if (!my_tid)
        my_tid = (uint32_t)syscall(SYS_gettid);
    return my_tid;
}

int pcs_profile_tracing(void)
{
    return atomic_load_explicit(&g_trace.state, memory_order_relaxed) == TRACE_RECORDING;
}

/* Enter as a recorder; 0 when no session is recording (nothing to undo). */
static int recorder_enter(void)
{
    if (atomic_load_explicit(&g_trace.state, memory_order_relaxed) != TRACE_RECORDING)
        return 0;
    atomic_fetch_add_explicit(&g_trace.writers, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&g_trace.state, memory_order_seq_cst) != TRACE_RECORDING) {
        atomic_fetch_sub_explicit(&g_trace.writers, 1, memory_order_release);
        return 0;
    }
    return 1;
}

static void recorder_leave(void)
{
    atomic_fetch_sub_explicit(&g_trace.writers, 1, memory_order_release);
}

/* Inside a recorder: register the calling thread's name once per session, so
 * a thread named before the session began (a worker, a reader) still gets a
 * named track. A thread-local compare on every later span. */
static void name_track(void)
{
    uint64_t gen = atomic_load_explicit(&g_trace.gen, memory_order_relaxed);
    if (!my_name[0] || my_named_gen == gen)
        return;
    my_named_gen = gen;
    uint64_t i = atomic_fetch_add_explicit(&g_trace.names_next, 1, memory_order_relaxed);
    if (i >= TRACE_NAMES_MAX)
        return; /* more named threads than slots: the track shows its tid */
    g_trace.names[i].tid = current_tid();
    memcpy(g_trace.names[i].name, my_name, sizeof my_name);
}

static void record(const trace_span *s)
{
    if (!recorder_enter())
        return;
    name_track();
    uint64_t i = atomic_fetch_add_explicit(&g_trace.next, 1, memory_order_relaxed);
    if (i < g_trace.cap)
        g_trace.spans[i] = *s;
    else
        atomic_fetch_add_explicit(&g_trace.dropped, 1, memory_order_relaxed);
    recorder_leave();
}

void pcs_trace_complete(const char *name, const char *cat, uint64_t t0_ns, uint64_t dur_ns,
                        const char *arg_name, uint64_t arg)
{
    if (atomic_load_explicit(&g_trace.state, memory_order_relaxed) != TRACE_RECORDING)
        return;
    trace_span s = {name, cat, arg_name, t0_ns, dur_ns, arg, current_tid()};
    record(&s);
}

pcs_profile_span pcs_profile_span_begin(const char *name, const char *cat, uint64_t arg)
{
    pcs_profile_span s = {NULL, cat, 0, arg};
    if (name && pcs_profile_tracing()) {
        s.name = name;
        s.t0_ns = pcs_profile_now_ns();
    }
    return s;
}

void pcs_profile_span_end(const pcs_profile_span *span)
{
    if (!span || !span->name)
        return;
    uint64_t now = pcs_profile_now_ns();
    pcs_trace_complete(span->name, span->cat ? span->cat : "span", span->t0_ns, now - span->t0_ns,
                       "arg", span->arg);
}

void pcs_profile_trace_thread_name(const char *name)
{
    if (!name)
        return;
    snprintf(my_name, sizeof my_name, "%s", name);
    my_named_gen = 0; /* (re)register: now if a session records, else at its first span */
    if (!recorder_enter())
        return;
    name_track();
    recorder_leave();
}

pcs_status pcs_profile_trace_stats_get(pcs_profile_trace_stats *out)
{
    if (!out)
        return pcs_error_set(PCS_E_INVAL, "pcs_profile_trace_stats_get: out is NULL");
    /* Exact once the session ended. While recorders run it is a snapshot, and
     * their relaxed counters may be seen out of order: hence the clamp below. */
    uint64_t dropped = atomic_load_explicit(&g_trace.dropped, memory_order_relaxed);
    uint64_t claimed = atomic_load_explicit(&g_trace.next, memory_order_relaxed);
    uint64_t names = atomic_load_explicit(&g_trace.names_next, memory_order_relaxed);
    out->spans = claimed > dropped ? claimed - dropped : 0;
    out->dropped = dropped;
    out->named_threads = (uint32_t)(names < TRACE_NAMES_MAX ? names : TRACE_NAMES_MAX);
    return PCS_OK;
}

pcs_status pcs_profile_trace_begin_n(const char *path, uint32_t max_spans)
{
    if (!path || max_spans < 1 || max_spans > (1u << 26))
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_profile_trace_begin: path is NULL or max_spans "
                             "= %u is outside [1, 2^26]",
                             max_spans);
    int idle = TRACE_IDLE;
    if (!atomic_compare_exchange_strong(&g_trace.state, &idle, TRACE_BUSY))
        return pcs_error_set(PCS_E_STATE, "pcs_profile_trace_begin: a trace session is running");
    /* Written like a save (pcs_atomic_file): a symlink at the path is
     * replaced, never written through, and a FIFO or device is refused
     * instead of blocking or being truncated. */
    pcs_atomic_file *file = NULL;
    if (pcs_atomic_file_create(path, &file) != PCS_OK) {
        atomic_store(&g_trace.state, TRACE_IDLE);
        return pcs_error_set(PCS_E_IO, "'%s': %s", path, pcs_last_error());
    }
    trace_span *spans = malloc(sizeof *spans * max_spans);
    trace_name *names = malloc(sizeof *names * TRACE_NAMES_MAX);
    if (!spans || !names) {
        free(spans);
        free(names);
        pcs_atomic_file_discard(file);
        atomic_store(&g_trace.state, TRACE_IDLE);
        return pcs_error_set(PCS_E_NOMEM, "pcs_profile_trace_begin: cannot allocate %u spans",
                             max_spans);
    }
    g_trace.file = file;
    g_trace.out = pcs_atomic_file_stream(file);
    g_trace.spans = spans;
    g_trace.names = names;
    g_trace.cap = max_spans;
    g_trace.origin_ns = pcs_profile_now_ns();
    atomic_store_explicit(&g_trace.next, 0, memory_order_relaxed);
    atomic_store_explicit(&g_trace.dropped, 0, memory_order_relaxed);
    atomic_store_explicit(&g_trace.names_next, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&g_trace.gen, 1, memory_order_relaxed); /* never 0 from here */
    atomic_store(&g_trace.state, TRACE_RECORDING); /* seq_cst: publishes the fields above */
    return PCS_OK;
}

pcs_status pcs_profile_trace_begin(const char *path)
{
    return pcs_profile_trace_begin_n(path, PCS_PROFILE_TRACE_DEFAULT_SPANS);
}

static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* Nanoseconds as microseconds with exactly three decimals. */
static void put_us(FILE *f, uint64_t ns)
{
    fprintf(f, "%" PRIu64 ".%03u", ns / 1000u, (unsigned)(ns % 1000u));
}

static void put_thread_name(FILE *f, const trace_name *t, unsigned pid)
{
    fprintf(f,
            ",\n{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":",
            pid, t->tid);
    put_string(f, t->name);
    fputs("}}", f);
}

static void put_span(FILE *f, const trace_span *s, unsigned pid)
{
    uint64_t t0 = s->t0_ns > g_trace.origin_ns ? s->t0_ns - g_trace.origin_ns : 0;
    fprintf(f, ",\n{\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"name\":", pid, s->tid);
    put_string(f, s->name);
    fputs(",\"cat\":", f);
    put_string(f, s->cat);
    fputs(",\"ts\":", f);
    put_us(f, t0);
    fputs(",\"dur\":", f);
    put_us(f, s->dur_ns);
    if (s->arg_name) {
        fputs(",\"args\":{", f);
        put_string(f, s->arg_name);
        fprintf(f, ":%" PRIu64 "}", s->arg);
    }
    fputc('}', f);
}

static int write_trace(FILE *f, uint64_t n, uint64_t n_names, uint64_t dropped)
{
    unsigned pid = (unsigned)getpid();
    fprintf(f,
            "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"pcsim %s\","
            "\"clock\":\"CLOCK_MONOTONIC\",\"dropped_spans\":%" PRIu64 "},\n"
            "\"traceEvents\":[\n"
            "{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"process_name\",\"args\":{"
            "\"name\":\"pcsim\"}}",
            pcs_version(), dropped, pid, pid);
    for (uint64_t i = 0; i < n_names; i++)
        put_thread_name(f, &g_trace.names[i], pid);
    for (uint64_t i = 0; i < n; i++)
        put_span(f, &g_trace.spans[i], pid);
    fputs("\n]}\n", f);
    return ferror(f) ? -1 : 0;
}

pcs_status pcs_profile_trace_end(void)
{
    int rec = TRACE_RECORDING;
    if (!atomic_compare_exchange_strong(&g_trace.state, &rec, TRACE_BUSY))
        return pcs_error_set(PCS_E_STATE, "pcs_profile_trace_end: no trace session is running");
    while (atomic_load_explicit(&g_trace.writers, memory_order_seq_cst) != 0)
        sched_yield(); /* a recorder is finishing its slot */
    uint64_t n = atomic_load_explicit(&g_trace.next, memory_order_relaxed);
    uint64_t dropped = atomic_load_explicit(&g_trace.dropped, memory_order_relaxed);
    uint64_t n_names = atomic_load_explicit(&g_trace.names_next, memory_order_relaxed);
    n = n < g_trace.cap ? n : g_trace.cap;
    n_names = n_names < TRACE_NAMES_MAX ? n_names : TRACE_NAMES_MAX;
    int bad = write_trace(g_trace.out, n, n_names, dropped);
    pcs_status st = PCS_OK;
    if (bad) {
        pcs_atomic_file_discard(g_trace.file);
        st = pcs_error_set(PCS_E_IO, "pcs_profile_trace_end: writing the trace file failed");
    } else {
        st = pcs_atomic_file_commit(g_trace.file); /* its message names the path */
    }
    free(g_trace.spans);
    free(g_trace.names);
    g_trace.spans = NULL;
    g_trace.names = NULL;
    g_trace.out = NULL;
    g_trace.file = NULL;
    g_trace.cap = 0;
    atomic_store(&g_trace.state, TRACE_IDLE);
    return st;
}
