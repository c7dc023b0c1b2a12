/**
 * @file turbine.h
 * @brief One unit's turbine-generator and its turbine load control (issue
 *        15): shaft power from the steam side's turbine flow and header
 *        state (pcsim/secondary.h), electrical output, a grid-connected or
 *        islanded generator with an overspeed trip, and the governor (load
 *        control with ramp limits, manual valve, trip, runback) that is the
 *        only writer of the secondary's "uN.sec.turbine_valve".
 *
 * Why physics/machines: the turbine-generator is a machine (a shaft, its
 * inertia, a generator) whose governor comes with it, as an EHC comes with
 * a turbine: one model owns the valve, the shaft state and the signal
 * store "uN.turbine.sig" (pcsim/plant_signals.h) that interlocks and
 * controllers read. The expansion is a kernel
 * (physics/machines/kernels/turbine_expansion.h).
 *
 * Turbine (the energy balance of the issue: "MWe = eta x turbine power"):
 *   W       = the secondary's turbine flow of this tick (>= 0), kg/s;
 *   (p, h)  = the header's pressure and enthalpy (the steam that flowed);
 *   h_s     = h(p_c, s(p, h)) isentropic at the condenser pressure p_c
 *             (the secondary's condenser_p_pa; IF97);
 *   h_out   = h - eta_t (h - h_s);  P_shaft = W (h - h_out), W;
 *   P_e     = eta_gen x P_shaft (grid mode); MWe = P_e / 1e6.
 * Simplifications: one expansion of the whole throttle flow to the
 * condenser, no extraction to feedwater heaters, no moisture separator or
 * reheater (the feedwater temperature is the secondary's boundary value),
 * so MWe is the ideal single-expansion output (about 45 % of the heat, not
 * a plant's ~34 %: MWe is checked against eta x turbine power, never
 * against a plant number); the steam's transit through the turbine is
 * instantaneous; no windage or friction loss.
 *
 * First-stage load L = W / W_rated (the impulse-pressure signal of the
 * Tref program, rod control's power mismatch and C-5, the steam dumps'
 * loss-of-load Tref, as a flow fraction), W_rated the def's rated_flow_kg_s.
 *
 * Calibration (why W_rated is the unit's own full-power steam flow): a
 * plant calibrates its impulse-pressure channel so that the unit at its
 * rated thermal power reads 100 % load ([HRTD] 8.1, 11.2: "Tref = f(turbine
 * impulse pressure)", 584.7 F at 100 % power), whatever its steam flow in
 * kg/s. That flow follows from the unit's heat balance, W = Q / (h_g(p) -
 * h_feed): with [TYP]'s 493.43 K feed (pcsim/secondary.h feed_t_k) it is
 * about 465.5 kg/s per SG, not [W84]'s 480.4 (whose feed is about 500.6 K).
 * Normalised by [W84]'s flow, a unit at 100 % read 0.969, so Tref sat 0.73
 * F below the full-load program and a host had to ask for load 0.969 to
 * run at full power. So the plant (pcsim/plant.h) gives each unit's turbine
 * its own rated flow: a unit built at 100 % the turbine flow it settled
 * with (load 1 exactly), one built lower the flow of its heat balance at
 * rated power (pcs_turbine_rated_flow_from_heat of the settled heat plus
 * the missing core power at its settled dome pressure; plant.c
 * turbine_rated_flow), so load 1 is full power; the interlocks' turbine
 * load and steam flow channels (P-13, C-7, the high-steam-flow setpoint)
 * take the same number (plant_instr.c). Below full load the dome is
 * higher and h_g lower, so a unit built there is calibrated up to 1.06 %
 * high (hot zero power, 7.55 MPa against 6.05; 45 %: +0.5 %): the
 * full-load pressure is an outcome the build does not know below full
 * power. The secondary's
 * rated_steam_kg_s keeps its other role: the sourced absolute capacities
 * sized on it (the turbine throat, the SG safety valves' 109 %, the PORVs'
 * 10 %: pcsim/secondary.h) do not move with the calibration. A turbine
 * built with rated_flow_kg_s 0 (a bare turbine, no plant) is calibrated on
 * n_sg x rated_steam_kg_s, as before.
 *
 * Governor block diagram (the system "uN.turbine.governor" at
 * PCS_STAGE_ACTUATORS, acting on L and the speed of the previous tick):
 *
 *  target ─[step <= step_max: step; else ramp rate]─ D (load demand)
 *  D ──(+)┬─ D_eff = clamp(D - (speed - 1) / droop, 0, LOAD_MAX)
 *  speed ─┘ (droop: only off synchronous speed, i.e. islanded)
 *  D_eff ──(+)┐
 *  L ─────(-)─┴─ e ──[K_p + I]──(+)── u = clamp(ff + K_p e + I, 0, 1)
 *                    I += (K_p dt / T_i) e                │
 *  ff = v_r D_eff (W_rated / W_throat) p_r / p ──────────┘
 *  u ──[rate limit valve_rate_per_s]── v (control valves)
 *  opening to the secondary = min(v, stop valves).
 * Feedforward: the secondary's turbine throat passes W_throat = n_sg x
 * rated_steam_kg_s at its rated opening v_r and pressure p_r
 * (turbine_rated_opening, turbine_rated_p_pa) and flow in proportion to
 * opening x pressure, so the opening for a load at the header pressure p
 * (this tick's, kept in the generator's store for the next tick) is
 * ff = v_r D_eff (W_rated / W_throat) p_r / p; I takes what the
 * proportionality misses.
 * Anti-windup: I is not integrated while u is clamped at 0 or 1 or the
 * valve is rate-limited, in the direction e would push it further; it is
 * held within [-1, 1]. Ramp: D moves towards the target at ramp_per_min
 * (5 %/min, [HRTD] 8.1) unless the change is at most step_max (10 %,
 * [HRTD] 8.1), which is taken as a step; a runback moves it at
 * runback_per_min to the runback's target.
 * Manual (op VALVE, station "turbine_valve"): the valve goes to the commanded opening
 * at its rate limit; the target and demand track L and I tracks
 * v - ff - K_p (D_eff - L), so op LOAD ("turbine_load", back to auto) is bumpless: it
 * starts from the load the turbine carries and steps or ramps from there.
 * Trip (op TRIP, the interlocks' PCS_SIG_TURBINE_TRIP demand, or
 * speed >= overspeed_trip): latched (TRIPPED); the stop valves close at
 * 1 / stop_close_s (shut within stop_close_s from any opening), the
 * control valves follow them, the demand and target go to 0. RESET is
 * refused while a trip demand stands (the interlock's flag, or the speed
 * at or above the overspeed setpoint); after it the stop valves reopen
 * at the same rate and the governor is in auto at demand 0. While tripped,
 * VALVE, LOAD and RUNBACK are refused (the handler says to reset first).
 *
 * Generator (the system "uN.turbine" at PCS_STAGE_ACCIDENTS, the first
 * stage after the secondary's PCS_STAGE_MACHINES, so it uses this tick's
 * steam flow; the stage is otherwise unused):
 *  - grid: speed 1 (the grid holds it), P_e = eta_gen P_shaft;
 *  - islanded: J omega_s d(speed)/dt = T_t - T_load with omega = speed x
 *    omega_s, T_t = P_shaft / omega, and T_load the host's load torque
 *    (N m) or its power demand over eta_gen omega (both with omega held at
 *    least 0.1 omega_s: no singular torque at standstill); the speed
 *    stays >= 0 (a passive load). P_e = eta_gen T_load omega. Switching to
 *    islanded takes the electrical output of the moment as the power
 *    demand (bumpless); back to grid sets speed 1 (an ideal
 *    resynchronisation).
 * Overspeed: speed >= overspeed_trip sets the overspeed flag; the governor
 * trips the turbine on the next tick.
 *
 * Commands (family PCS_TURBINE_COMMANDS, targets "uN.turbine" and "uN"):
 * see the enum. Channels (prefix uN): turbine.mwe (MW), turbine.shaft_power
 * (W), turbine.electric_power (W), turbine.speed (1), turbine.load (1),
 * turbine.load_demand (1), turbine.load_target (1), turbine.valve (the
 * opening sent to the secondary, 1), turbine.tripped (0/1),
 * turbine.manual (0/1), turbine.islanded (0/1), turbine.h_out (J/kg).
 *
 * Thread-safety: build on the world's thread; the systems and the command
 * handler run in the world's tick. 0 bytes allocated per tick.
 */
