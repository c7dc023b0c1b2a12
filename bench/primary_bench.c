/**
 * @file primary_bench.c
 * @brief The two-phase primary world model (issue 14, pcsim/primary.h): one
 *        pcs_world_tick of a world holding `units` 4-loop primaries (67
 *        volumes and 70 junctions each, the default (p, h) table shared),
 *        each settled at full power by pcs_primary_init_steady in the setup.
 *        0 bytes allocated per tick.
 *
 * One operation is one tick (dt 0.05 s): per unit the pressurizer boundary,
 * SG heat, pump heads, the network step (KLU), the pump shafts and the
 * pressurizer kernel (exact IF97, about 12 us). Instructions per tick:
 * bench/callgrind/primary_cg.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench.h"
#include "pcsim/pcsim.h"

typedef struct pb_ctx {
    pcs_water_ph_table *table;
    pcs_world *w;
} pb_ctx;

static void pb_teardown(void *ctx)
{
    pb_ctx *c = ctx;
    if (!c)
        return;
    pcs_world_destroy(c->w);
    pcs_water_ph_table_destroy(c->table);
    free(c);
}

static void *pb_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)info;
    long long units = pcs_bench_param_int(p, "units", 1);
    pb_ctx *c = calloc(1, sizeof *c);
    pcs_water_ph_table_def td;
    pcs_world_def wd;
    pcs_water_ph_table_default(&td);
    pcs_world_default(&wd);
    if (!c || pcs_water_ph_table_create(&td, &c->table) != PCS_OK ||
        pcs_world_create(&wd, &c->w) != PCS_OK)
        goto fail;
    for (long long u = 0; u < units; u++) {
        char name[24];
        snprintf(name, sizeof name, "u%lld", u + 1);
        pcs_primary_def d;
        pcs_primary_default(&d);
        d.unit_name = name;
        d.table = c->table;
        pcs_primary *pr;
        if (pcs_primary_add(c->w, &d, &pr) != PCS_OK ||
            pcs_primary_init_steady(c->w, pr, 1.0, NULL) != PCS_OK)
            goto fail;
    }
    return c;
fail:
    fprintf(stderr, "primary bench: %s\n", pcs_last_error());
    pb_teardown(c);
    return NULL;
}

static void pb_run(void *ctx, uint64_t n)
{
    pb_ctx *c = ctx;
    for (uint64_t k = 0; k < n; k++) {
        pcs_status st = pcs_world_tick(c->w);
        if (st != PCS_OK) { /* never expected: say so rather than time errors */
            fprintf(stderr, "primary.tick: %s\n", pcs_last_error());
            abort();
        }
    }
    pcs_bench_consume_u64(pcs_world_clock(c->w)->tick);
}

static const pcs_bench_def pb_def_tick = {
    .group = "primary",
    .name = "tick",
    .description = "pcs_world_tick of `units` two-phase 4-loop primaries at full power",
    .modes = PCS_BENCH_AVGT | PCS_BENCH_SAMPLE,
    .params = {{"units", "1,4"}},
    .setup = pb_setup,
    .teardown = pb_teardown,
    .run = pb_run,
};
PCS_BENCH_REGISTER(pb_def_tick)
