/**
 * @file water.h
 * @brief Water and steam properties from IAPWS-IF97, and a fast table for the
 *        compressed-liquid hot loop.
 *
 * Sources (equation and table numbers in the comments of physics/ refer to these):
 * - IAPWS R7-97(2012), "Revised Release on the IAPWS Industrial Formulation 1997
 *   for the Thermodynamic Properties of Water and Steam" (regions 1-5, the
 *   saturation line, boundaries B23 and B2bc, backward equations T(p,h) and
 *   T(p,s) of regions 1 and 2).
 * - IAPWS SR3-03(2014), "Revised Supplementary Release on Backward Equations for
 *   the Functions T(p,h), v(p,h) and T(p,s), v(p,s) for Region 3" (region 3
 *   backward equations, boundary h_3ab(p), saturation pressures p_3sat(h) and
 *   p_3sat(s)).
 * - IAPWS R12-08 (viscosity, Formulation 2008) and R15-11 (thermal
 *   conductivity, Formulation 2011), both without critical enhancement.
 *
 * Units: everything is SI - Pa, K, J/kg, J/(kg K), kg/m3, m3/kg, m/s. (The
 * releases use MPa and kJ/kg; conversion happens inside.)
 *
 * Regions (R7-97 Fig. 1), with p the pressure and T the temperature:
 * - 1: compressed liquid, 273.15 K <= T <= 623.15 K, p_sat(T) <= p <= 100 MPa.
 * - 2: vapour, 273.15 K <= T <= 1073.15 K, 0 < p <= p_sat(T) below 623.15 K,
 *      0 < p <= p_B23(T) from 623.15 K to 863.15 K, p <= 100 MPa above.
 * - 3: near-critical, 623.15 K <= T <= T_B23(p), p_B23(T) <= p <= 100 MPa;
 *      its basic equation is in density and temperature.
 * - 4: the saturation line (two-phase states in (p,h) or (p,s)).
 * - 5: high-temperature steam, 1073.15 K < T <= 2273.15 K, 0 < p <= 50 MPa.
 *
 * Errors: every function returns PCS_OK or PCS_E_INVAL (a NULL output pointer,
 * a non-finite input, or an input outside the stated range; the message names
 * the function, the parameter, its value and the allowed range). On error the
 * outputs are left untouched; no function ever returns NaN or infinity. (Table
 * creation may also return PCS_E_NOMEM or PCS_E_STATE, as documented there.)
 *
 * Thread-safety: all functions are pure and may be called from any thread
 * concurrently; a pcs_water_table is read-only after creation. The error
 * message is thread-local (status.h). Nothing here allocates except
 * pcs_water_table_create / pcs_water_table_add.
 *
 * Accuracy: the forward equations reproduce the releases' verification tables
 * to their 9 printed digits (tests/test_if97.c). The backward equations are
 * the releases' polynomials; they agree with the forward equations within the
 * releases' tolerated inconsistency (|dT| <= 25 mK; 10 mK in sub-regions 2a,
 * 2b). The
 * dispatching functions pcs_water_t_ph / pcs_water_t_ps refine the backward
 * value with Newton steps on the forward equation, so their result is
 * consistent with pcs_water_props_pt to about 1e-10 K - except within a few
 * mK of the region 1/3 boundary (623.15 K) and of B23, where the neighbouring
 * regions' equations themselves differ by up to ~4 mK at equal (p, h); there
 * the round trip T -> h -> T is good to 5 mK.
 */
#ifndef PCSIM_WATER_H
#define PCSIM_WATER_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Only pcs_water_table_add names a world, so the type is declared here
   instead of including world.h: the IF97 kernels that include this header
   stay free of world headers (tools/archcheck.sh kernel-pure). The same
   typedef as world.h's, which C11 allows twice. */
typedef struct pcs_world pcs_world;

/** Specific gas constant of IF97, J/(kg K) (R7-97 Eq. 1). */
#define PCS_IF97_R 461.526
/** Critical temperature, K (R7-97 Eq. 2). */
#define PCS_IF97_TC_K 647.096
/** Critical pressure, Pa (R7-97 Eq. 3). */
#define PCS_IF97_PC_PA 22.064e6
/** Critical density, kg/m3 (R7-97 Eq. 4). */
#define PCS_IF97_RHOC_KG_M3 322.0
/** Lowest temperature of the formulation, K. */
#define PCS_IF97_T_MIN_K 273.15
/** Highest temperature of the formulation (region 5), K. */
#define PCS_IF97_T_MAX_K 2273.15
/** Highest pressure of regions 1-3, Pa (region 5: 50 MPa). */
#define PCS_IF97_P_MAX_PA 100e6

