/**
 * @file plant_summary.c
 * @brief A unit built as the named reduced SUMMARY model (pcsim/plant.h
 *        PCS_PLANT_MODEL_SUMMARY): the reactor unit's point kinetics, decay
 *        heat, reactivity feedback, rods and xenon (unit.h, unchanged), one
 *        fuel node and ONE primary coolant node (summary_node.h) giving its
 *        heat to a steam-generator sink.
 *
 * Every constant comes from the unit's own definition or a cited source;
 * none is fitted to the comparison with the full model:
 *  - fuel: C_f, UA_f, the fuel's share f of the power and the hot-spot
 *    factor k_peak are the unit def's lumped-heat constants (core.heat,
 *    pcs_lumped_heat_params_pwr: [W84] Table 2-1 and lumped_heat.h);
 *  - primary: C_p = V rho c_p with V the full primary's own water volume
 *    from its def (vessel + n_loops x (hot leg, two SG plena, tubes,
 *    crossover, pump casing, cold leg): 300.6 m3 for 4 loops,
 *    scenarios/geometry_pwr4.csv rcs.volume_excl_pzr_surge) and rho, c_p
 *    IAPWS-IF97 at the pressurizer setpoint and the build's Tavg;
 *  - Tavg program: the primary def's t_avg_no_load_k to t_avg_full_k, linear
 *    in power (as the full primary settles to at build);
 *  - SG: UA_sg = (n_loops x 852.75 MW) / (t_avg_full_k - T_sat(1000 psia)),
 *    the full-load SG shell pressure of [W84] Table 3.4-1 (pwr_plant.md);
 *  - core flow W for the reported inlet and outlet: the unit def's
 *    core.heat.flow_kg_s scaled to the unit's nominal power, c_p that
 *    heat balance's 5769 J/(kg K) (lumped_heat.h).
 * Sink: with sg_model boundary (PCS_PLANT_SG_BOUNDARY) the SG is a
 * saturated boundary, Q_sg = UA_sg (T_p - T_sat(p_sg)), p_sg set at build to
 * the pressure that holds the build's Tavg and moved by the sg_pressure
 * command (as the full unit's boundary); with sg_model steam_side the
 * secondary is the turbine's steam demand, Q_sg = L P_nom (load 1 = rated
 * thermal power, the turbine's calibration, turbine.h), L moved by
 * turbine_load as the governor's demand (a change of at most step_max is a
 * step, more ramps at ramp_per_min: pcs_turbine_default's values).
 *
 * Simplifications (each one is part of the stated error, scenarios/README.md):
 *  - one primary temperature: no loop transport delay, no hot/cold leg
 *    split except the reported inlet/outlet T_p -+ Q_core / (2 W c_p);
 *  - constant flow: no pumps, no coast-down, no natural circulation;
 *  - pressure is NOT modelled: no pressurizer, no CVCS, no boron transport
 *    (boron is the unit's own PCS_UNIT_OP_BORON); rcs.pressure and
 *    pzr.pressure are published as the pressurizer setpoint, a constant;
 *  - no metal heat capacity (the full primary has SG tube and core metal);
 *  - water only in C_p, at its build-state rho c_p;
 *  - the steam-side sink has no SG inventory, no pressure, no feedwater,
 *    no steam dumps and no rod control: rods move only by command, so Tavg
 *    settles where the power's feedback balances the demand;
 *  - no instrumentation: no sensors, no protection functions, no alarms;
 *    a summary unit trips only by the scram command (its trip input store
 *    is still wired into the station's protection, which holds no function
 *    for it).
 * Stated error against the full model (scenarios/README.md, measured
 * 2026-12-02; tests/test_summary_unit.c asserts the first 120 s / 200 s
 * with the measurement rounded up a little), max |summary - full|:
 *  - reactor-trip.json, 930 s: core power 0.0028 P_nom (1.0 % of the full
 *    model's power, just after the scram), Tavg 1.27 K, T_inlet 8.3 K,
 *    T_outlet 6.9 K;
 *  - load-step.json, 660 s: core power 0.073 P_nom, Tavg 4.0 K, T_inlet
 *    5.6 K, T_outlet 4.5 K.
 * Channels (the full unit's names where the quantity exists): core.t_inlet,
 * core.t_outlet, core.flow, rcs.t_avg, rcs.pressure, pzr.pressure,
 * loopN.t_hot, loopN.t_cold, loopN.flow, sgN.heat (one node: every loop
 * equal), fuel.t_avg, fuel.t_max, coolant.t_avg, and summary.t_sink,
 * summary.sg_pressure, summary.load. Plus the unit's own (unit.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/clock.h"
#include "pcsim/plant_signals.h"
#include "pcsim/rod_control.h"
#include "pcsim/command.h"
#include "pcsim/persist.h"
#include "pcsim/system.h"
#include "pcsim/turbine.h"
#include "pcsim/water.h"
#include "physics/plant/models/plant_internal.h"
#include "physics/thermohydraulics/models/th_register.h"

#define PSI_PA 6894.757293168
#define SG_FULL_LOAD_P_PA (1000.0 * PSI_PA) /* [W84] Table 3.4-1: 1000 psia shell */
#define REF_POWER_W 3.411e9                 /* the lumped-heat constants' reference plant */
#define P_TRIPLE_PA 611.212677
#define P_CRITICAL_PA 22064000.0

