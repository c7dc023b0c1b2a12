/**
 * @file seqlock_stress.c
 * @brief Stress tests of the seqlock's data copy (snapshot/seqlock.h) on its own words: the bulk
 * copy in a release build, the atomic one under ThreadSanitizer.
 *
 * Claim (seqlock.h, "Claim" and "Bulk copy"): a reader whose two sequence
 * loads are equal and even copied one complete write, whichever copy the
 * build uses for the data words. The snapshot.torn_read_* tests make the same
 * claim through the public API (whose publish and read now use the same
 * copies); this test drives the protocol directly, at the size that runs
 * every part of the SSE2 loop (SQ_WORDS = 67: eight 64-byte rounds, one
 * 16-byte pair, one odd word) and with nothing else in a round, so the
 * writer rewrites the block every ~30 ns and overlaps come often.
 *
 * The writer's generation g fills word 0 with g and word i with
 * g * 0x9e3779b97f4a7c15 + i; a copy that mixes two generations, or in which
 * a 16-byte pair's halves come from different writes, fails the check.
 *
 *   seqlock.bulk_copy          pcs_seq_read_begin, pcs_words_get,
 *                              pcs_seq_read_ok: never torn, never older.
 *   broken.seqlock_copy_late   the copy moved after the second sequence load
 *                              (the check then validates nothing): must be
 *                              caught torn (expect_fail). verify/
 *                              snapshot_pool.pml carries the same bug as
 *                              COPY_AFTER_CHECK.
 * Each reader also records which copy the build uses (one outcome per
 * round), so the table shows that a release run exercised the bulk path and
 * a TSan run the atomic one.
 */
#include <stdlib.h>

#include "snapshot/seqlock.h"
#include "stress/stress.h"

#define SQ_WORDS 67u
#define SQ_READERS 2u
#define SQ_K 0x9e3779b97f4a7c15ull
#define SQ_LATE_PAUSES 16u /* broken fixture: pauses between check and copy */

typedef struct sq_shared {
    _Alignas(64) pcs_word seq;
    _Alignas(64) pcs_word data[SQ_WORDS];
    _Alignas(64) uint64_t last_gen[SQ_READERS + 1]; /* reader actor a uses [a] */
} sq_shared;

enum {
    SQ_OK = 0,          /* one complete write, not older than the last */
    SQ_RETRY = 1,       /* odd or changed sequence: the reader retried */
    SQ_PATH_BULK = 2,   /* this build copies the data words in bulk */
    SQ_PATH_ATOMIC = 3, /* this build copies them word by word */
    SQ_TORN = 10,       /* validated, yet words of two generations */
    SQ_BACKWARDS = 11,  /* validated, older than this reader's last */
};

static const pcs_stress_outcome sq_outcomes[] = {
    {SQ_OK, PCS_STRESS_ACCEPTABLE, "consistent", "all words of one write"},
    {SQ_RETRY, PCS_STRESS_INTERESTING, "retried", "the writer overlapped the copy; it was refused"},
    {SQ_PATH_BULK, PCS_STRESS_ACCEPTABLE, "path: bulk (SSE2)",
     "rounds run with pcs_words_get's asm copy"},
    {SQ_PATH_ATOMIC, PCS_STRESS_ACCEPTABLE, "path: atomic",
     "rounds run with the word-by-word acquire loads (TSan, other platforms)"},
    {SQ_TORN, PCS_STRESS_FORBIDDEN, "TORN", "validated, yet words of two writes"},
    {SQ_BACKWARDS, PCS_STRESS_FORBIDDEN, "time went back", "older than the previous copy"},
};

static void *sq_setup(void)
{
    sq_shared *s = aligned_alloc(64, sizeof(sq_shared));
    if (!s)
        return NULL;
    atomic_init(&s->seq, 0);
    for (uint32_t i = 0; i < SQ_WORDS; i++)
        atomic_init(&s->data[i], i == 0 ? 0 : i);
    for (uint32_t a = 0; a <= SQ_READERS; a++)
        s->last_gen[a] = 0;
    return s;
}

