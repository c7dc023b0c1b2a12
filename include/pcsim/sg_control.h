/**
 * @file sg_control.h
 * @brief Feedwater (SG level) control of one unit's steam side
 *        (pcsim/secondary.h), as a plant control system (issue 15):
 *        three-element level control per SG. (The turbine valve is the
 *        turbine governor's: pcsim/turbine.h.)
 *
 * The level program is pcs_sg_control_program on the measured power (33 %
 * at 0 % power to 44 % at 20 %, 44 % above: refdata row "SG NR level
 * program"); without a power input, nr_program.
 *
 * Block diagram, per SG l (all values the measured ones, below). On the
 * main feed regulating valves, three elements
 * (refdata pwr_transients.md section 1, row "SG level controller": "(steam
 * - feed flow) + PI on lagged level", [RD] quoting WAT 05 5.3.2 and WTSM
 * 11.1):
 *
 *   NR level ──[lag T_F]── L_F ──(-)┐
 *   program ─────────────────────(+)┴─ e_L ──[K_L + I_L]── level out (kg/s) ─┐
 *                        L_F += a_F (NR - L_F)                              │
 *                        I_L += (K_L dt / T_L) e_L                          │
 *   steam flow W_s ────────────────────────────────────────────────────(+)──┴─ W_dem
 *   feed flow W_f ──(-)── W_dem - W_f ──[integral, T_W]── feed command W_c
 *                        W_c += a_W (W_dem - W_f), clamped to [0, top]
 *
 * The two lags are first-order and discretised exactly, a_F = 1 -
 * exp(-dt / T_F) and a_W = 1 - exp(-dt / T_W) (computed once at the build):
 * stable and without overshoot at any world step (forward Euler's dt / T
 * would ring for dt > T and run away for dt > 2 T, and level_lag_s goes
 * down to 0.05 s while dt goes up to 10 s).
 *
 * The steam flow feeds forward (the feed follows the load before the level
 * moves), the level trims it, and the feed flow closes the flow loop (the
 * secondary's feed control is a flow: the valve and pump as one ideal
 * actuator with the flow loop's lag T_W). The level is lagged (T_F 5 s,
 * WAT 05 5.3.2) so that the controller rides out shrink and swell.
 *
 * On the bypass valves (the same row: "bypass valves below ~20 % power"),
 * level alone: the steam and feed flow signals are unreliable at low flow,
 * so a PI on the lagged level sets the bypass valves' flow:
 *
 *   W_dem = K_B e_L + I_L,   W_c += a_W (clamp(W_dem, 0, W_byp) - W_c)
 *
 * with W_byp (bypass_max_kg_s) the bypass valve's capacity: the main valve
 * closes onto the bypass over T_W, so W_c never jumps. Its gain K_B
 * (bypass_gain_kg_s_pct) is the main loop's proportional band in valve
 * travel on the smaller valve: the three-element loop's K_L is a flow
 * demand per % NR (a flow loop makes it whatever the valve), the
 * single-element loop's output is a valve position, so the same band, K_L /
 * feed_max_kg_s of travel per % NR, gives K_B = K_L W_byp / feed_max_kg_s =
 * 1.667 kg/s per % (argued before measuring, as the plant's reason: the
 * level's shrink on cold feed is an inverse response, and a level-only loop
 * at the three-element K_L = 10 kg/s per % oscillated with growing
 * amplitude at 5 % and 10 % power, period ~220 s).
 *
 * Which valves: an operator's choice, not the power's ([HRTD] 7.2,
 * refdata row "SG level controller": the 6-inch bypass valves are throttled
 * by hand during the startup, and at ~20 % on the power ascension SG level
 * control is shifted from the bypass valves to the regulating valves and the
 * SG level controllers placed in automatic; a shutdown goes back the same
 * way by hand). So the controller starts on the bypass valves when the unit
 * is built below bypass_power_frac of measured power (a plant at that power
 * has its levels on them), on the main valves otherwise or without a power
 * input, and moves only on the commands below: a load rejection or a
 * turbine trip from above 20 % stays on the main valves, as in a plant in
 * the minutes after it. Bumpless: at a transfer I_L is reset so that the
 * new mode's W_dem is the present command W_c (to the main valves: I_L =
 * W_c - W_s - K_L e_L), or on the bypass valves what they can pass of it
 * (I_L = min(W_c, top, W_byp) - K_B e_L: from a command above the capacity,
 * an I_L of W_c would hold the output at W_byp until the PI unwound it,
 * at K_B 0.14 kg/s per s for 10 % NR of level error; the W_c lag keeps the
 * command continuous), I_L held within [-feed_max_kg_s, feed_max_kg_s] as the load
 * check requires.
 *
 * Commands (family PCS_SG_CONTROL_COMMANDS, targets "uN.sgctl" and "uN"):
 * BYPASS and MAIN, args[0] the SG (1..n_sg) or 0 for every SG: the
 * operator's transfer of that SG's level control to the bypass or the main
 * valves (a no-op for an SG already there).
 *
 * The command's upper limit top is the lower of feed_max_kg_s and the SG's
 * element of the STATE store "uN.sgctl.feed_limit" [n_sg] (kg/s;
 * feed_max_kg_s until a feedwater model, pcsim/feedwater.h, writes what its
 * pumps can deliver against the SG's pressure through valves that isolation
 * may close); W_c is clamped to it in both modes. Anti-windup: I_L is not
 * integrated when the output is at a limit and the step would push it
 * further (main valves: W_c at 0 or top; bypass valves: W_dem at 0 or at
 * the lower of W_byp and top), so with the feed isolated, limit 0, it
 * holds; and it is held within [-feed_max_kg_s, feed_max_kg_s].
 *
 * Measured values and the one-tick delay (the house pattern of
 * pcsim/pzr_control.h): the system "uN.sgctl.measure" at
 * PCS_STAGE_SENSORS (9) copies each SG's NR level, steam flow and feed flow
 * from the secondary's outputs of this tick, and the power fraction from
 * def.power (a non-finite or invalid power keeps the last value), into the
 * STATE store "uN.sgctl.meas"; the system "uN.sgctl" at
 * PCS_STAGE_ACTUATORS (2) of the next tick reads them and writes the
 * secondary's per-SG feed flow, which the secondary reads at stage 5. No
 * sensor noise or failure (the sensor bank has no steam-side channels yet;
 * the station gives the core's power, pcs_unit_power_ref).
 *
 * Channels (uN prefix): per SG sgK.feed_demand (W_c, kg/s),
 * sgK.level_lagged (L_F, %), sgK.feed_bypass (1 on the bypass valves, 0 on
 * the main valves); the secondary's own channels (pcsim/secondary.h) carry
 * the levels and flows.
 *
 * Thread-safety: build on the world's thread; the systems and the command
 * handler run in the world's tick.
 */
