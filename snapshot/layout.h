/**
 * @file layout.h
 * @brief The snapshot pool's channel layouts and their reclamation (internal).
 *
 * A layout is everything that depends on the channel set: the live channel
 * ids and the buffer slot of each (the id -> slot map over the id range),
 * the gather runs, a name index, the layout's version and its N buffers. It
 * is one C-heap block, immutable after it is built except for the buffers'
 * atomic words. The pool holds the current layout in `pool->current`; a
 * structural change (relayout.c) builds a new one, publishes into it and
 * swaps it in; the old one is retired and freed once no reader announces it
 * (hazard.c has the protocol and its ordering argument).
 *
 * Memory map of one layout block (64-byte aligned pieces):
 *   struct pcs_layout
 *   slot[id_range]        uint32_t, PCS_SLOT_RETIRED for a retired id
 *   retired_at[id_range]  uint64_t, the layout version that retired the id (0: live)
 *   channels[id_range]    pcs_channel_info by id; a retired id's name and unit are ""
 *   runs[n_live]          gather runs (publish.c), dst = slot
 *   names[name_cap]       open addressing: id + 1 of a live channel, 0 empty
 *   buffers               n_buffers blocks of `stride` words (pool.h's buffer map)
 */
#ifndef PCS_SNAPSHOT_LAYOUT_H
#define PCS_SNAPSHOT_LAYOUT_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "pcsim/channel.h"
#include "pcsim/status.h"
#include "snapshot/seqlock.h"

/** slot[id] of a retired id. */
#define PCS_SLOT_RETIRED UINT32_MAX

/** A quarantined layout's poisoned words (hazard.c, a stress-test hook): a
 *  NaN with payload 0xdead, and an even sequence no writer ever stores. */
#define PCS_LAYOUT_POISON UINT64_C(0x7ff8dead0000dead)
#define PCS_LAYOUT_POISON_SEQ UINT64_C(0x0dead0dead0dead0)

/** Retired layouts pending reclamation past which the pool counts an
 *  overflow (the writer keeps them and frees them later; it never waits). */
#define PCS_LAYOUT_PENDING_SOFT_MAX 8u

/** A run of channels copied by one plain loop: consecutive slots whose sources
 *  are consecutive elements of one store. */
typedef struct pcs_gather_run {
    const void *src;       /* first source element (double or uint32_t) */
    uint32_t dst;          /* first slot */
    uint32_t len;          /* channels in the run */
    pcs_channel_kind kind; /* element type of src */
} pcs_gather_run;

typedef struct pcs_layout {
    uint64_t version;   /* the world's layout version (pcs_world_layout_version) */
    uint64_t hash;      /* XXH3 identity (pcs_snapshot_layout_version) */
    uint64_t first_pub; /* its first publication (written before it became current) */
    uint32_t id_range;  /* channel ids [0, id_range) */
    uint32_t n_live;    /* slots */
    int identity;       /* slot[id] == id for every id (nothing retired): fast reads */
    uint32_t n_buffers;
    size_t stride; /* words per buffer, a multiple of 8 */
    const uint32_t *slot;
    const uint64_t *retired_at;
    const pcs_channel_info *channels;
    const pcs_gather_run *runs;
    uint32_t n_runs;
    uint32_t name_mask; /* name index capacity - 1 (a power of two) */
    const uint32_t *names;
    pcs_word *buffers;
    struct pcs_layout *next_retired; /* writer only: the retired list (hazard.c) */
} pcs_layout;

/** Base of the buffer of @p L holding publication @p pub (>= 1). */
static inline pcs_word *pcs_layout_buffer(const pcs_layout *L, uint64_t pub)
{
    return L->buffers + (size_t)((pub - 1) % L->n_buffers) * L->stride;
}

/** The id of live channel @p name in @p L, or UINT32_MAX. Any thread holding L. */
uint32_t pcs_layout_find(const pcs_layout *L, const char *name);

/**
 * One hazard record: the layouts a thread announces it is inside. Readers
 * own one for their lifetime; pool-level calls (find, list) borrow one.
 * Records are never freed before the world (pool.c's destroy hook).
 */
enum { PCS_HAZ_READ = 0, PCS_HAZ_VIEW = 1, PCS_HAZ_SLOTS = 2 };

typedef struct pcs_hazard {
    alignas(64) _Atomic(pcs_layout *) in[PCS_HAZ_SLOTS]; /* announced layouts, NULL = none */
    atomic_uint busy;                                    /* owned by a reader or a borrower */
    atomic_uint orphan;      /* the world was destroyed while a reader owned it */
    struct pcs_hazard *next; /* set before the record is pushed, then immutable */
} pcs_hazard;

struct pcs_snapshot_pool;

/* snapshot/hazard.c: the reclamation protocol. */
pcs_hazard *pcs_hazard_acquire(const struct pcs_snapshot_pool *pool);
void pcs_hazard_release(pcs_hazard *h);
void pcs_hazard_destroy_all(struct pcs_snapshot_pool *pool);
const pcs_layout *pcs_hazard_enter(const struct pcs_snapshot_pool *pool, pcs_hazard *h, int slot);
void pcs_hazard_leave(pcs_hazard *h, int slot);
void pcs_layout_retire(struct pcs_snapshot_pool *pool, pcs_layout *old);
void pcs_layout_reclaim(struct pcs_snapshot_pool *pool);

/* snapshot/layout.c: building and freeing layouts (world thread). */
pcs_status pcs_layout_build(struct pcs_snapshot_pool *pool, const pcs_layout *prev,
                            const uint8_t *live, uint32_t id_range, uint64_t version,
                            pcs_layout **out);
void pcs_layout_free(pcs_layout *L);

#endif
