/**
 * @file secondary.h
 * @brief One PWR unit's steam side as a world model (issue 15, foundation):
 *        per SG a boiling secondary (downcomer, tube-bundle riser, steam
 *        dome with the level), steam lines with flow restrictors, MSIVs and
 *        safety valves, a common header, the turbine and the steam dumps to
 *        the condenser, all on the network of pcsim/thnet.h (homogeneous
 *        equilibrium, the same (p, h) tables as the primary).
 *
 * Nodalisation per SG (geometry: RELAP5 typpwr2.i [TYP] broken-loop SG
 * secondary, components 270-280, one SG; scenarios/README.md "Secondary
 * model (issue 15)" lists every row):
 *  - bundle riser: n_bundle volumes of equal height from the top of the tube
 *    sheet to the U-bend top ([TYP] 270 cells 1-4); riser volume k holds the
 *    heat of the primary's tube volumes k (up leg) and n_tubes - 1 - k (down
 *    leg), which span the same heights (pcsim/primary.h tube_z);
 *  - upper riser ([TYP] 270 cells 5-6: the transition cone and the swirl
 *    vane stand pipes);
 *  - dome: the level region around the riser top, the separator deck and the
 *    steam dome in one volume ([TYP] 272 + 271 + 278 + 280). The riser enters
 *    it through the separators; separation is perfect: what leaves for the
 *    downcomer is saturated liquid, what leaves for the steam line is
 *    saturated steam (below);
 *  - downcomer: upper ([TYP] 274, the feedwater ring: feed enters here as a
 *    source) and lower ([TYP] 276), back into the bundle's bottom ([TYP] 277);
 *  - steam line (assumption: one volume, no [TYP] component) fed through the
 *    SG outlet flow restrictor (a choked junction sized to the [HRTD] 7.1
 *    break-flow limit of 1220 kg/s), with the SG safety-valve bank and the
 *    atmospheric relief valve (SG PORV; both choked, to an atmosphere
 *    boundary) and the MSIV to the common header.
 * Per unit: the header (assumption: one volume), the turbine (a choked
 * junction, the governor/control valves and the first-stage nozzles as one
 * throat) and the dumps (a choked junction, 12 valves as one) to the
 * condenser, a pressure boundary at the condenser vacuum.
 *
 * Separation (the one thing HEM cannot do by itself): the dome's two
 * outlets are phase offtakes (pcsim/thnet.h pcs_thnet_offtake): while the
 * dome is two-phase the restrictor takes saturated steam (h_g) and the
 * downcomer saturated liquid (h_f) at the dome's pressure, in the pressure
 * solve and the transport alike, so mass and energy balance to round-off.
 * A perfect separator: no carry-over, no carry-under (assumption), except
 * as the dome runs out of liquid: below carry_under_m of collapsed level
 * the downcomer offtake's void rises linearly with the dome's liquid
 * volume falling, to all steam at an empty dome (pcs_thnet_junction_def
 * offtake_band, the form of RELAP5's separator fall-back junction: the
 * junction's liquid fraction is the volume's over VUNDER). So the enthalpy
 * the downcomer takes is continuous in level: with a sharp switch (h_f
 * until the dome is dry, then the dome's steam) the level leaving the
 * narrow range after a trip made the dome dry out in a tick, steam surge
 * into the downcomer and condense, and the dome's pressure jump by up to
 * 2 MPa per tick (tests/test_secondary.c), which swung the steam lines'
 * flows by +-1000 kg/s with the MSIVs shut and read as high steam flow.
 * With the dome subcooled (flooded) or dry, both take the mixture.
 *
 * Level: the dome's collapsed liquid volume (1 - alpha) V filled from the
 * dome bottom through its sections ([TYP] 272, 271, 278, 280 heights and
 * volumes); narrow range = (z_liquid - z_nr_lower) / nr_span x 100 %.
 * Shrink and swell come from the riser's void: a pressure fall (steam flow
 * up) flashes the riser, which pushes mixture into the dome.
 *
 * Safety valves: opening of the bank linear from the lowest to the highest
 * setpoint (the valves' staggered setpoints as a proportional bank, no
 * blowdown hysteresis: assumption), from the steam line's start-of-tick
 * pressure.
 *
 * Heat exchange with the primary (how the lead wires it; see also
 * scenarios/README.md): two stores, both [n_sg x n_tubes], n_tubes = 2
 * n_bundle = the primary's n_sg_tubes, element l * n_tubes + k for SG l and
 * primary tube volume k:
 *  - tube_t (STATE, K): the secondary's local temperature at tube volume k
 *    (its riser volume's), written by the secondary at the end of its tick;
 *  - tube_heat (STATE, W, + from the primary into the secondary): written by
 *    the primary's tick, read by the secondary's.
 * Order in one tick: the primary (PCS_STAGE_HYDRAULICS) computes per tube
 * volume Q = U A (T_tube - tube_t[l, k]) from the start-of-tick temperatures
 * of both sides, applies -Q to its tube volume and writes +Q into tube_heat;
 * the secondary (PCS_STAGE_MACHINES, later in the same tick) applies +Q to
 * its riser volume. The heat is computed once and given to both sides in the
 * same tick, so primary + secondary energy closes to round-off. The wiring
 * change in the primary: read tube_t (listed in its reads) instead of
 * T_sat(controls[SG_PRESSURE + l]) and write tube_heat (listed in its
 * writes); pcs_secondary_store_ids gives both ids.
 *
 * Tick (one FAST system "uN.secondary" at PCS_STAGE_MACHINES): valve
 * openings (turbine, dumps, MSIVs, PORVs from the actuator stores; safety bank from
 * the steam-line pressure), feedwater sources (main at h(p, feed_t),
 * auxiliary at h(p, afw_t_k), into the upper downcomer), riser heats
 * from tube_heat, network step, outputs and
 * tube_t. 0 bytes allocated per tick (as pcsim/thnet.h).
 *
 * Actuator inputs: one STATE store per actuator, so each has one writer
 * (the engine refuses two writers of a store; the turbine governor, the dump
 * controller, the feedwater controller, the auxiliary feedwater and the
 * steam-line isolation are different systems): "uN.sec.turbine_valve" [1]
 * opening [0, 1]; "uN.sec.dump_demand" [1] [0, 1] (all dump valves as one);
 * per SG "uN.sec.feed" [n_sg] main feed kg/s >= 0, "uN.sec.afw" [n_sg]
 * auxiliary feed kg/s >= 0, "uN.sec.msiv" [n_sg] opening [0, 1],
 * "uN.sec.porv" [n_sg] atmospheric relief valve opening [0, 1] (its
 * controller: pcsim/sg_porv.h),
 * "uN.sec.feed_t" [1] main feed temperature K (starts at feed_t_k; the
 * feedwater heater train of pcsim/feedwater.h writes it). Without a
 * controller a host or test writes them.
 *
 * Channels (prefix uN): turbine.steam_flow, dump.flow (kg/s),
 * steam.header_pressure (Pa); per SG sgK.pressure (dome, Pa),
 * sgK.steam_flow (restrictor, kg/s), sgK.feed_flow (kg/s), sgK.nr_level (%),
 * sgK.level (collapsed, m above the dome bottom), sgK.safety_flow (kg/s),
 * sgK.heat_in (W), sgK.afw_flow (kg/s), sgK.break_flow (kg/s), sgK.porv_flow
 * (kg/s).
 *
 * Steam line break (issue 15): each steam line has a choked junction to the
 * atmosphere between the SG's flow restrictor and its MSIV, shut at build;
 * command family PCS_SECONDARY_COMMANDS op STEAM_LINE_BREAK on target
 * "uN.sgK" sets its area (args[0], m2, up to the line's bore; 0 closes it).
 * Upstream the SG's restrictor limits the SG's outflow to its 1220 kg/s
 * ([HRTD] 7.1); until the MSIV shuts the other SGs feed the break back
 * through the header. Station command steam_line_break.
 *
 * Thread-safety: build on the world's thread; the system runs in the tick.
 */
