/**
 * @file test_scenario_ranges.c
 * @brief Every numeric scenario field at its lower and upper bound, one at a
 *        time, passes validation, builds the plant and ticks without NaN; just
 *        outside a bound the validator (not the builder) refuses it, naming
 *        the field (issue 12: no scenario passes validation and then fails at
 *        build).
 *
 * Bounds are the box each field has in the validator, or, where the builder
 * couples fields (station/scenario_units.c), the coupled condition:
 *  - loop rating: nominal_power_w <= loops x 852.75 MW (the W 4-loop
 *    geometry's rating per loop, [W84] 3411 MW / 4); a unit without
 *    nominal_power_w is rated for its loops;
 *  - step: dt_s in [1e-3, 0.05] with units (the primary's design step).
 * Schema 1 fields of the constant-density loops (t_hot_k, t_cold_k,
 * sg_pressure_pa, pump.rated_dp_pa) are refused with what replaces them.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/station.h"
#include "pcsim/channel.h"
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
    {SR_WORLD, "structure_log_capacity", 0, 1048576, 1},
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
    {SR_UNIT, "sg_nodes", 1, 16, 1},
    {SR_UNIT, "nominal_power_w", 1e6, 3.411e9, 0},
    {SR_UNIT, "initial_power_fraction", 0, 1, 0},
    {SR_UNIT, "loops", 1, 4, 1},
    {SR_PUMP, "rated_flow_kg_s", 2000, 6000, 0},
    {SR_PUMP, "inertia_kg_m2", 500, 20000, 0},
    {SR_PUMP, "rated_speed_rad_s", 100, 125, 0},
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

/* The sections that do not shape the plant (world, run, readers,
 * instrumentation) take their bounds together: one scenario with every such
 * field at its lower bound, one at its upper (they couple to nothing but the
 * plant, which stays at its defaults); each unit and pump field alone, as
 * they shape the build (each build settles a primary: 0.2 s). */
static void sr_expect_all_build(int upper)
{
    char sec[4][1024] = {{0}}, json[8192], msg[1400], text[64];
    const sr_section which[4] = {SR_WORLD, SR_RUN, SR_READERS, SR_INSTR};
    for (size_t i = 0; i < sizeof sr_boxes / sizeof sr_boxes[0]; i++) {
        const sr_box *b = &sr_boxes[i];
        for (int k = 0; k < 4; k++) {
            if (b->sec != which[k])
                continue;
            sr_text(upper ? b->hi : b->lo, b->integer, text, sizeof text);
            size_t n = strlen(sec[k]);
            snprintf(sec[k] + n, sizeof sec[k] - n, "%s\"%s\": %s", n ? ", " : "", b->key, text);
        }
    }
    snprintf(json, sizeof json,
             "{\"schema\": 1, \"world\": {%s}, \"run\": {%s}, \"readers\": {%s}, "
             "\"instrumentation\": {%s}, \"units\": [{\"name\": \"u1\"}]}",
             sec[0], sec[1], sec[2], sec[3]);
    int rc = sr_try(json, msg, sizeof msg);
    cr_expect_eq(rc, 0, "every %s bound: stage %d: %s\n%s", upper ? "upper" : "lower", rc, msg,
                 json);
}

/* Unit fields of the kinetics (not in the primary's definition, power,
 * boron or initial power): a unit with one of them at a bound settles to
 * the same state as a default unit, so the plant builds it as a twin of the
 * first (pcs_primary_copy_steady) instead of settling again. */
static int sr_kinetics_field(const sr_box *b)
{
    static const char *const keys[] = {"generation_time_s", "rod_speed_per_s",
                                       "scram_drop_time_s", "control_bank_position",
                                       "doppler_coef",      "mtc_per_k"};
    for (size_t k = 0; b->sec == SR_UNIT && k < sizeof keys / sizeof keys[0]; k++)
        if (strcmp(b->key, keys[k]) == 0)
            return 1;
    return 0;
}

/* Each kinetics field at its lower (or upper) bound, one field per unit
 * (u1 the first field, u2 the next, ...; everything else at its default), in
 * one station: every unit is still checked alone at its bound (the units
 * share nothing but the world), and one settle serves them all. A failure
 * names its unit; the message lists which field each unit holds. */
static void sr_expect_kinetics_build(int upper)
{
    char units[2048] = "", which[1024] = "", text[64];
    uint32_t n = 0;
    for (size_t i = 0; i < sizeof sr_boxes / sizeof sr_boxes[0]; i++) {
        const sr_box *b = &sr_boxes[i];
        if (!sr_kinetics_field(b))
            continue;
        n++;
        sr_text(upper ? b->hi : b->lo, b->integer, text, sizeof text);
        size_t u = strlen(units), k = strlen(which);
        snprintf(units + u, sizeof units - u, "%s{\"name\": \"u%u\", \"%s\": %s}",
                 n > 1 ? ", " : "", n, b->key, text);
        snprintf(which + k, sizeof which - k, "%su%u $.units[%u].%s = %s", n > 1 ? ", " : "", n,
                 n - 1, b->key, text);
    }
    cr_assert(n >= 1 && n <= PCS_PLANT_MAX_UNITS, "%u kinetics fields", n);
    char json[4096], msg[1400];
    snprintf(json, sizeof json, "{\"schema\": 1, \"units\": [%s]}", units);
    int rc = sr_try(json, msg, sizeof msg);
    cr_expect_eq(rc, 0, "%s: stage %d: %s", which, rc, msg);
}

