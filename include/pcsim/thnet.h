/**
 * @file thnet.h
 * @brief Compressible two-phase thermal-hydraulic network (homogeneous
 *        equilibrium, RELAP5/TRACE-style semi-implicit) that knows no world,
 *        so a network can be built and stepped standalone.
 *
 * Layout: the property and critical-flow callbacks (thnet_eos.c,
 * thnet_hem.c) are kernels in physics/thermohydraulics/kernels/; the network
 * itself (thnet_build.c, thnet_step.c) is in physics/thermohydraulics/models/
 * because it calls KLU, and tools/archcheck.sh keeps non-C library headers
 * out of kernels (tests/fixtures/arch/kernel-pure/.../bad_lib.c is exactly
 * a kernel including <klu.h>). It includes no world header all the same.
 *
 * Model (all SI):
 *  - Volume i: rigid, volume V_i, centre elevation z_i. Conserved state: mass
 *    M_i (kg) and internal energy U_i = M_i u_i (J). Derived from (M, U) by
 *    the equation of state: p, h, T, rho = M/V, equilibrium quality x and
 *    void fraction alpha (homogeneous: alpha = x rho / rho_g). A boundary
 *    volume has a fixed (p, h) and takes or gives any mass.
 *  - Junction j from volume f to volume t: mass flow W_j (kg/s, positive
 *    from f to t), area A, length L (inertia L/A), loss coefficient
 *    K_j = (f L / D + K_form) / s^2 with s the valve opening (0 closed: W = 0),
 *    f a fixed Darcy factor, none, or Haaland's fit of Colebrook from the roughness
 *    (homogeneous two-phase: mixture density, McAdams mixture viscosity),
 *    and the momentum equation
 *      (L/A)(W' - W)/dt = p_f' - p_t' + G_j + S_j - R_j W',
 *      R_j = K_j |W| / (2 rho_j A^2),  rho_j = (rho_f + rho_t)/2,
 *      G_j = -g [rho_f (z_j - z_f) + rho_t (z_t - z_j)]   (gravity head),
 *    with S_j the pump head (input) and z_j the junction's elevation, so a
 *    closed loop's gravity terms sum to -g * integral(rho dz) whatever the
 *    direction of flow. A choked junction's flow is limited to
 *    s A Gc(p_up, h_up), the homogeneous-equilibrium critical flux of the
 *    upstream state (th_reference.md section 2). The critical-flow search
 *    (two IF97 isentropes, the step's costliest part) runs only where the
 *    predicted flow exceeds r s A sqrt(2 rho_up p_up), a lower bound of s A
 *    Gc (r = PCS_THNET_SKIP_R_STEAM for saturated steam, PCS_THNET_SKIP_R
 *    otherwise; rho_up, h_up what the junction takes, a phase offtake's
 *    phase); below it the junction cannot be choked.
 *  - Mass and energy, donor-cell (upwind enthalpy h of the volume the flow
 *    leaves), explicit in h, with the new flows:
 *      M_i' = M_i + dt sum_in-out W_j',  U_i' = U_i + dt (Q_i + P_i + sum W_j' h_donor)
 *    where P_i is the pump work S_j W_j / rho_j given to the downstream volume.
 *    The donor side is the one the start-of-step flow leaves (at rest: the
 *    predicted flow's); if a solved flow runs the other way and moves more
 *    than 1e-5 of the smaller adjacent volume's mass in the step, the step
 *    re-assembles with that donor and solves again (at most 3 solves; below
 *    that threshold, a stagnant line's flow flickering in sign, the assumed
 *    donor stays), and the transport uses the donor the last solve
 *    assumed, so the new (M, U) are the ones the pressure solve predicted;
 *    but a junction with a boundary volume on one side (another model's
 *    volume, which moves the same mass at the enthalpy of the side it
 *    left) always carries the donor of its solved flow, so the energy that
 *    leaves one model is the energy that enters the other.
 *    Kinetic and potential energy are not in the energy equation (the
 *    RELAP5 convention); the step reports the energy the inputs added.
 *  - External mass sources S_i (input, kg/s, + in: a CVCS charging line;
 *    - out: a letdown line): M_i' += dt S_i, U_i' += dt S_i h_s with h_s
 *    the given source enthalpy for an inflow and the volume's start-of-step
 *    h for an outflow (the fluid leaves as it is). They enter the pressure
 *    solve like the heat does (in its right-hand side), so the new pressure
 *    sees them the same step, and the report counts them
 *    (source_mass_in_kg, source_energy_in_j): over a step,
 *      M' - M = dt (sum S + boundary inflow),
 *      U' - U = dt (sum Q + sum P + sum S h_s + boundary enthalpy inflow)
 *    to round-off.
 *  - One optional transported scalar C_i per kg of fluid (pcs_thnet_state
 *    .scalar, e.g. dissolved boron in ppm by mass): the scalar mass C M
 *    moves with the same solved flows, donor-cell (upwind: the side the
 *    solved flow W' leaves, which for the scalar may differ from the
 *    energy's donor below the re-solve threshold; it does not enter the
 *    pressure solve), explicit:
 *      C_i' M_i' = C_i M_i + dt (sum_in W' C_donor - sum_out W' C_i + S_i C_s),
 *    C_s the given source concentration for an inflow and C_i for an
 *    outflow; a boundary volume gives its own scalar[i] (its fixed
 *    concentration) and takes what arrives (reported as
 *    boundary_scalar_in). Total scalar mass is conserved to round-off, and
 *    at material Courant numbers <= 1 every C_i' is a convex combination of
 *    the old concentrations and the sources' (no new extrema, never
 *    negative). Simplification: first-order upwind transport has numerical
 *    diffusion, each volume is perfectly mixed, so a sharp front spreads
 *    over the nodes it crosses with an effective diffusivity of about
 *    u dx (1 - C) / 2 (u the velocity, dx the node length, C the Courant
 *    number); what it is good for is a well-mixed loop's mean, not a slug's
 *    shape.
 *  - Pressure: linearised EOS per volume, dp = A_i dM + B_i dU with
 *      A_i = (1 + rho_h h/rho) / (V D),  B_i = -rho_h / (rho V D),
 *      D = (d rho/d p)_u = rho_p + rho_h / rho,
 *    (rho_p = d rho/dp at fixed h, rho_h = d rho/dh at fixed p) gives with
 *    W' = a_j + b_j (p_f' - p_t') one sparse linear system in p', solved once
 *    per step by KLU. The new flows W' move the mass and energy; the new
 *    pressure is then the equation of state of the new (M, U), found by
 *    Newton on rho(p, u + p/rho) = M/V (the EOS residual is fed back, so
 *    pressure never drifts from the mass and energy it belongs to).
 *
 * Stability and the time step (dt = 0.05 s): sound waves and friction are
 * implicit (pressure and W' solved together, losses linearised about |W|),
 * so the acoustic Courant number c dt / L (about 300 for 1 m liquid nodes)
 * sets no limit. What remains explicit is donor-cell transport of mass and
 * enthalpy, stable (monotone, no new extrema of h) while every volume's
 * material Courant number C_i = dt sum_out W_j / M_i <= 1. A PWR loop at
 * 4400 kg/s per loop with nodes of 2 m3 or more of water (1400 kg) gives
 * C = 0.16 at dt = 0.05 s; a node must hold at least dt * W_out kg. The step
 * reports the largest C; above 1 the caller must refine dt or coarsen the
 * nodes (the network does not sub-cycle). The remaining explicit coupling,
 * the EOS derivatives taken at the start of the step, affects accuracy
 * (first order in dt), not stability, since the pressure is re-evaluated from
 * (M, U) each step. A choked junction's flow is the critical flow of the
 * upstream state plus half its change with the end-of-step pressure along
 * the isentrope (trapezoidal, unconditionally stable for dM/dt = -A Gc(M); the
 * liquid-full blowdown's relaxation of a few tens of ms is not resolved at
 * 0.05 s but stays monotone; see tests/test_thnet.c for the measured error).
 * One phase change defeats the start-of-step linearisation: a two-phase
 * volume whose void collapses within the step (a mixture is orders of
 * magnitude more compressible than the liquid it becomes), so the liquid
 * that keeps flowing in is packed at the mixture's compressibility and the
 * EOS pressure of the new (M, U) lands MPa above the solve's (measured: a
 * 3.4 MPa one-tick spike in a SG outlet plenum, and a state beyond the
 * table's 31 MPa that stopped the tick, tests/test_primary_robustness.c).
 * So when a volume two-phase at the start ends liquid with its EOS
 * pressure more than PCS_THNET_EOS_JUMP_PA (0.5 MPa) from the solve's, or
 * the EOS inversion fails, the step is redone from its start in
 * PCS_THNET_SUBSTEPS_1 (4) sub-steps, each linearised at its own start,
 * and if that still jumps, in PCS_THNET_SUBSTEPS_2 (16), whose result is
 * kept (the report sums the sub-steps; report.substeps says how many). The
 * retry costs those solves on the ticks where it happens and a copy of the
 * state arrays on every step; flashing (liquid to mixture) needs none, the
 * inversion holds that pressure near saturation. Allocation-free (a
 * connection change allocates, on its own call: "Connection" below).
 *
 * Linear solve: the matrix pattern (diagonal + both off-diagonals of each
 * junction) is fixed at build: klu_analyze and klu_factor (with pivoting)
 * run there; each step klu_refactor refills values with the frozen pivot
 * order (no allocation) and klu_rcond estimates the reciprocal condition.
 * If rcond < PCS_THNET_RCOND_MIN (1e-13) the step does a full klu_factor
 * with new pivots (allocates; counted in the step report); only then.
 *
 * Connection (pcs_thnet_junction_connect): a junction may be disconnected
 * and connected again between steps (a pump taken out of its loop). A
 * disconnected junction carries no flow (its W is set to 0 and stays 0) and
 * has no entries in the matrix: the pattern is rebuilt without its two
 * off-diagonals, and KLU's symbolic analysis (klu_analyze) and a fresh
 * numeric factorisation run again only when the pattern actually changed;
 * a junction that shares its two volumes with another connected one leaves
 * the pattern as it was, and nothing is re-analysed (pcs_thnet_klu_counts
 * counts both). The pattern's arrays are sized at create for every
 * junction connected, so only KLU's new analysis and factorisation allocate:
 * on a change of the pattern, in that call; the steps after it allocate
 * nothing, as before.
 * Simplification: the junction's momentum is dropped at once (W = 0 at the
 * disconnect: a pipe cut and capped between two steps, not a valve closing
 * over time); mass and energy are untouched by the change, so the balance
 * closes through it exactly as through any step. A reconnected junction
 * starts from rest with its definition's geometry and losses.
 *
 * Properties are callbacks (pcs_thnet_eos): the exact IF97 path
 * (pcs_thnet_eos_if97: forward differences and Newton, ~50 us per volume
 * per step) or the (p, h) table of pcsim/water_ph.h (pcs_thnet_eos_table:
 * analytic table derivatives, the inversion's Newton on the lean lookup).
 * A step evaluates the full props once per volume, at the end-of-step state
 * (the next step's start-of-step props are those, reused while the state's
 * (p, h) is unchanged), plus the inversion's lean evaluations.
 *
 * Errors: PCS_E_INVAL (bad definition: the message names the volume or
 * junction index, the field, its value and the range), PCS_E_NOMEM,
 * PCS_E_NUMERIC (a mass not positive, or a state outside the EOS), PCS_E_STATE
 * (the linear solve failed). Library code never prints.
 *
 * Thread-safety: a network is used by one thread at a time; the IF97 callbacks
 * are pure and may be shared.
 */
