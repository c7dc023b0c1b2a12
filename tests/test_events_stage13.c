/**
 * @file test_events_stage13.c
 * @brief Event overflow stays reported when the emitter runs in stage 13
 *        (EVENTS) itself, after the tick's list has been closed.
 */
#include <criterion/criterion.h>

#include "pcsim/pcsim.h"

typedef struct e13_emitter {
    uint32_t count; /* events this system emits per tick */
    uint32_t base;  /* subject of the first */
} e13_emitter;

static pcs_status e13_emit(pcs_world *w, void *ctx)
{
    const e13_emitter *e = ctx;
    for (uint32_t i = 0; i < e->count; i++)
        pcs_event_emit(w, PCS_EV_MODEL_BASE, e->base + i, 0, 0, 0, 0);
    return PCS_OK;
}

typedef struct e13_seen {
    uint32_t n;
    uint32_t last_kind;
    double last_value;
} e13_seen;

static void e13_on_events(void *ctx, const pcs_event *ev, uint32_t n)
{
    e13_seen *s = ctx;
    s->n = n;
    s->last_kind = n ? ev[n - 1].kind : 0;
    s->last_value = n ? ev[n - 1].values[0] : 0.0;
}

/* Capacity 4 keeps 3 events and one slot for the overflow event. A HEAT
 * system emits @p heat events, an EVENTS-stage system @p late more. */
static pcs_world *e13_world(e13_emitter *heat, e13_emitter *late, e13_seen *seen)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.event_capacity = 4;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
    pcs_system_desc a = {
        .name = "heat-emitter", .stage = PCS_STAGE_HEAT, .fn = e13_emit, .ctx = heat};
    pcs_system_desc b = {
        .name = "late-emitter", .stage = PCS_STAGE_EVENTS, .fn = e13_emit, .ctx = late};
    cr_assert_eq(pcs_system_register(w, &a, NULL), PCS_OK);
    cr_assert_eq(pcs_system_register(w, &b, NULL), PCS_OK);
    cr_assert_eq(pcs_world_set_event_callback(w, e13_on_events, seen), PCS_OK);
    return w;
}

Test(events_stage13, drops_by_a_stage13_system_end_with_an_overflow_event)
{
    static e13_emitter heat = {.count = 3, .base = 0}, late = {.count = 2, .base = 10};
    static e13_seen seen;
    pcs_world *w = e13_world(&heat, &late, &seen);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    uint32_t n;
    const pcs_event *ev = pcs_world_events(w, &n);
    cr_assert_eq(n, 4, "3 kept + the overflow event, got %u", n);
    cr_assert_eq(ev[3].kind, PCS_EV_EVENT_OVERFLOW, "the 2 late drops must not be silent");
    cr_assert_float_eq(ev[3].values[0], 2.0, 0.0);
    cr_assert_eq(pcs_world_events_dropped(w), 2);
    cr_assert_eq(seen.n, 4, "the host callback sees the overflow event too");
    cr_assert_eq(seen.last_kind, PCS_EV_EVENT_OVERFLOW);
    pcs_world_destroy(w);
}

Test(events_stage13, overflow_event_counts_drops_before_and_during_stage13)
{
    static e13_emitter heat = {.count = 5, .base = 0}, late = {.count = 1, .base = 10};
    static e13_seen seen;
    pcs_world *w = e13_world(&heat, &late, &seen);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    uint32_t n;
    const pcs_event *ev = pcs_world_events(w, &n);
    cr_assert_eq(n, 4);
    cr_assert_eq(ev[3].kind, PCS_EV_EVENT_OVERFLOW);
    cr_assert_float_eq(ev[3].values[0], 3.0, 0.0, "2 dropped in HEAT + 1 in EVENTS, got %g",
                       ev[3].values[0]);
    cr_assert_eq(pcs_world_events_dropped(w), 3);
    cr_assert_float_eq(seen.last_value, 3.0, 0.0);
    /* The next tick starts clean: same drops again, not accumulated. */
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    ev = pcs_world_events(w, &n);
    cr_assert_eq(n, 4);
    cr_assert_float_eq(ev[3].values[0], 3.0, 0.0);
    cr_assert_eq(ev[3].tick, 1);
    pcs_world_destroy(w);
}

Test(events_stage13, stage13_events_with_room_are_kept_in_order)
{
    static e13_emitter heat = {.count = 1, .base = 0}, late = {.count = 2, .base = 10};
    static e13_seen seen;
    pcs_world *w = e13_world(&heat, &late, &seen);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    uint32_t n;
    const pcs_event *ev = pcs_world_events(w, &n);
    cr_assert_eq(n, 3);
    cr_assert_eq(ev[0].subject, 0);
    cr_assert_eq(ev[1].subject, 10);
    cr_assert_eq(ev[2].subject, 11);
    cr_assert_eq(pcs_world_events_dropped(w), 0);
    pcs_world_destroy(w);
}
