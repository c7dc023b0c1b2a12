/**
 * @file interlock.h
 * @brief Permissives and interlocks of one steam-side unit (P-4, P-7, P-8,
 *        P-9, P-12, P-14, C-7, C-8, C-9, the turbine-trip, feedwater
 *        isolation, auxiliary feedwater start, safety injection and steam
 *        line isolation signals) and the MSIV actuation they drive (issue 15).
 *
 * Sources: refdata/pwr_transients.md, which transcribes [HRTD] 12.2 and
 * 12.3; the row of each setpoint is given at its def field. Where refdata
 * gives no coincidence the logic is 2-out-of-3 channels per loop
 * (assumption, scenarios/README.md).
 *
 * Interlock logic (one FAST system "uN.interlock" at PCS_STAGE_PROTECTION,
 * the only writer of "uN.interlock.sig", pcsim/plant_signals.h, so the
 * controllers and the feedwater system at ALARMS act on its flags in the
 * same tick). It reads measured values only (sensor channels,
 * pcsim/sensor.h), the unit's reactor trip breakers (the latched scram
 * "uN.scram.cause" of pcsim/unit.h, written at ACTUATORS: automatic or
 * manual; the protection's own "rps.trip" is written at PROTECTION, the
 * stage this system shares, so P-4 follows the breakers, which open at
 * ACTUATORS of the tick after the protection trips) and the turbine's and
 * the feedwater system's signal sets:
 *
 *   power channels (NIS, W) -- bistable p7_frac ----------+-- P-7 (P-10 or P-13)
 *   turbine load (auctioneered high) -- bistable p13_frac -+
 *   power channels ------------ bistable p8_frac, p9_frac --- P-8, P-9
 *     bistable sp: set at k/n >= sp, reset at k/n <= sp - p_deadband_frac
 *     (of rated power; of rated load for P-13, on its auctioneered high),
 *     held between: P-10, P-13, P-8, P-9 latched in the state store
 *   per loop flow k/n <= loop_low_flow_kg_s in >= k_loops loops -- TWO_LOOP_LOW
 *   scram.cause != 0 (trip breakers open) -------------- P-4
 *   Tavg channels -- k/n <= p12_tavg_k (latched; reset at k/n
 *                    >= p12_tavg_k + p12_hysteresis_k) ---- P-12
 *   per SG NR level channels -- k/n >= p14_level_pct in any SG ----- P-14
 *                    (latched; reset when no SG has k/n >= p14_level_pct
 *                    - p14_deadband_pct)
 *   turbine load L, lagged Ll (tau = c7_step / c7_ramp):
 *                 Ll - L > c7_step -> C-7 (latched until "c7_reset")
 *   turbine.sig TURBINE_TRIPPED -------------------------- C-8
 *   condenser_available (def, command) ------------------- C-9
 *   per SG steam flow k/n >= hsf(load) in >= k_lines SGs ----------+
 *   per SG steam pressure k/n <= low_steam_p_pa in >= k_lines SGs -+-(or)-+
 *   Tavg k/n <= p12_tavg_k (low-low Tavg) ---------------------------+     |
 *            high steam flow AND (low steam pressure OR low-low Tavg) ----+-- MSLI (latched)
 *            ... OR steam-line dP >= si_dp_pa (k/n in any SG)          |
 *            ... OR pressurizer pressure k/n <= si_pzr_low_pa -----------+-- SI (latched)
 *   TURBINE_TRIP = P-4 or P-14 or SI
 *   FW_ISOLATION = (P-4 and Tavg k/n < fw_iso_tavg_k) or P-14 or SI
 *   AFW_START    = SG low-low level (k/n <= low_low_level_pct in any SG)
 *                  or feed.sig MFP_TRIPPED or SI
 *
 * hsf(load): the high-steam-flow setpoint, a fraction of one SG's rated
 * steam flow: hsf_low_frac up to hsf_load_lo turbine load, then linear to
 * hsf_high_frac at hsf_load_hi (the Westinghouse shape, [HRTD] 12.3 as
 * described there; the numbers are not in refdata: assumption). The load is
 * the highest turbine load channel (auctioneered high, as the plant's).
 *
 * Turbine load: the first-stage (impulse) load, turbine steam flow / rated
 * (n_sg x rated_steam_kg_s), what pcsim/plant_signals.h calls
 * PCS_SIG_TURBINE_LOAD; measured on the secondary's turbine steam flow
 * (choked first-stage nozzles: impulse pressure proportional to it).
 *
 * C-7 as a rate-lag unit: d Ll / dt = (L - Ll) / tau, tau = c7_step_frac /
 * (c7_ramp_per_min / 60) (120 s for 10 % and 5 %/min): a step fall of more
 * than c7_step_frac arms it at once; a ramp fall of r per minute drives Ll -
 * L towards r tau / 60, so only ramps faster than c7_ramp_per_min arm it
 * (a 10 %/min ramp after 83 s; 4 %/min never). The lag starts at the first
 * tick's load (no start-up transient).
 *
 * Power permissives with a reset deadband: the NIS channels carry noise
 * (sd 0.2 % of rated power in the plant's instrumentation), so a
 * memoryless 2-of-4 coincidence flickers tick by tick while the power sits
 * near a setpoint, and every trip function a flickering permissive arms is
 * armed and blocked with it (a low-flow function tripping again and again as
 * the power fell through P-7 after a pump trip). As a plant bistable's, each
 * flag sets at the setpoint and resets only at setpoint - deadband. The
 * deadband, 1 % of rated (p_deadband_frac), is an assumption, no source
 * giving one: five noise sd, so that with the power held at a setpoint two
 * of four channels read below the reset point with a probability of about
 * 1e-12 per tick, while a flag still resets within 1 % of its setpoint.
 *
 * Low flow in two loops (TWO_LOOP_LOW): k of n flow channels at or below
 * loop_low_flow_kg_s (the protection's per-loop low-flow setpoint) in at
 * least k_loops loops. Between P-7 and P-8 the plant trips on low flow in
 * two loops, above P-8 in any one (pwr_transients.md section 4, [HRTD]
 * 12.2; the Westinghouse coincidence "2/3 channels in 2/4 loops below P-8,
 * in 1/4 above"): the protection's per-loop functions are k of n over one
 * loop's channels, so the two-loop coincidence is formed here and the
 * protection's two-loop function reads the flag (armed by P-7, one tick
 * later than the flag, as the turbine-trip function reads the turbine's).
 * n_loops = 0: no loop inputs, the flag stays 0.
 *
 * Latches and resets: C-7 until "c7_reset" (then it arms again at once if
 * the fall is still above the setpoint); SI and MSLI until "si_reset",
 * refused (PCS_E_STATE) while an SI or MSLI condition is present; P-12 by
 * its hysteresis; P-10, P-13, P-8 and P-9 by their deadband. P-4 follows
 * the unit's latched scram (cleared by the unit's reset). The other flags
 * are recomputed every tick.
 * Simplifications: no P-11 block of the low-pressurizer-pressure SI, no
 * containment pressure inputs (not modelled), no anticipatory low-level
 * trip; the AFW start is a signal, the feedwater system latches its pumps.
 *
 * Permissives for the protection: the protection system (stage PROTECTION
 * too) cannot read "uN.interlock.sig"; a second system "uN.interlock.arm"
 * at PCS_STAGE_ALARMS copies the flags into the STATE store
 * "uN.interlock.arm" (same elements), which trip functions armed by a
 * permissive read on the next tick (pcsim/protection.h arm; one tick, 50 ms,
 * later than the flag).
 *
 * Stages (the engine refuses a reader of a store another system of the same
 * stage writes): a model reading "uN.interlock.sig" must not run at
 * PCS_STAGE_PROTECTION (read it at ALARMS of the same tick or at ACTUATORS
 * of the next); the turbine must not write "uN.turbine.sig" at SENSORS (the
 * turbine-trip sensors sample it there) or PROTECTION, nor the feedwater
 * system "uN.feed.sig" at PROTECTION.
 *
 * Start: the flags start as the def's initial power gives them (P-7, P-8,
 * P-9 at power, their latches too, P-13 taking the turbine load as the
 * power; C-9 condenser_available), so a protection function armed by a
 * permissive sees a unit at power on the first tick.
 *
 * MSIV actuation (one FAST system "uN.msiv" at PCS_STAGE_ACTUATORS, the
 * only writer of "uN.sec.msiv"): on MSLI every open MSIV starts to close
 * msiv_delay_s after the signal and strokes shut in msiv_stroke_s ([HRTD]
 * 7.1: 0.5 s delay, 5 s stroke), opening = 1 - (t - delay) / stroke with t
 * the time since the signal (the signal's tick counts as t = 0: the MSIV
 * system reads it one tick later, at t = dt). Commands "msiv_close" and
 * "msiv_open" per SG ("uN.msivK") or all ("uN", "uN.msiv"): close strokes at
 * once (no signal delay), open strokes over msiv_open_stroke_s; open is
 * refused (PCS_E_STATE) while MSLI is set.
 *
 * Stores: "uN.interlock.state" (STATE f64, PCS_INTERLOCK_ST_*),
 * "uN.interlock.arm" (STATE f64, the flags' copy), "uN.msiv.state"
 * (STATE f64, per SG {opening, demand, delay left s}); each has a load
 * check naming store, field, value and range.
 * Channels: "uN.interlock.<flag>" (p4, p7, p8, p9, p12, p14, c7, c8, c9,
 * turbine_trip, fw_isolation, afw_start, si, msli, low_flow_2loops),
 * "uN.sgK.msiv" (opening).
 *
 * Thread-safety: build on the world's thread; the systems run in its tick.
 * 0 bytes allocated per tick.
 */
