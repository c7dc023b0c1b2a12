/**
 * @file station.c
 * @brief The station built from a scenario: "units" -> physics plant, command
 *        names -> engine command targets, event texts (pcsim/station.h).
 *
 * This is the one place that knows every model of the station; hosts see
 * only pcsim/station.h (docs/ARCHITECTURE.md section 1).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/alarm.h"
#include "pcsim/channel.h"
#include "pcsim/feedwater.h"
#include "pcsim/interlock.h"
#include "pcsim/plant.h"
#include "pcsim/plugin.h"
#include "pcsim/protection.h"
#include "pcsim/pzr_control.h"
#include "pcsim/rod_control.h"
#include "pcsim/sensor.h"
#include "pcsim/sg_control.h"
#include "pcsim/sg_porv.h"
#include "pcsim/steam_dump.h"
#include "pcsim/turbine.h"
#include "station/station_internal.h"

/* The station's models enter the world as two plugins (pcsim/plugin.h),
 * each owning the scenario section it is built from. Their ids and
 * priorities are part of the compatibility contract (the golden schedule
 * prints them); plant first, since the instruments read its stores. Both
 * only register: they have no step callbacks and no shutdown, so the
 * station may be destroyed before the world (the world keeps ctx but never
 * calls them again). The section text is passed as the contract says; the
 * station builds from the loader's checked copy of it (scenario_units.c),
 * which is the same section, already migrated and range-checked. */
static pcs_status plant_initialize(pcs_world *w, void *ctx, const char *section_json)
{
    (void)section_json;
    pcs_station *st = ctx;
    if (st->n_units == 0)
        return PCS_OK;
    const pcs_water_ph_table *table = NULL;
    const pcs_coolant_water *coolant = NULL;
    pcs_status rc = pcs_station_water_table(&table);
    if (rc == PCS_OK)
        rc = pcs_station_coolant_table(&coolant);
    for (uint32_t u = 0; rc == PCS_OK && u < st->n_all; u++) {
        st->units[u].primary.table = table;
        if (!st->units[u].fuel.props_fn) { /* real water, the table read only */
            st->units[u].fuel.props_fn = pcs_coolant_props_water;
            st->units[u].fuel.props_ctx = (void *)coolant;
        }
    }
    return rc == PCS_OK ? pcs_plant_add_staged(w, st->units, st->n_all, st->n_units, &st->plant)
                        : rc;
}

static pcs_status instrumentation_initialize(pcs_world *w, void *ctx, const char *section_json)
{
    (void)section_json;
    pcs_station *st = ctx;
    return st->plant ? pcs_plant_instrument(w, st->plant, &st->setpoints) : PCS_OK;
}

static const struct {
    const char *id;
    int32_t priority;
    const char *section;
    pcs_plugin_init_fn initialize;
} station_plugins[] = {
    {PCS_STATION_PLUGIN_PLANT, PCS_STATION_PLUGIN_PLANT_PRIORITY, "units", plant_initialize},
    {PCS_STATION_PLUGIN_INSTRUMENTATION, PCS_STATION_PLUGIN_INSTRUMENTATION_PRIORITY,
     "instrumentation", instrumentation_initialize},
};

/* Add one station plugin with its section's text (NULL when the scenario
 * leaves the section out). */
static pcs_status add_plugin(pcs_world *w, const pcs_scenario *scn, pcs_station *st, size_t i)
{
    size_t n = pcs_scenario_section_json(scn, station_plugins[i].section, NULL, 0);
    char *text = n ? malloc(n + 1) : NULL;
    if (n && !text)
        return pcs_error_set(PCS_E_NOMEM, "out of memory for section '%s'",
                             station_plugins[i].section);
    if (text)
        pcs_scenario_section_json(scn, station_plugins[i].section, text, n + 1);
    pcs_plugin_def def;
    pcs_plugin_default(&def);
    def.id = station_plugins[i].id;
    def.priority = station_plugins[i].priority;
    def.section = station_plugins[i].section;
    def.section_json = text;
    def.initialize = station_plugins[i].initialize;
    pcs_status rc = pcs_plugin_add(w, &def, st);
    free(text);
    return rc;
}

/* The station's own parts, added in this order once the plugins, the freeze
 * keeper and the sleep are in: its entity tables, its structural command
 * kinds, the unit add and the unit remove. */
static pcs_status (*const station_parts[])(pcs_station *st) = {
    pcs_station_entities_add,
    pcs_station_structure_add,
    pcs_station_units_add,
    pcs_station_unit_remove_add,
};

/* The scenario loader has read and checked the units and setpoints
 * (station/scenario_units.c); keep a copy for the name lookups below. */
