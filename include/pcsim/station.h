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
 * prints. A NULL object or out-pointer is PCS_E_INVAL; an accessor given
 * NULL returns its neutral value ("", 0, NULL, a zeroed struct).
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
    /** Rate limit of the host's command source (the script in `pcsim run`,
     *  the act source in `pcsim serve`): commands per simulated second, 0 for
     *  none; default 400 (scenarios/README.md, pcs_command_source_set_rate). */
    double command_rate_per_s;
    uint32_t command_burst; /**< its burst; default 800 */
} pcs_scenario_run;

/**
 * Load, migrate and validate the scenario file @p path. The file must be a
 * regular file of at most opts->max_bytes (checked with fstat before reading).
 * @p opts may be NULL. On success *out owns the scenario (pcs_scenario_destroy).
 * Errors: PCS_E_INVAL (a file that cannot be opened or read, is not a regular
 * file, or holds a bad or oversized document: the message names the file,
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

/**
 * The JSON text of one section of the migrated scenario, for the plugin that
 * owns it (pcsim/plugin.h: pcs_plugin_def.section_json). @p section is a
 * top-level section ("units", "instrumentation") or "plugins.NAME", the
 * member NAME of the scenario's optional "plugins" object, where a host
 * keeps its own plugins' sections (the loader requires each to be an
 * object; its fields are the plugin's to check, naming "$.plugins.NAME.x").
 * The text is compact with sorted keys. At most @p len bytes, NUL included,
 * are written to @p buf (NULL with len 0 to measure).
 * @return the length of the whole text without its NUL; 0 when the section
 *         is absent or an argument is NULL. Any thread (the scenario is
 *         read-only).
 */
PCS_API size_t pcs_scenario_section_json(const pcs_scenario *s, const char *section, char *buf,
                                         size_t len);

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
 * @p warn (at most @p warn_len bytes in all; NULL: no warning text).
 * @p min_ticks raises the result (and warns). PCS_E_INVAL for a value the
 * clock cannot represent or a NULL @p ticks. Any thread.
 */
PCS_API pcs_status pcs_scenario_seconds_to_ticks(double dt_s, double seconds, uint64_t min_ticks,
                                                 const char *where, uint64_t *ticks, char *warn,
                                                 size_t warn_len);

/** The station's plugin ids and priorities (compatibility contract: the
 *  order of their callbacks; `pcsim info --schedule` prints them). */
#define PCS_STATION_PLUGIN_PLANT "pcsim.plant"
#define PCS_STATION_PLUGIN_PLANT_PRIORITY 0
#define PCS_STATION_PLUGIN_INSTRUMENTATION "pcsim.instrumentation"
#define PCS_STATION_PLUGIN_INSTRUMENTATION_PRIORITY 100

/**
 * Build the scenario's station into @p w (not yet ticked; created with
 * pcs_scenario_world_def or an equal config): units, their primaries,
 * instrumentation, protection, alarms, their channels and command targets.
 * A scenario without units builds an empty station. On the world's thread.
 * The models enter as two plugins (pcsim/plugin.h), added in this order:
 * PCS_STATION_PLUGIN_PLANT owns "units" (units, their primaries and command
 * targets) and PCS_STATION_PLUGIN_INSTRUMENTATION owns "instrumentation"
 * (sensors, protection, alarms); neither has step callbacks or a shutdown.
 * A host adds its own plugins before or after this call.
 * Errors: the model's status, message "<source>: $.<section>: plugin 'ID'
 * initialize: <why>" (section "units" or "instrumentation").
 * The station keeps @p w; destroy the station before the world.
 */
PCS_API pcs_status pcs_station_add(pcs_world *w, const pcs_scenario *s, pcs_station **out);

