/**
 * @file test_structure_edges.c
 * @brief Edge cases of structural change (issue 19, session 11): the event
 *        of a change accepted by a failed attempt at a tick, a change whose
 *        own apply failed and the journal, a frozen unit saved and loaded,
 *        and structure_log_capacity set from a scenario.
 *
 * Engine-only worlds for the first two (a store, a system that fails on
 * demand, structural kinds whose check announces the change with an event);
 * stations for the last two.
 *
 * Its checks are static functions, run in groups by the Tests at the end of
 * the file, one process a group (issue 19's test cost); each group's comment
 * lists what it checks.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcsim/pcsim.h"
#include "pcsim/primary.h"

/* ---- engine worlds --------------------------------------------------------- */

enum {
    K_NOTE = 210, /* check emits EV_NOTE (subject args[0]); apply records */
    K_FLAKY,      /* as K_NOTE; apply fails while flaky_fail is set */
    EV_NOTE = PCS_EV_MODEL_BASE + 7,
};

static struct {
    uint32_t a;          /* store: a[0] = the tick (so a retried tick writes the same) */
    int fail_stage;      /* the heat system fails while set */
    int flaky_fail;      /* K_FLAKY's apply fails while set */
    uint32_t applied[8]; /* args[0] of each apply that succeeded */
    uint32_t n_applied;
    uint32_t delivered[8]; /* EV_NOTE subjects the host callback saw, per delivery */
    uint32_t n_delivered;
} ex;

static pcs_status heat(pcs_world *w, void *ctx)
{
    (void)ctx;
    ((double *)pcs_store_data(w, ex.a))[0] = (double)pcs_world_clock(w)->tick;
    return ex.fail_stage ? pcs_error_set(PCS_E_INVAL, "heat failed on purpose") : PCS_OK;
}

static pcs_status note_check(pcs_world *w, void *ctx, const pcs_command *c)
{
    (void)ctx;
    return pcs_event_emit(w, EV_NOTE, (uint32_t)c->args[0], c->args[0], 0, 0, 0);
}

static pcs_status note_apply(pcs_world *w, void *ctx, const pcs_command *c)
{
    (void)w, (void)ctx;
    if (ex.n_applied < 8)
        ex.applied[ex.n_applied++] = (uint32_t)c->args[0];
    return PCS_OK;
}

static pcs_status flaky_apply(pcs_world *w, void *ctx, const pcs_command *c)
{
    if (ex.flaky_fail)
        return pcs_error_set(PCS_E_NOMEM, "no room for flaky %g", c->args[0]);
    return note_apply(w, ctx, c);
}

static void on_events(void *ctx, const pcs_event *ev, uint32_t n)
{
    (void)ctx;
    for (uint32_t i = 0; i < n; i++)
        if (ev[i].kind == EV_NOTE && ex.n_delivered < 8)
            ex.delivered[ex.n_delivered++] = ev[i].subject;
}

static void ex_kind(pcs_world *w, uint32_t k, const char *name, pcs_command_fn apply)
{
    /* Every kind announces its change from its check (note_check). */
    const pcs_structure_kind_def d = {.kind = k, .name = name, .check = note_check, .apply = apply};
    cr_assert_eq(pcs_structure_kind_register(w, &d), PCS_OK, "%s", pcs_last_error());
}

static pcs_world *ex_world(void)
{
    memset(&ex, 0, sizeof ex);
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.workers = 0;
    cfg.structure_log_capacity = 16;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_store_register(w, "a", 8, 1, PCS_STORE_STATE, &ex.a), PCS_OK);
    uint32_t wr[] = {ex.a};
    pcs_system_desc d = {
        .name = "heat", .stage = PCS_STAGE_HEAT, .fn = heat, .writes = wr, .n_writes = 1};
    cr_assert_eq(pcs_system_register(w, &d, NULL), PCS_OK, "%s", pcs_last_error());
    ex_kind(w, K_NOTE, "test.note", note_apply);
    ex_kind(w, K_FLAKY, "test.flaky", flaky_apply);
    cr_assert_eq(pcs_world_set_event_callback(w, on_events, NULL), PCS_OK, "%s", pcs_last_error());
    return w;
}

