/**
 * @file test_par_stage.c
 * @brief Parallel unit sections (system.h, engine/par_stage.c): the event
 *        list, failures, access faults and overflow are a serial run's for
 *        no executor and 0, 1 and 2 workers; a section whose units share a
 *        store (a gate flag one unit writes) is found and runs serially; the
 *        default scenario keeps its pinned hash with the parallel stage on.
 *
 * Pools are oversubscribed on purpose (2 workers on a 2-core machine): the
 * result may not depend on who runs a chunk, or when.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <string.h>

#include "pcsim/exec.h"
#include "pcsim/pcsim.h"
#include "pcsim/station.h"

#define NO_EXEC (-1)

/* One test system: writes its own store, emits `emit` events tagged with
 * `tag`, may touch another store without declaring it, may fail. */
typedef struct par_sys {
    uint32_t unit, tag, store;
    int emit, fail;
    uint32_t touch; /* pcs_store_data on it, undeclared (UINT32_MAX: none) */
} par_sys;

static pcs_status par_run(pcs_world *w, void *ctx)
{
    par_sys *s = ctx;
    double *x = pcs_store_data(w, s->store);
    x[0] = x[0] * 1.5 + s->tag;
    for (int i = 0; i < s->emit; i++)
        pcs_event_emit(w, 1000 + s->tag, s->unit, x[0], i, 0.0, 0.0);
    if (s->touch != UINT32_MAX)
        (void)pcs_store_data(w, s->touch);
    return s->fail ? pcs_error_set(PCS_E_INVAL, "par: system %u fails", s->tag) : PCS_OK;
}

/* A pool of @p workers attached to @p w, unpinned and oversubscribed. */
static pcs_exec *par_pool(pcs_world *w, int workers)
{
    pcs_exec *pool = NULL;
    pcs_exec_def ec;
    pcs_exec_default(&ec);
    ec.workers = (uint32_t)workers;
    ec.pin = false;
    ec.allow_oversubscribe = true;
    cr_assert_eq(pcs_exec_create(&ec, &pool), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_exec_attach(pool, w), PCS_OK, "%s", pcs_last_error());
    return pool;
}

/* The tiny station: units 1 and 2, systems u1.a u2.a u1.b u2.b at stage
 * heat (run order = registration order), each with its own store. With
 * @p gated, u1.a also writes store "gate", whose element 0 gates "u2.". */
typedef struct par_world {
    pcs_world *w;
    pcs_exec *pool;
    par_sys sys[4];
    uint32_t gate;
} par_world;

static void par_make(par_world *pw, int parallel, int workers, uint32_t event_capacity,
                     uint32_t check_access, int gated)
{
    static const char *names[4] = {"u1.a", "u2.a", "u1.b", "u2.b"};
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.event_capacity = event_capacity;
    cfg.check_access = check_access;
    pw->pool = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &pw->w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_store_register(pw->w, "gate", 4, 1, PCS_STORE_STATE, &pw->gate), PCS_OK);
    for (uint32_t i = 0; i < 4; i++) {
        par_sys *s = &pw->sys[i];
        *s = (par_sys){.unit = i % 2 + 1, .tag = i + 1, .emit = 2, .touch = UINT32_MAX};
        cr_assert_eq(pcs_store_register(pw->w, names[i], 8, 2, PCS_STORE_STATE, &s->store), PCS_OK);
        uint32_t writes[2] = {s->store, pw->gate};
        pcs_system_desc d = {.name = names[i],
                             .stage = PCS_STAGE_HEAT,
                             .fn = par_run,
                             .ctx = s,
                             .writes = writes,
                             .n_writes = (gated && i == 0) ? 2 : 1};
        cr_assert_eq(pcs_system_register(pw->w, &d, NULL), PCS_OK, "%s", pcs_last_error());
    }
    if (gated)
        cr_assert_eq(pcs_world_gate_add(pw->w, "u2.", pw->gate, 0, NULL), PCS_OK, "%s",
                     pcs_last_error());
    cr_assert_eq(pcs_world_set_parallel_units(pw->w, parallel), PCS_OK, "%s", pcs_last_error());
    if (workers != NO_EXEC)
        pw->pool = par_pool(pw->w, workers);
}

