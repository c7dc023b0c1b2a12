/**
 * @file primary.h
 * @brief One PWR unit's two-phase primary system as a world model: the
 *        reactor vessel, N loops (hot leg, steam generator, crossover leg,
 *        pump, cold leg) and the pressurizer, on the compressible network of
 *        pcsim/thnet.h, the four-quadrant pumps of pcsim/pump_homologous.h and
 *        the two-region pressurizer of pcsim/pressurizer.h (issue 14).
 *
 * Nodalisation (geometry from scenarios/geometry_pwr4.csv; every default
 * below names its row or says "assumption"; scenarios/README.md "Primary
 * model (issue 14)" lists them all):
 *  - vessel: downcomer (inlet annulus + downcomer), lower plenum, the core in
 *    n_core axial volumes (core cell + core bypass volume: the bypass flow
 *    path is not modelled, its water is counted in the core volumes), upper
 *    plenum, upper head (a dead end above the upper plenum);
 *  - per loop: hot leg, SG inlet plenum, n_sg_tubes tube volumes (half up,
 *    half down the U-bundle), SG outlet plenum, crossover leg, pump casing,
 *    cold leg back to the downcomer; the pump head acts on the
 *    pump-to-cold-leg junction;
 *  - the pressurizer kernel, coupled to loop 1's hot leg by the surge line:
 *    in the network the pressurizer is a boundary volume at the pressurizer
 *    bottom whose state each tick is the kernel's (pressure plus the liquid
 *    head, liquid enthalpy); the surge flow the network solves goes into the
 *    kernel the same tick. Explicit coupling: the loops' compliance times
 *    the steam space's dp/dM (about 0.4 at 60 % level) must stay below 1,
 *    i.e. a steam space above about 9 m3 (level below about 83 %).
 *
 * Heat: core heat per core volume from a STATE input store (other models
 * write it: pcs_primary_stores.core_heat). Each SG tube volume k has a tube
 * wall at T_w (metal store) between the primary water at T_k and the
 * secondary at T_s = T_sat(p_sec):
 *   1/U = (D_o/D_i)/h_i + D_o ln(D_o/D_i)/(2 k_w) + 1/h_o (outside area),
 * split at the wall's middle: G_p = 1 / (1/(h_i A_i) + R_w/2) on the primary
 * side, G_s = 1 / (R_w/2 + 1/(h_o A_o)) on the secondary side, R_w = ln(D_o/
 * D_i)/(2 pi k_w L N) (so 1/G_p + 1/G_s = 1/(U A_k)); C_w dT_w/dt = G_p (T_k
 * - T_w) - G_s (T_w - T_s) taken implicitly in T_w (any dt is stable; dt
 * (G_p + G_s) / C_w = 0.27 at dt = 0.05 s and full flow), with T_k and T_s
 * at the start of the tick. The water
 * loses Q_p = G_p (T_k - T_w'), the secondary receives Q_s = G_s (T_w' - T_s)
 * (the SG heat); at steady state both are U A_k (T_k - T_s). h_i
 * Dittus-Boelter (Nu = 0.023 Re^0.8 Pr^0.4 with Pr and the conductivity at
 * the def's reference state, Re from the volume's flow and viscosity there;
 * Nu >= 4.36, laminar), k_w and h_o def fields (assumptions); C_w the tube
 * metal of the volume at sg_wall_rho_c_j_m3k. Explicit in the water
 * temperature: dt G_p / (M_k c_p) = 0.038-0.041 at full flow. With sg_model
 * PCS_PRIMARY_SG_TUBE_STORES (a steam side, pcsim/secondary.h, after
 * pcs_primary_sg_couple) T_s is the secondary's tube_t[l, k], and Q_s is
 * written to tube_heat[l, k] for the secondary's tick later in the same tick.
 *
 * Metal (metal_model PCS_PRIMARY_METAL_TYP): the [TYP] deck's vessel heat
 * structures (scenarios/README.md "Metal": the inlet annulus and downcomer
 * vessel walls, the thermal shield, the core barrel beside the core, lower
 * and upper plenum, the core baffle, the lower and upper heads and their
 * wall rings, the lower plenum, upper plenum and upper head internals), each
 * a 1-D wall (physics/thermal/kernels/heat_wall.h: slab, cylinder or
 * spherical shell, nodes at most metal_dx_max_m apart, backward Euler, so
 * any dt is stable) whose two faces see a network volume's water or nothing
 * (adiabatic: the vessel's outside, whose heat loss to the containment is
 * not modelled, and the internals' plate midplanes); a structure beside the
 * core is cut in n_core equal heights, one per core volume. Each wetted face
 * has h A with h Dittus-Boelter as above on its volume's flow (the downcomer
 * and core: the network's flow area and hydraulic diameter; the plenums and
 * head: the deck's, scenarios/README.md), at the reference state. The heat
 * a face takes in the step, h A (T_water - T_face'), leaves the volume's
 * water the same tick (explicit in the water temperature: dt h A / (M c_p)
 * at full flow and dt = 0.05 s is 0.0064 in the downcomer, 0.0024 per core
 * volume, 0.0011 upper plenum, 0.0006 lower plenum, 1e-5 upper head). Loop piping, SG plena and
 * pump casings have no structures in the deck and none here. Construction and
 * pcs_primary_init_steady put the metal on its steady profile (a wall
 * between two waters carries its steady conduction, which the settling's
 * energy balance includes), so a steady state stays steady.
 * Conservation: pcs_primary_totals counts the metal's sum C_i T_i and
 * pcs_primary_last_balance the heat that crosses the tube walls into the
 * secondary, so water + pressurizer + metal closes per tick.
 *
 * Pumps: motor on: tau_m = tau_r (w_s - w)/(w_s - w_r), at most
 * max_torque_ratio tau_r (a linear induction-motor slip line), taken
 * implicitly in w; off: 0. Shaft by pcs_pump_homologous_shaft_step with the
 * tick's solved flow. Head rho g H(w, Q) with the start-of-tick flow.
 * A pump may be removed and installed while the world runs
 * (pcs_primary_pump_remove): its junction leaves the network (no flow, no
 * matrix entries), its speed is 0 and its pump_on element
 * PCS_PRIMARY_PUMP_REMOVED (-1); installed, it is back at rest with the
 * motor off. Simplification: the pump and its junction vanish at a tick
 * boundary (no draining, isolation or reconnection procedure, no
 * momentum kept); the casing volume stays as the crossover leg's dead end,
 * so the loop's two halves are dead ends and its flow stops within a few
 * ticks (tests/test_pump_remove.c), leaving only the shrinkage of the
 * water the SG keeps cooling.
 *
 * CVCS (controls store, written by the plant's controllers or a host):
 * charging W_c (PCS_PRIMARY_CTL_CHARGING) enters the network as an external
 * mass source split equally over the cold legs at h(p_cold, charging_t_k)
 * (IF97 at each cold leg's start-of-tick pressure) with the charging boron
 * (PCS_PRIMARY_CTL_CHARGING_BORON); letdown W_l (PCS_PRIMARY_CTL_LETDOWN)
 * leaves loop 1's crossover leg at that volume's enthalpy and boron. Both
 * are in the network's pressure solve and its mass and energy balance
 * (pcsim/thnet.h, sources), so network + pressurizer mass changes by exactly
 * dt (W_c - W_l) per tick (plus the relief valves). Seal injection, the
 * regenerative and letdown heat exchangers and the volume control tank are
 * not modelled: the charging temperature is a def field (the regenerative
 * heat exchanger's outlet).
 *
 * Boron: a concentration per volume (ppm by mass: mg of boron per kg of
 * water), the network's transported scalar (pcsim/thnet.h: donor-cell with
 * the tick's solved flows, total boron mass conserved to round-off; its
 * numerical diffusion, each volume perfectly mixed, is a simplification: a
 * slug of diluted water spreads over the nodes it crosses, while the loop's
 * mean is right). The pressurizer boundary's element is the pressurizer
 * liquid's concentration: it gives that to an outsurge, and its boron mass
 * C m_liq takes what the surge line brings, plus the spray (and bypass) at
 * loop 1's cold-leg concentration; steam carries no boron (flashing
 * concentrates, condensation dilutes it), and a water-solid vessel's
 * relief takes liquid at its concentration. The pressurizer mixes with the
 * loops only through the surge line and spray, so with charging equal to
 * letdown and no surge its liquid keeps its boron; the upper head, a dead
 * end, keeps its boron too. A dilution's time constant is therefore
 * M / W_c with M the network's water less the upper head, not the whole
 * RCS inventory (tests/test_cvcs.c: within 0.4 % of the step over 2 tau).
 * The initial
 * concentration is boron_ppm, or pcs_primary_set_boron before the first
 * tick.
 *
 * Tick (one FAST system "uN.primary" at stage PCS_STAGE_HYDRAULICS): set the
 * pressurizer boundary, pump heads, SG heats and CVCS sources from the
 * start-of-tick state, step the network (and its boron), step the pump
 * shafts, step the pressurizer with the surge flow (spray taken from loop 1's
 * cold leg) and move its boron, publish the outputs.
 * 0 bytes allocated per tick (KLU refactors in place unless its rcond falls
 * below PCS_THNET_RCOND_MIN).
 *
 * Channels (unit prefix uN): rcs.pressure (loop 1 hot leg, Pa), core.flow
 * (kg/s), core.t_inlet (lower plenum, K), core.t_outlet (top core volume, K),
 * pzr.pressure (Pa), pzr.level (%), pzr.surge (kg/s, + in), loopK.t_hot,
 * loopK.t_cold (K), loopK.flow (kg/s), sgK.heat (W, + out of the primary),
 * pumpK.speed (rad/s), core.boron (mass-weighted mean over the core
 * volumes, ppm), pzr.boron (ppm), cvcs.charging and cvcs.letdown (kg/s, the
 * flows the tick applied). Command targets uN.pumpK (family "primary", ops
 * PCS_PRIMARY_OP_PUMP_TRIP / _START). Inputs: controls store (heater
 * demands, spray demand, CVCS flows and charging boron, per-SG secondary
 * pressure) and the core heat store.
 *
 * Thread-safety: build and init on the world's thread; the system runs in
 * the world's tick.
 */
