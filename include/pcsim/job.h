/**
 * @file job.h
 * @brief Slow jobs: work of the SLOW and STORAGE domains, merged at fixed ticks.
 *
 * A job due at tick t (pcs_clock_due(domain, phase)) is handled before stage 1:
 *  (a) the run submitted at t - period is joined, (b) its per-chunk outputs are
 *  merged in chunk order on the world's thread, (c) inputs are copied and the
 *  next run is submitted. So a run submitted at t is merged at exactly
 *  t + period, whatever the speed of the thread that ran it, and results are
 *  identical for 0, 1, ... N workers (DESIGN.md section 5).
 *
 * Without an executor (0 workers) chunks run inline at the merge tick.
 * run_chunk may use OpenMP inside a chunk only with schedule(static) and
 * reductions in a fixed order, so that results do not depend on thread count.
 */
#ifndef PCSIM_JOB_H
#define PCSIM_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "pcsim/clock.h"
#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#define PCS_MAX_JOBS 64u
#define PCS_MAX_JOB_CHUNKS 1024u

/** A slow job's description. All buffers are allocated at registration. */
typedef struct pcs_job_desc {
    const char *name;            /**< for messages and profiles */
    pcs_domain domain;           /**< PCS_DOMAIN_SLOW or PCS_DOMAIN_STORAGE */
    uint32_t phase;              /**< tick offset within the period */
    uint32_t n_chunks;           /**< 1..PCS_MAX_JOB_CHUNKS */
    size_t input_bytes;          /**< size of the input copy (>= 1) */
    size_t output_bytes;         /**< size of each chunk's output slot (>= 1) */
    /** World thread, at submit: copy what the job needs from live state. */
    pcs_status (*copy_inputs)(pcs_world *w, void *ctx, void *input);
    /** Any thread: compute chunk @p chunk from @p input into @p output. Must not touch the world. */
    pcs_status (*run_chunk)(void *ctx, const void *input, uint32_t chunk, void *output);
    /** World thread, at merge: apply outputs[0..n_chunks-1] in chunk order. */
    pcs_status (*merge)(pcs_world *w, void *ctx, const void *input, void *const *outputs,
                        uint32_t n_chunks);
    void *ctx;                   /**< passed to all three */
} pcs_job_desc;

/**
 * Register a slow job. Build phase only.
 * @return PCS_E_INVAL naming the bad field, PCS_E_STATE, PCS_E_OVERFLOW, PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_job_register(pcs_world *w, const pcs_job_desc *desc, uint32_t *id);

/** Number of registered jobs. */
PCS_API uint32_t pcs_job_count(const pcs_world *w);

#endif
