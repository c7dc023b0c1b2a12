/**
 * @file info.c
 * @brief `pcsim info`: version, build, and the machine as the engine sees it;
 *        `pcsim info --schedule [SCENARIO]`: what a built station runs, stage
 *        by stage (the library's pcs_schedule_* rows, formatted here).
 */
#include <stdio.h>
#include <string.h>

#include "cli/host.h"
#include "pcsim/snapshot.h"

#ifndef PCS_BUILD_FLAGS
#define PCS_BUILD_FLAGS "unknown"
#endif

static const char *domain_name(pcs_domain d)
{
    return d == PCS_DOMAIN_SLOW ? "slow" : d == PCS_DOMAIN_STORAGE ? "storage" : "fast";
}

static void print_stores(const pcs_world *w, const char *label, const uint32_t *ids, uint32_t n)
{
    printf("    %s", label);
    if (n == 0)
        fputs(" -", stdout);
    for (uint32_t i = 0; i < n; i++)
        printf("%s %s", i ? "," : "", pcs_store_name(w, ids[i]));
    putchar('\n');
}

static void print_jobs(const pcs_world *w)
{
    uint32_t n = pcs_schedule_job_count(w);
    printf("slow jobs: %u, merged before stage 1 in this order at each tick where "
           "tick %% period = phase %% period\n",
           n);
    /* As print_stages reads systems: an index below the count is always found. */
    pcs_schedule_job j;
    for (uint32_t i = 0; i < n && pcs_schedule_job_at(w, i, &j) == PCS_OK; i++)
        printf("  job %s (id %u): domain %s, period %u ticks, phase %u, %u chunk%s\n", j.name, j.id,
               domain_name(j.domain), j.period_ticks, j.phase, j.n_chunks,
               j.n_chunks == 1 ? "" : "s");
}

/* "first..last" of @p n ids from @p first, or "none". */
static void print_range(const char *what, uint32_t first, uint32_t n)
{
    if (n == 0)
        printf("%s none", what);
    else
        printf("%s %u..%u", what, first, first + n - 1);
}

static void print_plugins(const pcs_world *w)
{
    uint32_t n = pcs_plugin_count(w);
    printf("plugins: %u, in this order: before_step after the slow-job merge and before stage 1, "
           "after_step after stage 13; shutdown in reverse at destroy\n",
           n);
    for (uint32_t i = 0; i < n; i++) {
        pcs_schedule_plugin p;
        if (pcs_schedule_plugin_at(w, i, &p) != PCS_OK)
            continue;
        printf("  plugin %s (priority %d): section %s;", p.id, (int)p.priority,
               p.section ? p.section : "none");
        print_range(" stores", p.first_store, p.n_stores);
        print_range(", systems", p.first_system, p.n_systems);
        print_range(", jobs", p.first_job, p.n_jobs);
        printf("; before_step %s, after_step %s, shutdown %s\n", p.has_before_step ? "yes" : "no",
               p.has_after_step ? "yes" : "no", p.has_shutdown ? "yes" : "no");
    }
}

/* The stage's parallel unit sections (system.h), after its systems: what
 * `pcsim run --parallel-units` runs as a parallel-for over units. */
static void print_sections(pcs_world *w, pcs_stage stage, uint32_t n_sections)
{
    pcs_schedule_section x;
    pcs_schedule_system a, b;
    for (uint32_t i = 0; i < n_sections; i++) {
        if (pcs_schedule_section_at(w, i, &x) != PCS_OK || x.stage != stage ||
            pcs_schedule_system_at(w, x.first, &a) != PCS_OK ||
            pcs_schedule_system_at(w, x.end - 1, &b) != PCS_OK)
            continue;
        printf("  parallel section: %s .. %s (%u systems, %u units): ", a.name, b.name,
               x.end - x.first, x.n_units);
        if (x.clash_store == UINT32_MAX)
            printf("proven disjoint, runs in parallel with --parallel-units\n");
        else
            printf("serial: store %s is written by one unit and touched by another\n",
                   pcs_store_name(w, x.clash_store));
    }
}

