/**
 * @file test_scenario_ranges.c
 * @brief Every numeric scenario field at its lower and upper bound, one at a
 *        time, passes validation, builds the plant and ticks without NaN; just
 *        outside a bound the validator (not the builder) refuses it, naming
 *        the field (issue 12: no scenario passes validation and then fails at
 *        build).
 *
 * Bounds are the box each field has in the validator, or, where the builder
 * couples fields, the range derived here by hand from the builder's own
 * conditions with the other fields at their defaults:
 *  - heat balance: the single-phase loop model takes an effective coolant
 *    heat capacity cp = P f / (L m (T_hot - T_cold)) in [1000, 20000]
 *    J/(kg K) (physics/thermohydraulics/models/hyd_build.c check_globals,
 *    physics/plant/models/plant.c);
 *  - temperatures: T_hot > T_cold > T_sat(sg_pressure) (pcs_hydraulics_pwr_full_power)
 *    and T_hot < T_sat(primary pressure), single-phase water;
 *  - pump head: rated_dp_pa above the loop's own friction at rated flow
 *    (pcs_hydraulics_pwr_network), found with that function itself.
 * A derived bound is tested a part in 1e9 inside (it is computed in floating
 * point) and refused a part in 1e6 outside.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/station.h"
#include "pcsim/channel.h"
#include "pcsim/hydraulics.h"
#include "pcsim/plant.h"
#include "pcsim/water.h"

#define SR_TICKS 25 /* past tick 20, where the first SLOW (xenon) step merges */

/* Load, build and tick @p json as `pcsim run` would. 0: built and every
 * channel finite after SR_TICKS ticks; otherwise the stage that refused it
 * (1 load, 2 world, 3 plant, 4 tick, 5 a non-finite channel) and @p msg. */
static int sr_try(const char *json, char *msg, size_t len)
{
    pcs_scenario *scn = NULL;
    pcs_world *w = NULL;
    pcs_station *st = NULL;
    pcs_world_def wc;
    msg[0] = '\0';
    int rc = 0;
    if (pcs_scenario_load_string("ranges.json", json, strlen(json), NULL, &scn) != PCS_OK)
        rc = (snprintf(msg, len, "%s", pcs_last_error()), 1);
    else if (wc = pcs_scenario_world_def(scn), pcs_world_create(&wc, &w) != PCS_OK)
        rc = (snprintf(msg, len, "world: %s", pcs_last_error()), 2);
    else if (pcs_station_add(w, scn, &st) != PCS_OK)
        rc = (snprintf(msg, len, "%s", pcs_last_error()), 3);
    for (int t = 0; rc == 0 && t < SR_TICKS; t++)
        if (pcs_world_tick(w) != PCS_OK)
            rc = (snprintf(msg, len, "tick %d: %s", t, pcs_last_error()), 4);
    for (uint32_t id = 0; rc == 0 && id < pcs_channel_count(w); id++) {
        double v = pcs_channel_value(w, id);
        pcs_channel_info info;
        if (!isfinite(v) && pcs_channel_get(w, id, &info) == PCS_OK)
            rc = (snprintf(msg, len, "channel %s = %g", info.name, v), 5);
    }
    pcs_station_destroy(st);
    if (w)
        pcs_world_destroy(w);
    pcs_scenario_destroy(scn);
    return rc;
}

typedef enum { SR_WORLD, SR_RUN, SR_READERS, SR_UNIT, SR_PUMP, SR_INSTR } sr_section;

/* A one-unit station with @p key = @p value (JSON text) in @p sec. */
static void sr_json(char *out, size_t cap, sr_section sec, const char *key, const char *value)
{
    char field[160];
    snprintf(field, sizeof field, "\"%s\": %s", key, value);
    snprintf(out, cap,
             "{\"schema\": 1, \"run\": {%s}, \"world\": {%s}, \"readers\": {%s}, "
             "\"instrumentation\": {%s}, \"units\": [{\"name\": \"u1\"%s%s%s%s%s}]}",
             sec == SR_RUN ? field : "", sec == SR_WORLD ? field : "",
             sec == SR_READERS ? field : "", sec == SR_INSTR ? field : "",
             sec == SR_UNIT ? ", " : "", sec == SR_UNIT ? field : "",
             sec == SR_PUMP ? ", \"pump\": {" : "", sec == SR_PUMP ? field : "",
             sec == SR_PUMP ? "}" : "");
}

static void sr_text(double v, int integer, char *out, size_t cap)
{
    if (integer)
        snprintf(out, cap, "%lld", (long long)v);
    else
        snprintf(out, cap, "%.17g", v);
}

