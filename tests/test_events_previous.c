/**
 * @file test_events_previous.c
 * @brief Events T to T+1 (event.h, pcs_world_events_previous): a system at
 *        stage PROTECTION reacts at tick T + 1 to an event emitted at tick T,
 *        with no host in between; the previous list survives a failed tick,
 *        a save/load round trip (and the hash with it), is in the state
 *        hash, is the same for 0 and 2 workers, and costs no allocation.
 *
 * The fixture: a SENSORS system emits EV_DEMAND (values[0] = the tick) on
 * the ticks in demand_ticks; a PROTECTION system reads the previous tick's
 * list and, for each EV_DEMAND in it, counts it in STATE store "prot"
 * (prot[0] = demands seen, prot[1] = the tick it saw the last one on,
 * prot[2] = the demand's own tick) and emits EV_TRIP. Nothing else links
 * the two systems: the only way the protection system can react is through
 * the previous tick's events.
 *
 * Its checks are static functions, run in groups by the Tests at the end of
 * the file, one process a group (issue 19's test cost); each group's comment
 * lists what it checks.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/persist_internal.h"
#include "pcsim/pcsim.h"
#include "tests/alloc_count.h"
#include "tests/exec_fixture.h"

enum { EV_DEMAND = PCS_EV_MODEL_BASE + 900, EV_TRIP = PCS_EV_MODEL_BASE + 901 };

typedef struct evfix {
    uint32_t prot;         /* STATE store: 3 doubles */
    uint64_t demand_every; /* emit on ticks t % demand_every == demand_phase (0: never) */
    uint64_t demand_phase;
    uint64_t demand_at;      /* also on this tick (UINT64_MAX: never) */
    uint32_t demands_a_tick; /* how many EV_DEMAND per emitting tick */
    double demand_value;     /* values[1] of each demand */
    uint64_t fail_at;        /* the PROTECTION system fails once on this tick (UINT64_MAX: never) */
    const uint32_t *total;   /* optional: fx.total store id, its value goes in values[2] */
    int seen_same_tick;      /* set if the protection system ever saw a demand of its own tick */
} evfix;

static int demand_tick(const evfix *fx, uint64_t t)
{
    return t == fx->demand_at || (fx->demand_every && t % fx->demand_every == fx->demand_phase);
}

static pcs_status emit_demand(pcs_world *w, void *ctx)
{
    const evfix *fx = ctx;
    uint64_t t = pcs_world_clock(w)->tick;
    if (!demand_tick(fx, t))
        return PCS_OK;
    double total = fx->total ? *(const double *)pcs_store_data(w, *fx->total) : 0.0;
    for (uint32_t i = 0; i < fx->demands_a_tick; i++)
        pcs_event_emit(w, EV_DEMAND, i, (double)t, fx->demand_value, total, 0.0);
    return PCS_OK;
}

static pcs_status protect(pcs_world *w, void *ctx)
{
    evfix *fx = ctx;
    uint64_t t = pcs_world_clock(w)->tick;
    if (t == fx->fail_at) {
        fx->fail_at = UINT64_MAX;
        return pcs_error_set(PCS_E_STATE, "protect: failing tick %llu once", (unsigned long long)t);
    }
    double *prot = pcs_store_data(w, fx->prot);
    uint32_t n = 0;
    const pcs_event *ev = pcs_world_events_previous(w, &n);
    for (uint32_t i = 0; i < n; i++) {
        if (ev[i].kind != EV_DEMAND)
            continue;
        if (ev[i].tick == t)
            fx->seen_same_tick = 1;
        prot[0] += 1.0;
        prot[1] = (double)t;
        prot[2] = ev[i].values[0] + ev[i].values[1] + ev[i].values[2];
        pcs_event_emit(w, EV_TRIP, ev[i].subject, ev[i].values[0], 0.0, 0.0, 0.0);
    }
    return PCS_OK;
}

