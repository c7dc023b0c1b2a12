/**
 * @file event.c
 * @brief The per-tick event buffer, its overflow accounting and delivery.
 *
 * One buffer, cleared when a tick begins. The last slot is kept back so the
 * overflow event always fits: a tick that dropped events ends with exactly one
 * PCS_EV_EVENT_OVERFLOW carrying the count.
 *
 * The list is closed when stage 13 begins, so that stage's systems (the event
 * log) see the overflow event. Systems of stage 13 may still emit: a drop after
 * the close updates the overflow event (or creates it in the kept slot) at
 * once, so no drop goes unreported.
 *
 * Events T to T+1. A second buffer of the same capacity holds the last
 * completed tick's list while a tick runs, so a system of tick T reads the
 * events of T - 1 (pcs_world_events_previous) without a host in between. A
 * tick's list is copied into it when the tick commits: a failed tick does
 * not commit (world.c), so its partial list is discarded and the retry still
 * sees the last completed tick's events as the previous ones. The copy is a
 * few events a tick and allocates nothing. The last completed list is simulation state (a
 * protection system may act on it next tick): it is saved (persist.c,
 * section "events:previous") and in the state hash (hash.c). Command
 * rejections are left out of it at commit (they stay in the host's list): a
 * journal replay, which resubmits only accepted commands, could not
 * reproduce them.
 */
#include <string.h>

#include "engine/par_stage.h"
#include "engine/world_internal.h"

void pcs_events_begin_tick(pcs_world *w)
{
    w->events_committed = 0;
    w->n_events = 0;
    w->events_dropped_tick = 0;
    w->events_closed = 0;
    w->events_overflow = UINT32_MAX;
}

/* Write this tick's drop count into its overflow event, appending the event
 * in the kept last slot the first time. */
static void note_overflow(pcs_world *w)
{
    if (w->events_dropped_tick == 0)
        return;
    if (w->events_overflow == UINT32_MAX) {
        pcs_event *e = &w->events[w->n_events];
        e->kind = PCS_EV_EVENT_OVERFLOW;
        e->subject = 0;
        e->tick = w->clock.tick;
        e->values[1] = e->values[2] = e->values[3] = 0.0;
        w->events_overflow = w->n_events++;
    }
    w->events[w->events_overflow].values[0] = (double)w->events_dropped_tick;
}

void pcs_events_add_drops(pcs_world *w, uint64_t drops)
{
    if (!drops)
        return;
    w->events_dropped_tick += drops;
    w->events_dropped_total += drops;
    if (w->events_closed)
        note_overflow(w);
}

/* 1 if @p e was kept, 0 if the list was full and it counts as dropped. */
static int append(pcs_world *w, const pcs_event *e)
{
    if (w->n_events + 1 >= w->cfg.event_capacity) {
        pcs_events_add_drops(w, 1);
        return 0;
    }
    w->events[w->n_events++] = *e;
    return 1;
}

void pcs_events_append(pcs_world *w, const pcs_event *e)
{
    (void)append(w, e);
}

pcs_status pcs_event_emit(pcs_world *w, uint32_t kind, uint32_t subject, double v0, double v1,
                          double v2, double v3)
{
    if (!w)
        return pcs_error_set(PCS_E_INVAL, "pcs_event_emit: world is NULL");
    const pcs_event e = {
        .kind = kind, .subject = subject, .tick = w->clock.tick, .values = {v0, v1, v2, v3}};
    pcs_par_unit *u = pcs_par_current(w);
    if (u) /* a unit chunk of a parallel section (engine/par_stage.c) */
        return pcs_par_event_emit(u, &e);
    if (!append(w, &e))
        return pcs_error_set(PCS_E_OVERFLOW, "pcs_event_emit: %u events this tick fill the buffer",
                             w->n_events);
    return PCS_OK;
}

void pcs_events_end_tick(pcs_world *w)
{
    w->events_closed = 1;
    note_overflow(w);
}

void pcs_events_deliver(pcs_world *w)
{
    if (w->event_callback.fn && w->n_events)
        w->event_callback.fn(w->event_callback.ctx, w->events, w->n_events);
}

/* The completed list, copied into the previous-events buffer (the older
 * list is no longer needed), keeps the simulation's events only: command
 * rejections describe what a host submitted, not the plant, and a journal
 * replay resubmits only accepted commands, so it could not reproduce them
 * in the hashed and saved list. The host's list (`events`, this tick's until
 * the next begins) keeps them. Copied in order; at most the capacity. */
void pcs_events_commit(pcs_world *w)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->n_events; i++)
        if (w->events[i].kind != PCS_EV_COMMAND_REJECTED)
            w->events_prev[n++] = w->events[i];
    w->n_events_prev = n;
    w->events_committed = 1;
}

const pcs_event *pcs_events_last_completed(const pcs_world *w, uint32_t *count)
{
    *count = w->n_events_prev;
    return w->events_prev;
}

void pcs_events_restore(pcs_world *w, const pcs_event *events, uint32_t n)
{
    if (n) {
        if (events != w->events_prev)
            memcpy(w->events_prev, events, (size_t)n * sizeof *events);
        memcpy(w->events, w->events_prev, (size_t)n * sizeof *events);
    }
    w->n_events = n;
    w->n_events_prev = n;
    w->events_committed = 1;
}

const pcs_event *pcs_world_events_previous(const pcs_world *w, uint32_t *count)
{
    if (!w) {
        if (count)
            *count = 0;
        return NULL;
    }
    uint32_t n;
    const pcs_event *e = pcs_events_last_completed(w, &n);
    if (count)
        *count = n;
    return e;
}

const pcs_event *pcs_world_events(const pcs_world *w, uint32_t *count)
{
    if (!w) {
        if (count)
            *count = 0;
        return NULL;
    }
    if (count)
        *count = w->n_events;
    return w->events;
}

uint64_t pcs_world_events_dropped(const pcs_world *w)
{
    return w ? w->events_dropped_total : 0;
}

pcs_status pcs_world_set_event_callback(pcs_world *w, pcs_event_fn fn, void *ctx)
{
    if (!w)
        return pcs_error_set(PCS_E_INVAL, "pcs_world_set_event_callback: world is NULL");
    w->event_callback = (pcs_event_callback_rec){.fn = fn, .ctx = ctx};
    return PCS_OK;
}
