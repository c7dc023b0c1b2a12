/**
 * @file test_fuel_rod.c
 * @brief Fuel-rod heat model (include/pcsim/fuel.h): analytic steady state,
 *        energy conservation, stability, transient convergence, zero
 *        allocation per tick, configuration errors, range flags and
 *        determinism; plus the material correlations and their tables.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "pcsim/pcsim.h"
#include "physics/thermal/models/prop_table.h"

/* ---------------------------------------------------------------- helpers */

typedef struct fr_world {
    pcs_world *w;
    uint32_t power_store;
    double *power;
    pcs_fuel f;
    double *t_rod, *t_cool, *mdot, *t_in, *out;
    uint32_t *flags;
} fr_world;

static void fr_make(fr_world *x, const pcs_fuel_def *cfg, double dt_s, double power_w)
{
    pcs_world_def wc;
    cr_assert_eq(pcs_world_default(&wc), PCS_OK);
    wc.check_finite = 1; /* NaN/Inf in a physics store fails the tick */
    wc.dt_s = dt_s;
    wc.workers = 0;
    cr_assert_eq(pcs_world_create(&wc, &x->w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_store_register(x->w, "u1.core.power", sizeof(double), 1, PCS_STORE_STATE,
                                    &x->power_store),
                 PCS_OK);
    x->power = pcs_store_data(x->w, x->power_store);
    *x->power = power_w;
    cr_assert_eq(pcs_fuel_add(x->w, 0, cfg, x->power_store, 0, &x->f), PCS_OK, "%s",
                 pcs_last_error());
    x->t_rod = pcs_store_data(x->w, x->f.store_t_rod);
    x->t_cool = pcs_store_data(x->w, x->f.store_t_coolant);
    x->mdot = pcs_store_data(x->w, x->f.store_mass_flow);
    x->t_in = pcs_store_data(x->w, x->f.store_t_inlet);
    x->out = pcs_store_data(x->w, x->f.store_out);
    x->flags = pcs_store_data(x->w, x->f.store_flags);
}

static void fr_tick(fr_world *x)
{
    pcs_status st = pcs_world_tick(x->w);
    cr_assert_eq(st, PCS_OK, "tick failed: %s", pcs_last_error());
}

/* Coolant properties held constant (zero slopes, wide clamp range), so that
 * stored energy sum C T is exactly the conserved quantity. */
static void fr_constant_coolant(pcs_fuel_def *cfg)
{
    pcs_coolant_linear *c = &cfg->coolant_linear;
    c->t_min_k = 273.15;
    c->t_max_k = 4000.0;
    c->cp_ref = 5500.0;
    c->dcp_dt = 0.0;
    c->k_ref = 0.55;
    c->dk_dt = 0.0;
    c->mu_ref = 8.5e-5;
    c->dmu_dt = 0.0;
    c->rho_ref = 700.0;
    c->drho_dt = 0.0;
}

static double rel_err(double got, double want)
{
    return fabs(got - want) / fabs(want);
}

/* Reference core power: 3411 MWt, tests/refdata/pwr_plant.md ([BEAVRS]; [W84]; [TK]). */
#define FR_FULL_POWER_W 3.411e9

/* ------------------------------------------------------- material tables */

/* Values from tests/refdata/pwr_plant.md, "Values computed here from the
 * formulas" (three decimals for UO2, two for Zircaloy). */
Test(fuel_materials, correlations_match_refdata_table)
{
    const double t[] = {300, 600, 900, 1200, 1500, 2000};
    const double fink[] = {7.591, 5.140, 3.789, 2.948, 2.412, 2.061};
    const double hm[] = {9.761, 5.974, 4.304, 3.368, 2.799, 2.456};
    const double matpro[] = {12.68, 16.49, 20.17, 24.96, 32.12, 52.67};
    const double iaea[] = {13.41, 15.67, 19.55, 25.05, 32.16};
    for (int i = 0; i < 6; i++) {
        cr_assert(fabs(pcs_uo2_k_fink95(t[i]) - fink[i]) <= 0.0005, "Fink %g K: %.5f vs %.3f", t[i],
                  pcs_uo2_k_fink95(t[i]), fink[i]);
        cr_assert(fabs(pcs_uo2_k_harding_martin(t[i]) - hm[i]) <= 0.0005, "H-M %g K: %.5f", t[i],
                  pcs_uo2_k_harding_martin(t[i]));
        cr_assert(fabs(pcs_zry_k_matpro(t[i]) - matpro[i]) <= 0.005, "MATPRO %g K: %.4f", t[i],
                  pcs_zry_k_matpro(t[i]));
        if (i < 5)
            cr_assert(fabs(pcs_zry_k_iaea(t[i]) - iaea[i]) <= 0.005, "IAEA %g K: %.4f", t[i],
                      pcs_zry_k_iaea(t[i]));
    }
}

/* The IAEA-TECDOC-1496 Zircaloy heat capacity at hand-computed points:
 * 600 K: 255.66 + 0.1024 * 600 = 317.10 J/(kg K);
 * 1213.8 K (top of the alpha-beta peak): 255.66 + 0.1024 * 1213.8 + 1058.4
 * = 1438.35312 J/(kg K). */
Test(fuel_materials, zircaloy_cp_hand_values)
{
    cr_assert(fabs(pcs_zry_cp_iaea(600.0) - 317.10) < 1e-9);
    cr_assert(fabs(pcs_zry_cp_iaea(1213.8) - 1438.35312) < 1e-9);
}

static double fr_fink(const void *ctx, double t)
{
    (void)ctx;
    return pcs_uo2_k_fink95(t);
}
static double fr_hm(const void *ctx, double t)
{
    (void)ctx;
    return pcs_uo2_k_harding_martin(t);
}
static double fr_matpro(const void *ctx, double t)
{
    (void)ctx;
    return pcs_zry_k_matpro(t);
}

/* The 4 K tables of fuel_rod.c are stated to be within 3e-5 (relative) of
 * the formulas; sample 7 points inside every interval. */
Test(fuel_materials, table_error_within_stated_bound)
{
    pcs_world_def wc;
    pcs_world_default(&wc);
    wc.workers = 0;
    pcs_world *w;
    cr_assert_eq(pcs_world_create(&wc, &w), PCS_OK);
    pcs_prop_fn fns[] = {fr_fink, fr_hm, fr_matpro};
    double hi[] = {3120.0, 3120.0, 2098.0};
    for (int k = 0; k < 3; k++) {
        pcs_prop_table tab;
        cr_assert_eq(pcs_prop_table_build(w, &tab, "test", fns[k], NULL, 273.15, hi[k], 4.0),
                     PCS_OK);
        double worst = 0.0;
        for (double t = 273.15; t <= hi[k]; t += 0.5) {
            double e = rel_err(pcs_prop_table_eval(&tab, t), fns[k](NULL, t));
            worst = e > worst ? e : worst;
        }
        cr_assert(worst < 3e-5, "table %d: worst relative error %g", k, worst);
        /* Clamping: out of range holds the end value; NaN gives the low end. */
        cr_assert_eq(pcs_prop_table_eval(&tab, 5000.0), tab.v[tab.n - 1]);
        cr_assert_eq(pcs_prop_table_eval(&tab, 10.0), tab.v[0]);
        cr_assert_eq(pcs_prop_table_eval(&tab, NAN), tab.v[0]);
    }
    pcs_world_destroy(w);
}

/* ----------------------------------------------------- analytic steady state */

/*
 * One rod, 4 axial nodes, uniform power, constant properties: every
 * temperature drop has a closed form. Hand computation (Python, double):
 *   q' = 17860 W/m (TK average linear heat rate, pwr_plant.md), L = 3.6576 m,
 *   so P = q' L = 65324.736 W; R_f = 3.9218 mm, r_ci = 4.0005 mm,
 *   r_co = 4.5720 mm, pitch 12.5984 mm ([BEAVRS]).
 *   pellet, k = 3:        q'/(4 pi k)               = 473.751213937 K
 *   gap, h = 1e4:         q'/(2 pi R_f h)           =  72.479659432 K
 *   clad, k = 17:         q' ln(r_co/r_ci)/(2 pi k) =  22.327291537 K
 *   film: A = p^2 - pi r_co^2 = 9.30503933e-5 m^2, D_h = 4A/(2 pi r_co)
 *         = 12.9566317 mm, G = 0.3352/A = 3602.349 kg/(m^2 s),
 *         Re = G D_h / mu = 549109.5, Pr = cp mu / k = 0.85,
 *         Nu = 0.023 Re^0.8 Pr^0.4 = 841.8265, h = Nu k / D_h = 35734.95,
 *         q'/(2 pi r_co h)                           =  17.398114893 K
 *   coolant: per node q' dz/(mdot cp) = 8.858311998 K, total 35.433248 K.
 */
#define FR_QP 17860.0
#define FR_MDOT 0.3352
#define FR_DT_FUEL 473.751213937
#define FR_DT_GAP 72.479659432
#define FR_DT_CLAD 22.327291537
#define FR_DT_FILM 17.398114893
#define FR_DT_COOL_NODE 8.858311998

static void fr_analytic_config(pcs_fuel_def *cfg)
{
    pcs_fuel_default(cfg);
    cfg->n_channels = 1;
    cfg->n_axial = 4;
    cfg->n_rods[0] = 1;
    cfg->axial_shape = PCS_AXIAL_UNIFORM;
    cfg->fuel_heat_fraction = 1.0;
    cfg->fuel_k = PCS_FUEL_K_CONSTANT;
    cfg->fuel_k_const_w_m_k = 3.0;
    cfg->clad_k = PCS_CLAD_K_CONSTANT;
    cfg->clad_k_const_w_m_k = 17.0;
    cfg->gap_conductance_w_m2_k = 1e4;
    cfg->core_mass_flow_kg_s = FR_MDOT;
    fr_constant_coolant(cfg);
}

Test(fuel_rod, steady_state_matches_hand_computation)
{
    pcs_fuel_def cfg;
    fr_analytic_config(&cfg);
    fr_world x;
    double power = FR_QP * cfg.active_length_m;
    fr_make(&x, &cfg, 0.05, power);
    cr_assert_eq(pcs_fuel_solve_steady(x.w, &x.f, power), PCS_OK, "%s", pcs_last_error());

    /* Independent recomputation of the closed forms (same inputs as above). */
    double rf = cfg.pellet_radius_m, rci = cfg.clad_inner_radius_m, rco = cfg.clad_outer_radius_m;
    double area = cfg.rod_pitch_m * cfg.rod_pitch_m - M_PI * rco * rco;
    double dh = 4.0 * area / (2.0 * M_PI * rco);
    double re = FR_MDOT / area * dh / 8.5e-5, pr = 5500.0 * 8.5e-5 / 0.55;
    double h = 0.023 * pow(re, 0.8) * pow(pr, 0.4) * 0.55 / dh;
    double want_fuel = FR_QP / (4.0 * M_PI * 3.0);
    double want_gap = FR_QP / (2.0 * M_PI * rf * 1e4);
    double want_clad = FR_QP * log(rco / rci) / (2.0 * M_PI * 17.0);
    double want_film = FR_QP / (2.0 * M_PI * rco * h);
    double want_cool = FR_QP * cfg.active_length_m / 4.0 / (FR_MDOT * 5500.0);
    cr_assert(rel_err(want_fuel, FR_DT_FUEL) < 1e-9);
    cr_assert(rel_err(want_gap, FR_DT_GAP) < 1e-9);
    cr_assert(rel_err(want_clad, FR_DT_CLAD) < 1e-9);
    cr_assert(rel_err(want_film, FR_DT_FILM) < 1e-8);
    cr_assert(rel_err(want_cool, FR_DT_COOL_NODE) < 1e-9);

    uint32_t nf = x.f.n_fuel_nodes, nr = x.f.n_radial;
    for (uint32_t j = 0; j < 4; j++) {
        const double *t = x.t_rod + j * nr;
        double t_w = x.t_cool[j];
        cr_assert(rel_err(t[0] - t[nf - 1], want_fuel) < 1e-9, "node %u pellet %.12f", j,
                  t[0] - t[nf - 1]);
        cr_assert(rel_err(t[nf - 1] - t[nf], want_gap) < 1e-9, "node %u gap %.12f", j,
                  t[nf - 1] - t[nf]);
        cr_assert(rel_err(t[nf] - t[nr - 1], want_clad) < 1e-9, "node %u clad %.12f", j,
                  t[nf] - t[nr - 1]);
        cr_assert(rel_err(t[nr - 1] - t_w, want_film) < 1e-9, "node %u film %.12f", j,
                  t[nr - 1] - t_w);
        cr_assert(rel_err(t_w - cfg.t_inlet_k, (j + 1) * want_cool) < 1e-9, "node %u coolant", j);
        /* The parabola itself: T(r) - T_s = q'/(4 pi k) (1 - (r/R)^2) at every node. */
        for (uint32_t i = 0; i < nf; i++) {
            double r = (double)i / (double)(nf - 1);
            double want = want_fuel * (1.0 - r * r);
            cr_assert(fabs((t[i] - t[nf - 1]) - want) < 1e-9 * want_fuel, "node %u ring %u", j, i);
        }
    }
    cr_assert(rel_err(x.out[PCS_FUEL_OUT_HEAT_TO_COOLANT], power) < 1e-9);
    cr_assert(rel_err(x.out[PCS_FUEL_OUT_FLOW_HEAT], power) < 1e-9);
    /* Linear coolant rise: outlet T_in + 4 dT_node, mean T_in + 2 dT_node. */
    double t_in = cfg.t_inlet_k;
    cr_assert(rel_err(x.out[PCS_FUEL_OUT_COOLANT_T_OUT] - t_in, 4.0 * want_cool) < 1e-9);
    cr_assert(rel_err(x.out[PCS_FUEL_OUT_COOLANT_T_AVG] - t_in, 2.0 * want_cool) < 1e-9);
    pcs_world_destroy(x.w);
}

/* Full-power steady state of the reference core: the mixed outlet lands on
 * the W84 outlet 599.0 K (tests/refdata/pwr_plant.md, Table 2-1) within 1 K,
 * from the W84 inlet 565.1 K and the BEAVRS core flow, and the channels
 * publish the summary store. */
Test(fuel_rod, reference_core_full_power_outlet_and_channels)
{
    pcs_fuel_def cfg;
    pcs_fuel_default(&cfg);
    fr_world x;
    fr_make(&x, &cfg, 0.05, FR_FULL_POWER_W);
    cr_assert_eq(pcs_fuel_solve_steady(x.w, &x.f, FR_FULL_POWER_W), PCS_OK, "%s", pcs_last_error());
    double t_out = x.out[PCS_FUEL_OUT_COOLANT_T_OUT];
    cr_assert(fabs(t_out - 599.0) < 1.0, "outlet %.3f K", t_out);
    cr_assert(x.out[PCS_FUEL_OUT_T_MAX] > x.out[PCS_FUEL_OUT_T_CENTRE_AVG]);
    cr_assert(x.out[PCS_FUEL_OUT_T_CENTRE_AVG] > x.out[PCS_FUEL_OUT_T_AVG]);
    cr_assert(x.out[PCS_FUEL_OUT_T_AVG] > x.out[PCS_FUEL_OUT_CLAD_T_MAX]);
    cr_assert(x.out[PCS_FUEL_OUT_CLAD_T_MAX] > t_out);
    cr_assert(x.out[PCS_FUEL_OUT_COOLANT_T_AVG] > 565.1 &&
              x.out[PCS_FUEL_OUT_COOLANT_T_AVG] < t_out);
    cr_assert(rel_err(x.out[PCS_FUEL_OUT_HEAT_TO_COOLANT], FR_FULL_POWER_W) < 1e-9);
    const char *names[] = {"u1.fuel.t_max",           "u1.fuel.t_centre_avg", "u1.fuel.t_avg",
                           "u1.clad.t_max",           "u1.coolant.t_out",     "u1.coolant.t_avg",
                           "u1.core.heat_to_coolant", "u1.coolant.flow_heat"};
    const int idx[] = {PCS_FUEL_OUT_T_MAX,           PCS_FUEL_OUT_T_CENTRE_AVG,
                       PCS_FUEL_OUT_T_AVG,           PCS_FUEL_OUT_CLAD_T_MAX,
                       PCS_FUEL_OUT_COOLANT_T_OUT,   PCS_FUEL_OUT_COOLANT_T_AVG,
                       PCS_FUEL_OUT_HEAT_TO_COOLANT, PCS_FUEL_OUT_FLOW_HEAT};
    for (int i = 0; i < 8; i++) {
        uint32_t id;
        cr_assert_eq(pcs_channel_find(x.w, names[i], &id), PCS_OK, "%s", names[i]);
        cr_assert_eq(pcs_channel_value(x.w, id), x.out[idx[i]], "%s", names[i]);
    }
    uint32_t id;
    cr_assert_eq(pcs_channel_find(x.w, "u1.fuel.flags", &id), PCS_OK);
    pcs_world_destroy(x.w);
}

/* --------------------------------------------------------- energy balance */

/* Per tick, the stored energy change equals (P - Q_flow) dt to 1e-9 of P dt
 * (issue 6). Reference core, Fink/MATPRO conductivities (varying with T),
 * constant coolant properties. First adiabatic (no flow: nothing leaves),
 * then with flow, where Q_flow is the model's published flow_heat. */
static void fr_energy_run(double mdot_total, double power, int ticks)
{
    pcs_fuel_def cfg;
    pcs_fuel_default(&cfg);
    fr_constant_coolant(&cfg);
    cfg.core_mass_flow_kg_s = mdot_total;
    fr_world x;
    fr_make(&x, &cfg, 0.05, power);
    double dt = 0.05;
    for (int k = 0; k < ticks; k++) {
        double e0 = pcs_fuel_stored_energy(x.w, &x.f);
        fr_tick(&x);
        double e1 = pcs_fuel_stored_energy(x.w, &x.f);
        double expect = (power - x.out[PCS_FUEL_OUT_FLOW_HEAT]) * dt;
        double err = fabs((e1 - e0) - expect) / (power * dt);
        cr_assert(err < 1e-9, "tick %d: dE = %.12g J, expected %.12g J (rel %g)", k, e1 - e0,
                  expect, err);
        if (mdot_total == 0.0)
            cr_assert_eq(x.out[PCS_FUEL_OUT_FLOW_HEAT], 0.0);
    }
    pcs_world_destroy(x.w);
}

Test(fuel_rod, energy_balance_adiabatic_closes_per_tick)
{
    fr_energy_run(0.0, 0.1 * FR_FULL_POWER_W, 200);
}

Test(fuel_rod, energy_balance_with_flow_closes_per_tick)
{
    fr_energy_run(17080.0, FR_FULL_POWER_W, 200);
}

/* ------------------------------------------------ stability and transients */

/* Power step 50 % -> 100 % from the 50 % steady state. Backward Euler on an
 * M-matrix is monotone: the hottest fuel temperature and the outlet must
 * rise without any oscillation and never pass the 100 % steady state. */
static void fr_step_response(double dt_s, double seconds)
{
    pcs_fuel_def cfg;
    pcs_fuel_default(&cfg);
    fr_world ref;
    fr_make(&ref, &cfg, dt_s, FR_FULL_POWER_W);
    cr_assert_eq(pcs_fuel_solve_steady(ref.w, &ref.f, FR_FULL_POWER_W), PCS_OK);
    double final_tmax = ref.out[PCS_FUEL_OUT_T_MAX];
    double final_tout = ref.out[PCS_FUEL_OUT_COOLANT_T_OUT];

    fr_world x;
    fr_make(&x, &cfg, dt_s, 0.5 * FR_FULL_POWER_W);
    cr_assert_eq(pcs_fuel_solve_steady(x.w, &x.f, 0.5 * FR_FULL_POWER_W), PCS_OK);
    *x.power = FR_FULL_POWER_W;
    double prev_tmax = x.out[PCS_FUEL_OUT_T_MAX], prev_tout = x.out[PCS_FUEL_OUT_COOLANT_T_OUT];
    int n = (int)(seconds / dt_s + 0.5);
    for (int k = 0; k < n; k++) {
        fr_tick(&x);
        double tmax = x.out[PCS_FUEL_OUT_T_MAX], tout = x.out[PCS_FUEL_OUT_COOLANT_T_OUT];
        cr_assert(tmax >= prev_tmax - 1e-9, "dt %g tick %d: T_max fell %.12f -> %.12f", dt_s, k,
                  prev_tmax, tmax);
        cr_assert(tout >= prev_tout - 1e-9, "dt %g tick %d: outlet fell %.12f -> %.12f", dt_s, k,
                  prev_tout, tout);
        cr_assert(tmax <= final_tmax + 1e-6, "dt %g tick %d: overshoot %.9f > %.9f", dt_s, k, tmax,
                  final_tmax);
        cr_assert(tout <= final_tout + 1e-6, "dt %g tick %d: outlet overshoot", dt_s, k);
        prev_tmax = tmax;
        prev_tout = tout;
    }
    cr_assert(fabs(prev_tmax - final_tmax) < 1e-3, "dt %g: T_max %.6f, steady %.6f", dt_s,
              prev_tmax, final_tmax);
    pcs_world_destroy(x.w);
    pcs_world_destroy(ref.w);
}

Test(fuel_rod, power_step_is_monotone_at_fast_step)
{
    fr_step_response(0.05, 200.0);
}

Test(fuel_rod, power_step_is_monotone_at_one_second)
{
    fr_step_response(1.0, 400.0);
}

/* From a cold uniform start at constant full power, the transient converges
 * to the steady solution of pcs_fuel_solve_steady, node by node. */
Test(fuel_rod, transient_approaches_steady_solution)
{
    pcs_fuel_def cfg;
    pcs_fuel_default(&cfg);
    fr_world ref, x;
    fr_make(&ref, &cfg, 0.05, FR_FULL_POWER_W);
    cr_assert_eq(pcs_fuel_solve_steady(ref.w, &ref.f, FR_FULL_POWER_W), PCS_OK);
    fr_make(&x, &cfg, 0.05, FR_FULL_POWER_W);
    double first_gap = fabs(x.out[PCS_FUEL_OUT_T_MAX] - ref.out[PCS_FUEL_OUT_T_MAX]);
    for (int k = 0; k < 6000; k++) /* 300 s, many fuel time constants (~5 s) */
        fr_tick(&x);
    size_t n_rod = (size_t)x.f.n_channels * x.f.n_axial * x.f.n_radial;
    double worst = 0.0;
    for (size_t i = 0; i < n_rod; i++)
        worst = fmax(worst, fabs(x.t_rod[i] - ref.t_rod[i]));
    for (size_t i = 0; i < (size_t)x.f.n_channels * x.f.n_axial; i++)
        worst = fmax(worst, fabs(x.t_cool[i] - ref.t_cool[i]));
    cr_assert(first_gap > 500.0, "the start must be far from steady: %g K", first_gap);
    cr_assert(worst < 1e-6, "largest difference after 300 s: %g K", worst);
    pcs_world_destroy(x.w);
    pcs_world_destroy(ref.w);
}

/* ------------------------------------------------------ allocation, hashing */

Test(fuel_rod, no_allocation_per_tick)
{
    pcs_fuel_def cfg;
    pcs_fuel_default(&cfg);
    fr_world x;
    fr_make(&x, &cfg, 0.05, FR_FULL_POWER_W);
    fr_tick(&x); /* seals the world */
    uint64_t before = pcs_world_alloc_count(x.w);
    for (int k = 0; k < 10000; k++) {
        *x.power = FR_FULL_POWER_W * (0.5 + 0.5 * (double)(k % 100) / 100.0);
        fr_tick(&x);
    }
    cr_assert_eq(pcs_world_alloc_count(x.w), before);
    pcs_world_destroy(x.w);
}

static uint64_t fr_scripted_hash(double power_scale)
{
    pcs_fuel_def cfg;
    pcs_fuel_default(&cfg);
    cfg.peaking[0] = 1.3;
    cfg.peaking[3] = 0.8;
    fr_world x;
    fr_make(&x, &cfg, 0.05, FR_FULL_POWER_W);
    for (int k = 0; k < 2000; k++) {
        *x.power = power_scale * FR_FULL_POWER_W * (k < 1000 ? 1.0 : 0.3);
        x.mdot[1] = 4270.0 * (k < 1500 ? 1.0 : 0.7);
        fr_tick(&x);
    }
    uint64_t h = pcs_world_state_hash(x.w);
    pcs_world_destroy(x.w);
    return h;
}

Test(fuel_rod, same_inputs_give_same_hash)
{
    uint64_t a = fr_scripted_hash(1.0), b = fr_scripted_hash(1.0);
    cr_assert_eq(a, b, "%016llx vs %016llx", (unsigned long long)a, (unsigned long long)b);
    /* The hash sees the fuel state: a different power history differs. */
    cr_assert_neq(a, fr_scripted_hash(0.999));
}

/* Channels are solved four at a time; a channel's result must not depend on
 * the lanes it shares. Of five identical channels, channel 0 (in a full
 * batch) and channel 4 (alone, with padding lanes) must agree bit for bit,
 * and both must agree with a one-channel core of the same rods to rounding. */
Test(fuel_rod, batching_does_not_change_results)
{
    pcs_fuel_def one, five;
    pcs_fuel_default(&one);
    one.n_channels = 1;
    one.n_rods[0] = 1000;
    one.core_mass_flow_kg_s = 335.2;
    five = one;
    five.n_channels = 5;
    five.core_mass_flow_kg_s = 5.0 * 335.2;
    for (int c = 0; c < 5; c++)
        five.n_rods[c] = 1000;
    fr_world a, b;
    fr_make(&a, &one, 0.05, 1e8);
    fr_make(&b, &five, 0.05, 5e8);
    for (int k = 0; k < 100; k++) {
        fr_tick(&a);
        fr_tick(&b);
    }
    size_t n = (size_t)one.n_axial * a.f.n_radial;
    cr_assert_eq(memcmp(b.t_rod, b.t_rod + 4 * n, n * sizeof(double)), 0);
    for (size_t i = 0; i < n; i++)
        cr_assert(rel_err(b.t_rod[i], a.t_rod[i]) < 1e-12, "node %zu", i);
    pcs_world_destroy(a.w);
    pcs_world_destroy(b.w);
}

/* ------------------------------------------------------- property hook */

typedef struct fr_props_ctx {
    uint32_t calls;
    uint32_t last_n;
} fr_props_ctx;

/* A stand-in for the later IF97 binding: constant properties. */
static pcs_status fr_props_const(void *ctx, uint32_t n, const double *t_k, double p_pa,
                                 const pcs_coolant_props_out *out, uint32_t *n_clamped)
{
    (void)t_k;
    (void)p_pa;
    fr_props_ctx *c = ctx;
    c->calls++;
    c->last_n = n;
    for (uint32_t i = 0; i < n; i++) {
        out->cp_j_kg_k[i] = 5500.0;
        out->k_w_m_k[i] = 0.55;
        out->mu_pa_s[i] = 8.5e-5;
        out->rho_kg_m3[i] = 700.0;
    }
    *n_clamped = 0;
    return PCS_OK;
}

Test(fuel_rod, property_hook_replaces_linear_set_without_solver_change)
{
    pcs_fuel_def lin, hook;
    pcs_fuel_default(&lin);
    fr_constant_coolant(&lin);
    hook = lin;
    fr_props_ctx ctx = {0, 0};
    hook.props_fn = fr_props_const;
    hook.props_ctx = &ctx;
    fr_world a, b;
    fr_make(&a, &lin, 0.05, FR_FULL_POWER_W);
    fr_make(&b, &hook, 0.05, FR_FULL_POWER_W);
    uint32_t calls0 = ctx.calls;
    for (int k = 0; k < 50; k++) {
        fr_tick(&a);
        fr_tick(&b);
    }
    cr_assert_eq(ctx.calls - calls0, 50, "one batch call per tick");
    cr_assert_eq(ctx.last_n, 4u * 24u);
    size_t n = (size_t)4 * 24 * 12;
    cr_assert_eq(memcmp(a.t_rod, b.t_rod, n * sizeof(double)), 0);
    pcs_world_destroy(a.w);
    pcs_world_destroy(b.w);
}

/* ---------------------------------------------------------- bad configs */

typedef void (*fr_mutate)(pcs_fuel_def *);
#define FR_BAD(name, stmt)                                                                         \
    static void fr_bad_##name(pcs_fuel_def *c)                                                     \
    {                                                                                              \
        stmt;                                                                                      \
    }
FR_BAD(n_channels, c->n_channels = 0)
FR_BAD(n_channels_big, c->n_channels = PCS_FUEL_MAX_CHANNELS + 1)
FR_BAD(n_axial, c->n_axial = 0)
FR_BAD(n_fuel_nodes, c->n_fuel_nodes = 1)
FR_BAD(n_clad_nodes, c->n_clad_nodes = 1)
FR_BAD(n_rods, c->n_rods[2] = 0)
FR_BAD(peaking, c->peaking[1] = -1.0)
FR_BAD(pellet_radius_m, c->pellet_radius_m = 0.0)
FR_BAD(clad_inner_radius_m, c->clad_inner_radius_m = 0.003)
FR_BAD(clad_outer_radius_m, c->clad_outer_radius_m = c->clad_inner_radius_m)
FR_BAD(rod_pitch_m, c->rod_pitch_m = 0.008)
FR_BAD(active_length_m, c->active_length_m = -1.0)
FR_BAD(axial_extrapolated_length_m, c->axial_extrapolated_length_m = 1.0)
FR_BAD(fuel_heat_fraction, c->fuel_heat_fraction = 1.5)
FR_BAD(fuel_k, c->fuel_k = (pcs_fuel_k_model)7)
FR_BAD(fuel_density_kg_m3, c->fuel_density_kg_m3 = NAN)
FR_BAD(fuel_cp_j_kg_k, c->fuel_cp_j_kg_k = 0.0)
FR_BAD(clad_cp_j_kg_k, c->clad_cp_j_kg_k = -5.0)
FR_BAD(gap_conductance_w_m2_k, c->gap_conductance_w_m2_k = 0.0)
FR_BAD(t_inlet_k, c->t_inlet_k = 250.0)
FR_BAD(t_initial_k, c->t_initial_k = 273.0)
FR_BAD(core_mass_flow_kg_s, c->core_mass_flow_kg_s = -1.0)
FR_BAD(pressure_pa, c->pressure_pa = INFINITY)
FR_BAD(t_min_k, c->coolant_linear.t_min_k = 200.0)
FR_BAD(boiling, c->boiling = (pcs_fuel_boiling)5)

Test(fuel_rod, bad_configs_are_rejected_naming_the_field)
{
    const struct {
        fr_mutate fn;
        const char *field;
    } cases[] = {
        {fr_bad_n_channels, "n_channels"},
        {fr_bad_n_channels_big, "n_channels"},
        {fr_bad_n_axial, "n_axial"},
        {fr_bad_n_fuel_nodes, "n_fuel_nodes"},
        {fr_bad_n_clad_nodes, "n_clad_nodes"},
        {fr_bad_n_rods, "n_rods[2]"},
        {fr_bad_peaking, "peaking[1]"},
        {fr_bad_pellet_radius_m, "pellet_radius_m"},
        {fr_bad_clad_inner_radius_m, "clad_inner_radius_m"},
        {fr_bad_clad_outer_radius_m, "clad_outer_radius_m"},
        {fr_bad_rod_pitch_m, "rod_pitch_m"},
        {fr_bad_active_length_m, "active_length_m"},
        {fr_bad_axial_extrapolated_length_m, "axial_extrapolated_length_m"},
        {fr_bad_fuel_heat_fraction, "fuel_heat_fraction"},
        {fr_bad_fuel_k, "fuel_k"},
        {fr_bad_fuel_density_kg_m3, "fuel_density_kg_m3"},
        {fr_bad_fuel_cp_j_kg_k, "fuel_cp_j_kg_k"},
        {fr_bad_clad_cp_j_kg_k, "clad_cp_j_kg_k"},
        {fr_bad_gap_conductance_w_m2_k, "gap_conductance_w_m2_k"},
        {fr_bad_t_inlet_k, "t_inlet_k"},
        {fr_bad_t_initial_k, "t_initial_k"},
        {fr_bad_core_mass_flow_kg_s, "core_mass_flow_kg_s"},
        {fr_bad_pressure_pa, "pressure_pa"},
        {fr_bad_t_min_k, "t_min_k"},
        {fr_bad_boiling, "boiling"},
    };
    pcs_world_def wc;
    pcs_world_default(&wc);
    wc.workers = 0;
    pcs_world *w;
    cr_assert_eq(pcs_world_create(&wc, &w), PCS_OK);
    uint32_t ps;
    cr_assert_eq(pcs_store_register(w, "u1.core.power", sizeof(double), 1, PCS_STORE_STATE, &ps),
                 PCS_OK);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pcs_fuel_def cfg;
        pcs_fuel_default(&cfg);
        cases[i].fn(&cfg);
        cr_assert_eq(pcs_fuel_def_validate(&cfg), PCS_E_INVAL, "%s accepted", cases[i].field);
        cr_assert(strstr(pcs_last_error(), cases[i].field) != NULL, "%s: message '%s'",
                  cases[i].field, pcs_last_error());
        pcs_fuel f;
        cr_assert_eq(pcs_fuel_add(w, 0, &cfg, ps, 0, &f), PCS_E_INVAL, "%s built", cases[i].field);
    }
    /* The defaults are valid, and a bad power store or index is refused. */
    pcs_fuel_def cfg;
    pcs_fuel_default(&cfg);
    cr_assert_eq(pcs_fuel_def_validate(&cfg), PCS_OK, "%s", pcs_last_error());
    pcs_fuel f;
    cr_assert_eq(pcs_fuel_add(w, 0, &cfg, ps, 1, &f), PCS_E_INVAL);
    cr_assert_eq(pcs_fuel_add(w, 0, &cfg, 999, 0, &f), PCS_E_INVAL);
    cr_assert_eq(pcs_fuel_add(w, 0, NULL, ps, 0, &f), PCS_E_INVAL);
    pcs_world_destroy(w);
}