/** Thermodynamic state and properties at one point. */
typedef struct pcs_water_props {
    int region;       /**< IF97 region: 1, 2, 3, 4 (two-phase mixture) or 5 */
    double p_pa;      /**< pressure, Pa */
    double t_k;       /**< temperature, K */
    double rho_kg_m3; /**< density, kg/m3 (mixture density in region 4) */
    double v_m3_kg;   /**< specific volume, m3/kg */
    double h_j_kg;    /**< specific enthalpy, J/kg */
    double u_j_kg;    /**< specific internal energy, J/kg */
    double s_j_kg_k;  /**< specific entropy, J/(kg K) */
    double cp_j_kg_k; /**< isobaric heat capacity, J/(kg K); 0 in region 4 (undefined) */
    double cv_j_kg_k; /**< isochoric heat capacity, J/(kg K); 0 in region 4 (undefined) */
    double w_m_s;     /**< speed of sound, m/s; 0 in region 4 (undefined) */
    double quality;   /**< vapour mass fraction in region 4, [0, 1]; -1 outside region 4 */
} pcs_water_props;

/* ------------------------------------------------------------------------ */
/* Saturation line (region 4) and region boundaries                          */
/* ------------------------------------------------------------------------ */

/**
 * Saturation pressure p_sat(T), R7-97 Eq. 30.
 * @param t_k  temperature, K, in [273.15, 647.096].
 * @param p_pa out: saturation pressure, Pa.
 */
PCS_API pcs_status pcs_water_psat(double t_k, double *p_pa);

/**
 * Saturation temperature T_sat(p), R7-97 Eq. 31.
 * @param p_pa pressure, Pa, in [611.212677, 22.064e6] (p_sat(273.15 K) to p_c).
 * @param t_k  out: saturation temperature, K.
 */
PCS_API pcs_status pcs_water_tsat(double p_pa, double *t_k);

/**
 * Boundary between regions 2 and 3, p_B23(T), R7-97 Eq. 5.
 * @param t_k  temperature, K, in [623.15, 863.15].
 * @param p_pa out: pressure on the boundary, Pa.
 */
PCS_API pcs_status pcs_if97_b23_p(double t_k, double *p_pa);

/**
 * Boundary between regions 2 and 3, T_B23(p), R7-97 Eq. 6.
 * @param p_pa pressure, Pa, in [16.5291643e6, 100e6].
 * @param t_k  out: temperature on the boundary, K.
 */
PCS_API pcs_status pcs_if97_b23_t(double p_pa, double *t_k);

/**
 * Boundary between sub-regions 2b and 2c, p_2bc(h), R7-97 Eq. 20.
 * @param h_j_kg specific enthalpy, J/kg, in [2.778e6, 3.516004323e6]
 *               (the boundary runs from 6.546 MPa to 100 MPa).
 * @param p_pa   out: pressure on the boundary, Pa.
 */
PCS_API pcs_status pcs_if97_b2bc_p(double h_j_kg, double *p_pa);

/* ------------------------------------------------------------------------ */
/* Region equations (the caller knows the region)                            */
/* ------------------------------------------------------------------------ */
/*
 * These evaluate one region's equation. They check the rectangle of the
 * region (temperature and pressure limits) but not on which side of the
 * saturation line or of B23 the point lies: the equations continue smoothly a
 * little beyond their region (into metastable states), and the verification
 * tables of the releases contain such points. Use pcs_water_* below to have
 * the region chosen for you.
 */

/**
 * Region 1 (R7-97 Eq. 7, Tables 2-4): all properties at (p, T).
 * @param p_pa pressure, Pa, in (0, 100e6].
 * @param t_k  temperature, K, in [273.15, 623.15].
 * @param out  out: properties; region = 1, quality = -1.
 */
PCS_API pcs_status pcs_if97_region1(double p_pa, double t_k, pcs_water_props *out);