/* The primary's water volume from its def (the full model's own nodes). */
static double primary_volume_m3(const pcs_primary_def *p)
{
    double vessel = p->v_downcomer_m3 + p->v_lower_plenum_m3 + p->v_core_m3 + p->v_upper_plenum_m3 +
                    p->v_upper_head_m3;
    double loop = p->v_hot_leg_m3 + 2.0 * p->v_sg_plenum_m3 + p->v_sg_tubes_m3 + p->v_crossover_m3 +
                  p->v_pump_m3 + p->v_cold_leg_m3;
    return vessel + p->n_loops * loop;
}

/* Outlet/inlet, loops and pressure outputs from the nodes. */
static void summary_outputs(const pcs_plant_summary *s, double *x)
{
    double half = 0.5 * x[PCS_SUMMARY_ST_Q_CORE] / (s->flow_kg_s * s->cp_flow_j_kg_k);
    double tp = x[PCS_SUMMARY_ST_T_PRIMARY], tf = x[PCS_SUMMARY_ST_T_FUEL];
    x[PCS_SUMMARY_ST_T_INLET] = tp - half;
    x[PCS_SUMMARY_ST_T_OUTLET] = tp + half;
    x[PCS_SUMMARY_ST_T_MAX] = tp + s->k_peak * (tf - tp);
    x[PCS_SUMMARY_ST_FLOW] = s->flow_kg_s;
    x[PCS_SUMMARY_ST_LOOP_FLOW] = s->flow_kg_s / s->n_loops;
    x[PCS_SUMMARY_ST_SG_HEAT] = x[PCS_SUMMARY_ST_Q_SG] / s->n_loops;
    x[PCS_SUMMARY_ST_PRESSURE] = s->p_rcs_pa;
}

/* The load demand toward its target (DEMAND mode): the governor's ramp. */
static void move_load(const pcs_plant_summary *s, double *x, double h)
{
    double d = x[PCS_SUMMARY_ST_LOAD], t = x[PCS_SUMMARY_ST_LOAD_TARGET], step = s->ramp_per_s * h;
    x[PCS_SUMMARY_ST_LOAD] = fabs(t - d) <= step ? t : d + (t > d ? step : -step);
}