#ifndef PCSIM_PRIMARY_H
#define PCSIM_PRIMARY_H

#include <stdint.h>

#include "pcsim/event.h"
#include "pcsim/export.h"
#include "pcsim/pressurizer.h"
#include "pcsim/pump_homologous.h"
#include "pcsim/status.h"
#include "pcsim/thnet.h"
#include "pcsim/water_ph.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Command family name and its ops (kind = first + op). */
#define PCS_PRIMARY_COMMANDS "primary"
enum {
    PCS_PRIMARY_OP_PUMP_TRIP = 0,  /**< motor off: the pump coasts down */
    PCS_PRIMARY_OP_PUMP_START = 1, /**< motor on */
    PCS_PRIMARY_OP_COUNT = 2,
};

/** Events: a pump's motor switched by command. Subject PCS_PRIMARY_PUMP_SUBJECT;
 *  values[0] the shaft speed then, rad/s. */
enum {
    PCS_EV_PRIMARY_PUMP_TRIPPED = PCS_EV_MODEL_BASE + 56,
    PCS_EV_PRIMARY_PUMP_STARTED = PCS_EV_MODEL_BASE + 57,
    /** The network's material Courant number passed 1 this tick (the
     *  explicit transport is then no longer bounded by its donors): subject
     *  unit_index; values[0] the Courant number, values[1] the volume. On
     *  every 20th tick (once a second at 0.05 s) while it stays above 1. */
    PCS_EV_PRIMARY_COURANT = PCS_EV_MODEL_BASE + 58,
    /** A pump removal / install accepted (the station's structural commands,
     *  pcsim/station.h; applied at the end of the tick). Subject
     *  PCS_PRIMARY_PUMP_SUBJECT; values = {speed rad/s, pump junction flow
     *  kg/s, 0, 0} at stage 1. */
    PCS_EV_PRIMARY_PUMP_REMOVED = PCS_EV_MODEL_BASE + 59,
    PCS_EV_PRIMARY_PUMP_INSTALLED = PCS_EV_MODEL_BASE + 60,
};
#define PCS_PRIMARY_PUMP_SUBJECT(unit_index, pump)                                                 \
    (((uint32_t)(unit_index) << 10) | (uint32_t)(pump))

