/**
 * @file thnet_hem.c
 * @brief Homogeneous-equilibrium critical (choked) mass flux from IF97,
 *        refdata/th_reference.md section 2.
 *
 * From the stagnation state (p0, h0), s0 = s(p0, h0); at a throat pressure p
 * the state is the equilibrium state at (p, s0) and
 *   G(p) = rho(p, s0) sqrt(2 (h0 - h(p, s0))),  Gc = max over 1 kPa <= p < p0.
 * The isentrope has up to two smooth pieces: single phase (compressed liquid
 * or vapour, when the stagnation state is) down to the saturation kink p_k
 * (s_f(p_k) = s0 for liquid, s_g(p_k) = s0 for vapour), and two-phase below
 * it. G has a kink at p_k (the equilibrium sound speed drops on entering the
 * dome), so each piece is maximised separately (Brent's golden-section and
 * parabolic search in ln p, to 1e-10 relative in ln p) and G(p_k) itself is a candidate.
 * Single-phase throat states: T from the region's backward T(p,s) refined by
 * Newton on the forward s(p,T) (|dT| < 1e-11 T). Two-phase: the saturated
 * phases are region 1 and 2 at (T_sat(p), p), x = (s0 - s_f)/(s_g - s_f) and
 * h, v linear in x. That limits two-phase throats to T_sat <= 623.15 K
 * (p <= 16.529 MPa); the two-phase piece is searched below that pressure
 * only, and a single-phase stagnation state whose kink would lie in the
 * region 3 dome is refused (PCS_E_INVAL).
 *
 * The two-phase piece reads the saturated phases through a hem_sat_fn
 * (thnet_hem_internal.h): IF97 here (hem_sat_if97), the saturation table in
 * thnet_hem_table.c (pcs_thnet_choke_table, the table eos's choke), which
 * runs the same search (hem_search_dome) on it.
 */
#include "physics/thermohydraulics/kernels/thnet_hem_internal.h"

#include "pcsim/math.h"
#include "pcsim/thnet.h"
#include "pcsim/water.h"

#define GC_P_MIN HEM_P_MIN_PA
#define SAT_T_MAX_K 623.15
#define GOLD 0.3819660112501051

enum piece { P_LIQ, P_VAP, P_TWO };

typedef struct iso {
    double h0, s0;
    enum piece piece;
    hem_sat_fn sat; /* the saturated phases of the two-phase piece */
} iso;

typedef struct throat {
    double g, rho, h, x;
} throat;

static pcs_status sat_phases(double p, pcs_water_props *f, pcs_water_props *g)
{
    double t = 0.0;
    pcs_status st = pcs_water_tsat(p, &t);
    if (st != PCS_OK)
        return st;
    if (t > SAT_T_MAX_K)
        return pcs_error_set(PCS_E_INVAL,
                             "IF97 saturated phases at p %g Pa: T_sat %g K is above region 1's "
                             "623.15 K (the region 3 dome)",
                             p, t);
    st = pcs_if97_region1(p, t, f);
    return st == PCS_OK ? pcs_if97_region2(p, t, g) : st;
}

pcs_status hem_sat_if97(double p, double lnp, hem_sat *out)
{
    (void)lnp;
    pcs_water_props f, g;
    pcs_status st = sat_phases(p, &f, &g);
    if (st == PCS_OK)
        *out = (hem_sat){f.h_j_kg, g.h_j_kg, f.s_j_kg_k, g.s_j_kg_k, f.v_m3_kg, g.v_m3_kg};
    return st;
}

pcs_status pcs_thnet_sat_if97(void *ctx, double p_pa, pcs_thnet_sat *out)
{
    (void)ctx;
    if (!out)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_sat_if97: out is NULL");
    pcs_water_props f, g;
    pcs_status st = sat_phases(p_pa, &f, &g);
    if (st == PCS_OK)
        *out = (pcs_thnet_sat){f.h_j_kg, g.h_j_kg, f.rho_kg_m3, g.rho_kg_m3};
    return st;
}

