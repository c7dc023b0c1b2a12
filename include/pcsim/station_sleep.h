/**
 * @file station_sleep.h
 * @brief Sleeping units: a tripped, settled unit stops stepping until a
 *        command, an input change or its periodic wake (issue 19).
 *
 * The sleeping device is a plant unit: every system and job named "uN."
 * (core, primary, steam side, its controllers, interlocks and xenon job) as
 * one group, gated on a flag (pcsim/system.h, "Gates"), exactly as a freeze
 * gates it. pcs_station_sleep_add (build phase, after pcs_station_add,
 * opt-in: a station without it builds, schedules and hashes as before)
 * registers:
 *  - STATE stores "station.sleep" (one uint32 flag per unit, the gate,
 *    published as channel "uN.asleep"), "station.sleep.counts" (per unit:
 *    quiet ticks, ticks slept in this sleep, the trip input last seen, and
 *    the statistics of pcs_station_sleep_stats) and "station.sleep.prev"
 *    (the key state of the last awake tick): saved, loaded and hashed, so a
 *    sleeping station is the same for any workers and readers, and a load
 *    restores a sleeping unit;
 *  - two station systems: "station.sleep.wake" at stage 1 (after the
 *    command drain, before every unit system) and "station.sleep" at
 *    stage 13 (after every unit system).
 *
 * Falling asleep (decided at stage 13 of tick T, effective from T+1):
 *  (a) the unit is tripped: its scram is latched (uN.core.flags bit
 *      PCS_UNIT_FLAG_SCRAMMED). A unit at power never sleeps: with the
 *      thermal-hydraulics held, nothing would carry the xenon and feedback
 *      reactivity of a critical core over the gap (a reduced summary model
 *      is the tool for that, not sleep);
 *  (b) over the last window_s (every awake tick of it), the largest
 *      normalised rate of change of its key state stayed below
 *      tolerance_per_s. Key state and references (rate = |dx/dt| / ref):
 *      core thermal power "uN.core.power" / the core's nominal power (decay
 *      heat is what moves in a tripped core), average coolant temperature
 *      "uN.rcs.t_avg" / 100 K (the loops' heat balance: hot and cold legs
 *      follow it once the flow is steady), RCS pressure "uN.rcs.pressure" /
 *      10 MPa (the pressurizer and the RCS inventory), and the steam header
 *      pressure "uN.steam.header_pressure" / 10 MPa when the unit has a
 *      steam side (the secondary's heat balance; without one the SG
 *      boundary moves only by command). So tolerance 1e-4 /s means 1e-4 of
 *      nominal power, 0.01 K or 1 kPa per second;
 *  (c) no command addressed it during the window and its boundary input,
 *      the trip request "uN.core.trip" that the station-wide protection
 *      writes, did not change. The other stores its systems read from
 *      outside the group are the sensor bank's readings of its own held
 *      outputs (feedback of its own state, not an input: sensor noise does
 *      not wake it);
 *  and (d) tick T+1 is a due tick of its xenon job, so the run in flight
 *      merges at T+1 and no run is in flight while it sleeps.
 *
 * Waking:
 *  - a command whose target is the unit ("uN") or one of its devices
 *    ("uN.pump2", "uN.D", "uN.alarm..."), found in the journal at stage 1
 *    of the tick it is applied: the unit steps that same tick, as with
 *    sleep off (the handler already wrote its stores);
 *  - a change of its trip input, at stage 13 of the tick protection wrote
 *    it (the unit reads it at stage 2 of the next tick, as with sleep off);
 *  - every wake_every_s, at stage 13 of the tick before a due tick of its
 *    xenon job, to re-evaluate: it must then pass (b) over a new window.
 *  On waking, its decay-heat groups and I/Xe/Sm take the closed-form
 *  solution over the slept ticks x dt (pcs_unit_gap_apply, the freeze
 *  thaw's path, real-time decay-heat clock, the tripped core shut down).
 *
 * Stated error against sleep-off (tests/test_sleep.c asserts the bound;
 * scenarios/README.md has the measurements): |dx| <= tolerance_per_s x
 * reference x the unit's total slept time for Tavg and the pressures, the
 * decay power within 1e-2 relative on awake ticks. Measured, two units, u1
 * scrammed at 5 s, 150 s, tolerance 5e-4, window 5 s, wake every 20 s: u1
 * slept 60 s, |dTavg| 0.27 K (bound 3 K), |dP_rcs| 113 kPa (bound 300
 * kPa), decay power 2.3e-3 awake, 5.4e-2 while held. Over the default
 * scenario with the default options no unit sleeps (no error); with the
 * options above u1 and u2 sleep and |dTavg| <= 1.10 K, |dP_rcs| <= 1.46
 * MPa, decay power 4.0e-3 awake.
 *
 * Simplifications (the stated error is measured with them):
 *  - while asleep the unit's temperatures, pressures, levels and flows are
 *    held: the slow cooldown a settled tripped unit still has (decay heat
 *    falling against the steam dumps) is not stepped, and it resumes from
 *    the held values (only decay heat and poisons catch up);
 *  - a wake by command or input change between xenon due ticks loses the
 *    poison evolution from the wake to the next due tick (less than one
 *    SLOW period, 20 ticks x k_slow); a periodic wake loses none;
 *  - the station-wide sensor bank, protection and alarms keep running and
 *    read the unit's held outputs; its sensors keep their noise and drift.
 *    The unit's SCRATCH stores (outputs its systems rewrite every tick)
 *    are copied into the STATE store "station.sleep.held" when it falls
 *    asleep and restored from it every tick it sleeps, so after a load
 *    (which leaves SCRATCH stores as built) readers see what it slept with;
 *  - only the units built at the start sleep (a unit added while running
 *    has no gate: gates are registered at build);
 *  - sleep and freeze exclude each other (both gate the unit's systems):
 *    a scenario with both sections is refused.
 */
