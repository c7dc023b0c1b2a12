/**
 * @file wake.h
 * @brief The reader wait: futex sleep on the publication counter, and why no wake-up is lost
 * (internal).
 *
 * A reader that wants a publication newer than `after` sleeps in the kernel
 * instead of polling; stage 12 wakes it. Words (pool.h, own cache lines):
 *
 *   word        the futex word: the low 32 bits of `published`, stored after it
 *   waiters[b]  readers registered in bucket b = (after + 1) % 32
 *   passed[b]   the word value whose wake this bucket has passed on (below)
 *
 *   writer, publication q (publish.c)         waiter, wants pub > after (wait.c)
 *   store(published, q, release)              b = (after + 1) % 32
 *   S: store(word, q, seq_cst)                A: fetch_add(waiters[b], 1, seq_cst)
 *   L: n = load(waiters[q % 32], seq_cst)     R: w = load(word, seq_cst)
 *   if n > 0: FUTEX_WAKE_BITSET(word,            p = load(published, acquire)
 *             1 thread, bit q % 32)           if p > after: deregister, return p
 *                                             FUTEX_WAIT_BITSET(word, w, bit b)
 *                                                (sleeps only if word == w still)
 *                                             fetch_sub(waiters[b], 1, seq_cst)
 *                                             pass the wake on (below), loop
 *
 * Claim (no lost wake-up): a waiter never sleeps through the publication
 * after + 1. All four accesses S, L, A, R are seq_cst, so they lie in one
 * total order consistent with each thread's program order (C17 7.17.3). Take
 * the publication q = after + 1, whose bucket is b. Either R comes after S_q
 * in that order, so R reads q or a later word value; then p >= q > after
 * (below) and the waiter returns without sleeping, or a later pass of the
 * loop does. Or R comes before S_q; then A < R < S_q < L_q, so L_q reads
 * waiters[b] with A's increment in it (the waiter has not deregistered: it
 * deregisters only after its futex call returns) and the writer makes the
 * wake call for bit b. The kernel checks `word == w` and queues the sleeper
 * atomically with respect to that wake (both hold the futex hash-bucket
 * lock): the sleeper is queued before the wake looks, and is woken, or it
 * looks after S_q, sees word != w and does not sleep. This is the store
 * buffering (Dekker) shape: with release/acquire instead of seq_cst, S and L
 * may be reordered on x86 and both sides miss each other
 * (stress/broken_fixtures.c: broken.dekker_release_acquire).
 *
 * p >= the publication whose word R read (say m): R read S_m, a seq_cst store
 * sequenced after the release store of published = m, so that store
 * happens-before the acquire load of p (coherence). Hence a waiter that read
 * p <= after also read m <= after, so R precedes S_{after+1}: the second case.
 *
 * One wake call per publication, none without waiters. Stage 12 wakes ONE
 * thread (FUTEX_WAKE_BITSET with nr = 1) and only when its bucket's count is
 * not zero: the kernel work on the ticking thread does not grow with the
 * number of readers. The woken reader passes the wake on: it claims the word
 * value it now sees in passed[b] (compare-and-swap, so one reader per bucket
 * and publication does it) and wakes every sleeper of bucket b (nr =
 * INT_MAX) on its own thread. Every sleeper of bucket b that the writer's
 * wake was owed to is either the one it woke or queued at the time of that
 * wake, hence still queued (or just timed out and passing it on itself) when
 * the claimant, who returned after it, wakes the bucket; a claimant that
 * loses the CAS knows another reader woke the bucket after seeing the same
 * or a newer word, which is after S_q. A sleeper whose word has not changed
 * is owed nothing. If the writer's wake found no sleeper queued, every
 * registered waiter of the bucket is between R and the kernel's check, and
 * the kernel's check sees the new word.
 *
 * Buckets. A reader that waits for a publication several ahead (a reader
 * paced in simulated time: after = last + period - 1) registers for the one
 * publication that satisfies it, so it is not woken by the ones in between,
 * except every 32nd (same bucket), after which it sleeps again. Every waiter
 * owed a wake for publication q is in bucket q % 32: a waiter of another
 * bucket wants a publication > q (if it wanted one <= q, that one came
 * earlier and, by the claim, woke it then).
 *
 * Wrap. The word holds 32 of the counter's 64 bits. A sleeper could only be
 * fooled if exactly a multiple of 2^32 publications happened between its
 * load R and the kernel's check, restoring the word it expects; at one tick
 * per microsecond that is 71 minutes inside one system call's entry, and
 * even then the next publication changes the word and is owed to the same
 * bucket rule, so the cost is one tick of delay (and the reader's timeout
 * bounds it), never a reader lost for ever. The same holds for passed[b].
 *
 * Timeouts and the rate limit (wait.c) use the host's monotonic clock,
 * through profile/clock.h (profile/ is the library's clock reader). They
 * decide only when a reader thread returns; the writer never reads them and
 * readers never write the world, so they cannot change a state hash.
 *
 * The protocol is model-checked (verify/snapshot_pool.pml, waiter processes;
 * broken variants WAKE_BEFORE_STORE and NO_PASS_ON) and stress-tested
 * (stress/wait_stress.c).
 */
