/**
 * @file job.c
 * @brief Slow jobs: join, merge in chunk order, copy inputs, submit
 *        (docs/ARCHITECTURE.md section 5).
 *
 * Determinism argument: a run's inputs are copied on the world's thread at its
 * submit tick t and nothing but those inputs reaches run_chunk; its outputs
 * land in per-chunk slots and are merged at exactly t + period in chunk order.
 * Which thread ran a chunk, and when, cannot change the state.
 *
 * The job table doubles during the build as jobs come. An executor keeps a
 * job's pcs_job_run from bind to unbind (job.h), possibly while later
 * registrations move the table, so the run, like the input and the output
 * slots it points to, is an allocation of its own that never moves.
 *
 * Who runs the chunks is an executor's business (pcs_executor, job.h): with
 * none, this file runs them inline at the merge tick; with one, it submits
 * after copying inputs and joins before merging. The engine creates no thread
 * and reads no clock; the join timeout is handed to the executor as a number.
 *
 * A run whose executor goes away before its merge (executor change, pool
 * destroyed) keeps its saved input and is flagged `rerun`: it is resubmitted
 * to the next executor, or run inline at its merge tick. run_chunk is a pure
 * function of (input, chunk), so running it again gives the same outputs.
 *
 * A failed tick does not advance the clock, and the host may run it again.
 * So a run stays pending until its merge has succeeded (a retry runs its
 * chunks again inline and merges: the slow step is never skipped), and a job
 * whose next run was already submitted by the failed attempt at this tick is
 * left alone (that run is merged at submit + period, not a second time now).
 */
#include <stdio.h>
#include <string.h>

#include "engine/par_stage.h"
#include "engine/probes.h"
#include "engine/world_internal.h"
#include "pcsim/structure.h" /* its PCS_API on pcs_job_retire: exported from the .so */

static pcs_status check_job(const pcs_job_desc *d)
{
    static const char fn[] = "pcs_job_register";
    if (!d || !d->name || !d->name[0])
        return pcs_error_set(PCS_E_INVAL, "%s: desc or name is NULL", fn);
    if (d->domain != PCS_DOMAIN_SLOW && d->domain != PCS_DOMAIN_STORAGE)
        return pcs_error_set(PCS_E_INVAL, "%s: job '%s' domain %d must be SLOW or STORAGE", fn,
                             d->name, (int)d->domain);
    if (d->phase >= pcs_clock_period(d->domain))
        return pcs_error_set(PCS_E_INVAL, "%s: job '%s' phase %u is outside [0, %u)", fn, d->name,
                             d->phase, pcs_clock_period(d->domain));
    if (d->n_chunks < 1 || d->n_chunks > PCS_MAX_JOB_CHUNKS)
        return pcs_error_set(PCS_E_INVAL, "%s: job '%s' n_chunks %u is outside [1, %u]", fn,
                             d->name, d->n_chunks, PCS_MAX_JOB_CHUNKS);
    if (d->input_bytes == 0 || d->output_bytes == 0)
        return pcs_error_set(PCS_E_INVAL, "%s: job '%s' input_bytes and output_bytes must be >= 1",
                             fn, d->name);
    if (!d->copy_inputs || !d->run_chunk || !d->merge)
        return pcs_error_set(PCS_E_INVAL, "%s: job '%s' needs copy_inputs, run_chunk and merge", fn,
                             d->name);
    return PCS_OK;
}

static pcs_status bind_job(pcs_world *w, pcs_job_rec *j)
{
    *j->run = (pcs_job_run){.name = j->desc.name,
                            .run_chunk = j->desc.run_chunk,
                            .ctx = j->desc.ctx,
                            .input = j->input,
                            .outputs = j->outputs,
                            .n_chunks = j->desc.n_chunks};
    if (!w->has_exec)
        return PCS_OK;
    void *slot = NULL;
    pcs_status st = w->exec.bind(w->exec.ctx, w, j->run, &slot);
    if (st != PCS_OK)
        return st;
    j->slot = slot;
    return PCS_OK;
}

pcs_status pcs_job_register(pcs_world *w, const pcs_job_desc *desc, uint32_t *id)
{
    pcs_status st = pcs_world_check_build(w, "pcs_job_register");
    if (st == PCS_OK)
        st = check_job(desc);
    if (st != PCS_OK)
        return st;
    st = pcs_table_reserve(w, "pcs_job_register", "jobs", &w->jobs, w->n_jobs, &w->jobs_cap,
                           sizeof *w->jobs);
    if (st != PCS_OK)
        return st;
    pcs_job_rec *j = &w->jobs[w->n_jobs];
    memset(j, 0, sizeof *j);
    j->desc = *desc;
    j->desc.name = pcs_mem_strdup(&w->mem, desc->name);
    j->input = pcs_mem_alloc(&w->mem, desc->input_bytes);
    j->outputs = pcs_mem_array(&w->mem, desc->n_chunks, sizeof *j->outputs);
    j->run = pcs_mem_alloc(&w->mem, sizeof *j->run);
    if (!j->desc.name || !j->input || !j->outputs || !j->run)
        return pcs_error_set(PCS_E_NOMEM, "pcs_job_register: out of memory");
    for (uint32_t c = 0; c < desc->n_chunks; c++) {
        j->outputs[c] = pcs_mem_alloc(&w->mem, desc->output_bytes);
        if (!j->outputs[c])
            return pcs_error_set(PCS_E_NOMEM, "pcs_job_register: out of memory for outputs");
    }
    st = bind_job(w, j);
    if (st != PCS_OK)
        return st;
    if (id)
        *id = w->n_jobs;
    w->n_jobs++;
    return PCS_OK;
}

