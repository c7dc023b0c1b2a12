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
 * visible to the drain after the main thread observes the count. An action's
 * command and state (host.action_state) are written by the main thread
 * before it announces the action's tick, so main_at's release/acquire pair
 * publishes them to the producer; the producer only reads them.
 *
 * Targets of later units. An action whose target belongs to a unit the
 * scenario builds later ("u2.bank_d" before u2's unit_add) cannot be
 * resolved at the start; cli/run.c accepts it when the scenario's whole
 * plant has it (cli/probe.c) and marks it deferred. It is resolved just
 * before its tick like any action; if its target is not there then (the
 * unit not added yet, or removed), it is refused: a warning naming the
 * script entry, the target and why, a count in the summary, no command.
 * The run goes on, as after any command stage 1 rejects; what is refused
 * depends only on the script and the ticks: deterministic, and the journal
 * (which records commands, not actions) replays the same run.
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
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
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
            return;                                      /* the run ended early */
        if (h->action_state[i] == HOST_ACTION_REFUSED) { /* its target was not there */
            atomic_store_explicit(&h->submitted, i + 1, memory_order_release);
            continue;
        }
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

/* Why a deferred action's target is missing at its tick: its unit ("uN",
 * the target's prefix) is not built yet, or it, or the device, is gone. */
static void missing_reason(const host *h, const char *target, char *out, size_t len)
{
    unsigned long n = target[0] == 'u' ? strtoul(target + 1, NULL, 10) : 0;
    if (n > pcs_station_unit_count(h->station) && n <= pcs_scenario_unit_count(h->scn))
        snprintf(out, len,
                 "u%lu is not built at this tick (a unit with \"build\": \"later\": a "
                 "unit_add of u%lu builds it at the end of that command's tick)",
                 n, n);
    else
        snprintf(out, len, "the target does not exist at this tick (removed since the start)");
}

/* A deferred action whose target is not there at its tick: said on stderr
 * (with or without --quiet: it is the script's fault, not the plant's),
 * counted for the summary, and not submitted; the run goes on, as it does
 * after a command stage 1 rejects. */
static void refuse(host *h, uint32_t i, uint64_t tick)
{
    const pcs_scenario_action *a = pcs_scenario_action_get(h->scn, i);
    char why[256];
    missing_reason(h, a->target, why, sizeof why);
    h->action_state[i] = HOST_ACTION_REFUSED;
    h->n_refused++;
    fprintf(stderr,
            "pcsim: warning: t=%.2f s (tick %" PRIu64 "): %s; %s of '%s' dropped: %s; the run "
            "goes on\n",
            (double)tick * h->world_cfg.dt_s, tick, pcs_last_error(), a->command, a->target, why);
}

/* Main, between ticks: resolve tick @p tick's actions again before the
 * producer may read them. A structural change since the start can have
 * registered their target again under a new id (a pump installed again has
 * a new generation), and the id resolved at the start would be refused as
 * stale; an action deferred at the start (its target is a later unit's)
 * is resolved here for the first time. This runs on the world's thread, so
 * the target tables are not changing, and announce's release store
 * publishes the new command (and the action's state) to the producer's
 * acquire. An action whose target is gone keeps its first resolution:
 * stage 1 refuses it with a rejection event, as any stale target; a
 * deferred one has none, and is refused here. A replay's actions come from
 * its journal, already resolved. */
static void resolve_due_actions(host *h, uint64_t tick)
{
    if (h->opt.replay)
        return;
    for (uint32_t i = main_cursor; i < h->n_actions && h->actions[i].tick <= tick; i++) {
        pcs_command c;
        if (h->actions[i].tick != tick)
            continue;
        if (pcs_station_script_command(h->station, h->scn, i, &c) == PCS_OK)
            h->actions[i].cmd = c;
        else if (h->action_state[i] == HOST_ACTION_DEFERRED)
            refuse(h, i, tick);
    }
    pcs_error_clear();
}

void script_before_tick(host *h, uint64_t tick)
{
    resolve_due_actions(h, tick);
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