/**
 * Entity kinds of the station's devices (pcsim/entity.h). pcs_station_add
 * registers every unit ("u1"), reactor coolant pump ("u1.pump2"), valve
 * ("u1.msiv3"), sensor ("u1.loop1.flow.B") and alarm ("u1.alarm.flow_low.2")
 * as an entity of the world's entity table under its command-target name:
 * each unit followed by its pumps and valves, then the sensors in channel
 * order, then the alarms, so the same scenario gives the same ids and
 * handles; a unit added while running (unit_add) gets its devices in the
 * same order. Pumps, valves, sensors and alarms are owned by their unit's
 * entity; a sensor's (store, row) is its measured value's
 * (pcs_sensor_value_ref), a valve's its position channel's (opening, 0 shut
 * to 1 open). A world without a table gets one of max(256, 2 x devices)
 * slots; a host's own table is used as it is (a full table or a name the
 * host already took fails pcs_station_add, naming it). No model's state
 * changes, but the table is world state: it is saved and in the state hash.
 *
 * Valves. A valve is an entity when a command target names that valve (or
 * the one lumped position the model gives a bank of valves) and nothing
 * else. Per unit, in this order:
 *   - "uN.msivK", K = 1..SGs: the main steam isolation valves (row: channel
 *     "uN.sgK.msiv", pcsim/interlock.h);
 *   - "uN.porvK": the SG PORVs (row: "uN.sgK.porv_opening", pcsim/sg_porv.h);
 *   - "uN.dumpctl": the steam dump, one device because the model moves its
 *     12 valves as one demand (row: "uN.dumpctl.demand", pcsim/steam_dump.h).
 * The group targets "uN.msiv" (every MSIV) and "uN.porvctl" (every PORV)
 * are commands to several entities, not devices. Valves no target names
 * alone are not entities (an entity's name is one a command can use): the
 * turbine's stop and control valves ("uN.turbine" is the turbine-generator),
 * the pressurizer spray valves ("uN.pzr" is the pressurizer controller), the
 * main feed regulating and bypass valves ("uN.sgctl" is the SG level
 * controller), the feed isolation valves (the interlocks close them), the
 * pressurizer PORVs and safety valves and the SG safety valves (self-acting
 * in their models, no command). A unit without a valve's target (a summary
 * unit, boundary SGs) has no such entity.
 */
typedef enum pcs_station_entity_kind {
    PCS_STATION_ENTITY_UNIT = 1,
    PCS_STATION_ENTITY_PUMP = 2,
    PCS_STATION_ENTITY_SENSOR = 3,
    PCS_STATION_ENTITY_ALARM = 4,
    PCS_STATION_ENTITY_VALVE = 5,
} pcs_station_entity_kind;

/**
 * Structural commands (pcsim/structure.h): a reactor coolant pump removed
 * and installed while the world runs, by name through pcs_station_command
 * and scripts like any command: "pump_remove" and "pump_install", target
 * "uN.pumpK". Their kinds are fixed (below, at the top of the kind space,
 * away from the families the engine hands out from 1); args[0] is the unit
 * (1-based), args[1] the pump (1-based), the target field 0.
 *
 * Stage 1 (check) refuses an unknown unit or pump, a removal of a removed
 * pump (or of one already being removed this tick) and an install of an
 * installed one, each naming the target and its state; an accepted change
 * emits PCS_EV_PRIMARY_PUMP_REMOVED / _INSTALLED at once (the event list
 * closes at stage 13, before the apply: the event says what the end of the
 * tick does). The apply, after stage 13: remove destroys the pump's entity
 * (its handle is stale from then on), removes its command target
 * "uN.pumpK" (ids kept by a host are refused), retires its channel
 * "uN.pumpK.speed" and takes the pump out of the loop
 * (pcs_primary_pump_remove); install puts it back stopped
 * (pcs_primary_pump_install; "pump_start" runs it up), registers its target
 * again (a new generation), its channel again (a new id) and creates a new
 * entity (a new id). Ids are never reused. The primary's stores keep their
 * rows, and the removal is in its state (pump_on = PCS_PRIMARY_PUMP_REMOVED),
 * so a save with a pump removed loads into a station built from the same
 * scenario (the engine re-applies the structure log first) to the same hash.
 */
#define PCS_STATION_KIND_PUMP_REMOVE 250u
#define PCS_STATION_KIND_PUMP_INSTALL 251u

