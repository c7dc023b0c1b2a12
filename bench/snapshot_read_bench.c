/**
 * @file snapshot_read_bench.c
 * @brief snapshot.read*: read latency of n channels by id while a writer publishes
 *        continuously, against a private memcpy, a pthread_rwlock and liburcu.
 *
 * Issue 4 "Benchmarks". Params: `channels` read per operation (8, 64, 400)
 * and `readers`, the reader threads besides the measuring one (0, 1, 3). A
 * team (bench.h) runs one writer thread, publishing as fast as it can, and
 * the extra readers, reading the same way as the harness thread, from setup
 * to teardown. One operation is one read of `channels` values by id into a
 * private array; sample mode, so the table shows p50/p99 per read:
 *
 *   snapshot.read         pcs_snapshot_read through the public API; the writer
 *                         ticks a world whose only work is publishing the
 *                         channels (bench/snapshot_world.h);
 *   snapshot.read_memcpy  memcpy of the same bytes from a private buffer: the
 *                         physical floor. Its "writer" copies between two
 *                         buffers of its own, so the CPU competition is the
 *                         same but nothing is shared;
 *   snapshot.read_rwlock  a pthread_rwlock around one shared buffer; the writer
 *                         memcpys the values in under the write lock;
 *   snapshot.read_urcu    liburcu (memb flavour): readers rcu_dereference a
 *                         pointer to an immutable copy inside a read-side
 *                         critical section; the writer fills a spare copy,
 *                         rcu_xchg_pointer, synchronize_rcu, recycles the old.
 *
 * snapshot.read names the other three as baselines, so every row (and every
 * percentile row) prints its ratio to the floor, the rwlock and RCU; the
 * rwlock and RCU rows name the floor. The writer's publications are the aux
 * counter ("writes", per second): a lock that makes reads cheap by starving
 * its writer shows up there, not in the latency.
 *
 * Timing: the harness reads CLOCK_MONOTONIC (~20 ns a call here) around each
 * invocation, so an invocation is a batch of max(1, 256 / channels) reads
 * (ops_per_invocation): 32 reads of 8 channels, 4 of 64, 1 of 400, the same
 * batching for every implementation. A sample is the batch's mean, so p99
 * at 8 and 64 channels is the p99 of a mean of 32 or 4 reads.
 *
 * Two bench-only params of snapshot.read (defaults leave it as above), to
 * measure why a read costs what it does with a live writer (README "Snapshots"):
 *
 *   writer_period_ns  0 = the writer publishes as fast as it can; else it
 *                     spins on CLOCK_MONOTONIC so publications start at most
 *                     once per period (1105 = 905 kHz), to see whether the
 *                     read's cost follows the writer's rate;
 *   probe             1 = the harness thread also times each read itself and
 *                     asks it for its tick, and teardown prints to stderr the
 *                     retries per read (pcs_reader_stats) and how far each
 *                     read's publication is from the previous read's (0: the
 *                     same buffer again, its lines likely still in this core's
 *                     cache), with the median ns of each kind. The probe's
 *                     clock reads (~20 ns each) are in the harness's samples.
 *                     With channels < 256 a batch's reads are probed together
 *                     as one (the first read's distance).
 */
#define _LGPL_SOURCE /* liburcu's inline read-side fast paths, as its users build */
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#include <urcu/urcu-memb.h>
#pragma GCC diagnostic pop

#include "bench/bench.h"
#include "bench/snapshot_world.h"

#define RD_MAX_CHANNELS 32768u
#define RD_MAX_READERS 16u
#define RD_MAX_PERIOD_NS 1000000000u /* one publication a second */

typedef struct rd_ctx rd_ctx;

/** One implementation under test. Reader hooks run on the reading thread. */
typedef struct rd_impl {
    const char *name;
    int (*setup)(rd_ctx *c);
    void (*write)(rd_ctx *c); /* one publication */
    void *(*reader_open)(rd_ctx *c);
    void (*read)(rd_ctx *c, void *rd, double *out);
    void (*reader_close)(rd_ctx *c, void *rd);
    void (*teardown)(rd_ctx *c);
} rd_impl;

