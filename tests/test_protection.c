/**
 * @file test_protection.c
 * @brief Protection: config validation; each trip function type driven to
 *        trip; a single failed sensor does not trip 2oo4 while two do; the
 *        one-tick delay to the actuators; first-out; latch and reset;
 *        bypasses; fail-safe NaN.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "tests/control_fixture.h"

#define NCH 8

typedef struct rig {
    ctl_plant p;
    pcs_sensors *s;
    pcs_protection *prot;
} rig;

/* Trip op @p op on function @p f by its name. */
static void trip_cmd(const rig *r, uint32_t op, uint32_t f, double arg0)
{
    ctl_command(r->p.w, PCS_PROTECTION_TRIP_COMMANDS, op, pcs_protection_function_name(r->prot, f), arg0);
}

/* Reset of unit @p u by its default name "u<u+1>". */
static void reset_cmd(const rig *r, uint32_t u)
{
    char name[16];
    snprintf(name, sizeof name, "u%u", u + 1);
    ctl_command(r->p.w, PCS_PROTECTION_TRIP_COMMANDS, PCS_PROTECTION_TRIP_OP_RESET, name, 0.0);
}

/* Plant values x[0..7], one plain sensor "ch<i>" on each (range [-1000, 1000]). */
static void rig_sensors(rig *r)
{
    static const char *names[NCH] = {"ch0", "ch1", "ch2", "ch3", "ch4", "ch5", "ch6", "ch7"};
    ctl_plant_init(&r->p, NCH, 1);
    pcs_sensor_def c[NCH];
    for (uint32_t i = 0; i < NCH; i++) {
        c[i] = ctl_sensor(&r->p, names[i], i);
        c[i].lo = -1000.0;
        c[i].hi = 1000.0;
    }
    cr_assert_eq(pcs_sensor_add(r->p.w, c, NCH, &r->s), PCS_OK, "%s", pcs_last_error());
}

/* A k-out-of-n function over sensors first..first+n-1. */
static pcs_protection_function_def fn(const char *name, pcs_protection_trip_kind kind, pcs_protection_trip_direction dir,
                                   double sp, uint32_t first, uint32_t n, uint32_t k)
{
    pcs_protection_function_def c;
    pcs_protection_function_default(&c);
    c.name = name;
    c.kind = kind;
    c.direction = dir;
    c.setpoint = sp;
    c.n_inputs = n;
    c.k = k;
    for (uint32_t i = 0; i < n; i++)
        c.inputs[i] = first + i;
    return c;
}

static void rig_build(rig *r, const pcs_protection_function_def *fns, uint32_t n)
{
    pcs_protection_def cfg;
    pcs_protection_default(&cfg);
    cfg.n_functions = n;
    cfg.functions = fns;
    cr_assert_eq(pcs_protection_add(r->p.w, r->s, &cfg, &r->prot), PCS_OK, "%s",
                 pcs_last_error());
}

static void set_all(rig *r, double v)
{
    for (uint32_t i = 0; i < NCH; i++)
        r->p.x[i] = v;
}

/* ---- configuration --------------------------------------------------------- */

static void expect_bad(rig *r, pcs_protection_def cfg, const char *a, const char *b,
                       const char *c)
{
    pcs_protection *out = (pcs_protection *)0x1;
    cr_assert_eq(pcs_protection_def_validate(r->p.w, r->s, &cfg), PCS_E_INVAL, "field %s", a);
    ctl_expect_message(a, b, c, NULL);
    cr_assert_eq(pcs_protection_add(r->p.w, r->s, &cfg, &out), PCS_E_INVAL);
    cr_assert_eq(out, (pcs_protection *)0x1);
}

Test(protection_config, defaults_are_documented)
{
    pcs_protection_function_def f;
    cr_assert_eq(pcs_protection_function_default(&f), PCS_OK);
    cr_assert_null(f.name);
    cr_assert_eq(f.kind, PCS_PROTECTION_TRIP_LEVEL);
    cr_assert_eq(f.direction, PCS_PROTECTION_TRIP_HIGH);
    cr_assert_eq(f.k, 1);
    cr_assert_eq(f.n_inputs, 0);
    cr_assert_eq(f.rate_window_ticks, 20);
    pcs_protection_def p;
    cr_assert_eq(pcs_protection_default(&p), PCS_OK);
    cr_assert_eq(p.n_units, 1);
    cr_assert_null(p.unit_names);
    cr_assert_eq(p.n_functions, 0);
}

