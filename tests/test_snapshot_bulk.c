/**
 * @file test_snapshot_bulk.c
 * @brief The seqlock's bulk copy of data words (issue 16): the SSE2 path against the atomic one,
 * and pcs_snapshot_read's copy choices (range, span, scattered ids) against hand-computed values.
 *
 * Part 1 drives snapshot/seqlock.h directly: pcs_words_get / pcs_words_put
 * (the bulk copy in a release or ASan build on x86-64) and the word-by-word
 * atomic copies must move the same bits for every length 0..67 words (the
 * 64-byte loop, the 16-byte pairs and the odd word in every combination), at
 * word offsets 0..3 (16-byte aligned and not) on the shared side and a
 * byte-misaligned private side, and must not touch a word outside the range.
 *
 * Part 2 builds a world whose values are known per tick:
 *   ids 0..599    F64, store A element i:  1000 * tick + i + 0.25
 *   ids 600..749  U32, store B element k:  7 * tick + 3 * k (exact doubles;
 *                 150 words cross the publisher's 64-word U32 staging block)
 *   ids 750..754  F64, store C element 4 - j (registered in reverse, so five
 *                 one-channel gather runs): 2000 * tick - 10 * (4 - j)
 * and reads it by every kind of id list reader.c distinguishes: NULL and
 * consecutive ids (one bulk copy), from offsets that are not 16-byte
 * aligned, and ids that are not consecutive (word by word): reversed,
 * shuffled with repeats, duplicates, 300 ids over 512 and 513 words (the
 * limits of the span copy that was measured and dropped), a run whose last
 * id is right but whose middle is not, and ids over the whole range.
 *
 * Part 3 reads UINT32_MAX ids (a 16 GiB array mapped from one 2 MiB memfd):
 * the read must end, refused, naming the bad id (about 16 s here, release
 * build only; left out of ASan and TSan builds).
 */
#include <criterion/criterion.h>
#include <sys/mman.h>
#include <unistd.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/pcsim.h"
#include "snapshot/seqlock.h"

/* ---- part 1: seqlock.h copies ------------------------------------------ */

#define BK_MAX 67u
#define BK_PAD 4u
#define BK_CANARY 0xdeadbeefcafef00dull

/* Word i of the pattern: different in both halves for every i and seed. */
static uint64_t bk_word(uint32_t i, uint32_t seed)
{
    return ((uint64_t)(i * 2654435761u + seed) << 32) | (i ^ (seed * 40503u));
}

/* Read @p n words at word offset @p off of a shared block into a private
 * buffer at byte offset @p boff, by @p bulk (pcs_words_get) or not. */
static void bk_get_case(uint32_t n, uint32_t off, uint32_t boff)
{
    pcs_word shared[BK_MAX + 2 * BK_PAD];
    for (uint32_t i = 0; i < BK_MAX + 2 * BK_PAD; i++)
        atomic_init(&shared[i], bk_word(i, n));
    unsigned char got[8 * (BK_MAX + 2) + 8], ref[8 * (BK_MAX + 2) + 8];
    memset(got, 0xa5, sizeof got);
    memset(ref, 0xa5, sizeof ref);
    pcs_words_get(got + boff, shared + off, n);
    pcs_words_get_atomic(ref + boff, shared + off, n);
    cr_assert(memcmp(got, ref, sizeof got) == 0,
              "pcs_words_get of %u words at word %u into byte %u differs from the atomic copy", n,
              off, boff);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, got + boff + 8 * i, sizeof v);
        cr_assert_eq(v, bk_word(off + i, n), "n %u off %u: word %u", n, off, i);
    }
    for (uint32_t b = 0; b < boff; b++)
        cr_assert_eq(got[b], 0xa5, "n %u: byte %u before the copy was written", n, b);
    for (size_t b = boff + 8u * n; b < sizeof got; b++)
        cr_assert_eq(got[b], 0xa5, "n %u: byte %zu after the copy was written", n, b);
}

/* Write @p n words from a private buffer at byte offset @p boff into a
 * shared block at word offset @p off; the words around stay the canary. */
