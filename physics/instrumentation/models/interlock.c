/**
 * @file interlock.c
 * @brief The interlock logic's build (pcsim/interlock.h): definition and
 *        its check, the state store and its load check, the system, the
 *        command targets (c7_reset, condenser, si_reset) and the channels.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/channel.h"
#include "pcsim/clock.h"
#include "pcsim/param_range.h"
#include "pcsim/persist.h"
#include "pcsim/plant_signals.h"
#include "pcsim/system.h"
#include "physics/control/models/control_common.h"
#include "physics/instrumentation/models/interlock_internal.h"
#include "physics/thermohydraulics/models/th_register.h"

#define F_TO_K(f) (((f)-32.0) / 1.8 + 273.15)
#define PSI_PA 6894.757293168
#define PSIG_PA(p) (((p) + 14.695948775) * PSI_PA)

static const pcs_interlock_def interlock_defaults = {
    .n_sg = 4,
    .rated_power_w = 3411e6,
    .rated_steam_kg_s = 480.4,
    .initial_power_frac = 1.0,
    .p7_frac = 0.10,
    .p13_frac = 0.10,
    .p8_frac = 0.39,
    .p9_frac = 0.50,
    .p_deadband_frac = 0.01,
    .p12_tavg_k = F_TO_K(553.0),
    .p12_hysteresis_k = 2.0 / 1.8,
    .p14_level_pct = 69.0,
    .p14_deadband_pct = 1.0,
    .low_low_level_pct = 11.5,
    .fw_iso_tavg_k = F_TO_K(564.0),
    .c7_step_frac = 0.10,
    .c7_ramp_per_min = 0.05,
    .hsf_low_frac = 0.40,
    .hsf_high_frac = 1.10,
    .hsf_load_lo = 0.20,
    .hsf_load_hi = 1.00,
    .low_steam_p_pa = PSIG_PA(600.0),
    .si_dp_pa = 100.0 * PSI_PA,
    .si_pzr_low_pa = PSIG_PA(1807.0),
    .k_lines = 2,
    .condenser_available = 1,
    .k_loops = 2,
    .msiv_delay_s = 0.5,
    .msiv_stroke_s = 5.0,
    .msiv_open_stroke_s = 5.0,
};

pcs_status pcs_interlock_default(pcs_interlock_def *d)
{
    return pcs_control_default("pcs_interlock_default", d, &interlock_defaults, sizeof *d);
}

/* The fields both the interlock and the MSIVs use. */
static pcs_status check_common(const pcs_interlock_def *d, const char *who)
{
    pcs_status name_st = pcs_control_unit_name_check(who, d->unit_name);
    if (name_st != PCS_OK)
        return name_st;
    if (d->n_sg < 1 || d->n_sg > PCS_INTERLOCK_MAX_SG)
        return pcs_error_set(PCS_E_INVAL, "%s: n_sg = %u is outside [1, %u]", who, d->n_sg,
                             PCS_INTERLOCK_MAX_SG);
    const pcs_param_range r[] = {
        {"msiv_delay_s", d->msiv_delay_s, 0.0, 60.0, 0},
        {"msiv_stroke_s", d->msiv_stroke_s, 0.0, 600.0, 1},
        {"msiv_open_stroke_s", d->msiv_open_stroke_s, 0.0, 3600.0, 1},
    };
    char prefix[48];
    snprintf(prefix, sizeof prefix, "%s: ", who);
    return pcs_param_ranges_check(prefix, r, sizeof r / sizeof r[0]);
}

/* The two-loop low-flow inputs' counts and setpoint (channels: check_all_channels). */
static pcs_status check_loops(const pcs_interlock_def *d)
{
    if (d->n_loops > PCS_INTERLOCK_MAX_SG)
        return pcs_error_set(PCS_E_INVAL, "interlock: n_loops = %u is outside [0, %u]", d->n_loops,
                             PCS_INTERLOCK_MAX_SG);
    if (d->n_loops == 0)
        return PCS_OK;
    if (d->k_loops < 1 || d->k_loops > d->n_loops)
        return pcs_error_set(PCS_E_INVAL, "interlock: k_loops = %u is outside [1, %u] (n_loops)",
                             d->k_loops, d->n_loops);
    const pcs_param_range r[] = {
        {"loop_low_flow_kg_s", d->loop_low_flow_kg_s, 0.0, 1e6, 1},
    };
    return pcs_param_ranges_check("interlock: ", r, 1);
}

