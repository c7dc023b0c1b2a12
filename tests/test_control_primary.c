/**
 * @file test_control_primary.c
 * @brief Sensors, protection and alarms wired by channel name to a standalone
 *        two-phase primary (pcsim/primary.h), outside the plant builder: a
 *        4-loop unit loses a pump and trips on low flow through 2oo4 logic,
 *        with the loop's flow alarm first.
 *
 * The wiring uses only the engine API: the primary publishes uN.loopK.flow;
 * pcs_channel_find/pcs_channel_get turn that name into the (store, index) a
 * sensor reads, as a host that builds its own instrumentation would
 * (physics/plant/models/plant_instr.c does the same inside the plant; this
 * test holds the path for a bare model). Ported from the constant-density
 * loop model's test when that model was retired.
 */
#include <criterion/criterion.h>
#include <stdio.h>

#include "pcsim/station.h"
#include "tests/control_fixture.h"

#define LOOPS 4u
#define PER_LOOP 4u /* redundant flow transmitters per loop */

typedef struct instrumented {
    pcs_world *w;
    pcs_primary *pr;
    pcs_sensors *s;
    pcs_protection *p;
    pcs_alarms *a;
    double rated; /* the settled loop flow, kg/s */
} instrumented;

static void build_primary(instrumented *u)
{
    pcs_world_def wc;
    pcs_world_default(&wc);
    wc.check_finite = 1; /* NaN/Inf in a physics store fails the tick */
    wc.workers = 0;
    cr_assert_eq(pcs_world_create(&wc, &u->w), PCS_OK);
    pcs_primary_def d;
    pcs_primary_default(&d);
    cr_assert_eq(pcs_station_water_table(&d.table), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_primary_add(u->w, &d, &u->pr), PCS_OK, "%s", pcs_last_error());
    pcs_primary_init_report rep;
    cr_assert_eq(pcs_primary_init_steady(u->w, u->pr, 1.0, &rep), PCS_OK, "%s", pcs_last_error());
    /* Calibrated to the settled flow, as the plant's instruments are: the
     * flow is an outcome of the pump curve and the losses (about 4171 kg/s,
     * pcsim/primary.h; [W84]'s thermal design flow is 4360). */
    u->rated = rep.loop_flow_kg_s;
    cr_assert(u->rated > 0.9 * 4146.0 && u->rated < 4360.0, "settled loop flow %g kg/s", u->rated);
}