#ifndef PCSIM_STATION_SLEEP_H
#define PCSIM_STATION_SLEEP_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/station.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Sleep options of a station (the scenario's "sleep" section). */
typedef struct pcs_station_sleep_def {
    double tolerance_per_s; /**< largest normalised rate, 1/s, (0, 1] (default 1e-4) */
    double window_s;        /**< quiet time before sleeping, s, [dt, 3600] (default 10) */
    double wake_every_s;    /**< periodic wake, s, [20 dt, 1e6] (default 60) */
} pcs_station_sleep_def;

/** Defaults: 1e-4 /s, 10 s, 60 s. */
PCS_API pcs_station_sleep_def pcs_station_sleep_default(void);

/**
 * Let @p st's units sleep (see the file comment). Build phase, once, after
 * pcs_station_add; pcs_station_add calls it for a scenario with a "sleep"
 * section.
 * @return PCS_E_INVAL (NULL, a def field out of range named with its value
 *         and range, a station without units, twice, with freeze),
 *         errors of store, system, channel and gate registration.
 */
PCS_API pcs_status pcs_station_sleep_add(pcs_world *w, pcs_station *st,
                                         const pcs_station_sleep_def *def);

/** 1 when unit @p unit (1-based) is asleep, else 0 (also without sleep). */
PCS_API int pcs_station_unit_asleep(const pcs_station *st, uint32_t unit);

/** One unit's sleep counters since the start (saved with the state). */
typedef struct pcs_station_sleep_stats {
    uint32_t sleeps;        /**< times it fell asleep */
    uint32_t wakes_command; /**< woken by a command */
    uint32_t wakes_input;   /**< woken by a change of its trip input */
    uint32_t wakes_every;   /**< periodic wakes */
    uint32_t ticks_asleep;  /**< ticks its systems were skipped */
} pcs_station_sleep_stats;

/**
 * Unit @p unit's counters.
 * @return PCS_E_INVAL (NULL, no sleep support, no such unit).
 */
PCS_API pcs_status pcs_station_sleep_stats_get(const pcs_station *st, uint32_t unit,
                                               pcs_station_sleep_stats *out);

#ifdef __cplusplus
}
#endif

#endif
