/**
 * @file test_sleep_added.c
 * @brief A unit added while running sleeps under the rules of a unit of
 *        the start (pcsim/station_sleep.h): falls asleep on the tick the
 *        rule gives, wakes on a command to it, keeps its own
 *        instrumentation running while asleep, and a save made while it
 *        sleeps loads asleep and runs on to the uninterrupted run's hash.
 *
 * The station: u1 at full power built at the start, u2 ("build": "later",
 * 3.411e9 W nominal) added at tick 20, scrammed at tick 40; sleep options
 * tolerance 1e-2 /s, window 1 s (20 ticks), wake every 5 s: a fast
 * sleeper, since these checks need u2 asleep and awake, not accuracy (the
 * accuracy is test_sleep.c's and test_sleep_default.c's).
 *
 * Its checks are static functions, run in groups by the Tests at the end of
 * the file, one process a group (issue 19's test cost); each group's comment
 * lists what it checks.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcsim/pcsim.h"

#define SA_TOL 1e-2
#define SA_WINDOW 20u /* ticks: window_s 1 at dt 0.05 */
#define SA_ADD_TICK 20
#define SA_SCRAM_TICK 40
#define SA_DOC                                                                                     \
    "{\"schema\": 1, \"units\": [{\"name\": \"u1\"}, {\"name\": \"u2\", \"build\": \"later\", "    \
    "\"nominal_power_w\": 3.411e9}], \"sleep\": {\"tolerance_per_s\": 1e-2, \"window_s\": 1, "     \
    "\"wake_every_s\": 5}}"

typedef struct sa {
    pcs_scenario *scn;
    pcs_world *w;
    pcs_station *st;
    pcs_exec *pool;
} sa;