#ifndef PCSIM_THNET_H
#define PCSIM_THNET_H

#include <stddef.h>
#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/water_ph.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Standard gravity, m/s2 (the network default). */
#define PCS_THNET_G 9.80665
/** Below this KLU reciprocal condition estimate a step re-pivots (full factor). */
#define PCS_THNET_RCOND_MIN 1e-13
/** Weight of the end-of-step pressure in a choked junction's critical flow
 *  (1/2: trapezoidal, see thnet_step.c choke_limit). */
#define PCS_THNET_CHOKE_THETA 0.5
/** Lower bounds of Gc / sqrt(2 rho p) (IF97, tests/test_secondary.c): below
 *  r Cd s A sqrt(2 rho p) a junction cannot be choked and the critical-flow
 *  search is skipped, for an upstream pressure of at least
 *  PCS_THNET_SKIP_P_MIN_PA only. Saturated steam 0.2-16 MPa: 0.42-0.45; any
 *  state tested from 0.2 MPa: above 0.09 (saturated liquid at 0.2 MPa; 0.05
 *  leaves room). Below 0.2 MPa near-saturated liquid falls under it (0.041
 *  at 20 kPa, 0.017 at 2 kPa), so the search always runs there. */
#define PCS_THNET_SKIP_R_STEAM 0.38
#define PCS_THNET_SKIP_R 0.05
#define PCS_THNET_SKIP_P_MIN_PA 0.2e6
/** A step in which a volume's void collapses (two-phase at the start,
 *  liquid at the end) with the EOS pressure of its new (M, U) more than
 *  this from the linear solve's is redone in sub-steps (file comment). */