#ifndef PCSIM_SG_CONTROL_H
#define PCSIM_SG_CONTROL_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/pzr_control.h"
#include "pcsim/secondary.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Command family name and its ops. Targets "uN.sgctl" and "uN"; args[0]
 *  the SG (1..n_sg) or 0 for all. */
#define PCS_SG_CONTROL_COMMANDS "sg_control"
enum {
    PCS_SG_CONTROL_OP_BYPASS = 0, /**< level control to the bypass valves, bumpless */
    PCS_SG_CONTROL_OP_MAIN = 1,   /**< level control to the main valves, bumpless */
    PCS_SG_CONTROL_OP_COUNT = 2,
};

/** Elements of the STATE store "uN.sgctl.state" (PCS_SG_CONTROL_ST_PER_SG per SG). */
enum {
    PCS_SG_CONTROL_ST_SG = 0,        /**< first per-SG block: */
    PCS_SG_CONTROL_ST_INTEGRAL = 0,  /**<   + 0: I_L, kg/s */
    PCS_SG_CONTROL_ST_FEED = 1,      /**<   + 1: feed command W_c, kg/s */
    PCS_SG_CONTROL_ST_LEVEL_LAG = 2, /**<   + 2: lagged NR level L_F, % */
    PCS_SG_CONTROL_ST_BYPASS = 3,    /**<   + 3: 1 on the bypass valves, 0 on the main */
    PCS_SG_CONTROL_ST_PER_SG = 4,
};

/** Elements of the STATE store "uN.sgctl.meas", per SG. */
enum {
    PCS_SG_CONTROL_MEAS_NR = 0,    /**< NR level, % */
    PCS_SG_CONTROL_MEAS_STEAM = 1, /**< steam flow, kg/s */
    PCS_SG_CONTROL_MEAS_FEED = 2,  /**< feed flow, kg/s */
    PCS_SG_CONTROL_MEAS_POWER = 3, /**< nuclear power fraction (0 without a power input) */
    PCS_SG_CONTROL_MEAS_PER_SG = 4,
};

/** Settings. Start from pcs_sg_control_default; "assumption" marks a value
 *  with no source (scenarios/README.md lists them). */
