/**
 * @file c_station.c
 * @brief The C twin of cxx_station.cpp: the same calls in the same order, so
 *        tests/hosts/consumers.sh can require the same output line (and so
 *        the same state hash) from every way a host links pcsim.
 *
 * Built against an installed tree (make install DESTDIR=...), never against
 * the source tree: what a host of the installed library sees is what runs.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <pcsim/pcsim.h>

#define WARM_TICKS 100 /* 5 s at the scenario's dt of 0.05 s */
#define TRIP_TICKS 20  /* long enough for the trip to apply and emit its event */

static int fail(const char *what)
{
    fprintf(stderr, "c_station: %s: %s\n", what, pcs_last_error());
    return 1;
}

static void count_trips(void *ctx, const pcs_event *ev, uint32_t n)
{
    int *trips = ctx;
    for (uint32_t i = 0; i < n; i++)
        if (ev[i].kind == PCS_EV_PRIMARY_PUMP_TRIPPED)
            (*trips)++;
}

/* The rest of main once the world and station exist; the caller frees them. */
static int drive(pcs_world *w, const pcs_station *st)
{
    int trips = 0;
    pcs_world_set_event_callback(w, count_trips, &trips);
    for (int t = 0; t < WARM_TICKS; t++)
        if (pcs_world_tick(w) != PCS_OK)
            return fail("tick");
    uint32_t power_id;
    if (pcs_channel_find(w, "u2.core.power", &power_id) != PCS_OK)
        return fail("u2.core.power");
    double power_w = pcs_channel_value(w, power_id);
    pcs_command trip;
    if (pcs_station_command(st, "u2.pump2", "pump_trip", 0.0, &trip) != PCS_OK)
        return fail("u2.pump2 pump_trip");
    if (pcs_command_submit(w, &trip) != PCS_OK)
        return fail("submit");
    for (int t = 0; t < TRIP_TICKS; t++)
        if (pcs_world_tick(w) != PCS_OK)
            return fail("tick");
    if (!(isfinite(power_w) && power_w > 0.0) || trips != 1) {
        fprintf(stderr, "c_station: u2.core.power %g W (want > 0), %d pump trips (want 1)\n",
                power_w, trips);
        return 1;
    }
    printf("version %s power_w %.17g trips %d hash %016" PRIx64 "\n", pcs_version(), power_w, trips,
           pcs_world_state_hash(w));
    return 0;
}

int main(void)
{
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", PCS_VERSION_MAJOR, PCS_VERSION_MINOR,
             PCS_VERSION_PATCH);
    if (strcmp(want, pcs_version()) != 0) {
        fprintf(stderr, "c_station: headers say %s, library says %s\n", want, pcs_version());
        return 1;
    }
    pcs_scenario *scn;
    if (pcs_scenario_default(&scn) != PCS_OK)
        return fail("scenario");
    pcs_world_def cfg = pcs_scenario_world_def(scn);
    cfg.workers = 0; /* slow jobs inline: the hash does not depend on it */
    pcs_world *w;
    if (pcs_world_create(&cfg, &w) != PCS_OK) {
        pcs_scenario_destroy(scn);
        return fail("world");
    }
    pcs_station *st = NULL;
    int rc = pcs_station_add(w, scn, &st) == PCS_OK ? drive(w, st) : fail("station");
    if (st)
        pcs_station_destroy(st);
    pcs_world_destroy(w);
    pcs_scenario_destroy(scn);
    return rc;
}
