/**
 * @file station_freeze.c
 * @brief Freeze and thaw of a station's units (pcsim/station_freeze.h).
 *
 * The flags and freeze ticks are STATE stores the station owns, written only
 * here between ticks; the engine reads a flag through the gate of each of the
 * unit's systems and jobs. The options live in world memory with the rest
 * of the build.
 *
 * Held outputs. A frozen unit's SCRATCH stores (what its systems recompute
 * every tick: pressurizer pressure, controller errors, SG heat) are not
 * saved; after a load they held build values while the unit stayed frozen,
 * so its channels, and the sensors and protection reading them (STATE,
 * hashed), left the uninterrupted run. "station.frozen_held" (STATE:
 * saved, loaded, hashed; station_held.h) keeps them: the stage-13 system
 * "station.freeze.keep" copies every running unit's outputs into it at the
 * end of each tick, and the stage-1 system "station.freeze.hold" copies
 * them back for every frozen unit before any other system reads them. The
 * copy is kept every tick, not taken when the freeze comes, because a
 * freeze at the first tick after a load would otherwise capture the build
 * values the load left (the save has the last tick's outputs only through
 * this store). The cost: one copy of each unit's SCRATCH outputs a tick
 * (a few KiB). The store's contents enter the hash whether or not a unit is
 * frozen. A host reading channels directly between a load and the next
 * tick still sees build values (the snapshot publishes at stage 12, after
 * the copy).
 *
 * Units covered: those built with the station (the stores are sized then).
 * A unit added while running (unit_add) has no freeze target and is refused
 * by pcs_station_freeze, naming it.
 */
#include <stdio.h>

#include "pcsim/channel.h"
#include "pcsim/command.h"
#include "pcsim/event.h"
#include "pcsim/plant.h"
#include "pcsim/station_freeze.h"
#include "pcsim/system.h"
#include "station/station_held.h"
#include "station/station_internal.h"

struct station_freeze {
    pcs_station_freeze_def def;
    uint32_t flag_store, at_store;
    uint32_t n_units; /* built with the station: the stores' length */
    pcs_station_held *held;
    const pcs_station *st; /* which units still run (unit_remove) */
};

pcs_station_freeze_def pcs_station_freeze_default(void)
{
    pcs_station_freeze_def d = {
        .hold = PCS_FREEZE_HOLD_AS_FROZEN,
        .decay_heat_clock = PCS_DECAY_HEAT_CLOCK_REAL_TIME,
        .split_mean_life_s = 3600.0,
    };
    return d;
}

static pcs_status freeze_def_check(const pcs_station *st, const pcs_station_freeze_def *d)
{
    if (!st || !d)
        return pcs_error_set(PCS_E_INVAL, "pcs_station_freeze_add: NULL argument");
    if (st->freeze || st->n_units == 0 || !st->plant)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_station_freeze_add: %s: freeze is already added or the station "
                             "has no units",
                             st->source);
    if (d->hold != PCS_FREEZE_HOLD_AS_FROZEN && d->hold != PCS_FREEZE_HOLD_SHUTDOWN)
        return pcs_error_set(PCS_E_INVAL, "freeze.hold = %d is not as_frozen (0) or shutdown (1)",
                             (int)d->hold);
    if (d->decay_heat_clock != PCS_DECAY_HEAT_CLOCK_REAL_TIME &&
        d->decay_heat_clock != PCS_DECAY_HEAT_CLOCK_SPLIT)
        return pcs_error_set(PCS_E_INVAL,
                             "freeze.decay_heat_clock = %d is not real_time (0) or split (1)",
                             (int)d->decay_heat_clock);
    if (!(d->split_mean_life_s > 0.0 && d->split_mean_life_s <= 1e15))
        return pcs_error_set(PCS_E_INVAL, "freeze.split_mean_life_s = %g is outside (0, 1e15]",
                             d->split_mean_life_s);
    return PCS_OK;
}

/* One unit's command target context. */
typedef struct freeze_target {
    pcs_station *st;
    uint32_t unit;
} freeze_target;

/* A command's freeze or thaw, and its event (PCS_EV_STATION_FREEZE/_THAW),
 * so a run's event list says when a unit stopped and resumed. */
