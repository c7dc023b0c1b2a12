/**
 * @file station_internal.h
 * @brief The station's and the public scenario's internal layout (internal
 *        to station/; hosts use pcsim/station.h).
 */
#ifndef PCS_STATION_INTERNAL_H
#define PCS_STATION_INTERNAL_H

#include "pcsim/plant.h"
#include "pcsim/station.h"
#include "station/scenario.h"

/** The public scenario: the loader's scenario, heap-held. */
struct pcs_scenario {
    scenario s;
};

/** What a built station keeps: the world, the plant, and the unit
 *  configurations its name lookups and event texts read. */
struct pcs_station {
    pcs_world *world;
    pcs_plant *plant; /**< NULL when the scenario has no units */
    uint32_t n_units; /**< units built (running): u1..u<n_units> */
    uint32_t n_start; /**< built at the start; the scenario's others are "build": "later" */
    uint32_t n_all;   /**< the scenario's units: units[] holds every one */
    struct station_units *later;         /**< station_units.c; NULL without later units */
    struct station_unit_remove *removal; /**< station_unit_remove.c; NULL below two units */
    pcs_plant_setpoints setpoints;       /**< "instrumentation", for its plugin */
    uint32_t first_channel, n_channels;  /**< channels the build registered */
    char source[256];                    /**< the scenario's source, for messages */
    struct station_freeze *freeze;       /**< station_freeze.c; NULL until pcs_station_freeze_add */
    struct station_sleep *sleep;         /**< station_sleep.c; NULL until pcs_station_sleep_add */
    unsigned char *pump_pending; /**< station_structure.c: [unit][PCS_PLANT_MAX_LOOPS] change
                                      accepted this tick (1 remove, 2 install), else 0 */
    pcs_plant_unit_def units[];  /**< n_all of them (sized at pcs_station_add) */
};

/** station/station_entities.c: register the station's devices as entities
 *  (pcsim/station.h, pcs_station_entity_kind), after its plugins. */
pcs_status pcs_station_entities_add(pcs_station *st);

/** station/station_structure.c: the pump_remove / pump_install structural
 *  kinds (pcsim/station.h), after the entities. */
pcs_status pcs_station_structure_add(pcs_station *st);
/** Index of structural command @p command, or -1. */
int pcs_station_pump_command(const char *command);
uint32_t pcs_station_pump_command_kind(uint32_t i);
/** Structural command @p i on @p target into @p out; messages start with
 *  @p where (the place the target came from). */
pcs_status pcs_station_pump_resolve(const pcs_station *st, int i, const char *where,
                                    const char *target, pcs_command *out);
/** The number a target name spells at @p s: decimal digits only, no sign,
 *  space or leading zero, at most 9 of them (so it never wraps; the names
 *  the station registers are spelled so), the first character after them
 *  in @p *end. 0 when @p s does not start so. */
uint32_t pcs_station_name_number(const char *s, const char **end);
/** Structural command @p c named @p name, at stage 1 or saved in a log:
 *  no target, and args[@p n_used..] 0 (the station's structural commands
 *  take their place from args, and a log entry must be what stage 1 took);
 *  PCS_E_INVAL naming the field and value otherwise. */
pcs_status pcs_station_log_unused(const pcs_command *c, const char *name, uint32_t n_used);

/** station/station_entities.c: register unit @p u (0-based), added while
 *  running, its pumps, and its sensors among the channels from
 *  @p first_channel on and its alarms (its own banks). */
pcs_status pcs_station_entities_add_unit(pcs_station *st, uint32_t u, uint32_t first_channel);

/** station/station_units.c: the unit_add structural kind, registered when
 *  the scenario has units with "build": "later" (else nothing). */
pcs_status pcs_station_units_add(pcs_station *st);

/** station/station_sleep.c: unit @p i (0-based), just built by a unit_add
 *  apply, sleeps under the rules of a unit of the start (its gate, its held
 *  store, the sleep systems' access). PCS_OK at once without sleep. */
pcs_status pcs_station_sleep_unit_added(pcs_station *st, uint32_t i);

/** A structural unit command's args[0] (a save's log is not trusted): a
 *  whole number in [1, n_all] into @p n, else PCS_E_INVAL naming @p command,
 *  the value and the range. */
pcs_status pcs_station_unit_arg(const pcs_station *st, const char *command, const pcs_command *c,
                                uint32_t *n);

/** unit_add's kind (PCS_E_NOTFOUND naming the source without later units). */
pcs_status pcs_station_unit_add_kind(const pcs_station *st, uint32_t *kind);

/** "unit_add" on target "uN" into @p out; messages start with @p where. */
pcs_status pcs_station_unit_add_resolve(const pcs_station *st, const char *where,
                                        const char *target, pcs_command *out);

/** station/station_unit_remove.c: the unit_remove structural kind,
 *  registered by a station of two or more units (else nothing). */
pcs_status pcs_station_unit_remove_add(pcs_station *st);

/** "unit_remove" on target "uN" into @p out; messages start with @p where
 *  (PCS_E_NOTFOUND below two units: the kind is not registered). */
pcs_status pcs_station_unit_remove_resolve(const pcs_station *st, const char *where,
                                           const char *target, pcs_command *out);

#endif
