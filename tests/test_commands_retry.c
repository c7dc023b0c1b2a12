/**
 * @file test_commands_retry.c
 * @brief The events of commands applied by an attempt that failed (the
 *        failed-tick rule, docs/ARCHITECTURE.md section 2): the attempt
 *        that succeeds announces each command the tick applied or rejected
 *        exactly once, in drain order, and its committed list equals a
 *        journal replay's.
 *
 * A command drained by a failed attempt keeps its effect and its journal
 * entry and is not drained again, but the failed attempt's event list is
 * discarded; before, the events its handler emitted (a station's freeze,
 * a command_rejected) were in no delivered list and a replay of the journal
 * (which applies the commands once, at their tick) had events the live run
 * never showed. Engine worlds (a store, a system that fails on demand, a
 * plugin whose after_step fails on demand, a plain kind whose handler
 * announces itself, a structural kind whose check does, a kind with no
 * handler) and one station.
 *
 * Its checks are static functions, run in groups by the Tests at the end of
 * the file, one process a group (issue 19's test cost).
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/pcsim.h"

enum {
    K_PING = 220, /* plain handler: emits EV_PING (subject args[0]) */
    K_NOTE,       /* structural: its check emits EV_NOTE (subject args[0]) */
    K_NONE,       /* no handler: rejected (PCS_E_NOTFOUND) */
    K_FLAKY,      /* as K_NOTE, but its apply fails while flaky is set */
    EV_PING = PCS_EV_MODEL_BASE + 8,
    EV_NOTE = PCS_EV_MODEL_BASE + 9,
};

#define SEEN_MAX 64

static struct {
    uint32_t a;               /* store: a[0] = the tick (a retried tick writes the same) */
    int fail_stage;           /* the heat system fails while set */
    int fail_after;           /* the plugin's after_step fails while set */
    int flaky;                /* K_FLAKY's apply fails while set */
    pcs_event seen[SEEN_MAX]; /* every event the host callback saw, in order */
    uint32_t n_seen;
} rx;

static pcs_status heat(pcs_world *w, void *ctx)
{
    (void)ctx;
    ((double *)pcs_store_data(w, rx.a))[0] = (double)pcs_world_clock(w)->tick;
    return rx.fail_stage ? pcs_error_set(PCS_E_INVAL, "heat failed on purpose") : PCS_OK;
}

static pcs_status ping(pcs_world *w, void *ctx, const pcs_command *c)
{
    (void)ctx;
    (void)pcs_event_emit(w, EV_PING, (uint32_t)c->args[0], c->args[0], 0, 0, 0);
    return PCS_OK;
}

static pcs_status note_check(pcs_world *w, void *ctx, const pcs_command *c)
{
    (void)ctx;
    return pcs_event_emit(w, EV_NOTE, (uint32_t)c->args[0], c->args[0], 0, 0, 0);
}

static pcs_status note_apply(pcs_world *w, void *ctx, const pcs_command *c)
{
    (void)w, (void)ctx, (void)c;
    return PCS_OK;
}

static pcs_status flaky_apply(pcs_world *w, void *ctx, const pcs_command *c)
{
    (void)w, (void)ctx;
    return rx.flaky ? pcs_error_set(PCS_E_NOMEM, "no room for flaky %g", c->args[0]) : PCS_OK;
}

static pcs_status after_step(pcs_world *w, void *ctx)
{
    (void)w, (void)ctx;
    return rx.fail_after ? pcs_error_set(PCS_E_INVAL, "after_step failed on purpose") : PCS_OK;
}

static void on_events(void *ctx, const pcs_event *ev, uint32_t n)
{
    (void)ctx;
    for (uint32_t i = 0; i < n && rx.n_seen < SEEN_MAX; i++)
        rx.seen[rx.n_seen++] = ev[i];
}

