/**
 * @file test_control_hyd.c
 * @brief Sensors, protection and alarms wired to the real primary-loop
 *        hydraulics by channel name: a two-loop unit loses a pump and trips
 *        on low flow through 2oo4 logic, with the loop's flow alarm first.
 *
 * The wiring uses only the engine API: the hydraulics publishes
 * u1.loopL.flow; pcs_channel_get turns that name into the (store, index) a
 * sensor reads. No header of the hydraulics is needed beyond building it.
 */
#include <criterion/criterion.h>
#include <stdio.h>

#include "tests/control_fixture.h"

#define RATED_FLOW 4360.0 /* kg/s per loop, as in test_hydraulics.c ([W84] Table 2-1 / 4) */

typedef struct two_loops {
    pcs_world *w;
    pcs_sensors *s;
    pcs_protection *p;
    pcs_alarms *a;
} two_loops;

static void build(two_loops *u)
{
    pcs_world_def wc;
    pcs_world_default(&wc);
    wc.check_finite = 1; /* NaN/Inf in a physics store fails the tick */
    wc.workers = 0;
    cr_assert_eq(pcs_world_create(&wc, &u->w), PCS_OK);
    uint32_t nn, nj;
    cr_assert_eq(pcs_hydraulics_pwr_sizes(2, 4, &nn, &nj), PCS_OK);
    static pcs_hydraulics_node nodes[64];
    static pcs_hydraulics_junction js[64];
    static pcs_hydraulics_pump pumps[2];
    cr_assert_leq(nn, 64);
    cr_assert_leq(nj, 64);
    pcs_hydraulics_def hc;
    pcs_hydraulics_default(&hc);
    pcs_hydraulics_pump pump = {.rated_speed_rad_s = 124.5,
                         .rated_dp_pa = 0.6e6,
                         .rated_flow_kg_s = RATED_FLOW,
                         .shutoff_ratio = 1.3,
                         .inertia_kg_m2 = 2900.0,
                         .efficiency = 0.8,
                         .initial_speed_frac = 1.0};
    cr_assert_eq(pcs_hydraulics_pwr_network(2, 4, &pump, &hc, nodes, js, pumps), PCS_OK, "%s",
                 pcs_last_error());
    pcs_hydraulics *h;
    cr_assert_eq(pcs_hydraulics_add(u->w, 0, &hc, &h), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_hydraulics_settle(u->w, h, 120.0, 0.05), PCS_OK, "%s", pcs_last_error());

    /* Four redundant flow transmitters per loop on the published loop flow. */
    static char names[8][32];
    pcs_sensor_def sc[8];
    for (uint32_t l = 0; l < 2; l++) {
        char src[32];
        snprintf(src, sizeof src, "u1.loop%u.flow", l + 1);
        uint32_t ch;
        cr_assert_eq(pcs_channel_find(u->w, src, &ch), PCS_OK, "%s", pcs_last_error());
        pcs_channel_info info;
        cr_assert_eq(pcs_channel_get(u->w, ch, &info), PCS_OK);
        for (uint32_t k = 0; k < 4; k++) {
            uint32_t i = 4 * l + k;
            snprintf(names[i], sizeof names[i], "u1.loop%u.flow.%c", l + 1, 'A' + k);
            pcs_sensor_default(&sc[i]);
            sc[i].name = names[i];
            sc[i].unit = "kg/s";
            sc[i].store = info.store;
            sc[i].index = info.index;
            sc[i].tau_s = 0.2;
            sc[i].noise_sd = 5.0;
            sc[i].quantum = 1.0;
            sc[i].lo = -1000.0;
            sc[i].hi = 6000.0;
        }
    }
    cr_assert_eq(pcs_sensor_add(u->w, sc, 8, &u->s), PCS_OK, "%s", pcs_last_error());

    /* Flow low per loop: 2oo4 at 90 % of rated flow. */
    pcs_protection_function_def f[2];
    const char *fn[2] = {"u1.rps.loop1.flow_low", "u1.rps.loop2.flow_low"};
    for (uint32_t l = 0; l < 2; l++) {
        pcs_protection_function_default(&f[l]);
        f[l].name = fn[l];
        f[l].direction = PCS_PROTECTION_TRIP_LOW;
        f[l].setpoint = 0.9 * RATED_FLOW;
        f[l].n_inputs = 4;
        f[l].k = 2;
        for (uint32_t k = 0; k < 4; k++)
            f[l].inputs[k] = 4 * l + k;
    }
    pcs_protection_def pc;
    pcs_protection_default(&pc);
    pc.n_functions = 2;
    pc.functions = f;
    cr_assert_eq(pcs_protection_add(u->w, u->s, &pc, &u->p), PCS_OK, "%s", pcs_last_error());

    /* Flow-low alarms at 95 % on transmitter A of each loop, one first-out group. */
    pcs_alarm_def ac[2];
    const char *an[2] = {"u1.alarm.loop1.flow_low", "u1.alarm.loop2.flow_low"};
    for (uint32_t l = 0; l < 2; l++) {
        pcs_alarm_default(&ac[l]);
        ac[l].name = an[l];
        ac[l].sensor = 4 * l;
        ac[l].direction = PCS_ALARM_LOW;
        ac[l].setpoint = 0.95 * RATED_FLOW;
        ac[l].deadband = 20.0;
        ac[l].priority = PCS_ALARM_PRIO_HIGH;
        ac[l].group = 1;
    }
    cr_assert_eq(pcs_alarm_add(u->w, u->s, ac, 2, &u->a), PCS_OK, "%s", pcs_last_error());
}

