/**
 * @file test_water_dispatch.c
 * @brief Region selection, inverses and error handling of the pcs_water_*
 *        functions (include/pcsim/water.h).
 *
 * Reference values are from IAPWS R7-97(2012) tables (cited per assertion);
 * the round-trip tests are invariants: T(p, h(p, T)) = T.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "pcsim/rng.h"
#include "pcsim/water.h"

/* Points of the verification tables and the region they were published for. */
Test(water_dispatch, region_of_published_points)
{
    static const struct {
        double p_pa, t_k;
        int region;
    } c[] = {
        {3e6, 300.0, 1},          {80e6, 500.0, 1},         /* R7-97 Table 5 */
        {3500.0, 300.0, 2},       {30e6, 700.0, 2},         /* Table 15 */
        {25.5837018e6, 650.0, 3}, {78.3095639e6, 750.0, 3}, /* Table 33 */
        {0.5e6, 1500.0, 5},       {30e6, 2000.0, 5},        /* Table 42 */
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        int region = 0;
        cr_assert_eq(pcs_water_region_pt(c[k].p_pa, c[k].t_k, &region), PCS_OK);
        cr_assert_eq(region, c[k].region, "case %zu: region %d", k, region);
    }
}

/* Field-by-field equality (a struct may have padding, so no memcmp). */
static int props_equal(const pcs_water_props *a, const pcs_water_props *b)
{
    return a->region == b->region && a->p_pa == b->p_pa && a->t_k == b->t_k &&
           a->rho_kg_m3 == b->rho_kg_m3 && a->v_m3_kg == b->v_m3_kg && a->h_j_kg == b->h_j_kg &&
           a->u_j_kg == b->u_j_kg && a->s_j_kg_k == b->s_j_kg_k && a->cp_j_kg_k == b->cp_j_kg_k &&
           a->cv_j_kg_k == b->cv_j_kg_k && a->w_m_s == b->w_m_s && a->quality == b->quality;
}

/* Regions 1, 2, 5: the dispatcher returns exactly what the region equation gives. */
Test(water_dispatch, props_pt_is_the_region_equation)
{
    pcs_water_props a, b;
    cr_assert_eq(pcs_water_props_pt(3e6, 300.0, &a), PCS_OK);
    cr_assert_eq(pcs_if97_region1(3e6, 300.0, &b), PCS_OK);
    cr_assert(props_equal(&a, &b));
    cr_assert_eq(pcs_water_props_pt(30e6, 700.0, &a), PCS_OK);
    cr_assert_eq(pcs_if97_region2(30e6, 700.0, &b), PCS_OK);
    cr_assert(props_equal(&a, &b));
    cr_assert_eq(pcs_water_props_pt(30e6, 2000.0, &a), PCS_OK);
    cr_assert_eq(pcs_if97_region5(30e6, 2000.0, &b), PCS_OK);
    cr_assert(props_equal(&a, &b));
}

/*
 * Region 3 at (p, T) must find the density of R7-97 Table 33: p is printed to
 * 9 digits (|dp/p| <= 2e-9); near the critical point (650 K, 200 kg/m3) the
 * density is about 10x more sensitive than p, hence 1e-7.
 */
