/**
 * @file hazard.c
 * @brief Reclaiming retired layouts: per-reader announcements (hazard pointers).
 *
 * A structural change swaps the pool's current layout (relayout.c); readers
 * may still be copying from the old one. Each reader owns a hazard record
 * and announces there the layout it is inside; the writer frees a retired
 * layout only when no record announces it. The writer never waits: a
 * layout still announced stays on its retired list and is looked at again
 * at the next publication (publish.c calls pcs_layout_reclaim while the list
 * is non-empty), so reclamation costs nothing on a tick without pending
 * layouts.
 *
 *   reader (pcs_hazard_enter)              writer (relayout.c, this file)
 *   L = load(current, acquire)             build L', publish into it
 *   loop:                                  store(current, L', seq_cst)      (S)
 *     store(in, L, seq_cst)          (A)   put L on the retired list
 *     L2 = load(current, seq_cst)    (C)   for each retired R:
 *     if L2 == L: inside L, done             for each record h, slot s:
 *     L = L2                                    x = load(h.in[s], seq_cst)  (Q)
 *   ... reads of L's words ...                  if x == R: keep R
 *   store(in, NULL, release)         (D)    if none: free R
 *
 * Claim: R is never freed while a reader is between a successful (C) that
 * returned R and its (D).
 *
 *  (1) Announcing. A, C, S and every Q are seq_cst, so they lie in one total
 *      order S_sc consistent with each thread's program order, and a seq_cst
 *      load reads the last store to its location before it in S_sc (all
 *      stores to `current` and to `in` are seq_cst or, for D, come later in
 *      the reader's program order than anything this case looks at). The
 *      reader's C returned R, so C precedes the swap S that replaced R
 *      (otherwise C would read L' or later). A precedes C (program order),
 *      S precedes the writer's later scan loads Q (program order). Hence
 *      A < C < S < Q in S_sc, and Q reads A's value R, or a later store of
 *      that reader to the same slot, which it makes only at D or after.
 *      So while the reader has not reached D, the scan finds R and keeps it.
 *  (2) Leaving. When a scan's Q reads NULL from D (or a later announcement
 *      the reader made after D), Q is an acquire load reading a release
 *      store that is sequenced after all the reader's loads from R, so they
 *      happen-before Q and therefore before the free that follows Q: the
 *      writer never frees memory a reader may still read.
 *  (3) A reader whose C returned something else (the writer swapped in
 *      between) announced a layout it never reads: it retries with the newer
 *      one. Its stale announcement only delays a free by one scan.
 *  (4) New layouts. L' is fully built and its first publication written
 *      before S (release, as seq_cst includes it); a reader reaches L' only
 *      through C or the first acquire load of `current`, which read S or a
 *      later store, so everything in L' is visible to it.
 *
 * Why not an epoch scheme: a reader that sleeps in pcs_reader_wait or is
 * preempted would hold back every epoch; here it pins only the one layout it
 * announced, and only while inside a read (a view holds its own slot, from
 * pcs_view_begin to pcs_view_validate). A reader sets (A) once per read: one
 * seq_cst store (an XCHG on x86-64) and one load.
 *
 * Bound. A pending layout is announced by at least one record at its last
 * scan, and a record announces at most PCS_HAZ_SLOTS layouts, so pending
 * layouts never exceed twice the records in use (readers plus borrowers of
 * pool-level calls) plus the one just retired. Past
 * PCS_LAYOUT_PENDING_SOFT_MAX pending the writer counts the retirement in
 * `layouts_over` (pcs_snapshot_stats) and still keeps the layout: it never
 * waits and never fails the tick for a slow reader.
 *
 * Records. A record is found by a lock-free scan (claimed with a CAS on
 * `busy`) or allocated and pushed with a CAS on `hazards`; records are never
 * unlinked, so the writer's traversal (acquire load of the head; every push
 * is an RMW, so the head it reads carries every earlier push's release)
 * sees each record's `next` as written before its push. They are freed with
 * the world (pool.c), except one a reader still owns: that one is orphaned
 * and freed by pcs_reader_close, so a host that closes its readers after
 * destroying the world (as it could before layouts existed) stays safe.
 *
 * ThreadSanitizer models all of the above (no fences): no suppressions.
 */
#include <stdlib.h>

#include "snapshot/pool.h"

/* The pool's atomic words are shared mutable state; readers hold the pool as
 * const for everything else (as wait.c does). */
static pcs_snapshot_pool *mut(const pcs_snapshot_pool *pool)
{
    return (pcs_snapshot_pool *)pool;
}

