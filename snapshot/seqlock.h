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
 *
 * Bulk copy (issue 16). Word-by-word atomics are never vectorised, so a
 * 400-word copy costs ~1 word a cycle against memcpy's 16-64 bytes. On
 * x86-64 with gcc or clang the data words of a block are therefore copied by
 * pcs_words_put / pcs_words_get, whose x86-64 body (pcs_words_copy_sse2) is
 * an `asm volatile` loop of 16-byte SSE2 `movdqu` loads and stores with a
 * "memory" clobber. The sequence loads and stores stay the C11 atomics
 * above; only the data words move in bulk. Why that is still a seqlock:
 *
 *  (c) No C data race for the compiler to exploit. The asm is opaque: the C
 *      abstract machine sees one call of unknown effect that may read and
 *      write any memory, not plain accesses that race, so no optimisation
 *      may assume race freedom of these words (the same contract the Linux
 *      kernel's seqcount readers rely on). The clobber also makes it a
 *      compiler barrier: the odd seq store (relaxed) cannot sink below the
 *      writer's asm, the even seq store (release) cannot rise above it, the
 *      reader's s1 load (acquire) cannot sink below its asm, and the
 *      reader's s2 load, which the asm might have changed, cannot rise above
 *      it. The atomic accesses themselves compile to plain MOVs (above).
 *
 *  (d) The hardware keeps the order: x86-TSO (Intel SDM Vol. 3A §8.2.2;
 *      Owens, Sarkar, Sewell, "A better x86 memory model: x86-TSO", TPHOLs
 *      2009): loads are not reordered with older loads, stores not with
 *      older stores. So the writer's odd store reaches memory before any
 *      data store, the data stores before the even store; the reader's data
 *      loads happen after its s1 load and before its s2 load. That is (a)
 *      and (b) with every data access an acquire load / release store,
 *      which is what a plain x86 MOV is in the C11-to-x86 mapping (Batty,
 *      Owens, Sarkar, Sewell, Weber, "Mathematizing C++ Concurrency", POPL
 *      2011). A 16-byte movdqu is not one single-copy-atomic access (SDM
 *      §8.1.1: only aligned 8-byte accesses are); its two halves may come
 *      from different writes, in either order. The seqlock never needs more
 *      than the order of each 8-byte part against the sequence loads, which
 *      TSO gives; a torn pair is torn like any word of an overlapped copy
 *      and discarded by the check. verify/snapshot_pool.pml models the data
 *      copy in a nondeterministic word order for this reason.
 *
 *  (e) Not non-temporal stores, hence not memcpy: MOVNT* stores are weakly
 *      ordered (SDM §10.4.6.2) and without an SFENCE a data store could
 *      become visible before the odd seq store (or after the even one);
 *      glibc's memcpy switches to them for large copies, and a memcpy call is
 *      also a plain C access the compiler may assume race-free. `rep movs`
 *      would be sound but is not what this needs: its fast-string stores may
 *      be reordered only among themselves, and "string operations are not
 *      reordered with other store operations" (SDM §8.2.4.1, items 1-3), so
 *      the seq stores around it keep their order; the loop was chosen for
 *      speed on short blocks and for its fixed, inspectable instructions.
 *
 * The word-by-word atomic path stays, and is what pcs_words_put / get use
 * under ThreadSanitizer (which models C11 atomics, not asm: the asm copy
 * would be invisible to it, and the atomics keep TSan checking the
 * protocol, without suppressions), on other architectures (whose memory
 * models reorder plain loads, e.g. ARM and POWER) and with
 * -DPCS_SEQLOCK_ATOMIC_COPY (a test or a build can force it).
 * PCS_SEQLOCK_BULK says which one a build got. AddressSanitizer does not
 * check memory touched by asm, so an ASan build still copies in bulk but
 * cannot catch an overrun inside it; tests/test_snapshot_bulk.c checks the
 * bounds with canary words for every length 0..67 instead.
 *
 * Simplifications: 16-byte SSE2 moves only (SSE2 is baseline x86-64; AVX
 * would need a run-time CPU dispatch and was not done), and the bulk copy
 * is the x86-64 gcc/clang path only; other platforms keep the atomics.
 */
#ifndef PCS_SNAPSHOT_SEQLOCK_H
#define PCS_SNAPSHOT_SEQLOCK_H

#include <stdatomic.h>
#include <stddef.h>
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

/* Which copy this build uses (file comment, "Bulk copy"). */
#if defined(__SANITIZE_THREAD__)
#define PCS_SEQLOCK_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PCS_SEQLOCK_TSAN 1
#endif
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(PCS_SEQLOCK_TSAN) &&                      \
    !defined(PCS_SEQLOCK_ATOMIC_COPY)
#define PCS_SEQLOCK_BULK 1
#else
#define PCS_SEQLOCK_BULK 0
#endif

/** Writer, word by word: @p n words from @p src (any alignment, 8 bytes a
 * word, read with memcpy so a double array is fine) to @p dst, each a
 * release store (pcs_word_put). The portable and TSan path. */
static inline void pcs_words_put_atomic(pcs_word *dst, const void *src, size_t n)
{
    const unsigned char *s = src;
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, s + 8 * i, sizeof v);
        pcs_word_put(&dst[i], v);
    }
}

