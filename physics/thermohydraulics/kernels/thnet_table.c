/**
 * @file thnet_table.c
 * @brief The network's equation of state from the (p, h) table
 *        (pcsim/water_ph.h): the props and lean rho callbacks of
 *        pcsim/thnet.h, and the eos that bundles them with the tabulated
 *        HEM choking (thnet_hem_table.c).
 *
 * The table's derivatives are analytic (interpolated from the exact ones),
 * so unlike pcs_thnet_props_if97 there is no difference quotient and no
 * second and third property call. What the table does not hold is the
 * viscosity; it is IAPWS R12-08 at the table's (rho, T), with the same
 * rules as the IF97 callback (thnet_eos.c) so that the two paths are the
 * same model: McAdams in the dome where the saturated phases are those of
 * regions 1 and 2 (p <= 16.529 MPa, T_sat <= 623.15 K), the mixture at its
 * own (rho, T) above. In the dome mu' and mu'' are functions of p alone,
 * R12-08 at IF97's saturated phases: they come from the saturation table of
 * the critical-flow search (thnet_hem_sat.h, 1,024 nodes in ln p, within
 * 5e-8 of R12-08 at IF97's saturated states): one log and two cubics
 * instead of two R12-08 evaluations per dome volume.
 */
#include "physics/thermohydraulics/kernels/thnet_hem_sat.h"

#include "pcsim/math.h"
#include "pcsim/thnet.h"
#include "pcsim/water.h"
#include "pcsim/water_ph.h"

static pcs_status dome_viscosity(double p, const pcs_water_ph_state *w, double *mu)
{
    const double x = w->x;
    if (!(p <= HEM_SAT_P_MAX_PA) || !(x > 0.0 && x < 1.0))
        return pcs_water_viscosity(w->rho_kg_m3, w->t_k, mu);
    double mf = 0.0, mg = 0.0;
    pcs_status st = hem_sat_mu_table(p, pcs_log(p), &mf, &mg);
    if (st == PCS_OK)
        *mu = 1.0 / (x / mg + (1.0 - x) / mf); /* McAdams */
    return st;
}

/* Both callbacks' arguments: the table as ctx, and out; @p fn names the
 * callback in the message. */
static pcs_status args_check(const char *fn, const void *ctx, const void *out)
{
    if (!ctx || !out)
        return pcs_error_set(PCS_E_INVAL, "%s: %s is NULL", fn, ctx ? "out" : "ctx (the table)");
    return PCS_OK;
}

/* The fields the lean callback fills (pcs_thnet_rho_fn), which the full one
 * fills the same way: the header promises the two agree bit for bit. */
static void put_rho(pcs_thnet_props *out, double rho_kg_m3, double t_k, double drho_dp,
                    double drho_dh)
{
    out->rho_kg_m3 = rho_kg_m3;
    out->t_k = t_k;
    out->drho_dp = drho_dp;
    out->drho_dh = drho_dh;
}

pcs_status pcs_thnet_props_table(void *ctx, double p_pa, double h_j_kg, pcs_thnet_props *out)
{
    pcs_water_ph_state w;
    pcs_status st = args_check("pcs_thnet_props_table", ctx, out);
    if (st == PCS_OK)
        st = pcs_water_ph_table_lookup(ctx, p_pa, h_j_kg, &w);
    if (st != PCS_OK)
        return st;
    double mu = 0.0;
    if (w.phase == PCS_WATER_PH_TWO_PHASE) {
        st = dome_viscosity(p_pa, &w, &mu);
    } else {
        st = pcs_water_viscosity(w.rho_kg_m3, w.t_k, &mu);
        /* thnet_eos.c's convention: vapour-like region 3 states count as vapour */
        if (w.phase == PCS_WATER_PH_SUPERCRITICAL && w.rho_kg_m3 < PCS_IF97_RHOC_KG_M3)
            w.x = w.alpha = 1.0;
    }
    if (st != PCS_OK)
        return st;
    put_rho(out, w.rho_kg_m3, w.t_k, w.drho_dp_s2_m2, w.drho_dh_kg2_m3j);
    out->quality = w.x;
    out->alpha = w.alpha;
    out->mu_pa_s = mu;
    return PCS_OK;
}

pcs_status pcs_thnet_rho_table(void *ctx, double p_pa, double h_j_kg, pcs_thnet_props *out)
{
    pcs_water_ph_rho r;
    pcs_status st = args_check("pcs_thnet_rho_table", ctx, out);
    if (st == PCS_OK)
        st = pcs_water_ph_table_rho(ctx, p_pa, h_j_kg, &r);
    if (st == PCS_OK)
        put_rho(out, r.rho_kg_m3, r.t_k, r.drho_dp_s2_m2, r.drho_dh_kg2_m3j);
    return st;
}

pcs_thnet_eos pcs_thnet_eos_table(const pcs_water_ph_table *table)
{
    pcs_thnet_eos e = {.props = pcs_thnet_props_table,
                       .choke = pcs_thnet_choke_table,
                       .ctx = (void *)(uintptr_t)table, /* read only: the callbacks take it const */
                       .rho = pcs_thnet_rho_table,
                       .sat = pcs_thnet_sat_table};
    return e;
}
