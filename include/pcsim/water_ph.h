/**
 * @file water_ph.h
 * @brief Water and steam state from pressure and specific enthalpy (p, h):
 *        liquid, the two-phase dome (homogeneous equilibrium) and vapour,
 *        with the derivatives a pressure solve needs; an exact IF97 path and
 *        a fast table tested against it.
 *
 * Sources: IAPWS R7-97(2012) (IAPWS-IF97: regions 1, 2, 3, the saturation
 * equations 29-31 of region 4, boundary B23) and SR3-03(2014) (region 3
 * backward equations, used only as Newton starting points), through
 * pcsim/water.h. Conventions follow refdata/th_reference.md section 1:
 * saturated liquid and vapour are the single-phase equations at
 * (T_sat(p), p) (regions 1 and 2 below 16.529 MPa, region 3 above), and the
 * two-phase mixture is homogeneous and in equilibrium, so v, u and h are
 * linear in the mass quality x and u = h - p v everywhere.
 *
 * Domain: 1 kPa <= p <= 31 MPa and 273.16 K <= T <= 1073.15 K (the issue's
 * 273.16-1073 K, up to the top of IF97 region 2). At a given p that is
 * h(p, 273.16 K) <= h <= h(p, 1073.15 K), the ends computed with regions 1
 * and 2 (pcs_water_ph_h_range). Both paths refuse (p, h) outside it with
 * PCS_E_INVAL naming the parameter, its value and the range; the table does
 * not fall back to the exact path, because their domains are the same.
 *
 * Phases (pcs_water_ph_phase): below the critical pressure p_c = 22.064 MPa,
 * liquid for h <= h'(p), two-phase for h' < h < h'', vapour for h >= h''.
 * From p_c up the state is supercritical (one phase, no saturation line).
 *
 * Quality and void fraction (documented choice: clamped, never -1): inside
 * the dome x = (h - h')/(h'' - h') and alpha = x v''/v (homogeneous: both
 * phases move together, so the vapour volume fraction is x v''/v). Outside
 * it x and alpha are clamped: 0 for liquid and supercritical states, 1 for
 * vapour. The phase field tells a caller which case it has; a correlation
 * that needs the equilibrium quality of a subcooled state computes it from
 * pcs_water_tsat and the saturated enthalpies.
 *
 * Derivatives (drho_dp at constant h, drho_dh at constant p), the
 * linearised equation of state of a pressure solve:
 * - regions 1 and 2, analytic from the Gibbs function's second derivatives:
 *   with v_p = (dv/dp)_T, v_T = (dv/dT)_p, c_p and (dT/dp)_h = -(v - T v_T)/c_p,
 *   (dv/dh)_p = v_T/c_p, (dv/dp)_h = v_p + v_T (dT/dp)_h, drho = -rho^2 dv;
 * - region 3, analytic from the Helmholtz function: with the Jacobian of
 *   (p, h) in (rho, T), (drho/dp)_h = h_T/det, (drho/dh)_p = -p_T/det,
 *   det = p_rho h_T - p_T h_rho;
 * - two-phase, exact for the HEM mixture: v = v' + (h - h') C with
 *   C = (v'' - v')/(h'' - h'), so (dv/dh)_p = C and
 *   (dv/dp)_h = A + x B, A = dv'/dp - C dh'/dp, B = (dv''/dp - dv'/dp) -
 *   C (dh''/dp - dh'/dp), where d/dp is along the saturation line: the phase's
 *   (p, T) (or (rho, T)) derivatives plus dT_sat/dp, the latter the exact
 *   derivative of the region 4 equation (Eq. 29 differentiated implicitly),
 *   not Clapeyron's (IF97's saturation line is not exactly Clapeyron-consistent,
 *   th_reference.md section 1).
 * These are one-sided at the saturation lines (the dome's derivatives differ
 * from the single phase's: that jump is physical) and grow without bound at
 * the critical point, where (dp/drho)_T vanishes.
 *
 * Errors: PCS_E_INVAL for a NULL pointer, a non-finite input, an input
 * outside the domain (the message names function, parameter, value and
 * range), or a region 3 solve that fails: IF97's region 3 closes its
 * two-phase dome a few Pa below p_c (R7-97's region 3 meets Eq. 31 only
 * approximately at the critical point), so from about 5 Pa below p_c up to
 * p_c the exact path refuses; the table answers there from its cubics. On error the
 * output is left untouched. Nothing here allocates except
 * pcs_water_ph_table_create and pcs_water_ph_table_image_open (a header).
 */
