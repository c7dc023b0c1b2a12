/**
 * @file sync_room.h
 * @brief A typical control room over the built-in station, for the sync
 *        tests (tests/test_sync_station.c) and the budget benchmark
 *        (bench/sync_budget_bench.c): header-only, so both link it without
 *        sharing objects across the test and bench builds.
 *
 * The room (issue 18's "typical control room"), all on unit u2, whose pump 2
 * the default scenario trips at 120 s:
 *  - 40 gauges: power, reactivity, period, boron, rods, temperatures,
 *    pressure, flows, pump speeds and the four-channel instruments; priority
 *    0 for the first 14, 1 for the next 13, 2 for the last 13;
 *  - 10 digital displays (2 Hz) of units u1, u3 and u4;
 *  - 4 chart recorders: u2 power, pressure, average coolant temperature, flow;
 *  - 2 annunciators (EVENT): u2.rps.trip and u2.rps.first_out;
 *  - 20 mimic elements (EVENT): u2's alarms and trip functions;
 *  - 20 synthetic sound emitters (ACOUSTIC): channels "room.emitter.N" of a
 *    store a system at the ACOUSTICS stage writes with slow sines of the
 *    simulated time (loudness 0..1), since the station has no sound model.
 * Gauges, displays and recorders use pcs_sync_quantum_suggest times the
 * build's quantum_scale (1: the typical room; 0.1: a fine room whose noisy
 * instruments move by a quantum nearly every update, to load the budget);
 * U32 channels quantum 1;
 * emitters 0.01 (1 % of full loudness).
 */
#ifndef PCS_TESTS_SYNC_ROOM_H
#define PCS_TESTS_SYNC_ROOM_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/pcsim.h"

#define ROOM_GAUGES 40u
#define ROOM_DISPLAYS 10u
#define ROOM_RECORDERS 4u
#define ROOM_ANNUNCIATORS 2u
#define ROOM_MIMIC 20u
#define ROOM_EMITTERS 20u
#define ROOM_SLOTS                                                                                 \
    (ROOM_GAUGES + ROOM_DISPLAYS + ROOM_RECORDERS + ROOM_ANNUNCIATORS + ROOM_MIMIC + ROOM_EMITTERS)

static const char *const room_gauges[ROOM_GAUGES] = {
    "u2.core.power",       "u2.core.relative_power",
    "u2.rcs.pressure",     "u2.core.flow",
    "u2.coolant.t_avg",    "u2.core.reactivity",
    "u2.rods.pos",         "u2.fuel.t_max",
    "u2.coolant.t_out",    "u2.core.t_inlet",
    "u2.loop1.flow",       "u2.loop2.flow",
    "u2.loop3.flow",       "u2.loop4.flow",
    "u2.pump1.speed",      "u2.pump2.speed",
    "u2.pump3.speed",      "u2.pump4.speed",
    "u2.loop1.t_hot",      "u2.loop2.t_hot",
    "u2.loop3.t_hot",      "u2.loop4.t_hot",
    "u2.loop1.t_cold",     "u2.loop2.t_cold",
    "u2.loop3.t_cold",     "u2.loop4.t_cold",
    "u2.core.boron",       "u2.nis.power.A",
    "u2.nis.power.B",      "u2.nis.power.C",
    "u2.nis.power.D",      "u2.pzr.pressure.A",
    "u2.pzr.pressure.B",   "u2.pzr.pressure.C",
    "u2.pzr.pressure.D",   "u2.fuel.t_avg",
    "u2.clad.t_max",       "u2.sg1.heat",
    "u2.xenon.reactivity", "u2.core.decay_heat",
};
static const char *const room_displays[ROOM_DISPLAYS] = {
    "u1.core.power",   "u1.rcs.pressure", "u1.core.flow",     "u1.coolant.t_avg", "u3.core.power",
    "u3.rcs.pressure", "u3.core.flow",    "u3.coolant.t_avg", "u4.core.power",    "u4.rcs.pressure",
};
static const char *const room_recorders[ROOM_RECORDERS] = {"u2.core.power", "u2.rcs.pressure",
                                                           "u2.coolant.t_avg", "u2.core.flow"};
