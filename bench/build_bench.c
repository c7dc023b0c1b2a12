/**
 * @file build_bench.c
 * @brief The station's build cost: primary.init_steady (one unit's primary added
 *        to a fresh world and settled at 100 %) and station.build (the built-in
 *        4-unit station through the public station API).
 *
 * Both share the process-wide (p, h) table (pcs_station_water_table, 14 MB:
 * made at build time and embedded, opened in setup in microseconds; it cost
 * ~0.2 s when each process made it), taken in setup outside the measurement,
 * as every build after a process's first one finds it. So the score is what
 * a build costs on top of the table: for `pcsim run` the rest of its start-up.
 *
 * One operation of primary.init_steady: pcs_world_create (default def),
 * pcs_primary_add (pcs_primary_default, unit "u1"), pcs_primary_init_steady at
 * power 1.0, pcs_world_destroy. One operation of station.build:
 * pcs_world_create from pcs_scenario_world_def, pcs_station_add (plant,
 * instrumentation, controllers, channels: the primaries' settling is most of
 * it), pcs_station_destroy, pcs_world_destroy; the scenario is parsed once in
 * setup. An op lasts 0.05-0.3 s, so avgt runs one op per batch and an
 * iteration of -r 0.5 s holds a few.
 *
 * The old settling (300 s of simulated stepping) is gone, so there is no
 * baseline to run beside these. What the settling did instead is its report
 * (pcs_primary_init_report): simulated seconds and energy sweeps. The harness
 * has no per-op secondary result other than rates (aux counters), so with
 * PCS_BENCH_REPORT=1 in the environment each teardown prints the last op's
 * report to stderr (station.build: per unit; a unit identical to an earlier
 * one copies that one's settled state and report instead of settling), and
 * bench/README.md ("Station build") records them beside the scores.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench.h"
#include "pcsim/pcsim.h"

typedef struct bb_ctx {
    const pcs_water_ph_table *table;  /* process-wide: never destroyed */
    pcs_scenario *scn;                /* station.build only */
    pcs_primary_init_report last;     /* primary.init_steady: the last op's */
    pcs_primary_init_report units[8]; /* station.build: the last op's, per unit */
    uint32_t n_units;
    uint64_t ops;
} bb_ctx;

static int bb_report(void)
{
    const char *e = getenv("PCS_BENCH_REPORT");
    return e && *e && *e != '0';
}

static void bb_print(const char *label, uint64_t ops, const pcs_primary_init_report *r)
{
    fprintf(stderr,
            "%s: (the last of %llu ops) settled in %.2f s simulated, %u energy sweeps, Tavg %.3f K "
            "(program %.3f), "
            "max |dT/dt| %.2e K/s, loop flow %.1f kg/s\n",
            label, (unsigned long long)ops, r->seconds, r->corrections, r->t_avg_k,
            r->t_avg_program_k, r->max_dtdt_k_s, r->loop_flow_kg_s);
}

static void bb_teardown(void *ctx)
{
    bb_ctx *c = ctx;
    if (!c)
        return;
    if (bb_report() && c->ops > 0) {
        if (!c->scn) {
            bb_print("primary.init_steady", c->ops, &c->last);
        } else {
            for (uint32_t i = 0; i < c->n_units; i++) {
                char label[48];
                snprintf(label, sizeof label, "station.build u%u", i + 1);
                bb_print(label, c->ops, &c->units[i]);
            }
        }
    }
    pcs_scenario_destroy(c->scn);
    free(c);
}

static bb_ctx *bb_new(const char *label)
{
    bb_ctx *c = calloc(1, sizeof *c);
    if (!c || pcs_station_water_table(&c->table) != PCS_OK) {
        fprintf(stderr, "%s: %s\n", label, c ? pcs_last_error() : "out of memory");
        free(c);
        return NULL;
    }
    return c;
}

static void *bb_setup_primary(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    return bb_new("primary.init_steady");
}

static void bb_fail(const char *label)
{ /* never expected: say so rather than time errors */
    fprintf(stderr, "%s: %s\n", label, pcs_last_error());
    abort();
}

static void bb_run_primary(void *ctx, uint64_t n)
{
    bb_ctx *c = ctx;
    for (uint64_t k = 0; k < n; k++) {
        pcs_world_def wd;
        pcs_primary_def d;
        pcs_world *w = NULL;
        pcs_primary *pr;
        pcs_world_default(&wd);
        pcs_primary_default(&d);
        d.unit_name = "u1";
        d.table = c->table;
        if (pcs_world_create(&wd, &w) != PCS_OK || pcs_primary_add(w, &d, &pr) != PCS_OK ||
            pcs_primary_init_steady(w, pr, 1.0, &c->last) != PCS_OK)
            bb_fail("primary.init_steady");
        pcs_world_destroy(w);
        pcs_bench_consume_f64(c->last.t_avg_k);
        c->ops++;
    }
}

static void *bb_setup_station(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    bb_ctx *c = bb_new("station.build");
    if (c && pcs_scenario_default(&c->scn) != PCS_OK) {
        fprintf(stderr, "station.build: %s\n", pcs_last_error());
        bb_teardown(c);
        return NULL;
    }
    return c;
}

static void bb_keep_reports(bb_ctx *c, const pcs_station *st)
{
    const pcs_plant *pl = pcs_station_plant(st);
    uint32_t n = pl ? pcs_plant_unit_count(pl) : 0;
    c->n_units = n < 8u ? n : 8u;
    for (uint32_t i = 0; i < c->n_units; i++)
        c->units[i] = pcs_plant_unit_get(pl, i)->init;
}

static void bb_run_station(void *ctx, uint64_t n)
{
    bb_ctx *c = ctx;
    for (uint64_t k = 0; k < n; k++) {
        pcs_world_def wd = pcs_scenario_world_def(c->scn);
        pcs_world *w = NULL;
        pcs_station *st = NULL;
        if (pcs_world_create(&wd, &w) != PCS_OK || pcs_station_add(w, c->scn, &st) != PCS_OK)
            bb_fail("station.build");
        bb_keep_reports(c, st);
        pcs_bench_consume_u64(pcs_station_unit_count(st));
        pcs_station_destroy(st);
        pcs_world_destroy(w);
        c->ops++;
    }
}

static const pcs_bench_def bb_init_steady = {
    .group = "primary",
    .name = "init_steady",
    .description = "one 4-loop primary added to a fresh world and settled at 100 % "
                   "(shared (p, h) table made in setup)",
    .modes = PCS_BENCH_AVGT,
    .setup = bb_setup_primary,
    .teardown = bb_teardown,
    .run = bb_run_primary,
};
PCS_BENCH_REGISTER(bb_init_steady)

static const pcs_bench_def bb_station_build = {
    .group = "station",
    .name = "build",
    .description = "the built-in 4-unit station built into a fresh world and destroyed "
                   "(process-wide (p, h) table made in setup)",
    .modes = PCS_BENCH_AVGT,
    .setup = bb_setup_station,
    .teardown = bb_teardown,
    .run = bb_run_station,
};
PCS_BENCH_REGISTER(bb_station_build)
