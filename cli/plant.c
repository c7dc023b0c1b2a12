/**
 * @file plant.c
 * @brief Scenario "units" -> physics plant; script names -> commands; event
 *        texts and timeline channels for the console.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/plant.h"
#include "pcsim/alarm.h"
#include "pcsim/plant.h"
#include "pcsim/protection.h"
#include "pcsim/sensor.h"
#include "pcsim/water.h"

static pcs_plant_unit_config unit_cfg[PCS_PLANT_MAX_UNITS];
static char unit_names[PCS_PLANT_MAX_UNITS][16];
static uint32_t n_units;

/* The scenario loader has read and checked the units and setpoints
 * (cli/scenario_units.c); keep a copy for the name lookups below. */
int plant_build(host *h, char *err, size_t err_len)
{
    n_units = h->scn.n_units;
    memcpy(unit_cfg, h->scn.units, sizeof unit_cfg);
    memcpy(unit_names, h->scn.unit_names, sizeof unit_names);
    if (n_units == 0)
        return 0;
    pcs_plant *p = NULL;
    if (pcs_plant_build(h->world, unit_cfg, n_units, &p) != PCS_OK ||
        pcs_plant_instrument(h->world, p, &h->scn.setpoints) != PCS_OK) {
        snprintf(err, err_len, "%s: $.units: %s", h->scn.source, pcs_last_error());
        return -1;
    }
    h->plant = p;
    return 0;
}

/* "u2" -> 2; "u2.pump3" -> 2 and element "pump3". */
static int parse_target(const char *target, uint32_t *unit, const char **element)
{
    char *end;
    if (target[0] != 'u')
        return -1;
    unsigned long u = strtoul(target + 1, &end, 10);
    if (end == target + 1 || u < 1 || u > n_units)
        return -1;
    *unit = (uint32_t)u;
    *element = *end == '.' ? end + 1 : (*end ? NULL : "");
    return *element ? 0 : -1;
}

static int bank_index(uint32_t unit, const char *name)
{
    const pcs_unit_config *c = &unit_cfg[unit - 1].core;
    for (uint32_t b = 0; b < c->n_banks; b++)
        if (strcmp(c->banks[b].name, name) == 0)
            return (int)b;
    return -1;
}

static int pump_index(uint32_t unit, const char *element)
{
    unsigned k;
    char tail;
    if (sscanf(element, "pump%u%c", &k, &tail) != 1 || k < 1 || k > unit_cfg[unit - 1].n_loops)
        return -1;
    return (int)k - 1;
}

typedef enum { ARG_UNIT, ARG_BANK, ARG_PUMP, ARG_SENSOR, ARG_ALARM, ARG_TRIP } target_form;

/* The value's range is the one the command's handler accepts (unit_commands.c,
 * hyd_build.c, alarm.c), so a script value the validator passes is never
 * rejected at run time; lo_open marks an open lower end. Commands without a
 * value keep the script's generic range (scenario.c). */
typedef struct action_def {
    const char *name;
    uint32_t kind;
    target_form form;
    const char *help;
    int has_range;
    double lo, hi;
    int lo_open;
    const char *what; /* the value, for the message */
} action_def;

#define NO_RANGE 0, 0.0, 0.0, 0, NULL
#define IF97_P_MIN_PA 611.212677 /* triple point: pcs_water_tsat's range */
#define IF97_P_MAX_PA 22064000.0 /* critical point */

