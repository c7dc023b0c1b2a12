/**
 * @file water_ph_exact.c
 * @brief The exact (p, h) path: phase, T, rho, u, HEM quality and void
 *        fraction, and (drho/dp)_h, (drho/dh)_p from the IF97 equations.
 *
 * The phase comes first, from the saturation line: T_sat(p) by R7-97 Eq. 31
 * and the saturated phases at (T_sat, p) from region 1 and 2 (p <= 16.529 MPa)
 * or region 3 (above; densities by Newton on p_3(rho, T_sat) = p). The same
 * computation gives the table its saturation data, so the table and this path
 * agree on which side of the line a state lies (th_reference.md section 1).
 * Single-phase states are solved by pcs_water_props_ph (backward equation +
 * Newton on the forward equation); in region 3 next to the saturation line,
 * where that function decides the side with the SR3-03 backward p_3sat(h)
 * instead of Eq. 31, a 2-D Newton on (rho, T) started from the saturated
 * phase of the right side settles it.
 *
 * The derivatives are analytic (water_ph.h gives the formulas): second
 * derivatives of the Gibbs function in regions 1 and 2, first derivatives
 * of p and h in (rho, T) in region 3 (if97_region3_state), and in the dome
 * the derivatives of the saturated phases along the line, with dT_sat/dp from
 * R7-97 Eq. 29 differentiated implicitly.
 */
#include <stddef.h>

#include "physics/water/kernels/if97_internal.h"
#include "physics/water/kernels/water_ph_internal.h"
#include "pcsim/math.h"

/* ---------------------------------------------------------------------- */
/* Single-phase derivatives                                                 */
/* ---------------------------------------------------------------------- */

/* v, (dv/dp)_T, (dv/dT)_p and c_p of a Gibbs region at (p, T). */
typedef struct ph_gibbs {
    double v, v_p, v_t, cp;
} ph_gibbs;

/* Region 1, R7-97 Eq. 7 and Table 3: v = R T gamma_pi / p*, so
   (dv/dp)_T = R T gamma_pipi / p*^2 and (dv/dT)_p = R (gamma_pi - tau gamma_pitau) / p*. */
static void gibbs_r1(double p, double t, ph_gibbs *g)
{
    if97_r1_at w;
    if97_r1_eval(p, t, &w);
    if97_sums s;
    if97_sum_terms(if97_r1_terms, 34, w.a, w.x, w.y, &s);
    const double ps = 16.53e6, tau = w.tau;
    const double g_p = -s.fx, g_pp = s.fxx, g_pt = -s.fxy, g_tt = s.fyy; /* d/dpi = -d/dx */
    g->v = IF97_R * t * g_p / ps;
    g->v_p = IF97_R * t * g_pp / (ps * ps);
    g->v_t = IF97_R * (g_p - tau * g_pt) / ps;
    g->cp = -IF97_R * tau * tau * g_tt;
}

/* Region 2, Eq. 15-17: the ideal part contributes 1/pi to gamma_pi and
   -1/pi^2 to gamma_pipi and nothing to gamma_pitau; c_p from the full props. */
static void gibbs_r2(double p, double t, ph_gibbs *g)
{
    if97_gibbs2_at w;
    if97_r2_res_eval(p, t, &w);
    if97_sums s;
    if97_sum_terms(if97_r2_res_terms, 43, w.a, w.pi, w.y, &s);
    const double ps = 1e6, pi = w.pi, tau = w.tau;
    const double g_p = 1.0 / pi + s.fx, g_pp = -1.0 / (pi * pi) + s.fxx, g_pt = s.fxy;
    pcs_water_props q;
    if97_region2_props(p, t, &q);
    g->v = IF97_R * t * g_p / ps;
    g->v_p = IF97_R * t * g_pp / (ps * ps);
    g->v_t = IF97_R * (g_p - tau * g_pt) / ps;
    g->cp = q.cp_j_kg_k;
}

static void gibbs_at(int region, double p, double t, ph_gibbs *g)
{
    if (region == 1) {
        gibbs_r1(p, t, g);
    } else {
        gibbs_r2(p, t, g);
    }
}