Test(protection_config, each_bad_field_is_named_with_value_and_range)
{
    rig r;
    rig_sensors(&r);
    pcs_protection_function_def good = fn("u1.rps.f", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_HIGH, 1.0, 0, 4, 2);
    pcs_protection_function_def f;
    pcs_protection_def d, c;
    pcs_protection_default(&d);
    d.n_functions = 1;
    d.functions = &f;
    const char *bad_name[] = {""};

    f = good, c = d, c.n_units = 0, expect_bad(&r, c, "n_units", "0", "[1, 1048576]");
    f = good, c = d, c.n_units = 1048577, expect_bad(&r, c, "n_units", "1048577", "[1, 1048576]");
    f = good, c = d, c.unit_names = bad_name, expect_bad(&r, c, "unit_names[0]", "0", "[1, 32]");
    f = good, c = d, c.n_functions = 0, expect_bad(&r, c, "n_functions", "0", "[1, 1024]");
    f = good, f.name = NULL, expect_bad(&r, d, "name", "0", "[1, 100]");
    f = good, f.unit = 1, expect_bad(&r, d, "'u1.rps.f'", "unit = 1", "[0, 0]");
    f = good, f.kind = (pcs_protection_trip_kind)7, expect_bad(&r, d, "kind", "7", "[0, 1]");
    f = good, f.direction = (pcs_protection_trip_direction)5, expect_bad(&r, d, "direction", "5", "[0, 1]");
    f = good, f.setpoint = NAN, expect_bad(&r, d, "setpoint", "nan", "finite");
    f = good, f.n_inputs = 0, expect_bad(&r, d, "n_inputs", "0", "[1, 8]");
    f = good, f.n_inputs = 9, expect_bad(&r, d, "n_inputs", "9", "[1, 8]");
    f = good, f.k = 0, expect_bad(&r, d, "k = 0", "[1, 4]", "trip function 0");
    f = good, f.k = 5, expect_bad(&r, d, "k = 5", "[1, 4]", "trip function 0");
    f = good, f.inputs[2] = 8, expect_bad(&r, d, "inputs[2]", "8", "[0, 8)");
    f = good, f.inputs[3] = 1, expect_bad(&r, d, "inputs[1] = inputs[3]", "1", "distinct");
    f = good, f.kind = PCS_PROTECTION_TRIP_RATE, f.rate_window_ticks = 0,
    expect_bad(&r, d, "rate_window_ticks", "0", "[1, 1200]");
    f = good, f.kind = PCS_PROTECTION_TRIP_RATE, f.rate_window_ticks = 1201,
    expect_bad(&r, d, "rate_window_ticks", "1201", "[1, 1200]");
    pcs_world_destroy(r.p.w);
}

Test(protection_config, one_system_per_world)
{
    rig r;
    rig_sensors(&r);
    pcs_protection_function_def f = fn("a", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_HIGH, 1.0, 0, 1, 1);
    rig_build(&r, &f, 1);
    pcs_protection_def cfg;
    pcs_protection_default(&cfg);
    cfg.n_functions = 1;
    cfg.functions = &f;
    pcs_protection *again = NULL;
    cr_assert_eq(pcs_protection_add(r.p.w, r.s, &cfg, &again), PCS_E_STATE);
    pcs_world_destroy(r.p.w);
}

/* ---- each function type trips ------------------------------------------------ */

Test(protection, level_high_2oo4_trips_at_the_setpoint)
{
    rig r;
    rig_sensors(&r);
    pcs_protection_function_def f =
        fn("u1.rps.flux_high", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_HIGH, 109.0, 0, 4, 2);
    rig_build(&r, &f, 1);
    set_all(&r, 100.0);
    ctl_tick(r.p.w, 3);
    cr_assert_eq(pcs_protection_tripped(r.prot, 0), 0);
    r.p.x[1] = 109.0; /* >= setpoint: one channel */
    ctl_tick(r.p.w, 1);
    cr_assert_eq(pcs_protection_function_state(r.prot, 0), 0x2u, "channel 1 in trip only");
    cr_assert_eq(pcs_protection_tripped(r.prot, 0), 0, "1 of 4 < k = 2");
    r.p.x[3] = 110.0;
    ctl_tick(r.p.w, 1);
    cr_assert_eq(pcs_protection_function_state(r.prot, 0), 0xAu | PCS_PROTECTION_TRIP_ST_TRIPPED);
    cr_assert_eq(pcs_protection_tripped(r.prot, 0), 1);
    cr_assert_eq(pcs_protection_first_out(r.prot, 0), 0);
    pcs_event e;
    cr_assert(ctl_event(r.p.w, PCS_EV_TRIP_FUNCTION, 0, &e));
    cr_assert_eq(e.values[1], 2.0, "two channels");
    cr_assert_eq(e.values[2], 109.0, "setpoint");
    cr_assert_eq(e.values[3], 110.0, "most extreme channel");
    cr_assert(ctl_event(r.p.w, PCS_EV_UNIT_TRIP, 0, &e));
    cr_assert_eq(e.values[0], 0.0, "first-out function 0");
    uint32_t id;
    cr_assert_eq(pcs_channel_find(r.p.w, "u1.rps.trip", &id), PCS_OK);
    cr_assert_eq(pcs_channel_value(r.p.w, id), 1.0);
    cr_assert_eq(pcs_channel_find(r.p.w, "u1.rps.first_out", &id), PCS_OK);
    cr_assert_eq(pcs_channel_value(r.p.w, id), 1.0, "function id + 1");
    cr_assert_eq(pcs_channel_find(r.p.w, "u1.rps.flux_high", &id), PCS_OK);
    cr_assert_eq(pcs_channel_value(r.p.w, id), (double)(0xAu | PCS_PROTECTION_TRIP_ST_TRIPPED));
    pcs_world_destroy(r.p.w);
}

