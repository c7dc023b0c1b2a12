/**
 * @file steam_dump.c
 * @brief The steam dump controller's build (pcsim/steam_dump.h):
 *        definition, store, system, command target, channels and the load
 *        check.
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
#include "physics/control/models/control_input.h"
#include "physics/control/models/steam_dump_internal.h"
#include "physics/thermohydraulics/models/th_register.h"

#define F_K (5.0 / 9.0)

static const pcs_steam_dump_def steam_dump_defaults = {
    .tavg = {UINT32_MAX, 0, PCS_PZR_CONTROL_NO_STATUS, 0},
    .t_avg_no_load_k = 564.817,
    .t_avg_full_k = 580.206,
    .lr_deadband_k = 5.0 * F_K,
    .lr_full_k = 16.4 * F_K,
    .lr_trip_half_k = 10.7 * F_K,
    .lr_trip_all_k = 16.4 * F_K,
    .pt_full_k = 27.7 * F_K,
    .pt_trip_half_k = 13.8 * F_K,
    .pt_trip_all_k = 27.7 * F_K,
    .trip_open_stroke_s = 3.0,
    .modulate_stroke_s = 20.0,
    .p_setpoint_pa = 7.630e6,
    .p_gain_per_pa = 1.0 / 0.6895e6,
    .p_integral_time_s = 60.0,
    .p12_fraction = 3.0 / 12.0,
    .require_c9 = 1,
};

pcs_status pcs_steam_dump_default(pcs_steam_dump_def *d)
{
    return pcs_control_default("pcs_steam_dump_default", d, &steam_dump_defaults, sizeof *d);
}

static pcs_status check_def(const pcs_world *w, const pcs_steam_dump_def *d)
{
    pcs_status name_st = pcs_control_unit_name_check("steam_dump", d->unit_name);
    if (name_st != PCS_OK)
        return name_st;
    if (d->require_c9 > 1)
        return pcs_error_set(PCS_E_INVAL, "steam_dump: require_c9 = %u must be 0 or 1",
                             d->require_c9);
    const pcs_param_range r[] = {
        {"t_avg_no_load_k", d->t_avg_no_load_k, 273.15, 700.0, 0},
        {"t_avg_full_k", d->t_avg_full_k, d->t_avg_no_load_k, 700.0, 1},
        {"lr_deadband_k", d->lr_deadband_k, 0.0, 50.0, 0},
        {"lr_full_k", d->lr_full_k, d->lr_deadband_k, 100.0, 1},
        {"lr_trip_half_k", d->lr_trip_half_k, 0.0, 100.0, 1},
        {"lr_trip_all_k", d->lr_trip_all_k, d->lr_trip_half_k, 100.0, 0},
        {"pt_full_k", d->pt_full_k, 0.0, 100.0, 1},
        {"pt_trip_half_k", d->pt_trip_half_k, 0.0, 100.0, 1},
        {"pt_trip_all_k", d->pt_trip_all_k, d->pt_trip_half_k, 100.0, 0},
        {"trip_open_stroke_s", d->trip_open_stroke_s, 0.05, 60.0, 0},
        {"modulate_stroke_s", d->modulate_stroke_s, 0.05, 600.0, 0},
        {"p_setpoint_pa", d->p_setpoint_pa, 1e6, 1.5e7, 0},
        {"p_gain_per_pa", d->p_gain_per_pa, 0.0, 1e-3, 1},
        {"p_integral_time_s", d->p_integral_time_s, 1.0, 1e5, 0},
        {"p12_fraction", d->p12_fraction, 0.0, 1.0, 0},
    };
    pcs_status st = pcs_param_ranges_check("steam_dump: ", r, sizeof r / sizeof r[0]);
    if (st == PCS_OK)
        st = pcs_control_input_check(w, "steam_dump", "tavg", &d->tavg);
    return st;
}

/* ---- load check ------------------------------------------------------------- */