static pcs_world *rx_world(uint32_t event_capacity)
{
    memset(&rx, 0, sizeof rx);
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.workers = 0;
    cfg.event_capacity = event_capacity;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_store_register(w, "a", 8, 1, PCS_STORE_STATE, &rx.a), PCS_OK);
    uint32_t wr[] = {rx.a};
    pcs_system_desc d = {
        .name = "heat", .stage = PCS_STAGE_HEAT, .fn = heat, .writes = wr, .n_writes = 1};
    cr_assert_eq(pcs_system_register(w, &d, NULL), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_command_handler_register(w, K_PING, ping, NULL), PCS_OK, "%s",
                 pcs_last_error());
    const pcs_structure_kind_def k = {
        .kind = K_NOTE, .name = "test.note", .check = note_check, .apply = note_apply};
    cr_assert_eq(pcs_structure_kind_register(w, &k), PCS_OK, "%s", pcs_last_error());
    const pcs_structure_kind_def f = {
        .kind = K_FLAKY, .name = "test.flaky", .check = note_check, .apply = flaky_apply};
    cr_assert_eq(pcs_structure_kind_register(w, &f), PCS_OK, "%s", pcs_last_error());
    pcs_plugin_def p;
    cr_assert_eq(pcs_plugin_default(&p), PCS_OK);
    p.id = "test.after";
    p.after_step = after_step;
    cr_assert_eq(pcs_plugin_add(w, &p, NULL), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_set_event_callback(w, on_events, NULL), PCS_OK, "%s", pcs_last_error());
    return w;
}

static void rx_submit(pcs_world *w, uint32_t kind, double arg)
{
    pcs_command c = {.kind = kind, .args = {arg}};
    cr_assert_eq(pcs_command_submit(w, &c), PCS_OK, "%s", pcs_last_error());
}

static void rx_tick(pcs_world *w)
{
    cr_assert_eq(pcs_world_tick(w), PCS_OK, "tick %" PRIu64 ": %s", pcs_world_clock(w)->tick,
                 pcs_last_error());
}

/* The events of @p ev[0, n) that a command's apply emits (pings, notes,
 * rejections), as "P1 N3 R2 " (a rejection by the shared ring's sequence
 * number, its values[2]), into @p out. */
static const char *announced(const pcs_event *ev, uint32_t n, char *out, size_t size)
{
    size_t at = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < n && at + 16 < size; i++) {
        int k = snprintf(out + at, size - at, "%s",
                         ev[i].kind == EV_PING                   ? "P"
                         : ev[i].kind == EV_NOTE                 ? "N"
                         : ev[i].kind == PCS_EV_COMMAND_REJECTED ? "R"
                         : ev[i].kind == PCS_EV_EVENT_OVERFLOW   ? "O"
                                                                 : "");
        if (k == 0)
            continue;
        at += (size_t)k;
        uint64_t v = ev[i].kind == PCS_EV_COMMAND_REJECTED ? (uint64_t)ev[i].values[2]
                     : ev[i].kind == PCS_EV_EVENT_OVERFLOW ? (uint64_t)ev[i].values[0]
                                                           : ev[i].subject;
        at += (size_t)snprintf(out + at, size - at, "%" PRIu64 " ", v);
    }
    return out;
}

/* Commands of every kind drained by an attempt that fails at stage 4, then
 * one drained by the retry: the retry's list announces them all once, in
 * drain order (the failed attempt's first), at the retried tick; the
 * committed list (rejections left out, event.c) holds them once; later
 * ticks do not announce them again. */
static void retry_announces_the_failed_attempts_commands_once_in_drain_order(void)
{
    pcs_world *w = rx_world(1024);
    rx_tick(w);
    rx_submit(w, K_PING, 1); /* shared ring sequence 0 */
    rx_submit(w, K_NONE, 2); /* 1: rejected */
    rx_submit(w, K_NOTE, 3); /* 2 */
    rx_submit(w, K_PING, 4); /* 3 */
    rx.fail_stage = 1;
    cr_assert_eq(pcs_world_tick(w), PCS_E_INVAL, "the attempt at tick 1 fails at stage 4");
    cr_assert_eq(rx.n_seen, 0, "a failed attempt before stage 13 delivers nothing");
    rx.fail_stage = 0;
    rx_submit(w, K_PING, 5); /* drained by the retry */
    rx_tick(w);
    char got[256];
    cr_expect_str_eq(announced(rx.seen, rx.n_seen, got, sizeof got), "P1 R1 N3 P4 P5 ",
                     "delivered: each command once, in drain order");
    for (uint32_t i = 0; i < rx.n_seen; i++)
        cr_expect_eq(rx.seen[i].tick, 1, "event %u at the retried tick", i);
    uint32_t n = 0;
    const pcs_event *prev = pcs_world_events_previous(w, &n);
    cr_expect_str_eq(announced(prev, n, got, sizeof got), "P1 N3 P4 P5 ",
                     "committed once, rejections left out");
    rx.n_seen = 0;
    rx_tick(w);
    cr_expect_str_eq(announced(rx.seen, rx.n_seen, got, sizeof got), "",
                     "the next tick announces nothing again");
    pcs_world_destroy(w);
}

