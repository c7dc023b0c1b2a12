/**
 * @file wait_stress.c
 * @brief Stress tests of the reader wait (snapshot/wake.h): waiters against a publisher, no lost
 * wake-up.
 *
 * Claim: a reader sleeping in pcs_reader_wait for a publication newer than
 * `after` is woken once that publication exists; it never sleeps through it
 * until its timeout.
 *
 * Lockstep: the publisher (actor 0) publishes q, then waits until every
 * waiter has taken q (its `seen` >= q) before it publishes q + 1 (or gives
 * up after WS_ACK_GIVEUP_NS and counts that). So at each publication some
 * waiter has just taken q - 1 and is on its way into the wait for q: the
 * moment the publisher's store-then-check races the waiter's
 * register-then-recheck. Waiters wait with a WS_TIMEOUT_NS timeout. A wait
 * that slept and returns WS_LOST_NS or more after the publication it wanted
 * was made (stage 12 finished) is a lost wake-up: it slept until its
 * timeout (after which it finds the publication and returns PCS_OK, or
 * PCS_E_TIMEOUT). A woken waiter returns as soon as it is scheduled, and one
 * not yet asleep sees the changed futex word; so only a machine that keeps
 * a runnable thread off every CPU for a quarter of a second could fake one.
 *
 * Three tests share the actors:
 *   snapshot.reader_wait        the library: a world ticking, pcs_reader_wait.
 *   wait.protocol               wake.h's steps driven by this file (its own
 *                               words), with a pause of WS_WIDEN_NS between
 *                               the publisher's two steps to widen the race.
 *   broken.wake_before_store    the same with the count read before the
 *                               publication and the word are stored
 *                               (verify/snapshot_pool.pml WAKE_BEFORE_STORE).
 *                               Must be caught (expect_fail).
 */
#include <stdlib.h>
#include <time.h>

#include "pcsim/pcsim.h"
#include "snapshot/wake.h"
#include "stress/stress.h"

#define WS_WAITERS 3u
#define WS_TIMEOUT_NS 400000000ull     /* a waiter's timeout */
#define WS_LOST_NS 250000000ull        /* returned this long after the publication: lost */
#define WS_ACK_GIVEUP_NS 3000000000ull /* the publisher stops waiting for acks */
#define WS_WIDEN_NS 20000ull           /* fixture: pause between S and L (or L and S) */
#define WS_MADE 64u                    /* ring of publication times */

static uint64_t ws_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

typedef struct ws_shared {
    int mode;           /* 0 library, 1 fixture, 2 broken fixture */
    uint32_t n_waiters; /* actors 1 .. n_waiters */
    pcs_world *w;
    pcs_snapshot_pool *pool;
    pcs_reader *r[WS_WAITERS];
    uint64_t publications;                             /* publisher only */
    _Alignas(64) _Atomic uint64_t pub;                 /* fixture: the publication counter */
    _Alignas(64) pcs_wake wk;                          /* fixture: wake.h's words */
    _Alignas(64) _Atomic uint64_t seen[WS_WAITERS][8]; /* [i][0], a line each */
    _Atomic uint64_t made_pub[WS_MADE];
    _Atomic uint64_t made_ns[WS_MADE];
} ws_shared;

enum {
    WS_WOKEN = 0,         /* slept, then a newer publication */
    WS_AT_ONCE = 1,       /* a newer publication was there already */
    WS_ACKED = 2,         /* publisher: every waiter took the publication */
    WS_TIMEOUT_IDLE = 3,  /* timed out, nothing newer */
    WS_TIMEOUT_RACE = 4,  /* timed out as the publication arrived */
    WS_ACK_SLOW = 5,      /* publisher: a waiter took longer than the give-up */
    WS_WAKES_BOUNDED = 6, /* final: stage 12's wake calls <= publications */
    WS_LOST = 10,         /* slept through a publication until the timeout */
    WS_WRONG = 11,        /* PCS_OK with nothing newer */
    WS_WAKES_EXCESS = 12, /* final: more wake calls than publications */
    WS_ERROR = 14,
};