static void bk_put_case(uint32_t n, uint32_t off, uint32_t boff)
{
    unsigned char src[8 * (BK_MAX + 2) + 8];
    for (uint32_t i = 0; i < BK_MAX + 1; i++) {
        uint64_t v = bk_word(i, 7 * n + off);
        memcpy(src + boff + 8 * i, &v, sizeof v);
    }
    pcs_word a[BK_MAX + 2 * BK_PAD], b[BK_MAX + 2 * BK_PAD];
    for (uint32_t i = 0; i < BK_MAX + 2 * BK_PAD; i++) {
        atomic_init(&a[i], BK_CANARY);
        atomic_init(&b[i], BK_CANARY);
    }
    pcs_words_put(a + off, src + boff, n);
    pcs_words_put_atomic(b + off, src + boff, n);
    for (uint32_t i = 0; i < BK_MAX + 2 * BK_PAD; i++) {
        uint64_t want = i >= off && i < off + n ? bk_word(i - off, 7 * n + off) : BK_CANARY;
        cr_assert_eq(atomic_load(&a[i]), want, "put n %u off %u byte %u: word %u", n, off, boff, i);
        cr_assert_eq(atomic_load(&b[i]), want, "atomic put n %u off %u: word %u", n, off, i);
    }
}

/* Every length, shared offset and private misalignment, both directions. */
Test(snapshot_bulk, copies_equal_the_atomic_path_at_every_size_and_offset)
{
    for (uint32_t n = 0; n <= BK_MAX; n++)
        for (uint32_t off = 0; off < BK_PAD; off++)
            for (uint32_t boff = 0; boff <= 8; boff += 3) { /* 0, 3, 6: misaligned too */
                bk_get_case(n, off, boff);
                bk_put_case(n, off, boff);
            }
}

/* Lengths known at compile time: the copy is inlined and gcc may give two
 * operands holding equal constants one register (n = 67: one pair and one
 * odd word), which once skipped the odd word (found by the stress test
 * seqlock.bulk_copy; seqlock.h keeps every asm operand in-out since). */
#define BK_CONST(n)                                                                                \
    do {                                                                                           \
        uint64_t got[BK_MAX + 1];                                                                  \
        for (uint32_t i = 0; i <= BK_MAX; i++)                                                     \
            got[i] = BK_CANARY;                                                                    \
        pcs_words_get(got, shared, (n));                                                           \
        for (uint32_t i = 0; i <= BK_MAX; i++)                                                     \
            cr_assert_eq(got[i], i < (n) ? bk_word(i, 1) : BK_CANARY, "n %u: word %u", (n), i);    \
        pcs_words_put(put, got, (n));                                                              \
        for (uint32_t i = 0; i < (n); i++)                                                         \
            cr_assert_eq(atomic_load(&put[i]), bk_word(i, 1), "put n %u: word %u", (n), i);        \
    } while (0)

Test(snapshot_bulk, constant_lengths_copy_every_word)
{
    pcs_word shared[BK_MAX + 1], put[BK_MAX + 1];
    for (uint32_t i = 0; i <= BK_MAX; i++) {
        atomic_init(&shared[i], bk_word(i, 1));
        atomic_init(&put[i], 0);
    }
    BK_CONST(1u);
    BK_CONST(2u);
    BK_CONST(3u);
    BK_CONST(9u);
    BK_CONST(11u);
    BK_CONST(67u);
}

/* The dispatch: an x86-64 gcc/clang build without TSan copies in bulk; a
 * TSan build must use the atomics TSan understands (seqlock.h). A build that
 * silently fell back would still pass the copies above, so say which. */
Test(snapshot_bulk, build_uses_the_copy_the_platform_allows)
{
#if defined(PCS_SEQLOCK_TSAN) || defined(PCS_SEQLOCK_ATOMIC_COPY) || !defined(__x86_64__)
    cr_assert_eq(PCS_SEQLOCK_BULK, 0);
#else
    cr_assert_eq(PCS_SEQLOCK_BULK, 1);
#endif
}

/* ---- part 2: pcs_snapshot_read's copy choices --------------------------- */

#define BW_F64 600u
#define BW_U32 150u
#define BW_REV 5u
#define BW_N (BW_F64 + BW_U32 + BW_REV)

