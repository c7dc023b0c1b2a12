/**
 * @file steam_dump.h
 * @brief Steam dump control of one unit's steam side (pcsim/secondary.h),
 *        as a plant control system (issue 15; [HRTD] 11.2, refdata
 *        pwr_transients.md "dump" rows): the load-rejection and plant-trip
 *        controllers of Tavg mode, the steam-pressure mode, the P-12 and
 *        C-9 interlocks, trip-open and modulation rate limits, auto/manual.
 *        The only writer of "uN.sec.dump_demand".
 *
 * Block diagram (the program's points are the HRTD's, in F; K in the code):
 *
 *   Tavg mode, selected controller (the Westinghouse selection, [HRTD]
 *   11.2; refdata pwr_transients.md section 1 rows "dump: loss-of-load
 *   controller" and "dump: turbine-trip controller", section 6 [Salem]
 *   generator trip at 46 %):
 *     P-4 (reactor trip breakers open): plant-trip (turbine-trip) controller
 *       e = Tavg - T_nl;           mod = clamp(e / 27.7 F, 0, 1)
 *       trip-open: e >= 13.8 F -> 1/2 of the valves, e >= 27.7 F -> all
 *     else C-7 or C-8 (a load rejection: C-7 latched by the interlocks on a
 *     step > 10 % or ramp > 5 %/min of the first-stage load; C-8 a turbine
 *     trip, the limiting load rejection): loss-of-load (load-rejection)
 *       e = Tavg - Tref(load);     mod = clamp((e - 5 F) / (16.4 F - 5 F), 0, 1)
 *       trip-open: e >= 10.7 F -> 1/2, e >= 16.4 F -> all
 *       (a turbine trip without reactor trip, below P-9: load 0, Tref =
 *       T_nl, so the dumps hold Tavg near T_nl + 5 F while rods insert;
 *       [Salem]: Tavg ~551 F = 547 + 4-5 F after a generator trip at 46 %)
 *     else: not armed, target 0
 *     target = max(mod, trip-open)
 *   Steam-pressure mode (a command), always armed:
 *     e_p = p_header - p_set;  I += (dt / T_i) K_p e_p (conditional: not
 *     while the output is at 0 or its cap and the step pushes further),
 *     I within [0, 1];  target = clamp(K_p e_p + I, 0, 1)
 *   Manual (a command): target = the manual demand.
 *
 *   interlocks: cap = 0 unless C-9 (condenser available) when require_c9;
 *               cap = 3/12 while P-12 (low-low Tavg: only the 3 cooldown
 *               valves stay operable); else 1
 *   target = min(target, cap)
 *   demand opens at 1 / trip_open_stroke_s per s up to the trip-open level
 *   while that is above it, else moves toward target at 1 / modulate_stroke_s
 *   per s (the modulating valves' stroke); an
 *   interlock closes at once (demand = min(demand, cap): the valves' air is
 *   vented). demand -> "uN.sec.dump_demand" (all 12 valves as one).
 *
 * Tref is the program of pcsim/rod_control.h: T_nl + (T_full - T_nl)
 * clamp(turbine load, 0, 1), the turbine first-stage load from turbine.sig.
 *
 * Auto/manual and bumpless transfer: MANUAL holds the demand it is given
 * (rate-limited, interlocks still apply); AUTO returns; entering the
 * pressure mode or returning to auto in it sets I so that K_p e_p + I equals
 * the demand now (at the last measured header pressure); in Tavg mode the
 * rate limit carries the demand from where it is to the controller's.
 *
 * Simplifications: the 12 valves are one demand (the secondary's dump is
 * one junction); the trip-open groups are fractions of it (1/2 and 1); the
 * cooldown-valve bypass of P-12 is not modelled (the 3 valves are always
 * allowed); the header pressure is the secondary's own value (no steam
 * pressure sensor yet); C-7 is the interlock logic's latched flag (its reset
 * is theirs), C-8 its turbine-tripped flag, P-4 its trip-breaker flag.
 * Until an interlock producer writes C-9, require_c9 = 1 keeps the dumps
 * shut (0 is the bus's inactive value); a test writes it by hand.
 * An invalid Tavg (not finite or its status word without
 * PCS_SENSOR_ST_VALID) holds the Tavg-mode target at the demand now.
 *
 * Timing: the system "uN.dumpctl" runs at PCS_STAGE_ALARMS: it reads the
 * measured Tavg (stage SENSORS), the interlocks (stage PROTECTION), the
 * turbine load and the header pressure of this tick, and writes the dump
 * demand the secondary reads at HYDRAULICS of the next tick.
 *
 * Commands (family PCS_STEAM_DUMP_COMMANDS, targets "uN.dumpctl" and "uN";
 * station commands dump_manual, dump_auto, dump_tavg_mode,
 * dump_pressure_mode): MANUAL args[0] demand [0, 1]; AUTO; TAVG_MODE;
 * PRESSURE_MODE.
 *
 * Channels (uN prefix): dumpctl.demand (1), dumpctl.error (K, or Pa in the
 * pressure mode), dumpctl.controller (PCS_STEAM_DUMP_CTL_*), dumpctl.manual,
 * dumpctl.mode (0 Tavg, 1 pressure).
 *
 * Thread-safety: build on the world's thread; the system and the command
 * handler run in the world's tick.
 */
