/**
 * @file feedwater.c
 * @brief The feedwater plant's build (pcsim/feedwater.h): definition and
 *        its check, stores and their start, the system, the command
 *        targets, channels and the load check.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/channel.h"
#include "pcsim/clock.h"
#include "pcsim/math.h"
#include "pcsim/param_range.h"
#include "pcsim/persist.h"
#include "pcsim/plant_signals.h"
#include "pcsim/system.h"
#include "pcsim/water.h"
#include "physics/control/models/control_common.h"
#include "physics/control/models/feedwater_internal.h"
#include "physics/thermohydraulics/models/th_register.h"

#define FW_P_ATM 101325.0 /* Pa: the condensate storage tank is vented */

pcs_status pcs_feedwater_default(pcs_feedwater_def *d)
{
    if (!d)
        return pcs_error_set(PCS_E_INVAL, "pcs_feedwater_default: def is NULL");
    memset(d, 0, sizeof *d);
    d->n_mfp = 2;
    d->mfp_drive = PCS_FEED_DRIVE_TURBINE;
    d->mfp_shutoff_head_m = 1270.0;
    d->mfp_rated_kg_s = 960.8;
    d->mfp_runout_kg_s = 1441.2;
    d->mfp_suction_p_pa = 2.4e6;
    d->mfp_coast_s = 10.0;
    d->mfp_start_s = 30.0;
    d->drive_steam_min_pa = 1.0e6;
    d->isolation_close_s = 5.0;
    d->feed_t_rated_k = 493.43;
    d->feed_t_no_load_k = 306.03;
    d->rated_steam_kg_s = 1921.6;
    d->heater_lag_s = 180.0;
    d->n_afw = 3;
    d->afw_level_control = 1;
    d->afw_throttle_after_s = 600.0;
    d->afw_level_low_pct = 9.0;
    d->afw_level_high_pct = 33.0;
    const uint32_t drive[] = {PCS_FEED_DRIVE_MOTOR, PCS_FEED_DRIVE_MOTOR, PCS_FEED_DRIVE_TURBINE};
    const double gpm[] = {440.0, 440.0, 880.0}, delay[] = {10.0, 10.0, 20.0},
                 ramp[] = {20.0, 20.0, 30.0};
    for (uint32_t j = 0; j < 3; j++) {
        d->afw_drive[j] = drive[j];
        d->afw_rated_gpm[j] = gpm[j];
        d->afw_start_delay_s[j] = delay[j];
        d->afw_ramp_s[j] = ramp[j];
    }
    return PCS_OK;
}

static pcs_status check_afw(const pcs_feedwater_def *d)
{
    for (uint32_t j = 0; j < d->n_afw; j++) {
        char prefix[48];
        snprintf(prefix, sizeof prefix, "feedwater: AFW pump %u: ", j + 1);
        if (d->afw_drive[j] > PCS_FEED_DRIVE_TURBINE)
            return pcs_error_set(PCS_E_INVAL, "%safw_drive = %u is not 0 (motor) or 1 (turbine)",
                                 prefix, d->afw_drive[j]);
        const pcs_param_range r[] = {
            {"afw_rated_gpm", d->afw_rated_gpm[j], 0.0, 1e4, 1},
            {"afw_start_delay_s", d->afw_start_delay_s[j], 0.0, 60.0, 0},
            {"afw_ramp_s", d->afw_ramp_s[j], 0.0, 60.0, 1},
            /* [HRTD] 5.7: rated flow within one minute of the start signal */
            {"afw_start_delay_s + afw_ramp_s", d->afw_start_delay_s[j] + d->afw_ramp_s[j], 0.0,
             60.0, 0},
        };
        pcs_status st = pcs_param_ranges_check(prefix, r, sizeof r / sizeof r[0]);
        if (st != PCS_OK)
            return st;
    }
    return PCS_OK;
}

