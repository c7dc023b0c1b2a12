/**
 * @file rod_control.c
 * @brief The rod controller's build (pcsim/rod_control.h): definition,
 *        store, system, command target, channels and the load check.
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
#include "physics/control/models/rod_control_internal.h"
#include "physics/thermohydraulics/models/th_register.h"

#define F_K PCS_ROD_CONTROL_F_K

static const pcs_rod_control_def rod_control_defaults = {
    .tavg = {UINT32_MAX, 0, PCS_PZR_CONTROL_NO_STATUS, 0},
    .t_avg_no_load_k = 564.817,
    .t_avg_full_k = 580.206,
    .deadband_k = 1.5 * F_K,
    .lockup_k = 0.5 * F_K,
    .min_speed_spm = 8.0,
    .ramp_start_k = 3.0 * F_K,
    .ramp_spm_per_k = 32.0 / F_K,
    .max_speed_spm = 72.0,
    .auto_min_load = 0.15,
    .steps_full_stroke = 228.0,
    .power = {UINT32_MAX, 0, PCS_PZR_CONTROL_NO_STATUS, 0},
    .rated_power_w = 3.411e9,
    .mismatch_tau_s = 30.0,
    .mismatch_break = 0.01,
    .mismatch_low_k = 0.3 * F_K / 0.01,
    .mismatch_high_k = 1.5 * F_K / 0.01,
    .variable_gain_max = 2.0,
    .bank_mask = 0x0fu,
};

pcs_status pcs_rod_control_default(pcs_rod_control_def *d)
{
    return pcs_control_default("pcs_rod_control_default", d, &rod_control_defaults, sizeof *d);
}

static pcs_status check_def(const pcs_world *w, const pcs_rod_control_def *d, uint32_t n_banks)
{
    const pcs_param_range r[] = {
        {"t_avg_no_load_k", d->t_avg_no_load_k, 273.15, 700.0, 0},
        {"t_avg_full_k", d->t_avg_full_k, d->t_avg_no_load_k, 700.0, 1},
        {"deadband_k", d->deadband_k, 0.0, 10.0, 1},
        {"lockup_k", d->lockup_k, 0.0, d->deadband_k * (1.0 - 1e-12), 0},
        {"max_speed_spm", d->max_speed_spm, 0.0, 200.0, 1},
        {"min_speed_spm", d->min_speed_spm, 0.0, d->max_speed_spm, 1},
        {"ramp_start_k", d->ramp_start_k, d->deadband_k, 100.0, 0},
        {"ramp_spm_per_k", d->ramp_spm_per_k, 0.0, 1e4, 0},
        {"auto_min_load", d->auto_min_load, 0.0, 1.0, 0},
        {"steps_full_stroke", d->steps_full_stroke, 10.0, 1000.0, 0},
        {"rated_power_w", d->rated_power_w, 1e6, 1e11, 0},
        {"mismatch_tau_s", d->mismatch_tau_s, 1.0, 3600.0, 0},
        {"mismatch_break", d->mismatch_break, 0.0, 1.0, 1},
        {"mismatch_low_k", d->mismatch_low_k, 0.0, 1e4, 0},
        {"mismatch_high_k", d->mismatch_high_k, 0.0, 1e4, 0},
        {"variable_gain_max", d->variable_gain_max, 1.0, 100.0, 0},
    };
    pcs_status st = pcs_control_def_check("rod_control", d->unit_name, r, sizeof r / sizeof r[0]);
    uint32_t all = n_banks >= 32 ? UINT32_MAX : (1u << n_banks) - 1u;
    if (st == PCS_OK && (d->bank_mask == 0 || (d->bank_mask & ~all)))
        st = pcs_error_set(PCS_E_INVAL,
                           "rod_control: bank_mask = 0x%x must be non-zero and within the "
                           "unit's %u banks (0x%x)",
                           d->bank_mask, n_banks, all);
    if (st == PCS_OK)
        st = pcs_control_input_check(w, "rod_control", "tavg", &d->tavg);
    if (st == PCS_OK && d->power.store != UINT32_MAX)
        st = pcs_control_input_check(w, "rod_control", "power", &d->power);
    return st;
}

/* ---- load check ------------------------------------------------------------- */