static pcs_status check_ranges(const pcs_interlock_def *d)
{
    const pcs_param_range r[] = {
        {"rated_power_w", d->rated_power_w, 0.0, 1e11, 1},
        {"rated_steam_kg_s", d->rated_steam_kg_s, 0.0, 1e4, 1},
        {"initial_power_frac", d->initial_power_frac, 0.0, 1.5, 0},
        {"p7_frac", d->p7_frac, 0.0, 1.5, 1},
        {"p13_frac", d->p13_frac, 0.0, 1.5, 1},
        {"p8_frac", d->p8_frac, 0.0, 1.5, 1},
        {"p9_frac", d->p9_frac, 0.0, 1.5, 1},
        {"p_deadband_frac", d->p_deadband_frac, 0.0, 0.5, 0},
        {"p12_tavg_k", d->p12_tavg_k, 273.15, 700.0, 0},
        {"p12_hysteresis_k", d->p12_hysteresis_k, 0.0, 50.0, 0},
        {"p14_level_pct", d->p14_level_pct, 0.0, 100.0, 0},
        {"p14_deadband_pct", d->p14_deadband_pct, 0.0, 50.0, 0},
        {"low_low_level_pct", d->low_low_level_pct, 0.0, 100.0, 0},
        {"fw_iso_tavg_k", d->fw_iso_tavg_k, 273.15, 700.0, 0},
        {"c7_step_frac", d->c7_step_frac, 0.0, 1.0, 1},
        {"c7_ramp_per_min", d->c7_ramp_per_min, 0.0, 10.0, 1},
        {"hsf_low_frac", d->hsf_low_frac, 0.0, 5.0, 1},
        {"hsf_high_frac", d->hsf_high_frac, 0.0, 5.0, 1},
        {"hsf_load_lo", d->hsf_load_lo, 0.0, 1.5, 0},
        {"hsf_load_hi", d->hsf_load_hi, d->hsf_load_lo, 1.5, 1},
        {"low_steam_p_pa", d->low_steam_p_pa, 0.0, 2.2064e7, 1},
        {"si_dp_pa", d->si_dp_pa, 0.0, 2.2064e7, 1},
        {"si_pzr_low_pa", d->si_pzr_low_pa, 0.0, 2.2064e7, 1},
    };
    pcs_status st = pcs_param_ranges_check("interlock: ", r, sizeof r / sizeof r[0]);
    if (st == PCS_OK && (d->k_lines < 1 || d->k_lines > d->n_sg))
        st = pcs_error_set(PCS_E_INVAL, "interlock: k_lines = %u is outside [1, %u] (n_sg)",
                           d->k_lines, d->n_sg);
    if (st == PCS_OK && d->condenser_available > 1)
        st = pcs_error_set(PCS_E_INVAL, "interlock: condenser_available = %u is not 0 or 1",
                           d->condenser_available);
    /* a deadband reaching zero would leave a latched permissive set for good
     * (the power channels read no lower than 0) */
    double lowest = fmin(fmin(d->p7_frac, d->p13_frac), fmin(d->p8_frac, d->p9_frac));
    if (st == PCS_OK && !(d->p_deadband_frac < lowest))
        st = pcs_error_set(PCS_E_INVAL,
                           "interlock: p_deadband_frac = %g is outside [0, %g) "
                           "(min(p7_frac, p13_frac, p8_frac, p9_frac): every latched "
                           "permissive must be able to reset)",
                           d->p_deadband_frac, lowest);
    if (st == PCS_OK && !(d->p14_deadband_pct < d->p14_level_pct))
        st = pcs_error_set(PCS_E_INVAL,
                           "interlock: p14_deadband_pct = %g is outside [0, %g) "
                           "(p14_level_pct: P-14 must be able to reset)",
                           d->p14_deadband_pct, d->p14_level_pct);
    return st == PCS_OK ? check_loops(d) : st;
}