static pcs_status check_def(const pcs_feedwater_def *d)
{
    pcs_status name_st = pcs_control_unit_name_check("feedwater", d->unit_name);
    if (name_st != PCS_OK)
        return name_st;
    if (d->n_mfp < 1 || d->n_mfp > PCS_FEEDWATER_MAX_MFP)
        return pcs_error_set(PCS_E_INVAL, "feedwater: n_mfp = %u is outside [1, %u]", d->n_mfp,
                             PCS_FEEDWATER_MAX_MFP);
    if (d->n_afw > PCS_FEEDWATER_MAX_AFW)
        return pcs_error_set(PCS_E_INVAL, "feedwater: n_afw = %u is outside [0, %u]", d->n_afw,
                             PCS_FEEDWATER_MAX_AFW);
    if (d->afw_level_control > 1)
        return pcs_error_set(PCS_E_INVAL, "feedwater: afw_level_control = %u is not 0 or 1",
                             d->afw_level_control);
    if (d->mfp_drive > PCS_FEED_DRIVE_TURBINE)
        return pcs_error_set(
            PCS_E_INVAL, "feedwater: mfp_drive = %u is not 0 (motor) or 1 (turbine)", d->mfp_drive);
    const pcs_param_range r[] = {
        {"mfp_shutoff_head_m", d->mfp_shutoff_head_m, 0.0, 1e4, 1},
        {"mfp_rated_kg_s", d->mfp_rated_kg_s, 0.0, 1e4, 1},
        {"mfp_runout_kg_s", d->mfp_runout_kg_s, d->mfp_rated_kg_s, 1e4, 1},
        {"mfp_suction_p_pa", d->mfp_suction_p_pa, 0.0, 2e7, 0},
        {"mfp_coast_s", d->mfp_coast_s, 0.1, 1000.0, 0},
        {"mfp_start_s", d->mfp_start_s, 0.1, 1000.0, 0},
        {"drive_steam_min_pa", d->drive_steam_min_pa, 0.0, 2e7, 0},
        {"isolation_close_s", d->isolation_close_s, 0.1, 600.0, 0},
        {"feed_t_rated_k", d->feed_t_rated_k, 273.16, 600.0, 0},
        {"feed_t_no_load_k", d->feed_t_no_load_k, 273.16, d->feed_t_rated_k, 0},
        {"rated_steam_kg_s", d->rated_steam_kg_s, 0.0, 1e5, 1},
        {"heater_lag_s", d->heater_lag_s, 0.05, 1e4, 0},
        {"afw_throttle_after_s", d->afw_throttle_after_s, 0.0, 1e5, 0},
        {"afw_level_low_pct", d->afw_level_low_pct, 0.0, 99.0, 0},
        {"afw_level_high_pct", d->afw_level_high_pct, d->afw_level_low_pct, 100.0, 1},
    };
    pcs_status st = pcs_param_ranges_check("feedwater: ", r, sizeof r / sizeof r[0]);
    return st == PCS_OK ? check_afw(d) : st;
}

/* ---- load check ------------------------------------------------------------- */

static pcs_status fw_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    const pcs_feedwater *fw = ctx;
    const char *name = pcs_store_name(w, fw->base.id_state);
    const double *s = pcs_load_view_store(v, fw->base.id_state);
    pcs_status st = pcs_load_check_f64_from(name, "isolation valve opening", s,
                                            PCS_FEEDWATER_ST_ISO_VALVE, 1, 1, 0.0, 1.0, 0);
    if (st == PCS_OK)
        st = pcs_control_load_flag(name, "AFW start signal seen flag", s,
                                   PCS_FEEDWATER_ST_AFW_SIGNAL, 6);
    for (uint32_t i = 0; st == PCS_OK && i < fw->def.n_mfp + fw->def.n_afw; i++) {
        uint32_t at = PCS_FEEDWATER_ST_MFP + PCS_FEEDWATER_ST_PER_PUMP * i;
        int mfp = i < fw->def.n_mfp;
        st = pcs_control_load_flag(name,
                                   mfp ? "main feed pump running flag" : "AFW pump running flag", s,
                                   at + PCS_FEEDWATER_ST_RUNNING, 6);
        if (st == PCS_OK)
            st = pcs_load_check_f64_from(
                name, mfp ? "main feed pump speed / rated" : "AFW pump time since start s", s,
                at + PCS_FEEDWATER_ST_SPEED, 1, 1, 0.0, mfp ? 1.0 : 1e6, 0);
    }
    return st;
}