/**
 * Structural command "unit_add" (target "uN", a unit with "build":
 * "later"; pcsim/structure.h, station/station_units.c): its kind is fixed
 * at the top of the kind space,
 * away from the families the engine hands out from 1, and registered only
 * by a station whose scenario has such a unit; args[0] is the unit
 * (1-based), the target field 0. Stage 1 refuses an unknown unit, a built
 * one, a second add of it in one tick and one whose predecessor is not
 * built, naming the unit and its state; an accepted add emits
 * PCS_EV_STATION_UNIT_ADD at once (the event list closes at stage 13,
 * before the apply: the event says what the end of the tick does).
 */
#define PCS_STATION_KIND_UNIT_ADD 252u

/**
 * Structural command "unit_remove" (target "uN", a running unit;
 * pcsim/structure.h, station/station_unit_remove.c): kind fixed beside
 * unit_add, registered by every station of two or more units (a station of
 * one has nothing it may remove); args[0] is the unit (1-based), the target
 * field 0. Stage 1 refuses an unknown unit, one never built, one already
 * removed or accepted for removal this tick, and the last running unit,
 * naming the unit and its state; an accepted removal emits
 * PCS_EV_STATION_UNIT_REMOVE at once. The apply, after stage 13, retires
 * every system, job and channel named "uN." (so they leave the schedule,
 * the snapshot layout and name lookups; old ids fail), removes every
 * command target "uN" and "uN.*" and destroys the entity of each (stale
 * handles fail). The unit's stores stay (structure.h) with their last
 * values, in saves and in the hash. A removed unit never comes back:
 * unit_add builds only units never built. Station-wide instrumentation
 * banks built at the start keep evaluating the removed unit's rows on its
 * held stores, as for a frozen unit (station_unit_remove.c says why).
 */
#define PCS_STATION_KIND_UNIT_REMOVE 253u

/** Station event kinds: PCS_EV_MODEL_BASE + 192..199 (past event.h's
 *  model ranges). PCS_EV_STATION_UNIT_ADD: subject the unit (1-based);
 *  values: initial power fraction, nominal power W, loops.
 *  PCS_EV_STATION_FREEZE / _THAW: a "freeze" or "thaw" command applied
 *  (stage 1); subject the unit; THAW's value 0 the time it was frozen, s
 *  (real time plus the command's extra). pcs_station_freeze/_thaw called by
 *  a host between ticks emit none. PCS_EV_STATION_UNIT_REMOVE: an accepted
 *  unit_remove (stage 1); subject the unit; values: its core power W and
 *  its core power fraction of nominal at the check, running units left. */
enum {
    PCS_EV_STATION_UNIT_ADD = PCS_EV_MODEL_BASE + 192,
    PCS_EV_STATION_FREEZE = PCS_EV_MODEL_BASE + 193,
    PCS_EV_STATION_THAW = PCS_EV_MODEL_BASE + 194,
    PCS_EV_STATION_UNIT_REMOVE = PCS_EV_MODEL_BASE + 195,
};

/** Release the station's host-side state (the models stay in the world). */
PCS_API void pcs_station_destroy(pcs_station *st);

/** Number of plant units built: the scenario's units built at the start,
 *  plus each one a unit_add has built since (its "build": "later" units),
 *  removed ones included (unit_remove keeps the numbers;
 *  pcs_station_unit_running says which run). */
PCS_API uint32_t pcs_station_unit_count(const pcs_station *st);

/** 1 when unit @p unit (1-based) is built and not removed (unit_remove),
 *  else 0 (also for NULL). Units 1..pcs_station_unit_count are built; a
 *  removed one keeps its number, which is never given to another unit. */
PCS_API int pcs_station_unit_running(const pcs_station *st, uint32_t unit);

typedef struct pcs_water_ph_table pcs_water_ph_table;

/**
 * The process-wide (p, h) property table every station's primaries read
 * (pcsim/water_ph.h, default resolution). The build makes it (IF97 over the
 * whole grid, 14.1 MB) and embeds its image in the library; the first call
 * opens that image (pcs_water_ph_table_image_open: microseconds, one small
 * allocation; the arrays are the library's read-only pages) and every later
 * call returns the same table, until the process exits. It is bit for bit
 * the table pcs_water_ph_table_create makes with the default def. A table is
 * immutable, so any number of worlds and threads read it at once. A host
 * that builds plants itself (pcs_plant_add) may hand it to
 * pcs_primary_def.table to share it too.
 * @param out out: the table; never pass it to pcs_water_ph_table_destroy.
 * @return PCS_E_INVAL for NULL; the first call's error (PCS_E_NOMEM, or
 *         PCS_E_INVAL if the embedded image were refused), which every later
 *         call returns again.
 * Thread-safety: any thread; concurrent first calls make it once.
 */
