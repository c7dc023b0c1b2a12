/**
 * @file test_thnet_hem_table.c
 * @brief The tabulated HEM critical flow (pcs_thnet_choke_table,
 *        physics/thermohydraulics/kernels/thnet_hem_table.c) against the
 *        IF97 search it replaces (pcs_thnet_choke_if97): the table's nodes
 *        are IF97's, the search agrees within the bounds pcsim/thnet.h
 *        states on a grid of stagnation states over the dome, and every
 *        state outside the table's domain is the IF97 answer bit for bit.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "pcsim/thnet.h"
#include "pcsim/water.h"
#include "pcsim/water_ph.h"
#include "physics/thermohydraulics/kernels/thnet_hem_sat.h"

static double rel(double a, double b)
{
    return fabs(a - b) / fabs(b);
}

/* The stagnation enthalpy of quality x0 at p0, from IF97's saturated phases. */
static double h_at_quality(double p0, double x0)
{
    hem_sat s;
    cr_assert_eq(hem_sat_if97(p0, log(p0), &s), PCS_OK, "p0 %g: %s", p0, pcs_last_error());
    return s.hf + x0 * (s.hg - s.hf);
}

/* The generated table (thnet_hem_sat_data.c, written into build/gen/ by
   tools/gen_hem_sat.c before the library) is IF97 at its nodes, bit for
   bit, and spans 1 kPa to p_sat(623.15 K): a stale table or a generator
   that drifts from the library's IF97 fails here. IF97 itself is held to
   the published digits by the if97 suites. */
Test(thnet_hem_table, nodes_are_if97)
{
    double psat = 0.0;
    cr_assert_eq(pcs_water_psat(623.15, &psat), PCS_OK);
    cr_expect_eq(hem_sat_lnp_lo, log(1000.0), "lnp_lo %a, ln(1 kPa) %a", hem_sat_lnp_lo,
                 log(1000.0));
    const double top = exp(hem_sat_lnp_lo + (HEM_SAT_N - 1) * hem_sat_dlnp);
    cr_expect(rel(top, psat) <= 1e-12, "top node p %.17g Pa, p_sat(623.15 K) %.17g Pa", top, psat);
    cr_expect(rel(hem_sat_inv_dlnp, 1.0 / hem_sat_dlnp) <= 1e-16, "inv_dlnp %a, 1/dlnp %a",
              hem_sat_inv_dlnp, 1.0 / hem_sat_dlnp);
    for (uint32_t i = 0; i < HEM_SAT_N; i++) {
        double n[HEM_SAT_FIELDS];
        cr_assert_eq(hem_sat_node_if97(i, n), PCS_OK, "node %u: %s", i, pcs_last_error());
        for (int k = 0; k < HEM_SAT_FIELDS; k++)
            cr_assert_eq(n[k], hem_sat_nodes[i][k],
                         "thnet_hem_sat_data.c node %u field %d: %a, IF97 gives %a", i, k,
                         hem_sat_nodes[i][k], n[k]);
        double mu[2];
        cr_assert_eq(hem_sat_mu_node_if97(i, mu), PCS_OK, "mu node %u: %s", i, pcs_last_error());
        for (int k = 0; k < 2; k++)
            cr_assert_eq(mu[k], hem_sat_mu_nodes[i][k],
                         "thnet_hem_sat_data.c mu node %u field %d: %a, R12-08 gives %a", i, k,
                         hem_sat_mu_nodes[i][k], mu[k]);
    }
}

/* mu' and mu'' between the nodes within 5e-8 relative of R12-08 at IF97's
   saturated phases (what pcs_thnet_props_table's dome viscosity reads;
   measured 2.4e-8, near the top of the table). */
Test(thnet_hem_table, saturated_viscosity_between_nodes)
{
    double worst = 0.0;
    for (uint32_t i = 0; i + 1 < HEM_SAT_N; i++)
        for (int q = 1; q < 4; q++) {
            const double lnp = hem_sat_lnp_lo + (i + 0.25 * q) * hem_sat_dlnp, p = exp(lnp);
            double mf = 0.0, mg = 0.0, t = 0.0, xf = 0.0, xg = 0.0;
            pcs_water_props f, g;
            cr_assert_eq(hem_sat_mu_table(p, lnp, &mf, &mg), PCS_OK, "%s", pcs_last_error());
            cr_assert_eq(pcs_water_tsat(p, &t), PCS_OK);
            cr_assert_eq(pcs_if97_region1(p, t, &f), PCS_OK);
            cr_assert_eq(pcs_if97_region2(p, t, &g), PCS_OK);
            cr_assert_eq(pcs_water_viscosity(f.rho_kg_m3, t, &xf), PCS_OK);
            cr_assert_eq(pcs_water_viscosity(g.rho_kg_m3, t, &xg), PCS_OK);
            cr_assert(rel(mf, xf) <= 5e-8 && rel(mg, xg) <= 5e-8,
                      "p %.10g Pa (cell %u): mu' %.12g (R12-08 %.12g), mu'' %.12g (%.12g)", p, i,
                      mf, xf, mg, xg);
            worst = fmax(worst, fmax(rel(mf, xf), rel(mg, xg)));
        }
    cr_expect(worst > 5e-9, "largest error %.3g: the bound is loose by orders", worst);
}