/* A steady state needs flow; non-finite power stops the tick with an error. */
Test(fuel_rod, bad_run_inputs_are_reported)
{
    pcs_fuel_def cfg;
    pcs_fuel_default(&cfg);
    fr_world x;
    fr_make(&x, &cfg, 0.05, FR_FULL_POWER_W);
    x.mdot[2] = 0.0;
    cr_assert_eq(pcs_fuel_solve_steady(x.w, &x.f, FR_FULL_POWER_W), PCS_E_STATE);
    cr_assert(strstr(pcs_last_error(), "channel 2") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_fuel_solve_steady(x.w, &x.f, -1.0), PCS_E_INVAL);
    *x.power = NAN;
    cr_assert_eq(pcs_world_tick(x.w), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "core power") != NULL, "%s", pcs_last_error());
    pcs_world_destroy(x.w);
}

/* -------------------------------------------------- range flags and events */

static int fr_has_event(pcs_world *w, uint32_t bit)
{
    uint32_t n;
    const pcs_event *ev = pcs_world_events(w, &n);
    for (uint32_t i = 0; i < n; i++)
        if (ev[i].kind == PCS_EV_FUEL_RANGE && ev[i].values[0] == (double)bit)
            return 1;
    return 0;
}

/* Driving a stagnant core at full power melts the fuel model's range: the
 * flag and one event appear, conductivity is held at the table end, and the
 * published values stay finite. Reverse flow is flagged the same way. */