#ifndef PCSIM_WATER_PH_H
#define PCSIM_WATER_PH_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Lowest pressure of the (p, h) domain, Pa. */
#define PCS_WATER_PH_P_MIN_PA 1e3
/** Highest pressure of the (p, h) domain, Pa. */
#define PCS_WATER_PH_P_MAX_PA 31e6
/** Lowest temperature of the domain, K (the triple point). */
#define PCS_WATER_PH_T_MIN_K 273.16
/** Highest temperature of the domain, K (top of IF97 region 2). */
#define PCS_WATER_PH_T_MAX_K 1073.15

/** Phase of a (p, h) state. */
typedef enum pcs_water_ph_phase {
    PCS_WATER_PH_LIQUID = 1,        /**< p < p_c, h <= h'(p) */
    PCS_WATER_PH_TWO_PHASE = 2,     /**< p < p_c, h'(p) < h < h''(p) */
    PCS_WATER_PH_VAPOUR = 3,        /**< p < p_c, h >= h''(p) */
    PCS_WATER_PH_SUPERCRITICAL = 4, /**< p >= p_c */
} pcs_water_ph_phase;

/** State at (p, h): what a control volume of a two-phase network needs. */
typedef struct pcs_water_ph_state {
    int phase;              /**< pcs_water_ph_phase */
    double t_k;             /**< temperature, K (T_sat(p) in the dome) */
    double rho_kg_m3;       /**< density (mixture density in the dome), kg/m3 */
    double u_j_kg;          /**< specific internal energy, u = h - p/rho, J/kg */
    double x;               /**< HEM mass quality; clamped to 0 / 1 outside the dome */
    double alpha;           /**< homogeneous void fraction x v''/v; 0 / 1 outside the dome */
    double drho_dp_s2_m2;   /**< (d rho / d p) at constant h, kg/(m3 Pa) = s2/m2 */
    double drho_dh_kg2_m3j; /**< (d rho / d h) at constant p, kg2/(m3 J) */
} pcs_water_ph_state;

/**
 * The enthalpy range of the domain at pressure p: h(p, 273.16 K) (region 1)
 * and h(p, 1073.15 K) (region 2), J/kg.
 * @param p_pa pressure, Pa, in [1e3, 31e6]. Either output may be NULL.
 */
PCS_API pcs_status pcs_water_ph_h_range(double p_pa, double *h_min_j_kg, double *h_max_j_kg);

/**
 * The exact reference path: the state at (p, h) from the IF97 forward
 * equations. Single phase: T from the backward equation refined by Newton on
 * the forward equation (pcs_water_props_ph, consistency ~1e-9 K), or a 2-D
 * Newton on (rho, T) in region 3 next to the saturation line; two-phase:
 * T_sat(p) (Eq. 31) and the saturated phases at (T_sat, p). Derivatives as
 * in the file comment. Cost: about 0.3-3 us (region 3 and the dome cost most).
 * @param p_pa   pressure, Pa, in [1e3, 31e6].
 * @param h_j_kg specific enthalpy, J/kg, in pcs_water_ph_h_range(p).
 * @param out    out: the state.
 */
PCS_API pcs_status pcs_water_ph_exact(double p_pa, double h_j_kg, pcs_water_ph_state *out);

/* ------------------------------------------------------------------------ */
/* The table                                                                 */
/* ------------------------------------------------------------------------ */

