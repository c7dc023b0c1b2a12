/**
 * @file script.c
 * @brief The scripted-command producer: a separate thread that submits each
 *        action through the public command queue, as a host's network thread would.
 *
 * Determinism: the producer submits an action only once the main thread has
 * announced the tick it belongs to (main_at = tick + 1), and the main thread
 * does not run that tick until the producer confirms the submission. So every
 * scripted command lands on exactly its tick, whatever the thread timing, and
 * the journal (and a replay of it) sees the same ticks.
 *
 * Rate limit: the source gets the scenario's run.command_rate_per_s and
 * command_burst (the seed design's 400/s, burst 800). An action the limit
 * refuses is dropped and counted (the summary), not retried: retrying would
 * wait for ticks the main thread does not run until the action is handled.
 * What is refused depends only on the actions per tick: deterministic.
 *
 * Ordering: main_at is stored with release and loaded with acquire; the
 * producer's submitted counter likewise, so the command queue's contents are
 * visible to the drain after the main thread observes the count.
 *
 * Sleeping. Between actions the producer sleeps on a futex until the tick
 * its next action belongs to is announced (it used to spin on sched_yield, a
 * whole core in --realtime runs). The main thread pays one seq_cst store and
 * one load per tick and makes a wake call only on the tick the producer
 * waits for. No lost wake-up, by the argument of snapshot/wake.h:
 *   main, per tick:                       producer, waiting for tick t:
 *   store(main_at, tick + 1, release)     store(want, t + 1, seq_cst)     (A)
 *   store(word, tick + 1, seq_cst)   (S)  w = load(word, seq_cst)          (R)
 *   load(want, seq_cst)              (L)  if main_at < t + 1: futex_wait(word, w)
 *   if tick + 1 >= want > 0: futex_wake
 * In the single total order of S, L, A, R: if R precedes the S that
 * announces t + 1, then A < R < S < L and L sees want, so main wakes it; if
 * not, R reads that S's word (or a later one) and main_at >= t + 1 (the
 * release store before S happens-before the load after R), so the producer
 * does not sleep. The kernel compares the word and queues the sleeper
 * atomically with respect to the wake. The word is 32 bits of the tick: a
 * sleeper could only miss a wake if 2^32 ticks passed between its R and
 * its sleep. The main thread's own wait for a submission stays a short
 * sched_yield loop: it happens only on an action's tick and lasts one wake-up
 * of the producer.
 */
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli/host.h"
#include "pcsim/thread.h"

/* A run's whole script fits in the producer's ring, so the main thread never
 * waits for a submission that needs a drain first. */
_Static_assert(PCS_SCENARIO_ACTIONS_MAX <= HOST_SCRIPT_RING,
               "the script must fit the producer ring");

static pcs_thread *producer_thread;
static pcs_command_source *producer_source;
static uint32_t main_cursor;
static _Atomic uint32_t announce_word; /* low 32 bits of main_at: the futex word */
static _Atomic uint64_t producer_want; /* main_at the sleeping producer waits for; 0 none */

static void futex_wait(_Atomic uint32_t *word, uint32_t expected)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* Producer: sleep until main_at >= @p at (A, R, sleep; header comment). */
static void await_main_at(host *h, uint64_t at)
{
    while (atomic_load_explicit(&h->main_at, memory_order_acquire) < at) {
        atomic_store_explicit(&producer_want, at, memory_order_seq_cst);
        uint32_t w = atomic_load_explicit(&announce_word, memory_order_seq_cst);
        if (atomic_load_explicit(&h->main_at, memory_order_acquire) >= at)
            break;
        futex_wait(&announce_word, w);
    }
    atomic_store_explicit(&producer_want, 0, memory_order_relaxed);
}

/* Main: announce main_at = @p at (S, L, wake if the producer waits for it). */
static void announce(host *h, uint64_t at)
{
    atomic_store_explicit(&h->main_at, at, memory_order_release);
    atomic_store_explicit(&announce_word, (uint32_t)at, memory_order_seq_cst);
    uint64_t want = atomic_load_explicit(&producer_want, memory_order_seq_cst);
    if (want != 0 && at >= want)
        futex_wake(&announce_word);
}

static uint64_t rate_refusals(void)
{
    pcs_command_source_stats st;
    pcs_command_source_stats_get(producer_source, &st);
    return st.refused_rate;
}

static void producer(void *arg)
{
    host *h = arg;
    uint32_t i = (uint32_t)atomic_load_explicit(&h->submitted, memory_order_relaxed);
    for (; i < h->n_actions; i++) {
        const host_action *a = &h->actions[i];
        await_main_at(h, a->tick + 1);
        if (atomic_load_explicit(&h->main_at, memory_order_acquire) == UINT64_MAX)
            return; /* the run ended early */
        uint64_t by_rate = rate_refusals();
        while (pcs_command_source_submit(producer_source, &a->cmd) == PCS_E_RATE) {
            if (rate_refusals() != by_rate)
                break; /* the rate limit refused it: dropped, counted in the summary */
            if (atomic_load_explicit(&h->main_at, memory_order_acquire) == UINT64_MAX)
                return;
            sched_yield();
        }
        atomic_store_explicit(&h->submitted, i + 1, memory_order_release);
    }
}

int script_start(host *h)
{
    /* Skip actions before the first tick (a resumed run). */
    uint32_t first = 0;
    while (first < h->n_actions && h->actions[first].tick < h->start_tick)
        first++;
    main_cursor = first;
    producer_source = NULL; /* a previous run's, in a test process */
    atomic_store_explicit(&h->submitted, first, memory_order_relaxed);
    atomic_store_explicit(&h->main_at, h->start_tick, memory_order_relaxed);
    atomic_store_explicit(&announce_word, (uint32_t)h->start_tick, memory_order_relaxed);
    atomic_store_explicit(&producer_want, 0, memory_order_relaxed);
    if (pcs_command_source_open(h->world, 2, 1, HOST_SCRIPT_RING, &producer_source) != PCS_OK ||
        pcs_command_source_set_rate(producer_source, h->run.command_rate_per_s,
                                    h->run.command_burst) != PCS_OK)
        return host_fail(1, "script: %s", pcs_last_error());
    if (pcs_thread_start("pcsim-script", producer, h, &producer_thread) != PCS_OK)
        return host_fail(1, "script: %s", pcs_last_error());
    return 0;
}

void script_before_tick(host *h, uint64_t tick)
{
    announce(h, tick + 1);
    while (main_cursor < h->n_actions && h->actions[main_cursor].tick <= tick) {
        while (atomic_load_explicit(&h->submitted, memory_order_acquire) <= main_cursor)
            sched_yield();
        main_cursor++;
    }
}

pcs_command_source *script_source(void)
{
    return producer_source;
}

void script_stop(host *h)
{
    announce(h, UINT64_MAX);
    pcs_thread_join(producer_thread);
    producer_thread = NULL;
}
