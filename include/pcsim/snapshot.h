/**
 * @file snapshot.h
 * @brief Snapshot pool, reader API and event log: lock-free views of a running world.
 *
 * The world's thread (the writer) publishes every channel (channel.h) into one
 * of N seqlock-validated buffers at stage 12 of each tick, and appends the
 * tick's events to a fixed-size broadcast ring at stage 13. Any number of
 * reader threads take consistent copies or zero-copy views of the newest
 * buffer and poll the event ring with their own cursor (docs/ARCHITECTURE.md section 6).
 * A reader that wants every publication, or one every so often, sleeps in
 * pcs_reader_wait instead of polling: stage 12 wakes it (one system call per
 * publication at most, none when no reader waits).
 *
 * Guarantees:
 *  - The writer never waits for a reader, never takes a lock and never
 *    allocates after pcs_snapshot_attach, except at a structural commit
 *    that changed the channel set (structure.h), which builds a new layout.
 *  - A successful read returns values that were all published on one tick
 *    (never a half-written buffer); successive reads by one reader never go
 *    back in time.
 *  - A reader that falls behind is told: reads retry (counted), polls report
 *    how many events were overwritten before it saw them. Nothing a reader
 *    does can block or corrupt the writer or another reader.
 *
 * Layouts (issue 19). The channel set may change while the world runs: a
 * structural commit that registers or retires channels gives the pool a new
 * layout (its own buffers, the world's layout version), into which the
 * writer republishes the tick at once and publishes from then on. Ids are
 * never reused: a live id is the same channel in every layout, and reading
 * a retired id fails with PCS_E_NOTFOUND naming the layout version that
 * retired it, never another channel's value. A read or view goes through
 * the layout current when it began; pcs_view.layout_version and
 * pcs_reader_layout_version say which, so a host can resolve names again
 * when it changes. An old layout's memory is freed once no reader is inside
 * it (snapshot/hazard.c); the writer never waits for that.
 *
 * Value encoding: every channel is published as a double. U32 channels are
 * converted exactly (every uint32_t is representable in a double), so one
 * read call serves both kinds; pcs_view_u32 converts back.
 *
 * Lifetime: the pool lives in the world's memory and dies with
 * pcs_world_destroy. No reader call may run during or after the destroy,
 * except pcs_reader_close, which is safe after it (the reader's hazard
 * record is then freed by the close). Hand the pool pointer to reader threads through something
 * that synchronises (thread creation, a mutex, an atomic release/acquire pair).
 */
#ifndef PCSIM_SNAPSHOT_H
#define PCSIM_SNAPSHOT_H

#include <stdint.h>

#include "pcsim/channel.h"
#include "pcsim/event.h"
#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pcs_snapshot_pool pcs_snapshot_pool;
typedef struct pcs_reader pcs_reader;

/** Buffer-count range (the world config's snapshot_buffers uses the same). */
#define PCS_SNAPSHOT_BUFFERS_MIN 3u
#define PCS_SNAPSHOT_BUFFERS_MAX 64u
/** Event-log capacity: a power of two in this range; default 4096 events. */
#define PCS_EVENT_LOG_MIN 16u
#define PCS_EVENT_LOG_MAX (1u << 24)
#define PCS_EVENT_LOG_DEFAULT 4096u
/**
 * Consecutive failed validations after which a copy-out read gives up with
 * PCS_E_RATE. A reader fails only when the writer laps it (rewrites the
 * buffer it is reading, N - 1 ticks after publishing it), so reaching this
 * limit means the reader is far too slow for the tick rate or was preempted
 * over and over; it is never hit by a healthy reader.
 */
#define PCS_SNAPSHOT_RETRY_LIMIT 1024u