static const pcs_stress_outcome ws_outcomes[] = {
    {WS_WOKEN, PCS_STRESS_ACCEPTABLE, "woken", "slept and was woken by the publication"},
    {WS_AT_ONCE, PCS_STRESS_ACCEPTABLE, "no sleep", "the publication was there on entry"},
    {WS_ACKED, PCS_STRESS_ACCEPTABLE, "all took it", "publisher: every waiter took publication q"},
    {WS_TIMEOUT_IDLE, PCS_STRESS_INTERESTING, "timeout, idle",
     "nothing newer within the timeout (publisher starved)"},
    {WS_TIMEOUT_RACE, PCS_STRESS_INTERESTING, "timeout, racing",
     "the publication arrived within the last half of the timeout"},
    {WS_ACK_SLOW, PCS_STRESS_INTERESTING, "ack slow", "a waiter took > 3 s to take a publication"},
    {WS_WAKES_BOUNDED, PCS_STRESS_ACCEPTABLE, "wake calls <= publications",
     "stage 12: at most one wake call per publication"},
    {WS_LOST, PCS_STRESS_FORBIDDEN, "LOST WAKE-UP",
     "slept until its timeout through a publication made >= 0.25 s before"},
    {WS_WRONG, PCS_STRESS_FORBIDDEN, "wrong return", "PCS_OK without a newer publication"},
    {WS_WAKES_EXCESS, PCS_STRESS_FORBIDDEN, "wake calls > publications",
     "stage 12 made more than one wake call for a publication"},
    {WS_ERROR, PCS_STRESS_FORBIDDEN, "error", "an unexpected status"},
};

/* ---- setup --------------------------------------------------------------- */

static void ws_teardown(void *shared)
{
    ws_shared *s = shared;
    for (uint32_t i = 0; i < WS_WAITERS; i++)
        pcs_reader_close(s->r[i]);
    pcs_world_destroy(s->w);
    free(s);
}

static ws_shared *ws_alloc(int mode)
{
    ws_shared *s = aligned_alloc(64, (sizeof(ws_shared) + 63u) & ~(size_t)63u);
    if (!s)
        return NULL;
    /* The fixtures race one waiter: with more, the others' registrations
     * keep the count above 0 and the woken one's pass-on rescues a waiter
     * that fell into the window (the model's NO_PASS_ON shows the same). */
    *s = (ws_shared){.mode = mode, .n_waiters = mode == 0 ? WS_WAITERS : 1u};
    return s; /* zeroed atomics: the words' initial values, before any actor runs */
}

static void *ws_setup_library(void)
{
    ws_shared *s = ws_alloc(0);
    pcs_world_def cfg;
    uint32_t store;
    if (!s || pcs_world_default(&cfg) != PCS_OK || pcs_world_create(&cfg, &s->w) != PCS_OK ||
        pcs_store_register(s->w, "ws.x", 8, 1, PCS_STORE_STATE, &store) != PCS_OK ||
        pcs_channel_register(s->w, "ws.x", "", PCS_CHANNEL_F64, store, 0, NULL) != PCS_OK ||
        pcs_snapshot_attach(s->w, NULL, &s->pool) != PCS_OK)
        goto fail;
    for (uint32_t i = 0; i < WS_WAITERS; i++)
        if (pcs_reader_open(s->pool, &s->r[i]) != PCS_OK)
            goto fail;
    return s;
fail:
    if (s)
        ws_teardown(s);
    return NULL;
}

static void *ws_setup_fixture(void)
{
    return ws_alloc(1);
}

static void *ws_setup_broken(void)
{
    return ws_alloc(2);
}

/* ---- publisher ----------------------------------------------------------- */

static void ws_widen(void)
{
    uint64_t t0 = ws_now();
    while (ws_now() - t0 < WS_WIDEN_NS)
        pcs_stress_pause();
}