/* Single-phase state of region 1 or 2 at (p, s0) by Newton on s(p, T). */
static pcs_status single_ps(double p, double s0, int region, pcs_water_props *w)
{
    double t = 0.0;
    pcs_status st =
        region == 1 ? pcs_if97_region1_t_ps(p, s0, &t) : pcs_if97_region2_t_ps(p, s0, &t);
    if (st != PCS_OK) {
        if ((st = pcs_water_tsat(pcs_fmin(p, PCS_IF97_PC_PA), &t)) != PCS_OK)
            return st;
    }
    for (int it = 0; it < 30; it++) {
        t = pcs_clamp(t, PCS_IF97_T_MIN_K, region == 1 ? SAT_T_MAX_K : 1073.15);
        st = region == 1 ? pcs_if97_region1(p, t, w) : pcs_if97_region2(p, t, w);
        if (st != PCS_OK)
            return st;
        double dt = (s0 - w->s_j_kg_k) * t / w->cp_j_kg_k;
        t += dt;
        if (pcs_fabs(dt) < 1e-11 * t)
            return region == 1 ? pcs_if97_region1(p, t, w) : pcs_if97_region2(p, t, w);
    }
    return pcs_error_set(PCS_E_NUMERIC, "HEM critical flow: no T at p %g Pa, s %g J/(kg K)", p, s0);
}

/* The throat state at p (ln p = lnp: the table's argument). */
static pcs_status throat_at(const iso *c, double p, double lnp, throat *out)
{
    pcs_water_props w;
    pcs_status st;
    double rho, h, x;
    if (c->piece == P_TWO) {
        hem_sat sat;
        if ((st = c->sat(p, lnp, &sat)) != PCS_OK)
            return st;
        x = (c->s0 - sat.sf) / (sat.sg - sat.sf);
        h = sat.hf + x * (sat.hg - sat.hf);
        rho = 1.0 / (sat.vf + x * (sat.vg - sat.vf));
    } else {
        if ((st = single_ps(p, c->s0, c->piece == P_LIQ ? 1 : 2, &w)) != PCS_OK)
            return st;
        x = c->piece == P_LIQ ? 0.0 : 1.0;
        h = w.h_j_kg;
        rho = w.rho_kg_m3;
    }
    double dh = c->h0 - h;
    out->g = rho * pcs_sqrt(dh > 0.0 ? 2.0 * dh : 0.0);
    out->rho = rho;
    out->h = h;
    out->x = x;
    return PCS_OK;
}

static double neg_g(const iso *c, double lnp, pcs_status *st)
{
    throat t;
    pcs_status s = throat_at(c, pcs_exp(lnp), lnp, &t);
    if (s != PCS_OK) {
        *st = s;
        return 0.0;
    }
    return -t.g;
}

/* Brent's minimiser of -G over [a, b] in ln p (R.P. Brent, Algorithms for
   Minimization without Derivatives, 1973, ch. 5). Returns ln p at the minimum. */
static double brent_max(const iso *c, double a, double b, double tol, pcs_status *st)
{
    double x = a + GOLD * (b - a), w = x, v = x;
    double fx = neg_g(c, x, st), fw = fx, fv = fx, d = 0.0, e = 0.0;
    for (int it = 0; it < 200 && *st == PCS_OK; it++) {
        double m = 0.5 * (a + b), tol1 = tol * pcs_fabs(x) + 1e-12, tol2 = 2.0 * tol1;
        if (pcs_fabs(x - m) <= tol2 - 0.5 * (b - a))
            break;
        int golden = 1;
        if (pcs_fabs(e) > tol1) {
            double r = (x - w) * (fx - fv), q = (x - v) * (fx - fw), pp = (x - v) * q - (x - w) * r;
            q = 2.0 * (q - r);
            if (q > 0.0)
                pp = -pp;
            q = pcs_fabs(q);
            double etemp = e;
            e = d;
            if (pcs_fabs(pp) < pcs_fabs(0.5 * q * etemp) && pp > q * (a - x) && pp < q * (b - x)) {
                d = pp / q;
                double u = x + d;
                if (u - a < tol2 || b - u < tol2)
                    d = x < m ? tol1 : -tol1;
                golden = 0;
            }
        }
        if (golden) {
            e = (x >= m) ? a - x : b - x;
            d = GOLD * e;
        }
        double u = x + (pcs_fabs(d) >= tol1 ? d : (d > 0.0 ? tol1 : -tol1));
        double fu = neg_g(c, u, st);
        if (fu <= fx) {
            if (u >= x)
                a = x;
            else
                b = x;
            v = w, fv = fw, w = x, fw = fx, x = u, fx = fu;
        } else {
            if (u < x)
                a = u;
            else
                b = u;
            if (fu <= fw || w == x) {
                v = w, fv = fw, w = u, fw = fu;
            } else if (fu <= fv || v == x || v == w) {
                v = u, fv = fu;
            }
        }
    }
    return x;
}