/**
 * A table of pcs_water_ph_exact over the whole domain that resolves both
 * saturation lines exactly.
 *
 * Layout. Pressure is cut into row cells: below 8.388608 MPa (2^23 Pa)
 * rows_per_octave cells per binary octave of p (uniform in p inside an
 * octave, so the cell index is read from the bits of p: no logarithm), from
 * there to p_c n_near_critical cells uniform in w = sqrt(p_c - p) (the
 * saturation line is analytic in w at the critical point, not in p), and
 * n_super cells uniform in p from p_c to 31 MPa. In every row cell the
 * enthalpy axis is split at the saturation lines, which are cubic in the row
 * coordinate: liquid [h_min(p), h'(p)], the dome (h', h''), vapour
 * [h''(p), h_max(p)] (above p_c the split is at the critical enthalpy). The
 * single-phase segments carry a boundary-fitted coordinate
 * xi = (h - h_lo(p)) / (h_hi(p) - h_lo(p)) in [0, 1], cut into n_liquid and
 * n_vapour cells, so no cell straddles a saturation line. Each (p, xi) cell
 * holds a bicubic polynomial of T, rho, drho/dp and drho/dh through 4 x 4
 * exact values; each row cell holds cubics of the saturation data
 * (h_min, h', h'', h_max, T_sat, v', C, A, B of the file comment; A and B
 * times w below p_c, where they grow as 1/w). Inside the dome nothing is
 * interpolated in h: the HEM relations are applied exactly to the
 * interpolated saturation data. u = h - p/rho everywhere.
 *
 * A lookup is a few compares for the row cell, one product for xi (the
 * segments' inverse widths are cubics of their own), and one 2-D polynomial
 * evaluation (single phase) or a few 1-D cubics (dome): no iteration, no
 * allocation, no division on the single-phase path, no libm call except one
 * square root between 8.39 MPa and p_c. Read-only after creation: any number
 * of threads may look up concurrently.
 *
 * Error bound of the default configuration (14.1 MB, built in about 0.3 s
 * of CPU), against pcs_water_ph_exact, asserted by tests/test_water_ph.c on
 * a dense grid: 601 pressures log-spaced over the whole range (low pressure,
 * the critical region and the supercritical rows included) x 251 enthalpies
 * over the whole range at each, plus points 1e-6 and 1e-9 relative from both
 * saturation lines on each side at every pressure below p_c, where the
 * phase must agree too (it does: the saturation lines are interpolated
 * sat_refine times finer than the rest). Errors are relative: |d rho|/rho,
 * |dT|/T, and for the derivatives |d|/max(|exact|, floor) with floors
 * 1e-10 rho s2/m2 for drho/dp (a compressibility of 1e-10 1/Pa, a fifth of
 * water's) and 1e-9 rho kg/J for drho/dh (which passes through zero at the
 * density maximum near 277 K).
 *
 * Below 16.529 MPa (regions 1, 2 and their dome) the table reproduces the
 * exact path to the PCS_WATER_PH_TABLE_* bounds. From 16.529 MPa up (region 3,
 * the critical region, supercritical states) the PCS_WATER_PH_TABLE_R3_*
 * bounds hold; they are larger because IF97's regions meet there with kinks
 * inside the table's cells: region 1/3 at 623.15 K and 2/3 at B23, where the
 * region equations are consistent only to R7-97's stated tolerances (Sec. 5;
 * T at equal (p, h) differs by up to ~10 mK across B23 at 31 MPa), and the
 * cubics smooth the kink. The largest R3 errors are at those boundaries, not
 * at the critical point (the grid keeps 20 Pa from it, where the exact path
 * itself stops). Measured maxima on the test grid are in the comments.
 */
typedef struct pcs_water_ph_table pcs_water_ph_table;

/** Max |d rho|/rho below 16.529 MPa (measured 2.5e-6 on the test grid, 2.6e-6 on one 2.5x denser;
 * low-pressure vapour line). */