static pcs_status freeze_on_command(pcs_world *w, const pcs_command_call *call)
{
    const freeze_target *t = call->ctx;
    if (call->op == PCS_STATION_FREEZE_OP_FREEZE) {
        pcs_status rc = pcs_station_freeze(t->st, t->unit);
        if (rc == PCS_OK)
            (void)pcs_event_emit(w, PCS_EV_STATION_FREEZE, t->unit, 0.0, 0.0, 0.0, 0.0);
        return rc;
    }
    double frozen_s = 0.0;
    pcs_status rc = pcs_station_thaw(t->st, t->unit, call->cmd->args[0], &frozen_s);
    if (rc == PCS_OK)
        (void)pcs_event_emit(w, PCS_EV_STATION_THAW, t->unit, frozen_s, 0.0, 0.0, 0.0);
    return rc;
}

/* The "freeze" family on each unit's "uN" target. */
static pcs_status freeze_commands(pcs_world *w, pcs_station *st)
{
    uint32_t first;
    pcs_status rc = pcs_command_family_register(
        w, PCS_STATION_FREEZE_COMMANDS, PCS_STATION_FREEZE_OP_COUNT, freeze_on_command, &first);
    freeze_target *t = rc == PCS_OK ? pcs_world_alloc(w, st->n_units * sizeof *t) : NULL;
    if (rc == PCS_OK && !t)
        rc = pcs_error_set(PCS_E_NOMEM, "out of memory for the freeze targets");
    for (uint32_t i = 0; rc == PCS_OK && i < st->n_units; i++) {
        char name[16];
        t[i].st = st;
        t[i].unit = pcs_plant_unit_get(st->plant, i)->index;
        snprintf(name, sizeof name, "u%u", t[i].unit);
        pcs_command_target_def d = {
            .name = name, .family = first, .ctx = &t[i], .element = PCS_TARGET_ELEMENT_ALL};
        rc = pcs_command_target_register(w, &d, NULL);
    }
    return rc;
}

/* Gate each unit's "uN." group on its flag and publish the flag. */
static pcs_status freeze_gate_units(pcs_world *w, const pcs_station *st, uint32_t flag_store)
{
    for (uint32_t i = 0; i < st->n_units; i++) {
        uint32_t n = pcs_plant_unit_get(st->plant, i)->index;
        char name[PCS_NAME_MAX];
        snprintf(name, sizeof name, "u%u.", n);
        pcs_status rc = pcs_world_gate_add(w, name, flag_store, i, NULL);
        if (rc != PCS_OK)
            return rc;
        snprintf(name, sizeof name, "u%u.frozen", n);
        rc = pcs_channel_register(w, name, "", PCS_CHANNEL_U32, flag_store, i, NULL);
        if (rc != PCS_OK)
            return rc;
    }
    return PCS_OK;
}

/* Stage 1: every frozen unit's outputs back from its held copy. */
static pcs_status freeze_hold_system(pcs_world *w, void *ctx)
{
    const struct station_freeze *f = ctx;
    const uint32_t *flag = pcs_store_data(w, f->flag_store);
    for (uint32_t i = 0; i < f->n_units; i++)
        if (flag[i])
            pcs_station_held_copy(w, f->held, i, 0);
    return PCS_OK;
}

/* Stage 13: every running unit's outputs into its held copy, so the copy is
 * the last tick's outputs whenever a freeze comes (a save keeps it). Not a
 * removed unit's: nothing recomputes its outputs, and a load leaves them at
 * build values (SCRATCH is not saved), so copying them would make a loaded
 * world's held copy, which is hashed, differ from the live one's. */
static pcs_status freeze_keep_system(pcs_world *w, void *ctx)
{
    const struct station_freeze *f = ctx;
    const uint32_t *flag = pcs_store_data(w, f->flag_store);
    for (uint32_t i = 0; i < f->n_units; i++)
        if (!flag[i] && pcs_station_unit_running(f->st, i + 1))
            pcs_station_held_copy(w, f->held, i, 1);
    return PCS_OK;
}