#define PCS_PRIMARY_MAX_LOOPS 8u
#define PCS_PRIMARY_MAX_CORE 16u
#define PCS_PRIMARY_MAX_SG_TUBES 32u

/** Elements of the controls input store (then one SG secondary pressure per loop). */
enum {
    PCS_PRIMARY_CTL_HEATER_PROPORTIONAL = 0, /**< [0, 1] */
    PCS_PRIMARY_CTL_HEATER_BACKUP = 1,       /**< [0, 1] */
    PCS_PRIMARY_CTL_SPRAY = 2,               /**< [0, 1] */
    PCS_PRIMARY_CTL_CHARGING = 3, /**< CVCS charging flow into the cold legs, kg/s, >= 0 */
    PCS_PRIMARY_CTL_LETDOWN = 4, /**< CVCS letdown flow out of loop 1's crossover leg, kg/s, >= 0 */
    PCS_PRIMARY_CTL_CHARGING_BORON = 5, /**< boron concentration of the charging water, ppm, >= 0 */
    PCS_PRIMARY_CTL_SG_PRESSURE = 6,    /**< + loop: secondary pressure, Pa */
};

/** Elements of the output store (then PCS_PRIMARY_OUT_PER_LOOP per loop). */
enum {
    PCS_PRIMARY_OUT_RCS_PRESSURE = 0, /**< loop 1 hot-leg pressure, Pa */
    PCS_PRIMARY_OUT_CORE_FLOW = 1,    /**< lower plenum to core, kg/s */
    PCS_PRIMARY_OUT_T_INLET = 2,      /**< lower plenum temperature, K */
    PCS_PRIMARY_OUT_T_OUTLET = 3,     /**< top core volume temperature, K */
    PCS_PRIMARY_OUT_PZR_PRESSURE = 4, /**< Pa */
    PCS_PRIMARY_OUT_PZR_LEVEL = 5,    /**< % of span */
    PCS_PRIMARY_OUT_SURGE = 6,        /**< surge-line flow, + into the pressurizer, kg/s */
    PCS_PRIMARY_OUT_T_AVG = 7,        /**< mean over loops of (T_hot + T_cold)/2, K */
    PCS_PRIMARY_OUT_LOOPS = 8,        /**< first per-loop block: */
    PCS_PRIMARY_OUT_T_HOT = 0,        /**<   + 0: hot-leg temperature, K */
    PCS_PRIMARY_OUT_T_COLD = 1,       /**<   + 1: cold-leg temperature, K */
    PCS_PRIMARY_OUT_LOOP_FLOW = 2,    /**<   + 2: pump junction flow, kg/s */
    PCS_PRIMARY_OUT_SG_HEAT = 3,      /**<   + 3: SG heat, W (+ out of the primary) */
    PCS_PRIMARY_OUT_PER_LOOP = 4,
};

/** First element after the per-loop blocks of a unit with @p n_loops loops. */
#define PCS_PRIMARY_OUT_TAIL(n_loops) (PCS_PRIMARY_OUT_LOOPS + PCS_PRIMARY_OUT_PER_LOOP * (n_loops))

/** Elements of the output store after the loops: + PCS_PRIMARY_OUT_TAIL(n_loops). */
enum {
    PCS_PRIMARY_OUT_CORE_BORON = 0, /**< mass-weighted mean over the core volumes, ppm */
    PCS_PRIMARY_OUT_PZR_BORON = 1,  /**< pressurizer liquid, ppm */
    PCS_PRIMARY_OUT_CHARGING = 2,   /**< charging flow the tick applied, kg/s */
    PCS_PRIMARY_OUT_LETDOWN = 3,    /**< letdown flow the tick applied, kg/s */
    PCS_PRIMARY_OUT_SPRAY = 4,      /**< spray into the pressurizer the tick applied (with the
                                         bypass), kg/s */
    PCS_PRIMARY_OUT_HEATERS = 5,    /**< heater power the tick delivered, W */
    PCS_PRIMARY_OUT_TAIL_COUNT = 6,
};

