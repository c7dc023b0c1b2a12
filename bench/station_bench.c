/**
 * @file station_bench.c
 * @brief station.tick (issue 14, Performance): one pcs_world_tick of the built-in 4-unit
 *        station, built through the public station API only, free-running while reader
 *        threads copy channels out of the snapshot pool at a fixed wall-clock rate.
 *
 * The world is what a host embeds (include/pcsim/station.h): pcs_scenario_default,
 * pcs_world_create from pcs_scenario_world_def, pcs_station_add, pcs_snapshot_attach.
 * So a tick is the whole station: the two-phase primaries with pressurizer control,
 * CVCS and boron, the fuel, kinetics, sensors, trips, alarms, publish (stage 12) and
 * the event log (stage 13). Nothing is commanded: the plant runs at its scenario
 * state, free (no pacing: the next tick starts when the last one returned).
 *
 * Readers (param readers, default 0 and 20): threads that each copy reader_channels
 * (default 40) channels with pcs_snapshot_read once every 100 ms of WALL time, as a
 * control room's screens would. They pace with the reader API's own rate limit
 * (pcs_reader_set_min_interval + pcs_reader_wait, as cli/readers.c waits, but in wall
 * time rather than simulated time: a benchmark may read the wall clock, the simulation
 * never does). Reader i reads channels (7 i + j) mod n, j < reader_channels, spread
 * over the station like cli/readers.c; reader 0 also drains the event log. They start
 * at the end of setup as one team round that lasts until teardown, so they run during
 * warmup and measurement alike. The aux counter "reads" is their copy-outs per second
 * (20 readers at 10 Hz: 200/s).
 *
 * workers (default 0): slow-job workers of a pcs_exec pool attached to the world; 0 runs
 * the slow jobs (xenon) inline in their merge tick, as plant.tick does, so sample mode's
 * tail shows them. `pcsim run` attaches a pool (the scenario asks for 2 workers; a
 * 2-core machine gets 1).
 *
 * station.tick_profiled attaches pcs_profile (stage timers) and has station.tick as its
 * baseline; with PCS_BENCH_REPORT=1 in the environment its teardown prints, to stderr,
 * each stage's mean, p50, p95 and p99 over the last measurement iteration, and every
 * variant prints its readers' totals (reads, retries, largest staleness).
 *
 * sg (default "default,steam_side"; issue 15): "default" builds pcs_scenario_default as
 * above; "boundary" and "steam_side" build the bench's own 4-unit text
 * (bench/station_scenario.h: the same units, every one with that sg_model), so the
 * steam side (secondary network, turbine-generator and governor, feedwater, steam dump,
 * its sensors, interlocks and trips) is timed beside the boundary station in one run,
 * whatever the built-in default says. make bench-quick runs sg=default only.
 *
 * units (default "1,4,16,64"; issue 16): the station's unit count. sg=default with 4
 * units is the built-in scenario itself; with another count, its world and its unit
 * list repeated cyclically (sb_default_text: no script, no readers section); sg
 * boundary or steam_side repeat the bench's own 4-unit pattern
 * (pcs_bench_station_text_n). Cost per unit is the tick over units; 64 units are
 * about 64 times one, so a full station.tick run is mostly its 64-unit trials.
 *
 * parallel (default 0; issue 16): 1 turns on the parallel unit sections
 * (pcs_world_set_parallel_units, engine/par_stage.c): each stage's per-unit systems as a
 * parallel-for over units on the pool (workers) and the host; with workers=0 the host
 * runs every chunk, which times the sections' own overhead.
 *
 * Issue 14's target: p95 <= 0.5 ms on a 2-core machine with 20 readers x 40 channels at
 * 10 Hz, >= 20,000 ticks (bench/README.md, "station.tick": -i and -r give the count),
 * 0 bytes allocated per tick (B/op, allocs/op and world/op).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bench/bench.h"
#include "bench/station_scenario.h"
#include "pcsim/pcsim.h"

#define SB_MAX_READERS 64u
#define SB_MAX_CHANNELS 256u
#define SB_PERIOD_NS 100000000ull   /* 10 Hz of wall time */
#define SB_STOP_POLL_NS 50000000ull /* how long a reader sleeps before it looks at stop */