PCS_API pcs_status pcs_station_water_table(const pcs_water_ph_table **out);

typedef struct pcs_coolant_water pcs_coolant_water;

/**
 * The process-wide (p, T) real-water coolant table every station's fuel
 * channels read (pcsim/coolant.h, default resolution): made by the first
 * call (about 60 ms) and kept until the process exits, as
 * pcs_station_water_table. A host that builds plants itself may set
 * pcs_fuel_def.props_fn = pcs_coolant_props_water and props_ctx to it.
 * @param out out: the table; never pass it to pcs_coolant_water_destroy.
 * @return PCS_E_INVAL for NULL; the first call's creation error, which every
 *         later call returns again.
 * Thread-safety: any thread; concurrent first calls make it once.
 */
PCS_API pcs_status pcs_station_coolant_table(const pcs_coolant_water **out);

typedef struct pcs_plant pcs_plant;

/** The plant the station built (pcsim/plant.h: its units, their primaries
 *  and instrumentation), NULL for a station without units. Same thread as
 *  the station. */
PCS_API const pcs_plant *pcs_station_plant(const pcs_station *st);

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
 * "unit_add" on "uN", a unit of the scenario with "build": "later", is a
 * structural command (pcsim/structure.h, station/station_units.c): no
 * target id, args[0] = N; only a station with such a unit has it.
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

/** The kind the station's world allocated to command @p command
 *  ("pump_trip"): what pcs_station_command puts in the command's kind.
 *  Errors: PCS_E_NOTFOUND (no such command, or its model is not built). */
PCS_API pcs_status pcs_station_command_kind(const pcs_station *st, const char *command,
                                            uint32_t *kind);

/**
 * One line of text for @p ev ("u2 pump2 TRIPPED at 12.0 rad/s") into @p out
 * (at most @p len bytes, NUL-terminated). Returns 1 when written, 0 for an
 * event not worth a line (then @p out is untouched).
 */
PCS_API int pcs_event_describe(const pcs_station *st, const pcs_event *ev, char *out, size_t len);

/* ---- Command journals ----------------------------------------------------
 * The text file a run writes (pcs_journal_writer; `pcsim run --journal`) and
 * a replay reads (pcs_journal_file, pcs_replay; `pcsim replay`), one item a
 * line:
 *   # pcsim journal v3
 *   # scenario SOURCE            (the scenario's file, or <built-in ...>)
 *   # scenario_hash H            (pcs_scenario_build_hash, hex)
 *   # seed N                     (world.seed, which the build hash leaves out)
 *   # start_tick N               (non-zero for a run resumed from a save)
 *   # kinds N                    (the station's command kind table: N lines)
 *   # kind NAME K                ("# kind pump_trip 7")
 *   # scenario_text BYTES        (the scenario's canonical JSON, which a
 *   # text CHUNK                  replay loads: lines of at most 384 bytes)
 *   # target NAME ID             (a target's stored id, before its first command)
 *   TICK KIND TARGET A0 A1 A2 A3 (every applied command, in tick order)
 *   # end_tick N hash H          (written when the run completed)
 * KIND and TARGET are as the scenario's build assigns them in registration
 * order; the header's kind table and the target lines say what they were,
 * so a replay on a build that assigns otherwise is refused naming both
 * values. Every line and count is bounded; a bad line gets a message naming
 * the file and line number. v1 and v2 journals are refused, naming their
 * version.
 *
 * Threads: a pcs_journal_file is plain data (load and destroy on one thread,
 * read from any). The writer and the replay read the world's command journal
 * and tick it: on the world's thread. */

/** The journal format version written and read. */
#define PCS_JOURNAL_FILE_VERSION 3u

/** Most commands a journal may hold for one tick: the capacity of the
 *  replay's command source (a replay must be able to queue them all). */
#define PCS_JOURNAL_TICK_COMMANDS_MAX 256u

