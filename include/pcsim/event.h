/**
 * @file event.h
 * @brief Events: every consequence a host may care about, stamped with its tick.
 *
 * Systems emit events into a fixed-capacity per-tick buffer. When it is full,
 * further events are counted and one PCS_EV_EVENT_OVERFLOW event (values[0] =
 * count dropped) closes the tick's list: overflow is never silent. At stage 13
 * the tick's events go to the host callback and to the event log.
 * Thread-safety: world thread only.
 */
#ifndef PCSIM_EVENT_H
#define PCSIM_EVENT_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Engine event kinds. Models use kinds >= PCS_EV_MODEL_BASE, in ranges kept
 * apart so a host can name any event: reactor unit +0..31, fuel +40..47,
 * thermal-hydraulics (primary) +48..63, sensors/protection/alarms +64..127,
 * bounded models +128..191. (Command kinds are not split this way: the engine
 * allocates each model's family, command.h.)
 */
enum {
    PCS_EV_NONE = 0,
    PCS_EV_COMMAND_REJECTED = 1, /**< subject = kind; values: class, id, seq, status */
    PCS_EV_EVENT_OVERFLOW = 2,   /**< values[0] = events dropped this tick */
    PCS_EV_MODEL_BASE = 256,
};

#define PCS_EVENT_VALUES 4u

/** An event: 48 bytes of plain data. */
typedef struct pcs_event {
    uint32_t kind;                    /**< PCS_EV_* or a model kind */
    uint32_t subject;                 /**< what it is about (unit, pump, alarm id) */
    uint64_t tick;                    /**< tick it happened on */
    double values[PCS_EVENT_VALUES];  /**< kind-specific values (SI units) */
} pcs_event;

/**
 * Emit an event on the current tick. Never fails the tick: when the buffer is
 * full the event is counted as dropped. @return PCS_E_OVERFLOW when dropped,
 * PCS_E_INVAL for NULL.
 */
PCS_API pcs_status pcs_event_emit(pcs_world *w, uint32_t kind, uint32_t subject, double v0,
                                  double v1, double v2, double v3);

/** Events of the last completed tick (valid until the next tick), command
 *  rejections included; the simulation's copy of the list (the next tick's
 *  pcs_world_events_previous, hashed and saved) leaves PCS_EV_COMMAND_REJECTED
 *  out: a journal replay does not resubmit rejected commands. */
PCS_API const pcs_event *pcs_world_events(const pcs_world *w, uint32_t *count);

/**
 * Events of the previous tick, for systems: during tick T (any stage) the
 * list of tick T - 1 as it was delivered (with its overflow event, if any);
 * between ticks, the list of the last completed tick (the one the next
 * tick's systems will see). A failed tick is not a completed one: its retry
 * sees the same previous list. Empty before the first completed tick. So a
 * protection system can react at tick T + 1 to an event emitted at tick T
 * without a host in between. The list is state: pcs_world_save keeps it,
 * pcs_world_load restores it and pcs_world_state_hash covers it.
 * Valid until the next tick begins; 0 allocations (a second buffer of
 * event_capacity, swapped with the current one as a tick begins).
 * @param count (may be NULL) receives the number of events; 0 for NULL @p w.
 */
PCS_API const pcs_event *pcs_world_events_previous(const pcs_world *w, uint32_t *count);

/** Total events dropped for lack of space since creation. */
PCS_API uint64_t pcs_world_events_dropped(const pcs_world *w);

/**
 * Host callback, called at stage 13 with the tick's events in emission order.
 * A failed tick calls it only when it failed after stage 13's systems; its
 * retry's list holds again the events the failed attempts' commands emitted
 * at stage 1 (their handlers' events, command rejections), before its own
 * drain's, so the tick that succeeds announces each command once, in drain
 * order. Set NULL to remove. World thread only.
 */
typedef void (*pcs_event_fn)(void *ctx, const pcs_event *events, uint32_t count);
PCS_API pcs_status pcs_world_set_event_callback(pcs_world *w, pcs_event_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
