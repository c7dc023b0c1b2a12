/**
 * @file hash.c
 * @brief pcs_world_state_hash: XXH3-64 over the tick and every state store.
 *
 * Order is the determinism contract's: the tick, then each STATE store's byte
 * count and bytes in store-id (registration) order, then the last completed
 * tick's event list (its count, then its events' bytes: systems of the next
 * tick read it, event.h), then the structure log when it is not empty (its
 * count, then its commands' bytes: engine/structure.c; worlds without
 * structural change hash as before). Scratch stores are left out: they hold
 * nothing that survives a tick.
 */
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "engine/world_internal.h"

/* Hashed as bytes: no padding may carry indeterminate values. */
_Static_assert(sizeof(pcs_event) == 4 + 4 + 8 + 8 * PCS_EVENT_VALUES, "pcs_event has no padding");

uint64_t pcs_world_state_hash(const pcs_world *w)
{
    if (!w)
        return 0;
    XXH3_state_t state; /* on the stack: XXH3_createState would allocate */
    XXH3_64bits_reset(&state);
    uint64_t tick = w->clock.tick;
    XXH3_64bits_update(&state, &tick, sizeof tick);
    for (uint32_t i = 0; i < w->n_stores; i++) {
        const pcs_store_rec *s = &w->stores[i];
        if (s->kind != PCS_STORE_STATE)
            continue;
        uint64_t bytes = s->elem_size * s->count;
        XXH3_64bits_update(&state, &bytes, sizeof bytes);
        XXH3_64bits_update(&state, s->data, (size_t)bytes);
    }
    uint32_t n_events;
    const pcs_event *events = pcs_events_last_completed(w, &n_events);
    uint64_t n64 = n_events;
    XXH3_64bits_update(&state, &n64, sizeof n64);
    if (n_events)
        XXH3_64bits_update(&state, events, (size_t)n_events * sizeof *events);
    pcs_structure_hash(w, &state); /* the structure log, only when not empty */
    return XXH3_64bits_digest(&state);
}
