/**
 * @file test_world.c
 * @brief World: config validation, stage order, conflicts, failing systems,
 *        events, channels, state hash, and zero allocations per tick.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/pcsim.h"
#include "tests/alloc_count.h"
#include "tests/world_fixture.h"

Test(world_config, defaults_are_valid_and_documented_values)
{
    pcs_world_def cfg;
    cr_assert_eq(pcs_world_default(&cfg), PCS_OK);
    cr_assert_eq(pcs_world_def_validate(&cfg), PCS_OK);
    cr_assert_float_eq(cfg.dt_s, 0.05, 0.0);
    cr_assert_float_eq(cfg.k_slow, 72.0, 0.0);
    cr_assert_float_eq(cfg.k_storage, 8766.0, 0.0);
    cr_assert_eq(cfg.commands_per_tick, 512);
    cr_assert_eq(cfg.mpsc_capacity, 4096);
    cr_assert_eq(cfg.snapshot_buffers, 4);
    cr_assert_float_eq(cfg.slow_join_timeout_s, 0.005, 0.0);
}

static void expect_rejected(pcs_world_def cfg, const char *field)
{
    pcs_world *w = (pcs_world *)0x1;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_E_INVAL, "field %s", field);
    cr_assert(strstr(pcs_last_error(), field) != NULL, "message '%s' names %s",
              pcs_last_error(), field);
    cr_assert_eq(w, (pcs_world *)0x1, "out untouched on failure");
}

Test(world_config, each_bad_field_is_named)
{
    pcs_world_def d;
    pcs_world_default(&d);
    pcs_world_def c;
    c = d, c.dt_s = 0.0, expect_rejected(c, "dt_s");
    c = d, c.dt_s = NAN, expect_rejected(c, "dt_s");
    c = d, c.k_slow = -1.0, expect_rejected(c, "k_slow");
    c = d, c.k_storage = INFINITY, expect_rejected(c, "k_storage");
    c = d, c.commands_per_tick = 0, expect_rejected(c, "commands_per_tick");
    c = d, c.mpsc_capacity = 0, expect_rejected(c, "mpsc_capacity");
    c = d, c.max_sources = 5000, expect_rejected(c, "max_sources");
    c = d, c.event_capacity = 1, expect_rejected(c, "event_capacity");
    c = d, c.journal_capacity = 0, expect_rejected(c, "journal_capacity");
    c = d, c.snapshot_buffers = 2, expect_rejected(c, "snapshot_buffers");
    c = d, c.workers = 1000, expect_rejected(c, "workers");
    c = d, c.slow_join_timeout_s = -0.1, expect_rejected(c, "slow_join_timeout_s");
}

/* A system that appends its tag to a trace, so tests can see the run order. */
typedef struct trace {
    char log[256];
    int fail_on_tick;
} trace;

typedef struct tagged {
    trace *t;
    char tag;
} tagged;

static pcs_status append_tag(pcs_world *w, void *ctx)
{
    tagged *g = ctx;
    size_t n = strlen(g->t->log);
    if (n + 1 < sizeof g->t->log)
        g->t->log[n] = g->tag;
    if (g->tag == 'X' && (int)pcs_world_clock(w)->tick == g->t->fail_on_tick)
        return pcs_error_set(PCS_E_STATE, "system X failed on purpose");
    return PCS_OK;
}

static void add_system(pcs_world *w, tagged *g, const char *name, pcs_stage stage, int32_t prio,
                       const uint32_t *reads, uint32_t nr, const uint32_t *writes, uint32_t nw,
                       pcs_status want)
{
    pcs_system_desc d = {.name = name, .stage = stage, .priority = prio, .fn = append_tag,
                         .ctx = g, .reads = reads, .n_reads = nr, .writes = writes,
                         .n_writes = nw};
    cr_assert_eq(pcs_system_register(w, &d, NULL), want, "%s: %s", name, pcs_last_error());
}