static const action_def actions[] = {
    {"rod_position", PCS_UNIT_CMD_ROD_POSITION, ARG_BANK, "target uN.BANK, value position [0, 1]",
     1, 0.0, 1.0, 0, "position"},
    {"rod_speed", PCS_UNIT_CMD_ROD_SPEED, ARG_BANK, "target uN.BANK, value travel per s (0, 1]", 1,
     0.0, 1.0, 1, "travel per s"},
    {"scram", PCS_UNIT_CMD_SCRAM, ARG_UNIT, "target uN", NO_RANGE},
    {"reset", PCS_UNIT_CMD_RESET, ARG_UNIT, "target uN", NO_RANGE},
    {"boron", PCS_UNIT_CMD_BORON, ARG_UNIT, "target uN, value ppm [0, 10000]", 1, 0.0, 10000.0, 0,
     "ppm"},
    {"pump_trip", PCS_CMD_PUMP_TRIP, ARG_PUMP, "target uN.pumpK", NO_RANGE},
    {"pump_start", PCS_CMD_PUMP_START, ARG_PUMP,
     "target uN.pumpK, value speed fraction up to 1.5 (0 or less: rated)", 1, -1e12, 1.5, 0,
     "speed fraction"},
    {"pzr_heaters", PCS_CMD_PZR_HEATERS, ARG_UNIT, "target uN, value W [0, 1e9]", 1, 0.0, 1e9, 0,
     "W"},
    {"sg_pressure", PCS_CMD_SG_SECONDARY_T, ARG_UNIT, "target uN, value secondary pressure Pa", 1,
     IF97_P_MIN_PA, IF97_P_MAX_PA, 0, "secondary pressure Pa"},
    {"trip_reset", PCS_CMD_TRIP_RESET, ARG_UNIT, "target uN", NO_RANGE},
    {"trip_bypass", PCS_CMD_TRIP_BYPASS, ARG_TRIP,
     "target a trip function, e.g. u1.rps.high_flux; value a channel (0 = A) or -1 for all",
     NO_RANGE},
    {"sensor_fail_low", PCS_CMD_SENSOR_FAIL_LOW, ARG_SENSOR,
     "target a sensor, e.g. u1.loop1.flow.B", NO_RANGE},
    {"sensor_fail_high", PCS_CMD_SENSOR_FAIL_HIGH, ARG_SENSOR, "target a sensor", NO_RANGE},
    {"sensor_stuck", PCS_CMD_SENSOR_STUCK, ARG_SENSOR, "target a sensor", NO_RANGE},
    {"sensor_clear", PCS_CMD_SENSOR_CLEAR, ARG_SENSOR, "target a sensor", NO_RANGE},
    {"alarm_ack", PCS_CMD_ALARM_ACK, ARG_ALARM, "target an alarm, e.g. u2.alarm.flow_low.2",
     NO_RANGE},
    {"alarm_ack_all", PCS_CMD_ALARM_ACK_ALL, ARG_UNIT, "target uN (acknowledges every alarm)",
     NO_RANGE},
    {"alarm_shelve", PCS_CMD_ALARM_SHELVE, ARG_ALARM, "target an alarm, value shelf time s", 1, 0.0,
     PCS_ALARM_SHELVE_MAX_S, 0, "shelf time s"},
};

/* "<file>: $.script[i].value: value V is outside [lo, hi] (command: what)". */
static int check_value(const host *h, const action_def *d, double v, size_t index, char *err,
                       size_t err_len)
{
    if (!d->has_range)
        return 0;
    int lo_ok = d->lo_open ? v > d->lo : v >= d->lo;
    if (lo_ok && v <= d->hi)
        return 0;
    snprintf(err, err_len, "%s: $.script[%zu].value: value %g is outside %c%g, %g] (%s: %s)",
             h->scn.source, index, v, d->lo_open ? '(' : '[', d->lo, d->hi, d->name, d->what);
    return -1;
}

/* Sensor, alarm and trip-function targets are resolved by their channel names. */
static int find_named(const host *h, target_form form, const char *name, uint32_t *id)
{
    const pcs_plant *p = h->plant;
    if (form == ARG_SENSOR)
        return pcs_sensors_find(pcs_plant_sensors(p), name, id) == PCS_OK ? 0 : -1;
    if (form == ARG_ALARM)
        return pcs_alarms_find(pcs_plant_alarms(p), name, id) == PCS_OK ? 0 : -1;
    return pcs_protection_function_find(pcs_plant_protection(p), name, id) == PCS_OK ? 0 : -1;
}

static int fill_action(const action_def *d, uint32_t unit, const char *element, double value,
                       pcs_command *out, char *why, size_t len)
{
    memset(out, 0, sizeof *out);
    out->kind = d->kind;
    if (d->form == ARG_BANK) {
        int b = bank_index(unit, element);
        if (b < 0)
            return snprintf(why, len, "no control bank '%s' in u%u", element, unit), -1;
        out->target = unit;
        out->args[0] = b;
        out->args[1] = value;
    } else if (d->form == ARG_PUMP) {
        int k = pump_index(unit, element);
        if (k < 0)
            return snprintf(why, len, "no pump '%s' in u%u (pump1..pump%u)", element, unit,
                            unit_cfg[unit - 1].n_loops),
                   -1;
        out->target = PCS_HYD_TARGET(unit - 1, (uint32_t)k);
        out->args[0] = value;
    } else {
        out->target = (d->kind >= 32 && d->kind < 48) ? PCS_HYD_TARGET(unit - 1, 0)
                      : d->kind == PCS_CMD_TRIP_RESET ? unit - 1
                                                      : unit;
        out->args[0] = value;
    }
    if (d->kind == PCS_CMD_SG_SECONDARY_T &&
        pcs_water_tsat(value, &out->args[0]) != PCS_OK) /* pressure -> saturation T */
        return snprintf(why, len, "%s", pcs_last_error()), -1;
    return 0;
}

