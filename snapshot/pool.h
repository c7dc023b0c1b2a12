/**
 * @file pool.h
 * @brief The snapshot pool's private layout, shared by the snapshot files only.
 *
 * Memory map (all from the world heap at attach, 64-byte aligned):
 *
 *   buffers: n_buffers blocks of `stride` words
 *     word 0      seq          seqlock sequence (seqlock.h)
 *     word 1      publication  1, 2, 3 ... (which write this block holds)
 *     word 2      tick         tick that published it
 *     word 3      time_s       double bits, (tick + 1) * dt_s
 *     word 4      layout       layout version
 *     word 5      n_channels
 *     word 6      flags        PCS_HDR_FLAG_PAUSED: published while paused
 *     word 7      unused (the header is one cache line)
 *     word 8 + i  channel i as double bits
 *   events: capacity slots of 8 words (one cache line each)
 *     word 0 seq, 1 event number, 2 kind | subject << 32, 3 tick, 4..7 values
 *
 * Publication p lives in buffer (p - 1) % n_buffers; event number e in slot
 * e & (capacity - 1). Everything a reader touches after attach is either
 * immutable or an atomic word.
 */
#ifndef PCS_SNAPSHOT_POOL_H
#define PCS_SNAPSHOT_POOL_H

#include <stdalign.h>
#include <stddef.h>

#include "pcsim/snapshot.h"
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

enum {
    PCS_EVW_SEQ = 0,
    PCS_EVW_NUMBER = 1,
    PCS_EVW_KIND_SUBJECT = 2,
    PCS_EVW_TICK = 3,
    PCS_EVW_VALUES = 4,
    PCS_EVW_WORDS = 8,
};

/** A run of channels copied by one plain loop: consecutive ids whose sources
 *  are consecutive elements of one store. */
typedef struct pcs_gather_run {
    const void *src;       /* first source element (double or uint32_t) */
    uint32_t dst;          /* first channel id */
    uint32_t len;          /* channels in the run */
    pcs_channel_kind kind; /* element type of src */
} pcs_gather_run;

struct pcs_snapshot_pool {
    /* Immutable after attach; read by every thread. */
    pcs_world *world;
    uint32_t n_buffers;
    uint32_t n_channels;
    size_t stride; /* words per buffer, a multiple of 8 */
    uint64_t layout_version;
    double dt_s;
    pcs_word *buffers;
    pcs_channel_info *channels; /* the layout, copied at attach */
    pcs_gather_run *runs;
    uint32_t n_runs;
    uint32_t event_capacity; /* a power of two */
    pcs_word *events;        /* event_capacity * PCS_EVW_WORDS */

    /* The writer's own counters: world thread only, never read elsewhere. */
    alignas(64) uint64_t n_published;
    uint64_t n_events;
    uint64_t n_wake_calls;

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
    uint64_t last_pub;        /* newest publication this reader returned */
    uint64_t last_flags;      /* header flags of the last validated read or view */
    uint64_t event_cursor;    /* next event number to return */
    uint64_t min_interval_ns; /* pcs_reader_set_min_interval; 0 = none */
    uint64_t next_ok_ns;      /* monotonic time before which pcs_reader_wait does not return OK */
    pcs_reader_stats stats;
};

/** Base of the buffer holding publication @p pub (>= 1). */
static inline pcs_word *pcs_pool_buffer(const pcs_snapshot_pool *pool, uint64_t pub)
{
    return pool->buffers + (size_t)((pub - 1) % pool->n_buffers) * pool->stride;
}

/* snapshot/publish.c */
pcs_status pcs_publish_prepare(pcs_snapshot_pool *pool);
pcs_status pcs_publish_system(pcs_world *w, void *ctx);
void pcs_publish_run_state(void *ctx, int paused);

/* snapshot/eventlog.c */
pcs_status pcs_eventlog_system(pcs_world *w, void *ctx);

#endif
