/**
 * @file scenario_units.c
 * @brief The scenario's "units" and "instrumentation" sections read into the
 *        plant builder's configurations, refused unless the builder will
 *        accept them (issue 12: nothing passes validation and fails at build).
 *
 * Each field first has its own range; these ranges the builder accepts whole
 * with the other fields at their defaults, except where it couples fields.
 * The coupled conditions, each derived from the builder's own check:
 *
 *  1. Temperatures. pcs_hydraulics_pwr_full_power needs T_hot > T_cold > T_sat of
 *     the steam generator at sg_pressure_pa (heat flows primary -> secondary;
 *     the SG chain's temperature ratio needs it). The loop model is
 *     single-phase water, so T_hot must also stay below T_sat at the primary
 *     pressure (15.51 MPa: 617.9 K); the builder itself reads the density at
 *     the mean temperature only, so this one is stricter than it, on purpose.
 *  2. Heat balance. physics/plant/models/plant.c gives the loop the effective
 *     heat capacity cp = P f / (L m (T_hot - T_cold)) that makes the rated
 *     flow carry the initial power, and the hydraulics accept cp in
 *     [1000, 20000] J/(kg K) (physics/thermohydraulics/models/hyd_build.c
 *     check_globals; water is ~5800 near 580 K). Hence
 *     initial_power_fraction >= 1000 L m dT / P: 0.1733 for the default unit.
 *     A colder start needs the two-phase plant, which is not built yet.
 *  3. Pump head. pcs_hydraulics_pwr_network sets the core's form loss so the loop's
 *     pressure drop at rated flow equals rated_dp_pa, and pcs_hydraulics_add needs
 *     every form loss >= 0: the head must cover the loop's friction and the
 *     core pipe's at rated flow. Checked by running that network function on
 *     scratch arrays with the builder's liquid density; the bound given in a
 *     message is found by bisection on the same check (monotone in head and
 *     in flow).
 *  4. Reactivity budget. At build the bias cancels rods + Doppler + moderator
 *     + boron + poisons, and pcs_unit_balance needs |bias| < 0.5. Worst cases
 *     over the ranges: rods, bank D (788 pcm) fully in: 0.0079; poisons at
 *     f <= 1.2: xenon 0.0241 + samarium 0.0047; boron 0 (its reference follows
 *     the scenario's boron); Doppler |a| |sqrt(T_f) - sqrt(900)| with T_f in
 *     [273.15, 3120] (fuel_temp_limit_k): <= 25.86 |a|; moderator
 *     |mtc| |T_m - 566.5| with T_m in [273.15, 617.9]: <= 293.4 |mtc|. With
 *     |doppler_coef| <= 8e-3 and |mtc_per_k| <= 8e-4 the sum is 0.48 < 0.5
 *     (defaults -1.5e-3 and -3.15e-5; PWR values lie well inside).
 *  5. Step. The build settles each unit's loops for 60 s in steps of dt_s
 *     (pcs_hydraulics_settle): 60000 steps at 1e-3 s take ~0.5 s per unit, 1e-6 s
 *     would take minutes, so a scenario with units needs dt_s >= 1e-3.
 *
 * A coupled condition that fails blames the first of its fields, in a fixed
 * order, that the unit's object sets (the one the author chose), and gives
 * that field's range with the unit's other fields as they are.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "station/scenario_units.h"
#include "pcsim/clock.h"
#include "pcsim/hydraulics.h"
#include "pcsim/water.h"

#define CP_MIN 1000.0  /* J/(kg K), physics/thermohydraulics/models/hyd_build.c check_globals */
#define CP_MAX 20000.0 /* J/(kg K) */
#define NET_MAX 64     /* nodes/junctions of the largest network (48 / 51) */

/* ---- fields, one by one --------------------------------------------------- */

static const jr_field pump_fields[] = {
    {"rated_flow_kg_s", JR_NUM, 1.0, 1e5, offsetof(pcs_hydraulics_pump, rated_flow_kg_s)},
    {"rated_dp_pa", JR_NUM, 1e3, 1e8, offsetof(pcs_hydraulics_pump, rated_dp_pa)},
    {"inertia_kg_m2", JR_NUM, 1.0, 1e6, offsetof(pcs_hydraulics_pump, inertia_kg_m2)},
    {"rated_speed_rad_s", JR_NUM, 1.0, 1e4, offsetof(pcs_hydraulics_pump, rated_speed_rad_s)},
};