/**
 * Region 2 (R7-97 Eq. 15-17, Tables 10-13): all properties at (p, T).
 * @param p_pa pressure, Pa, in (0, 100e6].
 * @param t_k  temperature, K, in [273.15, 1073.15].
 * @param out  out: properties; region = 2, quality = -1.
 */
PCS_API pcs_status pcs_if97_region2(double p_pa, double t_k, pcs_water_props *out);

/**
 * Region 3 (R7-97 Eq. 28, Tables 30-31): all properties at (rho, T).
 * @param rho_kg_m3 density, kg/m3, in (0, 1000].
 * @param t_k       temperature, K, in [623.15, 863.15].
 * @param out       out: properties including the pressure; region = 3.
 */
PCS_API pcs_status pcs_if97_region3(double rho_kg_m3, double t_k, pcs_water_props *out);

/**
 * Region 5 (R7-97(2012) Eq. 32-34, Tables 37-40, the 2007 revision): all
 * properties at (p, T).
 * @param p_pa pressure, Pa, in (0, 50e6].
 * @param t_k  temperature, K, in [1073.15, 2273.15].
 * @param out  out: properties; region = 5, quality = -1.
 */
PCS_API pcs_status pcs_if97_region5(double p_pa, double t_k, pcs_water_props *out);

/**
 * Region 1 backward equation T(p,h), R7-97 Eq. 11, Table 6. Consistent with
 * the forward equation within 25 mK.
 * @param p_pa   pressure, Pa, in (0, 100e6].
 * @param h_j_kg specific enthalpy, J/kg, in [-1e4, 1.7e6] (h at 623.15 K, 100 MPa
 *               is 1.634e6).
 * @param t_k    out: temperature, K.
 */
PCS_API pcs_status pcs_if97_region1_t_ph(double p_pa, double h_j_kg, double *t_k);

/**
 * Region 1 backward equation T(p,s), R7-97 Eq. 13, Table 8.
 * @param p_pa     pressure, Pa, in (0, 100e6].
 * @param s_j_kg_k specific entropy, J/(kg K), in [-100, 3.8e3].
 * @param t_k      out: temperature, K.
 */
PCS_API pcs_status pcs_if97_region1_t_ps(double p_pa, double s_j_kg_k, double *t_k);

/**
 * Region 2 backward equation T(p,h), R7-97 Eq. 22-24, Tables 20-22. Selects
 * sub-region 2a (p <= 4 MPa), 2b or 2c (by B2bc, Eq. 20).
 * @param p_pa   pressure, Pa, in (0, 100e6].
 * @param h_j_kg specific enthalpy, J/kg, in [2.0e6, 4.2e6].
 * @param t_k    out: temperature, K.
 */
PCS_API pcs_status pcs_if97_region2_t_ph(double p_pa, double h_j_kg, double *t_k);

/**
 * Region 2 backward equation T(p,s), R7-97 Eq. 25-27, Tables 25-27. Selects
 * sub-region 2a (p <= 4 MPa), 2b (s >= 5.85 kJ/(kg K)) or 2c.
 * @param p_pa     pressure, Pa, in (0, 100e6].
 * @param s_j_kg_k specific entropy, J/(kg K), in [5.0e3, 12.0e3].
 * @param t_k      out: temperature, K.
 */
PCS_API pcs_status pcs_if97_region2_t_ps(double p_pa, double s_j_kg_k, double *t_k);

/**
 * Region 3 backward equations T(p,h) and v(p,h), SR3-03 Eq. 2-5, Tables 3, 4, 6, 7;
 * sub-region 3a if h <= h_3ab(p) (Eq. 1), else 3b.
 * @param p_pa   pressure, Pa, in [16.5e6, 100e6].
 * @param h_j_kg specific enthalpy, J/kg, in [1.5e6, 2.9e6].
 * @param t_k    out (may be NULL): temperature, K.
 * @param v_m3_kg out (may be NULL): specific volume, m3/kg.
 */
PCS_API pcs_status pcs_if97_region3_tv_ph(double p_pa, double h_j_kg, double *t_k, double *v_m3_kg);