#ifndef PCS_SNAPSHOT_WAKE_H
#define PCS_SNAPSHOT_WAKE_H

#include <stdatomic.h>
#include <stdint.h>

/** Buckets: the bits of a futex bitset. */
#define PCS_WAKE_BUCKETS 32u

/** Bucket of a waiter that wants a publication > @p after. */
static inline uint32_t pcs_wake_bucket(uint64_t after)
{
    return (uint32_t)((after + 1u) % PCS_WAKE_BUCKETS);
}

/** The wait and wake words of one pool (or of a stress fixture). */
typedef struct pcs_wake {
    _Atomic uint32_t word; /* low 32 bits of the newest publication: the futex word */
    _Atomic uint32_t waiters[PCS_WAKE_BUCKETS];
    _Atomic uint32_t passed[PCS_WAKE_BUCKETS]; /* word value whose wake was passed on */
} pcs_wake;

/**
 * Sleep on @p wk->word while it equals @p expected, woken by a wake for
 * @p bucket, until @p deadline_ns (CLOCK_MONOTONIC, ns; UINT64_MAX: none).
 * Returns early on a wake, a signal, or if the word differs on entry.
 */
void pcs_wake_sleep(pcs_wake *wk, uint32_t expected, uint32_t bucket, uint64_t deadline_ns);

/** Wake up to @p n sleepers of @p bucket (one system call). */
void pcs_wake_call(pcs_wake *wk, uint32_t bucket, int n);

/** Writer, S: the futex word follows publication @p pub (after `published`). */
static inline void pcs_wake_store(pcs_wake *wk, uint64_t pub)
{
    atomic_store_explicit(&wk->word, (uint32_t)pub, memory_order_seq_cst);
}

/** Writer, L: does publication @p pub's bucket have a registered waiter? */
static inline int pcs_wake_needed(pcs_wake *wk, uint64_t pub)
{
    uint32_t b = (uint32_t)(pub % PCS_WAKE_BUCKETS);
    return atomic_load_explicit(&wk->waiters[b], memory_order_seq_cst) != 0;
}

/**
 * Writer, stage 12 after storing `published`: S then L, and at most one wake
 * call (of one thread). @return 1 if it made the call.
 */
static inline int pcs_wake_publish(pcs_wake *wk, uint64_t pub)
{
    pcs_wake_store(wk, pub);
    if (!pcs_wake_needed(wk, pub))
        return 0;
    pcs_wake_call(wk, (uint32_t)(pub % PCS_WAKE_BUCKETS), 1);
    return 1;
}

/** Waiter, A and R: register in @p bucket, then read the word to sleep on. */
static inline uint32_t pcs_wake_register(pcs_wake *wk, uint32_t bucket)
{
    atomic_fetch_add_explicit(&wk->waiters[bucket], 1, memory_order_seq_cst);
    return atomic_load_explicit(&wk->word, memory_order_seq_cst);
}

/** Waiter: leave @p bucket (after the futex call returned, or instead of it). */
static inline void pcs_wake_unregister(pcs_wake *wk, uint32_t bucket)
{
    atomic_fetch_sub_explicit(&wk->waiters[bucket], 1, memory_order_seq_cst);
}

/**
 * Waiter, after its sleep on word value @p slept_on ended (unregistered
 * already): if the word moved on, make sure bucket @p bucket's other
 * sleepers are woken, once per word value. @return 1 if it made a wake call.
 */
static inline int pcs_wake_pass_on(pcs_wake *wk, uint32_t bucket, uint32_t slept_on)
{
    uint32_t now = atomic_load_explicit(&wk->word, memory_order_seq_cst);
    if (now == slept_on)
        return 0; /* timed out or interrupted: nothing was published, nothing owed */
    uint32_t seen = atomic_load_explicit(&wk->passed[bucket], memory_order_relaxed);
    if (seen == now ||
        !atomic_compare_exchange_strong_explicit(&wk->passed[bucket], &seen, now,
                                                 memory_order_seq_cst, memory_order_relaxed))
        return 0; /* another reader woke the bucket after seeing this word or a newer one */
    if (atomic_load_explicit(&wk->waiters[bucket], memory_order_seq_cst) == 0)
        return 0; /* nobody registered, so nobody queued */
    pcs_wake_call(wk, bucket, 0x7fffffff);
    return 1;
}

#endif
