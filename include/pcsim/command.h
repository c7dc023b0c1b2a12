/**
 * @file command.h
 * @brief Commands: fixed-size requests from any thread, applied in stage 1.
 *
 * A producer thread that submits often opens a command source (class, id): it
 * owns a bounded single-producer ring. Callers without a source share one
 * bounded multi-producer ring (source class PCS_SOURCE_ANON). Submission never
 * blocks: a full ring returns PCS_E_RATE at once and the command is not queued.
 *
 * Rate limits. An opened source may also carry a token bucket
 * (pcs_command_source_set_rate): rate tokens per simulated second, at most
 * burst held, one per accepted command; without a token the submit returns
 * PCS_E_RATE with the simulated time until the next one, counted apart from
 * capacity refusals (pcs_command_source_stats). The bucket refills from
 * simulated ticks, not from a time the host passes in: the library reads no
 * clock, a host that runs faster or slower than real time (stepped, paused,
 * --speed) limits its clients per unit of plant time, which is what a rate
 * of plant actions means, and the same submissions per tick are accepted or
 * refused alike on every run (determinism, replays). Tokens therefore arrive
 * with ticks: rate * dt per tick. Sources have no limit until one is set,
 * and an unlimited source pays one predictable branch. The shared ring has
 * no rate limit (engine/command.c, "Rate limits": it has no owner to limit);
 * its capacity bounds it. pcsim's own script and `pcsim serve` sources use
 * the seed design's 400/s, burst 800 (scenarios/README.md).
 *
 * At stage 1 the world drains at most commands_per_tick commands from what the
 * rings hold when the drain starts, taking what passes of one command per
 * source in (class, id) order would take (so a chatty source cannot starve the
 * rest), and applies them sorted by (source class, source id, sequence). The
 * cost is linear in the commands drained plus the sources open. What is not
 * drained stays queued in order; a command submitted during the drain waits
 * for the next tick.
 * Every applied command is journaled with its effective tick; a command whose
 * kind has no handler, whose target is stale, unknown or does not take its
 * kind, or whose handler refuses it, is rejected with a PCS_EV_COMMAND_REJECTED
 * event (docs/ARCHITECTURE.md section 4).
 *
 * Targets. A model allocates a kind family from the engine
 * (pcs_command_family_register: n consecutive kinds and the family's handler)
 * and registers named targets ("u1.pump2", "u1.rps.high_flux"), each binding
 * its handler context, an element and the kinds it takes. A host resolves a
 * name once (pcs_command_target_find), as it resolves channels, and submits
 * by id; stage 1 checks the id and the kind before the handler runs, and
 * hands the handler the target's context and element. Ids and kinds are
 * given in registration order, so a world built from the same description
 * resolves every name to the same id and kind (what a journal replay needs).
 * Kinds outside every family may still get a plain handler
 * (pcs_command_handler_register) that ignores the target: a host's own kinds.
 */
#ifndef PCSIM_COMMAND_H
#define PCSIM_COMMAND_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Command kinds are < PCS_COMMAND_KINDS_MAX. Kind 0 is never valid. */
#define PCS_COMMAND_KINDS_MAX 256u
/** Arguments per command. */
#define PCS_COMMAND_ARGS 4u
/** Source class of the shared anonymous ring; opened sources use class >= 1. */
#define PCS_SOURCE_ANON 0u

/**
 * A command target's id (Box2D's id.h is the model): the target's slot and
 * the slot's generation, which changes when the target is removed, so an id
 * kept past a removal is refused rather than taken for the slot's next
 * target. Generation 0 is never issued: a zeroed id is the null id.
 */
typedef struct pcs_target_id {
    uint32_t index;      /**< slot, < PCS_TARGET_MAX */
    uint32_t generation; /**< 1..PCS_TARGET_GENERATION_MAX */
} pcs_target_id;

/** Bits of a stored id (pcs_target_id_store) that hold the slot index. The
 *  id must fit the command's 32-bit target field so a command stays 64 bytes;
 *  20 bits allow 2^20 - 1 targets per world (a sensor or alarm bank's own
 *  limit is 2^20 elements), the other 12 the generation. */
