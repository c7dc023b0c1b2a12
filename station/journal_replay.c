/**
 * @file journal_replay.c
 * @brief pcs_replay: a journal's commands queued at their ticks on a station
 *        built from its scenario, and the final state hash compared; first
 *        the journal's header checked against that station, so a journal of
 *        another build is refused naming the value that differs rather than
 *        replayed into a different hash.
 */
#include <inttypes.h>
#include <string.h>

#include "pcsim/clock.h"
#include "pcsim/event.h"
#include "pcsim/structure.h"
#include "station/journal.h"
#include "station/station_internal.h"

/* The journal was written by this build of this scenario, with its seed. */
static pcs_status check_build(const pcs_station *st, const pcs_journal_file *j)
{
    const pcs_world_def *cfg = pcs_world_def_get(st->world);
    return journal_check_build(j, cfg->build_hash, cfg->seed, st->source);
}

/* The run the journal records started where this world is. */
static pcs_status check_start(const pcs_station *st, const pcs_journal_file *j)
{
    uint64_t now = pcs_world_clock(st->world)->tick;
    if (j->j.start_tick == now)
        return PCS_OK;
    return pcs_error_set(PCS_E_INVAL,
                         "%s:%u: the run started at tick %" PRIu64 "%s; a replay from tick "
                         "%" PRIu64 " cannot match%s",
                         j->name, j->j.item_line[3], j->j.start_tick,
                         j->j.start_tick ? " (resumed from a save)" : "", now,
                         j->j.start_tick ? ": load that save first" : "");
}

/* No tick holds more commands than the world drains on one: more than
 * commands_per_tick never come from a run of this scenario. */
static pcs_status check_crowding(const pcs_station *st, const pcs_journal_file *j)
{
    uint32_t limit = pcs_world_def_get(st->world)->commands_per_tick, same = 0;
    const journal *p = &j->j;
    for (uint32_t i = 0; i < p->n_actions; i++) {
        same = (i && p->actions[i].tick == p->actions[i - 1].tick) ? same + 1 : 1;
        if (same > limit)
            return pcs_error_set(PCS_E_INVAL,
                                 "%s:%u: more than %u commands at tick %" PRIu64
                                 " (the scenario's commands_per_tick): not a journal of this "
                                 "scenario",
                                 j->name, p->lines[i], limit, p->actions[i].tick);
    }
    return PCS_OK;
}

/* Each "# kind" line names a command this station knows, with the same kind. */
static pcs_status check_kinds(const pcs_station *st, const pcs_journal_file *j)
{
    for (uint32_t i = 0; i < j->j.n_kinds; i++) {
        const journal_kind *k = &j->j.kinds[i];
        uint32_t kind;
        if (pcs_station_command_kind(st, k->name, &kind) != PCS_OK)
            return pcs_error_set(PCS_E_INVAL,
                                 "%s:%u: kind '%s' is %u in the journal; the station (%s) has "
                                 "no such command",
                                 j->name, k->line, k->name, k->kind, st->source);
        if (kind != k->kind)
            return pcs_error_set(PCS_E_INVAL,
                                 "%s:%u: kind '%s' is %u in the journal, %u in the station (%s)",
                                 j->name, k->line, k->name, k->kind, kind, st->source);
    }
    return PCS_OK;
}

/* Target line @p t names a target of this world with its id, now. The
 * lines are checked when the first command after them is queued, not at
 * the start, since a structural change (pcsim/structure.h) registers
 * targets while the world runs (a reinstalled pump's new generation; an
 * added unit's targets), and the replay has re-applied those changes by
 * then. */
static pcs_status check_target(const pcs_station *st, const pcs_journal_file *j,
                               const journal_target *t, uint64_t tick)
{
    pcs_target_id id;
    if (pcs_command_target_find(st->world, t->name, &id) != PCS_OK)
        return pcs_error_set(PCS_E_INVAL,
                             "%s:%u: target '%s' is %u in the journal; the station (%s) has "
                             "no such target at tick %" PRIu64,
                             j->name, t->line, t->name, t->id, st->source, tick);
    if (pcs_target_id_store(id) != t->id)
        return pcs_error_set(PCS_E_INVAL,
                             "%s:%u: target '%s' is %u in the journal, %u in the station (%s) "
                             "at tick %" PRIu64,
                             j->name, t->line, t->name, t->id, pcs_target_id_store(id), st->source,
                             tick);
    return PCS_OK;
}

/* Check the target lines before journal line @p line not checked yet
 * (*@p next is the first unchecked one). */
static pcs_status check_targets_before(const pcs_station *st, const pcs_journal_file *j,
                                       uint32_t line, uint64_t tick, uint32_t *next)
{
    const journal *p = &j->j;
    for (; *next < p->n_targets && p->targets[*next].line < line; (*next)++) {
        pcs_status rc = check_target(st, j, &p->targets[*next], tick);
        if (rc != PCS_OK)
            return rc;
    }
    return PCS_OK;
}

/* A command whose kind the station names but the journal's table does not
 * was recorded by a build that may have meant another command by it. */