/* The system keeping the held copy: reads the flags and the units' outputs,
 * writes the copy. The build's outputs go in at once, for a freeze before
 * the first tick. */
static pcs_status freeze_keep_add(pcs_world *w, struct station_freeze *f)
{
    uint32_t n_scratch;
    const uint32_t *scratch = pcs_station_held_scratch(f->held, &n_scratch);
    uint32_t *reads = pcs_world_alloc(w, (n_scratch + 1) * sizeof *reads);
    uint32_t *writes = pcs_world_alloc(w, sizeof *writes);
    if (!reads || !writes)
        return pcs_error_set(PCS_E_NOMEM, "out of memory for the held outputs' keeper");
    reads[0] = f->flag_store;
    for (uint32_t k = 0; k < n_scratch; k++)
        reads[k + 1] = scratch[k];
    writes[0] = pcs_station_held_store(f->held);
    for (uint32_t i = 0; i < f->n_units; i++)
        pcs_station_held_copy(w, f->held, i, 1);
    pcs_system_desc d = {.name = "station.freeze.keep", .fn = freeze_keep_system, .ctx = f};
    d.stage = PCS_STAGE_EVENTS; /* after every system that writes them */
    d.reads = reads, d.n_reads = n_scratch + 1;
    d.writes = writes, d.n_writes = 1;
    return pcs_system_register(w, &d, NULL);
}

/* The held copy of the units' outputs and the system restoring it. */
static pcs_status freeze_hold_add(pcs_world *w, const pcs_station *st, struct station_freeze *f)
{
    uint32_t *numbers = pcs_world_alloc(w, f->n_units * sizeof *numbers);
    uint32_t *reads = pcs_world_alloc(w, 2 * sizeof *reads);
    if (!numbers || !reads)
        return pcs_error_set(PCS_E_NOMEM, "out of memory for the held outputs");
    for (uint32_t i = 0; i < f->n_units; i++)
        numbers[i] = pcs_plant_unit_get(st->plant, i)->index;
    pcs_status rc = pcs_station_held_add(w, numbers, f->n_units, "station.frozen_held", &f->held);
    if (rc != PCS_OK)
        return rc;
    /* Reads the flags and the held copy, writes the units' outputs. */
    reads[0] = f->flag_store;
    reads[1] = pcs_station_held_store(f->held);
    pcs_system_desc d = {.name = "station.freeze.hold", .fn = freeze_hold_system, .ctx = f};
    d.stage = PCS_STAGE_COMMANDS; /* before every system that reads them */
    d.reads = reads, d.n_reads = 2;
    d.writes = pcs_station_held_scratch(f->held, &d.n_writes);
    rc = pcs_system_register(w, &d, NULL);
    return rc == PCS_OK ? freeze_keep_add(w, f) : rc;
}

pcs_status pcs_station_freeze_add(pcs_world *w, pcs_station *st, const pcs_station_freeze_def *def)
{
    pcs_status rc = w ? freeze_def_check(st, def)
                      : pcs_error_set(PCS_E_INVAL, "pcs_station_freeze_add: world is NULL");
    if (rc != PCS_OK)
        return rc;
    struct station_freeze *f = pcs_world_alloc(w, sizeof *f);
    if (!f)
        return pcs_error_set(PCS_E_NOMEM, "pcs_station_freeze_add: %s", pcs_last_error());
    f->def = *def;
    f->n_units = st->n_units;
    f->st = st;
    rc = pcs_store_register(w, "station.frozen", sizeof(uint32_t), st->n_units, PCS_STORE_STATE,
                            &f->flag_store);
    if (rc == PCS_OK)
        rc = pcs_store_register(w, "station.frozen_at", sizeof(double), st->n_units,
                                PCS_STORE_STATE_F64, &f->at_store);
    if (rc == PCS_OK)
        rc = freeze_gate_units(w, st, f->flag_store);
    if (rc == PCS_OK)
        rc = freeze_commands(w, st);
    if (rc == PCS_OK)
        rc = freeze_hold_add(w, st, f);
    if (rc != PCS_OK)
        return pcs_error_set(rc, "pcs_station_freeze_add: %s: %s", st->source, pcs_last_error());
    st->freeze = f;
    return PCS_OK;
}

