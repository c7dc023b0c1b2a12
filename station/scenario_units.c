/**
 * @file scenario_units.c
 * @brief The scenario's "units" and "instrumentation" sections read into the
 *        plant builder's configurations, refused unless the builder will
 *        accept them (issue 12: nothing passes validation and fails at build).
 *
 * Each field has its own range, which the builder accepts whole with the
 * other fields at their defaults (tests/test_scenario_ranges.c builds every
 * bound). The coupled conditions:
 *
 *  1. Loop rating. The primary's geometry is the Westinghouse 4-loop plant's
 *     ([W84], scenarios/geometry_pwr4.csv), each loop rated for a quarter of
 *     3411 MW; a unit's nominal_power_w may not exceed its loops' rating
 *     (loops x 852.75 MW), and a unit that does not set nominal_power_w is
 *     rated for its loops (a 2-loop unit: 1705.5 MW). Above the rating the core outlet approaches
 * saturation at 15.5 MPa on the Tavg program, outside what the steady state is built for.
 *  2. Reactivity budget. At build the bias cancels rods + Doppler + moderator
 *     + boron + poisons, and pcs_unit_balance needs |bias| < 0.5. Worst cases
 *     over the ranges: rods, bank D (788 pcm) fully in: 0.0079; poisons at
 *     f <= 1: xenon 0.0241 + samarium 0.0047; boron 0 (its reference follows
 *     the scenario's boron); Doppler |a| |sqrt(T_f) - sqrt(900)| with T_f in
 *     [273.15, 3120] (fuel_temp_limit_k): <= 25.86 |a|; moderator
 *     |mtc| |T_m - 566.5| with T_m in [273.15, 617.9]: <= 293.4 |mtc|. With
 *     |doppler_coef| <= 8e-3 and |mtc_per_k| <= 8e-4 the sum is 0.48 < 0.5
 *     (defaults -1.5e-3 and -3.15e-5; PWR values lie well inside).
 *  3. Step. The primary's network is built for dt = 0.05 s (pcsim/primary.h),
 *     so a scenario with units takes dt_s in [1e-3, 0.05].
 *
 * Schema 1 fields of the constant-density loop model that the two-phase
 * primary no longer takes (0.3.0): t_hot_k and t_cold_k (outcomes of the
 * steady state on the Tavg program), sg_pressure_pa (the secondary pressure
 * that holds Tavg on its program is an outcome; the sg_pressure command
 * moves it during a run), pump.rated_dp_pa (the homologous pump's head is
 * its rated_head_m); each is refused with a message naming what replaces
 * it. sg_nodes N becomes 2N tube volumes (up and down the U-bundle);
 * pump.rated_flow_kg_s becomes the homologous pump's rated volumetric flow
 * at its rated density.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "station/scenario_units.h"
#include "pcsim/clock.h"

#define LOOP_RATING_W PCS_PLANT_LOOP_RATING_W

/* ---- fields, one by one --------------------------------------------------- */

typedef struct unit_pump {
    double rated_flow_kg_s, inertia_kg_m2, rated_speed_rad_s;
} unit_pump;

/* Around the homologous pump's rated point (pump_homologous_data.c); the
 * motor's slip line needs a rated speed below its synchronous 125.66 rad/s. */
static const jr_field pump_fields[] = {
    {"rated_flow_kg_s", JR_NUM, 2000.0, 6000.0, offsetof(unit_pump, rated_flow_kg_s)},
    {"inertia_kg_m2", JR_NUM, 500.0, 20000.0, offsetof(unit_pump, inertia_kg_m2)},
    {"rated_speed_rad_s", JR_NUM, 100.0, 125.0, offsetof(unit_pump, rated_speed_rad_s)},
};

/* A schema-1 field the two-phase primary no longer takes, and what replaces it. */
typedef struct retired_field {
    const char *section; /* NULL: the unit itself */
    const char *name;
    const char *why;
} retired_field;

