/**
 * @file sg_porv.h
 * @brief Pressure control of one unit's SG atmospheric relief valves (SG
 *        PORVs; pcsim/secondary.h, one per steam line upstream of the MSIV)
 *        as a plant control system (issue 15): per SG a PI controller on
 *        its measured steam pressure, auto/manual with bumpless transfer,
 *        anti-windup and the valve's stroke-rate limit. The only writer of
 *        "uN.sec.porv".
 *
 * Sources ([HRTD] 7.1 Main and Auxiliary Steam, via refdata
 * pwr_transients.md section 6 "SG PORV 1125 psig"): one 6-inch air-operated
 * globe valve per steam line; setpoint 1125 psig, about halfway between the
 * no-load SG pressure (1092 psig) and the lowest safety valve (1170 psig),
 * so it lifts before a safety valve; capacity about 10 % of one SG's rated
 * steam flow at no-load pressure (pcs_secondary_def porv_capacity); one of
 * each line's pressure transmitters gives its signal; manual from the
 * control room. The gains and the stroke time have no source (assumptions
 * below, argued before any transient was run; scenarios/README.md).
 *
 * Block diagram, per SG l (all in Pa; the HRTD's psig + 1 atm):
 *
 *   p_l  (measured steam pressure, the SG's control channel)
 *   e = p_l - p_set                            p_set = 1125 psig
 *   auto:   I += (dt / T_i) K_p e   unless the output sits at full open
 *           and the step pushes it up (conditional integration:
 *           anti-windup); I within [0, 1] (below the setpoint it runs
 *           down to 0: a shut valve keeps no stale opening)
 *           target = clamp(K_p e + I, 0, 1)    K_p = 1 / p_band
 *   manual: target = the manual opening (a command)
 *   opening moves toward target at 1 / stroke_s per s
 *   opening -> "uN.sec.porv"[l]  (the secondary's choked junction to the
 *                                 atmosphere: flow = opening x choked flow)
 *
 * Below the setpoint e < 0 drives I to 0 and the valve stays shut: the
 * normal state at power (SG pressure 6-7 MPa) and at no load (1092 psig).
 * Above it the integral carries the opening that holds p_l at 1125 psig.
 *
 * Auto/manual and bumpless transfer: MANUAL holds the opening it is given
 * (rate-limited); AUTO sets I so that K_p e + I equals the opening now (at
 * the last measured pressure; clamped to [0, 1]), and the rate limit
 * carries any remainder: the valve never jumps.
 *
 * An invalid input (not finite, or its status word without
 * PCS_SENSOR_ST_VALID) holds that valve's auto target at the opening now
 * and freezes its integral (a failed transmitter neither opens nor closes
 * the valve; a failed-high one that still reads valid opens it, as in a
 * plant).
 *
 * Timing: the system "uN.porvctl" runs at PCS_STAGE_ALARMS: it reads the
 * measured pressures of this tick (stage SENSORS) and writes the openings
 * the secondary reads at MACHINES of the next tick.
 *
 * Commands (family PCS_SG_PORV_COMMANDS; targets "uN.porvctl" and "uN"
 * for every valve, "uN.porvK" for SG K's; station commands sg_porv_manual,
 * sg_porv_auto): MANUAL args[0] opening [0, 1]; AUTO.
 *
 * Channels (uN prefix, per SG K): sgK.porv_opening (1), sgK.porv_manual
 * (0/1), sgK.porv_error (Pa); the flow is the secondary's sgK.porv_flow.
 *
 * Thread-safety: build on the world's thread; the system and the command
 * handler run in the world's tick.
 */
#ifndef PCSIM_SG_PORV_H
#define PCSIM_SG_PORV_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/pzr_control.h"
#include "pcsim/secondary.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Command family name and its ops. Targets "uN.porvctl", "uN", "uN.porvK". */
#define PCS_SG_PORV_COMMANDS "sg_porv"
enum {
    PCS_SG_PORV_OP_MANUAL = 0, /**< args[0] opening [0, 1]; to manual */
    PCS_SG_PORV_OP_AUTO = 1,   /**< back to auto, bumpless */
    PCS_SG_PORV_OP_COUNT = 2,
};

/** Elements of one SG's block of the STATE store "uN.porvctl.state"
 *  (float64, PCS_SG_PORV_ST_COUNT per SG, SG l at l x PCS_SG_PORV_ST_COUNT). */
enum {
    PCS_SG_PORV_ST_MANUAL = 0,         /**< 0/1 */
    PCS_SG_PORV_ST_MANUAL_OPENING = 1, /**< [0, 1] */
    PCS_SG_PORV_ST_OPENING = 2,        /**< the opening now, [0, 1] */
    PCS_SG_PORV_ST_INTEGRAL = 3,       /**< I, [0, 1] */
    PCS_SG_PORV_ST_P_MEASURED = 4,     /**< the last valid measured pressure, Pa, [0, 1e8] */
    PCS_SG_PORV_ST_ERROR = 5,          /**< p - p_set, Pa, [-1e8, 1e8] */
    PCS_SG_PORV_ST_COUNT = 6,
};

/** Settings. Start from pcs_sg_porv_default; "assumption" marks a value
 *  with no source (scenarios/README.md lists them). */
typedef struct pcs_sg_porv_def {
    const char *unit_name; /**< "u1"; 1..15 characters */
    /** Measured steam pressure per SG, Pa (pcsim/pzr_control.h's input form);
     *  one per SG of the secondary, the rest unused. */
    pcs_pzr_control_input pressure[PCS_SECONDARY_MAX_SG];
    double p_setpoint_pa;   /**< 7.8579e6: 1125 psig ([HRTD] 7.1); [1e6, 1.6e7] */
    double p_band_pa;       /**< 0.31026e6 (45 psi): full open at 1170 psig, the lowest safety
                                 valve's setpoint, so the valve's whole capacity is in use
                                 before a safety valve lifts ([HRTD] 7.1's purpose: lift first;
                                 the band itself is an assumption); K_p = 1 / band;
                                 [1e3, 1e7] */
    double integral_time_s; /**< T_i 60 s (assumption: the dumps' pressure-mode T_i,
                                 pcsim/steam_dump.h; a few of the SG pressure's own time
                                 constants); [1, 1e5] */
    double stroke_s;        /**< 20 s full stroke (assumption: the dump valves' modulating
                                 stroke, pcsim/steam_dump.h, the same class of air-operated
                                 valve on a positioner); [0.05, 600] */
} pcs_sg_porv_def;

/** Defaults above; pressure inputs unset (UINT32_MAX stores). PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_sg_porv_default(pcs_sg_porv_def *def);

typedef struct pcs_sg_porv pcs_sg_porv;

/**
 * Build the PORV control of @p sec (one valve per SG): the STATE store, the
 * system, the command targets, channels and the load check. Starts in auto,
 * every valve at the secondary's porv opening now, I = 0. PCS_E_INVAL
 * naming a field out of range or an unset pressure input (by SG).
 */
PCS_API pcs_status pcs_sg_porv_add(pcs_world *w, const pcs_sg_porv_def *def, pcs_secondary *sec,
                                   pcs_sg_porv **out);

/** The STATE store "uN.porvctl.state" (UINT32_MAX for NULL). */
PCS_API uint32_t pcs_sg_porv_state_store(const pcs_sg_porv *pv);

#ifdef __cplusplus
}
#endif

#endif
