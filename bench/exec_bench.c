/**
 * @file exec_bench.c
 * @brief Scheduler benchmarks: job round trip, steal, FAST tick tail with slow work, pinning.
 *
 * Side by side in one run (bench/README.md, section "Scheduler"):
 *  - exec.inline_job     baseline: the 8 chunks of a tiny job called directly.
 *  - exec.roundtrip      submit + join of the same job through a pool
 *                        (workers 0 = the joiner steals everything; 1, 2 =
 *                        workers wake, claim and finish, the joiner waits).
 *                        The difference to inline_job is the per-job overhead.
 *  - exec.steal          submit then join with a 0 s timeout: the joiner takes
 *                        every chunk no worker has claimed yet (steal latency).
 *  - exec.fast_tick      one pcs_world_tick of a world whose FAST system costs
 *                        ~55 us and whose SLOW job costs ~300 us per run;
 *                        sample mode gives p50/p99. With 0 workers the slow
 *                        work lands in every 20th tick (5 % of ticks, so p99
 *                        shows it); with workers it must not. Ticks run back
 *                        to back, so a worker has 20 x 55 us ~ 1.1 ms (not the
 *                        real 1 s) to finish a run. slow=0 is its baseline:
 *                        the same FAST work with no slow job registered, so
 *                        the tail the slow work adds is a ratio in one run.
 * Params: workers, pin (1 pinned with hwloc, 0 unpinned), slow (1 the job, 0 none).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"
#include "pcsim/pcsim.h"

#define XB_CHUNKS 8u

/* ---- a tiny job driven through the executor table ----------------------------- */

typedef struct xb_job {
    pcs_exec *pool;
    pcs_executor ex;
    void *slot;
    pcs_job_run run;
    uint64_t input;
    void *outputs[XB_CHUNKS];
    uint64_t out[XB_CHUNKS][8]; /* one cache line per chunk */
} xb_job;

static pcs_status xb_tiny_chunk(void *ctx, const void *input, uint32_t c, void *output)
{
    (void)ctx;
    uint64_t x = *(const uint64_t *)input + c;
    uint64_t *o = output;
    for (uint32_t i = 0; i < 8; i++)
        o[i] = x * 0x9e3779b97f4a7c15u + i;
    return PCS_OK;
}

static uint64_t xb_clock_ns(void *ctx)
{
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static pcs_status xb_pool(const pcs_bench_params *p, pcs_exec **pool, pcs_bench_info *info)
{
    pcs_exec_def cfg;
    pcs_exec_default(&cfg);
    cfg.workers = (uint32_t)pcs_bench_param_int(p, "workers", 1);
    cfg.pin = pcs_bench_param_int(p, "pin", 1) != 0;
    cfg.allow_oversubscribe = true; /* the param decides, also on a 2-core machine */
    cfg.clock_ns = xb_clock_ns;
    pcs_status st = pcs_exec_create(&cfg, pool);
    if (st != PCS_OK)
        return st;
    if (info)
        info->threads = 1 + (int)pcs_exec_worker_count(*pool);
    /* pin=1: the harness thread (the host) stays on the core the workers left
     * free; if that fails the trial runs with an unpinned host. */
    if (cfg.pin)
        pcs_exec_pin_host(*pool);
    return PCS_OK;
}

static void *xb_job_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    xb_job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    for (uint32_t c = 0; c < XB_CHUNKS; c++)
        j->outputs[c] = j->out[c];
    j->run = (pcs_job_run){"bench", xb_tiny_chunk, j, &j->input, j->outputs, XB_CHUNKS};
    if (!p || pcs_bench_param(p, "workers") == NULL)
        return j; /* inline baseline: no pool */
    if (xb_pool(p, &j->pool, info) != PCS_OK) {
        free(j);
        return NULL;
    }
    pcs_exec_executor(j->pool, &j->ex);
    if (j->ex.bind(j->ex.ctx, NULL, &j->run, &j->slot) != PCS_OK) {
        pcs_exec_destroy(j->pool);
        free(j);
        return NULL;
    }
    return j;
}

static void xb_job_teardown(void *ctx)
{
    xb_job *j = ctx;
    if (j->pool) {
        j->ex.unbind(j->ex.ctx, j->slot);
        pcs_exec_destroy(j->pool);
    }
    free(j);
}

static void xb_inline_run(void *ctx, uint64_t n)
{
    xb_job *j = ctx;
    for (uint64_t k = 0; k < n; k++) {
        j->input++;
        for (uint32_t c = 0; c < XB_CHUNKS; c++)
            xb_tiny_chunk(j, &j->input, c, j->outputs[c]);
        pcs_bench_consume_ptr(j->out);
    }
}

static void xb_cycle(xb_job *j, uint64_t n, double timeout_s)
{
    for (uint64_t k = 0; k < n; k++) {
        j->input++;
        j->ex.submit(j->ex.ctx, j->slot);
        j->ex.join(j->ex.ctx, j->slot, timeout_s);
        pcs_bench_consume_ptr(j->out);
    }
}