/* Saturated entropy s_f (liquid) or s_g (vapour) at p, minus s0. */
static pcs_status sat_s_minus(double p, double s0, int vapour, double *out)
{
    pcs_water_props f, g;
    pcs_status st = sat_phases(p, &f, &g);
    if (st == PCS_OK)
        *out = (vapour ? g.s_j_kg_k : f.s_j_kg_k) - s0;
    return st;
}

/* The kink p_k in [a, b] (ln p): Illinois regula falsi until the estimate
   moves by less than 1e-15 in ln p. *pk = 0 if s0 is not crossed. */
static pcs_status kink(double s0, int vapour, double a, double b, double *pk)
{
    double fa, fb;
    pcs_status st = sat_s_minus(pcs_exp(a), s0, vapour, &fa);
    if (st == PCS_OK)
        st = sat_s_minus(pcs_exp(b), s0, vapour, &fb);
    if (st != PCS_OK)
        return st;
    *pk = 0.0;
    if (fa * fb > 0.0)
        return PCS_OK;
    double c = fa == 0.0 ? a : b, prev = a;
    int side = 0;
    for (int it = 0; it < 200 && fa != 0.0 && fb != 0.0; it++) {
        double fc;
        c = (a * fb - b * fa) / (fb - fa);
        if ((st = sat_s_minus(pcs_exp(c), s0, vapour, &fc)) != PCS_OK)
            return st;
        if (fc == 0.0 || pcs_fabs(c - prev) < 1e-15 * pcs_fabs(c))
            break;
        prev = c;
        if (fc * fb > 0.0) {
            b = c, fb = fc;
            if (side == -1)
                fa *= 0.5;
            side = -1;
        } else {
            a = c, fa = fc;
            if (side == 1)
                fb *= 0.5;
            side = 1;
        }
    }
    *pk = pcs_exp(c);
    return PCS_OK;
}

static void consider(const iso *c, double p, const throat *t, pcs_thnet_choke *best)
{
    (void)c;
    if (t->g > best->g_kg_m2s) {
        best->g_kg_m2s = t->g;
        best->p_throat_pa = p;
        best->x_throat = t->x;
        best->rho_throat_kg_m3 = t->rho;
    }
}

/* Search one smooth piece [plo, phi] for its maximum, add it and its ends. */
static pcs_status search_piece(iso *c, enum piece piece, double plo, double phi,
                               pcs_thnet_choke *best)
{
    if (!(phi > plo))
        return PCS_OK;
    c->piece = piece;
    pcs_status st = PCS_OK;
    double lnp = brent_max(c, pcs_log(plo), pcs_log(phi), 1e-10, &st);
    if (st != PCS_OK)
        return st;
    throat t;
    double p = pcs_exp(lnp);
    if ((st = throat_at(c, p, lnp, &t)) != PCS_OK)
        return st;
    consider(c, p, &t, best);
    if (piece != P_TWO && throat_at(c, plo, pcs_log(plo), &t) == PCS_OK)
        consider(c, plo, &t, best); /* the single-phase end at the kink */
    return PCS_OK;
}

