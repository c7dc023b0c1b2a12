/**
 * @file test_primary_metal.c
 * @brief The primary's metal (pcsim/primary.h "Metal", "Heat"): the wall
 *        conduction kernel (physics/thermal/kernels/heat_wall.h) against
 *        textbook solutions, and the primary's heat structures: steady
 *        states stay steady, energy closes per tick with the metal, the
 *        metal slows a heat-up, save/load round trip and the load check.
 *
 * References: F. P. Incropera, D. P. DeWitt, T. L. Bergman, A. S. Lavine,
 * Fundamentals of Heat and Mass Transfer, 6th ed., Wiley 2007: steady
 * conduction through a cylindrical wall with convection on both sides, the
 * total resistance 1/(h_1 A_1) + ln(r_2/r_1)/(2 pi k L) + 1/(h_2 A_2)
 * (section 3.3.1, eq. 3.32-3.35) and its log profile T(r) (eq. 3.26); the
 * spherical shell's ln replaced by (1/r_1 - 1/r_2)/(4 pi k) (eq. 3.36); the
 * lumped-capacitance solution (T - T_f)/(T_0 - T_f) = exp(-t/tau), tau =
 * rho c V/(h A), valid for Bi = h L_c/k << 1 (section 5.1, eq. 5.6, 5.10).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcsim/pcsim.h"
#include "physics/thermal/kernels/heat_wall.h"
#include "tests/save_craft.h"
#include "tests/save_refused.h"

/* ---- the kernel -------------------------------------------------------------- */

/* A cylinder wall of the vessel's size (r 2.197 -> 2.416 m, 1 m high, k 17)
 * between water at 580 K (h 3e4) and 300 K (h 10): steady profile (inv_dt
 * 0) against Incropera eq. 3.26 and 3.32-3.35 to round-off, for 1 and 20
 * intervals (the conductances are the exact shells', so the nodes lie on
 * the profile whatever the mesh). */
Test(heat_wall, steady_cylinder_matches_the_log_profile)
{
    const double ra = 2.197, rb = 2.416, k = 17.0, L = 1.0, ha = 3e4, hb = 10.0;
    const double ta = 580.0, tb = 300.0;
    for (uint32_t n_int = 1; n_int <= 20; n_int += 19) {
        double cap[21], cond[20], t[21], scratch[42], aa, ab, qa, qb;
        cr_assert_eq(pcs_heat_wall_mesh(PCS_HEAT_WALL_CYLINDER, ra, rb, L, n_int, k, 4e6, cap, cond,
                                        &aa, &ab),
                     PCS_OK, "%s", pcs_last_error());
        cr_expect(fabs(aa - 2 * M_PI * ra * L) < 1e-12 * aa);
        for (uint32_t i = 0; i <= n_int; i++)
            t[i] = 450.0;
        pcs_heat_wall_step(n_int + 1, cap, cond, ha * aa, ta, hb * ab, tb, 0.0, t, scratch, &qa,
                           &qb);
        double r_tot = 1.0 / (ha * aa) + log(rb / ra) / (2 * M_PI * k * L) + 1.0 / (hb * ab);
        double q = (ta - tb) / r_tot;
        cr_expect(fabs(qa - q) <= 1e-12 * q, "%u intervals: q_a %.15g W, exact %.15g", n_int, qa,
                  q);
        cr_expect(fabs(qa + qb) <= 1e-12 * q, "q_a + q_b = %.3g W", qa + qb);
        double t_sa = ta - q / (ha * aa);
        for (uint32_t i = 0; i <= n_int; i++) {
            double r = ra + (rb - ra) * i / n_int;
            double exact = t_sa - q * log(r / ra) / (2 * M_PI * k * L);
            cr_expect(fabs(t[i] - exact) <= 1e-10, "node %u: %.12f K, exact %.12f K", i, t[i],
                      exact);
        }
    }
}

/* Spherical shell (a hemisphere, fraction 0.5) and slab: steady heat flow
 * against Incropera eq. 3.36 and the plane wall's L/(k A). */