/* One quantity's channels: n in [lo_n, 4], k in [1, n], sensor ids in range. */
static pcs_status check_channels(const pcs_interlock_channels *c, const char *field, uint32_t lo_n,
                                 uint32_t n_sensors)
{
    if (c->n < lo_n || c->n > PCS_INTERLOCK_MAX_CH)
        return pcs_error_set(PCS_E_INVAL, "interlock: %s.n = %u is outside [%u, %u]", field, c->n,
                             lo_n, PCS_INTERLOCK_MAX_CH);
    if (c->n > 0 && (c->k < 1 || c->k > c->n))
        return pcs_error_set(PCS_E_INVAL, "interlock: %s.k = %u is outside [1, %u]", field, c->k,
                             c->n);
    for (uint32_t i = 0; i < c->n; i++)
        if (c->sensor[i] >= n_sensors)
            return pcs_error_set(PCS_E_INVAL,
                                 "interlock: %s.sensor[%u] = %u is outside [0, %u) (sensor ids)",
                                 field, i, c->sensor[i], n_sensors);
    return PCS_OK;
}

static pcs_status check_all_channels(const pcs_interlock_def *d, uint32_t n_sensors)
{
    pcs_status st = check_channels(&d->power, "power", 1, n_sensors);
    if (st == PCS_OK)
        st = check_channels(&d->turbine_load, "turbine_load", 1, n_sensors);
    if (st == PCS_OK)
        st = check_channels(&d->tavg, "tavg", 1, n_sensors);
    if (st == PCS_OK)
        st = check_channels(&d->pzr_pressure, "pzr_pressure", 0, n_sensors);
    for (uint32_t l = 0; st == PCS_OK && l < d->n_sg; l++) {
        char f[32];
        snprintf(f, sizeof f, "nr_level[%u]", l);
        st = check_channels(&d->nr_level[l], f, 1, n_sensors);
        snprintf(f, sizeof f, "steam_flow[%u]", l);
        if (st == PCS_OK)
            st = check_channels(&d->steam_flow[l], f, 1, n_sensors);
        snprintf(f, sizeof f, "steam_p[%u]", l);
        if (st == PCS_OK)
            st = check_channels(&d->steam_p[l], f, 1, n_sensors);
    }
    for (uint32_t l = 0; st == PCS_OK && l < d->n_loops; l++) {
        char f[32];
        snprintf(f, sizeof f, "loop_flow[%u]", l);
        st = check_channels(&d->loop_flow[l], f, 1, n_sensors);
    }
    return st;
}

pcs_status pcs_interlock_def_validate(const pcs_world *w, const pcs_sensors *sensors,
                                      const pcs_interlock_def *d)
{
    if (!w || !sensors || !d)
        return pcs_error_set(PCS_E_INVAL, "pcs_interlock_def_validate: NULL argument");
    pcs_status st = check_common(d, "interlock");
    if (st == PCS_OK)
        st = check_ranges(d);
    if (st == PCS_OK)
        st = check_all_channels(d, pcs_sensor_count(sensors));
    if (st != PCS_OK)
        return st;
    if (d->trip_store >= pcs_store_count(w) || pcs_store_is_f64(w, d->trip_store) ||
        d->trip_index >= pcs_store_bytes(w, d->trip_store) / sizeof(uint32_t))
        return pcs_error_set(PCS_E_INVAL,
                             "interlock: trip_store = %u, trip_index = %u: not a u32 element of a "
                             "registered store (the unit's scram.cause)",
                             d->trip_store, d->trip_index);
    return PCS_OK;
}

/* ---- load check ------------------------------------------------------------ */

/* The flags' copy: each 0 or 1. */
static pcs_status arm_load_check(const pcs_world *w, const pcs_interlock *il,
                                 const pcs_load_view *v)
{
    const char *name = pcs_store_name(w, il->id_arm);
    const double *a = pcs_load_view_store(v, il->id_arm);
    pcs_status st = PCS_OK;
    for (uint32_t i = 0; st == PCS_OK && i < PCS_SIG_INTERLOCK_COUNT; i++)
        st = pcs_control_load_flag(name, "interlock flag copy", a, i, 6);
    return st;
}