/* The fixture's stage 12: `published`, then wake.h's S and L (or L and S). */
static void ws_fixture_publish(ws_shared *s, uint64_t q)
{
    uint32_t b = (uint32_t)(q % PCS_WAKE_BUCKETS);
    int need;
    if (s->mode == 1) {
        atomic_store_explicit(&s->pub, q, memory_order_release);
        pcs_wake_store(&s->wk, q); /* S */
        ws_widen();
        need = pcs_wake_needed(&s->wk, q); /* L */
    } else {
        need = pcs_wake_needed(&s->wk, q); /* BROKEN: L before publishing */
        ws_widen();
        atomic_store_explicit(&s->pub, q, memory_order_release);
        pcs_wake_store(&s->wk, q);
    }
    if (need)
        pcs_wake_call(&s->wk, b, 1);
}

static int ws_publish(ws_shared *s)
{
    uint64_t q = ++s->publications;
    if (s->mode == 0) {
        if (pcs_world_tick(s->w) != PCS_OK)
            return 0;
    } else {
        ws_fixture_publish(s, q);
    }
    atomic_store_explicit(&s->made_ns[q % WS_MADE], ws_now(), memory_order_relaxed);
    atomic_store_explicit(&s->made_pub[q % WS_MADE], q, memory_order_release);
    return 1;
}

/* Spin (then nap) until every waiter took publication @p q. */
static int ws_await_acks(ws_shared *s, uint64_t q, pcs_stress_ctl *ctl)
{
    uint64_t t0 = ws_now();
    for (uint32_t spins = 0;; spins++) {
        uint32_t done = 0;
        for (uint32_t i = 0; i < s->n_waiters; i++)
            done += atomic_load_explicit(&s->seen[i][0], memory_order_acquire) >= q;
        if (done == s->n_waiters)
            return WS_ACKED;
        if (!pcs_stress_running(ctl) || ws_now() - t0 > WS_ACK_GIVEUP_NS)
            return WS_ACK_SLOW;
        if (spins < 2000) {
            pcs_stress_pause(); /* publish the moment the last waiter acks */
        } else {
            struct timespec ts = {0, 50000};
            nanosleep(&ts, NULL);
        }
    }
}

static void ws_publisher(void *shared, pcs_stress_ctl *ctl)
{
    ws_shared *s = shared;
    while (pcs_stress_running(ctl)) {
        if (!ws_publish(s)) {
            pcs_stress_record(ctl, WS_ERROR);
            break;
        }
        int id = ws_await_acks(s, s->publications, ctl);
        if (id == WS_ACKED || pcs_stress_running(ctl))
            pcs_stress_record(ctl, id);
    }
    ws_publish(s); /* wake the waiters so they see the stop */
}

/* ---- waiters ------------------------------------------------------------- */

/* wait.c:pcs_reader_wait on the fixture's words, step for step. */
static pcs_status ws_fixture_wait(ws_shared *s, uint64_t after, uint64_t *p, int *slept)
{
    uint64_t deadline = ws_now() + WS_TIMEOUT_NS;
    uint32_t b = pcs_wake_bucket(after);
    for (;;) {
        *p = atomic_load_explicit(&s->pub, memory_order_acquire);
        if (*p > after)
            return PCS_OK;
        if (ws_now() >= deadline)
            return PCS_E_TIMEOUT;
        uint32_t w = pcs_wake_register(&s->wk, b);
        *p = atomic_load_explicit(&s->pub, memory_order_acquire);
        if (*p > after) {
            pcs_wake_unregister(&s->wk, b);
            continue;
        }
        pcs_wake_sleep(&s->wk, w, b, deadline);
        *slept = 1;
        pcs_wake_unregister(&s->wk, b);
        pcs_wake_pass_on(&s->wk, b, w);
    }
}

static pcs_status ws_library_wait(ws_shared *s, unsigned me, uint64_t after, uint64_t *p,
                                  int *slept)
{
    pcs_reader_stats a, b;
    pcs_reader_stats_get(s->r[me], &a);
    pcs_status st = pcs_reader_wait(s->r[me], after, WS_TIMEOUT_NS, p);
    pcs_reader_stats_get(s->r[me], &b);
    *slept = b.sleeps != a.sleeps;
    return st;
}

