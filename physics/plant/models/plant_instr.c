/**
 * @file plant_instr.c
 * @brief Standard instrumentation of a station: redundant sensors, 2-out-of-4
 *        protection and operator alarms per unit (see plant.h for setpoints).
 *
 * Sensors find their sources through the channel registry ("u1.loop2.flow"
 * names a store element), so this file depends only on channel names the
 * models publish, not on their private layouts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/alarm.h"
#include "pcsim/channel.h"
#include "pcsim/interlock.h"
#include "pcsim/plant_signals.h"
#include "pcsim/protection.h"
#include "pcsim/pzr_control.h"
#include "pcsim/sensor.h"
#include "pcsim/sg_porv.h"
#include "pcsim/turbine.h"
#include "physics/plant/models/plant_internal.h"

/* A steam-side unit adds 12 unit sensors and 13 per SG, 2 + 1 per SG trip
 * functions and 1 + 3 per SG alarms (instrument_steam). */
#define STEAM_CH 3u /* redundant channels of a steam-side quantity (2-out-of-3) */
/* Most of each a unit adds (boundary and steam side, 4 loops); the scratch
 * below is these times the station's unit count. */
#define UNIT_SENSORS (23 + 18 * PCS_PLANT_MAX_LOOPS)
#define UNIT_FUNCS (6 + 2 * PCS_PLANT_MAX_LOOPS)
#define UNIT_ALARMS (4 + 5 * PCS_PLANT_MAX_LOOPS)
/* The protection's own bound on functions holds the largest station's. */
_Static_assert(PCS_PLANT_MAX_UNITS *UNIT_FUNCS <= PCS_PROTECTION_TRIP_MAX_FUNCTIONS,
               "64 units' trip functions fit one protection system");
#define NAME_LEN 64
#define BASE_LEN 48

pcs_status pcs_plant_setpoints_default(pcs_plant_setpoints *sp)
{
    if (!sp)
        return pcs_error_set(PCS_E_INVAL, "pcs_plant_setpoints_default: sp is NULL");
    *sp = (pcs_plant_setpoints){.high_flux_frac = 1.09,
                                .flux_rate_frac = 0.05,
                                .rate_window_ticks = 40,
                                .low_flow_frac = 0.90,
                                .high_pressure_pa = 16.548e6,
                                .low_pressure_pa = 12.960e6,
                                .alarm_power_frac = 1.02,
                                .alarm_flow_frac = 0.95,
                                .alarm_pressure_high_pa = 16.203e6,
                                .alarm_t_hot_k = 610.0,
                                .noise_frac = 0.002};
    return PCS_OK;
}

typedef char instr_name[NAME_LEN];

/* What the build keeps of one unit for the models built after the bank. */
typedef struct instr_unit {
    /* the control channels pzr_control reads: pressure, level, Tavg */
    uint32_t ctl_pressure, ctl_level, ctl_tavg;
    /* the protection's power and pressure channels (the interlocks read them
     * too) and, on a steam-side unit, the interlocks' definition */
    uint32_t nis[4], prs[4];
    pcs_interlock_def interlock;
    /* per SG, the SG PORV's pressure channel (pcsim/sg_porv.h) */
    uint32_t ctl_porv[PCS_SECONDARY_MAX_SG];
} instr_unit;

/* Build-time scratch: configs and the names they point to, sized from the
 * station's unit count (instr_build_alloc), freed after the build. */
typedef struct instr_build {
    pcs_sensor_def *sensors;
    instr_name *sensor_names;
    uint32_t n_sensors, max_sensors;
    pcs_protection_function_def *funcs;
    instr_name *func_names;
    uint32_t n_funcs;
    pcs_alarm_def *alarms;
    instr_name *alarm_names;
    uint32_t n_alarms;
    instr_unit *units; /* units[u - u0] is plant unit u's */
    /* Per unit, its trip store (the protection's unit_trip_stores). */
    uint32_t *trip_stores;
    uint32_t u0;       /* the first plant unit of this build (0, or an added unit's) */
    pcs_sensors *bank; /* the sensor bank once built (create_banks) */
} instr_build;

/* Plant unit @p u's build record. */
static instr_unit *bu(const instr_build *b, uint32_t u)
{
    return &b->units[u - b->u0];
}

static void instr_build_free(instr_build *b)
{
    if (!b)
        return;
    free(b->sensors), free(b->sensor_names), free(b->funcs), free(b->func_names);
    free(b->alarms), free(b->alarm_names), free(b->units), free(b->trip_stores);
    free(b);
}

static instr_build *instr_build_alloc(uint32_t n_units)
{
    instr_build *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    size_t ns = (size_t)n_units * UNIT_SENSORS, nf = (size_t)n_units * UNIT_FUNCS,
           na = (size_t)n_units * UNIT_ALARMS;
    b->max_sensors = (uint32_t)ns;
    b->sensors = calloc(ns, sizeof *b->sensors);
    b->sensor_names = calloc(ns, sizeof *b->sensor_names);
    b->funcs = calloc(nf, sizeof *b->funcs);
    b->func_names = calloc(nf, sizeof *b->func_names);
    b->alarms = calloc(na, sizeof *b->alarms);
    b->alarm_names = calloc(na, sizeof *b->alarm_names);
    b->units = calloc(n_units, sizeof *b->units);
    b->trip_stores = calloc(n_units, sizeof *b->trip_stores);
    if (b->sensors && b->sensor_names && b->funcs && b->func_names && b->alarms && b->alarm_names &&
        b->units && b->trip_stores)
        return b;
    instr_build_free(b);
    return NULL;
}