/* Three attempts at one tick, each draining one command, the first two
 * failing: the third announces all three once, in drain order. */
static void two_failed_attempts_announce_once(void)
{
    pcs_world *w = rx_world(1024);
    rx.fail_stage = 1;
    rx_submit(w, K_PING, 1);
    cr_assert_eq(pcs_world_tick(w), PCS_E_INVAL);
    rx_submit(w, K_NONE, 2);
    cr_assert_eq(pcs_world_tick(w), PCS_E_INVAL);
    rx.fail_stage = 0;
    rx_submit(w, K_PING, 3);
    rx_tick(w);
    char got[256];
    cr_expect_str_eq(announced(rx.seen, rx.n_seen, got, sizeof got), "P1 R1 P3 ");
    pcs_world_destroy(w);
}

/* An attempt that fails after stage 13's delivery (the plugins' after_step)
 * has shown the host its list; the retry's list shows the commands again
 * (the host sees them twice, as the structural rule says), and the
 * committed list holds each once. */
static void failure_after_delivery_is_shown_again_and_committed_once(void)
{
    pcs_world *w = rx_world(1024);
    rx_submit(w, K_PING, 1);
    rx.fail_after = 1;
    cr_assert_eq(pcs_world_tick(w), PCS_E_INVAL);
    rx.fail_after = 0;
    rx_tick(w);
    char got[256];
    cr_expect_str_eq(announced(rx.seen, rx.n_seen, got, sizeof got), "P1 P1 ",
                     "delivered by the failed attempt and by the retry");
    uint32_t n = 0;
    const pcs_event *prev = pcs_world_events_previous(w, &n);
    cr_expect_str_eq(announced(prev, n, got, sizeof got), "P1 ", "committed once");
    pcs_world_destroy(w);
}

/* The journal of a world: every entry, from index 0. */
static uint32_t journal_all(const pcs_world *w, pcs_command *out, uint32_t max)
{
    uint64_t cursor = 0;
    return pcs_journal_read(w, &cursor, out, max, NULL);
}

/* The replay world @p re, run to the live run's end, committed the live
 * run's events (@p want_ev, as announced() spells them) and has its state
 * hash @p want; destroys @p re. */
static void expect_replay_as_live(pcs_world *re, const char *want_ev, uint64_t want)
{
    char got_ev[256];
    uint32_t n = 0;
    const pcs_event *prev = pcs_world_events_previous(re, &n);
    cr_expect_str_eq(announced(prev, n, got_ev, sizeof got_ev), want_ev, "replay as live");
    cr_expect_eq(pcs_world_state_hash(re), want, "replay %016" PRIx64 ", live %016" PRIx64,
                 pcs_world_state_hash(re), want);
    pcs_world_destroy(re);
}

/* A live run whose tick 2 fails once, and a replay of its journal into a
 * fresh world: the retry's committed list equals the replay's, so the
 * state hash (which covers it) is the same right after the tick. (The
 * world's one system writes a function of the tick, so running the failed
 * attempt's stages again leaves the state a single run has.) */
