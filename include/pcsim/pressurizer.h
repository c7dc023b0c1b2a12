/**
 * @file pressurizer.h
 * @brief Two-region non-equilibrium PWR pressurizer (steam dome over liquid,
 *        each with its own mass and energy, one common pressure) with
 *        heaters, spray, PORVs and code safety valves, as a pure kernel:
 *        the surge flow is an input (the network's surge-line junction will
 *        provide it), the controllers that set heater and spray demand are
 *        plant systems outside it.
 *
 * State: liquid region (M_l, U_l) and vapour region (M_v, U_v), kg and J.
 * Pressure is the one p at which both regions fill the vessel,
 *   M_l / rho(p, h_l) + M_v / rho(p, h_v) = V,
 * with each region's end-of-step enthalpy from its energy equation in
 * enthalpy form, d(M h)/dt = sum m h + Q + V_k dp/dt (the boundary work of
 * the moving interface), discretised with the start-of-step volumes scaled
 * to sum to V, so the work terms cancel and the total internal energy
 * changes by exactly the boundary terms (physics/thermohydraulics/kernels/
 * pressurizer_eos.c argues it). Solved by a safeguarded Newton on p
 * (dV_k/dp = -M_k / rho_k^2 (rho_p + rho_h V_k / M_k)) to
 * |residual| <= 1e-12 V, every property from the exact IF97 (p, h) path,
 * pcs_water_ph_exact (pcsim/water_ph.h), or from the (p, h) table when the
 * def names one (def.table; the primary's); saturation from pcs_water_tsat and
 * IF97 regions 1/2 at T_sat (region 3 densities by Newton above
 * 16.529 MPa). The state keeps (M_k, U_k) and the p, h_k they imply.
 *
 * Exchanges per step (all explicit from the start-of-step state except the
 * relief valves, see below), each moving the same mass and energy out of
 * one region and into the other or across the boundary, so total mass and
 * energy change by exactly the boundary terms the step reports:
 *  - surge (input, + into the vessel): an insurge joins the liquid with the
 *    given enthalpy; an outsurge leaves from the liquid at h_l, and what
 *    the liquid cannot give in a step (half its draw limit, below) leaves
 *    from the vapour at h_v (a pressurizer emptying through its surge line).
 *  - heaters: proportional demand x 414 kW + backup demand x 1380 kW
 *    (refdata pwr_transients.md section 2), into the liquid, but no more
 *    than 0.1 M_l (h_g - h_l) / dt (what brings to the steam's enthalpy in
 *    the step the least liquid the step can leave, the draws taking at most
 *    90 % of it: a nearly empty vessel's few kg of liquid cannot take
 *    1.8 MW); the rest, and all of it once there is no liquid, into the
 *    vapour (uncovered heaters; their low-level trip at 17 % is the
 *    controller's). The superheated steam's heat to the liquid (below)
 *    shares the same cap.
 *  - spray: demand x 39.4 kg/s (840 gpm at 742.5 kg/m3, pwr_transients.md
 *    section 2, scenarios/README.md) plus the continuous bypass 2 x 1 gpm
 *    ([HRTD] 3.2), at the given cold-leg enthalpy, is taken to reach
 *    saturation in the steam space (efficiency 1, assumption): it condenses
 *    m_c = w_sp (h_f - h_sp) / (h_v - h_f) of steam, and spray and condensate
 *    join the liquid. The flow is set by the demand alone: the driving head
 *    of the cold-leg-to-pressurizer line is not modelled (simplification).
 *  - interface, a relaxation model (every time constant an assumption,
 *    scenarios/README.md): superheated liquid (h_l > h_f) flashes,
 *    M_l (h_l - h_f) / ((h_g - h_f) tau_flash) kg/s to the vapour at h_g;
 *    subcooled vapour (h_v < h_g) rains out, M_v (h_g - h_v) /
 *    ((h_g - h_f) tau_rainout) kg/s to the liquid at h_f; superheated vapour
 *    (h_v > h_g) gives M_v (h_v - h_g) / tau_superheat W to the liquid
 *    through the interface. Subcooled liquid takes no heat from saturated
 *    steam at the interface (simplification: the liquid region is taken as
 *    thermally stratified, its surface layer saturated, so an insurge of cold
 *    water compresses the steam instead of condensing it at once).
 *  - wall: wall metal is NOT modelled. The wall in contact with the steam
 *    is a heat sink at a caller-given temperature T_w (input; NaN = an
 *    adiabatic wall, the default): Q_w = h_w A_w (T_v - T_w) with A_w the
 *    cylinder wall above the liquid plus the top (flat, simplification)
 *    cross-section; Q_w > 0 condenses Q_w / (h_v - h_f) kg/s of steam to the
 *    liquid at h_f and leaves the vessel; Q_w < 0 heats the steam.
 *  - PORVs (2 x 26.46 kg/s, open at 16.20 MPa = 2335 psig, close at the
 *    Salem reset 16.06 MPa = 2315 psig, pwr_transients.md section 2) and code
 *    safety valves (3 x 52.92 kg/s, set 17.23 MPa = 2485 psig, opening
 *    linearly to full over the 3 % tolerance band, an assumption) relieve
 *    from the top: steam while there is any, liquid once solid. Rated
 *    capacities are for saturated steam at the set pressure; at other
 *    states the flow scales as an orifice, sqrt(rho p / (rho_g,set p_set))
 *    (simplification: no choking model; liquid relief flows ~2.4 times the
 *    steam mass). The safety valves' flow is linearly implicit in the
 *    end-of-step pressure (the vessel compliance
 *    C = sum M_k / rho_k^2 (d rho_k / d p)_u gives dp = dM / (rho C)), so a
 *    water-solid vessel, whose dp/dM is ~1e4 Pa/kg, does not oscillate
 *    through the valves at dt = 0.05 s. The PORVs are on/off with that
 *    hysteresis.
 *
 * Degenerate regions: a region whose mass falls below 1e-6 of the total is
 * merged into the other (mass and energy added), so a water-solid or an
 * empty vessel is one region; flashing or condensation recreates the other.
 * An outflow never takes more than 90 % of a region's mass in one step, and
 * the boundary outflows stop at the mass of saturated steam at 0.1 MPa
 * filling the vessel (robustness floor, reported as reduced flows).
 *
 * Level: percent of the vessel volume filled by the liquid region,
 * 100 V_l / V. The sourced geometry gives the volume (1800 ft3) and the
 * full-power water (1080 ft3, 60 %) but not the level taps, so the span is
 * the whole vessel treated as a straight cylinder (0 % empty, 100 % solid);
 * the full-power level program value 61.5 % ([HRTD] 10.3) and the 60 %
 * water volume agree to 1.5 points under this definition.
 *
 * Cost: a step makes about ten (p, h) evaluations and four saturation
 * states: on the exact path about 12 us on this machine (~150,000
 * instructions), on the table about 20,000 instructions (the exact
 * saturation states most of it); no allocation. Thread-safety: pure functions of their
 * arguments; distinct states may be stepped concurrently.
 */