typedef struct bulkfix {
    pcs_world *w;
    pcs_snapshot_pool *pool;
    pcs_reader *r;
    uint32_t a, b, c;
} bulkfix;

static double bw_value(uint64_t tick, uint32_t id)
{
    if (id < BW_F64)
        return 1000.0 * (double)tick + id + 0.25;
    if (id < BW_F64 + BW_U32)
        return (double)(uint32_t)(7 * tick + 3 * (id - BW_F64));
    return 2000.0 * (double)tick - 10.0 * (double)(4 - (id - BW_F64 - BW_U32));
}

static pcs_status bw_sensors(pcs_world *w, void *ctx)
{
    bulkfix *fx = ctx;
    uint64_t tick = pcs_world_clock(w)->tick;
    double *a = pcs_store_data(w, fx->a), *c = pcs_store_data(w, fx->c);
    uint32_t *b = pcs_store_data(w, fx->b);
    for (uint32_t i = 0; i < BW_F64; i++)
        a[i] = 1000.0 * (double)tick + i + 0.25;
    for (uint32_t k = 0; k < BW_U32; k++)
        b[k] = (uint32_t)(7 * tick + 3 * k);
    for (uint32_t e = 0; e < BW_REV; e++)
        c[e] = 2000.0 * (double)tick - 10.0 * e;
    return PCS_OK;
}

static void bw_register(bulkfix *fx, const char *prefix, uint32_t store, uint32_t elem,
                        pcs_channel_kind kind)
{
    char name[32];
    snprintf(name, sizeof name, "%s%u", prefix, elem);
    cr_assert_eq(pcs_channel_register(fx->w, name, "", kind, store, elem, NULL), PCS_OK);
}

static void bw_build(bulkfix *fx)
{
    pcs_world_def cfg;
    cr_assert_eq(pcs_world_default(&cfg), PCS_OK);
    cr_assert_eq(pcs_world_create(&cfg, &fx->w), PCS_OK);
    cr_assert_eq(pcs_store_register(fx->w, "bw.a", 8, BW_F64, PCS_STORE_STATE, &fx->a), PCS_OK);
    cr_assert_eq(pcs_store_register(fx->w, "bw.b", 4, BW_U32, PCS_STORE_STATE, &fx->b), PCS_OK);
    cr_assert_eq(pcs_store_register(fx->w, "bw.c", 8, BW_REV, PCS_STORE_STATE, &fx->c), PCS_OK);
    for (uint32_t i = 0; i < BW_F64; i++)
        bw_register(fx, "bw.a", fx->a, i, PCS_CHANNEL_F64);
    for (uint32_t k = 0; k < BW_U32; k++)
        bw_register(fx, "bw.b", fx->b, k, PCS_CHANNEL_U32);
    for (uint32_t j = 0; j < BW_REV; j++)
        bw_register(fx, "bw.c", fx->c, BW_REV - 1 - j, PCS_CHANNEL_F64);
    uint32_t writes[3] = {fx->a, fx->b, fx->c};
    pcs_system_desc d = {.name = "bw.sensors",
                         .stage = PCS_STAGE_SENSORS,
                         .fn = bw_sensors,
                         .ctx = fx,
                         .writes = writes,
                         .n_writes = 3};
    cr_assert_eq(pcs_system_register(fx->w, &d, NULL), PCS_OK);
    cr_assert_eq(pcs_snapshot_attach(fx->w, NULL, &fx->pool), PCS_OK);
    cr_assert_eq(pcs_reader_open(fx->pool, &fx->r), PCS_OK);
    for (int t = 0; t < 3; t++) /* tick 2 is the newest: every buffer written once */
        cr_assert_eq(pcs_world_tick(fx->w), PCS_OK);
}

/* Read @p ids (or the first n when NULL) and compare with tick 2's values. */
static void bw_expect(bulkfix *fx, const char *what, const uint32_t *ids, uint32_t n)
{
    static double out[BW_N + 8];
    for (uint32_t i = 0; i < BW_N + 8; i++)
        out[i] = -1.0;
    uint64_t tick = 99;
    cr_assert_eq(pcs_snapshot_read(fx->r, ids, n, out, &tick), PCS_OK, "%s: %s", what,
                 pcs_last_error());
    cr_assert_eq(tick, 2u, "%s", what);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id = ids ? ids[i] : i;
        cr_assert_eq(out[i], bw_value(2, id), "%s: out[%u] (id %u) = %.17g, want %.17g", what, i,
                     id, out[i], bw_value(2, id));
    }
    cr_assert_eq(out[n], -1.0, "%s: wrote past out[%u]", what, n);
}

