/**
 * @file test_snapshot_threads.c
 * @brief Readers on other threads take consistent snapshots from a running world.
 *
 * The world ticks on the test thread; channel i holds 64 * tick + i, so a
 * read is consistent exactly when every value matches the tick the call
 * returned. Event k carries values[0] = k, so a poller can check order and
 * that returned + missed accounts for every event. (Longer and nastier runs,
 * and the broken variant, live in stress/.)
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#include "pcsim/pcsim.h"

#define THR_CHANNELS 64u
#define THR_TICKS 20000
#define THR_TICKS_MAX 20000000u
#define THR_EVENTS_PER_TICK 3u

typedef struct thrfix {
    pcs_world *w;
    pcs_snapshot_pool *pool;
    uint32_t store;
    uint64_t emitted;
    atomic_int started; /* threads that are running */
    atomic_int done;    /* set when the writer stops */
} thrfix;

typedef struct thr_result {
    atomic_ullong progress; /* reads or polls made, watched by the writer */
    uint64_t reads, bad, backwards, last_tick;
    uint64_t events, missed, event_errors;
} thr_result;

typedef struct thr_arg {
    thrfix *fx;
    pcs_reader *r; /* opened before the world ticks, so no event predates it */
    int use_view;
    thr_result res;
} thr_arg;

static pcs_status thr_fill(pcs_world *w, void *ctx)
{
    thrfix *fx = ctx;
    double *f = pcs_store_data(w, fx->store);
    double base = (double)pcs_world_clock(w)->tick * THR_CHANNELS;
    for (uint32_t i = 0; i < THR_CHANNELS; i++)
        f[i] = base + i;
    for (uint32_t k = 0; k < THR_EVENTS_PER_TICK; k++)
        pcs_event_emit(w, PCS_EV_MODEL_BASE, k, (double)fx->emitted++, 0, 0, 0);
    return PCS_OK;
}

static int thr_consistent(const double *v, uint64_t tick)
{
    for (uint32_t i = 0; i < THR_CHANNELS; i++)
        if (v[i] != (double)tick * THR_CHANNELS + i)
            return 0;
    return 1;
}

/* One read through the copy-out or the view API; 1 on success. */
static int thr_read_once(pcs_reader *r, int use_view, double *v, uint64_t *tick)
{
    if (!use_view)
        return pcs_snapshot_read(r, NULL, THR_CHANNELS, v, tick) == PCS_OK;
    pcs_view view;
    if (pcs_view_begin(r, &view) != PCS_OK)
        return 0;
    for (uint32_t i = 0; i < THR_CHANNELS; i++)
        v[i] = pcs_view_f64(&view, i);
    *tick = view.tick;
    return pcs_view_validate(&view) == PCS_OK;
}

static void *thr_reader(void *p)
{
    thr_arg *a = p;
    pcs_reader *r = a->r;
    double v[THR_CHANNELS];
    atomic_fetch_add(&a->fx->started, 1);
    while (!atomic_load(&a->fx->done)) {
        uint64_t tick;
        if (!thr_read_once(r, a->use_view, v, &tick))
            continue; /* nothing published yet, or a view the writer tore */
        a->res.reads++;
        a->res.bad += !thr_consistent(v, tick);
        a->res.backwards += a->res.reads > 1 && tick < a->res.last_tick;
        a->res.last_tick = tick;
        atomic_fetch_add(&a->res.progress, 1);
    }
    return NULL;
}

static void thr_poll_into(pcs_reader *r, thr_result *res)
{
    pcs_event ev[8];
    uint32_t n;
    uint64_t missed;
    do {
        if (pcs_events_poll(r, ev, 8, &n, &missed) != PCS_OK) {
            res->event_errors++;
            return;
        }
        res->missed += missed;
        for (uint32_t k = 0; k < n; k++) {
            /* The next event's number is everything seen or missed so far. */
            res->event_errors += ev[k].values[0] != (double)(res->events + res->missed);
            res->events++;
        }
    } while (n > 0);
}

static void *thr_poller(void *p)
{
    thr_arg *a = p;
    pcs_reader *r = a->r;
    atomic_fetch_add(&a->fx->started, 1);
    while (!atomic_load(&a->fx->done)) {
        thr_poll_into(r, &a->res);
        atomic_fetch_add(&a->res.progress, 1);
    }
    thr_poll_into(r, &a->res); /* the writer has stopped: drain */
    return NULL;
}