/** Options for pcs_snapshot_attach; NULL or zero fields mean the defaults. */
typedef struct pcs_snapshot_options {
    /** Buffers in the pool; 0 = the world config's snapshot_buffers (default 4);
     *  else [PCS_SNAPSHOT_BUFFERS_MIN, PCS_SNAPSHOT_BUFFERS_MAX]. */
    uint32_t buffers;
    /** Events the log keeps; 0 = PCS_EVENT_LOG_DEFAULT; else a power of two
     *  in [PCS_EVENT_LOG_MIN, PCS_EVENT_LOG_MAX]. */
    uint32_t event_log_capacity;
} pcs_snapshot_options;

/**
 * Create the snapshot pool of @p w and register its two systems:
 * "pcs.snapshot.publish" (stage PUBLISH) and "pcs.snapshot.events" (stage
 * EVENTS), both at priority INT32_MAX so they run after every other system of
 * their stage, and observes structural commits (pcs_structure_observe). The
 * first layout is every channel registered so far: call this after the last
 * pcs_channel_register of the build. A channel registered later in the
 * build makes the next tick fail with PCS_E_STATE (the publish system
 * reports both counts); channels registered or retired by a structural
 * command are picked up at its commit.
 * The publish system declares reads of the channels' stores when they number
 * at most 32; beyond that it declares none, and other
 * PUBLISH-stage systems must not write channel stores.
 *
 * Build phase only, world thread. Memory: per layout, buffers * (64 + 8 *
 * live channels) bytes plus about 50 bytes per channel id, from the C heap
 * (freed with the world, or when a newer layout replaced it and no reader is
 * inside); 64 bytes per event-log slot from the world heap.
 * @param opt may be NULL (defaults).
 * @param out set to the pool (owned by the world) on success.
 * @return PCS_E_INVAL (NULL world or out, buffers or capacity out of range),
 *         PCS_E_STATE after sealing, PCS_E_NOMEM, or an error of
 *         pcs_system_register (for example a second attach: duplicate name).
 */
PCS_API pcs_status pcs_snapshot_attach(pcs_world *w, const pcs_snapshot_options *opt,
                                       pcs_snapshot_pool **out);

/** Buffers in the pool (0 for NULL). Any thread. */
PCS_API uint32_t pcs_snapshot_buffers(const pcs_snapshot_pool *pool);

/** Channel ids in the current layout, [0, n), live or retired (0 for NULL).
 *  Any thread (a relaxed load: it may lag a structural commit). */
PCS_API uint32_t pcs_snapshot_channel_count(const pcs_snapshot_pool *pool);

/**
 * The current layout's identity, despite the name a hash rather than a
 * counter: XXH3-64 over every live channel's name, unit and kind in id
 * order (and the live ids, once some id is retired). Equal for identical
 * layouts (across runs and processes), so a recorder can tell whether two
 * streams have the same columns; it changes when a structural commit
 * changes the channel set. The world's counter is pcs_world_layout_version
 * (pcs_view.layout_version, pcs_snapshot_stats.layout_version). 0 for NULL.
 * Any thread.
 */
PCS_API uint64_t pcs_snapshot_layout_version(const pcs_snapshot_pool *pool);

/**
 * pcs_channel_list: the current layout's channels, to build a UI or a
 * recorder header. Copies the infos of ids [first, first + max) in the
 * layout's id range into @p out (max elements) and sets @p count to how many
 * were copied (0 past the end). A retired id keeps its position with an
 * empty name and unit ("") and store UINT32_MAX. Names and units point into
 * world memory and stay valid until the world is destroyed. Any thread.
 * @return PCS_E_INVAL for NULL pool, count, or out with max > 0;
 *         PCS_E_NOMEM when the thread's hazard record cannot be allocated.
 */
PCS_API pcs_status pcs_channel_list(const pcs_snapshot_pool *pool, uint32_t first,
                                    pcs_channel_info *out, uint32_t max, uint32_t *count);

