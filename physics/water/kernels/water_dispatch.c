/**
 * @file water_dispatch.c
 * @brief Region selection for IAPWS-IF97: properties at (p,T), T(p,h), T(p,s)
 *        and properties at (p,h), whatever the region.
 *
 * (p,T) -> region follows R7-97 Sec. 2 directly: the saturation line below
 * 623.15 K, B23 from 623.15 K to 863.15 K, 1073.15 K to region 5.
 *
 * (p,h) and (p,s) need more care, because the backward equation of a region
 * gives a temperature even for points outside that region. The rule used here
 * needs no tolerance: the forward equations are monotone in T at fixed p
 * (cp > 0), so if Newton on region 1's h(p,T) = h converges to a T that lies in
 * region 1 (T <= T_sat(p), or T <= 623.15 K above 16.53 MPa), the point IS in
 * region 1, and likewise for region 2. The backward equations (within 25 mK)
 * are the Newton starting points, so the common case costs one backward
 * evaluation and two forward evaluations. Only when neither region claims
 * the point are the boundary enthalpies computed, to tell the two-phase
 * region (T = T_sat(p)) and region 3 apart. Region 3 two-phase states above
 * 16.53 MPa are recognised with p_3sat(h) or p_3sat(s) (SR3-03 Eq. 10, 11).
 *
 * Newton stopping rule: when a step |dT| is below 1e-6 K the next error is
 * about (cp'/2cp) dT^2 < 1e-12 K (|cp'/cp| < 1/K everywhere outside the
 * critical point's immediate neighbourhood), so the updated T is returned
 * without a further evaluation. A Newton result within IF97_T_ROUND of a
 * region's edge temperature counts as inside (rounding, not physics), and
 * results at the ends of the formulation are clamped to 273.15 K / 1073.15 K.
 */

/* Rounding allowance at region edges, K: far below the 25 mK consistency of
   the backward equations, far above the ~1e-11 K error of the Newton result. */
#define IF97_T_ROUND 1e-7
#include <stddef.h>

#include "physics/water/kernels/if97_internal.h"
#include "pcsim/math.h"

/* ---------------------------------------------------------------------- */
/* (p, T)                                                                   */
/* ---------------------------------------------------------------------- */

static pcs_status check_pt(const char *fn, double p, double t)
{
    pcs_status st = if97_check(fn, "t_k", t, IF97_TMIN, IF97_TMAX5, "K");
    if (st == PCS_OK) {
        st = if97_check_pos(fn, "p_pa", p, t > IF97_T25 ? IF97_PMAX5 : IF97_PMAX, "Pa");
    }
    return st;
}

/* Region of a checked (p, T): R7-97 Sec. 2, Fig. 1. */
static int region_of_pt(double p, double t)
{
    if (t > IF97_T25) {
        return 5;
    }
    if (t <= IF97_T13) {
        return p >= if97_psat(t) ? 1 : 2;
    }
    if (t <= IF97_T23MAX && p > if97_b23_p(t)) {
        return 3;
    }
    return 2;
}

/*
 * Density of region 3 at (p, T): Newton on p3(rho, T) = p, kept inside a
 * bracket once both signs of the residual have been seen. Below T_c the
 * isotherm has a van der Waals loop inside the two-phase region, so the branch
 * is chosen by the start point: liquid (p >= p_sat(T)) from the dense side,
 * where the isotherm is convex and Newton descends monotonically onto the
 * liquid root; vapour from below the ideal-gas density, where it is concave
 * and Newton ascends onto the vapour root. Above T_c the isotherm is monotone
 * and the start is the dense side. Returns 0 if no root was found.
 */
