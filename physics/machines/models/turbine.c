/**
 * @file turbine.c
 * @brief The turbine-generator's build (pcsim/turbine.h): definition,
 *        stores and their steady start from the settled steam side, the
 *        two systems, the command target, channels and the load check.
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
#include "pcsim/thnet.h"
#include "pcsim/water.h"
#include "physics/control/models/control_common.h"
#include "physics/machines/models/turbine_internal.h"
#include "physics/thermohydraulics/models/th_register.h"

static const pcs_turbine_def turbine_defaults = {
    .eta_turbine = 0.85,
    .eta_generator = 0.985,
    .ramp_per_min = 0.05,
    .step_max = 0.10,
    .runback_per_min = 0.5,
    .valve_rate_per_s = 0.02,
    .stop_close_s = 0.2,
    .gain = 0.5,
    .reset_s = 3.0,
    .droop = 0.05,
    .overspeed_trip = 1.10,
    .inertia_kg_m2 = 2.7e5,
    .sync_rad_s = 188.496, /* 1800 rpm */
};

pcs_status pcs_turbine_default(pcs_turbine_def *d)
{
    return pcs_control_default("pcs_turbine_default", d, &turbine_defaults, sizeof *d);
}

static pcs_status check_def(const pcs_turbine_def *d)
{
    const pcs_param_range r[] = {
        {"eta_turbine", d->eta_turbine, 0.0, 1.0, 1},
        {"eta_generator", d->eta_generator, 0.0, 1.0, 1},
        {"ramp_per_min", d->ramp_per_min, 0.0, 1.0, 1},
        {"step_max", d->step_max, 0.0, 0.5, 0},
        {"runback_per_min", d->runback_per_min, 0.0, 10.0, 1},
        {"valve_rate_per_s", d->valve_rate_per_s, 0.0, 10.0, 1},
        {"stop_close_s", d->stop_close_s, 0.01, 10.0, 0},
        {"gain", d->gain, 0.0, 10.0, 1},
        {"reset_s", d->reset_s, 0.1, 1e4, 0},
        {"droop", d->droop, 0.01, 0.2, 0},
        {"overspeed_trip", d->overspeed_trip, 1.01, 1.5, 0},
        {"inertia_kg_m2", d->inertia_kg_m2, 0.0, 1e8, 1},
        {"sync_rad_s", d->sync_rad_s, 0.0, 1000.0, 1},
        {"rated_flow_kg_s", d->rated_flow_kg_s, 0.0, 1e5, 0},
    };
    return pcs_control_def_check("turbine", d->unit_name, r, sizeof r / sizeof r[0]);
}

/* ---- load check ------------------------------------------------------------- */

/* One governor element's range; flag: 0 or 1 exactly. */
typedef struct gov_range {
    const char *field;
    double lo, hi;
    int flag;
} gov_range;

static pcs_status check_flag(const char *store, const char *field, const double *x, size_t i)
{
    if (x[i] == 0.0 || x[i] == 1.0)
        return PCS_OK;
    return pcs_error_set(PCS_E_CORRUPT, "store '%s' element %zu (%s): value %g is neither 0 nor 1",
                         store, i, field, x[i]);
}

static pcs_status check_store(const char *store, const double *x, const gov_range *r, size_t n)
{
    pcs_status st = PCS_OK;
    for (size_t i = 0; st == PCS_OK && i < n; i++)
        st = r[i].flag
                 ? check_flag(store, r[i].field, x, i)
                 : pcs_load_check_f64_from(store, r[i].field, x, i, 1, 1, r[i].lo, r[i].hi, 0);
    return st;
}

