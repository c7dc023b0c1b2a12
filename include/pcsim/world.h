/**
 * @file world.h
 * @brief The world: all state of one independent site, and its fixed-step tick.
 *
 * Lifecycle: pcs_world_default -> edit -> pcs_world_create -> register
 * stores, systems, command handlers, channels and jobs (the build phase) ->
 * pcs_world_tick repeatedly -> pcs_world_destroy. The first tick seals the
 * world: registrations after it fail with PCS_E_STATE, because every array is
 * allocated at build and a tick allocates nothing (docs/ARCHITECTURE.md section 2).
 *
 * Sizes. A world has no compile-time table sizes: its stores, systems, jobs,
 * channels, command targets, load checks and cleanup callbacks live in
 * tables that grow from the world's heap as the build registers them, so a
 * world holds what its builder made (the station sizes itself by its units).
 * The only bound is the width of an id, PCS_WORLD_IDS_MAX.
 *
 * Thread-safety: a world belongs to the thread that ticks it (the host's).
 * Other threads may only submit commands (command.h) and read snapshots.
 */
#ifndef PCSIM_WORLD_H
#define PCSIM_WORLD_H

#include <stddef.h>
#include <stdint.h>

#include "pcsim/clock.h"
#include "pcsim/export.h"
#include "pcsim/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pcs_world pcs_world;

/**
 * Most records of one kind a world holds (stores, systems, jobs, channels,
 * load checks, cleanup callbacks): 2^30. An id is a uint32_t, a name index
 * keeps two 32-bit entries per record, and UINT32_MAX stays free for "none".
 * Memory runs out long before this; registering past it is PCS_E_OVERFLOW.
 * Command targets have their own, smaller id width (PCS_TARGET_MAX,
 * command.h).
 */
#define PCS_WORLD_IDS_MAX (1u << 30)

/** World configuration. Start from pcs_world_default(). */
typedef struct pcs_world_def {
    double dt_s;                /**< FAST step, s; default 0.05; [1e-6, 10] */
    double k_slow;              /**< SLOW acceleration; default 72; (0, 1e9]. The SLOW
                                     step is 20 dt k_slow s; the xenon chains step
                                     exactly and stay finite for any length
                                     (physics/kinetics/models/xenon.c), so no tighter bound */
    double k_storage;           /**< STORAGE acceleration; default 8766; (0, 1e9] */
    uint64_t seed;              /**< world seed for every rng stream; default 1 */
    uint32_t commands_per_tick; /**< drain limit at stage 1; default 512; [1, 65536] */
    uint32_t mpsc_capacity;     /**< shared command ring capacity; default 4096; [1, 2^20] */
    uint32_t max_sources;       /**< command sources that may be opened; default 64; [0, 4096] */
    uint32_t event_capacity;    /**< events per tick; default 1024; [2, 2^20] */
    uint32_t journal_capacity;  /**< journal entries kept in memory; default 65536; [1, 2^24] */
    uint32_t snapshot_buffers;  /**< snapshot pool size; default 4; [3, 64] */
    uint32_t workers;           /**< slow-job workers; PCS_WORKERS_AUTO or [0, 256] */
    double slow_join_timeout_s; /**< max wait for a slow job at its merge tick; default 0.005; [0, 60] */
    /** Check PCS_STORE_F64 stores for NaN/Inf after each stage that writes
     *  them (pcs_world_tick); 0 off, 1 on. Default: 1 when the library is
     *  built with PCS_DEBUG defined (the ASan build), 0 in release. [0, 1] */
    uint32_t check_finite;
    /** Check that systems touch only the stores they declare (system.h,
     *  "Declared access"): 0 off; 1 pcs_store_data from a running system must
     *  name a store in its reads or writes; 2 also hashes every store around
     *  each system and fails on a change to a store it does not declare
     *  writing (costs one pass over all store bytes per system). Default: 1
     *  when built with PCS_DEBUG (the ASan build), 0 in release. [0, 2] */
    uint32_t check_access;
    uint64_t build_hash;        /**< hash of what built this world, e.g. the scenario; saved and
                                     compared on load (persist.h); default 0 = none; any value */
    /** Structural changes the world keeps in its structure log (structure.h):
     *  when it holds this many, further structural commands are rejected at
     *  stage 1. Default 1024; [0, 2^20] (0: every structural command is
     *  rejected). */
    uint32_t structure_log_capacity;
} pcs_world_def;

/** Ask for the default worker count max(1, min(2, ncpu - 2)). */
#define PCS_WORKERS_AUTO UINT32_MAX