int if97_region3_rho(double p, double t, int liquid, double *rho_out)
{
    double rho = liquid ? 800.0 : 0.5 * p / (IF97_R * t);
    /* The bracket: end[1] the last rho where p3 < p (have[1] once there is
     * one), end[0] the last where p3 >= p. */
    double end[2] = {0.0, 0.0};
    int have[2] = {0, 0};
    if (t >= IF97_TC) { /* monotone isotherm: bracket it from both sides at once */
        if97_r3_state s;
        end[1] = 0.5 * p / (IF97_R * t);
        if97_region3_state(end[1], t, &s);
        have[1] = s.p < p;
    }
    for (int it = 0; it < 200; it++) {
        if97_r3_state s;
        if97_region3_state(rho, t, &s);
        const double f = s.p - p;
        const int below = f < 0.0;
        end[below] = rho;
        have[below] = 1;
        if (pcs_fabs(f) <= 1e-13 * p) {
            *rho_out = rho;
            return 1;
        }
        double next = s.dp_drho > 0.0 ? rho - f / s.dp_drho : -1.0;
        if (have[0] && have[1]) {
            const double lo = pcs_fmin(end[1], end[0]), hi = pcs_fmax(end[1], end[0]);
            if (!(next > lo && next < hi)) {
                next = 0.5 * (lo + hi); /* bisection keeps the bracket */
            }
        } else if (!(next > 0.0 && next < 1000.0)) {
            /* a tangent from the far side of an inflection overshot: halve the
               distance instead (towards 0 from the dense side, up from the dilute) */
            next = liquid ? 0.5 * rho : 2.0 * rho;
        }
        if (pcs_fabs(next - rho) <= 1e-14 * rho) {
            *rho_out = next;
            return 1;
        }
        rho = next;
    }
    return 0;
}

static pcs_status r3_props_pt(const char *fn, double p, double t, pcs_water_props *out)
{
    const int liquid = t < IF97_TC ? p >= if97_psat(t) : 1;
    double rho;
    if (!if97_region3_rho(p, t, liquid, &rho)) {
        return pcs_error_set(PCS_E_INVAL,
                             "%s: no convergence for the region 3 density at p = %.10g Pa, "
                             "T = %.10g K (too close to the critical point)",
                             fn, p, t);
    }
    if97_region3_props(rho, t, out);
    out->p_pa = p;
    return PCS_OK;
}

static void props_pt_unchecked(int region, double p, double t, pcs_water_props *q)
{
    switch (region) {
    case 1:
        if97_region1_props(p, t, q);
        break;
    case 2:
        if97_region2_props(p, t, q);
        break;
    default:
        if97_region5_props(p, t, q);
        break;
    }
}

pcs_status pcs_water_region_pt(double p_pa, double t_k, int *region)
{
    static const char fn[] = "pcs_water_region_pt";
    pcs_status st = if97_check_out(fn, "region", region);
    if (st == PCS_OK) {
        st = check_pt(fn, p_pa, t_k);
    }
    if (st == PCS_OK) {
        *region = region_of_pt(p_pa, t_k);
    }
    return st;
}

pcs_status pcs_water_props_pt(double p_pa, double t_k, pcs_water_props *out)
{
    static const char fn[] = "pcs_water_props_pt";
    pcs_status st = if97_check_out(fn, "out", out);
    if (st == PCS_OK) {
        st = check_pt(fn, p_pa, t_k);
    }
    if (st != PCS_OK) {
        return st;
    }
    pcs_water_props q;
    const int region = region_of_pt(p_pa, t_k);
    if (region == 3) {
        st = r3_props_pt(fn, p_pa, t_k, &q);
    } else {
        props_pt_unchecked(region, p_pa, t_k, &q);
    }
    if (st == PCS_OK) {
        st = if97_check_props(fn, &q);
    }
    if (st == PCS_OK) {
        *out = q;
    }
    return st;
}

/*
 * One property at (p, T) whatever the region: regions 1, 2 and 5 have
 * equations that sum only what that property needs (by_region[region]);
 * region 3 needs its density solved first, so it takes the field of the full
 * properties (of_props).
 */
typedef struct pt_property {
    const char *fn;
    const char *outname;
    double (*by_region[6])(double p, double t); /* [1], [2], [5] */
    double (*of_props)(const pcs_water_props *q);
} pt_property;

static double rho1(double p, double t)
{
    return 1.0 / if97_region1_v(p, t);
}