#define PCS_THNET_EOS_JUMP_PA 0.5e6
/** The sub-step counts of that retry: first this many, then the second. */
#define PCS_THNET_SUBSTEPS_1 4u
#define PCS_THNET_SUBSTEPS_2 16u
/** Largest number of volumes / junctions of one network. */
#define PCS_THNET_MAX_VOLUMES 65536u
#define PCS_THNET_MAX_JUNCTIONS 131072u

/* ------------------------------------------------------------------------ */
/* Property interface                                                        */
/* ------------------------------------------------------------------------ */

/** Properties at (p, h) that the network needs. */
typedef struct pcs_thnet_props {
    double rho_kg_m3; /**< density (mixture density in the dome) */
    double t_k;       /**< temperature (T_sat in the dome) */
    double quality;   /**< equilibrium quality: in [0,1] in the dome; 0 liquid, 1 vapour */
    double alpha;     /**< void fraction x rho / rho_g in the dome; 0 liquid, 1 vapour */
    double drho_dp;   /**< (d rho / d p) at constant h, kg/(m3 Pa) */
    double drho_dh;   /**< (d rho / d h) at constant p, kg2/(m3 J) */
    double mu_pa_s;   /**< dynamic viscosity (McAdams mixture in the dome) */
} pcs_thnet_props;