static const retired_field retired[] = {
    {NULL, "t_hot_k",
     "the hot-leg temperature is an outcome of the two-phase primary's steady state on the "
     "Tavg program (pwr_transients.md section 1); remove the field"},
    {NULL, "t_cold_k",
     "the cold-leg temperature is an outcome of the two-phase primary's steady state on the "
     "Tavg program (pwr_transients.md section 1); remove the field"},
    {NULL, "sg_pressure_pa",
     "the SG secondary pressure that holds Tavg on its program is an outcome of the steady "
     "state; remove the field and use the sg_pressure command to move it during a run"},
    {"pump", "rated_dp_pa",
     "the pump's head comes from its homologous curves at the rated point (84.43 m, "
     "scenarios/README.md); remove the field"},
};

static int refuse_retired(jr_ctx *c, json_t *u)
{
    for (size_t i = 0; i < sizeof retired / sizeof retired[0]; i++) {
        const retired_field *r = &retired[i];
        json_t *obj = r->section ? json_object_get(u, r->section) : u;
        if (!json_is_object(obj) || !json_object_get(obj, r->name))
            continue;
        size_t p = r->section ? jr_push_key(c, r->section) : 0;
        size_t q = jr_push_key(c, r->name);
        jr_fail(c, "no longer taken (a schema 1 field of the constant-density loops): %s", r->why);
        jr_pop(c, q);
        if (r->section)
            jr_pop(c, p);
        return -1;
    }
    return 0;
}

static int parse_pump(jr_ctx *c, json_t *u, pcs_plant_unit_def *cfg)
{
    pcs_pump_homologous_def *h = &cfg->primary.pump;
    unit_pump p = {.rated_flow_kg_s = h->rated_flow_m3_s * h->rated_density_kg_m3,
                   .inertia_kg_m2 = h->inertia_kg_m2,
                   .rated_speed_rad_s = h->rated_speed_rad_s};
    if (jr_table_section(c, u, "pump", pump_fields, sizeof pump_fields / sizeof pump_fields[0],
                         &p) != 0)
        return -1;
    h->rated_flow_m3_s = p.rated_flow_kg_s / h->rated_density_kg_m3;
    h->inertia_kg_m2 = p.inertia_kg_m2;
    h->rated_speed_rad_s = p.rated_speed_rad_s;
    return 0;
}

/* "sg_model": what the SG tubes give their heat to (pcsim/plant.h). */
static int parse_sg_model(jr_ctx *c, json_t *u, pcs_plant_unit_def *cfg)
{
    static const char *const names[] = {"boundary", "steam_side"};
    const char *m = NULL;
    if (jr_str(c, u, "sg_model", &m) != 0)
        return -1;
    if (!m)
        return 0;
    for (uint32_t i = 0; i < 2u; i++)
        if (strcmp(m, names[i]) == 0) {
            cfg->sg_model = i; /* PCS_PLANT_SG_BOUNDARY, PCS_PLANT_SG_STEAM_SIDE */
            return 0;
        }
    size_t p = jr_push_key(c, "sg_model");
    jr_fail(c,
            "value '%s' is not one of 'boundary' (the default: a saturated boundary at the "
            "sg_pressure command's pressure) or 'steam_side' (pcsim/secondary.h)",
            m);
    jr_pop(c, p);
    return -1;
}

/* "model": "full" (the default) or "summary" (pcsim/plant.h PCS_PLANT_MODEL_SUMMARY). */
static int parse_model(jr_ctx *c, json_t *u, pcs_plant_unit_def *cfg)
{
    const char *m = NULL;
    if (jr_str(c, u, "model", &m) != 0)
        return -1;
    if (!m || strcmp(m, "full") == 0)
        return 0;
    if (strcmp(m, "summary") == 0) {
        cfg->model = PCS_PLANT_MODEL_SUMMARY;
        return 0;
    }
    size_t p = jr_push_key(c, "model");
    jr_fail(c,
            "value '%s' is not one of 'full' (the default: fuel rods and the two-phase primary) "
            "or 'summary' (one-node primary, point kinetics and decay heat: "
            "physics/plant/models/plant_summary.c)",
            m);
    jr_pop(c, p);
    return -1;
}

