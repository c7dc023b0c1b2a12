/**
 * @file water_table.c
 * @brief The process-wide property tables of the stations: the primaries'
 *        (p, h) table (pcs_station_water_table) and the fuel channels'
 *        (p, T) coolant table (pcs_station_coolant_table), pcsim/station.h.
 *
 * Why here: the tables are immutable, so every world of a process (a host
 * that resets, a test runner, the Python package) should share them;
 * sharing across worlds needs a once-initialiser, which physics/ may not
 * use (archcheck: no threads in simulation code). The station, the one
 * place that knows every model, owns them and hands them to each unit's
 * primary and fuel.
 *
 * Why the (p, h) table is not made here: making it is IF97 over the whole
 * grid, 0.2 s of CPU (about 1 s under ASan) and 14.1 MB in every process
 * that runs a station, and a test runner or a CLI test starts hundreds of
 * processes. The build makes it once (tools/gen_water_ph.c) and embeds its
 * image (station/water_ph_image.S, pcs_water_ph_image); the first call here
 * opens that image (pcs_water_ph_table_image_open: header checks and a
 * small malloc'd header, microseconds), and the table's arrays are the
 * library's read-only pages. The image is the bits the build's own compiler
 * made with pcs_water_ph_table_create's code, so the tables, and every hash,
 * are those of a table made at run time (tests/test_water_ph_image.c). The
 * coolant (p, T) table is still made here (0.06 s, about a fifth of a
 * station's build).
 *
 * Memory ordering: each table's pthread_once publishes the table and its
 * status to every caller that returns from it (POSIX: the once routine's
 * effects happen before any pthread_once call for that control returns),
 * and nothing writes them afterwards, so plain reads follow. The embedded
 * image is constant data, written by nobody, so needs no ordering.
 */
#include <pthread.h>
#include <stdio.h>

#include "pcsim/coolant.h"
#include "pcsim/station.h"
#include "pcsim/water_ph.h"
#include "station/water_table.h"

/* What the two tables share: made once by their make function, then
 * read-only; a failed make is kept (status and message) so every later
 * caller gets the same error, not only the first. */
typedef struct shared_table {
    pthread_once_t once;
    pcs_status status; /* of making the table */
    char error[256];   /* pcs_last_error() of a failed make */
} shared_table;

static shared_table water = {.once = PTHREAD_ONCE_INIT};
static pcs_water_ph_table *water_table;

static shared_table coolant = {.once = PTHREAD_ONCE_INIT};
static pcs_coolant_water *coolant_table;

/* Keep how making @p t went: the last step of each make function. */
static void shared_made(shared_table *t, pcs_status st)
{
    t->status = st;
    if (st != PCS_OK)
        snprintf(t->error, sizeof t->error, "%s", pcs_last_error());
}

static void make_water_table(void)
{
    shared_made(&water, pcs_water_ph_table_image_open(pcs_water_ph_image, pcs_water_ph_image_bytes,
                                                      &water_table));
}

static void make_coolant_table(void)
{
    pcs_coolant_water_def d;
    pcs_coolant_water_default(&d);
    shared_made(&coolant, pcs_coolant_water_create(&d, &coolant_table));
}

/* Make @p t once (by @p make) and say whether the caller may read it;
 * messages start with @p fn, the caller's name. */
static pcs_status shared_get(const char *fn, shared_table *t, void (*make)(void), int out_given)
{
    if (!out_given)
        return pcs_error_set(PCS_E_INVAL, "%s: out is NULL", fn);
    pthread_once(&t->once, make);
    if (t->status != PCS_OK)
        return pcs_error_set(t->status, "%s: %s", fn, t->error);
    return PCS_OK;
}

pcs_status pcs_station_water_table(const pcs_water_ph_table **out)
{
    pcs_status st = shared_get("pcs_station_water_table", &water, make_water_table, out != NULL);
    if (st == PCS_OK)
        *out = water_table;
    return st;
}

pcs_status pcs_station_coolant_table(const pcs_coolant_water **out)
{
    pcs_status st =
        shared_get("pcs_station_coolant_table", &coolant, make_coolant_table, out != NULL);
    if (st == PCS_OK)
        *out = coolant_table;
    return st;
}
