/**
 * @file test_fuel_boiling.c
 * @brief The fuel model on real water (coolant.h's IF97 table) with
 *        nucleate boiling on the clad surface (fuel.h): Thom's coefficient
 *        by hand, wall superheat in boiling, the nominal PWR core against
 *        the linear placeholder, the axial heat store, energy conservation
 *        and stability through the switch, zero allocation per tick.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcsim/pcsim.h"
#include "tests/save_craft.h"

/* Reference core power: 3411 MWt, tests/refdata/pwr_plant.md ([BEAVRS]; [W84]; [TK]). */
#define FB_FULL_POWER_W 3.411e9

typedef struct fb_world {
    pcs_world *w;
    double *power;
    pcs_fuel f;
    pcs_coolant_water *water; /* world-owned, NULL on the linear set */
    double *t_rod, *t_cool, *out, *q_axial, *mdot, *p;
    uint32_t *flags;
} fb_world;

/* Build a world with one fuel model; real water when @p water is set (the
 * table lives in the same world, as the station would build it). */
static void fb_make(fb_world *x, pcs_fuel_def *cfg, int water, double dt_s, double power_w)
{
    pcs_world_def wc;
    cr_assert_eq(pcs_world_default(&wc), PCS_OK);
    wc.check_finite = 1;
    wc.dt_s = dt_s;
    wc.workers = 0;
    cr_assert_eq(pcs_world_create(&wc, &x->w), PCS_OK, "%s", pcs_last_error());
    uint32_t ps;
    cr_assert_eq(pcs_store_register(x->w, "u1.core.power", sizeof(double), 1, PCS_STORE_STATE, &ps),
                 PCS_OK);
    x->power = pcs_store_data(x->w, ps);
    *x->power = power_w;
    x->water = NULL;
    if (water) {
        pcs_coolant_water_def d;
        pcs_coolant_water_default(&d);
        cr_assert_eq(pcs_coolant_water_add(x->w, &d, &x->water), PCS_OK, "%s", pcs_last_error());
        cfg->props_fn = pcs_coolant_props_water;
        cfg->props_ctx = x->water;
    }
    cr_assert_eq(pcs_fuel_add(x->w, 0, cfg, ps, 0, &x->f), PCS_OK, "%s", pcs_last_error());
    x->t_rod = pcs_store_data(x->w, x->f.store_t_rod);
    x->t_cool = pcs_store_data(x->w, x->f.store_t_coolant);
    x->out = pcs_store_data(x->w, x->f.store_out);
    x->q_axial = pcs_store_data(x->w, x->f.store_q_axial);
    x->mdot = pcs_store_data(x->w, x->f.store_mass_flow);
    x->p = pcs_store_data(x->w, x->f.store_pressure);
    x->flags = pcs_store_data(x->w, x->f.store_flags);
}

static void fb_tick(fb_world *x)
{
    cr_assert_eq(pcs_world_tick(x->w), PCS_OK, "tick: %s", pcs_last_error());
}

static double fb_tsat(double p)
{
    double t;
    cr_assert_eq(pcs_water_tsat(p, &t), PCS_OK);
    return t;
}

/* Outer clad surface of (channel c, axial node j). */
static double fb_wall(const fb_world *x, uint32_t c, uint32_t j)
{
    return x->t_rod[((size_t)c * x->f.n_axial + j) * x->f.n_radial + x->f.n_radial - 1];
}

static double fb_sum_q_axial(const fb_world *x)
{
    double s = 0.0;
    for (uint32_t j = 0; j < x->f.n_axial; j++)
        s += x->q_axial[j];
    return s;
}

/* ------------------------------------------------------------- Thom by hand */

/*
 * Thom et al. (1965): q'' = exp(2 p / 8.7 MPa) / 22.65^2 (T_w - T_sat)^2
 * MW/m^2, p in MPa. At p = 15.5 MPa, T_w - T_sat = 10 K, by hand:
 *   2 p / 8.7 = 31 / 8.7 = 3.5632184
 *   exp(3.5632184) = e^3.5 e^0.0632184 = 33.115452 x 1.0652595 = 35.276548
 *   22.65^2 = 513.0225
 *   K = 35.276548 / 513.0225 = 0.06876219 MW/(m^2 K^2)
 *   q'' = 100 K = 6.876219 MW/m^2.
 * And at 1 MW/m^2 the superheat is 22.65 exp(-15.5/8.7) = 22.65 x 0.1683669
 * = 3.813512 K.
 */
