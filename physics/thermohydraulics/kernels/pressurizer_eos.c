/**
 * @file pressurizer_eos.c
 * @brief The pressurizer's equation of state: saturation at a pressure, and
 *        the common end-of-step pressure of two regions in a rigid vessel,
 *        from the exact IF97 (p, h) path or the (p, h) table.
 *
 * Enthalpy form (why it conserves energy exactly): a region's energy
 * equation with the boundary work of its moving interface is
 * d(M h)/dt = sum m h + Q + V dp/dt. Discretised with the start-of-step
 * volume V_n, H_k = H*_k + V_n,k (p - p_n). Summed over both regions, with
 * H_n = U_n + p_n V_n and sum V_n = V, the end energy
 * U = sum H_k - p sum V_k = U_n + dt (sum m h + Q) + p (V - sum V_k): exact
 * up to the volume residual, which the solve drives below 1e-12 V (about
 * 1e-3 J at 15 MPa against a vessel's 3e10 J). So the regions may exchange
 * work and heat in any way the model says; the total changes only by what
 * crosses the vessel boundary.
 *
 * The solve is a safeguarded Newton on the volume the regions fill at
 * trial p, F(p) = sum M_k / rho(p, h_k(p)) - V, decreasing in p with
 * dF/dp = -sum M_k / rho_k^2 (rho_p + rho_h V_n,k / M_k). A trial p where
 * a region's enthalpy leaves the IF97 domain is pulled halfway back to the
 * last good one.
 */
#include "physics/thermohydraulics/kernels/pressurizer_internal.h"

#include <stddef.h>
#include <string.h>

#include "pcsim/math.h"
#include "pcsim/water.h"

#define R3_T_MIN_K 623.15 /* regions 1/2 saturated phases up to here (R7-97) */
#define RHO_CRIT 322.0    /* kg/m3, IF97 */
#define P_HI_PA 21e6      /* below p_c, where the exact path answers */

/* Region 3 saturated density at (p, T) on one branch: Newton on
   p3(rho, T) = p from the stable side (liquid from above, where p(rho) is
   increasing and convex; vapour from below, increasing and concave), so the
   iterates approach monotonically and never cross the spinodal. */
static pcs_status r3_branch(double p, double t, int liquid, double *rho_out)
{
    double rho = liquid ? 700.0 : 60.0;
    for (int it = 0; it < 60; it++) {
        pcs_water_props a, b;
        const double d = 1e-6 * rho;
        pcs_status st = pcs_if97_region3(rho, t, &a);
        if (st == PCS_OK)
            st = pcs_if97_region3(rho + d, t, &b);
        if (st != PCS_OK)
            return st;
        const double slope = (b.p_pa - a.p_pa) / d;
        if (!(slope > 0.0))
            break;
        const double step = (a.p_pa - p) / slope;
        rho -= step;
        if (liquid ? rho <= RHO_CRIT : rho >= RHO_CRIT)
            break;
        if (pcs_fabs(step) <= 1e-12 * rho) {
            *rho_out = rho;
            return PCS_OK;
        }
    }
    return pcs_error_set(PCS_E_INVAL,
                         "pressurizer: region 3 saturated %s density at p = %.10g Pa did not "
                         "converge (allowed p up to 21 MPa)",
                         liquid ? "liquid" : "vapour", p);
}

pcs_status pzr_sat_at(double p, pzr_sat *s)
{
    if (!(p >= PCS_WATER_PH_P_MIN_PA && p <= P_HI_PA))
        return pcs_error_set(PCS_E_INVAL,
                             "pressurizer: saturation at p = %.10g Pa, allowed [%g, %g]", p,
                             PCS_WATER_PH_P_MIN_PA, P_HI_PA);
    pcs_status st = pcs_water_tsat(p, &s->t_k);
    if (st != PCS_OK)
        return st;
    pcs_water_props f, g;
    if (s->t_k <= R3_T_MIN_K) {
        if ((st = pcs_if97_region1(p, s->t_k, &f)) != PCS_OK ||
            (st = pcs_if97_region2(p, s->t_k, &g)) != PCS_OK)
            return st;
    } else {
        double rl = 0.0, rg = 0.0;
        if ((st = r3_branch(p, s->t_k, 1, &rl)) != PCS_OK ||
            (st = r3_branch(p, s->t_k, 0, &rg)) != PCS_OK ||
            (st = pcs_if97_region3(rl, s->t_k, &f)) != PCS_OK ||
            (st = pcs_if97_region3(rg, s->t_k, &g)) != PCS_OK)
            return st;
    }
    s->hf = f.h_j_kg;
    s->hg = g.h_j_kg;
    s->rhof = f.rho_kg_m3;
    s->rhog = g.rho_kg_m3;
    return PCS_OK;
}

