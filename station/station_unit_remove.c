/**
 * @file station_unit_remove.c
 * @brief Units removed while the station runs: the structural command kind
 *        "unit_remove" (pcsim/structure.h, pcsim/station.h) that takes a
 *        running unit out at the tick boundary.
 *
 * What goes. The station names a unit's records by its prefix: every
 * system, slow job and channel a unit has is named "uN." (the plant's
 * models, its controllers, its own instrumentation banks when it was added
 * while running, its freeze flag channel), every command target is "uN" or
 * "uN.*", and every station entity carries its target's name
 * (station_entities.c). The apply holds the unit's sensors of the start's
 * bank (first: see retire_unit), retires the systems, jobs and channels by
 * that prefix (pcs_system_retire, pcs_job_retire, pcs_channel_retire),
 * destroys the entity of each target and removes the target
 * (pcs_command_target_remove), walking each table in id order so the
 * order of the changes, and so the ids and generations they leave, are the
 * same in every run, save load and replay. Nothing is looked up by hash
 * order. Ids are never reused (structure.h), so an old id names the removed
 * record or fails with PCS_E_NOTFOUND, never another unit's.
 *
 * What stays. The unit's stores keep their last values, in saves and in the
 * hash (structure.h: stores are not retired), and are no longer stepped.
 *
 * Station-wide loops, decided one by one (grep n_units, PCS_PLANT_MAX_UNITS):
 *  - the start's sensor, protection and alarm banks ("sensors",
 *    "protection", "alarms": one system each for every unit built at the
 *    start) keep their rows for the removed unit, but its sensors are held
 *    (pcs_sensor_hold): they read its stores no more, their lag stays where
 *    it was. Needed, not only tidy: some of the stores they read are
 *    SCRATCH (not saved), which nothing recomputes once the unit's systems
 *    are retired, so a loaded world would sample other values than the saved
 *    one. Simplification, stated: the rows still cost their share of each
 *    bank (about 1/n), the held sensors keep their noise and the protection
 *    and alarm rows evaluate those held values (steady values, far from
 *    their setpoints; they write only the bank's rows and the unit's trip
 *    input "uN.core.trip", which no live system reads); their channels and
 *    targets are gone, so no host sees them. Each sensor's noise is its own
 *    stream, so the other units' rows are exactly those of a run where the
 *    unit is frozen at the same tick (tests/test_unit_remove.c asserts it).
 *  - the pressurizer controllers, rods, kinetics, primary, steam side,
 *    xenon job, and a later unit's own banks are "uN." systems and jobs:
 *    retired.
 *  - freeze: the unit's gate stays on its retired systems (moot); its
 *    "uN" target is removed, so a freeze command names no unit, and
 *    pcs_station_freeze/_thaw refuse a removed unit (station_freeze.c).
 *  - sleep: the unit's gate stays on its retired systems (moot), its
 *    "uN.asleep" channel is retired with the others, and the two
 *    station-wide sleep systems ("station.sleep.wake", "station.sleep")
 *    skip it (pcs_station_unit_running): its flag and counters keep their
 *    last values in the STATE stores (saved, hashed, as any store of it)
 *    and pcs_station_unit_asleep says 0, as pcs_station_unit_frozen does
 *    for a removed unit frozen when it went (tests/test_unit_remove_sleep.c).
 *  - pump_remove/_install and the name lookups refuse a removed unit
 *    (pcs_station_unit_running); the CLI's timeline and per-unit summary
 *    find channels by name or check they are live, so they skip it.
 *  - the parallel unit sections are rebuilt by the engine's commit from the
 *    live systems.
 *
 * Refused at stage 1: an unknown unit, a unit never built, one removed or
 * accepted for removal this tick, and the last running unit. A station of
 * no running unit would step nothing of the plant while the station-wide
 * banks, freeze and sleep (which refuse to be built without units) and
 * hosts (which print a line per unit) would all have to learn an empty
 * plant; one unit running costs a game nothing (freeze it).
 *
 * A removed unit never comes back: unit_add builds only the scenario's
 * units never built (its records are retired, and re-registering the same
 * names over held stores would need the plant to rebuild a unit in place,
 * which pcs_plant_unit_add does not do).
 *
 * Saves. The structure log holds the removal; loading a save into a station
 * built from the same scenario re-applies it (the apply without the check,
 * before the stores are restored), so the loaded world has the same records
 * and the same hash. Journal replay resubmits it with the other commands.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/channel.h"
#include "pcsim/entity.h"
#include "pcsim/event.h"
#include "pcsim/job.h"
#include "pcsim/sensor.h"
#include "pcsim/structure.h"
#include "pcsim/system.h"
#include "station/station_internal.h"

struct station_unit_remove {
    pcs_station *st;
    uint32_t n_removed;                       /* units removed so far */
    uint32_t n_pending;                       /* accepted at stage 1, not applied yet */
    unsigned char state[PCS_PLANT_MAX_UNITS]; /* 0 running/unbuilt, 1 accepted, 2 removed */
    uint64_t removed_at[PCS_PLANT_MAX_UNITS]; /* tick of each unit's removal */
};