Test(protection, level_low_2oo4_trips_at_the_setpoint)
{
    rig r;
    rig_sensors(&r);
    pcs_protection_function_def f = fn("u1.rps.flow_low", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_LOW, 90.0, 4, 4, 2);
    rig_build(&r, &f, 1);
    set_all(&r, 100.0);
    ctl_tick(r.p.w, 2);
    r.p.x[4] = 90.0; /* <= setpoint */
    ctl_tick(r.p.w, 1);
    cr_assert_eq(pcs_protection_tripped(r.prot, 0), 0);
    r.p.x[7] = 85.0;
    ctl_tick(r.p.w, 1);
    cr_assert_eq(pcs_protection_tripped(r.prot, 0), 1);
    pcs_event e;
    cr_assert(ctl_event(r.p.w, PCS_EV_TRIP_FUNCTION, 0, &e));
    cr_assert_eq(e.values[3], 85.0, "lowest channel is the most extreme for LOW");
    pcs_world_destroy(r.p.w);
}

/* Ramp all channels at @p slope units/s for @p ticks; returns the tick count
 * at which the unit tripped (0 = never). */
static uint32_t ramp_until_trip(rig *r, double slope, uint32_t ticks)
{
    const double dt = 0.05;
    for (uint32_t t = 1; t <= ticks; t++) {
        for (uint32_t i = 0; i < NCH; i++)
            r->p.x[i] += slope * dt;
        ctl_tick(r->p.w, 1);
        if (pcs_protection_tripped(r->prot, 0))
            return t;
    }
    return 0;
}

Test(protection, rate_high_trips_on_a_fast_ramp_not_a_slow_one)
{
    rig r;
    rig_sensors(&r);
    /* Window 20 ticks = 1 s; setpoint 4.95 units/s (off the exact rates the
     * ramps below produce, so float rounding cannot move the trip tick). */
    pcs_protection_function_def f =
        fn("u1.rps.flux_rate", PCS_PROTECTION_TRIP_RATE, PCS_PROTECTION_TRIP_HIGH, 4.95, 0, 4, 2);
    rig_build(&r, &f, 1);
    set_all(&r, 100.0);
    ctl_tick(r.p.w, 1);
    cr_assert(pcs_protection_function_state(r.prot, 0) & PCS_PROTECTION_TRIP_ST_WARMING);
    ctl_tick(r.p.w, 19);
    cr_assert(pcs_protection_function_state(r.prot, 0) & PCS_PROTECTION_TRIP_ST_WARMING,
              "20 samples held: the window is full only from the 21st");
    ctl_tick(r.p.w, 1);
    cr_assert_eq(pcs_protection_function_state(r.prot, 0), 0, "steady: rate 0");
    cr_assert_eq(ramp_until_trip(&r, 4.0, 200), 0, "4 units/s < 4.95");
    /* Switching the ramp from 4 to 6 units/s, the rate over the 1 s window
     * after j ticks is (6 j + 4 (20 - j)) / 20 = 4 + j / 10: it first
     * reaches 4.95 at j = 10, where it is 5. */
    uint32_t t = ramp_until_trip(&r, 6.0, 200);
    cr_assert_eq(t, 10, "tripped after %u ticks", t);
    pcs_event e;
    cr_assert(ctl_event(r.p.w, PCS_EV_TRIP_FUNCTION, 0, &e));
    cr_assert_float_eq(e.values[3], 5.0, 1e-9, "rate at the trip: 4 + 2 * 10/20 = 5 units/s");
    pcs_world_destroy(r.p.w);
}