/* ---- registration --------------------------------------------------------------- */

static pcs_status make_stores(pcs_world *w, void *ctl)
{
    pcs_feedwater *fw = ctl;
    const pcs_feedwater_def *d = &fw->def;
    double *s;
    pcs_status st = pcs_control_state(
        w, &fw->base, PCS_FEEDWATER_ST_MFP + PCS_FEEDWATER_ST_PER_PUMP * (d->n_mfp + d->n_afw), &s);
    char name[PCS_NAME_MAX];
    snprintf(name, sizeof name, "%s.feed.out", fw->base.unit);
    if (st == PCS_OK)
        st = pcs_store_register(w, name, sizeof(double), PCS_FEEDWATER_OUT_AFW + d->n_afw,
                                PCS_STORE_SCRATCH_F64, &fw->id_out);
    if (st == PCS_OK)
        st = pcs_plant_signals(w, fw->base.unit, PCS_SIGNALS_FEED, &fw->id_sig);
    if (st == PCS_OK)
        st = pcs_plant_signals(w, fw->base.unit, PCS_SIGNALS_INTERLOCK, &fw->id_ilk);
    if (st != PCS_OK)
        return st;
    s[PCS_FEEDWATER_ST_ISO_VALVE] = 1.0;
    for (uint32_t i = 0; i < d->n_mfp; i++) {
        s[PCS_FEEDWATER_ST_MFP + PCS_FEEDWATER_ST_PER_PUMP * i + PCS_FEEDWATER_ST_RUNNING] = 1.0;
        s[PCS_FEEDWATER_ST_MFP + PCS_FEEDWATER_ST_PER_PUMP * i + PCS_FEEDWATER_ST_SPEED] = 1.0;
    }
    return PCS_OK;
}

static pcs_status register_system(pcs_world *w, void *ctl)
{
    pcs_feedwater *fw = ctl;
    uint32_t reads[] = {fw->sec.out, fw->id_ilk};
    uint32_t writes[6] = {fw->base.id_state, fw->id_out, fw->id_sig, fw->sec.afw, fw->sec.feed_t};
    uint32_t n_writes = 5;
    if (fw->id_feed_limit != UINT32_MAX)
        writes[n_writes++] = fw->id_feed_limit;
    return pcs_th_system(w, fw->base.unit, "feedwater", PCS_STAGE_ALARMS, pcs_fw_system, fw, reads,
                         2, writes, n_writes, fw_load_check);
}

static pcs_status register_channels(pcs_world *w, void *ctl)
{
    const pcs_feedwater *fw = ctl;
    pcs_status st = pcs_th_channel(w, fw->base.unit, "feed.isolation_valve", "1", fw->base.id_state,
                                   PCS_FEEDWATER_ST_ISO_VALVE);
    if (st == PCS_OK)
        st = pcs_th_channel(w, fw->base.unit, "feed.available", "kg/s", fw->id_out,
                            PCS_FEEDWATER_OUT_AVAILABLE);
    if (st == PCS_OK)
        st = pcs_th_channel(w, fw->base.unit, "feed.temperature", "K", fw->sec.feed_t, 0);
    if (st == PCS_OK)
        st = pcs_th_channel(w, fw->base.unit, "afw.flow", "kg/s", fw->id_out,
                            PCS_FEEDWATER_OUT_AFW_TOTAL);
    char what[32];
    for (uint32_t i = 0; st == PCS_OK && i < fw->def.n_mfp; i++) {
        snprintf(what, sizeof what, "feed.mfp%u.speed", i + 1);
        st = pcs_th_channel(w, fw->base.unit, what, "1", fw->base.id_state,
                            PCS_FEEDWATER_ST_MFP + PCS_FEEDWATER_ST_PER_PUMP * i +
                                PCS_FEEDWATER_ST_SPEED);
    }
    for (uint32_t j = 0; st == PCS_OK && j < fw->def.n_afw; j++) {
        snprintf(what, sizeof what, "afw.pump%u.flow", j + 1);
        st = pcs_th_channel(w, fw->base.unit, what, "kg/s", fw->id_out, PCS_FEEDWATER_OUT_AFW + j);
    }
    return st;
}