enum { UNIT_PENDING = 1, UNIT_REMOVED = 2 };

int pcs_station_unit_running(const pcs_station *st, uint32_t unit)
{
    if (!st || unit < 1 || unit > st->n_units)
        return 0;
    return !(st->removal && st->removal->state[unit - 1] == UNIT_REMOVED);
}

/* args[0]: a whole number in [1, n_all] (a save's log is not trusted). */
static int unit_arg_ok(const pcs_station *st, double a)
{
    return a >= 1.0 && a <= (double)st->n_all && a == floor(a);
}

static pcs_status unknown_unit(const pcs_station *st, double a)
{
    return pcs_error_set(PCS_E_NOTFOUND,
                         "%s: unit_remove: no unit %g in the scenario (units u1..u%u)", st->source,
                         a, st->n_all);
}

/* The unit's state for stage 1: why it cannot be removed, or PCS_OK. */
static pcs_status removable(const struct station_unit_remove *ur, uint32_t n, uint64_t tick)
{
    const pcs_station *st = ur->st;
    if (n > st->n_units)
        return pcs_error_set(PCS_E_STATE,
                             "%s: unit_remove u%u: the unit is not built (\"build\": \"later\"; "
                             "unit_add builds it)",
                             st->source, n);
    if (ur->state[n - 1] == UNIT_REMOVED)
        return pcs_error_set(PCS_E_STATE,
                             "%s: unit_remove u%u: the unit was removed at tick %llu (a removed "
                             "unit does not come back)",
                             st->source, n, (unsigned long long)ur->removed_at[n - 1]);
    if (ur->state[n - 1] == UNIT_PENDING)
        return pcs_error_set(PCS_E_STATE,
                             "%s: unit_remove u%u: the unit is being removed (accepted earlier in "
                             "tick %llu)",
                             st->source, n, (unsigned long long)tick);
    if (st->n_units - ur->n_removed - ur->n_pending <= 1)
        return pcs_error_set(PCS_E_STATE,
                             "%s: unit_remove u%u: the unit is the last running unit (a station "
                             "keeps at least one; freeze stops it)",
                             st->source, n);
    return PCS_OK;
}

/* The unit's core power, W, as the kinetics published it last. */
static double core_power_w(pcs_world *w, const pcs_station *st, uint32_t n)
{
    uint32_t store, index;
    const pcs_plant_unit *pu = pcs_plant_unit_get(st->plant, n - 1);
    if (!pu || pcs_unit_power_ref(pu->core, &store, &index) != PCS_OK)
        return 0.0;
    const double *p = pcs_store_data(w, store);
    return p ? p[index] : 0.0;
}

/* Stage 1: accept or refuse naming the unit and its state; an accepted
 * removal is announced by its event. */
static pcs_status check_remove(pcs_world *w, void *ctx, const pcs_command *c)
{
    struct station_unit_remove *ur = ctx;
    const pcs_station *st = ur->st;
    if (!unit_arg_ok(st, c->args[0]))
        return unknown_unit(st, c->args[0]);
    uint32_t n = (uint32_t)c->args[0];
    pcs_status rc = pcs_station_log_unused(c, "unit_remove", 1); /* what a load would refuse */
    if (rc == PCS_OK)
        rc = removable(ur, n, c->tick);
    if (rc != PCS_OK)
        return rc;
    ur->state[n - 1] = UNIT_PENDING;
    ur->n_pending++;
    double p = core_power_w(w, st, n);
    (void)pcs_event_emit(w, PCS_EV_STATION_UNIT_REMOVE, n, p,
                         p / st->units[n - 1].core.nominal_power_w,
                         (double)(st->n_units - ur->n_removed - ur->n_pending), 0.0);
    return PCS_OK;
}

static int has_prefix(const char *name, const char *prefix, size_t len)
{
    return name && strncmp(name, prefix, len) == 0;
}

/* Name and id of entry @p i of a schedule table (systems in run order,
 * jobs in id order), NULL when there is none. */
typedef const char *(*entry_fn)(const pcs_world *w, uint32_t i, uint32_t *id);

static const char *system_entry(const pcs_world *w, uint32_t i, uint32_t *id)
{
    pcs_schedule_system s;
    if (pcs_schedule_system_at(w, i, &s) != PCS_OK)
        return NULL;
    *id = s.id;
    return s.name;
}