Test(fuel_boiling, thom_coefficient_by_hand)
{
    double k = pcs_fuel_thom_k(15.5e6);
    cr_assert(fabs(k * 100.0 - 6.876219e6) < 0.5, "q'' at 10 K = %.3f W/m^2", k * 100.0);
    cr_assert(fabs(sqrt(1e6 / k) - 3.813512) < 1e-6, "superheat at 1 MW/m^2 = %.7f K",
              sqrt(1e6 / k));
    cr_assert(isnan(pcs_fuel_thom_k(NAN)) && isnan(pcs_fuel_thom_k(-1.0)));
    /* K grows with p: the same flux needs less superheat at high pressure. */
    cr_assert(pcs_fuel_thom_k(7e6) < k);
}

/* ----------------------------------------------------- boiling at low flow */

/*
 * One rod, 1 m, 6 uniform nodes, all power in the fuel, real water at
 * 15.5 MPa, inlet 560 K and 0.12 kg/s (about a third of the nominal 0.335 kg/s
 * per rod), at the rod power that gives q'' = 1 MW/m^2 on the clad:
 * P = 1e6 x 2 pi r_co L = 28 726.7 W. Single-phase, h_DB is about
 * 15 kW/(m^2 K) (Re ~ 1.9e5), so the wall would sit ~65 K above the
 * coolant, tens of K past T_sat = 617.94 K. With boiling, every node boils
 * and its wall superheat is Thom's 3.813512 K (hand value above) at its
 * steady heat flux; the coolant stays subcooled (outlet ~600 K), so this is
 * subcooled nucleate boiling.
 */
static void fb_low_flow_config(pcs_fuel_def *cfg)
{
    pcs_fuel_default(cfg);
    cfg->n_channels = 1;
    cfg->n_rods[0] = 1;
    cfg->n_axial = 6;
    cfg->active_length_m = 1.0;
    cfg->axial_extrapolated_length_m = 1.2;
    cfg->axial_shape = PCS_AXIAL_UNIFORM;
    cfg->fuel_heat_fraction = 1.0;
    cfg->pressure_pa = 15.5e6;
    cfg->t_inlet_k = 560.0;
    cfg->t_initial_k = 560.0;
    cfg->core_mass_flow_kg_s = 0.12;
}

#define FB_QFLUX 1e6

static double fb_low_flow_power(const pcs_fuel_def *cfg)
{
    return FB_QFLUX * 2.0 * M_PI * cfg->clad_outer_radius_m * cfg->active_length_m;
}

Test(fuel_boiling, wall_superheat_follows_thom_at_low_flow)
{
    pcs_fuel_def cfg;
    fb_low_flow_config(&cfg);
    double power = fb_low_flow_power(&cfg);
    cr_assert(fabs(power - 28726.7) < 0.1, "P = %.2f W", power);
    fb_world x;
    fb_make(&x, &cfg, 1, 0.05, power);
    cr_assert_eq(pcs_fuel_solve_steady(x.w, &x.f, power), PCS_OK, "%s", pcs_last_error());
    const double ts = fb_tsat(15.5e6);
    const double area = 2.0 * M_PI * cfg.clad_outer_radius_m * cfg.active_length_m / 6.0;
    const double k = pcs_fuel_thom_k(15.5e6);
    for (uint32_t j = 0; j < 6; j++) {
        double q = x.q_axial[j] / area; /* W/m^2; steady: the node's power */
        cr_assert(fabs(q - FB_QFLUX) < 1e-6 * FB_QFLUX, "node %u: q'' %.6f", j, q);
        double sup = fb_wall(&x, 0, j) - ts;
        cr_assert(fabs(sup - sqrt(q / k)) < 1e-6, "node %u: superheat %.9f, Thom %.9f", j, sup,
                  sqrt(q / k));
        cr_assert(fabs(sup - 3.813512) < 1e-5, "node %u: superheat %.7f K", j, sup);
        cr_assert(x.t_cool[j] < ts - 10.0, "node %u: coolant %.3f K is subcooled", j, x.t_cool[j]);
    }
    cr_assert(fabs(fb_sum_q_axial(&x) - power) < 1e-9 * power);

    /* The same rod single-phase (boiling off): the wall is tens of K past T_sat. */
    pcs_fuel_def sp;
    fb_low_flow_config(&sp);
    sp.boiling = PCS_FUEL_BOILING_NONE;
    fb_world y;
    fb_make(&y, &sp, 1, 0.05, power);
    cr_assert_eq(pcs_fuel_solve_steady(y.w, &y.f, power), PCS_OK, "%s", pcs_last_error());
    double sup_sp = fb_wall(&y, 0, 5) - ts;
    cr_assert(sup_sp > 30.0, "single-phase wall superheat %.3f K", sup_sp);
    cr_log_info("low flow, 1 MW/m^2: superheat %.4f K boiling, %.2f K single-phase (top node)",
                fb_wall(&x, 0, 5) - ts, sup_sp);
    /* The fuel runs cooler by the film drop saved. */
    cr_assert(x.out[PCS_FUEL_OUT_T_MAX] < y.out[PCS_FUEL_OUT_T_MAX] - 20.0);
    pcs_world_destroy(x.w);
    pcs_world_destroy(y.w);
}