Test(water_dispatch, region3_density_from_p_and_t_matches_table33)
{
    static const struct {
        double p_pa, t_k, rho;
    } c[] = {
        {25.5837018e6, 650.0, 500.0}, {22.2930643e6, 650.0, 200.0}, {78.3095639e6, 750.0, 500.0}};
    for (size_t k = 0; k < 3; k++) {
        pcs_water_props q;
        cr_assert_eq(pcs_water_props_pt(c[k].p_pa, c[k].t_k, &q), PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(q.region, 3);
        cr_assert(fabs(q.rho_kg_m3 - c[k].rho) <= 1e-7 * c[k].rho, "case %zu: rho %.12g", k,
                  q.rho_kg_m3);
    }
}

/* h_pt and rho_pt (single-derivative hot paths) agree with the full property set. */
Test(water_dispatch, h_and_rho_hot_paths_agree_with_props)
{
    static const double pts[][2] = {
        {15.5e6, 565.0}, {0.1e6, 300.0}, {6e6, 700.0}, {25e6, 660.0}, {1e6, 1200.0}};
    for (size_t k = 0; k < sizeof pts / sizeof pts[0]; k++) {
        pcs_water_props q;
        double h = 0.0, rho = 0.0;
        cr_assert_eq(pcs_water_props_pt(pts[k][0], pts[k][1], &q), PCS_OK);
        cr_assert_eq(pcs_water_h_pt(pts[k][0], pts[k][1], &h), PCS_OK);
        cr_assert_eq(pcs_water_rho_pt(pts[k][0], pts[k][1], &rho), PCS_OK);
        cr_assert(fabs(h - q.h_j_kg) <= 1e-13 * fabs(q.h_j_kg) + 1e-9, "case %zu", k);
        cr_assert(fabs(rho - q.rho_kg_m3) <= 1e-13 * q.rho_kg_m3, "case %zu", k);
    }
}

/* Distance in K from the region 1/3 boundary and from B23 at this pressure. */
static double boundary_distance(double p, double t)
{
    double d = fabs(t - 623.15);
    double tb = 0.0;
    if (pcs_if97_b23_t(p, &tb) == PCS_OK) {
        d = fmin(d, fabs(t - tb));
    }
    return d;
}

/*
 * Invariant: T(p, h(p,T)) = T and T(p, s(p,T)) = T over the whole (p, T) range
 * of regions 1-3 (seeded random points, log-uniform in p). Away from region
 * boundaries the inverse is exact to 1e-9 K; within 0.01 K of the 623.15 K
 * line or of B23 the neighbouring regions' equations themselves differ by up
 * to ~4 mK at equal h (IF97's boundary inconsistency), so 5 mK there.
 */
Test(water_dispatch, t_ph_and_t_ps_invert_props_pt)
{
    pcs_rng rng;
    pcs_rng_seed(&rng, 6u, 97u, 1u);
    double worst = 0.0;
    for (int k = 0; k < 20000; k++) {
        const double p = exp(log(700.0) + (log(100e6) - log(700.0)) * pcs_rng_uniform(&rng));
        const double t = 273.15 + 800.0 * pcs_rng_uniform(&rng);
        pcs_water_props q;
        cr_assert_eq(pcs_water_props_pt(p, t, &q), PCS_OK, "p=%.10g T=%.10g: %s", p, t,
                     pcs_last_error());
        double th = 0.0, ts = 0.0;
        cr_assert_eq(pcs_water_t_ph(p, q.h_j_kg, &th), PCS_OK, "p=%.10g T=%.10g: %s", p, t,
                     pcs_last_error());
        cr_assert_eq(pcs_water_t_ps(p, q.s_j_kg_k, &ts), PCS_OK, "p=%.10g T=%.10g: %s", p, t,
                     pcs_last_error());
        const double tol = boundary_distance(p, t) < 0.01 ? 5e-3 : 1e-9;
        cr_assert(fabs(th - t) <= tol, "T(p,h) p=%.10g T=%.10g region %d: %.12g", p, t, q.region,
                  th);
        cr_assert(fabs(ts - t) <= tol, "T(p,s) p=%.10g T=%.10g region %d: %.12g", p, t, q.region,
                  ts);
        if (tol < 1e-3) {
            worst = fmax(worst, fmax(fabs(th - t), fabs(ts - t)));
        }
    }
    cr_log_info("max |T(p,h(p,T)) - T| away from boundaries: %.3g K", worst);
}

/*
 * Two-phase (region 4) below 16.53 MPa: T = T_sat(p) and the mixture rules.
 * T_sat(1 MPa) = 453.035632 K is R7-97 Table 36.
 */
Test(water_dispatch, two_phase_mixture_at_1_mpa)
{
    pcs_water_props l, v, m;
    cr_assert_eq(pcs_if97_region1(1e6, 453.035632, &l), PCS_OK);
    cr_assert_eq(pcs_if97_region2(1e6, 453.035632, &v), PCS_OK);
    const double h = 0.75 * l.h_j_kg + 0.25 * v.h_j_kg;
    cr_assert_eq(pcs_water_props_ph(1e6, h, &m), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(m.region, 4);
    cr_assert(fabs(m.t_k - 453.035632) <= 0.5e-6 * 1.001, "T %.9f", m.t_k);
    cr_assert(fabs(m.quality - 0.25) < 1e-6, "x %.9f", m.quality);
    cr_assert(fabs(m.v_m3_kg - (0.75 * l.v_m3_kg + 0.25 * v.v_m3_kg)) < 1e-6 * m.v_m3_kg);
    cr_assert_eq(m.cp_j_kg_k, 0.0);
    double t = 0.0;
    cr_assert_eq(pcs_water_t_ph(1e6, h, &t), PCS_OK);
    cr_assert_eq(t, m.t_k);
}

/* Two-phase inside region 3 (above 16.53 MPa, below p_c): found with p_3sat(h). */
Test(water_dispatch, two_phase_in_region3)
{
    pcs_water_props m;
    cr_assert_eq(pcs_water_props_ph(20e6, 2000e3, &m), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(m.region, 4);
    double ts = 0.0;
    cr_assert_eq(pcs_water_tsat(20e6, &ts), PCS_OK);
    cr_assert_eq(m.t_k, ts);
    cr_assert(m.quality > 0.0 && m.quality < 1.0, "x %g", m.quality);
    cr_assert(m.rho_kg_m3 > 0.0 && isfinite(m.rho_kg_m3));
}

/* props_ph in a single-phase region is props_pt at the solved temperature. */
Test(water_dispatch, props_ph_single_phase_is_props_pt)
{
    pcs_water_props a, b;
    cr_assert_eq(pcs_water_props_pt(15.5e6, 570.0, &a), PCS_OK);
    cr_assert_eq(pcs_water_props_ph(15.5e6, a.h_j_kg, &b), PCS_OK);
    cr_assert_eq(b.region, 1);
    cr_assert(fabs(b.t_k - 570.0) < 1e-9);
    cr_assert(fabs(b.rho_kg_m3 - a.rho_kg_m3) < 1e-12 * a.rho_kg_m3);
    cr_assert_eq(b.quality, -1.0);
}

/* Error: status INVAL, the message names the parameter, the output is untouched. */
static void expect_inval(pcs_status st, double out, const char *param)
{
    cr_assert_eq(st, PCS_E_INVAL);
    cr_assert_eq(out, -12345.0, "output written on error");
    cr_assert(strstr(pcs_last_error(), param) != NULL, "message '%s' lacks '%s'", pcs_last_error(),
              param);
}

Test(water_dispatch, out_of_range_inputs_are_rejected_with_the_parameter_named)
{
    double x = -12345.0;
    expect_inval(pcs_water_h_pt(1e6, 273.0, &x), x, "t_k");
    expect_inval(pcs_water_h_pt(1e6, 2300.0, &x), x, "t_k");
    expect_inval(pcs_water_h_pt(101e6, 300.0, &x), x, "p_pa");
    expect_inval(pcs_water_h_pt(0.0, 300.0, &x), x, "p_pa");
    expect_inval(pcs_water_h_pt(-1.0, 300.0, &x), x, "p_pa");
    expect_inval(pcs_water_h_pt(60e6, 1500.0, &x), x, "p_pa"); /* region 5 ends at 50 MPa */
    expect_inval(pcs_water_rho_pt(NAN, 300.0, &x), x, "p_pa");
    expect_inval(pcs_water_rho_pt(1e6, NAN, &x), x, "t_k");
    expect_inval(pcs_water_psat(647.2, &x), x, "t_k");
    expect_inval(pcs_water_psat(200.0, &x), x, "t_k");
    expect_inval(pcs_water_tsat(23e6, &x), x, "p_pa");
    expect_inval(pcs_water_tsat(500.0, &x), x, "p_pa");
    expect_inval(pcs_water_t_ph(1e6, -1e5, &x), x, "h_j_kg"); /* below 273.15 K */
    expect_inval(pcs_water_t_ph(1e6, 5e6, &x), x, "h_j_kg");  /* above 1073.15 K */
    expect_inval(pcs_water_t_ph(1e6, INFINITY, &x), x, "h_j_kg");
    expect_inval(pcs_water_t_ps(1e6, 20e3, &x), x, "s_j_kg_k");
    expect_inval(pcs_water_t_ph(200e6, 1e6, &x), x, "p_pa");
    expect_inval(pcs_if97_region1_t_ph(1e6, 3e6, &x), x, "h_j_kg");
    expect_inval(pcs_if97_b23_p(900.0, &x), x, "t_k");
    expect_inval(pcs_if97_p3sat_h(1e6, &x), x, "h_j_kg");

    pcs_water_props q;
    memset(&q, 0, sizeof q);
    cr_assert_eq(pcs_if97_region1(1e6, 700.0, &q), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "t_k") != NULL);
    cr_assert_eq(pcs_if97_region3(0.0, 650.0, &q), PCS_E_INVAL);
    cr_assert_eq(pcs_if97_region5(1e6, 1000.0, &q), PCS_E_INVAL);
    cr_assert_eq(q.t_k, 0.0, "props written on error");

    cr_assert_eq(pcs_water_props_pt(1e6, 300.0, NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_water_t_ph(1e6, 1e5, NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_water_tsat(1e6, NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_if97_region3_tv_ph(20e6, 1.7e6, NULL, NULL), PCS_E_INVAL);
}

/*
 * No NaN ever: a grid of inputs in and far outside every range, including the
 * critical point's neighbourhood, through every function. Each call either
 * fails with PCS_E_INVAL or returns only finite numbers.
 */
Test(water_dispatch, never_nan_on_a_grid_through_and_beyond_every_range)
{
    static const double ps[] = {-1.0,   0.0,      1.0,    611.0,    700.0,  1e5,
                                16.5e6, 16.53e6,  22.0e6, 22.064e6, 22.1e6, 30e6,
                                50e6,   99.999e6, 100e6,  100.1e6,  1e9};
    static const double ts[] = {0.0,   273.0, 273.15, 300.0,   623.15, 623.2,   647.0,  647.096,
                                647.1, 650.0, 863.15, 1073.15, 1073.2, 2273.15, 2300.0, 1e4};
    static const double hs[] = {-1e6, 0.0, 1e5, 1.6e6, 2.0e6, 2.087546845e6, 2.6e6, 4e6, 7e6, 1e9};
    int ok = 0;
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        for (size_t j = 0; j < sizeof ts / sizeof ts[0]; j++) {
            pcs_water_props q;
            const pcs_status st = pcs_water_props_pt(ps[i], ts[j], &q);
            cr_assert(st == PCS_OK || st == PCS_E_INVAL);
            if (st == PCS_OK) {
                ok++;
                cr_assert(isfinite(q.h_j_kg) && isfinite(q.rho_kg_m3) && isfinite(q.w_m_s) &&
                              isfinite(q.cp_j_kg_k) && isfinite(q.s_j_kg_k),
                          "p=%g T=%g", ps[i], ts[j]);
            }
        }
        for (size_t j = 0; j < sizeof hs / sizeof hs[0]; j++) {
            pcs_water_props q;
            const pcs_status st = pcs_water_props_ph(ps[i], hs[j], &q);
            cr_assert(st == PCS_OK || st == PCS_E_INVAL);
            if (st == PCS_OK) {
                ok++;
                cr_assert(isfinite(q.t_k) && isfinite(q.rho_kg_m3) && isfinite(q.s_j_kg_k),
                          "p=%g h=%g", ps[i], hs[j]);
            }
        }
    }
    cr_assert(ok > 100, "most grid points inside the ranges must succeed (%d did)", ok);
}