#ifndef PCSIM_STEAM_DUMP_H
#define PCSIM_STEAM_DUMP_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/pzr_control.h"
#include "pcsim/secondary.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Command family name and its ops. Targets "uN.dumpctl" and "uN". */
#define PCS_STEAM_DUMP_COMMANDS "steam_dump"
enum {
    PCS_STEAM_DUMP_OP_MANUAL = 0,        /**< args[0] demand [0, 1]; to manual */
    PCS_STEAM_DUMP_OP_AUTO = 1,          /**< back to auto, bumpless */
    PCS_STEAM_DUMP_OP_TAVG_MODE = 2,     /**< Tavg mode (load-rejection / plant-trip) */
    PCS_STEAM_DUMP_OP_PRESSURE_MODE = 3, /**< steam-pressure mode, bumpless */
    PCS_STEAM_DUMP_OP_COUNT = 4,
};

/** Which controller set the target (element PCS_STEAM_DUMP_ST_CONTROLLER). */
enum {
    PCS_STEAM_DUMP_CTL_NONE = 0,           /**< Tavg mode, not armed */
    PCS_STEAM_DUMP_CTL_LOAD_REJECTION = 1, /**< C-7 or C-8, without P-4 */
    PCS_STEAM_DUMP_CTL_PLANT_TRIP = 2,     /**< P-4 */
    PCS_STEAM_DUMP_CTL_PRESSURE = 3,       /**< steam-pressure mode */
    PCS_STEAM_DUMP_CTL_MANUAL = 4,         /**< manual */
};

/** Elements of the STATE store "uN.dumpctl.state" (float64). */
enum {
    PCS_STEAM_DUMP_ST_MANUAL = 0,        /**< 0/1 */
    PCS_STEAM_DUMP_ST_MODE = 1,          /**< 0 Tavg, 1 steam pressure */
    PCS_STEAM_DUMP_ST_MANUAL_DEMAND = 2, /**< [0, 1] */
    PCS_STEAM_DUMP_ST_DEMAND = 3,        /**< the demand now, [0, 1] */
    PCS_STEAM_DUMP_ST_P_INTEGRAL = 4,    /**< I of the pressure mode, [0, 1] */
    PCS_STEAM_DUMP_ST_P_MEASURED = 5,    /**< header pressure at the last tick, Pa */
    PCS_STEAM_DUMP_ST_CONTROLLER = 6,    /**< PCS_STEAM_DUMP_CTL_* of the last tick */
    PCS_STEAM_DUMP_ST_ERROR = 7,         /**< that controller's error: K, or Pa */
    PCS_STEAM_DUMP_ST_COUNT = 8,
};

