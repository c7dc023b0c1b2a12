/**
 * @file test_water_ph.c
 * @brief The (p, h) state: the exact IF97 path against published and derived
 *        reference values and hand checks, and the table against the exact
 *        path within the bounds stated in include/pcsim/water_ph.h.
 *
 * References: IAPWS R7-97(2012) Tables 5, 15 and 33 (forward-equation
 * verification values, also in tests/refdata/if97_verification.csv), and
 * refdata/th_reference.md / th_reference.csv (derived from IAPWS-IF97 with
 * an independent implementation: hem_gc stagnation states and vessel_heat
 * final states), whose section 1 conventions water_ph.h follows.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "pcsim/water.h"
#include "pcsim/water_ph.h"

#define PC 22.064e6
#define PS13 16529164.252604481

static pcs_water_ph_state exact(double p, double h)
{
    pcs_water_ph_state s;
    cr_assert_eq(pcs_water_ph_exact(p, h, &s), PCS_OK, "p %.10g h %.10g: %s", p, h,
                 pcs_last_error());
    return s;
}

static void near(double got, double want, double tol, const char *what)
{
    cr_assert(fabs(got - want) <= tol, "%s: got %.12g, want %.12g (tol %.3g)", what, got, want,
              tol);
}

/* ---------------------------------------------------------------------- */
/* Exact path                                                               */
/* ---------------------------------------------------------------------- */

/* R7-97 Tables 5, 15, 33: h (and p for region 3) at a given (p, T) or (rho, T);
   the (p, h) inverse must return that T and density. h has 9 digits, so T is
   good to about 1e-6 K. */
Test(water_ph_exact, r7_97_verification_points)
{
    static const struct {
        double p, h, t, rho;
    } c[] = {
        {3e6, 0.115331273e6, 300.0, 1.0 / 0.100215168e-2},     /* Table 5 region 1 */
        {0.0035e6, 0.254991145e7, 300.0, 1.0 / 0.394913866e2}, /* Table 15 region 2 */
        {30e6, 0.263149474e7, 700.0, 1.0 / 0.542946619e-2},    /* Table 15, supercritical */
        {0.255837018e8, 0.186343019e7, 650.0, 500.0},          /* Table 33 region 3 */
        {0.222930643e8, 0.237512401e7, 650.0, 200.0},          /* Table 33 region 3 */
        {3e6, 0.975542239e6, 500.0, 1.0 / 0.120241800e-2},     /* Table 5 region 1 */
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        const pcs_water_ph_state s = exact(c[k].p, c[k].h);
        near(s.t_k, c[k].t, 2e-6 * c[k].t, "T");
        near(s.rho_kg_m3, c[k].rho, 2e-8 * c[k].rho, "rho");
        near(s.u_j_kg, c[k].h - c[k].p / c[k].rho, 1e-6 * fabs(c[k].h), "u = h - p v");
    }
    /* Table 33 (200 kg/m3, 650 K) is supercritical; (3 MPa, 300 K) liquid */
    cr_assert_eq(exact(0.222930643e8, 0.237512401e7).phase, PCS_WATER_PH_SUPERCRITICAL);
    cr_assert_eq(exact(3e6, 0.115331273e6).phase, PCS_WATER_PH_LIQUID);
    cr_assert_eq(exact(0.0035e6, 0.254991145e7).phase, PCS_WATER_PH_VAPOUR);
}

/* th_reference.csv, family hem_gc: stagnation states (p0, h0) with their T0
   and quality x0 (derived from IF97, th_reference.md section 2). */