#define PCS_WATER_PH_TABLE_RHO_REL_ERR 5e-6
/** Max |dT|/T below 16.529 MPa (measured 2.9e-6; 3.1e-6 denser). */
#define PCS_WATER_PH_TABLE_T_REL_ERR 5e-6
/** Max relative error of drho/dp below 16.529 MPa (measured 1.6e-5; 1.7e-5 denser). */
#define PCS_WATER_PH_TABLE_DRHO_DP_REL_ERR 5e-5
/** Max relative error of drho/dh below 16.529 MPa (measured 1.26e-4; 1.33e-4 denser). */
#define PCS_WATER_PH_TABLE_DRHO_DH_REL_ERR 3e-4
/** Max |d rho|/rho from 16.529 MPa up (measured 2.8e-5; 3.3e-5 denser; region 1/3 line). */
#define PCS_WATER_PH_TABLE_R3_RHO_REL_ERR 6e-5
/** Max |dT|/T from 16.529 MPa up (measured 1.0e-5; 1.4e-5 denser; B23 at 31 MPa). */
#define PCS_WATER_PH_TABLE_R3_T_REL_ERR 3e-5
/** Max relative error of drho/dp from 16.529 MPa up (measured 2.4e-3; 4.5e-3 denser; region 1/3
 * line). */
#define PCS_WATER_PH_TABLE_R3_DRHO_DP_REL_ERR 1e-2
/** Max relative error of drho/dh from 16.529 MPa up (measured 6.6e-4; 7.0e-4 denser). */
#define PCS_WATER_PH_TABLE_R3_DRHO_DH_REL_ERR 1.5e-3

/** Table extent and resolution. Start from pcs_water_ph_table_default. */
typedef struct pcs_water_ph_table_def {
    uint32_t rows_per_octave; /**< row cells per binary octave of p below 2^23 Pa; default 16; [2,
                                 1024], a power of two */
    uint32_t n_near_critical; /**< row cells, uniform in sqrt(p_c - p), 2^23 Pa to p_c; default 48;
                                 [2, 4096] */
    uint32_t n_super;    /**< row cells uniform in p from p_c to 31 MPa; default 24; [1, 4096] */
    uint32_t n_liquid;   /**< xi cells of the liquid segment; default 48; [1, 4096] */
    uint32_t n_vapour;   /**< xi cells of the vapour segment; default 48; [1, 4096] */
    uint32_t sat_refine; /**< saturation-data sub-cells per row cell; default 4; [1, 64] */
} pcs_water_ph_table_def;

/** Fill @p cfg with the defaults. PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_water_ph_table_default(pcs_water_ph_table_def *cfg);

/** Bytes of memory a table with @p cfg needs (0 for NULL or an invalid config). */
PCS_API uint64_t pcs_water_ph_table_bytes(const pcs_water_ph_table_def *cfg);

/**
 * Build a table (one malloc'd block of pcs_water_ph_table_bytes bytes; the
 * build's scratch memory is freed before return). Not for the tick: build
 * once at start-up.
 * @return PCS_E_INVAL (NULL, a config field out of range, naming it),
 *         PCS_E_NOMEM, or PCS_E_INVAL if an exact evaluation fails.
 */
PCS_API pcs_status pcs_water_ph_table_create(const pcs_water_ph_table_def *cfg,
                                             pcs_water_ph_table **out);

/**
 * Free a table from pcs_water_ph_table_create or
 * pcs_water_ph_table_image_open (only what the table owns: an opened table's
 * image stays the caller's). NULL is allowed.
 */
PCS_API void pcs_water_ph_table_destroy(pcs_water_ph_table *t);

/*
 * The image: a table as bytes, so a build can make the table once and embed
 * it (station/water_table.c) instead of every process making it. Layout,
 * in the host's byte order and double format (an image is for the machine
 * kind that wrote it, not an exchange format; another byte order fails the
 * magic check):
 *   offset  0  uint32 magic      PCS_WATER_PH_IMAGE_MAGIC
 *           4  uint32 version    PCS_WATER_PH_IMAGE_VERSION
 *           8  pcs_water_ph_table_def (6 x uint32)
 *          32  uint32 n_rows, n_xi       row cells; xi cells per row cell
 *          40  uint64 n_sat, n_cells     doubles of the two arrays
 *          56  double h_split            J/kg, made by the build
 *          64  double sat[n_sat], then double cells[n_cells]
 * so the arrays are 64-byte aligned when the image is (an image must be at
 * least 8-byte aligned). Bytes: 64 + 8 (n_sat + n_cells), 14.1 MB by default.
 */
/** First 4 bytes of an image ("PWPH" on a little-endian host). */
#define PCS_WATER_PH_IMAGE_MAGIC 0x48505750u
/** Image format version this library writes and reads. */
#define PCS_WATER_PH_IMAGE_VERSION 1u
/** Bytes of an image's header (the arrays follow). */
#define PCS_WATER_PH_IMAGE_HEADER_BYTES 64u

