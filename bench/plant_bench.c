/**
 * @file plant_bench.c
 * @brief The unit tick (issues 6 and 7 together): pcs_world_tick of a station of 1 or 4
 *        default PWR units (plant.h), steady or with a control bank moving, and the same
 *        with the profile module's stage timers attached, for the cost per stage.
 *
 * Each unit is pcs_plant_unit_default: reactor unit (rods, kinetics, decay heat,
 * xenon as a SLOW job), the reference fuel core (4 x 24 x (10+2)), a 4-loop primary with
 * 4 SG nodes per loop (48 nodes), and the coupling system. The world runs with workers = 0,
 * so every SLOW job (xenon, every 20 ticks) runs inline in its merge tick: the average per
 * tick includes it, the sample-mode percentiles show it.
 *
 * rods=steady: nothing is commanded; the plant sits at its full-power steady state.
 * rods=moving: every 400 ticks (20 s) each unit's bank 1 (D, 0.9 withdrawn at build) is
 * commanded alternately to 0.85 and 0.95; at the default 0.00526 travel/s it moves for
 * 380 of those 400 ticks, so reactivity changes every tick (kinetics re-solves, sub-steps)
 * and power follows with feedback. The command costs one ring submit per unit per 400 ticks.
 *
 * plant.tick_profiled attaches pcs_profile (14 clock reads per tick, histogram updates) and
 * has plant.tick as its baseline, so its ratio is the profiler's overhead; with
 * PCS_BENCH_REPORT=1 in the environment its teardown prints the mean, p50 and p99 of each
 * stage over the last measurement iteration (stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "pcsim/pcsim.h"

#define PB_TOGGLE_TICKS 400u

typedef struct pb_ctx {
    pcs_world *w;
    pcs_plant *plant;
    pcs_profile *prof;
    uint32_t units;
    int moving;
    uint64_t tick;
    uint32_t toggles;
    char label[64];
} pb_ctx;

static int pb_report(void)
{
    const char *e = getenv("PCS_BENCH_REPORT");
    return e && *e && *e != '0';
}

static void pb_teardown(void *ctx)
{
    pb_ctx *c = ctx;
    if (!c)
        return;
    if (c->prof && pb_report()) {
        pcs_profile_stats s;
        pcs_profile_tick_stats(c->prof, &s);
        fprintf(stderr, "%s: %llu ticks, tick mean %.0f ns, p50 %llu, p99 %llu\n", c->label,
                (unsigned long long)s.count, s.mean_ns, (unsigned long long)s.p50_ns,
                (unsigned long long)s.p99_ns);
        for (int st = 0; st < (int)PCS_STAGE_COUNT; st++) {
            pcs_profile_stage_stats(c->prof, (pcs_stage)st, &s);
            fprintf(stderr, "%s:   %-11s mean %8.0f ns  p50 %8llu  p99 %8llu\n", c->label,
                    pcs_stage_name((pcs_stage)st), s.mean_ns, (unsigned long long)s.p50_ns,
                    (unsigned long long)s.p99_ns);
        }
    }
    pcs_profile_detach(c->prof);
    pcs_world_destroy(c->w);
    free(c);
}

static void *pb_build(const pcs_bench_params *p, int profiled)
{
    pb_ctx *c = calloc(1, sizeof *c);
    pcs_plant_unit_def *u = NULL;
    if (!c)
        return NULL;
    const char *rods = pcs_bench_param(p, "rods");
    c->units = (uint32_t)pcs_bench_param_int(p, "units", 1);
    c->moving = rods && strcmp(rods, "moving") == 0;
    snprintf(c->label, sizeof c->label, "plant.tick%s units=%u rods=%s",
             profiled ? "_profiled" : "", c->units, c->moving ? "moving" : "steady");
    pcs_world_def wc;
    pcs_world_default(&wc);
    wc.workers = 0;
    u = calloc(c->units ? c->units : 1, sizeof *u);
    int ok = u && c->units >= 1 && c->units <= PCS_PLANT_MAX_UNITS &&
             pcs_world_create(&wc, &c->w) == PCS_OK;
    for (uint32_t i = 0; ok && i < c->units; i++)
        ok = pcs_plant_unit_default(&u[i]) == PCS_OK;
    ok = ok && pcs_plant_add(c->w, u, c->units, &c->plant) == PCS_OK;
    ok = ok && (!profiled || pcs_profile_attach(c->w, &c->prof) == PCS_OK);
    ok = ok && pcs_world_tick(c->w) == PCS_OK; /* seal outside the timed part */
    free(u);
    if (!ok) {
        fprintf(stderr, "%s: %s\n", c->label, pcs_last_error());
        pb_teardown(c);
        return NULL;
    }
    return c;
}

static void *pb_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)info;
    return pb_build(p, 0);
}

static void *pb_setup_profiled(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)info;
    return pb_build(p, 1);
}

static void pb_iteration_setup(void *ctx)
{
    pb_ctx *c = ctx;
    if (c->prof)
        pcs_profile_reset(c->prof);
}

/* Bank 1 (the first) of every unit to the other end of its 0.85 .. 0.95 travel. */
static void pb_move_rods(pb_ctx *c)
{
    double target = (c->toggles++ & 1u) ? 0.95 : 0.85;
    pcs_plant_unit_def def;
    pcs_plant_unit_default(&def);
    for (uint32_t i = 0; i < c->units; i++) {
        char name[32];
        snprintf(name, sizeof name, "u%u.%s", i + 1, def.core.banks[0].name);
        pcs_target_id id = {0, 0}; /* null: refused at the tick if the name is missing */
        pcs_command cmd = {.args = {target}};
        (void)pcs_command_target_find(c->w, name, &id);
        (void)pcs_command_kind_find(c->w, PCS_UNIT_COMMANDS, PCS_UNIT_OP_ROD_POSITION, &cmd.kind);
        cmd.target = pcs_target_id_store(id);
        pcs_bench_consume_u64((uint64_t)pcs_command_submit(c->w, &cmd));
    }
}

static void pb_run(void *ctx, uint64_t n)
{
    pb_ctx *c = ctx;
    for (uint64_t i = 0; i < n; i++) {
        if (c->moving && c->tick % PB_TOGGLE_TICKS == 0)
            pb_move_rods(c);
        c->tick++;
        pcs_bench_consume_u64((uint64_t)pcs_world_tick(c->w));
    }
}

static uint64_t pb_world_allocs(void *ctx)
{
    return pcs_world_alloc_count(((pb_ctx *)ctx)->w);
}

static const pcs_bench_def pb_tick = {
    .group = "plant",
    .name = "tick",
    .description = "one pcs_world_tick of a station of default PWR units (plant.h)",
    .params = {{"units", "1,4"}, {"rods", "steady,moving"}},
    .modes = PCS_BENCH_AVGT | PCS_BENCH_SAMPLE,
    .setup = pb_setup,
    .teardown = pb_teardown,
    .run = pb_run,
    .world_allocs = pb_world_allocs,
};
PCS_BENCH_REGISTER(pb_tick)

static const pcs_bench_def pb_tick_profiled = {
    .group = "plant",
    .name = "tick_profiled",
    .description = "plant.tick with pcs_profile stage timers attached (per-stage report)",
    .params = {{"units", "1,4"}, {"rods", "steady,moving"}},
    .baseline = "plant.tick",
    .setup = pb_setup_profiled,
    .teardown = pb_teardown,
    .iteration_setup = pb_iteration_setup,
    .run = pb_run,
    .world_allocs = pb_world_allocs,
};
PCS_BENCH_REGISTER(pb_tick_profiled)