struct rd_ctx {
    const rd_impl *impl;
    uint32_t n;     /* channels per read */
    uint32_t batch; /* reads per invocation */
    uint32_t *ids;  /* 0 .. n-1 */
    double *src;    /* the values the writer publishes (snapshot: the world store) */
    void *state;    /* the implementation's */
    void *rd;       /* the harness thread's reader */
    double *out;    /* the harness thread's destination */
    pcs_bench_team *team;
    uint64_t period_ns;     /* writer_period_ns: 0 = unthrottled */
    struct rd_probe *probe; /* probe=1 only: the harness thread's counts */
    /* Lines of their own: read by every team thread, or written by the writer. */
    alignas(64) atomic_int stop;
    alignas(64) _Atomic uint64_t writes; /* publications so far (aux counter) */
};

/* ---- probe (snapshot.read probe=1): what each read of the harness thread got ---- */

#define PROBE_BUCKETS 512u /* 2 ns each: 0 .. 1022 ns, the last one is everything above */

/* Distance of a read's publication from the previous read's: 0 (same buffer,
 * same publication), 1 (the next), 2 .. buffers-1, and buffers or more (the
 * writer lapped the whole ring between the two reads). */
enum { PROBE_SAME, PROBE_NEXT, PROBE_SKIP, PROBE_LAP, PROBE_KINDS };

typedef struct rd_probe {
    uint64_t last_tick;
    uint64_t retries0; /* the reader's retry count at setup */
    uint32_t buffers;
    uint64_t count[PROBE_KINDS];
    uint32_t hist[PROBE_KINDS][PROBE_BUCKETS];
} rd_probe;

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int probe_kind(const rd_probe *p, uint64_t tick)
{
    uint64_t d = tick - p->last_tick;
    return d == 0 ? PROBE_SAME : d == 1 ? PROBE_NEXT : d < p->buffers ? PROBE_SKIP : PROBE_LAP;
}

/* One probed batch: its time and the first read's distance from the last. */
static void probe_batch(rd_ctx *c)
{
    rd_probe *p = c->probe;
    uint64_t tick = 0;
    uint64_t t0 = now_ns();
    pcs_snapshot_read(c->rd, c->ids, c->n, c->out, &tick);
    for (uint32_t b = 1; b < c->batch; b++)
        c->impl->read(c, c->rd, c->out);
    uint64_t bucket = (now_ns() - t0) / c->batch / 2u; /* 2 ns buckets */
    int k = probe_kind(p, tick);
    p->count[k]++;
    p->hist[k][bucket < PROBE_BUCKETS ? bucket : PROBE_BUCKETS - 1u]++;
    p->last_tick = tick;
}

static uint64_t probe_median_ns(const uint32_t *h, uint64_t n)
{
    uint64_t seen = 0;
    for (uint32_t i = 0; i < PROBE_BUCKETS; i++) {
        seen += h[i];
        if (2u * seen >= n && n)
            return 2u * i;
    }
    return 0;
}

static void probe_report(const rd_ctx *c)
{
    const rd_probe *p = c->probe;
    static const char *names[PROBE_KINDS] = {"same pub", "next pub", "skipped 1-2", "lapped"};
    pcs_reader_stats st;
    pcs_reader_stats_get(c->rd, &st);
    uint64_t n = 0;
    for (int k = 0; k < PROBE_KINDS; k++)
        n += p->count[k];
    fprintf(stderr,
            "probe channels=%u period=%llu ns: %llu batches, writes %llu, %.4f retries/read", c->n,
            (unsigned long long)c->period_ns, (unsigned long long)n,
            (unsigned long long)atomic_load(&c->writes),
            st.reads ? (double)(st.retries - p->retries0) / (double)st.reads : 0.0);
    for (int k = 0; k < PROBE_KINDS; k++) {
        uint64_t med = probe_median_ns(p->hist[k], p->count[k]);
        /* The last bucket holds everything slower: its median is a lower bound. */
        fprintf(stderr, "; %s %.1f %% p50 %s%llu ns", names[k],
                n ? 100.0 * (double)p->count[k] / (double)n : 0.0,
                med == 2u * (PROBE_BUCKETS - 1u) ? ">=" : "", (unsigned long long)med);
    }
    fprintf(stderr, "\n");
}