static int parse_unit_fields(jr_ctx *c, json_t *u, pcs_plant_unit_def *cfg, char *name)
{
    static const char *const keys[] = {"name",
                                       "nominal_power_w",
                                       "initial_power_fraction",
                                       "loops",
                                       "sg_nodes",
                                       "t_hot_k",
                                       "t_cold_k",
                                       "sg_pressure_pa",
                                       "pump",
                                       "generation_time_s",
                                       "mtc_per_k",
                                       "doppler_coef",
                                       "boron_ppm",
                                       "rod_speed_per_s",
                                       "scram_drop_time_s",
                                       "control_bank_position",
                                       "sg_model",
                                       "build",
                                       "model",
                                       NULL};
    if (!json_is_object(u))
        return jr_fail(c, "expected an object");
    pcs_plant_unit_default(cfg);
    const char *nm = NULL;
    double bank_pos = cfg->core.banks[0].initial_pos, speed = cfg->core.banks[0].speed_per_s;
    uint32_t sg_nodes = cfg->primary.n_sg_tubes / 2;
    if (jr_only_keys(c, u, keys) != 0 || refuse_retired(c, u) != 0)
        return -1;
    int rc = jr_str_req(c, u, "name", &nm);
    rc |= jr_num(c, u, "nominal_power_w", 1e6, 4.0 * LOOP_RATING_W, &cfg->core.nominal_power_w);
    rc |= jr_num(c, u, "initial_power_fraction", 0.0, 1.0, &cfg->core.initial_power_fraction);
    rc |= jr_u32(c, u, "loops", 1, PCS_PLANT_MAX_LOOPS, &cfg->primary.n_loops);
    rc |= jr_u32(c, u, "sg_nodes", 1, PCS_PRIMARY_MAX_SG_TUBES / 2, &sg_nodes);
    rc |= jr_num(c, u, "generation_time_s", 1e-8, 1e-2, &cfg->core.kinetics.generation_time_s);
    rc |= jr_num(c, u, "mtc_per_k", -8e-4, 8e-4, &cfg->core.feedback.mtc_per_k);
    rc |= jr_num(c, u, "doppler_coef", -8e-3, 8e-3, &cfg->core.feedback.doppler_coef);
    rc |= jr_num(c, u, "boron_ppm", 0.0, 10000.0, &cfg->core.boron_ppm);
    rc |= jr_num(c, u, "rod_speed_per_s", 1e-6, 1.0, &speed);
    rc |= jr_num(c, u, "scram_drop_time_s", 0.01, 60.0, &cfg->core.scram_drop_time_s);
    rc |= jr_num(c, u, "control_bank_position", 0.0, 1.0, &bank_pos);
    rc |= parse_pump(c, u, cfg);
    rc |= parse_sg_model(c, u, cfg);
    rc |= parse_model(c, u, cfg);
    if (rc)
        return -1;
    if (strlen(nm) >= 16)
        return jr_fail(c, "name '%s' is longer than 15 characters", nm);
    cfg->primary.n_sg_tubes = 2 * sg_nodes;
    /* A unit that names its loops but not its power is rated for its loops. */
    if (!json_object_get(u, "nominal_power_w"))
        cfg->core.nominal_power_w = cfg->primary.n_loops * LOOP_RATING_W;
    cfg->core.banks[0].initial_pos = bank_pos;
    for (uint32_t b = 0; b < cfg->core.n_banks; b++)
        cfg->core.banks[b].speed_per_s = speed;
    if (cfg->core.boron_ppm != cfg->core.feedback.boron_ref_ppm)
        cfg->core.feedback.boron_ref_ppm = cfg->core.boron_ppm; /* critical at its own boron */
    strcpy(name, nm);
    return 0;
}