pcs_hazard *pcs_hazard_acquire(const pcs_snapshot_pool *pool)
{
    pcs_snapshot_pool *p = mut(pool);
    for (pcs_hazard *h = atomic_load_explicit(&p->hazards, memory_order_acquire); h; h = h->next) {
        unsigned idle = 0;
        if (atomic_load_explicit(&h->busy, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong_explicit(&h->busy, &idle, 1u, memory_order_acquire,
                                                    memory_order_relaxed))
            return h;
    }
    pcs_hazard *h = aligned_alloc(64, (sizeof *h + 63u) & ~(size_t)63u);
    if (!h)
        return NULL;
    for (int s = 0; s < PCS_HAZ_SLOTS; s++)
        atomic_init(&h->in[s], NULL);
    atomic_init(&h->busy, 1u);
    atomic_init(&h->orphan, 0u);
    pcs_hazard *head = atomic_load_explicit(&p->hazards, memory_order_relaxed);
    do
        h->next = head;
    while (!atomic_compare_exchange_weak_explicit(&p->hazards, &head, h, memory_order_release,
                                                  memory_order_relaxed));
    return h;
}

void pcs_hazard_release(pcs_hazard *h)
{
    if (!h)
        return;
    if (atomic_load_explicit(&h->orphan, memory_order_acquire)) {
        free(h); /* its world is gone (pcs_hazard_destroy_all) */
        return;
    }
    for (int s = 0; s < PCS_HAZ_SLOTS; s++)
        atomic_store_explicit(&h->in[s], NULL, memory_order_release);
    atomic_store_explicit(&h->busy, 0u, memory_order_release);
}

void pcs_hazard_destroy_all(pcs_snapshot_pool *pool)
{
    pcs_hazard *h = atomic_load_explicit(&pool->hazards, memory_order_acquire);
    while (h) {
        pcs_hazard *next = h->next;
        if (atomic_load_explicit(&h->busy, memory_order_acquire))
            atomic_store_explicit(&h->orphan, 1u, memory_order_release); /* its reader frees it */
        else
            free(h);
        h = next;
    }
    atomic_store_explicit(&pool->hazards, NULL, memory_order_relaxed);
}

const pcs_layout *pcs_hazard_enter(const pcs_snapshot_pool *pool, pcs_hazard *h, int slot)
{
    pcs_snapshot_pool *p = mut(pool);
    pcs_layout *L = atomic_load_explicit(&p->current, memory_order_acquire);
    for (;;) {
        atomic_store_explicit(&h->in[slot], L, memory_order_seq_cst);                /* (A) */
        pcs_layout *again = atomic_load_explicit(&p->current, memory_order_seq_cst); /* (C) */
        if (again == L)
            return L;
        L = again;
    }
}

void pcs_hazard_leave(pcs_hazard *h, int slot)
{
    atomic_store_explicit(&h->in[slot], NULL, memory_order_release); /* (D) */
}

/* Does any record announce @p R? (Q) */
static int announced(const pcs_snapshot_pool *pool, const pcs_layout *R)
{
    pcs_snapshot_pool *p = mut(pool);
    for (pcs_hazard *h = atomic_load_explicit(&p->hazards, memory_order_acquire); h; h = h->next)
        for (int s = 0; s < PCS_HAZ_SLOTS; s++)
            if (atomic_load_explicit(&h->in[s], memory_order_seq_cst) == R)
                return 1;
    return 0;
}

/* A freed layout's buffers, poisoned (test hook): an even sequence, a
 * publication number above any target and NaN values with the payload
 * 0xdead, so a reader that read freed memory sees it whole and says so. */
static void poison(pcs_layout *L)
{
    size_t n = (size_t)L->n_buffers * L->stride;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = PCS_LAYOUT_POISON;
        if (i % L->stride == PCS_HDR_SEQ)
            v = PCS_LAYOUT_POISON_SEQ;
        else if (i % L->stride == PCS_HDR_PUB)
            v = UINT64_MAX / 2u;
        atomic_store_explicit(&L->buffers[i], v, memory_order_release);
    }
}

static void dispose(pcs_snapshot_pool *pool, pcs_layout *R)
{
    if (pool->test_quarantine) {
        poison(R);
        R->next_retired = pool->quarantined;
        pool->quarantined = R;
    } else {
        pcs_layout_free(R);
    }
    pool->n_freed++;
}

void pcs_layout_retire(pcs_snapshot_pool *pool, pcs_layout *old)
{
    if (pool->n_pending >= PCS_LAYOUT_PENDING_SOFT_MAX)
        pool->n_over++;
    old->next_retired = pool->retired;
    pool->retired = old;
    pool->n_pending++;
    pcs_layout_reclaim(pool);
}

void pcs_layout_reclaim(pcs_snapshot_pool *pool)
{
    pcs_layout **link = &pool->retired;
    while (*link) {
        pcs_layout *R = *link;
        if (!pool->test_free_unscanned && announced(pool, R)) {
            link = &R->next_retired;
            continue;
        }
        *link = R->next_retired;
        pool->n_pending--;
        dispose(pool, R);
    }
    atomic_store_explicit(&pool->layouts_freed, pool->n_freed, memory_order_relaxed);
    atomic_store_explicit(&pool->layouts_pending, pool->n_pending, memory_order_relaxed);
    atomic_store_explicit(&pool->layouts_over, pool->n_over, memory_order_relaxed);
}
