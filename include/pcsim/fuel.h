/**
 * @file fuel.h
 * @brief Fuel-rod heat model: radial conduction in UO2 pellets, gap, Zircaloy
 *        clad, convection to the coolant, and the coolant energy balance
 *        along each channel, solved implicitly at the HEAT stage.
 *
 * Model (one representative rod per channel group and axial node; all rods
 * of a group are identical):
 *
 *   channel group c (n_rods[c] rods, relative rod power peaking[c])
 *     axial node j = 0 .. n_axial-1, bottom to top, height dz = L / n_axial
 *       fuel nodes i = 0 .. n_fuel-1 at r_i = i R_f / (n_fuel-1)  (centre .. pellet surface)
 *       clad nodes m = 0 .. n_clad-1 from r_ci to r_co               (inner .. outer surface)
 *       coolant node: outlet temperature of the node (upwind donor cell)
 *
 * Radial conduction is vertex-centred finite volumes. A fuel node owns the
 * ring between the midpoints to its neighbours; the face conductance is
 * 2 pi r_face k dz / dr with r_face the midpoint, which reproduces the exact
 * parabolic profile of uniform generation: with constant k the steady
 * centre-to-surface rise is q'/(4 pi k) to rounding (tested). Clad faces use
 * the exact shell conductance 2 pi k dz / ln(r_out/r_in). The pellet-clad gap
 * is a constant conductance h_gap on the pellet surface: 2 pi R_f h_gap dz.
 * Heat goes to the coolant through h from Dittus-Boelter,
 *   Nu = 0.023 Re^0.8 Pr^0.4 (F. W. Dittus and L. M. K. Boelter, Univ. Calif.
 *   Publ. Eng. 2 (1930) 443; Incropera & DeWitt, Fundamentals of Heat and
 *   Mass Transfer, Eq. 8.60, n = 0.4 for heating; valid Re > 1e4,
 *   0.6 < Pr < 160), floored at the laminar fully developed value
 *   Nu = 4.36 (uniform heat flux, Incropera Eq. 8.53) so that a stagnant
 *   channel still conducts (in the transition range, 2300 < Re < 1e4, the
 *   Dittus-Boelter value is used as is and overpredicts); Re and D_h use the
 *   rod's share of the square lattice cell, A = p^2 - pi r_co^2,
 *   D_h = 4 A / (2 pi r_co).
 *
 * Boiling on the clad surface (boiling = PCS_FUEL_BOILING_THOM, the
 * default): once the wall is above the saturation temperature T_sat(p)
 * (IAPWS-IF97 Eq. 31 at the coolant pressure store), the wall heat flux is
 * the larger of single-phase forced convection and Thom's nucleate boiling,
 *   q'' = max(h_DB (T_w - T_b), K(p) (T_w - T_sat)^2),
 *   K(p) = exp(2 p / 8.7 MPa) / 22.65^2  MW/(m^2 K^2), p in MPa,
 * i.e. Thom's T_w - T_sat = 22.65 sqrt(q''[MW/m^2]) exp(-p / 8.7 MPa)
 * (J. R. S. Thom, W. M. Walker, T. A. Fallon, G. F. S. Reising, "Boiling in
 * subcooled water during flow up heated tubes or annuli", Proc. Instn Mech.
 * Engrs 180 (3C), 1965-66, 226-246, as presented in textbooks for fully
 * developed subcooled and saturated nucleate boiling of water, e.g.
 * N. E. Todreas and M. S. Kazimi, Nuclear Systems I; neither was checked
 * here. Thom's data are reported to span about 5-14 MPa, so at 15.5 MPa the
 * correlation is extrapolated. RELAP5 and TRACE use Chen's superposition
 * instead.)
 *   The larger-of form covers single-phase flow, subcooled boiling (the wall
 * past T_sat while the bulk is still subcooled: Thom takes over where it
 * gives more heat than Dittus-Boelter) and saturated nucleate boiling, with
 * q'' continuous at the switch. When the fuel's own coolant node has passed
 * T_sat (a liquid balance: stagnant or starved channel, void not modelled
 * here), Thom's superheat is taken over that node's temperature instead of
 * T_sat, so q'' stays continuous in both temperatures and never carries
 * heat from the wall into hotter liquid. At 15.5 MPa Thom gives a wall
 * superheat of 3.8 K at 1 MW/m^2, where single-phase convection at low flow
 * would need tens of K.
 *   To keep the solve linear and implicit, the boiling flux is linearised
 * about a wall temperature T_w0 (a Newton step):
 *   q'' = K x0^2 + 2 K x0 (T_w' - T_w0),  x0 = T_w0 - T_sat > 0.
 * It depends on the wall only, so the wall row gains 2 K x0 A on its
 * diagonal and the coolant row the same coefficient off the diagonal: the
 * matrix stays a (column diagonally dominant) M-matrix and the flux appears
 * with opposite signs in the two rows (energy conserved to rounding, as
 * before). The regime (convection or boiling) is chosen per rod-node at the
 * previous step's temperatures; when the solution contradicts it (the wall
 * crossed the switch), or a boiling wall moved more than 1e-4 K from T_w0,
 * that axial level is solved again from its old temperatures, re-linearised
 * at the new ones (at most 8 passes; 1-2 in practice, single-phase levels
 * always 1). So the step is backward Euler on the nonlinear flux to 1e-4 K
 * in the wall, monotone through the switch at dt = 0.05 s and 1 s (tested);
 * a regime lagged by one step overshot the boiling wall by 0.5 K at 0.05 s
 * and 3 K at 1 s. The steady solve iterates the same way to 1e-9 K.
 *   NOT modelled: the critical heat flux and post-CHF (transition and film
 * boiling) regimes (the accident issue's), and void in the fuel's own
 * coolant node: that node stays a liquid energy balance (its properties are
 * those of saturated liquid if it passes T_sat, flagged as a coolant range
 * excursion); void and its feedback come from the primary's network. The
 * heat into the coolant per axial level is published (store_q_axial) for
 * that network's core volumes.
 *
 * Time integration is backward Euler, one linear solve per (channel, node)
 * per tick (more only for boiling, above): the n_fuel + n_clad solid nodes
 * plus the coolant node form one tridiagonal system (Thomas algorithm), with
 * conductivities and coolant properties lagged at the previous step's
 * temperatures. The coolant row is
 *   C_w (T_w' - T_w)/dt + m cp (T_w' - T_up') = G_film (T_co' - T_w') + Q_direct
 * (in boiling the linearised Thom flux replaces the film term), with m the
 * rod's share of the channel flow and T_up' the node below, just solved (the
 * inlet for j = 0), so the march up the channel is exact in one pass. The
 * matrix is an M-matrix for every dt > 0: no oscillation, no step limit
 * (tested at 0.05 s and 1 s). Summing the rows, the fluxes cancel, so per
 * tick sum C_i (T_i' - T_i) = (P - Q_flow) dt to rounding, where Q_flow is
 * the enthalpy the flow carries out (PCS_FUEL_OUT_FLOW_HEAT).
 *
 * Heat capacities of fuel and clad are constant per material (rho cp taken
 * from the configuration) so that the stored energy sum m cp T is exactly the
 * conserved quantity; the default cp values are the cited correlations at a
 * typical temperature (see pcs_fuel_def). Radial flux depression in the
 * pellet is neglected (uniform generation). Flow must be upward or zero: a
 * negative mass flow is used as 0 and flagged (PCS_FUEL_FLAG_REVERSE_FLOW).
 *
 * Power: the core power P (W) is read each tick from a double store written
 * by the kinetics model (stage 3). The fuel receives fuel_heat_fraction of it
 * (0.974, [W84] Table 2-1 in tests/refdata/pwr_plant.md), the coolant the rest
 * directly, with the same shape. Channel c gets the share
 * peaking[c] n_rods[c] / sum(peaking n_rods); axially, the chopped cosine
 * cos(pi (z - L/2) / L_e) integrated over each node (normalised to 1), or a
 * uniform shape.
 *
 * Thread-safety: build and the helper functions run on the world's thread,
 * between ticks.
 */