static void sa_build(sa *f)
{
    memset(f, 0, sizeof *f);
    cr_assert_eq(
        pcs_scenario_load_string("sleep-added.json", SA_DOC, strlen(SA_DOC), NULL, &f->scn), PCS_OK,
        "%s", pcs_last_error());
    pcs_world_def cfg = pcs_scenario_world_def(f->scn);
    cfg.workers = 0;
    cfg.check_access = 1; /* the re-registered systems' declared access is checked */
    cr_assert_eq(pcs_world_create(&cfg, &f->w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_station_add(f->w, f->scn, &f->st), PCS_OK, "%s", pcs_last_error());
}

static void sa_free(sa *f)
{
    pcs_station_destroy(f->st);
    pcs_world_destroy(f->w);
    pcs_exec_destroy(f->pool);
    pcs_scenario_destroy(f->scn);
}

/* 2 workers, and parallel unit sections (rebuilt at the add's commit). */
static void sa_parallel(sa *f)
{
    pcs_exec_def ec;
    pcs_exec_default(&ec);
    ec.workers = 2;
    ec.allow_oversubscribe = true;
    cr_assert_eq(pcs_exec_create(&ec, &f->pool), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_exec_attach(f->pool, f->w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_set_parallel_units(f->w, 1), PCS_OK, "%s", pcs_last_error());
}

static uint64_t sa_now(const sa *f)
{
    return pcs_world_clock(f->w)->tick;
}

static void sa_command(sa *f, const char *target, const char *name)
{
    pcs_command c;
    cr_assert_eq(pcs_station_command(f->st, target, name, 0.0, &c), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_command_submit(f->w, &c), PCS_OK, "%s", pcs_last_error());
}

/* One tick, with the script of the file comment. */
static void sa_tick(sa *f)
{
    if (sa_now(f) == SA_ADD_TICK)
        sa_command(f, "u2", "unit_add");
    if (sa_now(f) == SA_SCRAM_TICK)
        sa_command(f, "u2", "scram");
    cr_assert_eq(pcs_world_tick(f->w), PCS_OK, "tick %llu: %s", (unsigned long long)sa_now(f),
                 pcs_last_error());
}

static double sa_channel(sa *f, const char *name)
{
    uint32_t id;
    cr_assert_eq(pcs_channel_find(f->w, name, &id), PCS_OK, "%s: %s", name, pcs_last_error());
    return pcs_channel_value(f->w, id);
}

/* The phase of u2's xenon job (registered at the add). */
static uint32_t sa_xe_phase(sa *f)
{
    for (uint32_t j = 0; j < pcs_schedule_job_count(f->w); j++) {
        pcs_schedule_job job;
        cr_assert_eq(pcs_schedule_job_at(f->w, j, &job), PCS_OK);
        if (strcmp(job.name, "u2.xenon") == 0)
            return job.phase;
    }
    cr_assert_fail("no job u2.xenon");
    return 0;
}

/* The rule of station_sleep.h, recomputed from u2's channels after each
 * tick: the tripped unit's largest normalised rate (power / 3.411e9 W,
 * Tavg / 100 K, RCS pressure / 10 MPa; boundary SGs, no steam header) below
 * SA_TOL on SA_WINDOW consecutive ticks with its trip input unchanged, and
 * the next tick a due tick of its xenon job. */
typedef struct sa_rule {
    double prev[3];
    double trip;
    uint32_t quiet;
} sa_rule;

static int sa_rule_step(sa *f, sa_rule *r, uint64_t tick, uint32_t phase)
{
    static const char *const keys[3] = {"u2.core.power", "u2.rcs.t_avg", "u2.rcs.pressure"};
    static const double refs[3] = {3.411e9, 100.0, 1e7};
    double rate = 0.0;
    for (int k = 0; k < 3; k++) {
        double x = sa_channel(f, keys[k]);
        rate = fmax(rate, fabs(x - r->prev[k]) / 0.05 / refs[k]);
        r->prev[k] = x;
    }
    double trip = sa_channel(f, "u2.core.trip");
    int tripped = ((uint32_t)sa_channel(f, "u2.core.flags") & PCS_UNIT_FLAG_SCRAMMED) != 0;
    r->quiet = tripped && rate < SA_TOL && trip == r->trip ? r->quiet + 1 : 0;
    r->trip = trip;
    return r->quiet >= SA_WINDOW && (tick + 1) % 20 == phase % 20;
}

/* Run until u2 falls asleep (checking the rule every tick): returns the
 * first tick u2 is asleep at. */
static uint64_t sa_until_asleep(sa *f, uint64_t limit)
{
    while (sa_now(f) <= SA_ADD_TICK)
        sa_tick(f);
    cr_assert_eq(pcs_station_unit_count(f->st), 2u, "u2 added");
    uint32_t phase = sa_xe_phase(f);
    sa_rule r = {{0}, 0.0, 0};
    while (sa_now(f) < limit) {
        uint64_t t = sa_now(f);
        sa_tick(f);
        int due = sa_rule_step(f, &r, t, phase);
        cr_assert_eq(pcs_station_unit_asleep(f->st, 2), due,
                     "tick %llu: u2 asleep %d, the rule says %d (quiet %u ticks)",
                     (unsigned long long)t, pcs_station_unit_asleep(f->st, 2), due, r.quiet);
        cr_assert_eq(pcs_station_unit_asleep(f->st, 1), 0, "u1 at power never sleeps");
        if (due)
            return sa_now(f);
    }
    cr_assert_fail("u2 not asleep by tick %llu", (unsigned long long)limit);
    return 0;
}

/* Bytes of every STATE store whose name starts with @p prefix (malloc'd). */
static unsigned char *sa_state(sa *f, const char *prefix, int instruments, size_t *len)
{
    size_t total = 0, n = strlen(prefix);
    uint32_t ns = pcs_store_count(f->w);
    unsigned char *all = NULL;
    for (int pass = 0; pass < 2; pass++) {
        size_t at = 0;
        for (uint32_t id = 0; id < ns; id++) {
            const char *name = pcs_store_name(f->w, id);
            int instr = strncmp(name + n, "sensors.", 8) == 0 ||
                        strncmp(name + n, "rps.", 4) == 0 || strncmp(name + n, "alarms.", 7) == 0;
            if (strncmp(name, prefix, n) != 0 || pcs_store_kind_of(f->w, id) != PCS_STORE_STATE ||
                instr != instruments)
                continue;
            if (pass == 1)
                memcpy(all + at, pcs_store_data(f->w, id), pcs_store_bytes(f->w, id));
            at += pcs_store_bytes(f->w, id);
        }
        total = at;
        if (pass == 0)
            all = malloc(total ? total : 1);
        cr_assert(all != NULL);
    }
    *len = total;
    return all;
}

/* u2 falls asleep on the tick the rule gives, its model state is held and
 * its own instrumentation keeps running, and a command to it wakes it in
 * the tick it is applied. */
static void added_unit_sleeps_by_the_rule_and_wakes_on_a_command(void)
{
    sa f;
    sa_build(&f);
    cr_assert_eq(pcs_station_unit_asleep(f.st, 2), 0);
    pcs_station_sleep_stats s;
    cr_expect_eq(pcs_station_sleep_stats_get(f.st, 2, &s), PCS_E_INVAL, "u2 not built yet");
    uint64_t t0 = sa_until_asleep(&f, 3000);
    cr_expect_gt(t0, SA_SCRAM_TICK + SA_WINDOW, "not before a window after the scram");
    cr_expect_eq(sa_channel(&f, "u2.asleep"), 1.0);
    sa_tick(&f); /* the xenon run in flight merges at t0 */
    size_t n0, n1, i0, i1;
    unsigned char *model0 = sa_state(&f, "u2.", 0, &n0), *instr0 = sa_state(&f, "u2.", 1, &i0);
    for (int i = 0; i < 60; i++) /* 3 s < wake_every 5 s */
        sa_tick(&f);
    unsigned char *model1 = sa_state(&f, "u2.", 0, &n1), *instr1 = sa_state(&f, "u2.", 1, &i1);
    cr_assert_eq(n0, n1);
    cr_assert_eq(i0, i1);
    cr_assert_gt(i0, 0u, "u2 has its own sensor, protection and alarm stores");
    cr_expect_eq(memcmp(model0, model1, n0), 0, "u2's model state moved while asleep");
    cr_expect_neq(memcmp(instr0, instr1, i0), 0,
                  "u2's own instrumentation (sensor noise and lags) keeps running while it "
                  "sleeps, as the station-wide banks do for a unit of the start");
    free(model0), free(model1), free(instr0), free(instr1);
    cr_assert_eq(pcs_station_unit_asleep(f.st, 2), 1);
    cr_assert_eq(pcs_station_sleep_stats_get(f.st, 2, &s), PCS_OK);
    cr_expect_eq(s.sleeps, 1u);
    cr_expect_eq(s.ticks_asleep, 61u);
    sa_command(&f, "u2", "scram");
    sa_tick(&f);
    cr_expect_eq(pcs_station_unit_asleep(f.st, 2), 0, "a command to u2 wakes it");
    cr_assert_eq(pcs_station_sleep_stats_get(f.st, 2, &s), PCS_OK);
    cr_expect_eq(s.wakes_command, 1u);
    cr_expect_eq(s.wakes_every, 0u);
    cr_expect_eq(s.ticks_asleep, 61u, "the command's tick is stepped, as with sleep off");
    cr_assert_eq(pcs_station_sleep_stats_get(f.st, 1, &s), PCS_OK);
    cr_expect_eq(s.sleeps, 0u);
    sa_free(&f);
}

/* A save made while u2 sleeps loads (the structure log re-adds u2, its
 * gate and held store, before the stores are restored) asleep, and the
 * loaded world runs through a command wake and a periodic wake to the
 * uninterrupted run's hash. */
static void save_while_added_unit_sleeps_loads_to_the_same_hash(void)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/pcsim-sleep-added-%d.save", (int)getpid());
    sa a, b;
    sa_build(&a);
    uint64_t t0 = sa_until_asleep(&a, 3000);
    for (int i = 0; i < 30; i++)
        sa_tick(&a);
    cr_assert_eq(pcs_world_save(a.w, path), PCS_OK, "%s", pcs_last_error());
    sa_build(&b);
    cr_assert_eq(pcs_world_load(b.w, path), PCS_OK, "%s", pcs_last_error());
    remove(path);
    cr_assert_eq(pcs_station_unit_count(b.st), 2u, "the load re-added u2");
    cr_expect_eq(pcs_world_state_hash(b.w), pcs_world_state_hash(a.w));
    cr_expect_eq(pcs_station_unit_asleep(b.st, 2), 1, "loaded asleep");
    pcs_station_sleep_stats sa_s, sb_s;
    cr_assert_eq(pcs_station_sleep_stats_get(b.st, 2, &sb_s), PCS_OK);
    cr_expect_eq(sb_s.ticks_asleep, 30u);
    for (int i = 0; i < 20; i++) {
        sa_tick(&a);
        sa_tick(&b);
    }
    sa_command(&a, "u2", "scram");
    sa_command(&b, "u2", "scram");
    sa_tick(&a);
    sa_tick(&b);
    cr_expect_eq(pcs_station_unit_asleep(b.st, 2), 0, "the loaded sleeper wakes on a command");
    while (sa_now(&a) < t0 + 600) { /* asleep again, then woken every 5 s */
        sa_tick(&a);
        sa_tick(&b);
    }
    cr_assert_eq(pcs_station_sleep_stats_get(a.st, 2, &sa_s), PCS_OK);
    cr_assert_eq(pcs_station_sleep_stats_get(b.st, 2, &sb_s), PCS_OK);
    cr_expect_geq(sa_s.sleeps, 2u, "u2 slept again after the command");
    cr_expect_geq(sa_s.wakes_every, 1u, "and woke on its period");
    cr_expect_eq(memcmp(&sa_s, &sb_s, sizeof sa_s), 0, "the same sleeps and wakes");
    cr_expect_eq(pcs_world_state_hash(b.w), pcs_world_state_hash(a.w),
                 "uninterrupted %016llx, saved and loaded %016llx",
                 (unsigned long long)pcs_world_state_hash(a.w),
                 (unsigned long long)pcs_world_state_hash(b.w));
    sa_free(&a);
    sa_free(&b);
}

/* The added unit's sleeps and wakes, and so the hash, are the same with 0
 * workers and with 2 workers and parallel unit sections. */
static void same_hash_for_workers_and_parallel_sections(void)
{
    sa a, b;
    sa_build(&a);
    sa_build(&b);
    sa_parallel(&b);
    while (sa_now(&a) < 700) { /* u2 asleep at 360, woken every 5 s */
        sa_tick(&a);
        sa_tick(&b);
    }
    pcs_station_sleep_stats s;
    cr_assert_eq(pcs_station_sleep_stats_get(b.st, 2, &s), PCS_OK);
    cr_expect_geq(s.sleeps, 2u, "u2 slept");
    cr_expect_geq(s.wakes_every, 1u, "and woke on its period");
    cr_expect_eq(pcs_world_state_hash(a.w), pcs_world_state_hash(b.w),
                 "0 workers %016llx, 2 workers with parallel sections %016llx",
                 (unsigned long long)pcs_world_state_hash(a.w),
                 (unsigned long long)pcs_world_state_hash(b.w));
    sa_free(&a);
    sa_free(&b);
}

/* Issue 19's budget: Criterion runs every Test in its own process, and under
 * ASan a process costs ~0.2 s before it checks anything, so the checks above
 * run grouped, one process per behaviour, in the order listed. Each keeps its
 * own assertions and messages; a failure names the check's line. */

/* An added unit sleeps by the rule and wakes on a command, loads asleep to the same hash, and
 * hashes alike with workers and parallel sections. */
Test(sleep_added, an_added_unit_sleeps_wakes_saves_and_hashes_alike)
{
    added_unit_sleeps_by_the_rule_and_wakes_on_a_command();
    save_while_added_unit_sleeps_loads_to_the_same_hash();
    same_hash_for_workers_and_parallel_sections();
}