Test(stages, systems_run_in_stage_then_priority_then_id_order)
{
    pcs_world *w = wfx_world();
    static trace t = {.fail_on_tick = -1};
    static tagged a = {&t, 'a'}, b = {&t, 'b'}, c = {&t, 'c'}, d = {&t, 'd'};
    add_system(w, &d, "d", PCS_STAGE_ALARMS, 0, NULL, 0, NULL, 0, PCS_OK);
    add_system(w, &c, "c", PCS_STAGE_KINETICS, 5, NULL, 0, NULL, 0, PCS_OK);
    add_system(w, &b, "b", PCS_STAGE_KINETICS, -1, NULL, 0, NULL, 0, PCS_OK);
    add_system(w, &a, "a", PCS_STAGE_COMMANDS, 0, NULL, 0, NULL, 0, PCS_OK);
    cr_assert_eq(pcs_system_count(w, PCS_STAGE_KINETICS), 2);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_str_eq(t.log, "abcd");
    pcs_world_destroy(w);
}

Test(stages, conflicting_access_refused_naming_both_systems)
{
    pcs_world *w = wfx_world();
    static trace t;
    static tagged g = {&t, 'g'};
    uint32_t s1, s2;
    cr_assert_eq(pcs_store_register(w, "power", 8, 4, PCS_STORE_STATE, &s1), PCS_OK);
    cr_assert_eq(pcs_store_register(w, "temp", 8, 4, PCS_STORE_STATE, &s2), PCS_OK);
    add_system(w, &g, "kinetics", PCS_STAGE_KINETICS, 0, &s2, 1, &s1, 1, PCS_OK);
    /* Second writer of 'power' in the same stage. */
    add_system(w, &g, "rogue", PCS_STAGE_KINETICS, 0, NULL, 0, &s1, 1, PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "'rogue'") && strstr(pcs_last_error(), "'kinetics'"));
    cr_assert(strstr(pcs_last_error(), "'power'") != NULL);
    /* A reader of 'power' in the same stage. */
    add_system(w, &g, "peek", PCS_STAGE_KINETICS, 0, &s1, 1, NULL, 0, PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "'peek' reads store 'power' that 'kinetics' writes"));
    /* A writer of what 'kinetics' reads. */
    add_system(w, &g, "heat", PCS_STAGE_KINETICS, 0, NULL, 0, &s2, 1, PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "'heat' writes store 'temp' that 'kinetics' reads"));
    /* The same accesses are fine in another stage: data moves forward. */
    add_system(w, &g, "heat2", PCS_STAGE_HEAT, 0, &s1, 1, &s2, 1, PCS_OK);
    pcs_world_destroy(w);
}

Test(stages, failing_system_stops_tick_and_clock_does_not_advance)
{
    pcs_world *w = wfx_world();
    static trace t = {.fail_on_tick = 1};
    static tagged x = {&t, 'X'}, after = {&t, 'z'};
    add_system(w, &x, "x", PCS_STAGE_HEAT, 0, NULL, 0, NULL, 0, PCS_OK);
    add_system(w, &after, "after", PCS_STAGE_SENSORS, 0, NULL, 0, NULL, 0, PCS_OK);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(pcs_world_clock(w)->tick, 1);
    memset(t.log, 0, sizeof t.log);
    cr_assert_eq(pcs_world_tick(w), PCS_E_STATE);
    cr_assert_str_eq(pcs_last_error(), "system X failed on purpose");
    cr_assert_eq(pcs_world_clock(w)->tick, 1, "clock commits only after a successful tick");
    cr_assert_str_eq(t.log, "X", "later stages did not run: log %s", t.log);
    pcs_world_destroy(w);
}

Test(stages, registration_after_first_tick_is_refused)
{
    pcs_world *w = wfx_world();
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    uint32_t id;
    cr_assert_eq(pcs_store_register(w, "late", 8, 1, PCS_STORE_STATE, &id), PCS_E_STATE);
    cr_assert(strstr(pcs_last_error(), "sealed") != NULL);
    cr_assert_null(pcs_world_alloc(w, 16));
    pcs_world_destroy(w);
}

