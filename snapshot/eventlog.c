/**
 * @file eventlog.c
 * @brief Stage 13: append the tick's events to a broadcast ring; readers poll it.
 *
 * Events are numbered 0, 1, 2 ... (64-bit, never wraps in practice) and event
 * e lives in slot e & (capacity - 1). Each slot is a seqlock block (seqlock.h)
 * that also stores the event's number, so a reader can tell "the event I
 * want" from "a newer event that overwrote it". `event_head` (release) counts
 * the events appended; every event below it has been completely written once.
 *
 * Reader with cursor c (the next event it wants), head h (acquire):
 *  - if h - c > capacity, events c .. h - capacity - 1 were certainly
 *    overwritten (event x is overwritten by x + capacity <= h - 1): count them
 *    as missed and move c to h - capacity;
 *  - read slot c under its seqlock; a valid read whose number is c is event c,
 *    whole; anything else (odd seq, changed seq, other number) means the
 *    writer has lapped it: event c is gone. Count and skip it (and everything
 *    older than h' - capacity for a fresh head h'), never return it.
 * The cursor only moves forward, and each number it passes is either returned
 * once or counted missed once, so returned + missed equals the events
 * appended since the reader opened. A gap found after some events were taken
 * ends the call, so a call's missed events all precede its first event.
 * The writer never looks at the readers.
 */
#include "snapshot/pool.h"

static void write_slot(pcs_word *slot, uint64_t number, const pcs_event *e)
{
    uint64_t end = pcs_seq_write_begin(&slot[PCS_EVW_SEQ]);
    pcs_word_put(&slot[PCS_EVW_NUMBER], number);
    pcs_word_put(&slot[PCS_EVW_KIND_SUBJECT], (uint64_t)e->kind | (uint64_t)e->subject << 32);
    pcs_word_put(&slot[PCS_EVW_TICK], e->tick);
    for (uint32_t k = 0; k < PCS_EVENT_VALUES; k++)
        pcs_word_put(&slot[PCS_EVW_VALUES + k], pcs_f64_bits(e->values[k]));
    pcs_seq_write_end(&slot[PCS_EVW_SEQ], end);
}

pcs_status pcs_eventlog_system(pcs_world *w, void *ctx)
{
    pcs_snapshot_pool *pool = ctx;
    uint32_t n = 0;
    const pcs_event *events = pcs_world_events(w, &n);
    if (n == 0)
        return PCS_OK;
    uint64_t mask = pool->event_capacity - 1u;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t number = pool->n_events++;
        write_slot(pool->events + (size_t)(number & mask) * PCS_EVW_WORDS, number, &events[i]);
    }
    atomic_store_explicit(&pool->event_head, pool->n_events, memory_order_release);
    return PCS_OK;
}

/* Read slot of event @p number; 1 if it still holds that event, whole. */
static int read_slot(const pcs_word *slot, uint64_t number, pcs_event *out)
{
    uint64_t s1 = pcs_seq_read_begin(&slot[PCS_EVW_SEQ]);
    if (s1 & 1u)
        return 0;
    uint64_t got = pcs_word_get(&slot[PCS_EVW_NUMBER]);
    uint64_t ks = pcs_word_get(&slot[PCS_EVW_KIND_SUBJECT]);
    pcs_event e;
    e.kind = (uint32_t)ks;
    e.subject = (uint32_t)(ks >> 32);
    e.tick = pcs_word_get(&slot[PCS_EVW_TICK]);
    for (uint32_t k = 0; k < PCS_EVENT_VALUES; k++)
        e.values[k] = pcs_bits_f64(pcs_word_get(&slot[PCS_EVW_VALUES + k]));
    if (!pcs_seq_read_ok(&slot[PCS_EVW_SEQ], s1) || got != number)
        return 0;
    *out = e;
    return 1;
}

/* Oldest event number that may still be in the ring when @p head were appended. */
static uint64_t oldest_kept(uint64_t head, uint32_t capacity)
{
    return head > capacity ? head - capacity : 0;
}

pcs_status pcs_events_poll(pcs_reader *r, pcs_event *out, uint32_t max, uint32_t *count,
                           uint64_t *missed)
{
    if (!r || !count || (max && !out))
        return pcs_error_set(PCS_E_INVAL, "pcs_events_poll: reader or count is NULL, or out "
                                          "is NULL with max > 0");
    const pcs_snapshot_pool *pool = r->pool;
    uint64_t mask = pool->event_capacity - 1u;
    uint64_t head = atomic_load_explicit(&pool->event_head, memory_order_acquire);
    uint64_t c = r->event_cursor;
    uint64_t lost = 0;
    if (oldest_kept(head, pool->event_capacity) > c) {
        lost += oldest_kept(head, pool->event_capacity) - c;
        c = oldest_kept(head, pool->event_capacity);
    }
    uint32_t n = 0;
    while (n < max && c < head) {
        if (read_slot(pool->events + (size_t)(c & mask) * PCS_EVW_WORDS, c, &out[n])) {
            n++;
            c++;
            continue;
        }
        if (n > 0)
            break; /* report this gap on the next call, before its first event */
        /* Event c was overwritten; so was everything before the ring's
         * oldest slot for the newest head. Skip at least c itself. */
        head = atomic_load_explicit(&pool->event_head, memory_order_acquire);
        uint64_t next = oldest_kept(head, pool->event_capacity);
        if (next <= c)
            next = c + 1;
        lost += next - c;
        c = next;
    }
    r->event_cursor = c;
    r->stats.events_read += n;
    r->stats.events_missed += lost;
    *count = n;
    if (missed)
        *missed = lost;
    return PCS_OK;
}