#ifndef PCSIM_TURBINE_H
#define PCSIM_TURBINE_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/secondary.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Highest load target or demand, fraction of rated first-stage load. */
#define PCS_TURBINE_LOAD_MAX 1.1
/** Highest host load torque, N m, and power demand, W (command ranges). */
#define PCS_TURBINE_TORQUE_MAX 1e8
#define PCS_TURBINE_POWER_MAX 1e10

/** Command family name and its ops. Targets "uN.turbine" and "uN". */
#define PCS_TURBINE_COMMANDS "turbine"
enum {
    PCS_TURBINE_OP_VALVE = 0,          /**< args[0] valve opening [0, 1]: governor to manual */
    PCS_TURBINE_OP_LOAD = 1,           /**< args[0] load target [0, PCS_TURBINE_LOAD_MAX]:
                                            governor to auto, normal ramp */
    PCS_TURBINE_OP_TRIP = 2,           /**< trip the turbine (latched) */
    PCS_TURBINE_OP_RESET = 3,          /**< reset a trip; refused while a trip demand stands */
    PCS_TURBINE_OP_RUNBACK = 4,        /**< args[0] load [0, PCS_TURBINE_LOAD_MAX] reached at
                                            runback_per_min (auto) */
    PCS_TURBINE_OP_GENERATOR_MODE = 5, /**< args[0] 0 grid, 1 islanded */
    PCS_TURBINE_OP_LOAD_TORQUE = 6,    /**< args[0] host load torque N m [0, TORQUE_MAX] */
    PCS_TURBINE_OP_LOAD_POWER = 7,     /**< args[0] host power demand W [0, POWER_MAX] */
    PCS_TURBINE_OP_COUNT = 8,
};