#ifndef PCSIM_SECONDARY_H
#define PCSIM_SECONDARY_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/water_ph.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Command family name and its ops. Targets "uN.sgK". */
#define PCS_SECONDARY_COMMANDS "secondary"
enum {
    PCS_SECONDARY_OP_STEAM_LINE_BREAK = 0, /**< args[0] break area, m2 [0, the line's bore] */
    PCS_SECONDARY_OP_COUNT = 1,
};

#define PCS_SECONDARY_MAX_SG 8u
#define PCS_SECONDARY_MAX_BUNDLE 16u

/** Elements of the output store (then PCS_SECONDARY_OUT_PER_SG per SG). */
enum {
    PCS_SECONDARY_OUT_HEADER_P = 0,     /**< header pressure, Pa */
    PCS_SECONDARY_OUT_TURBINE_FLOW = 1, /**< kg/s */
    PCS_SECONDARY_OUT_DUMP_FLOW = 2,    /**< kg/s */
    PCS_SECONDARY_OUT_SG = 3,           /**< first per-SG block: */
    PCS_SECONDARY_OUT_P = 0,            /**<   + 0: dome pressure, Pa */
    PCS_SECONDARY_OUT_STEAM = 1,        /**<   + 1: steam flow through the restrictor, kg/s */
    PCS_SECONDARY_OUT_FEED = 2,         /**<   + 2: feed flow the tick applied, kg/s */
    PCS_SECONDARY_OUT_NR = 3,           /**<   + 3: narrow-range level, % */
    PCS_SECONDARY_OUT_LEVEL = 4,        /**<   + 4: collapsed level above the dome bottom, m */
    PCS_SECONDARY_OUT_SAFETY = 5,       /**<   + 5: safety-valve flow, kg/s */
    PCS_SECONDARY_OUT_HEAT = 6,         /**<   + 6: heat from the tubes, W */
    PCS_SECONDARY_OUT_RECIRC = 7,       /**<   + 7: downcomer-to-bundle flow, kg/s */
    PCS_SECONDARY_OUT_AFW = 8,          /**<   + 8: auxiliary feed flow the tick applied, kg/s */
    PCS_SECONDARY_OUT_BREAK = 9,        /**<   + 9: steam line break flow, kg/s */
    PCS_SECONDARY_OUT_PORV = 10,        /**<   + 10: atmospheric relief valve flow, kg/s */
    PCS_SECONDARY_OUT_PER_SG = 11,
};

