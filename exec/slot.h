/**
 * @file slot.h
 * @brief One bound job's chunk-claiming state: who runs which chunk, when the run is done
 * (internal).
 *
 * Protocol. Every chunk has an atomic state:
 *
 *     UNCLAIMED --CAS by a worker or the stealing joiner--> RUNNING --store--> DONE
 *     UNCLAIMED --CAS by unbind (cancel)----------------------------------> DONE
 *
 * The CAS is the claim: exactly one thread wins it, so each chunk runs
 * exactly once per run whoever claims it. The winner writes only its chunk's
 * output slot, then stores DONE (release) and decrements `remaining`
 * (acq_rel). The decrements form one release sequence, so the thread whose
 * decrement reaches zero has acquired every chunk's writes; it then stores
 * `complete` = 1 (release) and wakes the futex. A joiner that loads
 * `complete` == 1 (acquire) therefore sees every output completely written:
 * a merge never sees a partial chunk.
 *
 * Reuse across runs. submit resets the run only after the previous one was
 * joined (every chunk DONE). It writes `remaining`, `complete` and the error
 * fields first and the chunk states last, each state with a release store; a
 * thread that then claims a chunk (acquire CAS) sees the fresh input and
 * counters. A worker still scanning from the previous run can only claim a
 * chunk of the new run, which is legitimate work.
 *
 * Errors. A failing chunk records (status, message) under a tiny spin lock
 * if its index is lower than the one recorded, so the joiner reports the
 * lowest failing chunk whatever the interleaving.
 */
#ifndef PCS_EXEC_SLOT_H
#define PCS_EXEC_SLOT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "pcsim/job.h"

enum {
    PCS_CHUNK_UNCLAIMED = 0,
    PCS_CHUNK_RUNNING = 1,
    PCS_CHUNK_DONE = 2,
};

/** Returned by pcs_slot_claim when no chunk is left. */
#define PCS_SLOT_NONE UINT32_MAX
/** Bytes kept of a failing chunk's message. */
#define PCS_SLOT_MSG_BYTES 320u

typedef struct pcs_exec pcs_exec;

typedef struct pcs_exec_slot {
    /* Fixed at bind. */
    const pcs_job_run *run;
    pcs_world *world; /* NULL for runs driven directly (bench/, stress/) */
    pcs_exec *pool;
    _Atomic uint32_t *chunk_state; /* run->n_chunks entries */

    /* Claim / completion protocol (see the file comment). */
    _Atomic uint32_t next_hint; /* lowest chunk that may still be UNCLAIMED */
    _Atomic uint32_t remaining; /* chunks not yet DONE */
    _Atomic uint32_t complete;  /* futex word: 1 when remaining reached 0 */

    /* Lowest failing chunk, guarded by err_lock. */
    atomic_flag err_lock;
    uint32_t err_chunk;
    pcs_status err_status;
    char err_msg[PCS_SLOT_MSG_BYTES];

    /* Pool bookkeeping, guarded by the pool mutex. */
    struct pcs_exec_slot *bound_next;
    struct pcs_exec_slot *bound_prev;
    struct pcs_exec_slot *queue_next;
    bool queued;
    bool unbinding;
    uint64_t gen;    /* submits so far; tells a worker whether the run changed */
    uint32_t active; /* workers using this slot outside the mutex */

    /* The world thread's own flag: a run was submitted and not joined. */
    bool submitted;
} pcs_exec_slot;

/** Allocate the chunk states; the slot starts idle (every chunk DONE, complete). */
pcs_status pcs_slot_init(pcs_exec_slot *s, const pcs_job_run *run);
void pcs_slot_free(pcs_exec_slot *s);

/** Start a new run: counters, error, then every chunk UNCLAIMED (release). */
void pcs_slot_reset(pcs_exec_slot *s);

/** Claim an UNCLAIMED chunk (it becomes RUNNING) or return PCS_SLOT_NONE. */
uint32_t pcs_slot_claim(pcs_exec_slot *s);

/** Run claimed chunk @p c, record its error, mark it DONE. @return true if it completed the run. */
bool pcs_slot_run(pcs_exec_slot *s, uint32_t c);

/** Turn every UNCLAIMED chunk into DONE without running it. @return chunks cancelled. */
uint32_t pcs_slot_cancel(pcs_exec_slot *s);

/** True once every chunk of the current run is DONE (acquire). */
bool pcs_slot_complete(const pcs_exec_slot *s);

/** Wait until complete, at most @p timeout_ns (< 0: no limit). @return pcs_slot_complete(). */
bool pcs_slot_wait(pcs_exec_slot *s, int64_t timeout_ns);

/** After completion: PCS_OK, or the lowest failing chunk's status with its message set. */
pcs_status pcs_slot_result(pcs_exec_slot *s);

#endif
