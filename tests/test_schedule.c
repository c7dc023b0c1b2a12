/**
 * @file test_schedule.c
 * @brief Schedule introspection (system.h, "Schedule"): the run order it
 *        lists is the order the tick runs, jobs carry their timing, and the
 *        built-in station's whole schedule matches tests/golden/schedule.txt.
 *
 * The golden file pins the tick: a system added, moved, renamed or given a
 * new store shows up as a diff here. After an intended change, regenerate it
 * with
 *     make && ./build/pcsim info --schedule > tests/golden/schedule.txt
 * and review the diff in the commit (tests/golden/README.md).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/host.h"
#include "tests/cli_capture.h"
#include "pcsim/pcsim.h"

#define SCHED_GOLDEN "tests/golden/schedule.txt"

typedef struct sched_log {
    char order[8][16];
    int n;
} sched_log;

typedef struct sched_sys {
    const char *name;
    sched_log *log;
} sched_sys;

static pcs_status sched_record(pcs_world *w, void *ctx)
{
    (void)w;
    sched_sys *s = ctx;
    if (s->log->n < 8)
        snprintf(s->log->order[s->log->n++], sizeof s->log->order[0], "%s", s->name);
    return PCS_OK;
}

static pcs_status sched_copy_in(pcs_world *w, void *ctx, void *input)
{
    (void)w, (void)ctx, (void)input;
    return PCS_OK;
}

static pcs_status sched_chunk(void *ctx, const void *input, uint32_t chunk, void *output)
{
    (void)ctx, (void)input, (void)chunk, (void)output;
    return PCS_OK;
}

static pcs_status sched_merge(pcs_world *w, void *ctx, const void *input, void *const *outputs,
                              uint32_t n)
{
    (void)w, (void)ctx, (void)input, (void)outputs, (void)n;
    return PCS_OK;
}

Test(schedule, lists_systems_in_the_order_the_tick_runs_them)
{
    static sched_log log;
    /* Registered out of order: run order is (stage, priority, id). */
    static sched_sys s[4] = {{"late", &log}, {"heat-b", &log}, {"heat-a", &log}, {"early", &log}};
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&(pcs_world_def){0}, &w), PCS_E_INVAL); /* dt 0 */
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
    uint32_t a, b;
    cr_assert_eq(pcs_store_register(w, "a", 8, 2, PCS_STORE_STATE, &a), PCS_OK);
    cr_assert_eq(pcs_store_register(w, "b", 8, 2, PCS_STORE_STATE, &b), PCS_OK);
    pcs_system_desc d[4] = {
        {.name = "late", .stage = PCS_STAGE_ALARMS, .fn = sched_record, .ctx = &s[0]},
        {.name = "heat-b",
         .stage = PCS_STAGE_HEAT,
         .priority = 5,
         .fn = sched_record,
         .ctx = &s[1],
         .reads = &a,
         .n_reads = 1,
         .writes = &b,
         .n_writes = 1},
        {.name = "heat-a",
         .stage = PCS_STAGE_HEAT,
         .priority = -1,
         .fn = sched_record,
         .ctx = &s[2]},
        {.name = "early",
         .stage = PCS_STAGE_ACTUATORS,
         .fn = sched_record,
         .ctx = &s[3],
         .writes = &a,
         .n_writes = 1},
    };
    for (int i = 0; i < 4; i++)
        cr_assert_eq(pcs_system_register(w, &d[i], NULL), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_schedule_system_count(w), 4);
    static const char *const want[4] = {"early", "heat-a", "heat-b", "late"};
    static const uint32_t want_id[4] = {3, 2, 1, 0};
    for (uint32_t i = 0; i < 4; i++) {
        pcs_schedule_system y;
        cr_assert_eq(pcs_schedule_system_at(w, i, &y), PCS_OK);
        cr_assert_str_eq(y.name, want[i], "position %u", i);
        cr_assert_eq(y.id, want_id[i], "position %u", i);
    }
    pcs_schedule_system y;
    cr_assert_eq(pcs_schedule_system_at(w, 2, &y), PCS_OK); /* heat-b */
    cr_assert_eq(y.stage, PCS_STAGE_HEAT);
    cr_assert_eq(y.priority, 5);
    cr_assert_eq(y.n_reads, 1);
    cr_assert_str_eq(pcs_store_name(w, y.reads[0]), "a");
    cr_assert_eq(y.n_writes, 1);
    cr_assert_str_eq(pcs_store_name(w, y.writes[0]), "b");
    cr_assert_eq(pcs_schedule_system_at(w, 4, &y), PCS_E_NOTFOUND);
    cr_assert_str_eq(pcs_last_error(), "pcs_schedule_system_at: index 4 is outside [0, 4)");
    cr_assert_eq(pcs_schedule_system_at(NULL, 0, &y), PCS_E_INVAL);
    /* The tick runs them in exactly the listed order. */
    cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(log.n, 4);
    for (int i = 0; i < 4; i++)
        cr_assert_str_eq(log.order[i], want[i], "ran %d", i);
    pcs_world_destroy(w);
}