/** Fill @p cfg with the defaults above. PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_world_default(pcs_world_def *cfg);

/**
 * Check every field against its range.
 * @return PCS_E_INVAL with a message naming the first bad field, its value and
 *         the allowed range.
 */
PCS_API pcs_status pcs_world_def_validate(const pcs_world_def *cfg);

/**
 * Create a world from a validated copy of @p cfg. All its memory comes from a
 * per-world mimalloc heap. @p out is set only on success.
 * @return PCS_E_INVAL (bad config or NULL), PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_world_create(const pcs_world_def *cfg, pcs_world **out);

/** Free a world and everything it owns. NULL is allowed. Not thread-safe. */
PCS_API void pcs_world_destroy(pcs_world *w);

/**
 * Run one FAST tick: join/merge due slow jobs, then stages 1-13 (docs/ARCHITECTURE.md
 * section 2) in order. On success the clock advances by one tick.
 * If a system fails, the tick stops there, its status is returned with its
 * message, and the clock does not advance. Partial mutations made by stages
 * that already ran are NOT rolled back.
 * With cfg.check_finite on, after each stage every PCS_STORE_F64 store that a
 * system of the stage declares it writes is scanned (in run order, then in the
 * order of the system's writes list); the first NaN or infinity stops the tick
 * like a failing system, with PCS_E_NUMERIC and the message
 * "tick T stage S system 'X' wrote store 'Y' element I = V" (", double J" is
 * added after I when an element holds several doubles). The scan allocates
 * nothing and costs one pass over the bytes those stores hold.
 * With cfg.check_access on, a system touching a store it does not declare
 * stops the tick with PCS_E_STATE naming both (system.h, "Declared access").
 * @return PCS_OK, a system's error, PCS_E_NUMERIC (check_finite),
 *         PCS_E_STATE (check_access),
 *         PCS_E_OVERFLOW at the tick limit, PCS_E_INVAL for NULL.
 */
PCS_API pcs_status pcs_world_tick(pcs_world *w);

/** The world's clock (read-only), or NULL for NULL. */
PCS_API const pcs_clock *pcs_world_clock(const pcs_world *w);

/** The configuration the world was created with, or NULL for NULL. */
PCS_API const pcs_world_def *pcs_world_def_get(const pcs_world *w);

/** True once the first tick has sealed the world against registrations. */
PCS_API int pcs_world_sealed(const pcs_world *w);

/**
 * XXH3-64 over the clock's tick and every state store's bytes in store-id
 * order (docs/ARCHITECTURE.md section 7). Scratch stores are excluded. 0 for NULL.
 */
PCS_API uint64_t pcs_world_state_hash(const pcs_world *w);

/**
 * Allocate @p bytes (zeroed, 64-byte aligned) from the world's heap. Build
 * phase only: models use it for their private arrays.
 * @return NULL with PCS_E_STATE after sealing, PCS_E_NOMEM on failure.
 */
PCS_API void *pcs_world_alloc(pcs_world *w, size_t bytes);

/**
 * Call @p fn(@p ctx) when the world is destroyed, in reverse order of
 * registration, for models that own memory outside the world heap (e.g. a
 * sparse solver's factorisation). Build phase only.
 * @return PCS_E_INVAL (NULL), PCS_E_STATE after sealing, PCS_E_OVERFLOW past
 *         PCS_WORLD_IDS_MAX, PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_world_on_destroy(pcs_world *w, void (*fn)(void *ctx), void *ctx);

/** Number of allocations made from the world's heap so far (test hook). */
PCS_API uint64_t pcs_world_alloc_count(const pcs_world *w);

/* ---- Run state and pacing (engine/pacing.c; docs/ARCHITECTURE.md section 3) ----
 *
 * A host that runs a world against wall time passes the wall time that
 * elapsed since its previous call to pcs_world_advance; the world multiplies
 * it by the speed, turns it into whole ticks, keeps the remainder for the
 * next call, and runs the ticks due (at most max_ticks per call; the rest
 * stay owed). The library reads no clock: time enters only as an argument.
 *
 * Exactness: the elapsed time is taken as whole nanoseconds, the speed as
 * whole thousandths and dt_s as whole picoseconds, and the carry is an
 * integer, so the ticks due after any sequence of calls are exactly
 * floor(sum(ns_i) * speed_milli / dt_ps): 12,000 frames of 0.05 s at dt
 * 0.05 s give 12,000 ticks at 1x, never 11,999 (engine/pacing.c argues it).
 *
 * Pacing is host-side configuration, not simulation state: run state, speed,
 * carry and backlog are not saved by pcs_world_save, not changed by
 * pcs_world_load, and not in pcs_world_state_hash. A tick is a tick: the same
 * ticks with the same commands give the same hash whatever frames, speeds and
 * pauses produced them.
 *
 * Thread-safety: call these only on the thread that ticks the world (like
 * pcs_world_tick). Other threads keep submitting commands; while the world is
 * paused no tick drains them, so they queue, a full ring refuses with
 * PCS_E_RATE as always, and the first tick after drains them.
 */

