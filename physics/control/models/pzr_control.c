/**
 * @file pzr_control.c
 * @brief The pressurizer controller's build: defaults with their sources,
 *        checks of the definition and of the stores it names, stores,
 *        system, command targets, channels and the load check.
 *
 * Load check (pzrc_load_check) on the staged "uN.pzrctl.state": every value
 * finite; the mode flags and the backup latch 0 or 1; demands in [0, 1];
 * the master integrator in [backup_on_pa, spray_full_pa] and the level
 * integrator in [letdown - charging_max, letdown - charging_min] (the
 * ranges conditional integration and the bumpless transfers keep them in,
 * pcsim/pzr_control.h); charging in [0, charging_max], letdown in
 * [0, letdown_max], charging boron in [0, 10000] ppm.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/channel.h"
#include "pcsim/clock.h"
#include "pcsim/param_range.h"
#include "pcsim/persist.h"
#include "pcsim/primary.h"
#include "pcsim/system.h"
#include "physics/control/models/control_input.h"
#include "physics/control/models/pzr_control_internal.h"
#include "physics/thermohydraulics/models/th_register.h"

#define PSI PCS_PZR_CONTROL_PSI_PA
/* 1 US gpm of charging-pump water in kg/s: 6.30901964e-5 m3/s (exact gallon)
 * x 985.97 kg/m3 (IF97 at 130 F = 327.594 K, 0.1 MPa; pcsim/pzr_control.h). */
#define GPM_KG_S (6.30901964e-5 * 985.97)
#define F_TO_K(f) (((f)-32.0) / 1.8 + 273.15)
#define PZRC_CVCS_FLOW_MAX 400.0 /* the primary's load-check bound on CVCS flows */

static const pcs_pzr_control_input unset = {UINT32_MAX, UINT32_MAX, PCS_PZR_CONTROL_NO_STATUS, 0};

pcs_status pcs_pzr_control_default(pcs_pzr_control_def *d)
{
    if (!d)
        return pcs_error_set(PCS_E_INVAL, "pcs_pzr_control_default: def is NULL");
    memset(d, 0, sizeof *d);
    d->unit_name = "u1";
    d->pressure = unset;
    d->level = unset;
    d->n_tavg = 1;
    for (uint32_t k = 0; k < PCS_PZR_CONTROL_MAX_TAVG; k++)
        d->tavg[k] = unset;
    d->controls_store = UINT32_MAX;
    d->p_setpoint_pa = 2235.0 * PSI + 101325.0;
    d->p_gain = 1.0;
    d->p_integral_time_s = 600.0;
    d->prop_full_on_pa = -15.0 * PSI;
    d->prop_off_pa = 15.0 * PSI;
    d->backup_on_pa = -25.0 * PSI;
    d->backup_off_pa = -18.0 * PSI;
    d->spray_start_pa = 25.0 * PSI;
    d->spray_full_pa = 75.0 * PSI;
    d->backup_level_pct = 5.0;
    d->heater_proportional_w = 414e3;
    d->heater_backup_w = 1380e3;
    d->low_level_pct = 17.0;
    d->t_avg_no_load_k = F_TO_K(557.0);
    d->t_avg_full_k = F_TO_K(584.7);
    d->level_no_load_pct = 25.0;
    d->level_full_pct = 61.5;
    d->l_gain_kg_s_pct = 1.0;
    d->l_integral_time_s = 600.0;
    d->letdown_kg_s = 75.0 * GPM_KG_S;
    d->letdown_max_kg_s = 195.0 * GPM_KG_S;
    d->charging_min_kg_s = 20.0 * GPM_KG_S;
    d->charging_max_kg_s = 150.0 * GPM_KG_S;
    d->charging_boron_ppm = 0.0;
    return PCS_OK;
}