static pcs_status rodc_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    const pcs_rod_control *rc = ctx;
    const pcs_rod_control_def *d = &rc->def;
    const char *name = pcs_store_name(w, rc->base.id_state);
    const double *s = pcs_load_view_store(v, rc->base.id_state);
    pcs_status st = PCS_OK;
    static const uint32_t flags[] = {PCS_ROD_CONTROL_ST_MANUAL, PCS_ROD_CONTROL_ST_MOVING,
                                     PCS_ROD_CONTROL_ST_LAG_VALID};
    static const char *const flag_names[] = {"manual flag", "lock-up state", "lag valid flag"};
    for (uint32_t i = 0; st == PCS_OK && i < 3; i++)
        st = pcs_control_flag_allowed(name, flag_names[i], s, flags[i]);
    if (st == PCS_OK)
        st = pcs_load_check_f64_from(name, "speed steps/min", s, PCS_ROD_CONTROL_ST_SPEED, 1, 1,
                                     -d->max_speed_spm, d->max_speed_spm, 0);
    if (st == PCS_OK)
        st = pcs_load_check_f64_from(name, "Tref K", s, PCS_ROD_CONTROL_ST_T_REF, 1, 1,
                                     d->t_avg_no_load_k, d->t_avg_full_k, 0);
    if (st == PCS_OK)
        st = pcs_load_check_f64_from(name, "Tavg error K", s, PCS_ROD_CONTROL_ST_ERROR, 1, 1,
                                     -500.0, 500.0, 0);
    if (st == PCS_OK)
        st = pcs_load_check_f64_from(name, "mismatch lag", s, PCS_ROD_CONTROL_ST_MISMATCH_LAG, 1, 1,
                                     -2.0, 2.0, 0);
    if (st == PCS_OK)
        st = pcs_load_check_f64_from(name, "power and total error K", s,
                                     PCS_ROD_CONTROL_ST_POWER_ERROR, 2, 1, -1e4, 1e4, 0);
    return st;
}

/* ---- registration --------------------------------------------------------------- */

static pcs_status register_system(pcs_world *w, void *ctl)
{
    pcs_rod_control *rc = ctl;
    /* Tavg's store first (pcs_control_input_reads lists it once), then its
     * status word and the power input's stores. */
    uint32_t reads[6] = {rc->def.tavg.store, rc->id_turbine, rc->id_pos}, n = 3;
    pcs_control_input_reads(&rc->def.tavg, reads, &n);
    if (rc->def.power.store != UINT32_MAX)
        pcs_control_input_reads(&rc->def.power, reads, &n);
    uint32_t writes[] = {rc->base.id_state, rc->id_auto};
    return pcs_th_system(w, rc->base.unit, "rodctl", PCS_STAGE_ALARMS, pcs_rodc_system, rc, reads,
                         n, writes, 2, rodc_load_check);
}

static pcs_status register_channels(pcs_world *w, void *ctl)
{
    const pcs_rod_control *rc = ctl;
    static const pcs_th_channel_row ch[] = {{"t_ref", "K", PCS_ROD_CONTROL_ST_T_REF},
                                            {"error", "K", PCS_ROD_CONTROL_ST_ERROR},
                                            {"power_error", "K", PCS_ROD_CONTROL_ST_POWER_ERROR},
                                            {"total_error", "K", PCS_ROD_CONTROL_ST_TOTAL_ERROR},
                                            {"speed", "steps/min", PCS_ROD_CONTROL_ST_SPEED},
                                            {"manual", "", PCS_ROD_CONTROL_ST_MANUAL}};
    return pcs_control_channels(w, &rc->base, rc->base.id_state, ch, sizeof ch / sizeof ch[0]);
}

/* The turbine's signals (its load: the power mismatch channel and the
 * Tref program). */
static pcs_status bind_turbine(pcs_world *w, void *ctl)
{
    pcs_rod_control *rc = ctl;
    return pcs_plant_signals(w, rc->base.unit, PCS_SIGNALS_TURBINE, &rc->id_turbine);
}

static pcs_status make_state(pcs_world *w, void *ctl)
{
    pcs_rod_control *rc = ctl;
    double *s;
    pcs_status st = pcs_control_state(w, &rc->base, PCS_ROD_CONTROL_ST_COUNT, &s);
    if (st == PCS_OK)
        s[PCS_ROD_CONTROL_ST_T_REF] = pcs_rod_control_t_ref(&rc->def, 0.0);
    return st; /* "uN.rods.auto" starts released (all 0) until the first tick */
}

static const pcs_control_kind rodc_kind = {
    "rod_control",
    "rodctl",
    {PCS_ROD_CONTROL_COMMANDS, PCS_ROD_CONTROL_OP_COUNT, pcs_rodc_on_command, "rodctl", NULL},
    {bind_turbine, make_state, register_system, pcs_control_targets, register_channels}};

pcs_status pcs_rod_control_add(pcs_world *w, const pcs_rod_control_def *def, const pcs_unit *unit,
                               pcs_rod_control **out)
{
    if (!w || !def || !unit || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_rod_control_add: NULL argument");
    uint32_t id_auto, id_pos;
    pcs_status st = pcs_unit_rod_stores(unit, &id_auto, &id_pos);
    if (st != PCS_OK)
        return st;
    uint32_t n_banks = (uint32_t)(pcs_store_bytes(w, id_pos) / sizeof(double));
    st = check_def(w, def, n_banks);
    pcs_rod_control *rc = pcs_control_new(w, &st, &rodc_kind, sizeof *rc, def->unit_name);
    if (!rc)
        return st;
    rc->def = *def;
    rc->def.unit_name = rc->base.unit;
    rc->n_banks = n_banks;
    rc->id_auto = id_auto;
    rc->id_pos = id_pos;
    return pcs_control_finish(w, st, &rc->base, out);
}

uint32_t pcs_rod_control_state_store(const pcs_rod_control *rc)
{
    return rc ? rc->base.id_state : UINT32_MAX;
}