/**
 * One unit's steam side. Start from pcs_secondary_default. [TYP] rows are
 * the typpwr2.i card numbers (British units converted here); "assumption"
 * marks a value with no source (never adjusted to make a steady state come
 * out).
 */
typedef struct pcs_secondary_def {
    const char *unit_name; /**< prefix of stores, channels: "u1"; 1..15 chars */
    uint32_t n_sg;         /**< 4 [W84]; [1, PCS_SECONDARY_MAX_SG] */
    uint32_t n_bundle;     /**< bundle riser volumes, 4 = primary n_sg_tubes / 2; [1, 16] */
    /** Property table (caller-owned, outlives the world); NULL: exact IF97 (slow). */
    const pcs_water_ph_table *table;

    /* SG secondary geometry (per SG; m, m2, m3). */
    double z_riser_bottom_m; /**< 6.029: the primary's tube sheet 5.489 + 0.540 (the tube-sheet
                                  thickness, [TYP] 2040301 8.736 ft - 2700301 6.965 ft) */
    double h_bundle_m;       /**< 9.718 [TYP] 2700301-303 6.965 + 2 x 8.736 + 7.447 ft */
    double v_bundle_m3;      /**< 49.56 [TYP] 2700101 54.893 ft2 x 31.884 ft */
    double a_bundle_m2;      /**< 5.0997 [TYP] 2700101 54.893 ft2 (flow area) */
    double d_bundle_m;       /**< 0.03844 [TYP] 2700801 0.12613 ft */
    double a_support_m2;     /**< 1.5794 [TYP] 2700201 17.0 ft2: support-plate junctions */
    double k_support;        /**< 2.0 [TYP] 2700901 per support plate */
    double v_upper_riser_m3; /**< 23.09 [TYP] 2700402 398.4 + 51.313 x 8.125 ft3 */
    double h_upper_riser_m;  /**< 4.064 [TYP] 2700304-305 5.208 + 8.125 ft */
    double d_upper_riser_m;  /**< 1.4225 [TYP] 2700803 4.667 ft */
    double a_separator_m2;   /**< 1.3657 [TYP] 2713101 14.7 ft2: riser into the separators */
    double k_separator;      /**< 1.0 [TYP] 2713101 */
    /** Dome sections bottom-up: level region [TYP] 272, separators 271, dome 278, 280. */
    double v_dome_m3[4]; /**< 20.128, 15.008, 27.467, 11.987 ([TYP] 710.8, 530, 970, 423.3 ft3) */
    double h_dome_m[4];  /**< 2.0925, 0.9144, 2.0510, 2.2162 ([TYP] 6.865, 3.0, 6.729, 7.271 ft) */
    double a_dome_bottom_m2; /**< 9.6195 [TYP] 2742101 103.543 ft2 into the downcomer */
    double v_dc_upper_m3;    /**< 12.989 [TYP] 2740101 458.7 ft3 (feedwater enters here) */
    double h_dc_upper_m;     /**< 2.6728 [TYP] 2740101 8.769 ft */
    double a_dc_m2;          /**< 0.6587 [TYP] 2741101/2760101 7.09 ft2 */
    double k_dc;             /**< 0.04 [TYP] 2741101 (forward) */
    double h_dc_lower_m;     /**< 9.0169 [TYP] 2760301 29.583 ft (volume 7.09 ft2 x that) */
    double d_dc_m;           /**< 0.1430 [TYP] 2760801 0.469 ft */
    double a_dc_exit_m2;     /**< 0.2230 [TYP] 2770101 2.4 ft2 into the bundle */
    double k_dc_exit;        /**< 1.0 [TYP] 2770101 */

    /* Level instrument. */
    double nr_lower_m; /**< 0.0 NR lower tap above the dome bottom (assumption) */
    double nr_span_m;  /**< 3.007 = [TYP] 272 + 271 heights: the span brackets the level region
                            and the separators (assumption: no tap elevations in refdata) */
    double nr_initial; /**< 44 % NR level program at 20-100 % power ([HRTD] 11.1; [RD]) */
    /** 0.30: the dome's collapsed level above its bottom (the downcomer entrance) below
     *  which the downcomer offtake carries steam with the liquid, rising to all steam at an
     *  empty dome (Separation, above; assumption: 10 % of the NR span, no source gives the
     *  entrance's submergence); [0, h_dome_m[0]]; 0: liquid only until the dome is dry */
    double carry_under_m;

    /* Steam lines, header, turbine, dumps, condenser. */
    double d_steam_line_m;        /**< 0.70 main steam line inner diameter (assumption) */
    double l_steam_line_m;        /**< 50 SG to header (assumption) */
    double k_steam_line;          /**< 1.5 bends and the MSIV (assumption) */
    double restrictor_kg_s;       /**< 1220 flow limit per SG [HRTD] 7.1 (9.68e6 lb/h) at
                                       restrictor_p_pa: the throat area is derived from it */
    double restrictor_p_pa;       /**< 6.89e6 the rating pressure (assumption: [W84] full-load shell
                                       pressure; [HRTD] gives no pressure for the limit) */
    double k_restrictor;          /**< 0.5 venturi loss on the throat area (assumption) */
    double v_header_m3;           /**< 10 (assumption) */
    double rated_steam_kg_s;      /**< 480.4 per SG [W84] Table 3.4-1 (3.813e6 lb/h): sizes
                                       the absolute capacities (throat, safeties, PORVs, feed
                                       limit), not the turbine's load 1, which is the unit's
                                       own full-power steam (pcsim/turbine.h "Calibration") */
    double turbine_rated_p_pa;    /**< 6.89e6: the turbine throat passes n_sg x rated_steam_kg_s of
                                       saturated steam at this header pressure at the rated opening
                                       ([W84] shell pressure: a design-point sizing, assumption) */
    double turbine_rated_opening; /**< 0.9 governor opening at rated flow (assumption: 10 %
                                       margin) */
    double dump_valve_kg_s;       /**< 113 per valve at dump_rating_p_pa ([HRTD] 11.2 895,000
                                       lb/h) */
    double dump_valves;           /**< 12 [HRTD] 11.2 */
    double dump_rating_p_pa;      /**< 7.630e6 no-load SG pressure = dump setpoint 1092 psig
                                       ([HRTD] 11.2) */
    double condenser_p_pa;        /**< 5.0e3 condenser vacuum (assumption: 1.5 in Hg abs) */

    /* SG safety valves (per SG, a bank). */
    double safety_open_pa;  /**< 8.168e6 1170 psig lowest setpoint [HRTD] 7.1 */
    double safety_full_pa;  /**< 8.582e6 1230 psig highest setpoint [HRTD] 7.1 */
    double safety_capacity; /**< 1.09: bank capacity / rated steam flow at safety_full_pa
                                 ([HRTD] 7.1 16.47e6 lb/h = 109 %; [TYP] 2870205 1153 lb/s at
                                 1250 psia, 109 % of 480.4 kg/s) */
    double atmosphere_p_pa; /**< 101325 */

    /* SG atmospheric relief valve (SG PORV; per SG one, upstream of the MSIV). */
    double porv_capacity;    /**< 0.10: one valve's capacity / rated_steam_kg_s at
                                  porv_rating_p_pa ([HRTD] 7.1: "~10 % of rated steam flow per
                                  SG at no-load pressure", 2.5 % of the total per valve; a 6-inch
                                  globe valve); [0, 1] */
    double porv_rating_p_pa; /**< 7.630e6: 1092 psig, the no-load SG pressure the capacity is
                                  given at ([HRTD] 7.1, 11.2); [0.2e6, 16e6] */

    /* Feedwater and the start state. */
    double feed_t_k;            /**< 493.43: 428.5 F [TYP] 2820201 main feed (a code sample model's
                                     value; assumption for a plant); [273.16, 600] */
    double afw_t_k;             /**< 310.93: 100 F auxiliary feed from the condensate storage tank
                                     (assumption: no source in refdata); [273.16, 600] */
    double initial_p_pa;        /**< 6.89e6 start pressure of every volume ([W84]) */
    double initial_heat_w;      /**< 852.75e6 per SG: 3411 MWt / 4 (pwr_plant.md), the heat the
                                     start state's qualities and flows are estimated for */
    double initial_circulation; /**< 4.0 recirculation / steam flow of the start state's
                                     estimate only (assumption; the flow is an outcome) */
} pcs_secondary_def;

