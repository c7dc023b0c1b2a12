/**
 * @file water_if97_api.c
 * @brief Checked public entry points of the IF97 region, saturation and
 *        boundary equations (pcs_if97_*, pcs_water_psat, pcs_water_tsat).
 *
 * Each function validates its arguments against the range its equation is
 * published for (IAPWS R7-97(2012) Sec. 2 and the region sections; SR3-03 for
 * region 3 backward equations), evaluates the unchecked equation, and checks
 * that every result is finite before writing it: an equation pushed to the
 * edge of its range must produce PCS_E_INVAL, never NaN.
 */
#include <stddef.h>

#include "physics/water/kernels/if97_internal.h"
#include "pcsim/math.h"

pcs_status if97_check(const char *fn, const char *param, double v, double lo, double hi,
                      const char *unit)
{
    if (v >= lo && v <= hi) { /* false for NaN */
        return PCS_OK;
    }
    return pcs_error_set(PCS_E_INVAL, "%s: %s = %.10g %s is outside [%.10g, %.10g] %s", fn, param,
                         v, unit, lo, hi, unit);
}

pcs_status if97_check_pos(const char *fn, const char *param, double v, double hi, const char *unit)
{
    if (v > 0.0 && v <= hi) {
        return PCS_OK;
    }
    return pcs_error_set(PCS_E_INVAL, "%s: %s = %.10g %s is outside (0, %.10g] %s", fn, param, v,
                         unit, hi, unit);
}

pcs_status if97_check_out(const char *fn, const char *param, const void *ptr)
{
    if (ptr != NULL) {
        return PCS_OK;
    }
    return pcs_error_set(PCS_E_INVAL, "%s: %s is NULL", fn, param);
}

pcs_status if97_check_props(const char *fn, const pcs_water_props *q)
{
    const double v[] = {q->p_pa,     q->t_k,       q->rho_kg_m3, q->v_m3_kg, q->h_j_kg, q->u_j_kg,
                        q->s_j_kg_k, q->cp_j_kg_k, q->cv_j_kg_k, q->w_m_s,   q->quality};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
        if (!pcs_isfinite(v[k])) {
            return pcs_error_set(PCS_E_INVAL,
                                 "%s: no finite properties at p = %.10g Pa, T = %.10g K "
                                 "(state too far outside the region's equation)",
                                 fn, q->p_pa, q->t_k);
        }
    }
    return PCS_OK;
}

/* Finite scalar result, or PCS_E_INVAL naming the function and its inputs. */
static pcs_status finite_result(const char *fn, double r, const char *a, double va, const char *b,
                                double vb)
{
    if (pcs_isfinite(r)) {
        return PCS_OK;
    }
    return pcs_error_set(PCS_E_INVAL, "%s: no finite result at %s = %.10g, %s = %.10g", fn, a, va,
                         b, vb);
}

/* ---- region 4 and boundaries ---- */

typedef double (*scalar_fn)(double);

/* A one-argument equation: out pointer, published range of x, then eval. */
static pcs_status one_arg(const char *fn, scalar_fn eval, const char *xname, double x, double lo,
                          double hi, const char *unit, const char *outname, double *out)
{
    pcs_status st = if97_check_out(fn, outname, out);
    if (st == PCS_OK) {
        st = if97_check(fn, xname, x, lo, hi, unit);
    }
    if (st == PCS_OK) {
        *out = eval(x);
    }
    return st;
}

pcs_status pcs_water_psat(double t_k, double *p_pa)
{
    return one_arg("pcs_water_psat", if97_psat, "t_k", t_k, IF97_TMIN, IF97_TC, "K", "p_pa", p_pa);
}

pcs_status pcs_water_tsat(double p_pa, double *t_k)
{
    return one_arg("pcs_water_tsat", if97_tsat, "p_pa", p_pa, IF97_PSMIN, IF97_PC, "Pa", "t_k",
                   t_k);
}

