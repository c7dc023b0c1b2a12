/**
 * @file job.c
 * @brief Slow jobs: join, merge in chunk order, copy inputs, submit (DESIGN.md section 5).
 *
 * Determinism argument: a run's inputs are copied on the world's thread at its
 * submit tick t and nothing but those inputs reaches run_chunk; its outputs
 * land in per-chunk slots and are merged at exactly t + period in chunk order.
 * Which thread ran a chunk, and when, cannot change the state.
 *
 * This file runs every chunk inline on the world's thread at the merge tick
 * (the 0-worker case). A worker pool (exec/) takes the same runs in between.
 *
 * A failed tick does not advance the clock, and the host may run it again.
 * So a run stays pending until its merge has succeeded (a retry merges it,
 * the slow step is never skipped), and a job whose next run was already
 * submitted by the failed attempt at this tick is left alone (its run is
 * merged at submit + period, not a second time now).
 */
#include <string.h>

#include "engine/world_internal.h"

static pcs_status check_job(const pcs_job_desc *d)
{
    static const char fn[] = "pcs_job_register";
    if (!d || !d->name || !d->name[0])
        return pcs_error_set(PCS_E_INVAL, "%s: desc or name is NULL", fn);
    if (d->domain != PCS_DOMAIN_SLOW && d->domain != PCS_DOMAIN_STORAGE)
        return pcs_error_set(PCS_E_INVAL, "%s: job '%s' domain %d must be SLOW or STORAGE", fn,
                             d->name, (int)d->domain);
    if (d->phase >= pcs_clock_period(d->domain))
        return pcs_error_set(PCS_E_INVAL, "%s: job '%s' phase %u is outside [0, %u)", fn,
                             d->name, d->phase, pcs_clock_period(d->domain));
    if (d->n_chunks < 1 || d->n_chunks > PCS_MAX_JOB_CHUNKS)
        return pcs_error_set(PCS_E_INVAL, "%s: job '%s' n_chunks %u is outside [1, %u]", fn,
                             d->name, d->n_chunks, PCS_MAX_JOB_CHUNKS);
    if (d->input_bytes == 0 || d->output_bytes == 0)
        return pcs_error_set(PCS_E_INVAL, "%s: job '%s' input_bytes and output_bytes must be >= 1",
                             fn, d->name);
    if (!d->copy_inputs || !d->run_chunk || !d->merge)
        return pcs_error_set(PCS_E_INVAL, "%s: job '%s' needs copy_inputs, run_chunk and merge",
                             fn, d->name);
    return PCS_OK;
}

pcs_status pcs_job_register(pcs_world *w, const pcs_job_desc *desc, uint32_t *id)
{
    pcs_status st = pcs_world_check_build(w, "pcs_job_register");
    if (st == PCS_OK)
        st = check_job(desc);
    if (st != PCS_OK)
        return st;
    if (w->n_jobs >= PCS_MAX_JOBS)
        return pcs_error_set(PCS_E_OVERFLOW, "pcs_job_register: more than %u jobs", PCS_MAX_JOBS);
    pcs_job_rec *j = &w->jobs[w->n_jobs];
    memset(j, 0, sizeof *j);
    j->desc = *desc;
    j->desc.name = pcs_mem_strdup(&w->mem, desc->name);
    j->input = pcs_mem_alloc(&w->mem, desc->input_bytes);
    j->outputs = pcs_mem_array(&w->mem, desc->n_chunks, sizeof *j->outputs);
    j->chunk_status = pcs_mem_array(&w->mem, desc->n_chunks, sizeof *j->chunk_status);
    if (!j->desc.name || !j->input || !j->outputs || !j->chunk_status)
        return pcs_error_set(PCS_E_NOMEM, "pcs_job_register: out of memory");
    for (uint32_t c = 0; c < desc->n_chunks; c++) {
        j->outputs[c] = pcs_mem_alloc(&w->mem, desc->output_bytes);
        if (!j->outputs[c])
            return pcs_error_set(PCS_E_NOMEM, "pcs_job_register: out of memory for outputs");
    }
    if (id)
        *id = w->n_jobs;
    w->n_jobs++;
    return PCS_OK;
}

uint32_t pcs_job_count(const pcs_world *w)
{
    return w ? w->n_jobs : 0;
}

static pcs_status run_inline(pcs_job_rec *j)
{
    for (uint32_t c = 0; c < j->desc.n_chunks; c++)
        j->chunk_status[c] = j->desc.run_chunk(j->desc.ctx, j->input, c, j->outputs[c]);
    return PCS_OK;
}

static pcs_status join_and_merge(pcs_world *w, pcs_job_rec *j)
{
    pcs_status st = run_inline(j);
    for (uint32_t c = 0; st == PCS_OK && c < j->desc.n_chunks; c++)
        if (j->chunk_status[c] != PCS_OK)
            return pcs_error_set(j->chunk_status[c], "job '%s' chunk %u (submitted at tick %llu) "
                                                     "failed: %s",
                                 j->desc.name, c, (unsigned long long)j->submit_tick,
                                 pcs_status_str(j->chunk_status[c]));
    st = j->desc.merge(w, j->desc.ctx, j->input, j->outputs, j->desc.n_chunks);
    if (st == PCS_OK)
        j->pending = 0;
    return st;
}

pcs_status pcs_jobs_before_tick(pcs_world *w)
{
    for (uint32_t i = 0; i < w->n_jobs; i++) {
        pcs_job_rec *j = &w->jobs[i];
        if (!pcs_clock_due(&w->clock, j->desc.domain, j->desc.phase))
            continue;
        if (j->pending && j->submit_tick == w->clock.tick)
            continue; /* submitted by a failed earlier attempt at this tick */
        if (j->pending) {
            pcs_status st = join_and_merge(w, j);
            if (st != PCS_OK)
                return st;
        }
        pcs_status st = j->desc.copy_inputs(w, j->desc.ctx, j->input);
        if (st != PCS_OK)
            return st;
        j->pending = 1;
        j->submit_tick = w->clock.tick;
    }
    return PCS_OK;
}