/*
 * Through the switch in time: from the 30 % steady state (single-phase, the
 * wall below T_sat) a step to full power at dt = 0.05 s and at 1 s. The
 * outer clad temperature rises monotonically into nucleate boiling without
 * oscillating around the regime switch and settles on the steady boiling
 * solution. Backward Euler with the Newton-linearised flux: no overshoot
 * beyond rounding.
 */
static void fb_switch_run(double dt_s, double seconds)
{
    pcs_fuel_def cfg;
    fb_low_flow_config(&cfg);
    double power = fb_low_flow_power(&cfg);
    fb_world ref;
    fb_make(&ref, &cfg, 1, dt_s, power);
    cr_assert_eq(pcs_fuel_solve_steady(ref.w, &ref.f, power), PCS_OK);
    const double final_wall = fb_wall(&ref, 0, 5);

    pcs_fuel_def c2;
    fb_low_flow_config(&c2);
    fb_world x;
    fb_make(&x, &c2, 1, dt_s, 0.3 * power);
    cr_assert_eq(pcs_fuel_solve_steady(x.w, &x.f, 0.3 * power), PCS_OK);
    const double ts = fb_tsat(15.5e6);
    cr_assert(fb_wall(&x, 0, 5) < ts, "starts single-phase: wall %.3f", fb_wall(&x, 0, 5));
    *x.power = power;
    double prev = fb_wall(&x, 0, 5);
    int n = (int)(seconds / dt_s + 0.5), crossed = 0;
    for (int k = 0; k < n; k++) {
        fb_tick(&x);
        double w = fb_wall(&x, 0, 5);
        cr_assert(w >= prev - 1e-9, "dt %g tick %d: wall fell %.9f -> %.9f", dt_s, k, prev, w);
        cr_assert(w <= final_wall + 1e-6, "dt %g tick %d: overshoot %.9f > %.9f", dt_s, k, w,
                  final_wall);
        crossed |= w > ts;
        prev = w;
    }
    cr_assert(crossed);
    cr_assert(fabs(prev - final_wall) < 1e-4, "dt %g: wall %.6f, steady %.6f", dt_s, prev,
              final_wall);
    pcs_world_destroy(x.w);
    pcs_world_destroy(ref.w);
}

Test(fuel_boiling, switch_into_boiling_is_monotone_at_fast_step)
{
    fb_switch_run(0.05, 60.0);
}

Test(fuel_boiling, switch_into_boiling_is_monotone_at_one_second)
{
    fb_switch_run(1.0, 120.0);
}

/*
 * Energy balance through boiling (the existing fuel_rod energy tests run
 * single-phase): constant coolant properties (so that sum C T is the
 * conserved quantity), the low-flow rod stepped from 30 % to full power,
 * per tick dE = (P - Q_flow) dt to 1e-9 of P dt, and q_axial sums to
 * HEAT_TO_COOLANT to rounding every tick.
 */