/* Whole range, prefixes of odd lengths, and consecutive runs from offsets
 * that are not 16-byte aligned in the buffer. */
static void bw_ranges(bulkfix *fx)
{
    static uint32_t ids[BW_N];
    bw_expect(fx, "NULL ids, all", NULL, BW_N);
    for (uint32_t n = 0; n <= 67; n++)
        bw_expect(fx, "NULL ids, prefix", NULL, n);
    for (uint32_t first = 0; first < 4; first++)
        for (uint32_t n = 1; n <= 67; n += 11) {
            for (uint32_t i = 0; i < n; i++)
                ids[i] = 590 + first + i; /* across the F64 -> U32 boundary at 600 */
            bw_expect(fx, "consecutive from an offset", ids, n);
        }
}

/* Ids that are not consecutive: reversed, shuffled, duplicated, spread. */
static void bw_scattered(bulkfix *fx)
{
    static uint32_t ids[BW_N];
    for (uint32_t n = 1; n <= 67; n++) {
        for (uint32_t i = 0; i < n; i++)
            ids[i] =
                680 + n - 1 - i; /* reversed, across the U32 -> reversed-store boundary at 750 */
        bw_expect(fx, "reversed", ids, n);
        for (uint32_t i = 0; i < n; i++)
            ids[i] = 580 + (i * 37u) % n; /* a permutation of 580 .. 580 + n - 1 */
        bw_expect(fx, "shuffled", ids, n);
    }
    for (uint32_t i = 0; i < 40; i++)
        ids[i] = 745 + i % 10; /* duplicates, the reversed store's channels included */
    bw_expect(fx, "duplicates", ids, 40);
    for (uint32_t w = 512; w <= 513; w++) { /* 300 ids spanning w words */
        for (uint32_t i = 0; i < 300; i++)
            ids[i] = 100 + (i == 0 ? w - 1 : i == 1 ? 0 : (i * 7u) % (w - 1));
        bw_expect(fx, w == 512 ? "span of 512 words" : "span of 513 words", ids, 300);
    }
    for (uint32_t i = 0; i < 50; i++)
        ids[i] = (i * 389u) % BW_N; /* 50 ids over 755 words */
    bw_expect(fx, "scattered", ids, 50);
    for (uint32_t n = 3; n <= 67; n++) /* first and last as a run has them, one id between not */
        for (uint32_t bad = 1; bad + 1 < n; bad += 5) {
            for (uint32_t i = 0; i < n; i++)
                ids[i] = 10 + i;
            ids[bad] = 700;
            bw_expect(fx, "a broken run", ids, n);
        }
}

/* Ids that wrap around 2^32 look consecutive to the arithmetic (ids[0] + i
 * mod 2^32) and must still be refused, naming the first bad id; so must a
 * consecutive run that ends one past the last channel. */
static void bw_refusals(bulkfix *fx)
{
    double out[4];
    uint32_t wrap[3] = {UINT32_MAX, 0, 1};
    cr_assert_eq(pcs_snapshot_read(fx->r, wrap, 3, out, NULL), PCS_E_NOTFOUND);
    cr_assert(strstr(pcs_last_error(), "ids[0] = 4294967295") &&
                  strstr(pcs_last_error(), "[0, 755)"),
              "%s", pcs_last_error());
    uint32_t past[3] = {BW_N - 2, BW_N - 1, BW_N};
    cr_assert_eq(pcs_snapshot_read(fx->r, past, 3, out, NULL), PCS_E_NOTFOUND);
    cr_assert(strstr(pcs_last_error(), "ids[2] = 755"), "%s", pcs_last_error());
    cr_assert_eq(pcs_snapshot_read(fx->r, NULL, BW_N + 1, out, NULL), PCS_E_NOTFOUND);
}