#ifndef PCSIM_PRESSURIZER_H
#define PCSIM_PRESSURIZER_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/water_ph.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Highest pressure the relief valves allow by design: the code safety
 *  valves' maximum accumulation, 2750 psig = 19.062 MPa abs
 *  (pwr_transients.md section 2); the robustness tests hold the kernel to it. */
#define PCS_PRESSURIZER_P_DESIGN_MAX_PA 19.0619e6

/** Vessel, equipment and model constants. Start from pcs_pressurizer_default. */
typedef struct pcs_pressurizer_def {
    double volume_m3;             /**< V, 50.97 (1800 ft3); > 0 */
    double inner_diameter_m;      /**< 2.134 ([HRTD] 3.2 old 84 in); > 0 */
    double heater_proportional_w; /**< 414 kW; >= 0 */
    double heater_backup_w;       /**< 1380 kW; >= 0 */
    double spray_capacity_kg_s;   /**< full-demand spray, 39.4; >= 0 */
    double spray_bypass_kg_s;     /**< continuous bypass, 2 x 1 gpm = 0.0937; >= 0 */
    double porv_capacity_kg_s;    /**< per valve, saturated steam at porv_open_pa, 26.46 */
    uint32_t porv_count;          /**< 2 */
    double porv_open_pa;          /**< 16.2006e6 (2335 psig) */
    double porv_close_pa;         /**< 16.0627e6 (Salem reset 2315 psig); < porv_open_pa */
    double safety_capacity_kg_s;  /**< per valve, saturated steam at safety_set_pa, 52.92 */
    uint32_t safety_count;        /**< 3 */
    double safety_set_pa;         /**< 17.2348e6 (2485 psig) */
    double safety_band;           /**< full open at set x (1 + band); 0.03; (0, 1] */
    double tau_flash_s;           /**< liquid superheat relaxation, 1 s (assumption); > 0 */
    double tau_rainout_s;         /**< vapour subcooling relaxation, 1 s (assumption); > 0 */
    double tau_superheat_s;       /**< vapour superheat to the interface, 10 s (assumption) */
    double wall_htc_w_m2k;        /**< steam-to-wall coefficient, 1000 (assumption); >= 0 */
    /** The regions' (p, h) states from this table (caller-owned, outlives
     *  every use; pcs_water_ph_table_lookup, within its stated bounds);
     *  default NULL: the exact IF97 path (pcs_water_ph_exact). Saturation
     *  (T_sat, h', h'', rho', rho'') is exact IF97 either way. The primary
     *  hands in its own table when this is NULL. */
    const pcs_water_ph_table *table;
} pcs_pressurizer_def;