static pcs_status interlock_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    const pcs_interlock *il = ctx;
    const char *name = pcs_store_name(w, il->base.id_state);
    const double *s = pcs_load_view_store(v, il->base.id_state);
    static const char *const flags[PCS_INTERLOCK_ST_COUNT] = {
        [PCS_INTERLOCK_ST_STARTED] = "lag started flag",
        [PCS_INTERLOCK_ST_C7] = "C-7 latch",
        [PCS_INTERLOCK_ST_P12] = "P-12 latch",
        [PCS_INTERLOCK_ST_SI] = "SI latch",
        [PCS_INTERLOCK_ST_MSLI] = "MSLI latch",
        [PCS_INTERLOCK_ST_C9] = "C-9 flag",
        [PCS_INTERLOCK_ST_P10] = "P-10 latch",
        [PCS_INTERLOCK_ST_P13] = "P-13 latch",
        [PCS_INTERLOCK_ST_P8] = "P-8 latch",
        [PCS_INTERLOCK_ST_P9] = "P-9 latch",
        [PCS_INTERLOCK_ST_P14] = "P-14 latch"};
    pcs_status st = pcs_load_check_f64_from(name, "lagged turbine load 1", s,
                                            PCS_INTERLOCK_ST_LOAD_LAG, 1, 1, 0.0, 1.5, 0);
    for (uint32_t i = 1; st == PCS_OK && i < PCS_INTERLOCK_ST_COUNT; i++)
        st = pcs_control_load_flag(name, flags[i], s, i, 6);
    return st == PCS_OK ? arm_load_check(w, il, v) : st;
}

/* ---- commands --------------------------------------------------------------- */

static pcs_status on_command(pcs_world *w, const pcs_command_call *call)
{
    (void)w;
    pcs_interlock *il = call->ctx;
    double *s = il->state;
    switch (call->op) {
    case PCS_INTERLOCK_OP_C7_RESET:
        s[PCS_INTERLOCK_ST_C7] = 0.0;
        return PCS_OK;
    case PCS_INTERLOCK_OP_CONDENSER: {
        double a = call->cmd->args[0];
        if (a != 0.0 && a != 1.0)
            return pcs_error_set(PCS_E_INVAL, "%s: condenser_available args[0] = %g is not 0 or 1",
                                 call->target_name, a);
        s[PCS_INTERLOCK_ST_C9] = a;
        return PCS_OK;
    }
    case PCS_INTERLOCK_OP_SI_RESET: {
        int si, msli;
        pcs_interlock_conditions(il, &si, &msli);
        if (si || msli)
            return pcs_error_set(PCS_E_STATE,
                                 "%s: si_reset refused: the %s condition is still present",
                                 call->target_name, msli ? "steam line isolation" : "SI");
        s[PCS_INTERLOCK_ST_SI] = s[PCS_INTERLOCK_ST_MSLI] = 0.0;
        return PCS_OK;
    }
    default:
        return pcs_error_set(PCS_E_INVAL, "%s: interlock op %u is outside [0, %d)",
                             call->target_name, call->op, (int)PCS_INTERLOCK_OP_COUNT);
    }
}

/* ---- build ------------------------------------------------------------------- */

/* The start's flags, then the logic's tick and the flags' copy. */
static pcs_status register_system(pcs_world *w, void *ctl)
{
    pcs_interlock *il = ctl;
    pcs_interlock_start_flags(il);
    uint32_t reads[] = {il->id_sensors, il->id_trip, il->id_turbine, il->id_feed};
    uint32_t writes[] = {il->id_sig, il->base.id_state};
    pcs_status st =
        pcs_th_system(w, il->base.unit, "interlock", PCS_STAGE_PROTECTION, pcs_interlock_step, il,
                      reads, 4, writes, 2, interlock_load_check);
    uint32_t arm_reads[] = {il->id_sig}, arm_writes[] = {il->id_arm};
    if (st == PCS_OK)
        st = pcs_th_system(w, il->base.unit, "interlock.arm", PCS_STAGE_ALARMS,
                           pcs_interlock_arm_step, il, arm_reads, 1, arm_writes, 1, NULL);
    return st;
}

