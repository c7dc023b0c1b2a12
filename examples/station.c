/*
 * The PWR station embedded through the public API only (pcsim/station.h), as
 * README.md shows: load the built-in scenario, build its station into a
 * world, read a few channels from a reader thread through the snapshot pool,
 * trip a reactor coolant pump by name, tick 30 simulated seconds and print
 * the final state hash. `make test` compiles and runs this file against
 * libpcsim.so so it cannot rot; no file of cli/ is involved.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <pcsim/pcsim.h>

#define TICKS 600     /* 30 s at the scenario's dt of 0.05 s */
#define TRIP_TICK 100 /* 5 s in */

static const char *const watched[] = {"u2.core.power", "u2.core.flow", "u2.rcs.pressure"};
#define N_WATCHED (sizeof watched / sizeof watched[0])

typedef struct reader_ctx {
    const pcs_snapshot_pool *pool;
    uint32_t ids[N_WATCHED];
    atomic_int stop;
    uint64_t reads;         /* successful reads */
    double last[N_WATCHED]; /* the newest values read */
} reader_ctx;

/* A reader thread: sleeps until the world publishes, reads the watched
 * channels (all from one tick), until told to stop. It never blocks the
 * ticking thread, and costs nothing while it waits. */
static void reader_main(void *arg)
{
    reader_ctx *c = arg;
    pcs_reader *r;
    if (pcs_reader_open(c->pool, &r) != PCS_OK)
        return;
    uint64_t seen = 0;
    while (!atomic_load(&c->stop)) {
        /* Wake on the next publication; every 20 ms look at the stop flag. */
        if (pcs_reader_wait(r, seen, 20000000u, &seen) != PCS_OK)
            continue;
        double v[N_WATCHED];
        if (pcs_snapshot_read(r, c->ids, N_WATCHED, v, NULL) == PCS_OK) {
            memcpy(c->last, v, sizeof v);
            c->reads++;
        }
    }
    pcs_reader_close(r);
}

typedef struct events_ctx {
    const pcs_station *st;
    int pump_tripped;
} events_ctx;

/* Event texts come from the station (pcs_event_describe). */
static void on_events(void *ctx, const pcs_event *ev, uint32_t n)
{
    events_ctx *e = ctx;
    for (uint32_t i = 0; i < n; i++) {
        char text[256];
        if (pcs_event_describe(e->st, &ev[i], text, sizeof text))
            printf("  tick %6" PRIu64 "  %s\n", ev[i].tick, text);
        if (ev[i].kind == PCS_EV_PRIMARY_PUMP_TRIPPED)
            e->pump_tripped = 1;
    }
}

static int fail(const char *what)
{
    fprintf(stderr, "station: %s: %s\n", what, pcs_last_error());
    return 1;
}

int main(void)
{
    pcs_scenario *scn;
    if (pcs_scenario_default(&scn) != PCS_OK)
        return fail("scenario");
    pcs_world_def cfg = pcs_scenario_world_def(scn);
    cfg.workers = 0; /* slow jobs inline: no worker pool in this example */
    pcs_world *w;
    if (pcs_world_create(&cfg, &w) != PCS_OK)
        return fail("world");
    pcs_station *st;
    if (pcs_station_add(w, scn, &st) != PCS_OK)
        return fail("build");
    pcs_snapshot_pool *pool;
    if (pcs_snapshot_attach(w, NULL, &pool) != PCS_OK)
        return fail("snapshot");
    events_ctx ev = {.st = st};
    pcs_world_set_event_callback(w, on_events, &ev);

    /* Resolve the command once, by name, on the world's thread. */
    pcs_command trip;
    if (pcs_station_command(st, "u2.pump2", "pump_trip", 0.0, &trip) != PCS_OK)
        return fail("pump_trip");

    static reader_ctx rc = {0};
    rc.pool = pool;
    for (uint32_t i = 0; i < N_WATCHED; i++)
        if (pcs_snapshot_find(pool, watched[i], &rc.ids[i]) != PCS_OK)
            return fail(watched[i]);
    pcs_thread *reader = NULL;

    for (int t = 0; t < TICKS; t++) {
        if (t == TRIP_TICK && pcs_command_submit(w, &trip) != PCS_OK)
            return fail("submit");
        if (pcs_world_tick(w) != PCS_OK)
            return fail("tick");
        /* After the first publication, so the reader finds data. */
        if (t == 0 && pcs_thread_start("station-reader", reader_main, &rc, &reader) != PCS_OK)
            return fail("reader thread");
    }
    atomic_store(&rc.stop, 1);
    pcs_thread_join(reader);

    printf("reader: %" PRIu64 " reads; last %s %.1f MW, %s %.0f kg/s, %s %.2f MPa\n", rc.reads,
           watched[0], rc.last[0] / 1e6, watched[1], rc.last[1], watched[2], rc.last[2] / 1e6);
    printf("final state hash %016" PRIx64 "\n", pcs_world_state_hash(w));
    int ok = ev.pump_tripped && rc.reads > 0;

    pcs_station_destroy(st);
    pcs_world_destroy(w);
    pcs_scenario_destroy(scn);
    return ok ? 0 : 1;
}