#ifndef PCSIM_INTERLOCK_H
#define PCSIM_INTERLOCK_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/sensor.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PCS_INTERLOCK_MAX_SG 8u /**< steam generators per unit */
#define PCS_INTERLOCK_MAX_CH 4u /**< redundant channels per measured quantity */

/** Command family of the interlock logic: targets "uN.interlock" and "uN". */
#define PCS_INTERLOCK_COMMANDS "interlock"
enum pcs_interlock_op {
    PCS_INTERLOCK_OP_C7_RESET = 0,  /**< clear the C-7 latch */
    PCS_INTERLOCK_OP_CONDENSER = 1, /**< args[0] = 1 condenser available (C-9), 0 not */
    PCS_INTERLOCK_OP_SI_RESET = 2,  /**< clear the SI and MSLI latches (refused while a
                                         condition is present) */
    PCS_INTERLOCK_OP_COUNT = 3,
};

/** Command family of the MSIVs: targets "uN", "uN.msiv" (all) and "uN.msivK". */
#define PCS_MSIV_COMMANDS "msiv"
enum pcs_msiv_op {
    PCS_MSIV_OP_CLOSE = 0, /**< stroke shut */
    PCS_MSIV_OP_OPEN = 1,  /**< stroke open (refused while MSLI is set) */
    PCS_MSIV_OP_COUNT = 2,
};