/** Defaults above. PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_secondary_default(pcs_secondary_def *def);

/** Check every field; the message names the field, value and range. */
PCS_API pcs_status pcs_secondary_def_validate(const pcs_secondary_def *def);

typedef struct pcs_secondary pcs_secondary;

/** Store ids (all float64). */
typedef struct pcs_secondary_stores {
    uint32_t mass, energy, flow, p, h, t, rho, quality, void_fraction; /**< thnet state */
    uint32_t tube_heat;     /**< [n_sg x 2 n_bundle] W into the secondary: input (header) */
    uint32_t tube_t;        /**< [n_sg x 2 n_bundle] K secondary temperature per tube volume */
    uint32_t turbine_valve; /**< [1] input: turbine valve opening [0, 1] */
    uint32_t dump;          /**< [1] input: steam dump demand [0, 1] */
    uint32_t feed;          /**< [n_sg] input: main feed flow per SG, kg/s, >= 0 */
    uint32_t afw;           /**< [n_sg] input: auxiliary feed flow per SG, kg/s, >= 0 */
    uint32_t msiv;          /**< [n_sg] input: MSIV opening per SG [0, 1] */
    uint32_t feed_t;        /**< [1] input: main feed temperature, K, [273.16, 600]; starts at
                                 feed_t_k and stays there unless a heater train writes it
                                 (pcsim/feedwater.h) */
    uint32_t brk;           /**< [n_sg] input "uN.sec.break": steam line break area per SG, m2,
                                 [0, the steam line's bore]; 0 (shut) unless the
                                 steam_line_break command sets it */
    uint32_t porv;          /**< [n_sg] input "uN.sec.porv": atmospheric relief valve opening
                                 per SG [0, 1]; 0 (shut) unless its controller
                                 (pcsim/sg_porv.h) or a host writes it */
    uint32_t out;           /**< [3 + 11 n_sg] SCRATCH outputs (PCS_SECONDARY_OUT_*) */
} pcs_secondary_stores;

