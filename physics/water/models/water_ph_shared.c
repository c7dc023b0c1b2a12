/**
 * @file water_ph_shared.c
 * @brief The process-wide default (p, h) property table (pcsim/water_ph.h).
 *
 * Memory ordering: pthread_once publishes the table and the creation status
 * to every caller that returns from it (POSIX: the once routine's effects
 * happen before any pthread_once call for that control returns), and
 * nothing writes them afterwards, so plain reads follow.
 */
#include <pthread.h>
#include <stdio.h>

#include "pcsim/water_ph.h"

static pthread_once_t shared_once = PTHREAD_ONCE_INIT;
static pcs_water_ph_table *shared_table;
static pcs_status shared_status;
static char shared_error[256];

static void create_shared(void)
{
    pcs_water_ph_table_def d;
    pcs_water_ph_table_default(&d);
    shared_status = pcs_water_ph_table_create(&d, &shared_table);
    if (shared_status != PCS_OK)
        snprintf(shared_error, sizeof shared_error, "%s", pcs_last_error());
}

pcs_status pcs_water_ph_table_shared(const pcs_water_ph_table **out)
{
    if (!out)
        return pcs_error_set(PCS_E_INVAL, "pcs_water_ph_table_shared: out is NULL");
    pthread_once(&shared_once, create_shared);
    if (shared_status != PCS_OK)
        return pcs_error_set(shared_status, "pcs_water_ph_table_shared: %s", shared_error);
    *out = shared_table;
    return PCS_OK;
}