Test(protection, rate_low_trips_on_a_fast_fall)
{
    rig r;
    rig_sensors(&r);
    pcs_protection_function_def f = fn("u1.rps.neg_rate", PCS_PROTECTION_TRIP_RATE, PCS_PROTECTION_TRIP_LOW, -3.0, 0, 4, 2);
    f.rate_window_ticks = 10;
    rig_build(&r, &f, 1);
    set_all(&r, 500.0);
    ctl_tick(r.p.w, 11);
    cr_assert_eq(ramp_until_trip(&r, -2.0, 100), 0, "falling at 2 units/s > -3");
    cr_assert_neq(ramp_until_trip(&r, -4.0, 100), 0);
    pcs_world_destroy(r.p.w);
}

/* ---- 2oo4 against failed sensors ------------------------------------------------ */

/* A 2oo4 function over sensors 0..3, steady at 0 with a full rate window. */
static void failed_sensor_rig(rig *r, pcs_protection_trip_kind kind, pcs_protection_trip_direction dir, double sp)
{
    rig_sensors(r);
    pcs_protection_function_def f = fn("u1.rps.f", kind, dir, sp, 0, 4, 2);
    f.rate_window_ticks = 4;
    rig_build(r, &f, 1);
    set_all(r, 0.0);
    ctl_tick(r->p.w, 10);
    cr_assert_eq(pcs_protection_function_state(r->prot, 0), 0);
}

/* One sensor failed by @p cmd must not trip a 2oo4 function; two failing
 * together must. (For a rate function the failures must coincide within the
 * window, so both fail on the same tick.) */
static void one_failed_sensor_is_not_enough(pcs_protection_trip_kind kind, pcs_protection_trip_direction dir, double sp,
                                            uint32_t cmd)
{
    rig r;
    failed_sensor_rig(&r, kind, dir, sp);
    ctl_sensor_command(r.p.w, cmd, 0, 0.0);
    ctl_tick(r.p.w, 1);
    cr_assert_eq(pcs_protection_function_state(r.prot, 0) & PCS_PROTECTION_TRIP_ST_CHANNEL_MASK, 0x1u,
                 "the failed sensor's channel shows the condition");
    ctl_tick(r.p.w, 20);
    cr_assert_eq(pcs_protection_tripped(r.prot, 0), 0, "one failed sensor must not trip 2oo4");
    pcs_world_destroy(r.p.w);

    failed_sensor_rig(&r, kind, dir, sp);
    ctl_sensor_command(r.p.w, cmd, 0, 0.0);
    ctl_sensor_command(r.p.w, cmd, 1, 0.0);
    ctl_tick(r.p.w, 1);
    cr_assert_eq(pcs_protection_tripped(r.prot, 0), 1, "two failed sensors trip 2oo4");
    pcs_event e;
    cr_assert(ctl_event(r.p.w, PCS_EV_TRIP_FUNCTION, 0, &e));
    cr_assert_eq(e.values[1], 2.0, "two channels in trip");
    cr_assert(ctl_event(r.p.w, PCS_EV_UNIT_TRIP, 0, NULL));
    pcs_world_destroy(r.p.w);
}

Test(protection, level_high_2oo4_single_fail_high_does_not_trip_two_do)
{
    one_failed_sensor_is_not_enough(PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_HIGH, 500.0, PCS_SENSOR_OP_FAIL_HIGH);
}

Test(protection, level_low_2oo4_single_fail_low_does_not_trip_two_do)
{
    one_failed_sensor_is_not_enough(PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_LOW, -500.0, PCS_SENSOR_OP_FAIL_LOW);
}

Test(protection, rate_high_2oo4_single_fail_high_does_not_trip_two_do)
{
    /* A fail-high jumps 0 -> 1000: 1000 / (4 * 0.05 s) = 5000 units/s. */
    one_failed_sensor_is_not_enough(PCS_PROTECTION_TRIP_RATE, PCS_PROTECTION_TRIP_HIGH, 100.0, PCS_SENSOR_OP_FAIL_HIGH);
}

Test(protection, rate_low_2oo4_single_fail_low_does_not_trip_two_do)
{
    one_failed_sensor_is_not_enough(PCS_PROTECTION_TRIP_RATE, PCS_PROTECTION_TRIP_LOW, -100.0, PCS_SENSOR_OP_FAIL_LOW);
}

Test(protection, fail_high_never_trips_a_low_function)
{
    rig r;
    rig_sensors(&r);
    pcs_protection_function_def f = fn("u1.rps.f", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_LOW, -500.0, 0, 4, 2);
    rig_build(&r, &f, 1);
    for (uint32_t i = 0; i < 4; i++)
        ctl_sensor_command(r.p.w, PCS_SENSOR_OP_FAIL_HIGH, i, 0.0);
    ctl_tick(r.p.w, 5);
    cr_assert_eq(pcs_protection_tripped(r.prot, 0), 0);
    pcs_world_destroy(r.p.w);
}

/* ---- timing, first-out, latch and reset --------------------------------------------- */