/**
 * Build the network and register stores, the system, channels and the load
 * check. Start state (an estimate, not a steady state: the first minutes of
 * ticks settle it): every volume at initial_p_pa plus its liquid head; the
 * dome saturated with its collapsed level at nr_initial; the downcomer the
 * mix of feed and saturated liquid at initial_circulation; the riser's
 * enthalpy rising with initial_heat_w; flows at that estimate; actuators:
 * turbine at turbine_rated_opening, dumps shut, feed at the estimated steam
 * flow, no auxiliary feed, MSIVs open; tube_heat initial_heat_w spread evenly over the tubes.
 */
PCS_API pcs_status pcs_secondary_add(pcs_world *w, const pcs_secondary_def *def,
                                     pcs_secondary **out);

PCS_API pcs_secondary_stores pcs_secondary_store_ids(const pcs_secondary *sec);

/** Total mass (kg) and internal energy (J) of the non-boundary volumes. */
PCS_API void pcs_secondary_totals(pcs_world *w, const pcs_secondary *sec, double *mass_kg,
                                  double *energy_j);

/** What the last tick added: mass and energy in through feed (sources) and
 *  boundaries (negative: out), and the tubes' heat. Zeros before the first tick. */
typedef struct pcs_secondary_balance {
    double mass_in_kg;  /**< sources + boundary inflow (- outflow) */
    double energy_in_j; /**< dt (heat + sources' enthalpy + boundary enthalpy in) */
    double heat_in_j;   /**< dt sum tube heat */
    double courant_max; /**< the step's largest material Courant number */
} pcs_secondary_balance;
PCS_API pcs_secondary_balance pcs_secondary_last_balance(const pcs_secondary *sec);