/* @p name copied into a build's name slot @p slot (what an element's
 * name points at until the bank copies it); returns the slot. */
static const char *name_copy(instr_name slot, const char *name)
{
    snprintf(slot, NAME_LEN, "%s", name);
    return slot;
}

/* A sensor on the published channel @p source; returns its id (or UINT32_MAX). */
static uint32_t add_sensor(pcs_world *w, instr_build *b, const char *name, const char *source,
                           const char *unit, double span, double noise_frac, double tau_s)
{
    uint32_t ch;
    pcs_channel_info info;
    if (b->n_sensors >= b->max_sensors || pcs_channel_find(w, source, &ch) != PCS_OK ||
        pcs_channel_get(w, ch, &info) != PCS_OK) {
        pcs_error_set(PCS_E_INVAL, "plant instrumentation: no channel '%s' for sensor '%s'", source,
                      name);
        return UINT32_MAX;
    }
    uint32_t id = b->n_sensors++;
    pcs_sensor_def *c = &b->sensors[id];
    pcs_sensor_default(c);
    c->name = name_copy(b->sensor_names[id], name);
    c->unit = unit;
    c->store = info.store;
    c->index = info.index;
    c->tau_s = tau_s;
    c->noise_sd = noise_frac * span;
    c->lo = 0.0;
    c->hi = 1.5 * span;
    return id;
}

/* Four redundant channels A..D on one source; ids in out[4]. */
static pcs_status add_quad(pcs_world *w, instr_build *b, const char *base, const char *source,
                           const char *unit, double span, double noise, double tau, uint32_t *out)
{
    for (int k = 0; k < 4; k++) {
        char name[NAME_LEN];
        snprintf(name, sizeof name, "%s.%c", base, 'A' + k);
        out[k] = add_sensor(w, b, name, source, unit, span, noise, tau);
        if (out[k] == UINT32_MAX)
            return PCS_E_INVAL;
    }
    return PCS_OK;
}

static void add_func(instr_build *b, const char *name, uint32_t unit, pcs_protection_trip_kind kind,
                     pcs_protection_trip_direction dir, double setpoint, const uint32_t *in,
                     uint32_t window)
{
    uint32_t id = b->n_funcs++;
    pcs_protection_function_def *f = &b->funcs[id];
    pcs_protection_function_default(f);
    f->name = name_copy(b->func_names[id], name);
    f->unit = unit - b->u0; /* the protection's own unit index */
    f->kind = kind;
    f->direction = dir;
    f->setpoint = setpoint;
    f->n_inputs = 4;
    memcpy(f->inputs, in, 4 * sizeof *in);
    f->k = 2; /* 2-out-of-4 */
    if (kind == PCS_PROTECTION_TRIP_RATE)
        f->rate_window_ticks = window;
}

static void add_alarm(instr_build *b, const char *name, uint32_t sensor, pcs_alarm_direction dir,
                      double setpoint, double deadband, uint32_t priority, uint32_t group)
{
    uint32_t id = b->n_alarms++;
    pcs_alarm_def *a = &b->alarms[id];
    pcs_alarm_default(a);
    a->name = name_copy(b->alarm_names[id], name);
    a->sensor = sensor;
    a->direction = dir;
    a->setpoint = setpoint;
    a->deadband = deadband;
    a->on_delay_ticks = 10;
    a->off_delay_ticks = 20;
    a->priority = priority;
    a->group = group;
    a->suppress_store = PCS_ALARM_NO_SUPPRESS;
}

static pcs_status instrument_loops(pcs_world *w, instr_build *b, const pcs_plant *p, uint32_t u,
                                   const pcs_plant_setpoints *sp)
{
    const pcs_plant_unit *pu = &p->units[u];
    uint32_t n = u + 1;
    for (uint32_t l = 1; l <= pu->n_loops; l++) {
        char base[BASE_LEN], src[BASE_LEN], name[NAME_LEN];
        uint32_t flow[4];
        double rated = pu->rated_loop_flow_kg_s;
        snprintf(base, sizeof base, "u%u.loop%u.flow", n, l);
        pcs_status st = add_quad(w, b, base, base, "kg/s", rated, sp->noise_frac, 0.2, flow);
        if (st != PCS_OK)
            return st;
        snprintf(name, sizeof name, "u%u.rps.low_flow.%u", n, l);
        add_func(b, name, u, PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_LOW,
                 sp->low_flow_frac * rated, flow, 0);
        snprintf(name, sizeof name, "u%u.alarm.flow_low.%u", n, l);
        add_alarm(b, name, flow[0], PCS_ALARM_LOW, sp->alarm_flow_frac * rated, 0.01 * rated,
                  PCS_ALARM_PRIO_HIGH, n);
        snprintf(src, sizeof src, "u%u.loop%u.t_hot", n, l);
        snprintf(name, sizeof name, "u%u.loop%u.t_hot.S", n, l);
        uint32_t t = add_sensor(w, b, name, src, "K", 700.0, 0.0005, 1.0);
        if (t == UINT32_MAX)
            return PCS_E_INVAL;
        snprintf(name, sizeof name, "u%u.alarm.t_hot_high.%u", n, l);
        add_alarm(b, name, t, PCS_ALARM_HIGH, sp->alarm_t_hot_k, 1.0, PCS_ALARM_PRIO_MEDIUM, n);
    }
    return PCS_OK;
}