static pcs_status turbine_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    const pcs_turbine *t = ctx;
    const double *g = pcs_load_view_store(v, t->id_gov);
    double rate_max = fmax(t->def.ramp_per_min, t->def.runback_per_min) / 60.0;
    double load_max =
        g[PCS_TURBINE_GOV_LOAD_TORQUE] == 1.0 ? PCS_TURBINE_TORQUE_MAX : PCS_TURBINE_POWER_MAX;
    const gov_range gr[PCS_TURBINE_GOV_COUNT] = {
        [PCS_TURBINE_GOV_TARGET] = {"load target 1", 0.0, PCS_TURBINE_LOAD_MAX, 0},
        [PCS_TURBINE_GOV_DEMAND] = {"load demand 1", 0.0, PCS_TURBINE_LOAD_MAX, 0},
        [PCS_TURBINE_GOV_RATE] = {"ramp rate per s", 1e-9, rate_max * (1.0 + 1e-12), 0},
        [PCS_TURBINE_GOV_VALVE_TARGET] = {"manual valve opening 1", 0.0, 1.0, 0},
        [PCS_TURBINE_GOV_VALVE] = {"control valve opening 1", 0.0, 1.0, 0},
        [PCS_TURBINE_GOV_STOP] = {"stop valve opening 1", 0.0, 1.0, 0},
        [PCS_TURBINE_GOV_INTEGRAL] = {"load integral 1", -1.0, 1.0, 0},
        [PCS_TURBINE_GOV_MANUAL] = {"manual flag", 0.0, 1.0, 1},
        [PCS_TURBINE_GOV_TRIPPED] = {"tripped flag", 0.0, 1.0, 1},
        [PCS_TURBINE_GOV_ISLANDED] = {"islanded flag", 0.0, 1.0, 1},
        [PCS_TURBINE_GOV_LOAD_TORQUE] = {"load-is-torque flag", 0.0, 1.0, 1},
        [PCS_TURBINE_GOV_LOAD_VALUE] = {"host load N m or W", 0.0, load_max, 0},
    };
    pcs_status st = check_store(pcs_store_name(w, t->id_gov), g, gr, PCS_TURBINE_GOV_COUNT);
    const gov_range nr[PCS_TURBINE_GEN_COUNT] = {
        [PCS_TURBINE_GEN_MWE] = {"electrical output MW", -1e5, 1e5, 0},
        [PCS_TURBINE_GEN_H_OUT] = {"exhaust enthalpy J/kg", -1e6, 1e7, 0},
        [PCS_TURBINE_GEN_OVERSPEED] = {"overspeed flag", 0.0, 1.0, 1},
        [PCS_TURBINE_GEN_P_HEADER] = {"header pressure Pa", 0.0, 1e8, 0},
    };
    if (st == PCS_OK)
        st = check_store(pcs_store_name(w, t->id_gen), pcs_load_view_store(v, t->id_gen), nr,
                         PCS_TURBINE_GEN_COUNT);
    return st;
}

/* ---- registration --------------------------------------------------------------- */

