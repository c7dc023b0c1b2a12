/**
 * @file readers.c
 * @brief The run's reader threads: UIs, network senders and recorders as a
 *        host would have them, reading channels through the public snapshot API.
 *
 * Each reader reads its channels once every 1/(rate_hz dt) publications
 * (simulated time), asleep in pcs_reader_wait in between: it asks for the
 * publication it wants (after = last + period - 1), so the publications in
 * between do not wake it and an idle reader costs nothing. Reader 0 also
 * drains the event log, as a recorder would. Readers only observe: the
 * world's state hash cannot depend on them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/host.h"
#include "pcsim/profile.h"
#include "pcsim/snapshot.h"
#include "pcsim/thread.h"

typedef struct reader_ctx {
    host *h;
    uint32_t index;
    uint32_t ids[PCS_SCENARIO_READER_NAMES_MAX];
    uint32_t n_ids;
    uint64_t period_ticks;
    pcs_reader_stats stats;
    uint64_t bad_values; /**< reads that returned a non-finite value */
    pcs_thread *thread;
} reader_ctx;

static reader_ctx *readers;
static uint32_t n_readers;
static _Atomic int readers_stop;

/* How long a reader sleeps before it looks at the stop flag again (the run's
 * last publication wakes nobody, so this bounds how long readers_stop_all
 * waits for a reader to notice). */
#define READER_STOP_POLL_NS 20000000ull

static void drain_events(pcs_reader *r)
{
    pcs_event ev[64];
    uint32_t n;
    do {
        if (pcs_events_poll(r, ev, 64, &n, NULL) != PCS_OK)
            return;
    } while (n == 64);
}

static void reader_main(void *arg)
{
    reader_ctx *c = arg;
    pcs_reader *r = NULL;
    if (pcs_reader_open(c->h->pool, &r) != PCS_OK)
        return;
    double out[PCS_SCENARIO_READER_NAMES_MAX];
    uint64_t after = 0; /* the first publication, then every period_ticks-th */
    while (!atomic_load_explicit(&readers_stop, memory_order_acquire)) {
        uint64_t published;
        if (pcs_reader_wait(r, after, READER_STOP_POLL_NS, &published) != PCS_OK)
            continue; /* timed out: look at the stop flag */
        /* A trace shows each read on this reader's track (pcsim-r<i>). */
        pcs_profile_span span = pcs_profile_span_begin("reader.read", "reader", published);
        if (pcs_snapshot_read(r, c->ids, c->n_ids, out, NULL) == PCS_OK)
            for (uint32_t i = 0; i < c->n_ids; i++)
                c->bad_values += isfinite(out[i]) ? 0u : 1u;
        after = published + c->period_ticks - 1;
        if (c->index == 0)
            drain_events(r);
        pcs_profile_span_end(&span);
    }
    pcs_reader_stats_get(r, &c->stats);
    pcs_reader_close(r);
}

int readers_start(host *h)
{
    n_readers = h->run.readers;
    if (n_readers == 0)
        return 0;
    uint32_t nch = pcs_snapshot_channel_count(h->pool);
    if (nch == 0) {
        n_readers = 0;
        return host_fail(2, "%s: $.readers.count: %u readers but the plant publishes no channels",
                         pcs_scenario_source(h->scn), h->run.readers);
    }
    uint32_t named[PCS_SCENARIO_READER_NAMES_MAX];
    for (uint32_t j = 0; j < h->run.n_reader_names; j++)
        if (pcs_snapshot_find(h->pool, pcs_scenario_reader_name(h->scn, j), &named[j]) != PCS_OK) {
            n_readers = 0;
            return host_fail(2, "%s: $.readers.names[%u]: unknown channel '%s'",
                             pcs_scenario_source(h->scn), j, pcs_scenario_reader_name(h->scn, j));
        }
    readers = calloc(n_readers, sizeof *readers);
    if (!readers)
        return host_fail(1, "out of memory for readers");
    double period = 1.0 / (h->run.reader_rate_hz * h->world_cfg.dt_s);
    atomic_store(&readers_stop, 0);
    for (uint32_t i = 0; i < n_readers; i++) {
        reader_ctx *c = &readers[i];
        c->h = h;
        c->index = i;
        c->period_ticks = period < 1.0 ? 1 : (uint64_t)(period + 0.5);
        c->n_ids = h->run.reader_channels < nch ? h->run.reader_channels : nch;
        for (uint32_t j = 0; j < c->n_ids; j++) /* spread readers over the channels */
            c->ids[j] = (i * 7u + j) % nch;
        if (h->run.n_reader_names) { /* or read exactly the named ones */
            c->n_ids = h->run.n_reader_names;
            memcpy(c->ids, named, c->n_ids * sizeof *c->ids);
        }
        char name[24];
        snprintf(name, sizeof name, "pcsim-r%u", i);
        if (pcs_thread_start(name, reader_main, c, &c->thread) != PCS_OK) {
            n_readers = i; /* readers_stop_all joins the ones that started */
            return host_fail(1, "reader %u: %s", i, pcs_last_error());
        }
    }
    return 0;
}

void readers_stop_all(host *h)
{
    atomic_store_explicit(&readers_stop, 1, memory_order_release);
    memset(&h->reader_totals, 0, sizeof h->reader_totals);
    for (uint32_t i = 0; i < n_readers; i++) {
        pcs_thread_join(readers[i].thread);
        const pcs_reader_stats *s = &readers[i].stats;
        h->reader_totals.reads += s->reads;
        h->reader_totals.retries += s->retries;
        h->reader_totals.events_read += s->events_read;
        h->reader_totals.events_missed += s->events_missed;
        h->reader_totals.bad_values += readers[i].bad_values;
        if (s->max_staleness > h->reader_totals.max_staleness)
            h->reader_totals.max_staleness = s->max_staleness;
    }
    h->reader_totals.threads = n_readers;
    free(readers);
    readers = NULL;
    n_readers = 0;
}
