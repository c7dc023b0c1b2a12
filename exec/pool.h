/**
 * @file pool.h
 * @brief The worker pool's private layout, shared by exec/pool.c and exec/executor.c (internal).
 *
 * Locking: one mutex per pool guards the run queue, the list of bound slots
 * and each slot's bookkeeping fields (slot.h). It is taken a few times per
 * run (submit, a worker picking a run up and putting it down, the joiner
 * dequeuing after a steal), never per chunk: chunks are claimed with atomics.
 * Workers sleep on work_cv; unbind and create sleep on idle_cv.
 */
#ifndef PCS_EXEC_POOL_H
#define PCS_EXEC_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "exec/slot.h"
#include "exec/topology.h"
#include "pcsim/exec.h"

typedef struct pcs_exec_worker {
    pthread_t thread;
    pcs_exec *pool;
    uint32_t index;
    int core;    /* core it should be pinned to, -1 = unpinned */
    bool pinned; /* set by the worker at start */
    char name[16];
    char warning[PCS_EXEC_WARNING_BYTES]; /* pinning failure, filled by the worker */
} pcs_exec_worker;

/* Counters; relaxed atomics, read by pcs_exec_stats_get. */
typedef struct pcs_exec_counters {
    _Atomic uint64_t runs_submitted, runs_joined;
    _Atomic uint64_t chunks_worker, chunks_stolen, chunks_cancelled;
    _Atomic uint64_t joins_ready, waits, waits_timed_out, waits_inflight;
    _Atomic uint64_t wait_ns_total, wait_ns_max;
} pcs_exec_counters;

struct pcs_exec {
    pcs_exec_def cfg;
    pcs_topo topo;
    uint32_t asked; /* workers asked for after resolving AUTO */

    pthread_mutex_t mu;
    pthread_cond_t work_cv;    /* a run was queued, or stop */
    pthread_cond_t idle_cv;    /* a worker started, or a slot's last user left it */
    pcs_exec_slot *queue_head; /* runs with chunks possibly unclaimed, FIFO */
    pcs_exec_slot *queue_tail;
    pcs_exec_slot *bound; /* every bound slot, for destroy */
    uint32_t started;     /* workers past their start-up */
    atomic_bool stop;

    pcs_exec_worker *workers;
    uint32_t n_workers;

    pcs_exec_counters n;

    char warnings[PCS_EXEC_MAX_WARNINGS][PCS_EXEC_WARNING_BYTES];
    uint32_t n_warnings; /* raised; only the first PCS_EXEC_MAX_WARNINGS kept */
};

/* exec/executor.c: the worker's main loop and the pcs_executor table. */
void *pcs_exec_worker_main(void *arg);
void pcs_exec_table(pcs_exec *pool, pcs_executor *ex);
/* Free every slot still bound, revoking its world. Workers must be stopped. */
void pcs_exec_release_slots(pcs_exec *pool);

#endif
