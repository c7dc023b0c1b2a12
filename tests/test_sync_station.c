/**
 * @file test_sync_station.c
 * @brief Delta sync over a recorded run of the real station (the control
 *        room of tests/sync_room.h, u2 pump 2 tripped 5 s in): the round
 *        trip (every delivered value within its quantum of the truth at its
 *        tick, keyframes exact, events on their tick), the rates at full
 *        budget and the degradation order at half budget (issue 18).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "pcsim/pcsim.h"
#include "tests/alloc_count.h"
#include "tests/sync_room.h"

#define RUN_S 60.0
#define TRIP_TICK 100u /* 5 s in */

static void trip(sync_room *r)
{
    pcs_command c;
    cr_assert_eq(pcs_station_command(r->st, "u2.pump2", "pump_trip", 0.0, &c), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_command_submit(r->world, &c), PCS_OK);
}

/* One tick of the run: the trip at its tick, the world, the hub. */
static void step(sync_room *r, uint64_t t)
{
    if (t == TRIP_TICK)
        trip(r);
    cr_assert_eq(pcs_world_tick(r->world), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_sync_hub_update(r->hub), PCS_OK, "%s", pcs_last_error());
}

static void assert_clean(const room_client *rc, const char *who)
{
    cr_assert_eq(rc->decode_errors, 0u, "%s: %s", who, rc->first_error);
    cr_assert_eq(rc->violations, 0u, "%s: %llu deliveries off; first: %s", who,
                 (unsigned long long)rc->violations, rc->first_error);
    cr_assert_eq(rc->event_late, 0u, "%s: %llu of %llu event changes not on their tick", who,
                 (unsigned long long)rc->event_late, (unsigned long long)rc->event_changes);
}

Test(sync_station, round_trip_keeps_every_delivery_within_its_quantum)
{
    sync_room r;
    cr_assert_eq(sync_room_build(&r, 120.0, 1.0), 0, "%s", r.err);
    uint64_t ticks = (uint64_t)llround(RUN_S / r.dt_s);
    room_client rc;
    cr_assert_eq(room_client_open(&rc, &r, pcs_sync_budget_default(), ticks + 1), 0, "%s", r.err);
    uint64_t mallocs = 0, keyframes_checked = 0;
    for (uint64_t t = 1; t <= ticks; t++) {
        step(&r, t);
        if (t % 300 == 0) /* a keyframe on request every 15 s */
            pcs_sync_client_request_keyframe(rc.c);
        uint64_t before = rc.messages;
        pcs_test_alloc_begin();
        room_client_pump(&rc, &r);
        mallocs += pcs_test_alloc_end();
        if (t % 300 == 0) {
            cr_assert_gt(rc.messages, before);
            /* A keyframe restores the encoder's values bit for bit. */
            for (uint32_t i = 0; i < ROOM_SLOTS; i++) {
                pcs_sync_slot_stats ss;
                pcs_sync_slot_stats_get(rc.c, i, &ss);
                double dec = pcs_sync_decoder_value(rc.d, i);
                cr_assert(memcmp(&dec, &ss.sent_value, sizeof dec) == 0,
                          "tick %llu slot %u: decoded %.17g, sent %.17g", (unsigned long long)t, i,
                          dec, ss.sent_value);
            }
            keyframes_checked++;
        }
    }
    assert_clean(&rc, "full budget");
    cr_assert_eq(keyframes_checked, 4u);
    cr_assert_geq(rc.event_changes, 3u, "the trip changes alarms and trip functions");
    cr_assert_eq(mallocs, 0u, "hub reads, encodes and decodes allocate nothing");
    pcs_sync_client_stats st;
    pcs_sync_client_stats_get(rc.c, &st);
    cr_assert_eq(st.keyframes, 5u, "the subscribe keyframe and four on request");
    room_client_close(&rc);
    sync_room_destroy(&r);
}