Test(fuel_boiling, energy_balance_closes_per_tick_through_boiling)
{
    pcs_fuel_def cfg;
    fb_low_flow_config(&cfg);
    pcs_coolant_linear *c = &cfg.coolant_linear;
    c->t_min_k = 273.15;
    c->t_max_k = 4000.0;
    c->cp_ref = 6000.0;
    c->dcp_dt = c->dk_dt = c->dmu_dt = c->drho_dt = 0.0;
    c->k_ref = 0.55;
    c->mu_ref = 8.5e-5;
    c->rho_ref = 700.0;
    double power = fb_low_flow_power(&cfg);
    fb_world x;
    fb_make(&x, &cfg, 0, 0.05, 0.3 * power);
    cr_assert_eq(pcs_fuel_solve_steady(x.w, &x.f, 0.3 * power), PCS_OK);
    *x.power = power;
    const double ts = fb_tsat(15.5e6);
    int boiling_ticks = 0;
    for (int k = 0; k < 400; k++) {
        double e0 = pcs_fuel_stored_energy(x.w, &x.f);
        fb_tick(&x);
        double e1 = pcs_fuel_stored_energy(x.w, &x.f);
        double expect = (power - x.out[PCS_FUEL_OUT_FLOW_HEAT]) * 0.05;
        double err = fabs((e1 - e0) - expect) / (power * 0.05);
        cr_assert(err < 1e-9, "tick %d: dE %.12g J, expected %.12g J (rel %g)", k, e1 - e0, expect,
                  err);
        double h = x.out[PCS_FUEL_OUT_HEAT_TO_COOLANT];
        cr_assert(fabs(fb_sum_q_axial(&x) - h) <= 1e-12 * fabs(h),
                  "tick %d: sum q_axial %.17g, "
                  "heat_to_coolant %.17g",
                  k, fb_sum_q_axial(&x), h);
        boiling_ticks += fb_wall(&x, 0, 5) > ts;
    }
    cr_assert(boiling_ticks > 300, "the run is mostly in boiling (%d ticks)", boiling_ticks);
    pcs_world_destroy(x.w);
}

/*
 * Second law at the wall: the fuel's own coolant node is a liquid balance
 * and can pass T_sat in a stagnant channel (not modelled: void). With the
 * coolant at 640 K above a 630 K wall, both past T_sat = 617.94 K, no power
 * and no flow, heat must flow from the coolant into the rod, not by Thom's
 * (T_w - T_sat)^2 from the colder wall into the hotter liquid.
 */
Test(fuel_boiling, no_boiling_into_hotter_coolant)
{
    pcs_fuel_def cfg;
    fb_low_flow_config(&cfg);
    cfg.core_mass_flow_kg_s = 0.0;
    cfg.t_initial_k = 630.0;
    fb_world x;
    fb_make(&x, &cfg, 1, 0.05, 0.0);
    for (uint32_t j = 0; j < 6; j++)
        x.t_cool[j] = 640.0;
    fb_tick(&x);
    double h = x.out[PCS_FUEL_OUT_HEAT_TO_COOLANT];
    cr_assert(h < 0.0, "heat to coolant %.6g W: must flow into the colder rod", h);
    for (uint32_t j = 0; j < 6; j++)
        cr_assert(x.t_cool[j] < 640.0 && fb_wall(&x, 0, j) > 630.0, "node %u", j);
    pcs_world_destroy(x.w);
}

/*
 * Full power on half the core flow (as a two-loop unit at four-loop power
 * gets): the fuel's own liquid coolant node passes T_sat in the upper part
 * (outlet 624.485 K on saturated-liquid properties, measured; void is the
 * primary's, not modelled here). Thom's
 * superheat is then taken over that node, so the flux stays continuous and
 * the steady solve converges; a reference fixed at T_sat with the wall
 * kept above the coolant made the flux jump at T_w = T_cool and the solve
 * cycled without converging (500 sweeps; found by the journal_replay suite).
 */