/** Choked (critical) flow of a homogeneous equilibrium nozzle. */
typedef struct pcs_thnet_choke {
    double g_kg_m2s;         /**< critical mass flux Gc */
    double p_throat_pa;      /**< throat pressure at the maximum */
    double x_throat;         /**< throat quality (0 liquid, 1 vapour) */
    double rho_throat_kg_m3; /**< throat density */
} pcs_thnet_choke;

/** (p, h) -> properties. Returns PCS_OK, or an error outside its domain. */
typedef pcs_status (*pcs_thnet_props_fn)(void *ctx, double p_pa, double h_j_kg,
                                         pcs_thnet_props *out);

/**
 * (p, h) -> rho_kg_m3, t_k, drho_dp and drho_dh only (the other fields of
 * *out are left as they are): what the (rho, u) -> (p, h) Newton iterates
 * on. Optional (pcs_thnet_eos.rho); NULL: the full props callback.
 */
typedef pcs_status (*pcs_thnet_rho_fn)(void *ctx, double p_pa, double h_j_kg, pcs_thnet_props *out);

/** Stagnation (p0, h0) -> critical flow of the isentropic HEM nozzle. */
typedef pcs_status (*pcs_thnet_choke_fn)(void *ctx, double p0_pa, double h0_j_kg,
                                         pcs_thnet_choke *out);

/** The saturated phases at one pressure: what a phase offtake takes. */
typedef struct pcs_thnet_sat {
    double h_f_j_kg;    /**< saturated liquid enthalpy */
    double h_g_j_kg;    /**< saturated vapour enthalpy */
    double rho_f_kg_m3; /**< saturated liquid density */
    double rho_g_kg_m3; /**< saturated vapour density */
} pcs_thnet_sat;

/** p -> the saturated phases (pcs_thnet_offtake). Returns PCS_OK, or an
 *  error where there are none (the offtake then takes the mixture). */
typedef pcs_status (*pcs_thnet_sat_fn)(void *ctx, double p_pa, pcs_thnet_sat *out);

/** The equation of state a network uses. */
typedef struct pcs_thnet_eos {
    pcs_thnet_props_fn props; /**< required */
    pcs_thnet_choke_fn choke; /**< required if any junction is choked */
    void *ctx;                /**< passed to every callback */
    pcs_thnet_rho_fn rho;     /**< optional: the inversion's inner loop; NULL: props */
    pcs_thnet_sat_fn sat;     /**< optional: a phase offtake's phases; NULL: pcs_thnet_sat_if97 */
} pcs_thnet_eos;

/**
 * The exact IF97 path (pcsim/water.h): props from pcs_water_props_ph, the
 * derivatives by forward differences (dp = 1e-6 p, dh = 10 J/kg), viscosity
 * IAPWS R12-08 (McAdams 1/mu = x/mu_g + (1-x)/mu_f in the dome).
 * Domain: 1 kPa <= p <= 100 MPa, h from h(p, 273.16 K) to h(p, 1073.15 K).
 */
PCS_API pcs_status pcs_thnet_props_if97(void *ctx, double p_pa, double h_j_kg,
                                        pcs_thnet_props *out);

/**
 * HEM critical mass flux from IF97 (th_reference.md section 2): s0 = s(p0,h0);
 * G(p) = rho(p,s0) sqrt(2 (h0 - h(p,s0))); Gc = max over 1 kPa <= p < p0.
 * Each smooth piece of the isentrope (single phase above the saturation
 * kink, two-phase below) is searched for its maximum (golden section and
 * parabolic steps to 1e-10 relative in ln p) and the kink itself is a
 * candidate: Gc within 1.3e-9 and p_throat within 1.3e-7 of all 18 rows of
 * th_reference.md. Two-phase throat states use the saturated phases of
 * regions 1 and 2, so the dome is searched for p <= 16.529 MPa (T_sat <=
 * 623.15 K) only; a stagnation state in region 3, or one whose isentrope
 * meets saturation above that pressure, is refused (PCS_E_INVAL).
 */
PCS_API pcs_status pcs_thnet_choke_if97(void *ctx, double p0_pa, double h0_j_kg,
                                        pcs_thnet_choke *out);

/**
 * HEM critical mass flux as pcs_thnet_choke_if97, with the saturated phases
 * of the two-phase isentrope from a table in ln p (1,024 nodes of IF97's
 * h', h'', s', s'', v', v'' from 1 kPa to 16.529 MPa, 4-point cubic) for
 * stagnation states in the dome (by the table's saturation line) with
 * 1 kPa < p0 <= 16 MPa; every other state is pcs_thnet_choke_if97's (@p ctx
 * is passed on, unused). Against the IF97 search: Gc within 2e-8 relative
 * for x0 >= 0.05, 1e-6 for x0 < 0.05; p_throat within 3e-6
 * (tests/test_thnet_hem_table.c). About 30 times cheaper in the dome.
 */
