/**
 * @file pzr_control.h
 * @brief Pressurizer pressure and level control of one PWR unit, as a plant
 *        control system (issue 14): a PI master pressure controller driving
 *        the proportional and backup heaters and the spray valves, and a PI
 *        level controller on the programmed level driving the CVCS charging
 *        flow, with letdown and charging boron as set values.
 *
 * Inputs are measured values (sensor.h: a sensor's value element, and
 * optionally its status word) given by store id and element: pressurizer
 * pressure (Pa), pressurizer level (%) and one or more Tavg channels (K; the
 * level program takes the highest valid one, "auctioneered high Tavg",
 * [HRTD] 10.3). The output is the two-phase primary's controls store
 * (primary.h, PCS_PRIMARY_CTL_HEATER_PROPORTIONAL .. _CHARGING_BORON).
 *
 * One-tick delay. The system "uN.pzrctl" runs at PCS_STAGE_ACTUATORS (2).
 * The sensor bank writes its values at PCS_STAGE_SENSORS (9) of tick T and
 * nothing writes them between that stage and stage 2 of tick T + 1 (the bank
 * is their only writer, and the engine refuses a second one), so what the
 * controller reads at stage 2 of T + 1 is exactly what was measured at
 * stage 9 of T: "read at stage 9, act at stage 2 of the next tick", the
 * protection system's delay (protection.h), with no extra buffer. The
 * primary reads the demands at stage 5 of the same tick T + 1. The sensor
 * values are STATE, so a save between T and T + 1 keeps the delay.
 *
 * Pressure control ([HRTD] 10.2; pwr_transients.md section 2; psig
 * deviations from the 2235 psig setpoint):
 *   e   = p_measured - p_setpoint
 *   I  += (K_p dt / T_i) e          (not when the step would drive the
 *                                    output further past full heat or full
 *                                    spray: conditional integration)
 *   e_c = K_p e + I                 (the master output, Pa; K_p = 1, so the
 *                                    HRTD setpoints, tabulated "proportional
 *                                    output only", are pressure deviations)
 *   proportional heaters = clamp((prop_off - e_c) / (prop_off - prop_full_on), 0, 1):
 *                          full on at -15 psi, off at +15 psi;
 *   backup heaters on when e_c <= -25 psi, off again when e_c >= -18 psi
 *                          (hysteresis), and also on while the level is more
 *                          than 5 % above its program ([HRTD] 10.3);
 *   spray = clamp((e_c - spray_start) / (spray_full - spray_start), 0, 1):
 *                          starts at +25 psi, full open at +75 psi.
 * The points are on the master output, not on the pressure: in a steady
 * state the integral holds what the pressurizer needs (with the two-phase
 * primary at 100 %, about +12 psi: the proportional bank near 0.1, the heat
 * the bypass spray takes), so from there the sprays open about 13 psi above
 * the setpoint; with the integral reset they open at +25 psi (tests).
 * The PORVs are the primary kernel's (pressurizer.h), not duplicated here.
 * The derivative action of the HRTD's PID master controller is not modelled
 * (plants removed it for NUREG-0737 II.K.3.9, so PI).
 *
 * Level control ([HRTD] 10.3, 4.1):
 *   program L_p = 25 % + (Tavg - 557 F) / (584.7 F - 557 F) x 36.5 %,
 *                 held within [25, 61.5] %;
 *   e_L = level - L_p;  I_L += (K_L dt / T_L) e_L (conditional, as above);
 *   charging = clamp(letdown_kg_s - K_L e_L - I_L, charging_min, charging_max),
 *   letdown  = the commanded letdown (default letdown_kg_s, 75 gpm).
 * Below the low-level interlock (17 %) all heaters are off and letdown is
 * isolated (0) whatever the modes, and restored above it (the plant's
 * letdown valves need an operator to reopen: a simplification).
 *
 * Invalid inputs: a value that is not finite, or whose status word (when
 * given) lacks PCS_SENSOR_ST_VALID (not yet sampled), makes the controller
 * that needs it hold its outputs and integrator for the tick. A failed
 * sensor that still publishes a value (stuck, drift, fail low/high) is
 * followed, as a real controller follows its selected channel.
 *
 * Manual modes, by command (family PCS_PZR_CONTROL_COMMANDS, targets
 * "uN.pzr" and "uN"): the heaters and the sprays each have their own
 * auto/manual station ([HRTD] 10.2.5: heater switches, an auto/manual
 * controller per spray valve), so HEATERS puts the heaters in manual and
 * leaves the sprays in auto (the "enhanced spray" practice of [HRTD] 10.2);
 * PRESSURE_AUTO returns both to auto, bumpless: the integrator is set so
 * that the master output, at the pressure measured now, reproduces the
 * manual demands (the value closest to K_p e where several do), within the
 * integrator's range [backup_on_pa, spray_full_pa] (a backup bank partly on
 * in manual comes back fully on: auto backup is on/off). CHARGING puts level
 * control in manual; LEVEL_AUTO returns it bumplessly (I_L set so that the
 * auto charging equals the manual one at the current error).
 *
 * Channels (unit prefix uN): pzrctl.master (e_c, Pa), pzrctl.error (e, Pa),
 * pzrctl.heaters (demanded heater power, W), pzrctl.spray (demand),
 * pzrctl.level_program (%), pzrctl.level_error (%), pzrctl.charging,
 * pzrctl.letdown (kg/s), pzrctl.charging_boron (ppm),
 * pzrctl.heaters_manual, pzrctl.spray_manual, pzrctl.level_manual (0/1).
 *
 * Thread-safety: build on the world's thread; the system and the command
 * handler run in the world's tick.
 */