int plant_resolve_action(host *h, const scn_action *a, size_t index, pcs_command *out, char *err,
                         size_t err_len)
{
    const action_def *d = NULL;
    for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++)
        if (strcmp(actions[i].name, a->command) == 0)
            d = &actions[i];
    if (!d) {
        snprintf(err, err_len, "%s: $.script[%zu].command: unknown command '%s'", h->scn.source,
                 index, a->command);
        return -1;
    }
    if (check_value(h, d, a->value, index, err, err_len) != 0)
        return -1;
    uint32_t unit;
    const char *element;
    char why[300];
    if (d->form == ARG_SENSOR || d->form == ARG_ALARM || d->form == ARG_TRIP) {
        memset(out, 0, sizeof *out);
        out->kind = d->kind;
        out->args[0] = a->value;
        if (!h->plant || find_named(h, d->form, a->target, &out->target) != 0) {
            snprintf(err, err_len, "%s: $.script[%zu].target: no %s named '%s' (%s)", h->scn.source,
                     index,
                     d->form == ARG_SENSOR  ? "sensor"
                     : d->form == ARG_ALARM ? "alarm"
                                            : "trip function",
                     a->target, d->help);
            return -1;
        }
        /* A missing value would read as 0, channel A: a bypass that takes a
         * channel out of the trip logic must say which, or say -1 for all. */
        if (d->kind == PCS_CMD_TRIP_BYPASS && !a->has_value) {
            snprintf(err, err_len,
                     "%s: $.script[%zu].value: trip_bypass of '%s' needs a value: a channel "
                     "index (0 = channel A) or -1 to bypass the whole function",
                     h->scn.source, index, a->target);
            return -1;
        }
        return 0;
    }
    if (parse_target(a->target, &unit, &element) != 0 ||
        (d->form == ARG_UNIT && element[0] != '\0')) {
        snprintf(err, err_len,
                 "%s: $.script[%zu].target: '%s' is not a target of %s (%s; units "
                 "u1..u%u)",
                 h->scn.source, index, a->target, d->name, d->help, n_units);
        return -1;
    }
    if (fill_action(d, unit, element, a->value, out, why, sizeof why) != 0) {
        snprintf(err, err_len, "%s: $.script[%zu].target: %s", h->scn.source, index, why);
        return -1;
    }
    return 0;
}

void plant_timeline_channels(host *h)
{
    static const char *const per_unit[] = {"core.power",   "core.t_inlet", "loop1.t_hot",
                                           "rcs.pressure", "core.flow",    "rods.pos"};
    h->n_timeline = 0;
    for (uint32_t u = 1; u <= n_units; u++)
        for (size_t k = 0; k < sizeof per_unit / sizeof per_unit[0]; k++) {
            char name[64];
            uint32_t id;
            snprintf(name, sizeof name, "u%u.%s", u, per_unit[k]);
            if (h->n_timeline < HOST_MAX_TIMELINE &&
                pcs_channel_find(h->world, name, &id) == PCS_OK)
                h->timeline_channels[h->n_timeline++] = id;
        }
    h->timeline_per_line = sizeof per_unit / sizeof per_unit[0];
}

static const char *trip_cause(uint32_t bits)
{
    return (bits & PCS_UNIT_TRIP_MANUAL) ? "manual" : "protection";
}

/* Names come from the channel registry: trip functions and alarms publish
 * their state under their own names. */
static const char *function_name(const host *h, uint32_t id)
{
    return pcs_protection_function_name(pcs_plant_protection(h->plant), id);
}

static const char *alarm_name(const host *h, uint32_t id)
{
    return pcs_alarm_name(pcs_plant_alarms(h->plant), id);
}

/* PCS_EV_FUEL_RANGE's values (fuel.h) mean different things per flag: a
 * temperature and its limit, a count of clamped coolant property
 * evaluations, or a flow and its channel group. */