/* (drho/dp)_h and (drho/dh)_p of a Gibbs region (water_ph.h). */
static void gibbs_drho(const ph_gibbs *g, double t, double *drho_dp, double *drho_dh)
{
    const double rho2 = 1.0 / (g->v * g->v);
    const double dt_dp_h = -(g->v - t * g->v_t) / g->cp;
    *drho_dp = -rho2 * (g->v_p + g->v_t * dt_dp_h);
    *drho_dh = -rho2 * g->v_t / g->cp;
}

/* (drho/dp)_h and (drho/dh)_p of region 3 at (rho, T): invert the Jacobian of (p, h). */
static void r3_drho(double rho, double t, double *drho_dp, double *drho_dh)
{
    if97_r3_state s;
    if97_region3_state(rho, t, &s);
    const double det = s.dp_drho * s.dh_dt - s.dp_dt * s.dh_drho;
    *drho_dp = s.dh_dt / det;
    *drho_dh = -s.dp_dt / det;
}

/* ---------------------------------------------------------------------- */
/* Saturation line                                                          */
/* ---------------------------------------------------------------------- */

/*
 * dp_sat/dT from Eq. 29 differentiated implicitly: with beta = (p/1 MPa)^1/4
 * and theta = T + n9/(T - n10), F(beta, theta) = beta^2 theta^2 + n1 beta^2
 * theta + n2 beta^2 + n3 beta theta^2 + n4 beta theta + n5 beta + n6 theta^2 +
 * n7 theta + n8 = 0, so dbeta/dtheta = -F_theta/F_beta, and dp/dT =
 * 4 beta^3 1e6 (dbeta/dtheta) (dtheta/dT). Exact for Eq. 30/31, which
 * Clapeyron with the region equations is only to ~1e-4.
 */
static double dpsat_dt(double p, double t)
{
    const double *n = if97_r4_n; /* R7-97 Table 34 */
    const double beta = pcs_sqrt(pcs_sqrt(p * 1e-6));
    const double dn = t - n[10];
    const double th = t + n[9] / dn;
    const double b2 = beta * beta;
    const double f_th =
        2.0 * b2 * th + n[1] * b2 + 2.0 * n[3] * beta * th + n[4] * beta + 2.0 * n[6] * th + n[7];
    const double f_b = 2.0 * beta * th * th + 2.0 * n[1] * beta * th + 2.0 * n[2] * beta +
                       n[3] * th * th + n[4] * th + n[5];
    const double dth_dt = 1.0 - n[9] / (dn * dn);
    return 4.0 * b2 * beta * 1e6 * (-f_th / f_b) * dth_dt;
}

/* One saturated phase of a Gibbs region: v, h and their derivatives along the line. */
static void sat_gibbs(int region, double p, double ts, double dts, double *v, double *h, double *dv,
                      double *dh)
{
    ph_gibbs g;
    gibbs_at(region, p, ts, &g);
    *v = g.v;
    *h = region == 1 ? if97_region1_h(p, ts) : if97_region2_h(p, ts);
    *dv = g.v_p + g.v_t * dts;
    *dh = (g.v - ts * g.v_t) + g.cp * dts; /* (dh/dp)_T = v - T v_T */
}

/* One saturated phase of region 3 at (rho, T_sat): along the line dp = p_rho drho + p_T dT. */
static void sat_r3(double rho, double ts, double dts, double *v, double *h, double *dv, double *dh)
{
    if97_r3_state s;
    if97_region3_state(rho, ts, &s);
    const double drho = (1.0 - s.dp_dt * dts) / s.dp_drho;
    *v = 1.0 / rho;
    *h = s.h;
    *dv = -drho / (rho * rho);
    *dh = s.dh_drho * drho + s.dh_dt * dts;
}

/* Region 3 saturated densities (p > 16.529 MPa), both branches: T_sat < T_c, so
   if97_region3_rho's liquid and vapour starts land on the two roots. */
static int sat_r3_rho(double p, double ts, double *rl, double *rg)
{
    if (!if97_region3_rho(p, ts, 1, rl) || !if97_region3_rho(p, ts, 0, rg)) {
        return 0;
    }
    /* Two distinct branches: IF97's region 3 closes its dome a few Pa below
       p_c (R7-97's region 3 meets Eq. 31 only approximately at the critical
       point); closer than that both Newton starts find the same root. */
    return *rl > *rg * (1.0 + 1e-4);
}