/**
 * One unit's primary. Start from pcs_primary_default. Geometry fields carry
 * the scenarios/geometry_pwr4.csv key they come from; "assumption" marks a
 * value with no source (never adjusted to make a steady state come out).
 */
typedef struct pcs_primary_def {
    const char *unit_name; /**< prefix of stores, channels, targets: "u1"; 1..15 chars */
    uint32_t unit_index;   /**< 0-based unit number in event subjects (PCS_EV_PRIMARY_PUMP_*:
                                PCS_PRIMARY_PUMP_SUBJECT); default 0; [0, 2^22) */
    uint32_t n_loops;      /**< 4 [W84]; [1, PCS_PRIMARY_MAX_LOOPS] */
    uint32_t n_core;       /**< core axial volumes, 6 ([TYP] core cells); [1, 12] (Courant) */
    uint32_t n_sg_tubes;   /**< tube volumes per SG, even, 8 ([TYP] 2040101); [2, 32] */
    /** Property table (caller-owned, outlives the world); NULL: the exact IF97
     *  path (about 50 us per volume per tick: tests of small networks only). */
    const pcs_water_ph_table *table;

    /* Vessel (m3, m; elevations from the core mid-plane). */
    double v_downcomer_m3;          /**< 21.95: inlet annulus 3.04 + 5.16 + downcomer 13.75 [TYP] */
    double v_lower_plenum_m3;       /**< 26.62 vessel.volume_lower_plenum [TYP] */
    double v_core_m3;               /**< 27.30: core cell 20.23 + core bypass 7.07 [TYP] */
    double v_upper_plenum_m3;       /**< 40.10 vessel.volume_upper_plenum [TYP] */
    double v_upper_head_m3;         /**< 13.85 vessel.volume_upper_head [TYP] */
    double a_downcomer_m2;          /**< 2.482 vessel.downcomer_flow_area_model [TYP] */
    double a_core_m2;               /**< 5.0105 core.flow_area (derived, [BEAVRS]) */
    double d_core_m;                /**< 0.01296 rod-bundle hydraulic diameter, derived from the
                                         [BEAVRS] pitch 1.25984 cm and rod OD 0.9144 cm */
    double a_plenum_m2;             /**< 5.0105: lower/upper plenum junction areas = core area
                                         (assumption: plenum cross-sections not in the table) */
    double a_upper_head_m2;         /**< 1.0 upper plenum to head opening (assumption) */
    double z_lower_plenum_bottom_m; /**< -4.606 elev.lower_plenum_bottom [TYP] */
    double z_downcomer_bottom_m;    /**< -3.499 elev.downcomer_bottom [TYP] */
    double z_core_bottom_m;         /**< -2.038 elev.core_bottom [TYP] */
    double z_core_top_m;            /**< 2.038 elev.core_top [TYP] */
    double z_nozzle_m;              /**< 3.359 elev.nozzle_hot_cold_leg [TYP] */
    double z_upper_support_m;       /**< 5.858 elev.upper_support_plate [TYP] */
    double z_upper_head_top_m;      /**< 7.502 elev.upper_head_top [TYP] */

    /* Loops (per loop). */
    double v_hot_leg_m3;         /**< 3.292 loop.volume_hot_leg [TYP] */
    double v_sg_plenum_m3;       /**< 4.231 sg.volume_inlet_plenum = outlet [TYP] */
    double v_sg_tubes_m3;        /**< 21.97 sg.volume_tubes [TYP] */
    double v_crossover_m3;       /**< 4.042 loop.volume_crossover [TYP] */
    double v_pump_m3;            /**< 1.586 pump.volume_casing [TYP] */
    double v_cold_leg_m3;        /**< 3.354 loop.volume_cold_leg [TYP] */
    double d_hot_leg_m;          /**< 0.7366 pipe.hot_leg_inner_diameter (2 src) */
    double d_cold_leg_m;         /**< 0.6985 pipe.cold_leg_inner_diameter (2 src) */
    double d_crossover_m;        /**< 0.7874 pipe.crossover_inner_diameter (2 src) */
    double l_hot_leg_m;          /**< 7.455 pipe.hot_leg_length [TYP] */
    double l_crossover_m;        /**< 8.301 pipe.crossover_length [TYP] */
    double l_cold_leg_m;         /**< 8.454 pipe.cold_leg_length [TYP] */
    double z_sg_plenum_bottom_m; /**< 4.283 elev.sg_outlet_plenum_bottom [TYP] */
    double z_tube_sheet_m;       /**< 5.489 elev.sg_tube_sheet [TYP] */
    double z_ubend_top_m;        /**< 15.747 elev.sg_ubend_top [TYP] */
    double z_loop_seal_m;        /**< 0.216 elev.loop_seal_bottom [TYP] */
    double z_pump_suction_m;     /**< 1.588 elev.pump_suction [TYP] */
    double roughness_m;          /**< 4.6e-5 pipe wall roughness (assumption: commercial steel) */

    /* Steam generator tubes and heat transfer. */
    double sg_tube_count;        /**< 3388 sg.tube_count (2 src) */
    double sg_tube_od_m;         /**< 0.02223 sg.tube_outer_diameter (2 src) */
    double sg_tube_wall_m;       /**< 0.00127 sg.tube_wall (2 src) */
    double sg_tube_length_m;     /**< 21.3 sg.tube_average_length [TYP] */
    double sg_wall_k_w_mk;       /**< 16.5 Inconel-600 tube wall near 570 K (assumption) */
    double sg_h_secondary_w_m2k; /**< 30000 boiling-side coefficient (assumption) */
    double sg_secondary_p_pa;    /**< 6.89e6 secondary boundary pressure [W84]; the
                                      initial value of the controls store */
    double ref_p_pa;             /**< 15.51e6 property reference state for h_i: pressure
                                      (pwr_plant.md RCS pressure) */
    double ref_t_k;              /**< 582.0 and temperature (full-power Tavg [W84]) */

    /* Form losses (each on its junction's area; all assumptions: handbook
       forms, see scenarios/README.md). */
    double k_vessel_inlet;   /**< 1.0 cold-leg nozzle into the annulus (sudden expansion) */
    double k_downcomer_turn; /**< 1.0 downcomer into the lower plenum (180 deg turn) */
    double k_core_inlet;     /**< 1.5 lower core plate and bottom nozzle */
    double k_core_grids;     /**< 8.0 all spacer grids together (8 grids x 1.0), spread
                                  over the core's internal and outlet junctions */
    double k_core_outlet;    /**< 1.5 top nozzle and upper core plate */
    double k_vessel_outlet;  /**< 0.5 upper plenum into the hot-leg nozzle (contraction) */
    double k_sg_inlet;       /**< 1.0 hot leg into the SG inlet plenum (expansion) */
    double k_tube_inlet;     /**< 0.5 plenum into the tubes (contraction) */
    double k_tube_bend;      /**< 0.2 U-bend */
    double k_tube_outlet;    /**< 1.0 tubes into the outlet plenum (expansion) */
    double k_sg_outlet;      /**< 0.5 outlet plenum into the crossover (contraction) */
    double k_crossover;      /**< 0.9 crossover bends (3 x 90 deg at 0.3) */
    double k_surge;          /**< 1.5 surge line entrance 0.5 + exit 1.0 */
    double k_upper_head;     /**< 1.0 upper plenum to head */

    /* Surge line and pressurizer placement. */
    double d_surge_m;         /**< 0.2921 pipe.surge_line_inner_diameter [TYP] */
    double l_surge_m;         /**< 20.19 pipe.surge_line_length [TYP] */
    double z_pzr_above_tap_m; /**< 3.844 elev.pzr_bottom_above_surge_tap [TYP] */

    /* Pumps and motors. */
    pcs_pump_homologous_def pump;  /**< pcs_pump_homologous_default (geometry rows pump.*) */
    double motor_sync_speed_rad_s; /**< 125.66: 1200 rpm, a 6-pole 60 Hz motor ([HRTD] 3.2 old
                                        "1200 rpm"; pole count an assumption) */
    double motor_rated_torque_n_m; /**< 35,936: pump.motor_rating 4.474 MW / 124.5 rad/s */
    double motor_max_torque_ratio; /**< 2.5 breakdown torque / rated (assumption) */

    /* Pressurizer. */
    pcs_pressurizer_def pzr; /**< pcs_pressurizer_default */

    /* CVCS and boron (scenarios/README.md "Pressurizer, relief and CVCS":
       [HRTD] 4.1 as transcribed there; refdata has no CVCS flows). */
    double charging_t_k;         /**< 533.15: 500 F, the charging leaving the regenerative heat
                                      exchanger ([HRTD] 4.1: 130 -> 500 F); [273.16, 640] */
    double letdown_nominal_kg_s; /**< 4.41: the normal 75 gpm letdown orifice ([HRTD] 4.1), metered
                                      after the regenerative heat exchanger at 290 F and 2235 psig
                                      (rho 931.2 kg/m3, IF97; derived); the initial value of both
                                      the letdown and the charging control (charging equal in
                                      mass, so the level holds: seal injection and leak-off are
                                      not modelled); [0, 400] */
    double boron_ppm;            /**< 975: the initial uniform concentration and charging
                                      boron: [BEAVRS] cycle 1 hot-zero-power all-rods-out
                                      critical boron (pwr_plant.md); a scenario sets its own
                                      (pcs_primary_set_boron); [0, 10000] */

    /* Programs for pcs_primary_init_steady (refdata pwr_transients.md section 1). */
    double rated_power_w;        /**< 3.411e9 pwr_plant.md core thermal power (3+ src) */
    double t_avg_no_load_k;      /**< 564.8 no-load Tavg 557 F [HRTD] (2 src) */
    double t_avg_full_k;         /**< 580.2 full-power Tavg 584.7 F [HRTD] (sec) */
    double pzr_level_no_load;    /**< 25 % [HRTD] 10.3 */
    double pzr_level_full;       /**< 61.5 % [HRTD] 10.3 */
    double p_setpoint_pa;        /**< 15.513e6: 2235 psig [HRTD] */
    double loop_flow_guess_kg_s; /**< 4360 [W84] thermal design flow per loop: the settling's
                                      start only (the flow comes from pump and losses) */

    /* SG secondary side (issue 15): which temperature the tubes see. */
    uint32_t sg_model;           /**< PCS_PRIMARY_SG_BOUNDARY (0, default): T_sat of the controls'
                                      per-SG pressure; PCS_PRIMARY_SG_TUBE_STORES: the steam side's
                                      stores below (pcsim/secondary.h), once
                                      pcs_primary_sg_couple has been called (until then, and in
                                      pcs_primary_init_steady, the boundary) */
    uint32_t sg_tube_t_store;    /**< with PCS_PRIMARY_SG_TUBE_STORES: float64 [n_loops x
                                      n_sg_tubes] K the secondary temperature per tube volume
                                      (read) */
    uint32_t sg_tube_heat_store; /**< and float64 [n_loops x n_sg_tubes] W into the secondary
                                      (written: + from the primary) */

    /* Metal: heat structures (header "Metal"; the [TYP] deck's vessel heat
       structures and its SG tube wall; scenarios/README.md "Metal"). */
    uint32_t metal_model;       /**< PCS_PRIMARY_METAL_TYP (default) or _NONE (no vessel
                                     structures, tube walls without heat capacity) */
    double steel_k_w_mk;        /**< 17.02: [TYP] composition 5 (its vessel and internals
                                     material) conductivity, cards 20100501-502 linear at
                                     ref_t_k (587.9 F): 2.7319e-3 Btu/(s ft F); (0, 200] */
    double steel_rho_c_j_m3k;   /**< 4.322e6: its volumetric heat capacity, cards
                                     20100554-555 at ref_t_k: 64.447 Btu/(ft3 F);
                                     (0, 1e7] */
    double sg_wall_rho_c_j_m3k; /**< 4.266e6: [TYP] composition 4 (Inconel, the tubes,
                                     structure 1204) cards 20100452-453 at ref_t_k: 63.611
                                     Btu/(ft3 F); (0, 1e7] */
    double metal_dx_max_m;      /**< 0.01: largest node spacing through a vessel wall:
                                     the diffusion length sqrt(alpha t) of that steel
                                     (alpha = k / rho c = 3.9e-6 m2/s) at t = 25 s, so the
                                     surface's response to a transient of tens of seconds
                                     is resolved (assumption, argued before measuring; the
                                     deck itself uses 2 intervals); [1e-3, 1]: the thickest wall,
                                     0.273 m, then takes at most 273 of the wall kernel's
                                     1,000 intervals */
} pcs_primary_def;