static pcs_status summary_system(pcs_world *w, void *ctx)
{
    const pcs_plant_summary *s = ctx;
    double *x = pcs_store_data(w, s->id_state);
    const double *pw = pcs_store_data(w, s->power_store);
    double h = pcs_world_clock(w)->dt_s;
    double sink = x[PCS_SUMMARY_ST_T_SINK];
    if (s->mode == PCS_SUMMARY_SINK_DEMAND) {
        move_load(s, x, h);
        sink = x[PCS_SUMMARY_ST_LOAD] * s->p_nom_w;
        /* the rod control's Tref input: the turbine's first-stage load */
        double *sig = pcs_store_data(w, s->id_turbine_sig);
        sig[PCS_SIG_TURBINE_LOAD] = x[PCS_SUMMARY_ST_LOAD];
        sig[PCS_SIG_TURBINE_LOAD_DEMAND] = x[PCS_SUMMARY_ST_LOAD_TARGET];
    }
    pcs_summary_node_state n = {x[PCS_SUMMARY_ST_T_FUEL], x[PCS_SUMMARY_ST_T_PRIMARY], 0.0, 0.0};
    pcs_summary_node_step(&s->np, s->mode, sink, pw[s->power_index], h, &n);
    x[PCS_SUMMARY_ST_T_FUEL] = n.t_fuel_k;
    x[PCS_SUMMARY_ST_T_PRIMARY] = n.t_primary_k;
    x[PCS_SUMMARY_ST_Q_CORE] = n.q_core_w;
    x[PCS_SUMMARY_ST_Q_SG] = n.q_sg_w;
    summary_outputs(s, x);
    /* the kinetics' feedback temperatures of the next tick */
    *(double *)pcs_store_data(w, s->id_t_fuel) = n.t_fuel_k;
    *(double *)pcs_store_data(w, s->id_t_cool) = n.t_primary_k;
    *(double *)pcs_store_data(w, s->id_t_max) = x[PCS_SUMMARY_ST_T_MAX];
    return PCS_OK;
}

/* Constants from the unit's def (file comment). */
static pcs_status summary_constants(const pcs_plant_unit_def *c, pcs_plant_summary *s)
{
    const pcs_primary_def *pd = &c->primary;
    double f0 = c->core.initial_power_fraction;
    double tavg = pd->t_avg_no_load_k + f0 * (pd->t_avg_full_k - pd->t_avg_no_load_k);
    pcs_water_props wp;
    double tsat_full = 0.0;
    pcs_status st = pcs_water_props_pt(pd->p_setpoint_pa, tavg, &wp);
    if (st == PCS_OK)
        st = pcs_water_tsat(SG_FULL_LOAD_P_PA, &tsat_full);
    if (st != PCS_OK)
        return st;
    s->n_loops = pd->n_loops;
    s->p_nom_w = c->core.nominal_power_w;
    s->p_rcs_pa = pd->p_setpoint_pa;
    s->t_avg_build_k = tavg;
    s->np.c_fuel_j_k = c->core.heat.fuel_heat_capacity_j_k;
    s->np.ua_fuel_w_k = c->core.heat.ua_w_k;
    s->np.fuel_fraction = c->core.heat.fuel_fraction;
    s->np.c_primary_j_k = primary_volume_m3(pd) * wp.rho_kg_m3 * wp.cp_j_kg_k;
    s->np.ua_sg_w_k = pd->n_loops * PCS_PLANT_LOOP_RATING_W / (pd->t_avg_full_k - tsat_full);
    s->k_peak = c->core.heat.t_max_factor;
    s->flow_kg_s = c->core.heat.flow_kg_s * c->core.nominal_power_w / REF_POWER_W;
    s->cp_flow_j_kg_k = c->core.heat.cp_j_kg_k;
    s->mode = c->sg_model == PCS_PLANT_SG_STEAM_SIDE ? PCS_SUMMARY_SINK_DEMAND
                                                     : PCS_SUMMARY_SINK_TEMPERATURE;
    pcs_turbine_def td;
    pcs_turbine_default(&td);
    s->ramp_per_s = td.ramp_per_min / 60.0;
    s->step_max = td.step_max;
    return PCS_OK;
}

/* ---- load check ------------------------------------------------------------------ */

/* A saved state the step can continue from: temperatures in the unit's
 * ranges (pcsim/unit.h: fuel up to its clamp, coolant [273.15, 700] K),
 * finite heats, the load and its target within the turbine's range, the
 * SG pressure on the saturation line. */
