/**
 * @file publish.c
 * @brief Stage 12: copy every channel's live value into the next buffer, then publish it.
 *
 * The gather list is compiled once at attach into runs of channels whose
 * sources are consecutive elements of one store, so the per-tick work is one
 * bulk copy per run (seqlock.h pcs_words_put: SSE2 on x86-64, release stores
 * elsewhere and under TSan; U32 runs go through a 64-word stack staging
 * block that converts them to doubles first): no lookups, no branches per
 * channel, no allocation. The alternative the issue suggests, gathering
 * every run into one private staging array and copying that once, was not
 * measured: it moves every byte twice, and on the benchmark's world (one
 * run) the two are the same copy; it could only pay on layouts of many short
 * runs, whose per-run call overhead it would trade for the second pass.
 *
 * The writer never waits for readers; a reader still on the buffer being
 * overwritten notices through the seqlock and retries (seqlock.h has the
 * ordering argument). The one thing it looks at is whether a reader sleeps
 * in pcs_reader_wait for this publication: then it makes one wake call for
 * one thread (wake.h), and none otherwise.
 *
 * Pause. While the world is paused no tick runs, so stage 12 publishes
 * nothing, yet readers must learn that the values stopped on purpose. Each
 * change of the run state (pcs_world_on_run_state) therefore republishes the
 * newest buffer: the same tick, time and values, the next publication number,
 * and the header's flags word saying paused or not. It is an ordinary
 * publication through the same seqlock write and the same `published`
 * release (so verify/snapshot_pool.pml, which models one writer publishing
 * buffers in turn, covers it unchanged): the writer is still the world's
 * thread, which is the only thread allowed to pause or resume. Readers wake
 * for it like for a tick (a waiting UI sees the pause at once); tick order is
 * kept, since the tick repeats and never goes back. Before the first tick
 * there is nothing to republish; the first publication then carries the flag.
 * A tick run while paused (pcs_world_step_once) publishes with the flag set.
 */
#include "pcsim/system.h"
#include "snapshot/pool.h"

/* Does channel @p c continue @p run (same store and kind, next element)? */
static int extends(const pcs_gather_run *run, const pcs_channel_info *c, const void *src)
{
    size_t elem = run->kind == PCS_CHANNEL_F64 ? sizeof(double) : sizeof(uint32_t);
    return c->kind == run->kind && (const char *)src == (const char *)run->src + run->len * elem;
}

pcs_status pcs_publish_prepare(pcs_snapshot_pool *pool, pcs_layout *L, pcs_gather_run *runs)
{
    /* At most one run per live channel; usually far fewer. Slots follow the
     * ids of the live channels in order, so runs never cross a retired id. */
    L->n_runs = 0;
    for (uint32_t id = 0; id < L->id_range; id++) {
        if (L->slot[id] == PCS_SLOT_RETIRED)
            continue;
        const pcs_channel_info *c = &L->channels[id];
        size_t elem = c->kind == PCS_CHANNEL_F64 ? sizeof(double) : sizeof(uint32_t);
        const char *base = pcs_store_data(pool->world, c->store);
        if (!base)
            return pcs_error_set(PCS_E_NOTFOUND,
                                 "snapshot layout: channel %u '%s' names store %u, "
                                 "which has no data",
                                 id, c->name, c->store);
        const void *src = base + (size_t)c->index * elem;
        pcs_gather_run *last = L->n_runs ? &runs[L->n_runs - 1] : NULL;
        if (last && last->dst + last->len == L->slot[id] && extends(last, c, src)) {
            last->len++;
            continue;
        }
        runs[L->n_runs++] =
            (pcs_gather_run){.src = src, .dst = L->slot[id], .len = 1, .kind = c->kind};
    }
    return PCS_OK;
}

/* U32 channels are published as exact doubles: converted into a private
 * staging block of PCS_U32_STAGE words (plain C, vectorised), each block then
 * copied like a double run. */
enum { PCS_U32_STAGE = 64 };

static void put_u32(pcs_word *dst, const uint32_t *restrict src, uint32_t len)
{
    double stage[PCS_U32_STAGE];
    for (uint32_t at = 0, k; at < len; at += k) { /* at + k <= len: never wraps */
        k = len - at < PCS_U32_STAGE ? len - at : PCS_U32_STAGE;
        for (uint32_t i = 0; i < k; i++)
            stage[i] = (double)src[at + i];
        pcs_words_put(dst + at, stage, k);
    }
}

static void gather(const pcs_layout *L, pcs_word *words)
{
    const pcs_gather_run *runs = L->runs;
    uint32_t n_runs = L->n_runs;
    for (uint32_t r = 0; r < n_runs; r++) {
        pcs_gather_run run = runs[r];    /* a local copy: the stores cannot alias it */
        if (run.kind == PCS_CHANNEL_F64) /* the store's doubles are the words' bits */
            pcs_words_put(words + run.dst, run.src, run.len);
        else
            put_u32(words + run.dst, run.src, run.len);
    }
}

