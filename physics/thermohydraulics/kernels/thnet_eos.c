/**
 * @file thnet_eos.c
 * @brief The network's equation of state: IF97 properties at (p, h) with the
 *        derivatives the pressure equation needs, and the inversion
 *        (rho, u) -> (p, h).
 *
 * Derivatives by forward differences of pcs_water_props_ph (dp = 1e-6 p,
 * dh = 10 J/kg; backward if the forward point is refused). Their error
 * (about 1e-6 relative, more across a saturation line) costs only Newton
 * iterations and the accuracy of the linearised pressure prediction, never
 * the state: the state's pressure is always the exact inversion of (M, U).
 * This is the exact, slow path; the (p, h) tables replace it through the same
 * callback.
 */
#include <math.h>

#include "pcsim/math.h"
#include "pcsim/thnet.h"
#include "pcsim/water.h"

/** Highest saturation temperature with region 1/2 saturated phases (R7-97). */
#define SAT_T_MAX_K 623.15

static pcs_status water_ph(double p, double h, pcs_water_props *w)
{
    return pcs_water_props_ph(p, h, w);
}

/* Saturated liquid and vapour densities and viscosities at p (region 4 below
   623.15 K); 0 if not available (region 3 dome). */
static int sat_phases(double p, double *rho_f, double *rho_g, double *mu_f, double *mu_g)
{
    double t = 0.0;
    if (pcs_water_tsat(p, &t) != PCS_OK || t > SAT_T_MAX_K)
        return 0;
    pcs_water_props f, g;
    if (pcs_if97_region1(p, t, &f) != PCS_OK || pcs_if97_region2(p, t, &g) != PCS_OK)
        return 0;
    *rho_f = f.rho_kg_m3;
    *rho_g = g.rho_kg_m3;
    if (pcs_water_viscosity(f.rho_kg_m3, t, mu_f) != PCS_OK ||
        pcs_water_viscosity(g.rho_kg_m3, t, mu_g) != PCS_OK)
        return 0;
    return 1;
}

/* Quality, void fraction and viscosity of a (p, h) state. */
static pcs_status phase_fields(double p, const pcs_water_props *w, pcs_thnet_props *out)
{
    if (w->region != 4) {
        int vap = w->region == 2 || w->region == 5 ||
                  (w->region == 3 && w->rho_kg_m3 < PCS_IF97_RHOC_KG_M3);
        out->quality = vap ? 1.0 : 0.0;
        out->alpha = out->quality;
        return pcs_water_viscosity(w->rho_kg_m3, w->t_k, &out->mu_pa_s);
    }
    double x = w->quality, rf = 0.0, rg = 0.0, mf = 0.0, mg = 0.0;
    out->quality = x;
    if (sat_phases(p, &rf, &rg, &mf, &mg)) {
        out->alpha = x * w->rho_kg_m3 / rg;
        out->mu_pa_s = 1.0 / (x / mg + (1.0 - x) / mf); /* McAdams */
    } else {
        /* Region 3 dome (p > 16.53 MPa): the mixture viscosity at its density;
           void fraction from the quality as if rho_g were the critical density
           scaled, a rough bound documented as such. */
        out->alpha = pcs_clamp(x * w->rho_kg_m3 / PCS_IF97_RHOC_KG_M3, 0.0, 1.0);
        pcs_status st = pcs_water_viscosity(w->rho_kg_m3, w->t_k, &out->mu_pa_s);
        if (st != PCS_OK)
            return st;
    }
    if (out->alpha > 1.0)
        out->alpha = 1.0;
    return PCS_OK;
}

/*
 * The difference point at p + *step (in_p) or h + *step: forward, or backward
 * (*step negated) when the forward point is refused or lies in another
 * region than the base, so a saturated state's derivatives are one-sided on
 * the base's side, never a mix of both phases.
 */
static pcs_status side_point(double p, double h, double *step, int in_p, int region,
                             pcs_water_props *w)
{
    for (int k = 0; k < 2; k++) {
        pcs_status st = water_ph(in_p ? p + *step : p, in_p ? h : h + *step, w);
        if (st == PCS_OK && (w->region == region || k == 1))
            return PCS_OK;
        if (k == 1)
            return st;
        *step = -*step;
    }
    return PCS_OK;
}

pcs_status pcs_thnet_props_if97(void *ctx, double p_pa, double h_j_kg, pcs_thnet_props *out)
{
    (void)ctx;
    if (!out)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_props_if97: out is NULL");
    pcs_water_props w, wp, wh;
    pcs_status st = water_ph(p_pa, h_j_kg, &w);
    if (st != PCS_OK)
        return st;
    double dp = 1e-6 * p_pa, dh = 10.0;
    if ((st = side_point(p_pa, h_j_kg, &dp, 1, w.region, &wp)) != PCS_OK ||
        (st = side_point(p_pa, h_j_kg, &dh, 0, w.region, &wh)) != PCS_OK)
        return st;
    out->rho_kg_m3 = w.rho_kg_m3;
    out->t_k = w.t_k;
    out->drho_dp = (wp.rho_kg_m3 - w.rho_kg_m3) / dp;
    out->drho_dh = (wh.rho_kg_m3 - w.rho_kg_m3) / dh;
    return phase_fields(p_pa, &w, out);
}