typedef struct unit_probe {
    const uint32_t *trip;
    uint64_t seen_tick; /* first tick whose ACTUATORS stage saw trip = 1 */
    int seen;
} unit_probe;

static pcs_status probe_actuators(pcs_world *w, void *ctx)
{
    unit_probe *u = ctx;
    if (*u->trip && !u->seen) {
        u->seen = 1;
        u->seen_tick = pcs_world_clock(w)->tick;
    }
    return PCS_OK;
}

Test(protection, the_unit_sees_the_trip_at_actuators_of_the_next_tick)
{
    rig r;
    rig_sensors(&r);
    pcs_protection_function_def f = fn("u1.rps.f", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_HIGH, 10.0, 0, 1, 1);
    rig_build(&r, &f, 1);
    uint32_t store, index;
    cr_assert_eq(pcs_protection_trip_output(r.prot, 0, &store, &index), PCS_OK);
    cr_assert_eq(pcs_protection_trip_output(r.prot, 1, &store, &index), PCS_E_NOTFOUND);
    unit_probe u = {.trip = (const uint32_t *)pcs_store_data(r.p.w, store) + index};
    pcs_system_desc d = {.name = "unit",
                         .stage = PCS_STAGE_ACTUATORS,
                         .fn = probe_actuators,
                         .ctx = &u,
                         .reads = &store,
                         .n_reads = 1};
    cr_assert_eq(pcs_system_register(r.p.w, &d, NULL), PCS_OK, "%s", pcs_last_error());
    ctl_tick(r.p.w, 5);
    r.p.x[0] = 11.0;
    ctl_tick(r.p.w, 1);
    pcs_event e;
    cr_assert(ctl_event(r.p.w, PCS_EV_UNIT_TRIP, 0, &e));
    cr_assert_eq(e.tick, 5, "protection tripped at tick 5");
    cr_assert_eq(u.seen, 0, "stage 2 of tick 5 ran before stage 10");
    ctl_tick(r.p.w, 1);
    cr_assert_eq(u.seen, 1);
    cr_assert_eq(u.seen_tick, 6, "one tick later");
    pcs_world_destroy(r.p.w);
}

Test(protection, first_out_is_the_first_function_to_trip)
{
    rig r;
    rig_sensors(&r);
    pcs_protection_function_def f[3] = {
        fn("u1.rps.a", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_HIGH, 10.0, 0, 1, 1),
        fn("u1.rps.b", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_HIGH, 10.0, 1, 1, 1),
        fn("u1.rps.c", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_HIGH, 10.0, 2, 1, 1),
    };
    rig_build(&r, f, 3);
    ctl_tick(r.p.w, 2);
    r.p.x[1] = 20.0; /* b first */
    ctl_tick(r.p.w, 3);
    r.p.x[0] = 20.0; /* a later: no new unit trip, b stays the reason */
    ctl_tick(r.p.w, 1);
    cr_assert(ctl_event(r.p.w, PCS_EV_TRIP_FUNCTION, 0, NULL), "a's own event still fires");
    cr_assert_eq(ctl_events(r.p.w, PCS_EV_UNIT_TRIP, UINT32_MAX), 0, "latched already");
    cr_assert_eq(pcs_protection_first_out(r.prot, 0), 1);
    pcs_world_destroy(r.p.w);

    /* Same tick: the lowest id (configuration order) is the first-out. */
    rig_sensors(&r);
    rig_build(&r, f, 3);
    ctl_tick(r.p.w, 2);
    r.p.x[2] = 20.0;
    r.p.x[1] = 20.0;
    ctl_tick(r.p.w, 1);
    cr_assert_eq(pcs_protection_first_out(r.prot, 0), 1);
    cr_assert_eq(ctl_events(r.p.w, PCS_EV_TRIP_FUNCTION, UINT32_MAX), 2);
    cr_assert_eq(ctl_events(r.p.w, PCS_EV_UNIT_TRIP, UINT32_MAX), 1);
    pcs_world_destroy(r.p.w);
}

