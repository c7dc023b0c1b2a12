/**
 * @file rod_control.h
 * @brief Automatic rod control of one PWR unit on the Tavg program, as a
 *        plant control system (issue 15; [HRTD] 8.1, refdata
 *        pwr_transients.md "rod control" row): the control banks step in
 *        when the measured Tavg is above the reference, out when below,
 *        and at once on a changing power mismatch (turbine load against
 *        nuclear power) before Tavg has moved.
 *
 * Block diagram (temperatures in K in the code; the program's points are
 * the HRTD's, in F):
 *
 *   turbine first-stage load f ──[Tref = T_nl + (T_full - T_nl) clamp(f, 0, 1)]── Tref
 *   measured Tavg ──(+)┐                                                       │
 *                      └── e = Tavg - Tref ──────────────────────────(-)───────┘
 *   power-mismatch channel ([HRTD] 8.1, Rev 0209; channel off while the def's power input is
 *   unset):
 *     m = nuclear power / rated - turbine first-stage load    (fraction; > 0: power high)
 *     rate comparator, a rate-lag:  y = tau s / (1 + tau s) m  (only a changing m acts)
 *       per tick: L += (1 - exp(-dt / tau)) (m - L);  y = m - L   (a step D: y = D e^-t/tau)
 *     non-linear gain:  g(y) = 0.3 F per 1 % for |y| <= 1 %,
 *                       0.3 F + 1.5 F per 1 % beyond it (continuous), sign of y
 *     variable gain:    v = clamp(1 / (nuclear power fraction), 1, 2)  (2 below 50 %)
 *     e_p = v g(y)                                               (an equivalent temperature)
 *   total error  e_t = (Tavg - Tref) + e_p
 *   e_t ──[lock-up: start at |e_t| >= 1.5 F, stop at |e_t| < 1.0 F]──[speed program]── s
 *        speed program |s| = 8            for |e_t| < 3 F (moving),
 *                            8 + 32 (|e_t| - 3 F) per F  for 3..5 F,
 *                            72           for |e_t| >= 5 F;
 *        direction: e_t > 0 (Tavg or power high) inserts (s < 0), e_t < 0 withdraws.
 *   s ──[/ 60 / steps_full_stroke]── travel per s ──[bank sequence]── "uN.rods.auto"
 *
 * Bank sequence: the banks in bank_mask in the unit's bank order (by
 * default D, C, B, A) are driven one at a time without overlap: inserting
 * moves the first bank of that order that is not fully inserted, withdrawing
 * the last one that is not fully withdrawn (the plant's overlap of about
 * 100 steps is not modelled: a simplification).
 *
 * Auto and manual: in AUTO the controller drives the banks while Tavg is
 * valid. C-5: below auto_min_load (15 % turbine first-stage load) automatic
 * WITHDRAWAL stops, insertion goes on ([HRTD] 8.1's automatic rod
 * withdrawal stops, "turbine power (P_imp) < 15 %": the stops prevent
 * outward motion only; refdata pwr_transients.md's "rod control" row "auto
 * above 15 % turbine power" is that stop): a withdrawal demand there gives
 * speed 0 and the lock-up restarts released. MANUAL (a command) releases
 * the banks.
 * Released banks take the unit's own rod position and speed commands
 * (pcsim/unit.h) and hold until commanded: while driven, the unit keeps
 * each bank's commanded position at its position. AUTO returns
 * bumplessly: the lock-up starts released, so the banks stay where they are
 * unless |e_t| is already outside the deadband; there is no integrator (the
 * output is a speed, the bank position is the integral), so nothing winds
 * up. The actuator's rate limit is the speed program's 72 steps/min.
 *
 * Why the power-mismatch channel: on a load step Tref moves at once but
 * Tavg only as the primary heats or cools, so the temperature channel alone
 * moves rods late; the mismatch channel moves them on the step itself and
 * fades (tau) as the temperature channel takes over. Its gains are [HRTD]
 * 8.1's (transcribed from the NRC HRTD Westinghouse Technology Systems
 * Manual section 8.1, ML11223A252): the non-linear gain's 0.3 / 1.5 F per %
 * with the break at 1 %, the variable gain's 2 below 50 % power and
 * 1/power above. The HRTD gives no rate-lag time constant: tau = 30 s is an
 * assumption, from a handover argument made before any transient was run:
 * the channel's 1.5 F per % should hand over to the temperature error the
 * same mismatch builds in the primary coolant; the model's primary holds
 * about 300 m3 (pcsim/primary.h volumes: vessel 129.8 + 4 loops x 42.7),
 * ~215 t at ~715 kg/m3, cp ~5.5 kJ/(kg K): 1.18 GJ/K, so 1 % of 3411 MW
 * heats it at 0.029 K/s = 0.052 F/s and builds 1.5 F in ~29 s. The gain
 * break is read as continuous (an analog break-point unit, not a switch):
 * an assumption.
 *
 * Simplifications: no rod-insertion limits; one Tavg input (the plant
 * auctioneers the loops' Tavg; the station gives the control channel
 * "uN.rcs.t_avg.ctl") and one nuclear power input (the plant auctioneers
 * the four power-range channels; the station gives power-range channel A,
 * "uN.nis.power.A"); the turbine load is turbine.sig's first-stage load
 * (the impulse pressure's stand-in). An invalid Tavg (not finite, or its
 * status word without PCS_SENSOR_ST_VALID) holds the banks for the tick; an
 * invalid power takes the mismatch channel out (e_p = 0) and restarts its
 * lag at the next valid sample (no kick).
 *
 * Timing: the system "uN.rodctl" runs at PCS_STAGE_ALARMS: it reads the
 * measured Tavg and power (stage SENSORS), the turbine load (turbine.sig) and the bank
 * positions, and writes its demand into "uN.rods.auto", which the unit's
 * rod drive reads at ACTUATORS of the next tick (one tick, as every
 * controller here).
 *
 * Commands (family PCS_ROD_CONTROL_COMMANDS, targets "uN.rodctl" and "uN";
 * station commands rod_manual, rod_auto): MANUAL, AUTO (no arguments).
 *
 * Channels (uN prefix): rodctl.t_ref (K), rodctl.error (K, Tavg - Tref),
 * rodctl.power_error (K, e_p), rodctl.total_error (K, e_t), rodctl.speed
 * (steps/min, + out), rodctl.manual (0/1).
 *
 * Thread-safety: build on the world's thread; the system and the command
 * handler run in the world's tick.
 */