pcs_status pcs_if97_b23_p(double t_k, double *p_pa)
{
    return one_arg("pcs_if97_b23_p", if97_b23_p, "t_k", t_k, IF97_T13, IF97_T23MAX, "K", "p_pa",
                   p_pa);
}

pcs_status pcs_if97_b23_t(double p_pa, double *t_k)
{
    return one_arg("pcs_if97_b23_t", if97_b23_t, "p_pa", p_pa, if97_b23_p(IF97_T13), IF97_PMAX,
                   "Pa", "t_k", t_k);
}

pcs_status pcs_if97_b2bc_p(double h_j_kg, double *p_pa)
{
    return one_arg("pcs_if97_b2bc_p", if97_b2bc_p, "h_j_kg", h_j_kg, 2.778e6,
                   3.516004323e6 * (1.0 + 1e-12), "J/kg", "p_pa", p_pa);
}

pcs_status pcs_if97_p3sat_h(double h_j_kg, double *p_pa)
{
    return one_arg("pcs_if97_p3sat_h", if97_p3sat_h, "h_j_kg", h_j_kg, 1.6708582183e6,
                   2.5635920039e6, "J/kg", "p_pa", p_pa);
}

pcs_status pcs_if97_p3sat_s(double s_j_kg_k, double *p_pa)
{
    return one_arg("pcs_if97_p3sat_s", if97_p3sat_s, "s_j_kg_k", s_j_kg_k, 3.7782813395e3,
                   5.2108878249e3, "J/(kg K)", "p_pa", p_pa);
}

/* ---- forward equations ---- */

typedef void (*props_fn)(double, double, pcs_water_props *);

static pcs_status region_pt(const char *fn, props_fn eval, double p_pa, double p_max, double t_k,
                            double t_lo, double t_hi, pcs_water_props *out)
{
    pcs_status st = if97_check_out(fn, "out", out);
    if (st == PCS_OK) {
        st = if97_check_pos(fn, "p_pa", p_pa, p_max, "Pa");
    }
    if (st == PCS_OK) {
        st = if97_check(fn, "t_k", t_k, t_lo, t_hi, "K");
    }
    if (st != PCS_OK) {
        return st;
    }
    pcs_water_props q;
    eval(p_pa, t_k, &q);
    st = if97_check_props(fn, &q);
    if (st == PCS_OK) {
        *out = q;
    }
    return st;
}

pcs_status pcs_if97_region1(double p_pa, double t_k, pcs_water_props *out)
{
    return region_pt("pcs_if97_region1", if97_region1_props, p_pa, IF97_PMAX, t_k, IF97_TMIN,
                     IF97_T13, out);
}

pcs_status pcs_if97_region2(double p_pa, double t_k, pcs_water_props *out)
{
    return region_pt("pcs_if97_region2", if97_region2_props, p_pa, IF97_PMAX, t_k, IF97_TMIN,
                     IF97_T25, out);
}

pcs_status pcs_if97_region5(double p_pa, double t_k, pcs_water_props *out)
{
    return region_pt("pcs_if97_region5", if97_region5_props, p_pa, IF97_PMAX5, t_k, IF97_T25,
                     IF97_TMAX5, out);
}

pcs_status pcs_if97_region3(double rho_kg_m3, double t_k, pcs_water_props *out)
{
    return region_pt("pcs_if97_region3", if97_region3_props, rho_kg_m3, 1000.0, t_k, IF97_T13,
                     IF97_T23MAX, out);
}

/* ---- backward equations ---- */

typedef double (*backward_fn)(double, double);