Test(scenario_ranges, every_box_bound_builds_and_ticks_finite)
{
    sr_expect_all_build(0);
    sr_expect_all_build(1);
    sr_expect_kinetics_build(0);
    sr_expect_kinetics_build(1);
    for (size_t i = 0; i < sizeof sr_boxes / sizeof sr_boxes[0]; i++) {
        const sr_box *b = &sr_boxes[i];
        if ((b->sec != SR_UNIT && b->sec != SR_PUMP) || sr_kinetics_field(b))
            continue;
        sr_expect_builds(b->sec, b->key, b->lo, b->integer);
        sr_expect_builds(b->sec, b->key, b->hi, b->integer);
    }
}

Test(scenario_ranges, dt_bounds_build_with_a_plant)
{
    /* With units dt_s is in [1e-3, 0.05]: the primary's design step on top,
     * and on the bottom a step the build and the tick still afford. */
    sr_expect_builds(SR_WORLD, "dt_s", 0.05, 0);
    sr_expect_builds(SR_WORLD, "dt_s", 1e-3, 0);
    sr_expect_refused(SR_WORLD, "dt_s", 0.999e-3, 0);
    sr_expect_refused(SR_WORLD, "dt_s", 0.0501, 0);
}

Test(scenario_ranges, reactivity_budget_bounds_are_refused_just_outside)
{
    sr_expect_refused(SR_UNIT, "doppler_coef", -8.001e-3, 0);
    sr_expect_refused(SR_UNIT, "doppler_coef", 8.001e-3, 0);
    sr_expect_refused(SR_UNIT, "mtc_per_k", -8.001e-4, 0);
    sr_expect_refused(SR_UNIT, "mtc_per_k", 8.001e-4, 0);
}

/* @p json (a whole scenario) builds and ticks finite. */
static void sr_expect_json_builds(const char *json)
{
    char msg[1400];
    int rc = sr_try(json, msg, sizeof msg);
    cr_expect_eq(rc, 0, "%s: stage %d: %s", json, rc, msg);
}

/* @p json is refused by the validator with a message containing @p want. */
static void sr_expect_json_refused(const char *json, const char *want)
{
    char msg[1400];
    int rc = sr_try(json, msg, sizeof msg);
    cr_expect(rc == 1 && strstr(msg, want), "%s: want stage 1 with '%s', got stage %d: %s", json,
              want, rc, msg);
}

Test(scenario_ranges, loop_rating_bounds_build_and_are_refused_outside)
{
    /* One loop carries 852.75 MW ([W84] 3411 MW over 4 loops). */
    sr_expect_json_builds("{\"schema\": 1, \"units\": [{\"name\": \"u1\", \"loops\": 1, "
                          "\"nominal_power_w\": 852750000}]}");
    sr_expect_json_refused("{\"schema\": 1, \"units\": [{\"name\": \"u1\", \"loops\": 1, "
                           "\"nominal_power_w\": 852751000}]}",
                           "$.units[0].nominal_power_w: value 8.52751e+08 is above 8.5275e+08 W, "
                           "the rating of 1 loops");
    /* A unit that sets only its loops is rated for them: 3 x 852.75 MW. */
    sr_expect_json_builds("{\"schema\": 1, \"units\": [{\"name\": \"u1\", \"loops\": 3}]}");
    sr_expect_refused(SR_UNIT, "nominal_power_w", 3.411e9 * (1 + 1e-6), 0);
}

Test(scenario_ranges, constant_density_fields_are_refused_naming_their_replacement)
{
    static const struct {
        const char *field, *want;
    } cases[] = {
        {"\"t_hot_k\": 599", "$.units[0].t_hot_k: no longer taken"},
        {"\"t_cold_k\": 565", "$.units[0].t_cold_k: no longer taken"},
        {"\"sg_pressure_pa\": 6.89e6", "use the sg_pressure command"},
        {"\"pump\": {\"rated_dp_pa\": 6e5}", "$.units[0].pump.rated_dp_pa: no longer taken"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[512];
        snprintf(json, sizeof json, "{\"schema\": 1, \"units\": [{\"name\": \"u1\", %s}]}",
                 cases[i].field);
        sr_expect_json_refused(json, cases[i].want);
    }
}

/* "units" holds 0..PCS_PLANT_MAX_UNITS (64, issue 16) units: 64 load (the
 * 64-unit stations build and tick in tests/test_world_limits.c), and the
 * 65th is refused naming the path, the count and the range. */
static char *sr_units_json(uint32_t n)
{
    size_t cap = 32 + 24 * (size_t)n;
    char *json = malloc(cap);
    cr_assert_not_null(json);
    size_t len = (size_t)snprintf(json, cap, "{\"schema\": 1, \"units\": [");
    for (uint32_t u = 1; u <= n; u++)
        len +=
            (size_t)snprintf(json + len, cap - len, "%s{\"name\": \"u%u\"}", u > 1 ? ", " : "", u);
    snprintf(json + len, cap - len, "]}");
    return json;
}

Test(scenario_ranges, sixty_four_units_load_and_the_sixty_fifth_is_refused)
{
    cr_assert_eq(PCS_PLANT_MAX_UNITS, 64u);
    char *json = sr_units_json(64);
    pcs_scenario *scn = NULL;
    cr_assert_eq(pcs_scenario_load_string("ranges.json", json, strlen(json), NULL, &scn), PCS_OK,
                 "%s", pcs_last_error());
    pcs_scenario_destroy(scn);
    free(json);
    json = sr_units_json(65);
    scn = NULL;
    cr_assert_eq(pcs_scenario_load_string("ranges.json", json, strlen(json), NULL, &scn),
                 PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "ranges.json: $.units: 65 units is outside [0, 64]") != NULL,
              "%s", pcs_last_error());
    cr_assert_null(scn);
    free(json);
}