static double rho2(double p, double t)
{
    return 1.0 / if97_region2_v(p, t);
}

static double rho5(double p, double t)
{
    return 1.0 / if97_region5_v(p, t);
}

static double h_of(const pcs_water_props *q)
{
    return q->h_j_kg;
}

static double rho_of(const pcs_water_props *q)
{
    return q->rho_kg_m3;
}

static const pt_property h_pt = {"pcs_water_h_pt",
                                 "h_j_kg",
                                 {[1] = if97_region1_h, [2] = if97_region2_h, [5] = if97_region5_h},
                                 h_of};
static const pt_property rho_pt = {
    "pcs_water_rho_pt", "rho_kg_m3", {[1] = rho1, [2] = rho2, [5] = rho5}, rho_of};

static pcs_status property_pt(const pt_property *prop, double p, double t, double *out)
{
    pcs_status st = if97_check_out(prop->fn, prop->outname, out);
    if (st == PCS_OK) {
        st = check_pt(prop->fn, p, t);
    }
    if (st != PCS_OK) {
        return st;
    }
    const int region = region_of_pt(p, t);
    if (region != 3) {
        *out = prop->by_region[region](p, t);
        return PCS_OK;
    }
    pcs_water_props q;
    st = r3_props_pt(prop->fn, p, t, &q);
    if (st == PCS_OK) {
        *out = prop->of_props(&q);
    }
    return st;
}

pcs_status pcs_water_h_pt(double p_pa, double t_k, double *h_j_kg)
{
    return property_pt(&h_pt, p_pa, t_k, h_j_kg);
}

pcs_status pcs_water_rho_pt(double p_pa, double t_k, double *rho_kg_m3)
{
    return property_pt(&rho_pt, p_pa, t_k, rho_kg_m3);
}

/* ---------------------------------------------------------------------- */
/* (p, h) and (p, s)                                                        */
/* ---------------------------------------------------------------------- */

/* Region 1's or 2's equations for the target, and the gate of its fast path. */
typedef struct region12_ops {
    double (*back_t)(double p, double y);                     /* backward T(p, y) */
    void (*fwd)(double p, double t, double *y, double *dydt); /* forward y(p, T), dy/dT */
    double gate; /* region 1: above it no state exists; region 2: below it none */
} region12_ops;

/* Region 3's equations for the target. */
typedef struct region3_ops {
    double (*back_t)(double p, double y); /* backward T(p, y) */
    double (*back_v)(double p, double y); /* backward v(p, y) */
    double (*p3sat)(double y);
    double y_lo, y_hi; /* range of p3sat: y'(623.15 K), y''(623.15 K) */
} region3_ops;

/* What is inverted: h or s, with the matching equations region by region. */
typedef struct target_ops {
    struct {
        const char *fn;    /* public function name for messages */
        const char *param; /* "h_j_kg" or "s_j_kg_k" */
        const char *unit;
        int is_h;
    } what;
    region12_ops r1, r2;
    region3_ops r3;
} target_ops;

/*
 * Fast-path gates: the largest h and s of region 1 are h'(623.15 K) = 1.671
 * MJ/kg and s'(623.15 K) = 3.778 kJ/(kg K); the smallest of region 2 are
 * h''(273.15 K) = 2.501 MJ/kg and s_B23(100 MPa) = 5.048 kJ/(kg K) (computed
 * with R7-97 over the region boundaries). Margins keep the gates loose; they
 * only save wasted Newton attempts, the slow path decides correctness.
 */
static const target_ops ops_h = {
    .what = {"pcs_water_t_ph", "h_j_kg", "J/kg", 1},
    .r1 = {if97_region1_t_ph, if97_region1_h_cp, 1.70e6},
    .r2 = {if97_region2_t_ph, if97_region2_h_cp, 2.45e6},
    .r3 = {if97_region3_t_ph, if97_region3_v_ph, if97_p3sat_h, 1.6708582183e6, 2.5635920039e6},
};