static void xb_roundtrip_run(void *ctx, uint64_t n)
{
    xb_cycle(ctx, n, 0.005);
}

static void xb_steal_run(void *ctx, uint64_t n)
{
    xb_cycle(ctx, n, 0.0);
}

static const pcs_bench_def xb_inline_job = {
    .group = "exec",
    .name = "inline_job",
    .description = "8 tiny chunks called directly on the host (baseline)",
    .modes = PCS_BENCH_AVGT,
    .setup = xb_job_setup,
    .teardown = xb_job_teardown,
    .run = xb_inline_run,
};
PCS_BENCH_REGISTER(xb_inline_job)

static const pcs_bench_def xb_roundtrip = {
    .group = "exec",
    .name = "roundtrip",
    .description = "submit + join of an 8-chunk tiny job (timeout 5 ms)",
    .params = {{"workers", "0,1,2"}, {"pin", "1,0"}},
    .modes = PCS_BENCH_AVGT | PCS_BENCH_SAMPLE,
    .baseline = "exec.inline_job",
    .setup = xb_job_setup,
    .teardown = xb_job_teardown,
    .run = xb_roundtrip_run,
};
PCS_BENCH_REGISTER(xb_roundtrip)

static const pcs_bench_def xb_steal = {
    .group = "exec",
    .name = "steal",
    .description = "submit + join with timeout 0: the host steals what no worker claimed yet",
    .params = {{"workers", "1,2"}, {"pin", "1"}},
    .modes = PCS_BENCH_AVGT | PCS_BENCH_SAMPLE,
    .baseline = "exec.inline_job",
    .setup = xb_job_setup,
    .teardown = xb_job_teardown,
    .run = xb_steal_run,
};
PCS_BENCH_REGISTER(xb_steal)

/* ---- FAST tick latency with a slow job ----------------------------------------- */

#define XB_NX 96u
#define XB_NY 96u
#define XB_SLOW_ROWS (XB_NY / XB_CHUNKS)
#define XB_SLOW_SWEEPS 5u /* the slow job: ~300 us per run, ~25 % of the 20-tick window */

/* Per-tick CPU time of the ticking thread, kept besides the harness's wall
 * time: on a shared machine wall-time tails are mostly preemption by other
 * processes, which thread CPU time does not count. */
#define XB_CPU_SAMPLES (1u << 21)

typedef struct xb_world {
    pcs_world *w;
    pcs_exec *pool;
    uint32_t field;
    uint32_t *cpu_ns; /* XB_CPU_SAMPLES */
    uint32_t n_cpu;
    int workers, pin, slow;
} xb_world;

static uint64_t xb_thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int xb_cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void xb_print_cpu(xb_world *b)
{
    if (b->n_cpu == 0)
        return;
    qsort(b->cpu_ns, b->n_cpu, sizeof *b->cpu_ns, xb_cmp_u32);
    uint32_t n = b->n_cpu;
    fprintf(stderr,
            "# exec.fast_tick workers=%d pin=%d slow=%d: host CPU time per tick over %u ticks: "
            "p50 %.1f us, p90 %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us\n",
            b->workers, b->pin, b->slow, n, b->cpu_ns[n / 2] / 1e3,
            b->cpu_ns[(uint64_t)n * 90 / 100] / 1e3, b->cpu_ns[(uint64_t)n * 99 / 100] / 1e3,
            b->cpu_ns[(uint64_t)n * 999 / 1000] / 1e3, b->cpu_ns[n - 1] / 1e3);
}

/* FAST: one explicit diffusion sweep over the field (tens of microseconds). */
static pcs_status xb_fast(pcs_world *w, void *ctx)
{
    xb_world *b = ctx;
    double *f = pcs_store_data(w, b->field);
    for (uint32_t y = 1; y + 1 < XB_NY; y++)
        for (uint32_t x = 1; x + 1 < XB_NX; x++) {
            double *c = f + y * XB_NX + x;
            *c += 0.1 * (c[-1] + c[1] + c[-(int)XB_NX] + c[XB_NX] - 4.0 * c[0]);
        }
    f[(XB_NY / 2) * XB_NX + XB_NX / 2] += 1.0;
    return PCS_OK;
}

static pcs_status xb_copy(pcs_world *w, void *ctx, void *input)
{
    memcpy(input, pcs_store_data(w, ((xb_world *)ctx)->field), sizeof(double) * XB_NX * XB_NY);
    return PCS_OK;
}

/* SLOW chunk: XB_SLOW_SWEEPS relaxation sweeps with a decay through pcs_exp
 * over its rows, then one output value per row. */
static pcs_status xb_slow_chunk(void *ctx, const void *input, uint32_t c, void *output)
{
    (void)ctx;
    const double(*g)[XB_NX] = (const double(*)[XB_NX])input;
    double *out = output;
    for (uint32_t r = 0; r < XB_SLOW_ROWS; r++) {
        uint32_t y = c * XB_SLOW_ROWS + r;
        double acc = 0.0;
        for (uint32_t s = 0; s < XB_SLOW_SWEEPS; s++)
            for (uint32_t x = 0; x < XB_NX; x++)
                acc = acc * pcs_exp(-1e-3 * (double)(s + 1)) + g[y][x];
        out[r] = acc;
    }
    return PCS_OK;
}

