/**
 * @file hydraulics.h
 * @brief Primary-loop hydraulics: control volumes, flow paths, pumps, steam
 *        generator heat sink and pressurizer, solved semi-implicitly each tick.
 *
 * Model (single-phase liquid, docs/ARCHITECTURE.md section 8):
 *  - Node i (control volume): mass M_i, specific enthalpy h_i, pressure p_i,
 *    compliance C_i = dM/dp (kg/Pa): V/(rho a^2) for liquid (a: speed of
 *    sound), or a larger value for the pressurizer's steam bubble.
 *  - Junction j from node f to node t: mass flow m_j (kg/s), inertia
 *    I_j = L/A, loss coefficient K_j = f L/D + K_form (+ K_valve(x)),
 *    friction factor f from Haaland's explicit fit of Colebrook,
 *      1/sqrt(f) = -1.8 log10[(eps/D/3.7)^1.11 + 6.9/Re]
 *    (S.E. Haaland, J. Fluids Eng. 105 (1983) 89), 64/Re when laminar
 *    (Re < 2300), or a fixed f from the configuration.
 *  - Momentum, implicit in m and p (semi-implicit: losses linearised about m^n):
 *      I_j (m' - m)/dt = p_f' - p_t' + dp_pump - R_j m',  R_j = K_j |m| / (2 rho A^2)
 *    so m' = a_j + b_j (p_f' - p_t').
 *  - Mass: C_i (p_i' - p_i)/dt = sum_in m' - sum_out m' and M_i' = M_i + dt (in - out):
 *    one sparse symmetric positive-definite system in p' per tick, factorised
 *    by SuiteSparse KLU (symbolic analysis at build, numeric refactor per tick).
 *    Every junction's flow leaves one node and enters another, so total mass
 *    is conserved to rounding.
 *  - Energy: donor-cell (upwind) enthalpy transport, explicit and sub-cycled so
 *    the Courant number stays below 0.9; it conserves energy exactly.
 *    T = t_ref + h / cp with a constant cp (liquid, narrow range); heat enters
 *    the core node from a store (the fuel model's heat to coolant) and leaves
 *    steam-generator nodes as Q = UA (T - T_secondary).
 *  - Pump: dp = dp_r [s (w/w_r)^2 - (s - 1) (m/m_r)|m/m_r|] with shutoff ratio
 *    s; shaft I dw/dt = tau_motor - c w^2 with c = tau_r / w_r^2, integrated
 *    exactly: after a trip w(t) = w0 / (1 + t/tau), tau = I / (c w0).
 *  - Pressurizer: a node with a large compliance; heaters and spray (commands)
 *    add (Q_heater - Q_spray) * dp_per_joule to its pressure equation.
 * Simplifications (documented, left for later): constant density (no
 * buoyancy, so no natural circulation), no two-phase flow.
 *
 * Thread-safety: build on the world's thread; the solve runs at stage
 * HYDRAULICS on the world's thread.
 */
#ifndef PCSIM_HYDRAULICS_H
#define PCSIM_HYDRAULICS_H

#include <stdint.h>

#include "pcsim/event.h"
#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#define PCS_HYDRAULICS_MAX_NODES 4096u
#define PCS_HYDRAULICS_MAX_JUNCTIONS 8192u
#define PCS_HYDRAULICS_MAX_PUMPS 64u

/** Node roles. */
typedef enum pcs_hydraulics_role {
    PCS_HYDRAULICS_PLAIN = 0,       /**< pipe or plenum volume */
    PCS_HYDRAULICS_CORE = 1,        /**< receives the core heat */
    PCS_HYDRAULICS_SG = 2,          /**< steam-generator tube volume: heat sink */
    PCS_HYDRAULICS_PRESSURIZER = 3, /**< large compliance, heaters and spray */
} pcs_hydraulics_role;

/** Junction kinds. */
typedef enum pcs_hydraulics_kind {
    PCS_HYDRAULICS_PIPE = 0,
    PCS_HYDRAULICS_PUMP = 1,        /**< pipe with a pump (pump index in `pump`) */
    PCS_HYDRAULICS_VALVE = 2,       /**< pipe with a valve (position 0 closed .. 1 open) */
    PCS_HYDRAULICS_CHECK_VALVE = 3, /**< closes when the flow would reverse */
} pcs_hydraulics_kind;

typedef struct pcs_hydraulics_node {
    pcs_hydraulics_role role;
    double volume_m3;        /**< > 0 */
    double compliance_kg_pa; /**< 0: liquid V/(rho a^2); else > 0 */
    uint32_t loop;           /**< loop index, for channel names */
    uint32_t tag;            /**< PCS_HYDRAULICS_TAG_*: publishes the node's temperature */
    double t_init_k;         /**< initial temperature, K; 0: the config's t_init_k */
} pcs_hydraulics_node;