/* Between the nodes: the saturated phases of the table within 2e-8 relative
   (1e-8 for h and s) of IF97 at three points of every cell. */
Test(thnet_hem_table, saturation_between_nodes)
{
    static const char *name[] = {"h'", "h''", "s'", "s''", "v'", "v''"};
    static const double bound[] = {1e-8, 1e-8, 1e-8, 1e-8, 2e-8, 2e-8};
    for (uint32_t i = 0; i + 1 < HEM_SAT_N; i++)
        for (int q = 1; q < 4; q++) {
            const double lnp = hem_sat_lnp_lo + (i + 0.25 * q) * hem_sat_dlnp, p = exp(lnp);
            hem_sat a, b;
            cr_assert_eq(hem_sat_table(p, lnp, &a), PCS_OK, "%s", pcs_last_error());
            cr_assert_eq(hem_sat_if97(p, lnp, &b), PCS_OK, "%s", pcs_last_error());
            const double ta[] = {a.hf, a.hg, a.sf, a.sg, a.vf, a.vg};
            const double tb[] = {b.hf, b.hg, b.sf, b.sg, b.vf, b.vg};
            for (int k = 0; k < 6; k++)
                cr_assert(rel(ta[k], tb[k]) <= bound[k],
                          "p %.10g Pa (cell %u): %s table %.17g, IF97 %.17g, rel %.3g > %g", p, i,
                          name[k], ta[k], tb[k], rel(ta[k], tb[k]), bound[k]);
        }
}

/* The offtake's saturation hook (pcsim/thnet.h): inside the table the
   table's phases within the stated 1e-8 (h) and 2e-8 (rho) of IF97, between
   the nodes; outside it (and above 623.15 K) IF97's to the bit; the table
   eos carries the hook. */
