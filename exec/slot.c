/**
 * @file slot.c
 * @brief Chunk claiming, completion and error capture for one bound job (protocol in slot.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "exec/futex.h"
#include "exec/slot.h"

/* A run's completion wakes at most one stale waiter; a bounded wait retries
 * that many early returns before it gives up and lets the joiner steal. */
#define PCS_SLOT_WAIT_RETRIES 4

pcs_status pcs_slot_init(pcs_exec_slot *s, const pcs_job_run *run)
{
    s->run = run;
    s->chunk_state = calloc(run->n_chunks, sizeof *s->chunk_state);
    if (!s->chunk_state)
        return pcs_error_set(PCS_E_NOMEM, "exec: out of memory for job '%s' (%u chunks)",
                             run->name ? run->name : "?", run->n_chunks);
    for (uint32_t c = 0; c < run->n_chunks; c++)
        atomic_init(&s->chunk_state[c], PCS_CHUNK_DONE);
    atomic_init(&s->next_hint, run->n_chunks);
    atomic_init(&s->remaining, 0);
    atomic_init(&s->complete, 1);
    atomic_flag_clear(&s->err_lock);
    s->err_chunk = PCS_SLOT_NONE;
    s->err_status = PCS_OK;
    return PCS_OK;
}

void pcs_slot_free(pcs_exec_slot *s)
{
    free(s->chunk_state);
    s->chunk_state = NULL;
}

void pcs_slot_reset(pcs_exec_slot *s)
{
    uint32_t n = s->run->n_chunks;
    s->err_chunk = PCS_SLOT_NONE;
    s->err_status = PCS_OK;
    s->err_msg[0] = '\0';
    atomic_store_explicit(&s->remaining, n, memory_order_relaxed);
    atomic_store_explicit(&s->complete, 0, memory_order_relaxed);
    atomic_store_explicit(&s->next_hint, 0, memory_order_relaxed);
    /* Last, with release: a claim (acquire CAS) sees everything above and the input. */
    for (uint32_t c = 0; c < n; c++)
        atomic_store_explicit(&s->chunk_state[c], PCS_CHUNK_UNCLAIMED, memory_order_release);
}

static bool try_claim(pcs_exec_slot *s, uint32_t c)
{
    uint32_t expect = PCS_CHUNK_UNCLAIMED;
    if (atomic_load_explicit(&s->chunk_state[c], memory_order_relaxed) != expect)
        return false;
    return atomic_compare_exchange_strong_explicit(&s->chunk_state[c], &expect, PCS_CHUNK_RUNNING,
                                                   memory_order_acq_rel, memory_order_relaxed);
}

/* The hint only shortens the usual scan. It can be stale (a worker still
 * scanning the previous run may push it past chunks of the new run), so
 * PCS_SLOT_NONE is returned only after a full pass from chunk 0: a chunk can
 * never be left UNCLAIMED with every thread believing the run is taken. */
uint32_t pcs_slot_claim(pcs_exec_slot *s)
{
    uint32_t n = s->run->n_chunks;
    uint32_t hint = atomic_load_explicit(&s->next_hint, memory_order_relaxed);
    if (hint > n)
        hint = n;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = hint + i < n ? hint + i : hint + i - n;
        if (try_claim(s, c)) {
            atomic_store_explicit(&s->next_hint, c + 1, memory_order_relaxed);
            return c;
        }
    }
    return PCS_SLOT_NONE;
}

static void record_error(pcs_exec_slot *s, uint32_t c, pcs_status st)
{
    while (atomic_flag_test_and_set_explicit(&s->err_lock, memory_order_acquire))
        ;
    if (c < s->err_chunk) {
        s->err_chunk = c;
        s->err_status = st;
        snprintf(s->err_msg, sizeof s->err_msg, "%s", pcs_last_error());
    }
    atomic_flag_clear_explicit(&s->err_lock, memory_order_release);
}

/* One chunk (or a cancelled batch) finished: count it down, publish completion. */
static bool finish(pcs_exec_slot *s, uint32_t count)
{
    uint32_t before = atomic_fetch_sub_explicit(&s->remaining, count, memory_order_acq_rel);
    if (before != count)
        return false;
    atomic_store_explicit(&s->complete, 1, memory_order_release);
    pcs_futex_wake_all(&s->complete);
    return true;
}

bool pcs_slot_run(pcs_exec_slot *s, uint32_t c)
{
    const pcs_job_run *r = s->run;
    pcs_error_clear();
    pcs_status st = r->run_chunk(r->ctx, r->input, c, r->outputs[c]);
    if (st != PCS_OK)
        record_error(s, c, st);
    atomic_store_explicit(&s->chunk_state[c], PCS_CHUNK_DONE, memory_order_release);
    return finish(s, 1);
}

uint32_t pcs_slot_cancel(pcs_exec_slot *s)
{
    uint32_t cancelled = 0;
    for (uint32_t c = 0; c < s->run->n_chunks; c++) {
        uint32_t expect = PCS_CHUNK_UNCLAIMED;
        if (atomic_compare_exchange_strong_explicit(&s->chunk_state[c], &expect, PCS_CHUNK_DONE,
                                                    memory_order_acq_rel, memory_order_relaxed))
            cancelled++;
    }
    if (cancelled)
        finish(s, cancelled);
    return cancelled;
}

bool pcs_slot_complete(const pcs_exec_slot *s)
{
    return atomic_load_explicit(&s->complete, memory_order_acquire) == 1;
}

bool pcs_slot_wait(pcs_exec_slot *s, int64_t timeout_ns)
{
    if (timeout_ns < 0) {
        while (!pcs_slot_complete(s))
            pcs_futex_wait(&s->complete, 0, -1);
        return true;
    }
    for (int i = 0; i < PCS_SLOT_WAIT_RETRIES && !pcs_slot_complete(s); i++)
        if (pcs_futex_wait(&s->complete, 0, timeout_ns))
            break;
    return pcs_slot_complete(s);
}

pcs_status pcs_slot_result(pcs_exec_slot *s)
{
    if (s->err_status == PCS_OK)
        return PCS_OK;
    return pcs_error_set(s->err_status, "chunk %u failed (%s): %s", s->err_chunk,
                         pcs_status_str(s->err_status), s->err_msg[0] ? s->err_msg : "no message");
}