/** Node tags: which temperatures are published per loop. */
enum { PCS_HYDRAULICS_TAG_NONE = 0, PCS_HYDRAULICS_TAG_HOT_LEG = 1, PCS_HYDRAULICS_TAG_COLD_LEG = 2 };

typedef struct pcs_hydraulics_junction {
    pcs_hydraulics_kind kind;
    uint32_t from, to;       /**< node indices; positive flow goes from -> to */
    double length_m;         /**< > 0 */
    double area_m2;          /**< > 0 */
    double diameter_m;       /**< hydraulic diameter, > 0 */
    double roughness_m;      /**< >= 0 */
    double form_loss;        /**< K, >= 0 */
    double fixed_friction;   /**< > 0: use this Darcy f instead of Haaland */
    uint32_t pump;           /**< pump index for PCS_HYDRAULICS_PUMP */
    double valve_k_open;     /**< valve form loss fully open; K = k_open / x^2 */
    double valve_position;   /**< initial position, [0, 1] */
} pcs_hydraulics_junction;

typedef struct pcs_hydraulics_pump {
    double rated_speed_rad_s;  /**< w_r > 0 */
    double rated_dp_pa;        /**< dp_r > 0 */
    double rated_flow_kg_s;    /**< m_r > 0 */
    double shutoff_ratio;      /**< s > 1: shutoff head / rated head */
    double inertia_kg_m2;      /**< shaft + motor + water, > 0 */
    double efficiency;         /**< (0, 1]: tau_r = dp_r m_r / (rho eff w_r) */
    double initial_speed_frac; /**< w(0)/w_r, [0, 1.5] */
} pcs_hydraulics_pump;

/** A network: arrays owned by the caller until pcs_hydraulics_add returns. */
typedef struct pcs_hydraulics_def {
    uint32_t n_nodes, n_junctions, n_pumps;
    const pcs_hydraulics_node *nodes;
    const pcs_hydraulics_junction *junctions;
    const pcs_hydraulics_pump *pumps;
    double rho_kg_m3;          /**< liquid density, (100, 1100] */
    double cp_j_kg_k;          /**< specific heat, (1000, 20000] */
    double mu_pa_s;            /**< viscosity for Re, > 0 */
    double sound_speed_m_s;    /**< for liquid compliance, > 0 */
    double t_ref_k;            /**< T at h = 0, >= 273.15 */
    double t_init_k;           /**< initial temperature of every node, >= 273.15 */
    double p_init_pa;          /**< initial pressure of every node, > 0 */
    double initial_flow_kg_s;  /**< initial flow in every junction (a loop guess) */
    double sg_ua_w_k;          /**< UA per SG node, >= 0 */
    double t_secondary_k;      /**< secondary-side saturation temperature, >= 273.15 */
    double pzr_dp_per_joule;   /**< pressurizer pressure rise per heater joule, >= 0 */
    uint32_t heat_store;       /**< store holding the core heat (W), or UINT32_MAX: none */
    uint32_t heat_index;       /**< element of heat_store */
} pcs_hydraulics_def;

/** Command family of the hydraulic networks (pcs_command_kind_find). */
#define PCS_HYDRAULICS_COMMANDS "hydraulics"

/**
 * Ops of the "hydraulics" family (kind = the family's first kind + op). Each
 * network registers the targets "uN" (N = unit + 1: pressurizer and SG ops),
 * "uN.pumpK" (pump K - 1: trip and start) and "uN.valveJ" (junction J - 1,
 * for each valve junction: valve position).
 */
enum pcs_hydraulics_op {
    PCS_HYDRAULICS_OP_PUMP_TRIP = 0,      /**< motor off */
    PCS_HYDRAULICS_OP_PUMP_START = 1,     /**< args[0] speed fraction, <= 1.5 (0 or less: 1) */
    PCS_HYDRAULICS_OP_VALVE_POSITION = 2, /**< args[0] position [0, 1] */
    PCS_HYDRAULICS_OP_PZR_HEATERS = 3,    /**< args[0] heater power W, [0, 1e9] */
    PCS_HYDRAULICS_OP_PZR_SPRAY = 4,      /**< args[0] spray cooling W, [0, 1e9] */
    PCS_HYDRAULICS_OP_SG_SECONDARY_T = 5, /**< args[0] secondary saturation temperature K, [273.15, 1e9] */
    PCS_HYDRAULICS_OP_COUNT = 6,
};

/** Event subject of pump @p pump (0-based) of the network of unit @p unit (0-based). */
#define PCS_HYDRAULICS_PUMP_SUBJECT(unit, pump) (((uint32_t)(unit) << 10) | (uint32_t)(pump))