static void par_free(par_world *pw)
{
    pcs_world_destroy(pw->w);
    pcs_exec_destroy(pw->pool);
}

/* What one tick leaves: its event list (for the first PAR_EVENTS events). */
#define PAR_EVENTS 16
typedef struct par_tick {
    pcs_status st;
    char msg[256];
    uint32_t n;
    pcs_event ev[PAR_EVENTS];
} par_tick;

static void par_tick_once(par_world *pw, par_tick *out)
{
    memset(out, 0, sizeof *out);
    out->st = pcs_world_tick(pw->w);
    snprintf(out->msg, sizeof out->msg, "%s", out->st == PCS_OK ? "" : pcs_last_error());
    const pcs_event *e = pcs_world_events(pw->w, &out->n);
    memcpy(out->ev, e, (out->n < PAR_EVENTS ? out->n : PAR_EVENTS) * sizeof *e);
}

/* Tick @p ticks times with parallel units and @p workers, and expect every
 * tick's status, message and events, the drops and the final hash to equal
 * the serial world's; systems tagged @p fail_tag1 and @p fail_tag2 (1..4,
 * 0: none) fail every tick. */
static void par_expect_serial(int workers, int ticks, uint32_t event_capacity, int fail_tag1,
                              int fail_tag2)
{
    par_world a, b;
    par_make(&a, 0, NO_EXEC, event_capacity, 0, 0);
    par_make(&b, 1, workers, event_capacity, 0, 0);
    for (int i = 0; i < 4; i++)
        a.sys[i].fail = b.sys[i].fail = (i + 1 == fail_tag1 || i + 1 == fail_tag2);
    for (int t = 0; t < ticks; t++) {
        par_tick x, y;
        par_tick_once(&a, &x);
        par_tick_once(&b, &y);
        cr_assert_eq(y.st, x.st, "workers %d tick %d: status %d, serial %d", workers, t, y.st,
                     x.st);
        cr_assert_str_eq(y.msg, x.msg, "workers %d tick %d", workers, t);
        cr_assert_eq(y.n, x.n, "workers %d tick %d: %u events, serial %u", workers, t, y.n, x.n);
        cr_assert(memcmp(y.ev, x.ev, sizeof x.ev) == 0, "workers %d tick %d: events differ",
                  workers, t);
    }
    cr_assert_eq(pcs_world_events_dropped(b.w), pcs_world_events_dropped(a.w));
    /* After a failure other units' later systems may have run (their
     * stores show it; nothing is rolled back): the hash is compared only
     * for runs without one. */
    if (!fail_tag1 && !fail_tag2)
        cr_assert_eq(pcs_world_state_hash(b.w), pcs_world_state_hash(a.w), "workers %d", workers);
    par_free(&a);
    par_free(&b);
}

Test(par_stage, one_section_of_two_units_proven_disjoint)
{
    par_world pw;
    par_make(&pw, 1, NO_EXEC, 64, 0, 0);
    cr_assert_eq(pcs_schedule_section_count(pw.w), 1);
    pcs_schedule_section s;
    cr_assert_eq(pcs_schedule_section_at(pw.w, 0, &s), PCS_OK);
    cr_assert_eq(s.stage, PCS_STAGE_HEAT);
    cr_assert_eq(s.first, 0);
    cr_assert_eq(s.end, 4);
    cr_assert_eq(s.n_units, 2);
    cr_assert_eq(s.clash_store, UINT32_MAX, "proven: each system writes its own store");
    cr_assert_eq(pcs_schedule_section_at(pw.w, 1, &s), PCS_E_NOTFOUND);
    par_free(&pw);
}

/* Run order u1.a u2.a u1.b u2.b, not unit-major u1.a u1.b u2.a u2.b: the
 * per-unit buffers merge by the emitting system's position. */