static pcs_status xb_merge(pcs_world *w, void *ctx, const void *input, void *const *outputs,
                           uint32_t n)
{
    (void)input;
    double *f = pcs_store_data(w, ((xb_world *)ctx)->field);
    for (uint32_t c = 0; c < n; c++)
        for (uint32_t r = 0; r < XB_SLOW_ROWS; r++)
            f[(c * XB_SLOW_ROWS + r) * XB_NX] = 1e-6 * ((const double *)outputs[c])[r];
    return PCS_OK;
}

static void *xb_world_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    xb_world *b = calloc(1, sizeof *b);
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    if (!b || !(b->cpu_ns = malloc(sizeof *b->cpu_ns * XB_CPU_SAMPLES)) ||
        pcs_world_create(&cfg, &b->w) != PCS_OK)
        goto fail;
    b->workers = (int)pcs_bench_param_int(p, "workers", 0);
    b->pin = (int)pcs_bench_param_int(p, "pin", 1);
    if (pcs_store_register(b->w, "bench.field", sizeof(double), XB_NX * XB_NY, PCS_STORE_STATE,
                           &b->field) != PCS_OK)
        goto fail;
    uint32_t writes[] = {b->field};
    pcs_system_desc sys = {.name = "bench.fast",
                           .stage = PCS_STAGE_HEAT,
                           .fn = xb_fast,
                           .ctx = b,
                           .writes = writes,
                           .n_writes = 1};
    pcs_job_desc d = {.name = "bench.slow",
                      .domain = PCS_DOMAIN_SLOW,
                      .n_chunks = XB_CHUNKS,
                      .input_bytes = sizeof(double) * XB_NX * XB_NY,
                      .output_bytes = sizeof(double) * XB_SLOW_ROWS,
                      .copy_inputs = xb_copy,
                      .run_chunk = xb_slow_chunk,
                      .merge = xb_merge,
                      .ctx = b};
    /* slow=0: the baseline, the same FAST work with no slow job at all */
    b->slow = (int)pcs_bench_param_int(p, "slow", 1);
    if (pcs_system_register(b->w, &sys, NULL) != PCS_OK ||
        (b->slow && pcs_job_register(b->w, &d, NULL) != PCS_OK))
        goto fail;
    if (pcs_bench_param_int(p, "workers", 0) > 0) {
        if (xb_pool(p, &b->pool, info) != PCS_OK || pcs_exec_attach(b->pool, b->w) != PCS_OK)
            goto fail;
    }
    return b;
fail:
    if (b) {
        pcs_world_destroy(b->w);
        pcs_exec_destroy(b->pool);
        free(b->cpu_ns);
    }
    free(b);
    return NULL;
}

static void xb_world_teardown(void *ctx)
{
    xb_world *b = ctx;
    pcs_exec_stats st;
    if (b->pool && pcs_exec_stats_get(b->pool, &st) == PCS_OK)
        fprintf(stderr,
                "# exec.fast_tick workers=%u: joins %llu, ready %llu, bounded waits %llu "
                "(timed out %llu), chunks stolen %llu of %llu, longest join wait %.1f us\n",
                pcs_exec_worker_count(b->pool), (unsigned long long)st.runs_joined,
                (unsigned long long)st.joins_ready, (unsigned long long)st.waits,
                (unsigned long long)st.waits_timed_out, (unsigned long long)st.chunks_stolen,
                (unsigned long long)(st.chunks_stolen + st.chunks_worker),
                (double)st.wait_ns_max / 1e3);
    xb_print_cpu(b);
    pcs_world_destroy(b->w);
    pcs_exec_destroy(b->pool);
    free(b->cpu_ns);
    free(b);
}

static void xb_tick_run(void *ctx, uint64_t n)
{
    xb_world *b = ctx;
    for (uint64_t k = 0; k < n; k++) {
        uint64_t t0 = xb_thread_cpu_ns();
        pcs_world_tick(b->w);
        uint64_t dt = xb_thread_cpu_ns() - t0;
        if (b->n_cpu < XB_CPU_SAMPLES)
            b->cpu_ns[b->n_cpu++] = dt > UINT32_MAX ? UINT32_MAX : (uint32_t)dt;
    }
    pcs_bench_consume_u64(pcs_world_clock(b->w)->tick);
}

static const pcs_bench_def xb_fast_tick = {
    .group = "exec",
    .name = "fast_tick",
    .description = "one FAST tick (~55 us) while a ~300 us SLOW job runs every 20 ticks",
    .params = {{"workers", "0,1"}, {"pin", "1,0"}, {"slow", "1,0"}},
    .modes = PCS_BENCH_SAMPLE,
    .setup = xb_world_setup,
    .teardown = xb_world_teardown,
    .run = xb_tick_run,
};
PCS_BENCH_REGISTER(xb_fast_tick)