/** What pcs_secondary_init_steady did. */
typedef struct pcs_secondary_init_report {
    double seconds;         /**< simulated settling time */
    double pressure_pa;     /**< SG 1 dome pressure at the end */
    double steam_kg_s;      /**< SG 1 steam flow at the end (= its feed) */
    double nr_level;        /**< SG 1 narrow-range level, % */
    double turbine_opening; /**< the turbine valve opening at the end */
    double max_dpdt_pa_s;   /**< largest |dp/dt| of any dome over the last 50 s */
    uint32_t corrections;   /**< constructions and turbine-opening corrections made */
} pcs_secondary_init_report;

/**
 * A steady state at @p heat_w per SG (written to tube_heat, spread evenly
 * over the tubes). If @p pressure_pa > 0 (and every SG has heat) it is first
 * constructed with SG 1's dome at @p pressure_pa (e.g. the pressure
 * pcs_primary_init_steady reports): steam and feed per SG from its energy
 * balance, the turbine opening from the choked throat's steady flow (the
 * dump opening instead when the turbine valve store is 0 at the call: hot
 * zero power, the turbine off), enthalpies by donor cell at the
 * recirculation the loop's steady momentum closes with, every pressure
 * from that balance, the dome at the level's void, checked by 10 s of
 * stepping and made again (method in secondary_init.c). Then the model is
 * stepped at the world's dt with each SG's feed set to its steam flow plus
 * a level trim of 10 kg/s per % NR towards @p nr_level (the settling's own
 * gain: assumption; the final feed equals the steam flow); with a target
 * pressure the turbine (or dump) opening is moved after each 50 s that
 * does not meet the rule below by one Newton step on the choked throat
 * (flow proportional to opening x pressure at
 * fixed steam flow: s' = s p_dome / p_target), else it stays as it is. The
 * report's corrections count the constructions and these steps. Done when
 * over 50 s every dome's
 * |dp/dt| <= 2 Pa/s, every level is within 0.1 % of @p nr_level and (with a
 * target) SG 1's pressure is within 1 kPa of it; at most 3000 s
 * (PCS_E_STATE if not reached, naming what was left). Before the first tick
 * only (PCS_E_STATE after); PCS_E_INVAL for heat outside [0, 1e10] W, a
 * level outside [5, 95] %, a pressure above 16 MPa, naming the value.
 */
