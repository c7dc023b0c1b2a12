/**
 * @file job.h
 * @brief Slow jobs: work of the SLOW and STORAGE domains, merged at fixed ticks.
 *
 * A job due at tick t (pcs_clock_due(domain, phase)) is handled before stage 1:
 *  (a) the run submitted at t - period is joined, (b) its per-chunk outputs are
 *  merged in chunk order on the world's thread, (c) inputs are copied and the
 *  next run is submitted. So a run submitted at t is merged at exactly
 *  t + period, whatever the speed of the thread that ran it, and results are
 *  identical for 0, 1, ... N workers (docs/ARCHITECTURE.md section 5).
 *
 * Who runs the chunks: without an executor every chunk runs inline on the
 * world's thread at the merge tick. With one (pcs_world_set_executor, e.g. the
 * worker pool of exec.h) the chunks run on other threads between submit and
 * merge, and the merge tick joins them. Either way run_chunk sees only the
 * input copied at submit and writes only its own output slot.
 *
 * OpenMP inside a chunk: allowed for data-parallel loops, under two rules that
 * keep the result independent of the thread count:
 *  - `#pragma omp parallel for schedule(static)` only (each iteration writes
 *    its own element; no dynamic/guided schedules whose split depends on timing);
 *  - no `reduction(...)` clause: OpenMP may combine partial results in any
 *    order, and floating-point addition is not associative. Reduce in a fixed
 *    order instead: write one partial per fixed block into an array, then sum
 *    the array in index order on one thread.
 * The pool's own threads are pthreads; OpenMP's threads are not pinned by pcsim.
 */
#ifndef PCSIM_JOB_H
#define PCSIM_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "pcsim/clock.h"
#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Most chunks one job declares (pcs_job_desc.n_chunks). A per-job bound that
 * executors size their per-job state by, not a world size: a world holds as
 * many jobs as its build registers (up to PCS_WORLD_IDS_MAX).
 */
#define PCS_MAX_JOB_CHUNKS 1024u

/** A slow job's description. All buffers are allocated at registration. */
typedef struct pcs_job_desc {
    const char *name;    /**< for messages and profiles */
    pcs_domain domain;   /**< PCS_DOMAIN_SLOW or PCS_DOMAIN_STORAGE */
    uint32_t phase;      /**< tick offset within the period */
    uint32_t n_chunks;   /**< 1..PCS_MAX_JOB_CHUNKS */
    size_t input_bytes;  /**< size of the input copy (>= 1) */
    size_t output_bytes; /**< size of each chunk's output slot (>= 1) */
    /** World thread, at submit: copy what the job needs from live state. */
    pcs_status (*copy_inputs)(pcs_world *w, void *ctx, void *input);
    /**
     * Any thread: compute chunk @p chunk from @p input into @p output (its own
     * slot of output_bytes). Runs concurrently with the other chunks of the
     * run; must not touch the world or shared mutable state; must be a pure
     * function of (input, chunk), because after an executor change a run is
     * re-run from its input. On failure return an error and set a message
     * with pcs_error_set; the error surfaces from pcs_world_tick at the merge
     * tick (lowest failing chunk wins, so the message is deterministic).
     */
    pcs_status (*run_chunk)(void *ctx, const void *input, uint32_t chunk, void *output);
    /** World thread, at merge: apply outputs[0..n_chunks-1] in chunk order. */
    pcs_status (*merge)(pcs_world *w, void *ctx, const void *input, void *const *outputs,
                        uint32_t n_chunks);
    void *ctx; /**< passed to all three */
} pcs_job_desc;

/**
 * Register a slow job. Build phase only. If the world has an executor, the job
 * is bound to it now (the executor sizes its per-job state here, so nothing is
 * allocated per run).
 * @return PCS_E_INVAL naming the bad field, PCS_E_STATE, PCS_E_OVERFLOW past
 *         PCS_WORLD_IDS_MAX jobs, PCS_E_NOMEM, or the executor's bind error.
 */