static const char *sr_section_path(sr_section sec)
{
    static const char *const p[] = {"$.world",    "$.run",           "$.readers",
                                    "$.units[0]", "$.units[0].pump", "$.instrumentation"};
    return p[sec];
}

/* @p key = @p v in @p sec must pass validation, build and tick finite. */
static void sr_expect_builds(sr_section sec, const char *key, double v, int integer)
{
    char json[2048], text[64], msg[1400];
    sr_text(v, integer, text, sizeof text);
    sr_json(json, sizeof json, sec, key, text);
    int rc = sr_try(json, msg, sizeof msg);
    cr_expect_eq(rc, 0, "%s.%s = %s: stage %d: %s", sr_section_path(sec), key, text, rc, msg);
}

/* @p key = @p v must be refused by the validator with the field's path and
 * "value", never by the builder in its own parameter names. */
static void sr_expect_refused(sr_section sec, const char *key, double v, int integer)
{
    char json[2048], text[64], msg[1400], want[128];
    sr_text(v, integer, text, sizeof text);
    sr_json(json, sizeof json, sec, key, text);
    int rc = sr_try(json, msg, sizeof msg);
    snprintf(want, sizeof want, "%s.%s: value", sr_section_path(sec), key);
    cr_expect(rc != 0 && strstr(msg, want) && !strstr(msg, "plant unit 1:"),
              "%s = %s: want the validator's '%s ...', got stage %d: %s", key, text, want, rc, msg);
}

typedef struct sr_box {
    sr_section sec;
    const char *key;
    double lo, hi;
    int integer;
} sr_box;

/* Fields whose validator box the builder accepts whole (other fields at
 * their defaults). */
static const sr_box sr_boxes[] = {
    {SR_WORLD, "k_slow", 1e-9, 1e9, 0},
    {SR_WORLD, "k_storage", 1e-9, 1e9, 0},
    {SR_WORLD, "workers", 0, 256, 1},
    {SR_WORLD, "snapshot_buffers", 3, 64, 1},
    {SR_WORLD, "commands_per_tick", 1, 65536, 1},
    {SR_WORLD, "seed", 0, 4e18, 1},
    {SR_RUN, "seconds", 0, 1e9, 0},
    {SR_RUN, "timeline_every_s", 0.01, 1e9, 0},
    {SR_READERS, "rate_hz", 0.001, 1e6, 0},
    {SR_READERS, "channels", 1, 64, 1},
    {SR_UNIT, "generation_time_s", 1e-8, 1e-2, 0},
    {SR_UNIT, "boron_ppm", 0, 10000, 0},
    {SR_UNIT, "rod_speed_per_s", 1e-6, 1, 0},
    {SR_UNIT, "scram_drop_time_s", 0.01, 60, 0},
    {SR_UNIT, "control_bank_position", 0, 1, 0},
    {SR_UNIT, "sg_nodes", 1, 8, 1},
    {SR_PUMP, "inertia_kg_m2", 1, 1e6, 0},
    {SR_PUMP, "rated_speed_rad_s", 1, 1e4, 0},
    {SR_INSTR, "high_flux_frac", 0.01, 10, 0},
    {SR_INSTR, "flux_rate_frac", 0.001, 10, 0},
    {SR_INSTR, "rate_window_ticks", 1, 1200, 1},
    {SR_INSTR, "low_flow_frac", 0, 1.5, 0},
    {SR_INSTR, "high_pressure_pa", 1e5, 1e8, 0},
    {SR_INSTR, "low_pressure_pa", 1e5, 1e8, 0},
    {SR_INSTR, "alarm_power_frac", 0.01, 10, 0},
    {SR_INSTR, "alarm_flow_frac", 0, 1.5, 0},
    {SR_INSTR, "alarm_pressure_high_pa", 1e5, 1e8, 0},
    {SR_INSTR, "alarm_t_hot_k", 273.15, 2000, 0},
    {SR_INSTR, "noise_frac", 0, 0.5, 0},
    /* Reactivity budget (station/scenario_units.c): the build's bias
     * -(rods + Doppler + moderator + poisons) must stay inside (-0.5, 0.5). */
    {SR_UNIT, "doppler_coef", -8e-3, 8e-3, 0},
    {SR_UNIT, "mtc_per_k", -8e-4, 8e-4, 0},
};

Test(scenario_ranges, every_box_bound_builds_and_ticks_finite)
{
    for (size_t i = 0; i < sizeof sr_boxes / sizeof sr_boxes[0]; i++) {
        const sr_box *b = &sr_boxes[i];
        sr_expect_builds(b->sec, b->key, b->lo, b->integer);
        sr_expect_builds(b->sec, b->key, b->hi, b->integer);
    }
}