Test(water_ph_exact, th_reference_stagnation_states)
{
    static const struct {
        double p, h, t, x;
        int phase;
    } c[] = {
        {1e6, 675146.9419, 433.0, 0.0, PCS_WATER_PH_LIQUID},
        {1e6, 964126.5137, 453.0356324, 0.1, PCS_WATER_PH_TWO_PHASE},
        {1e6, 2575675.868, 453.0356324, 0.9, PCS_WATER_PH_TWO_PHASE},
        {1e6, 2898105.318, 503.0, 1.0, PCS_WATER_PH_VAPOUR},
        {3e6, 1905818.054, 507.008445, 0.5, PCS_WATER_PH_TWO_PHASE},
        {7e6, 1163617.035, 539.0, 0.0, PCS_WATER_PH_LIQUID},
        {7e6, 2622056.033, 558.9800228, 0.9, PCS_WATER_PH_TWO_PHASE},
        {10e6, 2066670.034, 584.149488, 0.5, PCS_WATER_PH_TWO_PHASE},
        {15e6, 1465374.639, 595.0, 0.0, PCS_WATER_PH_LIQUID},
        {15e6, 1710223.083, 615.3078712, 0.1, PCS_WATER_PH_TWO_PHASE},
        {15e6, 2940415.192, 665.0, 1.0, PCS_WATER_PH_VAPOUR},
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        const pcs_water_ph_state s = exact(c[k].p, c[k].h);
        cr_assert_eq(s.phase, c[k].phase, "row %zu", k);
        near(s.t_k, c[k].t, 1e-6, "T");
        near(s.x, c[k].x, 1e-8, "x");
    }
}

/* th_reference.csv, family vessel_heat: the final state (p, v, u) of a rigid
   vessel; at (p, h = u + p v) the exact path must give T and rho = 1/v. */
Test(water_ph_exact, th_reference_vessel_final_states)
{
    static const struct {
        double p, v, u, t, x;
    } c[] = {
        {15873225.21, 0.001346455245, 1273028.6 + 1000.0, 565.327965, -1.0},
        {23002755.21, 0.001346455245, 1273028.6 + 20000.0, 571.5794943, -1.0},
        {7456833.487, 0.00119710647, 968079.3838 + 1000.0, 500.310784, -1.0},
        {777714.1831, 0.003059450251, 779767.761 - 50000.0, 442.3954853, 0.007919344138},
        {1019776.103, 0.03977156386, 1125798.619 + 10000.0, 453.8883959, 0.203790421},
        {7202295.679, 0.001612133238, 1271203.601 + 10000.0, 560.9143426, 0.01008249496},
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        const double h = c[k].u + c[k].p * c[k].v;
        const pcs_water_ph_state s = exact(c[k].p, h);
        near(s.t_k, c[k].t, 2e-6, "T");
        near(s.rho_kg_m3, 1.0 / c[k].v, 1e-8 / c[k].v, "rho");
        if (c[k].x >= 0.0) {
            cr_assert_eq(s.phase, PCS_WATER_PH_TWO_PHASE);
            near(s.x, c[k].x, 1e-8, "x");
        } else {
            cr_assert_eq(s.phase, c[k].p < PC ? PCS_WATER_PH_LIQUID : PCS_WATER_PH_SUPERCRITICAL);
        }
    }
}

/* Saturation endpoints: at h' and h'' (regions 1 and 2 at T_sat(p), R7-97
   Eq. 31) the state is the saturated phase, x = 0 / 1, T = pcs_water_tsat;
   just inside the dome the mixture starts from the same density; at x = 0.5
   the HEM relations hold exactly. */