PCS_API pcs_status pcs_secondary_init_steady(pcs_world *w, pcs_secondary *sec, double heat_w,
                                             double pressure_pa, double nr_level,
                                             pcs_secondary_init_report *report);

/**
 * pcs_secondary_init_steady with the heat given per tube volume instead of
 * spread evenly: @p tube_heat_w [n_sg x 2 n_bundle] W (as the tube_heat
 * store) is written to tube_heat and held while the model settles (e.g. the
 * heat a primary's tubes give at its steady state: pcsim/plant.h). The same
 * settling, stop rule and errors; PCS_E_INVAL for NULL or an SG's total
 * outside [0, 1e10] W, naming the SG.
 */
PCS_API pcs_status pcs_secondary_init_steady_tubes(pcs_world *w, pcs_secondary *sec,
                                                   const double *tube_heat_w, double pressure_pa,
                                                   double nr_level,
                                                   pcs_secondary_init_report *report);

/**
 * The first phase of pcs_secondary_init_steady_tubes alone: the steady
 * state constructed at @p tube_heat_w with SG 1's dome at @p pressure_pa
 * and the level at @p nr_level, at the recirculation the loop settles to
 * in its 10 s chunks, without the 50 s windows and their stop rule (so not
 * verified steady: for a caller that iterates on the result, e.g. the
 * tube-side temperatures, and settles its last iterate with
 * pcs_secondary_init_steady_tubes, as pcsim/plant.h's passes do). The
 * report's max_dpdt_pa_s is NaN (no window). The same errors, and
 * PCS_E_INVAL for @p pressure_pa <= 0 or an SG without heat.
 */
PCS_API pcs_status pcs_secondary_init_construct_tubes(pcs_world *w, pcs_secondary *sec,
                                                      const double *tube_heat_w, double pressure_pa,
                                                      double nr_level,
                                                      pcs_secondary_init_report *report);

/** Volume index of named parts (UINT32_MAX if @p sg is out of range). */
typedef enum pcs_secondary_part {
    PCS_SECONDARY_BUNDLE_FIRST,
    PCS_SECONDARY_UPPER_RISER,
    PCS_SECONDARY_DOME,
    PCS_SECONDARY_DC_UPPER,
    PCS_SECONDARY_DC_LOWER,
    PCS_SECONDARY_STEAM_LINE,
    PCS_SECONDARY_HEADER,
} pcs_secondary_part;
PCS_API uint32_t pcs_secondary_volume(const pcs_secondary *sec, pcs_secondary_part part,
                                      uint32_t sg);

/** Network size. */
PCS_API uint32_t pcs_secondary_n_volumes(const pcs_secondary *sec);
PCS_API uint32_t pcs_secondary_n_junctions(const pcs_secondary *sec);

/** The definition it was built with (unit_name points at its own copy). */
PCS_API const pcs_secondary_def *pcs_secondary_def_get(const pcs_secondary *sec);

#ifdef __cplusplus
}
#endif

#endif