static pcs_status summary_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    const pcs_plant_summary *s = ctx;
    const char *name = pcs_store_name(w, s->id_state);
    const double *x = pcs_load_view_store(v, s->id_state);
    if (!x)
        return pcs_error_set(PCS_E_CORRUPT, "store '%s': no staged data", name);
    static const struct {
        uint32_t e;
        const char *field;
        double lo, hi;
    } rows[] = {
        {PCS_SUMMARY_ST_T_FUEL, "fuel temperature K", 273.15, 5000.0},
        {PCS_SUMMARY_ST_T_PRIMARY, "primary temperature K", 273.15, 700.0},
        {PCS_SUMMARY_ST_Q_CORE, "core heat W", -1e12, 1e12},
        {PCS_SUMMARY_ST_Q_SG, "SG heat W", -1e12, 1e12},
        {PCS_SUMMARY_ST_T_SINK, "sink temperature K", 0.0, 700.0},
        {PCS_SUMMARY_ST_SG_PRESSURE, "SG pressure Pa", 0.0, P_CRITICAL_PA},
        {PCS_SUMMARY_ST_LOAD, "load", 0.0, PCS_TURBINE_LOAD_MAX},
        {PCS_SUMMARY_ST_LOAD_TARGET, "load target", 0.0, PCS_TURBINE_LOAD_MAX},
    };
    pcs_status st = PCS_OK;
    for (size_t r = 0; st == PCS_OK && r < sizeof rows / sizeof rows[0]; r++)
        st = pcs_load_check_f64_from(name, rows[r].field, x, rows[r].e, 1, 1, rows[r].lo,
                                     rows[r].hi, 0);
    return st;
}

/* ---- commands ------------------------------------------------------------------ */

pcs_status plant_summary_sg_pressure(pcs_world *w, const pcs_plant_summary *s,
                                     const pcs_command_call *c)
{
    double p = c->cmd->args[0], t = 0.0;
    if (s->mode != PCS_SUMMARY_SINK_TEMPERATURE)
        return pcs_error_set(PCS_E_INVAL,
                             "%s sg_pressure: the summary unit's secondary is the turbine's steam "
                             "demand (sg_model steam_side); use turbine_load",
                             c->target_name);
    if (!(p >= P_TRIPLE_PA && p <= P_CRITICAL_PA) || pcs_water_tsat(p, &t) != PCS_OK)
        return pcs_error_set(PCS_E_INVAL,
                             "%s sg_pressure: value %g is outside [%g, %g] (secondary pressure Pa)",
                             c->target_name, p, P_TRIPLE_PA, P_CRITICAL_PA);
    double *x = pcs_store_data(w, s->id_state);
    x[PCS_SUMMARY_ST_SG_PRESSURE] = p;
    x[PCS_SUMMARY_ST_T_SINK] = t;
    return PCS_OK;
}

/* The "turbine" family on a summary unit: turbine_load only (the summary
 * has no valve, no trip, no generator). */
static pcs_status on_turbine(pcs_world *w, const pcs_command_call *c)
{
    const pcs_plant_summary *s = c->ctx;
    if (c->op != PCS_TURBINE_OP_LOAD)
        return pcs_error_set(PCS_E_INVAL,
                             "%s: a summary unit (model summary) takes turbine_load only: it has "
                             "no turbine valve, trip or generator (plant_summary.c)",
                             c->target_name);
    double l = c->cmd->args[0];
    if (!(l >= 0.0 && l <= PCS_TURBINE_LOAD_MAX))
        return pcs_error_set(PCS_E_INVAL, "%s turbine_load: value %g is outside [0, %g]",
                             c->target_name, l, PCS_TURBINE_LOAD_MAX);
    double *x = pcs_store_data(w, s->id_state);
    x[PCS_SUMMARY_ST_LOAD_TARGET] = l;
    if (fabs(l - x[PCS_SUMMARY_ST_LOAD]) <= s->step_max)
        x[PCS_SUMMARY_ST_LOAD] = l; /* a step; more ramps (move_load) */
    return PCS_OK;
}

/* ---- build ------------------------------------------------------------------------ */