PCS_API pcs_status pcs_thnet_choke_table(void *ctx, double p0_pa, double h0_j_kg,
                                         pcs_thnet_choke *out);

/**
 * Saturated liquid and vapour at p from IF97: regions 1 and 2 at T_sat(p)
 * (pcs_water_tsat). @p ctx is unused. Errors: PCS_E_INVAL for a NULL @p out,
 * a p without a saturation temperature (outside 611.213 Pa..22.064 MPa) or
 * T_sat above region 1's 623.15 K (p > 16.529 MPa). Thread-safe (pure).
 */
PCS_API pcs_status pcs_thnet_sat_if97(void *ctx, double p_pa, pcs_thnet_sat *out);

/**
 * pcs_thnet_sat_if97 read from the saturation-line table of
 * pcs_thnet_choke_table (cubic in ln p between IF97 nodes: h within 1e-8
 * relative, rho within 2e-8, tests/test_thnet_hem_table.c) inside the
 * table, 1 kPa < p <= p_sat(623.15 K); pcs_thnet_sat_if97 elsewhere. About
 * 150 instructions against the IF97 path's ~1,000 (bench/README.md). @p ctx
 * is unused. Thread-safe (pure, constant data).
 */
PCS_API pcs_status pcs_thnet_sat_table(void *ctx, double p_pa, pcs_thnet_sat *out);

/** The IF97 callbacks as one eos (ctx NULL, no rho callback). */
PCS_API pcs_thnet_eos pcs_thnet_eos_if97(void);

/**
 * Properties from a (p, h) table (pcsim/water_ph.h), @p ctx the
 * pcs_water_ph_table (read only, never freed here): rho, T, x, alpha and
 * the analytic drho/dp, drho/dh of pcs_water_ph_table_lookup, within the
 * bounds stated there. Viscosity as pcs_thnet_props_if97 (IAPWS R12-08 at
 * the table's rho and T; McAdams in the dome of mu' and mu'', R12-08 at
 * IF97's saturated phases, from the saturation table of
 * pcs_thnet_choke_table (within 5e-8); the mixture at its own rho and T
 * above 16.529 MPa (T_sat > 623.15 K), as the IF97 path does). Quality and void follow
 * pcs_thnet_props_if97's convention outside the dome (1 for vapour and for supercritical states
 * below the critical density). Domain: the table's (1 kPa-31 MPa, 273.16-1073.15 K); outside
 * PCS_E_INVAL (the inversion treats it as a refused point).
 */
PCS_API pcs_status pcs_thnet_props_table(void *ctx, double p_pa, double h_j_kg,
                                         pcs_thnet_props *out);

/**
 * The lean table callback (pcs_thnet_rho_fn) on pcs_water_ph_table_rho:
 * rho, T, drho/dp, drho/dh, bit-identical to pcs_thnet_props_table's.
 */
PCS_API pcs_status pcs_thnet_rho_table(void *ctx, double p_pa, double h_j_kg, pcs_thnet_props *out);

/**
 * The table as one eos: props and rho from @p table, critical flow from
 * pcs_thnet_choke_table (the (p, h) table holds no entropy; the HEM
 * isentrope's saturation line has its own table, IF97 outside the dome).
 */
PCS_API pcs_thnet_eos pcs_thnet_eos_table(const pcs_water_ph_table *table);

/**
 * State from (rho, u): the (p, h) with rho(p, h) = rho and h - p/rho = u,
 * by safeguarded Newton in p on rho(p, u + p/rho) - rho (|dp| <= 1e-12 p at
 * exit), iterating on eos->rho when set (else eos->props), then one
 * eos->props at the result. @p p_guess_pa starts the iteration (<= 0:
 * 10 MPa). On success *props holds the properties at the result.
 *
 * Through the tables the inversion is exact on the table's rho(p, h) to the
 * same 1e-12 in p (the Newton slope is the table's interpolated drho/dp +
 * drho/dh / rho, not the derivative of its interpolated rho: they differ by
 * the derivative bounds of water_ph.h, so Newton converges linearly at that
 * ratio, 5e-5 per iteration below 16.53 MPa, and still reaches 1e-12). Its
 * error against IF97 is then the table's density error seen through the
 * EOS: |dp| <= e_rho rho / (drho/dp)_u, (drho/dp)_u = drho/dp + drho/dh / rho
 * (about 3.5 kPa for 15.5 MPa, 565 K liquid at e_rho = 5e-6; a few Pa in
 * the dome, where the mixture is far more compressible).
 */
PCS_API pcs_status pcs_thnet_state_rho_u(const pcs_thnet_eos *eos, double rho_kg_m3, double u_j_kg,
                                         double p_guess_pa, double *p_pa, double *h_j_kg,
                                         pcs_thnet_props *props);

/* ------------------------------------------------------------------------ */
/* Topology                                                                  */
/* ------------------------------------------------------------------------ */

