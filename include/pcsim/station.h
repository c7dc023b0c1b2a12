/**
 * @file station.h
 * @brief The reactor station as a library object: scenarios (load, migrate,
 *        validate), the station built from one into a world, commands by
 *        name, event texts, the station's channels, and the command journal
 *        file a run writes and a replay reads.
 *
 * A host that wants the PWR station embeds it with these calls only
 * (examples/station.c):
 *
 *     pcs_scenario *scn;  pcs_scenario_default(&scn);
 *     pcs_world_def cfg = pcs_scenario_world_def(scn);
 *     pcs_world *w;       pcs_world_create(&cfg, &w);
 *     pcs_station *st;    pcs_station_add(w, scn, &st);
 *     pcs_command c;      pcs_station_command(st, "u2.pump2", "pump_trip", 0.0, &c);
 *     pcs_command_submit(w, &c);  ... pcs_world_tick(w) ...
 *     pcs_station_destroy(st); pcs_world_destroy(w); pcs_scenario_destroy(scn);
 *
 * Threads. A scenario is plain data once loaded: load and destroy it on any
 * one thread, read it from any number of threads. Build, command resolution
 * and destroy of a station happen on the thread that created its world (the
 * world's mimalloc heap allocates only there, docs/ARCHITECTURE.md section
 * 2); the resolved pcs_command may then be submitted from any thread through
 * the world's command API. pcs_event_describe reads only what the build
 * fixed and may be called from any thread while the station lives.
 *
 * Errors. Every call that can fail returns a pcs_status and leaves one
 * message in pcs_last_error() naming the file (or "<built-in ...>"), the
 * JSON path, the field, the value and the allowed range. The library never
 * prints.
 *
 * Units: SI throughout (s, K, Pa, W, kg/s); command values are those of the
 * scenario script (docs: scenarios/README.md).
 */
#ifndef PCSIM_STATION_H
#define PCSIM_STATION_H

#include <stddef.h>
#include <stdint.h>

#include "pcsim/command.h"
#include "pcsim/event.h"
#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Current scenario schema; older documents are migrated to it when loaded. */
#define PCS_SCENARIO_SCHEMA 1

/** Default size limit of a scenario file or text: 4 MiB. */
#define PCS_SCENARIO_DEFAULT_MAX_BYTES ((size_t)4 << 20)

/** Most script actions a scenario holds. */
#define PCS_SCENARIO_ACTIONS_MAX 256u

/** Most channels a scenario's "readers.names" lists. */
#define PCS_SCENARIO_READER_NAMES_MAX 64u

/** A parsed, migrated and validated scenario (opaque). */
typedef struct pcs_scenario pcs_scenario;

/** A station built into a world (opaque). */
typedef struct pcs_station pcs_station;

/** Limits of a scenario load; a zero field takes its default. */
typedef struct pcs_scenario_load_opts {
    size_t max_bytes; /**< largest scenario accepted, bytes, checked before parsing;
                           0: PCS_SCENARIO_DEFAULT_MAX_BYTES */
} pcs_scenario_load_opts;

/** One scripted command: at simulated time t_s, do `command` on `target`. */
typedef struct pcs_scenario_action {
    double t_s;       /**< simulated time, s */
    uint64_t tick;    /**< t_s rounded to whole ticks (total, not per unit) */
    char command[32]; /**< command name ("pump_trip", see pcs_station_command) */
    char target[32];  /**< unit, pump, alarm or sensor name ("u2.pump2") */
    double value;     /**< command argument (SI); 0 when absent */
    int has_value;    /**< the action gave "value" (trip_bypass requires it) */
} pcs_scenario_action;

/** How a host runs the scenario: length, timeline and reader load ("run", "readers"). */
typedef struct pcs_scenario_run {
    double run_seconds;       /**< run length, s */
    uint64_t run_ticks;       /**< run length in ticks */
    double timeline_every_s;  /**< timeline period, s */
    uint64_t timeline_ticks;  /**< timeline period in ticks (>= 1) */
    uint32_t readers;         /**< reader threads */
    double reader_rate_hz;    /**< reads per simulated second per reader */
    uint32_t reader_channels; /**< channels each reader reads */
    uint32_t n_reader_names;  /**< explicit channels (pcs_scenario_reader_name); 0: all */
} pcs_scenario_run;