/**
 * Resolve a channel name to its id through the pool (any thread): the live
 * channels of the current layout, looked up in the layout's own name index
 * (XXH3 of the name, open addressing), so a lookup costs one hash and a
 * short probe, not a scan; still, resolve once and read by id, and again
 * when the layout version changes. Same ids as pcs_channel_find.
 * @return PCS_E_INVAL for NULL arguments, PCS_E_NOTFOUND naming @p name and
 *         the layout version, PCS_E_NOMEM (no hazard record).
 */
PCS_API pcs_status pcs_snapshot_find(const pcs_snapshot_pool *pool, const char *name, uint32_t *id);

/** Number of publications so far (0 before the first tick): one per tick, plus one
 *  per change of the run state after the first tick (pcs_reader_paused). Any thread. */
PCS_API uint64_t pcs_snapshot_published(const pcs_snapshot_pool *pool);

/**
 * Open a reader: per-thread state (its newest tick seen, event cursor and
 * counters). Its event cursor starts at the events published so far: it sees
 * events appended after this call. Allocates about 128 bytes with the C
 * allocator, and a 64-byte hazard record the first time the pool has no
 * idle one (records are reused, and freed with the world). Any thread; use
 * each reader from one thread at a time.
 * @return PCS_E_INVAL for NULL, PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_reader_open(const pcs_snapshot_pool *pool, pcs_reader **out);

/** Free a reader. NULL is allowed. */
PCS_API void pcs_reader_close(pcs_reader *r);

/**
 * Copy channels @p ids[0..n-1] of the newest buffer into @p out[0..n-1], all
 * from one tick and one layout (the current one when the read began).
 * @p ids may be NULL to read channels 0..n-1. @p tick (may be
 * NULL) receives the tick that published them (the same number its events
 * carry). Retries while the writer laps the buffer; every failed attempt
 * counts as a retry. The tick never decreases across calls on one reader.
 * Cost: n word loads; on x86-64 (not under TSan) consecutive ids or NULL
 * are one SSE2 bulk copy, other ids n plain loads; elsewhere n atomic
 * acquire loads (snapshot/seqlock.h). No lock, no allocation.
 * @return PCS_OK; PCS_E_INVAL (NULL reader, NULL out with n > 0);
 *         PCS_E_NOTFOUND naming the first id outside the layout's id range
 *         ("ids[i] = N, but channel ids are [0, n) (layout version V)") or
 *         retired in it ("ids[i] = N: channel N was retired at layout
 *         version V"), with nothing copied;
 *         PCS_E_STATE if nothing has been published yet;
 *         PCS_E_RATE after PCS_SNAPSHOT_RETRY_LIMIT failed attempts (@p out
 *         then holds garbage).
 */
PCS_API pcs_status pcs_snapshot_read(pcs_reader *r, const uint32_t *ids, uint32_t n, double *out,
                                     uint64_t *tick);

/**
 * The paused flag of @p r's last successful read or validated view: 1 when
 * that buffer was published while the world was paused. No tick runs while
 * paused, so nothing new is published; instead pcs_world_pause republishes
 * the newest buffer (same tick and values, next publication number) with the
 * flag set, and pcs_world_resume republishes it with the flag clear, so a
 * reader learns either change with its next read, and one waiting in
 * pcs_reader_wait is woken for it. A tick run while paused
 * (pcs_world_step_once) publishes with the flag set. 0 for NULL or before
 * the first read. Reader's thread.
 */
PCS_API int pcs_reader_paused(const pcs_reader *r);

/**
 * The layout version (the world's pcs_world_layout_version: 1 at build, +1
 * at each structural change that added or retired channels) of @p r's last
 * successful read or validated view; 0 for NULL or before the first. When
 * it changes, ids the host resolved may have been retired (reads of them
 * fail with PCS_E_NOTFOUND) and new channels exist: resolve names again
 * (pcs_snapshot_find) if the host keeps any. Reader's thread.
 */
PCS_API uint64_t pcs_reader_layout_version(const pcs_reader *r);