static pcs_status check_def(const pcs_pzr_control_def *d)
{
    const double inf = INFINITY;
    const pcs_param_range r[] = {
        {"p_setpoint_pa", d->p_setpoint_pa, 1e6, 21e6, 0},
        {"p_gain", d->p_gain, 0.0, 100.0, 1},
        {"p_integral_time_s", d->p_integral_time_s, 0.0, 1e6, 1},
        {"prop_full_on_pa", d->prop_full_on_pa, -5e6, 5e6, 0},
        {"prop_off_pa", d->prop_off_pa, d->prop_full_on_pa, 5e6, 1},
        {"backup_off_pa", d->backup_off_pa, -5e6, 5e6, 0},
        {"backup_on_pa", d->backup_on_pa, -5e6, d->backup_off_pa, 0},
        {"spray_start_pa", d->spray_start_pa, -5e6, 5e6, 0},
        {"spray_full_pa", d->spray_full_pa, d->spray_start_pa, 5e6, 1},
        {"backup_level_pct", d->backup_level_pct, 0.0, 100.0, 0},
        {"heater_proportional_w", d->heater_proportional_w, 0.0, 1e9, 1},
        {"heater_backup_w", d->heater_backup_w, 0.0, 1e9, 1},
        {"low_level_pct", d->low_level_pct, 0.0, 99.0, 0},
        {"t_avg_no_load_k", d->t_avg_no_load_k, 273.15, 700.0, 0},
        {"t_avg_full_k", d->t_avg_full_k, d->t_avg_no_load_k, 700.0, 1},
        {"level_no_load_pct", d->level_no_load_pct, 0.0, 100.0, 0},
        {"level_full_pct", d->level_full_pct, d->level_no_load_pct, 100.0, 0},
        {"l_gain_kg_s_pct", d->l_gain_kg_s_pct, 0.0, 1e3, 1},
        {"l_integral_time_s", d->l_integral_time_s, 0.0, 1e6, 1},
        {"letdown_max_kg_s", d->letdown_max_kg_s, 0.0, PZRC_CVCS_FLOW_MAX, 1},
        {"letdown_kg_s", d->letdown_kg_s, 0.0, d->letdown_max_kg_s, 1},
        {"charging_min_kg_s", d->charging_min_kg_s, 0.0, inf, 0},
        {"charging_max_kg_s", d->charging_max_kg_s, d->charging_min_kg_s, PZRC_CVCS_FLOW_MAX, 1},
        {"charging_boron_ppm", d->charging_boron_ppm, 0.0, PZRC_BORON_MAX_PPM, 0},
    };
    return pcs_control_def_check("pzr_control", d->unit_name, r, sizeof r / sizeof r[0]);
}

static pcs_status check_stores(const pcs_world *w, const pcs_pzr_control_def *d)
{
    pcs_status st = pcs_control_input_check(w, "pzr_control", "pressure", &d->pressure);
    if (st == PCS_OK)
        st = pcs_control_input_check(w, "pzr_control", "level", &d->level);
    if (st == PCS_OK && (d->n_tavg < 1 || d->n_tavg > PCS_PZR_CONTROL_MAX_TAVG))
        st = pcs_error_set(PCS_E_INVAL, "pzr_control: n_tavg = %u is outside [1, %u]", d->n_tavg,
                           PCS_PZR_CONTROL_MAX_TAVG);
    for (uint32_t k = 0; st == PCS_OK && k < d->n_tavg; k++) {
        char field[24];
        snprintf(field, sizeof field, "tavg[%u]", k);
        st = pcs_control_input_check(w, "pzr_control", field, &d->tavg[k]);
    }
    size_t need = PCS_PRIMARY_CTL_SG_PRESSURE * sizeof(double);
    if (st == PCS_OK &&
        (pcs_store_bytes(w, d->controls_store) < need || !pcs_store_is_f64(w, d->controls_store)))
        st = pcs_error_set(PCS_E_INVAL,
                           "pzr_control: controls_store %u is not a float64 store of at least %u "
                           "elements (the primary's controls store)",
                           d->controls_store, (unsigned)PCS_PRIMARY_CTL_SG_PRESSURE);
    return st;
}

pcs_status pcs_pzr_control_def_validate(const pcs_world *w, const pcs_pzr_control_def *d)
{
    if (!w || !d)
        return pcs_error_set(PCS_E_INVAL, "pcs_pzr_control_def_validate: NULL argument");
    pcs_status st = check_def(d);
    return st == PCS_OK ? check_stores(w, d) : st;
}

/* ---- load check ------------------------------------------------------------- */

static pcs_status chk(const char *store, const double *x, uint32_t i, const char *field, double lo,
                      double hi)
{
    return pcs_load_check_f64_from(store, field, x, i, 1, 1, lo, hi, 0);
}