static const target_ops ops_s = {
    .what = {"pcs_water_t_ps", "s_j_kg_k", "J/(kg K)", 0},
    .r1 = {if97_region1_t_ps, if97_region1_s_dsdt, 3.85e3},
    .r2 = {if97_region2_t_ps, if97_region2_s_dsdt, 4.95e3},
    .r3 = {if97_region3_t_ps, if97_region3_v_ps, if97_p3sat_s, 3.7782813395e3, 5.2108878249e3},
};

/* Newton on T for region 1 or 2 (r) at fixed p; 0 if it does not converge. */
static int newton_t(const region12_ops *r, double p, double y, double t0, double *t_out)
{
    double t = t0;
    for (int it = 0; it < 30; it++) {
        double v, d;
        r->fwd(p, t, &v, &d);
        if (!(d > 0.0) || !pcs_isfinite(v)) {
            return 0;
        }
        const double dt = (v - y) / d;
        t -= dt;
        if (!(t > 100.0 && t < 3000.0)) {
            return 0; /* wandered far outside the formulation */
        }
        if (pcs_fabs(dt) <= 1e-6) {
            *t_out = t;
            return 1;
        }
    }
    return 0;
}

/*
 * 2-D Newton on (rho, T) for region 3: p_3(rho, T) = p and h_3 (is_h) or s_3
 * (rho, T) = y, from (*rho_io, *t_io), at most max_it steps. A step that would
 * leave rho > 0, T > 0 is halved (at most 60 times: a step that large means the
 * Jacobian is singular, and the next det test ends the solve).
 */
int if97_region3_newton(double p, double y, int is_h, int max_it, double *rho_io, double *t_io)
{
    double rho = *rho_io, t = *t_io;
    for (int it = 0; it < max_it; it++) {
        if97_r3_state s;
        if97_region3_state(rho, t, &s);
        const double f1 = s.p - p;
        const double f2 = (is_h ? s.h : s.s) - y;
        const double a = s.dp_drho, b = s.dp_dt;
        const double c = is_h ? s.dh_drho : s.ds_drho;
        const double d = is_h ? s.dh_dt : s.ds_dt;
        const double det = a * d - b * c;
        if (!(pcs_fabs(det) > 0.0) || !pcs_isfinite(det)) {
            return 0;
        }
        double drho = (f1 * d - b * f2) / det;
        double dt = (a * f2 - c * f1) / det;
        for (int k = 0; k < 60 && (rho - drho <= 0.0 || t - dt <= 0.0); k++) {
            drho *= 0.5; /* stay physical */
            dt *= 0.5;
        }
        rho -= drho;
        t -= dt;
        if (pcs_fabs(drho) <= 1e-12 * rho && pcs_fabs(dt) <= 1e-9) {
            *rho_io = rho;
            *t_io = t;
            return 1;
        }
    }
    return 0;
}

/* Region 3 from the SR3-03 backward equations (|dT| <= 25 mK, |dv/v| <= 1e-4). */
static int newton_r3(const target_ops *op, double p, double y, double *rho_out, double *t_out)
{
    *t_out = op->r3.back_t(p, y);
    *rho_out = 1.0 / op->r3.back_v(p, y);
    if (!(*t_out > 0.0 && *rho_out > 0.0 && pcs_isfinite(*t_out) && pcs_isfinite(*rho_out))) {
        return 0;
    }
    return if97_region3_newton(p, y, op->what.is_h, 50, rho_out, t_out);
}

/* Result of a (p,h) or (p,s) solve. */
typedef struct py_sol {
    int region; /* 1, 2, 3 or 4 */
    double t;   /* K */
    double rho; /* region 3 only, kg/m3 */
} py_sol;

static pcs_status out_of_range(const target_ops *op, double p, double y, const char *side)
{
    return pcs_error_set(PCS_E_INVAL,
                         "%s: %s = %.10g %s at p = %.10g Pa gives T %s the range "
                         "[273.15, 1073.15] K",
                         op->what.fn, op->what.param, y, op->what.unit, p, side);
}