/* The control channels of unit @p u: one sensor each on the pressurizer's
 * pressure and level and on Tavg (the controlling channels; the pressure
 * one is separate from the four protection channels, as in the plant). */
static pcs_status instrument_control(pcs_world *w, instr_build *b, uint32_t u,
                                     const pcs_plant_setpoints *sp)
{
    const struct {
        const char *what, *unit;
        double span, noise, tau_s;
        uint32_t *out;
    } ctl[] = {
        {"pzr.pressure", "Pa", 17.0e6, 0.0005, 0.5, &bu(b, u)->ctl_pressure},
        {"pzr.level", "%", 100.0, sp->noise_frac, 1.0, &bu(b, u)->ctl_level},
        {"rcs.t_avg", "K", 700.0, 0.0005, 1.0, &bu(b, u)->ctl_tavg},
    };
    for (size_t i = 0; i < sizeof ctl / sizeof ctl[0]; i++) {
        char name[NAME_LEN], src[BASE_LEN];
        snprintf(src, sizeof src, "u%u.%s", u + 1, ctl[i].what);
        snprintf(name, sizeof name, "%s.ctl", src);
        *ctl[i].out =
            add_sensor(w, b, name, src, ctl[i].unit, ctl[i].span, ctl[i].noise, ctl[i].tau_s);
        if (*ctl[i].out == UINT32_MAX)
            return PCS_E_INVAL;
    }
    return PCS_OK;
}

/* STEAM_CH channels "<base>.A".. on @p source; ids in out[]. */
static pcs_status add_steam_channels(pcs_world *w, instr_build *b, const char *base,
                                     const char *source, const char *unit, double span,
                                     double noise, double tau, pcs_interlock_channels *out)
{
    out->n = STEAM_CH;
    out->k = 2; /* 2-out-of-3 per loop: assumption where refdata gives none */
    for (uint32_t k = 0; k < STEAM_CH; k++) {
        char name[NAME_LEN];
        snprintf(name, sizeof name, "%s.%c", base, 'A' + k);
        out->sensor[k] = add_sensor(w, b, name, source, unit, span, noise, tau);
        if (out->sensor[k] == UINT32_MAX)
            return PCS_E_INVAL;
    }
    return PCS_OK;
}

/* Arm trip function @p f by interlock flag @p flag of store @p sig. */
static void arm_func(instr_build *b, uint32_t f, uint32_t sig, uint32_t flag)
{
    b->funcs[f].arm = 1;
    b->funcs[f].arm_store = sig;
    b->funcs[f].arm_index = flag;
}

/* A trip function over @p c's channels (k of n), armed by interlock flag
 * @p arm_flag of @p sig (UINT32_MAX: always armed). */
static void add_steam_func(instr_build *b, const char *name, uint32_t unit,
                           pcs_protection_trip_direction dir, double setpoint,
                           const pcs_interlock_channels *c, uint32_t sig, uint32_t arm_flag)
{
    add_func(b, name, unit, PCS_PROTECTION_TRIP_LEVEL, dir, setpoint, c->sensor, 0);
    pcs_protection_function_def *f = &b->funcs[b->n_funcs - 1];
    f->n_inputs = c->n;
    f->k = c->k;
    if (arm_flag != UINT32_MAX)
        arm_func(b, b->n_funcs - 1, sig, arm_flag);
}

/* Per SG of a steam-side unit: narrow-range level, steam flow, feed flow and
 * steam pressure channels; the SG low-low level trip and the alarms. */
static pcs_status instrument_sg(pcs_world *w, instr_build *b, uint32_t u, uint32_t l,
                                const pcs_plant_setpoints *sp)
{
    pcs_interlock_def *d = &bu(b, u)->interlock;
    uint32_t n = u + 1;
    char base[BASE_LEN], src[BASE_LEN], name[NAME_LEN];
    pcs_interlock_channels feed;
    double rated = d->rated_steam_kg_s;
    snprintf(base, sizeof base, "u%u.sg%u.nr_level", n, l);
    pcs_status st =
        add_steam_channels(w, b, base, base, "%", 100.0, sp->noise_frac, 1.0, &d->nr_level[l - 1]);
    snprintf(base, sizeof base, "u%u.sg%u.steam_flow", n, l);
    if (st == PCS_OK)
        st = add_steam_channels(w, b, base, base, "kg/s", rated, sp->noise_frac, 0.2,
                                &d->steam_flow[l - 1]);
    snprintf(base, sizeof base, "u%u.sg%u.feed_flow", n, l);
    if (st == PCS_OK)
        st = add_steam_channels(w, b, base, base, "kg/s", rated, sp->noise_frac, 0.2, &feed);
    snprintf(base, sizeof base, "u%u.sg%u.steam_pressure", n, l);
    snprintf(src, sizeof src, "u%u.sg%u.pressure", n, l);
    if (st == PCS_OK)
        st = add_steam_channels(w, b, base, src, "Pa", 8.6e6, 0.0005, 0.5, &d->steam_p[l - 1]);
    if (st != PCS_OK)
        return st;
    /* the PORV's own transmitter, apart from the protection channels
     * ([HRTD] 7.1: one of each line's pressure transmitters gives the PORV
     * its signal); the protection channels' span, noise and lag */
    snprintf(name, sizeof name, "u%u.sg%u.steam_pressure.porv", n, l);
    bu(b, u)->ctl_porv[l - 1] = add_sensor(w, b, name, src, "Pa", 8.6e6, 0.0005, 0.5);
    if (bu(b, u)->ctl_porv[l - 1] == UINT32_MAX)
        return PCS_E_INVAL;
    for (uint32_t k = 0; k < STEAM_CH; k++) /* the NR span reads 0..100 % */
        b->sensors[d->nr_level[l - 1].sensor[k]].hi = 100.0;
    snprintf(name, sizeof name, "u%u.rps.sg_low_low.%u", n, l);
    add_steam_func(b, name, u, PCS_PROTECTION_TRIP_LOW, d->low_low_level_pct, &d->nr_level[l - 1],
                   0, UINT32_MAX);
    snprintf(name, sizeof name, "u%u.alarm.sg_low_low.%u", n, l);
    add_alarm(b, name, d->nr_level[l - 1].sensor[0], PCS_ALARM_LOW, d->low_low_level_pct, 1.0,
              PCS_ALARM_PRIO_HIGH, n);
    snprintf(name, sizeof name, "u%u.alarm.steam_pressure_low.%u", n, l);
    add_alarm(b, name, d->steam_p[l - 1].sensor[0], PCS_ALARM_LOW, d->low_steam_p_pa, 0.1e6,
              PCS_ALARM_PRIO_HIGH, n);
    snprintf(name, sizeof name, "u%u.alarm.steam_flow_high.%u", n, l);
    add_alarm(b, name, d->steam_flow[l - 1].sensor[0], PCS_ALARM_HIGH, d->hsf_high_frac * rated,
              0.02 * rated, PCS_ALARM_PRIO_HIGH, n);
    return PCS_OK;
}