static const char *job_entry(const pcs_world *w, uint32_t i, uint32_t *id)
{
    pcs_schedule_job j;
    if (pcs_schedule_job_at(w, i, &j) != PCS_OK)
        return NULL;
    *id = j.id;
    return j.name;
}

/* Retire every one of the @p n entries named @p prefix. The run order
 * changes only at the commit, so the walk sees every system; the walk runs
 * once per unit (a removed unit is refused), so none is retired already. */
static pcs_status retire_named(pcs_world *w, uint32_t n, entry_fn entry,
                               pcs_status (*retire)(pcs_world *, uint32_t), const char *prefix,
                               size_t len)
{
    pcs_status rc = PCS_OK;
    for (uint32_t i = 0; rc == PCS_OK && i < n; i++) {
        uint32_t id = 0;
        if (has_prefix(entry(w, i, &id), prefix, len))
            rc = retire(w, id);
    }
    return rc;
}

/* Call @p fn on every live channel named @p prefix, in id order (a removed
 * pump's is retired already). */
typedef pcs_status (*channel_fn)(pcs_world *w, void *ctx, uint32_t id, const char *name);

static pcs_status each_channel(pcs_world *w, const char *prefix, size_t len, channel_fn fn,
                               void *ctx)
{
    uint32_t n = pcs_channel_count(w);
    for (uint32_t id = 0; id < n; id++) {
        pcs_channel_info info;
        if (!pcs_channel_live(w, id) || pcs_channel_get(w, id, &info) != PCS_OK ||
            !has_prefix(info.name, prefix, len))
            continue;
        pcs_status rc = fn(w, ctx, id, info.name);
        if (rc != PCS_OK)
            return rc;
    }
    return PCS_OK;
}

/* Hold the sensor of the start's bank @p ctx that channel @p name is, if any. */
static pcs_status hold_sensor(pcs_world *w, void *ctx, uint32_t id, const char *name)
{
    uint32_t sensor;
    (void)id;
    return ctx && pcs_sensor_find(ctx, name, &sensor) == PCS_OK ? pcs_sensor_hold(w, ctx, sensor)
                                                                : PCS_OK;
}

static pcs_status retire_channel(pcs_world *w, void *ctx, uint32_t id, const char *name)
{
    (void)ctx, (void)name;
    return pcs_channel_retire(w, id);
}

/* Target @p id and the entity of its name (when the station made one). */
static pcs_status remove_device(pcs_world *w, pcs_target_id id, const char *name)
{
    pcs_entity_handle h;
    if (pcs_entity_find(w, name, &h) == PCS_OK) {
        pcs_status rc = pcs_entity_destroy(w, h);
        if (rc != PCS_OK)
            return rc;
    }
    return pcs_command_target_remove(w, id);
}

/* Every target "uN" (@p prefix without its dot) and "uN.*", in slot order. */
static pcs_status remove_targets(pcs_world *w, const char *prefix, size_t len)
{
    uint32_t cursor = 0;
    pcs_target_id id;
    while (pcs_command_target_next(w, &cursor, &id)) {
        const char *name = pcs_command_target_name(w, id);
        if (!has_prefix(name, prefix, len - 1) || (name[len - 1] != '\0' && name[len - 1] != '.'))
            continue;
        char copy[PCS_ENTITY_NAME_MAX];
        snprintf(copy, sizeof copy, "%s", name); /* the name goes with its target */
        pcs_status rc = remove_device(w, id, copy);
        if (rc != PCS_OK)
            return rc;
    }
    return PCS_OK;
}

/* The sensors are held first: the first hold of a bank allocates (the one
 * step here that can fail for want of memory), so a failure leaves the
 * unit as it was (nothing retired; the holds take effect at a sample, and
 * the failed tick is retried). The retirements that follow only mark
 * records and refuse only a record retired already, which retire_named
 * and the live-channel and target walks rule out. */
static pcs_status retire_unit(pcs_world *w, const pcs_station *st, uint32_t n)
{
    char prefix[16];
    int len = snprintf(prefix, sizeof prefix, "u%u.", n);
    pcs_status rc = each_channel(w, prefix, (size_t)len, hold_sensor, pcs_plant_sensors(st->plant));
    if (rc == PCS_OK)
        rc = retire_named(w, pcs_schedule_system_count(w), system_entry, pcs_system_retire, prefix,
                          (size_t)len);
    if (rc == PCS_OK)
        rc = retire_named(w, pcs_schedule_job_count(w), job_entry, pcs_job_retire, prefix,
                          (size_t)len);
    if (rc == PCS_OK)
        rc = each_channel(w, prefix, (size_t)len, retire_channel, NULL);
    return rc == PCS_OK ? remove_targets(w, prefix, (size_t)len) : rc;
}