/**
 * Load, migrate and validate the scenario file @p path. The file must be a
 * regular file of at most opts->max_bytes (checked with fstat before reading).
 * @p opts may be NULL. On success *out owns the scenario (pcs_scenario_destroy).
 * Errors: PCS_E_INVAL (bad or oversized document: the message names the file,
 * the JSON path and the reason), PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_scenario_load_file(const char *path, const pcs_scenario_load_opts *opts,
                                          pcs_scenario **out);

/**
 * The same over @p len bytes at @p text (need not be NUL-terminated), named
 * @p name in messages.
 */
PCS_API pcs_status pcs_scenario_load_string(const char *name, const char *text, size_t len,
                                            const pcs_scenario_load_opts *opts, pcs_scenario **out);

/** The built-in station (scenarios/pwr-station.json, carried by the library). */
PCS_API pcs_status pcs_scenario_default(pcs_scenario **out);

/** The built-in station's document text (NUL-terminated JSON). */
PCS_API const char *pcs_scenario_default_text(void);

/** Release a scenario (NULL is ignored). */
PCS_API void pcs_scenario_destroy(pcs_scenario *s);

/** "name" of the document (may be empty). */
PCS_API const char *pcs_scenario_name(const pcs_scenario *s);

/** The file it came from, or the name given to pcs_scenario_load_string. */
PCS_API const char *pcs_scenario_source(const pcs_scenario *s);

/** The world configuration ("world"), with build_hash set to pcs_scenario_build_hash. */
PCS_API pcs_world_def pcs_scenario_world_def(const pcs_scenario *s);

/** XXH3-64 of what builds the world (all of the migrated document but
 *  name, run, readers, script, world.seed and world.workers). */
PCS_API uint64_t pcs_scenario_build_hash(const pcs_scenario *s);

/** Run length, timeline and reader settings. */
PCS_API pcs_scenario_run pcs_scenario_run_params(const pcs_scenario *s);

/** Channel name @p i of "readers.names" (i < n_reader_names), else NULL. */
PCS_API const char *pcs_scenario_reader_name(const pcs_scenario *s, uint32_t i);

/** Number of plant units ("units"); 0: the scenario builds no plant. */
PCS_API uint32_t pcs_scenario_unit_count(const pcs_scenario *s);

/** Number of script actions. */
PCS_API uint32_t pcs_scenario_action_count(const pcs_scenario *s);

/** Script action @p i (in time order), or NULL when i is out of range. */
PCS_API const pcs_scenario_action *pcs_scenario_action_get(const pcs_scenario *s, uint32_t i);

/** Rounding warnings of the load, one per line ("" if none). */
PCS_API const char *pcs_scenario_warnings(const pcs_scenario *s);

/**
 * Convert @p seconds to whole ticks of @p dt_s by rounding the total
 * (docs/ARCHITECTURE.md section 3). When rounding changes the value by more
 * than 1 %, append a line "<where>: X s is N ticks of dt s (Y s, Z % off)" to
 * @p warn (at most @p warn_len bytes in all). @p min_ticks raises the result
 * (and warns). PCS_E_INVAL for a value the clock cannot represent.
 */
PCS_API pcs_status pcs_scenario_seconds_to_ticks(double dt_s, double seconds, uint64_t min_ticks,
                                                 const char *where, uint64_t *ticks, char *warn,
                                                 size_t warn_len);

/**
 * Build the scenario's station into @p w (not yet ticked; created with
 * pcs_scenario_world_def or an equal config): units, hydraulics,
 * instrumentation, protection, alarms, their channels and command targets.
 * A scenario without units builds an empty station. On the world's thread.
 * Errors: the model's status, message "<source>: $.units: <why>".
 * The station keeps @p w; destroy the station before the world.
 */
PCS_API pcs_status pcs_station_add(pcs_world *w, const pcs_scenario *s, pcs_station **out);

/** Release the station's host-side state (the models stay in the world). */
PCS_API void pcs_station_destroy(pcs_station *st);

/** Number of plant units built. */
PCS_API uint32_t pcs_station_unit_count(const pcs_station *st);

/** The channels the build registered: ids [*first, *first + *count)
 *  (pcs_channel_get names them). */
PCS_API void pcs_station_channels(const pcs_station *st, uint32_t *first, uint32_t *count);