/** A control volume. Start from pcs_thnet_volume_default. */
typedef struct pcs_thnet_volume_def {
    double volume_m3;   /**< > 0 (a boundary's volume is unused); default 1 */
    double elevation_m; /**< centre elevation; default 0 */
    double diameter_m;  /**< hydraulic diameter, > 0; default 0.1 (for the record) */
    int boundary;       /**< 1: fixed (p, h), takes or gives any mass; default 0 */
    double p_pa;        /**< initial (boundary: fixed) pressure, Pa; default 15.5e6 */
    double h_j_kg;      /**< initial (boundary: fixed) specific enthalpy; default 1.3e6 */
} pcs_thnet_volume_def;

/** Wall friction of a junction. */
typedef enum pcs_thnet_friction {
    PCS_THNET_FRICTION_HAALAND = 0, /**< Haaland from roughness and Re (default) */
    PCS_THNET_FRICTION_FIXED = 1,   /**< the fixed Darcy factor `friction` */
    PCS_THNET_FRICTION_NONE = 2,    /**< no wall friction (form loss only) */
} pcs_thnet_friction;

/**
 * What a junction takes from a two-phase `from` volume while that volume is
 * its donor (forward flow): the mixture (homogeneous, the default), or one
 * saturated phase, h_g or h_f at the volume's start-of-step pressure (IF97
 * saturation), like RELAP5's separator outlets: a perfect separator's steam
 * and liquid offtakes, a pressurizer's steam-space relief. The phase's
 * enthalpy replaces the mixture's in the donor-cell transport and in the
 * pressure solve (mass, and so the balance, are unchanged: the energy
 * carried is W' h_phase on both sides); a choked offtake's critical flow is
 * the phase's. Outside the dome, or with the `to` side the donor, the
 * mixture's h as usual.
 *
 * With offtake_band b > 0 the offtake runs out of its phase continuously
 * instead of switching at the saturation line (the form of RELAP5's simple
 * separator, its VOVER / VUNDER: the outlet junction's void fraction is
 * alpha / VOVER on the steam outlet and 1 - (1 - alpha) / VUNDER on the
 * liquid fall-back below those fractions): while the donor's fraction of
 * the offtake's phase (alpha for vapour, 1 - alpha for liquid) is at least
 * b the junction takes that phase alone; below, the junction's phase
 * fraction is the donor's over b, so the junction's void alpha_j goes
 * linearly to the donor's as the phase runs out, and the enthalpy carried
 * is the saturated mixture's at alpha_j (flow quality x_j = alpha_j rho_g /
 * (alpha_j rho_g + (1 - alpha_j) rho_f)). At b = 0 (the default) the phase
 * is taken until the donor leaves the dome (the step from h_f to the
 * mixture's h as a dome dries out is then a discontinuity the start-of-step
 * linearisation does not see).
 */
typedef enum pcs_thnet_offtake {
    PCS_THNET_OFFTAKE_MIXTURE = 0, /**< the donor's h (default) */
    PCS_THNET_OFFTAKE_VAPOUR = 1,  /**< h_g of a two-phase donor */
    PCS_THNET_OFFTAKE_LIQUID = 2,  /**< h_f of a two-phase donor */
} pcs_thnet_offtake;

/** A junction (pipe, valve, pump or break). Start from pcs_thnet_junction_default. */
typedef struct pcs_thnet_junction_def {
    uint32_t from, to;                 /**< volume indices, different */
    double area_m2;                    /**< flow area, > 0; default 0.01 */
    double length_m;                   /**< inertia length, > 0; default 1 */
    double diameter_m;                 /**< hydraulic diameter; 0 (default): sqrt(4 A / pi) */
    double form_loss;                  /**< form-loss coefficient K >= 0 on A; default 0 */
    pcs_thnet_friction friction_model; /**< default PCS_THNET_FRICTION_HAALAND */
    double friction;                   /**< Darcy f >= 0 for PCS_THNET_FRICTION_FIXED; default 0 */
    double roughness_m;                /**< wall roughness for Haaland, >= 0; default 0 (smooth) */
    double elevation_m;                /**< junction elevation; NaN (default): midway */
    double valve;                      /**< initial opening [0, 1]; default 1 */
    int choked;                        /**< 1: HEM choked-flow limit (a break); default 0 */
    double discharge;                  /**< discharge coefficient on Gc, (0, 1]; default 1 */
    double flow_kg_s;                  /**< initial flow; default 0 */
    pcs_thnet_offtake offtake;         /**< phase taken from a two-phase `from` volume;
                                            default PCS_THNET_OFFTAKE_MIXTURE */
    double offtake_band;               /**< [0, 1): the donor's phase fraction below which a phase
                                            offtake carries the other phase too (above); default 0 */
} pcs_thnet_junction_def;

