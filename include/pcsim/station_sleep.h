/**
 * @file station_sleep.h
 * @brief Sleeping units: a tripped, settled unit stops stepping until a
 *        command, an input change or its periodic wake (issue 19).
 *
 * The sleeping device is a plant unit: every system and job named "uN."
 * (core, primary, steam side, its controllers, interlocks and xenon job) as
 * one group, gated on a flag (pcsim/system.h, "Gates"), exactly as a freeze
 * gates it; a unit added while running has its own sensor, protection and
 * alarm banks ("uN.sensors", "uN.protection", "uN.alarms"), which are
 * not gated: they keep running while it sleeps, as the station-wide banks
 * that cover a unit of the start do.
 * Finer devices (a pump, a valve, a sensor) do not sleep on their own: a
 * pump is a junction head and a shaft stepped inside the unit's one
 * network solve ("uN.primary"), so its state moves with the loop's every
 * tick and cannot be held while the loop runs; a valve is a flow area of
 * the steam-side network stepped the same way in "uN.secondary"; a sensor
 * is a row of a bank system that reads the plant every tick (holding it
 * would hide a moving plant from protection). So the unit is the
 * smallest group whose state is decoupled from the rest of the station
 * (units share no state: the parallel unit sections prove it).
 *
 * pcs_station_sleep_add (build phase, after pcs_station_add,
 * opt-in: a station without it builds, schedules and hashes as before)
 * registers:
 *  - STATE stores "station.sleep" (one uint32 flag per unit of the
 *    scenario, built at the start or "build": "later": the gate,
 *    published as channel "uN.asleep"), "station.sleep.counts" (per unit:
 *    quiet ticks, ticks slept in this sleep, the trip input last seen, and
 *    the statistics of pcs_station_sleep_stats) and "station.sleep.prev"
 *    (the key state of the last awake tick), and "station.sleep.held"
 *    (below): saved, loaded and hashed, so a sleeping station is the same
 *    for any workers and readers, and a load restores a sleeping unit. A
 *    unit built later has its slot in the first three from the start (zero
 *    until it is added: nothing of it runs), so its add moves no table;
 *  - two station systems: "station.sleep.wake" at stage 1 (after the
 *    command drain, before every unit system: no unit has a stage-1
 *    system) and "station.sleep" at stage 13 (after every unit system).
 *
 * A unit added while running (unit_add, station/station_units.c) joins at
 * the apply (pcs_station_sleep_unit_added): its key channels, its gate and
 * "uN.asleep" channel, a held store of its own
 * ("station.sleep.held.uN", registered then, like the unit's own stores),
 * and the two systems retired and registered again with its stores in
 * their declared access (same names, stages and priorities, so they run
 * where they did). From the tick after the add it falls asleep and wakes
 * under the rules below, from zero counters and previous key state (as a
 * unit of the start at tick 0). A load re-applies the structure log before
 * the stores are restored, so all of it exists when its sleep state is
 * restored.
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
 *    of the tick it is applied (by every attempt at that tick: a failed
 *    tick's retry finds them again): the unit steps that same tick, as
 *    with sleep off (the handler already wrote its stores);
 *  - a change of its trip input, at stage 13 of the tick protection wrote
 *    it (the unit reads it at stage 2 of the next tick, as with sleep off);
 *  - every wake_every_s, at stage 13 of the tick before a due tick of its
 *    xenon job, to re-evaluate: it must then pass (b) over a new window.
 *  On waking, its decay-heat groups and I/Xe/Sm take the closed-form
 *  solution over the slept ticks x dt (pcs_unit_gap_apply, the freeze
 *  thaw's path, real-time decay-heat clock, the tripped core shut down).
 *
 * Stated error against sleep-off, per unit that slept (t_slept: its total
 * slept time): |dx| <= tolerance_per_s x reference x t_slept for core
 * power, Tavg and the RCS and steam-header pressures (the references of
 * (b)); the decay power within 1e-2 relative on awake ticks; a unit that
 * never slept equals sleep-off exactly. Asserted by tests/test_sleep.c
 * (two units) and tests/test_sleep_default.c (the default scenario);
 * scenarios/README.md has the measurements. With tolerance 5e-4, window
 * 5 s, wake every 20 s:
 *  - two units, u1 scrammed at 5 s, 150 s: u1 slept 60 s, |dTavg| 0.27 K
 *    (bound 3 K), |dP_rcs| 113 kPa (bound 300 kPa), decay power 2.3e-3
 *    awake, 5.4e-2 while held;
 *  - the default scenario (pwr-station), its first 210 s: u2 (pump trip
 *    at 120 s) slept 22 s from 182 s, |dP_core| 15.6 MW (bound 37.5 MW),
 *    |dTavg| 0.34 K (1.1 K), |dP_rcs| 40 kPa (110 kPa), |dP_steam| 43 kPa
 *    (110 kPa), decay power 3.4e-3 awake; u1, u3, u4 exact;
 *  - the default scenario, 900 s: u1 slept 382 s, u2 556 s, |dP_core|
 *    <= 18.8 MW (u1), |dTavg| <= 1.10 K (u2), |dP_rcs| <= 1.46 MPa (u2;
 *    bound 2.8 MPa), |dP_steam| <= 97 kPa (u1), decay power 4.0e-3 awake.
 * With the default options (1e-4 /s) no unit of the default scenario
 * sleeps within 900 s (no error).
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

/** 1 when unit @p unit (1-based) is asleep, else 0 (also without sleep, for
 *  a unit not built and for a unit removed by unit_remove, asleep or not).
 *  Read-only; call from the tick thread or between ticks. */
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