uint32_t pcs_job_count(const pcs_world *w)
{
    return w ? w->n_jobs : 0;
}

/* Wrap the calling thread's last error as "job 'name' [step: ]message [ticks]".
 */
static pcs_status job_error(const pcs_world *w, const pcs_job_rec *j, pcs_status st,
                            const char *step)
{
    const char *why = pcs_last_error();
    return pcs_error_set(st, "job '%s' %s%s%s [submitted at tick %llu, failed at tick %llu]",
                         j->desc.name, step, step[0] ? ": " : "", why[0] ? why : pcs_status_str(st),
                         (unsigned long long)j->submit_tick, (unsigned long long)w->clock.tick);
}

/* The same text the executor gives (exec/slot.c): "chunk C failed (STATUS): message". */
static pcs_status run_inline(pcs_job_rec *j)
{
    for (uint32_t c = 0; c < j->desc.n_chunks; c++) {
        pcs_error_clear();
        pcs_status st = j->desc.run_chunk(j->desc.ctx, j->input, c, j->outputs[c]);
        if (st != PCS_OK) {
            const char *why = pcs_last_error();
            return pcs_error_set(st, "chunk %u failed (%s): %s", c, pcs_status_str(st),
                                 why[0] ? why : "no message");
        }
    }
    return PCS_OK;
}

static pcs_status join_and_merge(pcs_world *w, pcs_job_rec *j)
{
    pcs_status st;
    if (j->slot && !j->rerun)
        st = w->exec.join(w->exec.ctx, j->slot, w->cfg.slow_join_timeout_s);
    else
        st = run_inline(j);
    /* After join no chunk is in flight; if this tick is retried, the run is
     * recomputed inline from its saved input rather than trusted half-done. */
    j->rerun = 1;
    if (st != PCS_OK)
        return job_error(w, j, st, "");
    st = j->desc.merge(w, j->desc.ctx, j->input, j->outputs, j->desc.n_chunks);
    if (st != PCS_OK)
        return job_error(w, j, st, "merge failed");
    j->pending = 0;
    j->rerun = 0;
    return PCS_OK;
}

static pcs_status submit(pcs_world *w, pcs_job_rec *j)
{
    if (w->exec_revoked)
        return pcs_error_set(PCS_E_STATE,
                             "job '%s' at tick %llu: the executor (worker pool) this world was "
                             "bound to was destroyed; bind another with pcs_world_set_executor "
                             "(NULL runs jobs inline)",
                             j->desc.name, (unsigned long long)w->clock.tick);
    if (!j->slot)
        return PCS_OK; /* inline: chunks run at the merge tick */
    return w->exec.submit(w->exec.ctx, j->slot);
}

/* Give up job @p j's executor slot (no chunk of it may be in flight). */
static void unbind_job(pcs_world *w, pcs_job_rec *j)
{
    if (j->slot && w->has_exec)
        w->exec.unbind(w->exec.ctx, j->slot);
    j->slot = NULL;
}

/* A retired job's run in flight, at its merge: joined, its result dropped
 * (it belongs to a device that is gone, structure.h), the job unbound. */
static void drop_retired_run(pcs_world *w, pcs_job_rec *j)
{
    if (j->slot && !j->rerun)
        (void)w->exec.join(w->exec.ctx, j->slot, w->cfg.slow_join_timeout_s);
    unbind_job(w, j);
    j->pending = 0;
    j->rerun = 0;
}

void pcs_jobs_commit(pcs_world *w)
{
    for (uint32_t i = 0; i < w->n_jobs; i++)
        if (w->jobs[i].retired && !w->jobs[i].pending)
            unbind_job(w, &w->jobs[i]);
}

/* Job @p id's name when it is retired, else NULL (pcs_retire_check). */
static const char *retired_name(const pcs_world *w, uint32_t id)
{
    return w->jobs[id].retired ? w->jobs[id].desc.name : NULL;
}

pcs_status pcs_job_retire(pcs_world *w, uint32_t id)
{
    pcs_status st =
        pcs_retire_check(w, "pcs_job_retire", "job", id, w ? w->n_jobs : 0, retired_name);
    if (st != PCS_OK)
        return st;
    w->jobs[id].retired = 1;
    w->n_retired_jobs++;
    return PCS_OK;
}

