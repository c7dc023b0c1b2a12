/**
 * @file station_units.c
 * @brief Units added while the station runs: the structural command kind
 *        "unit_add" (pcsim/structure.h) that builds a unit the scenario
 *        marks "build": "later" at the tick boundary.
 *
 * The scenario names every unit; the first n_start are built with the
 * station, the others are kept by the plant (pcs_plant_add_staged) and a
 * unit_add builds the next of them: its reactor, fuel, primary (and steam
 * side), settled to its steady state at its initial power as at the start,
 * its controllers, its own sensor, protection and alarm banks (stores and
 * systems prefixed "uN.", channels and targets named as a unit of the start
 * has them: pcs_plant_unit_add), and its station entities. Units are added
 * in order, so units 1..n_units are the built ones (unit_remove may have
 * taken some out since: pcs_station_unit_running) and unit_add's target is
 * always the next; a removed unit is refused (it does not come back).
 *
 * The command: kind PCS_STATION_KIND_UNIT_ADD (a structural kind, no family
 * and no target: args[0] is the unit number), resolved from "uN" by
 * pcs_station_command. Stage 1 (check) refuses an unknown unit, a unit
 * already built or already accepted this tick, and a unit that is not the
 * next, and emits PCS_EV_STATION_UNIT_ADD for one it accepts; the apply
 * builds it. The kind is registered only by a station with
 * a later unit, so every other station builds, journals and hashes as before.
 *
 * Saves. A save taken after a unit_add holds the structure log; loading it
 * into a station built from the same scenario re-applies the log (the
 * engine calls the apply, not the check) before the stores are restored,
 * so the unit is rebuilt with the same registrations in the same order.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/channel.h"
#include "pcsim/event.h"
#include "pcsim/structure.h"
#include "station/station_internal.h"

struct station_units {
    pcs_station *st;
    uint32_t kind;                          /* PCS_STATION_KIND_UNIT_ADD */
    uint32_t n_pending;                     /* accepted at stage 1, not applied yet */
    uint64_t added_at[PCS_PLANT_MAX_UNITS]; /* tick of each unit's add (0: built at the start) */
};

/* "uN" of the scenario -> N, or 0 when the text is not "u<digits>" (read
 * strictly: sscanf's %u wrapped "u4294967298" to u2). */
static uint32_t unit_number(const char *target)
{
    const char *end;
    if (!target || target[0] != 'u')
        return 0;
    uint32_t n = pcs_station_name_number(target + 1, &end);
    return *end == '\0' ? n : 0;
}

/* args[0] names a unit of the scenario: a whole number in [1, n_all]. */
static int unit_arg_ok(const pcs_station *st, double a)
{
    return a >= 1.0 && a <= (double)st->n_all && a == floor(a);
}

pcs_status pcs_station_unit_arg(const pcs_station *st, const char *command, const pcs_command *c,
                                uint32_t *n)
{
    if (!unit_arg_ok(st, c->args[0]))
        return pcs_error_set(PCS_E_INVAL,
                             "%s: args[0] %g is not a unit of the scenario (a whole number, 1..%u)",
                             command, c->args[0], st->n_all);
    *n = (uint32_t)c->args[0];
    return PCS_OK;
}

/* Stage 1: unknown unit, built, accepted this tick, or not the next. */
static pcs_status check_add(pcs_world *w, void *ctx, const pcs_command *c)
{
    struct station_units *su = ctx;
    const pcs_station *st = su->st;
    double a = c->args[0];
    uint32_t next = st->n_units + su->n_pending + 1;
    if (pcs_station_log_unused(c, "unit_add", 1) != PCS_OK) /* what a load checks */
        return PCS_E_INVAL;
    if (!unit_arg_ok(st, a))
        return pcs_error_set(PCS_E_NOTFOUND,
                             "%s: unit_add: no unit %g in the scenario (units u1..u%u; "
                             "u%u..u%u are built later)",
                             st->source, a, st->n_all, st->n_start + 1, st->n_all);
    uint32_t n = (uint32_t)a;
    if (n <= st->n_units && !pcs_station_unit_running(st, n))
        return pcs_error_set(PCS_E_STATE,
                             "%s: unit_add u%u: the unit was removed (a removed unit does not "
                             "come back)",
                             st->source, n);
    if (n <= st->n_start)
        return pcs_error_set(PCS_E_STATE, "%s: unit_add u%u: the unit is built (at the start)",
                             st->source, n);
    if (n <= st->n_units)
        return pcs_error_set(PCS_E_STATE,
                             "%s: unit_add u%u: the unit is built (added at tick %llu)", st->source,
                             n, (unsigned long long)su->added_at[n - 1]);
    if (n < next)
        return pcs_error_set(PCS_E_STATE,
                             "%s: unit_add u%u: the unit is being added (accepted earlier in "
                             "tick %llu)",
                             st->source, n, (unsigned long long)c->tick);
    if (n > next)
        return pcs_error_set(PCS_E_STATE,
                             "%s: unit_add u%u: u%u is not built yet (units are added in order)",
                             st->source, n, next);
    su->n_pending++;
    const pcs_plant_unit_def *d = &st->units[n - 1];
    (void)pcs_event_emit(w, PCS_EV_STATION_UNIT_ADD, n, d->core.initial_power_fraction,
                         d->core.nominal_power_w, (double)d->primary.n_loops, 0.0);
    return PCS_OK;
}