/* Deliveries of @p cls slots per slot and second; min and max over them. */
static void class_rate(const room_client *rc, const sync_room *r, pcs_sync_class cls, double secs,
                       double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = 0.0;
    for (uint32_t i = 0; i < ROOM_SLOTS; i++) {
        if (r->slots[i].rate_class != (uint32_t)cls)
            continue;
        pcs_sync_slot_stats ss;
        pcs_sync_slot_stats_get(rc->c, i, &ss);
        double rate = (double)ss.deliveries / secs;
        *lo = rate < *lo ? rate : *lo;
        *hi = rate > *hi ? rate : *hi;
    }
}

/* Full budget: gauges 10 Hz, displays 2 Hz, recorders 1 point/s, events on
 * their tick, within 1400 B/s of instruments and 2048 B/s in all (plus one
 * bucket depth: the buckets start full). */
Test(sync_station, full_budget_gives_every_class_its_rate_within_2048_bytes_a_second)
{
    sync_room r;
    cr_assert_eq(sync_room_build(&r, 120.0, 1.0), 0, "%s", r.err);
    uint64_t ticks = (uint64_t)llround(RUN_S / r.dt_s);
    room_client rc;
    cr_assert_eq(room_client_open(&rc, &r, pcs_sync_budget_default(), ticks + 1), 0, "%s", r.err);
    for (uint64_t t = 1; t <= ticks; t++) {
        step(&r, t);
        room_client_pump(&rc, &r);
    }
    assert_clean(&rc, "full budget");
    double lo, hi;
    /* 1200 ticks after the keyframe: gauge grid every 2 ticks (600 + the
     * keyframe), displays every 10 (120 + 1), recorder points every 20
     * (60; the first one was history). */
    class_rate(&rc, &r, PCS_SYNC_GAUGE, RUN_S, &lo, &hi);
    cr_assert_eq(lo * RUN_S, 601.0, "every gauge at 10 Hz (slowest %.3f Hz)", lo);
    class_rate(&rc, &r, PCS_SYNC_DISPLAY, RUN_S, &lo, &hi);
    cr_assert_eq(lo * RUN_S, 121.0, "displays at 2 Hz");
    cr_assert_eq(hi * RUN_S, 121.0);
    class_rate(&rc, &r, PCS_SYNC_RECORDER, RUN_S, &lo, &hi);
    cr_assert_eq(lo * RUN_S, 61.0, "recorders at 1 point/s (61 points from tick 0 to 1200)");
    class_rate(&rc, &r, PCS_SYNC_ACOUSTIC, RUN_S, &lo, &hi);
    cr_assert_eq(lo * RUN_S, 601.0, "emitters at 10 Hz within their 400 B/s");
    pcs_sync_client_stats st;
    pcs_sync_client_stats_get(rc.c, &st);
    cr_assert_eq(st.deferred, 0u);
    cr_assert_eq(st.max_level, 0u, "no degradation at full budget");
    double instruments = (double)st.bucket_spent[PCS_SYNC_BUCKET_INSTRUMENTS];
    double steady = (double)(st.bytes - st.setup_bytes);
    cr_assert_leq(instruments, 1400.0 * (RUN_S + 1.0), "%.0f B", instruments);
    cr_assert_leq(steady, 2048.0 * (RUN_S + 1.0), "%.0f B", steady);
    cr_assert_leq((double)st.bucket_spent[PCS_SYNC_BUCKET_ACOUSTICS], 400.0 * (RUN_S + 1.0));
    room_client_close(&rc);
    sync_room_destroy(&r);
}

typedef struct order_log {
    uint64_t first_p2_mid, first_p2_low, first_p1_slowed, first_p0_slowed;
    uint64_t misordered;
    uint32_t max_level;
} order_log;

/* The slowest current period of the gauges of priority @p p, ticks. */
static uint32_t gauge_period(const room_client *rc, const sync_room *r, uint32_t p)
{
    uint32_t worst = 0;
    for (uint32_t i = 0; i < ROOM_GAUGES; i++) {
        if (r->slots[i].priority != p)
            continue;
        pcs_sync_slot_stats ss;
        pcs_sync_slot_stats_get(rc->c, i, &ss);
        worst = ss.period_ticks > worst ? ss.period_ticks : worst;
    }
    return worst;
}