/** A whole network. */
typedef struct pcs_thnet_def {
    const pcs_thnet_volume_def *volumes;
    uint32_t n_volumes; /**< [1, PCS_THNET_MAX_VOLUMES] */
    const pcs_thnet_junction_def *junctions;
    uint32_t n_junctions; /**< [0, PCS_THNET_MAX_JUNCTIONS] */
    pcs_thnet_eos eos;
    double gravity_m_s2; /**< default PCS_THNET_G */
} pcs_thnet_def;

/** Defaults: see the field comments. PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_thnet_volume_default(pcs_thnet_volume_def *v);
PCS_API pcs_status pcs_thnet_junction_default(pcs_thnet_junction_def *j);
/** Defaults: no volumes, IF97 eos, standard gravity. */
PCS_API pcs_status pcs_thnet_default(pcs_thnet_def *d);

/* ------------------------------------------------------------------------ */
/* State: plain arrays the caller may own                                    */
/* ------------------------------------------------------------------------ */

/**
 * Per-volume and per-junction arrays. mass_kg, energy_j and flow_kg_s are
 * the state; the others are derived from (M, U) by the EOS, kept so the
 * next step's Newton starts from them (save them too for a bit-identical
 * restart). Boundary volumes hold their fixed state (mass and energy of
 * V rho, unused).
 */
typedef struct pcs_thnet_state {
    double *mass_kg;       /**< [n_volumes] M */
    double *energy_j;      /**< [n_volumes] U = M u */
    double *flow_kg_s;     /**< [n_junctions] W */
    double *p_pa;          /**< [n_volumes] derived */
    double *h_j_kg;        /**< [n_volumes] derived */
    double *t_k;           /**< [n_volumes] derived */
    double *rho_kg_m3;     /**< [n_volumes] derived */
    double *quality;       /**< [n_volumes] derived */
    double *void_fraction; /**< [n_volumes] derived */
    /** [n_volumes] optional transported scalar per kg of fluid (file comment);
     *  NULL: none. A boundary volume's entry is the concentration it gives.
     *  Caller-owned and not part of pcs_thnet_state_bytes: pcs_thnet_state_bind
     *  sets it to NULL. */
    double *scalar;
} pcs_thnet_state;

/** Inputs of one step; any pointer may be NULL (zero / the definitions). */
typedef struct pcs_thnet_inputs {
    const double *heat_w;     /**< [n_volumes] heat added, W */
    const double *pump_dp_pa; /**< [n_junctions] pump head S_j, Pa */
    const double *valve;      /**< [n_junctions] opening [0, 1] */
    /** [n_volumes] external mass source, kg/s, + in, - out (file comment);
     *  boundary volumes' entries are ignored. */
    const double *source_kg_s;
    /** [n_volumes] enthalpy of an inflowing source, J/kg (an outflow leaves
     *  at its volume's enthalpy); required with a positive source. */
    const double *source_h_j_kg;
    /** [n_volumes] scalar concentration of an inflowing source (an outflow
     *  leaves at its volume's); NULL: 0. Used only with state.scalar. */
    const double *source_scalar;
} pcs_thnet_inputs;

/** What a step did. */
typedef struct pcs_thnet_report {
    double courant_max;          /**< largest dt sum_out W / M */
    uint32_t courant_volume;     /**< where */
    uint32_t n_choked;           /**< junctions at their critical flow */
    double rcond;                /**< KLU reciprocal condition estimate */
    uint32_t full_factor;        /**< 1 if the step re-pivoted (allocates) */
    double heat_in_j;            /**< dt sum Q */
    double pump_work_j;          /**< dt sum S W / rho */
    double boundary_mass_in_kg;  /**< into the network from boundary volumes */
    double boundary_energy_in_j; /**< enthalpy carried in from boundary volumes */
    double source_mass_in_kg;    /**< dt sum S (external sources, + in) */
    double source_energy_in_j;   /**< dt sum S h_s */
    double boundary_scalar_in;   /**< scalar mass (C x kg) into the network from boundaries */
    double source_scalar_in;     /**< scalar mass (C x kg) from the sources, + in */
    uint32_t substeps;           /**< 1, or the sub-steps a retry took (file comment) */
} pcs_thnet_report;

typedef struct pcs_thnet pcs_thnet;

/**
 * Check @p def and build a network (its own copy of the definition, the CSC
 * pattern, KLU's analysis and a first factorisation at the initial state).
 * @return PCS_E_INVAL naming the bad field, PCS_E_NOMEM, PCS_E_NUMERIC (an
 *         initial (p, h) outside the EOS), PCS_E_STATE (singular pattern).
 */
PCS_API pcs_status pcs_thnet_create(const pcs_thnet_def *def, pcs_thnet **out);

/** Free a network. NULL is allowed. */
PCS_API void pcs_thnet_destroy(pcs_thnet *net);

PCS_API uint32_t pcs_thnet_n_volumes(const pcs_thnet *net);
PCS_API uint32_t pcs_thnet_n_junctions(const pcs_thnet *net);

/** Bytes of one state's arrays (for pcs_thnet_state_bind). */
PCS_API size_t pcs_thnet_state_bytes(const pcs_thnet *net);

