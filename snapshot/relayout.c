/**
 * @file relayout.c
 * @brief A structural change that changed the channel set: a new layout, published, swapped in; the
 * old one retired.
 *
 * World thread, at the structural commit (structure.h: after stage 13 and
 * the plugins' after_step, before the clock advances), the one tick that
 * may allocate. In order:
 *   1. build the new layout L' and its N buffers (layout.c);
 *   2. write its first publication, number published + 1: the tick just
 *      run, its values as the commit left them (publish.c), so a reader
 *      that enters L' finds a complete buffer at once, also while paused;
 *   3. store current = L' (seq_cst: hazard.c's swap S, and the release that
 *      makes 1 and 2 visible to whoever reads L' from `current`);
 *   4. store published (release) and wake waiters, as stage 12 does;
 *   5. retire the old layout: freed at once if no reader announces it,
 *      else at a later publication (hazard.c).
 * Step 3 before step 4 is what lets a reader that acquired the new
 * publication number find it in the layout it enters next (reader.c).
 * Later publications go to L'. A commit that changed no channel changes
 * nothing here and allocates nothing.
 */
#include <stdlib.h>

#include "pcsim/structure.h"
#include "snapshot/pool.h"

pcs_status pcs_snapshot_relayout(pcs_snapshot_pool *pool, const uint8_t *live, uint32_t id_range,
                                 uint64_t version)
{
    pcs_layout *old = pool->cur;
    if (id_range < old->id_range)
        return pcs_error_set(PCS_E_INVAL,
                             "snapshot relayout to version %llu: %u channel ids, fewer than the "
                             "%u of version %llu (ids are never reused)",
                             (unsigned long long)version, id_range, old->id_range,
                             (unsigned long long)old->version);
    for (uint32_t id = 0; id < old->id_range; id++)
        if (live[id] && old->slot[id] == PCS_SLOT_RETIRED)
            return pcs_error_set(PCS_E_INVAL,
                                 "snapshot relayout to version %llu: channel %u was retired at "
                                 "version %llu and cannot be live again",
                                 (unsigned long long)version, id,
                                 (unsigned long long)old->retired_at[id]);
    pcs_layout *L;
    pcs_status st = pcs_layout_build(pool, old, live, id_range, version, &L);
    if (st != PCS_OK)
        return st;
    pool->known_channels = pcs_channel_count(pool->world);
    pcs_publish_layout(pool, L); /* 1, 2 */
    pool->cur = L;
    atomic_store_explicit(&pool->current, L, memory_order_seq_cst); /* 3 */
    atomic_store_explicit(&pool->cur_range, L->id_range, memory_order_relaxed);
    atomic_store_explicit(&pool->cur_hash, L->hash, memory_order_relaxed);
    atomic_store_explicit(&pool->cur_version, L->version, memory_order_relaxed);
    pcs_publish_announce_layout(pool, L); /* 4 */
    pcs_layout_retire(pool, old);         /* 5 */
    return PCS_OK;
}

pcs_status pcs_snapshot_structure_changed(pcs_world *w, void *ctx,
                                          const pcs_structure_change *change)
{
    pcs_snapshot_pool *pool = ctx;
    if (!change->channels_added && !change->channels_retired)
        return PCS_OK;
    uint32_t n = pcs_channel_count(w);
    uint8_t *live = malloc(n ? n : 1u); /* the structural tick may allocate */
    if (!live)
        return pcs_error_set(PCS_E_NOMEM, "pcs.snapshot relayout: cannot allocate %u bytes", n);
    for (uint32_t id = 0; id < n; id++)
        live[id] = pcs_channel_live(w, id) != 0;
    pcs_status st = pcs_snapshot_relayout(pool, live, n, change->layout_version);
    free(live);
    return st;
}