static pcs_status register_channels(pcs_world *w, const pcs_plant_summary *s)
{
    static const pcs_th_channel_row rows[] = {
        {"core.t_inlet", "K", PCS_SUMMARY_ST_T_INLET},
        {"core.t_outlet", "K", PCS_SUMMARY_ST_T_OUTLET},
        {"core.flow", "kg/s", PCS_SUMMARY_ST_FLOW},
        {"rcs.t_avg", "K", PCS_SUMMARY_ST_T_PRIMARY},
        {"rcs.pressure", "Pa", PCS_SUMMARY_ST_PRESSURE},
        {"pzr.pressure", "Pa", PCS_SUMMARY_ST_PRESSURE},
        {"fuel.t_avg", "K", PCS_SUMMARY_ST_T_FUEL},
        {"fuel.t_max", "K", PCS_SUMMARY_ST_T_MAX},
        {"coolant.t_avg", "K", PCS_SUMMARY_ST_T_PRIMARY},
        {"summary.t_sink", "K", PCS_SUMMARY_ST_T_SINK},
        {"summary.sg_pressure", "Pa", PCS_SUMMARY_ST_SG_PRESSURE},
        {"summary.load", "", PCS_SUMMARY_ST_LOAD},
    };
    static const pcs_th_channel_row per_loop[] = {
        {"loop%u.t_hot", "K", PCS_SUMMARY_ST_T_OUTLET},
        {"loop%u.t_cold", "K", PCS_SUMMARY_ST_T_INLET},
        {"loop%u.flow", "kg/s", PCS_SUMMARY_ST_LOOP_FLOW},
        {"sg%u.heat", "W", PCS_SUMMARY_ST_SG_HEAT},
    };
    pcs_status st =
        pcs_th_channels_register(w, s->prefix, s->id_state, rows, sizeof rows / sizeof rows[0]);
    for (uint32_t l = 0; st == PCS_OK && l < s->n_loops; l++)
        st = pcs_th_element_channels(w, s->prefix, s->id_state, per_loop,
                                     sizeof per_loop / sizeof per_loop[0], l, 0);
    return st;
}

/* The build state: steady at the unit's build power with Tavg on the program. */
static pcs_status start_steady(pcs_world *w, pcs_plant_summary *s, pcs_unit *core)
{
    double p0 = ((const double *)pcs_store_data(w, s->power_store))[s->power_index];
    pcs_summary_node_state n;
    double sink = pcs_summary_node_steady(&s->np, s->mode, p0, s->t_avg_build_k, &n);
    double *x = pcs_store_data(w, s->id_state);
    x[PCS_SUMMARY_ST_T_FUEL] = n.t_fuel_k;
    x[PCS_SUMMARY_ST_T_PRIMARY] = n.t_primary_k;
    x[PCS_SUMMARY_ST_Q_CORE] = n.q_core_w;
    x[PCS_SUMMARY_ST_Q_SG] = n.q_sg_w;
    x[PCS_SUMMARY_ST_LOAD] = x[PCS_SUMMARY_ST_LOAD_TARGET] = p0 / s->p_nom_w;
    if (s->mode == PCS_SUMMARY_SINK_TEMPERATURE) {
        x[PCS_SUMMARY_ST_T_SINK] = sink;
        pcs_status st = pcs_water_psat(sink, &x[PCS_SUMMARY_ST_SG_PRESSURE]);
        if (st != PCS_OK)
            return st;
    }
    summary_outputs(s, x);
    return pcs_unit_set_temperatures(w, core, n.t_fuel_k, n.t_primary_k, x[PCS_SUMMARY_ST_T_MAX]);
}

static pcs_status register_commands(pcs_world *w, pcs_plant_summary *s, const pcs_plant_unit *pu)
{
    pcs_status st = plant_commands_register(w, pu);
    if (st != PCS_OK || s->mode != PCS_SUMMARY_SINK_DEMAND)
        return st;
    uint32_t family;
    st = pcs_command_family_share(w, PCS_TURBINE_COMMANDS, PCS_TURBINE_OP_COUNT, on_turbine,
                                  &family);
    if (st != PCS_OK)
        return pcs_error_set(st,
                             "%s (a summary unit with sg_model steam_side takes the turbine "
                             "family's commands: it cannot share a station with a full "
                             "steam_side unit)",
                             pcs_last_error());
    pcs_command_target_def d = {.name = s->unit_name, .family = family, .ctx = s, .element = 0};
    return pcs_command_target_register(w, &d, NULL);
}