Test(fuel_boiling, coolant_node_past_saturation_converges)
{
    pcs_fuel_def cfg;
    pcs_fuel_default(&cfg);
    cfg.core_mass_flow_kg_s = 8540.0;
    fb_world x;
    fb_make(&x, &cfg, 1, 0.05, FB_FULL_POWER_W);
    cr_assert_eq(pcs_fuel_solve_steady(x.w, &x.f, FB_FULL_POWER_W), PCS_OK, "%s", pcs_last_error());
    const double ts = fb_tsat(15.51e6), k = pcs_fuel_thom_k(15.51e6);
    const double area = 2.0 * M_PI * cfg.clad_outer_radius_m * cfg.active_length_m / 24.0;
    int past = 0;
    for (uint32_t j = 0; j < 24; j++) {
        double t_c = x.t_cool[j], t_w = fb_wall(&x, 0, j);
        if (t_c <= ts)
            continue;
        past++;
        /* steady: the node's heat into the coolant over its rods and area */
        double q = x.q_axial[j] / (50952.0 * area);
        cr_assert(t_w > t_c, "node %u: wall %.4f above coolant %.4f", j, t_w, t_c);
        double sup = t_w - t_c, h_db = q / sup;
        /* either Thom over the node or, where larger, convection */
        cr_assert(fabs(sup - sqrt(q / k)) < 1e-6 || h_db * sup >= k * sup * sup - 1e-6 * q,
                  "node %u: superheat %.6f over the node, Thom %.6f", j, sup, sqrt(q / k));
    }
    cr_assert(past >= 6, "%d nodes past T_sat", past);
    cr_assert(fabs(x.out[PCS_FUEL_OUT_COOLANT_T_OUT] - 624.485) < 0.01, "outlet %.3f",
              x.out[PCS_FUEL_OUT_COOLANT_T_OUT]);
    fb_tick(&x); /* flags are raised by the tick */
    cr_assert(*x.flags & PCS_FUEL_FLAG_COOLANT_RANGE, "liquid past T_sat is flagged");
    pcs_world_destroy(x.w);
}

/* ------------------------------------------------------ nominal PWR core */

/*
 * Full power, reference core (15.51 MPa, inlet 565.1 K, 17 080 kg/s, 4 equal
 * groups, chopped cosine), real water against the linear placeholder.
 * Measured, linear -> water: hottest fuel 1285.92 -> 1287.13 K, mean fuel
 * 870.28 -> 870.94 K, hottest clad 639.63 -> 640.44 K, mixed outlet
 * 598.95 -> 599.54 K, mean coolant 582.51 -> 582.82 K (asserted to 0.01 K).
 * The average rod does not boil: its hottest clad surface, 612.47 K, stays
 * 5.5 K below T_sat = 617.99 K; the mixed outlet stays on W84's 599.0 K
 * within 1 K.
 */
Test(fuel_boiling, nominal_core_on_real_water_against_the_placeholder)
{
    pcs_fuel_def lin, wat;
    pcs_fuel_default(&lin);
    pcs_fuel_default(&wat);
    fb_world a, b;
    fb_make(&a, &lin, 0, 0.05, FB_FULL_POWER_W);
    fb_make(&b, &wat, 1, 0.05, FB_FULL_POWER_W);
    cr_assert_eq(pcs_fuel_solve_steady(a.w, &a.f, FB_FULL_POWER_W), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_fuel_solve_steady(b.w, &b.f, FB_FULL_POWER_W), PCS_OK, "%s", pcs_last_error());
    const double ts = fb_tsat(15.51e6);
    const int idx[] = {PCS_FUEL_OUT_T_MAX, PCS_FUEL_OUT_T_AVG, PCS_FUEL_OUT_CLAD_T_MAX,
                       PCS_FUEL_OUT_COOLANT_T_OUT, PCS_FUEL_OUT_COOLANT_T_AVG};
    const char *name[] = {"t_max", "t_avg", "clad_t_max", "t_out", "coolant t_avg"};
    /* Measured (water - linear), K: the placeholder's cp is the secant of a
     * convex cp(T), too high in between, so real water heats up more for the
     * same power, and its k is 1-2 % lower (no lambda2, test_coolant_water). */
    const double diff[] = {1.204, 0.657, 0.815, 0.584, 0.315};
    for (int i = 0; i < 5; i++) {
        double d = b.out[idx[i]] - a.out[idx[i]];
        cr_log_info("nominal %s: linear %.3f K, water %.3f K, diff %+.3f K", name[i], a.out[idx[i]],
                    b.out[idx[i]], d);
        cr_assert(fabs(d - diff[i]) < 0.01, "%s: water - linear = %+.4f K, measured %+.3f K",
                  name[i], d, diff[i]);
    }
    double wall_max = 0.0;
    for (uint32_t c = 0; c < 4; c++)
        for (uint32_t j = 0; j < 24; j++)
            wall_max = fmax(wall_max, fb_wall(&b, c, j));
    cr_log_info("nominal hottest clad surface %.3f K, T_sat %.3f K", wall_max, ts);
    cr_assert(wall_max < ts, "the average rod does not boil: wall %.3f, T_sat %.3f", wall_max, ts);
    cr_assert(fabs(b.out[PCS_FUEL_OUT_COOLANT_T_OUT] - 599.0) < 1.0);
    cr_assert_eq(*b.flags, 0u, "no clamped coolant property");
    cr_assert(fabs(fb_sum_q_axial(&b) - FB_FULL_POWER_W) < 1e-9 * FB_FULL_POWER_W);
    pcs_world_destroy(a.w);
    pcs_world_destroy(b.w);
}

