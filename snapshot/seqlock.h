/**
 * @file seqlock.h
 * @brief The seqlock protocol in C11 atomics, and why it is correct (internal).
 *
 * One writer, any number of readers, a 64-bit sequence `seq` per protected
 * block, and the block's contents as `_Atomic uint64_t` words. Both the
 * snapshot buffers (pool.c) and the event-log slots (eventlog.c) use it.
 *
 *   writer                                  reader
 *   s = seq (its own value)                 s1 = load(seq, acquire)
 *   store(seq, s + 1, relaxed)   (odd)      if s1 is odd: retry
 *   store(word[i], v[i], release) for all i v[i] = load(word[i], acquire) for all i
 *   store(seq, s + 2, release)   (even)     s2 = load(seq, relaxed)
 *                                           if s2 != s1: retry
 *
 * Why every data access is atomic: a seqlock reader deliberately reads words
 * the writer may be writing. With plain accesses that is a data race, i.e.
 * undefined behaviour in C11, whatever the hardware does (Boehm, "Can Seqlocks
 * Get Along With Programming Language Memory Models?", MSPC 2012). With atomic
 * words there is no data race by definition, and ThreadSanitizer, which
 * models exactly the C11 atomics, has nothing to report.
 *
 * Why no stand-alone fence: the textbook C11 recipe puts a release fence in
 * the writer after the odd store and an acquire fence in the reader before the
 * second seq load. ThreadSanitizer does not model atomic_thread_fence, so it
 * would report false races (or need a suppression file). Instead the order
 * comes from the accesses themselves. On x86-64 a release store and an acquire
 * load are plain MOVs, so this costs nothing there.
 *
 * Claim: if the reader sees s1 even and s2 == s1, every v[i] it read was
 * stored by the write W that ended with the store seq = s1.
 *
 *  (a) Nothing older than W. s1 was read by an acquire load from W's final
 *      release store, so it synchronises with it: every store of W (and of
 *      every earlier write) happens-before the reader's data loads. By
 *      write-read coherence a load cannot return a value that precedes, in
 *      the word's modification order, a store that happens-before the load.
 *
 *  (b) Nothing newer than W. Suppose load(word[i]) returned the value of a
 *      later write W'. That store is a release and the load an acquire, so
 *      they synchronise; W' made seq odd (seq = s1 + 1 or more) before that
 *      store in program order, so the odd store happens-before the reader's
 *      data load, which is sequenced before the s2 load. By write-read
 *      coherence again, s2 is the odd value or something later in seq's
 *      modification order. Seq only grows (one writer, and 64 bits never
 *      wrap in practice: 2^63 writes at one per nanosecond is 292 years), so
 *      s2 != s1 and the reader retries.
 *
 *  Ordering inside each thread: the writer's odd store cannot sink below the
 *  release stores after it (a release store orders every earlier access
 *  before it), and the reader's s2 load cannot rise above the acquire loads
 *  before it (an acquire load orders every later access after it). The
 *  writer's value seq = s1 is the only even value with that number, so a
 *  reader that read s1 and s2 equal saw one complete, unique write.
 *
 * The same argument covers any word the reader reads, so header words
 * (tick, time, publication number) live inside the protected block and are
 * validated with the data.
 */
#ifndef PCS_SNAPSHOT_SEQLOCK_H
#define PCS_SNAPSHOT_SEQLOCK_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#if ATOMIC_LLONG_LOCK_FREE != 2
#error "pcsim snapshots need lock-free 64-bit atomics"
#endif
typedef _Atomic uint64_t pcs_word;
_Static_assert(sizeof(pcs_word) == 8, "a data word is 8 bytes");

/** Writer: mark the block as being written. Returns the value to pass to end. */
static inline uint64_t pcs_seq_write_begin(pcs_word *seq)
{
    uint64_t s = atomic_load_explicit(seq, memory_order_relaxed); /* only we store it */
    atomic_store_explicit(seq, s + 1, memory_order_relaxed);
    return s + 2;
}

/** Writer: one data word. Release so the odd seq store happens-before it (b). */
static inline void pcs_word_put(pcs_word *w, uint64_t v)
{
    atomic_store_explicit(w, v, memory_order_release);
}

/** Writer: the block is complete and holds one write again. */
static inline void pcs_seq_write_end(pcs_word *seq, uint64_t end)
{
    atomic_store_explicit(seq, end, memory_order_release);
}

/** Reader: the sequence before reading; odd means "being written". */
static inline uint64_t pcs_seq_read_begin(const pcs_word *seq)
{
    return atomic_load_explicit(seq, memory_order_acquire);
}

/** Reader: one data word. Acquire so a newer write is seen by the check (b). */
static inline uint64_t pcs_word_get(const pcs_word *w)
{
    return atomic_load_explicit(w, memory_order_acquire);
}

/** Reader: true when the words read since @p s1 form one complete write. */
static inline int pcs_seq_read_ok(const pcs_word *seq, uint64_t s1)
{
    return (s1 & 1u) == 0 && atomic_load_explicit(seq, memory_order_relaxed) == s1;
}

static inline uint64_t pcs_f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static inline double pcs_bits_f64(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

#endif