Test(heat_wall, steady_sphere_and_slab_heat_flows)
{
    double cap[9], cond[8], t[9], s[18], aa, ab, qa, qb;
    const double ra = 2.24, rb = 2.38, k = 17.0, ha = 2e4, hb = 500.0;
    cr_assert_eq(
        pcs_heat_wall_mesh(PCS_HEAT_WALL_SPHERE, ra, rb, 0.5, 8, k, 4e6, cap, cond, &aa, &ab),
        PCS_OK);
    for (int i = 0; i < 9; i++)
        t[i] = 400.0;
    pcs_heat_wall_step(9, cap, cond, ha * aa, 560.0, hb * ab, 500.0, 0.0, t, s, &qa, &qb);
    double r = 1 / (ha * 2 * M_PI * ra * ra) + (1 / ra - 1 / rb) / (2 * M_PI * k) +
               1 / (hb * 2 * M_PI * rb * rb);
    cr_expect(fabs(qa - 60.0 / r) <= 1e-12 * qa, "sphere %.15g W, exact %.15g", qa, 60.0 / r);
    cr_assert_eq(
        pcs_heat_wall_mesh(PCS_HEAT_WALL_SLAB, 0.0, 0.05, 3.0, 5, k, 4e6, cap, cond, &aa, &ab),
        PCS_OK);
    pcs_heat_wall_step(6, cap, cond, ha * aa, 560.0, 0.0, 0.0, 0.0, t, s, &qa, &qb);
    cr_expect(fabs(qa) < 1e-9 && fabs(t[5] - 560.0) < 1e-12,
              "an adiabatic slab settles at its water's temperature: %.15g K, q %.3g", t[5], qa);
    pcs_heat_wall_step(6, cap, cond, ha * aa, 560.0, hb * ab, 500.0, 0.0, t, s, &qa, &qb);
    double rs = 1 / (ha * 3.0) + 0.05 / (k * 3.0) + 1 / (hb * 3.0);
    cr_expect(fabs(qa - 60.0 / rs) <= 1e-12 * qa, "slab %.15g W, exact %.15g", qa, 60.0 / rs);
}

/* A thin Inconel plate (2 mm, k 19.7, rho c 4.27e6) in water whose
 * temperature steps from 550 to 580 K, h = 100 W/(m2 K) on both faces: Bi
 * = h (L/2) / k = 5e-3, so the lumped exponential holds (Incropera 5.6)
 * with tau = rho c L / (2 h) = 42.7 s. Backward Euler at dt = tau/1000
 * (4 nodes) against exp(-t/tau) at t = tau and 3 tau: within 1e-3 of the
 * step (the lumped model's error is of order Bi/3, the scheme's t dt /
 * (2 tau^2) = 5e-4 at t = tau); and what the water gave, sum dt (q_a + q_b),
 * equals sum C dT to 1e-12. */
Test(heat_wall, thin_plate_follows_the_lumped_exponential)
{
    const double L = 0.002, k = 19.7, rc = 4.27e6, h = 100.0, area = 1.0;
    double cap[4], cond[3], t[4], s[8], aa, ab, qa, qb;
    cr_assert_eq(
        pcs_heat_wall_mesh(PCS_HEAT_WALL_SLAB, 0.0, L, area, 3, k, rc, cap, cond, &aa, &ab),
        PCS_OK);
    for (int i = 0; i < 4; i++)
        t[i] = 550.0;
    double tau = rc * L / (2 * h), dt = tau / 1000.0, e0 = pcs_heat_wall_energy(4, cap, t);
    double in = 0.0;
    for (int n = 1; n <= 3000; n++) {
        pcs_heat_wall_step(4, cap, cond, h * aa, 580.0, h * ab, 580.0, 1.0 / dt, t, s, &qa, &qb);
        in += dt * (qa + qb);
        if (n == 1000 || n == 3000) {
            double theta = (580.0 - 0.5 * (t[0] + t[3])) / 30.0, exact = exp(-n / 1000.0);
            cr_log_info("lumped plate at %d tau: theta %.6f, exp %.6f", n / 1000, theta, exact);
            cr_expect(fabs(theta - exact) <= 1e-3, "t = %d tau: theta %.6f, exp(-t/tau) %.6f",
                      n / 1000, theta, exact);
        }
    }
    double e1 = pcs_heat_wall_energy(4, cap, t);
    cr_expect(fabs(e1 - e0 - in) <= 1e-12 * (e1 - e0), "stored %.15g J, in %.15g J", e1 - e0, in);
}