static pcs_status emit_many(pcs_world *w, void *ctx)
{
    uint32_t n = *(uint32_t *)ctx;
    for (uint32_t i = 0; i < n; i++)
        pcs_event_emit(w, PCS_EV_MODEL_BASE, i, (double)i, 0, 0, 0);
    return PCS_OK;
}

typedef struct delivered {
    uint32_t calls, count;
    uint32_t last_kind;
} delivered;

static void on_events(void *ctx, const pcs_event *ev, uint32_t n)
{
    delivered *d = ctx;
    d->calls++;
    d->count = n;
    d->last_kind = ev[n - 1].kind;
}

Test(events, overflow_is_counted_and_reported_as_an_event)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.event_capacity = 8;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
    static uint32_t n_emit = 10;
    pcs_system_desc d = {.name = "emitter", .stage = PCS_STAGE_SENSORS, .fn = emit_many,
                         .ctx = &n_emit};
    cr_assert_eq(pcs_system_register(w, &d, NULL), PCS_OK);
    static delivered got;
    pcs_world_set_event_callback(w, on_events, &got);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    uint32_t n;
    const pcs_event *ev = pcs_world_events(w, &n);
    /* Capacity 8 keeps one slot for the overflow event: 7 kept, 3 dropped. */
    cr_assert_eq(n, 8);
    cr_assert_eq(ev[6].subject, 6);
    cr_assert_eq(ev[7].kind, PCS_EV_EVENT_OVERFLOW);
    cr_assert_float_eq(ev[7].values[0], 3.0, 0.0);
    cr_assert_eq(ev[7].tick, 0);
    cr_assert_eq(pcs_world_events_dropped(w), 3);
    cr_assert_eq(got.calls, 1);
    cr_assert_eq(got.count, 8);
    cr_assert_eq(got.last_kind, PCS_EV_EVENT_OVERFLOW);
    pcs_world_destroy(w);
}

Test(channels, register_find_and_read)
{
    pcs_world *w = wfx_world();
    uint32_t f, u, id, id2;
    cr_assert_eq(pcs_store_register(w, "core", 8, 2, PCS_STORE_STATE, &f), PCS_OK);
    cr_assert_eq(pcs_store_register(w, "flags", 4, 1, PCS_STORE_STATE, &u), PCS_OK);
    cr_assert_eq(pcs_channel_register(w, "u1.core.power", "W", PCS_CHANNEL_F64, f, 1, &id),
                 PCS_OK);
    cr_assert_eq(pcs_channel_register(w, "u1.core.flags", "", PCS_CHANNEL_U32, u, 0, &id2),
                 PCS_OK);
    ((double *)pcs_store_data(w, f))[1] = 3.4e9;
    ((uint32_t *)pcs_store_data(w, u))[0] = 5;
    uint32_t found;
    cr_assert_eq(pcs_channel_find(w, "u1.core.power", &found), PCS_OK);
    cr_assert_eq(found, id);
    cr_assert_float_eq(pcs_channel_value(w, id), 3.4e9, 0.0);
    cr_assert_float_eq(pcs_channel_value(w, id2), 5.0, 0.0);
    pcs_channel_info info;
    cr_assert_eq(pcs_channel_get(w, id, &info), PCS_OK);
    cr_assert_str_eq(info.unit, "W");
    cr_assert_eq(pcs_channel_find(w, "u9.nothing", &found), PCS_E_NOTFOUND);
    cr_assert(strstr(pcs_last_error(), "u9.nothing") != NULL);
    /* Bad registrations. */
    cr_assert_eq(pcs_channel_register(w, "u1.core.power", "W", PCS_CHANNEL_F64, f, 0, NULL),
                 PCS_E_INVAL);
    cr_assert_eq(pcs_channel_register(w, "bad..name", "W", PCS_CHANNEL_F64, f, 0, NULL),
                 PCS_E_INVAL);
    cr_assert_eq(pcs_channel_register(w, "u1.x", "W", PCS_CHANNEL_F64, f, 2, NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_channel_register(w, "u1.y", "W", PCS_CHANNEL_U32, f, 0, NULL), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "4-byte") != NULL);
    pcs_world_destroy(w);
}