/* Unit @p unit (1-based) as an index into the plant's units, or an error. */
static pcs_status freeze_unit(const pcs_station *st, uint32_t unit, const char *fn, uint32_t *i)
{
    if (!st || !st->freeze)
        return pcs_error_set(PCS_E_INVAL,
                             "%s: the station has no freeze support "
                             "(pcs_station_freeze_add at build)",
                             fn);
    if (unit >= 1 && unit <= st->n_units && !pcs_station_unit_running(st, unit))
        return pcs_error_set(PCS_E_STATE, "%s: u%u was removed (unit_remove)", fn, unit);
    for (uint32_t k = 0; k < st->n_units; k++)
        if (pcs_plant_unit_get(st->plant, k)->index == unit) {
            *i = k;
            if (k < st->freeze->n_units)
                return PCS_OK;
            return pcs_error_set(PCS_E_INVAL,
                                 "%s: u%u was added while running; only the units built with "
                                 "the station (u1..u%u) can be frozen",
                                 fn, unit, st->freeze->n_units);
        }
    return pcs_error_set(PCS_E_INVAL, "%s: %s has no unit u%u", fn, st->source, unit);
}

int pcs_station_unit_frozen(const pcs_station *st, uint32_t unit)
{
    uint32_t i;
    if (!st || !st->freeze || freeze_unit(st, unit, "pcs_station_unit_frozen", &i) != PCS_OK)
        return 0;
    const uint32_t *flag = pcs_store_data(st->world, st->freeze->flag_store);
    return flag[i] != 0;
}

pcs_status pcs_station_freeze(pcs_station *st, uint32_t unit)
{
    uint32_t i;
    pcs_status rc = freeze_unit(st, unit, "pcs_station_freeze", &i);
    if (rc != PCS_OK)
        return rc;
    uint32_t *flag = pcs_store_data(st->world, st->freeze->flag_store);
    double *at = pcs_store_data(st->world, st->freeze->at_store);
    if (flag[i])
        return pcs_error_set(PCS_E_STATE, "pcs_station_freeze: u%u is already frozen", unit);
    flag[i] = 1;
    at[i] = (double)pcs_world_clock(st->world)->tick; /* exact below 2^53 ticks */
    /* The held copy already has the last tick's outputs (freeze_keep_system);
     * the hold system puts them back from the next stage 1 on. */
    return PCS_OK;
}

pcs_status pcs_station_thaw(pcs_station *st, uint32_t unit, double extra_s, double *frozen_s)
{
    uint32_t i;
    pcs_status rc = freeze_unit(st, unit, "pcs_station_thaw", &i);
    if (rc != PCS_OK)
        return rc;
    if (!(extra_s >= 0.0 && extra_s <= 1e12))
        return pcs_error_set(
            PCS_E_INVAL, "pcs_station_thaw: u%u: extra_s = %g is outside [0, 1e12]", unit, extra_s);
    uint32_t *flag = pcs_store_data(st->world, st->freeze->flag_store);
    double *at = pcs_store_data(st->world, st->freeze->at_store);
    if (!flag[i])
        return pcs_error_set(PCS_E_STATE, "pcs_station_thaw: u%u is not frozen", unit);
    const pcs_clock *c = pcs_world_clock(st->world);
    double ticks = (double)c->tick - at[i];
    const struct station_freeze *f = st->freeze;
    pcs_unit_gap_def g = pcs_unit_gap_default();
    g.real_s = ticks * c->dt_s + extra_s;
    g.hold = f->def.hold;
    g.decay_heat_clock = f->def.decay_heat_clock;
    g.split_mean_life_s = f->def.split_mean_life_s;
    rc = pcs_unit_gap_apply(st->world, pcs_plant_unit_get(st->plant, i)->core, &g, NULL);
    if (rc != PCS_OK)
        return pcs_error_set(rc, "pcs_station_thaw: %s", pcs_last_error());
    flag[i] = 0;
    at[i] = 0.0;
    if (frozen_s)
        *frozen_s = g.real_s;
    return PCS_OK;
}
