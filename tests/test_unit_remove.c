/**
 * @file test_unit_remove.c
 * @brief A running unit removed by the structural command unit_remove
 *        (station/station_unit_remove.c, issue 19).
 *
 * The station: three 2-loop boundary units (the smallest where a middle
 * unit goes and two stay), with a "freeze" section so the same station can
 * freeze u2 instead. Checks:
 *  - every u2 record goes: its channels, systems, job, command targets and
 *    entities, by name and by the old id or handle, each failing with
 *    PCS_E_NOTFOUND naming it; its stores stay with their last values;
 *  - the other units are unaffected, argued and asserted byte for byte:
 *    the units share no system but the start's sensor, protection and
 *    alarm banks, which keep evaluating u2's rows on its held stores exactly
 *    as they do for a frozen unit, so a run where u2 is removed at the end
 *    of tick T and one where u2 is frozen between T and T + 1 have every
 *    store equal except the freeze flags themselves;
 *  - 0, 1 and 2 workers give one hash; a save after the removal loads into
 *    a station built from the scenario with the same hash (the structure
 *    log re-applies the removal) and both run on equal; a journal of a run
 *    with the removal replays to its recorded hash;
 *  - stage 1 refuses an unknown unit, a unit not built, a second removal in
 *    one tick, a removed unit and the last running unit, and every other
 *    path (pump commands, freeze, unit_add) names the removal.
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
#include <time.h>
#include <unistd.h>

#include "pcsim/pcsim.h"

#define UR_UNIT(n) "{\"name\": \"u" #n "\", \"loops\": 2}"
#define UR_DOC                                                                                     \
    "{\"schema\": 1, \"world\": {\"seed\": 11}, \"freeze\": {}, \"units\": [" UR_UNIT(             \
        1) ", " UR_UNIT(2) ", " UR_UNIT(3) "]}"
/* Two at the start and a later one, for the refusals. */
#define UR_LATER                                                                                   \
    "{\"schema\": 1, \"world\": {\"seed\": 11}, \"freeze\": {}, \"units\": [" UR_UNIT(             \
        1) ", " UR_UNIT(2) ", {\"name\": \"u3\", \"loops\": 2, \"build\": \"later\"}]}"
#define UR_ONE "{\"schema\": 1, \"world\": {\"seed\": 11}, \"units\": [" UR_UNIT(1) "]}"
#define REMOVE_TICK 10u

typedef struct ur {
    pcs_scenario *scn;
    pcs_world *w;
    pcs_station *st;
    pcs_exec *pool;
} ur;