/** Elements of "uN.interlock.state". */
enum {
    PCS_INTERLOCK_ST_LOAD_LAG = 0, /**< C-7's lagged turbine load, [0, 1.5] */
    PCS_INTERLOCK_ST_STARTED = 1,  /**< flag: the lag has its first sample */
    PCS_INTERLOCK_ST_C7 = 2,       /**< flag: C-7 latch */
    PCS_INTERLOCK_ST_P12 = 3,      /**< flag: P-12 latch */
    PCS_INTERLOCK_ST_SI = 4,       /**< flag: SI latch */
    PCS_INTERLOCK_ST_MSLI = 5,     /**< flag: MSLI latch */
    PCS_INTERLOCK_ST_C9 = 6,       /**< flag: condenser available */
    PCS_INTERLOCK_ST_P10 = 7,      /**< flag: P-10 bistable (nuclear part of P-7) */
    PCS_INTERLOCK_ST_P13 = 8,      /**< flag: P-13 bistable (turbine load part of P-7) */
    PCS_INTERLOCK_ST_P8 = 9,       /**< flag: P-8 bistable */
    PCS_INTERLOCK_ST_P9 = 10,      /**< flag: P-9 bistable */
    PCS_INTERLOCK_ST_P14 = 11,     /**< flag: P-14 bistable */
    PCS_INTERLOCK_ST_COUNT = 12,
};

