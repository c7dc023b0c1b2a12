/**
 * @file feedwater.h
 * @brief One unit's feedwater plant on the steam side (issue 15): main feed
 *        pumps on a pump curve, feedwater isolation, the feedwater
 *        temperature from a heater train, and auxiliary feedwater (motor-
 *        and turbine-driven pumps), as one system.
 *
 * Block diagram (per tick, at PCS_STAGE_ALARMS, from this tick's secondary
 * outputs and interlock signals; everything it writes is read from the next
 * tick on). Why ALARMS: it must come after the interlocks (PROTECTION) to
 * act on them within the tick, and it cannot share stage ACTUATORS with
 * sg_control, which reads the feed limit it writes:
 *
 *   MFP i: running flag ──> speed s_i: run-up +dt/mfp_start_s to 1, or,
 *          tripped (or a turbine drive without header steam), coast down
 *          s_i <- s_i exp(-dt/mfp_coast_s)
 *   pump curve (affinity laws, one pump): dp(W, s) = rho g H0 (s^2 - (W/W_ro)^2)
 *   against SG l's pressure p_l from the suction pressure p_s:
 *          W_i(p_l) = W_ro sqrt(max(s_i^2 - (p_l - p_s) / (rho g H0), 0))
 *   FW_ISOLATION ──> valve v: -dt/isolation_close_s to 0 while isolated,
 *          +dt/isolation_close_s back to 1 when the signal clears
 *   feed limit_l = v sum_i W_i(p_l) / n_sg ──> "uN.sgctl.feed_limit"[l]
 *          (the top of sg_control's feed command: pcsim/sg_control.h)
 *
 *   turbine steam flow / rated ──> load f in [0, 1]
 *   T_target = max(T_no_load, T_sat(f p_sat(T_rated))) (T_rated at f = 1)
 *          ──[lag heater_lag_s]──>
 *          "uN.sec.feed_t" (the main feed's temperature, pcsim/secondary.h)
 *
 *   AFW_START rising edge, or "afw_start" ──> every AFW pump running, t = 0
 *   AFW pump j: W_j = rated_j clamp((t - delay_j) / ramp_j, 0, 1)
 *          (x 0 for a turbine drive without steam); t += dt
 *   sum_j W_j / n_sg ──x throttle_l──> "uN.sec.afw"[l]; throttle_l = 1, or
 *          after afw_throttle_after_s clamp((33 - NR_l) / (33 - 9), 0, 1)
 *
 * Simplifications (each an assumption): the pumps run at a fixed rated speed
 * when running (no speed control of the turbine-driven pumps on the valve's
 * differential pressure); the pumps share one discharge and every SG gets
 * the same share of what they can deliver against its own pressure; no line
 * or valve losses; the regulating valves are sg_control's ideal flow
 * actuator and the isolation valves one stroke for all SGs; isolation does
 * not trip the MFPs; the heater train is one heater whose extraction
 * pressure is proportional to the steam flow (Stodola's cone law at the
 * extraction stage) and whose feed leaves at the extraction steam's
 * saturation temperature (no terminal difference), with one lag; a
 * turbine-driven pump runs while its steam is above drive_steam_min_pa (a
 * main feed pump's from the header, the auxiliary feed pump's from upstream
 * of the MSIVs: the highest SG pressure); the auxiliary feed goes to every
 * SG in equal shares (no faulted-SG isolation), and after
 * afw_throttle_after_s (the operators' action) each share is throttled in
 * proportion to its SG's NR level, full at 9 % and shut at 33 % (Salem's
 * 9-33 % NR band, [Salem] EOP-TRIP-2; a proportional valve per SG, no
 * integral: nothing to wind up; the pumps' excess is recirculated, not
 * modelled); the AFW pumps start on the start signal's rising edge and run
 * until afw_stop (a stop while the signal stays on holds until the signal
 * clears and comes back).
 *
 * gpm to kg/s: the AFW ratings in gpm are converted at the density of the
 * condensate storage tank water, IF97 at the secondary's afw_t_k and
 * 101325 Pa (993.0 kg/m3 at 310.93 K): 1 gpm = 6.30901964e-5 m3/s.
 *
 * Stores (uN prefix): "uN.feed.state" STATE (PCS_FEEDWATER_ST_*),
 * "uN.feed.out" SCRATCH (PCS_FEEDWATER_OUT_*); it is the one writer of
 * "uN.sec.afw", "uN.sec.feed_t", "uN.sgctl.feed_limit" and "uN.feed.sig"
 * (pcsim/plant_signals.h: MFP_TRIPPED when every MFP is tripped, the main
 * and auxiliary feed the secondary applied this tick); it reads
 * "uN.interlock.sig" (FW_ISOLATION, AFW_START; 0 = inactive, so a test may
 * write them by hand) and the secondary's outputs.
 *
 * Commands (family PCS_FEEDWATER_COMMANDS, targets "uN.feed" and "uN"):
 * MFP_TRIP / MFP_START args[0] the pump, 1..n_mfp, or 0 for all;
 * AFW_START, AFW_STOP (every AFW pump). Station commands feed_pump_trip,
 * feed_pump_start, afw_start, afw_stop.
 *
 * Channels (uN prefix): feed.mfpK.speed (1), feed.isolation_valve (1),
 * feed.available (kg/s, what the pumps can deliver to all SGs through the
 * valves), feed.temperature (K), afw.pumpK.flow (kg/s), afw.flow (kg/s).
 *
 * Thread-safety: build on the world's thread; the system and the command
 * handler run in the world's tick.
 */