static const char *const room_annunciators[ROOM_ANNUNCIATORS] = {"u2.rps.trip", "u2.rps.first_out"};
static const char *const room_mimic[ROOM_MIMIC] = {
    "u2.alarm.power_high",   "u2.alarm.pressure_high", "u2.alarm.pressure_low",
    "u2.alarm.flow_low.1",   "u2.alarm.flow_low.2",    "u2.alarm.flow_low.3",
    "u2.alarm.flow_low.4",   "u2.alarm.t_hot_high.1",  "u2.alarm.t_hot_high.2",
    "u2.alarm.t_hot_high.3", "u2.alarm.t_hot_high.4",  "u2.rps.low_flow.1",
    "u2.rps.low_flow.2",     "u2.rps.low_flow.3",      "u2.rps.low_flow.4",
    "u2.rps.high_flux",      "u2.rps.low_pressure",    "u2.rps.high_pressure",
    "u2.core.trip",          "u2.scram.cause",
};

typedef struct sync_room {
    pcs_scenario *scn;
    pcs_world *world;
    pcs_station *st;
    pcs_snapshot_pool *pool;
    pcs_sync_hub *hub;
    double dt_s;
    double quantum_scale; /* gauge, display and recorder quanta x pcs_sync_quantum_suggest */
    uint32_t emitter_store;
    uint64_t emitter_calls; /* ticks the emitter system ran */
    uint32_t rec_ids[ROOM_RECORDERS];
    pcs_sync_channel slots[ROOM_SLOTS];
    char err[512];
} sync_room;

/* The synthetic emitters: loudness 0.5 + 0.45 sin(2 pi f_i t), f_i from
 * 0.01 to 0.2 Hz (pumps, fans, valves swelling and fading), t the simulated
 * time; deterministic. */
static inline pcs_status room_emitters(pcs_world *w, void *ctx)
{
    sync_room *r = ctx;
    double *e = pcs_store_data(w, r->emitter_store);
    double t = (double)r->emitter_calls * r->dt_s;
    for (uint32_t i = 0; i < ROOM_EMITTERS; i++)
        e[i] = 0.5 + 0.45 * sin(2.0 * 3.141592653589793 * (0.01 + 0.01 * i) * t);
    r->emitter_calls++;
    return PCS_OK;
}

static inline int room_fail(sync_room *r, const char *what)
{
    snprintf(r->err, sizeof r->err, "%s: %s", what, pcs_last_error());
    return -1;
}

static inline int room_add_emitters(sync_room *r)
{
    if (pcs_store_register(r->world, "room.emitters", 8, ROOM_EMITTERS, PCS_STORE_STATE,
                           &r->emitter_store) != PCS_OK)
        return room_fail(r, "emitter store");
    for (uint32_t i = 0; i < ROOM_EMITTERS; i++) {
        char name[32];
        snprintf(name, sizeof name, "room.emitter.%u", i);
        if (pcs_channel_register(r->world, name, "", PCS_CHANNEL_F64, r->emitter_store, i, NULL) !=
            PCS_OK)
            return room_fail(r, name);
    }
    pcs_system_desc d = {.name = "room.emitters",
                         .stage = PCS_STAGE_ACOUSTICS,
                         .fn = room_emitters,
                         .ctx = r,
                         .writes = &r->emitter_store,
                         .n_writes = 1};
    return pcs_system_register(r->world, &d, NULL) == PCS_OK ? 0 : room_fail(r, "emitter system");
}

static inline int room_slot(sync_room *r, uint32_t i, const char *name, pcs_sync_class cls,
                            uint32_t prio)
{
    uint32_t id;
    if (pcs_snapshot_find(r->pool, name, &id) != PCS_OK)
        return room_fail(r, name);
    pcs_channel_info info;
    uint32_t got;
    pcs_channel_list(r->pool, id, &info, 1, &got);
    double q = info.kind == PCS_CHANNEL_U32 ? 1.0 : pcs_sync_quantum_suggest(info.unit);
    if (cls == PCS_SYNC_GAUGE || cls == PCS_SYNC_DISPLAY || cls == PCS_SYNC_RECORDER)
        q *= r->quantum_scale;
    if (cls == PCS_SYNC_ACOUSTIC)
        q = 1e-2;
    r->slots[i] = (pcs_sync_channel){
        .channel = id, .rate_class = (uint32_t)cls, .priority = prio, .quantum = q};
    return 0;
}