/** Bytes of @p t's image (0 for NULL). */
PCS_API uint64_t pcs_water_ph_table_image_bytes(const pcs_water_ph_table *t);

/**
 * Write @p t's image (layout above) into @p buf.
 * @param buf       out: pcs_water_ph_table_image_bytes(t) bytes, any alignment.
 * @param cap_bytes bytes available at @p buf.
 * @return PCS_E_INVAL for NULL, or @p cap_bytes below the image's size
 *         (the message names both). Thread-safety: reads @p t only.
 */
PCS_API pcs_status pcs_water_ph_table_image_write(const pcs_water_ph_table *t, void *buf,
                                                  uint64_t cap_bytes);

/**
 * Open an image: a table whose arrays are the image's own bytes, borrowed,
 * not copied (the table is a small malloc'd header; destroy frees only that).
 * The image must outlive the table and not change. Lookups on it are
 * bit-identical to the table the image was written from.
 *
 * Checked: the header (magic, version, every def field as
 * pcs_water_ph_table_create checks it, n_rows, n_xi, n_sat and n_cells
 * against what the def implies, h_split finite), the alignment, and that
 * @p n_bytes is exactly what the def implies. The arrays' values are not
 * checked (a lookup's indices are bounded by the checked sizes, so a
 * corrupted value gives a wrong number, never a read outside the image).
 * @param image   the image, 8-byte aligned (64 keeps the cells on cache lines).
 * @param n_bytes its size in bytes.
 * @param out     out: the table; on error untouched.
 * @return PCS_E_INVAL for NULL, a misaligned image, or a refused header or
 *         size (the message names the field, its value and what was
 *         expected); PCS_E_NOMEM. Thread-safety: any thread; reads the image.
 */
PCS_API pcs_status pcs_water_ph_table_image_open(const void *image, uint64_t n_bytes,
                                                 pcs_water_ph_table **out);

/**
 * The state at (p, h) from the table; domain and outputs as
 * pcs_water_ph_exact, error bound as stated above.
 * @return PCS_E_INVAL for NULL, non-finite or out-of-domain inputs (the
 *         enthalpy range is the table's own cubic of h_min(p), h_max(p), within
 *         its error of the exact one).
 */
PCS_API pcs_status pcs_water_ph_table_lookup(const pcs_water_ph_table *t, double p_pa,
                                             double h_j_kg, pcs_water_ph_state *out);

/** What a pressure solve needs at (p, h): pcs_water_ph_table_rho. */
typedef struct pcs_water_ph_rho {
    int phase;              /**< pcs_water_ph_phase */
    double t_k;             /**< temperature, K (T_sat(p) in the dome) */
    double rho_kg_m3;       /**< density (mixture density in the dome), kg/m3 */
    double drho_dp_s2_m2;   /**< (d rho / d p) at constant h, kg/(m3 Pa) = s2/m2 */
    double drho_dh_kg2_m3j; /**< (d rho / d h) at constant p, kg2/(m3 J) */
} pcs_water_ph_rho;

/**
 * The lean lookup: phase, T, rho, drho/dp and drho/dh only (no u, x or
 * alpha), for the inner loop of an (M, U) -> (p, h) inversion and the
 * pressure matrix. The same code as pcs_water_ph_table_lookup (inlined into
 * both): the five values are bit-identical to its, so the same error bounds
 * hold (tests/test_water_ph.c asserts the identity on its dense grid). A
 * table opened from a corrupted image can give NaN where both agree only
 * that it is NaN (which NaN an operation returns is left open by IEEE 754).
 * Saved against the full lookup: u's division and, in the dome, alpha.
 * @return PCS_E_INVAL as pcs_water_ph_table_lookup (the message names this
 *         function); on error *out is untouched.
 */
PCS_API pcs_status pcs_water_ph_table_rho(const pcs_water_ph_table *t, double p_pa, double h_j_kg,
                                          pcs_water_ph_rho *out);

#ifdef __cplusplus
}
#endif

#endif