/* STEAM_CH sensors "<base>.A".. on element @p index of the float64 signal
 * store @p store (a flag: no channel is published for the signal bus, the
 * sensors read its element directly); ids in @p out (2 of 3). */
static void add_flag_channels(instr_build *b, const char *base, uint32_t store, uint32_t index,
                              pcs_interlock_channels *out)
{
    *out = (pcs_interlock_channels){.n = STEAM_CH, .k = 2};
    for (uint32_t k = 0; k < STEAM_CH; k++) {
        uint32_t id = b->n_sensors++;
        pcs_sensor_def *c = &b->sensors[id];
        pcs_sensor_default(c);
        snprintf(b->sensor_names[id], NAME_LEN, "%s.%c", base, 'A' + k);
        c->name = b->sensor_names[id];
        c->unit = "1";
        c->store = store;
        c->index = index;
        c->lo = 0.0;
        c->hi = 1.0;
        out->sensor[k] = id;
    }
}

/* The per-loop low-flow trips (functions @p low_flow .. + n_loops - 1, 2 of
 * 4 channels in one loop) armed by P-8, and the two-loop low-flow trip
 * "uN.rps.low_flow_2loops" armed by P-7: the interlocks form the two-loop
 * coincidence from the same channels and setpoint (TWO_LOOP_LOW), which
 * this function reads as the turbine-trip function reads the turbine's
 * tripped flag. pwr_transients.md section 4, [HRTD] 12.2: above P-8 one
 * loop trips, between P-7 and P-8 two loops. */
static pcs_status low_flow_trips(pcs_world *w, instr_build *b, const pcs_plant *p, uint32_t u,
                                 uint32_t low_flow)
{
    pcs_interlock_def *d = &bu(b, u)->interlock;
    const uint32_t sig = UINT32_MAX; /* the flag copy: set by create_all */
    uint32_t n = u + 1, isig = 0, n_loops = p->units[u].n_loops;
    char unit[16], base[BASE_LEN], name[NAME_LEN];
    snprintf(unit, sizeof unit, "u%u", n);
    pcs_status st = pcs_plant_signals(w, unit, PCS_SIGNALS_INTERLOCK, &isig);
    if (st != PCS_OK)
        return st;
    d->n_loops = n_loops;
    d->k_loops = n_loops < d->k_loops ? n_loops : d->k_loops;
    d->loop_low_flow_kg_s = b->funcs[low_flow].setpoint;
    for (uint32_t l = 0; l < n_loops; l++) {
        const pcs_protection_function_def *f = &b->funcs[low_flow + l];
        d->loop_flow[l] = (pcs_interlock_channels){.n = f->n_inputs, .k = f->k};
        memcpy(d->loop_flow[l].sensor, f->inputs, f->n_inputs * sizeof f->inputs[0]);
        arm_func(b, low_flow + l, sig, PCS_SIG_P8);
    }
    pcs_interlock_channels two;
    snprintf(base, sizeof base, "u%u.interlock.low_flow_2loops", n);
    add_flag_channels(b, base, isig, PCS_SIG_TWO_LOOP_LOW, &two);
    snprintf(name, sizeof name, "u%u.rps.low_flow_2loops", n);
    add_steam_func(b, name, u, PCS_PROTECTION_TRIP_HIGH, 0.5, &two, sig, PCS_SIG_P7);
    return PCS_OK;
}

/*
 * The steam side of unit @p u (sg_model steam_side only, so a boundary unit
 * builds exactly as before): Tavg and turbine load channels for the
 * interlocks, per SG channels (instrument_sg), the turbine-trip reactor trip
 * armed by P-9 ([HRTD] 12.2: below P-9 a turbine trip does not trip the
 * reactor), the low-pressurizer-pressure trip (function @p low_pressure)
 * armed by P-7, the low-flow trips (low_flow_trips) and the turbine-trip
 * alarm. The setpoints are the interlocks' (pcs_interlock_default: one
 * source).
 */
