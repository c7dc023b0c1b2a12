/**
 * @file station_freeze.h
 * @brief Freeze and thaw a station's units while the world keeps running.
 *
 * pcs_station_freeze_add (build phase, after pcs_station_add, opt-in: a
 * station without it builds and hashes as before) registers two STATE stores,
 * "station.frozen" (one uint32 flag per unit, published as channel
 * "uN.frozen") and "station.frozen_at" (the tick each unit froze at), and
 * gates every system and job named "uN." on unit N's flag (pcsim/system.h, "Gates").
 * Both are saved and hashed, so a frozen unit is deterministic for any
 * number of workers and readers, and a load restores it.
 *
 * pcs_station_freeze stops the unit between ticks: its systems are skipped
 * and its SLOW jobs not submitted; its stores, and so its channels, hold
 * their values; the other units keep stepping. pcs_station_thaw resumes it
 * after advancing its decay heat and poisons over the frozen time in closed
 * form (pcsim/unit_freeze.h): the world ticks since the freeze times dt, plus
 * @p extra_s, an explicit duration for hosts (games) that unload a unit
 * without ticking through the time it was away (freeze, tick one SLOW period,
 * thaw with extra_s = the time away). A thaw needs the unit frozen for at
 * least one SLOW period (20 ticks), so the xenon run in flight has merged.
 *
 * In a scenario: a "freeze" section, {"hold": "as_frozen" | "shutdown",
 * "decay_heat_clock": "real_time" | "split", "split_mean_life_s": 3600}
 * (every key optional), makes pcs_station_add call pcs_station_freeze_add,
 * and the script commands "freeze" (target uN) and "thaw" (target uN, value
 * extra_s) apply at stage 1 of their tick, exactly as the calls between
 * ticks would (tests/test_freeze.c).
 *
 * Station-wide systems (sensor bank, alarms) keep running and read the
 * frozen unit's held stores; commands to a frozen unit are still applied to
 * its stores by their handlers and take effect on thaw.
 */
#ifndef PCSIM_STATION_FREEZE_H
#define PCSIM_STATION_FREEZE_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/station.h"
#include "pcsim/status.h"
#include "pcsim/unit_freeze.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Command family of freeze and thaw: targets "uN"; THAW's args[0] is extra_s. */
#define PCS_STATION_FREEZE_COMMANDS "freeze"
/** Ops of the family (kind = first kind + op). */
typedef enum pcs_station_freeze_op {
    PCS_STATION_FREEZE_OP_FREEZE = 0, /**< pcs_station_freeze */
    PCS_STATION_FREEZE_OP_THAW = 1,   /**< pcs_station_thaw with extra_s = args[0] */
    PCS_STATION_FREEZE_OP_COUNT = 2,
} pcs_station_freeze_op;

/** Freeze options of a station (the scenario options of issue 19). */
typedef struct pcs_station_freeze_def {
    pcs_freeze_hold hold;                  /**< AS_FROZEN (default) or SHUTDOWN */
    pcs_decay_heat_clock decay_heat_clock; /**< REAL_TIME (default) or SPLIT */
    double split_mean_life_s;              /**< SPLIT threshold, s, > 0 (default 3600) */
} pcs_station_freeze_def;

/** Defaults: AS_FROZEN, REAL_TIME, 3600 s. */
PCS_API pcs_station_freeze_def pcs_station_freeze_default(void);

/**
 * Make @p st's units freezable (see the file comment), and register the
 * "freeze" command family on targets "uN" (applied at stage 1 of a tick, so
 * scripts and journals freeze and thaw deterministically). Build phase,
 * once; pcs_station_add calls it for a scenario with a "freeze" section.
 * @return PCS_E_INVAL (NULL, bad def field, a station without units, twice),
 *         errors of store, channel and gate registration.
 */
PCS_API pcs_status pcs_station_freeze_add(pcs_world *w, pcs_station *st,
                                          const pcs_station_freeze_def *def);

/**
 * Freeze unit @p unit (1-based, the N of "uN") between ticks.
 * @return PCS_E_INVAL (no freeze support, unit out of range), PCS_E_STATE
 *         when already frozen.
 */
PCS_API pcs_status pcs_station_freeze(pcs_station *st, uint32_t unit);

/**
 * Thaw unit @p unit between ticks: advance its slow state over the ticks
 * frozen x dt + @p extra_s (>= 0) and resume it. @p frozen_s (optional) is
 * set to the gap applied, s.
 * @return PCS_E_INVAL (as pcs_station_freeze, bad extra_s), PCS_E_STATE
 *         when not frozen or frozen for less than one SLOW period.
 */
PCS_API pcs_status pcs_station_thaw(pcs_station *st, uint32_t unit, double extra_s,
                                    double *frozen_s);

/** 1 when unit @p unit is frozen, else 0. */
PCS_API int pcs_station_unit_frozen(const pcs_station *st, uint32_t unit);

#ifdef __cplusplus
}
#endif

#endif
