/**
 * @file snapshot_publish_bench.c
 * @brief snapshot.publish: cost of one snapshot publication versus published bytes and
 *        spinning readers, against memcpy of the same bytes.
 *
 * Issue 4 "Benchmarks". snapshot.publish calls the snapshot module's publish
 * system (snapshot/publish.c, stage 12 of a tick: the gather of every channel
 * into the next buffer, its header, the seqlock, the release of the index)
 * directly on a sealed world of `bytes` / 8 f64 channels, while `readers`
 * team threads spin on pcs_snapshot_read of every channel (ids = NULL).
 * snapshot.publish_memcpy, its baseline, copies the same number of bytes
 * with memcpy while the same number of threads spin on memcpys of
 * memory of their own: same CPU competition, nothing shared, so the ratio
 * separates the protocol and the cache-line traffic to readers from plain
 * time-sharing of the two cores.
 *
 * One operation is one publication (or one memcpy). Sample mode gives p50 and
 * p99; an invocation is a batch of max(1, 16 KiB / bytes) operations
 * (ops_per_invocation: 16 at 1 KiB, 4 at 4 KiB, 1 from 16 KiB), so the ~20 ns
 * of the timer stays small next to a 1 KiB copy; p99 at 1 and 4 KiB is thus
 * the p99 of a batch mean. The spinning readers' reads are the aux counter
 * ("reads", per second), which shows whether they really ran.
 *
 * Setup of the 256 KiB world registers 32768 channels, which takes seconds
 * (pcs_channel_register checks each new name against all earlier ones), so
 * `make bench-quick` runs only 1 KiB.
 */
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/snapshot_world.h"
#include "snapshot/pool.h" /* pcs_publish_system: time the publish alone */

#define PUB_MAX_BYTES (32u << 20)
#define PUB_MAX_READERS 16u
#define PUB_BATCH_BYTES 16384u

typedef struct pub_ctx {
    snapbench_world sw; /* publish only */
    int use_memcpy;
    uint32_t n;     /* channels (doubles) */
    uint32_t batch; /* operations per invocation */
    double *src;    /* memcpy only: the source values */
    double *dst;    /* memcpy only: the destination */
    pcs_bench_team *team;
    unsigned readers;
    /* Lines of their own: read by every spinner, or written by one. */
    alignas(64) atomic_int stop;
    struct {
        alignas(64) _Atomic uint64_t n; /* reads of spinner i so far (aux counter) */
    } reads[PUB_MAX_READERS];
} pub_ctx;

/* A spinning reader: snapshot reads of every channel, or memcpys of its own memory. */
static void spinner(void *ctx, unsigned idx, uint64_t n)
{
    (void)n; /* one round that lasts until stop */
    pub_ctx *c = ctx;
    size_t bytes = (size_t)c->n * sizeof(double);
    double *a = malloc(bytes), *b = calloc(1, bytes);
    pcs_reader *r = NULL;
    int ok = a && b && (c->use_memcpy || pcs_reader_open(c->sw.pool, &r) == PCS_OK);
    uint64_t k = 0;
    while (ok && !atomic_load_explicit(&c->stop, memory_order_relaxed)) {
        if (c->use_memcpy)
            memcpy(a, b, bytes);
        else
            pcs_snapshot_read(r, NULL, c->n, a, NULL);
        pcs_bench_consume_ptr(a);
        atomic_store_explicit(&c->reads[idx].n, ++k, memory_order_relaxed);
    }
    pcs_reader_close(r);
    free(a);
    free(b);
}

static void pub_teardown(void *ctx)
{
    pub_ctx *c = ctx;
    if (c->team) {
        atomic_store(&c->stop, 1);
        pcs_bench_team_wait(c->team);
        pcs_bench_team_stop(c->team);
    }
    snapbench_world_destroy(&c->sw);
    free(c->src);
    free(c->dst);
    free(c);
}

