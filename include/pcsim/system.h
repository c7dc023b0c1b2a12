/**
 * @file system.h
 * @brief Stores, stages and systems: how models plug into the tick.
 *
 * A store is a named, fixed-size array allocated at build from the world heap.
 * A system is a function registered for one stage that declares which stores it
 * reads and writes. Within a stage, systems run in (priority, id) order; the
 * builder refuses two writers of one store, or a reader of a store another
 * system of the same stage writes, and names both, so data only moves forward
 * from stage to stage (docs/ARCHITECTURE.md section 2).
 *
 * Thread-safety: registration and store access belong to the world's thread.
 */
#ifndef PCSIM_SYSTEM_H
#define PCSIM_SYSTEM_H

#include <stddef.h>
#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The 13 FAST stages, in run order. The order is part of the determinism contract. */
typedef enum pcs_stage {
    PCS_STAGE_COMMANDS = 0,
    PCS_STAGE_ACTUATORS,
    PCS_STAGE_KINETICS,
    PCS_STAGE_HEAT,
    PCS_STAGE_HYDRAULICS,
    PCS_STAGE_MACHINES,
    PCS_STAGE_ACCIDENTS,
    PCS_STAGE_ACOUSTICS,
    PCS_STAGE_SENSORS,
    PCS_STAGE_PROTECTION,
    PCS_STAGE_ALARMS,
    PCS_STAGE_PUBLISH,
    PCS_STAGE_EVENTS,
    PCS_STAGE_COUNT
} pcs_stage;

/** Lower-case stage name ("kinetics"), or "?" out of range. */
PCS_API const char *pcs_stage_name(pcs_stage stage);

/**
 * Store kinds: STATE stores are hashed and saved; SCRATCH stores are not.
 *
 * PCS_STORE_F64 is a layout flag added to a kind (use PCS_STORE_STATE_F64 or
 * PCS_STORE_SCRATCH_F64): every byte of every element is an IEEE double, i.e.
 * elem_size is a multiple of 8 and the element is a double or a struct of
 * doubles only (no integers, no padding). Such a store is checked for NaN and
 * infinities after every stage whose systems declare they write it, when the
 * world config's check_finite is on (see pcs_world_tick). Declare it only for
 * stores where a non-finite value is a fault, not a documented value (sensor
 * readings, for instance, carry NaN on purpose and are not declared).
 */
typedef enum pcs_store_kind {
    PCS_STORE_STATE = 0,
    PCS_STORE_SCRATCH = 1,
    PCS_STORE_F64 = 0x100, /**< layout flag: the store holds doubles only */
    PCS_STORE_STATE_F64 = PCS_STORE_STATE | PCS_STORE_F64,
    PCS_STORE_SCRATCH_F64 = PCS_STORE_SCRATCH | PCS_STORE_F64,
} pcs_store_kind;

/* A system's reads and writes lists have no compile-time bound: each names
 * stores of the world, so each is at most the world's store count long
 * (pcs_system_register). The engine checks every store access of a running
 * system against them (check_access, a linear scan) and compares them
 * pairwise between the systems of a stage at registration; a model with a
 * long list (the sensor bank of a 64-unit station reads hundreds of stores)
 * pays that scan in checked builds only. */
/** Longest store or system name, with its terminating NUL. */
#define PCS_NAME_MAX 64u

/**
 * Register a zeroed array of @p count elements of @p elem_size bytes.
 * @param name unique, 1..63 chars. @param id set to the store id (registration order).
 * @param kind PCS_STORE_STATE or PCS_STORE_SCRATCH, optionally with the
 *        PCS_STORE_F64 flag (the _F64 names): then @p elem_size must be a
 *        multiple of 8 and the element doubles only (values in the model's
 *        units; the engine only tests them for finiteness).
 * @return PCS_E_INVAL (NULL, empty/long/duplicate name, zero size, size overflow,
 *         unknown kind, F64 with elem_size not a multiple of 8),
 *         PCS_E_STATE after sealing, PCS_E_OVERFLOW past PCS_WORLD_IDS_MAX stores,
 *         PCS_E_NOMEM. The store table grows from the world heap during the
 *         build; a store's data never moves.
 */