static void ur_build(ur *u, const char *doc, int workers)
{
    memset(u, 0, sizeof *u);
    cr_assert_eq(pcs_scenario_load_string("unit_remove.json", doc, strlen(doc), NULL, &u->scn),
                 PCS_OK, "%s", pcs_last_error());
    pcs_world_def cfg = pcs_scenario_world_def(u->scn);
    cfg.workers = 0;
    cr_assert_eq(pcs_world_create(&cfg, &u->w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_station_add(u->w, u->scn, &u->st), PCS_OK, "%s", pcs_last_error());
    if (workers > 0) {
        pcs_exec_def ec;
        pcs_exec_default(&ec);
        ec.workers = (uint32_t)workers;
        ec.allow_oversubscribe = true;
        cr_assert_eq(pcs_exec_create(&ec, &u->pool), PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(pcs_exec_attach(u->pool, u->w), PCS_OK, "%s", pcs_last_error());
    }
}

static void ur_free(ur *u)
{
    pcs_station_destroy(u->st);
    pcs_world_destroy(u->w);
    pcs_exec_destroy(u->pool);
    pcs_scenario_destroy(u->scn);
}

static void ur_ticks(ur *u, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(pcs_world_tick(u->w), PCS_OK, "%s", pcs_last_error());
}

/* One tick, timed (the removal's cost, logged for bench/README.md). */
static double ur_timed_tick(ur *u)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    ur_ticks(u, 1);
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
}

static void ur_command(ur *u, const char *target, const char *command)
{
    pcs_command c;
    cr_assert_eq(pcs_station_command(u->st, target, command, 0.0, &c), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_command_submit(u->w, &c), PCS_OK, "%s", pcs_last_error());
}

static double ur_channel(const ur *u, const char *name)
{
    uint32_t id;
    cr_assert_eq(pcs_channel_find(u->w, name, &id), PCS_OK, "%s: %s", name, pcs_last_error());
    return pcs_channel_value(u->w, id);
}

static void expect_stores_equal(const ur *a, const ur *b, uint32_t tick, int state_only);

/* Records whose names start with "u2." (or are "u2"), live now. */
typedef struct u2_records {
    uint32_t systems, channels, targets;
} u2_records;

static int is_u2(const char *name)
{
    return strncmp(name, "u2.", 3) == 0 || strcmp(name, "u2") == 0;
}

static u2_records count_u2(const pcs_world *w)
{
    u2_records r = {0};
    for (uint32_t i = 0; i < pcs_schedule_system_count(w); i++) {
        pcs_schedule_system s;
        cr_assert_eq(pcs_schedule_system_at(w, i, &s), PCS_OK);
        r.systems += (uint32_t)is_u2(s.name);
    }
    for (uint32_t id = 0; id < pcs_channel_count(w); id++) {
        pcs_channel_info info;
        if (pcs_channel_live(w, id) && pcs_channel_get(w, id, &info) == PCS_OK)
            r.channels += (uint32_t)is_u2(info.name);
    }
    uint32_t cursor = 0;
    pcs_target_id t;
    while (pcs_command_target_next(w, &cursor, &t))
        r.targets += (uint32_t)is_u2(pcs_command_target_name(w, t));
    return r;
}

/* Exactly one PCS_EV_STATION_UNIT_REMOVE in the last tick, its text. */
static void expect_remove_event(const ur *u, const char *want)
{
    uint32_t n = 0, seen = 0;
    const pcs_event *ev = pcs_world_events(u->w, &n);
    for (uint32_t i = 0; i < n; i++)
        if (ev[i].kind == PCS_EV_STATION_UNIT_REMOVE) {
            char text[256];
            cr_assert(pcs_event_describe(u->st, &ev[i], text, sizeof text));
            cr_expect_str_eq(text, want);
            seen++;
        }
    cr_assert_eq(seen, 1, "one PCS_EV_STATION_UNIT_REMOVE");
}

static void expect_error(pcs_status got, pcs_status want, const char *text)
{
    cr_assert_eq(got, want, "status %d, want %d: %s", (int)got, (int)want, pcs_last_error());
    cr_expect(strstr(pcs_last_error(), text), "'%s' does not say '%s'", pcs_last_error(), text);
}

static void every_record_of_the_unit_goes(void)
{
    ur a;
    ur_build(&a, UR_DOC, 0);
    ur_ticks(&a, REMOVE_TICK - 2);
    u2_records before = count_u2(a.w);
    cr_log_info("u2 before its removal: %u systems, %u channels, %u targets", before.systems,
                before.channels, before.targets);
    cr_assert_gt(before.systems, 5, "u2 has its plant systems (%u)", before.systems);
    cr_assert_gt(before.channels, 20);
    cr_assert_gt(before.targets, 3);
    uint32_t power_id, kind, n_systems = pcs_schedule_system_count(a.w);
    uint32_t n_entities = pcs_entity_count(a.w);
    cr_assert_eq(pcs_channel_find(a.w, "u2.core.power", &power_id), PCS_OK);
    pcs_target_id unit_target, pump_target;
    cr_assert_eq(pcs_command_target_find(a.w, "u2", &unit_target), PCS_OK);
    cr_assert_eq(pcs_command_target_find(a.w, "u2.pump1", &pump_target), PCS_OK);
    pcs_entity_handle unit_h, sensor_h;
    cr_assert_eq(pcs_entity_find(a.w, "u2", &unit_h), PCS_OK);
    cr_assert_eq(pcs_entity_find(a.w, "u2.nis.power.A", &sensor_h), PCS_OK);
    uint32_t power_store, power_index;
    const pcs_plant_unit *pu = pcs_plant_unit_get(pcs_station_plant(a.st), 1);
    cr_assert_eq(pcs_unit_power_ref(pu->core, &power_store, &power_index), PCS_OK);
    uint64_t layout = pcs_world_layout_version(a.w);

    double plain = ur_timed_tick(&a);
    ur_command(&a, "u2", "unit_remove");
    double removal = ur_timed_tick(&a);
    cr_log_info("unit_remove: the removal's tick took %.1f us, the tick before %.1f us",
                1e6 * removal, 1e6 * plain);
    double p = ((const double *)pcs_store_data(a.w, power_store))[power_index];
    char want[256];
    snprintf(want, sizeof want,
             "u2 unit_remove: removed at the end of this tick at %.1f MW (%.0f %%; units still "
             "running: 2; its systems stop, its state is kept)",
             p / 1e6, 100.0 * p / (2.0 * 3.411e9 / 4.0));
    expect_remove_event(&a, want);
    cr_assert_eq(pcs_structure_log_count(a.w), 1);
    cr_assert_eq(pcs_world_layout_version(a.w), layout + 1, "the channel set changed once");
    cr_assert_eq(pcs_station_unit_running(a.st, 2), 0);
    cr_assert_eq(pcs_station_unit_running(a.st, 1), 1);
    cr_assert_eq(pcs_station_unit_running(a.st, 3), 1);
    cr_assert_eq(pcs_station_unit_count(a.st), 3, "the numbers stay: u3 is still u3");

    /* nothing of u2 is live: not in the schedule, the channels, the targets */
    u2_records after = count_u2(a.w);
    cr_assert_eq(after.systems, 0);
    cr_assert_eq(after.channels, 0);
    cr_assert_eq(after.targets, 0);
    cr_assert_eq(pcs_schedule_system_count(a.w), n_systems - before.systems);
    /* the entities of its targets went with them (unit, pumps, sensors,
     * alarms: every target but the trip functions and the rod bank has one) */
    cr_assert_lt(pcs_entity_count(a.w), n_entities);

    /* by name and by old id or handle: a clear NOTFOUND naming it */
    uint32_t id;
    expect_error(pcs_channel_find(a.w, "u2.core.power", &id), PCS_E_NOTFOUND, "u2.core.power");
    pcs_channel_info info;
    char text[128];
    snprintf(text, sizeof text, "channel %u 'u2.core.power' was retired at tick %u", power_id,
             REMOVE_TICK - 1);
    expect_error(pcs_channel_get(a.w, power_id, &info), PCS_E_NOTFOUND, text);
    cr_assert(isnan(pcs_channel_value(a.w, power_id)));
    expect_error(pcs_command_target_find(a.w, "u2.pump1", &pump_target), PCS_E_NOTFOUND,
                 "u2.pump1");
    cr_assert_eq(pcs_station_command_kind(a.st, "pump_trip", &kind), PCS_OK);
    cr_assert_eq(pcs_command_target_check(a.w, unit_target, kind), PCS_E_NOTFOUND);
    cr_assert_null(pcs_command_target_name(a.w, unit_target));
    expect_error(pcs_entity_check(a.w, unit_h), PCS_E_NOTFOUND, "handle");
    expect_error(pcs_entity_check(a.w, sensor_h), PCS_E_NOTFOUND, "handle");
    pcs_entity_handle h;
    expect_error(pcs_entity_find(a.w, "u2.nis.power.A", &h), PCS_E_NOTFOUND, "u2.nis.power.A");
    pcs_command c;
    expect_error(pcs_station_command(a.st, "u2.pump1", "pump_trip", 0.0, &c), PCS_E_NOTFOUND,
                 "'u2.pump1': u2 was removed (unit_remove)");

    /* the stores stay, held: u2's power does not move while u1's steps */
    ur_ticks(&a, 20);
    cr_assert_eq(((const double *)pcs_store_data(a.w, power_store))[power_index], p);
    cr_assert_gt(ur_channel(&a, "u1.core.power"), 0.9 * 2.0 * 3.411e9 / 4.0);
    cr_assert_gt(ur_channel(&a, "u3.core.power"), 0.9 * 2.0 * 3.411e9 / 4.0);
    ur_free(&a);
}

/* Every store (or every STATE store: a load restores only those) but the
 * freeze flags, byte for byte. */
static void expect_stores_equal(const ur *a, const ur *b, uint32_t tick, int state_only)
{
    uint32_t n = pcs_store_count(a->w), compared = 0;
    cr_assert_eq(n, pcs_store_count(b->w));
    for (uint32_t s = 0; s < n; s++) {
        const char *name = pcs_store_name(a->w, s);
        cr_assert_str_eq(name, pcs_store_name(b->w, s));
        if (strncmp(name, "station.frozen", 14) == 0)
            continue; /* b's own flag: u2 frozen */
        if (state_only && pcs_store_kind_of(a->w, s) != PCS_STORE_STATE)
            continue;
        if (!state_only && (strncmp(name, "sensors.", 8) == 0 || strncmp(name, "rps.", 4) == 0 ||
                            strncmp(name, "alarms.", 7) == 0))
            continue; /* shared banks: u2's rows held in a, tracking in b (channels below) */
        size_t bytes = pcs_store_bytes(a->w, s);
        cr_assert_eq(bytes, pcs_store_bytes(b->w, s));
        cr_assert_eq(memcmp(pcs_store_data((pcs_world *)a->w, s),
                            pcs_store_data((pcs_world *)b->w, s), bytes),
                     0, "store '%s' differs at tick %u", name, tick);
        compared++;
    }
    cr_assert_gt(compared, 50);
}

/* Every live channel of a that is not u2's reads the same in b, bit for
 * bit: the shared banks' rows of u1 and u3 among them. */
static void expect_channels_equal(const ur *a, const ur *b)
{
    uint32_t compared = 0;
    for (uint32_t id = 0; id < pcs_channel_count(a->w); id++) {
        pcs_channel_info info;
        uint32_t other;
        if (!pcs_channel_live(a->w, id) || pcs_channel_get(a->w, id, &info) != PCS_OK ||
            is_u2(info.name))
            continue;
        cr_assert_eq(pcs_channel_find(b->w, info.name, &other), PCS_OK, "%s", info.name);
        double x = pcs_channel_value(a->w, id), y = pcs_channel_value(b->w, other);
        cr_assert(memcmp(&x, &y, sizeof x) == 0, "channel '%s': %.17g vs %.17g", info.name, x, y);
        compared++;
    }
    cr_assert_gt(compared, 100);
}

/* Removed at the end of tick T, or frozen between T and T + 1: the same
 * world for every unit that runs on. Every store but the shared banks' and
 * the freeze flags is equal (u2's own held stores included); the banks'
 * rows of u1 and u3 are equal through their channels; u2's sensor rows
 * differ (held in a, still sampling u2's held stores in b). */
static void others_run_as_if_the_unit_were_frozen(void)
{
    ur a, b;
    ur_build(&a, UR_DOC, 0);
    ur_build(&b, UR_DOC, 0);
    ur_ticks(&a, REMOVE_TICK - 1), ur_ticks(&b, REMOVE_TICK - 1);
    ur_command(&a, "u2", "unit_remove");
    ur_ticks(&a, 1), ur_ticks(&b, 1);
    cr_assert_eq(pcs_station_freeze(b.st, 2), PCS_OK, "%s", pcs_last_error());
    for (uint32_t t = REMOVE_TICK + 1; t <= REMOVE_TICK + 60; t++) {
        ur_ticks(&a, 1), ur_ticks(&b, 1);
        if (t % 20 == 0 || t == REMOVE_TICK + 1) {
            expect_stores_equal(&a, &b, t, 0);
            expect_channels_equal(&a, &b);
        }
    }
    cr_assert_eq(ur_channel(&a, "u1.core.power"), ur_channel(&b, "u1.core.power"));
    cr_assert_eq(ur_channel(&a, "u3.nis.power.C"), ur_channel(&b, "u3.nis.power.C"));
    /* a's u2 sensor is held: its value moves only by its noise (sd 0.002
     * of span), b's tracks u2's held power: both near u2's last power */
    cr_assert_gt(ur_channel(&b, "u2.nis.power.A"), 0.9 * 2.0 * 3.411e9 / 4.0);
    ur_free(&a);
    ur_free(&b);
}

static uint64_t removed_hash(int workers)
{
    ur a;
    ur_build(&a, UR_DOC, workers);
    ur_ticks(&a, 3);
    ur_command(&a, "u2", "unit_remove");
    ur_ticks(&a, 25); /* past a xenon due tick (20) */
    uint64_t h = pcs_world_state_hash(a.w);
    ur_free(&a);
    return h;
}

static void same_hash_for_0_1_2_workers(void)
{
    uint64_t h0 = removed_hash(0), h1 = removed_hash(1), h2 = removed_hash(2);
    cr_assert_eq(h0, h1);
    cr_assert_eq(h0, h2);
}

/* A save after the removal loads into a station built from the scenario:
 * the log re-applies the removal, the hash is the saved world's, and both
 * run on equal. */
static void save_after_removal_loads_to_the_same_hash(void)
{
    ur a, c;
    ur_build(&a, UR_DOC, 0);
    ur_ticks(&a, 3);
    ur_command(&a, "u2", "unit_remove");
    ur_ticks(&a, 10);
    char path[] = "/tmp/pcsim_unit_remove_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert_eq(pcs_world_save(a.w, path), PCS_OK, "%s", pcs_last_error());
    ur_build(&c, UR_DOC, 0);
    cr_assert_eq(pcs_world_load(c.w, path), PCS_OK, "%s", pcs_last_error());
    unlink(path);
    cr_assert_eq(pcs_station_unit_running(c.st, 2), 0, "the load re-applied unit_remove");
    cr_assert_eq(count_u2(c.w).channels, 0);
    expect_stores_equal(&a, &c, 13, 1);
    cr_assert_eq(pcs_entity_count(c.w), pcs_entity_count(a.w));
    cr_assert_eq(pcs_world_state_hash(c.w), pcs_world_state_hash(a.w));
    ur_ticks(&a, 25), ur_ticks(&c, 25);
    cr_assert_eq(pcs_world_state_hash(c.w), pcs_world_state_hash(a.w));
    cr_assert_eq(ur_channel(&c, "u3.core.power"), ur_channel(&a, "u3.core.power"));
    ur_free(&a);
    ur_free(&c);
}

static void journal_replays_the_removal(void)
{
    char path[] = "/tmp/pcsim_unit_remove_journal_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    ur a;
    ur_build(&a, UR_DOC, 0);
    pcs_journal_writer *jw = NULL;
    cr_assert_eq(pcs_journal_writer_open(path, a.st, a.scn, &jw), PCS_OK, "%s", pcs_last_error());
    pcs_command_source *src = NULL;
    cr_assert_eq(pcs_command_source_open(a.w, 2, 1, 8, &src), PCS_OK, "%s", pcs_last_error());
    for (uint32_t t = 1; t <= 30; t++) {
        pcs_command c;
        if (t == 4) {
            cr_assert_eq(pcs_station_command(a.st, "u2", "unit_remove", 0.0, &c), PCS_OK);
            cr_assert_eq(pcs_command_source_submit(src, &c), PCS_OK, "%s", pcs_last_error());
        }
        ur_ticks(&a, 1);
        cr_assert_eq(pcs_journal_writer_drain(jw), PCS_OK, "%s", pcs_last_error());
    }
    cr_assert_eq(pcs_journal_writer_end(jw), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_journal_writer_close(jw, 1), PCS_OK, "%s", pcs_last_error());
    uint64_t want = pcs_world_state_hash(a.w);
    ur_free(&a);

    pcs_journal_file *j = NULL;
    cr_assert_eq(pcs_journal_file_load(path, &j), PCS_OK, "%s", pcs_last_error());
    unlink(path);
    ur b;
    ur_build(&b, UR_DOC, 0);
    pcs_replay_result r;
    cr_assert_eq(pcs_replay(b.st, j, NULL, &r), PCS_OK, "%s", pcs_last_error());
    cr_assert(r.completed);
    cr_assert_eq(r.final_hash, want);
    cr_assert_eq(pcs_station_unit_running(b.st, 2), 0);
    pcs_journal_file_destroy(j);
    ur_free(&b);
}

/* Submit @p c, tick, and expect its rejection with @p status and the
 * check's message (the check is the last to set one in the tick). */
static void expect_rejected(ur *u, const pcs_command *c, pcs_status status, const char *text)
{
    cr_assert_eq(pcs_command_submit(u->w, c), PCS_OK, "%s", pcs_last_error());
    uint64_t log = pcs_structure_log_count(u->w);
    ur_ticks(u, 1);
    uint32_t n = 0, rejected = 0;
    const pcs_event *ev = pcs_world_events(u->w, &n);
    for (uint32_t i = 0; i < n; i++)
        if (ev[i].kind == PCS_EV_COMMAND_REJECTED) {
            cr_assert_eq((pcs_status)(int)ev[i].values[3], status);
            rejected++;
        }
    cr_assert_eq(rejected, 1);
    cr_assert_eq(pcs_structure_log_count(u->w), log, "nothing applied");
    cr_expect(strstr(pcs_last_error(), text), "'%s' does not say '%s'", pcs_last_error(), text);
}

static void stage_1_refusals_name_the_unit_and_its_state(void)
{
    ur a;
    ur_build(&a, UR_LATER, 0);
    pcs_command c, rm2;
    const char *src = "unit_remove.json";
    /* resolve: not a unit of the scenario */
    expect_error(pcs_station_command(a.st, "u4", "unit_remove", 0.0, &c), PCS_E_NOTFOUND,
                 "unit_remove of 'u4': not a unit of the scenario (allowed: u1..u3)");
    expect_error(pcs_station_command(a.st, "u1.pump1", "unit_remove", 0.0, &c), PCS_E_NOTFOUND,
                 "unit_remove of 'u1.pump1': not a unit");
    ur_ticks(&a, 1);
    /* a crafted unit number: the check names the scenario's range */
    cr_assert_eq(pcs_station_command(a.st, "u3", "unit_remove", 0.0, &c), PCS_OK);
    c.args[0] = 7;
    expect_rejected(&a, &c, PCS_E_NOTFOUND,
                    "unit_remove: no unit 7 in the scenario (units u1..u3)");
    c.args[0] = 3;
    expect_rejected(&a, &c, PCS_E_STATE, "unit_remove u3: the unit is not built");
    /* two removals of u2 in one tick: the second is refused */
    cr_assert_eq(pcs_station_command(a.st, "u2", "unit_remove", 0.0, &rm2), PCS_OK);
    cr_assert_eq(pcs_command_submit(a.w, &rm2), PCS_OK);
    cr_assert_eq(pcs_command_submit(a.w, &rm2), PCS_OK);
    ur_ticks(&a, 1);
    uint32_t n_ev = 0, rejected = 0;
    const pcs_event *ev = pcs_world_events(a.w, &n_ev);
    for (uint32_t i = 0; i < n_ev; i++)
        rejected += ev[i].kind == PCS_EV_COMMAND_REJECTED;
    cr_assert_eq(rejected, 1, "the second removal of one tick is refused");
    cr_assert_eq(pcs_structure_log_count(a.w), 1);
    cr_assert_eq(pcs_station_unit_running(a.st, 2), 0, "the first removal applied");
    char text[160];
    snprintf(text, sizeof text, "%s: unit_remove u2: the unit was removed at tick 3", src);
    expect_rejected(&a, &rm2, PCS_E_STATE, text);
    cr_assert_eq(pcs_station_command(a.st, "u1", "unit_remove", 0.0, &c), PCS_OK);
    expect_rejected(&a, &c, PCS_E_STATE, "unit_remove u1: the unit is the last running unit");
    /* the other paths name the removal */
    expect_error(pcs_station_freeze(a.st, 2), PCS_E_STATE, "u2 was removed (unit_remove)");
    expect_error(pcs_station_command(a.st, "u2.pump2", "pump_remove", 0.0, &c), PCS_E_NOTFOUND,
                 "u2 was removed (unit_remove)");
    cr_assert_eq(pcs_station_command(a.st, "u3", "unit_add", 0.0, &c), PCS_OK);
    c.args[0] = 2;
    expect_rejected(&a, &c, PCS_E_STATE, "unit_add u2: the unit was removed");
    /* a later unit added after a removal runs: u3 is built, and removable */
    ur_command(&a, "u3", "unit_add");
    ur_ticks(&a, 2);
    cr_assert_eq(pcs_station_unit_running(a.st, 3), 1);
    cr_assert_gt(ur_channel(&a, "u3.core.power"), 0.0);
    ur_command(&a, "u3", "unit_remove");
    ur_ticks(&a, 1);
    cr_assert_eq(pcs_station_unit_running(a.st, 3), 0);
    uint32_t id;
    cr_assert_eq(pcs_channel_find(a.w, "u3.nis.power.A", &id), PCS_E_NOTFOUND,
                 "u3's own bank went with it");
    ur_ticks(&a, 5);
    ur_free(&a);

    /* A station of one unit has no unit_remove at all. */
    ur_build(&a, UR_ONE, 0);
    uint32_t kind;
    expect_error(pcs_station_command_kind(a.st, "unit_remove", &kind), PCS_E_NOTFOUND,
                 "unit_remove of 'u1': the station has fewer than two units (nothing may be "
                 "removed)");
    ur_free(&a);
}

/* The new calls' argument checks, and a held sensor: held in the build
 * phase (before its first sample), its lag stays at its source's build
 * value while its twin's follows the plant (u1's pump tripped). Held after
 * the seal outside a structural apply: refused. */
static void new_calls_check_their_arguments_and_hold_holds(void)
{
    cr_assert_eq(pcs_station_unit_running(NULL, 1), 0);
    uint32_t cursor = 0;
    pcs_target_id t;
    cr_assert_eq(pcs_command_target_next(NULL, &cursor, &t), 0);
    expect_error(pcs_sensor_hold(NULL, NULL, 0), PCS_E_INVAL, "pcs_sensor_hold: NULL argument");
    ur a;
    ur_build(&a, UR_DOC, 0);
    cr_assert_eq(pcs_station_unit_running(a.st, 0), 0);
    cr_assert_eq(pcs_station_unit_running(a.st, 4), 0);
    pcs_sensors *bank = pcs_plant_sensors(pcs_station_plant(a.st));
    uint32_t n = pcs_sensor_count(bank), id, other;
    char want[96];
    snprintf(want, sizeof want, "pcs_sensor_hold: sensor id %u is outside [0, %u)", n, n);
    expect_error(pcs_sensor_hold(a.w, bank, n), PCS_E_NOTFOUND, want);
    cr_assert_eq(pcs_sensor_find(bank, "u1.pzr.pressure.A", &id), PCS_OK);
    cr_assert_eq(pcs_sensor_find(bank, "u1.pzr.pressure.B", &other), PCS_OK);
    cr_assert_eq(pcs_sensor_hold(a.w, bank, id), PCS_OK, "%s", pcs_last_error());
    ur_ticks(&a, 1);
    uint32_t lag_store;
    cr_assert_eq(pcs_store_find(a.w, "sensors.lag", &lag_store), PCS_OK);
    const double *lag = pcs_store_data(a.w, lag_store);
    double held = lag[id], moving = lag[other];
    cr_assert_eq(held, moving, "both start at the build's pressure");
    ur_command(&a, "u1.pump1", "pump_trip"); /* the pressure moves */
    ur_ticks(&a, 40);
    lag = pcs_store_data(a.w, lag_store);
    cr_assert_eq(lag[id], held, "the held sensor's lag stays at %.17g", held);
    cr_assert_neq(lag[other], moving, "its twin's lag follows the pressure (%.17g)", moving);
    expect_error(pcs_sensor_hold(a.w, bank, other), PCS_E_STATE,
                 "only in the build phase or while a structural change is applied");
    ur_free(&a);
}

/* Issue 19's budget: Criterion runs every Test in its own process, and under
 * ASan a process costs ~0.2 s before it checks anything, so the checks above
 * run grouped, one process per behaviour, in the order listed. Each keeps its
 * own assertions and messages; a failure names the check's line. */

/* Every record of the unit goes, the others run as if it were frozen, stage 1 refusals name unit
 * and state, the new calls check their arguments. */
Test(unit_remove, what_a_removal_does_and_refuses)
{
    every_record_of_the_unit_goes();
    others_run_as_if_the_unit_were_frozen();
    stage_1_refusals_name_the_unit_and_its_state();
    new_calls_check_their_arguments_and_hold_holds();
}

/* 0, 1 and 2 workers hash alike; a save after removal loads to the same hash; the journal replays
 * the removal. */
Test(unit_remove, workers_save_load_and_journal)
{
    same_hash_for_0_1_2_workers();
    save_after_removal_loads_to_the_same_hash();
    journal_replays_the_removal();
}