static void live_and_replay_commit_the_same_events(void)
{
    pcs_world *live = rx_world(1024);
    rx_tick(live);
    rx_tick(live);
    rx_submit(live, K_PING, 1);
    rx_submit(live, K_NOTE, 2);
    rx.fail_stage = 1;
    cr_assert_eq(pcs_world_tick(live), PCS_E_INVAL);
    rx.fail_stage = 0;
    rx_submit(live, K_PING, 3);
    rx_tick(live);
    char want_ev[256];
    uint32_t n = 0;
    const pcs_event *prev = pcs_world_events_previous(live, &n);
    announced(prev, n, want_ev, sizeof want_ev);
    cr_expect_str_eq(want_ev, "P1 N2 P3 ");
    uint64_t want = pcs_world_state_hash(live);
    uint64_t end = pcs_world_clock(live)->tick;
    pcs_command j[16];
    uint32_t nj = journal_all(live, j, 16);
    cr_assert_eq(nj, 3);
    pcs_world_destroy(live);

    pcs_world *re = rx_world(1024);
    uint32_t at = 0;
    while (pcs_world_clock(re)->tick < end) {
        for (; at < nj && j[at].tick == pcs_world_clock(re)->tick; at++)
            rx_submit(re, j[at].kind, j[at].args[0]);
        rx_tick(re);
    }
    expect_replay_as_live(re, want_ev, want);
}

/* Structural changes 1, 2 and 3 accepted at tick 2, and 2's apply fails
 * (after stage 13): 1 is applied, 2 leaves the journal, 3 is left to the
 * retry. The retry announces 1 and 3, the changes the journal holds, and
 * not 2, which no replay applies: its committed list, and the state hash
 * right after the tick, equal a replay's. */
static void a_failed_apply_is_not_announced_by_the_retry(void)
{
    pcs_world *live = rx_world(1024);
    rx_tick(live);
    rx_tick(live);
    rx_submit(live, K_NOTE, 1);
    rx_submit(live, K_FLAKY, 2);
    rx_submit(live, K_NOTE, 3);
    rx.flaky = 1;
    cr_assert_eq(pcs_world_tick(live), PCS_E_NOMEM);
    rx.flaky = 0;
    rx_tick(live);
    char want_ev[256];
    uint32_t n = 0;
    const pcs_event *prev = pcs_world_events_previous(live, &n);
    cr_expect_str_eq(announced(prev, n, want_ev, sizeof want_ev), "N1 N3 ");
    uint64_t want = pcs_world_state_hash(live);
    pcs_command j[16];
    uint32_t nj = journal_all(live, j, 16);
    cr_assert_eq(nj, 2, "1 and 3: 2 was withdrawn");
    pcs_world_destroy(live);

    pcs_world *re = rx_world(1024);
    rx_tick(re);
    rx_tick(re);
    for (uint32_t i = 0; i < nj; i++)
        rx_submit(re, j[i].kind, j[i].args[0]);
    rx_tick(re);
    expect_replay_as_live(re, want_ev, want);
}

/* The bound: an event list holds event_capacity - 1 events and the overflow
 * event, so the events carried to the retry are at most that many; what
 * the failed attempt's list dropped is counted as dropped again in each
 * later attempt's list. With capacity 4, five pings in a failed attempt:
 * the retry's list holds the first three and an overflow of 2, as an
 * uninterrupted tick's list would, and a ping the retry drains is dropped
 * too (the list is full), counted with them. */
static void carried_events_are_bounded_by_the_list(void)
{
    pcs_world *w = rx_world(4);
    for (int i = 1; i <= 5; i++)
        rx_submit(w, K_PING, i);
    rx.fail_stage = 1;
    cr_assert_eq(pcs_world_tick(w), PCS_E_INVAL);
    rx.fail_stage = 0;
    rx_submit(w, K_PING, 6);
    rx_tick(w);
    char got[256];
    cr_expect_str_eq(announced(rx.seen, rx.n_seen, got, sizeof got), "P1 P2 P3 O3 ",
                     "three carried, two dropped by the failed attempt, one by the retry");
    rx.n_seen = 0;
    rx_tick(w);
    cr_expect_str_eq(announced(rx.seen, rx.n_seen, got, sizeof got), "",
                     "the next tick carries nothing");
    pcs_world_destroy(w);
}

/* ---- a station ---------------------------------------------------------- */

static int stn_fail;