pcs_thnet_eos pcs_thnet_eos_if97(void)
{
    pcs_thnet_eos e = {.props = pcs_thnet_props_if97, .choke = pcs_thnet_choke_if97};
    return e;
}

/* ------------------------------------------------------------------------ */
/* (rho, u) -> (p, h)                                                        */
/* ------------------------------------------------------------------------ */

#define INV_P_MIN 1000.0
#define INV_P_MAX 100e6
#define INV_MAX_IT 200

/* The search's bracket [lo, hi]: f < 0 at lo, f >= 0 at hi, each end known
 * once a point on its side has been evaluated (else the domain's end). */
typedef struct p_bracket {
    double lo, hi;
    int have_lo, have_hi;
} p_bracket;

/* A point p where f has the sign of @p f becomes the end on that side. */
static void bracket_at(p_bracket *b, double p, double f)
{
    if (f < 0.0) {
        b->lo = p;
        b->have_lo = 1;
    } else {
        b->hi = p;
        b->have_hi = 1;
    }
}

/*
 * f(p) = rho(p, u + p/rho*) - rho*, increasing in p ((d rho/dp)_u > 0 for a
 * stable state). Newton with f' = rho_p + rho_h / rho*, kept inside the
 * bracket [lo, hi] of known signs; bisection (geometric while one side is
 * unknown) when Newton leaves it, when f' <= 0 or when the EOS refuses a
 * point (then that point bounds the search from the side it was tried).
 */
pcs_status pcs_thnet_state_rho_u(const pcs_thnet_eos *eos, double rho_kg_m3, double u_j_kg,
                                 double p_guess_pa, double *p_pa, double *h_j_kg,
                                 pcs_thnet_props *props)
{
    if (!eos || !eos->props || !p_pa || !h_j_kg || !props)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_state_rho_u: NULL argument");
    if (!(rho_kg_m3 > 0.0) || !isfinite(rho_kg_m3) || !isfinite(u_j_kg))
        return pcs_error_set(PCS_E_NUMERIC,
                             "pcs_thnet_state_rho_u: rho %g kg/m3, u %g J/kg: rho must be "
                             "positive and both finite",
                             rho_kg_m3, u_j_kg);
    double p = p_guess_pa > 0.0 ? fmin(fmax(p_guess_pa, INV_P_MIN), INV_P_MAX) : 10e6;
    p_bracket b = {INV_P_MIN, INV_P_MAX, 0, 0};
    int ok = 0;
    double last_f = 0.0;
    const pcs_thnet_rho_fn rho_at = eos->rho ? eos->rho : eos->props;
    for (int it = 0; it < INV_MAX_IT; it++) {
        pcs_thnet_props pr;
        double h = u_j_kg + p / rho_kg_m3, pn;
        if (rho_at(eos->ctx, p, h, &pr) != PCS_OK) {
            /* Refused: shrink towards the side with a known sign. With no
               side known yet, go down from the default start (10 MPa) and
               above: a point refused there is mostly a light state whose
               h = u + p/rho lies beyond the domain's top enthalpy, which
               only a lower p cures (a 0.1 MPa mixture of 1 kg/m3 has h =
               u + 10 MJ/kg at 10 MPa). */
            if (b.have_lo && p > b.lo)
                b.hi = p;
            else if (b.have_hi && p < b.hi)
                b.lo = p;
            else if (p >= 10e6)
                b.hi = p;
            else
                b.lo = p;
            pn = (b.have_lo || b.have_hi) ? 0.5 * (b.lo + b.hi) : sqrt(b.lo * b.hi);
            if (fabs(pn - p) <= 1e-14 * p)
                break;
            p = pn;
            continue;
        }
        double f = pr.rho_kg_m3 - rho_kg_m3, d = pr.drho_dp + pr.drho_dh / rho_kg_m3;
        last_f = f;
        bracket_at(&b, p, f);
        pn = d > 0.0 ? p - f / d : -1.0;
        if (!(pn > b.lo && pn < b.hi)) {
            if (b.have_lo && b.have_hi)
                pn = 0.5 * (b.lo + b.hi);
            else
                pn = f < 0.0 ? fmin(2.0 * p, INV_P_MAX) : fmax(0.5 * p, INV_P_MIN);
        }
        if (f == 0.0) {
            ok = 1;
            break;
        }
        /* before the step test: on a floor or ceiling with f pointing out,
           the clamped step is 0 and would read as convergence */
        if ((p == INV_P_MIN && f > 0.0) || (p == INV_P_MAX && f < 0.0))
            break; /* outside the domain */
        if (fabs(pn - p) <= 1e-12 * p) {
            p = pn;
            ok = 1;
            break;
        }
        p = pn;
    }
    double h = u_j_kg + p / rho_kg_m3;
    if (!ok || eos->props(eos->ctx, p, h, props) != PCS_OK)
        return pcs_error_set(PCS_E_NUMERIC,
                             "pcs_thnet_state_rho_u: no (p, h) for rho %.10g kg/m3, u %.10g J/kg "
                             "in p [%g, %g] Pa (last p %.10g Pa, residual %g kg/m3)",
                             rho_kg_m3, u_j_kg, INV_P_MIN, INV_P_MAX, p, last_f);
    *p_pa = p;
    *h_j_kg = h;
    return PCS_OK;
}