int ph_sat_at(double p, ph_sat *s)
{
    const double ts = if97_tsat(p);
    const double dts = 1.0 / dpsat_dt(p, ts);
    s->p = p;
    s->ts = ts;
    s->dts_dp = dts;
    if (p <= IF97_PS13) {
        sat_gibbs(1, p, ts, dts, &s->vl, &s->hl, &s->dvl, &s->dhl);
        sat_gibbs(2, p, ts, dts, &s->vg, &s->hg, &s->dvg, &s->dhg);
        return 1;
    }
    double rl, rg;
    if (!sat_r3_rho(p, ts, &rl, &rg)) {
        return 0;
    }
    sat_r3(rl, ts, dts, &s->vl, &s->hl, &s->dvl, &s->dhl);
    sat_r3(rg, ts, dts, &s->vg, &s->hg, &s->dvg, &s->dhg);
    return s->hg > s->hl;
}

void ph_two_phase(const ph_sat *s, double h, pcs_water_ph_state *out)
{
    const double dh = s->hg - s->hl;
    const double x = (h - s->hl) / dh;
    const double c = (s->vg - s->vl) / dh;
    const double v = s->vl + (h - s->hl) * c;
    const double a = s->dvl - c * s->dhl;
    const double b = (s->dvg - s->dvl) - c * (s->dhg - s->dhl);
    const double rho = 1.0 / v;
    out->phase = PCS_WATER_PH_TWO_PHASE;
    out->t_k = s->ts;
    out->rho_kg_m3 = rho;
    out->u_j_kg = h - s->p * v;
    out->x = x;
    out->alpha = x * s->vg * rho;
    out->drho_dp_s2_m2 = -rho * rho * (a + x * b);
    out->drho_dh_kg2_m3j = -rho * rho * c;
}

/* ---------------------------------------------------------------------- */
/* Single phase                                                             */
/* ---------------------------------------------------------------------- */

double ph_h_min(double p)
{
    return if97_region1_h(p, PCS_WATER_PH_T_MIN_K);
}

double ph_h_max(double p)
{
    return if97_region2_h(p, PCS_WATER_PH_T_MAX_K);
}

double ph_h_crit(void)
{
    if97_r3_state s;
    if97_region3_state(IF97_RHOC, IF97_TC, &s);
    return s.h;
}

static void single_state(int phase, double p, double h, double t, double rho, double drho_dp,
                         double drho_dh, pcs_water_ph_state *out)
{
    out->phase = phase;
    out->t_k = t;
    out->rho_kg_m3 = rho;
    out->u_j_kg = h - p / rho;
    out->x = phase == PCS_WATER_PH_VAPOUR ? 1.0 : 0.0;
    out->alpha = out->x;
    out->drho_dp_s2_m2 = drho_dp;
    out->drho_dh_kg2_m3j = drho_dh;
}

/*
 * Single-phase state. sat (NULL above p_c) is the saturation data of this
 * pressure; a region 3 result on the wrong side of it (pcs_water_props_ph
 * decides region 3's side with the backward p_3sat(h)) is re-solved from the
 * saturated phase of the right side.
 */
