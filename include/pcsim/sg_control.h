/**
 * @file sg_control.h
 * @brief Feedwater (SG level) control of one unit's steam side
 *        (pcsim/secondary.h), as a plant control system (issue 15):
 *        three-element level control per SG. (The turbine valve is the
 *        turbine governor's: pcsim/turbine.h.)
 *
 * Block diagram, per SG l (all values the measured ones, below):
 *
 *   NR level ──(-)┐
 *   program ──(+)─┴─ e_L ──[K_L + I_L]── level out (kg/s) ─┐
 *                        I_L += (K_L dt / T_L) e_L          │
 *   steam flow W_s ───────────────────────────────────(+)───┴─ W_dem
 *   feed flow W_f ──(-)── W_dem - W_f ──[integral, T_W]── feed command W_c
 *                        W_c += (dt / T_W) (W_dem - W_f), clamped to
 *                        [0, feed_max_kg_s]
 *
 * The steam flow feeds forward (the feed follows the load before the level
 * moves), the level trims it, and the feed flow closes the flow loop (the
 * secondary's feed control is a flow: the valve and pump as one ideal
 * actuator with the flow loop's lag T_W). The command's upper limit is the
 * lower of feed_max_kg_s and the SG's element of the STATE store
 * "uN.sgctl.feed_limit" [n_sg] (kg/s; feed_max_kg_s until a feedwater model,
 * pcsim/feedwater.h, writes what its pumps can deliver against the SG's
 * pressure through valves that isolation may close). Anti-windup: I_L is not
 * integrated when the feed command is at a limit and the step would push it
 * further (so with the feed isolated, limit 0, it holds), and is held
 * within [-feed_max_kg_s, feed_max_kg_s].
 *
 * Measured values and the one-tick delay (the house pattern of
 * pcsim/pzr_control.h): the system "uN.sgctl.measure" at
 * PCS_STAGE_SENSORS (9) copies each SG's NR level, steam flow and feed flow
 * from the secondary's outputs of this tick into the STATE store
 * "uN.sgctl.meas"; the system "uN.sgctl" at PCS_STAGE_ACTUATORS (2) of the
 * next tick reads them and writes the secondary's per-SG feed flow,
 * which the secondary reads at stage 5. No
 * sensor noise or failure (the sensor bank has no steam-side channels yet).
 *
 * Channels (uN prefix): per SG sgK.feed_demand (W_c, kg/s); the
 * secondary's own channels (pcsim/secondary.h) carry the levels and flows.
 *
 * Thread-safety: build on the world's thread; the systems and the command
 * handler run in the world's tick.
 */
#ifndef PCSIM_SG_CONTROL_H
#define PCSIM_SG_CONTROL_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/secondary.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Elements of the STATE store "uN.sgctl.state" (PCS_SG_CONTROL_ST_PER_SG per SG). */
enum {
    PCS_SG_CONTROL_ST_SG = 0,             /**< first per-SG block: */
    PCS_SG_CONTROL_ST_INTEGRAL = 0,       /**<   + 0: I_L, kg/s */
    PCS_SG_CONTROL_ST_FEED = 1,           /**<   + 1: feed command W_c, kg/s */
    PCS_SG_CONTROL_ST_PER_SG = 2,
};

/** Elements of the STATE store "uN.sgctl.meas", per SG. */
enum {
    PCS_SG_CONTROL_MEAS_NR = 0,    /**< NR level, % */
    PCS_SG_CONTROL_MEAS_STEAM = 1, /**< steam flow, kg/s */
    PCS_SG_CONTROL_MEAS_FEED = 2,  /**< feed flow, kg/s */
    PCS_SG_CONTROL_MEAS_PER_SG = 3,
};

/** Settings. Start from pcs_sg_control_default; "assumption" marks a value
 *  with no source (scenarios/README.md lists them). */
typedef struct pcs_sg_control_def {
    const char *unit_name;      /**< "u1"; 1..15 characters */
    double nr_program;          /**< 44 % NR program at 20-100 % power ([HRTD] 11.1); [5, 95] */
    double level_gain_kg_s_pct; /**< K_L 10 kg/s per % NR (assumption: 2 % of rated steam flow
                                     per %); (0, 1000] */
    double level_reset_s;       /**< T_L 120 s (assumption: slow against shrink and swell);
                                     [1, 1e5] */
    double flow_lag_s;          /**< T_W 2 s flow loop (assumption); [0.05, 100] */
    double feed_max_kg_s;       /**< 720.6 = 150 % of the 480.4 kg/s rated steam flow per SG
                                     ([W84]; the margin an assumption); (0, 5000] */
} pcs_sg_control_def;

/** Defaults above. PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_sg_control_default(pcs_sg_control_def *def);

typedef struct pcs_sg_control pcs_sg_control;

/**
 * Build the controller of @p sec: stores, the two systems, channels and
 * the load check. Start state from the secondary as it is now (call after
 * pcs_secondary_init_steady): measured values from its outputs, each feed
 * command from its feed control and I_L = feed - steam. PCS_E_INVAL naming
 * a field out of range.
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
