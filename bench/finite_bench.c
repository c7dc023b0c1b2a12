/**
 * @file finite_bench.c
 * @brief The finite check's cost (issue 12): plant.tick of a station of default PWR units
 *        with world config check_finite on, against plant.tick (check off in release).
 *
 * With the check on, after every stage each PCS_STORE_F64 store a system of the stage
 * declares it writes is scanned once for NaN/Inf (engine/finite_check.c). For a default
 * unit that is about 35 stores; the ratio to plant.tick is the whole cost of the check.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench.h"
#include "pcsim/pcsim.h"

typedef struct fb_ctx {
    pcs_world *w;
    pcs_plant *plant;
} fb_ctx;

static void fb_teardown(void *ctx)
{
    fb_ctx *c = ctx;
    if (!c)
        return;
    pcs_world_destroy(c->w);
    free(c);
}

static void *fb_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)info;
    uint32_t units = (uint32_t)pcs_bench_param_int(p, "units", 1);
    fb_ctx *c = calloc(1, sizeof *c);
    pcs_plant_unit_def *u = calloc(units ? units : 1, sizeof *u);
    pcs_world_def wc;
    pcs_world_default(&wc);
    wc.workers = 0;
    wc.check_finite = 1;
    int ok = c && u && units >= 1 && units <= PCS_PLANT_MAX_UNITS &&
             pcs_world_create(&wc, &c->w) == PCS_OK;
    for (uint32_t i = 0; ok && i < units; i++)
        ok = pcs_plant_unit_default(&u[i]) == PCS_OK;
    ok = ok && pcs_plant_add(c->w, u, units, &c->plant) == PCS_OK;
    ok = ok && pcs_world_tick(c->w) == PCS_OK; /* seal outside the timed part */
    free(u);
    if (!ok) {
        fprintf(stderr, "plant.tick_finite units=%u: %s\n", units, pcs_last_error());
        fb_teardown(c);
        return NULL;
    }
    return c;
}

static void fb_run(void *ctx, uint64_t n)
{
    fb_ctx *c = ctx;
    for (uint64_t i = 0; i < n; i++)
        pcs_bench_consume_u64((uint64_t)pcs_world_tick(c->w));
}

static uint64_t fb_world_allocs(void *ctx)
{
    return pcs_world_alloc_count(((fb_ctx *)ctx)->w);
}

static const pcs_bench_def fb_tick = {
    .group = "plant",
    .name = "tick_finite",
    .description = "plant.tick (steady) with the finite check on (world config check_finite)",
    .params = {{"units", "1,4"}, {"rods", "steady"}},
    .modes = PCS_BENCH_AVGT | PCS_BENCH_SAMPLE,
    .baseline = "plant.tick",
    .setup = fb_setup,
    .teardown = fb_teardown,
    .run = fb_run,
    .world_allocs = fb_world_allocs,
};
PCS_BENCH_REGISTER(fb_tick)