/**
 * Resolve @p command ("pump_trip", "scram", "rod_position", ...) on the
 * target named @p target ("u2.pump2", "u1", "u1.bank_d", "u1.rps.high_flux")
 * with argument @p value into a ready-to-submit command (kind, target id,
 * args; source and sequence are the submitter's). Checks the value against
 * the range the model's handler accepts. On the world's thread (the lookup
 * reads the build's registries; the result may be submitted from any thread).
 * Errors: PCS_E_NOTFOUND (unknown command or target), PCS_E_INVAL (value out
 * of range), each naming the command, target, value and the allowed range.
 */
PCS_API pcs_status pcs_station_command(const pcs_station *st, const char *target,
                                       const char *command, double value, pcs_command *out);

/** The same for script action @p index of @p s; messages name the scenario
 *  file and "$.script[index].command|target|value". */
PCS_API pcs_status pcs_station_script_command(const pcs_station *st, const pcs_scenario *s,
                                              uint32_t index, pcs_command *out);

/** Number of command names pcs_station_command knows. */
PCS_API uint32_t pcs_station_command_name_count(void);

/** Command name @p i, or NULL when i is out of range. */
PCS_API const char *pcs_station_command_name(uint32_t i);

/**
 * One line of text for @p ev ("u2 pump2 TRIPPED at 12.0 rad/s") into @p out
 * (at most @p len bytes, NUL-terminated). Returns 1 when written, 0 for an
 * event not worth a line (then @p out is untouched).
 */
PCS_API int pcs_event_describe(const pcs_station *st, const pcs_event *ev, char *out, size_t len);

/* ---- Command journal files -----------------------------------------------
 * The text file `pcsim run --journal` writes, one item per line:
 *   # pcsim journal v2
 *   # scenario SOURCE            (the scenario's file, or <built-in ...>)
 *   # start_tick N               (non-zero for a run resumed from a save)
 *   TICK KIND TARGET A0 A1 A2 A3 (every applied command, in tick order)
 *   # end_tick N hash H          (written when the run completed)
 * KIND and TARGET are as the scenario's build assigns them in registration
 * order. Every line and count is bounded; a bad line gets a message naming
 * the file and line number. */

/** The journal format version written and read. */
#define PCS_JOURNAL_FILE_VERSION 2u

/** Most commands a journal may hold for one tick: the capacity of a host's
 *  script producer ring (a replay must be able to queue them all). */
#define PCS_JOURNAL_TICK_COMMANDS_MAX 256u

/** A command and the tick it applies at. */
typedef struct pcs_timed_command {
    uint64_t tick;
    pcs_command cmd;
} pcs_timed_command;

/** What a journal is checked against: the replay that reads it. */
typedef struct pcs_journal_expect {
    const char *file;           /**< path, shown in every message */
    const char *scenario;       /**< source of the scenario being replayed on */
    int scenario_given;         /**< the host chose the scenario: the recorded one is not checked */
    uint64_t start_tick;        /**< tick the replay starts at */
    uint32_t commands_per_tick; /**< the scenario's limit, for the per-tick check */
} pcs_journal_expect;

/** A parsed journal file (opaque). */
typedef struct pcs_journal_file pcs_journal_file;

/**
 * Open x->file (regular files only: a directory, FIFO or device is refused
 * without blocking) and parse it. Errors: PCS_E_INVAL (bad content or file),
 * PCS_E_NOMEM. On any return *out is a journal to destroy, or NULL.
 */
PCS_API pcs_status pcs_journal_file_load(const pcs_journal_expect *x, pcs_journal_file **out);

/** The same parse over @p len bytes of @p buf (x->file only names it). */
PCS_API pcs_status pcs_journal_file_parse(const pcs_journal_expect *x, const char *buf, size_t len,
                                          pcs_journal_file **out);

/** Number of commands, and the commands in tick order. */
PCS_API uint32_t pcs_journal_file_count(const pcs_journal_file *j);
PCS_API const pcs_timed_command *pcs_journal_file_commands(const pcs_journal_file *j);

/** The recorded end tick and final state hash. */
PCS_API uint64_t pcs_journal_file_end_tick(const pcs_journal_file *j);
PCS_API uint64_t pcs_journal_file_hash(const pcs_journal_file *j);

/** Release a journal (NULL is ignored). */
PCS_API void pcs_journal_file_destroy(pcs_journal_file *j);

#ifdef __cplusplus
}
#endif

#endif