static pcs_status instrument_steam(pcs_world *w, instr_build *b, const pcs_plant *p, uint32_t u,
                                   const pcs_plant_setpoints *sp, uint32_t low_pressure,
                                   uint32_t low_flow)
{
    const pcs_plant_unit *pu = &p->units[u];
    const pcs_secondary_def *sd = pcs_secondary_def_get(pu->secondary);
    pcs_interlock_def *d = &bu(b, u)->interlock;
    pcs_interlock_default(d);
    /* the interlocks' flag copy the armed trips read: its store exists once
     * the interlocks are built (create_all sets it) */
    const uint32_t sig = UINT32_MAX;
    uint32_t n = u + 1, tsig;
    char unit[16], base[BASE_LEN], src[BASE_LEN], name[NAME_LEN];
    snprintf(unit, sizeof unit, "u%u", n);
    d->n_sg = sd->n_sg;
    d->k_lines = d->n_sg < d->k_lines ? d->n_sg : d->k_lines;
    /* the steam flow and turbine load channels are calibrated as the
     * turbine's impulse channel, on the unit's own full-power steam
     * (pcsim/turbine.h "Calibration"): P-13, C-7 and the high-steam-flow
     * setpoint's fractions read the turbine's load 1 as 100 % */
    d->rated_steam_kg_s = pcs_turbine_rated_flow(pu->turbine) / sd->n_sg;
    d->rated_power_w = p->cfg[u].core.nominal_power_w;
    d->initial_power_frac = p->cfg[u].core.initial_power_fraction;
    pcs_status st = pcs_plant_signals(w, unit, PCS_SIGNALS_TURBINE, &tsig);
    snprintf(base, sizeof base, "u%u.rcs.t_avg", n);
    if (st == PCS_OK)
        st = add_steam_channels(w, b, base, base, "K", 700.0, 0.0005, 1.0, &d->tavg);
    snprintf(base, sizeof base, "u%u.turbine.load", n);
    snprintf(src, sizeof src, "u%u.turbine.steam_flow", n);
    if (st == PCS_OK)
        st = add_steam_channels(w, b, base, src, "kg/s", d->n_sg * d->rated_steam_kg_s,
                                sp->noise_frac, 0.2, &d->turbine_load);
    for (uint32_t l = 1; st == PCS_OK && l <= d->n_sg; l++)
        st = instrument_sg(w, b, u, l, sp);
    if (st != PCS_OK)
        return st;
    /* the turbine's tripped flag as three channels */
    pcs_interlock_channels trip;
    snprintf(base, sizeof base, "u%u.turbine.tripped", n);
    add_flag_channels(b, base, tsig, PCS_SIG_TURBINE_TRIPPED, &trip);
    snprintf(name, sizeof name, "u%u.rps.turbine_trip", n);
    add_steam_func(b, name, u, PCS_PROTECTION_TRIP_HIGH, 0.5, &trip, sig, PCS_SIG_P9);
    snprintf(name, sizeof name, "u%u.alarm.turbine_trip", n);
    add_alarm(b, name, trip.sensor[0], PCS_ALARM_HIGH, 0.5, 0.1, PCS_ALARM_PRIO_HIGH, n);
    arm_func(b, low_pressure, sig, PCS_SIG_P7);
    st = low_flow_trips(w, b, p, u, low_flow);
    if (st != PCS_OK)
        return st;
    d->power = (pcs_interlock_channels){.n = 4, .k = 2}; /* the protection's 2-out-of-4 */
    d->pzr_pressure = (pcs_interlock_channels){.n = 4, .k = 2};
    memcpy(d->power.sensor, bu(b, u)->nis, sizeof bu(b, u)->nis);
    memcpy(d->pzr_pressure.sensor, bu(b, u)->prs, sizeof bu(b, u)->prs);
    return PCS_OK;
}