/**
 * Point @p s's arrays into @p mem (pcs_thnet_state_bytes(net) bytes, aligned
 * for double). The caller owns the memory.
 */
PCS_API pcs_status pcs_thnet_state_bind(const pcs_thnet *net, void *mem, size_t bytes,
                                        pcs_thnet_state *s);

/** Fill @p s from the definitions' initial (p, h) and flows. */
PCS_API pcs_status pcs_thnet_state_init(const pcs_thnet *net, pcs_thnet_state *s);

/**
 * Recompute the derived arrays from (M, U), starting Newton from s->p_pa
 * (values <= 0 start at 10 MPa). For a state loaded from elsewhere.
 */
PCS_API pcs_status pcs_thnet_state_update(const pcs_thnet *net, pcs_thnet_state *s);

/**
 * Whether volume @p volume can hold @p mass_kg and @p energy_j: the
 * equation of state has a (p, h) for its density M / V and internal energy
 * U / M (pcs_thnet_state_rho_u, Newton from @p p_guess_pa), as every step
 * needs. For a state read from elsewhere (a save's staged values) before it
 * is accepted. A boundary volume (its state fixed by its definition) is
 * PCS_OK. Const: changes nothing in @p net. @return PCS_OK; PCS_E_NUMERIC
 * with the EOS's message when no state exists (or M <= 0, U not finite);
 * PCS_E_INVAL for NULL or a volume out of range. Thread-safety: reads only.
 */
PCS_API pcs_status pcs_thnet_volume_check(const pcs_thnet *net, uint32_t volume, double mass_kg,
                                          double energy_j, double p_guess_pa);

/**
 * One semi-implicit step of @p dt seconds (0 < dt <= 10). No allocation
 * unless the report's full_factor is set. On error the state may be
 * partially advanced (the caller keeps a copy if it needs to retry).
 * @p report may be NULL.
 */
PCS_API pcs_status pcs_thnet_step(pcs_thnet *net, pcs_thnet_state *s, const pcs_thnet_inputs *in,
                                  double dt, pcs_thnet_report *report);

/**
 * Move boundary volume @p volume to a new fixed state (p, h), e.g. a
 * pressurizer kernel's pressure and liquid enthalpy each step; the next
 * step uses it (its props are re-evaluated there). The state arrays keep
 * the boundary's old derived values until the next step or update.
 * @return PCS_E_INVAL (NULL, @p volume out of range or not a boundary,
 *         p not in (0, 1e9) Pa, h not finite), naming the volume and value.
 */
PCS_API pcs_status pcs_thnet_boundary_set(pcs_thnet *net, uint32_t volume, double p_pa,
                                          double h_j_kg);

/**
 * Disconnect (@p connected 0) or connect again junction @p j (file comment,
 * "Connection"). Sets s->flow_kg_s[j] to 0 when @p s is given (either way:
 * a reconnected junction starts from rest). A call that does not change the
 * junction's connection changes nothing else. Allocates (KLU) when the
 * matrix pattern changes, and only then: call it between steps, on the
 * tick of the change.
 * @return PCS_E_INVAL (NULL network, @p j out of range, naming it),
 *         PCS_E_STATE (KLU's analysis or factorisation of the new pattern
 *         failed, out of memory included: the network cannot step again).
 */
PCS_API pcs_status pcs_thnet_junction_connect(pcs_thnet *net, pcs_thnet_state *s, uint32_t j,
                                              int connected);

/** Junction @p j's definition as the network holds it (its volumes, geometry).
 *  @return PCS_E_INVAL (NULL, @p j out of range). */
PCS_API pcs_status pcs_thnet_junction_get(const pcs_thnet *net, uint32_t j,
                                          pcs_thnet_junction_def *out);

/** 1 when junction @p j is connected (0: disconnected, NULL, out of range). */
PCS_API int pcs_thnet_junction_connected(const pcs_thnet *net, uint32_t j);

/**
 * KLU work since create: @p analyses counts klu_analyze runs (1 at create,
 * +1 per connection change that changed the pattern), @p factors the full
 * numeric factorisations that followed them (the step's re-pivoting
 * factorisations are in its report, not here). Either may be NULL.
 */
PCS_API void pcs_thnet_klu_counts(const pcs_thnet *net, uint64_t *analyses, uint64_t *factors);

/** Total mass and internal energy of the non-boundary volumes. */
PCS_API void pcs_thnet_totals(const pcs_thnet *net, const pcs_thnet_state *s, double *mass_kg,
                              double *energy_j);

/**
 * The choked-flow state of junction @p j at the start of the last step
 * (all zero if it has no choked model or was not choked).
 */
PCS_API pcs_status pcs_thnet_junction_choke(const pcs_thnet *net, uint32_t j, pcs_thnet_choke *out,
                                            int *choked);

#ifdef __cplusplus
}
#endif

#endif
