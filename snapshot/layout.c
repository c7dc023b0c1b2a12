/**
 * @file layout.c
 * @brief Building a channel layout (ids -> slots, gather runs, name index, buffers) and freeing it.
 *
 * World thread only: at attach (every channel live) and at a structural
 * commit that changed the channel set (relayout.c), the one tick that may
 * allocate. The block is the C heap's, not the world heap's, because a
 * retired layout is freed while the world runs (hazard.c says when).
 *
 * Ids are never reused (structure.h), so a live id names the same channel in
 * every layout and a retired id stays retired: retired_at keeps the version
 * that retired it, copied forward from layout to layout, for the reader's
 * error message.
 */
#include <stdlib.h>
#include <string.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "snapshot/pool.h"

/* Bytes rounded up to a cache line, so every piece of the block is aligned. */
static size_t line(size_t bytes)
{
    return (bytes + 63u) & ~(size_t)63u;
}

static uint32_t name_slot(const char *name, uint32_t mask)
{
    return (uint32_t)XXH3_64bits(name, strlen(name)) & mask;
}

uint32_t pcs_layout_find(const pcs_layout *L, const char *name)
{
    for (uint32_t s = name_slot(name, L->name_mask);; s = (s + 1u) & L->name_mask) {
        uint32_t e = L->names[s];
        if (e == 0)
            return UINT32_MAX;
        if (strcmp(L->channels[e - 1u].name, name) == 0)
            return e - 1u;
    }
}

/* The sizes of the block's pieces (layout.h's memory map). */
typedef struct layout_sizes {
    size_t head, slot, retired, channels, runs, names, buffers;
    uint32_t name_cap;
} layout_sizes;

static layout_sizes sizes_of(uint32_t id_range, uint32_t n_live, uint32_t n_buffers, size_t stride)
{
    layout_sizes z = {.name_cap = 2};
    while (z.name_cap < 2u * n_live)
        z.name_cap *= 2u;
    z.head = line(sizeof(pcs_layout));
    z.slot = line((size_t)id_range * sizeof(uint32_t));
    z.retired = line((size_t)id_range * sizeof(uint64_t));
    z.channels = line((size_t)id_range * sizeof(pcs_channel_info));
    z.runs = line(((size_t)n_live + 1u) * sizeof(pcs_gather_run));
    z.names = line((size_t)z.name_cap * sizeof(uint32_t));
    z.buffers = (size_t)n_buffers * stride * sizeof(pcs_word);
    return z;
}

/* Channel infos, slots, retirement versions, name index and hash of @p L. */
static pcs_status fill_map(pcs_snapshot_pool *pool, pcs_layout *L, const pcs_layout *prev,
                           const uint8_t *live, uint32_t *slot, uint64_t *retired_at,
                           pcs_channel_info *ch, uint32_t *names)
{
    XXH3_state_t state; /* on the stack: XXH3_createState would allocate */
    XXH3_64bits_reset(&state);
    uint32_t n = 0;
    for (uint32_t id = 0; id < L->id_range; id++) {
        if (live && !live[id]) {
            slot[id] = PCS_SLOT_RETIRED;
            int was_retired = prev && id < prev->id_range && prev->retired_at[id];
            retired_at[id] = was_retired ? prev->retired_at[id] : L->version;
            ch[id] = (pcs_channel_info){.name = "", .unit = "", .store = UINT32_MAX};
            continue;
        }
        pcs_status st = pcs_channel_get(pool->world, id, &ch[id]);
        if (st != PCS_OK)
            return st;
        uint32_t kind = (uint32_t)ch[id].kind;
        XXH3_64bits_update(&state, ch[id].name, strlen(ch[id].name) + 1);
        XXH3_64bits_update(&state, ch[id].unit, strlen(ch[id].unit) + 1);
        XXH3_64bits_update(&state, &kind, sizeof kind);
        uint32_t s = name_slot(ch[id].name, L->name_mask);
        while (names[s])
            s = (s + 1u) & L->name_mask;
        names[s] = id + 1u;
        slot[id] = n++;
    }
    L->identity = n == L->id_range;
    if (!L->identity) /* the ids matter once they are not 0..n-1 */
        for (uint32_t id = 0; id < L->id_range; id++)
            if (slot[id] != PCS_SLOT_RETIRED)
                XXH3_64bits_update(&state, &id, sizeof id);
    /* Without a retired id the hash is the one attach has always computed
     * (names, units and kinds in id order), so recorders' columns match. */
    L->hash = XXH3_64bits_digest(&state);
    return PCS_OK;
}

pcs_status pcs_layout_build(pcs_snapshot_pool *pool, const pcs_layout *prev, const uint8_t *live,
                            uint32_t id_range, uint64_t version, pcs_layout **out)
{
    uint32_t n_live = 0;
    for (uint32_t id = 0; id < id_range; id++)
        n_live += !live || live[id];
    /* Header plus one word per live channel, rounded up to whole cache lines. */
    size_t stride = ((size_t)PCS_HDR_WORDS + n_live + 7u) & ~(size_t)7u;
    layout_sizes z = sizes_of(id_range, n_live, pool->n_buffers, stride);
    size_t total = z.head + z.slot + z.retired + z.channels + z.runs + z.names + z.buffers;
    char *block = aligned_alloc(64, total);
    if (!block)
        return pcs_error_set(PCS_E_NOMEM,
                             "snapshot layout %llu: cannot allocate %zu bytes for %u channels",
                             (unsigned long long)version, total, id_range);
    memset(block, 0, total - z.buffers);
    pcs_layout *L = (pcs_layout *)block;
    char *at = block + z.head;
    uint32_t *slot = (uint32_t *)at;
    uint64_t *retired_at = (uint64_t *)(at += z.slot);
    pcs_channel_info *ch = (pcs_channel_info *)(at += z.retired);
    pcs_gather_run *runs = (pcs_gather_run *)(at += z.channels);
    uint32_t *names = (uint32_t *)(at += z.runs);
    pcs_word *buffers = (pcs_word *)(at + z.names);
    *L = (pcs_layout){.version = version,
                      .id_range = id_range,
                      .n_live = n_live,
                      .n_buffers = pool->n_buffers,
                      .stride = stride,
                      .slot = slot,
                      .retired_at = retired_at,
                      .channels = ch,
                      .runs = runs,
                      .name_mask = z.name_cap - 1u,
                      .names = names,
                      .buffers = buffers};
    /* Readers see the block only after the release that publishes it
     * (relayout.c, hazard.c (4)); atomic_init states the words' first value. */
    for (size_t i = 0; i < (size_t)pool->n_buffers * stride; i++)
        atomic_init(&L->buffers[i], 0);
    pcs_status st = fill_map(pool, L, prev, live, slot, retired_at, ch, names);
    if (st == PCS_OK)
        st = pcs_publish_prepare(pool, L, runs);
    if (st != PCS_OK) {
        free(block);
        return st;
    }
    *out = L;
    return PCS_OK;
}

void pcs_layout_free(pcs_layout *L)
{
    free(L); /* the struct heads its block */
}