typedef struct sb_ctx {
    pcs_scenario *scn;
    pcs_world *w;
    pcs_station *st;
    pcs_snapshot_pool *pool;
    pcs_profile *prof;
    pcs_exec *exec;
    pcs_bench_team *team;
    uint32_t readers;
    uint32_t channels;  /* per reader */
    uint32_t n_channel; /* in the pool */
    char label[128];
    /* Shared with the readers; they touch these about 200 times a second in
     * all, so no padding against false sharing (and calloc could not honour
     * a 64-byte alignment anyway). */
    atomic_int stop;
    atomic_uint_fast64_t reads;
    atomic_uint_fast64_t retries;
    atomic_uint_fast64_t max_staleness;
    atomic_uint_fast64_t failures; /* reads or opens that failed */
} sb_ctx;

static int sb_report(void)
{
    const char *e = getenv("PCS_BENCH_REPORT");
    return e && *e && *e != '0';
}

static void sb_drain_events(pcs_reader *r)
{
    pcs_event ev[64];
    uint32_t n;
    do {
        if (pcs_events_poll(r, ev, 64, &n, NULL) != PCS_OK)
            return;
    } while (n == 64);
}

static void sb_max_store(atomic_uint_fast64_t *a, uint64_t v)
{
    uint_fast64_t cur = atomic_load_explicit(a, memory_order_relaxed);
    while (v > cur && !atomic_compare_exchange_weak_explicit(a, &cur, v, memory_order_relaxed,
                                                             memory_order_relaxed)) {
    }
}

/* One reader for the whole trial (one round, until stop). */
static void sb_reader(void *ctx, unsigned idx, uint64_t n)
{
    (void)n;
    sb_ctx *c = ctx;
    pcs_reader *r = NULL;
    uint32_t ids[SB_MAX_CHANNELS];
    double out[SB_MAX_CHANNELS];
    for (uint32_t j = 0; j < c->channels; j++)
        ids[j] = (idx * 7u + j) % c->n_channel;
    if (pcs_reader_open(c->pool, &r) != PCS_OK ||
        pcs_reader_set_min_interval(r, SB_PERIOD_NS) != PCS_OK) {
        atomic_fetch_add(&c->failures, 1);
        pcs_reader_close(r);
        return;
    }
    uint64_t after = 0; /* the first publication, then the newest at each wake */
    while (!atomic_load_explicit(&c->stop, memory_order_acquire)) {
        uint64_t published;
        if (pcs_reader_wait(r, after, SB_STOP_POLL_NS, &published) != PCS_OK)
            continue; /* timed out or held back by the rate limit: look at stop */
        if (pcs_snapshot_read(r, ids, c->channels, out, NULL) != PCS_OK)
            atomic_fetch_add_explicit(&c->failures, 1, memory_order_relaxed);
        pcs_bench_consume_f64(out[0]);
        atomic_fetch_add_explicit(&c->reads, 1, memory_order_relaxed);
        after = published;
        if (idx == 0)
            sb_drain_events(r);
    }
    pcs_reader_stats s;
    if (pcs_reader_stats_get(r, &s) == PCS_OK) {
        atomic_fetch_add_explicit(&c->retries, s.retries, memory_order_relaxed);
        sb_max_store(&c->max_staleness, s.max_staleness);
    }
    pcs_reader_close(r);
}

static void sb_print_stats(const char *label, const char *what, const pcs_profile_stats *s)
{
    fprintf(stderr, "%s:   %-11s mean %9.0f ns  p50 %9llu  p95 %9llu  p99 %9llu\n", label, what,
            s->mean_ns, (unsigned long long)s->p50_ns, (unsigned long long)s->p95_ns,
            (unsigned long long)s->p99_ns);
}

static void sb_teardown(void *ctx)
{
    sb_ctx *c = ctx;
    if (!c)
        return;
    if (c->team) {
        atomic_store_explicit(&c->stop, 1, memory_order_release);
        pcs_bench_team_wait(c->team);
        pcs_bench_team_stop(c->team);
    }
    if (sb_report()) {
        fprintf(stderr,
                "%s: readers %u x %u channels: %llu reads, %llu retries, max staleness %llu "
                "ticks, %llu failures\n",
                c->label, c->readers, c->channels, (unsigned long long)atomic_load(&c->reads),
                (unsigned long long)atomic_load(&c->retries),
                (unsigned long long)atomic_load(&c->max_staleness),
                (unsigned long long)atomic_load(&c->failures));
        if (c->prof) {
            pcs_profile_stats s;
            pcs_profile_tick_stats(c->prof, &s);
            fprintf(stderr, "%s: %llu ticks (last iteration)\n", c->label,
                    (unsigned long long)s.count);
            sb_print_stats(c->label, "tick", &s);
            for (int i = 0; i < (int)PCS_STAGE_COUNT; i++) {
                pcs_profile_stage_stats(c->prof, (pcs_stage)i, &s);
                sb_print_stats(c->label, pcs_stage_name((pcs_stage)i), &s);
            }
        }
    }
    pcs_profile_detach(c->prof);
    pcs_station_destroy(c->st);
    pcs_world_destroy(c->w); /* before the worker pool: unbinds its jobs */
    pcs_exec_destroy(c->exec);
    pcs_scenario_destroy(c->scn);
    free(c);
}