/** pcs_primary_def.metal_model values. */
enum {
    PCS_PRIMARY_METAL_NONE = 0, /**< water only (the tube wall's conduction still in 1/U) */
    PCS_PRIMARY_METAL_TYP = 1,  /**< the [TYP] heat structures (header "Metal") */
};

/** pcs_primary_def.sg_model values. */
enum {
    PCS_PRIMARY_SG_BOUNDARY = 0,    /**< saturated boundary at controls[SG_PRESSURE + l] */
    PCS_PRIMARY_SG_TUBE_STORES = 1, /**< Q = U A (T_tube - tube_t[l, k]), written to tube_heat */
};

/** Defaults above. PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_primary_default(pcs_primary_def *def);

/** Check every field (ranges above); the message names the field and its range. */
PCS_API pcs_status pcs_primary_def_validate(const pcs_primary_def *def);

typedef struct pcs_primary pcs_primary;

/** Store ids of a built primary (all float64). */
typedef struct pcs_primary_stores {
    uint32_t mass, energy, flow, p, h, t, rho, quality, void_fraction; /**< thnet state */
    uint32_t pump_speed;                                               /**< [n_loops] rad/s */
    uint32_t pump_on;                                                  /**< [n_loops] motor 0/1 */
    uint32_t pzr;       /**< [8]: m_liq, u_liq, m_vap, u_vap, p, h_liq, h_vap, porv_open */
    uint32_t core_heat; /**< [n_core] W: input */
    uint32_t controls;  /**< [6 + n_loops]: input (PCS_PRIMARY_CTL_*) */
    uint32_t out;       /**< [8 + 4 n_loops + 4] SCRATCH outputs (PCS_PRIMARY_OUT_*) */
    uint32_t boron;     /**< [n_volumes] ppm; the pressurizer volume's element is its liquid's */
    uint32_t metal;     /**< [pcs_primary_metal_nodes] K: the vessel structures' nodes, then one
                             tube-wall temperature per SG tube volume (n_loops x n_sg_tubes) */
} pcs_primary_stores;