Test(scenario_ranges, dt_bounds_build_with_a_plant)
{
    /* 10 s is the clock's largest step; 1e-3 s the smallest the validator
     * takes with a plant (the build settles each unit's loops for 60 s in
     * steps of dt_s: 60000 steps). */
    sr_expect_builds(SR_WORLD, "dt_s", 10.0, 0);
    sr_expect_builds(SR_WORLD, "dt_s", 1e-3, 0);
    sr_expect_refused(SR_WORLD, "dt_s", 0.999e-3, 0);
}

Test(scenario_ranges, reactivity_budget_bounds_are_refused_just_outside)
{
    sr_expect_refused(SR_UNIT, "doppler_coef", -8.001e-3, 0);
    sr_expect_refused(SR_UNIT, "doppler_coef", 8.001e-3, 0);
    sr_expect_refused(SR_UNIT, "mtc_per_k", -8.001e-4, 0);
    sr_expect_refused(SR_UNIT, "mtc_per_k", 8.001e-4, 0);
}

/* Defaults the derived bounds start from. */
typedef struct sr_plant {
    double p, f, loops, m, t_hot, t_cold, p_sg, p_primary;
} sr_plant;

static sr_plant sr_defaults(void)
{
    pcs_plant_unit_def d;
    pcs_plant_unit_default(&d);
    return (sr_plant){.p = d.core.nominal_power_w,
                      .f = d.core.initial_power_fraction,
                      .loops = d.n_loops,
                      .m = d.pump.rated_flow_kg_s,
                      .t_hot = d.t_hot_k,
                      .t_cold = d.t_cold_k,
                      .p_sg = d.sg_pressure_pa,
                      .p_primary = d.fuel.pressure_pa};
}

/* Test a derived range [lo, hi] (positive bounds): a part in 1e9 inside
 * builds, a part in 1e6 outside is refused by the validator. */
static void sr_derived(sr_section sec, const char *key, double lo, double hi)
{
    sr_expect_builds(sec, key, lo * (1 + 1e-9), 0);
    sr_expect_builds(sec, key, hi * (1 - 1e-9), 0);
    sr_expect_refused(sec, key, lo * (1 - 1e-6), 0);
    sr_expect_refused(sec, key, hi * (1 + 1e-6), 0);
}

Test(scenario_ranges, heat_balance_bounds_build_and_are_refused_outside)
{
    /* cp = P f / (L m dT) in [1000, 20000]; defaults P 3.411e9 W, f 1, L 4,
     * m 4360 kg/s, dT = 599 - 565.1 = 33.9 K: L m dT = 591216 W per J/(kg K). */
    sr_plant d = sr_defaults();
    double k = d.loops * d.m * (d.t_hot - d.t_cold);
    cr_assert_float_eq(k, 591216.0, 1e-6);
    sr_derived(SR_UNIT, "nominal_power_w", 1000.0 * k / d.f, 20000.0 * k / d.f);
    /* f from 1000 k / P = 0.173326 up to the box's 1.2 (20000 k / P = 3.47). */
    double f_lo = 1000.0 * k / d.p;
    cr_assert_float_eq(f_lo, 0.173326, 1e-6);
    sr_expect_builds(SR_UNIT, "initial_power_fraction", f_lo * (1 + 1e-9), 0);
    sr_expect_builds(SR_UNIT, "initial_power_fraction", 1.2, 0);
    sr_expect_refused(SR_UNIT, "initial_power_fraction", f_lo * (1 - 1e-6), 0);
    /* 2 loops give cp = 11539, 1 loop 23078 > 20000. */
    sr_expect_builds(SR_UNIT, "loops", 2, 1);
    sr_expect_builds(SR_UNIT, "loops", 4, 1);
    sr_expect_refused(SR_UNIT, "loops", 1, 1);
    /* Flow: P f / (20000 L dT) = 1257.7 kg/s from below. */
    double dt = d.t_hot - d.t_cold;
    double m_lo = d.p * d.f / (20000.0 * d.loops * dt);
    sr_expect_builds(SR_PUMP, "rated_flow_kg_s", m_lo * (1 + 1e-9), 0);
    sr_expect_refused(SR_PUMP, "rated_flow_kg_s", m_lo * (1 - 1e-6), 0);
}

Test(scenario_ranges, initial_power_fraction_below_the_heat_balance_names_field_and_reason)
{
    char json[2048], msg[1400];
    sr_json(json, sizeof json, SR_UNIT, "initial_power_fraction", "0.1");
    cr_assert_neq(sr_try(json, msg, sizeof msg), 0);
    cr_expect(strstr(msg, "$.units[0].initial_power_fraction: value 0.1 is below 0.173326"), "%s",
              msg);
    cr_expect(strstr(msg, "1000 J/(kg K)") && !strstr(msg, "cp_j_kg_k"), "%s", msg);
}