static void ex_submit(pcs_world *w, uint32_t kind, double arg)
{
    pcs_command c = {.kind = kind, .args = {arg}};
    cr_assert_eq(pcs_command_submit(w, &c), PCS_OK, "%s", pcs_last_error());
}

static void ex_tick(pcs_world *w)
{
    cr_assert_eq(pcs_world_tick(w), PCS_OK, "tick %" PRIu64 ": %s", pcs_world_clock(w)->tick,
                 pcs_last_error());
}

/* EV_NOTE events of subject @p subject in @p ev[0, n). */
static uint32_t notes(const pcs_event *ev, uint32_t n, uint32_t subject)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        k += ev[i].kind == EV_NOTE && ev[i].subject == subject;
    return k;
}

/* A change accepted at stage 1 of an attempt that fails later (stage 4)
 * stays queued and is applied by the retry, as an ordinary command's effect
 * outlives the failed attempt; its event, emitted by the check in the
 * discarded attempt, is emitted again by the retry that succeeds, once, at
 * that tick, and is in the committed (previous) list. */
static void event_of_a_change_accepted_by_a_failed_attempt_is_emitted_once(void)
{
    pcs_world *w = ex_world();
    ex_tick(w);
    ex_submit(w, K_NOTE, 5);
    ex.fail_stage = 1;
    cr_assert_eq(pcs_world_tick(w), PCS_E_INVAL, "the attempt at tick 1 fails at stage 4");
    cr_assert_eq(ex.n_delivered, 0, "a failed attempt before stage 13 delivers nothing");
    ex.fail_stage = 0;
    ex_submit(w, K_NOTE, 6); /* drained by the retry */
    ex_tick(w);
    uint32_t n = 0;
    const pcs_event *ev = pcs_world_events(w, &n);
    cr_expect_eq(notes(ev, n, 5), 1, "the carried change's event, once in the tick that succeeds");
    cr_expect_eq(notes(ev, n, 6), 1);
    for (uint32_t i = 0; i < n; i++)
        if (ev[i].kind == EV_NOTE)
            cr_expect_eq(ev[i].tick, 1, "at the retried tick");
    /* Drain order: the carried change was drained before the retry's. */
    cr_assert_eq(ex.n_delivered, 2);
    cr_expect_eq(ex.delivered[0], 5);
    cr_expect_eq(ex.delivered[1], 6);
    cr_assert_eq(ex.n_applied, 2);
    cr_expect_eq(ex.applied[0], 5, "applied by the retry, in drain order");
    cr_expect_eq(ex.applied[1], 6);
    const pcs_event *prev = pcs_world_events_previous(w, &n);
    cr_expect_eq(notes(prev, n, 5), 1, "the committed list holds it once");
    /* Later ticks do not announce it again. */
    ex_tick(w);
    ev = pcs_world_events(w, &n);
    cr_expect_eq(notes(ev, n, 5), 0);
    pcs_world_destroy(w);
}

/* Two failed attempts in a row: the event still appears once. */
static void event_survives_two_failed_attempts(void)
{
    pcs_world *w = ex_world();
    ex_submit(w, K_NOTE, 3);
    ex.fail_stage = 1;
    cr_assert_eq(pcs_world_tick(w), PCS_E_INVAL);
    cr_assert_eq(pcs_world_tick(w), PCS_E_INVAL);
    ex.fail_stage = 0;
    ex_tick(w);
    uint32_t n = 0;
    const pcs_event *ev = pcs_world_events(w, &n);
    cr_expect_eq(notes(ev, n, 3), 1);
    cr_expect_eq(ex.n_delivered, 1);
    cr_expect_eq(pcs_structure_log_count(w), 1);
    pcs_world_destroy(w);
}