PCS_API pcs_status pcs_store_register(pcs_world *w, const char *name, size_t elem_size,
                                      size_t count, pcs_store_kind kind, uint32_t *id);

/**
 * Base address of store @p id, or NULL (with PCS_E_NOTFOUND set) if it does
 * not exist. With the world config's check_access on, a call made by a
 * running system for a store outside its declared reads and writes makes the
 * tick fail with PCS_E_STATE, naming the system and the store, as soon as
 * that system returns (see "Declared access" below).
 */
PCS_API void *pcs_store_data(pcs_world *w, uint32_t id);

/** Bytes in store @p id (elem_size * count), 0 if it does not exist. */
PCS_API size_t pcs_store_bytes(const pcs_world *w, uint32_t id);

/** Find a store by name. @return PCS_E_NOTFOUND if absent. */
PCS_API pcs_status pcs_store_find(const pcs_world *w, const char *name, uint32_t *id);

/** Number of registered stores. */
PCS_API uint32_t pcs_store_count(const pcs_world *w);

/** Name of store @p id, or NULL. */
PCS_API const char *pcs_store_name(const pcs_world *w, uint32_t id);

/** Kind of store @p id without the F64 flag: PCS_STORE_STATE or PCS_STORE_SCRATCH
 *  (PCS_STORE_SCRATCH if it does not exist). */
PCS_API pcs_store_kind pcs_store_kind_of(const pcs_world *w, uint32_t id);

/** 1 if store @p id was registered with PCS_STORE_F64 (doubles only), else 0. */
PCS_API int pcs_store_is_f64(const pcs_world *w, uint32_t id);

/**
 * A system body. Runs on the world's thread at its stage.
 * @return PCS_OK, or an error (set the message with pcs_error_set) to stop the tick.
 */
typedef pcs_status (*pcs_system_fn)(pcs_world *w, void *ctx);

/** What a system is and what it touches. */
typedef struct pcs_system_desc {
    const char *name;       /**< unique, for messages and profiles */
    pcs_stage stage;        /**< stage it runs in */
    int32_t priority;       /**< lower runs first; ties by registration order */
    pcs_system_fn fn;       /**< body */
    void *ctx;              /**< passed to fn; owned by the caller */
    const uint32_t *reads;  /**< store ids read (may be NULL when n_reads = 0) */
    uint32_t n_reads;       /**< <= the world's store count */
    const uint32_t *writes; /**< store ids written */
    uint32_t n_writes;      /**< <= the world's store count */
} pcs_system_desc;

/**
 * Register a system. Refused (PCS_E_INVAL, naming both systems and the store)
 * when it writes a store another system of its stage writes, or reads a store
 * another system of its stage writes, or writes one another reads.
 * @return PCS_E_INVAL (NULL fn/name, bad stage, unknown store, an access list
 *         longer than the world's store count), PCS_E_STATE after sealing,
 *         PCS_E_OVERFLOW past PCS_WORLD_IDS_MAX systems, PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_system_register(pcs_world *w, const pcs_system_desc *desc, uint32_t *id);

/** Number of systems registered for @p stage and not retired (structure.h). */
PCS_API uint32_t pcs_system_count(const pcs_world *w, pcs_stage stage);

/*
 * ---- Declared access -----------------------------------------------------
 * A system's reads and writes are the contract the stage conflict check
 * relies on, so debug and test builds verify them (world config
 * check_access, default on when built with PCS_DEBUG):
 *  - level 1: pcs_store_data called while a system runs must name a store
 *    the system declares reading or writing. Otherwise, when the system
 *    returns (the call still returns the store, so a model that does not
 *    test for NULL does not crash first), whatever it returns, the tick
 *    fails with PCS_E_STATE and
 *    "tick T stage S: system 'X' touched store 'Y' it does not declare (add it
 *    to its reads or writes)".
 *  - level 2 adds a write check: every store is hashed before each system
 *    and after it; a store that changed but is not in the system's writes
 *    fails the tick with PCS_E_STATE and "tick T stage S: system 'X' changed
 *    store 'Y' it does not declare writing (add it to its writes)". This
 *    also sees writes through pointers a model cached at build.
 * Limits: a read through a pointer cached at build is not seen (only the
 * pcs_store_data call is); a write to a store declared read-only through
 * pcs_store_data is seen at level 2 only; command handlers, job callbacks
 * and event callbacks declare nothing and are not checked.
 */

