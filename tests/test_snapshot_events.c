/**
 * @file test_snapshot_events.c
 * @brief The event log on one thread: order, fields, cursors, exact missed counts.
 *
 * An ALARMS-stage system emits `per_tick` events per tick; event number k
 * (counting from 0 over the whole run) carries values[0] = k, so every
 * expected number below is arithmetic on ticks and the ring capacity.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "pcsim/pcsim.h"

typedef struct evfix {
    pcs_world *w;
    pcs_snapshot_pool *pool;
    uint32_t per_tick;
    uint64_t emitted;
} evfix;

static pcs_status evfix_emit(pcs_world *w, void *ctx)
{
    evfix *fx = ctx;
    for (uint32_t i = 0; i < fx->per_tick; i++) {
        pcs_status st = pcs_event_emit(w, PCS_EV_MODEL_BASE + 7, i, (double)fx->emitted, -1.0, 2.5,
                                       (double)pcs_world_clock(w)->tick);
        if (st != PCS_OK)
            return st;
        fx->emitted++;
    }
    return PCS_OK;
}

static void evfix_make(evfix *fx, uint32_t per_tick, uint32_t capacity)
{
    *fx = (evfix){.per_tick = per_tick};
    pcs_world_def cfg;
    cr_assert_eq(pcs_world_default(&cfg), PCS_OK);
    cr_assert_eq(pcs_world_create(&cfg, &fx->w), PCS_OK);
    pcs_system_desc d = {.name = "t.emit", .stage = PCS_STAGE_ALARMS, .fn = evfix_emit, .ctx = fx};
    cr_assert_eq(pcs_system_register(fx->w, &d, NULL), PCS_OK);
    pcs_snapshot_options opt = {.event_log_capacity = capacity};
    cr_assert_eq(pcs_snapshot_attach(fx->w, &opt, &fx->pool), PCS_OK, "%s", pcs_last_error());
}

static void evfix_ticks(evfix *fx, int n)
{
    for (int i = 0; i < n; i++)
        cr_assert_eq(pcs_world_tick(fx->w), PCS_OK, "%s", pcs_last_error());
}

Test(snapshot_events, polls_every_event_in_order_with_its_fields)
{
    evfix fx;
    evfix_make(&fx, 3, 64);
    pcs_reader *r;
    cr_assert_eq(pcs_reader_open(fx.pool, &r), PCS_OK);
    evfix_ticks(&fx, 4); /* 12 events, ticks 0..3 */
    pcs_event ev[32];
    uint32_t n = 0;
    uint64_t missed = 99;
    cr_assert_eq(pcs_events_poll(r, ev, 32, &n, &missed), PCS_OK);
    cr_expect_eq(n, 12u);
    cr_expect_eq(missed, 0u);
    for (uint32_t k = 0; k < n; k++) {
        cr_expect_eq(ev[k].kind, PCS_EV_MODEL_BASE + 7);
        cr_expect_eq(ev[k].subject, k % 3);
        cr_expect_eq(ev[k].tick, k / 3);
        cr_expect_eq(ev[k].values[0], (double)k);
        cr_expect_eq(ev[k].values[1], -1.0);
        cr_expect_eq(ev[k].values[2], 2.5);
        cr_expect_eq(ev[k].values[3], (double)(k / 3));
    }
    cr_assert_eq(pcs_events_poll(r, ev, 32, &n, &missed), PCS_OK);
    cr_expect_eq(n, 0u); /* nothing new */
    pcs_reader_close(r);
    pcs_world_destroy(fx.w);
}

Test(snapshot_events, max_limits_a_poll_and_the_rest_follows)
{
    evfix fx;
    evfix_make(&fx, 5, 64);
    pcs_reader *r;
    cr_assert_eq(pcs_reader_open(fx.pool, &r), PCS_OK);
    evfix_ticks(&fx, 2); /* 10 events */
    pcs_event ev[4];
    uint32_t n;
    double next = 0.0;
    uint32_t sizes[4] = {4, 4, 2, 0};
    for (int call = 0; call < 4; call++) {
        cr_assert_eq(pcs_events_poll(r, ev, 4, &n, NULL), PCS_OK);
        cr_expect_eq(n, sizes[call], "call %d", call);
        for (uint32_t k = 0; k < n; k++, next += 1.0)
            cr_expect_eq(ev[k].values[0], next);
    }
    pcs_reader_close(r);
    pcs_world_destroy(fx.w);
}

/* Capacity 16, 40 events unread: events 0..23 were overwritten (missed = 24),
 * events 24..39 are the ring's contents. */
Test(snapshot_events, a_reader_that_fell_behind_gets_an_exact_missed_count)
{
    evfix fx;
    evfix_make(&fx, 8, 16);
    pcs_reader *r;
    cr_assert_eq(pcs_reader_open(fx.pool, &r), PCS_OK);
    evfix_ticks(&fx, 5);
    pcs_event ev[64];
    uint32_t n;
    uint64_t missed;
    cr_assert_eq(pcs_events_poll(r, ev, 64, &n, &missed), PCS_OK);
    cr_expect_eq(missed, 24u);
    cr_expect_eq(n, 16u);
    for (uint32_t k = 0; k < n; k++)
        cr_expect_eq(ev[k].values[0], (double)(24 + k));
    evfix_ticks(&fx, 1); /* events 40..47: in time, nothing missed */
    cr_assert_eq(pcs_events_poll(r, ev, 64, &n, &missed), PCS_OK);
    cr_expect_eq(missed, 0u);
    cr_expect_eq(n, 8u);
    cr_expect_eq(ev[0].values[0], 40.0);
    pcs_reader_stats st;
    cr_assert_eq(pcs_reader_stats_get(r, &st), PCS_OK);
    cr_expect_eq(st.events_read, 24u);
    cr_expect_eq(st.events_missed, 24u);
    pcs_reader_close(r);
    pcs_world_destroy(fx.w);
}

