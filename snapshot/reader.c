/**
 * @file reader.c
 * @brief Reader side of the snapshot pool: copy-out reads, zero-copy views, counters.
 *
 * Choosing the buffer. A reader targets publication
 *     target = max(published (acquire), last_pub)
 * and reads buffer (target - 1) % N. That buffer holds `target` or, if the
 * writer has lapped the reader, a newer publication; never an older one: the
 * acquire of `published` (or, for last_pub, this reader's own earlier
 * validated read of that buffer's seq) happens-after the write of `target`,
 * so by coherence the seq load sees that write's final value or a later one.
 * Every validated read therefore returns a publication >= last_pub, and
 * publications are written in tick order, so a reader's time never goes
 * backwards, even when a lap hands it a buffer newer than `published` shows.
 *
 * Layouts. Each read first enters the current layout L (hazard.c: the
 * reader announces L, so it is not freed under it) and reads L's buffer of
 * the target, where target is also at least L's first publication (written
 * before L became current, hazard.c (4)). Publications are numbered across
 * layouts, so L's buffer may hold an older publication than the target only
 * when the target was published in a newer layout: the reader then enters
 * again (the writer swaps `current` before it stores `published`, so the
 * reader's acquire of the target makes the new layout visible to it) and
 * counts a retry. Ids go through L's id -> slot map; an id retired in L is
 * an error naming the version that retired it, never another channel's
 * value (ids are never reused, so a live id is the same channel in every
 * layout). A successful read's values all come from one buffer of one
 * layout, so from one tick.
 *
 * The ordering argument for each individual read is in seqlock.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot/pool.h"

/* read_in's "try again": the writer interfered or the layout moved on. */
#define READ_AGAIN ((pcs_status)1)