/*
 * A hot assembly at full power: one group of 264 rods (one assembly) at an
 * assumed peaking of 1.65 (the order of a Westinghouse F_dH design limit;
 * not in refdata: an assumption for this test only) with its share of the
 * flow by rod count (no flow redistribution). Its upper wall passes T_sat,
 * boils, and is held within a few K of T_sat, where single-phase convection
 * would put it further out. Measured: hottest wall 622.47 K with boiling
 * (T_sat + 4.5 K), 638.38 K single-phase (T_sat + 20.4 K).
 */
Test(fuel_boiling, hot_assembly_boils_with_a_few_kelvin_superheat)
{
    pcs_fuel_def cfg;
    pcs_fuel_default(&cfg);
    cfg.n_channels = 2;
    cfg.n_rods[0] = 264;
    cfg.n_rods[1] = 50952 - 264;
    cfg.peaking[0] = 1.65;
    cfg.peaking[1] = 1.0;
    pcs_fuel_def sp = cfg;
    sp.boiling = PCS_FUEL_BOILING_NONE;
    fb_world x, y;
    fb_make(&x, &cfg, 1, 0.05, FB_FULL_POWER_W);
    fb_make(&y, &sp, 1, 0.05, FB_FULL_POWER_W);
    cr_assert_eq(pcs_fuel_solve_steady(x.w, &x.f, FB_FULL_POWER_W), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_fuel_solve_steady(y.w, &y.f, FB_FULL_POWER_W), PCS_OK, "%s", pcs_last_error());
    const double ts = fb_tsat(15.51e6);
    double wall = 0.0, wall_sp = 0.0;
    for (uint32_t j = 0; j < 24; j++) {
        wall = fmax(wall, fb_wall(&x, 0, j));
        wall_sp = fmax(wall_sp, fb_wall(&y, 0, j));
    }
    cr_log_info("hot assembly: wall %.3f K boiling, %.3f K single-phase, T_sat %.3f K", wall,
                wall_sp, ts);
    cr_assert(wall > ts && wall < ts + 5.0, "boiling wall %.3f K, T_sat %.3f K", wall, ts);
    cr_assert(wall_sp > wall, "single-phase would be hotter");
    pcs_world_destroy(x.w);
    pcs_world_destroy(y.w);
}

/* ---------------------------------------------------- axial heat store */

/*
 * q_axial is the heat into the coolant per axial level: it sums to
 * HEAT_TO_COOLANT to rounding in a transient (where FLOW_HEAT differs from
 * it by the fuel's coolant-node storage), it is the sum over groups (a
 * two-group core equals the per-group contributions weighted by rods), and
 * the store and its id are published.
 */