static pcs_status pzrc_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    const pcs_pzr_control *pc = ctx;
    const pcs_pzr_control_def *d = &pc->def;
    const char *name = pcs_store_name(w, pc->base.id_state);
    const double *s = pcs_load_view_store(v, pc->base.id_state);
    static const struct {
        uint32_t i;
        const char *field;
    } flags[] = {{PCS_PZR_CONTROL_ST_BACKUP_LATCH, "backup latch"},
                 {PCS_PZR_CONTROL_ST_HEATERS_MANUAL, "heaters manual"},
                 {PCS_PZR_CONTROL_ST_SPRAY_MANUAL, "spray manual"},
                 {PCS_PZR_CONTROL_ST_LEVEL_MANUAL, "level manual"}};
    pcs_status st = PCS_OK;
    for (size_t k = 0; st == PCS_OK && k < sizeof flags / sizeof flags[0]; k++)
        st = pcs_control_load_flag(name, flags[k].field, s, flags[k].i, 17);
    for (uint32_t k = PCS_PZR_CONTROL_ST_HEATER_PROP; st == PCS_OK && k <= PCS_PZR_CONTROL_ST_SPRAY;
         k++)
        st = chk(name, s, k, "heater or spray demand", 0.0, 1.0);
    if (st == PCS_OK)
        st = chk(name, s, PCS_PZR_CONTROL_ST_P_INTEGRAL, "pressure integral Pa", d->backup_on_pa,
                 d->spray_full_pa);
    if (st == PCS_OK)
        st = chk(name, s, PCS_PZR_CONTROL_ST_L_INTEGRAL, "level integral kg/s",
                 d->letdown_kg_s - d->charging_max_kg_s, d->letdown_kg_s - d->charging_min_kg_s);
    if (st == PCS_OK)
        st = chk(name, s, PCS_PZR_CONTROL_ST_CHARGING, "charging kg/s", 0.0, d->charging_max_kg_s);
    if (st == PCS_OK)
        st = chk(name, s, PCS_PZR_CONTROL_ST_LETDOWN, "letdown kg/s", 0.0, d->letdown_max_kg_s);
    if (st == PCS_OK)
        st = chk(name, s, PCS_PZR_CONTROL_ST_CHARGING_BORON, "charging boron ppm", 0.0,
                 PZRC_BORON_MAX_PPM);
    return st;
}

/* ---- registration --------------------------------------------------------------- */

static pcs_status make_stores(pcs_world *w, void *ctl)
{
    pcs_pzr_control *pc = ctl;
    double *s;
    pcs_status st = pcs_control_state(w, &pc->base, PCS_PZR_CONTROL_ST_COUNT, &s);
    /* the signals carry NaN on invalid inputs (documented), so not F64 */
    char name[PCS_NAME_MAX];
    snprintf(name, sizeof name, "%s.pzrctl.out", pc->base.unit);
    if (st == PCS_OK)
        st = pcs_store_register(w, name, sizeof(double), PCS_PZR_CONTROL_OUT_COUNT,
                                PCS_STORE_SCRATCH, &pc->id_out);
    if (st != PCS_OK)
        return st;
    const pcs_pzr_control_def *d = &pc->def;
    double *o = pcs_store_data(w, pc->id_out);
    /* master output at the heaters' off point: heaters and sprays off, what
     * the primary starts with (its controls store starts at zero) */
    s[PCS_PZR_CONTROL_ST_P_INTEGRAL] = d->prop_off_pa;
    s[PCS_PZR_CONTROL_ST_HEATER_PROP] = pcs_pzrc_prop_heaters(d, d->prop_off_pa);
    s[PCS_PZR_CONTROL_ST_SPRAY] = pcs_pzrc_spray(d, d->prop_off_pa);
    s[PCS_PZR_CONTROL_ST_CHARGING] = d->letdown_kg_s;
    s[PCS_PZR_CONTROL_ST_LETDOWN] = d->letdown_kg_s;
    s[PCS_PZR_CONTROL_ST_CHARGING_BORON] = d->charging_boron_ppm;
    for (uint32_t k = 0; k < PCS_PZR_CONTROL_OUT_COUNT; k++)
        o[k] = 0.0; /* held until the inputs' first valid sample */
    return PCS_OK;
}

