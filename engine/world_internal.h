/**
 * @file world_internal.h
 * @brief The world's private layout, shared by the engine's files only.
 *
 * Everything here is allocated at create or during the build phase; the tick
 * only reads and writes these arrays. The registries (stores, systems, jobs,
 * channels, command targets, load checks, cleanups) have no compile-time
 * size: each starts empty and doubles from the world heap when a
 * registration finds it full (pcs_table_reserve, engine/name_index.h), up to
 * PCS_WORLD_IDS_MAX records, so a world holds what its builder registered.
 * After the seal nothing grows, and the tick allocates nothing.
 *
 * Growing moves a table; the old copy stays in the world heap until destroy
 * but is stale. So no address of a record is kept across a registration:
 * records are found by id each time, and what outlives a registration lives
 * in its own allocation that never moves (store data and names, a job's
 * input, outputs and pcs_job_run, which an executor keeps from bind to
 * unbind).
 */
#ifndef PCS_ENGINE_WORLD_INTERNAL_H
#define PCS_ENGINE_WORLD_INTERNAL_H

#include "engine/mem.h"
#include "pcsim/channel.h"
#include "pcsim/command.h"
#include "pcsim/event.h"
#include "pcsim/job.h"
#include "pcsim/persist.h"
#include "pcsim/plugin.h"
#include "pcsim/system.h"
#include "pcsim/world.h"

typedef struct pcs_store_rec {
    const char *name;
    void *data;
    size_t elem_size;
    size_t count;
    pcs_store_kind kind; /* STATE or SCRATCH, without the F64 flag */
    int f64;             /* doubles only: scanned by the finite check */
} pcs_store_rec;

typedef struct pcs_system_rec {
    pcs_system_desc desc; /* name and access lists point into world memory */
    uint32_t id;
    const uint32_t *gate; /* engine/gate.c: skipped while *gate != 0; NULL = never */
    int retired;          /* pcs_system_retire: out of the run order from the commit on */
} pcs_system_rec;

/* A channel's record: what pcs_channel_get reports (name and unit in world
 * memory), behind the name the index sees (name_index.h reads a record's
 * first member and skips NULL): info.name while live, NULL once retired, so
 * a retired channel leaves the index, also when the table grows. */
typedef struct pcs_channel_rec {
    const char *name;
    pcs_channel_info info;
    uint64_t retired_at; /* the tick it was retired at (name NULL) */
} pcs_channel_rec;

typedef struct pcs_job_rec {
    pcs_job_desc desc; /* name points into world memory */
    void *input;       /* input_bytes */
    void **outputs;    /* n_chunks slots of output_bytes */
    pcs_job_run *run;  /* the executor's view of input/outputs/run_chunk: its own
                          allocation, kept by the executor while the table grows */
    void *slot;        /* executor's per-job state; NULL = not bound */
    int pending;       /* a run was submitted and not yet merged */
    int rerun;         /* pending run's executor went away: run it again from input */
    uint64_t submit_tick;
    const uint32_t *gate; /* engine/gate.c: not submitted while *gate != 0; NULL = never */
    int retired;          /* pcs_job_retire: never submitted again; a pending run is dropped */
} pcs_job_rec;

typedef struct pcs_load_check_rec {
    pcs_load_check_fn fn;
    void *ctx;
    const char *name;
} pcs_load_check_rec;

/* engine/plugin.c: a plugin and the id ranges its initialize registered. */
typedef struct pcs_plugin_rec {
    pcs_plugin_def def; /* id and section point into world memory; section_json NULL */
    void *ctx;
    uint32_t first_store, n_stores, first_system, n_systems, first_job, n_jobs;
} pcs_plugin_rec;

/* A callback the world calls back later with its context. The two lists,
 * the cleanups (void (*)(void *), pcs_world_on_destroy) and the run-state
 * observers (pcs_run_state_fn, pcs_world_on_run_state), share one record and
 * one registration (pcs_hook_add): fn is kept as the generic void (*)(void)
 * and converted back to the list's own type before each call, which C17
 * 6.3.2.3p8 defines. */
typedef void (*pcs_hook_fn)(void);

typedef struct pcs_hook_rec {
    pcs_hook_fn fn;
    void *ctx;
} pcs_hook_rec;