static void evfix_register(pcs_world *w, evfix *fx)
{
    cr_assert_eq(pcs_store_register(w, "prot", sizeof(double), 3, PCS_STORE_STATE, &fx->prot),
                 PCS_OK, "%s", pcs_last_error());
    pcs_system_desc e = {.name = "t.demand",
                         .stage = PCS_STAGE_SENSORS,
                         .fn = emit_demand,
                         .ctx = fx,
                         .reads = fx->total,
                         .n_reads = fx->total ? 1u : 0u};
    cr_assert_eq(pcs_system_register(w, &e, NULL), PCS_OK, "%s", pcs_last_error());
    pcs_system_desc p = {.name = "t.protect",
                         .stage = PCS_STAGE_PROTECTION,
                         .fn = protect,
                         .ctx = fx,
                         .writes = &fx->prot,
                         .n_writes = 1};
    cr_assert_eq(pcs_system_register(w, &p, NULL), PCS_OK, "%s", pcs_last_error());
}

static void evfix_defaults(evfix *fx)
{
    memset(fx, 0, sizeof *fx);
    fx->demand_at = UINT64_MAX;
    fx->demands_a_tick = 1;
    fx->demand_value = 0.25;
    fx->fail_at = UINT64_MAX;
}

static pcs_world *evfix_world(evfix *fx, uint32_t event_capacity)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    if (event_capacity)
        cfg.event_capacity = event_capacity;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK, "%s", pcs_last_error());
    evfix_register(w, fx);
    return w;
}

static void ticks(pcs_world *w, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
}

static const double *prot_of(pcs_world *w, const evfix *fx)
{
    return pcs_store_data(w, fx->prot);
}

static void protection_reacts_on_the_tick_after_the_event(void)
{
    static evfix fx;
    evfix_defaults(&fx);
    fx.demand_at = 5;
    pcs_world *w = evfix_world(&fx, 0);
    ticks(w, 5); /* ticks 0..4 */
    cr_assert_float_eq(prot_of(w, &fx)[0], 0.0, 0.0);
    ticks(w, 1); /* tick 5 emits the demand; its own PROTECTION stage cannot see it */
    cr_assert_float_eq(prot_of(w, &fx)[0], 0.0, 0.0, "the same tick's events are not previous");
    uint32_t n = 0;
    const pcs_event *ev = pcs_world_events(w, &n);
    cr_assert_eq(n, 1);
    cr_assert_eq(ev[0].kind, EV_DEMAND);
    /* Between ticks, previous = the last completed tick's list (tick 5). */
    const pcs_event *prev = pcs_world_events_previous(w, &n);
    cr_assert_eq(n, 1);
    cr_assert_eq(prev[0].tick, 5);
    ticks(w, 1); /* tick 6 reacts */
    const double *p = prot_of(w, &fx);
    cr_assert_float_eq(p[0], 1.0, 0.0, "one demand seen");
    cr_assert_float_eq(p[1], 6.0, 0.0, "seen on tick 6");
    cr_assert_float_eq(p[2], 5.25, 0.0, "demand of tick 5 with value 0.25");
    ev = pcs_world_events(w, &n);
    cr_assert_eq(n, 1);
    cr_assert_eq(ev[0].kind, EV_TRIP);
    cr_assert_eq(ev[0].tick, 6);
    cr_assert_float_eq(ev[0].values[0], 5.0, 0.0);
    ticks(w, 5);
    cr_assert_float_eq(prot_of(w, &fx)[0], 1.0, 0.0, "a demand is seen once, on one tick only");
    cr_assert_eq(fx.seen_same_tick, 0);
    cr_assert_null(pcs_world_events_previous(NULL, &n));
    cr_assert_eq(n, 0);
    pcs_world_destroy(w);
}

static void the_first_tick_has_no_previous_events(void)
{
    static evfix fx;
    evfix_defaults(&fx);
    fx.demand_every = 1; /* every tick */
    pcs_world *w = evfix_world(&fx, 0);
    uint32_t n = 99;
    pcs_world_events_previous(w, &n);
    cr_assert_eq(n, 0);
    ticks(w, 1);
    cr_assert_float_eq(prot_of(w, &fx)[0], 0.0, 0.0);
    ticks(w, 9); /* ticks 1..9 each see the previous tick's demand */
    cr_assert_float_eq(prot_of(w, &fx)[0], 9.0, 0.0);
    pcs_world_destroy(w);
}

