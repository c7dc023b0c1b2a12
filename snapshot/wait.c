/**
 * @file wait.c
 * @brief pcs_reader_wait: sleep until a newer publication, with a timeout and a rate limit.
 *
 * The protocol and the argument that no wake-up is lost are in wake.h. This
 * file adds the host-side policy: the deadline (the host's monotonic clock,
 * read through profile/clock.h), the per-reader rate limit, and counters.
 * None of it is seen by the writer beyond the waiter counts, so a reader's
 * timing cannot reach the world's state.
 */
#include <time.h>

#include "profile/clock.h"
#include "snapshot/pool.h"

/* The pool is shared mutable state for readers only through its atomic words
 * (the wait's counters); a reader holds it as const for everything else. */
static pcs_snapshot_pool *pool_of(pcs_reader *r)
{
    return (pcs_snapshot_pool *)r->pool;
}

static void sleep_ns(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    nanosleep(&ts, NULL);
}

/* The rate limit: sleep, unregistered (no wake is spent on this reader),
 * until the reader may return again or the deadline. 1 if it may return. */
static int rate_sleep(const pcs_reader *r, uint64_t deadline, uint64_t *now)
{
    uint64_t until = r->next_ok_ns < deadline ? r->next_ok_ns : deadline;
    while (*now < until) {
        sleep_ns(until - *now);
        *now = pcs_profile_now_ns();
    }
    return *now >= r->next_ok_ns;
}

static pcs_status wait_done(pcs_reader *r, uint64_t p, uint64_t now, uint64_t *published)
{
    r->stats.waits++;
    r->next_ok_ns = r->min_interval_ns ? now + r->min_interval_ns : 0;
    if (published)
        *published = p;
    return PCS_OK;
}

static pcs_status wait_timeout(pcs_reader *r, uint64_t after, uint64_t timeout_ns,
                               uint64_t *published)
{
    uint64_t p = atomic_load_explicit(&r->pool->published, memory_order_acquire);
    r->stats.wait_timeouts++;
    if (published)
        *published = p;
    return pcs_error_set(PCS_E_TIMEOUT,
                         "pcs_reader_wait: no publication after %llu within %llu ns (newest "
                         "%llu%s)",
                         (unsigned long long)after, (unsigned long long)timeout_ns,
                         (unsigned long long)p, p > after ? ", held back by the rate limit" : "");
}

/* One sleep in bucket @p b (wake.h, the waiter's column). */
static void sleep_once(pcs_reader *r, uint64_t after, uint32_t b, uint64_t deadline)
{
    pcs_snapshot_pool *pool = pool_of(r);
    uint32_t w = pcs_wake_register(&pool->wake, b);
    uint64_t p = atomic_load_explicit(&pool->published, memory_order_acquire);
    if (p > after) { /* published between the caller's check and registering */
        pcs_wake_unregister(&pool->wake, b);
        return;
    }
    pcs_wake_sleep(&pool->wake, w, b, deadline);
    r->stats.sleeps++;
    pcs_wake_unregister(&pool->wake, b);
    if (pcs_wake_pass_on(&pool->wake, b, w))
        atomic_fetch_add_explicit(&pool->pass_on_calls, 1, memory_order_relaxed);
}

pcs_status pcs_reader_wait(pcs_reader *r, uint64_t after_publication, uint64_t timeout_ns,
                           uint64_t *published)
{
    if (!r)
        return pcs_error_set(PCS_E_INVAL, "pcs_reader_wait: reader is NULL");
    uint64_t now = pcs_profile_now_ns();
    uint64_t deadline = timeout_ns >= UINT64_MAX - now ? UINT64_MAX : now + timeout_ns;
    if (r->next_ok_ns > now && !rate_sleep(r, deadline, &now))
        return wait_timeout(r, after_publication, timeout_ns, published);
    uint32_t b = pcs_wake_bucket(after_publication);
    for (;;) {
        uint64_t p = atomic_load_explicit(&r->pool->published, memory_order_acquire);
        if (p > after_publication)
            return wait_done(r, p, now, published);
        if (now >= deadline)
            return wait_timeout(r, after_publication, timeout_ns, published);
        sleep_once(r, after_publication, b, deadline);
        now = pcs_profile_now_ns();
    }
}

pcs_status pcs_reader_set_min_interval(pcs_reader *r, uint64_t interval_ns)
{
    if (!r)
        return pcs_error_set(PCS_E_INVAL, "pcs_reader_set_min_interval: reader is NULL");
    r->min_interval_ns = interval_ns;
    if (!interval_ns)
        r->next_ok_ns = 0;
    return PCS_OK;
}

pcs_status pcs_snapshot_stats_get(const pcs_snapshot_pool *pool, pcs_snapshot_stats *out)
{
    if (!pool || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_snapshot_stats_get: pool or out is NULL");
    pcs_snapshot_pool *p = (pcs_snapshot_pool *)pool;
    *out = (pcs_snapshot_stats){
        .publications = atomic_load_explicit(&p->published, memory_order_acquire),
        .wake_calls = atomic_load_explicit(&p->wake_calls, memory_order_relaxed),
        .pass_on_calls = atomic_load_explicit(&p->pass_on_calls, memory_order_relaxed),
        .layout_version = atomic_load_explicit(&p->cur_version, memory_order_relaxed),
        .layouts_freed = atomic_load_explicit(&p->layouts_freed, memory_order_relaxed),
        .layouts_pending =
            (uint32_t)atomic_load_explicit(&p->layouts_pending, memory_order_relaxed),
        .layouts_over = atomic_load_explicit(&p->layouts_over, memory_order_relaxed),
    };
    for (uint32_t b = 0; b < PCS_WAKE_BUCKETS; b++)
        out->waiters += atomic_load_explicit(&p->wake.waiters[b], memory_order_relaxed);
    return PCS_OK;
}