/* The hook lists, indexing pcs_world.hooks. */
typedef enum pcs_hook_kind {
    PCS_HOOK_CLEANUP = 0,   /* called in reverse order by pcs_world_destroy */
    PCS_HOOK_RUN_STATE = 1, /* called in order on each pause and resume (pacing.c) */
    PCS_HOOK_KINDS
} pcs_hook_kind;

typedef struct pcs_hook_list {
    pcs_hook_rec *recs; /* cap records, registration order */
    uint32_t n, cap;
} pcs_hook_list;

/* The host's observers of each stage and of each tick's events: set, not
 * registered (one each; NULL fn: none). */
typedef struct pcs_stage_observer_rec {
    pcs_stage_observer_fn fn;
    void *ctx;
} pcs_stage_observer_rec;

typedef struct pcs_event_callback_rec {
    pcs_event_fn fn;
    void *ctx;
} pcs_event_callback_rec;

typedef struct pcs_command_queue pcs_command_queue;

/* engine/entity.c: the entity table (pcsim/entity.h); NULL until added. */
typedef struct pcs_entity_table pcs_entity_table;

/* engine/structure.c: structural kinds, the queue, the log, the observers
 * (pcsim/structure.h); NULL until the first structural kind. */
typedef struct pcs_structure pcs_structure;
/* engine/command_carry.c: the events of this tick's commands, kept until
 * an attempt at the tick succeeds. */
typedef struct pcs_command_carry pcs_command_carry;

/* A command kind's owner: a plain handler (fn, ctx), or a family (family =
 * index + 1 into pcs_targets.families); all zero when the kind is free. */
typedef struct pcs_handler_rec {
    pcs_command_fn fn;
    void *ctx;
    uint32_t family;
} pcs_handler_rec;

/* engine/command_target.c: kind families, named targets and their bindings. */
typedef struct pcs_family_rec {
    const char *name;
    uint32_t first, n_kinds;
    pcs_target_fn fn;
} pcs_family_rec;

typedef struct pcs_target_rec {
    const char *name;    /* NULL while the slot is free */
    uint32_t generation; /* current generation, 1..PCS_TARGET_GENERATION_MAX */
    uint32_t binding;    /* first binding + 1, 0 = none */
    uint32_t next_free;  /* free slot list: next slot + 1, 0 = end */
} pcs_target_rec;

typedef struct pcs_binding_rec {
    uint32_t next;   /* the same target's next binding + 1, 0 = end */
    uint32_t family; /* index into families */
    void *ctx;
    uint32_t element;
    uint64_t ops; /* bit k: takes kind first + k */
} pcs_binding_rec;

typedef struct pcs_targets {
    pcs_family_rec *families; /* PCS_COMMAND_KINDS_MAX (a family holds a kind), at first use */
    uint32_t n_families;
    pcs_target_rec *slots; /* slots_cap, grown by doubling during the build */
    uint32_t n_slots, slots_cap, n_live;
    uint32_t free_head; /* first free slot + 1, 0 = none */
    uint32_t *index;    /* open addressing: slot + 1 (0 = empty), 2 x slots_cap entries */
    pcs_binding_rec *bindings;
    uint32_t n_bindings, bindings_cap;
} pcs_targets;

/* engine/pacing.c: run state and pacing (world.h). Host-side configuration,
 * not simulation state: never saved, loaded or hashed. */
typedef struct pcs_pacing {
    uint64_t dt_ps;       /* one tick of simulated time in picoseconds (dt_s rounded) */
    uint64_t carry_ps;    /* simulated time accrued short of a whole tick, < dt_ps */
    uint64_t owed;        /* whole ticks due and not yet run (the backlog) */
    uint32_t speed_milli; /* speed multiplier x 1000, [100, 1000000] */
    int paused;
} pcs_pacing;

struct pcs_world {
    pcs_world_def cfg;
    pcs_clock clock;
    pcs_pacing pacing; /* engine/pacing.c */
    int sealed;
    pcs_mem mem;

    pcs_store_rec *stores; /* stores_cap, by id */
    uint32_t n_stores, stores_cap;
    uint32_t *store_index; /* name index (engine/name_index.h), 2 x stores_cap entries */