/**
 * Region 3 backward equations T(p,s) and v(p,s), SR3-03 Eq. 6-9, Tables
 * 10, 11, 13, 14; sub-region 3a if s <= s_c = 4.41202148223476 kJ/(kg K), else 3b.
 * @param p_pa     pressure, Pa, in [16.5e6, 100e6].
 * @param s_j_kg_k specific entropy, J/(kg K), in [3.2e3, 5.3e3].
 * @param t_k      out (may be NULL): temperature, K.
 * @param v_m3_kg  out (may be NULL): specific volume, m3/kg.
 */
PCS_API pcs_status pcs_if97_region3_tv_ps(double p_pa, double s_j_kg_k, double *t_k,
                                          double *v_m3_kg);

/**
 * Saturation pressure in region 3 as a function of enthalpy, p_3sat(h),
 * SR3-03 Eq. 10.
 * @param h_j_kg specific enthalpy, J/kg, in [h'(623.15 K), h''(623.15 K)]
 *               = [1.6708582183e6, 2.5635920039e6] (computed with R7-97).
 * @param p_pa   out: saturation pressure, Pa.
 */
PCS_API pcs_status pcs_if97_p3sat_h(double h_j_kg, double *p_pa);

/**
 * Saturation pressure in region 3 as a function of entropy, p_3sat(s),
 * SR3-03 Eq. 11.
 * @param s_j_kg_k specific entropy, J/(kg K), in [s'(623.15 K), s''(623.15 K)]
 *                 = [3.7782813395e3, 5.2108878249e3].
 * @param p_pa     out: saturation pressure, Pa.
 */
PCS_API pcs_status pcs_if97_p3sat_s(double s_j_kg_k, double *p_pa);

/* ------------------------------------------------------------------------ */
/* Region-dispatching functions                                              */
/* ------------------------------------------------------------------------ */

/**
 * The IF97 region of (p, T): 1, 2, 3 or 5. A point exactly on the saturation
 * line (T = T_sat(p) within rounding) belongs to region 1 if p >= p_sat(T) as
 * computed, else region 2; (p, T) alone cannot describe a two-phase state.
 * @param p_pa   pressure, Pa, in (0, 100e6] (in (0, 50e6] above 1073.15 K).
 * @param t_k    temperature, K, in [273.15, 2273.15].
 * @param region out: region number.
 */
PCS_API pcs_status pcs_water_region_pt(double p_pa, double t_k, int *region);

/**
 * All properties at (p, T) in whatever region the point lies. Region 3 needs
 * the density that matches p: it is found from the SR3-03 backward equations
 * and refined by Newton on the region 3 equation to |dp/p| < 1e-12; within
 * 0.01 K of the critical temperature at near-critical pressure this may fail
 * with PCS_E_INVAL ("no convergence"), because dp/drho vanishes there.
 * @param p_pa pressure, Pa; t_k temperature, K: ranges as pcs_water_region_pt.
 * @param out  out: properties, quality = -1.
 */
PCS_API pcs_status pcs_water_props_pt(double p_pa, double t_k, pcs_water_props *out);

/**
 * Specific enthalpy h(p, T), J/kg, in regions 1, 2, 3 and 5: the hot-path
 * version of pcs_water_props_pt (regions 1, 2 and 5 compute only the one
 * derivative they need). Ranges as pcs_water_region_pt.
 */
PCS_API pcs_status pcs_water_h_pt(double p_pa, double t_k, double *h_j_kg);

/** Density rho(p, T), kg/m3; as pcs_water_h_pt. */
PCS_API pcs_status pcs_water_rho_pt(double p_pa, double t_k, double *rho_kg_m3);

/**
 * Temperature from pressure and enthalpy, T(p,h), in regions 1, 2, 3 and the
 * two-phase region (where it is T_sat(p)). The region is chosen from the
 * saturation line (region 4 Eq. 31, and p_3sat(h) of SR3-03 in region 3),
 * B23 and the 623.15 K isotherm; the backward equation's value is refined
 * with Newton steps on the forward equation (consistency ~1e-9 K).
 * @param p_pa   pressure, Pa, in (0, 100e6].
 * @param h_j_kg specific enthalpy, J/kg, from h(p, 273.15 K) to h(p, 1073.15 K)
 *               (region 5 is not inverted).
 * @param t_k    out: temperature, K.
 */
PCS_API pcs_status pcs_water_t_ph(double p_pa, double h_j_kg, double *t_k);