/* ---- coupled conditions --------------------------------------------------- */

/* Condition 1: the loops' rating. */
static int check_loop_rating(jr_ctx *c, const pcs_plant_unit_def *cfg)
{
    double most = cfg->primary.n_loops * LOOP_RATING_W;
    if (cfg->core.nominal_power_w <= most)
        return 0;
    size_t p = jr_push_key(c, "nominal_power_w");
    jr_fail(c,
            "value %g is above %g W, the rating of %u loops (852.75 MW each, the W 4-loop "
            "geometry [W84]); allowed [1e+06, %g] with loops %u",
            cfg->core.nominal_power_w, most, cfg->primary.n_loops, most, cfg->primary.n_loops);
    jr_pop(c, p);
    return -1;
}

static int parse_unit(jr_ctx *c, json_t *u, pcs_plant_unit_def *cfg, char *name)
{
    if (parse_unit_fields(c, u, cfg, name) != 0)
        return -1;
    return check_loop_rating(c, cfg);
}

/* ---- sections --------------------------------------------------------------- */

/* "build": "start" (the default: built with the station) or "later" (built
 * by a unit_add command while running, station_units.c). Later units follow
 * every unit built at the start, so units 1..n_start are the ones running
 * and each unit_add builds the next; u1 is always built at the start. */
static int parse_build(jr_ctx *c, json_t *u, size_t i, scenario *s)
{
    const char *b = NULL;
    if (jr_str(c, u, "build", &b) != 0)
        return -1;
    int later = b && strcmp(b, "later") == 0;
    size_t p = jr_push_key(c, "build");
    int rc = 0;
    if (b && !later && strcmp(b, "start") != 0)
        rc = jr_fail(c,
                     "value '%s' is not one of 'start' (the default: built with the station) or "
                     "'later' (built by a unit_add command while running)",
                     b);
    else if (later && i == 0)
        rc = jr_fail(c, "value 'later' on u1: the first unit is built at the start (allowed: "
                        "'start')");
    else if (!later && s->n_start < i)
        rc = jr_fail(c,
                     "value '%s' on u%zu after u%u with 'later': units built at the start come "
                     "first (allowed: 'later')",
                     b ? b : "start", i + 1, s->n_start + 1);
    jr_pop(c, p);
    if (rc == 0 && !later)
        s->n_start = (uint32_t)i + 1;
    return rc;
}

static int unit_item(jr_ctx *c, json_t *item, size_t i, void *out)
{
    scenario *s = out;
    if (parse_unit(c, item, &s->units[i], s->unit_names[i]) != 0 || parse_build(c, item, i, s) != 0)
        return -1;
    char want[16];
    snprintf(want, sizeof want, "u%zu", i + 1);
    if (strcmp(s->unit_names[i], want) != 0)
        return jr_fail(c, "unit %zu must be named '%s' (channels are prefixed with it), not '%s'",
                       i + 1, want, s->unit_names[i]);
    s->n_units++;
    return 0;
}

static int parse_units(jr_ctx *c, json_t *doc, scenario *s)
{
    json_t *arr = json_object_get(doc, "units");
    if (json_is_array(arr) && json_array_size(arr) > PCS_PLANT_MAX_UNITS) {
        jr_push_key(c, "units");
        return jr_fail(c, "%zu units is outside [0, %u] (a station's units, PCS_PLANT_MAX_UNITS)",
                       json_array_size(arr), PCS_PLANT_MAX_UNITS);
    }
    return jr_array_section(c, doc, "units", PCS_PLANT_MAX_UNITS, "units", unit_item, s);
}