pcs_status pcs_station_add(pcs_world *w, const pcs_scenario *scn, pcs_station **out)
{
    if (!w || !scn || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_station_add: NULL argument");
    *out = NULL;
    const scenario *s = &scn->s;
    pcs_station *st = calloc(1, sizeof *st + s->n_units * sizeof st->units[0]);
    if (!st)
        return pcs_error_set(PCS_E_NOMEM, "%s: out of memory for the station", scn->s.source);
    st->world = w;
    st->n_units = st->n_start = s->n_start;
    st->n_all = s->n_units;
    memcpy(st->units, s->units, s->n_units * sizeof st->units[0]);
    st->setpoints = s->setpoints;
    snprintf(st->source, sizeof st->source, "%s", s->source);
    st->first_channel = pcs_channel_count(w);
    for (size_t i = 0; i < sizeof station_plugins / sizeof station_plugins[0]; i++) {
        pcs_status rc = add_plugin(w, scn, st, i);
        if (rc != PCS_OK) {
            free(st);
            return pcs_error_set(rc, "%s: $.%s: %s", s->source, station_plugins[i].section,
                                 pcs_last_error());
        }
    }
    st->n_channels = pcs_channel_count(w) - st->first_channel;
    pcs_status rc = s->freeze ? pcs_station_freeze_add(w, st, &s->freeze_def) : PCS_OK;
    if (rc != PCS_OK) {
        free(st);
        return pcs_error_set(rc, "%s: $.freeze: %s", s->source, pcs_last_error());
    }
    rc = s->sleep ? pcs_station_sleep_add(w, st, &s->sleep_def) : PCS_OK;
    if (rc != PCS_OK) {
        free(st);
        return pcs_error_set(rc, "%s: $.sleep: %s", s->source, pcs_last_error());
    }
    for (size_t i = 0; rc == PCS_OK && i < sizeof station_parts / sizeof station_parts[0]; i++)
        rc = station_parts[i](st);
    if (rc != PCS_OK) {
        free(st->pump_pending);
        free(st);
        return pcs_error_set(rc, "%s: station entities: %s", s->source, pcs_last_error());
    }
    *out = st;
    return PCS_OK;
}

void pcs_station_destroy(pcs_station *st)
{
    if (st)
        free(st->pump_pending);
    free(st);
}

uint32_t pcs_station_unit_count(const pcs_station *st)
{
    return st ? st->n_units : 0;
}

const pcs_plant *pcs_station_plant(const pcs_station *st)
{
    return st ? st->plant : NULL;
}

void pcs_station_channels(const pcs_station *st, uint32_t *first, uint32_t *count)
{
    if (first)
        *first = st ? st->first_channel : 0;
    if (count)
        *count = st ? st->n_channels : 0;
}

/* "u2.pump3" -> 2 and element "pump3", for messages about a target that
 * does not resolve; 0 when the name does not start with a unit of the plant. */
static uint32_t unit_of(const pcs_station *st, const char *target, const char **element)
{
    char *end;
    if (target[0] != 'u' || target[1] < '0' || target[1] > '9')
        return 0;
    unsigned long u = strtoul(target + 1, &end, 10);
    if (u < 1 || u > st->n_units || *end != '.')
        return 0;
    *element = end + 1;
    return (uint32_t)u;
}

typedef enum { ARG_UNIT, ARG_BANK, ARG_PUMP, ARG_SENSOR, ARG_ALARM, ARG_TRIP } target_form;

/* Each script command is an op of a model's command family; its target is
 * resolved by name (pcs_command_target_find), and the engine says whether
 * the target takes that op. The value's range is the one the handler accepts
 * (unit_commands.c, plant_commands.c, pzr_control_cmd.c, alarm.c), so a script value the validator
 * passes is never rejected at run time; lo_open marks an open lower end.
 * Commands without a value keep the script's generic range (scenario.c). */
typedef struct action_def {
    const char *name;
    const char *family;
    uint32_t op;
    target_form form;
    const char *help;
    int has_range;
    double lo, hi;
    int lo_open;
    const char *what;    /* the value, for the message */
    unsigned value_rule; /* VALUE_* below: what the value must be beyond its range */
} action_def;

/* A value with no meaningful default must be given (a missing one reads as
 * 0 and would be applied: a turbine load of 0, the condenser lost); some
 * values are whole numbers (a pump) or flags (0 or 1: a fraction would pass
 * the range and be refused by the model's handler only at run time). */
enum { VALUE_REQUIRED = 1u, VALUE_WHOLE = 2u, VALUE_FLAG = 4u };

#define NO_RANGE 0, 0.0, 0.0, 0, NULL, 0
#define IF97_P_MIN_PA 611.212677 /* triple point: pcs_water_tsat's range */
#define IF97_P_MAX_PA 22064000.0 /* critical point */
#define UNITS PCS_UNIT_COMMANDS
#define PRIMARY PCS_PRIMARY_COMMANDS
#define PLANT PCS_PLANT_COMMANDS
#define PZR PCS_PZR_CONTROL_COMMANDS
#define TURBINE PCS_TURBINE_COMMANDS

static const action_def actions[] = {
    {"rod_position", UNITS, PCS_UNIT_OP_ROD_POSITION, ARG_BANK,
     "target uN.BANK, value position [0, 1]", 1, 0.0, 1.0, 0, "position", 0},
    {"rod_speed", UNITS, PCS_UNIT_OP_ROD_SPEED, ARG_BANK,
     "target uN.BANK, value travel per s (0, 1]", 1, 0.0, 1.0, 1, "travel per s", 0},
    {"scram", UNITS, PCS_UNIT_OP_SCRAM, ARG_UNIT, "target uN", NO_RANGE},
    {"reset", UNITS, PCS_UNIT_OP_RESET, ARG_UNIT, "target uN", NO_RANGE},
    {"boron", PZR, PCS_PZR_CONTROL_OP_CHARGING_BORON, ARG_UNIT,
     "target uN, value charging-water boron ppm [0, 10000] (boration or dilution)", 1, 0.0, 10000.0,
     0, "ppm", 0},
    {"pump_trip", PRIMARY, PCS_PRIMARY_OP_PUMP_TRIP, ARG_PUMP, "target uN.pumpK", NO_RANGE},
    {"pump_start", PRIMARY, PCS_PRIMARY_OP_PUMP_START, ARG_PUMP,
     "target uN.pumpK (motor on: the pump runs up on its motor)", NO_RANGE},
    {"pzr_heaters", PZR, PCS_PZR_CONTROL_OP_HEATERS, ARG_UNIT,
     "target uN, value heater power W [0, 1794000] (heaters to manual)", 1, 0.0, 1.794e6, 0, "W",
     0},
    {"pzr_spray", PZR, PCS_PZR_CONTROL_OP_SPRAY, ARG_UNIT,
     "target uN, value spray demand [0, 1] (sprays to manual)", 1, 0.0, 1.0, 0, "demand", 0},
    {"pzr_auto", PZR, PCS_PZR_CONTROL_OP_PRESSURE_AUTO, ARG_UNIT,
     "target uN (pressure control back to auto)", NO_RANGE},
    {"charging", PZR, PCS_PZR_CONTROL_OP_CHARGING, ARG_UNIT,
     "target uN, value charging flow kg/s [0, 9.3308] (level control to manual)", 1, 0.0, 9.3308, 0,
     "kg/s", 0},
    {"level_auto", PZR, PCS_PZR_CONTROL_OP_LEVEL_AUTO, ARG_UNIT,
     "target uN (level control back to auto)", NO_RANGE},
    {"letdown", PZR, PCS_PZR_CONTROL_OP_LETDOWN, ARG_UNIT,
     "target uN, value letdown flow kg/s [0, 12.13]", 1, 0.0, 12.13, 0, "kg/s", 0},
    {"sg_pressure", PLANT, PCS_PLANT_OP_SG_PRESSURE, ARG_UNIT,
     "target uN, value secondary pressure Pa", 1, IF97_P_MIN_PA, IF97_P_MAX_PA, 0,
     "secondary pressure Pa", 0},
    {"turbine_valve", TURBINE, PCS_TURBINE_OP_VALVE, ARG_UNIT,
     "target uN (a unit with sg_model steam_side), value turbine valve opening target [0, 1], "
     "moved at the governor's rate limit (governor to manual)",
     1, 0.0, 1.0, 0, "opening", VALUE_REQUIRED},
    {"turbine_load", TURBINE, PCS_TURBINE_OP_LOAD, ARG_UNIT,
     "target uN (steam_side), value load target [0, 1.1] of rated (governor to auto; a change "
     "of at most 10 % is a step, more ramps at 5 %/min)",
     1, 0.0, PCS_TURBINE_LOAD_MAX, 0, "load fraction", VALUE_REQUIRED},
    {"turbine_runback", TURBINE, PCS_TURBINE_OP_RUNBACK, ARG_UNIT,
     "target uN (steam_side), value load [0, 1.1] reached at the runback rate", 1, 0.0,
     PCS_TURBINE_LOAD_MAX, 0, "load fraction", VALUE_REQUIRED},
    {"turbine_trip", TURBINE, PCS_TURBINE_OP_TRIP, ARG_UNIT, "target uN (steam_side)", NO_RANGE},
    {"turbine_reset", TURBINE, PCS_TURBINE_OP_RESET, ARG_UNIT,
     "target uN (steam_side; refused while a trip demand stands)", NO_RANGE},
    {"generator_mode", TURBINE, PCS_TURBINE_OP_GENERATOR_MODE, ARG_UNIT,
     "target uN (steam_side), value 0 grid or 1 islanded", 1, 0.0, 1.0, 0, "mode",
     VALUE_REQUIRED | VALUE_FLAG},
    {"generator_load_torque", TURBINE, PCS_TURBINE_OP_LOAD_TORQUE, ARG_UNIT,
     "target uN (steam_side), value islanded load torque N m [0, 1e8]", 1, 0.0,
     PCS_TURBINE_TORQUE_MAX, 0, "N m", VALUE_REQUIRED},
    {"generator_load_power", TURBINE, PCS_TURBINE_OP_LOAD_POWER, ARG_UNIT,
     "target uN (steam_side), value islanded power demand W [0, 1e10]", 1, 0.0,
     PCS_TURBINE_POWER_MAX, 0, "W", VALUE_REQUIRED},
    {"rod_manual", PCS_ROD_CONTROL_COMMANDS, PCS_ROD_CONTROL_OP_MANUAL, ARG_UNIT,
     "target uN (a steam_side unit): rod control to manual, banks to rod_position", NO_RANGE},
    {"rod_auto", PCS_ROD_CONTROL_COMMANDS, PCS_ROD_CONTROL_OP_AUTO, ARG_UNIT,
     "target uN (a steam_side unit): rod control back to the Tavg program", NO_RANGE},
    {"dump_manual", PCS_STEAM_DUMP_COMMANDS, PCS_STEAM_DUMP_OP_MANUAL, ARG_UNIT,
     "target uN (a steam_side unit), value steam dump demand [0, 1] (dumps to manual)", 1, 0.0, 1.0,
     0, "demand", VALUE_REQUIRED},
    {"dump_auto", PCS_STEAM_DUMP_COMMANDS, PCS_STEAM_DUMP_OP_AUTO, ARG_UNIT,
     "target uN (a steam_side unit): steam dumps back to auto", NO_RANGE},
    {"dump_tavg_mode", PCS_STEAM_DUMP_COMMANDS, PCS_STEAM_DUMP_OP_TAVG_MODE, ARG_UNIT,
     "target uN (a steam_side unit): steam dumps on Tavg (load-rejection / plant-trip)", NO_RANGE},
    {"dump_pressure_mode", PCS_STEAM_DUMP_COMMANDS, PCS_STEAM_DUMP_OP_PRESSURE_MODE, ARG_UNIT,
     "target uN (a steam_side unit): steam dumps on header pressure (their setpoint: 1092 psig, or "
     "at a hot-zero-power build the pressure it settled at)",
     NO_RANGE},
    {"sg_porv_manual", PCS_SG_PORV_COMMANDS, PCS_SG_PORV_OP_MANUAL, ARG_UNIT,
     "target uN (every SG's atmospheric relief valve) or uN.porvK (SG K's; a steam_side unit), "
     "value opening [0, 1] (the valve to manual, moved at its stroke rate)",
     1, 0.0, 1.0, 0, "opening", VALUE_REQUIRED},
    {"sg_porv_auto", PCS_SG_PORV_COMMANDS, PCS_SG_PORV_OP_AUTO, ARG_UNIT,
     "target uN or uN.porvK (steam_side): the SG atmospheric relief valve back to its 1125 psig "
     "pressure control, bumpless",
     NO_RANGE},
    {"feed_bypass", PCS_SG_CONTROL_COMMANDS, PCS_SG_CONTROL_OP_BYPASS, ARG_UNIT,
     "target uN (steam_side), value SG 1..4, 0 or none for all: its level control to the bypass "
     "feed valves, level only (the operator's shift below ~20 % power, [HRTD] 7.2), bumpless",
     1, 0.0, (double)PCS_PLANT_MAX_LOOPS, 0, "SG", VALUE_WHOLE},
    {"feed_main", PCS_SG_CONTROL_COMMANDS, PCS_SG_CONTROL_OP_MAIN, ARG_UNIT,
     "target uN (steam_side), value SG 1..4, 0 or none for all: its level control back to the "
     "main feed regulating valves (three-element), bumpless",
     1, 0.0, (double)PCS_PLANT_MAX_LOOPS, 0, "SG", VALUE_WHOLE},
    {"feed_pump_trip", PCS_FEEDWATER_COMMANDS, PCS_FEEDWATER_OP_MFP_TRIP, ARG_UNIT,
     "target uN (sg_model steam_side), value main feed pump 1 or 2, 0 or none for both", 1, 0.0,
     2.0, 0, "pump", VALUE_WHOLE},
    {"feed_pump_start", PCS_FEEDWATER_COMMANDS, PCS_FEEDWATER_OP_MFP_START, ARG_UNIT,
     "target uN (sg_model steam_side), value main feed pump 1 or 2, 0 or none for both", 1, 0.0,
     2.0, 0, "pump", VALUE_WHOLE},
    {"afw_start", PCS_FEEDWATER_COMMANDS, PCS_FEEDWATER_OP_AFW_START, ARG_UNIT,
     "target uN (sg_model steam_side): every auxiliary feed pump", NO_RANGE},
    {"afw_stop", PCS_FEEDWATER_COMMANDS, PCS_FEEDWATER_OP_AFW_STOP, ARG_UNIT,
     "target uN (sg_model steam_side): every auxiliary feed pump", NO_RANGE},
    {"c7_reset", PCS_INTERLOCK_COMMANDS, PCS_INTERLOCK_OP_C7_RESET, ARG_UNIT,
     "target uN (a unit with sg_model steam_side): clear the C-7 loss-of-load latch", NO_RANGE},
    {"condenser_available", PCS_INTERLOCK_COMMANDS, PCS_INTERLOCK_OP_CONDENSER, ARG_UNIT,
     "target uN (a unit with sg_model steam_side), value 1 condenser available (C-9) or 0", 1, 0.0,
     1.0, 0, "C-9 flag", VALUE_REQUIRED | VALUE_FLAG},
    {"si_reset", PCS_INTERLOCK_COMMANDS, PCS_INTERLOCK_OP_SI_RESET, ARG_UNIT,
     "target uN (a unit with sg_model steam_side): clear the SI and steam line isolation latches",
     NO_RANGE},
    {"msiv_close", PCS_MSIV_COMMANDS, PCS_MSIV_OP_CLOSE, ARG_UNIT,
     "target uN (every MSIV) or uN.msivK (one; a unit with sg_model steam_side)", NO_RANGE},
    {"msiv_open", PCS_MSIV_COMMANDS, PCS_MSIV_OP_OPEN, ARG_UNIT,
     "target uN (every MSIV) or uN.msivK (one; a unit with sg_model steam_side)", NO_RANGE},
    {"steam_line_break", PCS_SECONDARY_COMMANDS, PCS_SECONDARY_OP_STEAM_LINE_BREAK, ARG_UNIT,
     "target uN.sgK (steam_side), value break area m2 [0, 0.3848] (up to the default 0.70 m "
     "line's bore; 0 closes it)",
     1, 0.0, 0.3848, 0, "break area m2", VALUE_REQUIRED},
    {"trip_reset", PCS_PROTECTION_TRIP_COMMANDS, PCS_PROTECTION_TRIP_OP_RESET, ARG_UNIT,
     "target uN", NO_RANGE},
    {"trip_bypass", PCS_PROTECTION_TRIP_COMMANDS, PCS_PROTECTION_TRIP_OP_BYPASS, ARG_TRIP,
     "target a trip function, e.g. u1.rps.high_flux; value a channel (0 = A) or -1 for all",
     NO_RANGE},
    {"sensor_fail_low", PCS_SENSOR_COMMANDS, PCS_SENSOR_OP_FAIL_LOW, ARG_SENSOR,
     "target a sensor, e.g. u1.loop1.flow.B", NO_RANGE},
    {"sensor_fail_high", PCS_SENSOR_COMMANDS, PCS_SENSOR_OP_FAIL_HIGH, ARG_SENSOR,
     "target a sensor", NO_RANGE},
    {"sensor_stuck", PCS_SENSOR_COMMANDS, PCS_SENSOR_OP_STUCK, ARG_SENSOR, "target a sensor",
     NO_RANGE},
    {"sensor_clear", PCS_SENSOR_COMMANDS, PCS_SENSOR_OP_CLEAR, ARG_SENSOR, "target a sensor",
     NO_RANGE},
    {"alarm_ack", PCS_ALARM_COMMANDS, PCS_ALARM_OP_ACK, ARG_ALARM,
     "target an alarm, e.g. u2.alarm.flow_low.2", NO_RANGE},
    {"alarm_ack_all", PCS_ALARM_COMMANDS, PCS_ALARM_OP_ACK_ALL, ARG_UNIT,
     "target uN (acknowledges every alarm)", NO_RANGE},
    {"alarm_shelve", PCS_ALARM_COMMANDS, PCS_ALARM_OP_SHELVE, ARG_ALARM,
     "target an alarm, value shelf time s", 1, 0.0, PCS_ALARM_SHELVE_MAX_S, 0, "shelf time s", 0},
    {"freeze", PCS_STATION_FREEZE_COMMANDS, PCS_STATION_FREEZE_OP_FREEZE, ARG_UNIT,
     "target uN (a scenario with a \"freeze\" section): stop the unit, state kept", NO_RANGE},
    {"thaw", PCS_STATION_FREEZE_COMMANDS, PCS_STATION_FREEZE_OP_THAW, ARG_UNIT,
     "target uN (frozen for at least 20 ticks), value extra s [0, 1e12] added to the frozen time "
     "(decay heat and xenon advance in closed form)",
     1, 0.0, 1e12, 0, "extra s", 0},
    {"pump_remove", NULL, 0, ARG_UNIT,
     "target uN.pumpK: a structural change, the pump taken out of its loop at the end of the "
     "tick (its entity, command target and channel go)",
     NO_RANGE},
    {"pump_install", NULL, 0, ARG_UNIT,
     "target uN.pumpK (a removed pump): put back stopped at the end of the tick (new entity, "
     "target and channel; pump_start runs it up)",
     NO_RANGE},
    {"unit_add", NULL, 0, ARG_UNIT,
     "target uN (a unit with \"build\": \"later\"): build it at the tick boundary, steady at its "
     "initial power",
     NO_RANGE},
    {"unit_remove", NULL, 0, ARG_UNIT,
     "target uN (a running unit, not the last): take it out at the tick boundary (its systems, "
     "jobs, channels, targets and entities go; its stores stay; it does not come back)",
     NO_RANGE},
};

/* Rows with no family are structural commands (pcsim/structure.h): no
 * family and no target, resolved and given their kind by their own file:
 * pump_remove and pump_install station_structure.c, unit_add
 * station_units.c. */
static pcs_status structural_resolve(const pcs_station *st, const action_def *d, const char *where,
                                     const char *target, pcs_command *out)
{
    int pump = pcs_station_pump_command(d->name);
    if (pump >= 0)
        return pcs_station_pump_resolve(st, pump, where, target, out);
    if (strcmp(d->name, "unit_remove") == 0)
        return pcs_station_unit_remove_resolve(st, where, target, out);
    return pcs_station_unit_add_resolve(st, where, target, out);
}

/* unit_remove's kind, as its resolve on u1 gives it (or its error). */
static pcs_status unit_remove_kind(const pcs_station *st, uint32_t *kind)
{
    pcs_command c;
    pcs_status rc = pcs_station_unit_remove_resolve(st, st->source, "u1", &c);
    if (rc == PCS_OK)
        *kind = c.kind;
    return rc;
}

static pcs_status structural_kind(const pcs_station *st, const action_def *d, uint32_t *kind)
{
    int pump = pcs_station_pump_command(d->name);
    if (pump < 0)
        return strcmp(d->name, "unit_remove") == 0 ? unit_remove_kind(st, kind)
                                                   : pcs_station_unit_add_kind(st, kind);
    if (!st->plant)
        return pcs_error_set(PCS_E_NOTFOUND, "%s: '%s' needs units (the scenario has none)",
                             st->source, d->name);
    *kind = pcs_station_pump_command_kind((uint32_t)pump);
    return PCS_OK;
}

/* Where a message points: "<file>: $.script[i].<field>" for a script
 * action, "<source>: <field>" for a host's pcs_station_command. */
typedef struct where {
    const char *source;
    size_t index; /* SIZE_MAX: not a script action */
} where;

static void where_text(const where *at, const char *field, char *out, size_t len)
{
    if (at->index == SIZE_MAX)
        snprintf(out, len, "%s: %s", at->source, field);
    else
        snprintf(out, len, "%s: $.script[%zu].%s", at->source, at->index, field);
}

/* "<where>.value: value V is outside [lo, hi] (command: what)". */
static pcs_status check_value(const where *at, const action_def *d, double v)
{
    if (!d->has_range)
        return PCS_OK;
    int lo_ok = d->lo_open ? v > d->lo : v >= d->lo;
    if (lo_ok && v <= d->hi)
        return PCS_OK;
    char w[320];
    where_text(at, "value", w, sizeof w);
    return pcs_error_set(PCS_E_INVAL, "%s: value %g is outside %c%g, %g] (%s: %s)", w, v,
                         d->lo_open ? '(' : '[', d->lo, d->hi, d->name, d->what);
}

/* Kind and target id of @p d on @p name, or -1 when the world has no such
 * family (no plant), no such target, or a target that does not take the op. */
static int resolve_target(const pcs_station *st, const action_def *d, const char *name,
                          pcs_command *out)
{
    uint32_t kind;
    pcs_target_id id;
    if (pcs_command_kind_find(st->world, d->family, d->op, &kind) != PCS_OK ||
        pcs_command_target_find(st->world, name, &id) != PCS_OK ||
        pcs_command_target_check(st->world, id, kind) != PCS_OK)
        return -1;
    memset(out, 0, sizeof *out);
    out->kind = kind;
    out->target = pcs_target_id_store(id);
    return 0;
}

/* "<where>.target: ..." for a target @p d cannot act on, in the words of
 * its form: "no pump 'pump9' in u1 (pump1..pump4)", "no sensor named 'X'". */
static pcs_status target_error(const pcs_station *st, const where *at, const action_def *d,
                               const char *target)
{
    const char *element = NULL;
    uint32_t unit = unit_of(st, target, &element);
    static const char *const what[] = {
        [ARG_SENSOR] = "sensor", [ARG_ALARM] = "alarm", [ARG_TRIP] = "trip function"};
    char w[320];
    where_text(at, "target", w, sizeof w);
    if (unit && !pcs_station_unit_running(st, unit))
        return pcs_error_set(PCS_E_NOTFOUND, "%s: '%s': u%u was removed (unit_remove)", w, target,
                             unit);
    if (d->form == ARG_SENSOR || d->form == ARG_ALARM || d->form == ARG_TRIP)
        return pcs_error_set(PCS_E_NOTFOUND, "%s: no %s named '%s' (%s)", w, what[d->form], target,
                             d->help);
    if (d->form == ARG_BANK && unit)
        return pcs_error_set(PCS_E_NOTFOUND, "%s: no control bank '%s' in u%u", w, element, unit);
    unsigned k = 0;
    int used = 0;
    uint32_t n_pumps = unit && st->units[unit - 1].model != PCS_PLANT_MODEL_SUMMARY
                           ? st->units[unit - 1].primary.n_loops
                           : 0; /* a summary unit has no pumps */
    if (d->form == ARG_PUMP && unit && sscanf(element, "pump%u%n", &k, &used) == 1 &&
        element[used] == '\0' && k >= 1 && k <= n_pumps)
        return pcs_error_set(PCS_E_NOTFOUND,
                             "%s: u%u.pump%u is removed (pump_install puts it back)", w, unit, k);
    if (d->form == ARG_PUMP && unit)
        return pcs_error_set(PCS_E_NOTFOUND, "%s: no pump '%s' in u%u (pump1..pump%u)", w, element,
                             unit, n_pumps);
    return pcs_error_set(PCS_E_NOTFOUND, "%s: '%s' is not a target of %s (%s; units u1..u%u)", w,
                         target, d->name, d->help, st->n_units);
}

/* The row's VALUE_* rule, after its range (check_value). */
static pcs_status check_rule(const where *at, const action_def *d, const char *target, double value,
                             int has_value)
{
    char w[320];
    where_text(at, "value", w, sizeof w);
    if ((d->value_rule & VALUE_REQUIRED) && !has_value)
        return pcs_error_set(PCS_E_INVAL, "%s: %s of '%s' needs a value (%s)", w, d->name, target,
                             d->help);
    if ((d->value_rule & VALUE_FLAG) && value != 0.0 && value != 1.0)
        return pcs_error_set(PCS_E_INVAL, "%s: value %g is neither 0 nor 1 (%s: %s)", w, value,
                             d->name, d->help);
    if ((d->value_rule & VALUE_WHOLE) && value != floor(value))
        return pcs_error_set(PCS_E_INVAL, "%s: value %g is not a whole number (%s: %s)", w, value,
                             d->name, d->what);
    return PCS_OK;
}

static pcs_status resolve(const pcs_station *st, const where *at, const char *command,
                          const char *target, double value, int has_value, pcs_command *out)
{
    const action_def *d = NULL;
    for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++)
        if (strcmp(actions[i].name, command) == 0)
            d = &actions[i];
    char w[320];
    if (!d) {
        where_text(at, "command", w, sizeof w);
        return pcs_error_set(PCS_E_NOTFOUND, "%s: unknown command '%s'", w, command);
    }
    if (!d->family) {
        where_text(at, "target", w, sizeof w);
        return structural_resolve(st, d, w, target, out);
    }
    if (check_value(at, d, value) != PCS_OK)
        return PCS_E_INVAL;
    if (resolve_target(st, d, target, out) != 0)
        return target_error(st, at, d, target);
    /* A missing value would read as 0, channel A: a bypass that takes a
     * channel out of the trip logic must say which, or say -1 for all. */
    if (strcmp(d->name, "trip_bypass") == 0 && !has_value) {
        where_text(at, "value", w, sizeof w);
        return pcs_error_set(PCS_E_INVAL,
                             "%s: trip_bypass of '%s' needs a value: a channel "
                             "index (0 = channel A) or -1 to bypass the whole function",
                             w, target);
    }
    if (check_rule(at, d, target, value, has_value) != PCS_OK)
        return PCS_E_INVAL;
    out->args[0] = value;
    return PCS_OK;
}