typedef struct pcs_sg_control_def {
    const char *unit_name;        /**< "u1"; 1..15 characters */
    double nr_program;            /**< 44 % NR program at 20-100 % power, the full-load value
                                       ([HRTD] 11.1; not the program at a start power); [5, 95] */
    double nr_program_no_load;    /**< 33 % NR program at 0 % power, linear to nr_program at
                                       nr_program_break_frac (pwr_transients.md section 1, row
                                       "SG NR level program": [HRTD] 11.1 summary, [RD] quoting
                                       WTSM 11.1); used only with a power input; [5, 95] */
    double nr_program_break_frac; /**< 0.20: the program's break point (the same row); (0, 1] */
    double level_gain_kg_s_pct;   /**< K_L 10 kg/s per % NR (assumption: 2 % of rated steam flow
                                       per %); (0, 1000] */
    double level_reset_s;         /**< T_L 120 s: "integral time 2 min" (pwr_transients.md
                                       section 1, SG level controller row: [RD] quoting WTSM
                                       11.1); [1, 1e5] */
    double level_lag_s;           /**< T_F 5 s: "lag 5 s" on the level (the same row: [RD]
                                       quoting WAT 05 5.3.2); [0.05, 100] */
    double flow_lag_s;            /**< T_W 2 s flow loop (assumption); [0.05, 100] */
    double feed_max_kg_s;         /**< 720.6 = 150 % of the 480.4 kg/s rated steam flow per SG
                                       ([W84]; the margin an assumption); (0, 5000] */
    pcs_pzr_control_input power;  /**< measured nuclear power, W (pcsim/pzr_control.h's input
                                       form); store UINT32_MAX (the default): the program is
                                       nr_program and the build starts on the main valves */
    double rated_power_w;         /**< 3.411e9 (refdata pwr_plant.md); the station sets its
                                       core's nominal power; [1e6, 1e11] */
    double bypass_power_frac;     /**< 0.20: a unit built below it starts on the bypass valves
                                       ("bypass valves below ~20 % power", the same row;
                                       [HRTD] 7.2 shifts to the main valves at ~20 % on the
                                       way up); [0, 1] */
    double bypass_gain_kg_s_pct;  /**< K_B 1.667 kg/s per % NR = level_gain_kg_s_pct x
                                       bypass_max_kg_s / feed_max_kg_s: the main loop's
                                       proportional band in valve travel on the bypass valve
                                       (assumption, argued in the header); (0, 1000] */
    double bypass_max_kg_s;       /**< W_byp 120.1 = 25 % of the 480.4 kg/s rated steam flow per
                                       SG (assumption: the 6-inch bypass beside the 14-inch main
                                       valve, [HRTD] 7.2, has to carry the feed up to the ~20 %
                                       transfer; the 5 % margin is an assumption);
                                       (0, feed_max_kg_s] */
} pcs_sg_control_def;

/** Defaults above; power unset (UINT32_MAX store). PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_sg_control_default(pcs_sg_control_def *def);

/**
 * The NR level program (%) at power fraction @p power_frac: nr_program_no_load
 * at 0, linear to nr_program at nr_program_break_frac, nr_program above
 * (the fraction clamped to [0, 1] of the break; a non-finite fraction gives
 * nr_program). The controller follows it on the measured power when the def
 * has a power input, nr_program without one. NaN for NULL.
 */
PCS_API double pcs_sg_control_program(const pcs_sg_control_def *def, double power_frac);

typedef struct pcs_sg_control pcs_sg_control;

/**
 * Build the controller of @p sec: stores, the two systems, channels and
 * the load check. Start state from the secondary as it is now (call after
 * pcs_secondary_init_steady): measured values from its outputs (and the
 * power input's value), L_F the NR level, each feed command from its feed
 * control, the mode from the power (bypass valves below
 * bypass_power_frac: the header) and I_L such that the mode's W_dem is that
 * command; the command target for the transfers.
 * PCS_E_INVAL naming a field out of range or a power input that is not a
 * float64 element of a registered store.
 */
PCS_API pcs_status pcs_sg_control_add(pcs_world *w, const pcs_sg_control_def *def,
                                      pcs_secondary *sec, pcs_sg_control **out);

/** The STATE store "uN.sgctl.state" (UINT32_MAX for NULL). */
PCS_API uint32_t pcs_sg_control_state_store(const pcs_sg_control *sc);

/** The STATE store "uN.sgctl.feed_limit" [n_sg] kg/s: the feed command's
 *  upper limit per SG, written by the feedwater model (its one writer), read
 *  at stage ACTUATORS (the command takes the lower of it and feed_max_kg_s);
 *  load check [0, 1e5] (UINT32_MAX for NULL). */
PCS_API uint32_t pcs_sg_control_feed_limit_store(const pcs_sg_control *sc);

#ifdef __cplusplus
}
#endif

#endif