/** k-out-of-n redundant channels of one quantity (sensor ids). */
typedef struct pcs_interlock_channels {
    uint32_t n;                            /**< [0, 4]; 0: the input is absent */
    uint32_t k;                            /**< coincidence, [1, n] when n > 0 */
    uint32_t sensor[PCS_INTERLOCK_MAX_CH]; /**< sensor ids */
} pcs_interlock_channels;

/** One unit's interlocks. Start from pcs_interlock_default(). */
typedef struct pcs_interlock_def {
    const char *unit_name; /**< "u1": 1..15 chars */
    uint32_t n_sg;         /**< [1, 8] */
    uint32_t trip_store;   /**< u32 store non-zero while the reactor is tripped: the unit's
                                "uN.scram.cause" (its channel gives store and index) */
    uint32_t trip_index;   /**< its element */

    pcs_interlock_channels power;        /**< nuclear power, W (required) */
    pcs_interlock_channels turbine_load; /**< turbine steam flow, kg/s (required) */
    pcs_interlock_channels tavg;         /**< Tavg, K (required) */
    pcs_interlock_channels
        pzr_pressure; /**< pressurizer pressure, Pa (n = 0: no low-pressure SI) */
    pcs_interlock_channels nr_level[PCS_INTERLOCK_MAX_SG];   /**< narrow-range level, % */
    pcs_interlock_channels steam_flow[PCS_INTERLOCK_MAX_SG]; /**< steam flow, kg/s */
    pcs_interlock_channels steam_p[PCS_INTERLOCK_MAX_SG];    /**< steam pressure, Pa */
    pcs_interlock_channels loop_flow[PCS_INTERLOCK_MAX_SG];  /**< loop flow, kg/s (n_loops) */
    uint32_t n_loops; /**< loops with flow inputs, [0, 8]; default 0 (no two-loop flag) */

    double rated_power_w;      /**< 100 % of the power channels, (0, 1e11] */
    double rated_steam_kg_s;   /**< one SG's rated steam flow, 480.4 [W84]; (0, 1e4] */
    double initial_power_frac; /**< the start's permissives, [0, 1.5]; default 1 */

    double p7_frac;           /**< 0.10 P-7/P-10 ([HRTD] 12.2, pwr_transients.md section 4) */
    double p13_frac;          /**< 0.10 P-13 turbine load (the same row: P-7 is P-10 or P-13) */
    double p8_frac;           /**< 0.39 P-8 ([HRTD] 12.2; Salem 36 %), section 4 */
    double p9_frac;           /**< 0.50 P-9 ([HRTD] 12.2; Salem ~49 %), section 6 */
    double p_deadband_frac;   /**< 0.01 reset of P-10, P-13, P-8, P-9 at setpoint - this
                                   (assumption: 5 sd of 0.2 % channel noise); [0, min(p7_frac,
                                   p13_frac, p8_frac, p9_frac)) */
    double p12_tavg_k;        /**< 562.594 = 553 F low-low Tavg ([HRTD] 11.2), section 1 */
    double p12_hysteresis_k;  /**< 1.111 = 2 F reset above P-12 (assumption) */
    double p14_level_pct;     /**< 69 % NR high-high ([HRTD] 12.2, 12.3), section 9 */
    double p14_deadband_pct;  /**< 1 % NR: P-14 resets only when no SG has k/n channels at or
                                   above p14_level_pct - this (assumption: 5 sd of the 0.2 %
                                   NR level channel noise, as p_deadband_frac); [0, 50] and
                                   below p14_level_pct */
    double low_low_level_pct; /**< 11.5 % NR ([HRTD] 12.2), sections 5 and 9 */
    double fw_iso_tavg_k;     /**< 568.706 = 564 F, with P-4 ([HRTD] 12.3), section 3 */
    double c7_step_frac;      /**< 0.10 load fall step ([HRTD] 11.2), section 1 */
    double c7_ramp_per_min;   /**< 0.05 load fall ramp per minute ([HRTD] 11.2), section 1 */
    double hsf_low_frac;      /**< 0.40 high steam flow at low load (assumption) */
    double hsf_high_frac;     /**< 1.10 high steam flow at full load (assumption) */
    double hsf_load_lo;       /**< 0.20 load where the setpoint starts to rise (assumption) */
    double hsf_load_hi;       /**< 1.00 load where it reaches hsf_high_frac (assumption) */
    double low_steam_p_pa;    /**< 4.23818e6 = 600 psig ([HRTD] 12.3), section 7 */
    double si_dp_pa;          /**< 0.689476e6 = 100 psi steam-line dP ([HRTD] 12.3), section 7 */
    double si_pzr_low_pa;     /**< 12.5602e6 = 1807 psig ([HRTD] 12.3), sections 2 and 8 */
    uint32_t k_lines;         /**< steam lines in high flow / low pressure for SI, [1, n_sg];
                                   default min(2, n_sg) (assumption: 2 of 4 lines) */
    uint32_t condenser_available; /**< C-9 at the start, 0 or 1; default 1 */
    double loop_low_flow_kg_s;    /**< per-loop low flow (the protection's low-flow setpoint,
                                       90 % of rated loop flow in the plant); (0, 1e6] when
                                       n_loops > 0; default 0 */
    uint32_t k_loops;             /**< loops in low flow for TWO_LOOP_LOW, [1, n_loops];
                                       default 2 ([HRTD] 12.2: two loops below P-8) */

    double msiv_delay_s;       /**< 0.5 signal to stroke start ([HRTD] 7.1), section 7 */
    double msiv_stroke_s;      /**< 5 closing stroke ([HRTD] 7.1), section 7 */
    double msiv_open_stroke_s; /**< 5 opening stroke on command (assumption) */
} pcs_interlock_def;