#ifndef PCSIM_FUEL_H
#define PCSIM_FUEL_H

#include <stdint.h>

#include "pcsim/coolant.h"
#include "pcsim/event.h"
#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Size limits (the config holds fixed arrays of PCS_FUEL_MAX_CHANNELS). */
#define PCS_FUEL_MAX_CHANNELS 16u
#define PCS_FUEL_MAX_AXIAL 128u
#define PCS_FUEL_MIN_FUEL_NODES 2u
#define PCS_FUEL_MAX_FUEL_NODES 40u
#define PCS_FUEL_MIN_CLAD_NODES 2u
#define PCS_FUEL_MAX_CLAD_NODES 8u

/** Lowest temperature any configured or initial temperature may have, K. */
#define PCS_FUEL_T_MIN_K 273.15
/** Largest core or channel mass flow magnitude, kg/s: 5e4 times a 4-loop PWR's
 *  core flow. The HEAT stage multiplies flows by heat capacities and by each
 *  other; at 1e200 kg/s a crafted save's flow made those products overflow and
 *  the rod temperatures NaN. Up to 1e9 every product stays below about 1e30.
 *  The builder (core_mass_flow_kg_s) and the load check both hold to it. */
#define PCS_FUEL_MDOT_MAX_KG_S 1e9