static int probe_start(rd_ctx *c)
{
    c->probe = calloc(1, sizeof *c->probe);
    if (!c->probe)
        return -1;
    pcs_reader_stats st;
    pcs_reader_stats_get(c->rd, &st);
    c->probe->retries0 = st.retries;
    c->probe->last_tick = st.last_tick;
    c->probe->buffers = pcs_snapshot_buffers(((snapbench_world *)c->state)->pool);
    return 0;
}

/* ---- snapshot: the public reader API ------------------------------------------------ */

static int snap_setup(rd_ctx *c)
{
    snapbench_world *s = calloc(1, sizeof *s);
    c->state = s;
    if (!s || snapbench_world_create(c->n, s) != 0)
        return -1;
    c->src = s->values;
    return 0;
}

static void snap_write(rd_ctx *c)
{
    snapbench_world *s = c->state;
    pcs_world_tick(s->w);
}

static void *snap_open(rd_ctx *c)
{
    snapbench_world *s = c->state;
    pcs_reader *r = NULL;
    return pcs_reader_open(s->pool, &r) == PCS_OK ? r : NULL;
}

static void snap_read(rd_ctx *c, void *rd, double *out)
{
    pcs_snapshot_read(rd, c->ids, c->n, out, NULL);
}

static void snap_close(rd_ctx *c, void *rd)
{
    (void)c;
    pcs_reader_close(rd);
}

static void snap_teardown(rd_ctx *c)
{
    if (c->state)
        snapbench_world_destroy(c->state);
    free(c->state);
}

/* ---- memcpy: every thread copies memory of its own ---------------------------------- */

typedef struct priv_bufs {
    double *a, *b;
} priv_bufs;

static int memcpy_setup(rd_ctx *c)
{
    priv_bufs *p = calloc(1, sizeof *p);
    c->state = p;
    c->src = calloc(c->n, sizeof(double));
    if (!p || !c->src)
        return -1;
    p->a = calloc(c->n, sizeof(double));
    p->b = calloc(c->n, sizeof(double));
    return p->a && p->b ? 0 : -1;
}

static void memcpy_write(rd_ctx *c)
{
    priv_bufs *p = c->state;
    memcpy(p->a, p->b, c->n * sizeof(double));
    pcs_bench_consume_ptr(p->a);
}

static void *memcpy_open(rd_ctx *c)
{
    return calloc(c->n, sizeof(double));
}

static void memcpy_read(rd_ctx *c, void *rd, double *out)
{
    memcpy(out, rd, c->n * sizeof(double));
}

static void free_reader(rd_ctx *c, void *rd)
{
    (void)c;
    free(rd);
}

static void memcpy_teardown(rd_ctx *c)
{
    priv_bufs *p = c->state;
    if (p) {
        free(p->a);
        free(p->b);
    }
    free(p);
    free(c->src);
}

/* ---- rwlock: one shared buffer behind a pthread_rwlock ------------------------------ */

typedef struct rw_buf {
    pthread_rwlock_t lock;
    int lock_ok;
    double *buf;
} rw_buf;

static int rw_setup(rd_ctx *c)
{
    rw_buf *s = calloc(1, sizeof *s);
    c->state = s;
    c->src = calloc(c->n, sizeof(double));
    if (!s || !c->src || pthread_rwlock_init(&s->lock, NULL) != 0)
        return -1;
    s->lock_ok = 1;
    s->buf = calloc(c->n, sizeof(double));
    return s->buf ? 0 : -1;
}