/* The built-in scenario with @p units units: its world section and its unit
 * list repeated cyclically (u5 is u1's, renamed), without its script and
 * readers (the station is not commanded; the bench starts its own readers). */
static char *sb_default_text(uint32_t units)
{
    json_error_t err;
    json_t *doc = json_loads(pcs_scenario_default_text(), 0, &err);
    json_t *list = doc ? json_object_get(doc, "units") : NULL;
    size_t n_list = json_array_size(list);
    json_t *out = json_object(), *arr = json_array();
    char *text = NULL;
    if (n_list > 0 && out && arr) {
        json_object_set(out, "schema", json_object_get(doc, "schema"));
        json_object_set_new(out, "name", json_string("bench-station-default-n"));
        json_object_set(out, "world", json_object_get(doc, "world"));
        for (uint32_t u = 0; u < units; u++) {
            json_t *item = json_deep_copy(json_array_get(list, u % n_list));
            char name[16];
            snprintf(name, sizeof name, "u%u", u + 1);
            json_object_set_new(item, "name", json_string(name));
            json_array_append_new(arr, item);
        }
        json_object_set(out, "units", arr);
        text = json_dumps(out, 0);
    }
    json_decref(arr);
    json_decref(out);
    json_decref(doc);
    return text;
}

/* The scenario param sg names, with param units units: the built-in one (4
 * units: itself, as before param units), or the bench's own text. */
static int sb_load_scenario(sb_ctx *c, const char *sg, uint32_t units)
{
    if (strcmp(sg, "default") == 0 && units == 4)
        return pcs_scenario_default(&c->scn) == PCS_OK;
    if (strcmp(sg, "default") == 0) {
        char *text = sb_default_text(units);
        int ok = text &&
                 pcs_scenario_load_string("default-n", text, strlen(text), NULL, &c->scn) == PCS_OK;
        free(text);
        return ok;
    }
    char text[8192];
    if (!pcs_bench_station_text_n(sg, units, text, sizeof text))
        return 0;
    return pcs_scenario_load_string(sg, text, strlen(text), NULL, &c->scn) == PCS_OK;
}

static int sb_build_world(sb_ctx *c, const char *sg, uint32_t units, uint32_t workers, int profiled,
                          int parallel)
{
    if (!sb_load_scenario(c, sg, units))
        return 0;
    pcs_world_def wc = pcs_scenario_world_def(c->scn);
    wc.workers = workers;
    if (pcs_world_create(&wc, &c->w) != PCS_OK || pcs_station_add(c->w, c->scn, &c->st) != PCS_OK ||
        pcs_snapshot_attach(c->w, NULL, &c->pool) != PCS_OK)
        return 0;
    if (profiled && pcs_profile_attach(c->w, &c->prof) != PCS_OK)
        return 0;
    if (parallel && pcs_world_set_parallel_units(c->w, 1) != PCS_OK)
        return 0;
    if (workers > 0) {
        pcs_exec_def ec;
        pcs_exec_default(&ec);
        ec.workers = workers;
        if (pcs_exec_create(&ec, &c->exec) != PCS_OK || pcs_exec_attach(c->exec, c->w) != PCS_OK)
            return 0;
    }
    /* Seal and publish once outside the timed part, so readers find channels. */
    if (pcs_world_tick(c->w) != PCS_OK)
        return 0;
    c->n_channel = pcs_snapshot_channel_count(c->pool);
    return c->n_channel > 0;
}