/*
 * ---- Schedule ------------------------------------------------------------
 * What a world runs, for tools (`pcsim info --schedule`) and tests. Valid in
 * the build phase (the order is kept current at every registration) and
 * after. Strings and id arrays point into the world and live until it is
 * destroyed. Store ids map to names with pcs_store_name. Threads: the
 * world's thread while it is built; any thread once it is sealed (the
 * tables no longer change).
 */

/** One system, as the tick runs it. */
typedef struct pcs_schedule_system {
    uint32_t id;            /**< registration id (pcs_system_register) */
    pcs_stage stage;        /**< stage it runs in */
    int32_t priority;       /**< order within the stage, then id */
    const char *name;       /**< its unique name */
    const uint32_t *reads;  /**< declared reads (store ids), n_reads long */
    uint32_t n_reads;
    const uint32_t *writes; /**< declared writes (store ids), n_writes long */
    uint32_t n_writes;
} pcs_schedule_system;

/** Number of systems in every stage (the length of the run order: retired
 *  systems leave it at the commit, structure.h). 0 for NULL. */
PCS_API uint32_t pcs_schedule_system_count(const pcs_world *w);

/**
 * The system at position @p index of the run order: by stage, then priority,
 * then registration id, exactly as pcs_world_tick runs them.
 * @return PCS_E_INVAL (NULL), PCS_E_NOTFOUND (index >= the count).
 */
PCS_API pcs_status pcs_schedule_system_at(const pcs_world *w, uint32_t index,
                                          pcs_schedule_system *out);

/** One slow job. It merges before stage 1 of every tick where
 *  tick % period_ticks == phase % period_ticks (pcs_clock_due). */
typedef struct pcs_schedule_job {
    uint32_t id;           /**< registration id; due jobs merge in id order */
    const char *name;      /**< its name */
    pcs_domain domain;     /**< PCS_DOMAIN_SLOW or PCS_DOMAIN_STORAGE */
    uint32_t period_ticks; /**< pcs_clock_period(domain) */
    uint32_t phase;        /**< tick offset within the period, as registered */
    uint32_t n_chunks;     /**< chunks per run */
} pcs_schedule_job;

/** Number of registered jobs. 0 for NULL. */
PCS_API uint32_t pcs_schedule_job_count(const pcs_world *w);

/** Job @p index in registration (= merge) order.
 *  @return PCS_E_INVAL (NULL), PCS_E_NOTFOUND (index >= the count). */
PCS_API pcs_status pcs_schedule_job_at(const pcs_world *w, uint32_t index, pcs_schedule_job *out);

/**
 * What the engine itself does at @p stage, around that stage's systems, in
 * one line ("drain the command rings ..." at commands, "close the event
 * list ..." at events), or NULL when the stage is only its systems (or
 * @p stage is out of range). Any thread: static text.
 */
PCS_API const char *pcs_stage_engine_step(pcs_stage stage);

/**
 * Observer called around each stage (for the profile module: the engine
 * reads no clock itself). @p end is 0 before the stage and 1 after it.
 * Set NULL to remove. Build phase or between ticks only.
 */
typedef void (*pcs_stage_observer_fn)(void *ctx, pcs_stage stage, int end, uint64_t tick);
PCS_API pcs_status pcs_world_set_stage_observer(pcs_world *w, pcs_stage_observer_fn fn,
                                                void *ctx);

