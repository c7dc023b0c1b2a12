/**
 * @file test_sync.c
 * @brief Delta sync on a small world whose channel values the test sets
 *        tick by tick: the bytes of keyframes and deltas (docs/sync.md),
 *        quantisation and its error bound, rates, the heartbeat, recorder
 *        history, subscription errors, the decoder's refusals, and no
 *        allocation per message. The station run, budgets and degradation
 *        are in test_sync_station.c.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/pcsim.h"
#include "tests/alloc_count.h"
#include "tests/expect_err.h"

/* Channels a..e are doubles, s a status word. */
enum { CH_A, CH_B, CH_C, CH_D, CH_E, CH_S, N_CH };
#define N_F 5

typedef struct tw {
    pcs_world *w;
    pcs_snapshot_pool *pool;
    pcs_sync_hub *hub;
    uint32_t store, ustore;
    double next[N_F]; /* what the system writes at the next tick */
    uint32_t unext;
    uint64_t ticks;
} tw;

static pcs_status tw_system(pcs_world *w, void *ctx)
{
    tw *t = ctx;
    memcpy(pcs_store_data(w, t->store), t->next, sizeof t->next);
    *(uint32_t *)pcs_store_data(w, t->ustore) = t->unext;
    return PCS_OK;
}

static void tw_step(tw *t)
{
    cr_assert_eq(pcs_world_tick(t->w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_sync_hub_update(t->hub), PCS_OK, "%s", pcs_last_error());
    t->ticks++;
}

/* Build the world (dt 0.05 s), tick once, make a hub recording channel a
 * with @p history_s of history at 1 Hz. */
static void tw_make(tw *t, double history_s)
{
    memset(t, 0, sizeof *t);
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.dt_s = 0.05;
    cr_assert_eq(pcs_world_create(&cfg, &t->w), PCS_OK);
    /* Not PCS_STORE_F64: the test writes NaN and infinities on purpose. */
    cr_assert_eq(pcs_store_register(t->w, "v", 8, N_F, PCS_STORE_STATE, &t->store), PCS_OK);
    cr_assert_eq(pcs_store_register(t->w, "s", 4, 1, PCS_STORE_STATE, &t->ustore), PCS_OK);
    static const char *const names[N_F] = {"a", "b", "c", "d", "e"};
    for (uint32_t i = 0; i < N_F; i++)
        cr_assert_eq(pcs_channel_register(t->w, names[i], "W", PCS_CHANNEL_F64, t->store, i, NULL),
                     PCS_OK);
    cr_assert_eq(pcs_channel_register(t->w, "s", "", PCS_CHANNEL_U32, t->ustore, 0, NULL), PCS_OK);
    uint32_t writes[2] = {t->store, t->ustore};
    pcs_system_desc d = {.name = "tw",
                         .stage = PCS_STAGE_HEAT,
                         .fn = tw_system,
                         .ctx = t,
                         .writes = writes,
                         .n_writes = 2};
    cr_assert_eq(pcs_system_register(t->w, &d, NULL), PCS_OK);
    cr_assert_eq(pcs_snapshot_attach(t->w, NULL, &t->pool), PCS_OK);
    cr_assert_eq(pcs_world_tick(t->w), PCS_OK);
    pcs_sync_hub_def hd = pcs_sync_hub_default();
    hd.dt_s = 0.05;
    uint32_t rec = CH_A;
    hd.recorder_ids = &rec;
    hd.n_recorders = 1;
    hd.history_s = history_s;
    cr_assert_eq(pcs_sync_hub_create(t->pool, &hd, &t->hub), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_sync_hub_update(t->hub), PCS_OK);
}

static void tw_free(tw *t)
{
    pcs_sync_hub_destroy(t->hub);
    pcs_world_destroy(t->w);
}

/* The standard subscription: a gauge (Q 0.01), b gauge (Q 1), c display
 * (Q 1), d gauge (Q 1), e gauge (Q 0: exact), s event (Q 1). */
static const pcs_sync_channel std_slots[N_CH] = {
    {.channel = CH_A, .rate_class = PCS_SYNC_GAUGE, .priority = 0, .quantum = 0.01},
    {.channel = CH_B, .rate_class = PCS_SYNC_GAUGE, .priority = 1, .quantum = 1.0},
    {.channel = CH_C, .rate_class = PCS_SYNC_DISPLAY, .priority = 1, .quantum = 1.0},
    {.channel = CH_D, .rate_class = PCS_SYNC_GAUGE, .priority = 2, .quantum = 1.0},
    {.channel = CH_E, .rate_class = PCS_SYNC_GAUGE, .priority = 0, .quantum = 0.0},
    {.channel = CH_S, .rate_class = PCS_SYNC_EVENT, .priority = 0, .quantum = 1.0},
};

static pcs_sync_client *subscribe(tw *t, const pcs_sync_channel *slots, uint32_t n)
{
    pcs_sync_client_def d = pcs_sync_client_default();
    d.channels = slots;
    d.n_channels = n;
    pcs_sync_client *c = NULL;
    cr_assert_eq(pcs_sync_client_add(t->hub, &d, &c), PCS_OK, "%s", pcs_last_error());
    return c;
}

typedef struct msg {
    uint8_t b[4096];
    size_t len;
} msg;

/* Encode the next message into @p m (len 0: none). */
static size_t next_msg(pcs_sync_client *c, msg *m)
{
    cr_assert_eq(pcs_sync_encode(c, m->b, sizeof m->b, &m->len), PCS_OK, "%s", pcs_last_error());
    return m->len;
}

static void decode_ok(pcs_sync_decoder *d, const msg *m, pcs_sync_decoded *info)
{
    cr_assert_eq(pcs_sync_decode(d, m->b, m->len, info), PCS_OK, "%s", pcs_last_error());
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Values with every coding path: a quantised (123456.78 quanta rounds to
 * 123457), b NaN and c 1e300 (beyond 2^50 quanta) as escapes, d -2.5 (rounds
 * half away from zero to -3), e exact, s a status word. */
static void set_keyframe_values(tw *t)
{
    double v[N_F] = {1234.5678, NAN, 1e300, -2.5, 0.1};
    memcpy(t->next, v, sizeof v);
    t->unext = 7;
}

Test(sync, keyframe_bytes_follow_the_wire_format_and_restore_exactly)
{
    tw t;
    tw_make(&t, 60.0);
    set_keyframe_values(&t);
    tw_step(&t); /* tick 1 */
    pcs_sync_client *c = subscribe(&t, std_slots, N_CH);
    pcs_sync_decoder *d;
    cr_assert_eq(pcs_sync_decoder_create(NULL, &d), PCS_OK);
    msg m;
    pcs_sync_decoded info;
    cr_assert_gt(next_msg(c, &m), 0);
    cr_assert_eq(m.b[0], 0x11, "version 1, LAYOUT");
    cr_assert_eq(m.b[1], 0, "a LAYOUT has sequence 0");
    decode_ok(d, &m, &info);
    cr_assert_eq(pcs_sync_decoder_slot_count(d), N_CH);
    pcs_sync_slot_info si;
    cr_assert_eq(pcs_sync_decoder_slot(d, CH_A, &si), PCS_OK);
    cr_assert_str_eq(si.name, "a");
    cr_assert_str_eq(si.unit, "W");
    cr_assert_eq(si.quantum, 0.01);

    cr_assert_gt(next_msg(c, &m), 0);
    /* 2 header + tick 1 (1 byte) + a: zigzag(123457) * 2 = 493828 (3 bytes)
     * + b, c, e: 9-byte escapes + d: zigzag(-3) * 2 = 10 (1) + s: 28 (1). */
    cr_assert_eq(m.len, 35u);
    cr_assert_eq(m.b[0], 0x12);
    cr_assert_eq(m.b[1], 1);
    cr_assert_eq(m.b[2], 1, "tick 1");
    decode_ok(d, &m, &info);
    cr_assert_eq(info.type, PCS_SYNC_MSG_KEYFRAME);
    cr_assert_eq(info.n_values, N_CH);
    cr_assert_eq(pcs_sync_decoder_value(d, CH_A), (double)123457 * 0.01);
    cr_assert(isnan(pcs_sync_decoder_value(d, CH_B)));
    cr_assert_eq(pcs_sync_decoder_value(d, CH_C), 1e300);
    cr_assert_eq(pcs_sync_decoder_value(d, CH_D), -3.0);
    cr_assert_eq(pcs_sync_decoder_value(d, CH_E), 0.1);
    cr_assert_eq(pcs_sync_decoder_value(d, CH_S), 7.0);
    for (uint32_t i = 0; i < N_CH; i++) {
        pcs_sync_slot_stats ss;
        cr_assert_eq(pcs_sync_slot_stats_get(c, i, &ss), PCS_OK);
        cr_assert(same_bits(pcs_sync_decoder_value(d, i), ss.sent_value),
                  "slot %u: the keyframe restores the encoder's value bit for bit", i);
        cr_assert_eq(pcs_sync_decoder_value_tick(d, i), 1u);
    }
    cr_assert_eq(next_msg(c, &m), 0u, "no RECORDER slot, so no history: setup is done");
    pcs_sync_decoder_destroy(d);
    pcs_sync_client_destroy(c);
    tw_free(&t);
}

/* Subscribe at the current frame and pass the setup through @p d. */
static pcs_sync_client *session(tw *t, pcs_sync_decoder *d)
{
    pcs_sync_client *c = subscribe(t, std_slots, N_CH);
    msg m;
    pcs_sync_decoded info;
    while (next_msg(c, &m) > 0)
        decode_ok(d, &m, &info);
    return c;
}

Test(sync, delta_carries_only_slots_that_moved_a_deadband)
{
    tw t;
    tw_make(&t, 60.0);
    set_keyframe_values(&t);
    tw_step(&t); /* tick 1: keyframe */
    pcs_sync_decoder *d;
    cr_assert_eq(pcs_sync_decoder_create(NULL, &d), PCS_OK);
    pcs_sync_client *c = session(&t, d);
    msg m;
    /* a moves half a quantum (not sent); d from -2.5 (q -3) to -1 (q -1):
     * 2 quanta >= its deadband of 1, sent as k = +2. */
    t.next[CH_A] = 1234.5678 + 0.005;
    t.next[CH_D] = -1.0;
    tw_step(&t); /* tick 2: gauges due (period 2 ticks at 10 Hz, dt 0.05 s) */
    cr_assert_gt(next_msg(c, &m), 0);
    /* DELTA, seq 2, dtick 1, 1 entry: gap 3 (slot 3), val zigzag(2) * 2 = 8. */
    const uint8_t want[] = {0x13, 0x02, 0x01, 0x01, 0x03, 0x08};
    cr_assert_eq(m.len, sizeof want);
    cr_assert_arr_eq(m.b, want, sizeof want);
    pcs_sync_decoded info;
    decode_ok(d, &m, &info);
    cr_assert_eq(info.n_values, 1);
    cr_assert_eq(info.tick, 2u);
    cr_assert_eq(pcs_sync_decoder_value(d, CH_D), -1.0);
    cr_assert_eq(pcs_sync_decoder_value(d, CH_A), (double)123457 * 0.01, "a kept its value");
    cr_assert_eq(next_msg(c, &m), 0u, "one message per frame");
    pcs_sync_decoder_destroy(d);
    pcs_sync_client_destroy(c);
    tw_free(&t);
}

/* A ramp of 0.3 quantum per tick: each delivery is within a quantum of the
 * truth, however many sub-deadband steps came before (no accumulation). */
Test(sync, error_never_accumulates_beyond_one_quantum)
{
    tw t;
    tw_make(&t, 60.0);
    t.next[CH_A] = 0.0;
    tw_step(&t);
    pcs_sync_decoder *d;
    cr_assert_eq(pcs_sync_decoder_create(NULL, &d), PCS_OK);
    pcs_sync_client *c = session(&t, d);
    uint64_t checked = 0;
    for (int k = 1; k <= 1000; k++) {
        t.next[CH_A] = 0.003 * k;
        tw_step(&t);
        msg m;
        pcs_sync_decoded info;
        while (next_msg(c, &m) > 0)
            decode_ok(d, &m, &info);
        pcs_sync_slot_stats ss;
        pcs_sync_slot_stats_get(c, CH_A, &ss);
        if (ss.last_tick == pcs_sync_hub_tick(t.hub)) { /* delivered at this frame */
            double err = fabs(pcs_sync_decoder_value(d, CH_A) - pcs_sync_hub_value(t.hub, CH_A));
            cr_assert_lt(err, 0.01, "tick %d: |decoded - true| = %g", k, err);
            checked++;
        }
    }
    pcs_sync_slot_stats ss;
    pcs_sync_slot_stats_get(c, CH_A, &ss);
    cr_assert_eq(checked, 500u, "delivered at 10 Hz: every 2nd of 1000 ticks");
    cr_assert_lt(ss.sends, ss.deliveries, "sub-deadband moves are not sent");
    pcs_sync_decoder_destroy(d);
    pcs_sync_client_destroy(c);
    tw_free(&t);
}

Test(sync, classes_are_delivered_at_their_rates)
{
    tw t;
    tw_make(&t, 60.0);
    tw_step(&t); /* tick 1 */
    pcs_sync_client *c = subscribe(&t, std_slots, N_CH);
    msg m;
    while (next_msg(c, &m) > 0) {
    }
    for (int k = 0; k < 100; k++) { /* ticks 2..101 */
        t.next[CH_A] = k;
        tw_step(&t);
        while (next_msg(c, &m) > 0) {
        }
    }
    pcs_sync_slot_stats g, disp, ev;
    pcs_sync_slot_stats_get(c, CH_A, &g);
    pcs_sync_slot_stats_get(c, CH_C, &disp);
    pcs_sync_slot_stats_get(c, CH_S, &ev);
    /* The keyframe at tick 1, then the grid: gauges at even ticks 2..100
     * (50), displays at multiples of 10 (10), events at every encode (100). */
    cr_assert_eq(g.deliveries, 51u);
    cr_assert_eq(g.period_ticks, 2u);
    cr_assert_eq(disp.deliveries, 11u);
    cr_assert_eq(disp.period_ticks, 10u);
    cr_assert_eq(ev.deliveries, 101u, "%llu", (unsigned long long)ev.deliveries);
    cr_assert_eq(g.max_gap_ticks, 2u);
    pcs_sync_client_destroy(c);
    tw_free(&t);
}

Test(sync, a_silent_second_sends_a_heartbeat)
{
    tw t;
    tw_make(&t, 60.0);
    tw_step(&t); /* tick 1 */
    pcs_sync_client *c = subscribe(&t, std_slots, N_CH);
    msg m;
    while (next_msg(c, &m) > 0) {
    }
    for (int k = 2; k <= 20; k++) {
        tw_step(&t);
        cr_assert_eq(next_msg(c, &m), 0u, "tick %d: nothing changed", k);
    }
    tw_step(&t); /* tick 21: 20 ticks (1 s) after the keyframe */
    cr_assert_gt(next_msg(c, &m), 0);
    const uint8_t want[] = {0x13, 0x02, 20, 0};
    cr_assert_eq(m.len, sizeof want);
    cr_assert_arr_eq(m.b, want, sizeof want);
    pcs_sync_client_destroy(c);
    tw_free(&t);
}

Test(sync, requested_keyframe_is_exact_and_paid_from_the_reserve)
{
    tw t;
    tw_make(&t, 60.0);
    set_keyframe_values(&t);
    tw_step(&t);
    pcs_sync_decoder *d;
    cr_assert_eq(pcs_sync_decoder_create(NULL, &d), PCS_OK);
    pcs_sync_client *c = session(&t, d);
    t.next[CH_A] = 99.994; /* q 9999 */
    tw_step(&t);
    cr_assert_eq(pcs_sync_client_request_keyframe(c), PCS_OK);
    msg m;
    pcs_sync_decoded info;
    cr_assert_gt(next_msg(c, &m), 0);
    cr_assert_eq(m.b[0], 0x12, "the keyframe comes before the delta");
    decode_ok(d, &m, &info);
    cr_assert_eq(pcs_sync_decoder_value(d, CH_A), (double)9999 * 0.01);
    pcs_sync_client_stats st;
    pcs_sync_client_stats_get(c, &st);
    cr_assert_eq(st.keyframes, 2u);
    cr_assert_eq(st.keyframe_bytes, m.len);
    cr_assert_eq(st.bucket_spent[PCS_SYNC_BUCKET_RESERVE], m.len);
    cr_assert_eq(next_msg(c, &m), 0u, "every slot was delivered by the keyframe");
    pcs_sync_decoder_destroy(d);
    pcs_sync_client_destroy(c);
    tw_free(&t);
}

/* 30 s sampled at 1 Hz into a 10-point ring: a subscriber gets the last 10
 * points after its keyframe, each the true value of its tick to Q / 2. */
Test(sync, subscribe_sends_the_recorder_history_the_ring_holds)
{
    tw t;
    tw_make(&t, 10.0);
    double truth[700] = {0};
    for (int k = 0; k < 600; k++) {
        t.next[CH_A] = 0.1 * k + 0.001;
        tw_step(&t);
        truth[pcs_sync_hub_tick(t.hub)] = t.next[CH_A];
    }
    cr_assert_eq(pcs_sync_hub_tick(t.hub), 600u);
    /* Points at the first frame (tick 0) and each multiple of 20 ticks: 31. */
    cr_assert_eq(pcs_sync_hub_samples(t.hub), 31u);
    pcs_sync_channel slots[2] = {
        {.channel = CH_A, .rate_class = PCS_SYNC_RECORDER, .quantum = 0.01},
        {.channel = CH_S, .rate_class = PCS_SYNC_EVENT, .quantum = 1.0}};
    pcs_sync_client *c = subscribe(&t, slots, 2);
    pcs_sync_decoder *d;
    cr_assert_eq(pcs_sync_decoder_create(NULL, &d), PCS_OK);
    msg m;
    pcs_sync_decoded info;
    int types[8] = {0}, n = 0;
    while (next_msg(c, &m) > 0 && n < 8) {
        decode_ok(d, &m, &info);
        types[n++] = (int)info.type;
        if (info.type == PCS_SYNC_MSG_RECORDER) {
            cr_assert_eq(info.n_points, 10u);
            cr_assert_eq(info.first_sample, 21u);
            for (uint32_t k = 0; k < info.n_points; k++) {
                uint64_t tick;
                double v;
                cr_assert_eq(pcs_sync_decoder_point(d, 0, k, &tick, &v), PCS_OK);
                cr_assert_eq(tick, 20u * (21u + k), "point %u: sample 21 + k at tick 20 (21 + k)",
                             k);
                cr_assert_leq(fabs(v - truth[tick]), 0.005 + 1e-12, "point %u", k);
            }
        }
    }
    cr_assert_eq(n, 3);
    cr_assert_eq(types[0], PCS_SYNC_MSG_LAYOUT);
    cr_assert_eq(types[1], PCS_SYNC_MSG_KEYFRAME);
    cr_assert_eq(types[2], PCS_SYNC_MSG_RECORDER);
    pcs_sync_decoder_destroy(d);
    pcs_sync_client_destroy(c);
    tw_free(&t);
}

/* ---------------------------------------------------------- refusals */

/* The setup of a standard session recorded once: LAYOUT and KEYFRAME. */
typedef struct setup {
    msg layout, key;
} setup;

static void record_setup(setup *su)
{
    tw t;
    tw_make(&t, 60.0);
    set_keyframe_values(&t);
    tw_step(&t);
    pcs_sync_client *c = subscribe(&t, std_slots, N_CH);
    cr_assert_gt(next_msg(c, &su->layout), 0);
    cr_assert_gt(next_msg(c, &su->key), 0);
    pcs_sync_client_destroy(c);
    tw_free(&t);
}

static pcs_sync_decoder *synced(const setup *su)
{
    pcs_sync_decoder *d;
    cr_assert_eq(pcs_sync_decoder_create(NULL, &d), PCS_OK);
    decode_ok(d, &su->layout, NULL);
    decode_ok(d, &su->key, NULL);
    return d;
}

/* Decoding @p bytes fails with @p want and a message containing @p why. */
static void refused(pcs_sync_decoder *d, const uint8_t *bytes, size_t len, pcs_status want,
                    const char *why)
{
    pcs_error_clear();
    cr_assert_eq(pcs_sync_decode(d, bytes, len, NULL), want, "want %s for: %s",
                 pcs_status_str(want), why);
    cr_assert(strstr(pcs_last_error(), why), "message '%s' names '%s'", pcs_last_error(), why);
}

#define REFUSED(d, want, why, ...)                                                                 \
    do {                                                                                           \
        const uint8_t b_[] = {__VA_ARGS__};                                                        \
        refused((d), b_, sizeof b_, (want), (why));                                                \
    } while (0)

Test(sync, decoder_refuses_malformed_messages_with_the_reason)
{
    setup su;
    record_setup(&su);
    struct {
        const char *why;
        pcs_status want;
        uint8_t b[24];
        size_t len;
    } cases[] = {
        {"version 2", PCS_E_VERSION, {0x23, 0x02, 0x00, 0x00}, 4},
        {"unknown message type 7", PCS_E_CORRUPT, {0x17, 0x02}, 2},
        {"truncated byte", PCS_E_CORRUPT, {0x13}, 1},
        {"truncated varint", PCS_E_CORRUPT, {0x13, 0x02, 0x00, 0x01, 0x03}, 5},
        {"1 trailing bytes", PCS_E_CORRUPT, {0x13, 0x02, 0x00, 0x01, 0x03, 0x08, 0x00}, 7},
        {"sequence 5, expected 2", PCS_E_CORRUPT, {0x13, 0x05, 0x00, 0x00}, 4},
        {"slot 6, allowed [0, 6)", PCS_E_CORRUPT, {0x13, 0x02, 0x00, 0x01, 0x06, 0x02}, 6},
        {"entry 1: slot 6, allowed [4, 6)",
         PCS_E_CORRUPT,
         {0x13, 0x02, 0x00, 0x02, 0x03, 0x02, 0x02, 0x02},
         8},
        {"varint not minimal", PCS_E_CORRUPT, {0x13, 0x02, 0x80, 0x00, 0x00}, 5},
        {"varint longer than 8 bytes",
         PCS_E_CORRUPT,
         {0x13, 0x02, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x00},
         12},
        {"varint above 2^53",
         PCS_E_CORRUPT,
         {0x13, 0x02, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10, 0x00},
         11},
        {"odd val other than the escape 1", PCS_E_CORRUPT, {0x13, 0x02, 0x00, 0x01, 0x03, 0x03}, 6},
        {"slot 4: a quantised value for a slot of quantum 0",
         PCS_E_CORRUPT,
         {0x13, 0x02, 0x00, 0x01, 0x04, 0x02},
         6},
        {"truncated 8-byte field", PCS_E_CORRUPT, {0x13, 0x02, 0x00, 0x01, 0x04, 0x01, 0, 0}, 8},
        {"sequence 1, a LAYOUT starts at 0", PCS_E_CORRUPT, {0x11, 0x01}, 2},
        {"the layout has no RECORDER slot", PCS_E_CORRUPT, {0x14, 0x02, 0x00}, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pcs_sync_decoder *d = synced(&su);
        double before = pcs_sync_decoder_value(d, CH_D);
        refused(d, cases[i].b, cases[i].len, cases[i].want, cases[i].why);
        cr_assert_eq(pcs_sync_decoder_value(d, CH_D), before, "case %zu applied nothing", i);
        pcs_sync_decoder_destroy(d);
    }
}

Test(sync, decoder_refuses_empty_oversized_and_out_of_order_sessions)
{
    setup su;
    record_setup(&su);
    pcs_sync_decoder *d;
    cr_assert_eq(pcs_sync_decoder_create(NULL, &d), PCS_OK);
    refused(d, su.key.b, su.key.len, PCS_E_CORRUPT, "no LAYOUT received yet");
    refused(d, su.key.b, 0, PCS_E_OVERFLOW, "message of 0 bytes, allowed [1, 131072]");
    uint8_t *big = calloc(PCS_SYNC_MESSAGE_MAX + 1u, 1);
    big[0] = 0x13;
    refused(d, big, PCS_SYNC_MESSAGE_MAX + 1u, PCS_E_OVERFLOW, "131073 bytes, allowed [1, 131072]");
    free(big);
    decode_ok(d, &su.layout, NULL);
    REFUSED(d, PCS_E_CORRUPT, "no KEYFRAME since the LAYOUT", 0x13, 0x01, 0x00, 0x00);
    pcs_sync_decoder_destroy(d);

    pcs_sync_decoder_limits lim = {.max_slots = 2};
    cr_assert_eq(pcs_sync_decoder_create(&lim, &d), PCS_OK);
    refused(d, su.layout.b, su.layout.len, PCS_E_OVERFLOW, "6 slots, allowed [1, 2]");
    pcs_sync_decoder_destroy(d);
}

/* A quantised value may not reach 2^50 quanta: a keyframe giving slot a the
 * number 2^50 (val zigzag(2^50) * 2 = 2^52) is refused. */
Test(sync, decoder_refuses_a_quantised_value_of_2_pow_50)
{
    setup su;
    record_setup(&su);
    pcs_sync_decoder *d = synced(&su);
    uint8_t key[64] = {0x12, 0x02, 0x01};
    size_t n = 3;
    uint64_t v = UINT64_C(1) << 52;
    while (v >= 0x80u) {
        key[n++] = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    key[n++] = (uint8_t)v;
    refused(d, key, n, PCS_E_CORRUPT, "slot 0: quantised value 1125899906842624");
    pcs_sync_decoder_destroy(d);
}

Test(sync, after_a_refusal_only_a_keyframe_resynchronises)
{
    setup su;
    record_setup(&su);
    pcs_sync_decoder *d = synced(&su);
    REFUSED(d, PCS_E_CORRUPT, "sequence 9", 0x13, 0x09, 0x00, 0x00);
    /* The right sequence now is refused too: a message may have been lost. */
    REFUSED(d, PCS_E_CORRUPT, "no KEYFRAME since", 0x13, 0x02, 0x00, 0x01, 0x03, 0x08);
    decode_ok(d, &su.key, NULL); /* any sequence: the resynchronisation */
    const uint8_t ok[] = {0x13, 0x02, 0x00, 0x01, 0x03, 0x08};
    cr_assert_eq(pcs_sync_decode(d, ok, sizeof ok, NULL), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_sync_decoder_value(d, CH_D), -1.0, "q -3 + 2");
    pcs_sync_decoder_destroy(d);
}

/* -------------------------------------------------------- subscriptions */

Test(sync, subscriptions_out_of_range_are_refused_by_slot_and_field)
{
    tw t;
    tw_make(&t, 60.0);
    pcs_sync_client_def d = pcs_sync_client_default();
    pcs_sync_channel ch[2] = {std_slots[0], std_slots[1]};
    d.channels = ch;
    d.n_channels = 2;
    pcs_sync_client *c = NULL;
    struct {
        pcs_sync_channel bad;
        pcs_status want;
        const char *why;
    } cases[] = {
        {{.channel = 99, .quantum = 1}, PCS_E_NOTFOUND, "channels[1].channel = 99, the pool has 6"},
        {{.channel = 0, .rate_class = 6},
         PCS_E_INVAL,
         "channels[1].rate_class = 6, allowed [0, 5]"},
        {{.channel = 0, .priority = 3}, PCS_E_INVAL, "channels[1].priority = 3, allowed [0, 2]"},
        {{.channel = 0, .quantum = -1}, PCS_E_INVAL, "channels[1].quantum = -1"},
        {{.channel = 0, .quantum = NAN}, PCS_E_INVAL, "channels[1].quantum = nan"},
        {{.channel = 0, .deadband = INFINITY}, PCS_E_INVAL, "channels[1].deadband = inf"},
        {{.channel = CH_B, .rate_class = PCS_SYNC_RECORDER},
         PCS_E_NOTFOUND,
         "channels[1] is a RECORDER slot of channel 1, which the hub does not record"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ch[1] = cases[i].bad;
        pcs_error_clear();
        cr_assert_eq(pcs_sync_client_add(t.hub, &d, &c), cases[i].want, "case %zu", i);
        cr_assert(strstr(pcs_last_error(), cases[i].why), "'%s' names '%s'", pcs_last_error(),
                  cases[i].why);
    }
    d.n_channels = 0;
    EXPECT_ERR(pcs_sync_client_add(t.hub, &d, &c), PCS_E_INVAL);
    d.n_channels = 2;
    ch[1] = std_slots[1];
    d.budget.burst_s = 0;
    EXPECT_ERR(pcs_sync_client_add(t.hub, &d, &c), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "budget.burst_s = 0"));
    d.budget = pcs_sync_budget_default();
    cr_assert_eq(pcs_sync_client_add(t.hub, &d, &c), PCS_OK, "%s", pcs_last_error());
    uint8_t small[8];
    size_t len;
    EXPECT_ERR(pcs_sync_encode(c, small, sizeof small, &len), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "cap = 8 bytes"));
    pcs_sync_client_destroy(c);
    tw_free(&t);
}

Test(sync, a_hub_needs_a_publication_and_valid_settings)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    pcs_world *w;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
    pcs_snapshot_pool *pool;
    cr_assert_eq(pcs_snapshot_attach(w, NULL, &pool), PCS_OK);
    pcs_sync_hub_def hd = pcs_sync_hub_default();
    pcs_sync_hub *hub = NULL;
    EXPECT_ERR(pcs_sync_hub_create(pool, &hd, &hub), PCS_E_INVAL); /* dt_s 0 */
    cr_assert(strstr(pcs_last_error(), "dt_s = 0 s"));
    hd.dt_s = 0.05;
    uint32_t rec = 5;
    hd.recorder_ids = &rec;
    hd.n_recorders = 1;
    EXPECT_ERR(pcs_sync_hub_create(pool, &hd, &hub), PCS_E_NOTFOUND);
    cr_assert(strstr(pcs_last_error(), "recorder_ids[0] = 5"));
    hd.n_recorders = 0;
    cr_assert_eq(pcs_sync_hub_create(pool, &hd, &hub), PCS_OK, "%s", pcs_last_error());
    EXPECT_ERR(pcs_sync_hub_update(hub), PCS_E_STATE); /* nothing published */
    pcs_sync_client_def d = pcs_sync_client_default();
    pcs_sync_client *c;
    EXPECT_ERR(pcs_sync_client_add(hub, &d, &c), PCS_E_STATE);
    pcs_sync_hub_destroy(hub);
    pcs_world_destroy(w);
}

/* ----------------------------------------------------------- allocation */

Test(sync, hub_update_encode_and_decode_allocate_nothing_after_subscribe)
{
    tw t;
    tw_make(&t, 60.0);
    tw_step(&t);
    pcs_sync_channel slots[N_CH + 1];
    memcpy(slots, std_slots, sizeof std_slots);
    slots[N_CH] =
        (pcs_sync_channel){.channel = CH_A, .rate_class = PCS_SYNC_RECORDER, .quantum = 0.01};
    pcs_sync_client *c = subscribe(&t, slots, N_CH + 1);
    pcs_sync_decoder *d;
    cr_assert_eq(pcs_sync_decoder_create(NULL, &d), PCS_OK);
    static msg m;
    uint64_t messages = 0, mallocs = 0;
    for (int k = 0; k < 400; k++) {
        t.next[CH_A] = 0.37 * k;
        t.next[CH_D] = (k % 7) * 3.0;
        t.unext = (uint32_t)(k / 50);
        cr_assert_eq(pcs_world_tick(t.w), PCS_OK);
        pcs_test_alloc_begin();
        pcs_status st = pcs_sync_hub_update(t.hub);
        size_t len = 0;
        int bad = 0;
        while (st == PCS_OK && pcs_sync_encode(c, m.b, sizeof m.b, &len) == PCS_OK && len > 0) {
            bad |= pcs_sync_decode(d, m.b, len, NULL) != PCS_OK;
            messages++;
        }
        mallocs += pcs_test_alloc_end();
        cr_assert_eq(st, PCS_OK);
        cr_assert_eq(bad, 0, "%s", pcs_last_error());
    }
    cr_assert_gt(messages, 200u, "deltas, heartbeats and recorder batches were written");
    cr_assert_eq(mallocs, 0u, "no allocation per message (counted under ASan too)");
    pcs_sync_decoder_destroy(d);
    pcs_sync_client_destroy(c);
    tw_free(&t);
}

/* Every public sync function given NULL returns an error with a message, or
 * its documented neutral value; none crashes. */
Test(sync, null_arguments_are_refused_or_neutral)
{
    pcs_sync_hub_def hd = pcs_sync_hub_default();
    pcs_sync_hub *hub = NULL;
    EXPECT_ERR(pcs_sync_hub_create(NULL, &hd, &hub), PCS_E_INVAL);
    EXPECT_ERR(pcs_sync_hub_update(NULL), PCS_E_INVAL);
    pcs_sync_hub_destroy(NULL);
    cr_assert_eq(pcs_sync_hub_tick(NULL), 0u);
    cr_assert(isnan(pcs_sync_hub_value(NULL, 0)));
    cr_assert_eq(pcs_sync_hub_channel_count(NULL), 0u);
    cr_assert_eq(pcs_sync_hub_samples(NULL), 0u);
    pcs_sync_client_def cd = pcs_sync_client_default();
    pcs_sync_client *c = NULL;
    EXPECT_ERR(pcs_sync_client_add(NULL, &cd, &c), PCS_E_INVAL);
    pcs_sync_client_destroy(NULL);
    cr_assert_eq(pcs_sync_client_slot_count(NULL), 0u);
    cr_assert_eq(pcs_sync_client_message_max(NULL), 0u);
    EXPECT_ERR(pcs_sync_client_request_keyframe(NULL), PCS_E_INVAL);
    uint8_t buf[16];
    size_t len;
    EXPECT_ERR(pcs_sync_encode(NULL, buf, sizeof buf, &len), PCS_E_INVAL);
    pcs_sync_client_stats st;
    EXPECT_ERR(pcs_sync_client_stats_get(NULL, &st), PCS_E_INVAL);
    pcs_sync_slot_stats ss;
    EXPECT_ERR(pcs_sync_slot_stats_get(NULL, 0, &ss), PCS_E_INVAL);
    EXPECT_ERR(pcs_sync_decoder_create(NULL, NULL), PCS_E_INVAL);
    pcs_sync_decoder_limits big = {.max_slots = PCS_SYNC_SLOTS_MAX + 1u};
    pcs_sync_decoder *d = NULL;
    EXPECT_ERR(pcs_sync_decoder_create(&big, &d), PCS_E_INVAL);
    pcs_sync_decoder_destroy(NULL);
    EXPECT_ERR(pcs_sync_decode(NULL, buf, 1, NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_sync_decoder_create(NULL, &d), PCS_OK);
    EXPECT_ERR(pcs_sync_decode(d, NULL, 4, NULL), PCS_E_INVAL);
    pcs_sync_slot_info si;
    EXPECT_ERR(pcs_sync_decoder_slot(NULL, 0, &si), PCS_E_INVAL);
    EXPECT_ERR(pcs_sync_decoder_slot(d, 0, &si), PCS_E_NOTFOUND);
    cr_assert_eq(pcs_sync_decoder_slot_count(NULL), 0u);
    cr_assert(isnan(pcs_sync_decoder_value(NULL, 0)));
    cr_assert(isnan(pcs_sync_decoder_value(d, 0)), "no layout: NaN");
    cr_assert_eq(pcs_sync_decoder_value_tick(NULL, 0), 0u);
    cr_assert_eq(pcs_sync_decoder_tick(NULL), 0u);
    uint64_t tick;
    double v;
    EXPECT_ERR(pcs_sync_decoder_point(NULL, 0, 0, &tick, &v), PCS_E_INVAL);
    EXPECT_ERR(pcs_sync_decoder_point(d, 0, 0, &tick, &v), PCS_E_NOTFOUND);
    pcs_sync_decoder_destroy(d);
    cr_assert_eq(pcs_sync_quantum_suggest(NULL), 1e-4);
    cr_assert_eq(pcs_sync_quantum_suggest("Pa"), 1e3);
    cr_assert_eq(pcs_sync_quantum_suggest("furlong"), 1e-3);
}