Test(scenario_ranges, temperature_bounds_build_and_are_refused_outside)
{
    sr_plant d = sr_defaults();
    double t_sat_primary, t_sat_sg, p_sat_cold;
    cr_assert_eq(pcs_water_tsat(d.p_primary, &t_sat_primary), PCS_OK);
    cr_assert_eq(pcs_water_tsat(d.p_sg, &t_sat_sg), PCS_OK);
    cr_assert_eq(pcs_water_psat(d.t_cold, &p_sat_cold), PCS_OK);
    double dt_min = d.p * d.f / (20000.0 * d.loops * d.m); /* cp <= 20000 */
    /* T_hot in [T_cold + 9.78, T_sat(15.51 MPa) = 617.9 K). */
    sr_derived(SR_UNIT, "t_hot_k", d.t_cold + dt_min, t_sat_primary);
    /* T_cold in (T_sat(6.89 MPa) = 557.9 K, T_hot - 9.78]. */
    sr_derived(SR_UNIT, "t_cold_k", t_sat_sg, d.t_hot - dt_min);
    /* sg_pressure in [1e5, p_sat(T_cold)): the secondary boils below T_cold. */
    sr_expect_builds(SR_UNIT, "sg_pressure_pa", 1e5, 0);
    sr_expect_builds(SR_UNIT, "sg_pressure_pa", p_sat_cold * (1 - 1e-9), 0);
    sr_expect_refused(SR_UNIT, "sg_pressure_pa", p_sat_cold * (1 + 1e-6), 0);
}

/* Does the builder take a pump of @p dp Pa at @p m kg/s (defaults otherwise,
 * the builder's liquid density)? pcs_hydraulics_pwr_network sets the core's form
 * loss to close the loop at rated flow; pcs_hydraulics_add then needs every form
 * loss >= 0, so the head must also cover the core pipe's own friction. */
static int sr_pump_ok(double m, double dp)
{
    pcs_plant_unit_def c;
    pcs_plant_unit_default(&c);
    c.pump.rated_flow_kg_s = m;
    c.pump.rated_dp_pa = dp;
    pcs_hydraulics_def h;
    pcs_hydraulics_default(&h);
    cr_assert_eq(pcs_water_rho_pt(c.fuel.pressure_pa, 0.5 * (c.t_hot_k + c.t_cold_k), &h.rho_kg_m3),
                 PCS_OK);
    uint32_t nn, nj;
    cr_assert_eq(pcs_hydraulics_pwr_sizes(c.n_loops, c.n_sg_nodes, &nn, &nj), PCS_OK);
    pcs_hydraulics_node nodes[64];
    pcs_hydraulics_junction js[64];
    pcs_hydraulics_pump pumps[PCS_PLANT_MAX_LOOPS];
    if (pcs_hydraulics_pwr_network(c.n_loops, c.n_sg_nodes, &c.pump, &h, nodes, js, pumps) !=
        PCS_OK)
        return 0;
    for (uint32_t j = 0; j < nj; j++)
        if (!(js[j].form_loss >= 0.0))
            return 0;
    return 1;
}

Test(scenario_ranges, pump_head_bounds_build_and_are_refused_outside)
{
    sr_plant d = sr_defaults();
    /* Smallest head the network takes at rated flow (bisection on the
     * builder's own check), and the largest flow the default head drives. */
    double lo = 1e3, hi = 1e8;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        *(sr_pump_ok(d.m, mid) ? &hi : &lo) = mid;
    }
    double dp_min = hi;
    cr_assert(dp_min > 2.9e5 && dp_min < 4e5, "loop friction %g Pa", dp_min);
    sr_expect_builds(SR_PUMP, "rated_dp_pa", dp_min * (1 + 1e-9), 0);
    sr_expect_builds(SR_PUMP, "rated_dp_pa", 1e8, 0);
    sr_expect_refused(SR_PUMP, "rated_dp_pa", dp_min * (1 - 1e-6), 0);
    lo = d.m;
    hi = 1e5;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        *(sr_pump_ok(mid, 0.6e6) ? &lo : &hi) = mid;
    }
    sr_expect_builds(SR_PUMP, "rated_flow_kg_s", lo * (1 - 1e-9), 0);
    sr_expect_refused(SR_PUMP, "rated_flow_kg_s", lo * (1 + 1e-6), 0);
}