/* The journal of a world: every entry, from index 0. */
static uint32_t journal_all(const pcs_world *w, pcs_command *out, uint32_t max)
{
    uint64_t cursor = 0;
    return pcs_journal_read(w, &cursor, out, max, NULL);
}

/* A live run where one change's apply fails (and the tick is retried), and
 * a replay of its journal into a fresh world: the journal holds what was
 * applied, so the replay logs the same changes and ends on the same hash.
 * (The world's one system writes a function of the tick, so running the
 * failed attempt's stages again leaves the state a single run has.) */
static void failed_apply_leaves_the_journal_and_replay_matches(void)
{
    pcs_world *live = ex_world();
    ex_tick(live);
    ex_tick(live);
    ex_submit(live, K_NOTE, 1);
    ex_submit(live, K_FLAKY, 2);
    ex_submit(live, K_NOTE, 3);
    ex.flaky_fail = 1;
    cr_assert_eq(pcs_world_tick(live), PCS_E_NOMEM);
    cr_assert(strstr(pcs_last_error(), "'test.flaky'") != NULL, "%s", pcs_last_error());
    ex.flaky_fail = 0;
    ex_tick(live); /* the retry applies K_NOTE 3 */
    ex_submit(live, K_FLAKY, 4);
    ex_tick(live);
    ex_tick(live);
    cr_assert_eq(pcs_structure_log_count(live), 3, "1, 3 and 4 applied; 2 failed");
    pcs_command j[16];
    uint32_t nj = journal_all(live, j, 16);
    cr_assert_eq(nj, 3, "the journal holds the applied changes only, not the failed one");
    cr_expect_eq(j[0].args[0], 1.0);
    cr_expect_eq(j[1].args[0], 3.0);
    cr_expect_eq(j[2].args[0], 4.0);
    pcs_command_stats cs;
    cr_assert_eq(pcs_command_stats_get(live, &cs), PCS_OK);
    cr_expect_eq(cs.applied, 3, "stats count what the journal holds");
    uint64_t want = pcs_world_state_hash(live);
    uint64_t end = pcs_world_clock(live)->tick;
    pcs_command log_live[3];
    for (uint32_t i = 0; i < 3; i++)
        cr_assert_eq(pcs_structure_log_at(live, i, &log_live[i]), PCS_OK);
    pcs_world_destroy(live);

    pcs_world *re = ex_world();
    uint32_t at = 0;
    while (pcs_world_clock(re)->tick < end) {
        for (; at < nj && j[at].tick == pcs_world_clock(re)->tick; at++)
            ex_submit(re, j[at].kind, j[at].args[0]);
        ex_tick(re);
    }
    cr_assert_eq(pcs_structure_log_count(re), 3);
    for (uint32_t i = 0; i < 3; i++) {
        pcs_command e;
        cr_assert_eq(pcs_structure_log_at(re, i, &e), PCS_OK);
        cr_expect_eq(memcmp(&e, &log_live[i], sizeof e), 0, "log entry %u as live", i);
    }
    cr_expect_eq(pcs_world_state_hash(re), want, "replay %016" PRIx64 ", live %016" PRIx64,
                 pcs_world_state_hash(re), want);
    pcs_world_destroy(re);
}

/* ---- stations ---------------------------------------------------------------- */

typedef struct stn {
    pcs_scenario *scn;
    pcs_world *w;
    pcs_station *st;
} stn;