/** A command and the tick it applies at. */
typedef struct pcs_timed_command {
    uint64_t tick;
    pcs_command cmd;
} pcs_timed_command;

/** A parsed journal file (opaque). */
typedef struct pcs_journal_file pcs_journal_file;

/**
 * Open @p path (regular files only: a directory, FIFO or device is refused
 * without blocking) and parse it. What depends on the station it is replayed
 * on (scenario hash, kind table, start tick) is checked by
 * pcs_replay_check. Errors: PCS_E_INVAL (bad content or file: "<path>:<line>:
 * <why>"), PCS_E_NOMEM. On any return *out is a journal to destroy, or NULL.
 */
PCS_API pcs_status pcs_journal_file_load(const char *path, pcs_journal_file **out);

/** The same parse over @p len bytes of @p buf (@p name names it in messages). */
PCS_API pcs_status pcs_journal_file_parse(const char *name, const char *buf, size_t len,
                                          pcs_journal_file **out);

/** Number of commands, and the commands in tick order. */
PCS_API uint32_t pcs_journal_file_count(const pcs_journal_file *j);
PCS_API const pcs_timed_command *pcs_journal_file_commands(const pcs_journal_file *j);

/** The recorded start tick, end tick and final state hash. */
PCS_API uint64_t pcs_journal_file_start_tick(const pcs_journal_file *j);
PCS_API uint64_t pcs_journal_file_end_tick(const pcs_journal_file *j);
PCS_API uint64_t pcs_journal_file_hash(const pcs_journal_file *j);

/** The recorded scenario: its source ("# scenario"), build hash and seed. */
PCS_API const char *pcs_journal_file_scenario_source(const pcs_journal_file *j);
PCS_API uint64_t pcs_journal_file_scenario_hash(const pcs_journal_file *j);
PCS_API uint64_t pcs_journal_file_seed(const pcs_journal_file *j);

/** 1 when the journal carries its scenario's text ("# scenario_text"). */
PCS_API int pcs_journal_file_has_scenario(const pcs_journal_file *j);

/**
 * The scenario the journal was recorded with: its embedded text, loaded as
 * pcs_scenario_load_string does and named "<journal> (scenario SOURCE)"; or,
 * for a journal without text recorded on the built-in scenario, that one.
 * The result is checked with pcs_journal_file_check_scenario. @p opts as for
 * a load (NULL: defaults). Errors: PCS_E_NOTFOUND (no text, and not the
 * built-in: "<journal>: the journal does not carry its scenario (recorded
 * with 'SOURCE')"), PCS_E_INVAL (the text does not load, or its hash or seed
 * is not the header's: both named), PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_journal_file_scenario(const pcs_journal_file *j,
                                             const pcs_scenario_load_opts *opts,
                                             pcs_scenario **out);

/**
 * Check that @p s is the scenario the journal was recorded with: the same
 * build hash and seed. Errors: PCS_E_INVAL naming the journal, its header
 * line and both values ("j.journal:3: scenario hash 0123456789abcdef differs
 * from the scenario's 4567... (run.json)").
 */
PCS_API pcs_status pcs_journal_file_check_scenario(const pcs_journal_file *j,
                                                   const pcs_scenario *s);

/** Release a journal (NULL is ignored). */
PCS_API void pcs_journal_file_destroy(pcs_journal_file *j);

/** A journal being written (opaque). */
typedef struct pcs_journal_writer pcs_journal_writer;

/**
 * Start the journal of a run of @p st (built from @p s) at @p path, from the
 * world's current tick: write the header (the scenario's source, build hash,
 * seed and canonical text, the start tick and the station's kind table).
 * The file is a pcs_atomic_file: @p path keeps what it had until
 * pcs_journal_writer_close commits. On the world's thread, after the build
 * (and after a pcs_world_load), before the run's first tick.
 * Errors: PCS_E_INVAL (NULL argument, or @p s is not the scenario @p st was
 * built from), PCS_E_IO (pcs_atomic_file_create's message), PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_journal_writer_open(const char *path, const pcs_station *st,
                                           const pcs_scenario *s, pcs_journal_writer **out);

/**
 * Append the commands the world applied since the last call (its
 * pcs_journal_read entries), each target's name and id before its first
 * command. Call after every tick, or at least before journal_capacity
 * commands pile up. On the world's thread. Errors: PCS_E_OVERFLOW (entries
 * were overwritten before they were read: the count and the capacity
 * named), PCS_E_IO (a write failed).
 */