#ifndef PCSIM_FEEDWATER_H
#define PCSIM_FEEDWATER_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/secondary.h"
#include "pcsim/sg_control.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PCS_FEEDWATER_MAX_MFP 4u
#define PCS_FEEDWATER_MAX_AFW 4u
/** US gallon per minute in m3/s (231 in3 / 60 s). */
#define PCS_FEEDWATER_GPM_M3_S 6.30901964e-5

/** Command family name and its ops. Targets "uN.feed" and "uN". */
#define PCS_FEEDWATER_COMMANDS "feedwater"
enum {
    PCS_FEEDWATER_OP_MFP_TRIP = 0,  /**< args[0] pump 1..n_mfp, 0 = all */
    PCS_FEEDWATER_OP_MFP_START = 1, /**< args[0] pump 1..n_mfp, 0 = all */
    PCS_FEEDWATER_OP_AFW_START = 2, /**< every AFW pump */
    PCS_FEEDWATER_OP_AFW_STOP = 3,  /**< every AFW pump */
    PCS_FEEDWATER_OP_COUNT = 4,
};

/** A pump's drive. */
typedef enum pcs_feed_drive {
    PCS_FEED_DRIVE_MOTOR = 0,
    PCS_FEED_DRIVE_TURBINE = 1, /**< runs only while its steam is above drive_steam_min_pa */
} pcs_feed_drive;

/** Elements of the STATE store "uN.feed.state". */
enum {
    PCS_FEEDWATER_ST_ISO_VALVE = 0,  /**< isolation valve opening [0, 1] */
    PCS_FEEDWATER_ST_AFW_SIGNAL = 1, /**< AFW_START as last seen, flag (edge detection) */
    PCS_FEEDWATER_ST_MFP = 2,        /**< first MFP block, PCS_FEEDWATER_ST_PER_PUMP each: */
    PCS_FEEDWATER_ST_RUNNING = 0,    /**<   + 0: running flag (0 tripped / stopped) */
    PCS_FEEDWATER_ST_SPEED = 1,      /**<   + 1: MFP speed / rated [0, 1]; AFW: s since start */
    PCS_FEEDWATER_ST_PER_PUMP = 2,
    /* the AFW blocks follow the MFP blocks: PCS_FEEDWATER_ST_MFP + 2 n_mfp */
};

/** Elements of the SCRATCH store "uN.feed.out". */
enum {
    PCS_FEEDWATER_OUT_AVAILABLE = 0, /**< main feed deliverable to all SGs now, kg/s */
    PCS_FEEDWATER_OUT_T_TARGET = 1,  /**< heater train's steady feed temperature at this load, K */
    PCS_FEEDWATER_OUT_AFW_TOTAL = 2, /**< auxiliary feed written for the next tick (after the
                                          level throttle), kg/s */
    PCS_FEEDWATER_OUT_AFW = 3,       /**< first of n_afw per-pump flows, kg/s */
};

/** Settings. Start from pcs_feedwater_default; "assumption" marks a value
 *  with no source (scenarios/README.md lists them). */