static int parse_pump(jr_ctx *c, json_t *u, pcs_hydraulics_pump *p)
{
    return jr_table_section(c, u, "pump", pump_fields, sizeof pump_fields / sizeof pump_fields[0],
                            p);
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
                                       NULL};
    if (!json_is_object(u))
        return jr_fail(c, "expected an object");
    pcs_plant_unit_default(cfg);
    const char *nm = NULL;
    double bank_pos = cfg->core.banks[0].initial_pos, speed = cfg->core.banks[0].speed_per_s;
    int rc = jr_only_keys(c, u, keys);
    rc |= jr_str_req(c, u, "name", &nm);
    rc |= jr_num(c, u, "nominal_power_w", 1e6, 1e11, &cfg->core.nominal_power_w);
    rc |= jr_num(c, u, "initial_power_fraction", 0.0, 1.2, &cfg->core.initial_power_fraction);
    rc |= jr_u32(c, u, "loops", 1, PCS_PLANT_MAX_LOOPS, &cfg->n_loops);
    rc |= jr_u32(c, u, "sg_nodes", 1, PCS_PLANT_MAX_SG_NODES, &cfg->n_sg_nodes);
    rc |= jr_num(c, u, "t_hot_k", 273.15, 700.0, &cfg->t_hot_k);
    rc |= jr_num(c, u, "t_cold_k", 273.15, 700.0, &cfg->t_cold_k);
    rc |= jr_num(c, u, "sg_pressure_pa", 1e5, 2.2e7, &cfg->sg_pressure_pa);
    rc |= jr_num(c, u, "generation_time_s", 1e-8, 1e-2, &cfg->core.kinetics.generation_time_s);
    rc |= jr_num(c, u, "mtc_per_k", -8e-4, 8e-4, &cfg->core.feedback.mtc_per_k);
    rc |= jr_num(c, u, "doppler_coef", -8e-3, 8e-3, &cfg->core.feedback.doppler_coef);
    rc |= jr_num(c, u, "boron_ppm", 0.0, 10000.0, &cfg->core.boron_ppm);
    rc |= jr_num(c, u, "rod_speed_per_s", 1e-6, 1.0, &speed);
    rc |= jr_num(c, u, "scram_drop_time_s", 0.01, 60.0, &cfg->core.scram_drop_time_s);
    rc |= jr_num(c, u, "control_bank_position", 0.0, 1.0, &bank_pos);
    rc |= parse_pump(c, u, &cfg->pump);
    if (rc)
        return -1;
    if (strlen(nm) >= 16)
        return jr_fail(c, "name '%s' is longer than 15 characters", nm);
    cfg->core.banks[0].initial_pos = bank_pos;
    for (uint32_t b = 0; b < cfg->core.n_banks; b++)
        cfg->core.banks[b].speed_per_s = speed;
    if (cfg->core.boron_ppm != cfg->core.feedback.boron_ref_ppm)
        cfg->core.feedback.boron_ref_ppm = cfg->core.boron_ppm; /* critical at its own boron */
    strcpy(name, nm);
    return 0;
}

/* ---- coupled conditions --------------------------------------------------- */

typedef struct unit_check {
    jr_ctx *c;
    json_t *u; /* the unit's object: which fields the author set */
    const pcs_plant_unit_def *cfg;
} unit_check;

static int sets(const unit_check *k, const char *field)
{
    if (strncmp(field, "pump.", 5) == 0) {
        json_t *p = json_object_get(k->u, "pump");
        return p && json_object_get(p, field + 5);
    }
    return json_object_get(k->u, field) != NULL;
}

/* The first of @p order (NULL-terminated) the author set, else the first. */
static const char *blame(const unit_check *k, const char *const *order)
{
    for (const char *const *f = order; *f; f++)
        if (sets(k, *f))
            return *f;
    return order[0];
}

