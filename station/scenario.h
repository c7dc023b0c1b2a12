/**
 * @file scenario.h
 * @brief Scenario files: schema versions, migration, validation, and the
 *        in-memory scenario (internal to station/; hosts use pcsim/station.h).
 */
#ifndef PCS_STATION_SCENARIO_H
#define PCS_STATION_SCENARIO_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "pcsim/plant.h"
#include "pcsim/station.h"
#include "pcsim/station_freeze.h"
#include "pcsim/station_sleep.h"
#include "pcsim/world.h"

#define SCN_MAX_SCRIPT PCS_SCENARIO_ACTIONS_MAX
#define SCN_MAX_READER_CHANNELS PCS_SCENARIO_READER_NAMES_MAX

/** One scripted command (the public pcs_scenario_action). */
typedef pcs_scenario_action scn_action;

typedef struct scenario {
    char name[64];
    char source[256]; /**< file it came from, or "<built-in>" */
    pcs_world_def world;
    pcs_scenario_run run; /**< "run" and "readers" (pcs_scenario_run_params) */
    char reader_names[SCN_MAX_READER_CHANNELS][96]; /**< explicit channels ("readers.names") */
    scn_action script[SCN_MAX_SCRIPT];
    uint32_t n_script;
    pcs_plant_unit_def units[PCS_PLANT_MAX_UNITS]; /**< "units", checked to build */
    char unit_names[PCS_PLANT_MAX_UNITS][16];      /**< "u1".. */
    uint32_t n_units;                              /**< 0: no plant */
    uint32_t n_start; /**< units built at the start: the first n_start (the others have
                           "build": "later", added by unit_add; n_units when none) */
    pcs_plant_setpoints setpoints;                 /**< "instrumentation" */
    int freeze;                        /**< 1: a "freeze" section (units can be frozen) */
    pcs_station_freeze_def freeze_def; /**< its options */
    int sleep;                         /**< 1: a "sleep" section (units can sleep) */
    pcs_station_sleep_def sleep_def;   /**< its options */
    json_t *doc;                       /**< the migrated document (owned), for model sections */
    char warnings[1024];               /**< rounding warnings, one per line ("" if none) */
} scenario;

/**
 * Load, migrate and validate a scenario from @p file, or the built-in default
 * when @p file is NULL. On failure returns -1 and writes one message naming the
 * file, the JSON path and the reason into @p err.
 */
int scenario_load(const char *file, scenario *out, char *err, size_t err_len);

/** Limits of a scenario load; a zero field takes its default. */
typedef struct scenario_load_opts {
    size_t max_bytes; /**< largest scenario accepted, bytes, checked before parsing;
                           0: SCN_DEFAULT_MAX_BYTES */
} scenario_load_opts;

/** Default size limit of a scenario file (4 MiB; `pcsim run --max-scenario-bytes`). */
#define SCN_DEFAULT_MAX_BYTES PCS_SCENARIO_DEFAULT_MAX_BYTES

/**
 * scenario_load with limits: @p file (NULL: the built-in default) must be a
 * regular file of at most opts->max_bytes bytes; both are checked with fstat
 * before anything is read or parsed, and the message names the file, its
 * size and the limit. @p opts may be NULL (defaults).
 */
int scenario_load_ex(const char *file, const scenario_load_opts *opts, scenario *out, char *err,
                     size_t err_len);

/**
 * Load, migrate and validate a scenario held in memory: @p len bytes at
 * @p data (need not be NUL-terminated), named @p name in messages, refused
 * above opts->max_bytes. For fuzzing and embedding hosts. Release with
 * scenario_free, also after a failure.
 */
int scenario_load_buffer(const char *name, const char *data, size_t len,
                         const scenario_load_opts *opts, scenario *out, char *err, size_t err_len);

/**
 * Convert @p seconds to whole ticks of @p dt_s by rounding the total
 * (docs/ARCHITECTURE.md section 3). When rounding changes the value by more than 1 %,
 * append a line "<where>: X s is N ticks of dt s (Y s, Z % off)" to @p warn
 * (at most @p warn_len bytes in all). @p min_ticks raises the result (and
 * warns). Returns -1 for a value the clock cannot represent.
 */
int scenario_seconds_to_ticks(double dt_s, double seconds, uint64_t min_ticks, const char *where,
                              uint64_t *ticks, char *warn, size_t warn_len);

/** Release what scenario_load kept. */
void scenario_free(scenario *s);

/** Migrate a document of any supported older schema to the current one in place. */
int scenario_migrate(json_t *doc, char *err, size_t err_len);

/** The built-in default scenario text (scenarios/pwr-station.json), assembled
 *  into the library by station/default_scenario.S. Hidden: hosts call
 *  pcs_scenario_default_text(). */
extern const char pcs_default_scenario[] __attribute__((visibility("hidden")));

#endif
