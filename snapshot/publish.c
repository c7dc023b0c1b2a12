/**
 * @file publish.c
 * @brief Stage 12: copy every channel's live value into the next buffer, then publish it.
 *
 * The gather list is compiled once at attach into runs of channels whose
 * sources are consecutive elements of one store, so the per-tick work is a
 * few plain loops of loads and release stores (plain MOVs on x86-64): no
 * lookups, no branches per channel, no allocation. The writer never looks at
 * readers; a reader still on the buffer being overwritten notices through the
 * seqlock and retries (seqlock.h has the ordering argument).
 */
#include "pcsim/system.h"
#include "snapshot/pool.h"

/* Does channel @p c continue @p run (same store and kind, next element)? */
static int extends(const pcs_gather_run *run, const pcs_channel_info *c, const void *src)
{
    size_t elem = run->kind == PCS_CHANNEL_F64 ? sizeof(double) : sizeof(uint32_t);
    return c->kind == run->kind && (const char *)src == (const char *)run->src + run->len * elem;
}

pcs_status pcs_publish_prepare(pcs_snapshot_pool *pool)
{
    /* At most one run per channel; usually far fewer. */
    pool->runs = pcs_world_alloc(pool->world, (pool->n_channels + 1u) * sizeof *pool->runs);
    if (!pool->runs)
        return PCS_E_NOMEM;
    pool->n_runs = 0;
    for (uint32_t i = 0; i < pool->n_channels; i++) {
        const pcs_channel_info *c = &pool->channels[i];
        size_t elem = c->kind == PCS_CHANNEL_F64 ? sizeof(double) : sizeof(uint32_t);
        const char *base = pcs_store_data(pool->world, c->store);
        if (!base)
            return PCS_E_NOTFOUND;
        const void *src = base + (size_t)c->index * elem;
        pcs_gather_run *last = pool->n_runs ? &pool->runs[pool->n_runs - 1] : NULL;
        if (last && extends(last, c, src)) {
            last->len++;
            continue;
        }
        pool->runs[pool->n_runs++] =
            (pcs_gather_run){.src = src, .dst = i, .len = 1, .kind = c->kind};
    }
    return PCS_OK;
}

static void gather(const pcs_snapshot_pool *pool, pcs_word *words)
{
    for (uint32_t r = 0; r < pool->n_runs; r++) {
        const pcs_gather_run *run = &pool->runs[r];
        pcs_word *dst = words + run->dst;
        if (run->kind == PCS_CHANNEL_F64) {
            const double *src = run->src;
            for (uint32_t i = 0; i < run->len; i++)
                pcs_word_put(&dst[i], pcs_f64_bits(src[i]));
        } else {
            const uint32_t *src = run->src;
            for (uint32_t i = 0; i < run->len; i++)
                pcs_word_put(&dst[i], pcs_f64_bits((double)src[i]));
        }
    }
}

pcs_status pcs_publish_system(pcs_world *w, void *ctx)
{
    pcs_snapshot_pool *pool = ctx;
    uint32_t now = pcs_channel_count(w);
    if (now != pool->n_channels)
        return pcs_error_set(PCS_E_STATE,
                             "pcs.snapshot.publish: %u channels are registered but the pool was "
                             "attached with %u; call pcs_snapshot_attach after the last "
                             "pcs_channel_register",
                             now, pool->n_channels);
    uint64_t tick = pcs_world_clock(w)->tick;
    uint64_t pub = pool->n_published + 1;
    pcs_word *buf = pcs_pool_buffer(pool, pub);
    uint64_t end = pcs_seq_write_begin(&buf[PCS_HDR_SEQ]);
    pcs_word_put(&buf[PCS_HDR_PUB], pub);
    pcs_word_put(&buf[PCS_HDR_TICK], tick);
    pcs_word_put(&buf[PCS_HDR_TIME], pcs_f64_bits((double)(tick + 1) * pool->dt_s));
    pcs_word_put(&buf[PCS_HDR_LAYOUT], pool->layout_version);
    pcs_word_put(&buf[PCS_HDR_COUNT], pool->n_channels);
    gather(pool, buf + PCS_HDR_WORDS);
    pcs_seq_write_end(&buf[PCS_HDR_SEQ], end);
    /* newest_tick is only a hint for staleness; `published` carries the
     * release that makes the whole buffer visible to a reader that acquires it. */
    atomic_store_explicit(&pool->newest_tick, tick, memory_order_relaxed);
    atomic_store_explicit(&pool->published, pub, memory_order_release);
    pool->n_published = pub;
    return PCS_OK;
}