/** Elements of the governor's STATE store "uN.turbine.gov". */
enum {
    PCS_TURBINE_GOV_TARGET = 0,       /**< load target [0, LOAD_MAX] */
    PCS_TURBINE_GOV_DEMAND = 1,       /**< load demand D [0, LOAD_MAX] */
    PCS_TURBINE_GOV_RATE = 2,         /**< ramp rate in use, per s, (0, 1] */
    PCS_TURBINE_GOV_VALVE_TARGET = 3, /**< manual opening [0, 1] */
    PCS_TURBINE_GOV_VALVE = 4,        /**< control valves v [0, 1] */
    PCS_TURBINE_GOV_STOP = 5,         /**< stop valves [0, 1] */
    PCS_TURBINE_GOV_INTEGRAL = 6,     /**< I [-1, 1] */
    PCS_TURBINE_GOV_MANUAL = 7,       /**< flag */
    PCS_TURBINE_GOV_TRIPPED = 8,      /**< flag, latched */
    PCS_TURBINE_GOV_ISLANDED = 9,     /**< flag: generator mode */
    PCS_TURBINE_GOV_LOAD_TORQUE = 10, /**< flag: the host load is a torque (else a power) */
    PCS_TURBINE_GOV_LOAD_VALUE = 11,  /**< N m or W, [0, TORQUE_MAX or POWER_MAX] */
    PCS_TURBINE_GOV_COUNT = 12,
};

/** Elements of the generator's STATE store "uN.turbine.gen" (besides turbine.sig). */
enum {
    PCS_TURBINE_GEN_MWE = 0,       /**< electrical output, MW */
    PCS_TURBINE_GEN_H_OUT = 1,     /**< exhaust enthalpy, J/kg (0 without flow) */
    PCS_TURBINE_GEN_OVERSPEED = 2, /**< flag: speed >= overspeed_trip */
    PCS_TURBINE_GEN_P_HEADER = 3,  /**< header pressure of this tick, Pa (the feedforward's) */
    PCS_TURBINE_GEN_COUNT = 4,
};