#ifndef PCSIM_PZR_CONTROL_H
#define PCSIM_PZR_CONTROL_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Command family name and its ops (kind = first + op). Targets "uN.pzr" and "uN". */
#define PCS_PZR_CONTROL_COMMANDS "pzr_control"
enum {
    PCS_PZR_CONTROL_OP_HEATERS = 0,        /**< args[0] total heater power W, [0, proportional +
                                                backup]: proportional bank first; heaters manual */
    PCS_PZR_CONTROL_OP_PRESSURE_AUTO = 1,  /**< heaters and sprays back to auto, bumpless */
    PCS_PZR_CONTROL_OP_SPRAY = 2,          /**< args[0] spray demand [0, 1]; sprays manual */
    PCS_PZR_CONTROL_OP_CHARGING = 3,       /**< args[0] charging kg/s [0, charging_max]; level
                                                control manual */
    PCS_PZR_CONTROL_OP_LEVEL_AUTO = 4,     /**< level control back to auto, bumpless */
    PCS_PZR_CONTROL_OP_CHARGING_BORON = 5, /**< args[0] charging boron ppm [0, 10000] */
    PCS_PZR_CONTROL_OP_LETDOWN = 6,        /**< args[0] letdown kg/s [0, letdown_max] */
    PCS_PZR_CONTROL_OP_COUNT = 7,
};

/** Elements of the STATE store "uN.pzrctl.state" (all float64). */
enum {
    PCS_PZR_CONTROL_ST_P_INTEGRAL = 0,      /**< I, Pa, in [backup_on_pa, spray_full_pa] */
    PCS_PZR_CONTROL_ST_BACKUP_LATCH = 1,    /**< pressure-driven backup heaters on, 0/1 */
    PCS_PZR_CONTROL_ST_HEATERS_MANUAL = 2,  /**< 0/1 */
    PCS_PZR_CONTROL_ST_SPRAY_MANUAL = 3,    /**< 0/1 */
    PCS_PZR_CONTROL_ST_LEVEL_MANUAL = 4,    /**< 0/1 */
    PCS_PZR_CONTROL_ST_HEATER_PROP = 5,     /**< proportional heater demand out, [0, 1] */
    PCS_PZR_CONTROL_ST_HEATER_BACKUP = 6,   /**< backup heater demand out, [0, 1] */
    PCS_PZR_CONTROL_ST_SPRAY = 7,           /**< spray demand out, [0, 1] */
    PCS_PZR_CONTROL_ST_L_INTEGRAL = 8,      /**< I_L, kg/s, in [letdown_kg_s - charging_max,
                                                 letdown_kg_s - charging_min] */
    PCS_PZR_CONTROL_ST_CHARGING = 9,        /**< charging out, kg/s, [0, charging_max] */
    PCS_PZR_CONTROL_ST_LETDOWN = 10,        /**< commanded letdown, kg/s, [0, letdown_max] */
    PCS_PZR_CONTROL_ST_CHARGING_BORON = 11, /**< ppm, [0, 10000] */
    PCS_PZR_CONTROL_ST_COUNT = 12,
};

