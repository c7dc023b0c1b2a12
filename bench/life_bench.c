/**
 * @file life_bench.c
 * @brief models.life / models.life_omp: ns per cell of one Game of Life generation
 *        (pcsim/life.h) on a wrapping size x size grid, serial and on OpenMP threads.
 *
 * One operation is one cell of one pcs_life_step (ops_per_invocation =
 * size^2). The grid starts with about a third of its cells alive, drawn from
 * a seeded pcs_rng stream; the row loop is branch-free, so the cost does not
 * depend on how the population evolves while the benchmark runs. The omp
 * variant names the serial one as its baseline: its ratio is 1 / speed-up.
 */
#include <stdio.h>

#include "bench/bench.h"
#include "pcsim/life.h"
#include "pcsim/rng.h"

static void *life_make(const pcs_bench_params *p, pcs_bench_info *info, long long threads)
{
    long long size = pcs_bench_param_int(p, "size", 64);
    if (size < 3 || size > 16384 || threads < 1 || threads > PCS_LIFE_THREADS_MAX) {
        fprintf(stderr,
                "models.life: size %lld outside [3, 16384] or threads %lld outside "
                "[1, 64]\n",
                size, threads);
        return NULL;
    }
    pcs_life_def cfg;
    pcs_life_default(&cfg);
    cfg.width = (uint32_t)size;
    cfg.height = (uint32_t)size;
    cfg.boundary = PCS_LIFE_WRAP;
    cfg.threads = (uint32_t)threads;
    pcs_life *m = NULL;
    pcs_rng rng;
    if (pcs_life_create(&cfg, &m) != PCS_OK || pcs_rng_seed(&rng, 42, 0, 0) != PCS_OK) {
        fprintf(stderr, "models.life: %s\n", pcs_last_error());
        pcs_life_destroy(m);
        return NULL;
    }
    for (uint32_t y = 0; y < cfg.height; y++)
        for (uint32_t x = 0; x < cfg.width; x++)
            pcs_life_set(m, x, y, pcs_rng_next_u64(&rng) % 3u == 0u);
    info->threads = (int)threads;
    info->ops_per_invocation = (uint64_t)(size * size);
    return m;
}

static void *life_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    return life_make(p, info, 1);
}

static void *life_omp_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    return life_make(p, info, pcs_bench_param_int(p, "threads", 2));
}

static void life_teardown(void *ctx)
{
    pcs_life_destroy(ctx);
}

static void life_run(void *ctx, uint64_t n)
{
    pcs_life *m = ctx;
    for (uint64_t i = 0; i < n; i++) {
        pcs_bench_consume_u64((uint64_t)pcs_life_step(m));
        pcs_bench_consume_ptr(pcs_life_cells(m));
    }
}

static const pcs_bench_def life_serial = {
    .group = "models",
    .name = "life",
    .description = "one cell of one pcs_life_step on a wrapping size x size grid, 1 thread",
    .params = {{"size", "64,512,2048"}},
    .setup = life_setup,
    .teardown = life_teardown,
    .run = life_run,
};
PCS_BENCH_REGISTER(life_serial)

static const pcs_bench_def life_omp = {
    .group = "models",
    .name = "life_omp",
    .description = "models.life with the row loop on `threads` OpenMP threads",
    .params = {{"size", "64,512,2048"}, {"threads", "2"}},
    .baseline = "models.life",
    .setup = life_omp_setup,
    .teardown = life_teardown,
    .run = life_run,
};
PCS_BENCH_REGISTER(life_omp)