Test(protection, trip_latches_and_reset_needs_the_condition_gone)
{
    rig r;
    rig_sensors(&r);
    pcs_protection_function_def f[2] = {
        fn("u1.rps.a", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_HIGH, 10.0, 0, 1, 1),
        fn("u1.rps.b", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_LOW, -10.0, 1, 1, 1),
    };
    rig_build(&r, f, 2);
    r.p.x[0] = 20.0;
    ctl_tick(r.p.w, 1);
    reset_cmd(&r, 0);
    ctl_tick(r.p.w, 1);
    pcs_event e;
    cr_assert(ctl_event(r.p.w, PCS_EV_COMMAND_REJECTED,
                        ctl_kind(r.p.w, PCS_PROTECTION_TRIP_COMMANDS, PCS_PROTECTION_TRIP_OP_RESET), &e));
    cr_assert_eq(e.values[3], (double)PCS_E_STATE, "refused while a is tripped");
    cr_assert_eq(pcs_protection_tripped(r.prot, 0), 1);

    r.p.x[0] = 0.0;
    ctl_tick(r.p.w, 1);
    cr_assert(ctl_event(r.p.w, PCS_EV_TRIP_FUNCTION_CLEAR, 0, NULL));
    cr_assert_eq(pcs_protection_tripped(r.prot, 0), 1, "the unit trip stays latched");
    cr_assert_eq(pcs_protection_first_out(r.prot, 0), 0);

    reset_cmd(&r, 0);
    ctl_command_unknown(r.p.w, PCS_PROTECTION_TRIP_COMMANDS, PCS_PROTECTION_TRIP_OP_RESET); /* no such unit */
    ctl_tick(r.p.w, 1);
    cr_assert(ctl_event(r.p.w, PCS_EV_TRIP_RESET, 0, &e));
    cr_assert_eq(e.values[0], 0.0, "it had first-out a");
    cr_assert(ctl_event(r.p.w, PCS_EV_COMMAND_REJECTED,
                        ctl_kind(r.p.w, PCS_PROTECTION_TRIP_COMMANDS, PCS_PROTECTION_TRIP_OP_RESET), &e));
    cr_assert_eq(e.values[3], (double)PCS_E_NOTFOUND);
    cr_assert_eq(pcs_protection_tripped(r.prot, 0), 0);
    cr_assert_eq(pcs_protection_first_out(r.prot, 0), PCS_PROTECTION_TRIP_NONE);

    r.p.x[1] = -11.0; /* a new trip has its own first-out */
    ctl_tick(r.p.w, 1);
    cr_assert_eq(pcs_protection_first_out(r.prot, 0), 1);
    pcs_world_destroy(r.p.w);
}

Test(protection, reset_after_a_trip_that_still_holds_retrips_next_evaluation)
{
    /* A function bypassed after the trip no longer blocks the reset. */
    rig r;
    rig_sensors(&r);
    pcs_protection_function_def f = fn("u1.rps.a", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_HIGH, 10.0, 0, 1, 1);
    rig_build(&r, &f, 1);
    r.p.x[0] = 20.0;
    ctl_tick(r.p.w, 1);
    trip_cmd(&r, PCS_PROTECTION_TRIP_OP_BYPASS, 0, -1.0);
    reset_cmd(&r, 0);
    ctl_tick(r.p.w, 1);
    cr_assert(ctl_event(r.p.w, PCS_EV_TRIP_RESET, 0, NULL));
    cr_assert_eq(pcs_protection_tripped(r.prot, 0), 0, "bypassed: stays reset");
    cr_assert(pcs_protection_function_state(r.prot, 0) & PCS_PROTECTION_TRIP_ST_BYPASSED);
    cr_assert_eq(pcs_protection_function_state(r.prot, 0) & PCS_PROTECTION_TRIP_ST_TRIPPED, 0);
    trip_cmd(&r, PCS_PROTECTION_TRIP_OP_UNBYPASS, 0, -1.0);
    ctl_tick(r.p.w, 1);
    cr_assert_eq(pcs_protection_tripped(r.prot, 0), 1, "unbypassed with the condition present");
    pcs_world_destroy(r.p.w);
}

/* ---- bypass ----------------------------------------------------------------------- */

Test(protection, channel_bypass_turns_2oo4_into_2oo3)
{
    rig r;
    rig_sensors(&r);
    pcs_protection_function_def f = fn("u1.rps.f", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_HIGH, 10.0, 0, 4, 2);
    rig_build(&r, &f, 1);
    trip_cmd(&r, PCS_PROTECTION_TRIP_OP_BYPASS, 0, 2.0); /* channel 2 out for maintenance */
    ctl_tick(r.p.w, 1);
    pcs_event e;
    cr_assert(ctl_event(r.p.w, PCS_EV_TRIP_BYPASS, 0, &e));
    cr_assert_eq(e.values[0], 2.0);
    cr_assert_eq(e.values[1], 1.0);
    r.p.x[2] = 50.0;
    r.p.x[0] = 50.0;
    ctl_tick(r.p.w, 1);
    cr_assert_eq(pcs_protection_tripped(r.prot, 0), 0, "the bypassed channel does not count");
    cr_assert_eq(pcs_protection_function_state(r.prot, 0),
                 0x5u | (0x4u << PCS_PROTECTION_TRIP_ST_BYPASS_SHIFT));
    r.p.x[3] = 50.0;
    ctl_tick(r.p.w, 1);
    cr_assert_eq(pcs_protection_tripped(r.prot, 0), 1, "2 of the 3 live channels");
    pcs_world_destroy(r.p.w);
}