static void rw_write(rd_ctx *c)
{
    rw_buf *s = c->state;
    pthread_rwlock_wrlock(&s->lock);
    memcpy(s->buf, c->src, c->n * sizeof(double));
    pthread_rwlock_unlock(&s->lock);
}

static void *no_reader_state(rd_ctx *c)
{
    return c;
}

static void rw_read(rd_ctx *c, void *rd, double *out)
{
    (void)rd;
    rw_buf *s = c->state;
    pthread_rwlock_rdlock(&s->lock);
    for (uint32_t i = 0; i < c->n; i++)
        out[i] = s->buf[c->ids[i]];
    pthread_rwlock_unlock(&s->lock);
}

static void no_reader_close(rd_ctx *c, void *rd)
{
    (void)c;
    (void)rd;
}

static void rw_teardown(rd_ctx *c)
{
    rw_buf *s = c->state;
    if (s && s->lock_ok)
        pthread_rwlock_destroy(&s->lock);
    if (s)
        free(s->buf);
    free(s);
    free(c->src);
}

/* ---- urcu: readers dereference an immutable copy; the writer swaps and waits -------- */

typedef struct rcu_bufs {
    double *cur;   /* RCU-protected */
    double *spare; /* the writer's next copy */
} rcu_bufs;

static int rcu_setup(rd_ctx *c)
{
    rcu_bufs *s = calloc(1, sizeof *s);
    c->state = s;
    c->src = calloc(c->n, sizeof(double));
    if (!s || !c->src)
        return -1;
    s->cur = calloc(c->n, sizeof(double));
    s->spare = calloc(c->n, sizeof(double));
    return s->cur && s->spare ? 0 : -1;
}

static void rcu_write(rd_ctx *c)
{
    rcu_bufs *s = c->state;
    memcpy(s->spare, c->src, c->n * sizeof(double));
    double *old = rcu_xchg_pointer(&s->cur, s->spare);
    urcu_memb_synchronize_rcu(); /* no reader can still hold `old` */
    s->spare = old;
}

static void *rcu_open(rd_ctx *c)
{
    urcu_memb_register_thread();
    return c;
}

static void rcu_read(rd_ctx *c, void *rd, double *out)
{
    (void)rd;
    rcu_bufs *s = c->state;
    urcu_memb_read_lock();
    const double *p = rcu_dereference(s->cur);
    for (uint32_t i = 0; i < c->n; i++)
        out[i] = p[c->ids[i]];
    urcu_memb_read_unlock();
}

static void rcu_close(rd_ctx *c, void *rd)
{
    (void)c;
    (void)rd;
    urcu_memb_unregister_thread();
}

static void rcu_teardown(rd_ctx *c)
{
    rcu_bufs *s = c->state;
    if (s) {
        free(s->cur);
        free(s->spare);
    }
    free(s);
    free(c->src);
}

static const rd_impl impl_snapshot = {.name = "snapshot",
                                      .setup = snap_setup,
                                      .write = snap_write,
                                      .reader_open = snap_open,
                                      .read = snap_read,
                                      .reader_close = snap_close,
                                      .teardown = snap_teardown};
static const rd_impl impl_memcpy = {.name = "memcpy",
                                    .setup = memcpy_setup,
                                    .write = memcpy_write,
                                    .reader_open = memcpy_open,
                                    .read = memcpy_read,
                                    .reader_close = free_reader,
                                    .teardown = memcpy_teardown};
static const rd_impl impl_rwlock = {.name = "rwlock",
                                    .setup = rw_setup,
                                    .write = rw_write,
                                    .reader_open = no_reader_state,
                                    .read = rw_read,
                                    .reader_close = no_reader_close,
                                    .teardown = rw_teardown};
static const rd_impl impl_urcu = {.name = "urcu",
                                  .setup = rcu_setup,
                                  .write = rcu_write,
                                  .reader_open = rcu_open,
                                  .read = rcu_read,
                                  .reader_close = rcu_close,
                                  .teardown = rcu_teardown};