static pcs_status stn_build(stn *s, const char *doc)
{
    memset(s, 0, sizeof *s);
    pcs_status rc = pcs_scenario_load_string("edges.json", doc, strlen(doc), NULL, &s->scn);
    if (rc != PCS_OK)
        return rc;
    pcs_world_def cfg = pcs_scenario_world_def(s->scn);
    cr_assert_eq(pcs_world_create(&cfg, &s->w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_station_add(s->w, s->scn, &s->st), PCS_OK, "%s", pcs_last_error());
    return PCS_OK;
}

static void stn_free(stn *s)
{
    pcs_station_destroy(s->st);
    pcs_world_destroy(s->w);
    pcs_scenario_destroy(s->scn);
}

static void stn_tick(stn *s)
{
    cr_assert_eq(pcs_world_tick(s->w), PCS_OK, "tick %" PRIu64 ": %s", pcs_world_clock(s->w)->tick,
                 pcs_last_error());
}

static void stn_submit(stn *s, const char *target, const char *command)
{
    pcs_command c;
    cr_assert_eq(pcs_station_command(s->st, target, command, 0.0, &c), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_command_submit(s->w, &c), PCS_OK, "%s", pcs_last_error());
}

static uint32_t rejections(const stn *s)
{
    uint32_t n = 0, k = 0;
    const pcs_event *ev = pcs_world_events(s->w, &n);
    for (uint32_t i = 0; i < n; i++)
        k += ev[i].kind == PCS_EV_COMMAND_REJECTED;
    return k;
}

/* The world section's field: out of range, negative or fractional, refused
 * naming the file, the field, the value and the range. */
static void scenario_structure_log_capacity_refused_out_of_range(void)
{
    /* The value, then a part of the message it must get. */
    static const char *const bad[][2] = {{"1048577", "value 1048577 is outside [0, 1048576]"},
                                         {"-1", "[0, 1048576]"},
                                         {"2.5", "[0, 1048576]"},
                                         {"\"many\"", "structure_log_capacity"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char doc[256];
        snprintf(doc, sizeof doc,
                 "{\"schema\": 1, \"world\": {\"structure_log_capacity\": %s}, "
                 "\"units\": [{\"name\": \"u1\"}]}",
                 bad[i][0]);
        stn s;
        cr_expect_eq(stn_build(&s, doc), PCS_E_INVAL, "%s accepted", bad[i][0]);
        const char *m = pcs_last_error();
        cr_expect(strstr(m, "edges.json") != NULL, "%s", m);
        cr_expect(strstr(m, "$.world.structure_log_capacity") != NULL, "%s", m);
        cr_expect(strstr(m, bad[i][1]) != NULL, "'%s' lacks '%s'", m, bad[i][1]);
        stn_free(&s);
    }
}

/* structure_log_capacity 2 from the scenario: two pump changes are applied,
 * the third is refused at stage 1 (PCS_E_OVERFLOW, a command_rejected
 * event) with a message naming the command, the capacity and the counts. */
static void scenario_structure_log_capacity_2_overflows_on_the_third_change(void)
{
    static const char doc[] = "{\"schema\": 1, \"world\": {\"workers\": 0, "
                              "\"structure_log_capacity\": 2}, \"units\": [{\"name\": \"u1\"}]}";
    stn s;
    cr_assert_eq(stn_build(&s, doc), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_def_get(s.w)->structure_log_capacity, 2);
    stn_tick(&s);
    stn_submit(&s, "u1.pump1", "pump_remove");
    stn_tick(&s);
    stn_submit(&s, "u1.pump1", "pump_install");
    stn_tick(&s);
    cr_assert_eq(pcs_structure_log_count(s.w), 2);
    stn_submit(&s, "u1.pump1", "pump_remove");
    pcs_error_clear();
    stn_tick(&s);
    cr_expect_eq(rejections(&s), 1, "the third change is refused");
    cr_expect_eq(pcs_structure_log_count(s.w), 2);
    const char *m = pcs_last_error();
    cr_expect(strstr(m, "'pump_remove'") != NULL, "%s", m);
    cr_expect(strstr(m, "the structure log is full (structure_log_capacity 2 changes, 2 applied "
                        "and 0 queued)") != NULL,
              "%s", m);
    uint32_t n = 0;
    const pcs_event *ev = pcs_world_events(s.w, &n);
    for (uint32_t i = 0; i < n; i++)
        if (ev[i].kind == PCS_EV_COMMAND_REJECTED)
            cr_expect_eq((int)ev[i].values[3], (int)PCS_E_OVERFLOW);
    stn_free(&s);
}

/* Every channel of @p prefix in two worlds built alike: the same value
 * (bit for bit; the same ids, as both were built from one scenario). */
static void same_channels(const stn *a, const stn *b, const char *prefix, const char *when)
{
    uint32_t n = pcs_channel_count(a->w), compared = 0;
    cr_assert_eq(n, pcs_channel_count(b->w));
    for (uint32_t id = 0; id < n; id++) {
        pcs_channel_info info;
        if (pcs_channel_get(a->w, id, &info) != PCS_OK ||
            strncmp(info.name, prefix, strlen(prefix)) != 0)
            continue;
        double x = pcs_channel_value(a->w, id), y = pcs_channel_value(b->w, id);
        cr_expect(memcmp(&x, &y, sizeof x) == 0, "%s: %s is %.17g uninterrupted, %.17g loaded",
                  when, info.name, x, y);
        compared++;
    }
    cr_assert_gt(compared, 20, "%s: only %u channels of %s", when, compared, prefix);
}

/* A unit frozen, saved and loaded into a fresh station: its channels (some
 * read values its systems recompute every tick and a save does not keep)
 * and the hash equal the uninterrupted run's at the same ticks, frozen and
 * after the thaw. */
static void frozen_unit_after_load_shows_the_uninterrupted_values(void)
{
    static const char doc[] = "{\"schema\": 1, \"world\": {\"workers\": 0}, \"freeze\": {}, "
                              "\"units\": [{\"name\": \"u1\"}, {\"name\": \"u2\"}]}";
    char path[64];
    snprintf(path, sizeof path, "/tmp/pcsim-edges-%d.save", (int)getpid());
    stn a, b;
    cr_assert_eq(stn_build(&a, doc), PCS_OK, "%s", pcs_last_error());
    for (int i = 0; i < 30; i++)
        stn_tick(&a);
    cr_assert_eq(pcs_station_freeze(a.st, 1), PCS_OK, "%s", pcs_last_error());
    for (int i = 0; i < 45; i++)
        stn_tick(&a);
    cr_assert_eq(pcs_world_save(a.w, path), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(stn_build(&b, doc), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_load(b.w, path), PCS_OK, "%s", pcs_last_error());
    remove(path);
    cr_expect_eq(pcs_world_state_hash(b.w), pcs_world_state_hash(a.w));
    for (int i = 0; i < 5; i++) {
        stn_tick(&a);
        stn_tick(&b);
        same_channels(&a, &b, "u1.", "frozen, after the load");
        cr_expect_eq(pcs_world_state_hash(b.w), pcs_world_state_hash(a.w));
    }
    cr_assert_eq(pcs_station_thaw(a.st, 1, 0.0, NULL), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_station_thaw(b.st, 1, 0.0, NULL), PCS_OK, "%s", pcs_last_error());
    for (int i = 0; i < 5; i++) {
        stn_tick(&a);
        stn_tick(&b);
        same_channels(&a, &b, "u1.", "thawed");
        cr_expect_eq(pcs_world_state_hash(b.w), pcs_world_state_hash(a.w));
    }
    stn_free(&a);
    stn_free(&b);
}

/* A unit added while running has no freeze stores (they are sized for the
 * units built with the station): freezing it is refused, naming it and
 * the units that can be frozen, and nothing is written. */
static void unit_added_while_running_cannot_be_frozen(void)
{
    static const char doc[] = "{\"schema\": 1, \"world\": {\"workers\": 0}, \"freeze\": {}, "
                              "\"units\": [{\"name\": \"u1\"}, {\"name\": \"u2\", \"build\": "
                              "\"later\"}]}";
    stn s;
    cr_assert_eq(stn_build(&s, doc), PCS_OK, "%s", pcs_last_error());
    stn_tick(&s);
    stn_submit(&s, "u2", "unit_add");
    stn_tick(&s);
    cr_assert_eq(pcs_station_unit_count(s.st), 2, "u2 is built");
    uint64_t h = pcs_world_state_hash(s.w);
    cr_expect_eq(pcs_station_freeze(s.st, 2), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(),
                     "pcs_station_freeze: u2 was added while running; only the units built with "
                     "the station (u1..u1) can be frozen") != NULL,
              "%s", pcs_last_error());
    cr_expect_eq(pcs_station_unit_frozen(s.st, 2), 0);
    cr_expect_eq(pcs_world_state_hash(s.w), h, "nothing written");
    cr_expect_eq(pcs_station_freeze(s.st, 1), PCS_OK, "%s", pcs_last_error());
    stn_free(&s);
}

static int stn_fail; /* the station test's failing system fails while set */

static pcs_status stn_failer(pcs_world *w, void *ctx)
{
    (void)w, (void)ctx;
    return stn_fail ? pcs_error_set(PCS_E_INVAL, "stage 7 failed on purpose") : PCS_OK;
}

/* The station's pump_remove on a failed tick: accepted by the attempt that
 * failed at stage 7, applied by the retry, and its primary_pump_removed
 * event (emitted by the check) in the retry's list once. */
static void pump_remove_on_a_retried_tick_is_announced_once(void)
{
    static const char doc[] =
        "{\"schema\": 1, \"world\": {\"workers\": 0}, \"units\": [{\"name\": \"u1\"}]}";
    stn s;
    cr_assert_eq(stn_build(&s, doc), PCS_OK, "%s", pcs_last_error());
    pcs_system_desc d = {.name = "failer", .fn = stn_failer};
    d.stage = PCS_STAGE_ACCIDENTS;
    cr_assert_eq(pcs_system_register(s.w, &d, NULL), PCS_OK, "%s", pcs_last_error());
    stn_fail = 0;
    stn_tick(&s);
    stn_submit(&s, "u1.pump2", "pump_remove");
    stn_fail = 1;
    cr_assert_eq(pcs_world_tick(s.w), PCS_E_INVAL);
    stn_fail = 0;
    stn_tick(&s);
    uint32_t n = 0, removed = 0;
    const pcs_event *ev = pcs_world_events(s.w, &n);
    for (uint32_t i = 0; i < n; i++)
        if (ev[i].kind == PCS_EV_PRIMARY_PUMP_REMOVED) {
            removed++;
            cr_expect_eq(ev[i].tick, 1);
            cr_expect_eq(ev[i].subject, PCS_PRIMARY_PUMP_SUBJECT(0, 1), "u1.pump2");
        }
    cr_expect_eq(removed, 1, "announced once, by the attempt that applied it");
    cr_expect_eq(pcs_structure_log_count(s.w), 1);
    pcs_entity_handle h;
    cr_expect_eq(pcs_entity_find(s.w, "u1.pump2", &h), PCS_E_NOTFOUND, "the pump is gone");
    stn_tick(&s);
    stn_free(&s);
}

/* Issue 19's budget: Criterion runs every Test in its own process, and under
 * ASan a process costs ~0.2 s before it checks anything, so the checks above
 * run grouped, one process per behaviour, in the order listed. Each keeps its
 * own assertions and messages; a failure names the check's line. */

/* A change accepted by a failed attempt is announced once and journaled once, however many attempts
 * fail. */
Test(structure_edges, failed_attempts_announce_once_and_keep_the_journal)
{
    event_of_a_change_accepted_by_a_failed_attempt_is_emitted_once();
    event_survives_two_failed_attempts();
    failed_apply_leaves_the_journal_and_replay_matches();
    pump_remove_on_a_retried_tick_is_announced_once();
}

/* The scenario's structure log capacity: its range and its overflow. */
Test(structure_edges, scenario_structure_log_capacity)
{
    scenario_structure_log_capacity_refused_out_of_range();
    scenario_structure_log_capacity_2_overflows_on_the_third_change();
}

/* Freezing a unit after a load, and refusing to freeze a unit added while running. */
Test(structure_edges, freezing_after_a_load_and_after_an_add)
{
    frozen_unit_after_load_shows_the_uninterrupted_values();
    unit_added_while_running_cannot_be_frozen();
}