#ifndef PCSIM_ROD_CONTROL_H
#define PCSIM_ROD_CONTROL_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/pzr_control.h"
#include "pcsim/status.h"
#include "pcsim/unit.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Command family name and its ops. Targets "uN.rodctl" and "uN". */
#define PCS_ROD_CONTROL_COMMANDS "rod_control"
enum {
    PCS_ROD_CONTROL_OP_MANUAL = 0, /**< release the banks to the unit's rod commands */
    PCS_ROD_CONTROL_OP_AUTO = 1,   /**< back to the Tavg program, bumpless */
    PCS_ROD_CONTROL_OP_COUNT = 2,
};

/** Elements of the STATE store "uN.rodctl.state" (float64). */
enum {
    PCS_ROD_CONTROL_ST_MANUAL = 0,       /**< 0/1 */
    PCS_ROD_CONTROL_ST_MOVING = 1,       /**< lock-up state: 1 while the error keeps rods moving */
    PCS_ROD_CONTROL_ST_SPEED = 2,        /**< demanded speed, steps/min, + withdraws, [-max, max] */
    PCS_ROD_CONTROL_ST_T_REF = 3,        /**< Tref, K */
    PCS_ROD_CONTROL_ST_ERROR = 4,        /**< Tavg - Tref, K (0 while Tavg is invalid) */
    PCS_ROD_CONTROL_ST_MISMATCH_LAG = 5, /**< L, the rate-lag's lagged mismatch, [-2, 2] */
    PCS_ROD_CONTROL_ST_LAG_VALID = 6,    /**< 0/1: L holds a valid sample (0: seed it) */
    PCS_ROD_CONTROL_ST_POWER_ERROR = 7,  /**< e_p, K (0 without the channel) */
    PCS_ROD_CONTROL_ST_TOTAL_ERROR = 8,  /**< e_t = error + e_p, K: the speed program's input */
    PCS_ROD_CONTROL_ST_COUNT = 9,
};

/** 1 F as a temperature difference, K (exact). */
#define PCS_ROD_CONTROL_F_K (5.0 / 9.0)

/** Settings. Start from pcs_rod_control_default; "assumption" marks a value
 *  with no source (scenarios/README.md lists them). */