static void thr_build(thrfix *fx, uint32_t event_capacity)
{
    fx->emitted = 0;
    atomic_init(&fx->started, 0);
    pcs_world_def cfg;
    cr_assert_eq(pcs_world_default(&cfg), PCS_OK);
    cr_assert_eq(pcs_world_create(&cfg, &fx->w), PCS_OK);
    cr_assert_eq(pcs_store_register(fx->w, "thr.f", 8, THR_CHANNELS, PCS_STORE_STATE, &fx->store),
                 PCS_OK);
    for (uint32_t i = 0; i < THR_CHANNELS; i++) {
        char name[32];
        snprintf(name, sizeof name, "thr.c%02u", i);
        cr_assert_eq(pcs_channel_register(fx->w, name, "W", PCS_CHANNEL_F64, fx->store, i, NULL),
                     PCS_OK);
    }
    pcs_system_desc d = {.name = "thr.fill",
                         .stage = PCS_STAGE_SENSORS,
                         .fn = thr_fill,
                         .ctx = fx,
                         .writes = &fx->store,
                         .n_writes = 1};
    cr_assert_eq(pcs_system_register(fx->w, &d, NULL), PCS_OK);
    pcs_snapshot_options opt = {.buffers = 3, .event_log_capacity = event_capacity};
    cr_assert_eq(pcs_snapshot_attach(fx->w, &opt, &fx->pool), PCS_OK, "%s", pcs_last_error());
    atomic_init(&fx->done, 0);
}

static int thr_all_progressed(thr_arg *args, int n)
{
    for (int i = 0; i < n; i++)
        if (atomic_load(&args[i].res.progress) < 1000)
            return 0;
    return 1;
}

static void thr_run(thrfix *fx, thr_arg *args, int n, void *(*fn[])(void *))
{
    pthread_t t[4];
    for (int i = 0; i < n; i++)
        cr_assert_eq(pcs_reader_open(fx->pool, &args[i].r), PCS_OK);
    for (int i = 0; i < n; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, fn[i], &args[i]), 0);
    while (atomic_load(&fx->started) < n)
        sched_yield();
    /* At least THR_TICKS ticks, and on until every thread has made some
     * progress: on two shared cores a thread may not run for a while. */
    for (uint64_t k = 0; k < THR_TICKS_MAX; k++) {
        cr_assert_eq(pcs_world_tick(fx->w), PCS_OK, "%s", pcs_last_error());
        if (k + 1 >= THR_TICKS && thr_all_progressed(args, n))
            break;
    }
    atomic_store(&fx->done, 1);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < n; i++)
        pcs_reader_close(args[i].r);
}

Test(snapshot_threads, readers_see_consistent_monotonic_snapshots)
{
    thrfix fx;
    thr_build(&fx, 4096);
    thr_arg args[2] = {{.fx = &fx, .use_view = 0}, {.fx = &fx, .use_view = 1}};
    void *(*fn[2])(void *) = {thr_reader, thr_reader};
    thr_run(&fx, args, 2, fn);
    for (int i = 0; i < 2; i++) {
        cr_expect_gt(args[i].res.reads, 0u, "reader %d never read", i);
        cr_expect_eq(args[i].res.bad, 0u, "reader %d: %llu torn reads", i,
                     (unsigned long long)args[i].res.bad);
        cr_expect_eq(args[i].res.backwards, 0u, "reader %d went back in time", i);
        cr_expect_lt(args[i].res.last_tick, pcs_world_clock(fx.w)->tick);
    }
    pcs_world_destroy(fx.w);
}

/* Capacity 16 against 3 events a tick: the poller may fall behind; whatever
 * it misses must be counted, and nothing may be torn, reordered or doubled. */
Test(snapshot_threads, event_poller_accounts_for_every_event)
{
    thrfix fx;
    thr_build(&fx, 16);
    thr_arg args[2] = {{.fx = &fx}, {.fx = &fx}};
    void *(*fn[2])(void *) = {thr_poller, thr_poller};
    thr_run(&fx, args, 2, fn);
    for (int i = 0; i < 2; i++) {
        cr_expect_eq(args[i].res.event_errors, 0u, "poller %d saw an out-of-order event", i);
        cr_expect_eq(args[i].res.events + args[i].res.missed,
                     pcs_world_clock(fx.w)->tick * THR_EVENTS_PER_TICK, "poller %d: %llu + %llu", i,
                     (unsigned long long)args[i].res.events,
                     (unsigned long long)args[i].res.missed);
    }
    pcs_world_destroy(fx.w);
}