    pcs_system_rec *systems; /* systems_cap, registration order */
    uint32_t n_systems, systems_cap;
    uint32_t *stage_order; /* systems_cap: system indices by stage, sorted */
    uint32_t stage_start[PCS_STAGE_COUNT + 1];
    const pcs_system_rec *running; /* system whose fn is executing, else NULL */
    uint32_t access_fault;         /* check_access: first undeclared store it touched */
    uint64_t *store_hash;          /* check_access 2: each store's hash, store_hash_cap */
    uint32_t store_hash_cap;       /* = stores_cap once a store is registered */
    pcs_stage_observer_rec stage_observer;
    int par_units;            /* pcs_world_set_parallel_units: 0 off, 1 on */
    struct pcs_par_plan *par; /* engine/par_stage.c: built at the seal when par_units */

    pcs_handler_rec handlers[PCS_COMMAND_KINDS_MAX];
    pcs_targets targets;
    pcs_command_queue *commands;
    pcs_command_carry *carry;   /* engine/command_carry.c */
    pcs_entity_table *entities; /* engine/entity.c; NULL: none */
    pcs_structure *structure;   /* engine/structure.c; NULL: no structural kind */
    int amending;               /* a structural apply runs: registrations are open */
    /* Non-empty: why this world may not tick or save any more (a load that
     * re-applied a save's structural changes and was then refused left its
     * structure half the save's; engine/persist.c). */
    char unusable[512];
    /* 1 once a load was accepted: the world holds that save's state, so it
     * is no longer fresh and takes no save whose structure log extends its
     * own (engine/persist.c, check_fresh: a refusal after the replay would
     * lose what it holds). */
    int loaded;
    uint32_t n_retired_systems, n_retired_jobs, n_retired_channels; /* ever retired */

    pcs_event *events; /* event_capacity; the last slot is kept for the overflow event */
    uint32_t n_events;
    pcs_event *events_prev; /* event_capacity: the last completed tick's list while a tick runs */
    uint32_t n_events_prev;
    int events_committed; /* the list in `events` is a completed tick's (event.c) */
    uint64_t events_dropped_tick;
    int events_closed;        /* stage 13 began: the overflow event is kept current */
    uint32_t events_overflow; /* index of this tick's overflow event, or UINT32_MAX */
    uint64_t events_dropped_total;
    pcs_event_callback_rec event_callback;

    pcs_channel_rec *channels;
    uint32_t n_channels;
    uint32_t channels_cap;
    uint32_t *channel_index; /* open-addressing table of id + 1 (0 = empty), 2 x cap slots */

    pcs_job_rec *jobs; /* jobs_cap, by id */
    uint32_t n_jobs, jobs_cap;
    pcs_executor exec; /* valid when has_exec */
    int has_exec;
    int exec_revoked; /* the executor was destroyed under us: submits fail until rebound */

    pcs_load_check_rec *load_checks; /* load_checks_cap, registration order */
    uint32_t n_load_checks, load_checks_cap;

    pcs_hook_list hooks[PCS_HOOK_KINDS]; /* cleanups, run-state observers */

    pcs_plugin_rec *plugins; /* plugins_cap, kept in run order: (priority, id) */
    uint32_t n_plugins, plugins_cap;
    int plugin_initializing; /* a plugin's initialize is running: no nested add */
};

/* Common guard for build-phase registrations. */
pcs_status pcs_world_check_build(const pcs_world *w, const char *fn);

/* engine/world.c: PCS_E_OVERFLOW, naming @p who and @p what, when a table
 * already holds @p n = PCS_WORLD_IDS_MAX records; else PCS_OK. */
pcs_status pcs_table_limit(const char *who, const char *what, uint32_t n);

/* engine/world.c: room for record @p n of a table of *@p cap records of
 * @p size bytes, whose address is stored at @p table (a `T **`): when it is
 * full, a new array of twice the capacity (16 at first) from the world heap,
 * holding the first @p n records, replaces it. PCS_E_OVERFLOW past
 * PCS_WORLD_IDS_MAX, PCS_E_NOMEM, each naming @p who and @p what. Build
 * phase only: records move, see the file comment. */
