/**
 * @file executor.c
 * @brief The pool as a pcs_executor: the run queue, the workers' loop, join-or-steal, unbind.
 *
 * A submitted run goes to the back of the pool's FIFO queue. A worker takes
 * the run at the front without removing it, so every idle worker can help
 * with one run, and claims its chunks one at a time (slot.h); when a claim
 * finds nothing it drops the run from the queue, unless the run was
 * resubmitted meanwhile (its `gen` changed).
 *
 * Join or steal (docs/ARCHITECTURE.md section 5): the joiner returns at once if the run
 * is complete; otherwise it sleeps at most the world's join timeout, then
 * claims and runs every chunk no worker has started, then sleeps until the
 * chunks still running finish. Nothing is skipped, and which thread ran a
 * chunk cannot change its output, so the merge that follows is the same for
 * any number of workers.
 */
#include <stdlib.h>

#include "exec/pool.h"
#include "pcsim/profile.h"

static void count(_Atomic uint64_t *c, uint64_t v)
{
    atomic_fetch_add_explicit(c, v, memory_order_relaxed);
}

static uint64_t now_ns(const pcs_exec *p)
{
    return p->cfg.clock_ns ? p->cfg.clock_ns(p->cfg.clock_ctx) : 0;
}

/* ---- queue (pool mutex held) ---------------------------------------------- */

static void enqueue(pcs_exec *p, pcs_exec_slot *s)
{
    s->queue_next = NULL;
    if (p->queue_tail)
        p->queue_tail->queue_next = s;
    else
        p->queue_head = s;
    p->queue_tail = s;
    s->queued = true;
}

static void dequeue(pcs_exec *p, pcs_exec_slot *s)
{
    if (!s->queued)
        return;
    pcs_exec_slot *prev = NULL;
    for (pcs_exec_slot *q = p->queue_head; q; prev = q, q = q->queue_next) {
        if (q != s)
            continue;
        if (prev)
            prev->queue_next = s->queue_next;
        else
            p->queue_head = s->queue_next;
        if (p->queue_tail == s)
            p->queue_tail = prev;
        break;
    }
    s->queue_next = NULL;
    s->queued = false;
}

/* ---- workers ---------------------------------------------------------------- */

static void worker_start(pcs_exec_worker *wk)
{
    pcs_exec *p = wk->pool;
    pthread_setname_np(pthread_self(), wk->name);
    pcs_profile_trace_thread_name(wk->name); /* its trace track, in any later session */
    if (wk->core >= 0 && p->cfg.pin) {
        char why[PCS_EXEC_WARNING_BYTES - 64];
        if (pcs_topo_pin_self(&p->topo, wk->core, why, sizeof why) == 0)
            wk->pinned = true;
        else
            snprintf(wk->warning, sizeof wk->warning, "worker %s: %s; it runs unpinned", wk->name,
                     why);
    }
    pthread_mutex_lock(&p->mu);
    p->started++;
    pthread_cond_broadcast(&p->idle_cv);
    pthread_mutex_unlock(&p->mu);
}

/* Claim and run chunks of @p s until none is left or the pool stops. */
static void work_on(pcs_exec *p, pcs_exec_slot *s)
{
    uint64_t ran = 0;
    uint32_t c;
    while (!atomic_load_explicit(&p->stop, memory_order_relaxed) &&
           (c = pcs_slot_claim(s)) != PCS_SLOT_NONE) {
        /* One relaxed load without a trace; the chunk index is its arg. */
        pcs_profile_span span = pcs_profile_span_begin("exec.chunk", "exec", c);
        pcs_slot_run(s, c);
        pcs_profile_span_end(&span);
        ran++;
    }
    count(&p->n.chunks_worker, ran);
}