Test(snapshot_events, a_reader_sees_only_events_after_it_opened)
{
    evfix fx;
    evfix_make(&fx, 2, 16);
    evfix_ticks(&fx, 3); /* events 0..5 before the reader exists */
    pcs_reader *r;
    cr_assert_eq(pcs_reader_open(fx.pool, &r), PCS_OK);
    evfix_ticks(&fx, 1);
    pcs_event ev[8];
    uint32_t n;
    uint64_t missed;
    cr_assert_eq(pcs_events_poll(r, ev, 8, &n, &missed), PCS_OK);
    cr_expect_eq(n, 2u);
    cr_expect_eq(missed, 0u);
    cr_expect_eq(ev[0].values[0], 6.0);
    cr_expect_eq(ev[0].tick, 3u);
    pcs_reader_close(r);
    pcs_world_destroy(fx.w);
}

Test(snapshot_events, two_readers_have_independent_cursors)
{
    evfix fx;
    evfix_make(&fx, 4, 16);
    pcs_reader *a, *b;
    cr_assert_eq(pcs_reader_open(fx.pool, &a), PCS_OK);
    cr_assert_eq(pcs_reader_open(fx.pool, &b), PCS_OK);
    evfix_ticks(&fx, 2);
    pcs_event ev[16];
    uint32_t n;
    uint64_t missed;
    cr_assert_eq(pcs_events_poll(a, ev, 16, &n, &missed), PCS_OK);
    cr_expect_eq(n, 8u);
    evfix_ticks(&fx, 3); /* 20 events total; b is 20 behind, a is 12 behind */
    cr_assert_eq(pcs_events_poll(b, ev, 16, &n, &missed), PCS_OK);
    cr_expect_eq(missed, 4u);
    cr_expect_eq(n, 16u);
    cr_expect_eq(ev[0].values[0], 4.0);
    cr_assert_eq(pcs_events_poll(a, ev, 16, &n, &missed), PCS_OK);
    cr_expect_eq(missed, 0u);
    cr_expect_eq(n, 12u);
    cr_expect_eq(ev[0].values[0], 8.0);
    pcs_reader_close(a);
    pcs_reader_close(b);
    pcs_world_destroy(fx.w);
}

static pcs_status evfix_emit_ignoring_overflow(pcs_world *w, void *ctx)
{
    (void)ctx;
    for (int i = 0; i < 5; i++)
        (void)pcs_event_emit(w, PCS_EV_MODEL_BASE, (uint32_t)i, 0, 0, 0, 0);
    return PCS_OK;
}

/* event_capacity 4 keeps one slot for the overflow event (event.h): of five
 * events three fit, two are dropped, and PCS_EV_EVENT_OVERFLOW(2) closes the
 * tick. The log carries all four, in that order. */
Test(snapshot_events, engine_overflow_event_reaches_the_log)
{
    pcs_world_def cfg;
    cr_assert_eq(pcs_world_default(&cfg), PCS_OK);
    cfg.event_capacity = 4;
    pcs_world *w;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
    pcs_system_desc d = {
        .name = "t.emit5", .stage = PCS_STAGE_ALARMS, .fn = evfix_emit_ignoring_overflow};
    cr_assert_eq(pcs_system_register(w, &d, NULL), PCS_OK);
    pcs_snapshot_pool *pool;
    cr_assert_eq(pcs_snapshot_attach(w, NULL, &pool), PCS_OK);
    pcs_reader *r;
    cr_assert_eq(pcs_reader_open(pool, &r), PCS_OK);
    cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
    pcs_event ev[8];
    uint32_t n;
    cr_assert_eq(pcs_events_poll(r, ev, 8, &n, NULL), PCS_OK);
    cr_assert_eq(n, 4u);
    for (uint32_t k = 0; k < 3; k++)
        cr_expect_eq(ev[k].subject, k);
    cr_expect_eq(ev[3].kind, (uint32_t)PCS_EV_EVENT_OVERFLOW);
    cr_expect_eq(ev[3].values[0], 2.0);
    pcs_reader_close(r);
    pcs_world_destroy(w);
}

Test(snapshot_events, null_arguments_are_errors)
{
    evfix fx;
    evfix_make(&fx, 1, 16);
    pcs_reader *r;
    cr_assert_eq(pcs_reader_open(fx.pool, &r), PCS_OK);
    pcs_event ev[1];
    uint32_t n;
    cr_expect_eq(pcs_events_poll(NULL, ev, 1, &n, NULL), PCS_E_INVAL);
    cr_expect_eq(pcs_events_poll(r, ev, 1, NULL, NULL), PCS_E_INVAL);
    cr_expect_eq(pcs_events_poll(r, NULL, 1, &n, NULL), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "pcs_events_poll") != NULL);
    cr_expect_eq(pcs_events_poll(r, NULL, 0, &n, NULL), PCS_OK);
    pcs_reader_close(r);
    pcs_world_destroy(fx.w);
}