/** Event kinds (PCS_EV_MODEL_BASE + 48..63; see event.h for the ranges). */
enum {
    PCS_EV_PUMP_TRIPPED = PCS_EV_MODEL_BASE + 48, /**< PCS_HYDRAULICS_PUMP_SUBJECT; values: speed rad/s */
    PCS_EV_PUMP_STARTED = PCS_EV_MODEL_BASE + 49, /**< same; values[1] speed fraction */
    PCS_EV_HYD_SOLVE_FAILED = PCS_EV_MODEL_BASE + 50, /**< subject unit; values[0] KLU status */
};

typedef struct pcs_hydraulics pcs_hydraulics;

/** Fill @p cfg with water at PWR conditions and no network. */
PCS_API pcs_status pcs_hydraulics_default(pcs_hydraulics_def *cfg);

/**
 * Build the network into @p w for unit @p unit (channel prefix "u<unit+1>."):
 * stores (STATE: node mass, enthalpy, pressure; junction flow; pump speed and
 * motor state; valve positions), the solve system at stage HYDRAULICS,
 * command targets (above; a unit's network is built once: its "uN" target
 * refuses a second), channels uN.loopL.flow (kg/s, per pump junction),
 * uN.pump<k>.speed (rad/s), uN.rcs.pressure (Pa, pressurizer), uN.loopL.t_hot
 * and t_cold (K, SG inlet and outlet nodes), uN.sg.heat (W).
 * @return PCS_E_INVAL naming the element and field, PCS_E_NOMEM, PCS_E_STATE.
 */
PCS_API pcs_status pcs_hydraulics_add(pcs_world *w, uint32_t unit, const pcs_hydraulics_def *cfg,
                                 pcs_hydraulics **out);

/** Store ids, for coupling and tests. */
typedef struct pcs_hydraulics_stores {
    uint32_t mass, enthalpy, pressure; /**< per node: kg, J/kg, Pa */
    uint32_t flow;                     /**< per junction: kg/s */
    uint32_t pump_speed;               /**< per pump: rad/s */
    uint32_t temperature;              /**< per node, K (scratch, derived) */
    uint32_t sg_heat;                  /**< total SG heat removed, W (one element) */
    uint32_t core;                     /**< [0] core flow kg/s, [1] core inlet T K,
                                            [2] RCS pressure Pa (scratch, derived) */
} pcs_hydraulics_stores;

/**
 * Run the momentum and pressure solve alone for @p seconds of simulated time
 * in steps of @p dt_s (enthalpy frozen), so a scenario starts from steady
 * flow. Build phase only (before the first tick).
 */
PCS_API pcs_status pcs_hydraulics_settle(pcs_world *w, pcs_hydraulics *h, double seconds, double dt_s);
PCS_API pcs_hydraulics_stores pcs_hydraulics_store_ids(const pcs_hydraulics *h);

/** Total mass in the network, kg (sum over nodes, fixed order). */
PCS_API double pcs_hydraulics_total_mass(pcs_world *w, const pcs_hydraulics *h);

/** Total enthalpy M h in the network, J. */
PCS_API double pcs_hydraulics_total_energy(pcs_world *w, const pcs_hydraulics *h);

/**
 * A standard PWR primary system for tests and scenarios: @p n_loops loops,
 * each hot leg -> SG (n_sg_nodes) -> cold leg with pump -> downcomer -> shared
 * core -> upper plenum; a pressurizer on loop 0's hot leg. Writes into the
 * caller's arrays (sizes from pcs_hydraulics_pwr_sizes) and sets cfg's counts/pointers.
 */
PCS_API pcs_status pcs_hydraulics_pwr_sizes(uint32_t n_loops, uint32_t n_sg_nodes, uint32_t *n_nodes,
                                     uint32_t *n_junctions);
PCS_API pcs_status pcs_hydraulics_pwr_network(uint32_t n_loops, uint32_t n_sg_nodes,
                                       const pcs_hydraulics_pump *pump, pcs_hydraulics_def *cfg,
                                       pcs_hydraulics_node *nodes, pcs_hydraulics_junction *junctions,
                                       pcs_hydraulics_pump *pumps);

/**
 * Start the PWR network of pcs_hydraulics_pwr_network at its full-power steady
 * state: core outlet and hot side at @p t_hot_k, cold side at @p t_cold_k,
 * and the SG conductance chosen so the donor-cell SG chain, with the loop
 * flow P / (n_loops cp (t_hot - t_cold)), ends exactly at t_cold against
 * @p t_secondary_k (SG node temperatures set to that chain). Set cfg->cp_j_kg_k
 * first.
 * @return PCS_E_INVAL when t_cold <= t_secondary or t_hot <= t_cold.
 */
PCS_API pcs_status pcs_hydraulics_pwr_full_power(pcs_hydraulics_def *cfg, pcs_hydraulics_node *nodes,
                                          uint32_t n_loops, uint32_t n_sg_nodes, double power_w,
                                          double t_hot_k, double t_cold_k, double t_secondary_k);

#endif