/**
 * A zero-copy view of one buffer: begin, read values by id, validate. Values
 * read between begin and a successful validate are all from view.tick; if
 * validate fails they may be torn and must be discarded (begin again).
 * The view holds its layout from begin to validate (or the reader's next
 * begin): read values only in between. Public fields are valid after a
 * successful begin; the rest is private.
 */
typedef struct pcs_view {
    uint64_t tick;           /**< tick that published the buffer */
    double time_s;           /**< simulated seconds at the end of that tick: (tick + 1) * dt_s */
    uint32_t n_channels;     /**< channels in the buffer */
    int paused;              /**< 1 when published while the world was paused (see
                                  pcs_reader_paused); validated with the values */
    uint64_t layout_version; /**< the world's layout version of the view's channel
                                  layout (pcs_world_layout_version): it changes when a
                                  structural change adds or retires channels */
    /* private */
    pcs_reader *reader_;
    const void *layout_;
    const void *buf_;
    uint64_t seq_;
    uint64_t pub_;
} pcs_view;

/**
 * Begin a view of the newest buffer (never older than the reader's last
 * successful read or view). Spins only while the writer is lapping it.
 * @return PCS_OK; PCS_E_INVAL for NULL; PCS_E_STATE if nothing has been
 *         published; PCS_E_RATE after PCS_SNAPSHOT_RETRY_LIMIT attempts.
 */
PCS_API pcs_status pcs_view_begin(pcs_reader *r, pcs_view *v);

/** Channel @p id of the view as a double; NaN for an id out of the view's
 *  range, retired in its layout, or NULL. Between begin and validate only. */
PCS_API double pcs_view_f64(const pcs_view *v, uint32_t id);

/**
 * Channel @p id as a uint32_t (meant for U32 channels, which round-trip
 * exactly). 0 for an id out of range, NULL, or a value outside [0, 2^32).
 */
PCS_API uint32_t pcs_view_u32(const pcs_view *v, uint32_t id);

/**
 * Check that no value read from @p v since pcs_view_begin can be torn. On
 * success the reader records the view's tick and layout version as its
 * newest and counts a read; on failure it counts a retry. Either way the
 * view's layout is released (its values must not be read after this).
 * @return PCS_OK; PCS_E_CORRUPT when the writer rewrote the buffer meanwhile
 *         (discard the values and begin again); PCS_E_INVAL for NULL or a
 *         view that was not begun.
 */
PCS_API pcs_status pcs_view_validate(pcs_view *v);

/**
 * Take up to @p max events, in order, from the reader's cursor.
 * @p count receives how many were written to @p out. @p missed (may be NULL)
 * receives how many events were overwritten before this reader could read
 * them, all of which come before out[0] and after the previous call's last
 * event; so events returned plus missed accounts exactly for every event
 * appended since the reader opened. Never a torn or duplicated event.
 * @return PCS_OK (also when there is nothing new); PCS_E_INVAL for NULL
 *         reader or count, or NULL out with max > 0.
 */
PCS_API pcs_status pcs_events_poll(pcs_reader *r, pcs_event *out, uint32_t max, uint32_t *count,
                                   uint64_t *missed);

/** pcs_reader_wait's timeout: none. */
#define PCS_WAIT_FOREVER UINT64_MAX