Test(par_stage, events_merge_in_run_order_for_any_worker_count)
{
    par_world pw;
    par_make(&pw, 1, 2, 64, 0, 0);
    par_tick x;
    par_tick_once(&pw, &x);
    cr_assert_eq(x.st, PCS_OK, "%s", x.msg);
    cr_assert_eq(x.n, 8);
    static const uint32_t kinds[8] = {1001, 1001, 1002, 1002, 1003, 1003, 1004, 1004};
    for (uint32_t i = 0; i < 8; i++) {
        cr_assert_eq(x.ev[i].kind, kinds[i], "event %u: kind %u", i, x.ev[i].kind);
        cr_assert_eq(x.ev[i].values[1], (double)(i % 2), "event %u: emit order", i);
    }
    par_free(&pw);
    par_expect_serial(NO_EXEC, 30, 64, 0, 0);
    for (int workers = 0; workers <= 2; workers++)
        par_expect_serial(workers, 30, 64, 0, 0);
}

/* A serial run stops at u2.a (position 1); in parallel u1's chunk runs on
 * and fails at u1.b (position 2): the lowest position is reported. */
Test(par_stage, the_failure_at_the_lowest_position_is_reported)
{
    for (int workers = 0; workers <= 2; workers++)
        par_expect_serial(workers, 3, 64, 2, 3);
    par_world pw;
    par_make(&pw, 1, 1, 64, 0, 0);
    pw.sys[1].fail = pw.sys[2].fail = 1;
    cr_assert_eq(pcs_world_tick(pw.w), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(), "par: system 2 fails");
    cr_assert_eq(pcs_world_clock(pw.w)->tick, 0, "a failed tick does not advance the clock");
    par_free(&pw);
}

/* Capacity 6 keeps 5 events a tick: the first five in run order, 3 drops,
 * then the overflow event, as in a serial run. */
Test(par_stage, overflow_keeps_the_serial_events_and_drop_count)
{
    for (int workers = 0; workers <= 2; workers++)
        par_expect_serial(workers, 4, 6, 0, 0);
    par_world pw;
    par_make(&pw, 1, 2, 6, 0, 0);
    par_tick x;
    par_tick_once(&pw, &x);
    cr_assert_eq(x.n, 6);
    cr_assert_eq(x.ev[4].kind, 1003);
    cr_assert_eq(x.ev[5].kind, PCS_EV_EVENT_OVERFLOW);
    cr_assert_eq(x.ev[5].values[0], 3.0);
    cr_assert_eq(pcs_world_events_dropped(pw.w), 3);
    par_free(&pw);
}

Test(par_stage, an_undeclared_access_in_a_chunk_names_system_and_store)
{
    par_world pw;
    par_make(&pw, 1, 2, 64, 1, 0);
    pw.sys[3].touch = pw.sys[0].store; /* u2.b reads u1.a's store */
    cr_assert_eq(pcs_world_tick(pw.w), PCS_E_STATE);
    cr_assert_str_eq(pcs_last_error(), "tick 0 stage heat: system 'u2.b' touched store 'u1.a' "
                                       "it does not declare (add it to its reads or writes)");
    par_free(&pw);
}

/* u1.a writes the flag that gates u2's systems: in parallel u2's chunk
 * could read it before or after u1.a writes it. The registration check
 * cannot see that (a gate is not a declared read); the seal's proof does. */
Test(par_stage, a_gate_one_unit_writes_makes_the_section_serial)
{
    par_world pw;
    par_make(&pw, 1, 2, 64, 0, 1);
    cr_assert_eq(pcs_schedule_section_count(pw.w), 1);
    pcs_schedule_section s;
    cr_assert_eq(pcs_schedule_section_at(pw.w, 0, &s), PCS_OK);
    cr_assert_eq(s.clash_store, pw.gate, "clash on store %u, the gate is %u", s.clash_store,
                 pw.gate);
    par_free(&pw);
}

/* u1.a itself sets the gate (through its ctx, the flag's own store memory
 * which it declares writing): a parallel run would race on the flag. */
static pcs_status par_run_and_freeze(pcs_world *w, void *ctx)
{
    par_sys *s = ctx;
    pcs_status st = par_run(w, ctx);
    uint32_t *gate = pcs_store_data(w, s->touch);
    gate[0] = 1;
    return st;
}