/* Steady start from the secondary as it is now (header). */
static pcs_status make_stores(pcs_world *w, void *ctl)
{
    pcs_turbine *t = ctl;
    char name[PCS_NAME_MAX];
    snprintf(name, sizeof name, "%s.turbine.gov", t->base.unit);
    pcs_status st = pcs_store_register(w, name, sizeof(double), PCS_TURBINE_GOV_COUNT,
                                       PCS_STORE_STATE_F64, &t->id_gov);
    snprintf(name, sizeof name, "%s.turbine.gen", t->base.unit);
    if (st == PCS_OK)
        st = pcs_store_register(w, name, sizeof(double), PCS_TURBINE_GEN_COUNT, PCS_STORE_STATE_F64,
                                &t->id_gen);
    if (st == PCS_OK)
        st = pcs_plant_signals(w, t->base.unit, PCS_SIGNALS_TURBINE, &t->id_sig);
    if (st == PCS_OK)
        st = pcs_plant_signals(w, t->base.unit, PCS_SIGNALS_INTERLOCK, &t->id_ilk);
    if (st != PCS_OK)
        return st;
    double *sig = pcs_store_data(w, t->id_sig);
    sig[PCS_SIG_TURBINE_SPEED] = 1.0;
    st = pcs_turbine_generator(w, t); /* the load, shaft power and MWe of the settled state */
    if (st != PCS_OK)
        return st;
    double *g = pcs_store_data(w, t->id_gov), load = sig[PCS_SIG_TURBINE_LOAD];
    double v = *(const double *)pcs_store_data(w, t->sec.turbine_valve);
    g[PCS_TURBINE_GOV_TARGET] = g[PCS_TURBINE_GOV_DEMAND] = fmin(load, PCS_TURBINE_LOAD_MAX);
    g[PCS_TURBINE_GOV_RATE] = t->def.ramp_per_min / 60.0;
    g[PCS_TURBINE_GOV_VALVE_TARGET] = g[PCS_TURBINE_GOV_VALVE] = v;
    g[PCS_TURBINE_GOV_STOP] = 1.0;
    double p = ((const double *)pcs_store_data(w, t->id_gen))[PCS_TURBINE_GEN_P_HEADER];
    g[PCS_TURBINE_GOV_INTEGRAL] = v - pcs_turbine_ff(t, g[PCS_TURBINE_GOV_DEMAND], p);
    if (fabs(g[PCS_TURBINE_GOV_INTEGRAL]) > 1.0)
        return pcs_error_set(PCS_E_INVAL,
                             "turbine %s: the settled opening %g at load %g leaves an integral "
                             "%g outside [-1, 1]",
                             t->base.unit, v, load, g[PCS_TURBINE_GOV_INTEGRAL]);
    sig[PCS_SIG_TURBINE_LOAD_DEMAND] = g[PCS_TURBINE_GOV_DEMAND];
    return PCS_OK;
}

static pcs_status register_systems(pcs_world *w, void *ctl)
{
    pcs_turbine *t = ctl;
    uint32_t g_reads[] = {t->id_sig, t->id_ilk, t->id_gen},
             g_writes[] = {t->id_gov, t->sec.turbine_valve};
    pcs_status st = pcs_th_system(w, t->base.unit, "turbine.governor", PCS_STAGE_ACTUATORS,
                                  pcs_turbine_governor, t, g_reads, 3, g_writes, 2, NULL);
    uint32_t reads[] = {t->id_gov, t->sec.out, t->sec.h}, writes[] = {t->id_sig, t->id_gen};
    if (st == PCS_OK)
        st = pcs_th_system(w, t->base.unit, "turbine", PCS_STAGE_ACCIDENTS, pcs_turbine_generator,
                           t, reads, 3, writes, 2, turbine_load_check);
    return st;
}

typedef struct chan_row {
    const char *name, *unit;
    int gov; /* 1: the governor's store, 2: the generator's, 0: turbine.sig */
    uint32_t elem;
} chan_row;