static int fail_at(const unit_check *k, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_at(const unit_check *k, const char *field, const char *fmt, ...)
{
    char why[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    char path[64];
    snprintf(path, sizeof path, "%s", field);
    char *dot = strchr(path, '.');
    size_t p = 0, q = 0;
    if (dot) {
        *dot = '\0';
        p = jr_push_key(k->c, path);
        q = jr_push_key(k->c, dot + 1);
    } else {
        p = jr_push_key(k->c, path);
    }
    jr_fail(k->c, "%s", why);
    if (dot)
        jr_pop(k->c, q);
    jr_pop(k->c, p);
    return -1;
}

static double field_value(const pcs_plant_unit_def *c, const char *field)
{
    const struct {
        const char *name;
        double value;
    } fields[] = {
        {"initial_power_fraction", c->core.initial_power_fraction},
        {"nominal_power_w", c->core.nominal_power_w},
        {"loops", c->n_loops},
        {"sg_nodes", c->n_sg_nodes},
        {"pump.rated_flow_kg_s", c->pump.rated_flow_kg_s},
        {"pump.rated_dp_pa", c->pump.rated_dp_pa},
        {"t_hot_k", c->t_hot_k},
        {"t_cold_k", c->t_cold_k},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (strcmp(field, fields[i].name) == 0)
            return fields[i].value;
    return c->sg_pressure_pa;
}

static int check_temperatures(const unit_check *k)
{
    const pcs_plant_unit_def *c = k->cfg;
    double t_sat_p, t_sat_sg, p_sat_cold = 0.0;
    if (pcs_water_tsat(c->fuel.pressure_pa, &t_sat_p) != PCS_OK ||
        pcs_water_tsat(c->sg_pressure_pa, &t_sat_sg) != PCS_OK)
        return fail_at(k, "sg_pressure_pa", "%s", pcs_last_error());
    if (!(c->t_hot_k < t_sat_p))
        return fail_at(k, "t_hot_k",
                       "value %g is not below %g K, the saturation temperature at the primary "
                       "pressure %g Pa (the loop model is single-phase water); allowed (t_cold_k "
                       "%g, %g)",
                       c->t_hot_k, t_sat_p, c->fuel.pressure_pa, c->t_cold_k, t_sat_p);
    if (!(c->t_hot_k > c->t_cold_k)) {
        static const char *const order[] = {"t_cold_k", "t_hot_k", NULL};
        const char *f = blame(k, order);
        return fail_at(k, f, "value %g must be %s %s %g (the core heats the loop)",
                       field_value(c, f), f[2] == 'c' ? "below" : "above",
                       f[2] == 'c' ? "t_hot_k" : "t_cold_k",
                       f[2] == 'c' ? c->t_hot_k : c->t_cold_k);
    }
    if (c->t_cold_k > t_sat_sg)
        return 0;
    (void)pcs_water_psat(c->t_cold_k, &p_sat_cold);
    static const char *const order[] = {"t_cold_k", "sg_pressure_pa", NULL};
    if (strcmp(blame(k, order), "sg_pressure_pa") == 0)
        return fail_at(k, "sg_pressure_pa",
                       "value %g boils the secondary at %g K, not below t_cold_k %g (heat must "
                       "flow from the primary to the steam generator); allowed [100000, %g) "
                       "with t_cold_k %g",
                       c->sg_pressure_pa, t_sat_sg, c->t_cold_k, p_sat_cold, c->t_cold_k);
    return fail_at(k, "t_cold_k",
                   "value %g is not above %g K, the steam generator's saturation temperature at "
                   "sg_pressure_pa %g (heat must flow from the primary to the secondary); allowed "
                   "(%g, t_hot_k %g)",
                   c->t_cold_k, t_sat_sg, c->sg_pressure_pa, t_sat_sg, c->t_hot_k);
}

/* The same expression as physics/plant/models/plant.c build_hydraulics, so the same double. */
static double heat_capacity(const pcs_plant_unit_def *c)
{
    return c->core.nominal_power_w * c->core.initial_power_fraction /
           (c->pump.rated_flow_kg_s * c->n_loops * (c->t_hot_k - c->t_cold_k));
}

/* Range of @p field that puts cp in [CP_MIN, CP_MAX] with the others fixed. */
static void heat_range(const pcs_plant_unit_def *c, const char *f, double *lo, double *hi)
{
    double q = c->core.nominal_power_w * c->core.initial_power_fraction;
    double dt = c->t_hot_k - c->t_cold_k, m = c->pump.rated_flow_kg_s, l = c->n_loops;
    double k = m * l * dt;
    if (strcmp(f, "initial_power_fraction") == 0) {
        *lo = CP_MIN * k / c->core.nominal_power_w;
        *hi = fmin(1.2, CP_MAX * k / c->core.nominal_power_w);
    } else if (strcmp(f, "nominal_power_w") == 0) {
        *lo = fmax(1e6, CP_MIN * k / c->core.initial_power_fraction);
        *hi = fmin(1e11, CP_MAX * k / c->core.initial_power_fraction);
    } else if (strcmp(f, "loops") == 0) {
        *lo = fmax(1.0, ceil(q / (CP_MAX * m * dt)));
        *hi = fmin(PCS_PLANT_MAX_LOOPS, floor(q / (CP_MIN * m * dt)));
    } else if (strcmp(f, "pump.rated_flow_kg_s") == 0) {
        *lo = fmax(1.0, q / (CP_MAX * l * dt));
        *hi = fmin(1e5, q / (CP_MIN * l * dt));
    } else if (strcmp(f, "t_hot_k") == 0) {
        *lo = c->t_cold_k + q / (CP_MAX * l * m);
        *hi = c->t_cold_k + q / (CP_MIN * l * m);
    } else {
        *lo = c->t_hot_k - q / (CP_MIN * l * m);
        *hi = c->t_hot_k - q / (CP_MAX * l * m);
    }
}

static int check_heat_balance(const unit_check *k)
{
    const pcs_plant_unit_def *c = k->cfg;
    double cp = heat_capacity(c);
    if (cp >= CP_MIN && cp <= CP_MAX)
        return 0;
    static const char *const order[] = {"initial_power_fraction",
                                        "nominal_power_w",
                                        "loops",
                                        "pump.rated_flow_kg_s",
                                        "t_hot_k",
                                        "t_cold_k",
                                        NULL};
    const char *f = blame(k, order);
    double v = field_value(c, f), lo, hi;
    heat_range(c, f, &lo, &hi);
    const char *tail = strcmp(f, "initial_power_fraction") == 0 && cp < CP_MIN
                           ? " (a lower starting power needs the two-phase plant, not built yet)"
                           : "";
    const char *why = "the loop model's effective coolant heat capacity nominal_power_w * "
                      "initial_power_fraction / (loops * pump.rated_flow_kg_s * (t_hot_k - "
                      "t_cold_k))";
    if (!(lo <= hi))
        return fail_at(k, f,
                       "value %g: no %s fits with the unit's other fields: %s is %g J/(kg K) and "
                       "must be in [1000 J/(kg K), 20000 J/(kg K)]",
                       v, f, why, cp);
    return fail_at(k, f,
                   "value %g is %s %g: %s is %g J/(kg K) here and must be in [1000 J/(kg K), "
                   "20000 J/(kg K)]; allowed [%g, %g] with the unit's other fields%s",
                   v, v < lo ? "below" : "above", v < lo ? lo : hi, why, cp, lo, hi, tail);
}

/* Does the builder's network take this pump (condition 3)? */
static int pump_fits(const pcs_plant_unit_def *c, double rho, double m, double dp)
{
    pcs_hydraulics_pump pump = c->pump;
    pump.rated_flow_kg_s = m;
    pump.rated_dp_pa = dp;
    pcs_hydraulics_def h;
    pcs_hydraulics_default(&h);
    h.rho_kg_m3 = rho;
    pcs_hydraulics_node nodes[NET_MAX];
    pcs_hydraulics_junction js[NET_MAX];
    pcs_hydraulics_pump pumps[PCS_PLANT_MAX_LOOPS];
    uint32_t nn, nj;
    if (pcs_hydraulics_pwr_sizes(c->n_loops, c->n_sg_nodes, &nn, &nj) != PCS_OK || nn > NET_MAX ||
        nj > NET_MAX ||
        pcs_hydraulics_pwr_network(c->n_loops, c->n_sg_nodes, &pump, &h, nodes, js, pumps) !=
            PCS_OK)
        return 0;
    for (uint32_t j = 0; j < nj; j++)
        if (!(js[j].form_loss >= 0.0))
            return 0;
    return 1;
}

/* Bisection for the edge of pump_fits between a failing and a fitting value
 * of head (want_flow 0) or flow (want_flow 1); returns the fitting side. */
static double pump_edge(const pcs_plant_unit_def *c, double rho, int want_flow, double bad,
                        double good)
{
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (bad + good);
        int ok = want_flow ? pump_fits(c, rho, mid, c->pump.rated_dp_pa)
                           : pump_fits(c, rho, c->pump.rated_flow_kg_s, mid);
        *(ok ? &good : &bad) = mid;
    }
    return good;
}

static int check_pump_head(const unit_check *k)
{
    const pcs_plant_unit_def *c = k->cfg;
    double rho;
    if (pcs_water_rho_pt(c->fuel.pressure_pa, 0.5 * (c->t_hot_k + c->t_cold_k), &rho) != PCS_OK)
        return fail_at(k, "t_hot_k", "%s", pcs_last_error());
    double m = c->pump.rated_flow_kg_s, dp = c->pump.rated_dp_pa;
    if (pump_fits(c, rho, m, dp))
        return 0;
    static const char *const order[] = {"pump.rated_dp_pa", "pump.rated_flow_kg_s", NULL};
    const char *f = blame(k, order);
    if (strcmp(f, "pump.rated_flow_kg_s") == 0 && pump_fits(c, rho, 1.0, dp)) {
        double most = pump_edge(c, rho, 1, m, 1.0);
        return fail_at(k, f,
                       "value %g is above %g kg/s, the most flow pump.rated_dp_pa %g Pa drives "
                       "through the loop's friction (legs, steam generator tubes, core); allowed "
                       "[1, %g] with the unit's other fields",
                       m, most, dp, most);
    }
    if (!pump_fits(c, rho, m, 1e8))
        return fail_at(k, "pump.rated_dp_pa",
                       "value %g: no head up to 1e8 Pa drives pump.rated_flow_kg_s %g through the "
                       "loop's friction",
                       dp, m);
    double least = pump_edge(c, rho, 0, dp, 1e8);
    return fail_at(k, "pump.rated_dp_pa",
                   "value %g is below %g Pa, the loop's own friction (legs, steam generator "
                   "tubes, core) at pump.rated_flow_kg_s %g kg/s; allowed [%g, 1e+08] with the "
                   "unit's other fields",
                   dp, least, m, least);
}

static int parse_unit(jr_ctx *c, json_t *u, pcs_plant_unit_def *cfg, char *name)
{
    if (parse_unit_fields(c, u, cfg, name) != 0)
        return -1;
    unit_check k = {.c = c, .u = u, .cfg = cfg};
    if (check_temperatures(&k) != 0 || check_heat_balance(&k) != 0 || check_pump_head(&k) != 0)
        return -1;
    return 0;
}

/* ---- sections --------------------------------------------------------------- */

static int unit_item(jr_ctx *c, json_t *item, size_t i, void *out)
{
    scenario *s = out;
    if (parse_unit(c, item, &s->units[i], s->unit_names[i]) != 0)
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

int scenario_units_parse(jr_ctx *c, json_t *doc, scenario *s)
{
    s->n_units = 0;
    if (parse_units(c, doc, s) != 0 || parse_instrumentation(c, doc, &s->setpoints) != 0)
        return -1;
    if (s->n_units > 0 && s->world.dt_s < SCN_PLANT_DT_MIN_S) {
        size_t p = jr_push_key(c, "world");
        size_t q = jr_push_key(c, "dt_s");
        jr_fail(c,
                "value %g is outside [%g, %g] for a scenario with units: the build settles "
                "each unit's loops for 60 s in steps of dt_s (over 60000 steps below %g s)",
                s->world.dt_s, SCN_PLANT_DT_MIN_S, PCS_CLOCK_DT_MAX_S, SCN_PLANT_DT_MIN_S);
        jr_pop(c, q);
        jr_pop(c, p);
        return -1;
    }
    return 0;
}