/* After the buffer of publication @p pub is complete: make it the newest,
 * wake a waiting reader, count it. */
static void announce(pcs_snapshot_pool *pool, uint64_t pub, uint64_t tick)
{
    /* newest_tick is only a hint for staleness; `published` carries the
     * release that makes the whole buffer visible to a reader that acquires it. */
    atomic_store_explicit(&pool->newest_tick, tick, memory_order_relaxed);
    atomic_store_explicit(&pool->published, pub, memory_order_release);
    if (pcs_wake_publish(&pool->wake, pub)) /* after `published`: wake.h */
        atomic_store_explicit(&pool->wake_calls, ++pool->n_wake_calls, memory_order_relaxed);
    pool->n_published = pub;
    pool->last_tick = tick;
}

void pcs_publish_run_state(void *ctx, int paused)
{
    pcs_snapshot_pool *pool = ctx;
    if (pool->n_published == 0)
        return; /* nothing to show yet; the first tick's publication has the flag */
    const pcs_layout *L = pool->cur; /* the newest publication is always in it */
    const pcs_word *src = pcs_layout_buffer(L, pool->n_published);
    uint64_t pub = pool->n_published + 1;
    pcs_word *buf = pcs_layout_buffer(L, pub);
    /* Only this thread writes buffers, so its relaxed loads of the source see
     * the values it stored last (program order), never a torn buffer. */
    uint64_t tick = atomic_load_explicit(&src[PCS_HDR_TICK], memory_order_relaxed);
    uint64_t end = pcs_seq_write_begin(&buf[PCS_HDR_SEQ]);
    pcs_word_put(&buf[PCS_HDR_PUB], pub);
    for (size_t i = PCS_HDR_TICK; i < PCS_HDR_WORDS + L->n_live; i++)
        if (i != PCS_HDR_FLAGS)
            pcs_word_put(&buf[i], atomic_load_explicit(&src[i], memory_order_relaxed));
    pcs_word_put(&buf[PCS_HDR_FLAGS], paused ? PCS_HDR_FLAG_PAUSED : 0u);
    pcs_seq_write_end(&buf[PCS_HDR_SEQ], end);
    announce(pool, pub, tick);
}

/* Write publication @p pub of @p tick into its buffer of @p L (seqlock.h). */
static void write_buffer(pcs_snapshot_pool *pool, const pcs_layout *L, uint64_t pub, uint64_t tick,
                         int paused)
{
    pcs_word *buf = pcs_layout_buffer(L, pub);
    uint64_t end = pcs_seq_write_begin(&buf[PCS_HDR_SEQ]);
    pcs_word_put(&buf[PCS_HDR_PUB], pub);
    pcs_word_put(&buf[PCS_HDR_TICK], tick);
    pcs_word_put(&buf[PCS_HDR_TIME], pcs_f64_bits((double)(tick + 1) * pool->dt_s));
    pcs_word_put(&buf[PCS_HDR_LAYOUT], L->version);
    pcs_word_put(&buf[PCS_HDR_COUNT], L->id_range);
    pcs_word_put(&buf[PCS_HDR_FLAGS], paused ? PCS_HDR_FLAG_PAUSED : 0u);
    gather(L, buf + PCS_HDR_WORDS);
    pcs_seq_write_end(&buf[PCS_HDR_SEQ], end);
}

void pcs_publish_layout(pcs_snapshot_pool *pool, pcs_layout *L)
{
    /* The first publication of a new layout, before it becomes current
     * (relayout.c): the tick of the newest publication (the tick whose
     * structural commit made the layout), its values as the commit left
     * them. Before the first tick there is nothing to show. */
    L->first_pub = pool->n_published + 1;
    if (pool->n_published == 0)
        return;
    write_buffer(pool, L, L->first_pub, pool->last_tick, pcs_world_paused(pool->world));
}

void pcs_publish_announce_layout(pcs_snapshot_pool *pool, const pcs_layout *L)
{
    if (pool->n_published == 0)
        return;
    announce(pool, L->first_pub, pool->last_tick);
}

pcs_status pcs_publish_system(pcs_world *w, void *ctx)
{
    pcs_snapshot_pool *pool = ctx;
    const pcs_layout *L = pool->cur;
    /* A channel registered outside a structural commit (after attach, in the
     * build) would never be published: say so rather than hide it. */
    uint32_t now = pcs_channel_count(w);
    if (now != pool->known_channels)
        return pcs_error_set(PCS_E_STATE,
                             "pcs.snapshot.publish: %u channels are registered but the pool was "
                             "attached with %u (layout version %llu); call pcs_snapshot_attach "
                             "after the last pcs_channel_register of the build",
                             now, pool->known_channels, (unsigned long long)L->version);
    uint64_t tick = pcs_world_clock(w)->tick;
    uint64_t pub = pool->n_published + 1;
    write_buffer(pool, L, pub, tick, pcs_world_paused(w));
    announce(pool, pub, tick);
    if (pool->retired) /* a retired layout a reader was still in (hazard.c) */
        pcs_layout_reclaim(pool);
    return PCS_OK;
}