static void the_previous_list_keeps_its_overflow_event(void)
{
    static evfix fx;
    evfix_defaults(&fx);
    fx.demand_at = 2;
    fx.demands_a_tick = 10; /* 8 slots: 7 fit, 3 dropped, the last slot holds the overflow */
    pcs_world *w = evfix_world(&fx, 8);
    ticks(w, 3); /* ticks 0..2 */
    uint32_t n = 0;
    const pcs_event *prev = pcs_world_events_previous(w, &n);
    cr_assert_eq(n, 8, "tick 2's list: 7 demands and the overflow event");
    cr_assert_eq(prev[6].kind, EV_DEMAND);
    cr_assert_eq(prev[7].kind, PCS_EV_EVENT_OVERFLOW);
    cr_assert_float_eq(prev[7].values[0], 3.0, 0.0, "3 demands dropped");
    ticks(w, 1); /* tick 3 reacts to the 7 that fit */
    cr_assert_float_eq(prot_of(w, &fx)[0], 7.0, 0.0);
    pcs_world_events_previous(w, &n);
    cr_assert_eq(n, 7, "tick 3's own 7 trips");
    pcs_world_destroy(w);
}

static void a_failed_tick_is_not_a_previous_tick(void)
{
    static evfix fx;
    evfix_defaults(&fx);
    fx.demand_at = 3;
    fx.fail_at = 4; /* tick 4 fails at PROTECTION, after SENSORS emitted nothing */
    pcs_world *w = evfix_world(&fx, 0);
    ticks(w, 4);
    cr_assert_eq(pcs_world_tick(w), PCS_E_STATE, "the tick fails once");
    uint32_t n = 0;
    const pcs_event *prev = pcs_world_events_previous(w, &n);
    cr_assert_eq(n, 1, "tick 3's list is still the previous one");
    cr_assert_eq(prev[0].tick, 3);
    ticks(w, 1); /* the retry of tick 4 reacts to tick 3's demand */
    cr_assert_float_eq(prot_of(w, &fx)[0], 1.0, 0.0);
    cr_assert_float_eq(prot_of(w, &fx)[1], 4.0, 0.0);
    pcs_world_destroy(w);
}

static void the_previous_list_is_in_the_state_hash(void)
{
    /* Two worlds whose stores are equal at tick 4 but whose tick-3 demands
     * carry different values: the next tick's systems would differ. */
    static evfix fa, fb;
    evfix_defaults(&fa);
    evfix_defaults(&fb);
    fa.demand_at = fb.demand_at = 3;
    fb.demand_value = 0.5;
    pcs_world *a = evfix_world(&fa, 0);
    pcs_world *b = evfix_world(&fb, 0);
    ticks(a, 4);
    ticks(b, 4);
    cr_assert_eq(memcmp(prot_of(a, &fa), prot_of(b, &fb), 3 * sizeof(double)), 0,
                 "the stores are equal");
    cr_assert_neq(pcs_world_state_hash(a), pcs_world_state_hash(b));
    pcs_world_destroy(a);
    pcs_world_destroy(b);
}