/** The kernel's state: the conserved region masses and energies, and the
 *  pressure and enthalpies they imply (kept so the next solve starts there). */
typedef struct pcs_pressurizer_state {
    double m_liq_kg;   /**< liquid region mass */
    double u_liq_j;    /**< liquid region internal energy (total) */
    double m_vap_kg;   /**< vapour region mass */
    double u_vap_j;    /**< vapour region internal energy (total) */
    double p_pa;       /**< pressure (derived) */
    double h_liq_j_kg; /**< liquid specific enthalpy (derived; 0 if no liquid) */
    double h_vap_j_kg; /**< vapour specific enthalpy (derived; 0 if no vapour) */
    int porv_open;     /**< PORV hysteresis state */
} pcs_pressurizer_state;

/** What drives one step. */
typedef struct pcs_pressurizer_input {
    double surge_kg_s;          /**< surge-line flow, + into the pressurizer */
    double surge_h_j_kg;        /**< enthalpy of an insurge (hot leg), J/kg */
    double spray_demand;        /**< spray valve demand, [0, 1] */
    double spray_h_j_kg;        /**< spray enthalpy (cold leg), J/kg */
    double heater_proportional; /**< proportional heater demand, [0, 1] */
    double heater_backup;       /**< backup heater demand, [0, 1] */
    double wall_t_k;            /**< steam-side wall temperature, K; NaN: adiabatic */
} pcs_pressurizer_input;

/** What a step did: rates over the step (the same numbers the state was
 *  updated with) and the end-of-step state's measurable values. */
typedef struct pcs_pressurizer_report {
    double p_pa;          /**< end-of-step pressure */
    double level_pct;     /**< end-of-step level, 100 V_l / V */
    double t_sat_k;       /**< saturation temperature at p */
    double t_liq_k;       /**< liquid temperature (T_sat if no liquid) */
    double t_vap_k;       /**< vapour temperature (T_sat if no vapour) */
    double surge_kg_s;    /**< delivered surge flow, + in (less than asked at the floor) */
    double surge_w;       /**< enthalpy flow of the surge, + in */
    double spray_kg_s;    /**< spray into the vessel (incl. bypass) */
    double spray_w;       /**< its enthalpy flow */
    double heater_w;      /**< heater power delivered */
    double wall_w;        /**< heat to the wall, + out of the vessel */
    double porv_kg_s;     /**< PORV relief, out */
    double porv_w;        /**< its enthalpy flow, out */
    double safety_kg_s;   /**< safety-valve relief, out */
    double safety_w;      /**< its enthalpy flow, out */
    double flash_kg_s;    /**< liquid to vapour */
    double condense_kg_s; /**< vapour to liquid (spray, rain-out, wall) */
} pcs_pressurizer_report;

/** The 4-loop Westinghouse pressurizer (values above; scenarios/README.md
 *  lists each with its source or "assumption"). PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_pressurizer_default(pcs_pressurizer_def *def);

/** Check every field of @p def (ranges above); the message names the field. */
PCS_API pcs_status pcs_pressurizer_validate(const pcs_pressurizer_def *def);

/**
 * Saturated liquid and steam at pressure p with the given level.
 * @param p_pa      in [0.1e6, 21e6] Pa.
 * @param level_pct in [0, 100].
 */
PCS_API pcs_status pcs_pressurizer_init(const pcs_pressurizer_def *def, double p_pa,
                                        double level_pct, pcs_pressurizer_state *state);

/**
 * Advance @p state by dt (file comment). On error the state is unchanged.
 * @param dt_s   in (0, 1] s.
 * @param report out (may be NULL).
 * @return PCS_E_INVAL for NULL or out-of-range inputs (naming the field), or
 *         if the pressure solve leaves the IF97 (p, h) domain.
 */
PCS_API pcs_status pcs_pressurizer_step(const pcs_pressurizer_def *def,
                                        pcs_pressurizer_state *state,
                                        const pcs_pressurizer_input *in, double dt_s,
                                        pcs_pressurizer_report *report);

/** Level of a state, percent of the vessel volume (file comment). */
PCS_API pcs_status pcs_pressurizer_level(const pcs_pressurizer_def *def,
                                         const pcs_pressurizer_state *state, double *level_pct);

#ifdef __cplusplus
}
#endif

#endif