/* One process for all groups (the world build is the cost). */
Test(snapshot_bulk, reads_return_each_ids_value_for_every_copy_kind)
{
    bulkfix fx = {0};
    bw_build(&fx);
    bw_ranges(&fx);
    bw_scattered(&fx);
    bw_refusals(&fx);
    pcs_reader_close(fx.r);
    pcs_world_destroy(fx.w);
}

/* ---- part 3: a read of UINT32_MAX ids ---------------------------------- */

/* The id loops of reader.c step 4 or 8 ids at a time; written as
 * `i + 8 <= n`, n = UINT32_MAX made i + 8 wrap to 0 at i = 2^32 - 8, so the
 * loop read past ids and started over, forever (found in the session-13
 * review). A caller cannot be stopped from asking: n is any uint32_t, and
 * ids may repeat, so n > the channel count is legal. The ids array is
 * 16 GiB: the same 2 MiB memfd mapped 8192 times over one reservation
 * (about 0.7 s to map here; no memory beyond the 2 MiB and the page
 * tables). Its pattern repeats every 2^19 ids, chosen so the read goes
 * through both loops whole: ids[0] = 2 and ids[n - 1] = ids[524286] = 0 =
 * 2 + (n - 1) mod 2^32, so consecutive() cannot rule the run out by its
 * ends and scans every id; ids[1] = UINT32_MAX breaks the run, so
 * any_out_of_range() scans every id too and the read is refused naming
 * ids[1], with nothing copied (out is one double: nothing may be written). */
/* 16 GiB of loads: instrumented builds would take minutes, so ASan and TSan
 * builds leave the test out. No Criterion .timeout: with one in flight,
 * Criterion 2.4.1's runner leaks 48 bytes and the ASan run fails on it
 * (Makefile, "unit"); a hang here is bounded by the suite's `timeout 900`. */
#if !defined(PCS_SEQLOCK_TSAN) && !defined(__SANITIZE_ADDRESS__)
#define BW_BLOCK ((size_t)2 << 20)
#define BW_HUGE_BYTES ((size_t)16 << 30)

static const uint32_t *bw_huge_ids(int *fd)
{
    *fd = memfd_create("bw-ids", 0);
    cr_assert(*fd >= 0 && ftruncate(*fd, (off_t)BW_BLOCK) == 0, "memfd: %s", strerror(errno));
    uint32_t *pattern = mmap(NULL, BW_BLOCK, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
    cr_assert(pattern != MAP_FAILED);
    pattern[0] = 2;
    pattern[1] = UINT32_MAX;
    pattern[(UINT32_MAX - 1u) % (BW_BLOCK / 4)] = 0;
    munmap(pattern, BW_BLOCK);
    unsigned char *base =
        mmap(NULL, BW_HUGE_BYTES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    cr_assert(base != MAP_FAILED, "cannot reserve 16 GiB of address space: %s", strerror(errno));
    for (size_t off = 0; off < BW_HUGE_BYTES; off += BW_BLOCK)
        cr_assert(mmap(base + off, BW_BLOCK, PROT_READ, MAP_SHARED | MAP_FIXED | MAP_POPULATE, *fd,
                       0) != MAP_FAILED);
    return (const uint32_t *)base;
}

Test(snapshot_bulk, a_read_of_uint32_max_ids_ends_and_names_the_bad_id)
{
    bulkfix fx = {0};
    bw_build(&fx);
    int fd;
    const uint32_t *ids = bw_huge_ids(&fd);
    cr_assert_eq(ids[UINT32_MAX - 1u], ids[0] + (UINT32_MAX - 1u), "the run's ends agree");
    double out = -1.0;
    cr_assert_eq(pcs_snapshot_read(fx.r, ids, UINT32_MAX, &out, NULL), PCS_E_NOTFOUND);
    cr_assert(strstr(pcs_last_error(), "ids[1] = 4294967295, but channel ids are [0, 755)"), "%s",
              pcs_last_error());
    cr_assert_eq(out, -1.0, "a refused read copied nothing");
    munmap((void *)ids, BW_HUGE_BYTES);
    close(fd);
    pcs_reader_close(fx.r);
    pcs_world_destroy(fx.w);
}
#endif /* not ASan, not TSan */
