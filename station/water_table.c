/**
 * @file water_table.c
 * @brief The process-wide property tables of the stations: the primaries'
 *        (p, h) table (pcs_station_water_table) and the fuel channels'
 *        (p, T) coolant table (pcs_station_coolant_table), pcsim/station.h.
 *
 * Why here: the tables are immutable and cost 0.2 s and 0.06 s to make (a
 * fifth of a station's build for the second), so every world
 * of a process (a host that resets, a test runner, the Python package)
 * should share them; sharing across worlds needs a once-initialiser, which
 * physics/ may not use (archcheck: no threads in simulation code). The
 * station, the one place that knows every model, owns them and hands them
 * to each unit's primary and fuel.
 *
 * Memory ordering: each table's pthread_once publishes the table and its
 * status to every caller that returns from it (POSIX: the once routine's
 * effects happen before any pthread_once call for that control returns),
 * and nothing writes them afterwards, so plain reads follow.
 */
#include <pthread.h>
#include <stdio.h>

#include "pcsim/coolant.h"
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

static pthread_once_t coolant_once = PTHREAD_ONCE_INIT;
static pcs_coolant_water *coolant_table;
static pcs_status coolant_status;
static char coolant_error[256];

static void make_coolant_table(void)
{
    pcs_coolant_water_def d;
    pcs_coolant_water_default(&d);
    coolant_status = pcs_coolant_water_create(&d, &coolant_table);
    if (coolant_status != PCS_OK)
        snprintf(coolant_error, sizeof coolant_error, "%s", pcs_last_error());
}

pcs_status pcs_station_coolant_table(const pcs_coolant_water **out)
{
    if (!out)
        return pcs_error_set(PCS_E_INVAL, "pcs_station_coolant_table: out is NULL");
    pthread_once(&coolant_once, make_coolant_table);
    if (coolant_status != PCS_OK)
        return pcs_error_set(coolant_status, "pcs_station_coolant_table: %s", coolant_error);
    *out = coolant_table;
    return PCS_OK;
}