/* After stage 13: retire the unit. A load re-applies without the check; a
 * unit already removed is moot (structure.h: a no-op). */
static pcs_status apply_remove(pcs_world *w, void *ctx, const pcs_command *c)
{
    struct station_unit_remove *ur = ctx;
    const pcs_station *st = ur->st;
    uint32_t n = 0;
    pcs_status arg = pcs_station_unit_arg(st, "unit_remove", c, &n);
    if (arg != PCS_OK)
        return arg;
    if (ur->state[n - 1] == UNIT_PENDING)
        ur->n_pending--;
    if (ur->state[n - 1] == UNIT_REMOVED)
        return PCS_OK;
    ur->state[n - 1] = 0;
    if (n > st->n_units)
        return pcs_error_set(PCS_E_STATE, "unit_remove u%u: the unit is not built (units u1..u%u)",
                             n, st->n_units);
    if (st->n_units - ur->n_removed <= 1) /* a load's log is not trusted: stage 1's rule again */
        return pcs_error_set(PCS_E_STATE,
                             "unit_remove u%u: the unit is the last running unit (a station keeps "
                             "at least one)",
                             n);
    pcs_status rc = retire_unit(w, st, n);
    if (rc != PCS_OK)
        return pcs_error_set(rc, "unit_remove u%u: %s", n, pcs_last_error());
    ur->state[n - 1] = UNIT_REMOVED;
    ur->removed_at[n - 1] = c->tick;
    ur->n_removed++;
    return PCS_OK;
}

/* A load dropped an accepted removal: the unit runs on. */
static pcs_status dropped_remove(pcs_world *w, void *ctx, const pcs_command *c)
{
    struct station_unit_remove *ur = ctx;
    (void)w;
    if (unit_arg_ok(ur->st, c->args[0]) && ur->state[(uint32_t)c->args[0] - 1] == UNIT_PENDING) {
        ur->state[(uint32_t)c->args[0] - 1] = 0;
        ur->n_pending--;
    }
    return PCS_OK;
}

/* A load's check of a saved entry, before the log is re-applied: a unit of
 * the scenario (one built later included: the log may add it first), nothing
 * else set. Whether that unit runs at the entry's tick is the replay's to
 * find (its apply refuses a unit not running). */
static pcs_status validate_remove(const pcs_world *w, void *ctx, const pcs_command *c)
{
    const pcs_station *st = ((const struct station_unit_remove *)ctx)->st;
    (void)w;
    if (!unit_arg_ok(st, c->args[0]))
        return pcs_error_set(PCS_E_CORRUPT,
                             "unit_remove: args[0] unit %g (allowed: a whole number, 1..%u, a unit "
                             "of the scenario)",
                             c->args[0], st->n_all);
    return pcs_station_log_unused(c, "unit_remove", 1);
}

pcs_status pcs_station_unit_remove_add(pcs_station *st)
{
    if (!st->plant || st->n_all < 2)
        return PCS_OK; /* one unit: nothing may be removed, the station builds as before */
    struct station_unit_remove *ur = pcs_world_alloc(st->world, sizeof *ur);
    /* pcs_structure_kind_default is the zeroed def: these fields over it */
    const pcs_structure_kind_def d = {.kind = PCS_STATION_KIND_UNIT_REMOVE,
                                      .name = "unit_remove",
                                      .check = check_remove,
                                      .apply = apply_remove,
                                      .dropped = dropped_remove,
                                      .validate = validate_remove,
                                      .ctx = ur};
    if (ur)
        *ur = (struct station_unit_remove){.st = st};
    pcs_status rc = ur ? pcs_structure_kind_register(st->world, &d)
                       : pcs_error_set(PCS_E_NOMEM, "out of memory for unit_remove");
    st->removal = rc == PCS_OK ? ur : NULL;
    return rc;
}

pcs_status pcs_station_unit_remove_resolve(const pcs_station *st, const char *where,
                                           const char *target, pcs_command *out)
{
    const char *end = target;
    uint32_t n = target[0] == 'u' ? pcs_station_name_number(target + 1, &end) : 0;
    if (!st->removal)
        return pcs_error_set(PCS_E_NOTFOUND,
                             "%s: unit_remove of '%s': the station has fewer than two units "
                             "(nothing may be removed)",
                             where, target);
    if (n < 1 || *end != '\0' || n > st->n_all)
        return pcs_error_set(PCS_E_NOTFOUND,
                             "%s: unit_remove of '%s': not a unit of the scenario (allowed: "
                             "u1..u%u)",
                             where, target, st->n_all);
    memset(out, 0, sizeof *out);
    out->kind = PCS_STATION_KIND_UNIT_REMOVE;
    out->args[0] = n;
    return PCS_OK;
}