pcs_status hem_search_dome(hem_sat_fn sat, double p0_pa, double h0_j_kg, double s0_j_kg_k,
                           double rho0_kg_m3, double ptop_pa, pcs_thnet_choke *out)
{
    iso c = {h0_j_kg, s0_j_kg_k, P_TWO, sat};
    pcs_thnet_choke best = {0.0, p0_pa, 0.0, rho0_kg_m3};
    pcs_status st = search_piece(&c, P_TWO, GC_P_MIN, ptop_pa, &best);
    if (st == PCS_OK)
        *out = best;
    return st;
}

pcs_status pcs_thnet_choke_if97(void *ctx, double p0_pa, double h0_j_kg, pcs_thnet_choke *out)
{
    (void)ctx;
    if (!out)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_choke_if97: out is NULL");
    pcs_water_props w;
    pcs_status st = pcs_water_props_ph(p0_pa, h0_j_kg, &w);
    if (st != PCS_OK)
        return st;
    if (!(p0_pa > GC_P_MIN))
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_choke_if97: p0 %g Pa is not above %g Pa",
                             p0_pa, GC_P_MIN);
    iso c = {h0_j_kg, w.s_j_kg_k, P_TWO, hem_sat_if97};
    pcs_thnet_choke best = {0.0, p0_pa, 0.0, w.rho_kg_m3};
    double psat_max = 0.0;
    if ((st = pcs_water_psat(SAT_T_MAX_K, &psat_max)) != PCS_OK)
        return st;
    double ptop = pcs_fmin(p0_pa, psat_max);
    int region = w.region;
    if (p0_pa <= psat_max && region != 4) {
        /* A state on a saturation line (x0 = 0 or 1) starts in the dome. */
        pcs_water_props f, g;
        if ((st = sat_phases(p0_pa, &f, &g)) != PCS_OK)
            return st;
        double eps = 1e-12 * g.s_j_kg_k;
        if (c.s0 >= f.s_j_kg_k - eps && c.s0 <= g.s_j_kg_k + eps)
            region = 4;
    }
    if (region == 4) {
        st = search_piece(&c, P_TWO, GC_P_MIN, ptop, &best);
    } else if (region == 1 || region == 2) {
        int vap = region == 2;
        double pk = 0.0;
        st = kink(c.s0, vap, pcs_log(GC_P_MIN), pcs_log(ptop), &pk);
        if (st == PCS_OK && pk == 0.0 && p0_pa > psat_max) {
            double d = 0.0;
            st = sat_s_minus(psat_max, c.s0, vap, &d);
            if (st == PCS_OK && (vap ? d > 0.0 : d < 0.0))
                return pcs_error_set(PCS_E_INVAL,
                                     "pcs_thnet_choke_if97: stagnation (%g Pa, %g J/kg) meets "
                                     "saturation in the region 3 dome (not evaluated)",
                                     p0_pa, h0_j_kg);
        }
        double p1 = pk > 0.0 ? pk : GC_P_MIN;
        if (st == PCS_OK)
            st = search_piece(&c, vap ? P_VAP : P_LIQ, p1, p0_pa, &best);
        if (st == PCS_OK && pk > 0.0) {
            throat t;
            c.piece = P_TWO;
            if ((st = throat_at(&c, pk, pcs_log(pk), &t)) == PCS_OK) {
                t.x = vap ? 1.0 : 0.0; /* at the kink by definition */
                consider(&c, pk, &t, &best);
                st = search_piece(&c, P_TWO, GC_P_MIN, pk, &best);
            }
        }
    } else {
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_thnet_choke_if97: stagnation (%g Pa, %g J/kg) is in IF97 "
                             "region %d; only regions 1, 2 and the dome below 623.15 K are "
                             "evaluated",
                             p0_pa, h0_j_kg, w.region);
    }
    if (st != PCS_OK)
        return st;
    *out = best;
    return PCS_OK;
}