/* A system that writes the tick into a store: state the hash must follow. */
static pcs_status write_tick(pcs_world *w, void *ctx)
{
    uint32_t store = *(uint32_t *)ctx;
    double *x = pcs_store_data(w, store);
    x[0] += (double)pcs_world_clock(w)->tick;
    return PCS_OK;
}

Test(hash, same_state_same_hash_and_one_bit_changes_it)
{
    static uint32_t sa, sb;
    pcs_world *a = wfx_hashed_world("w", 8192, write_tick, &sa);
    pcs_world *b = wfx_hashed_world("w", 8192, write_tick, &sb);
    for (int i = 0; i < 100; i++) {
        cr_assert_eq(pcs_world_tick(a), PCS_OK);
        cr_assert_eq(pcs_world_tick(b), PCS_OK);
    }
    uint64_t ha = pcs_world_state_hash(a);
    cr_assert_eq(ha, pcs_world_state_hash(b));
    cr_assert_eq(ha, pcs_world_state_hash(a), "hashing does not change state");
    unsigned char *bytes = pcs_store_data(b, sb);
    bytes[40000] ^= 0x10;
    cr_assert_neq(ha, pcs_world_state_hash(b));
    bytes[40000] ^= 0x10;
    cr_assert_eq(ha, pcs_world_state_hash(b));
    cr_assert_eq(pcs_world_tick(a), PCS_OK);
    cr_assert_neq(ha, pcs_world_state_hash(a), "the tick is part of the hash");
    pcs_world_destroy(a);
    pcs_world_destroy(b);
}

Test(hash, scratch_stores_are_not_hashed)
{
    pcs_world *w = wfx_world();
    uint32_t s;
    cr_assert_eq(pcs_store_register(w, "tmp", 8, 4, PCS_STORE_SCRATCH, &s), PCS_OK);
    uint64_t h = pcs_world_state_hash(w);
    ((double *)pcs_store_data(w, s))[0] = 1.0;
    cr_assert_eq(pcs_world_state_hash(w), h);
    pcs_world_destroy(w);
}

static pcs_status submit_and_emit(pcs_world *w, void *ctx)
{
    (void)ctx;
    pcs_event_emit(w, PCS_EV_MODEL_BASE + 1, 0, 1, 2, 3, 4);
    return PCS_OK;
}

static pcs_status on_noop(pcs_world *w, void *ctx, const pcs_command *c)
{
    (void)w;
    (void)ctx;
    (void)c;
    return PCS_OK;
}

Test(alloc, ten_thousand_ticks_allocate_nothing)
{
    static uint32_t s;
    pcs_world *w = wfx_hashed_world("w", 8192, write_tick, &s);
    pcs_system_desc d = {.name = "emit", .stage = PCS_STAGE_ALARMS, .fn = submit_and_emit};
    cr_assert_eq(pcs_system_register(w, &d, NULL), PCS_OK);
    cr_assert_eq(pcs_command_handler_register(w, 3, on_noop, NULL), PCS_OK);
    cr_assert_eq(pcs_world_tick(w), PCS_OK); /* seal outside the measured window */
    uint64_t heap_before = pcs_world_alloc_count(w);
    pcs_command c = {.kind = 3};
    pcs_test_alloc_begin();
    for (int i = 0; i < 10000; i++) {
        pcs_command_submit(w, &c);
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    }
    uint64_t mallocs = pcs_test_alloc_end();
    cr_assert_eq(mallocs, 0, "heap allocations during 10,000 ticks");
    cr_assert_eq(pcs_world_alloc_count(w), heap_before, "world-heap allocations during ticks");
    cr_assert_eq(pcs_journal_count(w), 10000);
    pcs_world_destroy(w);
}