static void *pub_setup(const pcs_bench_params *p, pcs_bench_info *info, int use_memcpy)
{
    long long bytes = pcs_bench_param_int(p, "bytes", 4096);
    long long readers = pcs_bench_param_int(p, "readers", 0);
    if (bytes < 8 || bytes > PUB_MAX_BYTES || bytes % 8 != 0 || readers < 0 ||
        readers > PUB_MAX_READERS) {
        fprintf(stderr,
                "snapshot.publish: bytes %lld not a multiple of 8 in [8, %u] or readers "
                "%lld outside [0, %u]\n",
                bytes, PUB_MAX_BYTES, readers, PUB_MAX_READERS);
        return NULL;
    }
    pub_ctx *c = aligned_alloc(64, sizeof *c);
    if (!c)
        return NULL;
    memset(c, 0, sizeof *c);
    c->use_memcpy = use_memcpy;
    c->readers = (unsigned)readers;
    c->n = (uint32_t)(bytes / 8);
    c->batch = (uint32_t)bytes >= PUB_BATCH_BYTES ? 1u : PUB_BATCH_BYTES / (uint32_t)bytes;
    int ok;
    if (use_memcpy) { /* no world: registering 32768 channels alone takes seconds */
        c->src = malloc(c->n * sizeof(double));
        c->dst = calloc(c->n, sizeof(double));
        ok = c->src && c->dst;
        for (uint32_t i = 0; ok && i < c->n; i++)
            c->src[i] = 1.5 * i;
    } else {
        ok = snapbench_world_create(c->n, &c->sw) == 0;
    }
    if (ok && readers > 0)
        ok = (c->team = pcs_bench_team_start((unsigned)readers, spinner, c)) != NULL;
    if (!ok) {
        fprintf(stderr, "snapshot.publish: setup failed: %s\n", pcs_last_error());
        pub_teardown(c);
        return NULL;
    }
    if (c->team)
        pcs_bench_team_go(c->team, 1);
    info->threads = 1 + (int)readers;
    info->ops_per_invocation = c->batch;
    return c;
}

static void *setup_publish(const pcs_bench_params *p, pcs_bench_info *info)
{
    return pub_setup(p, info, 0);
}

static void *setup_memcpy(const pcs_bench_params *p, pcs_bench_info *info)
{
    return pub_setup(p, info, 1);
}

static void run_publish(void *ctx, uint64_t n)
{
    pub_ctx *c = ctx;
    for (uint64_t i = 0; i < n; i++)
        for (uint32_t b = 0; b < c->batch; b++)
            pcs_bench_consume_u64((uint64_t)pcs_publish_system(c->sw.w, c->sw.pool));
}

static void run_memcpy(void *ctx, uint64_t n)
{
    pub_ctx *c = ctx;
    size_t bytes = (size_t)c->n * sizeof(double);
    for (uint64_t i = 0; i < n; i++)
        for (uint32_t b = 0; b < c->batch; b++) {
            memcpy(c->dst, c->src, bytes);
            pcs_bench_consume_ptr(c->dst);
        }
}

static uint64_t pub_reads(void *ctx)
{
    pub_ctx *c = ctx;
    uint64_t sum = 0;
    for (unsigned i = 0; i < c->readers; i++)
        sum += atomic_load_explicit(&c->reads[i].n, memory_order_relaxed);
    return sum;
}

static uint64_t pub_world_allocs(void *ctx)
{
    return pcs_world_alloc_count(((pub_ctx *)ctx)->sw.w);
}

static const pcs_bench_def publish = {
    .group = "snapshot",
    .name = "publish",
    .description = "one publication of `bytes` / 8 channels, `readers` threads spinning on reads",
    .params = {{"bytes", "1024,4096,16384,65536,262144"}, {"readers", "0,1,3"}},
    .modes = PCS_BENCH_SAMPLE,
    .baseline = "snapshot.publish_memcpy",
    .setup = setup_publish,
    .teardown = pub_teardown,
    .run = run_publish,
    .world_allocs = pub_world_allocs,
    .aux_counter = pub_reads,
    .aux_name = "reads",
};
PCS_BENCH_REGISTER(publish)

static const pcs_bench_def publish_memcpy = {
    .group = "snapshot",
    .name = "publish_memcpy",
    .description = "memcpy of `bytes` bytes, `readers` threads spinning on private memcpys",
    .params = {{"bytes", "1024,4096,16384,65536,262144"}, {"readers", "0,1,3"}},
    .modes = PCS_BENCH_SAMPLE,
    .setup = setup_memcpy,
    .teardown = pub_teardown,
    .run = run_memcpy,
    .aux_counter = pub_reads,
    .aux_name = "reads",
};
PCS_BENCH_REGISTER(publish_memcpy)