static pcs_status instrument_unit(pcs_world *w, instr_build *b, const pcs_plant *p, uint32_t u,
                                  const pcs_plant_setpoints *sp)
{
    const pcs_plant_unit_def *c = &p->cfg[u];
    uint32_t n = u + 1, nis[4], prs[4];
    double p_nom = c->core.nominal_power_w;
    char base[BASE_LEN], src[BASE_LEN], name[NAME_LEN];
    snprintf(base, sizeof base, "u%u.nis.power", n);
    snprintf(src, sizeof src, "u%u.core.power", n);
    pcs_status st = add_quad(w, b, base, src, "W", p_nom, sp->noise_frac, 0.1, nis);
    snprintf(base, sizeof base, "u%u.pzr.pressure", n);
    if (st == PCS_OK)
        st = add_quad(w, b, base, base, "Pa", 17.0e6, 0.0005, 0.5, prs);
    if (st == PCS_OK)
        st = instrument_control(w, b, u, sp);
    if (st != PCS_OK)
        return st;
    memcpy(bu(b, u)->nis, nis, sizeof nis);
    memcpy(bu(b, u)->prs, prs, sizeof prs);
    snprintf(name, sizeof name, "u%u.rps.high_flux", n);
    add_func(b, name, u, PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_HIGH,
             sp->high_flux_frac * p_nom, nis, 0);
    snprintf(name, sizeof name, "u%u.rps.flux_rate", n);
    double window_s = sp->rate_window_ticks * pcs_world_clock(w)->dt_s;
    add_func(b, name, u, PCS_PROTECTION_TRIP_RATE, PCS_PROTECTION_TRIP_HIGH,
             sp->flux_rate_frac * p_nom / window_s, nis, sp->rate_window_ticks);
    snprintf(name, sizeof name, "u%u.rps.high_pressure", n);
    add_func(b, name, u, PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_HIGH, sp->high_pressure_pa,
             prs, 0);
    snprintf(name, sizeof name, "u%u.rps.low_pressure", n);
    add_func(b, name, u, PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_LOW, sp->low_pressure_pa,
             prs, 0);
    uint32_t low_pressure = b->n_funcs - 1;
    snprintf(name, sizeof name, "u%u.alarm.power_high", n);
    add_alarm(b, name, nis[0], PCS_ALARM_HIGH, sp->alarm_power_frac * p_nom, 0.01 * p_nom,
              PCS_ALARM_PRIO_HIGH, n);
    snprintf(name, sizeof name, "u%u.alarm.pressure_high", n);
    add_alarm(b, name, prs[0], PCS_ALARM_HIGH, sp->alarm_pressure_high_pa, 0.1e6,
              PCS_ALARM_PRIO_HIGH, n);
    snprintf(name, sizeof name, "u%u.alarm.pressure_low", n);
    add_alarm(b, name, prs[0], PCS_ALARM_LOW, 0.5 * (sp->low_pressure_pa + 15.51e6), 0.1e6,
              PCS_ALARM_PRIO_HIGH, n);
    uint32_t low_flow = b->n_funcs; /* instrument_loops adds the low-flow trips, one per loop */
    st = instrument_loops(w, b, p, u, sp);
    if (st == PCS_OK && p->units[u].secondary)
        st = instrument_steam(w, b, p, u, sp, low_pressure, low_flow);
    return st;
}

static pcs_status control_input(const instr_build *b, uint32_t sensor, pcs_pzr_control_input *in)
{
    pcs_status st = pcs_sensor_value_ref(b->bank, sensor, &in->store, &in->index);
    if (st == PCS_OK)
        st = pcs_sensor_status_ref(b->bank, sensor, &in->status_store, &in->status_index);
    return st;
}

/* Pressurizer pressure and level control of unit @p u on its control channels. */
static pcs_status add_pzr_control(pcs_world *w, pcs_plant *p, const instr_build *b, uint32_t u)
{
    const pcs_primary_def *pd = pcs_primary_def_get(p->units[u].primary);
    char name[16];
    snprintf(name, sizeof name, "u%u", u + 1);
    pcs_pzr_control_def d;
    pcs_pzr_control_default(&d);
    d.unit_name = name;
    d.n_tavg = 1;
    d.controls_store = pcs_primary_store_ids(p->units[u].primary).controls;
    /* One plant: the primary's heaters, setpoint, programs, letdown orifice
     * and boron are the controller's. */
    d.heater_proportional_w = pd->pzr.heater_proportional_w;
    d.heater_backup_w = pd->pzr.heater_backup_w;
    d.p_setpoint_pa = pd->p_setpoint_pa;
    d.t_avg_no_load_k = pd->t_avg_no_load_k;
    d.t_avg_full_k = pd->t_avg_full_k;
    d.level_no_load_pct = pd->pzr_level_no_load;
    d.level_full_pct = pd->pzr_level_full;
    d.letdown_kg_s = pd->letdown_nominal_kg_s;
    d.charging_boron_ppm = pd->boron_ppm;
    pcs_status st = control_input(b, bu(b, u)->ctl_pressure, &d.pressure);
    if (st == PCS_OK)
        st = control_input(b, bu(b, u)->ctl_level, &d.level);
    if (st == PCS_OK)
        st = control_input(b, bu(b, u)->ctl_tavg, &d.tavg[0]);
    if (st == PCS_OK)
        st = pcs_pzr_control_add(w, &d, &p->pzr_control[u]);
    return st;
}

/* Rod control, then steam dump control, of a steam-side unit @p u: both on
 * its Tavg control channel (the one pzr_control reads) and the primary's
 * Tavg program ([HRTD] 8.1, 11.2); rod control's power-mismatch channel on
 * the unit's power-range channel A and its core's nominal power; the other
 * settings are the models' defaults. */
static pcs_status add_tavg_controls(pcs_world *w, pcs_plant *p, const instr_build *b, uint32_t u)
{
    const pcs_primary_def *pd = pcs_primary_def_get(p->units[u].primary);
    pcs_rod_control_def rd;
    pcs_steam_dump_def dd;
    pcs_rod_control_default(&rd);
    pcs_steam_dump_default(&dd);
    rd.unit_name = dd.unit_name = pd->unit_name;
    rd.t_avg_no_load_k = dd.t_avg_no_load_k = pd->t_avg_no_load_k;
    rd.t_avg_full_k = dd.t_avg_full_k = pd->t_avg_full_k;
    rd.rated_power_w = p->cfg[u].core.nominal_power_w;
    pcs_status st = control_input(b, bu(b, u)->ctl_tavg, &rd.tavg);
    dd.tavg = rd.tavg;
    if (st == PCS_OK) /* the power-mismatch channel reads power-range channel A */
        st = control_input(b, bu(b, u)->nis[0], &rd.power);
    if (st == PCS_OK)
        st = pcs_rod_control_add(w, &rd, p->units[u].core, &p->rod_control[u]);
    /* hot zero power: the dumps carry the steam in their steam-pressure
       mode at the operator's setpoint, the header pressure the unit settled
       at (plant.c, plant_hzp_dumps) */
    int hzp = p->cfg[u].core.initial_power_fraction == 0.0;
    if (st == PCS_OK && hzp)
        dd.p_setpoint_pa = plant_hzp_setpoint(w, &p->units[u]);
    if (st == PCS_OK)
        st = pcs_steam_dump_add(w, &dd, p->units[u].secondary, &p->steam_dump[u]);
    if (st == PCS_OK && hzp)
        plant_hzp_dumps(w, p->steam_dump[u]);
    return st;
}

