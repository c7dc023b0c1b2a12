/**
 * @file station_structure.c
 * @brief The station's structural commands: a reactor coolant pump removed
 *        and installed while the world runs ("pump_remove",
 *        "pump_install"; pcsim/station.h, pcsim/structure.h).
 *
 * The physics is the primary's (pcs_primary_pump_remove / _install: the
 * junction out of the network, the state in its stores); the published
 * records are the primary's too (pcs_primary_pump_unpublish / _publish: the
 * command target and the speed channel), since it registered them; what
 * the station adds is the entity, which it registered (station_entities.c),
 * the name lookup and the messages.
 *
 * Pending. stage 1 accepts at most one change per pump per tick: a second
 * removal (or install) of a pump in the tick that already holds one is
 * refused as if applied, so the apply never meets a moot change from this
 * station's checks, and one event stands for each applied change. The flag
 * is cleared by the apply, or when a load drops the change; the engine re-applies the structure log
 * on load without the checks, and the apply takes the pump's state as it finds it (a change that is
 * already so is a no-op, as structure.h allows).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/entity.h"
#include "pcsim/event.h"
#include "pcsim/primary.h"
#include "pcsim/structure.h"
#include "pcsim/system.h"
#include "station/station_internal.h"

/* The two commands: name, kind, install (1) or remove (0). Their help
 * texts are rows of the station's command table (station.c). */
static const struct {
    const char *name;
    uint32_t kind;
    int install;
} pump_cmds[] = {
    {"pump_remove", PCS_STATION_KIND_PUMP_REMOVE, 0},
    {"pump_install", PCS_STATION_KIND_PUMP_INSTALL, 1},
};
#define N_PUMP_CMDS (sizeof pump_cmds / sizeof pump_cmds[0])

int pcs_station_pump_command(const char *command)
{
    for (size_t i = 0; i < N_PUMP_CMDS; i++)
        if (strcmp(pump_cmds[i].name, command) == 0)
            return (int)i;
    return -1;
}

uint32_t pcs_station_pump_command_kind(uint32_t i)
{
    return i < N_PUMP_CMDS ? pump_cmds[i].kind : 0;
}

uint32_t pcs_station_name_number(const char *s, const char **end)
{
    uint32_t n = 0;
    int digits = 0;
    *end = s;
    if (*s < '1' || *s > '9')
        return 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (++digits > 9)
            return 0;
        n = 10u * n + (uint32_t)(*s - '0');
    }
    *end = s;
    return n;
}

/* "uN.pumpK" -> unit (1-based) and pump (1-based); 0 when not that form.
 * Not sscanf's %u: it takes a sign and spaces and wraps, so
 * "u1.pump4294967297" was u1.pump1. */
static int parse_pump(const char *target, uint32_t *unit, uint32_t *pump)
{
    const char *at;
    if (target[0] != 'u' || (*unit = pcs_station_name_number(target + 1, &at)) == 0 ||
        strncmp(at, ".pump", 5) != 0 || (*pump = pcs_station_name_number(at + 5, &at)) == 0 ||
        *at != '\0')
        return 0;
    return 1;
}

/* Unit @p unit and pump @p pump (1-based) exist in the station; else an
 * error naming @p what (the command or the place) and the ranges. */
static pcs_status pump_exists(const pcs_station *st, const char *what, uint32_t unit, uint32_t pump)
{
    if (!st->plant || unit < 1 || unit > st->n_units)
        return pcs_error_set(PCS_E_NOTFOUND, "%s: no unit u%u (units u1..u%u)", what, unit,
                             st->n_units);
    if (!pcs_station_unit_running(st, unit))
        return pcs_error_set(PCS_E_NOTFOUND, "%s: u%u was removed (unit_remove)", what, unit);
    if (st->units[unit - 1].model == PCS_PLANT_MODEL_SUMMARY)
        return pcs_error_set(PCS_E_NOTFOUND,
                             "%s: u%u is a summary unit (model summary): it has no pumps", what,
                             unit);
    uint32_t n = st->units[unit - 1].primary.n_loops;
    if (pump < 1 || pump > n)
        return pcs_error_set(PCS_E_NOTFOUND, "%s: no pump 'pump%u' in u%u (pump1..pump%u)", what,
                             pump, unit, n);
    return PCS_OK;
}

pcs_status pcs_station_pump_resolve(const pcs_station *st, int i, const char *where,
                                    const char *target, pcs_command *out)
{
    uint32_t unit = 0, pump = 0;
    if (!parse_pump(target, &unit, &pump))
        return pcs_error_set(PCS_E_NOTFOUND, "%s: '%s' is not a target of %s (target uN.pumpK)",
                             where, target, pump_cmds[i].name);
    char what[400];
    snprintf(what, sizeof what, "%s: %s of '%s'", where, pump_cmds[i].name, target);
    pcs_status rc = pump_exists(st, what, unit, pump);
    if (rc != PCS_OK)
        return rc;
    memset(out, 0, sizeof *out);
    out->kind = pump_cmds[i].kind;
    out->args[0] = unit;
    out->args[1] = pump;
    return PCS_OK;
}