Test(schedule, lists_jobs_with_period_and_phase)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
    pcs_job_desc d = {.name = "slow-a",
                      .domain = PCS_DOMAIN_SLOW,
                      .phase = 7,
                      .n_chunks = 3,
                      .input_bytes = 8,
                      .output_bytes = 8,
                      .copy_inputs = sched_copy_in,
                      .run_chunk = sched_chunk,
                      .merge = sched_merge};
    cr_assert_eq(pcs_job_register(w, &d, NULL), PCS_OK, "%s", pcs_last_error());
    d.name = "storage-b";
    d.domain = PCS_DOMAIN_STORAGE;
    d.phase = 600;
    d.n_chunks = 1;
    cr_assert_eq(pcs_job_register(w, &d, NULL), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_schedule_job_count(w), 2);
    pcs_schedule_job j;
    cr_assert_eq(pcs_schedule_job_at(w, 0, &j), PCS_OK);
    cr_assert_str_eq(j.name, "slow-a");
    cr_assert_eq(j.domain, PCS_DOMAIN_SLOW);
    cr_assert_eq(j.period_ticks, 20);
    cr_assert_eq(j.phase, 7);
    cr_assert_eq(j.n_chunks, 3);
    cr_assert_eq(pcs_schedule_job_at(w, 1, &j), PCS_OK);
    cr_assert_str_eq(j.name, "storage-b");
    cr_assert_eq(j.id, 1);
    cr_assert_eq(j.period_ticks, 1200);
    cr_assert_eq(j.phase, 600);
    cr_assert_eq(pcs_schedule_job_at(w, 2, &j), PCS_E_NOTFOUND);
    cr_assert_eq(pcs_schedule_job_count(NULL), 0);
    pcs_world_destroy(w);
}

Test(schedule, engine_steps_only_at_stages_1_and_13)
{
    for (int s = 0; s < PCS_STAGE_COUNT; s++) {
        const char *e = pcs_stage_engine_step((pcs_stage)s);
        if (s == PCS_STAGE_COMMANDS || s == PCS_STAGE_EVENTS)
            cr_assert(e && e[0], "stage %d names its engine step", s + 1);
        else
            cr_assert_null(e, "stage %d is only its systems", s + 1);
    }
}

/* Run `pcsim info --schedule` in this (forked) test process with stdout in a
 * file; return the text (malloc'd). */
static char *sched_dump(void)
{
    char *argv[] = {"info", "--schedule", NULL};
    return cli_capture(cmd_info, 2, argv, "pcsim info --schedule");
}

static char *sched_read_golden(void)
{
    FILE *f = fopen(SCHED_GOLDEN, "rb");
    cr_assert_not_null(f, "cannot open %s (run the tests from the repository root)", SCHED_GOLDEN);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = calloc((size_t)n + 1, 1);
    cr_assert_eq(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return text;
}

Test(schedule, default_station_matches_the_golden_file)
{
    char *got = sched_dump(), *want = sched_read_golden();
    /* Report the first differing line, with its number, as a diff would. */
    const char *g = got, *e = want;
    for (int line = 1; *g || *e; line++) {
        size_t gl = strcspn(g, "\n"), el = strcspn(e, "\n");
        if (gl != el || memcmp(g, e, gl) != 0)
            cr_assert_fail("%s line %d differs:\n  golden: %.*s\n  now:    %.*s\n"
                           "If the change is intended: ./build/pcsim info --schedule > %s",
                           SCHED_GOLDEN, line, (int)el, e, (int)gl, g, SCHED_GOLDEN);
        g += gl + (g[gl] == '\n');
        e += el + (e[el] == '\n');
    }
    free(got);
    free(want);
}