/** Elements of the SCRATCH store "uN.pzrctl.out" (this tick's signals). */
enum {
    PCS_PZR_CONTROL_OUT_MASTER = 0,        /**< e_c, Pa */
    PCS_PZR_CONTROL_OUT_ERROR = 1,         /**< e, Pa */
    PCS_PZR_CONTROL_OUT_HEATER_W = 2,      /**< demanded heater power, W (before the low-level
                                                cut-off) */
    PCS_PZR_CONTROL_OUT_LEVEL_PROGRAM = 3, /**< % */
    PCS_PZR_CONTROL_OUT_LEVEL_ERROR = 4,   /**< % */
    PCS_PZR_CONTROL_OUT_T_AVG = 5,         /**< the auctioneered-high Tavg used, K */
    PCS_PZR_CONTROL_OUT_COUNT = 6,
};

/** Most Tavg inputs (one per loop of the largest primary). */
#define PCS_PZR_CONTROL_MAX_TAVG 8u
/** status_store of an input without a status word. */
#define PCS_PZR_CONTROL_NO_STATUS UINT32_MAX
/** 1 psi in Pa (exact by the definition of the pound-force and inch). */
#define PCS_PZR_CONTROL_PSI_PA 6894.757293168361

/** One measured input. */
typedef struct pcs_pzr_control_input {
    uint32_t store;        /**< float64 store (pcs_sensor_value_ref) */
    uint32_t index;        /**< element */
    uint32_t status_store; /**< u32 status word store (pcs_sensor_status_ref), or
                                PCS_PZR_CONTROL_NO_STATUS */
    uint32_t status_index; /**< element */
} pcs_pzr_control_input;

/**
 * One unit's pressurizer control. Start from pcs_pzr_control_default (inputs
 * unset: must be given). Sources: [HRTD] NRC HRTD Westinghouse Technology
 * Systems Manual 10.2 (pressure), 10.3 (level), 4.1 (CVCS) via
 * refdata/pwr_transients.md; "assumption" marks a value without a source.
 * CVCS volume flows convert to mass at the charging-pump water, 130 F
 * ([HRTD] 4.1: regenerative heat exchanger charging inlet) and 0.1 MPa:
 * 985.97 kg/m3 (IF97), so 1 gpm = 0.062205 kg/s (derived).
 */
typedef struct pcs_pzr_control_def {
    const char *unit_name;          /**< prefix of stores, channels, targets: "u1"; 1..15 chars */
    pcs_pzr_control_input pressure; /**< measured pressurizer pressure, Pa */
    pcs_pzr_control_input level;    /**< measured pressurizer level, % of span */
    uint32_t n_tavg;                /**< Tavg inputs, [1, PCS_PZR_CONTROL_MAX_TAVG] */
    pcs_pzr_control_input tavg[PCS_PZR_CONTROL_MAX_TAVG]; /**< measured Tavg, K */
    uint32_t controls_store; /**< the primary's controls store (pcs_primary_stores.controls),
                                  at least PCS_PRIMARY_CTL_SG_PRESSURE float64 elements */

    /* Pressure control (Pa deviations from the setpoint; [HRTD] 10.2, 2 src). */
    double p_setpoint_pa;         /**< 15.5111e6: 2235 psig + 1 atm; [1e6, 21e6] */
    double p_gain;                /**< K_p 1.0 (HRTD setpoints are for the proportional output);
                                       (0, 100] */
    double p_integral_time_s;     /**< T_i 600 s (assumption, no source found: once heaters or
                                       sprays modulate, the deviation the proportional band
                                       leaves decays as exp(-t / T_i), see the closed-loop
                                       insurge test); > 0 */
    double prop_full_on_pa;       /**< -15 psi (2220 psig) */
    double prop_off_pa;           /**< +15 psi (2250 psig); > prop_full_on_pa */
    double backup_on_pa;          /**< -25 psi (2210 psig); < backup_off_pa */
    double backup_off_pa;         /**< -18 psi (2217 psig; Salem 2218) */
    double spray_start_pa;        /**< +25 psi (2260 psig) */
    double spray_full_pa;         /**< +75 psi (2310 psig); > spray_start_pa */
    double backup_level_pct;      /**< +5 %: backup heaters on at level > program + this
                                       ([HRTD] 10.3); >= 0 */
    double heater_proportional_w; /**< 414 kW ([HRTD] 3.2, 2 src): copy the primary's
                                       pzr.heater_proportional_w; > 0 */
    double heater_backup_w;       /**< 1380 kW ([HRTD] 3.2, 2 src); > 0 */
    double low_level_pct;         /**< 17 %: heaters off, letdown isolated ([HRTD] 10.3, 2 src);
                                       [0, 100) */

    /* Level control ([HRTD] 10.3). */
    double t_avg_no_load_k;    /**< 564.817: 557 F ([HRTD] 10.3, 2 src) */
    double t_avg_full_k;       /**< 580.206: 584.7 F ([HRTD] 10.3, sec); > t_avg_no_load_k */
    double level_no_load_pct;  /**< 25 % ([HRTD] 10.3) */
    double level_full_pct;     /**< 61.5 % ([HRTD] 10.3); >= level_no_load_pct */
    double l_gain_kg_s_pct;    /**< K_L 1.0 kg/s per % (assumption: 1 % of the 51 m3 span is
                                    0.51 m3, about 250 kg at rho_f - rho_g = 490 kg/m3, so a
                                    250 s proportional time constant); > 0 */
    double l_integral_time_s;  /**< T_L 600 s (assumption: damping sqrt(K_L T_L / 250 kg) / 2
                                    = 0.77 for the mass balance alone); > 0 */
    double letdown_kg_s;       /**< 4.6654: one 75 gpm orifice ([HRTD] 4.1, 10.3); the
                                    charging bias, so charging = letdown at zero error; > 0 */
    double letdown_max_kg_s;   /**< 12.130: all three orifices, 195 gpm ([HRTD] 4.1) */
    double charging_min_kg_s;  /**< 1.2441: 20 gpm, the RCP seal return to the RCS with the
                                    charging valve shut ([HRTD] 4.1, derived); >= 0 */
    double charging_max_kg_s;  /**< 9.3308: 150 gpm, one centrifugal charging pump at RCS
                                    pressure (assumption); > charging_min_kg_s, <= 400 */
    double charging_boron_ppm; /**< initial charging boron, [0, 10000]: set it to the RCS
                                    boron (0 by default: pure water dilutes) */
} pcs_pzr_control_def;