Test(fuel_rod, out_of_range_states_are_flagged_never_nan)
{
    pcs_fuel_def cfg;
    pcs_fuel_default(&cfg);
    fr_world x;
    fr_make(&x, &cfg, 0.05, FR_FULL_POWER_W);
    cr_assert_eq(pcs_fuel_solve_steady(x.w, &x.f, FR_FULL_POWER_W), PCS_OK);
    fr_tick(&x);
    cr_assert_eq(*x.flags, 0u);
    for (int c = 0; c < 4; c++)
        x.mdot[c] = 0.0;
    *x.power = 5.0 * FR_FULL_POWER_W;
    int fuel_events = 0, coolant_events = 0;
    for (int k = 0; k < 2000 && !(*x.flags & PCS_FUEL_FLAG_FUEL_RANGE); k++) {
        fr_tick(&x);
        fuel_events += fr_has_event(x.w, PCS_FUEL_FLAG_FUEL_RANGE);
        coolant_events += fr_has_event(x.w, PCS_FUEL_FLAG_COOLANT_RANGE);
    }
    cr_assert(*x.flags & PCS_FUEL_FLAG_FUEL_RANGE, "fuel never left its range");
    cr_assert(*x.flags & PCS_FUEL_FLAG_COOLANT_RANGE);
    cr_assert_eq(fuel_events, 1);
    cr_assert_eq(coolant_events, 1, "one event on the rising edge only");
    fr_tick(&x);
    cr_assert(!fr_has_event(x.w, PCS_FUEL_FLAG_FUEL_RANGE), "no repeat while the flag stays");
    for (int i = 0; i < PCS_FUEL_OUT_COUNT; i++)
        cr_assert(isfinite(x.out[i]), "output %d = %g", i, x.out[i]);

    x.mdot[1] = -10.0;
    fr_tick(&x);
    cr_assert(*x.flags & PCS_FUEL_FLAG_REVERSE_FLOW);
    cr_assert(fr_has_event(x.w, PCS_FUEL_FLAG_REVERSE_FLOW));
    pcs_world_destroy(x.w);
}