/** Speed multiplier range (simulated seconds per wall second). */
#define PCS_SPEED_MIN 0.1
#define PCS_SPEED_MAX 1000.0

/** Largest elapsed_wall_s one pcs_world_advance call accepts, s (11.6 days). */
#define PCS_ADVANCE_ELAPSED_MAX_S 1e6

/** What one pcs_world_advance call did. */
typedef struct pcs_world_advance_result {
    uint64_t ticks_run;    /**< ticks this call ran (<= max_ticks) */
    uint64_t ticks_behind; /**< whole ticks due and not yet run (the backlog) */
    double wait_s;         /**< wall seconds until the next tick falls due at the current
                                speed if none is owed; 0 while ticks are owed or paused */
    int paused;            /**< 1 when the world is paused (nothing ran, nothing accrued) */
} pcs_world_advance_result;

/**
 * Account @p elapsed_wall_s of wall time at the current speed and run the
 * ticks due, at most @p max_ticks of them (0: only account). Ticks beyond
 * max_ticks stay owed and run in later calls; out->ticks_behind says how many.
 * While paused, the elapsed time is checked and ignored, no tick runs, and the
 * carry and backlog keep their values.
 * @param elapsed_wall_s finite, in [0, PCS_ADVANCE_ELAPSED_MAX_S]; taken as
 *        whole nanoseconds (rounded).
 * @param out set on every return except PCS_E_INVAL (may not be NULL).
 * @return PCS_OK; a tick's error (as pcs_world_tick: the failed tick stays
 *         owed, out->ticks_run counts those that ran); PCS_E_INVAL for NULL
 *         or an elapsed time outside the range, naming the value and range.
 */
PCS_API pcs_status pcs_world_advance(pcs_world *w, double elapsed_wall_s, uint64_t max_ticks,
                                     pcs_world_advance_result *out);

/**
 * Set the speed multiplier (default 1), in [PCS_SPEED_MIN, PCS_SPEED_MAX],
 * rounded to the nearest thousandth. The carry and backlog are kept: they
 * are simulated time already due.
 * @return PCS_E_INVAL naming the value and the range (speed unchanged).
 */
PCS_API pcs_status pcs_world_set_speed(pcs_world *w, double speed);

/** The speed multiplier in effect (after rounding); 0 for NULL. */
PCS_API double pcs_world_speed(const pcs_world *w);

/** Stop ticking in pcs_world_advance until pcs_world_resume. Idempotent.
 *  Readers see the newest publication again with its paused flag set
 *  (pcs_view.paused, pcs_reader_paused). */
PCS_API pcs_status pcs_world_pause(pcs_world *w);

/** Resume pacing where it stopped (the paused wall time is not owed). Idempotent.
 *  Readers see the newest publication again with its paused flag clear. */
PCS_API pcs_status pcs_world_resume(pcs_world *w);

/** 1 while paused, else 0 (also for NULL). */
PCS_API int pcs_world_paused(const pcs_world *w);

/** Run-state observer: @p paused is the new state (1 paused, 0 running). */
typedef void (*pcs_run_state_fn)(void *ctx, int paused);

/**
 * Call @p fn(@p ctx, paused) on the world thread each time pcs_world_pause or
 * pcs_world_resume changes the run state (not on a call that leaves it as it
 * was), after the change, in registration order. The snapshot pool uses it
 * to republish its newest buffer with the paused flag (snapshot.h), since no
 * tick, hence no publication, runs while paused. Build phase only.
 * @return PCS_E_INVAL (NULL), PCS_E_STATE after sealing, PCS_E_OVERFLOW past
 *         PCS_WORLD_IDS_MAX, PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_world_on_run_state(pcs_world *w, pcs_run_state_fn fn, void *ctx);

/**
 * Run exactly one tick while paused (the world stays paused); pacing's carry
 * and backlog are untouched. @return the tick's status; PCS_E_STATE when the
 * world is not paused; PCS_E_INVAL for NULL.
 */
PCS_API pcs_status pcs_world_step_once(pcs_world *w);

/**
 * Forget the backlog and the carried fraction: a host that fell behind and
 * chooses not to catch up starts pacing afresh from its next call.
 */
PCS_API pcs_status pcs_world_pacing_reset(pcs_world *w);

#ifdef __cplusplus
}
#endif

#endif
