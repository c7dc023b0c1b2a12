/**
 * @file structure_bench.c
 * @brief structure.*: structural change while running (pcsim/structure.h) on
 *        the built-in 4-unit station (pcs_scenario_default + pcs_station_add,
 *        as station.tick builds it, without readers or a snapshot pool).
 *
 * structure.add_remove: one invocation is two ticks, the tick that applies a
 * device add (a structural command submitted before it: a new STATE store of
 * two doubles, a stage-5 system "u1.bench.devN.step" writing it, a channel
 * "u1.bench.dev.x" on it) and the next tick, which applies the device's
 * removal (the system and the channel retired; the store stays, structure.h).
 * Each op is one of those ticks, so the score is directly comparable with
 * structure.idle_tick, the same world ticking with nothing submitted (its
 * baseline): score minus baseline is what one change adds to its tick.
 * B/op and allocs/op are the C heap; world/op the world-heap allocations a
 * change makes (the registrations'); idle_tick's must all be 0 (issue 19).
 * Every add registers a new store (stores are never retired), so the world
 * grows by one small store and two channel ids per invocation, as a host
 * adding and removing devices for the length of a trial would.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench.h"
#include "pcsim/pcsim.h"

enum { K_ADD = 240, K_REMOVE = 241 };

typedef struct st_ctx {
    pcs_scenario *scn;
    pcs_world *w;
    pcs_station *st;
    uint32_t n_added;        /* devices ever added: the next store's number */
    uint32_t store, sys, ch; /* the device present, between an add and its removal */
} st_ctx;

static pcs_status dev_step(pcs_world *w, void *ctx)
{
    st_ctx *c = ctx;
    ((double *)pcs_store_data(w, c->store))[0] += 1.0;
    return PCS_OK;
}

static pcs_status check_any(pcs_world *w, void *ctx, const pcs_command *cmd)
{
    (void)w, (void)ctx, (void)cmd;
    return PCS_OK;
}

static pcs_status apply_add(pcs_world *w, void *ctx, const pcs_command *cmd)
{
    (void)cmd;
    st_ctx *c = ctx;
    char name[48], sys[64];
    snprintf(name, sizeof name, "u1.bench.dev%u", c->n_added);
    snprintf(sys, sizeof sys, "u1.bench.dev%u.step", c->n_added);
    c->n_added++;
    pcs_status st = pcs_store_register(w, name, 8, 2, PCS_STORE_STATE, &c->store);
    uint32_t writes[1] = {c->store};
    pcs_system_desc d = {.name = sys,
                         .stage = PCS_STAGE_HYDRAULICS,
                         .fn = dev_step,
                         .ctx = c,
                         .writes = writes,
                         .n_writes = 1};
    if (st == PCS_OK)
        st = pcs_system_register(w, &d, &c->sys);
    if (st == PCS_OK)
        st = pcs_channel_register(w, "u1.bench.dev.x", "", PCS_CHANNEL_F64, c->store, 0, &c->ch);
    return st;
}

static pcs_status apply_remove(pcs_world *w, void *ctx, const pcs_command *cmd)
{
    (void)cmd;
    st_ctx *c = ctx;
    pcs_status st = pcs_system_retire(w, c->sys);
    return st == PCS_OK ? pcs_channel_retire(w, c->ch) : st;
}

static void st_free(void *ctx)
{
    st_ctx *c = ctx;
    if (!c)
        return;
    pcs_station_destroy(c->st);
    pcs_world_destroy(c->w);
    pcs_scenario_destroy(c->scn);
    free(c);
}

static int add_kind(st_ctx *c, uint32_t kind, const char *name, pcs_command_fn apply)
{
    pcs_structure_kind_def d = pcs_structure_kind_default();
    d.kind = kind;
    d.name = name;
    d.check = check_any;
    d.apply = apply;
    d.ctx = c;
    return pcs_structure_kind_register(c->w, &d) == PCS_OK;
}

static void *st_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    info->ops_per_invocation = 2;
    st_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    int ok = pcs_scenario_default(&c->scn) == PCS_OK;
    pcs_world_def wc = ok ? pcs_scenario_world_def(c->scn) : (pcs_world_def){0};
    wc.workers = 0;
    wc.structure_log_capacity = 1u << 20; /* the most: a trial applies many changes */
    ok = ok && pcs_world_create(&wc, &c->w) == PCS_OK &&
         pcs_station_add(c->w, c->scn, &c->st) == PCS_OK &&
         add_kind(c, K_ADD, "bench.device_add", apply_add) &&
         add_kind(c, K_REMOVE, "bench.device_remove", apply_remove) &&
         pcs_world_tick(c->w) == PCS_OK; /* sealed outside the timed part */
    if (!ok) {
        fprintf(stderr, "structure: %s\n", pcs_last_error());
        st_free(c);
        return NULL;
    }
    return c;
}

static void tick_or_die(st_ctx *c)
{
    if (pcs_world_tick(c->w) != PCS_OK) {
        fprintf(stderr, "structure: tick failed: %s\n", pcs_last_error());
        abort();
    }
}

static void add_remove_run(void *ctx, uint64_t n)
{
    st_ctx *c = ctx;
    pcs_command add = {.kind = K_ADD}, remove = {.kind = K_REMOVE};
    for (uint64_t i = 0; i < n; i++) {
        pcs_status st = pcs_command_submit(c->w, &add);
        tick_or_die(c);
        st |= pcs_command_submit(c->w, &remove);
        tick_or_die(c);
        pcs_bench_consume_u64((uint64_t)st + pcs_structure_log_count(c->w));
    }
}

static void idle_run(void *ctx, uint64_t n)
{
    st_ctx *c = ctx;
    for (uint64_t i = 0; i < n; i++) {
        tick_or_die(c);
        tick_or_die(c);
        pcs_bench_consume_u64(pcs_world_clock(c->w)->tick);
    }
}

static uint64_t st_world_allocs(void *ctx)
{
    return pcs_world_alloc_count(((st_ctx *)ctx)->w);
}

static const pcs_bench_def structure_add_remove = {
    .group = "structure",
    .name = "add_remove",
    .description = "a station tick applying one device add (store + system + channel), then "
                   "one applying its removal; per tick",
    .baseline = "structure.idle_tick",
    .setup = st_setup,
    .teardown = st_free,
    .run = add_remove_run,
    .world_allocs = st_world_allocs,
};
PCS_BENCH_REGISTER(structure_add_remove)

static const pcs_bench_def structure_idle_tick = {
    .group = "structure",
    .name = "idle_tick",
    .description = "the same station world ticking with no structural change; per tick",
    .setup = st_setup,
    .teardown = st_free,
    .run = idle_run,
    .world_allocs = st_world_allocs,
};
PCS_BENCH_REGISTER(structure_idle_tick)