/* The command's unit and pump (1-based), checked against the station. */
static pcs_status cmd_pump(const pcs_station *st, const pcs_command *c, const char *name,
                           uint32_t *unit, uint32_t *pump)
{
    double u = c->args[0], k = c->args[1];
    /* Whole numbers a uint32_t holds; pump_exists then names the station's ranges. */
    if (!(u >= 1.0 && u <= (double)UINT32_MAX && k >= 1.0 && k <= (double)UINT32_MAX) ||
        u != (uint32_t)u || k != (uint32_t)k)
        return pcs_error_set(PCS_E_INVAL,
                             "%s: args[0] unit %g and args[1] pump %g must be whole numbers from 1",
                             name, u, k);
    *unit = (uint32_t)u;
    *pump = (uint32_t)k;
    char what[64];
    snprintf(what, sizeof what, "%s", name);
    return pump_exists(st, what, *unit, *pump);
}

static unsigned char *pending(const pcs_station *st, uint32_t unit, uint32_t pump)
{
    return &st->pump_pending[(unit - 1) * PCS_PLANT_MAX_LOOPS + (pump - 1)];
}

static pcs_primary *primary_of(const pcs_station *st, uint32_t unit)
{
    return pcs_plant_unit_get(st->plant, unit - 1)->primary;
}

/* Stage 1: accept (one change per pump per tick) or refuse naming the
 * target and its state; an accepted change is announced by its event. */
static pcs_status check(pcs_world *w, const pcs_station *st, const pcs_command *c, int install)
{
    const char *name = pump_cmds[install].name;
    uint32_t unit, pump;
    pcs_status rc = pcs_station_log_unused(c, name, 2); /* what the log keeps, a load checks */
    if (rc == PCS_OK)
        rc = cmd_pump(st, c, name, &unit, &pump);
    if (rc != PCS_OK)
        return rc;
    pcs_primary *pr = primary_of(st, unit);
    int in = pcs_primary_pump_installed(w, pr, pump - 1);
    unsigned char *p = pending(st, unit, pump);
    if (*p)
        return pcs_error_set(PCS_E_STATE,
                             "%s: u%u.pump%u already has a %s accepted this tick (one change per "
                             "pump per tick)",
                             name, unit, pump, *p == 2 ? "pump_install" : "pump_remove");
    if (in == install)
        return pcs_error_set(PCS_E_STATE, "%s: u%u.pump%u is %s (%s)", name, unit, pump,
                             in ? "installed" : "removed",
                             in ? "pump_remove takes it out" : "pump_install puts it back");
    *p = (unsigned char)(install ? 2 : 1);
    const pcs_primary_stores s = pcs_primary_store_ids(pr);
    const double *speed = pcs_store_data(w, s.pump_speed), *flow = pcs_store_data(w, s.flow);
    uint32_t subject = PCS_PRIMARY_PUMP_SUBJECT(unit - 1, pump - 1);
    (void)pcs_event_emit(w, install ? PCS_EV_PRIMARY_PUMP_INSTALLED : PCS_EV_PRIMARY_PUMP_REMOVED,
                         subject, speed[pump - 1], flow[pcs_primary_pump_junction(pr, pump - 1)], 0,
                         0);
    return PCS_OK;
}

static pcs_status check_remove(pcs_world *w, void *ctx, const pcs_command *c)
{
    return check(w, ctx, c, 0);
}

static pcs_status check_install(pcs_world *w, void *ctx, const pcs_command *c)
{
    return check(w, ctx, c, 1);
}

/* The pump's entity "uN.pumpK", owned by its unit's, as station_entities.c
 * makes it. */
static pcs_status entity_create(pcs_world *w, uint32_t unit, uint32_t pump)
{
    char name[32], uname[16];
    snprintf(name, sizeof name, "u%u.pump%u", unit, pump);
    snprintf(uname, sizeof uname, "u%u", unit);
    pcs_entity_handle owner;
    pcs_entity_def d = pcs_entity_default();
    d.name = name;
    d.kind = PCS_STATION_ENTITY_PUMP;
    d.owner = pcs_entity_find(w, uname, &owner) == PCS_OK ? pcs_entity_id(w, owner) : 0;
    return pcs_entity_create(w, &d, NULL);
}

static pcs_status entity_destroy(pcs_world *w, uint32_t unit, uint32_t pump)
{
    char name[32];
    snprintf(name, sizeof name, "u%u.pump%u", unit, pump);
    pcs_entity_handle h;
    if (pcs_entity_find(w, name, &h) != PCS_OK)
        return PCS_OK; /* a world without the station's table */
    return pcs_entity_destroy(w, h);
}