/* Bad meshes are refused naming the value. */
Test(heat_wall, bad_mesh_is_refused)
{
    double cap[3], cond[2], aa, ab;
    cr_expect_eq(
        pcs_heat_wall_mesh(PCS_HEAT_WALL_CYLINDER, 2.0, 1.0, 1.0, 2, 17, 4e6, cap, cond, &aa, &ab),
        PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "x_a = 2") != NULL, "%s", pcs_last_error());
    cr_expect_eq(
        pcs_heat_wall_mesh(PCS_HEAT_WALL_SPHERE, 1.0, 2.0, 1.5, 2, 17, 4e6, cap, cond, &aa, &ab),
        PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "fraction 1.5") != NULL, "%s", pcs_last_error());
    cr_expect_eq(
        pcs_heat_wall_mesh(PCS_HEAT_WALL_SLAB, 0.0, 1.0, 1.0, 0, 17, 4e6, cap, cond, &aa, &ab),
        PCS_E_INVAL);
}

/* ---- the primary's metal --------------------------------------------------------- */

/* The metal's def fields are checked, the message naming field and range. */
Test(primary_metal, def_validate_names_the_metal_fields)
{
    pcs_primary_def d;
    pcs_primary_default(&d);
    d.metal_dx_max_m = 0.0;
    cr_expect_eq(pcs_primary_def_validate(&d), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "metal_dx_max_m") != NULL, "%s", pcs_last_error());
    /* review: 2e-4 m validated, then the build refused it (the 0.273 m wall in
     * 1366 intervals, over the wall kernel's 1,000) without naming the field */
    d.metal_dx_max_m = 2e-4;
    cr_expect_eq(pcs_primary_def_validate(&d), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "metal_dx_max_m") != NULL, "%s", pcs_last_error());
    pcs_primary_default(&d);
    d.steel_rho_c_j_m3k = -1.0;
    cr_expect_eq(pcs_primary_def_validate(&d), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "steel_rho_c_j_m3k") != NULL, "%s", pcs_last_error());
    pcs_primary_default(&d);
    d.metal_model = 2;
    cr_expect_eq(pcs_primary_def_validate(&d), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "metal_model = 2") != NULL, "%s", pcs_last_error());
}

static pcs_water_ph_table *pm_table;

typedef struct pm_unit {
    pcs_world *w;
    pcs_primary *pr;
    pcs_primary_stores s;
    double *out;
} pm_unit;

static void pm_open(pm_unit *u, double f, uint32_t metal)
{
    memset(u, 0, sizeof *u);
    if (!pm_table) {
        pcs_water_ph_table_def td;
        pcs_water_ph_table_default(&td);
        cr_assert_eq(pcs_water_ph_table_create(&td, &pm_table), PCS_OK);
    }
    pcs_world_def wd;
    pcs_world_default(&wd);
    wd.check_access = 1;
    wd.check_finite = 1;
    cr_assert_eq(pcs_world_create(&wd, &u->w), PCS_OK);
    pcs_primary_def d;
    pcs_primary_default(&d);
    d.table = pm_table;
    d.metal_model = metal;
    cr_assert_eq(pcs_primary_add(u->w, &d, &u->pr), PCS_OK, "%s", pcs_last_error());
    u->s = pcs_primary_store_ids(u->pr);
    cr_assert_eq(pcs_primary_init_steady(u->w, u->pr, f, NULL), PCS_OK, "%s", pcs_last_error());
    u->out = pcs_store_data(u->w, u->s.out);
}

static void pm_tick(pm_unit *u, int n)
{
    for (int i = 0; i < n; i++)
        cr_assert_eq(pcs_world_tick(u->w), PCS_OK, "tick %d: %s", i, pcs_last_error());
}

