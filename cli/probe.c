/**
 * @file probe.c
 * @brief The scenario's whole plant built aside: a scratch world in which
 *        every "build": "later" unit is added, so the run can ask what its
 *        own world will hold once those units are added.
 *
 * Why a second world. A unit the scenario builds later has no channels and
 * no command targets until its unit_add runs, so the run's world cannot say
 * whether a script's "u2.bank_d" will exist, nor what u2's channels will be
 * called. Those names are made by the unit's build (pcs_plant_unit_add), and
 * the only exact answer is that build, not a copy of its naming rule here
 * that could drift from it: this file builds the scenario's station in a
 * world of its own, submits a unit_add for each later unit, in order, and
 * runs one tick, at whose end the engine applies them (station_units.c
 * accepts several adds in one tick when each is the next). The probe's
 * channels and targets are then the scenario's whole set.
 *
 * It is built only when the scenario has a later unit and the run asks (a
 * script target the run's world lacks, or a CSV), from the run's world
 * definition with no workers. It never touches the run's world, so it
 * cannot move a hash, and it is freed before the run's first tick
 * (host_run), so the run's memory and timing do not carry it. Its one tick
 * is not the run's tick 0 of the real plant: only names are read from it.
 *
 * Cost: one more station build and one tick before the run, tens of
 * milliseconds for the two-unit living world (the property tables are the
 * process's, made once).
 */
#include <stdio.h>

#include "cli/host.h"

/* The message of a failed probe names the scenario and the step. */
static int probe_fail(host *h, const char *step)
{
    return host_fail(1,
                     "%s: building the later units aside (to name their channels and "
                     "targets): %s: %s",
                     pcs_scenario_source(h->scn), step, pcs_last_error());
}

/* unit_add for u(first)..u(last), submitted on the probe's anonymous ring. */
static int submit_adds(host *h, uint32_t first, uint32_t last)
{
    for (uint32_t u = first; u <= last; u++) {
        char name[16];
        pcs_command c;
        snprintf(name, sizeof name, "u%u", u);
        if (pcs_station_command(h->probe_station, name, "unit_add", 0.0, &c) != PCS_OK ||
            pcs_command_submit(h->probe_world, &c) != PCS_OK)
            return probe_fail(h, "unit_add");
    }
    return 0;
}

int probe_needed(const host *h)
{
    return h->station && pcs_scenario_unit_count(h->scn) > pcs_station_unit_count(h->station);
}

int probe_get(host *h)
{
    if (h->probe_world || !probe_needed(h))
        return 0;
    pcs_world_def def = h->world_cfg;
    def.workers = 0; /* one tick: no pool for it */
    if (pcs_world_create(&def, &h->probe_world) != PCS_OK)
        return probe_fail(h, "world");
    if (pcs_station_add(h->probe_world, h->scn, &h->probe_station) != PCS_OK)
        return probe_fail(h, "station");
    uint32_t n_all = pcs_scenario_unit_count(h->scn);
    if (submit_adds(h, pcs_station_unit_count(h->probe_station) + 1, n_all) != 0)
        return 1;
    if (pcs_world_tick(h->probe_world) != PCS_OK)
        return probe_fail(h, "tick");
    if (pcs_station_unit_count(h->probe_station) != n_all)
        return host_fail(1, "%s: building the later units aside: %u of %u units built",
                         pcs_scenario_source(h->scn), pcs_station_unit_count(h->probe_station),
                         n_all);
    return 0;
}

void probe_free(host *h)
{
    pcs_station_destroy(h->probe_station); /* before its world */
    pcs_world_destroy(h->probe_world);
    h->probe_station = NULL;
    h->probe_world = NULL;
}
