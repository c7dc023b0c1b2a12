/**
 * @file test_control_unit.c
 * @brief Protection wired to the real reactor unit model through the unit's
 *        own trip input: the unit scrams one tick after the trip decision,
 *        with the first-out function as the cause, and both resets work in
 *        one command batch once the condition is gone.
 */
#include <criterion/criterion.h>

#include "pcsim/unit.h"
#include "tests/control_fixture.h"

Test(control_unit, protection_scrams_the_real_unit_through_its_trip_input)
{
    ctl_plant p;
    ctl_plant_init(&p, 4, 1);
    pcs_unit_def uc;
    pcs_unit_default(&uc);
    pcs_unit *unit = NULL;
    cr_assert_eq(pcs_unit_add(p.w, 1, &uc, &unit), PCS_OK, "%s", pcs_last_error());

    /* Four flux channels on the test plant store, a 2oo4 flux-high function. */
    static const char *names[4] = {"u1.nis.A", "u1.nis.B", "u1.nis.C", "u1.nis.D"};
    pcs_sensor_def sc[4];
    for (uint32_t i = 0; i < 4; i++) {
        sc[i] = ctl_sensor(&p, names[i], i);
        p.x[i] = 100.0;
    }
    pcs_sensors *s = NULL;
    cr_assert_eq(pcs_sensor_add(p.w, sc, 4, &s), PCS_OK, "%s", pcs_last_error());
    pcs_protection_function_def f[2];
    pcs_protection_function_default(&f[0]);
    f[0].name = "u1.rps.pressure_low"; /* a function that never trips here */
    f[0].direction = PCS_PROTECTION_TRIP_LOW;
    f[0].setpoint = -1.0;
    f[0].n_inputs = 1;
    f[1] = f[0];
    f[1].name = "u1.rps.flux_high";
    f[1].direction = PCS_PROTECTION_TRIP_HIGH;
    f[1].setpoint = 109.0;
    f[1].n_inputs = 4;
    f[1].k = 2;
    for (uint32_t i = 0; i < 4; i++)
        f[1].inputs[i] = i;
    uint32_t input = pcs_unit_trip_store(unit);
    pcs_protection_def pc;
    pcs_protection_default(&pc);
    pc.n_functions = 2;
    pc.functions = f;
    pc.unit_trip_stores = &input;
    pcs_protection *prot = NULL;
    cr_assert_eq(pcs_protection_add(p.w, s, &pc, &prot), PCS_OK, "%s", pcs_last_error());

    ctl_tick(p.w, 20);
    cr_assert_eq(ctl_events(p.w, PCS_EV_UNIT_SCRAM, UINT32_MAX), 0);
    p.x[0] = p.x[3] = 112.0;
    ctl_tick(p.w, 1);
    pcs_event e;
    cr_assert(ctl_event(p.w, PCS_EV_UNIT_TRIP, 0, &e));
    uint64_t t_trip = e.tick;
    cr_assert_eq(ctl_events(p.w, PCS_EV_UNIT_SCRAM, UINT32_MAX), 0, "not in the same tick");
    ctl_tick(p.w, 1);
    cr_assert(ctl_event(p.w, PCS_EV_UNIT_SCRAM, UINT32_MAX, &e), "the unit scrams");
    cr_assert_eq(e.tick, t_trip + 1, "at ACTUATORS of the next tick");
    cr_assert_eq((uint32_t)e.values[0], PCS_PROTECTION_TRIP_CAUSE_BIT(1), "cause: flux_high (function 1)");

    /* Condition gone: reset the protection, then the unit, in one batch. */
    p.x[0] = p.x[3] = 100.0;
    ctl_tick(p.w, 2);
    ctl_command(p.w, PCS_PROTECTION_TRIP_COMMANDS, PCS_PROTECTION_TRIP_OP_RESET, "u1", 0.0);
    ctl_command(p.w, PCS_UNIT_COMMANDS, PCS_UNIT_OP_RESET, "u1", 0.0);
    ctl_tick(p.w, 1);
    cr_assert(ctl_event(p.w, PCS_EV_TRIP_RESET, 0, NULL));
    cr_assert(ctl_event(p.w, PCS_EV_UNIT_SCRAM_RESET, UINT32_MAX, NULL), "unit reset accepted");
    cr_assert_eq(ctl_events(p.w, PCS_EV_COMMAND_REJECTED, UINT32_MAX), 0);
    uint32_t id;
    cr_assert_eq(pcs_channel_find(p.w, "u1.core.trip", &id), PCS_OK);
    cr_assert_eq(pcs_channel_value(p.w, id), 0.0);
    pcs_world_destroy(p.w);
}
