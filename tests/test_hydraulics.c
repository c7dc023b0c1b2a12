/**
 * @file test_hydraulics.c
 * @brief Hydraulics against hand-computed answers: mass and energy
 *        conservation, pump/system intersection, analytic coast-down, closed valve.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "pcsim/pcsim.h"
#include "pcsim/hydraulics.h"
#include "tests/alloc_count.h"
#include "tests/control_fixture.h"

/* A closed loop of four 1 m3 nodes: 0 -pump-> 1 -> 2 -valve-> 3 -> 0. */
static pcs_hydraulics_node loop_nodes[4];
static pcs_hydraulics_junction loop_j[4];
static pcs_hydraulics_pump loop_pump;

static pcs_hydraulics_def loop_config(void)
{
    pcs_hydraulics_def c;
    pcs_hydraulics_default(&c);
    for (int i = 0; i < 4; i++)
        loop_nodes[i] = (pcs_hydraulics_node){.role = PCS_HYDRAULICS_PLAIN, .volume_m3 = 1.0};
    for (uint32_t k = 0; k < 4; k++)
        loop_j[k] = (pcs_hydraulics_junction){.kind = PCS_HYDRAULICS_PIPE, .from = k, .to = (k + 1) % 4,
                                       .length_m = 5.0, .area_m2 = 0.1, .diameter_m = 0.357,
                                       .form_loss = 1.0, .fixed_friction = 0.02};
    loop_j[0].kind = PCS_HYDRAULICS_PUMP;
    loop_j[0].pump = 0;
    loop_j[2].kind = PCS_HYDRAULICS_VALVE;
    loop_j[2].valve_position = 1.0;
    loop_pump = (pcs_hydraulics_pump){.rated_speed_rad_s = 100.0, .rated_dp_pa = 2e5,
                               .rated_flow_kg_s = 500.0, .shutoff_ratio = 1.25,
                               .inertia_kg_m2 = 50.0, .efficiency = 0.8,
                               .initial_speed_frac = 1.0};
    c.n_nodes = 4;
    c.n_junctions = 4;
    c.n_pumps = 1;
    c.nodes = loop_nodes;
    c.junctions = loop_j;
    c.pumps = &loop_pump;
    return c;
}

static pcs_world *world_with(const pcs_hydraulics_def *c, pcs_hydraulics **h)
{
    pcs_world_def wc;
    pcs_world_default(&wc);
    wc.check_finite = 1; /* NaN/Inf in a physics store fails the tick */
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&wc, &w), PCS_OK);
    cr_assert_eq(pcs_hydraulics_add(w, 0, c, h), PCS_OK, "%s", pcs_last_error());
    return w;
}

static double flow(pcs_world *w, pcs_hydraulics *h, uint32_t k)
{
    return ((double *)pcs_store_data(w, pcs_hydraulics_store_ids(h).flow))[k];
}

Test(hydraulics, closed_loop_conserves_mass_to_1e_12_per_tick)
{
    pcs_hydraulics_def c = loop_config();
    pcs_hydraulics *h;
    pcs_world *w = world_with(&c, &h);
    double m0 = pcs_hydraulics_total_mass(w, h);
    double worst = 0.0;
    for (int i = 0; i < 2000; i++) {
        double before = pcs_hydraulics_total_mass(w, h);
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
        double rel = fabs(pcs_hydraulics_total_mass(w, h) - before) / before;
        worst = rel > worst ? rel : worst;
    }
    cr_assert_lt(worst, 1e-12, "worst per-tick relative mass change %g", worst);
    cr_assert_lt(fabs(pcs_hydraulics_total_mass(w, h) - m0) / m0, 1e-12);
    pcs_world_destroy(w);
}

Test(hydraulics, steady_flow_is_pump_and_system_curve_intersection)
{
    pcs_hydraulics_def c = loop_config();
    pcs_hydraulics *h;
    pcs_world *w = world_with(&c, &h);
    for (int i = 0; i < 4000; i++) /* 200 s: many flow time constants */
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    /* By hand: each junction K = f L/D + K_form = 0.02 * 5 / 0.357 + 1 = 1.28011;
     * system dp = 4 K m^2 / (2 rho A^2) with rho = 720, A = 0.1.
     * Pump dp = dp_r [s - (s - 1) (m/m_r)^2] at rated speed, dp_r = 2e5, s = 1.25.
     * Equal when m^2 = dp_r s / (4 K / (2 rho A^2) + dp_r (s - 1) / m_r^2). */
    double K = 0.02 * 5.0 / 0.357 + 1.0;
    double r_sys = 4.0 * K / (2.0 * 720.0 * 0.01);
    double want = sqrt(2e5 * 1.25 / (r_sys + 2e5 * 0.25 / (500.0 * 500.0)));
    for (uint32_t k = 0; k < 4; k++)
        cr_assert_float_eq(flow(w, h, k), want, want * 1e-9, "junction %u: %.9g vs %.9g", k,
                           flow(w, h, k), want);
    pcs_world_destroy(w);
}