/** UO2 conductivity correlation (fuel_materials.h). */
typedef enum pcs_fuel_k_model {
    PCS_FUEL_K_FINK95 = 0,         /**< Fink (2000), 95 % TD (default) */
    PCS_FUEL_K_HARDING_MARTIN = 1, /**< Harding & Martin (1989) */
    PCS_FUEL_K_CONSTANT = 2,       /**< fuel_k_const_w_m_k (tests, hand calculations) */
} pcs_fuel_k_model;

/** Zircaloy conductivity correlation (fuel_materials.h). */
typedef enum pcs_clad_k_model {
    PCS_CLAD_K_MATPRO = 0,   /**< MATPRO CTHCON (default) */
    PCS_CLAD_K_IAEA = 1,     /**< IAEA-TECDOC-1496 */
    PCS_CLAD_K_CONSTANT = 2, /**< clad_k_const_w_m_k */
} pcs_clad_k_model;

/** Wall heat-transfer regimes (see the file comment). */
typedef enum pcs_fuel_boiling {
    PCS_FUEL_BOILING_THOM = 0, /**< Dittus-Boelter, or Thom nucleate boiling when larger
                                    (default) */
    PCS_FUEL_BOILING_NONE = 1, /**< Dittus-Boelter at any wall temperature (single-phase
                                    only; hand calculations) */
} pcs_fuel_boiling;

/** Axial power shape. */
typedef enum pcs_axial_shape {
    PCS_AXIAL_CHOPPED_COSINE = 0, /**< cos(pi (z - L/2) / L_e), node integrals (default) */
    PCS_AXIAL_UNIFORM = 1,        /**< equal share per node */
} pcs_axial_shape;

/**
 * Fuel model configuration. Start from pcs_fuel_default(), which
 * gives the reference core (4 channel groups x 24 axial nodes x 10 fuel + 2
 * clad radial nodes) of a Westinghouse 4-loop PWR with the 17x17 OFA rod of
 * tests/refdata/pwr_plant.md ("Fuel rod" table, [BEAVRS] and [W84] agreeing).
 */