/**
 * Build the network and register the stores, the system, the command targets,
 * the channels and the load check in @p w. Initial state: every volume at
 * p_setpoint_pa and t_avg_no_load_k, flows loop_flow_guess_kg_s, pumps on at
 * rated speed, the pressurizer saturated at the no-load level; call
 * pcs_primary_init_steady for a settled state.
 */
PCS_API pcs_status pcs_primary_add(pcs_world *w, const pcs_primary_def *def, pcs_primary **out);

/** What pcs_primary_init_steady did. */
typedef struct pcs_primary_init_report {
    double seconds;         /**< simulated settling time */
    double t_avg_k;         /**< settled Tavg */
    double t_avg_program_k; /**< the program's */
    double sg_pressure_pa;  /**< the secondary pressure that holds Tavg on the program */
    double loop_flow_kg_s;  /**< settled loop 1 flow */
    double max_dtdt_k_s;    /**< largest |dT/dt| of any volume at the end */
    uint32_t corrections;   /**< energy sweeps made (each also corrects T_sat) */
} pcs_primary_init_report;

/**
 * Steady state at @p power_fraction in [0, 1] of rated_power_w (0: hot zero
 * power): core heat power_fraction x rated_power_w in equal parts per core
 * volume (written to the core-heat store); temperatures start on the
 * programs (Tavg linear from no-load to full, core dT proportional to power
 * at the guessed flow); pumps on; the pressurizer held at p_setpoint_pa and
 * the level program (a fixed boundary during settling, then the kernel is
 * started there). Settling: the network and pumps are stepped at 0.05 s
 * whatever the world's dt, with the core heat and the SG heat removal, the
 * SG secondary saturation temperature starting from the heat balance on the
 * start profile. After a first 20 s (the flows leave the guess), each
 * volume's enthalpy is set to its steady value at the present flows: every
 * volume's donor-cell energy balance (the network's transport, with the
 * pump work, the core heat, the CVCS sources and the SG heat at T_sat)
 * solved for its own h by Gauss-Seidel sweeps round the loops, with T_sat
 * moved until Tavg is on the program (at fixed heat the loop temperatures
 * move one for one with T_sat); then 10 s more, and again, until |Tavg -
 * program| <= 0.01 K and every volume's |dT/dt| <= 1e-4 K/s over the last
 * step, at most 3000 s
 * (PCS_E_STATE if not reached). Before the first tick only.
 */