static pcs_status finish_r1(const target_ops *op, double p, double y, double t, py_sol *sol)
{
    if (t < IF97_TMIN - IF97_T_ROUND) {
        return out_of_range(op, p, y, "below");
    }
    sol->region = 1;
    sol->t = pcs_fmax(t, IF97_TMIN);
    return PCS_OK;
}

static pcs_status finish_r2(const target_ops *op, double p, double y, double t, py_sol *sol)
{
    if (t > IF97_T25 + IF97_T_ROUND) {
        return out_of_range(op, p, y, "above");
    }
    sol->region = 2;
    sol->t = pcs_fmin(t, IF97_T25);
    return PCS_OK;
}

static pcs_status no_convergence(const target_ops *op, double p, double y, int region)
{
    return pcs_error_set(PCS_E_INVAL,
                         "%s: no convergence in region %d at p = %.10g Pa, %s = %.10g %s",
                         op->what.fn, region, p, op->what.param, y, op->what.unit);
}

/*
 * Classify and solve (p, y) with y = h or s. t_hi1 is the top of region 1 at
 * this pressure (T_sat(p) or 623.15 K), t_lo2 the bottom of region 2
 * (T_sat(p) or T_B23(p)).
 */
static pcs_status solve_py(const target_ops *op, double p, double y, py_sol *sol)
{
    const int low_p = p <= IF97_PS13;
    const int has_liquid = p >= IF97_PSMIN;
    const double ts = low_p && has_liquid ? if97_tsat(p) : 0.0;
    const double t_hi1 = low_p ? ts : IF97_T13;
    const double t_lo2 = low_p ? ts : if97_b23_t(p);
    double t;

    /* Fast paths: Newton from the backward equations; see the file comment. */
    if (has_liquid && y <= op->r1.gate) {
        const double t1 = op->r1.back_t(p, y);
        if (t1 <= t_hi1 + 1.0 && newton_t(&op->r1, p, y, t1, &t) && t <= t_hi1 + IF97_T_ROUND &&
            t >= IF97_TMIN - IF97_T_ROUND) {
            return finish_r1(op, p, y, t, sol);
        }
    }
    const double t2 = y >= op->r2.gate ? op->r2.back_t(p, y) : 0.0;
    if (t2 >= t_lo2 - 1.0 && newton_t(&op->r2, p, y, t2, &t) && t >= t_lo2 - IF97_T_ROUND &&
        t <= IF97_T25 + IF97_T_ROUND) {
        return finish_r2(op, p, y, t, sol);
    }

    /* Slow path: compare with the values on the region boundaries. */
    double y_b1 = 0.0, y_b2, d;
    if (has_liquid) {
        op->r1.fwd(p, t_hi1, &y_b1, &d);
    }
    op->r2.fwd(p, has_liquid ? t_lo2 : IF97_TMIN, &y_b2, &d);
    if (has_liquid && y <= y_b1) {
        /* Newton from the top of region 1, where h(T) is convex: monotone */
        if (!newton_t(&op->r1, p, y, t_hi1, &t)) {
            return no_convergence(op, p, y, 1);
        }
        return finish_r1(op, p, y, t, sol);
    }
    if (y >= y_b2 || !has_liquid) {
        if (!has_liquid && y < y_b2) {
            return out_of_range(op, p, y, "below");
        }
        if (!newton_t(&op->r2, p, y, has_liquid ? t_lo2 : IF97_TMIN, &t)) {
            return no_convergence(op, p, y, 2);
        }
        return finish_r2(op, p, y, t, sol);
    }
    if (low_p) { /* y' <= y <= y'': two-phase */
        sol->region = 4;
        sol->t = ts;
        return PCS_OK;
    }
    /* region 3, or its two-phase part below the critical pressure */
    if (p < IF97_PC && y >= op->r3.y_lo && y <= op->r3.y_hi && p < op->r3.p3sat(y)) {
        sol->region = 4;
        sol->t = if97_tsat(p);
        return PCS_OK;
    }
    double rho;
    if (!newton_r3(op, p, y, &rho, &t)) {
        return no_convergence(op, p, y, 3);
    }
    sol->region = 3;
    sol->t = t;
    sol->rho = rho;
    return PCS_OK;
}

