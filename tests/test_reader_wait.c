/**
 * @file test_reader_wait.c
 * @brief pcs_reader_wait: returns at once, times out, is woken by a publish, obeys the rate limit,
 *        and stage 12 makes at most one wake call per publication (none without waiters).
 *
 * The world ticks on the test thread (every tick publishes once, so the
 * publication number is the tick count); waiters run on pthreads. Times are
 * wall time on a shared, busy machine: lower bounds are exact (a timeout or
 * a rate limit never returns early), upper bounds are loose.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "pcsim/pcsim.h"

#define MS 1000000ull

typedef struct wfix {
    pcs_world *w;
    pcs_snapshot_pool *pool;
} wfix;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void nap_ns(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    nanosleep(&ts, NULL);
}

static void wfix_make(wfix *fx)
{
    pcs_world_def cfg;
    cr_assert_eq(pcs_world_default(&cfg), PCS_OK);
    cr_assert_eq(pcs_world_create(&cfg, &fx->w), PCS_OK);
    uint32_t store;
    cr_assert_eq(pcs_store_register(fx->w, "wt.x", 8, 1, PCS_STORE_STATE, &store), PCS_OK);
    cr_assert_eq(pcs_channel_register(fx->w, "wt.x", "", PCS_CHANNEL_F64, store, 0, NULL), PCS_OK);
    cr_assert_eq(pcs_snapshot_attach(fx->w, NULL, &fx->pool), PCS_OK);
}

static void ticks(wfix *fx, int n)
{
    for (int i = 0; i < n; i++)
        cr_assert_eq(pcs_world_tick(fx->w), PCS_OK);
}

static pcs_snapshot_stats pool_stats(const wfix *fx)
{
    pcs_snapshot_stats s;
    cr_assert_eq(pcs_snapshot_stats_get(fx->pool, &s), PCS_OK);
    return s;
}

/* Poll until @p n readers sleep in pcs_reader_wait (registered), at most 20 s. */
static void await_waiters(const wfix *fx, uint32_t n)
{
    uint64_t t0 = now_ns();
    while (pool_stats(fx).waiters < n) {
        cr_assert_lt(now_ns() - t0, 20000 * MS, "only %u of %u waiters registered after 20 s",
                     pool_stats(fx).waiters, n);
        nap_ns(MS);
    }
}

Test(reader_wait, returns_at_once_when_newer_exists)
{
    wfix fx;
    wfix_make(&fx);
    ticks(&fx, 3);
    pcs_reader *r;
    cr_assert_eq(pcs_reader_open(fx.pool, &r), PCS_OK);
    uint64_t p = 0, t0 = now_ns();
    cr_assert_eq(pcs_reader_wait(r, 2, PCS_WAIT_FOREVER, &p), PCS_OK);
    cr_assert_eq(p, 3);
    cr_assert_eq(pcs_reader_wait(r, 0, 0, &p), PCS_OK, "timeout 0 is a check, and 3 > 0");
    cr_assert_eq(p, 3);
    cr_assert_lt(now_ns() - t0, 1000 * MS);
    pcs_reader_stats st;
    pcs_reader_stats_get(r, &st);
    cr_assert_eq(st.waits, 2);
    cr_assert_eq(st.sleeps, 0, "nothing to sleep for");
    cr_assert_eq(pool_stats(&fx).wake_calls, 0);
    pcs_reader_close(r);
    pcs_world_destroy(fx.w);
}

