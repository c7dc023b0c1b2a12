/**
 * @file structure.h
 * @brief Structural change while the world runs: devices and units added and
 *        removed at the tick boundary, in command order.
 *
 * A structural change is a command (command.h) of a kind registered here.
 * It travels like any command: a source submits it, stage 1 of tick T drains
 * it in (source class, id, sequence) order and runs the kind's @c check
 * against the world as it is (PCS_OK accepts it: it is journaled; an error
 * rejects it: a command_rejected event, never a failed tick). An accepted
 * change is not applied at stage 1: the engine queues it, and after stage 13
 * and the plugins' after_step, before the clock advances, applies the queue
 * in drain order by calling each kind's @c apply. Every system of tick T
 * therefore sees one structure, and tick T + 1 (its slow-job merge first)
 * sees the new one (docs/ARCHITECTURE.md, the tick sequence).
 *
 * While an @c apply runs the world is open for amendment: stores, systems,
 * jobs, channels, command targets and entities may be registered exactly as
 * in the build phase (the same calls, the same checks), and systems, jobs and
 * channels may be retired (below). When the queue is applied the engine
 * commits once: the run order and the parallel sections are rebuilt from the
 * live systems, new jobs are bound to the executor (a job's first run starts
 * at its next due tick), the layout version advances when the channel set
 * changed, and the structure observers (the snapshot pool) are told.
 *
 * Retiring. A retired system never runs again and leaves the schedule; a
 * retired job is never submitted again and a run of it still in flight is
 * joined and dropped at its merge (its result belongs to a device that is
 * gone); a retired channel resolves no more by name or id, and its id is
 * never given to another channel. Ids are never reused, so an id a host kept
 * names its record or fails, never another. Stores are not retired: a
 * removed device's rows keep their last values and stay in saves and in the
 * hash (a model reuses rows when a device comes back).
 *
 * Saves and replay. Every applied change is kept in the structure log (tick
 * and command, in application order), which is saved and hashed. The log
 * keeps no transport: an entry's source class, source id and sequence are
 * 0, so a change hashes alike whichever source submitted it (a journal
 * replay resubmits through one source). Loading a
 * save into a world built from the same scenario re-applies the log's
 * changes the world has not seen, in order, before any store is restored, so
 * the loaded world has the structure the save had; a world whose own log is
 * not a prefix of the save's is refused, naming the first entry that
 * differs. Every entry is checked before the first is re-applied: the
 * generic fields, then the kind's @c validate when it has one. Only a world
 * that has never ticked nor loaded takes a save whose log extends its own (persist.h,
 * "Loads that change the structure"). Journal replay re-submits the structural commands with the
 * rest.
 *
 * Memory. The queue (commands_per_tick entries) and the log
 * (structure_log_capacity entries, world.h) are allocated when the first
 * structural kind is registered. A tick without a structural change
 * allocates nothing; a change allocates what its registrations need.
 *
 * Failure. @c apply returns an error only when the world cannot take the
 * change (out of memory, a table at its limit), and should fail before it
 * changes the world: the tick fails as a failed stage does (world.c: no rollback) and
 * the message names the command; the failed change is not logged and its
 * journal entry is withdrawn (pcs_journal_read skips it), so a journal
 * replay applies what the run applied; the changes accepted after it stay
 * queued for the retry of the tick. A change accepted by an attempt that
 * failed at any step stays queued and is applied by the retry without a
 * second check, and the events its check emitted are emitted again at the
 * retry's stage 1, as every command's of a failed attempt are, so the tick
 * that succeeds announces it once, in drain order (engine/structure.c,
 * "Retried ticks"; engine/command_carry.c); a change whose apply failed is
 * not announced again. A
 * load drops the changes a failed tick left queued (they were checked
 * against the world the load replaced), calling each one's kind's
 * @c dropped.
 * A change that became moot since its check (two removals of one device in
 * one tick) is the model's to treat as a no-op.
 *
 * Thread-safety: registration in the build phase; check and apply run on the
 * world's thread; the observers are called on the world's thread.
 */
#ifndef PCSIM_STRUCTURE_H
#define PCSIM_STRUCTURE_H

#include <stdint.h>

#include "pcsim/command.h"
#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A load's check of a saved structure-log entry @p c of this kind (see
 * pcs_structure_kind_def.validate). World thread, during pcs_world_load.
 */
typedef pcs_status (*pcs_structure_validate_fn)(const pcs_world *w, void *ctx,
                                                const pcs_command *c);

