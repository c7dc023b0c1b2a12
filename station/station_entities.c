/**
 * @file station_entities.c
 * @brief The station's devices as entities (pcsim/entity.h): units, reactor
 *        coolant pumps, sensors and alarms, by their command-target names.
 *
 * The station is the one place that knows every model, so it is the one
 * that lists the devices; the models themselves are untouched (no state, no
 * store, no registration of theirs changes, so the state hash and the saves
 * stay as they were). Each name registered is first resolved as a command
 * target, so an entity's name is always one a command can use. Order: each
 * unit followed by its pumps, then the sensors in channel order, then the
 * alarms in alarm order; ids follow it, so the same scenario gives the same
 * ids and handles.
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

static pcs_status units_and_pumps(const pcs_station *st, int count_only, uint32_t *n)
{
    pcs_status rc = PCS_OK;
    char name[32];
    for (uint32_t u = 0; rc == PCS_OK && u < st->n_units; u++) {
        snprintf(name, sizeof name, "u%u", u + 1);
        rc =
            device(st->world, name, PCS_STATION_ENTITY_UNIT, PCS_ENTITY_NO_STORE, 0, count_only, n);
        for (uint32_t k = 1; rc == PCS_OK && k <= station_unit_pumps(st, u); k++) {
            snprintf(name, sizeof name, "u%u.pump%u", u + 1, k);
            rc = device(st->world, name, PCS_STATION_ENTITY_PUMP, PCS_ENTITY_NO_STORE, 0,
                        count_only, n);
        }
    }
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
    pcs_status rc = units_and_pumps(st, count_only, n);
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

/* Unit @p u added while running: the unit, its pumps, its sensors (its own
 * bank, among the channels the add registered) and its alarms, in the order
 * the start gives a unit's devices. */
pcs_status pcs_station_entities_add_unit(pcs_station *st, uint32_t u, uint32_t first_channel)
{
    uint32_t n = 0;
    char name[32];
    snprintf(name, sizeof name, "u%u", u + 1);
    pcs_status rc = device(st->world, name, PCS_STATION_ENTITY_UNIT, PCS_ENTITY_NO_STORE, 0, 0, &n);
    for (uint32_t k = 1; rc == PCS_OK && k <= station_unit_pumps(st, u); k++) {
        snprintf(name, sizeof name, "u%u.pump%u", u + 1, k);
        rc = device(st->world, name, PCS_STATION_ENTITY_PUMP, PCS_ENTITY_NO_STORE, 0, 0, &n);
    }
    if (rc == PCS_OK)
        rc = sensor_devices(st, pcs_plant_unit_sensors(st->plant, u), first_channel,
                            pcs_channel_count(st->world), 0, &n);
    return rc == PCS_OK ? alarm_devices(st, pcs_plant_unit_alarms(st->plant, u), 0, &n) : rc;
}