static pcs_status register_channels(pcs_world *w, void *ctl)
{
    const pcs_interlock *il = ctl;
    static const char *const names[PCS_SIG_INTERLOCK_COUNT] = {
        [PCS_SIG_P4] = "p4",
        [PCS_SIG_P7] = "p7",
        [PCS_SIG_P8] = "p8",
        [PCS_SIG_P9] = "p9",
        [PCS_SIG_P12] = "p12",
        [PCS_SIG_P14] = "p14",
        [PCS_SIG_C7] = "c7",
        [PCS_SIG_C8] = "c8",
        [PCS_SIG_C9] = "c9",
        [PCS_SIG_TURBINE_TRIP] = "turbine_trip",
        [PCS_SIG_FW_ISOLATION] = "fw_isolation",
        [PCS_SIG_AFW_START] = "afw_start",
        [PCS_SIG_SI] = "si",
        [PCS_SIG_MSLI] = "msli",
        [PCS_SIG_TWO_LOOP_LOW] = "low_flow_2loops",
    };
    pcs_status st = PCS_OK;
    for (uint32_t i = 0; st == PCS_OK && i < PCS_SIG_INTERLOCK_COUNT; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s.interlock.%s", il->base.unit, names[i]);
        st = pcs_channel_register(w, name, "1", PCS_CHANNEL_F64, il->id_sig, i, NULL);
    }
    return st;
}

/* The signal buses, the state and the flags' copy. */
static pcs_status bind_stores(pcs_world *w, void *ctl)
{
    pcs_interlock *il = ctl;
    pcs_status st = pcs_plant_signals(w, il->base.unit, PCS_SIGNALS_INTERLOCK, &il->id_sig);
    if (st == PCS_OK)
        st = pcs_plant_signals(w, il->base.unit, PCS_SIGNALS_TURBINE, &il->id_turbine);
    if (st == PCS_OK)
        st = pcs_plant_signals(w, il->base.unit, PCS_SIGNALS_FEED, &il->id_feed);
    if (st == PCS_OK)
        st = pcs_control_state(w, &il->base, PCS_INTERLOCK_ST_COUNT, &il->state);
    char name[PCS_NAME_MAX];
    snprintf(name, sizeof name, "%s.interlock.arm", il->base.unit);
    if (st == PCS_OK)
        st = pcs_store_register(w, name, sizeof(double), PCS_SIG_INTERLOCK_COUNT,
                                PCS_STORE_STATE_F64, &il->id_arm);
    if (st != PCS_OK)
        return st;
    il->arm = pcs_store_data(w, il->id_arm);
    il->trip = pcs_store_data(w, il->id_trip);
    il->turbine = pcs_store_data(w, il->id_turbine);
    il->feed = pcs_store_data(w, il->id_feed);
    il->sig = pcs_store_data(w, il->id_sig);
    return PCS_OK;
}

static const pcs_control_kind interlock_kind = {
    "interlock",
    "interlock",
    {PCS_INTERLOCK_COMMANDS, PCS_INTERLOCK_OP_COUNT, on_command, "interlock", NULL},
    {bind_stores, register_system, pcs_control_targets, register_channels}};

pcs_status pcs_interlock_add(pcs_world *w, const pcs_sensors *sensors, const pcs_interlock_def *d,
                             pcs_interlock **out)
{
    if (!w || !sensors || !d || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_interlock_add: NULL argument");
    pcs_status st = pcs_interlock_def_validate(w, sensors, d);
    pcs_interlock *il = pcs_control_new(w, &st, &interlock_kind, sizeof *il, d->unit_name);
    if (!il)
        return st;
    il->def = *d;
    il->def.unit_name = il->base.unit;
    il->id_trip = d->trip_store;
    il->rated_load_kg_s = d->n_sg * d->rated_steam_kg_s;
    double tau_s = d->c7_step_frac / (d->c7_ramp_per_min / 60.0);
    il->lag_alpha = 1.0 - exp(-il->base.dt_s / tau_s);
    uint32_t index0;
    st = pcs_sensor_value_ref(sensors, 0, &il->id_sensors, &index0);
    if (st == PCS_OK)
        il->values = (const double *)pcs_store_data(w, il->id_sensors) + index0;
    return pcs_control_finish(w, st, &il->base, out);
}

uint32_t pcs_interlock_state_store(const pcs_interlock *il)
{
    return il ? il->base.id_state : UINT32_MAX;
}

uint32_t pcs_interlock_arm_store(const pcs_interlock *il)
{
    return il ? il->id_arm : UINT32_MAX;
}