static pcs_status backward(const char *fn, backward_fn eval, double p_pa, double p_lo, double x,
                           const char *xname, double x_lo, double x_hi, const char *xunit,
                           const char *outname, double *res)
{
    pcs_status st = if97_check_out(fn, outname, res);
    if (st == PCS_OK) {
        st = p_lo > 0.0 ? if97_check(fn, "p_pa", p_pa, p_lo, IF97_PMAX, "Pa")
                        : if97_check_pos(fn, "p_pa", p_pa, IF97_PMAX, "Pa");
    }
    if (st == PCS_OK) {
        st = if97_check(fn, xname, x, x_lo, x_hi, xunit);
    }
    if (st != PCS_OK) {
        return st;
    }
    const double r = eval(p_pa, x);
    st = finite_result(fn, r, "p_pa", p_pa, xname, x);
    if (st == PCS_OK) {
        *res = r;
    }
    return st;
}

pcs_status pcs_if97_region1_t_ph(double p_pa, double h_j_kg, double *t_k)
{
    return backward("pcs_if97_region1_t_ph", if97_region1_t_ph, p_pa, 0.0, h_j_kg, "h_j_kg", -1e4,
                    1.7e6, "J/kg", "t_k", t_k);
}

pcs_status pcs_if97_region1_t_ps(double p_pa, double s_j_kg_k, double *t_k)
{
    return backward("pcs_if97_region1_t_ps", if97_region1_t_ps, p_pa, 0.0, s_j_kg_k, "s_j_kg_k",
                    -100.0, 3.8e3, "J/(kg K)", "t_k", t_k);
}

pcs_status pcs_if97_region2_t_ph(double p_pa, double h_j_kg, double *t_k)
{
    return backward("pcs_if97_region2_t_ph", if97_region2_t_ph, p_pa, 0.0, h_j_kg, "h_j_kg", 2.0e6,
                    4.2e6, "J/kg", "t_k", t_k);
}

pcs_status pcs_if97_region2_t_ps(double p_pa, double s_j_kg_k, double *t_k)
{
    return backward("pcs_if97_region2_t_ps", if97_region2_t_ps, p_pa, 0.0, s_j_kg_k, "s_j_kg_k",
                    5.0e3, 12.0e3, "J/(kg K)", "t_k", t_k);
}

static pcs_status region3_tv(const char *fn, backward_fn tf, backward_fn vf, double p_pa, double x,
                             const char *xname, double x_lo, double x_hi, const char *xunit,
                             double *t_k, double *v_m3_kg)
{
    double t = 0.0, v = 0.0;
    pcs_status st = PCS_OK;
    if (t_k == NULL && v_m3_kg == NULL) {
        return pcs_error_set(PCS_E_INVAL, "%s: t_k and v_m3_kg are both NULL", fn);
    }
    st = backward(fn, tf, p_pa, 16.5e6, x, xname, x_lo, x_hi, xunit, "t_k", &t);
    if (st == PCS_OK) {
        st = backward(fn, vf, p_pa, 16.5e6, x, xname, x_lo, x_hi, xunit, "v_m3_kg", &v);
    }
    if (st != PCS_OK) {
        return st;
    }
    if (t_k != NULL) {
        *t_k = t;
    }
    if (v_m3_kg != NULL) {
        *v_m3_kg = v;
    }
    return PCS_OK;
}

pcs_status pcs_if97_region3_tv_ph(double p_pa, double h_j_kg, double *t_k, double *v_m3_kg)
{
    return region3_tv("pcs_if97_region3_tv_ph", if97_region3_t_ph, if97_region3_v_ph, p_pa, h_j_kg,
                      "h_j_kg", 1.5e6, 2.9e6, "J/kg", t_k, v_m3_kg);
}

pcs_status pcs_if97_region3_tv_ps(double p_pa, double s_j_kg_k, double *t_k, double *v_m3_kg)
{
    return region3_tv("pcs_if97_region3_tv_ps", if97_region3_t_ps, if97_region3_v_ps, p_pa,
                      s_j_kg_k, "s_j_kg_k", 3.2e3, 5.3e3, "J/(kg K)", t_k, v_m3_kg);
}