typedef struct pcs_fuel_def {
    /* mesh */
    uint32_t n_channels;   /**< channel groups; default 4; [1, PCS_FUEL_MAX_CHANNELS] */
    uint32_t n_axial;      /**< axial nodes; default 24; [1, PCS_FUEL_MAX_AXIAL] */
    uint32_t n_fuel_nodes; /**< radial pellet nodes incl. centre and surface; default 10; [2, 40] */
    uint32_t n_clad_nodes; /**< radial clad nodes incl. both surfaces; default 2; [2, 8] */

    /* rod geometry, m ([BEAVRS]; [W84]) */
    double pellet_radius_m;     /**< default 0.0039218; > 0 */
    double clad_inner_radius_m; /**< default 0.0040005; >= pellet radius */
    double clad_outer_radius_m; /**< default 0.0045720; > clad inner radius */
    double rod_pitch_m;         /**< square lattice pitch; default 0.0125984; > 2 r_co */
    double active_length_m;     /**< default 3.6576; > 0 */

    /* channel groups */
    uint32_t n_rods[PCS_FUEL_MAX_CHANNELS]; /**< rods per group; default 50952/4 = 12738 each
                                                 (193 x 264 rods, [BEAVRS]); >= 1 */
    double peaking[PCS_FUEL_MAX_CHANNELS];  /**< relative rod power per group; default 1 each
                                                 (no source for hot-channel factors in
                                                 refdata: a scenario input); > 0 */

    /* power distribution */
    double fuel_heat_fraction;          /**< share of P deposited in fuel; default 0.974
                                             ([W84] Table 2-1); [0, 1] */
    pcs_axial_shape axial_shape;        /**< default PCS_AXIAL_CHOPPED_COSINE */
    double axial_extrapolated_length_m; /**< L_e of the cosine; default 1.2 L (a model
                                             assumption, peak/average 1.355; no source in
                                             refdata); >= active_length_m */

    /* fuel and clad materials */
    pcs_fuel_k_model fuel_k;       /**< default PCS_FUEL_K_FINK95 */
    double fuel_k_const_w_m_k;     /**< used by PCS_FUEL_K_CONSTANT; default 3.0; > 0 */
    double fuel_density_kg_m3;     /**< default 10301.66 ([BEAVRS] 3.1 % region); > 0 */
    double fuel_cp_j_kg_k;         /**< default pcs_uo2_cp_fink(900 K) = 308.28; > 0 */
    pcs_clad_k_model clad_k;       /**< default PCS_CLAD_K_MATPRO */
    double clad_k_const_w_m_k;     /**< used by PCS_CLAD_K_CONSTANT; default 17.0; > 0 */
    double clad_density_kg_m3;     /**< default 6550 (Zircaloy-4, [BEAVRS]); > 0 */
    double clad_cp_j_kg_k;         /**< default pcs_zry_cp_iaea(600 K) = 317.10; > 0 */
    double gap_conductance_w_m2_k; /**< h_gap on the pellet surface; default 10000 (the
                                        constant of the NEACRP PWR rod-ejection benchmark,
                                        NEACRP-L-335, 1992; not in refdata, unverified
                                        here); > 0 */

    /* coolant: initial values of the boundary stores, which a coupling writes
       later (the plant's uN.plant.couple) */
    double t_inlet_k;           /**< core inlet temperature; default 565.1 ([W84]); >= 273.15 */
    double pressure_pa;         /**< default 15.51e6 ([BEAVRS]; [W84]); > 0 */
    double core_mass_flow_kg_s; /**< split over groups by rod count; default 17080
                                     (core flow, [BEAVRS]);
                                     [0, PCS_FUEL_MDOT_MAX_KG_S] */
    double t_initial_k;         /**< initial temperature of every node; default 565.1;
                                     >= 273.15 */
    double nu_laminar;          /**< Nusselt floor; default 4.36 (Incropera Eq. 8.53); > 0 */
    pcs_fuel_boiling boiling;   /**< wall regimes; default PCS_FUEL_BOILING_THOM */

    /* coolant properties: props_fn(props_ctx, ...) each tick; when props_fn is
     * NULL the model uses pcs_coolant_props_linear on its own copy of
     * coolant_linear (a placeholder valid 540-618 K). Real water:
     * props_fn = pcs_coolant_props_water with props_ctx a pcs_coolant_water
     * table (coolant.h), e.g. one from pcs_coolant_water_add in the same
     * world, shared by all units. props_ctx must outlive the world. */
    pcs_coolant_props_fn props_fn;     /**< default NULL (linear set) */
    void *props_ctx;                   /**< default NULL */
    pcs_coolant_linear coolant_linear; /**< default pcs_coolant_linear_default() */
} pcs_fuel_def;