Test(water_ph_exact, saturation_endpoints_and_hem_mixture)
{
    const double ps[] = {1e3, 1e4, 1e5, 1e6, 7e6, 15.5e6};
    for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
        const double p = ps[k];
        double ts;
        cr_assert_eq(pcs_water_tsat(p, &ts), PCS_OK);
        pcs_water_props l, g;
        cr_assert_eq(pcs_if97_region1(p, ts, &l), PCS_OK);
        cr_assert_eq(pcs_if97_region2(p, ts, &g), PCS_OK);
        /* 1e-13 inside: pcs_if97_region1 and the exact path sum the same
           equation in different orders (last-bit differences) */
        pcs_water_ph_state s = exact(p, l.h_j_kg * (1.0 - 1e-13));
        cr_assert_eq(s.phase, PCS_WATER_PH_LIQUID);
        near(s.t_k, ts, 1e-7, "T at h'");
        near(s.x, 0.0, 0.0, "x at h'");
        near(s.rho_kg_m3, l.rho_kg_m3, 1e-11 * l.rho_kg_m3, "rho at h'");
        s = exact(p, l.h_j_kg * (1.0 + 1e-11));
        cr_assert_eq(s.phase, PCS_WATER_PH_TWO_PHASE);
        near(s.t_k, ts, 0.0, "T in the dome");
        near(s.rho_kg_m3, l.rho_kg_m3, 1e-6 * l.rho_kg_m3, "rho next to h'");
        s = exact(p, g.h_j_kg * (1.0 + 1e-13));
        cr_assert_eq(s.phase, PCS_WATER_PH_VAPOUR);
        near(s.t_k, ts, 1e-7, "T at h''");
        near(s.x, 1.0, 0.0, "x at h''");
        near(s.alpha, 1.0, 0.0, "alpha at h''");
        const double h = 0.5 * (l.h_j_kg + g.h_j_kg);
        s = exact(p, h);
        const double v = 0.5 * (l.v_m3_kg + g.v_m3_kg);
        cr_assert_eq(s.phase, PCS_WATER_PH_TWO_PHASE);
        near(s.x, 0.5, 1e-14, "x at mid-dome");
        near(s.rho_kg_m3, 1.0 / v, 1e-13 / v, "rho = 1/v");
        near(s.alpha, 0.5 * g.v_m3_kg / v, 1e-13, "alpha = x v''/v");
        near(s.u_j_kg, 0.5 * (l.u_j_kg + g.u_j_kg), 1e-9 * fabs(h), "u linear in x");
        near(s.drho_dh_kg2_m3j, -(g.v_m3_kg - l.v_m3_kg) / (g.h_j_kg - l.h_j_kg) / (v * v),
             1e-12 / (v * v), "drho/dh = -rho^2 (v'' - v')/(h'' - h')");
    }
}

/* Analytic derivatives against central finite differences of the exact path
   (step 1e-6 relative: truncation and rounding both below 1e-6). */
Test(water_ph_exact, derivatives_match_finite_differences)
{
    static const double pt[][2] = {
        {1e5, 2e5},     {1e6, 5e5},      {15.5e6, 1.3e6}, {15.5e6, 1.6e6}, /* liquid */
        {1e4, 1.2e6},   {1e6, 1.9e6},    {7e6, 1.6e6},    {15.5e6, 2.2e6}, /* dome */
        {20e6, 2.0e6},  {21.5e6, 2.2e6},                                   /* dome, region 3 */
        {1.1e3, 2.8e6}, {7e6, 3.5e6},    {20e6, 2.5e6},                    /* vapour */
        {20e6, 1.9e6},  {25e6, 2.0e6},   {25e6, 2.5e6},   {30e6, 3.0e6},   /* region 3, sc */
    };
    for (size_t k = 0; k < sizeof pt / sizeof pt[0]; k++) {
        const double p = pt[k][0], h = pt[k][1];
        const double dp = 1e-6 * p, dh = 1e-6 * h;
        const pcs_water_ph_state s = exact(p, h);
        const double fdp = (exact(p + dp, h).rho_kg_m3 - exact(p - dp, h).rho_kg_m3) / (2.0 * dp);
        const double fdh = (exact(p, h + dh).rho_kg_m3 - exact(p, h - dh).rho_kg_m3) / (2.0 * dh);
        cr_assert(fabs(s.drho_dp_s2_m2 - fdp) <= 1e-5 * fabs(fdp),
                  "drho/dp at %g Pa, %g J/kg: %.9g vs FD %.9g", p, h, s.drho_dp_s2_m2, fdp);
        cr_assert(fabs(s.drho_dh_kg2_m3j - fdh) <= 1e-5 * fabs(fdh),
                  "drho/dh at %g Pa, %g J/kg: %.9g vs FD %.9g", p, h, s.drho_dh_kg2_m3j, fdh);
    }
}