void *pcs_exec_worker_main(void *arg)
{
    pcs_exec_worker *wk = arg;
    pcs_exec *p = wk->pool;
    worker_start(wk);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!atomic_load(&p->stop) && !p->queue_head)
            pthread_cond_wait(&p->work_cv, &p->mu);
        if (atomic_load(&p->stop))
            break;
        pcs_exec_slot *s = p->queue_head;
        uint64_t gen = s->gen;
        s->active++;
        pthread_mutex_unlock(&p->mu);
        work_on(p, s);
        pthread_mutex_lock(&p->mu);
        if (s->gen == gen)
            dequeue(p, s); /* every chunk of this run is claimed */
        if (--s->active == 0 && s->unbinding)
            pthread_cond_broadcast(&p->idle_cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* ---- the pcs_executor table ----------------------------------------------- */

static pcs_status check_run(const pcs_job_run *run)
{
    if (!run || !run->run_chunk || !run->outputs)
        return pcs_error_set(PCS_E_INVAL, "exec bind: run, run_chunk or outputs is NULL");
    if (run->n_chunks < 1 || run->n_chunks > PCS_MAX_JOB_CHUNKS)
        return pcs_error_set(PCS_E_INVAL, "exec bind: job '%s' n_chunks %u is outside [1, %u]",
                             run->name ? run->name : "?", run->n_chunks, PCS_MAX_JOB_CHUNKS);
    return PCS_OK;
}

static pcs_status ex_bind(void *ctx, pcs_world *w, const pcs_job_run *run, void **out)
{
    pcs_exec *p = ctx;
    if (!p || !out)
        return pcs_error_set(PCS_E_INVAL, "exec bind: pool or slot pointer is NULL");
    pcs_status st = check_run(run);
    if (st != PCS_OK)
        return st;
    pcs_exec_slot *s = calloc(1, sizeof *s);
    if (!s)
        return pcs_error_set(PCS_E_NOMEM, "exec bind: out of memory for job '%s'", run->name);
    st = pcs_slot_init(s, run);
    if (st != PCS_OK) {
        free(s);
        return st;
    }
    s->world = w;
    s->pool = p;
    pthread_mutex_lock(&p->mu);
    s->bound_next = p->bound;
    if (p->bound)
        p->bound->bound_prev = s;
    p->bound = s;
    pthread_mutex_unlock(&p->mu);
    *out = s;
    return PCS_OK;
}

static pcs_status ex_submit(void *ctx, void *slot)
{
    pcs_exec *p = ctx;
    pcs_exec_slot *s = slot;
    if (!p || !s)
        return pcs_error_set(PCS_E_INVAL, "exec submit: pool or slot is NULL");
    if (s->submitted)
        return pcs_error_set(PCS_E_STATE,
                             "exec submit: job '%s' was submitted again before its "
                             "previous run was joined",
                             s->run->name);
    pcs_slot_reset(s);
    s->submitted = true;
    count(&p->n.runs_submitted, 1);
    if (p->n_workers == 0)
        return PCS_OK; /* the joiner runs every chunk */
    pthread_mutex_lock(&p->mu);
    s->gen++;
    if (!s->queued)
        enqueue(p, s);
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    return PCS_OK;
}

static void record_wait(pcs_exec *p, uint64_t ns)
{
    count(&p->n.wait_ns_total, ns);
    uint64_t max = atomic_load_explicit(&p->n.wait_ns_max, memory_order_relaxed);
    while (ns > max && !atomic_compare_exchange_weak_explicit(
                           &p->n.wait_ns_max, &max, ns, memory_order_relaxed, memory_order_relaxed))
        ;
}

/* Run every chunk nobody has started on this thread. */
static void steal(pcs_exec *p, pcs_exec_slot *s)
{
    uint64_t stolen = 0;
    uint32_t c;
    while ((c = pcs_slot_claim(s)) != PCS_SLOT_NONE) {
        pcs_profile_span span = pcs_profile_span_begin("exec.chunk", "exec", c);
        pcs_slot_run(s, c);
        pcs_profile_span_end(&span);
        stolen++;
    }
    count(&p->n.chunks_stolen, stolen);
    if (p->n_workers > 0) {
        pthread_mutex_lock(&p->mu);
        dequeue(p, s);
        pthread_mutex_unlock(&p->mu);
    }
}

static int64_t timeout_ns(double timeout_s)
{
    if (!(timeout_s > 0.0))
        return 0;
    if (timeout_s > 60.0)
        timeout_s = 60.0;
    return (int64_t)(timeout_s * 1e9);
}

static pcs_status ex_join(void *ctx, void *slot, double timeout_s)
{
    pcs_exec *p = ctx;
    pcs_exec_slot *s = slot;
    if (!p || !s)
        return pcs_error_set(PCS_E_INVAL, "exec join: pool or slot is NULL");
    if (!s->submitted)
        return pcs_error_set(PCS_E_STATE, "exec join: job '%s' has no run in flight", s->run->name);
    uint64_t blocked = 0;
    if (pcs_slot_complete(s)) {
        count(&p->n.joins_ready, 1);
    } else {
        int64_t limit = timeout_ns(timeout_s);
        if (p->n_workers > 0 && limit > 0) {
            count(&p->n.waits, 1);
            uint64_t t0 = now_ns(p);
            if (!pcs_slot_wait(s, limit))
                count(&p->n.waits_timed_out, 1);
            blocked += now_ns(p) - t0;
        }
        if (!pcs_slot_complete(s))
            steal(p, s);
        if (!pcs_slot_complete(s)) {
            count(&p->n.waits_inflight, 1);
            uint64_t t0 = now_ns(p);
            pcs_slot_wait(s, -1);
            blocked += now_ns(p) - t0;
        }
    }
    if (blocked)
        record_wait(p, blocked);
    s->submitted = false;
    count(&p->n.runs_joined, 1);
    return pcs_slot_result(s);
}

static void unlink_bound(pcs_exec *p, pcs_exec_slot *s)
{
    /* Whichever link points at s (its predecessor's, or the list head) skips it. */
    *(s->bound_prev ? &s->bound_prev->bound_next : &p->bound) = s->bound_next;
    if (s->bound_next)
        s->bound_next->bound_prev = s->bound_prev;
}

static void ex_unbind(void *ctx, void *slot)
{
    pcs_exec *p = ctx;
    pcs_exec_slot *s = slot;
    if (!p || !s)
        return;
    pthread_mutex_lock(&p->mu);
    s->unbinding = true;
    dequeue(p, s);
    pthread_mutex_unlock(&p->mu);
    count(&p->n.chunks_cancelled, pcs_slot_cancel(s));
    pcs_slot_wait(s, -1); /* chunks already running */
    pthread_mutex_lock(&p->mu);
    while (s->active > 0)
        pthread_cond_wait(&p->idle_cv, &p->mu);
    unlink_bound(p, s);
    pthread_mutex_unlock(&p->mu);
    pcs_slot_free(s);
    free(s);
}

void pcs_exec_table(pcs_exec *pool, pcs_executor *ex)
{
    ex->ctx = pool;
    ex->bind = ex_bind;
    ex->submit = ex_submit;
    ex->join = ex_join;
    ex->unbind = ex_unbind;
}

void pcs_exec_release_slots(pcs_exec *p)
{
    pcs_exec_slot *s = p->bound;
    while (s) {
        pcs_exec_slot *next = s->bound_next;
        if (s->world)
            pcs_world_executor_revoke(s->world, p);
        pcs_slot_free(s);
        free(s);
        s = next;
    }
    p->bound = NULL;
    p->queue_head = p->queue_tail = NULL;
}
