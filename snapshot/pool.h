/**
 * @file pool.h
 * @brief The snapshot pool's private layout, shared by the snapshot files only.
 *
 * Memory map. The pool and the event ring come from the world heap at attach;
 * the buffers belong to the current channel layout (layout.h), a C-heap
 * block built at attach and again at each structural change that changes
 * the channel set:
 *
 *   buffers: n_buffers blocks of `stride` words
 *     word 0      seq          seqlock sequence (seqlock.h)
 *     word 1      publication  1, 2, 3 ... (which write this block holds)
 *     word 2      tick         tick that published it
 *     word 3      time_s       double bits, (tick + 1) * dt_s
 *     word 4      layout       the layout's version (the world's layout version)
 *     word 5      id range     channel ids [0, n) of the layout
 *     word 6      flags        PCS_HDR_FLAG_PAUSED: published while paused
 *     word 7      unused (the header is one cache line)
 *     word 8 + s  the channel in slot s as double bits (layout.h maps ids to slots)
 *   events: capacity slots of 8 words (one cache line each)
 *     word 0 seq, 1 event number, 2 kind | subject << 32, 3 tick, 4..7 values
 *
 * Publication p lives in buffer (p - 1) % n_buffers of the layout current
 * when it was published; event number e in slot e & (capacity - 1).
 * Everything a reader touches is either immutable or an atomic word, and a
 * layout only while it announces it (hazard.c).
 */
#ifndef PCS_SNAPSHOT_POOL_H
#define PCS_SNAPSHOT_POOL_H

#include <stdalign.h>
#include <stddef.h>

#include "pcsim/snapshot.h"
#include "snapshot/layout.h"
#include "snapshot/seqlock.h"
#include "snapshot/wake.h"

enum {
    PCS_HDR_SEQ = 0,
    PCS_HDR_PUB = 1,
    PCS_HDR_TICK = 2,
    PCS_HDR_TIME = 3,
    PCS_HDR_LAYOUT = 4,
    PCS_HDR_COUNT = 5,
    PCS_HDR_FLAGS = 6,
    PCS_HDR_WORDS = 8,
};

/** Header flag bits (word PCS_HDR_FLAGS). */
enum { PCS_HDR_FLAG_PAUSED = 1 };

/* An event slot's words (the memory map above): 4..7 are the four values. */
enum { PCS_EVW_SEQ, PCS_EVW_NUMBER, PCS_EVW_KIND_SUBJECT, PCS_EVW_TICK, PCS_EVW_VALUES };
enum { PCS_EVW_WORDS = 8 }; /* one cache line a slot */

struct pcs_snapshot_pool {
    /* Immutable after attach; read by every thread. */
    pcs_world *world;
    uint32_t n_buffers;
    double dt_s;
    uint32_t event_capacity; /* a power of two */
    pcs_word *events;        /* event_capacity * PCS_EVW_WORDS */

    /* The writer's own state: world thread only, never read elsewhere. */
    alignas(64) uint64_t n_published;
    uint64_t n_events;
    uint64_t n_wake_calls;
    uint64_t last_tick;      /* tick of the newest publication */
    uint32_t known_channels; /* pcs_channel_count at attach or the last relayout */
    pcs_layout *cur;         /* the current layout (what `current` holds) */
    pcs_layout *retired;     /* retired layouts not yet freed (hazard.c) */
    pcs_layout *quarantined; /* test hook: poisoned, freed at destroy */
    uint32_t n_pending;      /* layouts on `retired` */
    uint64_t n_freed;        /* retired layouts freed so far */
    uint64_t n_over;         /* retirements that found PCS_LAYOUT_PENDING_SOFT_MAX pending */
    int test_free_unscanned; /* stress broken fixture: free without the hazard scan */
    int test_quarantine;     /* stress: poison a freed layout's buffers, free at destroy */

    /* Layouts and their announcements (hazard.c). */
    alignas(64) _Atomic(pcs_layout *) current;
    _Atomic(pcs_hazard *) hazards; /* every hazard record, push-only */
    /* Copies of the current layout's facts and the reclamation counters,
     * for the pool-level getters (relaxed: statistics and hints). */
    pcs_word cur_range, cur_hash, cur_version;
    pcs_word layouts_freed, layouts_pending, layouts_over;

    /* Written by the writer, read by readers; own cache line each group. */
    alignas(64) pcs_word published;  /* newest complete publication, 0 = none */
    pcs_word newest_tick;            /* its tick */
    alignas(64) pcs_word event_head; /* events appended so far */

    /* The reader wait (wake.h): written by readers and the writer. */
    alignas(64) pcs_wake wake;
    alignas(64) pcs_word wake_calls;    /* stage 12's wake calls (n_wake_calls, for readers) */
    alignas(64) pcs_word pass_on_calls; /* readers' wake calls passing a wake on */
};

struct pcs_reader {
    const pcs_snapshot_pool *pool;
    pcs_hazard *haz;          /* this reader's announcements (hazard.c) */
    uint64_t last_layout;     /* layout version of the last validated read or view */
    uint64_t last_pub;        /* newest publication this reader returned */
    uint64_t last_flags;      /* header flags of the last validated read or view */
    uint64_t event_cursor;    /* next event number to return */
    uint64_t min_interval_ns; /* pcs_reader_set_min_interval; 0 = none */
    uint64_t next_ok_ns;      /* monotonic time before which pcs_reader_wait does not return OK */
    pcs_reader_stats stats;
};

/* snapshot/publish.c */
pcs_status pcs_publish_prepare(pcs_snapshot_pool *pool, pcs_layout *L, pcs_gather_run *runs);
pcs_status pcs_publish_system(pcs_world *w, void *ctx);
void pcs_publish_layout(pcs_snapshot_pool *pool, pcs_layout *L);
void pcs_publish_announce_layout(pcs_snapshot_pool *pool, const pcs_layout *L);
void pcs_publish_run_state(void *ctx, int paused);

/* snapshot/relayout.c */
pcs_status pcs_snapshot_relayout(pcs_snapshot_pool *pool, const uint8_t *live, uint32_t id_range,
                                 uint64_t version);
struct pcs_structure_change;
pcs_status pcs_snapshot_structure_changed(pcs_world *w, void *ctx,
                                          const struct pcs_structure_change *change);

/* snapshot/eventlog.c */
pcs_status pcs_eventlog_system(pcs_world *w, void *ctx);

#endif