/* The SG PORVs' pressure control of steam-side unit @p u, each on its SG's
 * PORV pressure channel; the settings are the model's defaults. The world
 * owns the model (nothing here keeps it). */
static pcs_status add_sg_porv(pcs_world *w, pcs_plant *p, const instr_build *b, uint32_t u)
{
    const pcs_secondary_def *sd = pcs_secondary_def_get(p->units[u].secondary);
    pcs_sg_porv_def d;
    pcs_sg_porv_default(&d);
    d.unit_name = sd->unit_name;
    pcs_status st = PCS_OK;
    for (uint32_t l = 0; st == PCS_OK && l < sd->n_sg; l++)
        st = control_input(b, bu(b, u)->ctl_porv[l], &d.pressure[l]);
    pcs_sg_porv *pv = NULL;
    return st == PCS_OK ? pcs_sg_porv_add(w, &d, p->units[u].secondary, &pv) : st;
}

/* The permissives and interlocks of steam-side unit @p u (before the
 * protection, whose armed trip functions read their flag copy: set here).
 * P-4 reads the unit's trip breakers, its latched scram cause. */
static pcs_status add_interlock(pcs_world *w, pcs_plant *p, instr_build *b, uint32_t u)
{
    pcs_interlock_def d = bu(b, u)->interlock;
    char unit[16], cause[32];
    snprintf(unit, sizeof unit, "u%u", u + 1);
    snprintf(cause, sizeof cause, "u%u.scram.cause", u + 1);
    d.unit_name = unit;
    uint32_t ch = 0;
    pcs_channel_info info;
    memset(&info, 0, sizeof info);
    pcs_status st = pcs_channel_find(w, cause, &ch);
    if (st == PCS_OK)
        st = pcs_channel_get(w, ch, &info);
    d.trip_store = info.store;
    d.trip_index = info.index;
    if (st == PCS_OK)
        st = pcs_interlock_add(w, b->bank, &d, &p->interlock[u]);
    for (uint32_t f = 0; st == PCS_OK && f < b->n_funcs; f++)
        if (b->funcs[f].arm && b->funcs[f].unit == u - b->u0)
            b->funcs[f].arm_store = pcs_interlock_arm_store(p->interlock[u]);
    return st;
}

/*
 * The banks over plant units [b->u0, b->u0 + n) and their controllers:
 * every unit of the start (@p prefix NULL, unit names "u1".."uN": the
 * world's one bank of each), or one unit added while running (prefix "uN.",
 * its name), into @p set.
 */
static pcs_status create_banks(pcs_world *w, pcs_plant *p, instr_build *b, uint32_t n,
                               const char *prefix, const char *const *unit_names,
                               plant_instr_set *set)
{
    uint32_t *stores = b->trip_stores, u1 = b->u0 + n;
    for (uint32_t i = 0; i < n; i++)
        stores[i] = pcs_unit_trip_store(p->units[b->u0 + i].core);
    set->sensor_base = p->next_sensor;
    set->function_base = p->next_function;
    set->alarm_base = p->next_alarm;
    set->n_functions = b->n_funcs;
    set->n_alarms = b->n_alarms;
    p->next_sensor += b->n_sensors;
    p->next_function += b->n_funcs;
    p->next_alarm += b->n_alarms;
    pcs_status st = pcs_sensor_add_prefixed(w, prefix, set->sensor_base, b->sensors, b->n_sensors,
                                            &set->sensors);
    b->bank = set->sensors;
    for (uint32_t u = b->u0; st == PCS_OK && u < u1; u++)
        if (p->units[u].secondary)
            st = add_interlock(w, p, b, u);
    if (st != PCS_OK)
        return st;
    pcs_protection_def pc;
    pcs_protection_default(&pc);
    pc.n_units = n;
    pc.unit_names = unit_names;
    pc.prefix = prefix;
    pc.event_function_base = set->function_base;
    pc.event_unit_base = b->u0;
    pc.n_functions = b->n_funcs;
    pc.functions = b->funcs;
    pc.unit_trip_stores = stores;
    st = pcs_protection_add(w, set->sensors, &pc, &set->protection);
    if (st == PCS_OK)
        st = pcs_alarm_add_prefixed(w, prefix, set->alarm_base, set->sensors, b->alarms,
                                    b->n_alarms, &set->alarms);
    for (uint32_t u = b->u0; st == PCS_OK && u < u1; u++)
        if (!p->units[u].summary) /* no pressurizer in a summary unit */
            st = add_pzr_control(w, p, b, u);
    for (uint32_t u = b->u0; st == PCS_OK && u < u1; u++)
        if (p->units[u].secondary) {
            st = add_tavg_controls(w, p, b, u);
            if (st == PCS_OK)
                st = add_sg_porv(w, p, b, u);
        }
    /* "alarm_ack_all u2": a unit's name acknowledges the bank, as "alarms" does. */
    for (uint32_t u = b->u0; st == PCS_OK && u < u1; u++) {
        char name[16];
        snprintf(name, sizeof name, "u%u", u + 1);
        st = pcs_alarm_target_register(w, set->alarms, name);
    }
    return st;
}