static pcs_status solve_checked(const target_ops *op, double p, double y, const void *out,
                                py_sol *sol)
{
    pcs_status st = if97_check_out(op->what.fn, "out", out);
    if (st == PCS_OK) {
        st = if97_check_pos(op->what.fn, "p_pa", p, IF97_PMAX, "Pa");
    }
    if (st == PCS_OK && !pcs_isfinite(y)) {
        st =
            pcs_error_set(PCS_E_INVAL, "%s: %s = %g is not finite", op->what.fn, op->what.param, y);
    }
    if (st == PCS_OK) {
        st = solve_py(op, p, y, sol);
    }
    return st;
}

pcs_status pcs_water_t_ph(double p_pa, double h_j_kg, double *t_k)
{
    py_sol sol;
    const pcs_status st = solve_checked(&ops_h, p_pa, h_j_kg, t_k, &sol);
    if (st == PCS_OK) {
        *t_k = sol.t;
    }
    return st;
}

pcs_status pcs_water_t_ps(double p_pa, double s_j_kg_k, double *t_k)
{
    py_sol sol;
    const pcs_status st = solve_checked(&ops_s, p_pa, s_j_kg_k, t_k, &sol);
    if (st == PCS_OK) {
        *t_k = sol.t;
    }
    return st;
}

/* Saturated liquid and vapour at (p, T_sat(p)) from the right equations. */
static pcs_status saturated(const char *fn, double p, double ts, pcs_water_props *liq,
                            pcs_water_props *vap)
{
    if (p <= IF97_PS13) {
        if97_region1_props(p, ts, liq);
        if97_region2_props(p, ts, vap);
        return PCS_OK;
    }
    double rl, rv;
    if (!if97_region3_rho(p, ts, 1, &rl) || !if97_region3_rho(p, ts, 0, &rv)) {
        return pcs_error_set(
            PCS_E_INVAL, "%s: no convergence for the saturated densities at p = %.10g Pa", fn, p);
    }
    if97_region3_props(rl, ts, liq);
    if97_region3_props(rv, ts, vap);
    return PCS_OK;
}

pcs_status pcs_water_props_ph(double p_pa, double h_j_kg, pcs_water_props *out)
{
    static const char fn[] = "pcs_water_props_ph";
    py_sol sol;
    pcs_status st = solve_checked(&ops_h, p_pa, h_j_kg, out, &sol);
    if (st != PCS_OK) {
        return st;
    }
    pcs_water_props q;
    if (sol.region == 1 || sol.region == 2) {
        props_pt_unchecked(sol.region, p_pa, sol.t, &q);
    } else if (sol.region == 3) {
        if97_region3_props(sol.rho, sol.t, &q);
    } else {
        pcs_water_props l, v;
        st = saturated(fn, p_pa, sol.t, &l, &v);
        if (st != PCS_OK) {
            return st;
        }
        const double x = pcs_clamp((h_j_kg - l.h_j_kg) / (v.h_j_kg - l.h_j_kg), 0.0, 1.0);
        q.region = 4;
        q.t_k = sol.t;
        q.quality = x;
        q.v_m3_kg = l.v_m3_kg + x * (v.v_m3_kg - l.v_m3_kg);
        q.rho_kg_m3 = 1.0 / q.v_m3_kg;
        q.h_j_kg = h_j_kg;
        q.u_j_kg = l.u_j_kg + x * (v.u_j_kg - l.u_j_kg);
        q.s_j_kg_k = l.s_j_kg_k + x * (v.s_j_kg_k - l.s_j_kg_k);
        q.cp_j_kg_k = 0.0;
        q.cv_j_kg_k = 0.0;
        q.w_m_s = 0.0;
    }
    q.p_pa = p_pa;
    st = if97_check_props(fn, &q);
    if (st == PCS_OK) {
        *out = q;
    }
    return st;
}