/** A structural command kind. Start from pcs_structure_kind_default(). */
typedef struct pcs_structure_kind_def {
    uint32_t kind;        /**< command kind, free (no handler, no family); required */
    const char *name;     /**< [A-Za-z0-9_.-], 1..63 chars: messages, schedule dump; required */
    pcs_command_fn check; /**< stage 1: accept (PCS_OK) or reject; required */
    pcs_command_fn apply; /**< after stage 13: change the world; required */
    void *ctx;            /**< passed to all three */
    /** Optional: a load dropped this accepted change before its apply
     *  ("Failure"); the model forgets what its check marked pending. Its
     *  status is ignored. */
    pcs_command_fn dropped;
    /** Optional: a load's check of one saved structure-log entry, before
     *  any entry is re-applied ("Saves and replay"). It sees the entry as
     *  logged (source and sequence 0, the tick it was applied at) and the
     *  world as built, and returns PCS_OK, or PCS_E_CORRUPT with a message
     *  (pcs_error_set) naming the field (target, args[i]), its value and the
     *  allowed range; the loader adds the file, the section and the entry's
     *  index. Must not change @p w. Without it an entry gets the generic
     *  checks only (a structural kind of this world, reserved, source and
     *  sequence 0, ticks in order). */
    pcs_structure_validate_fn validate;
} pcs_structure_kind_def;

/** Zeroed def. */
PCS_API pcs_structure_kind_def pcs_structure_kind_default(void);

/**
 * Register a structural command kind. Build phase only.
 * @return PCS_E_INVAL (NULL, kind out of range or taken, naming its owner,
 *         bad name, NULL check or apply), PCS_E_STATE (sealed), PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_structure_kind_register(pcs_world *w, const pcs_structure_kind_def *def);

/** Non-zero while a structural @c apply runs (registrations are open). */
PCS_API int pcs_world_amending(const pcs_world *w);

/**
 * Retire system @p id (see "Retiring"). Only while amending.
 * @return PCS_E_NOTFOUND (no such system, or already retired, naming it),
 *         PCS_E_STATE (not amending), PCS_E_INVAL (NULL).
 */
PCS_API pcs_status pcs_system_retire(pcs_world *w, uint32_t id);
/** Retire job @p id; errors as pcs_system_retire. */
PCS_API pcs_status pcs_job_retire(pcs_world *w, uint32_t id);
/** Retire channel @p id; errors as pcs_system_retire. */
PCS_API pcs_status pcs_channel_retire(pcs_world *w, uint32_t id);
/** Non-zero when channel @p id exists and is live. */
PCS_API int pcs_channel_live(const pcs_world *w, uint32_t id);

/**
 * The world's layout version: 1 at build, +1 at each commit that changed the
 * channel set (a channel registered or retired). Any thread may read it
 * between ticks of the world's thread; readers get it from the snapshot.
 * 0 for NULL.
 */
PCS_API uint64_t pcs_world_layout_version(const pcs_world *w);

/** What one commit changed: counts of records added and retired. */
typedef struct pcs_structure_change {
    uint64_t tick;      /**< the tick whose changes were applied */
    uint32_t n_applied; /**< structural commands applied */
    uint32_t systems_added, systems_retired;
    uint32_t jobs_added, jobs_retired;
    uint32_t channels_added, channels_retired;
    uint64_t layout_version; /**< after the commit */
} pcs_structure_change;

/** Called on the world's thread after each commit that applied anything. */
typedef pcs_status (*pcs_structure_observer_fn)(pcs_world *w, void *ctx,
                                                const pcs_structure_change *change);

/**
 * Add an observer of commits (the snapshot pool adds one at attach). Build
 * phase only; observers are called in the order added; an error fails the
 * tick as an apply error does.
 * @return PCS_E_INVAL (NULL), PCS_E_STATE (sealed), PCS_E_OVERFLOW, PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_structure_observe(pcs_world *w, pcs_structure_observer_fn fn, void *ctx);

/** Entries in the structure log (every change applied since the build). */
PCS_API uint32_t pcs_structure_log_count(const pcs_world *w);

/**
 * Entry @p i of the structure log: the command as applied (its tick the
 * tick it was applied at), source class, source id and sequence 0.
 * @return PCS_E_NOTFOUND out of range, PCS_E_INVAL (NULL).
 */
PCS_API pcs_status pcs_structure_log_at(const pcs_world *w, uint32_t i, pcs_command *out);

/**
 * Check command @p c's own fields the way a load checks a saved log entry:
 * when its kind is a structural kind of @p w with a @c validate, that
 * validate (its target and arguments: what does not depend on the world's
 * state at its tick). A journal replay checks every line with it before it
 * queues any, so a hand-edited structural command is refused at its own line
 * naming the field, rather than found ticks later by what it failed to
 * change. Never changes @p w. World thread (the validate's rule).
 * @return PCS_OK (valid, a structural kind without validate, or a kind that
 *         is not structural: nothing to check here), the validate's error
 *         (naming the field, its value and the allowed range), PCS_E_INVAL
 *         (NULL).
 */
PCS_API pcs_status pcs_structure_command_validate(const pcs_world *w, const pcs_command *c);

#ifdef __cplusplus
}
#endif

#endif