/* The stated order: a nearer gauge slows only once every farther one is at
 * 2 Hz (10 ticks); far gauges pass 5 Hz (4 ticks) before 2 Hz. */
static void log_order(order_log *o, const room_client *rc, const sync_room *r, uint64_t t)
{
    uint32_t p0 = gauge_period(rc, r, 0), p1 = gauge_period(rc, r, 1), p2 = gauge_period(rc, r, 2);
    if (p2 == 4 && !o->first_p2_mid)
        o->first_p2_mid = t;
    if (p2 == 10 && !o->first_p2_low)
        o->first_p2_low = t;
    if (p1 > 2 && !o->first_p1_slowed)
        o->first_p1_slowed = t;
    if (p0 > 2 && !o->first_p0_slowed)
        o->first_p0_slowed = t;
    if ((p1 > 2 && p2 != 10) || (p0 > 2 && p1 != 10))
        o->misordered++;
}

/* Half budget on the fine room (quanta / 10: the noisy instruments move a
 * quantum at nearly every update, so the load exceeds 700 B/s during the
 * trip): far gauges fall to 5 Hz, then 2 Hz, before nearer ones slow; near
 * gauges keep the most; alarms are never delayed; the budget holds. */
Test(sync_station, half_budget_degrades_far_gauges_first_and_never_delays_alarms)
{
    sync_room r;
    cr_assert_eq(sync_room_build(&r, 120.0, 0.1), 0, "%s", r.err);
    uint64_t ticks = (uint64_t)llround(RUN_S / r.dt_s);
    pcs_sync_budget half = pcs_sync_budget_default();
    half.instruments_bps = 700;
    half.acoustics_bps = 200;
    half.player_bps = 50;
    half.reserve_bps = 74;
    room_client rc;
    cr_assert_eq(room_client_open(&rc, &r, half, ticks + 1), 0, "%s", r.err);
    order_log o = {0};
    for (uint64_t t = 1; t <= ticks; t++) {
        step(&r, t);
        room_client_pump(&rc, &r);
        log_order(&o, &rc, &r, t);
    }
    assert_clean(&rc, "half budget");
    cr_assert_geq(rc.event_changes, 3u);
    pcs_sync_client_stats st;
    pcs_sync_client_stats_get(rc.c, &st);
    cr_assert_geq(st.max_level, 2u, "the trip's burst drives far gauges to 2 Hz");
    cr_assert_gt(o.first_p2_mid, 0u);
    cr_assert_gt(o.first_p2_low, o.first_p2_mid, "5 Hz comes before 2 Hz");
    cr_assert(o.first_p1_slowed == 0 || o.first_p1_slowed > o.first_p2_low);
    cr_assert(o.first_p0_slowed == 0 || o.first_p0_slowed > o.first_p1_slowed);
    cr_assert_eq(o.misordered, 0u, "a nearer gauge slowed while a farther one was faster");
    /* Delivered rates follow the priorities. */
    double rate[3] = {0};
    for (uint32_t i = 0; i < ROOM_GAUGES; i++) {
        pcs_sync_slot_stats ss;
        pcs_sync_slot_stats_get(rc.c, i, &ss);
        rate[r.slots[i].priority] += (double)ss.deliveries;
    }
    rate[0] /= 14.0;
    rate[1] /= 13.0;
    rate[2] /= 13.0;
    cr_assert_geq(rate[0], rate[1]);
    cr_assert_gt(rate[1], rate[2], "p1 %.1f, p2 %.1f deliveries", rate[1], rate[2]);
    double instruments = (double)st.bucket_spent[PCS_SYNC_BUCKET_INSTRUMENTS];
    /* Instruments may exceed their rate only by the event overflow the
     * reserve paid (alarms are never delayed) and the first bucket. */
    cr_assert_leq(instruments, 700.0 * (RUN_S + 1.0) + 50.0, "%.0f B", instruments);
    cr_assert_leq((double)(st.bytes - st.setup_bytes), 1024.0 * (RUN_S + 1.0));
    room_client_close(&rc);
    sync_room_destroy(&r);
}