/* Was publication after + 1 made (stage 12 done) WS_LOST_NS or more ago? */
static int ws_stale(ws_shared *s, uint64_t after)
{
    uint64_t want = after + 1;
    uint64_t m = atomic_load_explicit(&s->made_pub[want % WS_MADE], memory_order_acquire);
    if (m < want)
        return 0; /* its stamp is not written yet: just made */
    if (m > want)
        return 1; /* overwritten: made many publications ago */
    uint64_t made = atomic_load_explicit(&s->made_ns[want % WS_MADE], memory_order_relaxed);
    uint64_t now = ws_now();
    return now > made && now - made >= WS_LOST_NS;
}

/* A wait's outcome. A sleep that ended by its timeout returns PCS_OK if the
 * publication exists by then (the wait looks before it gives up), so a lost
 * wake-up shows as a sleeper returning long after the publication was made. */
static int ws_judge(ws_shared *s, pcs_status st, uint64_t after, uint64_t p, int slept)
{
    if (st == PCS_OK) {
        if (p <= after)
            return WS_WRONG;
        if (!slept)
            return WS_AT_ONCE;
        return ws_stale(s, after) ? WS_LOST : WS_WOKEN;
    }
    if (st != PCS_E_TIMEOUT)
        return WS_ERROR;
    if (p <= after)
        return WS_TIMEOUT_IDLE;
    return ws_stale(s, after) ? WS_LOST : WS_TIMEOUT_RACE;
}

static void ws_waiter(void *shared, pcs_stress_ctl *ctl)
{
    ws_shared *s = shared;
    unsigned me = ctl->actor - 1;
    uint64_t after = 0;
    while (pcs_stress_running(ctl)) {
        uint64_t p = 0;
        int slept = 0;
        pcs_status st = s->mode == 0 ? ws_library_wait(s, me, after, &p, &slept)
                                     : ws_fixture_wait(s, after, &p, &slept);
        int id = ws_judge(s, st, after, p, slept);
        if (!pcs_stress_running(ctl) && (id == WS_TIMEOUT_IDLE || id == WS_TIMEOUT_RACE))
            break; /* the run ended while it waited */
        pcs_stress_record(ctl, id);
        if (p > after)
            after = p;
        atomic_store_explicit(&s->seen[me][0], after, memory_order_release);
    }
}

/* After the join: stage 12's wake calls against the publications. */
static void ws_finish(void *shared, pcs_stress_ctl *ctl)
{
    ws_shared *s = shared;
    if (s->mode != 0)
        return;
    pcs_snapshot_stats st;
    if (pcs_snapshot_stats_get(s->pool, &st) != PCS_OK)
        pcs_stress_record(ctl, WS_ERROR);
    else
        pcs_stress_record(ctl,
                          st.wake_calls <= st.publications ? WS_WAKES_BOUNDED : WS_WAKES_EXCESS);
}

#define WS_TEST(var, nm, setup_fn, n_wait, broken, desc)                                           \
    static const pcs_stress_test var = {                                                           \
        .name = nm,                                                                                \
        .description = desc,                                                                       \
        .style = PCS_STRESS_SOAK,                                                                  \
        .expect_fail = broken,                                                                     \
        .n_actors = 1 + (n_wait),                                                                  \
        .actors = {ws_publisher, ws_waiter, ws_waiter, ws_waiter},                                 \
        .outcomes = ws_outcomes,                                                                   \
        .n_outcomes = sizeof ws_outcomes / sizeof ws_outcomes[0],                                  \
        .setup = setup_fn,                                                                         \
        .finish = ws_finish,                                                                       \
        .teardown = ws_teardown,                                                                   \
        .weight = (broken) ? 1.5 : 1.0,                                                            \
    };                                                                                             \
    PCS_STRESS_REGISTER(var)

WS_TEST(ws_library, "snapshot.reader_wait", ws_setup_library, WS_WAITERS, 0,
        "3 readers in pcs_reader_wait against a ticking world in lockstep: never a lost wake-up")
WS_TEST(ws_fixture, "wait.protocol", ws_setup_fixture, 1, 0,
        "wake.h's protocol, one waiter, a widened store-then-check window: no lost wake-up")
WS_TEST(ws_broken, "broken.wake_before_store", ws_setup_broken, 1, 1,
        "BROKEN ON PURPOSE: the waiter count read before the futex word is stored loses wake-ups")
