/**
 * @file diffusion_bench.c
 * @brief models.diffusion / models.diffusion_omp: ns per cell of one explicit
 *        diffusion step (pcsim/diffusion.h) on a size x size grid, serial and on
 *        OpenMP threads.
 *
 * One operation is one cell of one pcs_diffusion_step (ops_per_invocation =
 * size^2), so grids of different sizes compare directly: 64^2 (64 KiB of
 * fields, in L1/L2), 512^2 (4 MiB, in L3) and 2048^2 (64 MiB, from memory).
 * The omp variant runs the same step with `threads` OpenMP threads and names
 * the serial one as its baseline, so its ratio is 1 / speed-up.
 *
 * The field starts at 1 + (x * 7 + y * 13) % 17, a bounded positive pattern:
 * it relaxes towards its mean and never reaches subnormal numbers, whose
 * slow arithmetic would measure the FPU rather than the model.
 */
#include <stdio.h>

#include "bench/bench.h"
#include "pcsim/diffusion.h"

static void *diff_make(const pcs_bench_params *p, pcs_bench_info *info, long long threads)
{
    long long size = pcs_bench_param_int(p, "size", 64);
    if (size < 3 || size > 8192 || threads < 1 || threads > PCS_DIFFUSION_THREADS_MAX) {
        fprintf(stderr,
                "models.diffusion: size %lld outside [3, 8192] or threads %lld outside "
                "[1, 64]\n",
                size, threads);
        return NULL;
    }
    pcs_diffusion_def cfg;
    pcs_diffusion_default(&cfg);
    cfg.nx = (uint32_t)size;
    cfg.ny = (uint32_t)size;
    cfg.threads = (uint32_t)threads;
    pcs_diffusion *m = NULL;
    if (pcs_diffusion_create(&cfg, &m) != PCS_OK) {
        fprintf(stderr, "models.diffusion: %s\n", pcs_last_error());
        return NULL;
    }
    for (uint32_t y = 0; y < cfg.ny; y++)
        for (uint32_t x = 0; x < cfg.nx; x++)
            pcs_diffusion_set(m, x, y, 1.0 + (double)((x * 7u + y * 13u) % 17u));
    info->threads = (int)threads;
    info->ops_per_invocation = (uint64_t)(size * size);
    return m;
}

static void *diff_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    return diff_make(p, info, 1);
}

static void *diff_omp_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    return diff_make(p, info, pcs_bench_param_int(p, "threads", 2));
}

static void diff_teardown(void *ctx)
{
    pcs_diffusion_destroy(ctx);
}

static void diff_run(void *ctx, uint64_t n)
{
    pcs_diffusion *m = ctx;
    for (uint64_t i = 0; i < n; i++) {
        pcs_bench_consume_u64((uint64_t)pcs_diffusion_step(m));
        pcs_bench_consume_ptr(pcs_diffusion_field(m));
    }
}

static const pcs_bench_def diff_serial = {
    .group = "models",
    .name = "diffusion",
    .description = "one cell of one pcs_diffusion_step on a size x size grid, 1 thread",
    .params = {{"size", "64,512,2048"}},
    .setup = diff_setup,
    .teardown = diff_teardown,
    .run = diff_run,
};
PCS_BENCH_REGISTER(diff_serial)

static const pcs_bench_def diff_omp = {
    .group = "models",
    .name = "diffusion_omp",
    .description = "models.diffusion with the row loop on `threads` OpenMP threads",
    .params = {{"size", "64,512,2048"}, {"threads", "2"}},
    .baseline = "models.diffusion",
    .setup = diff_omp_setup,
    .teardown = diff_teardown,
    .run = diff_run,
};
PCS_BENCH_REGISTER(diff_omp)