static pcs_status check_command_kinds(const pcs_station *st, const pcs_journal_file *j)
{
    const char *named[PCS_COMMAND_KINDS_MAX] = {0};
    uint8_t listed[PCS_COMMAND_KINDS_MAX] = {0};
    uint32_t kind;
    for (uint32_t i = 0; i < pcs_station_command_name_count(); i++)
        if (pcs_station_command_kind(st, pcs_station_command_name(i), &kind) == PCS_OK)
            named[kind] = pcs_station_command_name(i);
    for (uint32_t i = 0; i < j->j.n_kinds; i++)
        listed[j->j.kinds[i].kind] = 1;
    for (uint32_t i = 0; i < j->j.n_actions; i++) {
        kind = j->j.actions[i].cmd.kind;
        if (named[kind] && !listed[kind])
            return pcs_error_set(PCS_E_INVAL,
                                 "%s:%u: command kind %u is not in the journal's kind table; "
                                 "it is '%s' in the station (%s)",
                                 j->name, j->j.lines[i], kind, named[kind], st->source);
    }
    return PCS_OK;
}

/* Line @p i's command as the journal holds it (the queue sets the rest). */
static pcs_command journal_command(const journal *p, uint32_t i)
{
    pcs_command c = {.kind = p->actions[i].cmd.kind,
                     .target = p->actions[i].cmd.target,
                     .tick = p->actions[i].tick};
    memcpy(c.args, p->actions[i].cmd.args, sizeof c.args);
    return c;
}

/* A structural command's own fields, as its kind's validate holds them (a
 * load's check of a saved log entry, and a part of what stage 1 checks): a
 * line this refuses is one no run applied. Checked here, at the line:
 * queued, a hand-edited unit_add or pump_remove was only rejected at its
 * tick, and the replay failed ticks later at a target line of the unit or
 * pump it had not changed, naming neither the line nor what was wrong. */
static pcs_status check_structure_fields(const pcs_station *st, const pcs_journal_file *j)
{
    const journal *p = &j->j;
    for (uint32_t i = 0; i < p->n_actions; i++) {
        pcs_command c = journal_command(p, i);
        if (pcs_structure_command_validate(st->world, &c) != PCS_OK)
            return pcs_error_set(PCS_E_INVAL,
                                 "%s:%u: %s; no run applies it (fields 3 to 7 of a command "
                                 "line are its target and args[0] to args[3])",
                                 j->name, p->lines[i], pcs_last_error());
    }
    return PCS_OK;
}

pcs_status pcs_replay_check(const pcs_station *st, const pcs_journal_file *j)
{
    if (!st || !j)
        return pcs_error_set(PCS_E_INVAL, "pcs_replay_check: NULL argument");
    /* The header's checks in order; the first failure is the answer. */
    static pcs_status (*const checks[])(const pcs_station *, const pcs_journal_file *) = {
        check_build, check_start,         check_crowding,
        check_kinds, check_command_kinds, check_structure_fields};
    pcs_status rc = PCS_OK;
    for (size_t i = 0; rc == PCS_OK && i < sizeof checks / sizeof checks[0]; i++)
        rc = checks[i](st, j);
    return rc;
}

/* Queue the commands of @p tick from *at on; the check bounded them to what
 * the source holds and the world drains on one tick. */
static pcs_status queue_tick(const pcs_station *st, const pcs_journal_file *j,
                             pcs_command_source *src, uint64_t tick, uint32_t *at,
                             uint32_t *target_at)
{
    const journal *p = &j->j;
    for (; *at < p->n_actions && p->actions[*at].tick == tick; (*at)++) {
        pcs_status rc = check_targets_before(st, j, p->lines[*at], tick, target_at);
        if (rc != PCS_OK)
            return rc;
        pcs_command c = journal_command(p, *at);
        c.tick = 0; /* set when applied */
        if (pcs_command_source_submit(src, &c) != PCS_OK)
            return pcs_error_set(PCS_E_STATE, "%s:%u: cannot queue the command: %s", j->name,
                                 p->lines[*at], pcs_last_error());
    }
    return PCS_OK;
}

/* The replay's command source and what it has applied so far. */
typedef struct replay_source {
    pcs_command_source *src;
    uint16_t cls;
    uint32_t id;
    uint64_t cursor; /**< next entry of the world's journal to compare */
} replay_source;

static pcs_status open_source(pcs_world *w, const pcs_replay_opts *o, replay_source *rs)
{
    rs->cls = o && o->source_class ? o->source_class : 2;
    rs->id = o && o->source_class ? o->source_id : 1;
    rs->cursor = pcs_journal_count(w);
    return pcs_command_source_open(w, rs->cls, rs->id, PCS_JOURNAL_TICK_COMMANDS_MAX, &rs->src);
}

/* The journal's entry @p e is line @p i's command. */
static int same_command(const pcs_command *e, const journal *p, uint32_t i)
{
    return e->kind == p->actions[i].cmd.kind && e->target == p->actions[i].cmd.target &&
           e->tick == p->actions[i].tick &&
           memcmp(e->args, p->actions[i].cmd.args, sizeof e->args) == 0;
}