pcs_status ph_single_phase(const char *fn, int phase, double p, double h, const ph_sat *sat,
                           pcs_water_ph_state *out)
{
    pcs_water_props q;
    const pcs_status st = pcs_water_props_ph(p, h, &q);
    double drho_dp, drho_dh;
    if (st == PCS_OK && (q.region == 1 || q.region == 2)) {
        ph_gibbs g;
        gibbs_at(q.region, p, q.t_k, &g);
        gibbs_drho(&g, q.t_k, &drho_dp, &drho_dh);
        single_state(phase, p, h, q.t_k, 1.0 / g.v, drho_dp, drho_dh, out);
        return PCS_OK;
    }
    const int liquid = phase == PCS_WATER_PH_LIQUID;
    int right_side = st == PCS_OK && q.region == 3;
    if (right_side && sat != NULL) {
        right_side = liquid ? q.rho_kg_m3 >= 1.0 / sat->vl : q.rho_kg_m3 <= 1.0 / sat->vg;
    }
    double rho = q.rho_kg_m3, t = q.t_k;
    if (!right_side) {
        if (sat != NULL) {
            rho = 1.0 / (liquid ? sat->vl : sat->vg);
            t = sat->ts;
        } else {
            t = if97_region3_t_ph(p, h);
            rho = 1.0 / if97_region3_v_ph(p, h);
        }
        if (!if97_region3_newton(p, h, 1, 60, &rho, &t)) {
            return pcs_error_set(PCS_E_INVAL,
                                 "%s: no convergence in region 3 at p = %.10g Pa, h_j_kg = %.10g "
                                 "J/kg (too close to the critical point)",
                                 fn, p, h);
        }
    }
    r3_drho(rho, t, &drho_dp, &drho_dh);
    single_state(phase, p, h, t, rho, drho_dp, drho_dh, out);
    return PCS_OK;
}

pcs_status ph_exact_unchecked(const char *fn, double p, double h, pcs_water_ph_state *out)
{
    if (p >= IF97_PC) {
        return ph_single_phase(fn, PCS_WATER_PH_SUPERCRITICAL, p, h, NULL, out);
    }
    ph_sat s;
    if (!ph_sat_at(p, &s)) {
        return pcs_error_set(PCS_E_INVAL,
                             "%s: no convergence for the saturated densities at p = %.10g Pa "
                             "(too close to the critical pressure)",
                             fn, p);
    }
    if (h > s.hl && h < s.hg) {
        ph_two_phase(&s, h, out);
        return PCS_OK;
    }
    return ph_single_phase(fn, h <= s.hl ? PCS_WATER_PH_LIQUID : PCS_WATER_PH_VAPOUR, p, h, &s,
                           out);
}

/* ---------------------------------------------------------------------- */
/* Public                                                                   */
/* ---------------------------------------------------------------------- */

static pcs_status check_p(const char *fn, double p)
{
    return if97_check(fn, "p_pa", p, PCS_WATER_PH_P_MIN_PA, PCS_WATER_PH_P_MAX_PA, "Pa");
}

pcs_status pcs_water_ph_h_range(double p_pa, double *h_min_j_kg, double *h_max_j_kg)
{
    const pcs_status st = check_p("pcs_water_ph_h_range", p_pa);
    if (st != PCS_OK) {
        return st;
    }
    if (h_min_j_kg != NULL) {
        *h_min_j_kg = ph_h_min(p_pa);
    }
    if (h_max_j_kg != NULL) {
        *h_max_j_kg = ph_h_max(p_pa);
    }
    return PCS_OK;
}

/* The arguments of pcs_water_ph_exact: out given, p in range, then h between
 * the pressure's ends of the formulation. */
static pcs_status check_ph(const char *fn, double p_pa, double h_j_kg, const void *out)
{
    pcs_status st = if97_check_out(fn, "out", out);
    if (st == PCS_OK) {
        st = check_p(fn, p_pa);
    }
    if (st != PCS_OK) {
        return st;
    }
    const double lo = ph_h_min(p_pa), hi = ph_h_max(p_pa);
    if (!(h_j_kg >= lo && h_j_kg <= hi)) {
        return pcs_error_set(PCS_E_INVAL,
                             "%s: h_j_kg = %.10g J/kg at p = %.10g Pa is outside [%.10g, %.10g] "
                             "J/kg (T from 273.16 K to 1073.15 K)",
                             fn, h_j_kg, p_pa, lo, hi);
    }
    return PCS_OK;
}

pcs_status pcs_water_ph_exact(double p_pa, double h_j_kg, pcs_water_ph_state *out)
{
    static const char fn[] = "pcs_water_ph_exact";
    pcs_status st = check_ph(fn, p_pa, h_j_kg, out);
    if (st != PCS_OK) {
        return st;
    }
    pcs_water_ph_state q;
    st = ph_exact_unchecked(fn, p_pa, h_j_kg, &q);
    if (st == PCS_OK) {
        *out = q;
    }
    return st;
}