static void fuel_range_text(const pcs_event *ev, char *out, size_t len)
{
    const double *v = ev->values;
    unsigned u = ev->subject + 1;
    switch ((uint32_t)v[0]) {
    case PCS_FUEL_FLAG_FUEL_RANGE:
        snprintf(out, len, "u%u fuel temperature %g K is above the UO2 conductivity range (%g K)",
                 u, v[1], v[2]);
        break;
    case PCS_FUEL_FLAG_CLAD_RANGE:
        snprintf(out, len,
                 "u%u clad temperature %g K is above the Zircaloy conductivity range (%g K)", u,
                 v[1], v[2]);
        break;
    case PCS_FUEL_FLAG_COOLANT_RANGE:
        snprintf(out, len,
                 "u%u coolant properties clamped to their range in %g evaluations (core outlet "
                 "%g K)",
                 u, v[2], v[1]);
        break;
    case PCS_FUEL_FLAG_REVERSE_FLOW:
        snprintf(out, len, "u%u reverse flow %g kg/s in core channel group %g, used as 0", u, v[1],
                 v[3]);
        break;
    default:
        snprintf(out, len, "u%u fuel model range flag 0x%x: %g", u, (unsigned)v[0], v[1]);
    }
}

int plant_describe_event(const host *h, const pcs_event *ev, char *out, size_t len)
{
    const double *v = ev->values;
    switch (ev->kind) {
    case PCS_EV_COMMAND_REJECTED:
        return snprintf(out, len, "command kind %u from source (%g, %g) seq %g rejected: %s",
                        ev->subject, v[0], v[1], v[2], pcs_status_str((pcs_status)(int)v[3])),
               1;
    case PCS_EV_EVENT_OVERFLOW:
        return snprintf(out, len, "%g events dropped (event buffer full)", v[0]), 1;
    case PCS_EV_UNIT_SCRAM:
        return snprintf(out, len, "u%u SCRAM (%s, cause bits 0x%x) at %.1f MW, rho %.5f",
                        ev->subject, trip_cause((uint32_t)v[0]), (unsigned)v[0], v[1] / 1e6, v[2]),
               1;
    case PCS_EV_UNIT_SCRAM_RESET:
        return snprintf(out, len, "u%u scram reset", ev->subject), 1;
    case PCS_EV_UNIT_ROD_AT_LIMIT: /* bottom after a scram is implied by the SCRAM line */
        return v[1] > 0.5 ? (snprintf(out, len, "u%u rod bank %s fully withdrawn", ev->subject,
                                      unit_cfg[ev->subject - 1].core.banks[(int)v[0]].name),
                             1)
                          : 0;
    case PCS_EV_UNIT_OUT_OF_RANGE:
        return snprintf(out, len, "u%u value out of range (quantity %g): %g clamped to %g",
                        ev->subject, v[0], v[1], v[2]),
               1;
    case PCS_EV_PUMP_TRIPPED:
    case PCS_EV_PUMP_STARTED:
        return snprintf(out, len, "u%u pump%u %s at %.1f rad/s", (ev->subject >> 10) + 1,
                        (ev->subject & 1023u) + 1,
                        ev->kind == PCS_EV_PUMP_TRIPPED ? "TRIPPED" : "started", v[0]),
               1;
    case PCS_EV_UNIT_TRIP:
        return snprintf(out, len, "u%u REACTOR TRIP, first out: %s (setpoint %.5g, value %.5g)",
                        ev->subject + 1, function_name(h, (uint32_t)v[0]), v[1], v[2]),
               1;
    case PCS_EV_TRIP_FUNCTION:
        return snprintf(out, len,
                        "trip function %s: %g channels tripped (setpoint %.5g, value "
                        "%.5g)",
                        function_name(h, ev->subject), v[1], v[2], v[3]),
               1;
    case PCS_EV_TRIP_RESET:
        return snprintf(out, len, "u%u trip reset", ev->subject + 1), 1;
    case PCS_EV_ALARM_STATE:
        return snprintf(out, len, "alarm %s: %s -> %s (value %.5g)", alarm_name(h, ev->subject),
                        pcs_alarm_state_name((pcs_alarm_state)(int)v[1]),
                        pcs_alarm_state_name((pcs_alarm_state)(int)v[0]), v[3]),
               1;
    case PCS_EV_ALARM_FIRST_OUT:
        return snprintf(out, len, "alarm %s is first out of group %g", alarm_name(h, ev->subject),
                        v[0]),
               1;
    case PCS_EV_SENSOR_MODE:
        return snprintf(out, len, "sensor %u failure mode %g -> %g", ev->subject, v[1], v[0]), 1;
    case PCS_EV_FUEL_RANGE:
        return fuel_range_text(ev, out, len), 1;
    default:
        return 0;
    }
}