typedef struct pcs_feedwater_def {
    const char *unit_name; /**< "u1"; 1..15 characters */

    /* main feed pumps */
    uint32_t n_mfp;            /**< 2 ("both main feed pumps", [HRTD] 5.7, 12.3); [1, 4] */
    uint32_t mfp_drive;        /**< PCS_FEED_DRIVE_TURBINE for all (assumption) */
    double mfp_shutoff_head_m; /**< H0 1270 m at rated speed (assumption: 8.2 MPa discharge
                                    at rated flow from mfp_suction_p_pa); (0, 1e4] */
    double mfp_rated_kg_s;     /**< 960.8 per pump: two carry the 4 x 480.4 kg/s rated feed
                                    ([W84] steam flow; the split an assumption); (0, 1e4] */
    double mfp_runout_kg_s;    /**< W_ro 1441.2 = 1.5 x rated (assumption); > rated */
    double mfp_suction_p_pa;   /**< 2.4e6 booster/condensate pump discharge (assumption);
                                    [0, 2e7] */
    double mfp_coast_s;        /**< 10 s speed time constant after a trip (assumption);
                                    [0.1, 1000] */
    double mfp_start_s;        /**< 30 s run-up from rest to rated speed (assumption);
                                    [0.1, 1000] */
    double drive_steam_min_pa; /**< 1.0e6 steam pressure a turbine drive needs: the header for
                                    an MFP, the highest SG for an AFW pump (assumption);
                                    [0, 2e7] */
    double isolation_close_s;  /**< 5 s full stroke of the feed isolation and regulating
                                    valves (assumption); [0.1, 600] */

    /* heater train */
    double feed_t_rated_k;   /**< 493.43 at 100 % load: the secondary's feed_t_k ([TYP] 2820201);
                                  [273.16, 600] */
    double feed_t_no_load_k; /**< 306.03: T_sat at the 5 kPa condenser (the condensate, no
                                  extraction steam in the heaters; assumption); [273.16,
                                  feed_t_rated_k] */
    double rated_steam_kg_s; /**< 1921.6 turbine steam flow at 100 % load (4 x 480.4 [W84]); the
                                  plant builder sets the flow its unit settled at, divided by its
                                  power fraction; (0, 1e5] */
    double heater_lag_s;     /**< 180 s (assumption: the heaters' and their shells' storage);
                                  [0.05, 1e4] */

    /* auxiliary feed pumps ([HRTD] 5.7: 2 x 440 gpm motor, 1 x 880 gpm turbine) */
    uint32_t n_afw;                                  /**< 3; [0, 4] */
    uint32_t afw_drive[PCS_FEEDWATER_MAX_AFW];       /**< motor, motor, turbine */
    double afw_rated_gpm[PCS_FEEDWATER_MAX_AFW];     /**< 440, 440, 880; (0, 1e4] */
    double afw_start_delay_s[PCS_FEEDWATER_MAX_AFW]; /**< 10, 10, 20 s (assumption: sequencer
                                                          load block; steam admission) */
    double afw_ramp_s[PCS_FEEDWATER_MAX_AFW];        /**< 20, 20, 30 s to rated (assumption);
                                                          delay + ramp <= 60 s ([HRTD] 5.7:
                                                          rated flow within 1 min) */
    uint32_t afw_level_control;                      /**< 1 (default): once the pumps have run
                                                          afw_throttle_after_s, each SG's share is throttled to
                                                          hold its NR level in the band below; 0: full shares */
    double afw_throttle_after_s; /**< 600 s: when the operators take the AFW to the level
                                      band (assumption; [HRTD] 5.7 sizes the AFW for an
                                      operator action 10 min late); [0, 1e5] */
    double afw_level_low_pct;    /**< 9 % NR: full share below ([Salem] EOP-TRIP-2); [0, 99] */
    double afw_level_high_pct;   /**< 33 % NR: shut above ([Salem] EOP-TRIP-2); (low, 100] */
} pcs_feedwater_def;

/** Defaults above. PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_feedwater_default(pcs_feedwater_def *def);

/**
 * One pump's flow on the curve (header): W_ro sqrt(max(s^2 - (p_back -
 * p_s) / (rho g H0), 0)), kg/s, with g = 9.80665 m/s2. @p rho_kg_m3 the feed
 * density at the pump (pcs_feedwater_add uses IF97 at mfp_suction_p_pa and
 * feed_t_rated_k). 0 for NULL or non-positive density.
 */
PCS_API double pcs_feedwater_pump_flow(const pcs_feedwater_def *def, double rho_kg_m3, double speed,
                                       double back_p_pa);

/** The heater train's steady feed temperature at @p load (turbine steam
 *  flow / rated_steam_kg_s), K: feed_t_rated_k at load >= 1, else
 *  T_sat(load p_sat(feed_t_rated_k)), but not below feed_t_no_load_k (IF97
 *  saturation line). 0 for NULL. */
PCS_API double pcs_feedwater_heater_t(const pcs_feedwater_def *def, double load);

typedef struct pcs_feedwater pcs_feedwater;

/**
 * Build the feedwater plant of @p sec: stores, the system, the command
 * targets, channels and the load check. @p sc may be NULL (no main feed
 * limit is written; sg_control's feed_limit store stays as it is). Start
 * state: every MFP running at rated speed, isolation valves open, no AFW
 * pump running, the feed temperature as the secondary's feed_t store holds
 * it. PCS_E_INVAL naming a field out of range (or a unit_name unlike the
 * secondary's).
 */
PCS_API pcs_status pcs_feedwater_add(pcs_world *w, const pcs_feedwater_def *def, pcs_secondary *sec,
                                     pcs_sg_control *sc, pcs_feedwater **out);

/** Store ids of the model. */
typedef struct pcs_feedwater_stores {
    uint32_t state; /**< "uN.feed.state" */
    uint32_t out;   /**< "uN.feed.out" */
    uint32_t sig;   /**< "uN.feed.sig" */
} pcs_feedwater_stores;
PCS_API pcs_feedwater_stores pcs_feedwater_store_ids(const pcs_feedwater *fw);

/** The feed density at the pumps (kg/m3) and the AFW water's (CST), as built. */
PCS_API double pcs_feedwater_rho_feed(const pcs_feedwater *fw);
PCS_API double pcs_feedwater_rho_afw(const pcs_feedwater *fw);

#ifdef __cplusplus
}
#endif

#endif