static pcs_status create_all(pcs_world *w, pcs_plant *p, instr_build *b)
{
    pcs_status st = create_banks(w, p, b, p->n_units, NULL, NULL, &p->start);
    p->sensors = p->start.sensors;
    p->protection = p->start.protection;
    p->alarms = p->start.alarms;
    return st;
}

pcs_status plant_instrument_added(pcs_world *w, pcs_plant *p, uint32_t u)
{
    if (p->units[u].summary) /* a summary unit has no instruments (plant_summary.c) */
        return PCS_OK;
    instr_build *b = instr_build_alloc(1);
    if (!b)
        return pcs_error_set(PCS_E_NOMEM, "plant instrumentation of u%u: out of memory", u + 1);
    b->u0 = u;
    char name[16], prefix[16];
    snprintf(name, sizeof name, "u%u", u + 1);
    snprintf(prefix, sizeof prefix, "u%u.", u + 1);
    const char *names[] = {name};
    pcs_status st = instrument_unit(w, b, p, u, &p->setpoints);
    if (st == PCS_OK)
        st = create_banks(w, p, b, 1, prefix, names, &p->added[u]);
    instr_build_free(b);
    return st;
}

pcs_status pcs_plant_instrument(pcs_world *w, pcs_plant *p, const pcs_plant_setpoints *sp)
{
    if (!w || !p)
        return pcs_error_set(PCS_E_INVAL, "pcs_plant_instrument: NULL argument");
    if (p->sensors)
        return pcs_error_set(PCS_E_STATE, "pcs_plant_instrument: the plant is instrumented");
    pcs_plant_setpoints def;
    pcs_plant_setpoints_default(&def);
    if (!sp)
        sp = &def;
    instr_build *b = instr_build_alloc(p->n_units); /* build-time scratch; strings are copied */
    if (!b)
        return pcs_error_set(PCS_E_NOMEM, "pcs_plant_instrument: out of memory");
    pcs_status st = PCS_OK;
    for (uint32_t u = 0; st == PCS_OK && u < p->n_units; u++)
        if (!p->units[u].summary) /* a summary unit has no instruments (plant_summary.c) */
            st = instrument_unit(w, b, p, u, sp);
    if (st == PCS_OK && b->n_sensors > 0) /* every unit a summary unit: no bank at all */
        st = create_all(w, p, b);
    instr_build_free(b);
    if (st == PCS_OK) { /* a unit added later is instrumented alike (plant_instrument_added) */
        p->instrumented = 1;
        p->setpoints = *sp;
    }
    return st;
}

pcs_sensors *pcs_plant_sensors(const pcs_plant *p)
{
    return p ? p->sensors : NULL;
}

pcs_protection *pcs_plant_protection(const pcs_plant *p)
{
    return p ? p->protection : NULL;
}

pcs_alarms *pcs_plant_alarms(const pcs_plant *p)
{
    return p ? p->alarms : NULL;
}

/* The set unit @p i is instrumented by, or NULL. */
static const plant_instr_set *unit_set(const pcs_plant *p, uint32_t i)
{
    if (!p || i >= p->n_units)
        return NULL;
    return i >= p->n_start ? &p->added[i] : &p->start;
}

pcs_sensors *pcs_plant_unit_sensors(const pcs_plant *p, uint32_t i)
{
    const plant_instr_set *set = unit_set(p, i);
    return set ? set->sensors : NULL;
}

pcs_protection *pcs_plant_unit_protection(const pcs_plant *p, uint32_t i)
{
    const plant_instr_set *set = unit_set(p, i);
    return set ? set->protection : NULL;
}

pcs_alarms *pcs_plant_unit_alarms(const pcs_plant *p, uint32_t i)
{
    const plant_instr_set *set = unit_set(p, i);
    return set ? set->alarms : NULL;
}

/* The set whose trip function (@p functions) or alarm event ids hold @p id:
 * the start's or an added unit's. */
static const plant_instr_set *event_set(const pcs_plant *p, uint32_t id, int functions)
{
    for (uint32_t u = p ? p->n_start : 0; p && u <= p->n_units; u++) {
        const plant_instr_set *set = u == p->n_units ? &p->start : &p->added[u];
        uint32_t base = functions ? set->function_base : set->alarm_base;
        uint32_t n = functions ? set->n_functions : set->n_alarms;
        if ((functions ? set->protection != NULL : set->alarms != NULL) && id >= base &&
            id - base < n)
            return set;
    }
    return NULL;
}

const char *pcs_plant_event_function_name(const pcs_plant *p, uint32_t id)
{
    const plant_instr_set *set = event_set(p, id, 1);
    return set ? pcs_protection_function_name(set->protection, id - set->function_base) : "?";
}

const char *pcs_plant_event_alarm_name(const pcs_plant *p, uint32_t id)
{
    const plant_instr_set *set = event_set(p, id, 0);
    return set ? pcs_alarm_name(set->alarms, id - set->alarm_base) : "?";
}
