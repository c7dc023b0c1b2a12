/**
 * @file command.h
 * @brief Commands: fixed-size requests from any thread, applied in stage 1.
 *
 * A producer thread that submits often opens a command source (class, id): it
 * owns a bounded single-producer ring. Callers without a source share one
 * bounded multi-producer ring (source class PCS_SOURCE_ANON). Submission never
 * blocks: a full ring returns PCS_E_RATE at once and the command is not queued.
 *
 * At stage 1 the world drains at most commands_per_tick commands from what the
 * rings hold when the drain starts, taking what passes of one command per
 * source in (class, id) order would take (so a chatty source cannot starve the
 * rest), and applies them sorted by (source class, source id, sequence). The
 * cost is linear in the commands drained plus the sources open. What is not
 * drained stays queued in order; a command submitted during the drain waits
 * for the next tick.
 * Every applied command is journaled with its effective tick; a command whose
 * kind has no handler, or whose handler refuses it, is rejected with a
 * PCS_EV_COMMAND_REJECTED event (docs/ARCHITECTURE.md section 4).
 */
#ifndef PCSIM_COMMAND_H
#define PCSIM_COMMAND_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

/** Command kinds are < PCS_COMMAND_KINDS_MAX. Kind 0 is never valid. */
#define PCS_COMMAND_KINDS_MAX 256u
/** Arguments per command. */
#define PCS_COMMAND_ARGS 4u
/** Source class of the shared anonymous ring; opened sources use class >= 1. */
#define PCS_SOURCE_ANON 0u

/** A command: 64 bytes of plain data. */
typedef struct pcs_command {
    uint32_t kind;                   /**< handler kind, 1..PCS_COMMAND_KINDS_MAX-1 */
    uint16_t source_class;           /**< set by the queue */
    uint16_t reserved;               /**< zero */
    uint32_t source_id;              /**< set by the queue */
    uint32_t target;                 /**< model-defined target id (unit, pump, alarm) */
    uint64_t seq;                    /**< per-source sequence number, set by the queue */
    uint64_t tick;                   /**< effective tick, set when applied */
    double args[PCS_COMMAND_ARGS];   /**< model-defined arguments (SI units) */
} pcs_command;

typedef struct pcs_command_source pcs_command_source;

/**
 * Handler for one command kind: validates and applies @p cmd at stage 1.
 * @return PCS_OK to apply (journaled), an error to reject (event, not journaled).
 * A rejection never fails the tick.
 */
typedef pcs_status (*pcs_command_fn)(pcs_world *w, void *ctx, const pcs_command *cmd);

/**
 * Register the handler of @p kind. Build phase only.
 * @return PCS_E_INVAL (kind 0 or out of range, NULL fn, kind taken), PCS_E_STATE.
 */
PCS_API pcs_status pcs_command_handler_register(pcs_world *w, uint32_t kind, pcs_command_fn fn,
                                                void *ctx);

/**
 * Open a source owning a single-producer ring that accepts exactly
 * @p capacity commands. Only one thread may submit through it at a time.
 * May be called from any thread at any time (it takes a mutex: not for hot paths).
 * @param source_class >= 1. (source_class, source_id) must be unused.
 * @param capacity 1..2^20.
 * @return PCS_E_INVAL, PCS_E_OVERFLOW (max_sources reached), PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_command_source_open(pcs_world *w, uint16_t source_class,
                                           uint32_t source_id, uint32_t capacity,
                                           pcs_command_source **out);

/**
 * Submit through a source: copies @p cmd, stamping class, id and the next
 * sequence number. Lock-free, wait-free, never blocks.
 * @return PCS_E_RATE when the ring holds capacity commands (nothing queued,
 *         sequence not consumed), PCS_E_INVAL for NULL or bad kind.
 * Thread-safety: one producer thread per source.
 */
PCS_API pcs_status pcs_command_source_submit(pcs_command_source *src, const pcs_command *cmd);

/**
 * Submit through the shared multi-producer ring (class PCS_SOURCE_ANON, id 0).
 * Any thread. Never waits for the consumer, but producers sharing the ring
 * publish their slots in order (ck_ring MPSC), so one may briefly wait for
 * another preempted mid-enqueue: threads that submit often should open a
 * source (wait-free). @return PCS_E_RATE when full, PCS_E_INVAL.
 */
PCS_API pcs_status pcs_command_submit(pcs_world *w, const pcs_command *cmd);

/** Commands waiting in all rings (approximate while producers run). */
PCS_API uint64_t pcs_command_pending(const pcs_world *w);

/** Counters since creation. */
typedef struct pcs_command_stats {
    uint64_t submitted; /**< accepted into a ring */
    uint64_t refused;   /**< PCS_E_RATE returns */
    uint64_t applied;   /**< handled and journaled */
    uint64_t rejected;  /**< drained but refused by kind or handler */
    /** Key comparisons made putting drained batches in (class, id, sequence)
     *  order, cumulative over all ticks: the cost of the stage-1 ordering. */
    uint64_t drain_comparisons;
    /** The same for the last tick's batch only (0 before the first tick). */
    uint64_t drain_comparisons_last;
} pcs_command_stats;

/** Read the counters (submitted/refused are approximate while producers run). */
PCS_API pcs_status pcs_command_stats_get(const pcs_world *w, pcs_command_stats *out);

/**
 * Copy journal entries (applied commands, with their effective tick) with
 * index >= @p *cursor into @p out (at most @p max). The journal keeps the last
 * journal_capacity entries; @p missed (optional) gets how many older entries
 * were overwritten before this read. @p *cursor advances past what was copied.
 * @return number copied. World thread only.
 */
PCS_API uint32_t pcs_journal_read(const pcs_world *w, uint64_t *cursor, pcs_command *out,
                                  uint32_t max, uint64_t *missed);

/** Total commands ever journaled. */
PCS_API uint64_t pcs_journal_count(const pcs_world *w);

#endif