Test(protection, bypass_that_would_disable_the_function_is_refused)
{
    rig r;
    rig_sensors(&r);
    pcs_protection_function_def f = fn("u1.rps.f", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_HIGH, 10.0, 0, 4, 2);
    rig_build(&r, &f, 1);
    trip_cmd(&r, PCS_PROTECTION_TRIP_OP_BYPASS, 0, 0.0);
    trip_cmd(&r, PCS_PROTECTION_TRIP_OP_BYPASS, 0, 1.0);
    trip_cmd(&r, PCS_PROTECTION_TRIP_OP_BYPASS, 0, 2.0);                          /* would leave 1 < k = 2 */
    trip_cmd(&r, PCS_PROTECTION_TRIP_OP_BYPASS, 0, 4.0);                          /* no channel 4 */
    trip_cmd(&r, PCS_PROTECTION_TRIP_OP_BYPASS, 0, 0.5);                          /* not an index */
    ctl_command_unknown(r.p.w, PCS_PROTECTION_TRIP_COMMANDS, PCS_PROTECTION_TRIP_OP_BYPASS); /* no such function */
    ctl_tick(r.p.w, 1);
    cr_assert_eq(ctl_events(r.p.w, PCS_EV_TRIP_BYPASS, 0), 2);
    cr_assert_eq(ctl_events(r.p.w, PCS_EV_COMMAND_REJECTED,
                            ctl_kind(r.p.w, PCS_PROTECTION_TRIP_COMMANDS, PCS_PROTECTION_TRIP_OP_BYPASS)),
                 4);
    uint32_t n = 0;
    const pcs_event *ev = pcs_world_events(r.p.w, &n);
    const double want[] = {PCS_E_STATE, PCS_E_INVAL, PCS_E_INVAL, PCS_E_NOTFOUND};
    uint32_t j = 0;
    for (uint32_t i = 0; i < n; i++)
        if (ev[i].kind == PCS_EV_COMMAND_REJECTED)
            cr_assert_eq(ev[i].values[3], want[j++], "rejection %u", j);
    cr_assert_eq(pcs_protection_function_state(r.prot, 0) & PCS_PROTECTION_TRIP_ST_BYPASS_MASK,
                 0x3u << PCS_PROTECTION_TRIP_ST_BYPASS_SHIFT);
    trip_cmd(&r, PCS_PROTECTION_TRIP_OP_UNBYPASS, 0, 0.0);
    ctl_tick(r.p.w, 1);
    cr_assert_eq(pcs_protection_function_state(r.prot, 0) & PCS_PROTECTION_TRIP_ST_BYPASS_MASK,
                 0x2u << PCS_PROTECTION_TRIP_ST_BYPASS_SHIFT);
    pcs_world_destroy(r.p.w);
}

Test(protection, function_bypass_prevents_the_trip)
{
    rig r;
    rig_sensors(&r);
    pcs_protection_function_def f = fn("u1.rps.f", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_HIGH, 10.0, 0, 4, 2);
    rig_build(&r, &f, 1);
    trip_cmd(&r, PCS_PROTECTION_TRIP_OP_BYPASS, 0, -1.0);
    set_all(&r, 50.0);
    ctl_tick(r.p.w, 3);
    cr_assert_eq(pcs_protection_tripped(r.prot, 0), 0);
    cr_assert_eq(pcs_protection_function_state(r.prot, 0) & PCS_PROTECTION_TRIP_ST_CHANNEL_MASK, 0xFu,
                 "the channels still show their condition");
    pcs_world_destroy(r.p.w);
}

Test(protection, a_nan_channel_counts_as_tripped)
{
    rig r;
    rig_sensors(&r);
    pcs_protection_function_def f = fn("u1.rps.f", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_LOW, 10.0, 0, 1, 1);
    rig_build(&r, &f, 1);
    r.p.x[0] = 50.0;
    ctl_tick(r.p.w, 2);
    cr_assert_eq(pcs_protection_tripped(r.prot, 0), 0);
    r.p.x[0] = NAN;
    ctl_tick(r.p.w, 1);
    cr_assert(isnan(pcs_sensor_value(r.s, 0)), "the sensor passes NaN on");
    cr_assert_eq(pcs_protection_tripped(r.prot, 0), 1, "fail-safe");
    pcs_world_destroy(r.p.w);
}