/* The [TYP] structures' metal, by hand from the cards (scenarios/README.md
 * "Metal"; the sum of pi h (r_b^2 - r_a^2), f 4/3 pi (r_b^3 - r_a^3) and
 * A t over the 14 structures: 81.278 m3, about 640 t of steel), and the
 * tubes' pi/4 (D_o^2 - D_i^2) L N per SG (6.0349 m3 of Inconel): the heat
 * capacities the model holds, divided by rho c, give them back. */
Test(primary_metal, structures_have_the_decks_metal)
{
    pm_unit u;
    pm_open(&u, 1.0, PCS_PRIMARY_METAL_TYP);
    uint32_t tube0, n = pcs_primary_metal_nodes(u.pr, &tube0);
    cr_expect_eq(n - tube0, 4u * 8u, "one tube wall per tube volume");
    const pcs_primary_def *d = pcs_primary_def_get(u.pr);
    /* stored energy per kelvin: put every node 1 K up */
    double *t = pcs_store_data(u.w, u.s.metal), e0 = pcs_primary_metal_energy(u.w, u.pr);
    for (uint32_t i = 0; i < tube0; i++)
        t[i] += 1.0;
    double c_vessel = pcs_primary_metal_energy(u.w, u.pr) - e0;
    for (uint32_t i = tube0; i < n; i++)
        t[i] += 1.0;
    double c_tubes = pcs_primary_metal_energy(u.w, u.pr) - e0 - c_vessel;
    double v_vessel = c_vessel / d->steel_rho_c_j_m3k, v_tubes = c_tubes / d->sg_wall_rho_c_j_m3k;
    double d_i = 0.02223 - 2 * 0.00127;
    double v_tubes_hand = 4 * 3388 * 21.3 * M_PI / 4 * (0.02223 * 0.02223 - d_i * d_i);
    cr_log_info("metal: vessel structures %.3f m3 (%.4g J/K), SG tubes %.3f m3 (%.4g J/K)",
                v_vessel, c_vessel, v_tubes, c_tubes);
    cr_expect(fabs(v_tubes - v_tubes_hand) <= 1e-9 * v_tubes_hand, "tubes %.6f m3, hand %.6f",
              v_tubes, v_tubes_hand);
    cr_expect(fabs(v_vessel - 81.2775) <= 1e-5 * 81.2775,
              "vessel structures %.5f m3, cards 81.2775", v_vessel);
    pcs_world_destroy(u.w);
}

/* A steady state stays steady with the metal (its profile is built with the
 * settling), and water + pressurizer + metal energy closes per tick with
 * pcs_primary_last_balance through a heat-up: the SG pressures step up 0.5
 * MPa at 5 s (the tubes give less heat; the walls store what the water
 * gives them). No allocation per tick. */
Test(primary_metal, steady_then_energy_closes_through_a_heat_up)
{
    pm_unit u;
    pm_open(&u, 1.0, PCS_PRIMARY_METAL_TYP);
    double tavg0 = u.out[PCS_PRIMARY_OUT_T_AVG], em0 = pcs_primary_metal_energy(u.w, u.pr);
    cr_assert_gt(em0, 0.0);
    double m, e0, e1, worst = 0.0, drift = 0.0;
    pcs_primary_totals(u.w, u.pr, &m, &e0);
    uint64_t allocs = pcs_world_alloc_count(u.w);
    double *ctl = pcs_store_data(u.w, u.s.controls);
    for (int n = 1; n <= 400; n++) {
        if (n == 101)
            for (uint32_t l = 0; l < 4; l++)
                ctl[PCS_PRIMARY_CTL_SG_PRESSURE + l] += 0.5e6;
        pm_tick(&u, 1);
        pcs_primary_totals(u.w, u.pr, &m, &e1);
        pcs_primary_balance b = pcs_primary_last_balance(u.pr);
        worst = fmax(worst, fabs(e1 - e0 - b.energy_in_j) / e1);
        e0 = e1;
        if (n == 100) {
            drift = fabs(u.out[PCS_PRIMARY_OUT_T_AVG] - tavg0);
            double dem = pcs_primary_metal_energy(u.w, u.pr) - em0;
            cr_log_info("steady 5 s: Tavg moved %.3g K, metal energy %.3g J", drift, dem);
            /* over 1e-4 K of the metal's 4.54e8 J/K (the structures test): the
               settling's own tolerance, |dT/dt| <= 1e-4 K/s of the water */
            cr_expect_leq(fabs(dem), 1e-4 * 4.54e8, "the metal's energy moved %.3g J at steady",
                          dem);
        }
    }
    double dem = pcs_primary_metal_energy(u.w, u.pr) - em0;
    cr_log_info("heat-up: Tavg %.3f -> %.3f K, metal took %.4g J; closure per tick %.3g", tavg0,
                u.out[PCS_PRIMARY_OUT_T_AVG], dem, worst);
    cr_expect_leq(drift, 0.005, "Tavg drifted %.3g K in 5 s at steady", drift);
    cr_expect_leq(worst, 1e-9, "|dU - in| / U = %.3g per tick", worst);
    cr_expect_gt(dem, 0.0, "the heat-up warmed the metal");
    cr_expect_eq(pcs_world_alloc_count(u.w), allocs, "the ticks allocated");
    pcs_world_destroy(u.w);
}