static void save_and_load_keep_the_previous_events_and_the_hash(void)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/pcsim-evprev-%d.save", (int)getpid());
    static evfix fa, fb;
    evfix_defaults(&fa);
    evfix_defaults(&fb);
    fa.demand_every = fb.demand_every = 5;
    fa.demand_phase = fb.demand_phase = 4;
    pcs_world *a = evfix_world(&fa, 0);
    pcs_world *b = evfix_world(&fb, 0);
    ticks(a, 5); /* tick 4 emitted a demand: the save holds it, not yet acted on */
    cr_assert_float_eq(prot_of(a, &fa)[0], 0.0, 0.0);
    cr_assert_eq(pcs_world_save(a, path), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_load(b, path), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_state_hash(b), pcs_world_state_hash(a));
    uint32_t n = 0;
    const pcs_event *prev = pcs_world_events_previous(b, &n);
    cr_assert_eq(n, 1);
    cr_assert_eq(prev[0].kind, EV_DEMAND);
    cr_assert_eq(prev[0].tick, 4);
    cr_assert_float_eq(prev[0].values[1], 0.25, 0.0);
    for (int i = 0; i < 20; i++) {
        ticks(a, 1);
        ticks(b, 1);
        cr_assert_eq(pcs_world_state_hash(b), pcs_world_state_hash(a), "tick %d after the load", i);
    }
    cr_assert_float_eq(prot_of(b, &fb)[0], 4.0, 0.0,
                       "the loaded demand was acted on: ticks 5, 10, 15, 20");
    cr_assert_float_eq(prot_of(b, &fb)[1], 20.0, 0.0);

    /* A save at tick 0 has no previous events; loading it empties b's list. */
    pcs_world *c = evfix_world(&fb, 0);
    cr_assert_eq(pcs_world_save(c, path), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_load(b, path), PCS_OK, "%s", pcs_last_error());
    pcs_world_events_previous(b, &n);
    cr_assert_eq(n, 0);
    cr_assert_eq(pcs_world_state_hash(b), pcs_world_state_hash(c));
    unlink(path);
    pcs_world_destroy(a);
    pcs_world_destroy(b);
    pcs_world_destroy(c);
}

static void ticks_allocate_nothing(void)
{
    static evfix fx;
    evfix_defaults(&fx);
    fx.demand_every = 2;
    fx.demands_a_tick = 4;
    pcs_world *w = evfix_world(&fx, 0);
    ticks(w, 2); /* seal */
    uint64_t heap = pcs_world_alloc_count(w);
    pcs_test_alloc_begin();
    ticks(w, 200);
    uint64_t mallocs = pcs_test_alloc_end();
    cr_assert_eq(mallocs, 0, "%llu allocations in 200 ticks", (unsigned long long)mallocs);
    cr_assert_eq(pcs_world_alloc_count(w), heap);
    /* Demands on the even ticks 0..200, seen on 1..201: 101 ticks of 4. */
    cr_assert_float_eq(prot_of(w, &fx)[0], 404.0, 0.0);
    pcs_world_destroy(w);
}

/* The fixture's slow job (exec_fixture.h) feeds the demands' values, so the
 * previous events carry merged slow results: the hashes must not depend on
 * who ran the job. workers < 0: inline, no executor. */