/* ---- the team: member 0 writes, the others read, until teardown --------------------- */

static void member(void *ctx, unsigned idx, uint64_t n)
{
    (void)n; /* one round that lasts until stop */
    rd_ctx *c = ctx;
    if (idx == 0) {
        uint64_t k = 0;
        uint64_t next = c->period_ns ? now_ns() : 0;
        while (!atomic_load_explicit(&c->stop, memory_order_relaxed)) {
            while (c->period_ns && now_ns() < next)
                ; /* writer_period_ns: throttled, still spinning as the unthrottled one */
            next += c->period_ns;
            c->impl->write(c);
            atomic_store_explicit(&c->writes, ++k, memory_order_relaxed);
        }
        return;
    }
    double *out = malloc(c->n * sizeof(double));
    void *rd = c->impl->reader_open(c);
    while (out && rd && !atomic_load_explicit(&c->stop, memory_order_relaxed)) {
        c->impl->read(c, rd, out);
        pcs_bench_consume_ptr(out);
    }
    if (rd)
        c->impl->reader_close(c, rd);
    free(out);
}

static void rd_teardown(void *ctx)
{
    rd_ctx *c = ctx;
    if (c->team) {
        atomic_store(&c->stop, 1);
        pcs_bench_team_wait(c->team);
        pcs_bench_team_stop(c->team);
    }
    if (c->probe)
        probe_report(c);
    free(c->probe);
    if (c->rd)
        c->impl->reader_close(c, c->rd);
    c->impl->teardown(c);
    free(c->ids);
    free(c->out);
    free(c);
}

/* True when param @p name's @p v is in [lo, hi]; else says which and returns false. */
static bool rd_param_ok(const char *name, long long v, long long lo, long long hi)
{
    if (v >= lo && v <= hi)
        return true;
    fprintf(stderr, "snapshot.read: param %s = %lld outside [%lld, %lld]\n", name, v, lo, hi);
    return false;
}

static void *rd_setup(const rd_impl *impl, const pcs_bench_params *p, pcs_bench_info *info)
{
    long long n = pcs_bench_param_int(p, "channels", 64);
    long long readers = pcs_bench_param_int(p, "readers", 0);
    long long period = pcs_bench_param_int(p, "writer_period_ns", 0);
    long long probe = pcs_bench_param_int(p, "probe", 0);
    if (!rd_param_ok("channels", n, 1, RD_MAX_CHANNELS) ||
        !rd_param_ok("readers", readers, 0, RD_MAX_READERS) ||
        !rd_param_ok("writer_period_ns", period, 0, RD_MAX_PERIOD_NS) ||
        !rd_param_ok("probe", probe, 0, 1))
        return NULL;
    rd_ctx *c = aligned_alloc(64, sizeof *c);
    if (!c)
        return NULL;
    memset(c, 0, sizeof *c);
    c->impl = impl;
    c->n = (uint32_t)n;
    c->period_ns = (uint64_t)period;
    c->batch = c->n >= 256u ? 1u : 256u / c->n;
    c->ids = malloc(c->n * sizeof *c->ids);
    c->out = malloc(c->n * sizeof *c->out);
    int ok = c->ids && c->out;
    for (uint32_t i = 0; ok && i < c->n; i++)
        c->ids[i] = i;
    ok = ok && impl->setup(c) == 0;
    if (ok)
        c->rd = impl->reader_open(c);
    if (ok && c->rd && probe && (impl != &impl_snapshot || probe_start(c) != 0))
        ok = 0; /* the probe reads a pcs_reader: snapshot.read only */
    if (ok && c->rd)
        c->team = pcs_bench_team_start(1u + (unsigned)readers, member, c);
    if (!c->team) {
        fprintf(stderr, "snapshot.read_%s: setup failed: %s\n", impl->name, pcs_last_error());
        rd_teardown(c);
        return NULL;
    }
    pcs_bench_team_go(c->team, 1);
    info->threads = 2 + (int)readers; /* the measuring thread, the writer, the readers */
    info->ops_per_invocation = c->batch;
    return c;
}