static pcs_status stn_failer(pcs_world *w, void *ctx)
{
    (void)w, (void)ctx;
    return stn_fail ? pcs_error_set(PCS_E_INVAL, "stage 7 failed on purpose") : PCS_OK;
}

/* The station's freeze, thaw and command_rejected events the host saw. */
static uint32_t stn_freezes, stn_thaws, stn_rejected;

static void stn_on_events(void *ctx, const pcs_event *ev, uint32_t n)
{
    (void)ctx;
    for (uint32_t i = 0; i < n; i++) {
        stn_freezes += ev[i].kind == PCS_EV_STATION_FREEZE;
        stn_thaws += ev[i].kind == PCS_EV_STATION_THAW;
        stn_rejected += ev[i].kind == PCS_EV_COMMAND_REJECTED;
    }
}

/* The station's freeze and thaw commands on failed ticks, and a thaw it
 * refuses: each announced once (PCS_EV_STATION_FREEZE, _THAW,
 * PCS_EV_COMMAND_REJECTED), by the attempt that succeeds. */
static void station_freeze_and_thaw_on_retried_ticks_are_announced_once(void)
{
    static const char doc[] = "{\"schema\": 1, \"world\": {\"workers\": 0}, \"units\": "
                              "[{\"name\": \"u1\"}, {\"name\": \"u2\"}], \"freeze\": {}}";
    memset(&rx, 0, sizeof rx);
    pcs_scenario *scn = NULL;
    cr_assert_eq(pcs_scenario_load_string("retry.json", doc, strlen(doc), NULL, &scn), PCS_OK, "%s",
                 pcs_last_error());
    pcs_world_def cfg = pcs_scenario_world_def(scn);
    pcs_world *w = NULL;
    pcs_station *st = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_station_add(w, scn, &st), PCS_OK, "%s", pcs_last_error());
    pcs_system_desc d = {.name = "failer", .stage = PCS_STAGE_ACCIDENTS, .fn = stn_failer};
    cr_assert_eq(pcs_system_register(w, &d, NULL), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_set_event_callback(w, stn_on_events, NULL), PCS_OK);
    stn_fail = 0;
    stn_freezes = stn_thaws = stn_rejected = 0;
    rx_tick(w);
    /* freeze; thaw (20 ticks later: a thaw needs 20 frozen ticks); thaw
     * again, which u2 refuses (not frozen): a command_rejected */
    const char *ops[] = {"freeze", "thaw", "thaw"};
    const uint32_t *counts[] = {&stn_freezes, &stn_thaws, &stn_rejected};
    for (int k = 0; k < 3; k++) {
        pcs_command c;
        cr_assert_eq(pcs_station_command(st, "u2", ops[k], 0.0, &c), PCS_OK, "%s",
                     pcs_last_error());
        cr_assert_eq(pcs_command_submit(w, &c), PCS_OK, "%s", pcs_last_error());
        stn_fail = 1;
        cr_assert_eq(pcs_world_tick(w), PCS_E_INVAL);
        stn_fail = 0;
        rx_tick(w);
        cr_expect_eq(*counts[k], 1, "%s (%d) announced once by the retry, not %u", ops[k], k,
                     *counts[k]);
        cr_expect_eq(pcs_station_unit_frozen(st, 2), k == 0, "u2 after %s (%d)", ops[k], k);
        for (int i = 0; i < 20; i++)
            rx_tick(w);
        cr_expect_eq(*counts[k], 1, "and not again");
    }
    pcs_station_destroy(st);
    pcs_world_destroy(w);
    pcs_scenario_destroy(scn);
}

Test(commands_retry, the_retry_announces_each_command_once_in_drain_order)
{
    retry_announces_the_failed_attempts_commands_once_in_drain_order();
    two_failed_attempts_announce_once();
    failure_after_delivery_is_shown_again_and_committed_once();
    live_and_replay_commit_the_same_events();
    a_failed_apply_is_not_announced_by_the_retry();
    carried_events_are_bounded_by_the_list();
}

Test(commands_retry, station_freeze_and_thaw_are_announced_once)
{
    station_freeze_and_thaw_on_retried_ticks_are_announced_once();
}