pcs_status pcs_table_reserve(pcs_world *w, const char *who, const char *what, void *table,
                             uint32_t n, uint32_t *cap, size_t size);

/* engine/world.c: appends (fn, ctx) to w's hook list @p kind, in the build
 * phase only (pcs_world_check_build); PCS_E_INVAL "<who>: fn is NULL" when
 * @p fn is NULL, and pcs_table_reserve's errors naming @p who and @p what. */
pcs_status pcs_hook_add(pcs_world *w, pcs_hook_kind kind, const char *who, const char *what,
                        pcs_hook_fn fn, void *ctx);

/* engine/channel.c: PCS_E_INVAL unless @p name is 1..127 chars of
 * [A-Za-z0-9_-] segments joined by '.' (channel and target names). */
pcs_status pcs_name_check(const char *who, const char *name);

/* engine/command_target.c: resolve @p c's target for its family's kind and
 * run the family's handler (stage 1). */
pcs_status pcs_command_target_apply(pcs_world *w, const pcs_handler_rec *h, const pcs_command *c);

/* engine/command.c */
pcs_status pcs_commands_create(pcs_world *w);
void pcs_commands_destroy(pcs_world *w);
pcs_status pcs_commands_stage(pcs_world *w);

/* engine/pacing.c: running at 1x, nothing owed (pcs_world_create). */
void pcs_pacing_init(pcs_world *w);

/* engine/event.c. The last completed tick's events: what the next tick's
 * systems read as the previous tick's, and what a save keeps and the state
 * hash covers. */
const pcs_event *pcs_events_last_completed(const pcs_world *w, uint32_t *count);
/* Make @p events (@p n <= event_capacity) the last completed tick's list (load). */
void pcs_events_restore(pcs_world *w, const pcs_event *events, uint32_t n);
/* The tick's list, in tick order (pcs_world_tick): opened empty, closed to
 * emits, handed to the host's callback, kept as the last completed list. */
void pcs_events_begin_tick(pcs_world *w);
void pcs_events_end_tick(pcs_world *w);
void pcs_events_deliver(pcs_world *w);
void pcs_events_commit(pcs_world *w);

/* engine/system.c */
pcs_status pcs_systems_run_stage(pcs_world *w, pcs_stage stage);
/* Run-order entries [first, end) of @p stage on the calling thread, in
 * order; stops at the first failure (gates and the access check apply). */
pcs_status pcs_systems_run_range(pcs_world *w, pcs_stage stage, uint32_t first, uint32_t end);

/* engine/event.c: append @p e to this tick's list as pcs_event_emit would
 * (the capacity, the kept overflow slot, drops after the close); @p drops
 * more events count as dropped. The merge of a parallel section. */
void pcs_events_append(pcs_world *w, const pcs_event *e);
void pcs_events_add_drops(pcs_world *w, uint64_t drops);

/* engine/plugin.c: the plugins' step callbacks in (priority, id) order
 * (pcs_world_tick), and their shutdowns in reverse (pcs_world_destroy). */
pcs_status pcs_plugins_before_step(pcs_world *w);
pcs_status pcs_plugins_after_step(pcs_world *w);
void pcs_plugins_shutdown(pcs_world *w);

/* engine/access_check.c (store.c's hook; the rest is in access_check.h):
 * with check_access on, record the first store the running system, if any,
 * touches without declaring it, for pcs_systems_run_stage to report. */
void pcs_access_note(pcs_world *w, uint32_t id);
/* The level-1 verdict for system @p d after its fn returned @p st, with
 * @p fault the first undeclared store it touched (UINT32_MAX: none). */
pcs_status pcs_access_verdict(pcs_world *w, pcs_stage stage, const pcs_system_desc *d,
                              uint32_t fault, pcs_status st);

/* engine/finite_check.c: PCS_E_NUMERIC naming the first NaN/Inf in a
 * PCS_STORE_F64 store a system of @p stage declares it writes. */
pcs_status pcs_finite_check_stage(pcs_world *w, pcs_stage stage);

/* engine/world.c: PCS_OK, or PCS_E_STATE "<fn>: <why>" when the world was
 * marked unusable (pcs_world_mark_unusable); the mark is never cleared. */