Test(control_hyd, losing_a_pump_trips_the_unit_on_loop_flow_2oo4)
{
    two_loops u;
    build(&u);
    ctl_tick(u.w, 40);
    cr_assert_eq(pcs_protection_tripped(u.p, 0), 0, "rated flow: no trip");
    cr_assert_float_eq(pcs_sensor_value(u.s, 0), RATED_FLOW, 0.01 * RATED_FLOW);

    ctl_command(u.w, PCS_HYDRAULICS_COMMANDS, PCS_HYDRAULICS_OP_PUMP_TRIP, "u1.pump1", 0.0); /* loop 1's pump */
    int64_t alarm_tick = -1, trip_tick = -1;
    for (uint32_t n = 0; n < 400 && trip_tick < 0; n++) {
        ctl_tick(u.w, 1);
        pcs_event e;
        if (alarm_tick < 0 && ctl_event(u.w, PCS_EV_ALARM_FIRST_OUT, UINT32_MAX, &e)) {
            alarm_tick = (int64_t)e.tick;
            cr_assert_eq(e.subject, 0, "loop 1's alarm is the first-out");
        }
        if (ctl_event(u.w, PCS_EV_UNIT_TRIP, 0, &e))
            trip_tick = (int64_t)e.tick;
    }
    cr_assert_geq(trip_tick, 0, "the unit tripped within 20 s of the pump trip");
    cr_assert_geq(alarm_tick, 0);
    cr_assert_lt(alarm_tick, trip_tick, "alarm (95 %%) before trip (90 %%)");
    /* This network's coast-down takes the measured flow (0.2 s lag) under
     * 90 % about 1.3 s after the pump trip; the bounds catch a trip that
     * comes at once (no lag, wrong direction) or far too late. */
    cr_assert(trip_tick - 40 >= 10 && trip_tick - 40 <= 60, "trip %lld ticks after the pump",
              (long long)(trip_tick - 40));
    cr_assert_eq(pcs_protection_first_out(u.p, 0), 0, "first-out: loop 1 flow low");
    uint32_t id;
    cr_assert_eq(pcs_channel_find(u.w, "u1.rps.first_out", &id), PCS_OK);
    cr_assert_eq(pcs_channel_value(u.w, id), 1.0);
    cr_assert_eq(pcs_channel_find(u.w, "u1.pump1.speed", &id), PCS_OK);
    cr_assert_lt(pcs_channel_value(u.w, id), 124.5, "pump 1 is coasting down");
    cr_assert_eq(pcs_alarm_state_of(u.a, 0), PCS_ALARM_UNACK);
    cr_assert_eq(pcs_protection_function_state(u.p, 1) & PCS_PROTECTION_TRIP_ST_TRIPPED, 0,
                 "loop 2 keeps its flow");
    pcs_world_destroy(u.w);
}