static void print_stages(pcs_world *w)
{
    uint32_t n = pcs_schedule_system_count(w), k = 0;
    uint32_t n_sections = pcs_schedule_section_count(w);
    for (int s = 0; s < PCS_STAGE_COUNT; s++) {
        printf("stage %d %s: %u system%s\n", s + 1, pcs_stage_name((pcs_stage)s),
               pcs_system_count(w, (pcs_stage)s),
               pcs_system_count(w, (pcs_stage)s) == 1 ? "" : "s");
        const char *engine = pcs_stage_engine_step((pcs_stage)s);
        if (engine)
            printf("  engine: %s\n", engine);
        pcs_schedule_system y;
        for (; k < n && pcs_schedule_system_at(w, k, &y) == PCS_OK && (int)y.stage == s; k++) {
            printf("  system %s (id %u, priority %d)\n", y.name, y.id, (int)y.priority);
            print_stores(w, "reads: ", y.reads, y.n_reads);
            print_stores(w, "writes:", y.writes, y.n_writes);
        }
        print_sections(w, (pcs_stage)s, n_sections);
    }
}

/* Build the scenario's world as `pcsim run` does (plant, instruments, snapshot
 * publishing), without workers or ticks, and print its schedule. */
static int print_schedule(const char *file)
{
    pcs_scenario *scn = NULL;
    pcs_world *w = NULL;
    pcs_station *st = NULL;
    pcs_snapshot_pool *pool = NULL;
    int rc = 0;
    pcs_status ls = file ? pcs_scenario_load_file(file, NULL, &scn) : pcs_scenario_default(&scn);
    pcs_world_def cfg = ls == PCS_OK ? pcs_scenario_world_def(scn) : (pcs_world_def){0};
    if (ls != PCS_OK)
        rc = host_fail(2, "%s", pcs_last_error());
    else if (pcs_world_create(&cfg, &w) != PCS_OK)
        rc = host_fail(2, "%s: world: %s", pcs_scenario_source(scn), pcs_last_error());
    else if (pcs_station_add(w, scn, &st) != PCS_OK)
        rc = host_fail(2, "%s", pcs_last_error());
    else if (pcs_snapshot_attach(w, NULL, &pool) != PCS_OK)
        rc = host_fail(1, "snapshot: %s", pcs_last_error());
    if (!rc) {
        printf("schedule of %s (%s): %u stores, %u systems, %u slow jobs\n", pcs_scenario_name(scn),
               pcs_scenario_source(scn), pcs_store_count(w), pcs_schedule_system_count(w),
               pcs_schedule_job_count(w));
        print_jobs(w);
        print_plugins(w);
        print_stages(w);
    }
    pcs_station_destroy(st);
    pcs_world_destroy(w);
    pcs_scenario_destroy(scn);
    return rc;
}

static int print_info(void)
{
    printf("pcsim %s\n", pcs_version());
    printf("compiler: %s\n", __VERSION__);
    printf("flags: %s\n", PCS_BUILD_FLAGS);
    /* Start a default pool to show where its workers land, then stop it. */
    pcs_exec *pool = NULL;
    if (pcs_exec_create(NULL, &pool) != PCS_OK) {
        printf("topology: unavailable (%s)\n", pcs_last_error());
        return 0;
    }
    char buf[16384];
    size_t need = pcs_exec_topology_describe(pool, buf, sizeof buf);
    fputs(buf, stdout);
    if (need >= sizeof buf)
        puts("... (truncated)");
    for (uint32_t i = 0; i < pcs_exec_warning_count(pool); i++)
        if (pcs_exec_warning(pool, i))
            printf("warning: %s\n", pcs_exec_warning(pool, i));
    pcs_exec_destroy(pool);
    return 0;
}

int cmd_info(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--help") == 0) {
        puts("usage: pcsim info\n"
             "  Prints version, compiler and flags, the CPU topology and where workers would "
             "be pinned.\n"
             "usage: pcsim info --schedule [SCENARIO]\n"
             "  Builds the scenario's station (default: the built-in pwr-station) without "
             "running it\n"
             "  and prints its schedule: the slow jobs, the plugins (id, priority), then each\n"
             "  of the 13 stages with what the engine does there and every system in run\n"
             "  order with the stores it reads and writes.");
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--schedule") == 0) {
        if (argc > 3)
            return host_fail(2,
                             "info --schedule: expected at most one SCENARIO, got '%s' "
                             "after '%s'",
                             argv[3], argv[2]);
        return print_schedule(argc > 2 ? argv[2] : NULL);
    }
    if (argc > 1)
        return host_fail(2, "info: unknown option '%s' (expected --schedule or --help)", argv[1]);
    return print_info();
}