Test(reader_wait, times_out_with_timeout_status)
{
    wfix fx;
    wfix_make(&fx);
    ticks(&fx, 1);
    pcs_reader *r;
    cr_assert_eq(pcs_reader_open(fx.pool, &r), PCS_OK);
    uint64_t p = 99, t0 = now_ns();
    cr_assert_eq(pcs_reader_wait(r, 1, 20 * MS, &p), PCS_E_TIMEOUT);
    uint64_t took = now_ns() - t0;
    cr_assert_geq(took, 20 * MS, "returned after %llu ns, before its 20 ms",
                  (unsigned long long)took);
    cr_assert_lt(took, 5000 * MS);
    cr_assert_eq(p, 1, "published is reported on a timeout too");
    cr_assert(strstr(pcs_last_error(), "no publication after 1 within 20000000 ns (newest 1"), "%s",
              pcs_last_error());
    cr_assert_eq(pcs_reader_wait(r, 1, 0, &p), PCS_E_TIMEOUT, "timeout 0 never sleeps");
    cr_assert_eq(pcs_reader_wait(r, 7, 0, NULL), PCS_E_TIMEOUT, "published may be NULL");
    pcs_reader_stats st;
    pcs_reader_stats_get(r, &st);
    cr_assert_eq(st.wait_timeouts, 3);
    cr_assert_eq(st.waits, 0);
    cr_assert_geq(st.sleeps, 1);
    cr_assert_eq(pool_stats(&fx).waiters, 0, "a timed-out waiter unregisters");
    cr_assert_str_eq(pcs_status_str(PCS_E_TIMEOUT), "PCS_E_TIMEOUT");
    pcs_reader_close(r);
    pcs_world_destroy(fx.w);
}

Test(reader_wait, null_arguments)
{
    uint64_t p;
    cr_assert_eq(pcs_reader_wait(NULL, 0, 0, &p), PCS_E_INVAL);
    cr_assert_eq(pcs_reader_set_min_interval(NULL, 1), PCS_E_INVAL);
    pcs_snapshot_stats s;
    cr_assert_eq(pcs_snapshot_stats_get(NULL, &s), PCS_E_INVAL);
    wfix fx;
    wfix_make(&fx);
    cr_assert_eq(pcs_snapshot_stats_get(fx.pool, NULL), PCS_E_INVAL);
    pcs_world_destroy(fx.w);
}

typedef struct waiter {
    wfix *fx;
    uint64_t after;     /* first wait: a publication > after */
    uint64_t until;     /* keep waiting (after = newest seen) until this publication */
    uint64_t timeout;   /* per call */
    pcs_status status;  /* of the last call */
    uint64_t published; /* newest seen */
    uint64_t took_ns;   /* wall time of the whole loop */
    pcs_reader_stats stats;
} waiter;

static void *waiter_main(void *arg)
{
    waiter *a = arg;
    pcs_reader *r;
    if (pcs_reader_open(a->fx->pool, &r) != PCS_OK) {
        a->status = PCS_E_NOMEM;
        return NULL;
    }
    uint64_t t0 = now_ns(), after = a->after;
    do {
        a->status = pcs_reader_wait(r, after, a->timeout, &a->published);
        after = a->published;
    } while (a->status == PCS_OK && a->published < a->until);
    a->took_ns = now_ns() - t0;
    pcs_reader_stats_get(r, &a->stats);
    pcs_reader_close(r);
    return NULL;
}

Test(reader_wait, woken_by_a_publish)
{
    wfix fx;
    wfix_make(&fx);
    ticks(&fx, 1);
    waiter a = {.fx = &fx, .after = 1, .until = 2, .timeout = 30000 * MS};
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, waiter_main, &a), 0);
    await_waiters(&fx, 1);
    ticks(&fx, 1);
    pthread_join(t, NULL);
    cr_assert_eq(a.status, PCS_OK, "%s", pcs_status_str(a.status));
    cr_assert_eq(a.published, 2);
    cr_assert_lt(a.took_ns, 29000 * MS, "woken by the publish, not by its 30 s timeout");
    cr_assert_geq(a.stats.sleeps, 1);
    cr_assert_eq(pool_stats(&fx).wake_calls, 1, "the one publication with a waiter");
    cr_assert_eq(pool_stats(&fx).waiters, 0);
    pcs_world_destroy(fx.w);
}

/* A waiter for publication 6 sleeps in bucket 6: publications 2..5 make no
 * wake call and do not wake it. */