#define PCS_TARGET_INDEX_BITS 20u
/** Target slots per world: the one limit on targets (see PCS_TARGET_INDEX_BITS). */
#define PCS_TARGET_MAX ((1u << PCS_TARGET_INDEX_BITS) - 1u)
/** Largest generation; after it a slot's generation wraps to 1. */
#define PCS_TARGET_GENERATION_MAX ((1u << (32u - PCS_TARGET_INDEX_BITS)) - 1u)
/** Element meaning "the whole object" (every bank of a unit, every alarm). */
#define PCS_TARGET_ELEMENT_ALL UINT32_MAX
/** Kinds per family: a target's accepted kinds are a 64-bit mask. */
#define PCS_COMMAND_FAMILY_MAX_KINDS 64u

/** Pack @p id into a command's target field (Box2D's b2StoreBodyId). */
static inline uint32_t pcs_target_id_store(pcs_target_id id)
{
    return (id.generation << PCS_TARGET_INDEX_BITS) | (id.index & PCS_TARGET_MAX);
}

/** The id a command's target field holds (Box2D's b2LoadBodyId). */
static inline pcs_target_id pcs_target_id_load(uint32_t stored)
{
    pcs_target_id id = {stored & PCS_TARGET_MAX, stored >> PCS_TARGET_INDEX_BITS};
    return id;
}

/** A command: 64 bytes of plain data. */
typedef struct pcs_command {
    uint32_t kind;                 /**< handler kind, 1..PCS_COMMAND_KINDS_MAX-1 */
    uint16_t source_class;         /**< set by the queue */
    uint16_t reserved;             /**< zero */
    uint32_t source_id;            /**< set by the queue */
    uint32_t target;               /**< pcs_target_id_store(id) of a registered target */
    uint64_t seq;                  /**< per-source sequence number, set by the queue */
    uint64_t tick;                 /**< effective tick, set when applied */
    double args[PCS_COMMAND_ARGS]; /**< model-defined arguments (SI units) */
} pcs_command;

typedef struct pcs_command_source pcs_command_source;

/**
 * Handler for one command kind: validates and applies @p cmd at stage 1.
 * @return PCS_OK to apply (journaled), an error to reject (event, not journaled).
 * A rejection never fails the tick.
 */
typedef pcs_status (*pcs_command_fn)(pcs_world *w, void *ctx, const pcs_command *cmd);

/**
 * Register the plain handler of @p kind, a kind no family holds; the handler
 * gets every command of that kind whatever its target. Build phase only.
 * @return PCS_E_INVAL (kind 0 or out of range, NULL fn, kind taken by a
 *         handler or a family, naming the family), PCS_E_STATE.
 */
PCS_API pcs_status pcs_command_handler_register(pcs_world *w, uint32_t kind, pcs_command_fn fn,
                                                void *ctx);

/** What a family's handler gets for one command: the resolved target. */
typedef struct pcs_command_call {
    void *ctx;               /**< the target's context (its model object) */
    uint32_t element;        /**< the target's element, or PCS_TARGET_ELEMENT_ALL */
    uint32_t op;             /**< cmd->kind minus the family's first kind: [0, n_kinds) */
    const char *target_name; /**< the target's name, for messages */
    const pcs_command *cmd;  /**< the command (args, source, tick) */
} pcs_command_call;

/**
 * Handler of a kind family: validates and applies one command to the target
 * in @p call at stage 1, on the world thread. Called only after the engine
 * checked the target id (current generation) and that the target takes the
 * kind. Return as pcs_command_fn.
 */
typedef pcs_status (*pcs_target_fn)(pcs_world *w, const pcs_command_call *call);

/**
 * Allocate a family of @p n_kinds consecutive command kinds named @p name
 * ("units", "primary") with its handler: the lowest free run of kinds, so
 * kinds follow registration order. Build phase only.
 * @param n_kinds 1..PCS_COMMAND_FAMILY_MAX_KINDS.
 * @param first_kind set to the family's first kind; its kinds are
 *        [*first_kind, *first_kind + n_kinds).
 * @return PCS_E_INVAL (bad name, n_kinds or fn; name taken), PCS_E_OVERFLOW
 *         (no free run of n_kinds below PCS_COMMAND_KINDS_MAX), PCS_E_STATE, PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_command_family_register(pcs_world *w, const char *name, uint32_t n_kinds,
                                               pcs_target_fn fn, uint32_t *first_kind);

/**
 * The family @p name of a model built once per unit: the first call
 * registers it (pcs_command_family_register), later ones take the same
 * family, so every unit's targets share its kinds. Build phase only.
 * @return as pcs_command_family_register; PCS_E_INVAL naming the family if
 *         it exists with another kind count or handler. A found family sets
 *         no error message.
 */