Test(protection, units_trip_independently)
{
    rig r;
    rig_sensors(&r);
    pcs_protection_function_def f[2] = {
        fn("a.rps.hi", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_HIGH, 10.0, 0, 1, 1),
        fn("b.rps.hi", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_HIGH, 10.0, 1, 1, 1),
    };
    f[1].unit = 1;
    const char *units[] = {"a", "b"};
    pcs_protection_def cfg;
    pcs_protection_default(&cfg);
    cfg.n_units = 2;
    cfg.unit_names = units;
    cfg.n_functions = 2;
    cfg.functions = f;
    cr_assert_eq(pcs_protection_add(r.p.w, r.s, &cfg, &r.prot), PCS_OK, "%s", pcs_last_error());
    r.p.x[1] = 20.0;
    ctl_tick(r.p.w, 1);
    cr_assert_eq(pcs_protection_tripped(r.prot, 0), 0);
    cr_assert_eq(pcs_protection_tripped(r.prot, 1), 1);
    cr_assert_eq(pcs_protection_first_out(r.prot, 1), 1);
    uint32_t id;
    cr_assert_eq(pcs_channel_find(r.p.w, "b.rps.trip", &id), PCS_OK);
    cr_assert_eq(pcs_channel_value(r.p.w, id), 1.0);
    cr_assert_eq(pcs_protection_function_find(r.prot, "b.rps.hi", &id), PCS_OK);
    cr_assert_eq(id, 1);
    pcs_world_destroy(r.p.w);
}

/* ---- unit trip inputs -------------------------------------------------------------- */

Test(protection, writes_the_first_out_cause_bit_to_a_unit_trip_input)
{
    rig r;
    rig_sensors(&r);
    uint32_t input; /* stands in for a unit's "uN.core.trip" */
    cr_assert_eq(
        pcs_store_register(r.p.w, "u1.core.trip", sizeof(uint32_t), 1, PCS_STORE_STATE, &input),
        PCS_OK);
    uint32_t *trip_in = pcs_store_data(r.p.w, input);
    pcs_protection_function_def f[3] = {
        fn("u1.rps.a", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_HIGH, 10.0, 0, 1, 1),
        fn("u1.rps.b", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_HIGH, 10.0, 1, 1, 1),
        fn("u1.rps.c", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_HIGH, 10.0, 2, 1, 1),
    };
    pcs_protection_def cfg;
    pcs_protection_default(&cfg);
    cfg.n_functions = 3;
    cfg.functions = f;
    cfg.unit_trip_stores = &input;
    cr_assert_eq(pcs_protection_add(r.p.w, r.s, &cfg, &r.prot), PCS_OK, "%s", pcs_last_error());
    ctl_tick(r.p.w, 2);
    cr_assert_eq(*trip_in, 0);
    r.p.x[2] = 20.0;
    ctl_tick(r.p.w, 1);
    cr_assert_eq(*trip_in, PCS_PROTECTION_TRIP_CAUSE_BIT(2), "bit 1 + first-out function");
    cr_assert_eq(*trip_in, 1u << 3);
    r.p.x[0] = 20.0; /* a later function does not change the cause */
    ctl_tick(r.p.w, 1);
    cr_assert_eq(*trip_in, 1u << 3);
    r.p.x[0] = r.p.x[2] = 0.0;
    ctl_tick(r.p.w, 3);
    cr_assert_eq(*trip_in, 1u << 3, "latched while the protection is latched");
    reset_cmd(&r, 0);
    ctl_tick(r.p.w, 1);
    cr_assert_eq(*trip_in, 0);
    cr_assert_eq(PCS_PROTECTION_TRIP_CAUSE_BIT(29), 1u << 30);
    cr_assert_eq(PCS_PROTECTION_TRIP_CAUSE_BIT(30), 1u << 31);
    cr_assert_eq(PCS_PROTECTION_TRIP_CAUSE_BIT(700), 1u << 31, "high ids share bit 31");
    pcs_world_destroy(r.p.w);
}

Test(protection_config, bad_unit_trip_inputs_are_named)
{
    rig r;
    rig_sensors(&r);
    uint32_t u32s;
    cr_assert_eq(pcs_store_register(r.p.w, "in", 4, 3, PCS_STORE_STATE, &u32s), PCS_OK);
    pcs_protection_function_def f = fn("u1.rps.f", PCS_PROTECTION_TRIP_LEVEL, PCS_PROTECTION_TRIP_HIGH, 1.0, 0, 1, 1);
    pcs_protection_def d, c;
    pcs_protection_default(&d);
    d.n_functions = 1;
    d.functions = &f;
    uint32_t bad_store = 999, idx = 3;
    c = d, c.unit_trip_stores = &bad_store,
    expect_bad(&r, c, "unit_trip_stores[0]", "999", "NO_TARGET");
    c = d, c.unit_trip_stores = &u32s, c.unit_trip_indices = &idx,
    expect_bad(&r, c, "unit_trip_indices[0]", "3", "[0, 3)");
    pcs_world_destroy(r.p.w);
}
