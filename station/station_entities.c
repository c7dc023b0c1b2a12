/**
 * @file station_entities.c
 * @brief The station's devices as entities (pcsim/entity.h): units, reactor
 *        coolant pumps, valves, sensors and alarms, by their command-target
 *        names.
 *
 * The station is the one place that knows every model, so it is the one
 * that lists the devices; the models themselves are untouched (no model's
 * store or registration changes). The table itself is state: the state
 * hash folds it in and saves carry it (pcsim/entity.h), so a device added
 * here moves the hash of every station that has it. Each name registered is
 * first resolved as a command target, so an entity's name is always one a
 * command can use. Order: each unit followed by its pumps and its valves,
 * then the sensors in channel order, then the alarms in alarm order; ids
 * follow it, so the same scenario gives the same ids and handles, and a unit
 * added while running gets its devices in the order a unit of the start has.
 *
 * Valves: one entity per modelled valve position that a command target
 * names alone (pcsim/station.h, PCS_STATION_ENTITY_VALVE, lists them and the
 * valves left out). The (store, row) is that of the channel publishing the
 * position, found by name; a valve without that channel gets
 * PCS_ENTITY_NO_STORE. Group targets ("uN.msiv", "uN.porvctl") command
 * valves that are entities under their own names, so they are not devices.
 * Simplification: the steam dump is one entity, "uN.dumpctl", because the
 * model moves its 12 valves as one demand (pcsim/steam_dump.h); it has no
 * per-valve state to give a row.
 */
#include <stdio.h>
#include <string.h>

#include "pcsim/alarm.h"
#include "pcsim/channel.h"
#include "pcsim/entity.h"
#include "pcsim/sensor.h"
#include "station/station_internal.h"

/* A unit's pumps: its loops', none for a summary unit (pcsim/plant.h). */
static uint32_t station_unit_pumps(const pcs_station *st, uint32_t u)
{
    return st->units[u].model == PCS_PLANT_MODEL_SUMMARY ? 0 : st->units[u].primary.n_loops;
}

/* The unit entity that owns device @p name ("u2.pump1" -> u2's id), 0 when
 * the name is not under a unit. */
static uint64_t owner_of(const pcs_world *w, const char *name)
{
    const char *dot = strchr(name, '.');
    char unit[16];
    size_t n = dot ? (size_t)(dot - name) : 0;
    if (n == 0 || n >= sizeof unit)
        return 0;
    memcpy(unit, name, n);
    unit[n] = '\0';
    pcs_entity_handle h;
    return pcs_entity_find(w, unit, &h) == PCS_OK ? pcs_entity_id(w, h) : 0;
}

/* Register device @p name (a command target) of kind @p kind; when @p count_only,
 * only count it. */
static pcs_status device(pcs_world *w, const char *name, uint32_t kind, uint32_t store,
                         uint32_t row, int count_only, uint32_t *n)
{
    pcs_target_id id;
    if (pcs_command_target_find(w, name, &id) != PCS_OK)
        return PCS_OK; /* not addressable: not a device of this table */
    (*n)++;
    if (count_only)
        return PCS_OK;
    pcs_entity_def d = pcs_entity_default();
    d.name = name;
    d.kind = kind;
    d.owner = kind == PCS_STATION_ENTITY_UNIT ? 0 : owner_of(w, name);
    d.store = store;
    d.row = row;
    return pcs_entity_create(w, &d, NULL);
}

/* A unit's valves, per SG ("uN.<part>K", position channel
 * "uN.sgK.<position>") or one per unit ("uN.<part>", channel
 * "uN.<position>"), in this order. */
typedef struct station_valve {
    const char *part;     /* the command target's part */
    const char *position; /* the channel publishing the opening (0 shut, 1 open) */
    int per_sg;
} station_valve;

static const station_valve station_valves[] = {
    {"msiv", "msiv", 1},              /* main steam isolation valves (pcsim/interlock.h) */
    {"porv", "porv_opening", 1},      /* SG PORVs (pcsim/sg_porv.h) */
    {"dumpctl", "dumpctl.demand", 0}, /* the steam dump, 12 valves as one (steam_dump.h) */
};

/* The (store, row) of channel @p name; no store when there is no such
 * channel. */
static void position_ref(const pcs_world *w, const char *name, uint32_t *store, uint32_t *row)
{
    uint32_t id;
    pcs_channel_info info;
    *store = PCS_ENTITY_NO_STORE;
    *row = 0;
    if (pcs_channel_find(w, name, &id) == PCS_OK && pcs_channel_get(w, id, &info) == PCS_OK) {
        *store = info.store;
        *row = info.index;
    }
}

/* Valve @p v of unit @p u, for SG @p k (1-based; ignored when not per SG). */
static pcs_status valve_device(const pcs_station *st, uint32_t u, const station_valve *v,
                               uint32_t k, int count_only, uint32_t *n)
{
    char name[64], channel[64];
    if (v->per_sg) {
        snprintf(name, sizeof name, "u%u.%s%u", u + 1, v->part, k);
        snprintf(channel, sizeof channel, "u%u.sg%u.%s", u + 1, k, v->position);
    } else {
        snprintf(name, sizeof name, "u%u.%s", u + 1, v->part);
        snprintf(channel, sizeof channel, "u%u.%s", u + 1, v->position);
    }
    uint32_t store, row;
    position_ref(st->world, channel, &store, &row);
    return device(st->world, name, PCS_STATION_ENTITY_VALVE, store, row, count_only, n);
}