static void rd_run(void *ctx, uint64_t n)
{
    rd_ctx *c = ctx;
    if (c->probe) {
        for (uint64_t i = 0; i < n; i++)
            probe_batch(c);
        pcs_bench_consume_ptr(c->out);
        return;
    }
    for (uint64_t i = 0; i < n; i++) {
        for (uint32_t b = 0; b < c->batch; b++)
            c->impl->read(c, c->rd, c->out);
        pcs_bench_consume_ptr(c->out);
    }
}

static uint64_t rd_writes(void *ctx)
{
    rd_ctx *c = ctx;
    return atomic_load_explicit(&c->writes, memory_order_relaxed);
}

static void *setup_snapshot(const pcs_bench_params *p, pcs_bench_info *info)
{
    return rd_setup(&impl_snapshot, p, info);
}

static void *setup_memcpy(const pcs_bench_params *p, pcs_bench_info *info)
{
    return rd_setup(&impl_memcpy, p, info);
}

static void *setup_rwlock(const pcs_bench_params *p, pcs_bench_info *info)
{
    return rd_setup(&impl_rwlock, p, info);
}

static void *setup_urcu(const pcs_bench_params *p, pcs_bench_info *info)
{
    return rd_setup(&impl_urcu, p, info);
}

static const pcs_bench_def read_snapshot = {
    .group = "snapshot",
    .name = "read",
    .description = "pcs_snapshot_read of `channels` ids while a writer publishes, `readers` more "
                   "readers",
    .params = {{"channels", "8,64,400"},
               {"readers", "0,1,3"},
               {"writer_period_ns", "0"},
               {"probe", "0"}},
    .modes = PCS_BENCH_SAMPLE,
    .baseline = "snapshot.read_memcpy,snapshot.read_rwlock,snapshot.read_urcu",
    .setup = setup_snapshot,
    .teardown = rd_teardown,
    .run = rd_run,
    .aux_counter = rd_writes,
    .aux_name = "writes",
};
PCS_BENCH_REGISTER(read_snapshot)

static const pcs_bench_def read_memcpy = {
    .group = "snapshot",
    .name = "read_memcpy",
    .description = "memcpy of `channels` doubles from a private buffer (the floor for "
                   "snapshot.read)",
    .params = {{"channels", "8,64,400"}, {"readers", "0,1,3"}},
    .modes = PCS_BENCH_SAMPLE,
    .setup = setup_memcpy,
    .teardown = rd_teardown,
    .run = rd_run,
    .aux_counter = rd_writes,
    .aux_name = "writes",
};
PCS_BENCH_REGISTER(read_memcpy)

static const pcs_bench_def read_rwlock = {
    .group = "snapshot",
    .name = "read_rwlock",
    .description = "`channels` ids read under a pthread_rwlock while a writer publishes",
    .params = {{"channels", "8,64,400"}, {"readers", "0,1,3"}},
    .modes = PCS_BENCH_SAMPLE,
    .baseline = "snapshot.read_memcpy",
    .setup = setup_rwlock,
    .teardown = rd_teardown,
    .run = rd_run,
    .aux_counter = rd_writes,
    .aux_name = "writes",
};
PCS_BENCH_REGISTER(read_rwlock)

static const pcs_bench_def read_urcu = {
    .group = "snapshot",
    .name = "read_urcu",
    .description = "`channels` ids read from a liburcu-protected copy while a writer publishes",
    .params = {{"channels", "8,64,400"}, {"readers", "0,1,3"}},
    .modes = PCS_BENCH_SAMPLE,
    .baseline = "snapshot.read_memcpy",
    .setup = setup_urcu,
    .teardown = rd_teardown,
    .run = rd_run,
    .aux_counter = rd_writes,
    .aux_name = "writes",
};
PCS_BENCH_REGISTER(read_urcu)