PCS_API pcs_status pcs_command_family_share(pcs_world *w, const char *name, uint32_t n_kinds,
                                            pcs_target_fn fn, uint32_t *first_kind);

/**
 * Find family @p name: its first kind and (optional) kind count.
 * @return PCS_E_NOTFOUND naming the family. Any thread once the world is sealed.
 */
PCS_API pcs_status pcs_command_family_find(const pcs_world *w, const char *name,
                                           uint32_t *first_kind, uint32_t *n_kinds);

/**
 * The kind of op @p op of family @p family (first kind + op).
 * @return PCS_E_NOTFOUND (no such family), PCS_E_INVAL (op >= its kind count).
 * Thread-safety: any thread once the world is sealed (reads build-time tables).
 */
PCS_API pcs_status pcs_command_kind_find(const pcs_world *w, const char *family, uint32_t op,
                                         uint32_t *kind);

/** A target to register: a name bound to one family's handler context. */
typedef struct pcs_command_target_def {
    const char *name; /**< "u1.pump2": [A-Za-z0-9_-] segments joined by '.', 1..127 chars */
    uint32_t family;  /**< the family's first kind (pcs_command_family_register) */
    void *ctx;        /**< handed to the family's handler */
    uint32_t element; /**< handed to the handler (pump, bank, alarm index; or ..._ALL) */
    uint64_t ops;     /**< bit k: takes kind family + k; 0 = every kind of the family */
} pcs_command_target_def;

/**
 * Register a target, or bind another family to an existing name ("u1" takes
 * unit, plant and protection commands, each with its own context): a
 * name has one id and one binding per family. Storage grows from the world
 * heap; build phase only.
 * @param out (optional) the name's id.
 * @return PCS_E_INVAL (bad name, unknown family, ops outside the family, the
 *         name already bound to that family), PCS_E_OVERFLOW (PCS_TARGET_MAX
 *         targets), PCS_E_STATE, PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_command_target_register(pcs_world *w, const pcs_command_target_def *def,
                                               pcs_target_id *out);

/**
 * Resolve @p name to its id (hash lookup). Any thread once the world is sealed.
 * @return PCS_E_NOTFOUND naming @p name, PCS_E_INVAL for NULL arguments.
 */
PCS_API pcs_status pcs_command_target_find(const pcs_world *w, const char *name,
                                           pcs_target_id *out);

/**
 * Check that @p id is a current target that takes @p kind: what stage 1
 * checks before a handler runs, for hosts that validate before submitting.
 * @return PCS_OK; PCS_E_NOTFOUND (null, unknown or stale id: generation
 *         changed); PCS_E_INVAL (the target takes no such kind, naming both).
 * Any thread once the world is sealed (reads build-time tables).
 */
PCS_API pcs_status pcs_command_target_check(const pcs_world *w, pcs_target_id id, uint32_t kind);

/** Name of target @p id, or NULL if the id is not current. Any thread once sealed. */
PCS_API const char *pcs_command_target_name(const pcs_world *w, pcs_target_id id);

/** Targets registered and not removed. Any thread once sealed. */
PCS_API uint32_t pcs_command_target_count(const pcs_world *w);

/**
 * Walk the current targets in slot order: the first current target at slot
 * >= @p *cursor goes to @p out and @p *cursor moves past it; start with
 * *cursor = 0. Removing the target just returned keeps the walk valid (a
 * structural change removing a group of targets by name: a unit's "uN" and
 * "uN.*"). World thread (or any thread once sealed, between changes).
 * @return 1 when a target was returned; 0 when none is left, or for NULL
 *         arguments (the end of a walk is not an error: nothing is set).
 */
PCS_API int pcs_command_target_next(const pcs_world *w, uint32_t *cursor, pcs_target_id *out);

/**
 * Remove target @p id with all its bindings: its name resolves no more and
 * its slot's generation advances, so @p id and commands holding it are
 * refused from now on; a later registration may reuse the slot with the new
 * generation. Build phase, or while a structural change is applied
 * (structure.h: a removed device takes its targets with it).
 * @return PCS_E_NOTFOUND (not current), PCS_E_STATE.
 */
PCS_API pcs_status pcs_command_target_remove(pcs_world *w, pcs_target_id id);

