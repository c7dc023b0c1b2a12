/**
 * @file test_water_table.c
 * @brief The compressed-liquid table (pcs_water_table) meets the error bound
 *        stated in include/pcsim/water.h, rejects states outside its domain,
 *        and builds both standalone and in a world's heap.
 *
 * The reference is the full IF97 region 1 equation (pcs_if97_region1), which
 * tests/test_if97.c verifies against IAPWS R7-97(2012) Table 5.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "pcsim/rng.h"
#include "pcsim/water.h"
#include "pcsim/world.h"

static pcs_water_table *wt_default(void)
{
    pcs_water_table_def c;
    cr_assert_eq(pcs_water_table_default(&c), PCS_OK);
    pcs_water_table *t = NULL;
    cr_assert_eq(pcs_water_table_create(&c, &t), PCS_OK, "%s", pcs_last_error());
    return t;
}

/*
 * The stated bound, on 200 000 seeded random points of the domain (uniform
 * in p and T over the default rectangle, vapour-side points skipped): h and
 * rho at (p,T), and T at (p, h(p,T)) with h from the full equation.
 */
Test(water_table, default_table_meets_the_stated_error_bound)
{
    pcs_water_table *t = wt_default();
    pcs_rng rng;
    pcs_rng_seed(&rng, 6u, 2026u, 7u);
    double eh = 0.0, er = 0.0, et = 0.0;
    int n = 0;
    for (int k = 0; k < 200000; k++) {
        const double p = 0.1e6 + (22e6 - 0.1e6) * pcs_rng_uniform(&rng);
        const double temp = 273.15 + (620.0 - 273.15) * pcs_rng_uniform(&rng);
        double ps = 0.0;
        cr_assert_eq(pcs_water_psat(temp, &ps), PCS_OK);
        if (p < ps) {
            continue;
        }
        n++;
        pcs_water_props q;
        cr_assert_eq(pcs_if97_region1(p, temp, &q), PCS_OK);
        double h = 0.0, rho = 0.0, tt = 0.0;
        cr_assert_eq(pcs_water_table_h_pt(t, p, temp, &h), PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(pcs_water_table_rho_pt(t, p, temp, &rho), PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(pcs_water_table_t_ph(t, p, q.h_j_kg, &tt), PCS_OK, "%s", pcs_last_error());
        eh = fmax(eh, fabs(h - q.h_j_kg) / fmax(fabs(q.h_j_kg), 1e5));
        er = fmax(er, fabs(rho - q.rho_kg_m3) / q.rho_kg_m3);
        et = fmax(et, fabs(tt - temp) / temp);
    }
    cr_assert(n > 150000, "most of the rectangle is liquid (%d points)", n);
    cr_log_info("table max relative errors on %d points: h %.3g, rho %.3g, T %.3g", n, eh, er, et);
    cr_assert(eh <= PCS_WATER_TABLE_H_REL_ERR, "h error %.3g", eh);
    cr_assert(er <= PCS_WATER_TABLE_RHO_REL_ERR, "rho error %.3g", er);
    cr_assert(et <= PCS_WATER_TABLE_T_REL_ERR, "T error %.3g", et);
    double mh = 1.0, mr = 1.0, mt = 1.0;
    cr_assert_eq(pcs_water_table_error(t, &mh, &mr, &mt), PCS_OK);
    cr_assert(mh > 0.0 && mh <= PCS_WATER_TABLE_H_REL_ERR);
    cr_assert(mr > 0.0 && mr <= PCS_WATER_TABLE_RHO_REL_ERR);
    cr_assert(mt > 0.0 && mt <= PCS_WATER_TABLE_T_REL_ERR);
    pcs_water_table_destroy(t);
}

/* At a grid node the patch reproduces the node value (only rounding remains). */
Test(water_table, exact_at_grid_nodes)
{
    pcs_water_table *t = wt_default();
    const double dp = (22e6 - 0.1e6) / 44.0, dt = (620.0 - 273.15) / 174.0;
    static const int nodes[][2] = {{44, 170}, {30, 100}, {0, 0}, {44, 0}, {20, 50}};
    for (size_t k = 0; k < sizeof nodes / sizeof nodes[0]; k++) {
        const double p = 0.1e6 + dp * nodes[k][0], temp = 273.15 + dt * nodes[k][1];
        pcs_water_props q;
        double h = 0.0, rho = 0.0;
        cr_assert_eq(pcs_if97_region1(p, temp, &q), PCS_OK);
        cr_assert_eq(pcs_water_table_h_pt(t, p, temp, &h), PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(pcs_water_table_rho_pt(t, p, temp, &rho), PCS_OK);
        cr_assert(fabs(h - q.h_j_kg) <= 1e-12 * fmax(fabs(q.h_j_kg), 1e5), "node %zu", k);
        cr_assert(fabs(rho - q.rho_kg_m3) <= 1e-12 * q.rho_kg_m3, "node %zu", k);
    }
    pcs_water_table_destroy(t);
}

/* The domain's edges are inside: saturated liquid, t_min, p_max, t_max. */
Test(water_table, saturated_liquid_and_edges_are_accepted)
{
    pcs_water_table *t = wt_default();
    double ps = 0.0, h = 0.0, tt = 0.0;
    cr_assert_eq(pcs_water_psat(500.0, &ps), PCS_OK);
    cr_assert_eq(pcs_water_table_h_pt(t, ps, 500.0, &h), PCS_OK, "%s", pcs_last_error());
    pcs_water_props q;
    cr_assert_eq(pcs_if97_region1(ps, 500.0, &q), PCS_OK);
    cr_assert_eq(pcs_water_table_t_ph(t, ps, q.h_j_kg, &tt), PCS_OK, "%s", pcs_last_error());
    cr_assert(fabs(tt - 500.0) <= PCS_WATER_TABLE_T_REL_ERR * 500.0);
    cr_assert_eq(pcs_water_table_h_pt(t, 0.1e6, 273.15, &h), PCS_OK);
    cr_assert_eq(pcs_if97_region1(0.1e6, 273.15, &q), PCS_OK);
    cr_assert_eq(pcs_water_table_t_ph(t, 0.1e6, q.h_j_kg, &tt), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_water_table_h_pt(t, 22e6, 620.0, &h), PCS_OK);
    cr_assert_eq(pcs_if97_region1(22e6, 620.0, &q), PCS_OK);
    cr_assert_eq(pcs_water_table_t_ph(t, 22e6, q.h_j_kg, &tt), PCS_OK, "%s", pcs_last_error());
    pcs_water_table_destroy(t);
}

static void wt_expect_inval(pcs_status st, double out, const char *word)
{
    cr_assert_eq(st, PCS_E_INVAL);
    cr_assert_eq(out, -1.0, "output written on error");
    cr_assert(strstr(pcs_last_error(), word) != NULL, "message '%s' lacks '%s'", pcs_last_error(),
              word);
}

Test(water_table, states_outside_the_domain_are_rejected)
{
    pcs_water_table *t = wt_default();
    double x = -1.0;
    wt_expect_inval(pcs_water_table_h_pt(t, 0.05e6, 300.0, &x), x, "p_pa");
    wt_expect_inval(pcs_water_table_h_pt(t, 23e6, 300.0, &x), x, "p_pa");
    wt_expect_inval(pcs_water_table_rho_pt(t, 1e6, 272.0, &x), x, "t_k");
    wt_expect_inval(pcs_water_table_rho_pt(t, 1e6, 621.0, &x), x, "t_k");
    wt_expect_inval(pcs_water_table_rho_pt(t, NAN, 300.0, &x), x, "p_pa");
    /* steam: 1 MPa, 500 K (T_sat(1 MPa) = 453.04 K, R7-97 Table 36) */
    wt_expect_inval(pcs_water_table_h_pt(t, 1e6, 500.0, &x), x, "liquid");
    /* saturated steam's enthalpy at 1 MPa is far above the liquid's */
    pcs_water_props v;
    cr_assert_eq(pcs_if97_region2(1e6, 453.035632, &v), PCS_OK);
    wt_expect_inval(pcs_water_table_t_ph(t, 1e6, v.h_j_kg, &x), x, "h_j_kg");
    /* wet steam just above h'(1 MPa): the table's h range holds it, the liquid test not */
    pcs_water_props l;
    cr_assert_eq(pcs_if97_region1(1e6, 453.035632, &l), PCS_OK);
    wt_expect_inval(pcs_water_table_t_ph(t, 1e6, l.h_j_kg + 50e3, &x), x, "liquid");
    wt_expect_inval(pcs_water_table_t_ph(t, 1e6, -1e5, &x), x, "h_j_kg");
    cr_assert_eq(pcs_water_table_t_ph(NULL, 1e6, 1e5, &x), PCS_E_INVAL);
    cr_assert_eq(pcs_water_table_t_ph(t, 1e6, 1e5, NULL), PCS_E_INVAL);
    pcs_water_table_destroy(t);
}

Test(water_table, bad_configurations_name_the_field)
{
    pcs_water_table_def c;
    pcs_water_table *t = NULL;
    cr_assert_eq(pcs_water_table_default(NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_water_table_default(&c), PCS_OK);
    c.n_p = 1;
    cr_assert_eq(pcs_water_table_create(&c, &t), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "cfg.n_p") != NULL);
    cr_assert_eq(pcs_water_table_bytes(&c), 0u);
    cr_assert_eq(pcs_water_table_default(&c), PCS_OK);
    c.t_max_k = 650.0; /* region 1 ends at 623.15 K */
    cr_assert_eq(pcs_water_table_create(&c, &t), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "cfg.t_max_k") != NULL);
    cr_assert_eq(pcs_water_table_default(&c), PCS_OK);
    c.p_max_pa = 0.05e6;
    cr_assert_eq(pcs_water_table_create(&c, &t), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "cfg.p_max_pa") != NULL);
    cr_assert_eq(pcs_water_table_create(NULL, &t), PCS_E_INVAL);
    cr_assert_null(t);
}

/*
 * Built in a world: memory comes from the world heap (one allocation), the
 * table works, and after the first tick has sealed the world a build fails
 * with PCS_E_STATE. pcs_world_destroy frees it.
 */
Test(water_table, builds_in_a_world_heap_until_the_world_is_sealed)
{
    pcs_world_def wc;
    cr_assert_eq(pcs_world_default(&wc), PCS_OK);
    wc.workers = 0;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&wc, &w), PCS_OK, "%s", pcs_last_error());
    pcs_water_table_def c;
    cr_assert_eq(pcs_water_table_default(&c), PCS_OK);
    c.n_p = 12;
    c.n_t = 40;
    c.n_h = 30;
    const uint64_t before = pcs_world_alloc_count(w);
    pcs_water_table *t = NULL;
    cr_assert_eq(pcs_water_table_add(w, &c, &t), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_alloc_count(w), before + 1);
    double h = 0.0;
    cr_assert_eq(pcs_water_table_h_pt(t, 15.5e6, 580.0, &h), PCS_OK);
    pcs_water_props q;
    cr_assert_eq(pcs_if97_region1(15.5e6, 580.0, &q), PCS_OK);
    double e = 0.0;
    cr_assert_eq(pcs_water_table_error(t, &e, NULL, NULL), PCS_OK);
    cr_assert(fabs(h - q.h_j_kg) / q.h_j_kg <= 4.0 * e, "coarse table within its own measure");
    cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
    pcs_water_table *t2 = NULL;
    cr_assert_eq(pcs_water_table_add(w, &c, &t2), PCS_E_STATE);
    cr_assert_null(t2);
    pcs_world_destroy(w);
}