/* After stage 13: the change (a no-op when the pump already is so). */
static pcs_status apply(pcs_world *w, const pcs_station *st, const pcs_command *c, int install)
{
    uint32_t unit, pump;
    pcs_status rc = cmd_pump(st, c, pump_cmds[install].name, &unit, &pump);
    if (rc != PCS_OK)
        return rc;
    *pending(st, unit, pump) = 0;
    pcs_primary *pr = primary_of(st, unit);
    if (pcs_primary_pump_installed(w, pr, pump - 1) == install)
        return PCS_OK;
    if (install) {
        rc = pcs_primary_pump_install(w, pr, pump - 1);
        if (rc == PCS_OK)
            rc = pcs_primary_pump_publish(w, pr, pump - 1);
        return rc == PCS_OK ? entity_create(w, unit, pump) : rc;
    }
    rc = entity_destroy(w, unit, pump);
    if (rc == PCS_OK)
        rc = pcs_primary_pump_unpublish(w, pr, pump - 1);
    return rc == PCS_OK ? pcs_primary_pump_remove(w, pr, pump - 1) : rc;
}

/* A load dropped the accepted change: the pump is free for the next one. */
static pcs_status dropped(pcs_world *w, void *ctx, const pcs_command *c)
{
    const pcs_station *st = ctx;
    uint32_t unit, pump;
    (void)w;
    if (cmd_pump(st, c, "pump change dropped by a load", &unit, &pump) == PCS_OK)
        *pending(st, unit, pump) = 0;
    return PCS_OK;
}

pcs_status pcs_station_log_unused(const pcs_command *c, const char *name, uint32_t n_used)
{
    if (c->target != 0)
        return pcs_error_set(PCS_E_INVAL,
                             "%s: target %u (allowed 0: the command names its place in args)", name,
                             c->target);
    for (uint32_t i = n_used; i < PCS_COMMAND_ARGS; i++)
        if (c->args[i] != 0.0)
            return pcs_error_set(PCS_E_INVAL, "%s: args[%u] %g (allowed 0: unused)", name, i,
                                 c->args[i]);
    return PCS_OK;
}

/* A load's check of a saved entry, before the log is re-applied: a pump of
 * a unit of the scenario (units built later included: the log may add them
 * first), not a summary unit, and nothing else set. */
static pcs_status validate(const pcs_world *w, void *ctx, const pcs_command *c)
{
    const pcs_station *st = ctx;
    int install = c->kind == PCS_STATION_KIND_PUMP_INSTALL;
    const char *name = pump_cmds[install].name;
    (void)w;
    pcs_status rc = pcs_station_log_unused(c, name, 2);
    if (rc != PCS_OK)
        return rc;
    double u = c->args[0], k = c->args[1];
    if (!(u >= 1.0 && u <= (double)st->n_all) || u != (uint32_t)u)
        return pcs_error_set(PCS_E_CORRUPT,
                             "%s: args[0] unit %g (allowed: a whole number, 1..%u, a unit of the "
                             "scenario)",
                             name, u, st->n_all);
    const pcs_plant_unit_def *d = &st->units[(uint32_t)u - 1];
    uint32_t n = d->model == PCS_PLANT_MODEL_SUMMARY ? 0 : d->primary.n_loops;
    if (!(k >= 1.0 && k <= (double)n) || k != (uint32_t)k)
        return pcs_error_set(
            PCS_E_CORRUPT, "%s: args[1] pump %g (allowed: a whole number, 1..%u, a pump of u%u%s)",
            name, k, n, (uint32_t)u, n ? "" : ": a summary unit, it has no pumps");
    return PCS_OK;
}

static pcs_status apply_remove(pcs_world *w, void *ctx, const pcs_command *c)
{
    return apply(w, ctx, c, 0);
}

static pcs_status apply_install(pcs_world *w, void *ctx, const pcs_command *c)
{
    return apply(w, ctx, c, 1);
}

pcs_status pcs_station_structure_add(pcs_station *st)
{
    if (!st->plant)
        return PCS_OK;
    st->pump_pending = calloc((size_t)st->n_all * PCS_PLANT_MAX_LOOPS, 1); /* later units too */
    if (!st->pump_pending)
        return pcs_error_set(PCS_E_NOMEM, "out of memory for the pump commands");
    pcs_command_fn checks[2] = {check_remove, check_install};
    pcs_command_fn applies[2] = {apply_remove, apply_install};
    for (size_t i = 0; i < N_PUMP_CMDS; i++) {
        pcs_structure_kind_def d = pcs_structure_kind_default();
        d.kind = pump_cmds[i].kind;
        d.name = pump_cmds[i].name;
        d.check = checks[pump_cmds[i].install];
        d.apply = applies[pump_cmds[i].install];
        d.dropped = dropped;
        d.validate = validate;
        d.ctx = st;
        pcs_status rc = pcs_structure_kind_register(st->world, &d);
        if (rc != PCS_OK)
            return rc;
    }
    return PCS_OK;
}
