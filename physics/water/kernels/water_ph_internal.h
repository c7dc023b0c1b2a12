/**
 * @file water_ph_internal.h
 * @brief What the (p, h) table's build shares with the exact path
 *        (water_ph_exact.c): the saturated phases with their derivatives
 *        along the saturation line, and the unchecked state solve; and
 *        what the table (water_ph_table.c) shares with its image format
 *        (water_ph_image.c): its parts.
 */
#ifndef PCS_PHYSICS_WATER_PH_INTERNAL_H
#define PCS_PHYSICS_WATER_PH_INTERNAL_H

#include "pcsim/water_ph.h"

/** Saturated liquid (l) and vapour (g) at p < p_c; d/dp along the line. */
typedef struct ph_sat {
    double p, ts, dts_dp; /**< Pa, K, K/Pa */
    double hl, hg;        /**< J/kg */
    double vl, vg;        /**< m3/kg */
    double dhl, dhg;      /**< dh'/dp, dh''/dp along the line, J/(kg Pa) */
    double dvl, dvg;      /**< dv'/dp, dv''/dp along the line, m3/(kg Pa) */
} ph_sat;

/** The saturated phases at p (1e3 <= p < p_c). 0 if region 3's densities
 *  cannot be solved (within about 1 kPa of p_c). */
int ph_sat_at(double p, ph_sat *s);

/** The HEM mixture at (p, h) from the saturation data (h' < h < h''). */
void ph_two_phase(const ph_sat *s, double h, pcs_water_ph_state *out);

/** h(p, 273.16 K) and h(p, 1073.15 K), J/kg (no checks). */
double ph_h_min(double p);
double ph_h_max(double p);

/** Unchecked exact state (p, h inside the domain); fn names the caller in
 *  messages. PCS_E_INVAL only for a Newton failure near the critical point. */
pcs_status ph_exact_unchecked(const char *fn, double p, double h, pcs_water_ph_state *out);

/** The single-phase state (phase: liquid, vapour or supercritical) at (p, h)
 *  on the side of the saturation line the caller has decided; sat is the
 *  saturation data at p (NULL from p_c up). */
pcs_status ph_single_phase(const char *fn, int phase, double p, double h, const ph_sat *sat,
                           pcs_water_ph_state *out);

/** Critical enthalpy h_3(rho_c, T_c), J/kg: the split of the supercritical rows. */
double ph_h_crit(void);

/* The table's parts (water_ph_table.c), what the image format
 * (water_ph_image.c) writes and reads; the layout stays in water_ph_table.c. */

/** A table's definition, sizes and arrays. */
typedef struct ph_table_parts {
    pcs_water_ph_table_def def;
    uint32_t n_rows;     /**< row cells */
    uint32_t n_xi;       /**< xi cells per row cell, n_liquid + n_vapour */
    uint64_t n_sat;      /**< doubles of the saturation cubics */
    uint64_t n_cells;    /**< doubles of the bicubic cells */
    double h_split;      /**< J/kg: the critical row's enthalpy split (made by the build) */
    const double *sat;   /**< [n_sat] */
    const double *cells; /**< [n_cells] */
} ph_table_parts;

/** Check @p cfg as pcs_water_ph_table_create does; messages start with @p fn. */
pcs_status ph_table_check_def(const char *fn, const pcs_water_ph_table_def *cfg);

/** The sizes (n_rows, n_xi, n_sat, n_cells) a checked @p cfg implies; the
 *  rest of @p out is untouched. */
void ph_table_sizes(const pcs_water_ph_table_def *cfg, ph_table_parts *out);

/** @p t's parts (its arrays: pointers into t's memory). */
void ph_table_parts_of(const pcs_water_ph_table *t, ph_table_parts *out);

/** A table that borrows @p parts' arrays (checked by the caller: def, sizes):
 *  a malloc'd header, all pcs_water_ph_table_destroy frees. NULL: out of memory. */
pcs_water_ph_table *ph_table_borrow(const ph_table_parts *parts);

/** 1 if every header field of @p a and @p b but the array pointers is the
 *  same bits (tests: a borrowed table against a made one). */
int ph_table_headers_equal(const pcs_water_ph_table *a, const pcs_water_ph_table *b);

#endif