/**
 * Open a source owning a single-producer ring that accepts exactly
 * @p capacity commands. Only one thread may submit through it at a time.
 * May be called from any thread at any time (it takes a mutex: not for hot paths).
 * @param source_class >= 1. (source_class, source_id) must be unused.
 * @param capacity 1..2^20.
 * @return PCS_E_INVAL, PCS_E_OVERFLOW (max_sources reached), PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_command_source_open(pcs_world *w, uint16_t source_class, uint32_t source_id,
                                           uint32_t capacity, pcs_command_source **out);

/** Largest burst pcs_command_source_set_rate takes. */
#define PCS_COMMAND_RATE_BURST_MAX (1u << 24)

/**
 * Limit @p src to @p rate_per_s commands per simulated second with bursts of
 * up to @p burst: a token bucket that starts full, gains rate_per_s * dt_s
 * tokens at the start of every tick (with fractions kept, in steps of 2^-32
 * token; so N ticks add floor(N * rate_per_s * dt_s) tokens when that product
 * is whole) up to @p burst, and spends one per accepted command. A submit
 * without a token returns PCS_E_RATE and says when the next one comes:
 * "... rate limit: next token in 0.05 s (1 tick of 0.05 s; 400/s, burst 800)".
 * Rate refusals consume no token and no sequence number; a command refused
 * for capacity gets its token back. Not saved or hashed (host configuration).
 * @param rate_per_s (0, 1e9], or 0 to remove the limit (burst ignored).
 * @param burst 1..PCS_COMMAND_RATE_BURST_MAX.
 * @return PCS_E_INVAL naming the source, the value and the range.
 * Thread-safety: the source's producer thread, or before it starts (the
 * bucket is the producer's own state, like the sequence number).
 */
PCS_API pcs_status pcs_command_source_set_rate(pcs_command_source *src, double rate_per_s,
                                               uint32_t burst);

/** One source's counters and limit (pcs_command_source_stats_get). */
typedef struct pcs_command_source_stats {
    uint16_t source_class;
    uint32_t source_id;
    uint32_t capacity;
    uint64_t submitted;    /**< accepted into the ring */
    uint64_t refused;      /**< PCS_E_RATE: the ring held its capacity */
    uint64_t refused_rate; /**< PCS_E_RATE: no token (the rate limit) */
    double rate_per_s;     /**< the limit; 0: none */
    uint32_t burst;        /**< the limit's burst; 0: none */
} pcs_command_source_stats;

/**
 * Read @p src's counters (approximate while its producer runs) and limit.
 * @return PCS_E_INVAL for NULL. Any thread.
 */
PCS_API pcs_status pcs_command_source_stats_get(const pcs_command_source *src,
                                                pcs_command_source_stats *out);

/**
 * Submit through a source: copies @p cmd, stamping class, id and the next
 * sequence number. Lock-free, wait-free, never blocks; no atomic
 * read-modify-write (engine/command.c, "Capacity"). For many commands at
 * once, pcs_command_source_submit_n.
 * @return PCS_E_RATE when the source's rate limit has no token (the message
 *         gives the simulated time until the next one) or the ring holds
 *         capacity commands (nothing queued, sequence not consumed; the two
 *         are counted apart, pcs_command_source_stats), PCS_E_INVAL for NULL
 *         or bad kind.
 * Thread-safety: one producer thread per source.
 */
PCS_API pcs_status pcs_command_source_submit(pcs_command_source *src, const pcs_command *cmd);

/** Largest batch pcs_command_source_submit_n takes: bounds one call's work
 *  (its kind check and copy, 64 KiB of commands at most). */
#define PCS_COMMAND_SUBMIT_MAX 1024u

/**
 * Submit a batch through a source: the longest prefix of @p cmds[0, @p n)
 * that the source's room and rate limit allow, each copied and stamped as
 * pcs_command_source_submit does (class, id, the next sequence numbers in
 * array order), published to the drain at once. The same as submitting
 * cmds[0], cmds[1], ... one by one until the first refusal, in one call:
 * sequence numbers, ordering against single submits on the same source, the
 * journal and the rate limit (one token per accepted command) mean what they
 * mean there. Room is exact: a prefix shorter than @p n is accepted only
 * when the ring then holds its capacity or the bucket is empty.
 * Lock-free, wait-free, never blocks; no atomic read-modify-write.
 * @param cmds @p n commands; every kind is checked before anything is queued.
 * @param n 1..PCS_COMMAND_SUBMIT_MAX.
 * @param accepted set to the commands queued: cmds[0, *accepted); 0 on error.
 * @return PCS_OK with *accepted in [1, n]; PCS_E_RATE at once, nothing
 *         queued, when not even cmds[0] fits (the rate limit has no token, or
 *         the ring holds its capacity; the message says which, as for
 *         pcs_command_source_submit, and the refusal is counted the same way;
 *         a partly accepted batch counts no refusal); PCS_E_INVAL (NULL
 *         argument, n outside [1, PCS_COMMAND_SUBMIT_MAX], a bad kind: names
 *         the source, the index, the value and the range; nothing queued).
 * Thread-safety: the source's one producer thread, as pcs_command_source_submit
 * (the two may be mixed on that thread).
 */