pcs_status pcs_reader_open(const pcs_snapshot_pool *pool, pcs_reader **out)
{
    if (!pool || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_reader_open: pool or out is NULL");
    /* A cache line of its own, so readers on different cores never share one. */
    pcs_reader *r = aligned_alloc(64, (sizeof *r + 63u) & ~(size_t)63u);
    if (!r)
        return pcs_error_set(PCS_E_NOMEM, "pcs_reader_open: cannot allocate a reader");
    *r = (pcs_reader){.pool = pool, .haz = pcs_hazard_acquire(pool)};
    if (!r->haz) {
        free(r);
        return pcs_error_set(PCS_E_NOMEM, "pcs_reader_open: cannot allocate a hazard record");
    }
    r->event_cursor = atomic_load_explicit(&pool->event_head, memory_order_acquire);
    *out = r;
    return PCS_OK;
}

void pcs_reader_close(pcs_reader *r)
{
    if (r)
        pcs_hazard_release(r->haz);
    free(r);
}

/* The publication to read in layout @p L, 0 when nothing is published. */
static uint64_t target_pub(const pcs_reader *r, const pcs_layout *L)
{
    uint64_t p = atomic_load_explicit(&r->pool->published, memory_order_acquire);
    uint64_t t = p > r->last_pub ? p : r->last_pub;
    return t == 0 ? 0 : t > L->first_pub ? t : L->first_pub;
}

/* Record a validated read of publication @p pub made on @p tick in @p L. */
static void record_read(pcs_reader *r, uint64_t layout, uint64_t pub, uint64_t tick, uint64_t flags)
{
    uint64_t newest = atomic_load_explicit(&r->pool->newest_tick, memory_order_relaxed);
    uint64_t age = newest > tick ? newest - tick : 0;
    if (pub >= r->last_pub) { /* a view validated late must not pull it back */
        r->last_pub = pub;
        r->last_flags = flags;
        r->last_layout = layout;
    }
    r->stats.reads++;
    r->stats.last_tick = tick;
    r->stats.staleness = age;
    if (age > r->stats.max_staleness)
        r->stats.max_staleness = age;
}

/* Name the first id out of range or retired in @p L (error path only). */
static pcs_status bad_id(const pcs_layout *L, const uint32_t *ids, uint32_t n)
{
    uint32_t i = 0;
    for (; i < n; i++) {
        uint32_t id = ids ? ids[i] : i;
        if (id >= L->id_range)
            return pcs_error_set(PCS_E_NOTFOUND,
                                 "pcs_snapshot_read: ids[%u] = %u, but channel ids are [0, %u) "
                                 "(layout version %llu)",
                                 i, id, L->id_range, (unsigned long long)L->version);
        if (L->slot[id] == PCS_SLOT_RETIRED)
            return pcs_error_set(PCS_E_NOTFOUND,
                                 "pcs_snapshot_read: ids[%u] = %u: channel %u was retired at "
                                 "layout version %llu",
                                 i, id, id, (unsigned long long)L->retired_at[id]);
    }
    return pcs_error_set(PCS_E_NOTFOUND, "pcs_snapshot_read: %u channels asked for", n);
}

/* Nonzero if some id of the read is retired in @p L (ids in range). */
static int any_retired(const pcs_layout *L, const uint32_t *ids, uint32_t n)
{
    uint32_t bad = 0;
    for (uint32_t i = 0; i < n; i++)
        bad |= L->slot[ids ? ids[i] : i] == PCS_SLOT_RETIRED;
    return bad != 0;
}

/* GCC/clang vector extensions, four ids per step: GCC 12 does not vectorise
 * these loops at -O2 by itself, and a scalar pass would cost as much as the
 * copy of a small read. The id loops test `n - i >= step`, never
 * `i + step <= n`: n is the caller's uint32_t, and for n within a step of
 * 2^32 the sum wraps to a small number, so the loop would read past ids and
 * start over at i = 0, forever. */
typedef uint32_t pcs_v4u __attribute__((vector_size(16)));

/* Nonzero if ids[i] == ids[0] + i for every i (n >= 1): such a read is one
 * bulk copy. One xor and one or per four ids, no loop-carried chain longer
 * than the or (a min/max pass over the ids, which a span copy would need,
 * costs ~140 ns for 400 ids on SSE2, more than it saves: bench/README.md). */
static int consecutive(const uint32_t *ids, uint32_t n)
{
    uint32_t f = ids[0];
    if (ids[n - 1] != f + (n - 1))
        return 0; /* reversed, shuffled or scattered ids mostly end elsewhere */
    pcs_v4u want = {f, f + 1, f + 2, f + 3}, four = {4, 4, 4, 4}, eight = four + four;
    pcs_v4u d0 = {0, 0, 0, 0}, d1 = d0;
    uint32_t i = 0;
    for (; n - i >= 8; i += 8, want += eight) { /* eight ids a round: two chains */
        pcs_v4u a, b;
        memcpy(&a, ids + i, sizeof a);
        memcpy(&b, ids + i + 4, sizeof b);
        d0 |= a ^ want;
        d1 |= b ^ (want + four);
    }
    d0 |= d1;
    uint32_t d = d0[0] | d0[1] | d0[2] | d0[3];
    for (; i < n; i++)
        d |= ids[i] ^ (f + i);
    return d == 0;
}

/* Nonzero if any id is >= @p lim. */
static uint32_t any_out_of_range(const uint32_t *ids, uint32_t n, uint32_t lim)
{
    pcs_v4u acc = {0, 0, 0, 0};
    pcs_v4u vlim = {lim, lim, lim, lim};
    uint32_t i = 0;
    for (; n - i >= 4; i += 4) {
        pcs_v4u v;
        memcpy(&v, ids + i, sizeof v);
        acc |= (pcs_v4u)(v >= vlim);
    }
    uint32_t bad = acc[0] | acc[1] | acc[2] | acc[3];
    for (; i < n; i++)
        bad |= ids[i] >= lim;
    return bad;
}

/* Can @p L serve this read? Range first (for consecutive ids, @p run, one
 * compare), then, when L has retired ids, each id's slot. */
static int ids_ok(const pcs_layout *L, const uint32_t *ids, uint32_t n, int run)
{
    if (!ids)
        return n <= L->id_range && (L->identity || !any_retired(L, ids, n));
    if (run ? n && (uint64_t)ids[0] + n > L->id_range : any_out_of_range(ids, n, L->id_range))
        return 0;
    return L->identity || !any_retired(L, ids, n);
}

/* Copy words[ids[i]] as doubles, four at a time: the path for scattered ids. Acquire loads are
 * plain MOVs on x86-64 but are never vectorised, so unrolling is what keeps both load ports busy.
 */
static void get_ids(const pcs_word *words, const uint32_t *restrict ids, uint32_t n,
                    double *restrict out)
{
    uint32_t i = 0;
    for (; n - i >= 4; i += 4) {
        uint32_t k0 = ids[i], k1 = ids[i + 1], k2 = ids[i + 2], k3 = ids[i + 3];
        uint64_t a = pcs_word_get(&words[k0]), b = pcs_word_get(&words[k1]);
        uint64_t c = pcs_word_get(&words[k2]), d = pcs_word_get(&words[k3]);
        out[i] = pcs_bits_f64(a);
        out[i + 1] = pcs_bits_f64(b);
        out[i + 2] = pcs_bits_f64(c);
        out[i + 3] = pcs_bits_f64(d);
    }
    for (; i < n; i++)
        out[i] = pcs_bits_f64(pcs_word_get(&words[ids[i]]));
}

/* Copy through the id -> slot map of a layout with retired ids (ids checked live). */
static void get_slots(const pcs_word *words, const uint32_t *slot, const uint32_t *ids, uint32_t n,
                      double *restrict out)
{
    for (uint32_t i = 0; i < n; i++)
        out[i] = pcs_bits_f64(pcs_word_get(&words[slot[ids ? ids[i] : i]]));
}

/* One attempt at @p L's buffer of publication @p target (ids already
 * checked): 1 if the copy is consistent and not older than the target, 0 if
 * the writer interfered or the target lives in a newer layout. @p run: the
 * ids are consecutive (or NULL), so the copy is one bulk copy
 * (seqlock.h pcs_words_get); scattered ids go word by word. A span copy
 * (the ids' whole slot range copied in bulk into reader scratch, then
 * gathered) was measured and dropped: on x86-64 the word-by-word gather is
 * already plain MOVs, so the span copy only adds a pass (bench/README.md). */
static int try_read(const pcs_layout *L, uint64_t target, const uint32_t *ids, uint32_t n, int run,
                    double *out, uint64_t *hdr)
{
    const pcs_word *buf = pcs_layout_buffer(L, target);
    uint64_t s1 = pcs_seq_read_begin(&buf[PCS_HDR_SEQ]);
    if (s1 & 1u)
        return 0;
    hdr[0] = pcs_word_get(&buf[PCS_HDR_PUB]);
    hdr[1] = pcs_word_get(&buf[PCS_HDR_TICK]);
    hdr[2] = pcs_word_get(&buf[PCS_HDR_FLAGS]);
    const pcs_word *words = buf + PCS_HDR_WORDS;
    if (!L->identity)
        get_slots(words, L->slot, ids, n, out);
    else if (run)
        pcs_words_get(out, words + (ids && n ? ids[0] : 0), n);
    else
        get_ids(words, ids, n, out);
    return pcs_seq_read_ok(&buf[PCS_HDR_SEQ], s1) && hdr[0] >= target;
}

/* One read inside layout @p L; the caller entered it and leaves it. */
static pcs_status read_in(pcs_reader *r, const pcs_layout *L, const uint32_t *ids, uint32_t n,
                          double *out, uint64_t *tick)
{
    int run = !ids || n == 0 || consecutive(ids, n);
    if (!ids_ok(L, ids, n, run))
        return bad_id(L, ids, n);
    uint64_t target = target_pub(r, L);
    if (target == 0)
        return pcs_error_set(PCS_E_STATE, "pcs_snapshot_read: nothing published yet (the "
                                          "world has not ticked)");
    uint64_t hdr[3]; /* publication, tick, flags */
    if (!try_read(L, target, ids, n, run, out, hdr))
        return READ_AGAIN;
    record_read(r, L->version, hdr[0], hdr[1], hdr[2]);
    if (tick)
        *tick = hdr[1];
    return PCS_OK;
}

pcs_status pcs_snapshot_read(pcs_reader *r, const uint32_t *ids, uint32_t n, double *out,
                             uint64_t *tick)
{
    if (!r || (n && !out))
        return pcs_error_set(PCS_E_INVAL, "pcs_snapshot_read: reader is NULL, or out is NULL "
                                          "with n > 0");
    for (uint32_t attempt = 0; attempt < PCS_SNAPSHOT_RETRY_LIMIT; attempt++) {
        const pcs_layout *L = pcs_hazard_enter(r->pool, r->haz, PCS_HAZ_READ);
        pcs_status st = read_in(r, L, ids, n, out, tick);
        pcs_hazard_leave(r->haz, PCS_HAZ_READ);
        if (st != READ_AGAIN)
            return st;
        r->stats.retries++;
    }
    return pcs_error_set(PCS_E_RATE,
                         "pcs_snapshot_read: lapped by the writer %u times in a row; the "
                         "reader is too slow for %u buffers",
                         PCS_SNAPSHOT_RETRY_LIMIT, r->pool->n_buffers);
}

/* One attempt at a view of @p L: 1 when begun, 0 to try again. */
static int view_try(pcs_reader *r, const pcs_layout *L, uint64_t target, pcs_view *v)
{
    const pcs_word *buf = pcs_layout_buffer(L, target);
    uint64_t s1 = pcs_seq_read_begin(&buf[PCS_HDR_SEQ]);
    if (s1 & 1u)
        return 0;
    /* Header words are validated with the data by pcs_view_validate; a
     * publication older than the target means a newer layout holds it. */
    uint64_t pub = pcs_word_get(&buf[PCS_HDR_PUB]);
    if (pub < target)
        return 0;
    *v = (pcs_view){
        .tick = pcs_word_get(&buf[PCS_HDR_TICK]),
        .time_s = pcs_bits_f64(pcs_word_get(&buf[PCS_HDR_TIME])),
        .n_channels = L->id_range,
        .layout_version = L->version,
        .paused = (pcs_word_get(&buf[PCS_HDR_FLAGS]) & PCS_HDR_FLAG_PAUSED) != 0,
        .reader_ = r,
        .layout_ = L,
        .buf_ = buf,
        .seq_ = s1,
        .pub_ = pub,
    };
    return 1;
}

pcs_status pcs_view_begin(pcs_reader *r, pcs_view *v)
{
    if (!r || !v)
        return pcs_error_set(PCS_E_INVAL, "pcs_view_begin: reader or view is NULL");
    *v = (pcs_view){.reader_ = r};
    for (uint32_t attempt = 0; attempt < PCS_SNAPSHOT_RETRY_LIMIT; attempt++) {
        /* The view's slot stays announced until pcs_view_validate. */
        const pcs_layout *L = pcs_hazard_enter(r->pool, r->haz, PCS_HAZ_VIEW);
        uint64_t target = target_pub(r, L);
        if (target == 0) {
            pcs_hazard_leave(r->haz, PCS_HAZ_VIEW);
            return pcs_error_set(PCS_E_STATE, "pcs_view_begin: nothing published yet (the "
                                              "world has not ticked)");
        }
        if (view_try(r, L, target, v))
            return PCS_OK;
        r->stats.retries++;
    }
    pcs_hazard_leave(r->haz, PCS_HAZ_VIEW);
    return pcs_error_set(PCS_E_RATE,
                         "pcs_view_begin: the buffer was being written on %u "
                         "attempts in a row",
                         PCS_SNAPSHOT_RETRY_LIMIT);
}

double pcs_view_f64(const pcs_view *v, uint32_t id)
{
    if (!v || !v->buf_ || id >= v->n_channels)
        return NAN;
    const pcs_layout *L = v->layout_;
    uint32_t slot = L->identity ? id : L->slot[id];
    if (slot == PCS_SLOT_RETIRED)
        return NAN;
    const pcs_word *words = (const pcs_word *)v->buf_ + PCS_HDR_WORDS;
    return pcs_bits_f64(pcs_word_get(&words[slot]));
}

uint32_t pcs_view_u32(const pcs_view *v, uint32_t id)
{
    double d = pcs_view_f64(v, id);
    /* The range test also rejects NaN; a torn view may hold any bits. */
    if (!(d >= 0.0 && d < 4294967296.0))
        return 0;
    return (uint32_t)d;
}

pcs_status pcs_view_validate(pcs_view *v)
{
    if (!v || !v->buf_ || !v->reader_)
        return pcs_error_set(PCS_E_INVAL, "pcs_view_validate: view is NULL or was not begun");
    pcs_reader *r = v->reader_;
    int ok = pcs_seq_read_ok((const pcs_word *)v->buf_ + PCS_HDR_SEQ, v->seq_);
    /* The view's values are read; its layout may go (hazard.c (2)). */
    pcs_hazard_leave(r->haz, PCS_HAZ_VIEW);
    if (!ok) {
        r->stats.retries++;
        return pcs_error_set(PCS_E_CORRUPT,
                             "pcs_view_validate: the writer rewrote the buffer of tick %llu "
                             "during the view; discard its values and begin again",
                             (unsigned long long)v->tick);
    }
    record_read(r, v->layout_version, v->pub_, v->tick, v->paused ? PCS_HDR_FLAG_PAUSED : 0u);
    return PCS_OK;
}

uint64_t pcs_reader_layout_version(const pcs_reader *r)
{
    return r ? r->last_layout : 0;
}

int pcs_reader_paused(const pcs_reader *r)
{
    return r && (r->last_flags & PCS_HDR_FLAG_PAUSED) != 0;
}

pcs_status pcs_reader_stats_get(const pcs_reader *r, pcs_reader_stats *out)
{
    if (!r || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_reader_stats_get: reader or out is NULL");
    *out = r->stats;
    return PCS_OK;
}