Test(par_stage, a_serial_section_runs_in_run_order)
{
    for (int parallel = 0; parallel <= 1; parallel++) {
        pcs_world_def cfg;
        pcs_world_default(&cfg);
        pcs_world *w;
        cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
        uint32_t gate, st1, st2;
        cr_assert_eq(pcs_store_register(w, "gate", 4, 1, PCS_STORE_STATE, &gate), PCS_OK);
        cr_assert_eq(pcs_store_register(w, "u1.x", 8, 2, PCS_STORE_STATE, &st1), PCS_OK);
        cr_assert_eq(pcs_store_register(w, "u2.x", 8, 2, PCS_STORE_STATE, &st2), PCS_OK);
        par_sys a = {.unit = 1, .tag = 1, .store = st1, .emit = 1, .touch = gate};
        par_sys b = {.unit = 2, .tag = 2, .store = st2, .emit = 1, .touch = UINT32_MAX};
        uint32_t wa[2] = {st1, gate};
        pcs_system_desc da = {.name = "u1.a",
                              .stage = PCS_STAGE_HEAT,
                              .fn = par_run_and_freeze,
                              .ctx = &a,
                              .writes = wa,
                              .n_writes = 2};
        pcs_system_desc db = {.name = "u2.a",
                              .stage = PCS_STAGE_HEAT,
                              .fn = par_run,
                              .ctx = &b,
                              .writes = &st2,
                              .n_writes = 1};
        cr_assert_eq(pcs_system_register(w, &da, NULL), PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(pcs_system_register(w, &db, NULL), PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(pcs_world_gate_add(w, "u2.", gate, 0, NULL), PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(pcs_world_set_parallel_units(w, parallel), PCS_OK);
        pcs_exec *pool = par_pool(w, 2);
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
        uint32_t n;
        const pcs_event *e = pcs_world_events(w, &n);
        cr_assert_eq(n, 1, "parallel %d: u2.a is frozen by u1.a before it runs", parallel);
        cr_assert_eq(e[0].kind, 1001);
        pcs_world_destroy(w);
        pcs_exec_destroy(pool);
    }
}

/* ---- the default scenario ---------------------------------------------------- */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* The default scenario as `pcsim run` ticks it, for @p ticks (0: the whole
 * run), with parallel units @p parallel and @p workers (NO_EXEC: none);
 * returns the final state hash, and in *@p events a hash of every tick's
 * event list. No allocation from the world heap while it ticks. */
static uint64_t par_scenario(int parallel, int workers, uint64_t ticks, uint64_t *events)
{
    pcs_scenario *scn = NULL;
    pcs_world *w = NULL;
    pcs_station *st = NULL;
    pcs_exec *pool = NULL;
    cr_assert_eq(pcs_scenario_default(&scn), PCS_OK, "%s", pcs_last_error());
    pcs_world_def cfg = pcs_scenario_world_def(scn);
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_station_add(w, scn, &st), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_set_parallel_units(w, parallel), PCS_OK);
    if (workers != NO_EXEC)
        pool = par_pool(w, workers);
    uint32_t n = pcs_scenario_action_count(scn), next = 0;
    if (!ticks)
        ticks = pcs_scenario_run_params(scn).run_ticks;
    *events = UINT64_C(0xcbf29ce484222325);
    uint64_t allocs = pcs_world_alloc_count(w);
    for (uint64_t t = 0; t < ticks; t++) {
        for (; next < n && pcs_scenario_action_get(scn, next)->tick <= t; next++) {
            pcs_command cmd;
            cr_assert_eq(pcs_station_script_command(st, scn, next, &cmd), PCS_OK, "%s",
                         pcs_last_error());
            cr_assert_eq(pcs_command_submit(w, &cmd), PCS_OK, "%s", pcs_last_error());
        }
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "tick %" PRIu64 ": %s", t, pcs_last_error());
        uint32_t ne;
        const pcs_event *e = pcs_world_events(w, &ne);
        *events = fnv(fnv(*events, &ne, sizeof ne), e, ne * sizeof *e);
    }
    cr_assert_eq(pcs_world_alloc_count(w), allocs,
                 "turned on last, the sections are built before the first tick");
    pcs_exec_stats xs;
    if (pool && parallel && pcs_exec_stats_get(pool, &xs) == PCS_OK) {
        /* 10 sections of 4 units a tick (pcsim info --schedule), through the pool */
        uint64_t chunks = xs.chunks_worker + xs.chunks_stolen;
        cr_assert_geq(chunks, 40 * ticks, "%" PRIu64 " chunks in %" PRIu64 " ticks", chunks, ticks);
        cr_log_info("workers %d: %" PRIu64 " chunks by workers, %" PRIu64 " by the host", workers,
                    xs.chunks_worker, xs.chunks_stolen);
    }
    uint64_t hash = pcs_world_state_hash(w);
    pcs_station_destroy(st);
    pcs_world_destroy(w);
    pcs_exec_destroy(pool);
    pcs_scenario_destroy(scn);
    return hash;
}

/* 1300 ticks (65 s): the first script action (60 s) and a slow-job period
 * boundary every 20 ticks; every tick's event list compared. */
Test(par_stage, the_station_window_is_the_serial_one_for_0_1_2_workers)
{
    uint64_t ev_serial, ev;
    uint64_t serial = par_scenario(0, NO_EXEC, 1300, &ev_serial);
    for (int workers = 0; workers <= 2; workers++) {
        cr_assert_eq(par_scenario(1, workers, 1300, &ev), serial, "workers %d", workers);
        cr_assert_eq(ev, ev_serial, "workers %d: event lists", workers);
    }
}

#if !defined(__SANITIZE_ADDRESS__)
/* The pinned hash (tests/test_access_check.c, from `pcsim run --seconds
 * 900`) with the parallel stage on and @p workers (oversubscribed: 2
 * workers on 2 cores interleave most); one test per count, so Criterion's
 * jobs run them side by side. `make determinism` runs 0 and 2 through the
 * CLI. */
static void par_expect_pinned_hash(int workers)
{
    uint64_t ev;
    uint64_t h = par_scenario(1, workers, 0, &ev);
    cr_assert_eq(h, UINT64_C(0x3ebfedf604abb380), "workers %d: hash %016" PRIx64, workers, h);
}

Test(par_stage, the_default_scenario_keeps_its_hash_with_parallel_units_0_workers)
{
    par_expect_pinned_hash(0);
}

Test(par_stage, the_default_scenario_keeps_its_hash_with_parallel_units_1_worker)
{
    par_expect_pinned_hash(1);
}

Test(par_stage, the_default_scenario_keeps_its_hash_with_parallel_units_2_workers)
{
    par_expect_pinned_hash(2);
}
#endif

/* The pool goes first (pcs_exec_destroy revokes it from the world, freeing
 * the sections' slots with the jobs'): the world's next ticks run every
 * chunk on the host, with the serial result; a new pool binds them again. */
Test(par_stage, a_pool_destroyed_under_the_world_leaves_the_host_running_the_chunks)
{
    par_world a, b;
    par_make(&a, 0, NO_EXEC, 64, 0, 0);
    par_make(&b, 1, 1, 64, 0, 0);
    for (int t = 0; t < 9; t++) {
        if (t == 3) {
            pcs_exec_destroy(b.pool);
            b.pool = NULL;
        }
        if (t == 6)
            b.pool = par_pool(b.w, 2);
        par_tick x, y;
        par_tick_once(&a, &x);
        par_tick_once(&b, &y);
        cr_assert_eq(y.st, PCS_OK, "tick %d: %s", t, y.msg);
        cr_assert_eq(y.n, x.n);
        cr_assert(memcmp(y.ev, x.ev, sizeof x.ev) == 0, "tick %d: events differ", t);
    }
    pcs_exec_stats xs;
    cr_assert_eq(pcs_exec_stats_get(b.pool, &xs), PCS_OK);
    cr_assert_eq(xs.chunks_worker + xs.chunks_stolen, 6,
                 "ticks 6-8: 2 chunks each on the new pool");
    cr_assert_eq(pcs_world_state_hash(b.w), pcs_world_state_hash(a.w));
    par_free(&a);
    par_free(&b);
}