/** Reader, word by word: @p n words of @p src into @p dst (any alignment),
 * each an acquire load (pcs_word_get). The portable and TSan path. */
static inline void pcs_words_get_atomic(void *dst, const pcs_word *src, size_t n)
{
    unsigned char *d = dst;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = pcs_word_get(&src[i]);
        memcpy(d + 8 * i, &v, sizeof v);
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
/** @p n 8-byte words from @p src to @p dst through SSE2 registers: 64 bytes
 * a round (four movdqu loads, four stores), then 16-byte pairs, then one
 * 8-byte movq. Any alignment (movdqu; the words of a buffer are 8-aligned).
 * Never non-temporal stores (file comment (e)). Defined on every
 * x86-64 gcc/clang build so tests can compare it with the atomic path. */
static inline void pcs_words_copy_sse2(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t quads = n / 8, pairs = (n % 8) / 2, odd = n & 1u;
    __asm__ volatile("test %[q], %[q]\n\t"
                     "jz 2f\n"
                     "1:\n\t"
                     "movdqu (%[s]), %%xmm0\n\t"
                     "movdqu 16(%[s]), %%xmm1\n\t"
                     "movdqu 32(%[s]), %%xmm2\n\t"
                     "movdqu 48(%[s]), %%xmm3\n\t"
                     "movdqu %%xmm0, (%[d])\n\t"
                     "movdqu %%xmm1, 16(%[d])\n\t"
                     "movdqu %%xmm2, 32(%[d])\n\t"
                     "movdqu %%xmm3, 48(%[d])\n\t"
                     "add $64, %[s]\n\t"
                     "add $64, %[d]\n\t"
                     "dec %[q]\n\t"
                     "jnz 1b\n"
                     "2:\n\t"
                     "test %[p], %[p]\n\t"
                     "jz 4f\n"
                     "3:\n\t"
                     "movdqu (%[s]), %%xmm0\n\t"
                     "movdqu %%xmm0, (%[d])\n\t"
                     "add $16, %[s]\n\t"
                     "add $16, %[d]\n\t"
                     "dec %[p]\n\t"
                     "jnz 3b\n"
                     "4:\n\t"
                     "test %[o], %[o]\n\t"
                     "jz 5f\n\t"
                     "movq (%[s]), %%xmm0\n\t"
                     "movq %%xmm0, (%[d])\n"
                     "5:"
                     /* All in-out: a plain input could share a register with
                      * an output (gcc does that when the values are equal
                      * constants, e.g. pairs = odd = 1 for n = 67), and the
                      * loops write those registers before the odd word's test. */
                     : [s] "+r"(s), [d] "+r"(d), [q] "+r"(quads), [p] "+r"(pairs), [o] "+r"(odd)
                     :
                     : "xmm0", "xmm1", "xmm2", "xmm3", "cc", "memory");
}
#endif

/** Writer: @p n data words from @p src (8 bytes each, any alignment; a
 * double array or the writer's own uint64_t staging) into the block at
 * @p dst, between pcs_seq_write_begin and pcs_seq_write_end. Bulk on x86-64
 * (file comment (c)-(e)), atomic elsewhere; the same bits either way.
 * Writer thread only. */
static inline void pcs_words_put(pcs_word *dst, const void *src, size_t n)
{
#if PCS_SEQLOCK_BULK
    pcs_words_copy_sse2((void *)dst, src, n);
#else
    pcs_words_put_atomic(dst, src, n);
#endif
}

/** Reader: @p n data words of the block at @p src into @p dst (8 bytes
 * each, any alignment; reader-private memory), between pcs_seq_read_begin
 * and pcs_seq_read_ok. What it copied is meaningful only if the check
 * passes. Any thread. */
static inline void pcs_words_get(void *dst, const pcs_word *src, size_t n)
{
#if PCS_SEQLOCK_BULK
    pcs_words_copy_sse2(dst, (const void *)src, n);
#else
    pcs_words_get_atomic(dst, src, n);
#endif
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
