/**
 * @file thnet_hem_internal.h
 * @brief What the HEM critical-flow search (thnet_hem.c) shares with its
 *        tabulated saturation line (thnet_hem_table.c): the saturated
 *        phases at a throat pressure, from IF97 or from the table, and the
 *        search of the two-phase piece of the isentrope on either.
 */
#ifndef PCS_PHYSICS_THNET_HEM_INTERNAL_H
#define PCS_PHYSICS_THNET_HEM_INTERNAL_H

#include "pcsim/thnet.h"

/** Lowest throat pressure of the search, Pa. */
#define HEM_P_MIN_PA 1000.0

/** Saturated liquid (f) and vapour (g) at one pressure: enthalpy J/kg,
 *  entropy J/(kg K), specific volume m3/kg. */
typedef struct hem_sat {
    double hf, hg, sf, sg, vf, vg;
} hem_sat;

/** The saturated phases at p (lnp = ln p, both given: IF97 reads p, the
 *  table ln p). */
typedef pcs_status (*hem_sat_fn)(double p, double lnp, hem_sat *out);

/** IF97: regions 1 and 2 at (T_sat(p), p), T_sat <= 623.15 K. */
pcs_status hem_sat_if97(double p, double lnp, hem_sat *out);

/**
 * Gc of a stagnation state (p0, h0) in the dome with entropy s0 and density
 * rho0: the maximum of G over throat pressures [1 kPa, ptop] on the
 * two-phase isentrope, the saturated phases from @p sat; the same search
 * (Brent in ln p to 1e-10) and the same result fields as
 * pcs_thnet_choke_if97.
 */
pcs_status hem_search_dome(hem_sat_fn sat, double p0_pa, double h0_j_kg, double s0_j_kg_k,
                           double rho0_kg_m3, double ptop_pa, pcs_thnet_choke *out);

#endif