Test(water_ph_exact, refuses_outside_the_domain_naming_the_parameter)
{
    pcs_water_ph_state s;
    memset(&s, 0x5a, sizeof s);
    const pcs_water_ph_state before = s;
    cr_assert_eq(pcs_water_ph_exact(999.0, 1e5, &s), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "p_pa = 999") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_water_ph_exact(32e6, 1e5, &s), PCS_E_INVAL);
    cr_assert_eq(pcs_water_ph_exact(1e6, NAN, &s), PCS_E_INVAL);
    cr_assert_eq(pcs_water_ph_exact(1e6, 4.5e6, &s), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "h_j_kg = 4500000") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_water_ph_exact(1e6, 1e5, NULL), PCS_E_INVAL);
    cr_assert(memcmp(&s, &before, sizeof s) == 0, "output untouched on error");
    double lo, hi;
    cr_assert_eq(pcs_water_ph_h_range(1e6, &lo, &hi), PCS_OK);
    cr_assert_eq(exact(1e6, lo).phase, PCS_WATER_PH_LIQUID);
    near(exact(1e6, lo).t_k, 273.16, 1e-7, "T at h_min");
    near(exact(1e6, hi).t_k, 1073.15, 1e-7, "T at h_max");
}

/* ---------------------------------------------------------------------- */
/* Table                                                                    */
/* ---------------------------------------------------------------------- */

typedef struct errs {
    double e[4];
    double at_p[4], at_h[4];
    long n;
} errs;

/* Relative errors as water_ph.h defines them (derivatives against at least
   the floors 1e-10 rho s2/m2 and 1e-9 rho kg/J). */
static void compare(const pcs_water_ph_table *t, double p, double h, errs *lo3, errs *r3)
{
    const pcs_water_ph_state e = exact(p, h);
    pcs_water_ph_state q;
    cr_assert_eq(pcs_water_ph_table_lookup(t, p, h, &q), PCS_OK, "p %.10g h %.10g: %s", p, h,
                 pcs_last_error());
    cr_assert_eq(q.phase, e.phase, "phase at p %.10g Pa, h %.12g J/kg", p, h);
    errs *z = p < PS13 ? lo3 : r3;
    const double d[4] = {
        fabs(q.rho_kg_m3 - e.rho_kg_m3) / e.rho_kg_m3,
        fabs(q.t_k - e.t_k) / e.t_k,
        fabs(q.drho_dp_s2_m2 - e.drho_dp_s2_m2) / fmax(fabs(e.drho_dp_s2_m2), 1e-10 * e.rho_kg_m3),
        fabs(q.drho_dh_kg2_m3j - e.drho_dh_kg2_m3j) /
            fmax(fabs(e.drho_dh_kg2_m3j), 1e-9 * e.rho_kg_m3),
    };
    for (int k = 0; k < 4; k++) {
        if (d[k] > z->e[k]) {
            z->e[k] = d[k];
            z->at_p[k] = p;
            z->at_h[k] = h;
        }
    }
    z->n++;
    near(q.u_j_kg, h - p / q.rho_kg_m3, 1e-9 * fabs(h) + 1e-6, "u = h - p/rho");
    /* the lean lookup is the same code: bit-identical, so the bounds hold for it too */
    pcs_water_ph_rho r;
    cr_assert_eq(pcs_water_ph_table_rho(t, p, h, &r), PCS_OK, "rho p %.10g h %.10g: %s", p, h,
                 pcs_last_error());
    cr_assert(r.phase == q.phase && r.t_k == q.t_k && r.rho_kg_m3 == q.rho_kg_m3 &&
                  r.drho_dp_s2_m2 == q.drho_dp_s2_m2 && r.drho_dh_kg2_m3j == q.drho_dh_kg2_m3j,
              "pcs_water_ph_table_rho differs from the full lookup at p %.10g Pa, h %.12g J/kg", p,
              h);
    near(q.x, e.x, e.phase == PCS_WATER_PH_TWO_PHASE ? 1e-4 : 0.0, "x");
}