Test(fuel_boiling, q_axial_sums_to_heat_to_coolant)
{
    pcs_fuel_def cfg;
    pcs_fuel_default(&cfg);
    cfg.peaking[0] = 1.3;
    cfg.peaking[3] = 0.8;
    fb_world x;
    fb_make(&x, &cfg, 1, 0.05, 0.5 * FB_FULL_POWER_W);
    cr_assert_eq(pcs_fuel_solve_steady(x.w, &x.f, 0.5 * FB_FULL_POWER_W), PCS_OK);
    *x.power = FB_FULL_POWER_W;
    for (int k = 0; k < 20; k++) {
        fb_tick(&x);
        double h = x.out[PCS_FUEL_OUT_HEAT_TO_COOLANT], s = fb_sum_q_axial(&x);
        cr_assert(fabs(s - h) <= 1e-12 * h, "tick %d: %.17g vs %.17g", k, s, h);
        for (uint32_t j = 0; j < 24; j++)
            cr_assert(x.q_axial[j] > 0.0);
    }
    /* In the transient the flow has not caught up: FLOW_HEAT is not the source. */
    cr_assert(fabs(x.out[PCS_FUEL_OUT_FLOW_HEAT] - x.out[PCS_FUEL_OUT_HEAT_TO_COOLANT]) >
              1e-3 * FB_FULL_POWER_W);
    /* The cosine puts the peak in the middle: node 11/12 above nodes 0 and 23. */
    cr_assert(x.q_axial[11] > 1.2 * x.q_axial[0] && x.q_axial[12] > 1.2 * x.q_axial[23]);
    uint32_t id;
    cr_assert_eq(pcs_store_find(x.w, "u1.fuel.q_axial", &id), PCS_OK);
    cr_assert_eq(id, x.f.store_q_axial);
    cr_assert_eq(pcs_store_bytes(x.w, id), 24 * sizeof(double));
    pcs_world_destroy(x.w);
}

/* q_axial is saved state: a save with a non-finite element is refused by the
 * fuel model's load check, naming the store; a clean save round-trips. */
Test(fuel_boiling, crafted_q_axial_in_a_save_is_refused)
{
    pcs_fuel_def cfg;
    pcs_fuel_default(&cfg);
    fb_world x;
    fb_make(&x, &cfg, 1, 0.05, FB_FULL_POWER_W);
    for (int k = 0; k < 10; k++)
        fb_tick(&x);
    char path[96], bad[96];
    snprintf(path, sizeof path, "/tmp/pcsim-fuel-q-axial-%d.save", (int)getpid());
    snprintf(bad, sizeof bad, "/tmp/pcsim-fuel-q-axial-%d.bad.save", (int)getpid());
    cr_assert_eq(pcs_world_save(x.w, path), PCS_OK, "%s", pcs_last_error());
    size_t len = 0;
    unsigned char *img = save_craft_read(path, &len);
    cr_assert_not_null(img);
    uint64_t hash = pcs_world_state_hash(x.w);
    const double vals[2] = {NAN, INFINITY};
    for (int i = 0; i < 2; i++) {
        cr_assert(save_craft_patch(img, len, "store:u1.fuel.q_axial", 3 * sizeof(double), &vals[i],
                                   sizeof(double)));
        cr_assert(save_craft_write(bad, img, len));
        pcs_status st = pcs_world_load(x.w, bad);
        cr_assert_eq(st, PCS_E_CORRUPT, "load returned %s: %s", pcs_status_str(st),
                     pcs_last_error());
        cr_assert(strstr(pcs_last_error(), "u1.fuel.q_axial") != NULL, "%s", pcs_last_error());
        cr_assert_eq(pcs_world_state_hash(x.w), hash);
    }
    cr_assert_eq(pcs_world_load(x.w, path), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_state_hash(x.w), hash);
    free(img);
    unlink(path);
    unlink(bad);
    pcs_world_destroy(x.w);
}

/* ------------------------------------------------------------ allocation */

/* Real water and boiling still allocate nothing per tick (low-flow rod in
 * boiling, then the reference core on the table). */
Test(fuel_boiling, no_allocation_per_tick_on_real_water)
{
    pcs_fuel_def cfg;
    fb_low_flow_config(&cfg);
    double power = fb_low_flow_power(&cfg);
    fb_world x;
    fb_make(&x, &cfg, 1, 0.05, power);
    fb_tick(&x);
    uint64_t before = pcs_world_alloc_count(x.w);
    for (int k = 0; k < 2000; k++) {
        *x.power = power * (0.5 + 0.5 * (double)(k % 100) / 100.0);
        *x.p = 15.5e6 + 1e5 * (double)(k % 7);
        fb_tick(&x);
    }
    cr_assert_eq(pcs_world_alloc_count(x.w), before);
    pcs_world_destroy(x.w);
}
