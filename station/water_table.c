/**
 * @file water_table.c
 * @brief The process-wide (p, h) property table of the stations
 *        (pcs_station_water_table, pcsim/station.h).
 *
 * Why here: the table is immutable and costs 0.4 s to make, so every world
 * of a process (a host that resets, a test runner, the Python package)
 * should share one; sharing across worlds needs a once-initialiser, which
 * physics/ may not use (archcheck: no threads in simulation code). The
 * station, the one place that knows every model, owns it and hands it to
 * each unit's primary.
 *
 * Memory ordering: pthread_once publishes the table and the status to every
 * caller that returns from it (POSIX: the once routine's effects happen
 * before any pthread_once call for that control returns), and nothing
 * writes them afterwards, so plain reads follow.
 */
#include <pthread.h>
#include <stdio.h>

#include "pcsim/station.h"
#include "pcsim/water_ph.h"

static pthread_once_t shared_once = PTHREAD_ONCE_INIT;
static pcs_water_ph_table *shared_table;
static pcs_status shared_status;
static char shared_error[256];

static void make_table(void)
{
    pcs_water_ph_table_def d;
    pcs_water_ph_table_default(&d);
    shared_status = pcs_water_ph_table_create(&d, &shared_table);
    if (shared_status != PCS_OK)
        snprintf(shared_error, sizeof shared_error, "%s", pcs_last_error());
}

pcs_status pcs_station_water_table(const pcs_water_ph_table **out)
{
    if (!out)
        return pcs_error_set(PCS_E_INVAL, "pcs_station_water_table: out is NULL");
    pthread_once(&shared_once, make_table);
    if (shared_status != PCS_OK)
        return pcs_error_set(shared_status, "pcs_station_water_table: %s", shared_error);
    *out = shared_table;
    return PCS_OK;
}