Test(thnet_hem_table, offtake_saturation_hook)
{
    for (uint32_t i = 0; i + 1 < HEM_SAT_N; i += 7) {
        const double p = exp(hem_sat_lnp_lo + (i + 0.5) * hem_sat_dlnp);
        pcs_thnet_sat a, b;
        cr_assert_eq(pcs_thnet_sat_table(NULL, p, &a), PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(pcs_thnet_sat_if97(NULL, p, &b), PCS_OK, "%s", pcs_last_error());
        cr_assert(rel(a.h_f_j_kg, b.h_f_j_kg) <= 1e-8 && rel(a.h_g_j_kg, b.h_g_j_kg) <= 1e-8,
                  "p %.10g Pa: h' %.17g / %.17g, h'' %.17g / %.17g", p, a.h_f_j_kg, b.h_f_j_kg,
                  a.h_g_j_kg, b.h_g_j_kg);
        cr_assert(rel(a.rho_f_kg_m3, b.rho_f_kg_m3) <= 2e-8 &&
                      rel(a.rho_g_kg_m3, b.rho_g_kg_m3) <= 2e-8,
                  "p %.10g Pa: rho' %.17g / %.17g, rho'' %.17g / %.17g", p, a.rho_f_kg_m3,
                  b.rho_f_kg_m3, a.rho_g_kg_m3, b.rho_g_kg_m3);
    }
    pcs_thnet_sat a, b;
    cr_assert_eq(pcs_thnet_sat_table(NULL, 800.0, &a), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_thnet_sat_if97(NULL, 800.0, &b), PCS_OK);
    cr_assert(memcmp(&a, &b, sizeof a) == 0, "800 Pa: the table path is not IF97's");
    /* above T_sat 623.15 K IF97's region 1 has no liquid: both refuse, and
       the offtake takes the mixture */
    cr_assert_eq(pcs_thnet_sat_table(NULL, 18.0e6, &a), PCS_E_INVAL);
    cr_assert_eq(pcs_thnet_sat_if97(NULL, 18.0e6, &b), PCS_E_INVAL);
    cr_assert_eq(pcs_thnet_sat_if97(NULL, 23.0e6, &a), PCS_E_INVAL, "no saturation above p_c");
    cr_assert_eq(pcs_thnet_sat_if97(NULL, 1e6, NULL), PCS_E_INVAL);
    cr_assert(pcs_thnet_eos_table(NULL).sat == pcs_thnet_sat_table);
    cr_assert(pcs_thnet_eos_if97().sat == NULL, "the exact eos keeps IF97 (NULL hook)");
}

/* The stated bounds (pcsim/thnet.h): Gc within 2e-8 for x0 >= 0.05 and 1e-6
   below, p_throat within 3e-6, on 41 pressures from 2 kPa to 16 MPa (log
   spaced, not on the nodes) and 26 qualities including 0 and 1. */
Test(thnet_hem_table, gc_against_if97)
{
    static const double xs[] = {0.0,  0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.1,  0.15,
                                0.2,  0.25,  0.3,  0.35, 0.4,  0.45, 0.5,  0.55, 0.6,
                                0.65, 0.7,   0.75, 0.8,  0.85, 0.9,  0.95, 1.0};
    double worst_hi = 0.0, worst_lo = 0.0;
    for (int ip = 0; ip <= 40; ip++) {
        const double p0 = exp(log(2e3) + ip * (log(16e6) - log(2e3)) / 40.0);
        for (size_t ix = 0; ix < sizeof xs / sizeof xs[0]; ix++) {
            const double x0 = xs[ix], h0 = h_at_quality(p0, x0);
            pcs_thnet_choke a, b;
            cr_assert_eq(pcs_thnet_choke_table(NULL, p0, h0, &a), PCS_OK, "p0 %g x0 %g: %s", p0, x0,
                         pcs_last_error());
            cr_assert_eq(pcs_thnet_choke_if97(NULL, p0, h0, &b), PCS_OK, "p0 %g x0 %g: %s", p0, x0,
                         pcs_last_error());
            const double eg = rel(a.g_kg_m2s, b.g_kg_m2s), bound = x0 >= 0.05 ? 2e-8 : 1e-6;
            cr_expect(eg <= bound, "p0 %.10g Pa x0 %g: Gc table %.12g, IF97 %.12g, rel %.3g > %g",
                      p0, x0, a.g_kg_m2s, b.g_kg_m2s, eg, bound);
            cr_expect(rel(a.p_throat_pa, b.p_throat_pa) <= 3e-6,
                      "p0 %.10g Pa x0 %g: p_throat table %.12g, IF97 %.12g", p0, x0, a.p_throat_pa,
                      b.p_throat_pa);
            double *w = x0 >= 0.05 ? &worst_hi : &worst_lo;
            *w = fmax(*w, eg);
        }
    }
    /* the bounds are not loose by orders of magnitude (measured 1.0e-8 and 5.2e-7) */
    cr_expect(worst_hi > 1e-9 && worst_lo > 5e-8, "largest Gc errors %.3g, %.3g", worst_hi,
              worst_lo);
}

/* Outside the table's domain the answer is IF97's, bit for bit: compressed
   liquid, superheated vapour, the dome above 16 MPa. */
Test(thnet_hem_table, outside_the_dome_is_if97)
{
    const double cases[][2] = {
        {15.5e6, 1.3e6},                     /* subcooled primary liquid */
        {6.8e6, 2.80e6},                     /* superheated steam */
        {16.3e6, h_at_quality(16.3e6, 0.5)}, /* dome above 16 MPa */
        {1.0e6, 3.2e6},                      /* vapour, low pressure */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pcs_thnet_choke a, b;
        cr_assert_eq(pcs_thnet_choke_table(NULL, cases[i][0], cases[i][1], &a), PCS_OK, "%s",
                     pcs_last_error());
        cr_assert_eq(pcs_thnet_choke_if97(NULL, cases[i][0], cases[i][1], &b), PCS_OK, "%s",
                     pcs_last_error());
        cr_expect(memcmp(&a, &b, sizeof a) == 0,
                  "case %zu (%g Pa, %g J/kg): Gc %.17g against IF97 %.17g", i, cases[i][0],
                  cases[i][1], a.g_kg_m2s, b.g_kg_m2s);
    }
    pcs_thnet_choke c;
    cr_expect_eq(pcs_thnet_choke_table(NULL, 500.0, 2.5e6, &c), PCS_E_INVAL,
                 "p0 500 Pa is below the search's 1 kPa");
    cr_expect_eq(pcs_thnet_choke_table(NULL, 6e6, 2.7e6, NULL), PCS_E_INVAL, "out NULL");
}

/* The table eos chokes through the table. */
Test(thnet_hem_table, eos_hook)
{
    pcs_thnet_eos e = pcs_thnet_eos_table((const pcs_water_ph_table *)NULL);
    cr_expect(e.choke == pcs_thnet_choke_table, "pcs_thnet_eos_table's choke");
}