pcs_status pcs_world_usable(const pcs_world *w, const char *fn);
void pcs_world_mark_unusable(pcs_world *w, const char *why);

/* engine/structure.c: apply the structural changes queued at stage 1 and
 * commit them (pcs_world_tick, after plugins_after_step). */
pcs_status pcs_structure_apply_queued(pcs_world *w);
/* engine/command_carry.c (its file comment argues the rule and the bound).
 * create: at world creation (event_capacity events). announce: at stage 1,
 * before the drain, emit again the events of the commands the failed
 * attempts at this tick applied or rejected (their list was discarded).
 * keep: after command.c applied one command, keep the events emitted from
 * @p first_event on and the drops since @p dropped_before, owned by its
 * journal entry @p journal_index when @p journaled. forget: the events of
 * journal entry @p journal_index (withdrawn). clear: an attempt succeeded,
 * or a load replaced the world. */
pcs_status pcs_command_carry_create(pcs_world *w);
void pcs_command_carry_announce(pcs_world *w);
void pcs_command_carry_keep(pcs_world *w, uint32_t first_event, uint64_t dropped_before,
                            int journaled, uint64_t journal_index);
void pcs_command_carry_forget(pcs_world *w, uint64_t journal_index);
void pcs_command_carry_clear(pcs_world *w);
/* engine/command.c: take the journal entry of @p c (an accepted structural
 * change whose apply failed; the same source, sequence and tick) out of
 * what pcs_journal_read returns, so the journal holds what was applied. */
void pcs_journal_withdraw(pcs_world *w, const pcs_command *c);
/* engine/structure.c: forget the changes a failed tick left queued
 * (pcs_world_load: they were checked against the world it replaced),
 * telling each kind's dropped. */
void pcs_structure_drop_queued(pcs_world *w);
/* engine/structure.c, for saves (engine/persist.c): the log's entries
 * (pcs_structure_log_count of them); the name of structural kind @p kind,
 * or NULL when @p kind is not one; re-apply @p n logged changes (the tail
 * of a save's log this world has not applied), each tick's at its tick. */
const pcs_command *pcs_structure_log_data(const pcs_world *w);
const char *pcs_structure_kind_name(const pcs_world *w, uint32_t kind);
pcs_status pcs_structure_replay(pcs_world *w, const pcs_command *entries, uint32_t n);
/* The kind's validate of saved log entry @p c (a structural kind of @p w):
 * PCS_OK without one. */
pcs_status pcs_structure_validate(const pcs_world *w, const pcs_command *c);
/* engine/structure.c: fold the structure log into the state hash (nothing
 * while it is empty, so worlds without structural change keep their hash). */
void pcs_structure_hash(const pcs_world *w, void *xxh3_state);

/* engine/structure.c: the checks of every pcs_<record>_retire (@p fn),
 * @p what "system", "job" or "channel": a world, amending, @p id below @p n,
 * and @p retired_name(w, id) NULL (the record's name when it is retired). */
pcs_status pcs_retire_check(const pcs_world *w, const char *fn, const char *what, uint32_t id,
                            uint32_t n,
                            const char *(*retired_name)(const pcs_world *w, uint32_t id));

/* engine/system.c: the commit's schedule: drop retired systems from the
 * run order and re-check systems [first_new, n_systems) against the live
 * systems of their stage. */
pcs_status pcs_systems_commit(pcs_world *w, uint32_t first_new);
/* engine/par_stage.c: the parallel sections again, from the committed
 * schedule (the old plan's executor runs unbound). */
pcs_status pcs_par_plan_rebuild(pcs_world *w);

/* engine/job.c */
pcs_status pcs_jobs_before_tick(pcs_world *w);
/* The commit: unbind retired jobs with no run in flight (one in flight is
 * unbound when its merge drops it). */
void pcs_jobs_commit(pcs_world *w);
/* Unbind every job from the executor (waits for chunks in flight). World destroy. */
void pcs_jobs_destroy(pcs_world *w);
/* pcs_world_load: finish runs in flight (result dropped) before inputs are
 * overwritten; afterwards resubmit the loaded pending runs to the executor. */
void pcs_jobs_before_load(pcs_world *w);
pcs_status pcs_jobs_after_load(pcs_world *w);

#endif
