/**
 * @file thnet_hem_table.c
 * @brief HEM critical flow of a two-phase stagnation state on a tabulated
 *        saturation line (pcs_thnet_choke_table), the table eos's choke.
 *
 * Why: a turbine throat is choked at every step and its stagnation state
 * (the header) is in the dome; the IF97 search (thnet_hem.c) evaluates the
 * saturated phases, regions 1 and 2 at (T_sat(p), p), at ~23 trial
 * pressures, about 5,900 instructions each, and the network searches twice
 * per step (Gc and its pressure derivative). On the two-phase piece of the
 * isentrope a trial needs only h', h'', s', s'', v', v'' at p, functions of
 * p alone, so they come from a table in ln p here (~150 instructions a
 * trial) and the search itself is thnet_hem.c's, unchanged.
 *
 * The table (thnet_hem_sat_data.c, written at build time by tools/gen_hem_sat.c,
 * each node hem_sat_if97 at p = exp(lnp_lo + i dlnp)): HEM_SAT_N nodes uniform in
 * ln p from 1 kPa to p_sat(623.15 K) = 16.529 MPa (the top of the dome with
 * region 1/2 phases), h', h'', s', s'', v' and p v'' (v'' ~ 1/p: p v'' is
 * the smooth one); between nodes the 4-point Lagrange cubic through the
 * nearest nodes (one-sided at the ends). Plain + - * / on constants: the
 * same bits on every compiler and level the library builds with.
 *
 * Domain: stagnation states in the dome by the table's own saturation line
 * (0 <= x0 <= 1 with x0 = (h0 - h')/(h'' - h')), 1 kPa < p0 <= 16 MPa; the
 * stagnation entropy and density are the table's HEM mixture at x0. Every
 * other state (compressed liquid, vapour, and the dome above 16 MPa, where
 * IF97's region 3 saturation no longer meets regions 1/2 exactly) goes to
 * pcs_thnet_choke_if97. Error against the IF97 search (tests/test_thnet_hem
 * _table.c, a grid of p0 and x0): Gc within 2e-8 relative for x0 >= 0.05
 * and 1e-6 below (measured 1.0e-8 and 5.2e-7; below: saturated liquid at low
 * pressure, whose throat quality is the small difference s0 - s'(p));
 * p_throat within 3e-6 (measured 9.6e-7: mostly the search's own flatness
 * at the maximum, as IF97 against its reference).
 */
#include "physics/thermohydraulics/kernels/thnet_hem_internal.h"
#include "physics/thermohydraulics/kernels/thnet_hem_sat.h"

#include "pcsim/math.h"
#include "pcsim/thnet.h"
#include "pcsim/water.h"

/** Highest stagnation pressure the table answers for, Pa. */
#define P0_TABLE_MAX_PA 16e6

/* The stencil of ln p: its first node *i (nodes *i .. *i+3) and the 4-point
   Lagrange weights w there. */
static pcs_status stencil(double p, double lnp, int *i, double w[4])
{
    const double u = (lnp - hem_sat_lnp_lo) * hem_sat_inv_dlnp;
    if (!(u > -1.0 && u < (double)HEM_SAT_N))
        return pcs_error_set(PCS_E_INVAL,
                             "HEM saturation table: p %g Pa outside [1 kPa, 16.529 MPa]", p);
    int k = (int)u - 1;
    if (k < 0)
        k = 0;
    if (k > (int)HEM_SAT_N - 4)
        k = (int)HEM_SAT_N - 4;
    const double t = u - (double)k, a = t - 1.0, b = t - 2.0, c = t - 3.0;
    w[0] = -a * b * c / 6.0;
    w[1] = t * b * c / 2.0;
    w[2] = -t * a * c / 2.0;
    w[3] = t * a * b / 6.0;
    *i = k;
    return PCS_OK;
}

