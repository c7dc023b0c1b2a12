/**
 * @file pump_structure_bench.c
 * @brief structure.pump_*: a reactor coolant pump removed and installed on
 *        the built-in 4-unit station (the station's pump_remove /
 *        pump_install structural commands, pcsim/station.h), without
 *        readers or a snapshot pool, as structure_bench.c builds it.
 *
 * structure.pump_remove and structure.pump_install time one tick: the tick
 * that applies the change (u1.pump1's entity, command target and channel
 * and its junction in the primary's network, KLU's new analysis and
 * factorisation). The opposite change and one quiet tick run in the
 * untimed iteration_setup, so these are single-shot (one op per
 * iteration: run them with -i 50 or more). structure.pump_idle_tick is the
 * same tick with nothing submitted, single-shot the same way: score minus
 * it is what one change adds to its tick. structure.pump_cycle is the
 * steady-state view in avgt: a removal tick then an install tick, per tick,
 * against structure.idle_tick (structure_bench.c).
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench.h"
#include "pcsim/pcsim.h"
#include "pcsim/primary.h"
#include "pcsim/station.h"

typedef struct pump_ctx {
    pcs_scenario *scn;
    pcs_world *w;
    pcs_station *st;
    pcs_primary *pr;
    pcs_command remove, install;
} pump_ctx;

static void pump_free(void *ctx)
{
    pump_ctx *c = ctx;
    if (!c)
        return;
    pcs_station_destroy(c->st);
    pcs_world_destroy(c->w);
    pcs_scenario_destroy(c->scn);
    free(c);
}

static void *pump_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    pump_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    int ok = pcs_scenario_default(&c->scn) == PCS_OK;
    pcs_world_def wc = ok ? pcs_scenario_world_def(c->scn) : (pcs_world_def){0};
    wc.workers = 0;
    wc.structure_log_capacity = 1u << 20; /* the most: a trial applies many changes */
    ok = ok && pcs_world_create(&wc, &c->w) == PCS_OK &&
         pcs_station_add(c->w, c->scn, &c->st) == PCS_OK &&
         pcs_station_command(c->st, "u1.pump1", "pump_remove", 0.0, &c->remove) == PCS_OK &&
         pcs_station_command(c->st, "u1.pump1", "pump_install", 0.0, &c->install) == PCS_OK &&
         pcs_world_tick(c->w) == PCS_OK; /* sealed outside the timed part */
    if (!ok) {
        fprintf(stderr, "structure.pump: %s\n", pcs_last_error());
        pump_free(c);
        return NULL;
    }
    c->pr = pcs_plant_unit_get(pcs_station_plant(c->st), 0)->primary;
    return c;
}

static void tick_or_die(pump_ctx *c)
{
    if (pcs_world_tick(c->w) != PCS_OK) {
        fprintf(stderr, "structure.pump: tick failed: %s\n", pcs_last_error());
        abort();
    }
}

static void submit_or_die(pump_ctx *c, const pcs_command *cmd)
{
    if (pcs_command_submit(c->w, cmd) != PCS_OK) {
        fprintf(stderr, "structure.pump: submit: %s\n", pcs_last_error());
        abort();
    }
}

/* Untimed: u1.pump1 installed (want 1) or removed (0), then a quiet tick. */
static void put(pump_ctx *c, int want)
{
    if (pcs_primary_pump_installed(c->w, c->pr, 0) != want) {
        submit_or_die(c, want ? &c->install : &c->remove);
        tick_or_die(c);
    }
    tick_or_die(c);
}

static void installed_setup(void *ctx)
{
    put(ctx, 1);
}

static void removed_setup(void *ctx)
{
    put(ctx, 0);
}

static void change_run(pump_ctx *c, const pcs_command *cmd, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        submit_or_die(c, cmd);
        tick_or_die(c);
        pcs_bench_consume_u64(pcs_structure_log_count(c->w));
    }
}

static void remove_run(void *ctx, uint64_t n)
{
    pump_ctx *c = ctx;
    change_run(c, &c->remove, n);
}

static void install_run(void *ctx, uint64_t n)
{
    pump_ctx *c = ctx;
    change_run(c, &c->install, n);
}

static void idle_run(void *ctx, uint64_t n)
{
    pump_ctx *c = ctx;
    for (uint64_t i = 0; i < n; i++) {
        tick_or_die(c);
        pcs_bench_consume_u64(pcs_world_clock(c->w)->tick);
    }
}

static void *cycle_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    info->ops_per_invocation = 2;
    return pump_setup(p, info);
}

static void cycle_run(void *ctx, uint64_t n)
{
    pump_ctx *c = ctx;
    for (uint64_t i = 0; i < n; i++) {
        submit_or_die(c, &c->remove);
        tick_or_die(c);
        submit_or_die(c, &c->install);
        tick_or_die(c);
        pcs_bench_consume_u64(pcs_structure_log_count(c->w));
    }
}

static uint64_t pump_world_allocs(void *ctx)
{
    return pcs_world_alloc_count(((pump_ctx *)ctx)->w);
}

static const pcs_bench_def structure_pump_remove = {
    .group = "structure",
    .name = "pump_remove",
    .description = "the 4-unit station's tick applying pump_remove of u1.pump1 (entity, target, "
                   "channel out; junction out, KLU re-analysed); single shot",
    .modes = PCS_BENCH_SS,
    .baseline = "structure.pump_idle_tick",
    .setup = pump_setup,
    .teardown = pump_free,
    .iteration_setup = installed_setup,
    .run = remove_run,
    .world_allocs = pump_world_allocs,
};
PCS_BENCH_REGISTER(structure_pump_remove)

static const pcs_bench_def structure_pump_install = {
    .group = "structure",
    .name = "pump_install",
    .description = "the 4-unit station's tick applying pump_install of u1.pump1 (junction in, "
                   "KLU re-analysed; target, channel, entity registered); single shot",
    .modes = PCS_BENCH_SS,
    .baseline = "structure.pump_idle_tick",
    .setup = pump_setup,
    .teardown = pump_free,
    .iteration_setup = removed_setup,
    .run = install_run,
    .world_allocs = pump_world_allocs,
};
PCS_BENCH_REGISTER(structure_pump_install)

static const pcs_bench_def structure_pump_idle_tick = {
    .group = "structure",
    .name = "pump_idle_tick",
    .description = "the same station's tick with no change, after the same untimed quiet tick; "
                   "single shot",
    .modes = PCS_BENCH_SS,
    .setup = pump_setup,
    .teardown = pump_free,
    .iteration_setup = installed_setup,
    .run = idle_run,
    .world_allocs = pump_world_allocs,
};
PCS_BENCH_REGISTER(structure_pump_idle_tick)

static const pcs_bench_def structure_pump_cycle = {
    .group = "structure",
    .name = "pump_cycle",
    .description = "a tick applying pump_remove of u1.pump1, then one applying pump_install; per "
                   "tick",
    .baseline = "structure.idle_tick",
    .setup = cycle_setup,
    .teardown = pump_free,
    .run = cycle_run,
    .world_allocs = pump_world_allocs,
};
PCS_BENCH_REGISTER(structure_pump_cycle)