PCS_API pcs_status pcs_primary_init_steady(pcs_world *w, pcs_primary *pr, double power_fraction,
                                           pcs_primary_init_report *report);

/**
 * Uniform boron concentration @p ppm in [0, 10000] in every volume and the
 * pressurizer liquid, and the charging boron control set to it (no
 * boration or dilution until a controller or host changes it): the
 * scenario's critical boron. Before the first tick only (PCS_E_STATE after);
 * PCS_E_INVAL naming the value and range.
 */
PCS_API pcs_status pcs_primary_set_boron(pcs_world *w, pcs_primary *pr, double ppm);

/** Total boron in the network and the pressurizer liquid, kg (sum of C M 1e-6). */
PCS_API double pcs_primary_boron_mass(pcs_world *w, const pcs_primary *pr);

/**
 * Give @p dst the steady state @p src reached in pcs_primary_init_steady:
 * every state store copied (and the last tick's scratch values the outputs
 * show), as if @p dst had settled itself. For a station of identical units
 * (the same definition but for unit_name and unit_index, the same power),
 * whose settling is deterministic and so would end in the same state: it
 * spares the work. Before the first tick only.
 * @return PCS_E_INVAL for NULL or networks of different sizes; PCS_E_STATE
 *         after the first tick.
 */
PCS_API pcs_status pcs_primary_copy_steady(pcs_world *w, pcs_primary *dst, const pcs_primary *src);

/**
 * Switch a primary built with sg_model PCS_PRIMARY_SG_TUBE_STORES from the
 * saturated boundary (its settling) to the steam side's stores: from the
 * next tick each tube volume k of SG l gives Q = U A_k (T_k - tube_t[l, k])
 * from the start-of-tick temperatures of both sides, applies -Q to itself
 * and writes +Q into tube_heat[l, k]. Before the first tick only
 * (PCS_E_STATE after); PCS_E_INVAL for NULL or a boundary primary.
 */
PCS_API pcs_status pcs_primary_sg_couple(pcs_world *w, pcs_primary *pr);

/**
 * The heat each SG tube volume would give now (W, + out of the primary,
 * [n_loops x n_sg_tubes]) to a secondary at the temperatures @p t_sec_k
 * ([n_loops x n_sg_tubes] K): the tick's U A_k (T_k - t_sec) from the
 * present state. For matching a steam side to a settled primary.
 */
PCS_API pcs_status pcs_primary_sg_tube_heat(pcs_world *w, const pcs_primary *pr,
                                            const double *t_sec_k, double *q_w);

/** The store ids. */
PCS_API pcs_primary_stores pcs_primary_store_ids(const pcs_primary *pr);

/** Elements of the metal store: the vessel structures' nodes (0 with
 *  PCS_PRIMARY_METAL_NONE), then n_loops x n_sg_tubes tube walls; *n_tubes0
 *  (may be NULL) the index of the first tube wall. 0 for NULL. */
PCS_API uint32_t pcs_primary_metal_nodes(const pcs_primary *pr, uint32_t *n_tubes0);

/** The metal's stored energy sum C_i T_i, J (counted in pcs_primary_totals). */
PCS_API double pcs_primary_metal_energy(pcs_world *w, const pcs_primary *pr);

/** Total coolant mass (network + pressurizer), kg, and energy (internal, plus the
 *  metal's pcs_primary_metal_energy), J. */
PCS_API void pcs_primary_totals(pcs_world *w, const pcs_primary *pr, double *mass_kg,
                                double *energy_j);

/** What the last tick added to the primary (network + pressurizer), so a
 *  test can close its mass and energy per tick: the surge and the spray
 *  move between the two at one enthalpy each and cancel (the network's
 *  donor by the direction the surge moved; primary_step.c). Not closed
 *  where the pressurizer kernel cannot take the surge as moved: at its
 *  mass floor or draw limit, an emptying vessel's outsurge taken from the
 *  steam, and sub-steps (pcsim/thnet.h) whose surge changes direction with
 *  a net outsurge (none reached in normal operation). Zeros before the
 *  first tick. */
