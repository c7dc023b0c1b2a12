/**
 * @file tick_bench.c
 * @brief tick.empty_world: one pcs_world_tick of a world with no systems (the pipeline's
 *        fixed cost: 13 stages, command drain, event hand-off, clock).
 */
#include <stdio.h>

#include "bench/bench.h"
#include "pcsim/pcsim.h"

static void *empty_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    pcs_world *w = NULL;
    if (pcs_world_create(&cfg, &w) != PCS_OK) {
        fprintf(stderr, "tick.empty_world: %s\n", pcs_last_error());
        return NULL;
    }
    return w;
}

static void empty_teardown(void *ctx)
{
    pcs_world_destroy(ctx);
}

static void empty_run(void *ctx, uint64_t n)
{
    pcs_world *w = ctx;
    for (uint64_t i = 0; i < n; i++)
        pcs_bench_consume_u64((uint64_t)pcs_world_tick(w));
}

static uint64_t empty_world_allocs(void *ctx)
{
    return pcs_world_alloc_count(ctx);
}

static const pcs_bench_def tick_empty = {
    .group = "tick",
    .name = "empty_world",
    .description = "one pcs_world_tick of a world with no systems",
    .modes = PCS_BENCH_AVGT | PCS_BENCH_SAMPLE,
    .setup = empty_setup,
    .teardown = empty_teardown,
    .run = empty_run,
    .world_allocs = empty_world_allocs,
};
PCS_BENCH_REGISTER(tick_empty)