static void det_run(int workers, uint64_t *hashes)
{
    static fx_job job;
    static evfix fx;
    memset(&job, 0, sizeof job);
    job.fail_tick = UINT64_MAX;
    evfix_defaults(&fx);
    fx.demand_every = 7;
    fx.demand_phase = 3;
    fx.demands_a_tick = 2;
    fx.total = &job.total_store;
    pcs_world *w = NULL;
    cr_assert_eq(fx_world(0x5eed0019u, 5.0, &job, &w), PCS_OK, "%s", pcs_last_error());
    evfix_register(w, &fx);
    pcs_exec *pool = NULL;
    if (workers >= 0) {
        pcs_exec_def cfg;
        pcs_exec_default(&cfg);
        cfg.workers = (uint32_t)workers;
        cfg.allow_oversubscribe = true;
        cr_assert_eq(pcs_exec_create(&cfg, &pool), PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(pcs_exec_attach(pool, w), PCS_OK, "%s", pcs_last_error());
    }
    cr_assert_eq(fx_run(w, 600, hashes), PCS_OK, "%s", pcs_last_error());
    cr_assert_gt(prot_of(w, &fx)[0], 100.0, "the protection system acted");
    cr_assert_gt(job.merges, 20, "the slow job ran");
    pcs_world_destroy(w);
    pcs_exec_destroy(pool);
}

static void same_hashes_inline_and_with_0_and_2_workers(void)
{
    uint64_t ref[6], got[6];
    det_run(-1, ref);
    const int workers[] = {0, 2};
    for (int k = 0; k < 2; k++) {
        det_run(workers[k], got);
        for (int i = 0; i < 6; i++)
            cr_assert_eq(got[i], ref[i], "%d workers: hash at tick %d differs", workers[k],
                         100 * (i + 1));
    }
}

/* Edit the u32 at @p at (from the file's end when negative) of the save at
 * @p path, reseal it, and expect the load into @p w to be refused naming
 * @p what, with the world unchanged. */
static void expect_edit_refused(const char *path, pcs_world *w, long at, uint32_t v,
                                const char *what)
{
    static unsigned char buf[1 << 16];
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    size_t pos = at < 0 ? len - (size_t)(-at) : (size_t)at;
    memcpy(buf + pos, &v, sizeof v);
    cr_assert_gt(pcs_persist_reseal(buf, len), 0);
    char bad[80];
    snprintf(bad, sizeof bad, "%s.bad", path);
    f = fopen(bad, "wb");
    fwrite(buf, 1, len, f);
    fclose(f);
    uint64_t before = pcs_world_state_hash(w);
    cr_assert_eq(pcs_world_load(w, bad), PCS_E_CORRUPT, "%s", what);
    cr_assert(strstr(pcs_last_error(), what) != NULL, "'%s' names '%s'", pcs_last_error(), what);
    cr_assert_eq(pcs_world_state_hash(w), before, "a refused load changes nothing");
    unlink(bad);
}

static void a_bad_events_section_is_refused(void)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/pcsim-evbad-%d.save", (int)getpid());
    static evfix fx;
    evfix_defaults(&fx);
    fx.demand_at = 4;
    pcs_world *a = evfix_world(&fx, 8);
    ticks(a, 5);
    cr_assert_eq(pcs_world_save(a, path), PCS_OK, "%s", pcs_last_error());
    /* The section is last: a 16-byte head (count, reserved, tick), 8 slots of 48. */
    const long head = -(16 + 8 * 48);
    expect_edit_refused(path, a, head, 9, "section 'events:previous': count 9 (allowed 0..8");
    expect_edit_refused(path, a, head + 4, 1, "reserved 1 (allowed 0)");
    expect_edit_refused(path, a, head + 8, 3, "tick 3 (allowed 4: the save tick 5 - 1)");
    expect_edit_refused(path, a, head + 16 + 8, 2, "event 0 has tick 2 (allowed 4)");
    expect_edit_refused(path, a, -4, 1,
                        "of the unused slots (after the list's 1 events) is 1 (allowed 0)");
    cr_assert_eq(pcs_world_load(a, path), PCS_OK, "the unedited save loads: %s", pcs_last_error());
    unlink(path);
    pcs_world_destroy(a);
}

/* Issue 19's budget: Criterion runs every Test in its own process, and under
 * ASan a process costs ~0.2 s before it checks anything, so the checks above
 * run grouped, one process per behaviour, in the order listed. Each keeps its
 * own assertions and messages; a failure names the check's line. */

/* Protection sees the previous tick's events; the first tick has none; the overflow event is kept;
 * a failed tick is not a previous tick. */
Test(events_previous, the_previous_ticks_events_reach_the_next_tick)
{
    protection_reacts_on_the_tick_after_the_event();
    the_first_tick_has_no_previous_events();
    the_previous_list_keeps_its_overflow_event();
    a_failed_tick_is_not_a_previous_tick();
}

/* The previous list is hashed, saved and loaded, allocates nothing, hashes alike with any workers,
 * and a bad section is refused. */
Test(events_previous, the_previous_list_in_hash_save_workers_and_allocation)
{
    the_previous_list_is_in_the_state_hash();
    save_and_load_keep_the_previous_events_and_the_hash();
    ticks_allocate_nothing();
    same_hashes_inline_and_with_0_and_2_workers();
    a_bad_events_section_is_refused();
}