static void *sb_build(const pcs_bench_params *p, pcs_bench_info *info, int profiled)
{
    sb_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    long long readers = pcs_bench_param_int(p, "readers", 20);
    long long channels = pcs_bench_param_int(p, "reader_channels", 40);
    long long workers = pcs_bench_param_int(p, "workers", 0);
    long long units = pcs_bench_param_int(p, "units", 4);
    long long parallel = pcs_bench_param_int(p, "parallel", 0);
    const char *sg = pcs_bench_param(p, "sg");
    if (!sg)
        sg = "default";
    snprintf(c->label, sizeof c->label,
             "station.tick%s sg=%s units=%lld readers=%lld workers=%lld parallel=%lld",
             profiled ? "_profiled" : "", sg, units, readers, workers, parallel);
    if (strcmp(sg, "default") != 0 && strcmp(sg, "boundary") != 0 &&
        strcmp(sg, "steam_side") != 0) {
        fprintf(stderr, "%s: param sg '%s': must be default, boundary or steam_side\n", c->label,
                sg);
        free(c);
        return NULL;
    }
    if (readers < 0 || readers > (long long)SB_MAX_READERS || channels < 1 ||
        channels > (long long)SB_MAX_CHANNELS || workers < 0 || workers > 16 || units < 1 ||
        units > (long long)PCS_PLANT_MAX_UNITS || parallel < 0 || parallel > 1) {
        fprintf(stderr,
                "%s: params out of range: readers %lld (0..%u), reader_channels %lld (1..%u), "
                "workers %lld (0..16), units %lld (1..%u), parallel %lld (0..1)\n",
                c->label, readers, SB_MAX_READERS, channels, SB_MAX_CHANNELS, workers, units,
                PCS_PLANT_MAX_UNITS, parallel);
        free(c);
        return NULL;
    }
    c->readers = (uint32_t)readers;
    c->channels = (uint32_t)channels;
    if (!sb_build_world(c, sg, (uint32_t)units, (uint32_t)workers, profiled, (int)parallel)) {
        fprintf(stderr, "%s: %s\n", c->label, pcs_last_error());
        sb_teardown(c);
        return NULL;
    }
    if (c->channels > c->n_channel)
        c->channels = c->n_channel;
    if (c->readers > 0) {
        c->team = pcs_bench_team_start(c->readers, sb_reader, c);
        if (!c->team) {
            fprintf(stderr, "%s: cannot start %u reader threads\n", c->label, c->readers);
            sb_teardown(c);
            return NULL;
        }
        pcs_bench_team_go(c->team, 1); /* one round until teardown */
    }
    info->threads = 1 + (int)c->readers;
    return c;
}

static void *sb_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    return sb_build(p, info, 0);
}

static void *sb_setup_profiled(const pcs_bench_params *p, pcs_bench_info *info)
{
    return sb_build(p, info, 1);
}

static void sb_iteration_setup(void *ctx)
{
    sb_ctx *c = ctx;
    if (c->prof)
        pcs_profile_reset(c->prof);
}

static void sb_run(void *ctx, uint64_t n)
{
    sb_ctx *c = ctx;
    for (uint64_t i = 0; i < n; i++)
        pcs_bench_consume_u64((uint64_t)pcs_world_tick(c->w));
}

static uint64_t sb_world_allocs(void *ctx)
{
    return pcs_world_alloc_count(((sb_ctx *)ctx)->w);
}

static uint64_t sb_reads(void *ctx)
{
    return atomic_load_explicit(&((sb_ctx *)ctx)->reads, memory_order_relaxed);
}

static const pcs_bench_def sb_tick = {
    .group = "station",
    .name = "tick",
    .description = "one pcs_world_tick of a station of param units units, readers at 10 Hz wall",
    .params = {{"sg", "default,steam_side"},
               {"units", "1,4,16,64"},
               {"readers", "0,20"},
               {"reader_channels", "40"},
               {"workers", "0"},
               {"parallel", "0"}},
    .modes = PCS_BENCH_SAMPLE,
    .setup = sb_setup,
    .teardown = sb_teardown,
    .run = sb_run,
    .world_allocs = sb_world_allocs,
    .aux_counter = sb_reads,
    .aux_name = "reads",
};
PCS_BENCH_REGISTER(sb_tick)

static const pcs_bench_def sb_tick_profiled = {
    .group = "station",
    .name = "tick_profiled",
    .description = "station.tick with pcs_profile stage timers (per-stage report)",
    .params = {{"sg", "default,steam_side"},
               {"units", "4"},
               {"readers", "20"},
               {"reader_channels", "40"},
               {"workers", "0"}},
    .modes = PCS_BENCH_SAMPLE,
    .baseline = "station.tick",
    .setup = sb_setup_profiled,
    .teardown = sb_teardown,
    .iteration_setup = sb_iteration_setup,
    .run = sb_run,
    .world_allocs = sb_world_allocs,
    .aux_counter = sb_reads,
    .aux_name = "reads",
};
PCS_BENCH_REGISTER(sb_tick_profiled)