Test(alloc, counter_sees_a_malloc)
{
    /* Proves the counting hook works, so the zero above means something. */
    pcs_test_alloc_begin();
    void *volatile p = malloc(24);
    uint64_t n = pcs_test_alloc_end();
    free(p);
    cr_assert_eq(n, 1);
}

static int cleanup_order[4];
static int n_cleaned;

static void cleanup(void *ctx)
{
    cleanup_order[n_cleaned++] = *(int *)ctx;
}

Test(world, destroy_callbacks_run_in_reverse_order)
{
    pcs_world *w = wfx_world();
    static int one = 1, two = 2;
    cr_assert_eq(pcs_world_on_destroy(w, cleanup, &one), PCS_OK);
    cr_assert_eq(pcs_world_on_destroy(w, cleanup, &two), PCS_OK);
    cr_assert_eq(pcs_world_on_destroy(w, NULL, &two), PCS_E_INVAL);
    pcs_world_destroy(w);
    cr_assert_eq(n_cleaned, 2);
    cr_assert_eq(cleanup_order[0], 2);
    cr_assert_eq(cleanup_order[1], 1);
}

static void observe(void *ctx, int paused)
{
    (void)ctx, (void)paused;
}

/* Both hook lists (pcs_hook_add, engine/world.c) refuse the same three ways,
 * each message naming the public call it came from. */
Test(world, hooks_refuse_a_null_world_a_null_fn_and_a_sealed_world_naming_the_call)
{
    static int one = 1;
    cr_assert_eq(pcs_world_on_destroy(NULL, cleanup, &one), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(), "pcs_world_on_destroy: world is NULL");
    cr_assert_eq(pcs_world_on_run_state(NULL, observe, &one), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(), "pcs_world_on_run_state: world is NULL");
    pcs_world *w = wfx_world();
    cr_assert_eq(pcs_world_on_destroy(w, NULL, &one), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(), "pcs_world_on_destroy: fn is NULL");
    cr_assert_eq(pcs_world_on_run_state(w, NULL, &one), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(), "pcs_world_on_run_state: fn is NULL");
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(pcs_world_on_destroy(w, cleanup, &one), PCS_E_STATE);
    cr_assert(strstr(pcs_last_error(), "pcs_world_on_destroy: the world is sealed") != NULL, "%s",
              pcs_last_error());
    cr_assert_eq(pcs_world_on_run_state(w, observe, &one), PCS_E_STATE);
    cr_assert(strstr(pcs_last_error(), "pcs_world_on_run_state: the world is sealed") != NULL, "%s",
              pcs_last_error());
    n_cleaned = 0;
    pcs_world_destroy(w);
    cr_assert_eq(n_cleaned, 0, "no refused cleanup was kept");
}

Test(channels, many_names_resolve_through_the_index)
{
    pcs_world *w = wfx_world();
    uint32_t s;
    enum { N = 20000 };
    cr_assert_eq(pcs_store_register(w, "many", 8, N, PCS_STORE_STATE, &s), PCS_OK);
    char name[32];
    for (uint32_t i = 0; i < N; i++) {
        snprintf(name, sizeof name, "u%u.ch%u", i % 7, i);
        uint32_t id;
        cr_assert_eq(pcs_channel_register(w, name, "", PCS_CHANNEL_F64, s, i, &id), PCS_OK);
        cr_assert_eq(id, i);
    }
    for (uint32_t i = 0; i < N; i += 997) {
        snprintf(name, sizeof name, "u%u.ch%u", i % 7, i);
        uint32_t id = UINT32_MAX;
        cr_assert_eq(pcs_channel_find(w, name, &id), PCS_OK, "%s", name);
        cr_assert_eq(id, i);
    }
    cr_assert_eq(pcs_channel_register(w, "u3.ch3", "", PCS_CHANNEL_F64, s, 0, NULL), PCS_E_INVAL,
                 "a duplicate after many growths is still found");
    uint32_t id;
    cr_assert_eq(pcs_channel_find(w, "u3.ch20000", &id), PCS_E_NOTFOUND);
    pcs_world_destroy(w);
}