typedef struct pcs_primary_balance {
    double mass_in_kg;  /**< dt (charging - letdown) - the relief valves' outflow */
    double energy_in_j; /**< dt (core heat - SG heat + pump work + heaters - wall heat) + the
                             CVCS enthalpy (in - out) - the relief valves' enthalpy */
    double core_heat_j; /**< dt sum core heat */
    double sg_heat_j;   /**< dt sum SG heat (through the tube walls into the secondary), + out of
                             the primary */
} pcs_primary_balance;
PCS_API pcs_primary_balance pcs_primary_last_balance(const pcs_primary *pr);

/** Volume index of named parts for tests and hosts (UINT32_MAX if @p loop is out of range). */
typedef enum pcs_primary_part {
    PCS_PRIMARY_DOWNCOMER,
    PCS_PRIMARY_LOWER_PLENUM,
    PCS_PRIMARY_CORE_FIRST,
    PCS_PRIMARY_UPPER_PLENUM,
    PCS_PRIMARY_UPPER_HEAD,
    PCS_PRIMARY_HOT_LEG,
    PCS_PRIMARY_SG_INLET,
    PCS_PRIMARY_SG_TUBE_FIRST,
    PCS_PRIMARY_SG_OUTLET,
    PCS_PRIMARY_CROSSOVER,
    PCS_PRIMARY_PUMP,
    PCS_PRIMARY_COLD_LEG,
    PCS_PRIMARY_PRESSURIZER,
} pcs_primary_part;
PCS_API uint32_t pcs_primary_volume(const pcs_primary *pr, pcs_primary_part part, uint32_t loop);

/** Network size. */
PCS_API uint32_t pcs_primary_n_volumes(const pcs_primary *pr);
PCS_API uint32_t pcs_primary_n_junctions(const pcs_primary *pr);

/** The definition the primary was built with (pointer fields cleared). */
PCS_API const pcs_primary_def *pcs_primary_def_get(const pcs_primary *pr);

/** The network (read-only: its KLU counts, its junctions' connection). */
PCS_API const pcs_thnet *pcs_primary_network(const pcs_primary *pr);

/** Junction index of loop @p loop's pump (pump casing -> cold leg);
 *  UINT32_MAX for a loop out of range. */
PCS_API uint32_t pcs_primary_pump_junction(const pcs_primary *pr, uint32_t loop);

/** The pump_on store's value of a removed pump (pcs_primary_pump_remove). */
#define PCS_PRIMARY_PUMP_REMOVED (-1.0)

/**
 * Take loop @p pump's (0-based) pump out: its junction is disconnected from
 * the network (pcs_thnet_junction_connect: no flow, no matrix entries; KLU
 * re-analyses the smaller pattern), its speed and junction flow go to 0 and
 * its pump_on element to PCS_PRIMARY_PUMP_REMOVED (a STATE store: the
 * removal is in the hash and the save). The loop stagnates: nothing else
 * closes the cold leg's path to the crossover leg, so the loop's flow stops
 * once the water column has been stopped by the pressure it builds against
 * the gap (tests/test_pump_remove.c), and the plant's low-flow trip acts on
 * it as on a seized pump. Simplification: the pump and its casing's
 * junction vanish at once (the world's tick boundary), not a draining and
 * isolation procedure; the casing volume stays, as part of the crossover
 * leg's dead end. A removed pump takes no motor command (pump_start and
 * pump_trip refuse it); its stores keep their rows for the install. Call
 * between ticks (a structural change's apply); allocates what KLU's new
 * analysis needs.
 * @return PCS_E_INVAL (NULL, @p pump >= n_loops, naming the unit and the
 *         range), PCS_E_STATE (already removed, naming it), PCS_E_STATE from
 *         KLU.
 */
PCS_API pcs_status pcs_primary_pump_remove(pcs_world *w, pcs_primary *pr, uint32_t pump);

/**
 * Put loop @p pump's pump back: its junction connected again from rest,
 * the pump stopped (speed 0, motor off: pump_on 0); the pump_start command
 * starts it. Errors as pcs_primary_pump_remove (PCS_E_STATE: installed).
 */
PCS_API pcs_status pcs_primary_pump_install(pcs_world *w, pcs_primary *pr, uint32_t pump);

/** 1 when loop @p pump's pump is installed (0: removed, NULL, out of range). */
PCS_API int pcs_primary_pump_installed(pcs_world *w, const pcs_primary *pr, uint32_t pump);

/**
 * The pump's published records while the world is amending (structure.h):
 * unpublish removes its command target "uN.pumpK" and retires its channel
 * "uN.pumpK.speed"; publish registers both again (the target with a new
 * generation, the channel with a new id). What a station's structural
 * commands call around pcs_primary_pump_remove / _install.
 * @return PCS_E_INVAL (NULL, pump out of range), the engine's errors.
 */
PCS_API pcs_status pcs_primary_pump_unpublish(pcs_world *w, pcs_primary *pr, uint32_t pump);
PCS_API pcs_status pcs_primary_pump_publish(pcs_world *w, pcs_primary *pr, uint32_t pump);

#ifdef __cplusplus
}
#endif

#endif