/**
 * Temperature from pressure and entropy, T(p,s); as pcs_water_t_ph with s in
 * J/(kg K) from s(p, 273.15 K) to s(p, 1073.15 K).
 */
PCS_API pcs_status pcs_water_t_ps(double p_pa, double s_j_kg_k, double *t_k);

/**
 * All properties from pressure and enthalpy. In the two-phase region the
 * result is the mixture: region = 4, t_k = T_sat(p), quality x in [0, 1],
 * v = (1-x) v' + x v'', h, u, s likewise, cp = cv = w = 0 (undefined).
 * Ranges as pcs_water_t_ph; region 3 two-phase states (p > 16.53 MPa) give the
 * saturated phases from the region 3 equation (Newton at T_sat(p)).
 */
PCS_API pcs_status pcs_water_props_ph(double p_pa, double h_j_kg, pcs_water_props *out);

/* ------------------------------------------------------------------------ */
/* Transport properties                                                      */
/* ------------------------------------------------------------------------ */

/**
 * Dynamic viscosity, IAPWS R12-08 (Formulation 2008) Eq. 10-12 with the
 * critical enhancement mu2 = 1 (R12-08 Sec. 2.8: it matters only very near
 * the critical point; this is the release's recommended industrial use).
 * Verified against R12-08 Table 4 (tests/test_water_transport.c).
 * @param rho_kg_m3 density, kg/m3, in [0, 1250] (from pcs_water_rho_pt or a table).
 * @param t_k       temperature, K, in [273.15, 1173.15].
 * @param mu_pa_s   out: viscosity, Pa s.
 */
PCS_API pcs_status pcs_water_viscosity(double rho_kg_m3, double t_k, double *mu_pa_s);

/**
 * Thermal conductivity, IAPWS R15-11 (Formulation 2011) Eq. 15-17 with the
 * critical enhancement lambda2 = 0. Verified against R15-11 Table 4
 * (lambda2 = 0 rows). Without lambda2 it is low near the critical region:
 * against the industrial check values that include lambda2 it is 2.6 % low
 * at 620 K, 20 MPa, 1.1 % at 620 K, 50 MPa, 3.7 % at 800 K, 50 MPa and exact
 * at 650 K, 0.3 MPa (tests/test_water_transport.c).
 * @param rho_kg_m3    density, kg/m3, in [0, 1250].
 * @param t_k          temperature, K, in [273.15, 1173.15].
 * @param lambda_w_m_k out: thermal conductivity, W/(m K).
 */
PCS_API pcs_status pcs_water_conductivity(double rho_kg_m3, double t_k, double *lambda_w_m_k);

/* ------------------------------------------------------------------------ */
/* Compressed-liquid table for the hot loop                                  */
/* ------------------------------------------------------------------------ */

/**
 * A bicubic Hermite table of the region 1 equation over a (p, T) rectangle,
 * and of its exact inverse T(p,h) over the matching (p, h) rectangle. Each
 * cell holds the 16 coefficients of its patch, computed at build from the IF97
 * values and derivatives at the cell corners, so a lookup is one cell index,
 * one saturation check and one 2-D Horner evaluation (no iteration, no
 * allocation, no transcendental call on the common path).
 *
 * Domain of the lookups: p_min <= p <= p_max, t_min <= T <= t_max, and
 * compressed liquid, p >= p_sat(T) (R7-97 Eq. 30). For T(p,h), h must lie in
 * the table's enthalpy range and the interpolated T must satisfy the same
 * conditions within 1e-4 K (so saturated liquid and the edges are accepted).
 * Points outside return PCS_E_INVAL naming the bound, so the caller can fall
 * back to pcs_water_* (e.g. for two-phase states).
 *
 * Error bound of the default configuration (p 0.1-22 MPa, T 273.15-620 K, 45 x
 * 175 (p,T) nodes and 45 x 100 (p,h) nodes, 2.5 MB), relative to the full IF97
 * region 1 equation and its exact inverse, asserted by
 * tests/test_water_table.c on 200 000 seeded random liquid points:
 *   h(p,T):   |dh| / max(|h|, 1e5 J/kg) <= PCS_WATER_TABLE_H_REL_ERR   (5e-7)
 *   rho(p,T): |drho| / rho               <= PCS_WATER_TABLE_RHO_REL_ERR (1e-6)
 *   T(p,h):   |dT| / T                   <= PCS_WATER_TABLE_T_REL_ERR   (5e-8)
 * (measured maxima: 2.0e-7, 4.3e-7, 1.3e-8, near the saturation line at
 * 15-16 MPa where cp rises towards the critical point; h is taken relative to
 * at least 100 kJ/kg because it passes through zero near the triple point.)
 * Other grids have other errors: the table measures its own at the cell
 * centres when it is built (pcs_water_table_error).
 *
 * Thread-safety: read-only after creation; any number of threads may look up.
 */