static void sq_teardown(void *shared)
{
    free(shared);
}

/* Actor 0: writes generation 1, 2, ... as fast as it can. */
static void sq_writer(void *shared, pcs_stress_ctl *ctl)
{
    sq_shared *s = shared;
    uint64_t stage[SQ_WORDS];
    for (uint64_t g = 1; pcs_stress_running(ctl); g++) {
        stage[0] = g;
        for (uint32_t i = 1; i < SQ_WORDS; i++)
            stage[i] = g * SQ_K + i;
        uint64_t end = pcs_seq_write_begin(&s->seq);
        pcs_words_put(s->data, stage, SQ_WORDS);
        pcs_seq_write_end(&s->seq, end);
    }
}

/* Judge a validated copy for reader actor @p a. */
static int sq_judge(sq_shared *s, unsigned a, const uint64_t *v)
{
    uint64_t g = v[0];
    for (uint32_t i = 1; i < SQ_WORDS; i++)
        if (v[i] != g * SQ_K + i) /* g = 0: the initial words, i */
            return SQ_TORN;
    if (g < s->last_gen[a])
        return SQ_BACKWARDS;
    s->last_gen[a] = g;
    return SQ_OK;
}

/* One round: copy, then judge; @p late moves the copy after the check. */
static void sq_round(sq_shared *s, pcs_stress_ctl *ctl, int late)
{
    uint64_t v[SQ_WORDS];
    uint64_t s1 = pcs_seq_read_begin(&s->seq);
    int ok;
    if (late) { /* BROKEN ON PURPOSE: the check before the copy validates nothing */
        ok = pcs_seq_read_ok(&s->seq, s1);
        /* A reader delayed between check and copy (an interrupt, a
         * preemption: the delay the bug makes harmful). Without it the copy
         * starts in step with the writer's quiet phase that let s1 be even,
         * and overlaps a write only a few times a second. */
        for (uint32_t k = 0; k < SQ_LATE_PAUSES; k++)
            pcs_stress_pause();
        pcs_words_get(v, s->data, SQ_WORDS);
    } else {
        pcs_words_get(v, s->data, SQ_WORDS);
        ok = pcs_seq_read_ok(&s->seq, s1);
    }
    pcs_stress_record(ctl, ok ? sq_judge(s, ctl->actor, v) : SQ_RETRY);
    pcs_stress_record(ctl, PCS_SEQLOCK_BULK ? SQ_PATH_BULK : SQ_PATH_ATOMIC);
}

static void sq_reader(void *shared, pcs_stress_ctl *ctl)
{
    while (pcs_stress_running(ctl))
        sq_round(shared, ctl, 0);
}

static void sq_reader_late(void *shared, pcs_stress_ctl *ctl)
{
    while (pcs_stress_running(ctl))
        sq_round(shared, ctl, 1);
}

#define SQ_TEST(var, nm, reader_fn, broken, desc)                                                  \
    static const pcs_stress_test var = {                                                           \
        .name = nm,                                                                                \
        .description = desc,                                                                       \
        .style = PCS_STRESS_SOAK,                                                                  \
        .expect_fail = broken,                                                                     \
        .n_actors = 1 + SQ_READERS,                                                                \
        .actors = {sq_writer, reader_fn, reader_fn},                                               \
        .outcomes = sq_outcomes,                                                                   \
        .n_outcomes = sizeof sq_outcomes / sizeof sq_outcomes[0],                                  \
        .setup = sq_setup,                                                                         \
        .teardown = sq_teardown,                                                                   \
    };                                                                                             \
    PCS_STRESS_REGISTER(var)

SQ_TEST(sq_bulk, "seqlock.bulk_copy", sq_reader, 0,
        "67-word seqlock copies (bulk in release, atomic under TSan) racing a writer: never torn")
SQ_TEST(sq_late, "broken.seqlock_copy_late", sq_reader_late, 1,
        "BROKEN ON PURPOSE: the data copied after the second sequence load must be caught torn")