static const jr_field instrumentation_fields[] = {
    {"high_flux_frac", JR_NUM, 0.01, 10.0, offsetof(pcs_plant_setpoints, high_flux_frac)},
    {"flux_rate_frac", JR_NUM, 0.001, 10.0, offsetof(pcs_plant_setpoints, flux_rate_frac)},
    {"rate_window_ticks", JR_U32, 1, 1200, offsetof(pcs_plant_setpoints, rate_window_ticks)},
    {"low_flow_frac", JR_NUM, 0.0, 1.5, offsetof(pcs_plant_setpoints, low_flow_frac)},
    {"high_pressure_pa", JR_NUM, 1e5, 1e8, offsetof(pcs_plant_setpoints, high_pressure_pa)},
    {"low_pressure_pa", JR_NUM, 1e5, 1e8, offsetof(pcs_plant_setpoints, low_pressure_pa)},
    {"alarm_power_frac", JR_NUM, 0.01, 10.0, offsetof(pcs_plant_setpoints, alarm_power_frac)},
    {"alarm_flow_frac", JR_NUM, 0.0, 1.5, offsetof(pcs_plant_setpoints, alarm_flow_frac)},
    {"alarm_pressure_high_pa", JR_NUM, 1e5, 1e8,
     offsetof(pcs_plant_setpoints, alarm_pressure_high_pa)},
    {"alarm_t_hot_k", JR_NUM, 273.15, 2000.0, offsetof(pcs_plant_setpoints, alarm_t_hot_k)},
    {"noise_frac", JR_NUM, 0.0, 0.5, offsetof(pcs_plant_setpoints, noise_frac)},
};

static int parse_instrumentation(jr_ctx *c, json_t *doc, pcs_plant_setpoints *sp)
{
    pcs_plant_setpoints_default(sp);
    return jr_table_section(c, doc, "instrumentation", instrumentation_fields,
                            sizeof instrumentation_fields / sizeof instrumentation_fields[0], sp);
}

/* A summary steam_side unit takes the "turbine" command family with its own
 * handler (plant_summary.c), so it cannot share a station with a full
 * steam_side unit, whose turbine owns that family. */
static int check_summary_turbines(jr_ctx *c, const scenario *s)
{
    int full = -1, summary = -1;
    for (uint32_t i = 0; i < s->n_units; i++) {
        if (s->units[i].sg_model != PCS_PLANT_SG_STEAM_SIDE)
            continue;
        if (s->units[i].model == PCS_PLANT_MODEL_SUMMARY)
            summary = summary < 0 ? (int)i : summary;
        else
            full = full < 0 ? (int)i : full;
    }
    if (full < 0 || summary < 0)
        return 0;
    size_t p = jr_push_key(c, "units");
    size_t q = jr_push_index(c, (size_t)summary);
    size_t r = jr_push_key(c, "model");
    jr_fail(c,
            "value 'summary' with sg_model 'steam_side' on u%d, and u%d is a full steam_side unit: "
            "both take the turbine commands and a station has one turbine command handler "
            "(allowed: 'full' here, or sg_model 'boundary')",
            summary + 1, full + 1);
    jr_pop(c, r);
    jr_pop(c, q);
    jr_pop(c, p);
    return -1;
}

int scenario_units_parse(jr_ctx *c, json_t *doc, scenario *s)
{
    s->n_units = 0;
    s->n_start = 0;
    if (parse_units(c, doc, s) != 0 || check_summary_turbines(c, s) != 0 ||
        parse_instrumentation(c, doc, &s->setpoints) != 0)
        return -1;
    if (s->n_units > 0 &&
        !(s->world.dt_s >= SCN_PLANT_DT_MIN_S && s->world.dt_s <= SCN_PLANT_DT_MAX_S)) {
        size_t p = jr_push_key(c, "world");
        size_t q = jr_push_key(c, "dt_s");
        jr_fail(c,
                "value %g is outside [%g, %g] for a scenario with units: the primary's network "
                "is built for steps up to %g s (pcsim/primary.h)",
                s->world.dt_s, SCN_PLANT_DT_MIN_S, SCN_PLANT_DT_MAX_S, SCN_PLANT_DT_MAX_S);
        jr_pop(c, q);
        jr_pop(c, p);
        return -1;
    }
    return 0;
}
