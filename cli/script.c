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
 * Sleeping. Between actions the producer sleeps on a condition variable
 * until the tick its next action belongs to is announced (it used to spin on
 * sched_yield, a whole core in --realtime runs). The main thread takes an
 * uncontended mutex once per tick and signals only on the tick the producer
 * waits for. A mutex, not a lock-free handshake: this is host code, the
 * lock costs tens of nanoseconds against a tick of tens of microseconds, and
 * a condition variable needs no protocol argument of its own. The main
 * thread's own wait for a submission stays a short sched_yield loop: it
 * happens only on an action's tick and lasts one wake-up of the producer.
 */
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "cli/host.h"
#include "pcsim/profile.h"
#include "pcsim/thread.h"

/* A run's whole script fits in the producer's ring, so the main thread never
 * waits for a submission that needs a drain first. */
_Static_assert(PCS_SCENARIO_ACTIONS_MAX <= HOST_SCRIPT_RING,
               "the script must fit the producer ring");

static pcs_thread *producer_thread;
static pcs_command_source *producer_source;
static uint32_t main_cursor;
static pthread_mutex_t announce_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t announced = PTHREAD_COND_INITIALIZER;
static uint64_t producer_want; /* main_at the sleeping producer waits for; 0 none (announce_mu) */

/* Producer: sleep until main_at >= @p at. */
static void await_main_at(host *h, uint64_t at)
{
    if (atomic_load_explicit(&h->main_at, memory_order_acquire) >= at)
        return;
    pthread_mutex_lock(&announce_mu);
    producer_want = at;
    while (atomic_load_explicit(&h->main_at, memory_order_acquire) < at)
        pthread_cond_wait(&announced, &announce_mu);
    producer_want = 0;
    pthread_mutex_unlock(&announce_mu);
}

/* Main: announce main_at = @p at, and wake the producer if it waits for it. */
static void announce(host *h, uint64_t at)
{
    pthread_mutex_lock(&announce_mu);
    atomic_store_explicit(&h->main_at, at, memory_order_release);
    if (producer_want != 0 && at >= producer_want)
        pthread_cond_signal(&announced);
    pthread_mutex_unlock(&announce_mu);
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
        /* A trace shows each submission on the producer's track (pcsim-script). */
        pcs_profile_span span = pcs_profile_span_begin("script.submit", "script", a->tick);
        uint64_t by_rate = rate_refusals();
        while (pcs_command_source_submit(producer_source, &a->cmd) == PCS_E_RATE) {
            if (rate_refusals() != by_rate)
                break; /* the rate limit refused it: dropped, counted in the summary */
            if (atomic_load_explicit(&h->main_at, memory_order_acquire) == UINT64_MAX)
                return;
            sched_yield();
        }
        pcs_profile_span_end(&span);
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
    producer_want = 0;
    if (pcs_command_source_open(h->world, 2, 1, HOST_SCRIPT_RING, &producer_source) != PCS_OK ||
        pcs_command_source_set_rate(producer_source, h->run.command_rate_per_s,
                                    h->run.command_burst) != PCS_OK)
        return host_fail(1, "script: %s", pcs_last_error());
    if (pcs_thread_start("pcsim-script", producer, h, &producer_thread) != PCS_OK)
        return host_fail(1, "script: %s", pcs_last_error());
    return 0;
}

/* Main: resolve this tick's actions again before the producer may take
 * them. A structural change since the start gives a name another target
 * (pump_install: the pump's new generation), so the start's resolution
 * would be rejected as stale; the world is between ticks here, on its own
 * thread, so this is the resolution a host makes before it submits. A name
 * that no longer resolves keeps the start's command: stage 1 rejects it
 * with its event. Determinism: it depends only on the world at this tick. */
static void resolve_due(host *h, uint64_t tick)
{
    for (uint32_t i = main_cursor; i < h->n_actions && h->actions[i].tick <= tick; i++) {
        pcs_command c;
        if (pcs_station_script_command(h->station, h->scn, i, &c) == PCS_OK)
            h->actions[i].cmd = c;
    }
}

void script_before_tick(host *h, uint64_t tick)
{
    resolve_due(h, tick);
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