/* h' or h'' at p < p_c, by bisection on the exact path's phase. */
static double sat_h(double p, int vapour_side)
{
    double lo, hi;
    cr_assert_eq(pcs_water_ph_h_range(p, &lo, &hi), PCS_OK);
    for (int it = 0; it < 200 && hi - lo > 1e-15 * hi; it++) {
        const double m = 0.5 * (lo + hi);
        const int ph = exact(p, m).phase;
        if (vapour_side ? ph != PCS_WATER_PH_VAPOUR : ph == PCS_WATER_PH_LIQUID) {
            lo = m;
        } else {
            hi = m;
        }
    }
    return vapour_side ? hi : lo;
}

static void report(const char *zone, const errs *z)
{
    static const char *nm[4] = {"rho", "T", "drho/dp", "drho/dh"};
    for (int k = 0; k < 4; k++) {
        cr_log_info("%s: max %s error %.3e at p %.10g Pa, h %.10g J/kg (%ld points)", zone, nm[k],
                    z->e[k], z->at_p[k], z->at_h[k], z->n);
    }
}

/*
 * The default table against the exact path on a dense grid: 600 pressures
 * log-spaced over 1 kPa-31 MPa (covering low pressure, the critical region
 * and the supercritical rows) x 251 enthalpies over the whole range at each,
 * plus points 1e-6 and 1e-9 relative from both saturation lines on each side
 * at every pressure below p_c (where the phase must also agree). Pressures
 * within 20 Pa below p_c are left out: the exact path's region 3 dome closes
 * there (water_ph.h). The stated bounds (water_ph.h) are asserted; the
 * measured maxima are logged.
 */
Test(water_ph_table, default_table_meets_the_stated_bounds)
{
    pcs_water_ph_table_def c;
    cr_assert_eq(pcs_water_ph_table_default(&c), PCS_OK);
    pcs_water_ph_table *t = NULL;
    cr_assert_eq(pcs_water_ph_table_create(&c, &t), PCS_OK, "%s", pcs_last_error());
    errs lo3, r3;
    memset(&lo3, 0, sizeof lo3);
    memset(&r3, 0, sizeof r3);
    const int np = 600, nh = 250;
    for (int i = 0; i <= np; i++) {
        double p = 1e3 * pow(31e3, (double)i / np);
        p = i == np ? 31e6 : p;
        if (p > PC - 20.0 && p < PC) {
            continue;
        }
        double lo, hi;
        cr_assert_eq(pcs_water_ph_h_range(p, &lo, &hi), PCS_OK);
        for (int k = 0; k <= nh; k++) {
            compare(t, p, k == nh ? hi : lo + (hi - lo) * k / nh, &lo3, &r3);
        }
        if (p < PC) {
            static const double off[] = {-1e-6, -1e-9, 1e-9, 1e-6};
            for (int side = 0; side < 2; side++) {
                const double hs = sat_h(p, side);
                for (size_t k = 0; k < 4; k++) {
                    compare(t, p, hs * (1.0 + off[k]), &lo3, &r3);
                }
            }
        }
    }
    report("p < 16.53 MPa", &lo3);
    report("p >= 16.53 MPa", &r3);
    cr_assert_leq(lo3.e[0], PCS_WATER_PH_TABLE_RHO_REL_ERR);
    cr_assert_leq(lo3.e[1], PCS_WATER_PH_TABLE_T_REL_ERR);
    cr_assert_leq(lo3.e[2], PCS_WATER_PH_TABLE_DRHO_DP_REL_ERR);
    cr_assert_leq(lo3.e[3], PCS_WATER_PH_TABLE_DRHO_DH_REL_ERR);
    cr_assert_leq(r3.e[0], PCS_WATER_PH_TABLE_R3_RHO_REL_ERR);
    cr_assert_leq(r3.e[1], PCS_WATER_PH_TABLE_R3_T_REL_ERR);
    cr_assert_leq(r3.e[2], PCS_WATER_PH_TABLE_R3_DRHO_DP_REL_ERR);
    cr_assert_leq(r3.e[3], PCS_WATER_PH_TABLE_R3_DRHO_DH_REL_ERR);
    pcs_water_ph_table_destroy(t);
}

/* A coarse config (cheap to build, one or two cells per zone) with
   @p n_vapour vapour cells. */
