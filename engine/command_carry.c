/**
 * @file command_carry.c
 * @brief The events of a tick's commands, carried over the tick's failed
 *        attempts to the attempt that succeeds.
 *
 * The problem. A failed tick is retried at the same tick number and nothing
 * it did is rolled back (world.c, docs/ARCHITECTURE.md "The failed-tick
 * rule"). A command the failed attempt drained keeps its effect and its
 * journal entry and is not drained again; a structural change it accepted
 * stays queued for the retry's apply (structure.c). But what a command's
 * apply emitted (a handler's own event, such as the station's freeze and
 * thaw; the engine's command_rejected for a refused command; a structural
 * check's announcement) went into the failed attempt's event list, which is
 * discarded (event.c: a failed tick commits nothing). Without a carry no
 * committed list would ever hold those events, and a journal replay, which
 * applies each command once at its tick, would: the live run and its
 * replay would differ in the hashed previous-events list.
 *
 * The rule. Every event emitted while a command is applied at stage 1
 * (command.c, apply) is copied here, with its command's journal index (or
 * REJECTED). Each attempt's stage 1 emits everything carried, in order,
 * before its own drain: so the attempt that succeeds holds each command of
 * its tick exactly once, the failed attempts' first (they were drained
 * first, and the journal has them first), then its own, each command's
 * events at its drain position: the list an uninterrupted run, or a replay
 * of the journal, has at that tick. When an attempt succeeds the carry is
 * emptied (pcs_command_carry_clear from world.c); a load empties it too
 * (the events belong to the world the load replaced). The carry also keeps
 * where the tick's journal entries begin (pcs_journal_tick_start), for a
 * stage-1 reader of the tick's commands: it ends with the carry, so a load
 * back to a tick number already run is not taken for a retry of it.
 *
 * An attempt that fails after stage 13's delivery (a plugin's after_step,
 * a structural apply) has already shown the host its list; the retry's
 * list shows its commands again, and the committed list holds them once.
 * A structural change whose apply failed is withdrawn from the journal
 * (command.c, pcs_journal_withdraw), and its events leave the carry with it
 * (pcs_command_carry_forget): a replay never applies it, so the committed
 * list must not announce it.
 *
 * The bound. The carry holds event_capacity events, allocated with the
 * world; a tick allocates nothing. It cannot fill: each attempt emits
 * everything carried before its drain, and only events its list kept are
 * added, so the carry never holds more than one list does (event_capacity -
 * 1). An event the list dropped during a drain (the list was full) is
 * counted, and each later attempt adds that count to its list's drops, so
 * its overflow event reports it as the failed attempt's did. A tick without
 * a failed attempt copies the few events its commands emit and clears them.
 */
#include <string.h>

#include "engine/world_internal.h"

/* The owner of a rejected command's events: never withdrawn. */
#define REJECTED UINT64_MAX

struct pcs_command_carry {
    pcs_event *events; /* event_capacity, in drain order over the tick's attempts */
    uint64_t *owner;   /* event_capacity: the journal index of each event's command */
    uint32_t n;
    uint64_t dropped;       /* events the lists dropped while a command was applied */
    uint64_t journal_start; /* the tick's first journal index (pcs_journal_tick_start) */
    int open;               /* an attempt at this tick reached stage 1 and none succeeded */
};

pcs_status pcs_command_carry_create(pcs_world *w)
{
    pcs_command_carry *c = pcs_mem_alloc(&w->mem, sizeof *c);
    if (!c)
        return pcs_error_set(PCS_E_NOMEM, "commands: out of memory for the event carry");
    memset(c, 0, sizeof *c);
    c->events = pcs_mem_array(&w->mem, w->cfg.event_capacity, sizeof *c->events);
    c->owner = pcs_mem_array(&w->mem, w->cfg.event_capacity, sizeof *c->owner);
    if (!c->events || !c->owner)
        return pcs_error_set(PCS_E_NOMEM, "commands: out of memory for the event carry (%u)",
                             w->cfg.event_capacity);
    w->carry = c;
    return PCS_OK;
}

void pcs_command_carry_announce(pcs_world *w)
{
    pcs_command_carry *c = w->carry;
    if (!c->open) { /* the tick's first attempt to reach stage 1 */
        c->journal_start = pcs_journal_count(w);
        c->open = 1;
    }
    if (c->n == 0 && c->dropped == 0)
        return; /* the common case: no failed attempt at this tick */
    for (uint32_t i = 0; i < c->n; i++) {
        pcs_event e = c->events[i];
        e.tick = w->clock.tick; /* the same tick: a retry does not advance the clock */
        pcs_events_append(w, &e);
    }
    pcs_events_add_drops(w, c->dropped);
}

void pcs_command_carry_keep(pcs_world *w, uint32_t first_event, uint64_t dropped_before,
                            int journaled, uint64_t journal_index)
{
    pcs_command_carry *c = w->carry;
    uint64_t owner = journaled ? journal_index : REJECTED;
    for (uint32_t i = first_event; i < w->n_events; i++) {
        if (c->n < w->cfg.event_capacity) { /* always (the file comment's bound) */
            c->events[c->n] = w->events[i];
            c->owner[c->n++] = owner;
        } else {
            c->dropped++;
        }
    }
    c->dropped += w->events_dropped_tick - dropped_before;
}

void pcs_command_carry_forget(pcs_world *w, uint64_t journal_index)
{
    pcs_command_carry *c = w->carry;
    uint32_t k = 0;
    for (uint32_t i = 0; i < c->n; i++)
        if (c->owner[i] != journal_index) {
            c->events[k] = c->events[i];
            c->owner[k++] = c->owner[i];
        }
    c->n = k;
}

void pcs_command_carry_clear(pcs_world *w)
{
    w->carry->n = 0;
    w->carry->dropped = 0;
    w->carry->open = 0;
}

uint64_t pcs_journal_tick_start(const pcs_world *w)
{
    if (!w)
        return 0;
    return w->carry->open ? w->carry->journal_start : pcs_journal_count(w);
}