Test(reader_wait, future_publication_sleeps_through_the_others)
{
    wfix fx;
    wfix_make(&fx);
    ticks(&fx, 1);
    waiter a = {.fx = &fx, .after = 5, .until = 6, .timeout = 30000 * MS};
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, waiter_main, &a), 0);
    await_waiters(&fx, 1);
    for (int i = 0; i < 4; i++) { /* publications 2..5 */
        ticks(&fx, 1);
        nap_ns(2 * MS);
        cr_assert_eq(pool_stats(&fx).wake_calls, 0, "publication %d woke someone", i + 2);
    }
    ticks(&fx, 1); /* 6 */
    pthread_join(t, NULL);
    cr_assert_eq(a.status, PCS_OK);
    cr_assert_eq(a.published, 6);
    cr_assert_leq(pool_stats(&fx).wake_calls, 1);
    /* One sleep, plus one more if the first registration raced a publication. */
    cr_assert_leq(a.stats.sleeps, 2, "woken %llu times", (unsigned long long)a.stats.sleeps);
    pcs_world_destroy(fx.w);
}

Test(reader_wait, no_wake_call_without_waiters)
{
    wfix fx;
    wfix_make(&fx);
    pcs_reader *r;
    cr_assert_eq(pcs_reader_open(fx.pool, &r), PCS_OK); /* open, reading, never waiting */
    for (int i = 0; i < 1000; i++) {
        ticks(&fx, 1);
        double v;
        cr_assert_eq(pcs_snapshot_read(r, NULL, 1, &v, NULL), PCS_OK);
    }
    pcs_snapshot_stats s = pool_stats(&fx);
    cr_assert_eq(s.publications, 1000);
    cr_assert_eq(s.wake_calls, 0);
    cr_assert_eq(s.pass_on_calls, 0);
    pcs_reader_close(r);
    pcs_world_destroy(fx.w);
}

#define MANY 100

static void run_many(waiter *a, pthread_t *t)
{
    for (int i = 0; i < MANY; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, waiter_main, &a[i]), 0);
}

/* A world at publication 1 and MANY readers waiting after it (each keeps
 * waiting until publication @p until), all registered before it returns. */
static void start_many(wfix *fx, waiter *a, pthread_t *t, uint64_t until)
{
    wfix_make(fx);
    ticks(fx, 1);
    for (int i = 0; i < MANY; i++)
        a[i] = (waiter){.fx = fx, .after = 1, .until = until, .timeout = 60000 * MS};
    run_many(a, t);
    await_waiters(fx, MANY);
}

/* 100 readers asleep for publication 2: one wake call in stage 12 (of one
 * thread); the woken reader passes it on; all 100 return. */
Test(reader_wait, hundred_waiters_one_wake_call)
{
    static waiter a[MANY];
    static pthread_t t[MANY];
    wfix fx;
    start_many(&fx, a, t, 2);
    ticks(&fx, 10); /* publications 2..11; only 2's bucket has waiters */
    for (int i = 0; i < MANY; i++) {
        pthread_join(t[i], NULL);
        cr_assert_eq(a[i].status, PCS_OK, "waiter %d: %s", i, pcs_status_str(a[i].status));
        cr_assert_geq(a[i].published, 2);
        cr_assert_lt(a[i].took_ns, 59000 * MS, "waiter %d was not woken", i);
    }
    pcs_snapshot_stats s = pool_stats(&fx);
    cr_assert_eq(s.wake_calls, 1, "stage 12 made %llu wake calls for 100 waiters",
                 (unsigned long long)s.wake_calls);
    cr_assert_geq(s.pass_on_calls, 1, "someone woke the other 99");
    cr_assert_leq(s.pass_on_calls, 10, "at most one pass-on per bucket and publication");
    cr_assert_eq(s.waiters, 0);
    pcs_world_destroy(fx.w);
}

/* 100 readers each taking every publication they can (after = newest seen)
 * while the world ticks 200 times: at most one wake call per publication. */