/** Fill @p cfg with the reference-core defaults above. PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_fuel_default(pcs_fuel_def *cfg);

/**
 * Check every field against its range (and the coolant_linear set when
 * props_fn is NULL).
 * @return PCS_E_INVAL with a message "fuel config: FIELD = VALUE ..., allowed RANGE".
 */
PCS_API pcs_status pcs_fuel_def_validate(const pcs_fuel_def *cfg);

/** Indices of the summary store (pcs_fuel.store_out), all doubles. */
enum {
    PCS_FUEL_OUT_T_MAX = 0,       /**< hottest fuel node, K (channel uN.fuel.t_max) */
    PCS_FUEL_OUT_T_CENTRE_AVG,    /**< rod-weighted mean centreline temperature, K */
    PCS_FUEL_OUT_T_AVG,           /**< volume-mean fuel temperature, K: Doppler input */
    PCS_FUEL_OUT_CLAD_T_MAX,      /**< hottest clad node, K */
    PCS_FUEL_OUT_COOLANT_T_OUT,   /**< mixed-mean core outlet (weights mdot cp), K */
    PCS_FUEL_OUT_COOLANT_T_AVG,   /**< volume-mean coolant temperature (each node's mean of
                                       inlet and outlet), K: moderator input */
    PCS_FUEL_OUT_HEAT_TO_COOLANT, /**< clad-to-coolant convection plus direct heating, W */
    PCS_FUEL_OUT_FLOW_HEAT,       /**< enthalpy rise carried out by the flow,
                                       sum mdot cp (T_node - T_below), W */
    PCS_FUEL_OUT_COUNT
};

/** Bits of the flags store (pcs_fuel.store_flags, u32, channel uN.fuel.flags). */
enum {
    PCS_FUEL_FLAG_FUEL_RANGE = 1u << 0,    /**< a fuel node above PCS_UO2_T_MAX_K (k held) */
    PCS_FUEL_FLAG_CLAD_RANGE = 1u << 1,    /**< a clad node above its correlation's range */
    PCS_FUEL_FLAG_COOLANT_RANGE = 1u << 2, /**< coolant properties clamped somewhere */
    PCS_FUEL_FLAG_REVERSE_FLOW = 1u << 3,  /**< a negative channel flow was used as 0 */
};

/**
 * Event kind emitted when a flag bit rises (not while it stays set):
 * subject = unit_index; values = {flag bit, value (K, or kg/s for flow),
 * limit, channel group or -1}.
 */
#define PCS_EV_FUEL_RANGE (PCS_EV_MODEL_BASE + 40u)

/** Handle to a built fuel model. Plain data; the model lives in world memory. */
typedef struct pcs_fuel {
    uint32_t unit_index;   /**< as passed to pcs_fuel_add; names use u(unit_index+1) */
    uint32_t n_channels;   /**< channel groups */
    uint32_t n_axial;      /**< axial nodes */
    uint32_t n_radial;     /**< solid radial nodes per rod-node: n_fuel + n_clad */
    uint32_t n_fuel_nodes; /**< of which fuel */
    uint32_t store_t_rod;  /**< STATE "uN.fuel.t": K, [c][j][r], r fuel then clad, centre first */
    uint32_t store_t_coolant;     /**< STATE "uN.coolant.t": K, [c][j], node outlet temperature */
    uint32_t store_t_inlet;       /**< STATE "uN.coolant.t_in": K, [c]; the coupling writes it */
    uint32_t store_mass_flow;     /**< STATE "uN.coolant.mdot": kg/s per group, [c]; the coupling */
    uint32_t store_pressure;      /**< STATE "uN.coolant.p": Pa, [1]; the coupling */
    uint32_t store_out;           /**< STATE "uN.fuel.out": PCS_FUEL_OUT_COUNT doubles */
    uint32_t store_flags;         /**< STATE "uN.fuel.flags": one u32 of PCS_FUEL_FLAG_* */
    uint32_t store_props;         /**< SCRATCH "uN.coolant.props": cp, k, mu, rho, each [c][j] */
    uint32_t store_q_axial;       /**< STATE "uN.fuel.q_axial": W, [j] bottom to top: heat into
                                       the coolant at axial node j (clad-to-coolant convection or
                                       boiling plus direct heating) summed over all channel groups
                                       and rods, this tick. Sums to PCS_FUEL_OUT_HEAT_TO_COOLANT
                                       (to rounding): the source term of the primary's core
                                       volumes, not FLOW_HEAT (which also holds the fuel's own
                                       coolant node's storage change) */
    uint32_t system;              /**< the HEAT-stage system "uN.fuel.heat" */
    struct pcs_fuel_model *model; /**< private; world-owned */
} pcs_fuel;