/** Settings. Start from pcs_steam_dump_default; "assumption" marks a value
 *  with no source (scenarios/README.md lists them). K differences of the
 *  HRTD's F points: x F = x 5/9 K. */
typedef struct pcs_steam_dump_def {
    const char *unit_name;      /**< "u1"; 1..15 characters */
    pcs_pzr_control_input tavg; /**< measured Tavg, K (pcsim/pzr_control.h's input form) */
    double t_avg_no_load_k;     /**< 564.817: 557 F ([HRTD] 11.2) */
    double t_avg_full_k;        /**< 580.206: 584.7 F ([HRTD] 10.3); > t_avg_no_load_k */
    double lr_deadband_k;       /**< 5 F ([HRTD] 11.2) */
    double lr_full_k;           /**< 16.4 F: 100 % demand ([HRTD] 11.2); > lr_deadband_k */
    double lr_trip_half_k;      /**< 10.7 F: half the valves trip open ([HRTD] 11.2) */
    double lr_trip_all_k;       /**< 16.4 F: all trip open ([HRTD] 11.2) */
    double pt_full_k;           /**< 27.7 F: 100 % demand ([HRTD] 11.2); > 0 */
    double pt_trip_half_k;      /**< 13.8 F ([HRTD] 11.2) */
    double pt_trip_all_k;       /**< 27.7 F ([HRTD] 11.2) */
    double trip_open_stroke_s;  /**< 3 s: trip-open full stroke ([HRTD] 11.2 "2-3 s", the
                                     slower end); [0.05, 60] */
    double modulate_stroke_s;   /**< 20 s modulating full stroke (assumption); [0.05, 600] */
    double p_setpoint_pa;       /**< 7.630e6: 1092 psig, the no-load SG pressure ([HRTD] 11.2);
                                     [1e6, 1.5e7] */
    double p_gain_per_pa;       /**< K_p 1 / 0.6895e6: full demand at 100 psi above the
                                     setpoint (assumption); (0, 1e-3] */
    double p_integral_time_s;   /**< T_i 60 s (assumption); [1, 1e5] */
    double p12_fraction;        /**< 3 / 12: the cooldown valves P-12 leaves ([HRTD] 11.2);
                                     [0, 1] */
    uint32_t require_c9;        /**< 1: no opening without C-9 (default); 0: C-9 ignored (a
                                     station without the interlock logic, tests) */
} pcs_steam_dump_def;

/** Defaults above; tavg unset (UINT32_MAX stores). PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_steam_dump_default(pcs_steam_dump_def *def);

/**
 * The Tavg-mode target (before interlocks and rate limits) for measured
 * Tavg @p t_avg_k, turbine load @p load, @p load_rejection (the tick gives
 * C-7 or C-8: arms the loss-of-load controller) and @p p4 (reactor tripped:
 * selects the plant-trip controller, over the other); *trip_open receives
 * the trip-open level (0, 1/2, 1), *controller the PCS_STEAM_DUMP_CTL_*
 * that acted and *error its error (K). Pure: the tick and the tests use it.
 */
PCS_API double pcs_steam_dump_tavg_target(const pcs_steam_dump_def *def, double t_avg_k,
                                          double load, int load_rejection, int p4,
                                          double *trip_open, uint32_t *controller, double *error);

typedef struct pcs_steam_dump pcs_steam_dump;

/**
 * Build the dump control of @p sec: the STATE store, the system, the
 * command target, channels and the load check. Starts in auto, Tavg mode,
 * demand from the secondary's dump_demand now, I = 0. PCS_E_INVAL naming a
 * field out of range.
 */
PCS_API pcs_status pcs_steam_dump_add(pcs_world *w, const pcs_steam_dump_def *def,
                                      pcs_secondary *sec, pcs_steam_dump **out);

/** The STATE store "uN.dumpctl.state" (UINT32_MAX for NULL). */
PCS_API uint32_t pcs_steam_dump_state_store(const pcs_steam_dump *sd);

#ifdef __cplusplus
}
#endif

#endif