typedef struct pcs_rod_control_def {
    const char *unit_name;       /**< "u1"; 1..15 characters */
    pcs_pzr_control_input tavg;  /**< measured Tavg, K (pcsim/pzr_control.h's input form) */
    double t_avg_no_load_k;      /**< 564.817: 557 F ([HRTD] 10.3, 11.2) */
    double t_avg_full_k;         /**< 580.206: 584.7 F ([HRTD] 10.3); > t_avg_no_load_k */
    double deadband_k;           /**< 1.5 F ([HRTD] 8.1); (0, 10] */
    double lockup_k;             /**< 0.5 F ([HRTD] 8.1): rods stop at deadband - lockup;
                                      [0, deadband_k) */
    double min_speed_spm;        /**< 8 steps/min at 1.5-3 F ([HRTD] 8.1); (0, max] */
    double ramp_start_k;         /**< 3 F ([HRTD] 8.1): the speed ramp starts; >= deadband */
    double ramp_spm_per_k;       /**< 32 steps/min per F = 57.6 per K ([HRTD] 8.1); >= 0 */
    double max_speed_spm;        /**< 72 steps/min at >= 5 F ([HRTD] 8.1); (0, 200] */
    double auto_min_load;        /**< 0.15 turbine load: C-5, no automatic withdrawal below it
                                      ([HRTD] 8.1); [0, 1] */
    double steps_full_stroke;    /**< 228 steps (assumption: the Westinghouse stroke;
                                      pwr_plant.md gives rods "230 steps withdrawn" for the
                                      drop time, not the stroke); [10, 1000] */
    pcs_pzr_control_input power; /**< measured nuclear power, W; store UINT32_MAX (the
                                      default): no power-mismatch channel */
    double rated_power_w;        /**< 3.411e9 (refdata pwr_plant.md); the station sets its
                                      core's nominal power; [1e6, 1e11] */
    double mismatch_tau_s;       /**< tau 30 s, the rate comparator's rate-lag (assumption,
                                      handover argument above); [1, 3600] */
    double mismatch_break;       /**< 0.01: the non-linear gain's break, 1 % ([HRTD] 8.1);
                                      (0, 1] */
    double mismatch_low_k;       /**< 0.3 F per 1 % = 16.67 K per unit mismatch, below the
                                      break ([HRTD] 8.1); [0, 1e4] */
    double mismatch_high_k;      /**< 1.5 F per 1 % = 83.33 K per unit mismatch, beyond it
                                      ([HRTD] 8.1); [0, 1e4] */
    double variable_gain_max;    /**< 2: the variable gain clamp(1 / power, 1, max) ([HRTD]
                                      8.1: 2 below 50 %, 1 / power to 100 %, 1 above);
                                      [1, 100] */
    uint32_t bank_mask;          /**< the control banks, in insertion order by bank index:
                                      0x0f = D, C, B, A of pcs_unit_default; non-zero, within
                                      the unit's banks */
} pcs_rod_control_def;

/** Defaults above; tavg and power unset (UINT32_MAX stores). PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_rod_control_default(pcs_rod_control_def *def);

typedef struct pcs_rod_control pcs_rod_control;

/**
 * The speed program: signed speed (steps/min, + withdraws) for error @p e_k
 * (Tavg - Tref, K) with the lock-up state @p moving (1: rods moving); sets
 * *moving to the state after this error. Pure: the tick and the tests use it.
 */
PCS_API double pcs_rod_control_speed(const pcs_rod_control_def *def, double e_k, int *moving);

/**
 * One tick of the rate comparator: *lag moves toward mismatch @p m
 * (fraction of rated) by 1 - exp(-@p dt_s / tau); returns y = m - *lag
 * (a step D from a settled lag gives D exp(-n dt / tau) after n ticks).
 * Pure: the tick and the tests use it.
 */
PCS_API double pcs_rod_control_rate_lag(const pcs_rod_control_def *def, double m, double dt_s,
                                        double *lag);

/**
 * The mismatch channel's equivalent temperature error (K, + inserts) for
 * rate-comparator output @p y (fraction) at nuclear power fraction
 * @p power: the non-linear gain times the variable gain (block diagram).
 */
PCS_API double pcs_rod_control_power_error(const pcs_rod_control_def *def, double y, double power);

/** Tref (K) at turbine load @p load (clamped to [0, 1]). */
PCS_API double pcs_rod_control_t_ref(const pcs_rod_control_def *def, double load);

/**
 * Build unit @p unit's rod control (the unit built with auto_rods = 1):
 * the STATE store, the system, the command target, the channels and the
 * load check. Starts in AUTO, released lock-up, no speed; the banks are
 * released until the first tick engages them. PCS_E_INVAL naming a field out of range; PCS_E_STATE
 * when the unit has no automatic rod input.
 */
PCS_API pcs_status pcs_rod_control_add(pcs_world *w, const pcs_rod_control_def *def,
                                       const pcs_unit *unit, pcs_rod_control **out);

/** The STATE store "uN.rodctl.state" (UINT32_MAX for NULL). */
PCS_API uint32_t pcs_rod_control_state_store(const pcs_rod_control *rc);

#ifdef __cplusplus
}
#endif

#endif