/**
 * Build a fuel model into @p w (build phase): validate @p cfg, register the
 * stores listed in pcs_fuel, the HEAT-stage system "uN.fuel.heat" (priority
 * 0; reads the power store and the boundary stores, writes the rest) and the
 * channels
 *   uN.fuel.t_max, uN.fuel.t_centre_avg, uN.fuel.t_avg, uN.clad.t_max,
 *   uN.coolant.t_out, uN.coolant.t_avg (K), uN.core.heat_to_coolant,
 *   uN.coolant.flow_heat (W), uN.fuel.flags (u32),
 * with N = unit_index + 1. Every node starts at t_initial_k and the outputs
 * are filled, so readers see sensible values before the first tick.
 * @param unit_index 0-based unit number (u1 is unit 0), < 1000
 * @param cfg configuration (copied; props_ctx must outlive the world)
 * @param power_store id of a double store holding the core power in W
 * @param power_index element of that store to read
 * @param out filled on success
 * @return PCS_E_INVAL (bad config naming the field, bad store or index, NULL),
 *         PCS_E_STATE after sealing, PCS_E_NOMEM, or a registration error
 *         (e.g. the names already exist for this unit). Arguments are checked
 *         before anything is registered; after a later failure (out of memory,
 *         name clash) the world may hold part of the model and should be
 *         destroyed.
 */
PCS_API pcs_status pcs_fuel_add(pcs_world *w, uint32_t unit_index, const pcs_fuel_def *cfg,
                                uint32_t power_store, uint32_t power_index, pcs_fuel *out);

/**
 * Set every temperature to the steady state at core power @p power_w and the
 * current boundary stores (inlet temperature, flow, pressure): the backward
 * Euler solve with 1/dt = 0, repeated with updated conductivities and
 * coolant properties until no temperature moves more than 1e-9 K (at most
 * 500 sweeps). Updates the outputs. Call between ticks.
 * @return PCS_E_INVAL (NULL, power not finite or < 0), PCS_E_STATE when a
 *         channel's flow is <= 0 (no steady state exists) or the iteration
 *         did not converge, or a property-function error.
 */
PCS_API pcs_status pcs_fuel_solve_steady(pcs_world *w, const pcs_fuel *fuel, double power_w);

/**
 * Thom's nucleate-boiling coefficient K(p) = exp(2 p / 8.7 MPa) / 22.65^2,
 * in W/(m^2 K^2): q'' = K (T_w - T_sat)^2 (see the file comment). The model
 * uses exactly this function. NaN for a non-finite or negative @p p_pa.
 */
PCS_API double pcs_fuel_thom_k(double p_pa);

/**
 * Heat stored in fuel, clad and coolant, J, relative to 0 K with the model's
 * heat capacities: sum over rods and nodes of C_i T_i, the coolant's C taken
 * from the property function at the current temperatures. With constant
 * properties its change over a tick equals (P - Q_flow) dt to rounding.
 * NaN for NULL arguments or a property-function error.
 */
PCS_API double pcs_fuel_stored_energy(pcs_world *w, const pcs_fuel *fuel);

#ifdef __cplusplus
}
#endif

#endif