PCS_API pcs_status pcs_job_register(pcs_world *w, const pcs_job_desc *desc, uint32_t *id);

/** Number of registered jobs. */
PCS_API uint32_t pcs_job_count(const pcs_world *w);

/*
 * ---- Executor seam -------------------------------------------------------
 * The engine creates no threads (docs/ARCHITECTURE.md section 1). An executor (exec.h's
 * worker pool, or a host's own) plugs in through this table of functions.
 */

/**
 * A job as an executor sees it. The engine fills it when it binds the job and
 * keeps it, and every buffer it points to, alive and unmoved until unbind or
 * revoke. The executor only reads it.
 */
typedef struct pcs_job_run {
    const char *name; /**< job name, for messages */
    /** The job's chunk function (pcs_job_desc.run_chunk); callable on any thread. */
    pcs_status (*run_chunk)(void *ctx, const void *input, uint32_t chunk, void *output);
    void *ctx;            /**< pcs_job_desc.ctx */
    const void *input;    /**< input copy; written by the world thread before submit only */
    void *const *outputs; /**< n_chunks slots; chunk c writes outputs[c] only */
    uint32_t n_chunks;    /**< >= 1 for runs the engine binds */
} pcs_job_run;

/**
 * An executor: a context and four functions the engine calls on the world's
 * thread. Contract:
 *  - bind(ctx, w, run, &slot): build-time; allocate per-job state (sized by
 *    run->n_chunks) and return it in *slot. Nothing may be allocated later.
 *  - submit(ctx, slot): the input copy is ready; start running every chunk of
 *    the run (each exactly once) on any thread. Must not block on chunks.
 *  - join(ctx, slot, timeout_s): return when every chunk of the submitted run
 *    has finished and its output is visible to the caller. Wait at most
 *    timeout_s for other threads, then run unstarted chunks on the calling
 *    thread. Returns PCS_OK, or the status of the lowest-numbered failing
 *    chunk with a message naming the chunk.
 *  - unbind(ctx, slot): the job is going away (world destroy or executor
 *    change): stop chunks not yet started, wait for those running, free the
 *    slot. After it returns no thread touches the job's buffers.
 * If the executor itself goes away first it calls pcs_world_executor_revoke.
 */
typedef struct pcs_executor {
    void *ctx; /**< passed to every function; identifies the executor */
    pcs_status (*bind)(void *ctx, pcs_world *w, const pcs_job_run *run, void **slot);
    pcs_status (*submit)(void *ctx, void *slot);
    pcs_status (*join)(void *ctx, void *slot, double timeout_s);
    void (*unbind)(void *ctx, void *slot);
} pcs_executor;

/**
 * Run @p w's jobs on @p ex (copied; NULL = inline on the world's thread).
 * Allowed in the build phase and between ticks, on the world's thread.
 * Jobs bound to the previous executor are unbound first. A run submitted
 * but not merged is not lost: it is resubmitted to @p ex from its saved
 * input (chunks are pure functions of the input, so the result is the same),
 * or run inline at its merge tick if @p ex is NULL.
 * @return PCS_E_INVAL (NULL world, incomplete table), or a bind/submit error;
 *         on error the world is left with no executor (inline).
 */
PCS_API pcs_status pcs_world_set_executor(pcs_world *w, const pcs_executor *ex);

/**
 * For executors only: the executor with context @p ctx is being destroyed
 * while @p w is still bound to it. The world drops it without calling it
 * back; runs already submitted are re-run inline at their merge ticks, and
 * the next submit fails with PCS_E_STATE ("executor destroyed") until
 * pcs_world_set_executor is called again. No-op if @p w is not bound to
 * @p ctx. Must not run concurrently with any other call on @p w.
 */
PCS_API void pcs_world_executor_revoke(pcs_world *w, const void *ctx);

/** 1 when job @p id has a run in flight (submitted, not yet merged), else 0. */
PCS_API int pcs_job_pending(const pcs_world *w, uint32_t id);

#ifdef __cplusplus
}
#endif

#endif