PCS_API pcs_status pcs_journal_writer_drain(pcs_journal_writer *jw);

/** Drain, then write the end line: the world's tick and state hash. The run
 *  is complete; a journal without this line is refused by a replay. */
PCS_API pcs_status pcs_journal_writer_end(pcs_journal_writer *jw);

/**
 * Finish and free @p jw (NULL is ignored). @p keep: commit what was written
 * over the path (also a journal without its end line, after a failed tick:
 * it shows how far the run got); 0: discard it and leave the path as it was.
 * Errors: PCS_E_IO from the commit (the path then keeps what it had).
 */
PCS_API pcs_status pcs_journal_writer_close(pcs_journal_writer *jw, int keep);

/** Hooks of a replay, called on its (the world's) thread; all optional. */
typedef struct pcs_replay_opts {
    void (*before_tick)(void *ctx, uint64_t tick); /**< the tick's commands are queued */
    void (*after_tick)(void *ctx, uint64_t tick);  /**< the tick ran */
    void *ctx;
    uint16_t source_class; /**< the replay's command source; 0: 2 (a pcsim run's script) */
    uint32_t source_id;    /**< with source_class; 0 with it: 1 */
} pcs_replay_opts;

/** What a replay did. */
typedef struct pcs_replay_result {
    uint64_t ticks_run;    /**< ticks this call ran */
    uint64_t final_hash;   /**< pcs_world_state_hash at the end tick; 0 if not reached */
    uint64_t journal_hash; /**< the hash the journal recorded */
    int completed;         /**< the world reached the journal's end tick */
} pcs_replay_result;

/**
 * Check @p j against the station @p st it is to be replayed on: the scenario
 * hash and seed (of the world's configuration: pcs_scenario_world_def's),
 * the world's tick against the journal's start tick (a resumed run replays
 * from its save), no tick with more commands than the world's
 * commands_per_tick, every "# kind" line against the station's kind of that
 * name, every command of a kind the station names against the journal's
 * kind table, and every structural command's own fields (target and args:
 * pcs_structure_command_validate, refused at its line naming the field, its
 * value and the allowed range). The "# target" lines are checked by
 * pcs_replay when the first command after them is queued, at its tick (the
 * world's id of that name must equal the line's): a structural change
 * registers targets while the world runs (pcsim/structure.h), and by then
 * the replay has re-applied it.
 * Errors: PCS_E_INVAL, naming the journal, its line and both values
 * ("run.journal:7: kind 'pump_trip' is 7 in the journal, 5 in the station").
 * On the world's thread.
 */
PCS_API pcs_status pcs_replay_check(const pcs_station *st, const pcs_journal_file *j);

/**
 * Replay @p j on @p st's world: pcs_replay_check, then for every tick from
 * the world's to the journal's end tick queue the journal's commands of that
 * tick through one command source, tick, and at the end compare the state
 * hash with the recorded one. @p opts may be NULL; @p out (optional) says
 * what happened. On the world's thread (it ticks the world; the command
 * source is opened once per world, so one replay per world).
 * After each tick every command it queued must be in the world's journal
 * (applied, in order): a command the replay's world rejects (a duplicated
 * or edited line) changes no state, so the end hash alone could agree.
 * Errors: pcs_replay_check's; a tick's error ("<journal>: tick N failed:
 * ..."); PCS_E_INVAL at the first line not applied at its tick, without
 * completing ("<journal>:38: tick 20: unit_add (kind 252) was rejected by
 * the replay (PCS_E_STATE); ..."); PCS_E_OVERFLOW when the world's journal
 * lost entries before they were compared (journal_capacity); PCS_E_CORRUPT
 * when the run completed but the hashes differ ("<journal>: final hash X
 * differs from the journal's Y").
 */
PCS_API pcs_status pcs_replay(pcs_station *st, const pcs_journal_file *j,
                              const pcs_replay_opts *opts, pcs_replay_result *out);

#ifdef __cplusplus
}
#endif

#endif