/**
 * Block until a publication newer than @p after_publication exists (sleeping
 * in the kernel on a futex over the publication counter, not polling), or
 * until @p timeout_ns nanoseconds of the host's monotonic clock have passed.
 * Typical loops: `after = published` to take every publication (or the
 * newest one each time the reader comes back), or `after = last + k - 1` to
 * wake every k-th publication (a reader paced in simulated time); such a
 * reader is not woken by the publications in between, except every 32nd.
 * The first call may pass 0 to wait for the first publication.
 *
 * Rate limit (pcs_reader_set_min_interval): after a call returned PCS_OK,
 * the next one does not return PCS_OK until the interval has passed; it
 * sleeps until then without being woken by publications, then returns at
 * once if a newer publication exists. So a 10 Hz reader wakes 10 times a
 * second whatever the tick rate.
 *
 * Determinism: the timeout and the rate limit are wall time, read on the
 * reader's thread only; the writer never reads them and a reader never
 * writes the world, so no state hash depends on them. The writer's cost:
 * a few atomic words per publication, and one FUTEX_WAKE (of one thread)
 * when a reader waits for that publication; the woken reader wakes the
 * others (snapshot/wake.h).
 *
 * @param timeout_ns 0: do not sleep (a check); PCS_WAIT_FOREVER: no limit.
 * @param published (may be NULL) receives the newest publication number
 *        (pcs_snapshot_published) at return, also on a timeout.
 * @return PCS_OK (*published > after_publication); PCS_E_TIMEOUT when the
 *         time passed first (also when a newer publication exists but the
 *         rate limit held the reader back); PCS_E_INVAL for a NULL reader.
 *         Reader's thread (as every reader call).
 */
PCS_API pcs_status pcs_reader_wait(pcs_reader *r, uint64_t after_publication, uint64_t timeout_ns,
                                   uint64_t *published);

/**
 * Rate limit of pcs_reader_wait on @p r: successive PCS_OK returns are at
 * least @p interval_ns apart (host monotonic time, measured from the earlier
 * return); 0 (the default) removes the limit. The limit only delays
 * pcs_reader_wait; reads and polls are never refused.
 * @return PCS_E_INVAL for NULL. Reader's thread.
 */
PCS_API pcs_status pcs_reader_set_min_interval(pcs_reader *r, uint64_t interval_ns);

/** Pool-wide counters of the reader wait (pcs_snapshot_stats_get). */
typedef struct pcs_snapshot_stats {
    uint64_t publications;    /**< publications so far (pcs_snapshot_published) */
    uint64_t wake_calls;      /**< wake system calls made by stage 12: at most one per
                                   publication, none for a publication nobody waits for */
    uint64_t pass_on_calls;   /**< wake calls made by woken readers for the others */
    uint32_t waiters;         /**< readers inside pcs_reader_wait's sleep now */
    uint64_t layout_version;  /**< the current layout's version (pcs_world_layout_version) */
    uint64_t layouts_freed;   /**< retired layouts freed after their last reader left */
    uint32_t layouts_pending; /**< retired layouts a reader was still in at the last check */
    uint64_t
        layouts_over; /**< retirements that found 8 or more layouts pending (kept, freed later) */
} pcs_snapshot_stats;

/** Copy the pool's counters (relaxed loads: a snapshot in time, not one instant). Any thread.
 *  @return PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_snapshot_stats_get(const pcs_snapshot_pool *pool, pcs_snapshot_stats *out);

/** Per-reader counters, for monitoring a reader's health. */
typedef struct pcs_reader_stats {
    uint64_t reads;         /**< successful copy-out reads and validated views */
    uint64_t retries;       /**< failed attempts (buffer being written or rewritten) */
    uint64_t last_tick;     /**< tick of the last successful read */
    uint64_t staleness;     /**< ticks the last read was behind the newest, at read time */
    uint64_t max_staleness; /**< largest staleness seen */
    uint64_t events_read;   /**< events returned by pcs_events_poll */
    uint64_t events_missed; /**< events overwritten before this reader saw them */
    uint64_t waits;         /**< pcs_reader_wait calls that returned PCS_OK */
    uint64_t wait_timeouts; /**< pcs_reader_wait calls that returned PCS_E_TIMEOUT */
    uint64_t sleeps;        /**< futex sleeps inside pcs_reader_wait (a wake, a timeout) */
} pcs_reader_stats;

/** Copy @p r's counters. @return PCS_E_INVAL for NULL. Reader's thread. */
PCS_API pcs_status pcs_reader_stats_get(const pcs_reader *r, pcs_reader_stats *out);

#ifdef __cplusplus
}
#endif

#endif