/*
 * ---- Parallel unit sections (engine/par_stage.c) -------------------------
 * Opt-in: a stage's systems named "uN." (unit N) run as a parallel-for over
 * units on the world's executor (pcs_world_set_executor, pcs_exec_attach).
 * A maximal run of consecutive unit systems in a stage's run order, with at
 * least two units, is a section; it is split by unit (one chunk per unit,
 * fixed at the seal), each chunk runs its unit's systems of the section in
 * run order, the host claims the chunks no worker has started, and systems
 * of no unit are barriers the host runs alone. A section runs in parallel
 * only if the seal proves from the declared reads and writes (and each
 * system's gate flag) that no store one unit's system writes is read or
 * written by another unit's system of the section; otherwise it runs in
 * run order on the host, as it does with check_access 2. Events, failures
 * and access faults from a chunk are buffered per unit and merged in run
 * order, so the event list, the state hash and saves equal a serial run's
 * for any worker count. Systems of a unit must keep no state shared with
 * another unit outside the stores (the proof sees only stores).
 */
/** One section (see above) in the schedule. */
typedef struct pcs_schedule_section {
    pcs_stage stage;      /**< its stage */
    uint32_t first, end;  /**< run-order range [first, end) (pcs_schedule_system_at) */
    uint32_t n_units;     /**< chunks: one per unit, in order of first appearance */
    uint32_t clash_store; /**< UINT32_MAX: proven, runs in parallel; else a store one
                               unit's system writes and another's touches: serial */
} pcs_schedule_section;

/**
 * Number of sections in the schedule, found and proven now (again only if
 * registrations came since the last time); 0 for NULL or when out of
 * memory. Sections
 * are reported whether or not parallel units are on. Build phase or
 * between ticks, on the world's thread.
 */
PCS_API uint32_t pcs_schedule_section_count(pcs_world *w);
/** Section @p index, in run order, as the last pcs_schedule_section_count
 *  (or the seal) found it.
 *  @return PCS_E_INVAL (NULL), PCS_E_NOTFOUND (index >= that count). */
PCS_API pcs_status pcs_schedule_section_at(const pcs_world *w, uint32_t index,
                                           pcs_schedule_section *out);

/**
 * Turn parallel unit sections on (1) or off (0, the default). Build phase.
 * Turning it on finds and proves the sections and allocates their buffers
 * (one event list of event_capacity per unit) now; the first tick does it
 * again only if systems, stores or gates were registered since, so a host
 * that calls this last has a first tick that allocates nothing.
 * @return PCS_E_INVAL (NULL world, @p on not 0 or 1), PCS_E_STATE after
 *         sealing, PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_world_set_parallel_units(pcs_world *w, int on);
/** 1 if parallel unit sections are on, else 0 (also for NULL). */
PCS_API int pcs_world_parallel_units(const pcs_world *w);

/*
 * ---- Gates (engine/gate.c) ----------------------------------------------
 * Freeze a group of systems and jobs on a flag in a STATE store.
 *
 * A gate ties every system and job whose name starts with a prefix ("u2.")
 * to one uint32 element of a STATE store. While that element is non-zero the
 * group is frozen: its systems are skipped at their stage and its jobs are not
 * submitted at their due ticks (a run already in flight still merges at its
 * due tick: it belongs to the time before the freeze). Frozen stores keep
 * their values, so readers see the group as it was.
 *
 * The flag lives in a model's STATE store, so it is saved, loaded and hashed
 * like any state, and a frozen group is the same whatever the workers or
 * readers. Gates cost one load per system per tick and nothing when absent.
 * Nobody but the store's owner writes the flag: between ticks, or by a
 * system of an earlier stage (the gate is read when the system is reached).
 *
 * Thread-safety: build phase for pcs_world_gate_add; the world's thread.
 */
/**
 * Gate the systems and jobs registered so far whose names start with
 * @p prefix on element @p index of STATE store @p store (elements of 4 bytes,
 * read as uint32). @p n_gated (optional) is set to the number gated.
 * @return PCS_E_INVAL (NULL or empty prefix, unknown store, a SCRATCH store,
 *         elements not 4 bytes, index out of range, a system or job already
 *         gated, nothing matching), PCS_E_STATE after sealing.
 */
PCS_API pcs_status pcs_world_gate_add(pcs_world *w, const char *prefix, uint32_t store,
                                      uint32_t index, uint32_t *n_gated);

#ifdef __cplusplus
}
#endif

#endif