Test(hydraulics, pump_coastdown_follows_analytic_law)
{
    pcs_hydraulics_def c = loop_config();
    pcs_hydraulics *h;
    pcs_world *w = world_with(&c, &h);
    pcs_command trip = ctl_make(w, PCS_HYDRAULICS_COMMANDS, PCS_HYDRAULICS_OP_PUMP_TRIP, "u1.pump1", 0.0);
    cr_assert_eq(pcs_command_submit(w, &trip), PCS_OK);
    cr_assert_eq(pcs_world_tick(w), PCS_OK); /* tripped at stage 1, coasts in stage 5 */
    for (int i = 0; i < 199; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    /* I dw/dt = -c w^2 with c = tau_r / w_r^2, tau_r = dp_r m_r / (rho eff w_r):
     * tau_r = 2e5 * 500 / (720 * 0.8 * 100) = 1736.11 N m, c = 0.173611;
     * tau = I / (c w0) = 50 / 17.3611 = 2.88 s; after 200 ticks (10 s),
     * w = 100 / (1 + 10 / 2.88) = 22.3602 rad/s. */
    double c_t = 2e5 * 500.0 / (720.0 * 0.8 * 100.0) / (100.0 * 100.0);
    double tau = 50.0 / (c_t * 100.0);
    double want = 100.0 / (1.0 + 10.0 / tau);
    double got = ((double *)pcs_store_data(w, pcs_hydraulics_store_ids(h).pump_speed))[0];
    cr_assert_float_eq(got, want, want * 1e-12, "speed %.12g, analytic %.12g", got, want);
    uint32_t n;
    const pcs_event *ev = pcs_world_events(w, &n);
    (void)ev;
    pcs_world_destroy(w);
}

Test(hydraulics, closed_valve_gives_exactly_zero_flow)
{
    pcs_hydraulics_def c = loop_config();
    pcs_hydraulics *h;
    pcs_world *w = world_with(&c, &h);
    for (int i = 0; i < 100; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_gt(flow(w, h, 2), 100.0);
    pcs_command close = ctl_make(w, PCS_HYDRAULICS_COMMANDS, PCS_HYDRAULICS_OP_VALVE_POSITION, "u1.valve3", 0.0);
    cr_assert_eq(pcs_command_submit(w, &close), PCS_OK);
    for (int i = 0; i < 400; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(flow(w, h, 2), 0.0, "valve junction flow %g", flow(w, h, 2));
    /* In a single loop nothing else can move once the valve is shut. */
    for (uint32_t k = 0; k < 4; k++)
        cr_assert_lt(fabs(flow(w, h, k)), 1e-3, "junction %u flow %g", k, flow(w, h, k));
    pcs_target_id none;
    cr_assert_eq(pcs_command_target_find(w, "u1.valve2", &none), PCS_E_NOTFOUND,
                 "junction 2 is a pipe: no valve target");
    pcs_command bad = ctl_make(w, PCS_HYDRAULICS_COMMANDS, PCS_HYDRAULICS_OP_PUMP_TRIP, "u1.pump1", 0.5);
    bad.kind = ctl_kind(w, PCS_HYDRAULICS_COMMANDS, PCS_HYDRAULICS_OP_VALVE_POSITION);
    cr_assert_eq(pcs_command_submit(w, &bad), PCS_OK);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    uint32_t n;
    const pcs_event *ev = pcs_world_events(w, &n);
    cr_assert_eq(n, 1);
    cr_assert_eq(ev[0].kind, PCS_EV_COMMAND_REJECTED, "a pump target takes no valve command");
    pcs_world_destroy(w);
}

Test(hydraulics, energy_changes_by_exactly_the_heat_added)
{
    pcs_hydraulics_def c = loop_config();
    loop_nodes[1].role = PCS_HYDRAULICS_CORE;
    pcs_world_def wc;
    pcs_world_default(&wc);
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&wc, &w), PCS_OK);
    uint32_t q;
    cr_assert_eq(pcs_store_register(w, "heat", 8, 1, PCS_STORE_STATE, &q), PCS_OK);
    ((double *)pcs_store_data(w, q))[0] = 5e6; /* 5 MW */
    c.heat_store = q;
    c.heat_index = 0;
    pcs_hydraulics *h;
    cr_assert_eq(pcs_hydraulics_add(w, 0, &c, &h), PCS_OK, "%s", pcs_last_error());
    for (int i = 0; i < 500; i++) {
        double e0 = pcs_hydraulics_total_energy(w, h);
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
        double de = pcs_hydraulics_total_energy(w, h) - e0;
        cr_assert_float_eq(de, 5e6 * 0.05, 5e6 * 0.05 * 1e-6, "tick %d: dE %.10g", i, de);
    }
    pcs_world_destroy(w);
}

Test(hydraulics, pwr_network_starts_at_rated_flow)
{
    uint32_t nn, nj;
    cr_assert_eq(pcs_hydraulics_pwr_sizes(4, 4, &nn, &nj), PCS_OK);
    static pcs_hydraulics_node nodes[64];
    static pcs_hydraulics_junction js[64];
    static pcs_hydraulics_pump pumps[4];
    pcs_hydraulics_def c;
    pcs_hydraulics_default(&c);
    /* Rated flow 4360 kg/s per loop: [W84] Table 2-1 total 17,440 kg/s / 4. */
    pcs_hydraulics_pump p = {.rated_speed_rad_s = 124.5, .rated_dp_pa = 0.6e6, .rated_flow_kg_s = 4360.0,
                      .shutoff_ratio = 1.3, .inertia_kg_m2 = 2900.0, .efficiency = 0.8,
                      .initial_speed_frac = 1.0};
    cr_assert_eq(pcs_hydraulics_pwr_network(4, 4, &p, &c, nodes, js, pumps), PCS_OK, "%s",
                 pcs_last_error());
    pcs_hydraulics *h;
    pcs_world *w = world_with(&c, &h);
    cr_assert_eq(pcs_hydraulics_settle(w, h, 120.0, 0.05), PCS_OK, "%s", pcs_last_error());
    uint32_t id;
    cr_assert_eq(pcs_channel_find(w, "u1.core.flow", &id), PCS_OK);
    cr_assert_float_eq(pcs_channel_value(w, id), 17440.0, 17440.0 * 1e-3);
    cr_assert_eq(pcs_channel_find(w, "u1.loop3.flow", &id), PCS_OK);
    cr_assert_float_eq(pcs_channel_value(w, id), 4360.0, 4360.0 * 1e-3);
    pcs_world_destroy(w);
}

Test(hydraulics, ticks_allocate_nothing_and_are_deterministic)
{
    pcs_hydraulics_def c = loop_config();
    pcs_hydraulics *h1, *h2;
    pcs_world *a = world_with(&c, &h1);
    pcs_world *b = world_with(&c, &h2);
    cr_assert_eq(pcs_world_tick(a), PCS_OK);
    uint64_t heap = pcs_world_alloc_count(a);
    pcs_test_alloc_begin();
    for (int i = 0; i < 10000; i++)
        pcs_world_tick(a);
    cr_assert_eq(pcs_test_alloc_end(), 0);
    cr_assert_eq(pcs_world_alloc_count(a), heap);
    for (int i = 0; i < 10001; i++)
        pcs_world_tick(b);
    cr_assert_eq(pcs_world_state_hash(a), pcs_world_state_hash(b));
    pcs_world_destroy(a);
    pcs_world_destroy(b);
}

Test(hydraulics, bad_configs_name_the_field)
{
    pcs_world_def wc;
    pcs_world_default(&wc);
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&wc, &w), PCS_OK);
    pcs_hydraulics *h;
    pcs_hydraulics_def c = loop_config();
    loop_j[1].length_m = -1.0;
    cr_assert_eq(pcs_hydraulics_add(w, 0, &c, &h), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "junctions[1].length_m = -1") != NULL, "%s",
              pcs_last_error());
    c = loop_config();
    loop_j[3].to = 3;
    cr_assert_eq(pcs_hydraulics_add(w, 0, &c, &h), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "junctions[3] connects 3 -> 3") != NULL);
    c = loop_config();
    loop_pump.shutoff_ratio = 0.9;
    cr_assert_eq(pcs_hydraulics_add(w, 0, &c, &h), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "pumps[0].shutoff_ratio") != NULL);
    c = loop_config();
    c.rho_kg_m3 = 0.0;
    cr_assert_eq(pcs_hydraulics_add(w, 0, &c, &h), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "rho_kg_m3") != NULL);
    pcs_world_destroy(w);
}