pcs_status pzr_ph(const pcs_water_ph_table *table, double p, double h, pcs_water_ph_state *out)
{
    return table ? pcs_water_ph_table_lookup(table, p, h, out) : pcs_water_ph_exact(p, h, out);
}

double pzr_drho_dp_s(const pcs_water_ph_state *w)
{
    return w->drho_dp_s2_m2 + w->drho_dh_kg2_m3j / w->rho_kg_m3;
}

/* Volume residual F and dF/dp at trial p. */
static pcs_status residual(const pcs_water_ph_table *table, double volume, const pzr_region *l,
                           const pzr_region *v, double p, double p_n, pzr_eos *e, double *f,
                           double *df)
{
    pcs_status st = PCS_OK;
    const pzr_region *rg[2] = {l, v};
    pcs_water_ph_state *ws[2] = {&e->l, &e->v};
    double *hs[2] = {&e->hl, &e->hv}, *vs[2] = {&e->vl, &e->vv};
    *f = -volume;
    *df = 0.0;
    e->p = p;
    for (int k = 0; k < 2; k++) {
        *hs[k] = 0.0;
        *vs[k] = 0.0;
        if (!(rg[k]->m > 0.0)) {
            memset(ws[k], 0, sizeof *ws[k]);
            continue;
        }
        const double h = (rg[k]->h_tot + rg[k]->v0 * (p - p_n)) / rg[k]->m;
        if ((st = pzr_ph(table, p, h, ws[k])) != PCS_OK)
            return st;
        const double rho = ws[k]->rho_kg_m3;
        *hs[k] = h;
        *vs[k] = rg[k]->m / rho;
        *f += *vs[k];
        *df -= rg[k]->m / (rho * rho) *
               (ws[k]->drho_dp_s2_m2 + ws[k]->drho_dh_kg2_m3j * rg[k]->v0 / rg[k]->m);
    }
    return PCS_OK;
}

pcs_status pzr_eos_solve(const pcs_water_ph_table *table, double volume, const pzr_region *l,
                         const pzr_region *v, double p_n, pzr_eos *out)
{
    pzr_eos e;
    memset(&e, 0, sizeof e);
    double lo = PCS_WATER_PH_P_MIN_PA, hi = P_HI_PA, good = -1.0;
    double p = pcs_clamp(p_n, lo, hi);
    for (int it = 0; it < 200; it++) {
        double f = 0.0, df = 0.0;
        if (residual(table, volume, l, v, p, p_n, &e, &f, &df) != PCS_OK) {
            if (good < 0.0)
                break;
            p = 0.5 * (p + good); /* a region left the domain: back off */
            continue;
        }
        good = p;
        if (f > 0.0) /* the regions need more room: the pressure is higher */
            lo = p;
        else
            hi = p;
        if (pcs_fabs(f) <= 1e-12 * volume || hi - lo <= 1e-15 * hi) {
            *out = e;
            return PCS_OK;
        }
        double pn = df < 0.0 ? p - f / df : 0.5 * (lo + hi);
        if (!(pn > lo && pn < hi))
            pn = pcs_sqrt(lo * hi); /* geometric bisection: the bracket spans decades */
        p = pn;
    }
    return pcs_error_set(PCS_E_INVAL,
                         "pressurizer: no pressure in [1 kPa, 21 MPa] fits M_l = %.10g kg, "
                         "M_v = %.10g kg in V = %.10g m3",
                         l->m, v->m, volume);
}