/** Settings. Start from pcs_turbine_default; "assumption" marks a value
 *  with no source (scenarios/README.md lists them). */
typedef struct pcs_turbine_def {
    const char *unit_name;   /**< "u1"; 1..15 characters */
    double eta_turbine;      /**< 0.85 internal (isentropic) efficiency (assumption); (0, 1] */
    double eta_generator;    /**< 0.985 (assumption); (0, 1] */
    double ramp_per_min;     /**< 0.05: 5 %/min design ramp [HRTD] 8.1; (0, 1] */
    double step_max;         /**< 0.10: 10 % design step [HRTD] 8.1; [0, 0.5] */
    double runback_per_min;  /**< 0.5 (assumption: ten times the design ramp); (0, 10] */
    double valve_rate_per_s; /**< 0.02 opening per s (assumption: a 10 % step in about 4 s);
                                  (0, 10] */
    double stop_close_s;     /**< 0.2 stop-valve closure (assumption); [0.01, 10] */
    double gain;             /**< K_p 0.5 opening per unit load error (assumption); (0, 10] */
    double reset_s;          /**< T_i 3 s (assumption); [0.1, 1e4] */
    double droop;            /**< 0.05 speed droop (assumption); [0.01, 0.2] */
    double overspeed_trip;   /**< 1.10 (issue 15); [1.01, 1.5] */
    double inertia_kg_m2;    /**< J 2.7e5: H = 4 s on 1.2 GVA at 1800 rpm (assumption);
                                  (0, 1e8] */
    double sync_rad_s;       /**< 188.496 = 1800 rpm, a 4-pole 60 Hz generator (assumption);
                                  (0, 1000] */
    double rated_flow_kg_s;  /**< W_rated, the first-stage flow that reads load 1 (the
                                  calibration above): the plant sets the unit's own
                                  full-power steam flow; 0 (default): n_sg x the
                                  secondary's rated_steam_kg_s; [0, 1e5] */
} pcs_turbine_def;

/** Defaults above. PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_turbine_default(pcs_turbine_def *def);

typedef struct pcs_turbine pcs_turbine;

/**
 * Build the turbine-generator of @p sec: stores, the two systems, the
 * command target, channels and the load check; find or register the signal
 * stores "uN.turbine.sig" (written here) and "uN.interlock.sig" (read).
 * Start steady from the secondary as it is now (after its settling): the
 * valve at the secondary's opening, the target and demand at the load its
 * flow gives, I = v - ff, speed 1, grid, the outputs computed once. The
 * secondary's turbine valve store must have no other writer.
 * PCS_E_INVAL naming a field out of range.
 */
PCS_API pcs_status pcs_turbine_add(pcs_world *w, const pcs_turbine_def *def, pcs_secondary *sec,
                                   pcs_turbine **out);

/** The STATE stores "uN.turbine.gov" and "uN.turbine.gen" (UINT32_MAX for NULL). */
PCS_API uint32_t pcs_turbine_governor_store(const pcs_turbine *t);
PCS_API uint32_t pcs_turbine_generator_store(const pcs_turbine *t);

/** Rated first-stage steam flow (load 1), kg/s (0 for NULL). */
PCS_API double pcs_turbine_rated_flow(const pcs_turbine *t);

/**
 * The steam flow a unit makes from @p heat_w (W, into its SGs: the core's
 * rated power and the pump heat) at dome pressure @p p_pa with feed at
 * @p feed_t_k: W = heat / (h_g(p) - h(p, feed_t)), IF97 (the secondary's
 * own steady balance, secondary_init.c). The calibration above.
 * PCS_E_INVAL naming a value out of range (heat (0, 1e11] W, p [1e5, 2e7]
 * Pa, feed_t [273.16 K, T_sat(p))) or NULL @p flow_kg_s.
 */
PCS_API pcs_status pcs_turbine_rated_flow_from_heat(double heat_w, double p_pa, double feed_t_k,
                                                    double *flow_kg_s);

#ifdef __cplusplus
}
#endif

#endif
