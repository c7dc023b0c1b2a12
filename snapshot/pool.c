/**
 * @file pool.c
 * @brief Attaching a snapshot pool to a world (sizing, first layout, systems); pool-level queries.
 *
 * Everything the writer and the readers need is allocated here, at build
 * time, so a tick never allocates, except the tick of a structural change
 * that changes the channel set, which builds a new layout (relayout.c).
 * Readers only ever see immutable fields or atomic words (pool.h has the
 * memory map), and a layout only while they announce it (hazard.c); the
 * pool-level queries below borrow a hazard record for that.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/structure.h"
#include "pcsim/system.h"
#include "snapshot/pool.h"

static pcs_status resolve_options(const pcs_world *w, const pcs_snapshot_options *opt,
                                  uint32_t *buffers, uint32_t *capacity)
{
    static const char fn[] = "pcs_snapshot_attach";
    *buffers = (opt && opt->buffers) ? opt->buffers : pcs_world_def_get(w)->snapshot_buffers;
    *capacity = (opt && opt->event_log_capacity) ? opt->event_log_capacity : PCS_EVENT_LOG_DEFAULT;
    if (*buffers < PCS_SNAPSHOT_BUFFERS_MIN || *buffers > PCS_SNAPSHOT_BUFFERS_MAX)
        return pcs_error_set(PCS_E_INVAL,
                             "%s: buffers = %u is outside [%u, %u] (a reader needs one buffer "
                             "being written, one published and one to fall back on)",
                             fn, *buffers, PCS_SNAPSHOT_BUFFERS_MIN, PCS_SNAPSHOT_BUFFERS_MAX);
    uint32_t c = *capacity;
    if (c < PCS_EVENT_LOG_MIN || c > PCS_EVENT_LOG_MAX || (c & (c - 1)) != 0)
        return pcs_error_set(PCS_E_INVAL,
                             "%s: event_log_capacity = %u must be a power of two in [%u, %u]", fn,
                             c, PCS_EVENT_LOG_MIN, PCS_EVENT_LOG_MAX);
    return PCS_OK;
}

/* Free the layouts and hazard records with the world. A record an open
 * reader still owns is left to pcs_reader_close (hazard.c). */
static void pool_destroy(void *ctx)
{
    pcs_snapshot_pool *pool = ctx;
    pcs_layout *lists[] = {pool->retired, pool->quarantined};
    for (size_t i = 0; i < 2; i++)
        for (pcs_layout *L = lists[i], *next; L; L = next) {
            next = L->next_retired;
            pcs_layout_free(L);
        }
    pcs_layout_free(pool->cur);
    pcs_hazard_destroy_all(pool);
}

/* The first layout: every registered channel, the world's layout version. */
static pcs_status first_layout(pcs_snapshot_pool *pool)
{
    pcs_layout *L;
    pcs_status st = pcs_layout_build(pool, NULL, NULL, pcs_channel_count(pool->world),
                                     pcs_world_layout_version(pool->world), &L);
    if (st != PCS_OK)
        return st;
    L->first_pub = 1;
    pool->cur = L;
    pool->known_channels = L->id_range;
    atomic_init(&pool->current, L);
    atomic_init(&pool->hazards, NULL);
    atomic_init(&pool->cur_range, L->id_range);
    atomic_init(&pool->cur_hash, L->hash);
    atomic_init(&pool->cur_version, L->version);
    atomic_init(&pool->layouts_freed, 0);
    atomic_init(&pool->layouts_pending, 0);
    atomic_init(&pool->layouts_over, 0);
    st = pcs_world_on_destroy(pool->world, pool_destroy, pool);
    if (st != PCS_OK)
        pcs_layout_free(L);
    return st;
}

static pcs_status alloc_rings(pcs_snapshot_pool *pool)
{
    pool->events = pcs_world_alloc(pool->world,
                                   (size_t)pool->event_capacity * PCS_EVW_WORDS * sizeof(pcs_word));
    if (!pool->events)
        return PCS_E_NOMEM;
    /* The heap hands out zeroed memory; atomic_init states that it is the
     * words' initial value. Readers start after attach returns (see header). */
    for (size_t i = 0; i < (size_t)pool->event_capacity * PCS_EVW_WORDS; i++)
        atomic_init(&pool->events[i], 0);
    atomic_init(&pool->published, 0);
    atomic_init(&pool->newest_tick, 0);
    atomic_init(&pool->event_head, 0);
    atomic_init(&pool->wake.word, 0);
    for (uint32_t b = 0; b < PCS_WAKE_BUCKETS; b++) {
        atomic_init(&pool->wake.waiters[b], 0);
        atomic_init(&pool->wake.passed[b], 0);
    }
    atomic_init(&pool->wake_calls, 0);
    atomic_init(&pool->pass_on_calls, 0);
    return PCS_OK;
}

/* Most channel stores the publish system declares (snapshot.h): past this
 * it declares none, as before issue 16 lifted the engine's 32-entry access
 * lists, so the schedule and its access checks stay what they were. */
#define POOL_DECLARED_STORES_MAX 32u

/* The distinct stores the channels come from, if they fit in the declaration. */
static uint32_t channel_stores(const pcs_snapshot_pool *pool, uint32_t *stores)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < pool->cur->id_range; i++) {
        uint32_t s = pool->cur->channels[i].store;
        uint32_t k = 0;
        while (k < n && stores[k] != s)
            k++;
        if (k < n)
            continue;
        if (n == POOL_DECLARED_STORES_MAX)
            return 0; /* too many to declare: declare none (see snapshot.h) */
        stores[n++] = s;
    }
    return n;
}