/* After stage 13: build the unit, its instrumentation and its entities. A
 * load re-applies without the check (n_pending 0); a unit already built is
 * moot (structure.h: a no-op). */
static pcs_status apply_add(pcs_world *w, void *ctx, const pcs_command *c)
{
    struct station_units *su = ctx;
    pcs_station *st = su->st;
    if (su->n_pending > 0)
        su->n_pending--;
    /* A load re-applies a save's entry without the check: hold it to the
     * check's rule before it is converted. */
    uint32_t n = 0;
    pcs_status arg = pcs_station_unit_arg(st, "unit_add", c, &n);
    if (arg != PCS_OK)
        return arg;
    if (n != st->n_units + 1)
        return n <= st->n_units ? PCS_OK
                                : pcs_error_set(PCS_E_STATE, "unit_add u%u: u%u is not built yet",
                                                n, st->n_units + 1);
    uint32_t first_channel = pcs_channel_count(w);
    pcs_status rc = pcs_plant_unit_add(w, st->plant);
    if (rc != PCS_OK)
        return rc;
    st->n_units = n;
    su->added_at[n - 1] = pcs_world_clock(w)->tick;
    rc = pcs_station_entities_add_unit(st, n - 1, first_channel);
    if (rc != PCS_OK)
        return pcs_error_set(rc, "u%u's entities: %s", n, pcs_last_error());
    return pcs_station_sleep_unit_added(st, n - 1); /* with a "sleep" section: its gate */
}

/* A load dropped an accepted add: it is pending no more. */
static pcs_status dropped_add(pcs_world *w, void *ctx, const pcs_command *c)
{
    struct station_units *su = ctx;
    (void)w, (void)c;
    if (su->n_pending > 0)
        su->n_pending--;
    return PCS_OK;
}

/* A load's check of a saved entry, before the log is re-applied: a unit
 * the scenario builds later, nothing else set. */
static pcs_status validate_add(const pcs_world *w, void *ctx, const pcs_command *c)
{
    const pcs_station *st = ((const struct station_units *)ctx)->st;
    double a = c->args[0];
    (void)w;
    if (!unit_arg_ok(st, a) || a <= (double)st->n_start)
        return pcs_error_set(PCS_E_CORRUPT,
                             "unit_add: args[0] unit %g (allowed: a whole number, %u..%u, a unit "
                             "the scenario builds later)",
                             a, st->n_start + 1, st->n_all);
    return pcs_station_log_unused(c, "unit_add", 1);
}

/* The fixed kind (pcsim/station.h): a journal names it, and the station's
 * other structural kinds sit beside it at the top of the kind space. */
static pcs_status register_kind(pcs_world *w, struct station_units *su)
{
    pcs_structure_kind_def d = pcs_structure_kind_default();
    d.kind = PCS_STATION_KIND_UNIT_ADD;
    d.name = "unit_add";
    d.check = check_add;
    d.apply = apply_add;
    d.dropped = dropped_add;
    d.validate = validate_add;
    d.ctx = su;
    su->kind = d.kind;
    return pcs_structure_kind_register(w, &d);
}

pcs_status pcs_station_units_add(pcs_station *st)
{
    if (st->n_all == st->n_units || !st->plant)
        return PCS_OK; /* nothing to add later: the station builds as it always did */
    struct station_units *su = pcs_world_alloc(st->world, sizeof *su);
    if (!su)
        return pcs_error_set(PCS_E_NOMEM, "out of memory for unit_add");
    memset(su, 0, sizeof *su);
    su->st = st;
    pcs_status rc = register_kind(st->world, su);
    if (rc == PCS_OK)
        st->later = su;
    return rc;
}

pcs_status pcs_station_unit_add_kind(const pcs_station *st, uint32_t *kind)
{
    if (!st->later)
        return pcs_error_set(PCS_E_NOTFOUND,
                             "%s: unknown command 'unit_add' (no unit of the scenario has "
                             "\"build\": \"later\")",
                             st->source);
    *kind = st->later->kind;
    return PCS_OK;
}

pcs_status pcs_station_unit_add_resolve(const pcs_station *st, const char *where,
                                        const char *target, pcs_command *out)
{
    uint32_t n = unit_number(target);
    if (!st->later)
        return pcs_error_set(PCS_E_NOTFOUND,
                             "%s: unit_add of '%s': no unit of the scenario has \"build\": "
                             "\"later\" (units u1..u%u are built at the start)",
                             where, target, st->n_units);
    if (n <= st->n_start || n > st->n_all)
        return pcs_error_set(PCS_E_NOTFOUND,
                             "%s: unit_add of '%s': not a unit built later (allowed: u%u..u%u, "
                             "the units with \"build\": \"later\")",
                             where, target, st->n_start + 1, st->n_all);
    memset(out, 0, sizeof *out);
    out->kind = st->later->kind;
    out->args[0] = n;
    return PCS_OK;
}