/* Densities (header): the feed at the pumps, the AFW water in the tank. */
static pcs_status densities(pcs_feedwater *fw, const pcs_secondary_def *sd)
{
    pcs_status st =
        pcs_water_rho_pt(fw->def.mfp_suction_p_pa, fw->def.feed_t_rated_k, &fw->rho_feed);
    if (st == PCS_OK)
        st = pcs_water_rho_pt(FW_P_ATM, sd->afw_t_k, &fw->rho_afw);
    for (uint32_t j = 0; st == PCS_OK && j < fw->def.n_afw; j++)
        fw->afw_rated_kg_s[j] = fw->def.afw_rated_gpm[j] * PCS_FEEDWATER_GPM_M3_S * fw->rho_afw;
    return st;
}

static const pcs_control_kind fw_kind = {
    "feedwater",
    "feed",
    {PCS_FEEDWATER_COMMANDS, PCS_FEEDWATER_OP_COUNT, pcs_fw_on_command, "feed", NULL},
    {make_stores, register_system, pcs_control_targets, register_channels}};

pcs_status pcs_feedwater_add(pcs_world *w, const pcs_feedwater_def *def, pcs_secondary *sec,
                             pcs_sg_control *sc, pcs_feedwater **out)
{
    if (!w || !def || !sec || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_feedwater_add: NULL argument");
    pcs_status st = check_def(def);
    if (st != PCS_OK)
        return st;
    const pcs_secondary_def *sd = pcs_secondary_def_get(sec);
    if (strcmp(def->unit_name, sd->unit_name) != 0)
        return pcs_error_set(PCS_E_INVAL, "feedwater: unit_name '%s' is not the secondary's '%s'",
                             def->unit_name, sd->unit_name);
    pcs_feedwater *fw = pcs_control_new(w, &st, &fw_kind, sizeof *fw, def->unit_name);
    if (!fw)
        return st;
    fw->def = *def;
    fw->def.unit_name = fw->base.unit;
    fw->base.n_sg = sd->n_sg;
    fw->sec = pcs_secondary_store_ids(sec);
    fw->id_feed_limit = sc ? pcs_sg_control_feed_limit_store(sc) : UINT32_MAX;
    fw->coast_factor = pcs_exp(-fw->base.dt_s / def->mfp_coast_s);
    fw->lag_alpha = -pcs_expm1(-fw->base.dt_s / def->heater_lag_s);
    st = densities(fw, sd);
    return pcs_control_finish(w, st, &fw->base, out);
}

pcs_feedwater_stores pcs_feedwater_store_ids(const pcs_feedwater *fw)
{
    pcs_feedwater_stores s = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
    if (fw) {
        s.state = fw->base.id_state;
        s.out = fw->id_out;
        s.sig = fw->id_sig;
    }
    return s;
}

double pcs_feedwater_rho_feed(const pcs_feedwater *fw)
{
    return fw ? fw->rho_feed : 0.0;
}

double pcs_feedwater_rho_afw(const pcs_feedwater *fw)
{
    return fw ? fw->rho_afw : 0.0;
}