/* The full steam-side unit's rod control (plant_instr.c add_tavg_controls,
 * the same def) on the summary's own Tavg and core power, read directly
 * (no sensor: no lag, no noise), and the load the summary's demand writes
 * into "uN.turbine.sig". */
static pcs_status add_rod_control(pcs_world *w, const pcs_plant_unit_def *c, pcs_plant_summary *s,
                                  pcs_plant_unit *pu)
{
    pcs_rod_control_def d;
    pcs_rod_control_default(&d);
    d.unit_name = s->unit_name;
    d.t_avg_no_load_k = c->primary.t_avg_no_load_k;
    d.t_avg_full_k = c->primary.t_avg_full_k;
    d.rated_power_w = c->core.nominal_power_w;
    d.tavg = (pcs_pzr_control_input){s->id_state, PCS_SUMMARY_ST_T_PRIMARY,
                                     PCS_PZR_CONTROL_NO_STATUS, 0};
    d.power = (pcs_pzr_control_input){s->power_store, s->power_index, PCS_PZR_CONTROL_NO_STATUS, 0};
    return pcs_rod_control_add(w, &d, pu->core, &s->rod_control);
}

pcs_status plant_summary_build(pcs_world *w, const pcs_plant_unit_def *cfg, uint32_t n,
                               pcs_plant_unit *pu)
{
    pcs_plant_unit_def c = *cfg;
    c.core.external_heat = 1; /* the summary's nodes write the feedback temperatures */
    c.core.external_boron = 0;
    /* the steam-demand summary's control banks take the full unit's rod control */
    c.core.auto_rods = c.sg_model == PCS_PLANT_SG_STEAM_SIDE;
    pcs_plant_summary *s = pcs_world_alloc(w, sizeof *s);
    if (!s)
        return pcs_error_set(PCS_E_NOMEM, "plant unit %u summary: %s", n, pcs_last_error());
    memset(s, 0, sizeof *s);
    snprintf(s->unit_name, sizeof s->unit_name, "u%u", n);
    snprintf(s->prefix, sizeof s->prefix, "u%u", n);
    pu->index = n;
    pu->n_loops = c.primary.n_loops;
    pu->summary = s;
    pcs_status st = summary_constants(&c, s);
    if (st == PCS_OK)
        st = pcs_unit_add(w, n, &c.core, &pu->core);
    if (st == PCS_OK)
        st = pcs_unit_power_ref(pu->core, &s->power_store, &s->power_index);
    if (st == PCS_OK)
        st = pcs_unit_temperature_stores(pu->core, &s->id_t_fuel, &s->id_t_cool, &s->id_t_max);
    const pcs_th_store stores[] = {
        {"summary.state", PCS_SUMMARY_ST_COUNT, PCS_STORE_STATE, &s->id_state}};
    if (st == PCS_OK)
        st = pcs_th_stores_register(w, s->prefix, stores, 1);
    if (st == PCS_OK)
        st = start_steady(w, s, pu->core);
    int demand = s->mode == PCS_SUMMARY_SINK_DEMAND;
    if (st == PCS_OK && demand)
        st = pcs_plant_signals(w, s->unit_name, PCS_SIGNALS_TURBINE, &s->id_turbine_sig);
    uint32_t reads[] = {s->power_store};
    uint32_t writes[] = {s->id_state, s->id_t_fuel, s->id_t_cool, s->id_t_max, s->id_turbine_sig};
    if (st == PCS_OK)
        st = pcs_th_system(w, s->prefix, "summary", PCS_STAGE_HEAT, summary_system, s, reads, 1,
                           writes, demand ? 5u : 4u, summary_load_check);
    if (st == PCS_OK && demand)
        st = add_rod_control(w, &c, s, pu);
    if (st == PCS_OK)
        st = register_channels(w, s);
    if (st == PCS_OK)
        st = register_commands(w, s, pu);
    return st;
}