static void build(instrumented *u)
{
    build_primary(u);
    /* Four redundant flow transmitters per loop on the published loop flow. */
    static char names[LOOPS * PER_LOOP][32];
    pcs_sensor_def sc[LOOPS * PER_LOOP];
    for (uint32_t l = 0; l < LOOPS; l++) {
        char src[32];
        snprintf(src, sizeof src, "u1.loop%u.flow", l + 1);
        uint32_t ch;
        cr_assert_eq(pcs_channel_find(u->w, src, &ch), PCS_OK, "%s", pcs_last_error());
        pcs_channel_info info;
        cr_assert_eq(pcs_channel_get(u->w, ch, &info), PCS_OK);
        for (uint32_t k = 0; k < PER_LOOP; k++) {
            uint32_t i = PER_LOOP * l + k;
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
    cr_assert_eq(pcs_sensor_add(u->w, sc, LOOPS * PER_LOOP, &u->s), PCS_OK, "%s", pcs_last_error());

    /* Flow low per loop: 2oo4 at 90 % of the rated flow. */
    static char fn[LOOPS][32];
    pcs_protection_function_def f[LOOPS];
    for (uint32_t l = 0; l < LOOPS; l++) {
        snprintf(fn[l], sizeof fn[l], "u1.rps.loop%u.flow_low", l + 1);
        pcs_protection_function_default(&f[l]);
        f[l].name = fn[l];
        f[l].direction = PCS_PROTECTION_TRIP_LOW;
        f[l].setpoint = 0.9 * u->rated;
        f[l].n_inputs = PER_LOOP;
        f[l].k = 2;
        for (uint32_t k = 0; k < PER_LOOP; k++)
            f[l].inputs[k] = PER_LOOP * l + k;
    }
    pcs_protection_def pc;
    pcs_protection_default(&pc);
    pc.n_functions = LOOPS;
    pc.functions = f;
    cr_assert_eq(pcs_protection_add(u->w, u->s, &pc, &u->p), PCS_OK, "%s", pcs_last_error());

    /* Flow-low alarms at 95 % on transmitter A of each loop, one first-out group. */
    static char an[LOOPS][32];
    pcs_alarm_def ac[LOOPS];
    for (uint32_t l = 0; l < LOOPS; l++) {
        snprintf(an[l], sizeof an[l], "u1.alarm.loop%u.flow_low", l + 1);
        pcs_alarm_default(&ac[l]);
        ac[l].name = an[l];
        ac[l].sensor = PER_LOOP * l;
        ac[l].direction = PCS_ALARM_LOW;
        ac[l].setpoint = 0.95 * u->rated;
        ac[l].deadband = 20.0;
        ac[l].priority = PCS_ALARM_PRIO_HIGH;
        ac[l].group = 1;
    }
    cr_assert_eq(pcs_alarm_add(u->w, u->s, ac, LOOPS, &u->a), PCS_OK, "%s", pcs_last_error());
}

static double channel(pcs_world *w, const char *name)
{
    uint32_t id;
    cr_assert_eq(pcs_channel_find(w, name, &id), PCS_OK, "%s", name);
    return pcs_channel_value(w, id);
}

Test(control_primary, losing_a_pump_trips_the_unit_on_loop_flow_2oo4)
{
    instrumented u;
    build(&u);
    ctl_tick(u.w, 40);
    cr_assert_eq(pcs_protection_tripped(u.p, 0), 0, "rated flow: no trip");
    for (uint32_t l = 0; l < LOOPS; l++)
        cr_assert_float_eq(pcs_sensor_value(u.s, PER_LOOP * l), u.rated, 0.01 * u.rated,
                           "loop %u transmitter A", l + 1);
    double speed0 = channel(u.w, "u1.pump1.speed");

    ctl_command(u.w, PCS_PRIMARY_COMMANDS, PCS_PRIMARY_OP_PUMP_TRIP, "u1.pump1", 0.0);
    int64_t pump_tick = -1, alarm_tick = -1, trip_tick = -1;
    for (uint32_t n = 0; n < 400 && trip_tick < 0; n++) {
        ctl_tick(u.w, 1);
        pcs_event e;
        if (pump_tick < 0 &&
            ctl_event(u.w, PCS_EV_PRIMARY_PUMP_TRIPPED, PCS_PRIMARY_PUMP_SUBJECT(0, 0), &e)) {
            pump_tick = (int64_t)e.tick;
            cr_assert_float_eq(e.values[0], speed0, 0.01 * speed0, "speed at the trip");
        }
        if (alarm_tick < 0 && ctl_event(u.w, PCS_EV_ALARM_FIRST_OUT, UINT32_MAX, &e)) {
            alarm_tick = (int64_t)e.tick;
            cr_assert_eq(e.subject, 0, "loop 1's alarm is the first-out");
        }
        if (ctl_event(u.w, PCS_EV_UNIT_TRIP, 0, &e))
            trip_tick = (int64_t)e.tick;
    }
    cr_assert_eq(pump_tick, 40, "the trip command applies at the next tick's stage 1");
    cr_assert_geq(trip_tick, 0, "the unit tripped within 20 s of the pump trip");
    cr_assert_geq(alarm_tick, 0);
    cr_assert_lt(alarm_tick, trip_tick, "alarm (95 %%) before trip (90 %%)");
    /* The derived coast-down W/W0 = 1/(1 + t/12.4 s) (refdata
     * pwr_transients.md section 4, a derived estimate, not an FSAR curve)
     * is at 0.90 after 1.4 s; with the 0.2 s transmitter lag and the
     * one-tick protection delay about 1.6 s (32 ticks; the model gives 31).
     * The bounds, 1.0 to 2.25 s, take the estimate's -40/+40 % (it is derived
     * from another plant's pump data) and catch a trip that comes at once
     * (no lag, wrong direction) or far too late. */
    cr_assert(trip_tick - 40 >= 20 && trip_tick - 40 <= 45, "trip %lld ticks after the pump",
              (long long)(trip_tick - 40));
    cr_assert_eq(pcs_protection_first_out(u.p, 0), 0, "first-out: loop 1 flow low");
    cr_assert_eq(channel(u.w, "u1.rps.first_out"), 1.0);
    cr_assert_lt(channel(u.w, "u1.pump1.speed"), speed0, "pump 1 is coasting down");
    cr_assert_eq(pcs_alarm_state_of(u.a, 0), PCS_ALARM_UNACK);
    for (uint32_t l = 1; l < LOOPS; l++)
        cr_assert_eq(pcs_protection_function_state(u.p, l) & PCS_PROTECTION_TRIP_ST_TRIPPED, 0,
                     "loop %u keeps its flow", l + 1);
    pcs_world_destroy(u.w);
}