PCS_API pcs_status pcs_command_source_submit_n(pcs_command_source *src, const pcs_command *cmds,
                                               uint32_t n, uint32_t *accepted);

/**
 * Submit through the shared multi-producer ring (class PCS_SOURCE_ANON, id 0).
 * Any thread. Never waits for the consumer, but producers sharing the ring
 * publish their slots in order (ck_ring MPSC), so one may briefly wait for
 * another preempted mid-enqueue: threads that submit often should open a
 * source (wait-free). @return PCS_E_RATE when full, PCS_E_INVAL. The ring
 * never holds more than its capacity, but a refusal on this shared ring is
 * not exact: while another producer's over-capacity reservation is being
 * backed out, a submit may be refused with capacity - 1 commands queued
 * (verify/commands_ring.pml, STRICT_REFUSAL). Per-source rings are exact.
 */
PCS_API pcs_status pcs_command_submit(pcs_world *w, const pcs_command *cmd);

/** Commands waiting in all rings (approximate while producers run). Any thread. */
PCS_API uint64_t pcs_command_pending(const pcs_world *w);

/** Counters since creation. */
typedef struct pcs_command_stats {
    uint64_t submitted; /**< accepted into a ring */
    uint64_t refused;   /**< PCS_E_RATE returns because a ring was full */
    uint64_t applied;   /**< handled and journaled */
    uint64_t rejected;  /**< drained but refused by kind or handler */
    /** Key comparisons made putting drained batches in (class, id, sequence)
     *  order, cumulative over all ticks: the cost of the stage-1 ordering. */
    uint64_t drain_comparisons;
    /** The same for the last tick's batch only (0 before the first tick). */
    uint64_t drain_comparisons_last;
    /** PCS_E_RATE returns by sources' rate limits, all sources
     *  (pcs_command_source_stats_get has them per source). */
    uint64_t refused_rate;
} pcs_command_stats;

/** Read the counters (submitted/refused are approximate while producers run). */
PCS_API pcs_status pcs_command_stats_get(const pcs_world *w, pcs_command_stats *out);

/**
 * Copy journal entries (applied commands, with their effective tick) with
 * index >= @p *cursor into @p out (at most @p max). The journal keeps the last
 * journal_capacity entries; @p missed (optional) gets how many older entries
 * were overwritten before this read. @p *cursor advances past what was copied.
 * A structural change (structure.h) is journaled when stage 1 accepts it; if
 * its apply then fails, its entry is withdrawn: it keeps its index but is
 * never copied, so the journal holds what was applied (a reader that copied
 * it before the failing attempt keeps its copy: read after successful ticks).
 * @return number copied. World thread only.
 */
PCS_API uint32_t pcs_journal_read(const pcs_world *w, uint64_t *cursor, pcs_command *out,
                                  uint32_t max, uint64_t *missed);

/** Total commands ever journaled, withdrawn entries included (the index
 *  the next entry gets; 0 for NULL). World thread only. */
PCS_API uint64_t pcs_journal_count(const pcs_world *w);

/** The journal index of the current tick's first entry: where stage 1 of
 *  the first attempt at this tick began journaling. A failed tick's retry
 *  keeps it (the failed attempts' commands are the tick's, and are not
 *  drained again); a tick that succeeds, or a load, ends it, and until the
 *  next tick's stage 1 it is pcs_journal_count. A stage-1 system reads the
 *  tick's commands from here (a cursor it kept from an attempt at the same
 *  tick number may be a run a load replaced). 0 for NULL. World thread. */
PCS_API uint64_t pcs_journal_tick_start(const pcs_world *w);

#ifdef __cplusplus
}
#endif

#endif
