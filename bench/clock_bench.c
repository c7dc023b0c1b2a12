/**
 * @file clock_bench.c
 * @brief clock.advance: one pcs_clock_advance (tick counter + overflow check).
 */
#include <stddef.h>

#include "bench/bench.h"
#include "pcsim/clock.h"

static pcs_clock bench_clock;

static void *clock_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    if (pcs_clock_init(&bench_clock, 0.05, 72.0, 8766.0) != PCS_OK)
        return NULL;
    return &bench_clock;
}

static void clock_iteration_setup(void *ctx)
{
    pcs_clock_init(ctx, 0.05, 72.0, 8766.0); /* restart at tick 0: never near the limit */
}

static void clock_run(void *ctx, uint64_t n)
{
    pcs_clock *c = ctx;
    for (uint64_t i = 0; i < n; i++)
        pcs_bench_consume_u64((uint64_t)pcs_clock_advance(c));
    pcs_bench_consume_u64(c->tick);
}

static const pcs_bench_def clock_advance = {
    .group = "clock",
    .name = "advance",
    .description = "one pcs_clock_advance call",
    .setup = clock_setup,
    .iteration_setup = clock_iteration_setup,
    .run = clock_run,
};
PCS_BENCH_REGISTER(clock_advance)