static pcs_status register_channels(pcs_world *w, void *ctl)
{
    const pcs_turbine *t = ctl;
    static const chan_row rows[] = {
        {"mwe", "MW", 2, PCS_TURBINE_GEN_MWE},
        {"shaft_power", "W", 0, PCS_SIG_TURBINE_SHAFT_W},
        {"electric_power", "W", 0, PCS_SIG_TURBINE_ELECTRIC_W},
        {"speed", "1", 0, PCS_SIG_TURBINE_SPEED},
        {"load", "1", 0, PCS_SIG_TURBINE_LOAD},
        {"load_demand", "1", 1, PCS_TURBINE_GOV_DEMAND},
        {"load_target", "1", 1, PCS_TURBINE_GOV_TARGET},
        {"valve", "1", 1, PCS_TURBINE_GOV_VALVE},
        {"tripped", "1", 1, PCS_TURBINE_GOV_TRIPPED},
        {"manual", "1", 1, PCS_TURBINE_GOV_MANUAL},
        {"islanded", "1", 1, PCS_TURBINE_GOV_ISLANDED},
        {"h_out", "J/kg", 2, PCS_TURBINE_GEN_H_OUT},
    };
    pcs_status st = PCS_OK;
    for (size_t i = 0; st == PCS_OK && i < sizeof rows / sizeof rows[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s.turbine.%s", t->base.unit, rows[i].name);
        uint32_t store = rows[i].gov == 1 ? t->id_gov : (rows[i].gov == 2 ? t->id_gen : t->id_sig);
        st =
            pcs_channel_register(w, name, rows[i].unit, PCS_CHANNEL_F64, store, rows[i].elem, NULL);
    }
    return st;
}

/* Ids and constants from the secondary. */
static pcs_status bind_secondary(pcs_turbine *t, const pcs_secondary *sec)
{
    const pcs_secondary_def *sd = pcs_secondary_def_get(sec);
    t->sec = pcs_secondary_store_ids(sec);
    t->v_header = pcs_secondary_volume(sec, PCS_SECONDARY_HEADER, 0);
    t->throat_kg_s = sd->n_sg * sd->rated_steam_kg_s;
    /* the calibration (pcsim/turbine.h): the plant's own full-power flow, or
     * without one the secondary's rating */
    t->rated_kg_s = t->def.rated_flow_kg_s > 0.0 ? t->def.rated_flow_kg_s : t->throat_kg_s;
    t->ff_opening = sd->turbine_rated_opening;
    t->rated_p_pa = sd->turbine_rated_p_pa;
    return pcs_turbine_exhaust_init(sd->condenser_p_pa, &t->exhaust);
}

static const pcs_control_kind turbine_kind = {
    "turbine",
    "turbine",
    {PCS_TURBINE_COMMANDS, PCS_TURBINE_OP_COUNT, pcs_turbine_on_command, "turbine", NULL},
    {make_stores, register_systems, pcs_control_targets, register_channels}};

pcs_status pcs_turbine_add(pcs_world *w, const pcs_turbine_def *def, pcs_secondary *sec,
                           pcs_turbine **out)
{
    if (!w || !def || !sec || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_turbine_add: NULL argument");
    pcs_status st = check_def(def);
    pcs_turbine *t = pcs_control_new(w, &st, &turbine_kind, sizeof *t, def->unit_name);
    if (!t)
        return st;
    t->def = *def;
    t->def.unit_name = t->base.unit;
    st = bind_secondary(t, sec);
    return pcs_control_finish(w, st, &t->base, out);
}

uint32_t pcs_turbine_governor_store(const pcs_turbine *t)
{
    return t ? t->id_gov : UINT32_MAX;
}

uint32_t pcs_turbine_generator_store(const pcs_turbine *t)
{
    return t ? t->id_gen : UINT32_MAX;
}

double pcs_turbine_rated_flow(const pcs_turbine *t)
{
    return t ? t->rated_kg_s : 0.0;
}

pcs_status pcs_turbine_rated_flow_from_heat(double heat_w, double p_pa, double feed_t_k,
                                            double *flow_kg_s)
{
    if (!flow_kg_s)
        return pcs_error_set(PCS_E_INVAL, "pcs_turbine_rated_flow_from_heat: flow_kg_s is NULL");
    const pcs_param_range r[] = {
        {"heat_w", heat_w, 0.0, 1e11, 1},
        {"p_pa", p_pa, 1e5, 2e7, 0},
    };
    pcs_status st = pcs_param_ranges_check("pcs_turbine_rated_flow_from_heat: ", r, 2);
    if (st != PCS_OK)
        return st;
    pcs_thnet_sat sat;
    double t_sat = 0.0, h_feed = 0.0;
    st = pcs_thnet_sat_if97(NULL, p_pa, &sat);
    if (st == PCS_OK)
        st = pcs_water_tsat(p_pa, &t_sat);
    if (st != PCS_OK)
        return st;
    if (!(feed_t_k >= 273.16 && feed_t_k < t_sat))
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_turbine_rated_flow_from_heat: feed_t_k %g outside [273.16, "
                             "T_sat(%g Pa) = %g) K",
                             feed_t_k, p_pa, t_sat);
    st = pcs_water_h_pt(p_pa, feed_t_k, &h_feed);
    if (st == PCS_OK)
        *flow_kg_s = heat_w / (sat.h_g_j_kg - h_feed);
    return st;
}