/** Fill @p d with the defaults above (no channels: n = 0). PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_interlock_default(pcs_interlock_def *d);

/**
 * Check every field against @p sensors and @p w's stores: the message names
 * the field, its value and the allowed range.
 */
PCS_API pcs_status pcs_interlock_def_validate(const pcs_world *w, const pcs_sensors *sensors,
                                              const pcs_interlock_def *d);

typedef struct pcs_interlock pcs_interlock;

/**
 * Build the interlock logic of one unit: its state store, the signal set
 * "<unit>.interlock.sig" (pcs_plant_signals: found or registered), its
 * system, command targets, channels and load check. Build phase only.
 * @return PCS_E_INVAL (bad def), PCS_E_STATE (sealed), PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_interlock_add(pcs_world *w, const pcs_sensors *sensors,
                                     const pcs_interlock_def *d, pcs_interlock **out);

/** Store id of "<unit>.interlock.state" (UINT32_MAX for NULL). */
PCS_API uint32_t pcs_interlock_state_store(const pcs_interlock *il);

/** Store id of "<unit>.interlock.arm", the flags' copy a protection trip
 *  function is armed by (pcs_protection_function_def.arm_store; elements
 *  PCS_SIG_*); UINT32_MAX for NULL. */
PCS_API uint32_t pcs_interlock_arm_store(const pcs_interlock *il);

typedef struct pcs_msiv pcs_msiv;

/**
 * Build the MSIV actuation of one unit on its steam side's MSIV store
 * @p msiv_store ([n_sg] openings): timing from @p d (msiv_* fields,
 * unit_name, n_sg). Build phase only. Starts from the store's openings.
 * @return PCS_E_INVAL (bad def or store), PCS_E_STATE, PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_msiv_add(pcs_world *w, const pcs_interlock_def *d, uint32_t msiv_store,
                                pcs_msiv **out);

/** Store id of "<unit>.msiv.state" (UINT32_MAX for NULL). */
PCS_API uint32_t pcs_msiv_state_store(const pcs_msiv *m);

#ifdef __cplusplus
}
#endif

#endif