/** Defaults above; inputs and controls_store UINT32_MAX (unset). PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_pzr_control_default(pcs_pzr_control_def *def);

/**
 * Check every field, and the stores of @p w the inputs and the output name
 * (float64 elements in range, u32 status elements). PCS_E_INVAL naming the
 * field, its value and the allowed range.
 */
PCS_API pcs_status pcs_pzr_control_def_validate(const pcs_world *w, const pcs_pzr_control_def *def);

typedef struct pcs_pzr_control pcs_pzr_control;

/**
 * Register the stores "uN.pzrctl.state" (STATE) and "uN.pzrctl.out"
 * (SCRATCH), the system "uN.pzrctl" at PCS_STAGE_ACTUATORS, the command
 * family and targets, the channels and the load check. Initial state: both
 * controllers in auto; the master integrator at prop_off_pa, so at the
 * setpoint the output is at the heaters' off point (heaters and sprays off:
 * the demands the primary starts with, so the start is bumpless; the
 * integral then finds the small heat the steady state needs: bypass spray);
 * level integrator 0, charging = letdown = letdown_kg_s. Build the primary
 * and the sensors first (their stores must exist). Build phase only.
 */
PCS_API pcs_status pcs_pzr_control_add(pcs_world *w, const pcs_pzr_control_def *def,
                                       pcs_pzr_control **out);

/** Store ids: the STATE store (PCS_PZR_CONTROL_ST_*) and the SCRATCH one (_OUT_*). */
PCS_API uint32_t pcs_pzr_control_state_store(const pcs_pzr_control *pc);
PCS_API uint32_t pcs_pzr_control_out_store(const pcs_pzr_control *pc);

/** The definition it was built with (unit_name points into the object). */
PCS_API const pcs_pzr_control_def *pcs_pzr_control_def_get(const pcs_pzr_control *pc);

/** The level program at @p t_avg_k (%), held within [level_no_load, level_full]. */
PCS_API double pcs_pzr_control_level_program(const pcs_pzr_control_def *def, double t_avg_k);

/**
 * Set the charging boron (ppm, [0, 10000]) between ticks, as the
 * CHARGING_BORON command does at stage 1. PCS_E_INVAL out of range.
 */
PCS_API pcs_status pcs_pzr_control_set_charging_boron(pcs_world *w, pcs_pzr_control *pc,
                                                      double ppm);

#ifdef __cplusplus
}
#endif

#endif