Test(reader_wait, hundred_followers_at_most_one_wake_per_publication)
{
    static waiter a[MANY];
    static pthread_t t[MANY];
    wfix fx;
    start_many(&fx, a, t, 201);
    for (int i = 0; i < 200; i++) {
        ticks(&fx, 1);
        if (i % 4 == 0)
            nap_ns(MS / 4); /* let some readers catch up and sleep on the next one */
    }
    for (int i = 0; i < MANY; i++) {
        pthread_join(t[i], NULL);
        cr_assert_eq(a[i].status, PCS_OK, "waiter %d: %s", i, pcs_status_str(a[i].status));
        cr_assert_eq(a[i].published, 201);
    }
    pcs_snapshot_stats s = pool_stats(&fx);
    cr_assert_eq(s.publications, 201);
    cr_assert_geq(s.wake_calls, 1);
    cr_assert_leq(s.wake_calls, 200, "%llu wake calls for 200 publications",
                  (unsigned long long)s.wake_calls);
    pcs_world_destroy(fx.w);
}

typedef struct ticker {
    wfix *fx;
    atomic_int stop;
} ticker;

static void *ticker_main(void *arg)
{
    ticker *k = arg;
    while (!atomic_load(&k->stop)) {
        pcs_world_tick(k->fx->w);
        nap_ns(MS);
    }
    return NULL;
}

/* A 30 ms rate limit against a world ticking every millisecond: returns are
 * >= 30 ms apart, each reports the newest publication, and a call whose
 * timeout ends inside the interval times out.
 *
 * The spacing is judged only from instants the test can bound: return i
 * happens after call i-1 started (b[i-1]) plus the 30 ms interval, and
 * before the test reads the clock after it (at[i]); so at[i] - b[i-1] >= 30
 * ms holds however the test thread is preempted. (Comparing at[i] with
 * at[i-1] does not: a preemption between return i-1 and at[i-1] shortens
 * the measured gap, and that failed under load.) A reader without the
 * limit returns about one tick after each call: a few ms. */
Test(reader_wait, rate_limit_spacing)
{
    wfix fx;
    wfix_make(&fx);
    ticks(&fx, 1);
    pcs_reader *r;
    cr_assert_eq(pcs_reader_open(fx.pool, &r), PCS_OK);
    cr_assert_eq(pcs_reader_set_min_interval(r, 30 * MS), PCS_OK);
    ticker k = {.fx = &fx};
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, ticker_main, &k), 0);
    uint64_t b[6], at[6], after = 0, p = 0;
    for (int i = 0; i < 6; i++) {
        b[i] = now_ns();
        cr_assert_eq(pcs_reader_wait(r, after, 10000 * MS, &p), PCS_OK);
        at[i] = now_ns();
        cr_assert_gt(p, after);
        after = p;
    }
    /* The interval runs from the last return: a 1 ms timeout ends inside it. */
    cr_assert_eq(pcs_reader_wait(r, after, 1 * MS, &p), PCS_E_TIMEOUT);
    atomic_store(&k.stop, 1);
    pthread_join(t, NULL);
    for (int i = 1; i < 6; i++)
        cr_assert_geq(at[i] - b[i - 1], 30 * MS,
                      "return %d only %llu ns after call %d started (rate limit 30 ms)", i,
                      (unsigned long long)(at[i] - b[i - 1]), i - 1);
    cr_assert_lt(at[5] - at[0], 5 * 400 * MS, "the limit delays, it should not stall");
    pcs_reader_stats st;
    pcs_reader_stats_get(r, &st);
    cr_assert_eq(st.waits, 6);
    cr_assert_eq(st.wait_timeouts, 1);
    /* Removing the limit: the next call returns at once (a newer one exists). */
    cr_assert_eq(pcs_reader_set_min_interval(r, 0), PCS_OK);
    cr_assert_eq(pcs_reader_wait(r, 0, 0, &p), PCS_OK);
    pcs_reader_close(r);
    pcs_world_destroy(fx.w);
}