/* Distinct store ids of the inputs, for the system's reads. */
static uint32_t input_stores(const pcs_pzr_control_def *d, uint32_t *ids)
{
    uint32_t n = 0;
    pcs_control_input_reads(&d->pressure, ids, &n);
    pcs_control_input_reads(&d->level, ids, &n);
    for (uint32_t k = 0; k < d->n_tavg; k++)
        pcs_control_input_reads(&d->tavg[k], ids, &n);
    return n;
}

static pcs_status register_system(pcs_world *w, void *ctl)
{
    pcs_pzr_control *pc = ctl;
    uint32_t reads[2 * (2 + PCS_PZR_CONTROL_MAX_TAVG)];
    uint32_t n_reads = input_stores(&pc->def, reads);
    uint32_t writes[] = {pc->base.id_state, pc->id_out, pc->def.controls_store};
    return pcs_th_system(w, pc->base.unit, "pzrctl", PCS_STAGE_ACTUATORS, pcs_pzrc_system, pc,
                         reads, n_reads, writes, sizeof writes / sizeof writes[0], pzrc_load_check);
}

static pcs_status register_channels(pcs_world *w, void *ctl)
{
    const pcs_pzr_control *pc = ctl;
    /* Two stores: the outputs the step computes each tick, and the state
     * (actuator demands and manual flags) it carries between ticks. */
    static const pcs_th_channel_row out[] = {
        {"master", "Pa", PCS_PZR_CONTROL_OUT_MASTER},
        {"error", "Pa", PCS_PZR_CONTROL_OUT_ERROR},
        {"heaters", "W", PCS_PZR_CONTROL_OUT_HEATER_W},
        {"level_program", "%", PCS_PZR_CONTROL_OUT_LEVEL_PROGRAM},
        {"level_error", "%", PCS_PZR_CONTROL_OUT_LEVEL_ERROR},
    };
    static const pcs_th_channel_row state[] = {
        {"spray", "1", PCS_PZR_CONTROL_ST_SPRAY},
        {"charging", "kg/s", PCS_PZR_CONTROL_ST_CHARGING},
        {"letdown", "kg/s", PCS_PZR_CONTROL_ST_LETDOWN},
        {"charging_boron", "ppm", PCS_PZR_CONTROL_ST_CHARGING_BORON},
        {"heaters_manual", "1", PCS_PZR_CONTROL_ST_HEATERS_MANUAL},
        {"spray_manual", "1", PCS_PZR_CONTROL_ST_SPRAY_MANUAL},
        {"level_manual", "1", PCS_PZR_CONTROL_ST_LEVEL_MANUAL},
    };
    pcs_status st = pcs_control_channels(w, &pc->base, pc->id_out, out, sizeof out / sizeof out[0]);
    if (st == PCS_OK)
        st = pcs_control_channels(w, &pc->base, pc->base.id_state, state,
                                  sizeof state / sizeof state[0]);
    return st;
}

static const pcs_control_kind pzrc_kind = {
    "pzr_control",
    "pzrctl",
    {PCS_PZR_CONTROL_COMMANDS, PCS_PZR_CONTROL_OP_COUNT, pcs_pzrc_on_command, "pzr", NULL},
    {make_stores, register_system, pcs_control_targets, register_channels}};

pcs_status pcs_pzr_control_add(pcs_world *w, const pcs_pzr_control_def *def, pcs_pzr_control **out)
{
    if (!w || !def || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_pzr_control_add: NULL argument");
    pcs_status st = pcs_pzr_control_def_validate(w, def);
    pcs_pzr_control *pc = pcs_control_new(w, &st, &pzrc_kind, sizeof *pc, def->unit_name);
    if (!pc)
        return st;
    pc->def = *def;
    pc->def.unit_name = pc->base.unit;
    return pcs_control_finish(w, st, &pc->base, out);
}

uint32_t pcs_pzr_control_state_store(const pcs_pzr_control *pc)
{
    return pc ? pc->base.id_state : UINT32_MAX;
}

uint32_t pcs_pzr_control_out_store(const pcs_pzr_control *pc)
{
    return pc ? pc->id_out : UINT32_MAX;
}

const pcs_pzr_control_def *pcs_pzr_control_def_get(const pcs_pzr_control *pc)
{
    return pc ? &pc->def : NULL;
}