static pcs_water_ph_table_def coarse_def(uint32_t n_vapour)
{
    pcs_water_ph_table_def c;
    pcs_water_ph_table_default(&c);
    c.rows_per_octave = 2;
    c.n_near_critical = 2;
    c.n_super = 1;
    c.n_liquid = 2;
    c.n_vapour = n_vapour;
    c.sat_refine = 1;
    return c;
}

/* A coarse table is also built and stays consistent at its sample rows
   (cheap config, exercising every zone with one or two cells). */
Test(water_ph_table, coarse_config_builds_and_validates)
{
    pcs_water_ph_table_def c = coarse_def(1);
    pcs_water_ph_table *t = NULL;
    cr_assert_eq(pcs_water_ph_table_create(&c, &t), PCS_OK, "%s", pcs_last_error());
    pcs_water_ph_state s;
    cr_assert_eq(pcs_water_ph_table_lookup(t, 15.5e6, 1.3e6, &s), PCS_OK);
    cr_assert_eq(s.phase, PCS_WATER_PH_LIQUID);
    near(s.rho_kg_m3, exact(15.5e6, 1.3e6).rho_kg_m3, 0.05 * s.rho_kg_m3, "coarse rho");
    pcs_water_ph_table_destroy(t);

    pcs_water_ph_table_def bad = c;
    bad.rows_per_octave = 6;
    cr_assert_eq(pcs_water_ph_table_create(&bad, &t), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "rows_per_octave = 6") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_water_ph_table_bytes(&bad), 0u);
    bad = c;
    bad.n_liquid = 0;
    cr_assert_eq(pcs_water_ph_table_create(&bad, &t), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "n_liquid") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_water_ph_table_create(NULL, &t), PCS_E_INVAL);
    cr_assert_eq(pcs_water_ph_table_create(&c, NULL), PCS_E_INVAL);
    pcs_water_ph_table_destroy(NULL);
}

Test(water_ph_table, refuses_outside_the_domain_and_null)
{
    pcs_water_ph_table_def c = coarse_def(2);
    pcs_water_ph_table *t = NULL;
    cr_assert_eq(pcs_water_ph_table_create(&c, &t), PCS_OK, "%s", pcs_last_error());
    pcs_water_ph_state s;
    cr_assert_eq(pcs_water_ph_table_lookup(t, 999.0, 1e5, &s), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "p_pa = 999") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_water_ph_table_lookup(t, NAN, 1e5, &s), PCS_E_INVAL);
    cr_assert_eq(pcs_water_ph_table_lookup(t, 1e6, 4.5e6, &s), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "h_j_kg = 4500000") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_water_ph_table_lookup(t, 1e6, -1e5, &s), PCS_E_INVAL);
    cr_assert_eq(pcs_water_ph_table_lookup(t, 1e6, NAN, &s), PCS_E_INVAL);
    cr_assert_eq(pcs_water_ph_table_lookup(NULL, 1e6, 1e5, &s), PCS_E_INVAL);
    cr_assert_eq(pcs_water_ph_table_lookup(t, 1e6, 1e5, NULL), PCS_E_INVAL);
    pcs_water_ph_rho r, r0;
    memset(&r, 0x5a, sizeof r);
    r0 = r;
    cr_assert_eq(pcs_water_ph_table_rho(t, 999.0, 1e5, &r), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "pcs_water_ph_table_rho") != NULL &&
                  strstr(pcs_last_error(), "p_pa = 999") != NULL,
              "%s", pcs_last_error());
    cr_assert_eq(pcs_water_ph_table_rho(t, 1e6, 4.5e6, &r), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "h_j_kg = 4500000") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_water_ph_table_rho(t, 1e6, NAN, &r), PCS_E_INVAL);
    cr_assert(memcmp(&r, &r0, sizeof r) == 0, "pcs_water_ph_table_rho: output untouched on error");
    cr_assert_eq(pcs_water_ph_table_rho(NULL, 1e6, 1e5, &r), PCS_E_INVAL);
    cr_assert_eq(pcs_water_ph_table_rho(t, 1e6, 1e5, NULL), PCS_E_INVAL);
    pcs_water_ph_table_destroy(t);
}