typedef struct pcs_water_table pcs_water_table;

/** Stated max relative error of h(p,T) for the default table (see above). */
#define PCS_WATER_TABLE_H_REL_ERR 5e-7
/** Stated max relative error of rho(p,T) for the default table. */
#define PCS_WATER_TABLE_RHO_REL_ERR 1e-6
/** Stated max relative error of T(p,h) for the default table. */
#define PCS_WATER_TABLE_T_REL_ERR 5e-8

/** Table extent and resolution. Start from pcs_water_table_default. */
typedef struct pcs_water_table_def {
    double p_min_pa; /**< lowest pressure, Pa; default 0.1e6; >= 611.212677 */
    double p_max_pa; /**< highest pressure, Pa; default 22e6; <= 100e6, > p_min */
    double t_min_k;  /**< lowest temperature, K; default 273.15; >= 273.15 */
    double t_max_k;  /**< highest temperature, K; default 620; <= 623.15, > t_min */
    uint32_t n_p;    /**< pressure nodes; default 45; [2, 4096] */
    uint32_t n_t;    /**< temperature nodes of h, rho; default 175; [2, 65536] */
    uint32_t n_h;    /**< enthalpy nodes of T(p,h); default 100; [2, 65536] */
} pcs_water_table_def;

/** Fill @p cfg with the defaults. PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_water_table_default(pcs_water_table_def *cfg);

/**
 * Build a table in one malloc'd block of pcs_water_table_bytes(cfg) bytes
 * (128 bytes per cell and function; 2.5 MB for the default). Building costs
 * about 0.1 s for the default grid (every node is evaluated nine times for
 * its derivatives, T(p,h) nodes by Newton on the forward equation); the build's
 * scratch memory is freed before return. Not for the tick: build once.
 * @return PCS_E_INVAL (bad config naming the field, NULL), PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_water_table_create(const pcs_water_table_def *cfg, pcs_water_table **out);

/** Free a table from pcs_water_table_create. NULL is allowed. */
PCS_API void pcs_water_table_destroy(pcs_water_table *t);

/**
 * Build a table in the world's build-time heap (pcs_world_alloc); it lives
 * until pcs_world_destroy and must not be passed to pcs_water_table_destroy.
 * @return PCS_E_INVAL, PCS_E_NOMEM, PCS_E_STATE (world already sealed).
 */
PCS_API pcs_status pcs_water_table_add(pcs_world *w, const pcs_water_table_def *cfg,
                                       pcs_water_table **out);

/** Bytes of memory a table with @p cfg needs (0 for an invalid config). */
PCS_API uint64_t pcs_water_table_bytes(const pcs_water_table_def *cfg);

/** h(p, T) from the table, J/kg. Domain and error: see pcs_water_table. */
PCS_API pcs_status pcs_water_table_h_pt(const pcs_water_table *t, double p_pa, double t_k,
                                        double *h_j_kg);

/** rho(p, T) from the table, kg/m3. */
PCS_API pcs_status pcs_water_table_rho_pt(const pcs_water_table *t, double p_pa, double t_k,
                                          double *rho_kg_m3);

/** T(p, h) from the table, K. */
PCS_API pcs_status pcs_water_table_t_ph(const pcs_water_table *t, double p_pa, double h_j_kg,
                                        double *t_k);

/**
 * The errors the table measured at build, max over all cell centres and edge
 * midpoints inside the liquid domain, with the same relative measures as the
 * stated bounds. Any pointer may be NULL.
 */
PCS_API pcs_status pcs_water_table_error(const pcs_water_table *t, double *h_rel, double *rho_rel,
                                         double *t_rel);

#ifdef __cplusplus
}
#endif

#endif