/* Unit @p u's valves: each kind of station_valves in turn, per SG in SG
 * order. A target the unit lacks (a summary unit, boundary SGs) is skipped. */
static pcs_status unit_valves(const pcs_station *st, uint32_t u, int count_only, uint32_t *n)
{
    pcs_status rc = PCS_OK;
    uint32_t n_sg = st->units[u].primary.n_loops;
    size_t n_kinds = sizeof station_valves / sizeof station_valves[0];
    for (size_t v = 0; rc == PCS_OK && v < n_kinds; v++) {
        uint32_t last = station_valves[v].per_sg ? n_sg : 1;
        for (uint32_t k = 1; rc == PCS_OK && k <= last; k++)
            rc = valve_device(st, u, &station_valves[v], k, count_only, n);
    }
    return rc;
}

/* Unit @p u, its pumps and its valves: a unit's own devices, in the order
 * both the start and a unit added while running give them. */
static pcs_status unit_devices(const pcs_station *st, uint32_t u, int count_only, uint32_t *n)
{
    char name[32];
    snprintf(name, sizeof name, "u%u", u + 1);
    pcs_status rc =
        device(st->world, name, PCS_STATION_ENTITY_UNIT, PCS_ENTITY_NO_STORE, 0, count_only, n);
    for (uint32_t k = 1; rc == PCS_OK && k <= station_unit_pumps(st, u); k++) {
        snprintf(name, sizeof name, "u%u.pump%u", u + 1, k);
        rc =
            device(st->world, name, PCS_STATION_ENTITY_PUMP, PCS_ENTITY_NO_STORE, 0, count_only, n);
    }
    return rc == PCS_OK ? unit_valves(st, u, count_only, n) : rc;
}

static pcs_status units(const pcs_station *st, int count_only, uint32_t *n)
{
    pcs_status rc = PCS_OK;
    for (uint32_t u = 0; rc == PCS_OK && u < st->n_units; u++)
        rc = unit_devices(st, u, count_only, n);
    return rc;
}

/* Sensors are the channels [c0, c1) that name a sensor of bank @p s. */
static pcs_status sensor_devices(const pcs_station *st, const pcs_sensors *s, uint32_t c0,
                                 uint32_t c1, int count_only, uint32_t *n)
{
    pcs_status rc = PCS_OK;
    for (uint32_t c = c0; s && rc == PCS_OK && c < c1; c++) {
        pcs_channel_info info;
        uint32_t id, store, row;
        if (pcs_channel_get(st->world, c, &info) != PCS_OK ||
            pcs_sensor_find(s, info.name, &id) != PCS_OK ||
            pcs_sensor_value_ref(s, id, &store, &row) != PCS_OK)
            continue;
        rc = device(st->world, info.name, PCS_STATION_ENTITY_SENSOR, store, row, count_only, n);
    }
    return rc;
}

/* The named alarms of bank @p a. */
static pcs_status alarm_devices(const pcs_station *st, const pcs_alarms *a, int count_only,
                                uint32_t *n)
{
    pcs_status rc = PCS_OK;
    for (uint32_t i = 0; a && rc == PCS_OK && i < pcs_alarm_count(a); i++) {
        const char *name = pcs_alarm_name(a, i);
        if (name)
            rc = device(st->world, name, PCS_STATION_ENTITY_ALARM, PCS_ENTITY_NO_STORE, 0,
                        count_only, n);
    }
    return rc;
}

/* The station's channels that name a sensor of the start's bank. */
static pcs_status sensors(const pcs_station *st, int count_only, uint32_t *n)
{
    return sensor_devices(st, pcs_plant_sensors(st->plant), st->first_channel,
                          st->first_channel + st->n_channels, count_only, n);
}

static pcs_status alarms(const pcs_station *st, int count_only, uint32_t *n)
{
    return alarm_devices(st, pcs_plant_alarms(st->plant), count_only, n);
}

static pcs_status walk(const pcs_station *st, int count_only, uint32_t *n)
{
    pcs_status rc = units(st, count_only, n);
    if (rc == PCS_OK)
        rc = sensors(st, count_only, n);
    return rc == PCS_OK ? alarms(st, count_only, n) : rc;
}

pcs_status pcs_station_entities_add(pcs_station *st)
{
    if (!st->plant)
        return PCS_OK;
    uint32_t n = 0;
    pcs_status rc = walk(st, 1, &n);
    if (rc == PCS_OK && pcs_entity_capacity(st->world) == 0) {
        /* Room to add as many devices again while running (issue 19). */
        pcs_entity_table_def d = pcs_entity_table_default();
        d.capacity = 2 * n > 256 ? 2 * n : 256;
        rc = pcs_entity_table_add(st->world, &d);
    }
    n = 0;
    return rc == PCS_OK ? walk(st, 0, &n) : rc;
}

/* Unit @p u added while running: the unit, its pumps, its valves, its
 * sensors (its own bank, among the channels the add registered) and its
 * alarms, in the order the start gives a unit's devices. */
pcs_status pcs_station_entities_add_unit(pcs_station *st, uint32_t u, uint32_t first_channel)
{
    uint32_t n = 0;
    pcs_status rc = unit_devices(st, u, 0, &n);
    if (rc == PCS_OK)
        rc = sensor_devices(st, pcs_plant_unit_sensors(st->plant, u), first_channel,
                            pcs_channel_count(st->world), 0, &n);
    return rc == PCS_OK ? alarm_devices(st, pcs_plant_unit_alarms(st->plant, u), 0, &n) : rc;
}