pcs_status pcs_jobs_before_tick(pcs_world *w)
{
    for (uint32_t i = 0; i < w->n_jobs; i++) {
        pcs_job_rec *j = &w->jobs[i];
        if (!pcs_clock_due(&w->clock, j->desc.domain, j->desc.phase))
            continue;
        if (j->retired) {
            if (j->pending)
                drop_retired_run(w, j);
            continue; /* never submitted again */
        }
        if (j->pending && j->submit_tick == w->clock.tick)
            continue; /* submitted by a failed earlier attempt at this tick */
        if (j->pending) {
            pcs_status st = join_and_merge(w, j);
            if (st != PCS_OK)
                return st;
            PCS_PROBE_JOB_MERGED(i, j->submit_tick, w->clock.tick);
        }
        if (j->gate && *j->gate)
            continue; /* frozen (engine/gate.c): the run in flight merged, no new one */
        j->submit_tick = w->clock.tick;
        pcs_status st = j->desc.copy_inputs(w, j->desc.ctx, j->input);
        if (st != PCS_OK)
            return job_error(w, j, st, "copy_inputs failed");
        st = submit(w, j);
        if (st != PCS_OK)
            return st;
        j->pending = 1;
        PCS_PROBE_JOB_SUBMITTED(i, w->clock.tick);
    }
    return PCS_OK;
}

/* Detach every job from the current executor; pending runs must run again. */
static void unbind_all(pcs_world *w)
{
    for (uint32_t i = 0; i < w->n_jobs; i++) {
        pcs_job_rec *j = &w->jobs[i];
        if (j->slot && w->has_exec)
            w->exec.unbind(w->exec.ctx, j->slot);
        j->slot = NULL;
        if (j->pending)
            j->rerun = 1;
    }
    pcs_par_unbind(w); /* the parallel sections' runs (engine/par_stage.c) */
    w->has_exec = 0;
}

static pcs_status check_executor(const pcs_executor *ex)
{
    if (ex && (!ex->bind || !ex->submit || !ex->join || !ex->unbind))
        return pcs_error_set(PCS_E_INVAL, "pcs_world_set_executor: the executor needs bind, "
                                          "submit, join and unbind");
    return PCS_OK;
}

pcs_status pcs_world_set_executor(pcs_world *w, const pcs_executor *ex)
{
    if (!w)
        return pcs_error_set(PCS_E_INVAL, "pcs_world_set_executor: world is NULL");
    pcs_status st = check_executor(ex);
    if (st != PCS_OK)
        return st;
    unbind_all(w);
    w->exec_revoked = 0;
    if (!ex)
        return PCS_OK;
    w->exec = *ex;
    w->has_exec = 1;
    for (uint32_t i = 0; st == PCS_OK && i < w->n_jobs; i++) {
        pcs_job_rec *j = &w->jobs[i];
        if (j->retired)
            continue; /* a run in flight reruns inline at its merge, then is dropped */
        st = bind_job(w, j);
        if (st == PCS_OK && j->pending) {
            st = w->exec.submit(w->exec.ctx, j->slot);
            if (st == PCS_OK)
                j->rerun = 0;
        }
    }
    if (st != PCS_OK) {
        char why[384];
        snprintf(why, sizeof why, "%s", pcs_last_error());
        unbind_all(w);
        return pcs_error_set(st, "pcs_world_set_executor: %s (the world now runs jobs inline)",
                             why);
    }
    return PCS_OK;
}

void pcs_world_executor_revoke(pcs_world *w, const void *ctx)
{
    if (!w || !w->has_exec || w->exec.ctx != ctx)
        return;
    for (uint32_t i = 0; i < w->n_jobs; i++) {
        w->jobs[i].slot = NULL;
        if (w->jobs[i].pending)
            w->jobs[i].rerun = 1;
    }
    pcs_par_revoke(w);
    w->has_exec = 0;
    w->exec_revoked = 1;
}

void pcs_jobs_before_load(pcs_world *w)
{
    /* A load overwrites the inputs: no executor may still be reading them. */
    for (uint32_t i = 0; i < w->n_jobs; i++) {
        pcs_job_rec *j = &w->jobs[i];
        if (j->slot && j->pending && !j->rerun)
            (void)w->exec.join(w->exec.ctx, j->slot, 0.0); /* its result is dropped */
        j->pending = 0;
        j->rerun = 0;
    }
}

pcs_status pcs_jobs_after_load(pcs_world *w)
{
    /* Loaded pending runs start again from their loaded inputs. */
    for (uint32_t i = 0; i < w->n_jobs; i++) {
        pcs_job_rec *j = &w->jobs[i];
        if (!j->pending || !j->slot)
            continue;
        pcs_status st = w->exec.submit(w->exec.ctx, j->slot);
        if (st != PCS_OK) {
            j->rerun = 1; /* runs inline at its merge tick instead */
            return st;
        }
    }
    return PCS_OK;
}

void pcs_jobs_destroy(pcs_world *w)
{
    unbind_all(w);
}