static inline int room_slots(sync_room *r)
{
    uint32_t n = 0;
    int bad = 0;
    for (uint32_t i = 0; i < ROOM_GAUGES; i++)
        bad |= room_slot(r, n++, room_gauges[i], PCS_SYNC_GAUGE, i < 14 ? 0u : i < 27 ? 1u : 2u);
    for (uint32_t i = 0; i < ROOM_DISPLAYS; i++)
        bad |= room_slot(r, n++, room_displays[i], PCS_SYNC_DISPLAY, 1);
    for (uint32_t i = 0; i < ROOM_RECORDERS; i++)
        bad |= room_slot(r, n++, room_recorders[i], PCS_SYNC_RECORDER, 1);
    for (uint32_t i = 0; i < ROOM_ANNUNCIATORS; i++)
        bad |= room_slot(r, n++, room_annunciators[i], PCS_SYNC_EVENT, 0);
    for (uint32_t i = 0; i < ROOM_MIMIC; i++)
        bad |= room_slot(r, n++, room_mimic[i], PCS_SYNC_EVENT, 1);
    for (uint32_t i = 0; i < ROOM_EMITTERS; i++) {
        char name[32];
        snprintf(name, sizeof name, "room.emitter.%u", i);
        bad |= room_slot(r, n++, name, PCS_SYNC_ACOUSTIC, 1);
    }
    return bad ? -1 : 0;
}

/**
 * Build the station with the emitters, attach the pool, tick once, create
 * the hub (history @p history_s) and update it; quanta scaled by
 * @p quantum_scale. 0, or -1 with r->err set.
 */
static inline int sync_room_build(sync_room *r, double history_s, double quantum_scale)
{
    memset(r, 0, sizeof *r);
    r->quantum_scale = quantum_scale;
    if (pcs_scenario_default(&r->scn) != PCS_OK)
        return room_fail(r, "scenario");
    pcs_world_def cfg = pcs_scenario_world_def(r->scn);
    cfg.workers = 0;
    r->dt_s = cfg.dt_s;
    if (pcs_world_create(&cfg, &r->world) != PCS_OK)
        return room_fail(r, "world");
    if (pcs_station_add(r->world, r->scn, &r->st) != PCS_OK)
        return room_fail(r, "station");
    if (room_add_emitters(r) || pcs_snapshot_attach(r->world, NULL, &r->pool) != PCS_OK)
        return r->err[0] ? -1 : room_fail(r, "snapshot");
    if (pcs_world_tick(r->world) != PCS_OK)
        return room_fail(r, "first tick");
    if (room_slots(r))
        return -1;
    for (uint32_t i = 0; i < ROOM_RECORDERS; i++)
        r->rec_ids[i] = r->slots[ROOM_GAUGES + ROOM_DISPLAYS + i].channel;
    pcs_sync_hub_def hd = pcs_sync_hub_default();
    hd.dt_s = r->dt_s;
    hd.recorder_ids = r->rec_ids;
    hd.n_recorders = ROOM_RECORDERS;
    hd.history_s = history_s;
    if (pcs_sync_hub_create(r->pool, &hd, &r->hub) != PCS_OK)
        return room_fail(r, "hub");
    if (pcs_sync_hub_update(r->hub) != PCS_OK)
        return room_fail(r, "hub update");
    return 0;
}

/** The room's subscription with @p budget. */
static inline pcs_sync_client_def sync_room_def(const sync_room *r, pcs_sync_budget budget)
{
    pcs_sync_client_def d = pcs_sync_client_default();
    d.channels = r->slots;
    d.n_channels = ROOM_SLOTS;
    d.budget = budget;
    return d;
}

/** Submit the scenario's script actions due at the world's next tick. */
static inline int sync_room_script(sync_room *r, uint64_t next_tick)
{
    uint32_t n = pcs_scenario_action_count(r->scn);
    for (uint32_t i = 0; i < n; i++) {
        const pcs_scenario_action *a = pcs_scenario_action_get(r->scn, i);
        if (a->tick != next_tick)
            continue;
        pcs_command c;
        if (pcs_station_command(r->st, a->target, a->command, a->value, &c) != PCS_OK ||
            pcs_command_submit(r->world, &c) != PCS_OK)
            return room_fail(r, a->command);
    }
    return 0;
}