/* Line @p i's command was not applied at its tick: say which line, which
 * command and why, as far as the world's events tell (its rejection event
 * carries its sequence, which is @p i: the replay opened its source and
 * submits every line once, in order). */
static pcs_status not_applied(const pcs_world *w, const pcs_journal_file *j,
                              const replay_source *rs, uint32_t i)
{
    const journal *p = &j->j;
    const char *name = "command";
    for (uint32_t k = 0; k < p->n_kinds; k++)
        if (p->kinds[k].kind == p->actions[i].cmd.kind)
            name = p->kinds[k].name;
    uint32_t n = 0;
    const pcs_event *ev = pcs_world_events(w, &n);
    const char *why = NULL;
    for (uint32_t k = 0; k < n && !why; k++)
        if (ev[k].kind == PCS_EV_COMMAND_REJECTED && ev[k].values[0] == (double)rs->cls &&
            ev[k].values[1] == (double)rs->id && ev[k].values[2] == (double)i)
            why = pcs_status_str((pcs_status)(int)ev[k].values[3]);
    return pcs_error_set(PCS_E_INVAL,
                         "%s:%u: tick %" PRIu64 ": %s (kind %u) was %s%s%s; the journal "
                         "holds only commands the run applied, so this line is not one of "
                         "them (duplicated or edited?) and the replay does not reproduce the run",
                         j->name, p->lines[i], p->actions[i].tick, name, p->actions[i].cmd.kind,
                         why ? "rejected by the replay (" : "not applied at its tick by the replay",
                         why ? why : "", why ? ")" : "");
}

/* After tick @p tick, which queued lines [@p first, @p end): each was
 * applied, in order, as the world's journal shows (other sources' entries
 * skipped; read after every tick, so the cursor keeps up with them). A
 * rejected command changes no state, so without this a replay with a
 * duplicated or edited line could still end on the journal's hash and say
 * it matched a run that never applied that line. */
static pcs_status check_applied(const pcs_world *w, const pcs_journal_file *j, replay_source *rs,
                                uint64_t tick, uint32_t first, uint32_t end)
{
    const journal *p = &j->j;
    pcs_command buf[64];
    uint32_t n, at = first;
    uint64_t missed = 0;
    while ((n = pcs_journal_read(w, &rs->cursor, buf, 64, &missed)) > 0) {
        if (missed)
            break;
        for (uint32_t k = 0; k < n; k++) {
            if (buf[k].source_class != rs->cls || buf[k].source_id != rs->id)
                continue;
            /* Every earlier line was applied at its own tick (checked then),
             * so an entry of this source is one of this tick's, in order. */
            if (at < end && !same_command(&buf[k], p, at))
                return not_applied(w, j, rs, at);
            at += at < end;
        }
    }
    if (missed)
        return pcs_error_set(PCS_E_OVERFLOW,
                             "%s: tick %" PRIu64 ": %" PRIu64 " applied commands left the "
                             "world's journal before the replay compared them (journal_capacity "
                             "%u)",
                             j->name, tick, missed, pcs_world_def_get(w)->journal_capacity);
    return at < end ? not_applied(w, j, rs, at) : PCS_OK;
}

pcs_status pcs_replay(pcs_station *st, const pcs_journal_file *j, const pcs_replay_opts *opts,
                      pcs_replay_result *out)
{
    pcs_replay_result r = {0};
    if (out)
        *out = r;
    pcs_status rc = pcs_replay_check(st, j);
    if (rc != PCS_OK)
        return rc;
    r.journal_hash = j->j.want_hash;
    pcs_world *w = st->world;
    replay_source rs = {0};
    if (open_source(w, opts, &rs) != PCS_OK)
        return pcs_error_set(PCS_E_STATE, "%s: replay command source: %s", j->name,
                             pcs_last_error());
    uint32_t at = 0, target_at = 0;
    for (uint64_t tick = pcs_world_clock(w)->tick; rc == PCS_OK && tick < j->j.end_tick; tick++) {
        uint32_t first = at;
        rc = queue_tick(st, j, rs.src, tick, &at, &target_at);
        if (rc != PCS_OK)
            break;
        if (opts && opts->before_tick)
            opts->before_tick(opts->ctx, tick);
        rc = pcs_world_tick(w);
        if (rc != PCS_OK) {
            pcs_error_set(rc, "%s: tick %" PRIu64 " failed: %s", j->name, tick, pcs_last_error());
            break;
        }
        r.ticks_run++;
        if ((rc = check_applied(w, j, &rs, tick, first, at)) != PCS_OK)
            break;
        if (opts && opts->after_tick)
            opts->after_tick(opts->ctx, tick);
    }
    if (rc == PCS_OK) {
        r.completed = 1;
        r.final_hash = pcs_world_state_hash(w);
        if (r.final_hash != r.journal_hash)
            rc = pcs_error_set(PCS_E_CORRUPT,
                               "%s: final hash %016" PRIx64
                               " differs from the journal's %016" PRIx64,
                               j->name, r.final_hash, r.journal_hash);
    }
    if (out)
        *out = r;
    return rc;
}