/* The metal slows the heat-up: with the same 0.5 MPa SG pressure step the
 * water's Tavg rises less in 15 s with the structures than without (its
 * heat capacity is the water's plus the part of the metal the films and
 * conduction reach in that time). */
Test(primary_metal, metal_slows_a_heat_up)
{
    double rise[2];
    for (uint32_t m = 0; m < 2; m++) {
        pm_unit u;
        pm_open(&u, 1.0, m);
        double t0 = u.out[PCS_PRIMARY_OUT_T_AVG];
        double *ctl = pcs_store_data(u.w, u.s.controls);
        for (uint32_t l = 0; l < 4; l++)
            ctl[PCS_PRIMARY_CTL_SG_PRESSURE + l] += 0.5e6;
        pm_tick(&u, 300);
        rise[m] = u.out[PCS_PRIMARY_OUT_T_AVG] - t0;
        pcs_world_destroy(u.w);
    }
    cr_log_info("Tavg rise in 15 s: %.4f K water only, %.4f K with metal", rise[0], rise[1]);
    cr_expect_gt(rise[0], 0.0);
    cr_expect_lt(rise[1], rise[0], "metal %.4f K, water only %.4f K", rise[1], rise[0]);
}

/* Save mid-transient, load into a second world built the same way: the same
 * hash after running on; crafted saves with a non-finite or out-of-range
 * metal temperature are refused naming the store, the element and the
 * range. */
Test(primary_metal, save_load_and_refused_metal)
{
    char path[96], bad[112];
    snprintf(path, sizeof path, "/tmp/pcsim-primary-metal-%d.save", (int)getpid());
    snprintf(bad, sizeof bad, "%s.bad", path);
    pm_unit a, b;
    pm_open(&a, 1.0, PCS_PRIMARY_METAL_TYP);
    double *ctl = pcs_store_data(a.w, a.s.controls);
    ctl[PCS_PRIMARY_CTL_SG_PRESSURE] += 0.5e6;
    pm_tick(&a, 40);
    cr_assert_eq(pcs_world_save(a.w, path), PCS_OK, "%s", pcs_last_error());
    pm_tick(&a, 40);
    pm_open(&b, 1.0, PCS_PRIMARY_METAL_TYP);
    cr_assert_eq(pcs_world_load(b.w, path), PCS_OK, "%s", pcs_last_error());
    pm_tick(&b, 40);
    cr_expect_eq(pcs_world_state_hash(a.w), pcs_world_state_hash(b.w), "hash after the load");
    size_t len;
    unsigned char *image = save_craft_read(path, &len);
    cr_assert_not_null(image);
    uint32_t tube0, n = pcs_primary_metal_nodes(b.pr, &tube0);
    save_expect_refused(b.w, image, len, bad, "store:u1.pri.metal", 3, NAN, "vessel metal");
    save_expect_refused(b.w, image, len, bad, "store:u1.pri.metal", 3, 2000.0, "1073.15");
    save_expect_refused(b.w, image, len, bad, "store:u1.pri.metal", n - 1, 200.0,
                        "SG tube wall temperature");
    free(image);
    pcs_world_destroy(a.w);
    pcs_world_destroy(b.w);
    unlink(path);
    unlink(bad);
}