static inline void sync_room_destroy(sync_room *r)
{
    pcs_sync_hub_destroy(r->hub);
    pcs_station_destroy(r->st);
    pcs_world_destroy(r->world);
    pcs_scenario_destroy(r->scn);
}

static inline int same_or_both_nan(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

/* ------------------------------------------------------------------ */
/* A client of the room with its decoder and the checks every delivery
 * passes: the decoded value of each slot delivered at a tick is within its
 * deadband of the hub's true value at that tick (strictly: below it), or
 * bit-equal for quantum 0; every recorder point is within its deadband of
 * the true value at the point's tick; every message decodes. */

#include <stdlib.h>

typedef struct room_client {
    pcs_sync_client *c;
    pcs_sync_decoder *d;
    uint8_t *buf;
    size_t cap;
    uint64_t *last_seen; /* per slot: deliveries counted so far */
    double *truth_rec;   /* [tick][rec] true recorder values, run_ticks rows */
    uint64_t truth_rows;
    double max_err_q[PCS_SYNC_CLASSES]; /* largest |decoded - true| / quantum per class */
    uint64_t violations;                /* deliveries outside the bound */
    uint64_t decode_errors;
    uint64_t event_changes; /* true changes of EVENT slots between encodes */
    uint64_t event_late;    /* of those, not decoded at the tick they changed */
    uint64_t messages, bytes;
    double *prev_true; /* per slot, the true value at the previous pump */
    char first_error[256];
} room_client;

static inline int room_client_open(room_client *rc, sync_room *r, pcs_sync_budget budget,
                                   uint64_t run_ticks)
{
    memset(rc, 0, sizeof *rc);
    pcs_sync_client_def d = sync_room_def(r, budget);
    if (pcs_sync_client_add(r->hub, &d, &rc->c) != PCS_OK)
        return room_fail(r, "client");
    if (pcs_sync_decoder_create(NULL, &rc->d) != PCS_OK)
        return room_fail(r, "decoder");
    rc->cap = pcs_sync_client_message_max(rc->c);
    rc->buf = malloc(rc->cap);
    rc->last_seen = calloc(ROOM_SLOTS, sizeof *rc->last_seen);
    rc->prev_true = calloc(ROOM_SLOTS, sizeof *rc->prev_true);
    rc->truth_rows = run_ticks + 2;
    rc->truth_rec = calloc(rc->truth_rows * ROOM_RECORDERS, sizeof *rc->truth_rec);
    if (!rc->buf || !rc->last_seen || !rc->prev_true || !rc->truth_rec)
        return room_fail(r, "room client memory");
    for (uint32_t i = 0; i < ROOM_SLOTS; i++)
        rc->prev_true[i] = pcs_sync_hub_value(r->hub, r->slots[i].channel);
    uint64_t t = pcs_sync_hub_tick(r->hub);
    if (t < rc->truth_rows)
        for (uint32_t j = 0; j < ROOM_RECORDERS; j++)
            rc->truth_rec[t * ROOM_RECORDERS + j] = pcs_sync_hub_value(r->hub, r->rec_ids[j]);
    return 0;
}

static inline void room_client_close(room_client *rc)
{
    pcs_sync_client_destroy(rc->c);
    pcs_sync_decoder_destroy(rc->d);
    free(rc->buf);
    free(rc->last_seen);
    free(rc->prev_true);
    free(rc->truth_rec);
}

static inline void room_violation(room_client *rc, const char *fmt, uint32_t slot, double dec,
                                  double truth, uint64_t tick)
{
    if (rc->violations++ == 0)
        snprintf(rc->first_error, sizeof rc->first_error, fmt, slot, dec, truth,
                 (unsigned long long)tick);
}

static inline double room_bound(const pcs_sync_channel *ch)
{
    return ch->deadband > 0.0 ? ch->deadband : ch->quantum;
}

static inline int room_within(const pcs_sync_channel *ch, double dec, double truth)
{
    if (ch->quantum == 0.0 || !isfinite(truth))
        return memcmp(&dec, &truth, sizeof dec) == 0;
    return fabs(dec - truth) < room_bound(ch);
}

/* Check every slot delivered since the last pump, at hub tick t. */
static inline void room_check_slots(room_client *rc, sync_room *r, uint64_t t)
{
    for (uint32_t i = 0; i < ROOM_SLOTS; i++) {
        const pcs_sync_channel *ch = &r->slots[i];
        double truth = pcs_sync_hub_value(r->hub, ch->channel);
        if (ch->rate_class == PCS_SYNC_EVENT && !same_or_both_nan(truth, rc->prev_true[i])) {
            rc->event_changes++;
            if (!room_within(ch, pcs_sync_decoder_value(rc->d, i), truth))
                rc->event_late++;
        }
        rc->prev_true[i] = truth;
        if (ch->rate_class == PCS_SYNC_RECORDER)
            continue;
        pcs_sync_slot_stats ss;
        pcs_sync_slot_stats_get(rc->c, i, &ss);
        if (ss.deliveries == rc->last_seen[i])
            continue;
        rc->last_seen[i] = ss.deliveries;
        double dec = pcs_sync_decoder_value(rc->d, i);
        if (ss.last_tick != t || !room_within(ch, dec, truth))
            room_violation(rc, "slot %u: decoded %.17g, true %.17g at tick %llu", i, dec, truth, t);
        if (ch->quantum > 0.0 && isfinite(truth) &&
            fabs(dec - truth) / ch->quantum > rc->max_err_q[ch->rate_class])
            rc->max_err_q[ch->rate_class] = fabs(dec - truth) / ch->quantum;
    }
}

/* Check the points of a RECORDER message against the truth at their ticks. */
static inline void room_check_points(room_client *rc, sync_room *r, const pcs_sync_decoded *info)
{
    for (uint32_t j = 0; j < ROOM_RECORDERS; j++) {
        uint32_t slot = ROOM_GAUGES + ROOM_DISPLAYS + j;
        const pcs_sync_channel *ch = &r->slots[slot];
        for (uint32_t k = 0; k < info->n_points; k++) {
            uint64_t tick;
            double v;
            if (pcs_sync_decoder_point(rc->d, slot, k, &tick, &v) != PCS_OK ||
                tick >= rc->truth_rows) {
                room_violation(rc, "slot %u: point missing (%g %g) tick %llu", slot, 0.0, 0.0,
                               tick);
                continue;
            }
            double truth = rc->truth_rec[tick * ROOM_RECORDERS + j];
            if (!room_within(ch, v, truth))
                room_violation(rc, "recorder slot %u: decoded %.17g, true %.17g at tick %llu", slot,
                               v, truth, tick);
            if (fabs(v - truth) / ch->quantum > rc->max_err_q[PCS_SYNC_RECORDER])
                rc->max_err_q[PCS_SYNC_RECORDER] = fabs(v - truth) / ch->quantum;
        }
    }
}

/* Encode everything due at the hub's frame, decode it, check it. */
static inline void room_client_pump(room_client *rc, sync_room *r)
{
    uint64_t t = pcs_sync_hub_tick(r->hub);
    if (t < rc->truth_rows)
        for (uint32_t j = 0; j < ROOM_RECORDERS; j++)
            rc->truth_rec[t * ROOM_RECORDERS + j] = pcs_sync_hub_value(r->hub, r->rec_ids[j]);
    size_t len;
    while (pcs_sync_encode(rc->c, rc->buf, rc->cap, &len) == PCS_OK && len > 0) {
        rc->messages++;
        rc->bytes += len;
        pcs_sync_decoded info;
        if (pcs_sync_decode(rc->d, rc->buf, len, &info) != PCS_OK) {
            if (rc->decode_errors++ == 0)
                snprintf(rc->first_error, sizeof rc->first_error, "decode: %s", pcs_last_error());
            continue;
        }
        if (info.type == PCS_SYNC_MSG_RECORDER)
            room_check_points(rc, r, &info);
    }
    room_check_slots(rc, r, t);
}

#endif