pcs_status hem_sat_table(double p, double lnp, hem_sat *out)
{
    int i = 0;
    double w[4];
    pcs_status st = stencil(p, lnp, &i, w);
    if (st != PCS_OK)
        return st;
    const double *n0 = hem_sat_nodes[i], *n1 = hem_sat_nodes[i + 1], *n2 = hem_sat_nodes[i + 2],
                 *n3 = hem_sat_nodes[i + 3];
    double v[HEM_SAT_FIELDS];
    for (int k = 0; k < HEM_SAT_FIELDS; k++)
        v[k] = w[0] * n0[k] + w[1] * n1[k] + w[2] * n2[k] + w[3] * n3[k];
    *out = (hem_sat){v[0], v[1], v[2], v[3], v[4], v[5] / p};
    return PCS_OK;
}

pcs_status hem_sat_mu_table(double p, double lnp, double *mu_f, double *mu_g)
{
    int i = 0;
    double w[4];
    pcs_status st = stencil(p, lnp, &i, w);
    if (st != PCS_OK)
        return st;
    const double(*n)[2] = hem_sat_mu_nodes + i;
    *mu_f = w[0] * n[0][0] + w[1] * n[1][0] + w[2] * n[2][0] + w[3] * n[3][0];
    *mu_g = w[0] * n[0][1] + w[1] * n[1][1] + w[2] * n[2][1] + w[3] * n[3][1];
    return PCS_OK;
}

pcs_status hem_sat_mu_node_if97(uint32_t i, double mu[2])
{
    const double lnp = hem_sat_lnp_lo + (double)i * hem_sat_dlnp, p = pcs_exp(lnp);
    double t = 0.0;
    pcs_water_props f, g;
    pcs_status st = pcs_water_tsat(p, &t);
    if (st == PCS_OK)
        st = pcs_if97_region1(p, t, &f);
    if (st == PCS_OK)
        st = pcs_if97_region2(p, t, &g);
    if (st == PCS_OK)
        st = pcs_water_viscosity(f.rho_kg_m3, t, &mu[0]);
    if (st == PCS_OK)
        st = pcs_water_viscosity(g.rho_kg_m3, t, &mu[1]);
    return st;
}

pcs_status hem_sat_node_if97(uint32_t i, double node[HEM_SAT_FIELDS])
{
    const double lnp = hem_sat_lnp_lo + (double)i * hem_sat_dlnp, p = pcs_exp(lnp);
    hem_sat s;
    pcs_status st = hem_sat_if97(p, lnp, &s);
    if (st != PCS_OK)
        return st;
    const double v[HEM_SAT_FIELDS] = {s.hf, s.hg, s.sf, s.sg, s.vf, p * s.vg};
    for (int k = 0; k < HEM_SAT_FIELDS; k++)
        node[k] = v[k];
    return PCS_OK;
}

pcs_status pcs_thnet_sat_table(void *ctx, double p_pa, pcs_thnet_sat *out)
{
    if (!out || !(p_pa > HEM_P_MIN_PA && p_pa <= HEM_SAT_P_MAX_PA))
        return pcs_thnet_sat_if97(ctx, p_pa, out);
    hem_sat s;
    pcs_status st = hem_sat_table(p_pa, pcs_log(p_pa), &s);
    if (st == PCS_OK)
        *out = (pcs_thnet_sat){s.hf, s.hg, 1.0 / s.vf, 1.0 / s.vg};
    return st;
}

pcs_status pcs_thnet_choke_table(void *ctx, double p0_pa, double h0_j_kg, pcs_thnet_choke *out)
{
    if (!out)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_choke_table: out is NULL");
    if (!(p0_pa > HEM_P_MIN_PA && p0_pa <= P0_TABLE_MAX_PA) || !pcs_isfinite(h0_j_kg))
        return pcs_thnet_choke_if97(ctx, p0_pa, h0_j_kg, out);
    const double lnp0 = pcs_log(p0_pa);
    hem_sat s;
    pcs_status st = hem_sat_table(p0_pa, lnp0, &s);
    if (st != PCS_OK)
        return st;
    const double x0 = (h0_j_kg - s.hf) / (s.hg - s.hf);
    if (!(x0 >= 0.0 && x0 <= 1.0))
        return pcs_thnet_choke_if97(ctx, p0_pa, h0_j_kg, out);
    const double s0 = s.sf + x0 * (s.sg - s.sf), rho0 = 1.0 / (s.vf + x0 * (s.vg - s.vf));
    return hem_search_dome(hem_sat_table, p0_pa, h0_j_kg, s0, rho0, p0_pa, out);
}