static pcs_status sdc_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    const pcs_steam_dump *sd = ctx;
    const char *name = pcs_store_name(w, sd->base.id_state);
    const double *s = pcs_load_view_store(v, sd->base.id_state);
    pcs_status st = pcs_control_flag_allowed(name, "manual flag", s, PCS_STEAM_DUMP_ST_MANUAL);
    if (st == PCS_OK)
        st = pcs_control_flag_allowed(name, "mode (0 Tavg, 1 pressure)", s, PCS_STEAM_DUMP_ST_MODE);
    if (st == PCS_OK)
        st = pcs_load_check_f64_from(name, "manual demand, demand, pressure integral", s,
                                     PCS_STEAM_DUMP_ST_MANUAL_DEMAND, 3, 1, 0.0, 1.0, 0);
    if (st == PCS_OK)
        st = pcs_load_check_f64_from(name, "measured header pressure Pa", s,
                                     PCS_STEAM_DUMP_ST_P_MEASURED, 1, 1, 0.0, 1e8, 0);
    if (st == PCS_OK)
        st = pcs_load_check_f64_from(name, "controller", s, PCS_STEAM_DUMP_ST_CONTROLLER, 1, 1, 0.0,
                                     PCS_STEAM_DUMP_CTL_MANUAL, 0);
    if (st == PCS_OK && s[PCS_STEAM_DUMP_ST_CONTROLLER] != floor(s[PCS_STEAM_DUMP_ST_CONTROLLER]))
        st = pcs_error_set(PCS_E_CORRUPT,
                           "store '%s' element %u (controller): value %g; allowed a whole "
                           "number in [0, %u]",
                           name, PCS_STEAM_DUMP_ST_CONTROLLER, s[PCS_STEAM_DUMP_ST_CONTROLLER],
                           PCS_STEAM_DUMP_CTL_MANUAL);
    if (st == PCS_OK)
        st = pcs_load_check_f64_from(name, "error K or Pa", s, PCS_STEAM_DUMP_ST_ERROR, 1, 1, -1e8,
                                     1e8, 0);
    return st;
}

/* ---- registration --------------------------------------------------------------- */

static pcs_status register_system(pcs_world *w, void *ctl)
{
    pcs_steam_dump *sd = ctl;
    const pcs_pzr_control_input *t = &sd->def.tavg;
    uint32_t reads[5] = {t->store, sd->id_turbine, sd->id_interlock, sd->sec.out, t->status_store};
    uint32_t writes[] = {sd->base.id_state, sd->sec.dump};
    return pcs_th_system(w, sd->base.unit, "dumpctl", PCS_STAGE_ALARMS, pcs_sdc_system, sd, reads,
                         t->status_store == PCS_PZR_CONTROL_NO_STATUS ? 4 : 5, writes, 2,
                         sdc_load_check);
}

static pcs_status register_channels(pcs_world *w, void *ctl)
{
    const pcs_steam_dump *sd = ctl;
    static const pcs_th_channel_row ch[] = {{"demand", "1", PCS_STEAM_DUMP_ST_DEMAND},
                                            {"error", "K or Pa", PCS_STEAM_DUMP_ST_ERROR},
                                            {"controller", "", PCS_STEAM_DUMP_ST_CONTROLLER},
                                            {"manual", "", PCS_STEAM_DUMP_ST_MANUAL},
                                            {"mode", "", PCS_STEAM_DUMP_ST_MODE}};
    return pcs_control_channels(w, &sd->base, sd->base.id_state, ch, sizeof ch / sizeof ch[0]);
}

/* The turbine's and the interlocks' signals (load rejection, trip, C-7,
 * C-9, P-12). */
static pcs_status bind_signals(pcs_world *w, void *ctl)
{
    pcs_steam_dump *sd = ctl;
    pcs_status st = pcs_plant_signals(w, sd->base.unit, PCS_SIGNALS_TURBINE, &sd->id_turbine);
    if (st == PCS_OK)
        st = pcs_plant_signals(w, sd->base.unit, PCS_SIGNALS_INTERLOCK, &sd->id_interlock);
    return st;
}

static pcs_status make_state(pcs_world *w, void *ctl)
{
    pcs_steam_dump *sd = ctl;
    double *s;
    pcs_status st = pcs_control_state(w, &sd->base, PCS_STEAM_DUMP_ST_COUNT, &s);
    if (st != PCS_OK)
        return st;
    s[PCS_STEAM_DUMP_ST_DEMAND] = *(const double *)pcs_store_data(w, sd->sec.dump);
    s[PCS_STEAM_DUMP_ST_P_MEASURED] =
        ((const double *)pcs_store_data(w, sd->sec.out))[PCS_SECONDARY_OUT_HEADER_P];
    return PCS_OK;
}

static const pcs_control_kind sdc_kind = {
    "steam_dump",
    "dumpctl",
    {PCS_STEAM_DUMP_COMMANDS, PCS_STEAM_DUMP_OP_COUNT, pcs_sdc_on_command, "dumpctl", NULL},
    {bind_signals, make_state, register_system, pcs_control_targets, register_channels}};

pcs_status pcs_steam_dump_add(pcs_world *w, const pcs_steam_dump_def *def, pcs_secondary *sec,
                              pcs_steam_dump **out)
{
    if (!w || !def || !sec || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_steam_dump_add: NULL argument");
    pcs_status st = check_def(w, def);
    pcs_steam_dump *sd = pcs_control_new(w, &st, &sdc_kind, sizeof *sd, def->unit_name);
    if (!sd)
        return st;
    sd->def = *def;
    sd->def.unit_name = sd->base.unit;
    sd->sec = pcs_secondary_store_ids(sec);
    return pcs_control_finish(w, st, &sd->base, out);
}

uint32_t pcs_steam_dump_state_store(const pcs_steam_dump *sd)
{
    return sd ? sd->base.id_state : UINT32_MAX;
}