pcs_status pcs_station_command(const pcs_station *st, const char *target, const char *command,
                               double value, pcs_command *out)
{
    if (!st || !target || !command || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_station_command: NULL argument");
    where at = {st->source, SIZE_MAX};
    return resolve(st, &at, command, target, value, 1, out);
}

pcs_status pcs_station_script_command(const pcs_station *st, const pcs_scenario *s, uint32_t index,
                                      pcs_command *out)
{
    if (!st || !s || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_station_script_command: NULL argument");
    if (index >= s->s.n_script)
        return pcs_error_set(PCS_E_INVAL, "%s: $.script[%u]: no such action (%u actions)",
                             s->s.source, index, s->s.n_script);
    const scn_action *a = &s->s.script[index];
    where at = {s->s.source, index};
    return resolve(st, &at, a->command, a->target, a->value, a->has_value, out);
}

#define N_ACTIONS ((uint32_t)(sizeof actions / sizeof actions[0]))

uint32_t pcs_station_command_name_count(void)
{
    return N_ACTIONS;
}

const char *pcs_station_command_name(uint32_t i)
{
    return i < N_ACTIONS ? actions[i].name : NULL;
}

pcs_status pcs_station_command_kind(const pcs_station *st, const char *command, uint32_t *kind)
{
    if (!st || !command || !kind)
        return pcs_error_set(PCS_E_INVAL, "pcs_station_command_kind: NULL argument");
    for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++)
        if (strcmp(actions[i].name, command) == 0)
            return actions[i].family
                       ? pcs_command_kind_find(st->world, actions[i].family, actions[i].op, kind)
                       : structural_kind(st, &actions[i], kind);
    return pcs_error_set(PCS_E_NOTFOUND, "%s: unknown command '%s'", st->source, command);
}

/* Bank @p index of unit @p unit (1-based), "?" for numbers the build did not
 * make: an event's fields are not trusted to index the configuration. */
static const char *bank_name(const pcs_station *st, uint32_t unit, double index)
{
    if (unit < 1 || unit > st->n_units || !(index >= 0.0) ||
        index >= (double)st->units[unit - 1].core.n_banks)
        return "?";
    return st->units[unit - 1].core.banks[(size_t)index].name;
}

static const char *trip_cause(uint32_t bits)
{
    return (bits & PCS_UNIT_TRIP_MANUAL) ? "manual" : "protection";
}

/* Names come from the channel registry: trip functions and alarms publish
 * their state under their own names. */
static const char *function_name(const pcs_station *st, uint32_t id)
{
    return st->plant ? pcs_plant_event_function_name(st->plant, id) : "?";
}

static const char *alarm_name(const pcs_station *st, uint32_t id)
{
    return st->plant ? pcs_plant_event_alarm_name(st->plant, id) : "?";
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

/* The station's name of command kind @p kind ("pump_remove"), or NULL: a
 * rejection names the command, not only a number of this build. */
static const char *kind_name(const pcs_station *st, uint32_t kind)
{
    uint32_t k;
    for (uint32_t i = 0; i < pcs_station_command_name_count(); i++)
        if (pcs_station_command_kind(st, pcs_station_command_name(i), &k) == PCS_OK && k == kind)
            return pcs_station_command_name(i);
    return NULL;
}

int pcs_event_describe(const pcs_station *st, const pcs_event *ev, char *out, size_t len)
{
    if (!st || !ev || !out || len == 0)
        return 0;
    const double *v = ev->values;
    switch (ev->kind) {
    case PCS_EV_COMMAND_REJECTED: {
        const char *name = kind_name(st, ev->subject);
        return snprintf(out, len, "%s%s(kind %u) from source (%g, %g) seq %g rejected: %s",
                        name ? name : "command ", name ? " " : "", ev->subject, v[0], v[1], v[2],
                        pcs_status_str((pcs_status)(int)v[3])),
               1;
    }
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
                                      bank_name(st, ev->subject, v[0])),
                             1)
                          : 0;
    case PCS_EV_UNIT_OUT_OF_RANGE:
        return snprintf(out, len, "u%u value out of range (quantity %g): %g clamped to %g",
                        ev->subject, v[0], v[1], v[2]),
               1;
    case PCS_EV_PRIMARY_PUMP_TRIPPED:
    case PCS_EV_PRIMARY_PUMP_STARTED:
        return snprintf(out, len, "u%u pump%u %s at %.1f rad/s", (ev->subject >> 10) + 1,
                        (ev->subject & 1023u) + 1,
                        ev->kind == PCS_EV_PRIMARY_PUMP_TRIPPED ? "TRIPPED" : "started", v[0]),
               1;
    case PCS_EV_PRIMARY_PUMP_REMOVED:
        return snprintf(out, len,
                        "u%u pump%u REMOVED at %.1f rad/s, %.0f kg/s (structural change, applied "
                        "at the end of this tick)",
                        (ev->subject >> 10) + 1, (ev->subject & 1023u) + 1, v[0], v[1]),
               1;
    case PCS_EV_PRIMARY_PUMP_INSTALLED:
        return snprintf(out, len,
                        "u%u pump%u INSTALLED, stopped (structural change, applied at the end of "
                        "this tick; pump_start runs it up)",
                        (ev->subject >> 10) + 1, (ev->subject & 1023u) + 1),
               1;
    case PCS_EV_PRIMARY_COURANT:
        return snprintf(out, len,
                        "u%u primary: Courant number %.3g in volume %g (above 1: the time step is "
                        "too long for this flow)",
                        ev->subject + 1, v[0], v[1]),
               1;
    case PCS_EV_UNIT_TRIP:
        return snprintf(out, len, "u%u REACTOR TRIP, first out: %s (setpoint %.5g, value %.5g)",
                        ev->subject + 1, function_name(st, (uint32_t)v[0]), v[1], v[2]),
               1;
    case PCS_EV_TRIP_FUNCTION:
        return snprintf(out, len,
                        "trip function %s: %g channels tripped (setpoint %.5g, value "
                        "%.5g)",
                        function_name(st, ev->subject), v[1], v[2], v[3]),
               1;
    case PCS_EV_TRIP_RESET:
        return snprintf(out, len, "u%u trip reset", ev->subject + 1), 1;
    case PCS_EV_ALARM_STATE:
        return snprintf(out, len, "alarm %s: %s -> %s (value %.5g)", alarm_name(st, ev->subject),
                        pcs_alarm_state_name((pcs_alarm_state)(int)v[1]),
                        pcs_alarm_state_name((pcs_alarm_state)(int)v[0]), v[3]),
               1;
    case PCS_EV_ALARM_FIRST_OUT:
        return snprintf(out, len, "alarm %s is first out of group %g", alarm_name(st, ev->subject),
                        v[0]),
               1;
    case PCS_EV_SENSOR_MODE:
        return snprintf(out, len, "sensor %u failure mode %g -> %g", ev->subject, v[1], v[0]), 1;
    case PCS_EV_FUEL_RANGE:
        return fuel_range_text(ev, out, len), 1;
    case PCS_EV_STATION_UNIT_ADD:
        return snprintf(out, len,
                        "u%u unit_add: built at the end of this tick at %.0f %% of %.1f MW, %g "
                        "loops (its systems run from the next tick)",
                        ev->subject, 100.0 * v[0], v[1] / 1e6, v[2]),
               1;
    case PCS_EV_STATION_UNIT_REMOVE:
        return snprintf(out, len,
                        "u%u unit_remove: removed at the end of this tick at %.1f MW (%.0f %%; "
                        "units still running: %g; its systems stop, its state is kept)",
                        ev->subject, v[0] / 1e6, 100.0 * v[1], v[2]),
               1;
    case PCS_EV_STATION_FREEZE:
        return snprintf(out, len, "u%u FROZEN (its systems and slow jobs stop, its state held)",
                        ev->subject),
               1;
    case PCS_EV_STATION_THAW:
        return snprintf(out, len,
                        "u%u THAWED after %.1f s frozen (decay heat and I/Xe/Sm advanced in "
                        "closed form)",
                        ev->subject, v[0]),
               1;
    default:
        return 0;
    }
}
