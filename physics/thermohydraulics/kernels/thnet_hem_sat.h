/**
 * @file thnet_hem_sat.h
 * @brief The saturation-line table of the HEM critical-flow search
 *        (thnet_hem_table.c): its grid, its nodes (thnet_hem_sat_data.c,
 *        written at build time into build/gen/ by tools/gen_hem_sat.c) and
 *        the exact node values they are checked against.
 */
#ifndef PCS_PHYSICS_THNET_HEM_SAT_H
#define PCS_PHYSICS_THNET_HEM_SAT_H

#include <stdint.h>

#include "physics/thermohydraulics/kernels/thnet_hem_internal.h"

/** Nodes of the table, uniform in ln p from 1 kPa to p_sat(623.15 K). */
#define HEM_SAT_N 1024u
/** Fields of a node: h', h'', s', s'', v', p v''. */
#define HEM_SAT_FIELDS 6

/** Highest pressure of the table, p_sat(623.15 K), Pa (the top node). */
#define HEM_SAT_P_MAX_PA 16.529164252604481e6

/** ln p of node 0, the node spacing in ln p and its inverse. */
extern const double hem_sat_lnp_lo, hem_sat_dlnp, hem_sat_inv_dlnp;
/** The nodes. */
extern const double hem_sat_nodes[HEM_SAT_N][HEM_SAT_FIELDS];
/** Saturated liquid and vapour viscosity at the same nodes, Pa s (IAPWS
 *  R12-08 at (rho', T_sat) and (rho'', T_sat)). */
extern const double hem_sat_mu_nodes[HEM_SAT_N][2];

/** The saturated phases at p (lnp = ln p) from the table; PCS_E_INVAL more
 *  than a node outside it. */
pcs_status hem_sat_table(double p, double lnp, hem_sat *out);

/** mu' and mu'' at p (lnp = ln p) from the table, Pa s; PCS_E_INVAL more
 *  than a node outside it. */
pcs_status hem_sat_mu_table(double p, double lnp, double *mu_f, double *mu_g);

/** mu' and mu'' of node @p i as IF97 and R12-08 give them. */
pcs_status hem_sat_mu_node_if97(uint32_t i, double mu[2]);

/** Node @p i as IF97 gives it (hem_sat_if97 at p = exp(lnp_lo + i dlnp)):
 *  what the generator writes and the test compares with. */
pcs_status hem_sat_node_if97(uint32_t i, double node[HEM_SAT_FIELDS]);

#endif