/* One of the pool's systems: last in its stage (priority INT32_MAX), on the pool. */
static pcs_status pool_system(pcs_snapshot_pool *pool, const char *name, pcs_stage stage,
                              pcs_system_fn fn, const uint32_t *reads, uint32_t n_reads)
{
    pcs_system_desc d = {
        .name = name,
        .stage = stage,
        .priority = INT32_MAX,
        .fn = fn,
        .ctx = pool,
        .reads = reads,
        .n_reads = n_reads,
    };
    return pcs_system_register(pool->world, &d, NULL);
}

static pcs_status register_systems(pcs_snapshot_pool *pool)
{
    uint32_t stores[POOL_DECLARED_STORES_MAX];
    uint32_t n_stores = channel_stores(pool, stores);
    pcs_status st = pool_system(pool, "pcs.snapshot.publish", PCS_STAGE_PUBLISH, pcs_publish_system,
                                n_stores ? stores : NULL, n_stores);
    if (st != PCS_OK)
        return st;
    st = pool_system(pool, "pcs.snapshot.events", PCS_STAGE_EVENTS, pcs_eventlog_system, NULL, 0);
    if (st != PCS_OK)
        return st;
    /* No tick runs while paused: pause and resume republish (publish.c). */
    st = pcs_world_on_run_state(pool->world, pcs_publish_run_state, pool);
    if (st != PCS_OK)
        return st;
    /* A structural commit that changed the channel set relayouts the pool. */
    return pcs_structure_observe(pool->world, pcs_snapshot_structure_changed, pool);
}

pcs_status pcs_snapshot_attach(pcs_world *w, const pcs_snapshot_options *opt,
                               pcs_snapshot_pool **out)
{
    if (!w || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_snapshot_attach: world or out is NULL");
    if (pcs_world_sealed(w))
        return pcs_error_set(PCS_E_STATE, "pcs_snapshot_attach: the world is sealed (it has "
                                          "ticked); attach during the build phase");
    uint32_t buffers, capacity;
    pcs_status st = resolve_options(w, opt, &buffers, &capacity);
    if (st != PCS_OK)
        return st;
    pcs_snapshot_pool *pool = pcs_world_alloc(w, sizeof *pool);
    if (!pool)
        return PCS_E_NOMEM;
    pool->world = w;
    pool->n_buffers = buffers;
    pool->event_capacity = capacity;
    pool->dt_s = pcs_world_clock(w)->dt_s;
    /* The build steps in order; the first failure ends the attach. */
    static pcs_status (*const steps[])(pcs_snapshot_pool *) = {alloc_rings, first_layout,
                                                               register_systems};
    for (size_t i = 0; st == PCS_OK && i < sizeof steps / sizeof steps[0]; i++)
        st = steps[i](pool);
    if (st != PCS_OK)
        return st; /* the partial pool stays in the world heap until destroy */
    *out = pool;
    pcs_error_clear();
    return PCS_OK;
}

uint32_t pcs_snapshot_buffers(const pcs_snapshot_pool *pool)
{
    return pool ? pool->n_buffers : 0;
}

uint32_t pcs_snapshot_channel_count(const pcs_snapshot_pool *pool)
{
    return pool ? (uint32_t)atomic_load_explicit(&pool->cur_range, memory_order_relaxed) : 0;
}

uint64_t pcs_snapshot_layout_version(const pcs_snapshot_pool *pool)
{
    return pool ? atomic_load_explicit(&pool->cur_hash, memory_order_relaxed) : 0;
}

uint64_t pcs_snapshot_published(const pcs_snapshot_pool *pool)
{
    return pool ? atomic_load_explicit(&pool->published, memory_order_acquire) : 0;
}

pcs_status pcs_channel_list(const pcs_snapshot_pool *pool, uint32_t first, pcs_channel_info *out,
                            uint32_t max, uint32_t *count)
{
    if (!pool || !count || (max && !out))
        return pcs_error_set(PCS_E_INVAL, "pcs_channel_list: NULL pool, count or out");
    pcs_hazard *h = pcs_hazard_acquire(pool);
    if (!h)
        return pcs_error_set(PCS_E_NOMEM, "pcs_channel_list: cannot allocate a hazard record");
    const pcs_layout *L = pcs_hazard_enter(pool, h, PCS_HAZ_READ);
    uint32_t n = 0;
    while (n < max && first < L->id_range && n < L->id_range - first) {
        out[n] = L->channels[first + n];
        n++;
    }
    pcs_hazard_leave(h, PCS_HAZ_READ);
    pcs_hazard_release(h);
    *count = n;
    return PCS_OK;
}

pcs_status pcs_snapshot_find(const pcs_snapshot_pool *pool, const char *name, uint32_t *id)
{
    if (!pool || !name || !id)
        return pcs_error_set(PCS_E_INVAL, "pcs_snapshot_find: NULL pool, name or id");
    /* The current layout's own name index (layout.c), not the world's: the
     * world's registry changes at structural commits on the world's thread,
     * while this may run on any thread. */
    pcs_hazard *h = pcs_hazard_acquire(pool);
    if (!h)
        return pcs_error_set(PCS_E_NOMEM, "pcs_snapshot_find: cannot allocate a hazard record");
    const pcs_layout *L = pcs_hazard_enter(pool, h, PCS_HAZ_READ);
    uint32_t found = pcs_layout_find(L, name);
    uint32_t n_live = L->n_live;
    uint64_t version = L->version;
    pcs_hazard_leave(h, PCS_HAZ_READ);
    pcs_hazard_release(h);
    if (found != UINT32_MAX) {
        *id = found;
        return PCS_OK;
    }
    return pcs_error_set(PCS_E_NOTFOUND,
                         "pcs_snapshot_find: no live channel named '%s' among the pool's %u "
                         "(layout version %llu)",
                         name, n_live, (unsigned long long)version);
}
