/**
 * @file test_alarm.c
 * @brief Alarms: config validation; every transition of the ISA-18.2 state
 *        model with its event; deadband; on- and off-delays; first-out
 *        groups; shelving with and without a time; suppression by design;
 *        out of service; published channels.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "tests/control_fixture.h"

#define NV 8

typedef struct arig {
    ctl_plant p;
    pcs_sensors *s;
    pcs_alarms *a;
    uint32_t sup_store; /* "test.suppress", u32[2] */
    uint32_t *sup;
} arig;

/* Alarm op @p op on alarm @p id by its name, or on the bank ("alarms") for ALL. */
#define ALL UINT32_MAX
static void alarm_cmd(const arig *r, uint32_t op, uint32_t id, double arg0)
{
    ctl_command(r->p.w, PCS_ALARM_COMMANDS, op, id == ALL ? "alarms" : pcs_alarm_name(r->a, id),
                arg0);
}

static void arig_sensors(arig *r)
{
    static const char *names[NV] = {"v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7"};
    ctl_plant_init(&r->p, NV, 1);
    pcs_sensor_def c[NV];
    for (uint32_t i = 0; i < NV; i++)
        c[i] = ctl_sensor(&r->p, names[i], i);
    cr_assert_eq(pcs_sensor_add(r->p.w, c, NV, &r->s), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_store_register(r->p.w, "test.suppress", sizeof(uint32_t), 2, PCS_STORE_STATE,
                                    &r->sup_store),
                 PCS_OK);
    r->sup = pcs_store_data(r->p.w, r->sup_store);
}

static pcs_alarm_def alarm(const char *name, uint32_t sensor, pcs_alarm_direction dir, double sp)
{
    pcs_alarm_def c;
    pcs_alarm_default(&c);
    c.name = name;
    c.sensor = sensor;
    c.direction = dir;
    c.setpoint = sp;
    return c;
}

static void arig_build(arig *r, const pcs_alarm_def *c, uint32_t n)
{
    cr_assert_eq(pcs_alarm_add(r->p.w, r->s, c, n, &r->a), PCS_OK, "%s", pcs_last_error());
}

/* One alarm "a" on v0, HIGH at 100, with @p c's other fields. */
static void arig_one(arig *r, pcs_alarm_def c)
{
    arig_sensors(r);
    arig_build(r, &c, 1);
}

/* The last tick emitted exactly the transitions listed (from, to) for alarm i, in order. */
static void expect_transitions(const arig *r, uint32_t i, uint32_t n, const uint32_t *from_to)
{
    uint32_t count = 0, k = 0;
    const pcs_event *ev = pcs_world_events(r->p.w, &count);
    for (uint32_t e = 0; e < count; e++) {
        if (ev[e].kind != PCS_EV_ALARM_STATE || ev[e].subject != i)
            continue;
        cr_assert_lt(k, n, "more transitions than expected");
        cr_assert_eq(ev[e].values[1], (double)from_to[2 * k], "transition %u from", k);
        cr_assert_eq(ev[e].values[0], (double)from_to[2 * k + 1], "transition %u to", k);
        k++;
    }
    cr_assert_eq(k, n, "%u transitions, expected %u", k, n);
}

static void expect_one(const arig *r, uint32_t i, uint32_t from, uint32_t to)
{
    uint32_t ft[2] = {from, to};
    expect_transitions(r, i, 1, ft);
    cr_assert_eq(pcs_alarm_state_of(r->a, i), to);
}

static void expect_none(const arig *r, uint32_t i)
{
    expect_transitions(r, i, 0, NULL);
}

enum { A = PCS_ALARM_NORMAL, B = PCS_ALARM_UNACK, C = PCS_ALARM_ACKED, D = PCS_ALARM_RTN_UNACK };
enum { E = PCS_ALARM_SHELVED, F = PCS_ALARM_SUPPRESSED, G = PCS_ALARM_OUT_OF_SERVICE };

/* ---- configuration ---------------------------------------------------------------- */

Test(alarm_config, defaults_are_documented)
{
    pcs_alarm_def c;
    cr_assert_eq(pcs_alarm_default(&c), PCS_OK);
    cr_assert_null(c.name);
    cr_assert_eq(c.direction, PCS_ALARM_HIGH);
    cr_assert_eq(c.deadband, 0.0);
    cr_assert_eq(c.on_delay_ticks, 0);
    cr_assert_eq(c.off_delay_ticks, 0);
    cr_assert_eq(c.priority, PCS_ALARM_PRIO_MEDIUM);
    cr_assert_eq(c.group, 0);
    cr_assert_eq(c.suppress_store, PCS_ALARM_NO_SUPPRESS);
    cr_assert_str_eq(pcs_alarm_state_name(PCS_ALARM_RTN_UNACK), "rtn_unack");
    cr_assert_str_eq(pcs_alarm_state_name((pcs_alarm_state)7), "?");
}

static void expect_bad(arig *r, pcs_alarm_def c, const char *field, const char *value,
                       const char *range)
{
    cr_assert_eq(pcs_alarm_def_validate(r->p.w, r->s, &c), PCS_E_INVAL, "field %s", field);
    ctl_expect_message(field, value, range, NULL);
    pcs_alarms *out = (pcs_alarms *)0x1;
    cr_assert_eq(pcs_alarm_add(r->p.w, r->s, &c, 1, &out), PCS_E_INVAL);
    ctl_expect_message("alarm 0", field, NULL);
    cr_assert_eq(out, (pcs_alarms *)0x1);
}

Test(alarm_config, each_bad_field_is_named_with_value_and_range)
{
    arig r;
    arig_sensors(&r);
    pcs_alarm_def d = alarm("t.a", 0, PCS_ALARM_HIGH, 1.0), c;
    cr_assert_eq(pcs_alarm_def_validate(r.p.w, r.s, &d), PCS_OK, "%s", pcs_last_error());
    c = d, c.name = NULL, expect_bad(&r, c, "name", "0", "[1, 100]");
    c = d, c.sensor = 8, expect_bad(&r, c, "sensor", "8", "[0, 8)");
    c = d, c.direction = (pcs_alarm_direction)3, expect_bad(&r, c, "direction", "3", "[0, 1]");
    c = d, c.setpoint = INFINITY, expect_bad(&r, c, "setpoint", "inf", "finite");
    c = d, c.deadband = -1.0, expect_bad(&r, c, "deadband", "-1", "[0, finite]");
    c = d, c.on_delay_ticks = 72001, expect_bad(&r, c, "on_delay_ticks", "72001", "[0, 72000]");
    c = d, c.off_delay_ticks = 80000, expect_bad(&r, c, "off_delay_ticks", "80000", "[0, 72000]");
    c = d, c.priority = 0, expect_bad(&r, c, "priority", "0", "[1, 4]");
    c = d, c.priority = 5, expect_bad(&r, c, "priority", "5", "[1, 4]");
    c = d, c.group = 65536, expect_bad(&r, c, "group", "65536", "[0, 65535]");
    c = d, c.suppress_store = 99, expect_bad(&r, c, "suppress_store", "99", "NO_SUPPRESS");
    c = d, c.suppress_store = r.sup_store, c.suppress_index = 2,
    expect_bad(&r, c, "suppress_index", "2", "[0, 2)");
    pcs_world_destroy(r.p.w);
}

Test(alarm_config, one_bank_per_world_and_unique_names)
{
    arig r;
    arig_sensors(&r);
    pcs_alarm_def c[2] = {alarm("x", 0, PCS_ALARM_HIGH, 1.0), alarm("x", 1, PCS_ALARM_HIGH, 1.0)};
    pcs_alarms *a = NULL;
    cr_assert_eq(pcs_alarm_add(r.p.w, r.s, c, 2, &a), PCS_E_INVAL);
    ctl_expect_message("'x'", "already exists", NULL);
    pcs_world_destroy(r.p.w);
    arig_sensors(&r);
    c[1].name = "y";
    arig_build(&r, c, 2);
    cr_assert_eq(pcs_alarm_add(r.p.w, r.s, c, 2, &a), PCS_E_STATE);
    ctl_expect_message("already has an alarm bank", NULL);
    pcs_world_destroy(r.p.w);
}

/* ---- the state machine: every transition ----------------------------------------- */

Test(alarm, a_to_b_when_the_condition_appears)
{
    arig r;
    pcs_alarm_def c = alarm("u1.alarm.t_high", 0, PCS_ALARM_HIGH, 100.0);
    c.priority = PCS_ALARM_PRIO_HIGH;
    arig_one(&r, c);
    r.p.x[0] = 99.0;
    ctl_tick(r.p.w, 1);
    expect_none(&r, 0);
    cr_assert_eq(pcs_alarm_state_of(r.a, 0), A);
    r.p.x[0] = 100.0; /* at the setpoint counts */
    ctl_tick(r.p.w, 1);
    expect_one(&r, 0, A, B);
    pcs_event e;
    cr_assert(ctl_event(r.p.w, PCS_EV_ALARM_STATE, 0, &e));
    cr_assert_eq(e.values[2], PCS_ALARM_PRIO_HIGH);
    cr_assert_eq(e.values[3], 100.0, "measured value");
    cr_assert_eq(pcs_alarm_flags(r.a, 0),
                 PCS_ALARM_FL_ACTIVE | (PCS_ALARM_PRIO_HIGH << PCS_ALARM_FL_PRIO_SHIFT));
    pcs_world_destroy(r.p.w);
}

Test(alarm, b_to_c_on_acknowledge_then_c_to_a_when_clear)
{
    arig r;
    arig_one(&r, alarm("a", 0, PCS_ALARM_HIGH, 100.0));
    r.p.x[0] = 150.0;
    ctl_tick(r.p.w, 1);
    alarm_cmd(&r, PCS_ALARM_OP_ACK, 0, 0.0);
    ctl_tick(r.p.w, 1);
    expect_one(&r, 0, B, C);
    ctl_tick(r.p.w, 3);
    expect_none(&r, 0);
    r.p.x[0] = 50.0;
    ctl_tick(r.p.w, 1);
    expect_one(&r, 0, C, A);
    pcs_world_destroy(r.p.w);
}

Test(alarm, b_to_d_when_clear_before_ack_then_d_to_a_on_ack)
{
    arig r;
    arig_one(&r, alarm("a", 0, PCS_ALARM_HIGH, 100.0));
    r.p.x[0] = 150.0;
    ctl_tick(r.p.w, 1);
    r.p.x[0] = 50.0;
    ctl_tick(r.p.w, 1);
    expect_one(&r, 0, B, D);
    cr_assert_eq(pcs_alarm_flags(r.a, 0) & PCS_ALARM_FL_ACTIVE, 0);
    alarm_cmd(&r, PCS_ALARM_OP_ACK, 0, 0.0);
    ctl_tick(r.p.w, 1);
    expect_one(&r, 0, D, A);
    pcs_world_destroy(r.p.w);
}

Test(alarm, d_to_b_when_the_condition_returns_before_ack)
{
    arig r;
    arig_one(&r, alarm("a", 0, PCS_ALARM_HIGH, 100.0));
    r.p.x[0] = 150.0;
    ctl_tick(r.p.w, 1);
    r.p.x[0] = 50.0;
    ctl_tick(r.p.w, 1);
    r.p.x[0] = 150.0;
    ctl_tick(r.p.w, 1);
    expect_one(&r, 0, D, B);
    pcs_world_destroy(r.p.w);
}

Test(alarm, acknowledge_with_nothing_to_acknowledge_is_accepted_and_silent)
{
    arig r;
    arig_one(&r, alarm("a", 0, PCS_ALARM_HIGH, 100.0));
    alarm_cmd(&r, PCS_ALARM_OP_ACK, 0, 0.0);
    ctl_tick(r.p.w, 1);
    expect_none(&r, 0);
    cr_assert_eq(ctl_events(r.p.w, PCS_EV_COMMAND_REJECTED, UINT32_MAX), 0);
    ctl_command_unknown(r.p.w, PCS_ALARM_COMMANDS, PCS_ALARM_OP_ACK); /* no such alarm */
    ctl_tick(r.p.w, 1);
    pcs_event e;
    cr_assert(ctl_event(r.p.w, PCS_EV_COMMAND_REJECTED,
                        ctl_kind(r.p.w, PCS_ALARM_COMMANDS, PCS_ALARM_OP_ACK), &e));
    cr_assert_eq(e.values[3], (double)PCS_E_NOTFOUND);
    pcs_world_destroy(r.p.w);
}

Test(alarm, acknowledge_all_takes_b_to_c_and_d_to_a)
{
    arig r;
    arig_sensors(&r);
    pcs_alarm_def c[3] = {alarm("a0", 0, PCS_ALARM_HIGH, 100.0),
                          alarm("a1", 1, PCS_ALARM_HIGH, 100.0),
                          alarm("a2", 2, PCS_ALARM_HIGH, 100.0)};
    arig_build(&r, c, 3);
    r.p.x[0] = r.p.x[1] = 150.0;
    ctl_tick(r.p.w, 1);
    r.p.x[1] = 0.0;
    ctl_tick(r.p.w, 1); /* a0 in B, a1 in D, a2 in A */
    alarm_cmd(&r, PCS_ALARM_OP_ACK_ALL, ALL, 0.0);
    ctl_tick(r.p.w, 1);
    expect_one(&r, 0, B, C);
    expect_one(&r, 1, D, A);
    expect_none(&r, 2);
    pcs_world_destroy(r.p.w);
}

Test(alarm, shelve_from_each_of_a_to_d_and_unshelve)
{
    /* Alarm i is brought to state A, B, C, D, then shelved and unshelved. */
    arig r;
    arig_sensors(&r);
    pcs_alarm_def c[4] = {
        alarm("a", 0, PCS_ALARM_HIGH, 100.0), alarm("b", 1, PCS_ALARM_HIGH, 100.0),
        alarm("c", 2, PCS_ALARM_HIGH, 100.0), alarm("d", 3, PCS_ALARM_HIGH, 100.0)};
    arig_build(&r, c, 4);
    r.p.x[1] = r.p.x[2] = r.p.x[3] = 150.0;
    ctl_tick(r.p.w, 1);
    alarm_cmd(&r, PCS_ALARM_OP_ACK, 2, 0.0);
    r.p.x[3] = 0.0;
    ctl_tick(r.p.w, 1);
    const uint32_t before[4] = {A, B, C, D};
    for (uint32_t i = 0; i < 4; i++)
        cr_assert_eq(pcs_alarm_state_of(r.a, i), before[i]);
    for (uint32_t i = 0; i < 4; i++)
        alarm_cmd(&r, PCS_ALARM_OP_SHELVE, i, 0.0);
    ctl_tick(r.p.w, 1);
    for (uint32_t i = 0; i < 4; i++)
        expect_one(&r, i, before[i], E);
    r.p.x[0] = 150.0; /* a's condition appears while shelved: no annunciation */
    ctl_tick(r.p.w, 100);
    cr_assert_eq(pcs_alarm_state_of(r.a, 0), E, "shelved without a time: until unshelved");
    cr_assert(pcs_alarm_flags(r.a, 0) & PCS_ALARM_FL_ACTIVE, "the condition is still tracked");
    alarm_cmd(&r, PCS_ALARM_OP_UNSHELVE, 0, 0.0);
    alarm_cmd(&r, PCS_ALARM_OP_UNSHELVE, 3, 0.0);
    ctl_tick(r.p.w, 1);
    uint32_t re[] = {E, A, A, B}; /* back to normal, then re-annunciated at once */
    expect_transitions(&r, 0, 2, re);
    expect_one(&r, 3, E, A);
    pcs_world_destroy(r.p.w);
}

Test(alarm, timed_shelf_ends_after_its_ticks_and_reannunciates)
{
    arig r;
    arig_one(&r, alarm("a", 0, PCS_ALARM_HIGH, 100.0));
    r.p.x[0] = 150.0;
    ctl_tick(r.p.w, 1);
    alarm_cmd(&r, PCS_ALARM_OP_SHELVE, 0, 0.25); /* 0.25 s = 5 ticks at 0.05 s */
    ctl_tick(r.p.w, 1);                          /* tick T: shelved */
    expect_one(&r, 0, B, E);
    ctl_tick(r.p.w, 4); /* T+1 .. T+4 */
    expect_none(&r, 0);
    cr_assert_eq(pcs_alarm_state_of(r.a, 0), E);
    ctl_tick(r.p.w, 1); /* T+5: the shelf ends, the condition is still present */
    uint32_t re[] = {E, A, A, B};
    expect_transitions(&r, 0, 2, re);
    pcs_world_destroy(r.p.w);
}

Test(alarm, suppression_by_design_follows_its_input)
{
    arig r;
    pcs_alarm_def c = alarm("u1.alarm.flow_low", 0, PCS_ALARM_LOW, 50.0);
    arig_sensors(&r);
    c.suppress_store = r.sup_store;
    c.suppress_index = 1;
    arig_build(&r, &c, 1);
    r.p.x[0] = 100.0;
    ctl_tick(r.p.w, 1);
    r.sup[1] = 1; /* e.g. the unit tripped: low flow is expected now */
    ctl_tick(r.p.w, 1);
    expect_one(&r, 0, A, F);
    r.p.x[0] = 0.0; /* flow falls while suppressed: silent */
    ctl_tick(r.p.w, 10);
    expect_none(&r, 0);
    cr_assert_eq(pcs_alarm_state_of(r.a, 0), F);
    r.sup[1] = 0;
    ctl_tick(r.p.w, 1);
    uint32_t re[] = {F, A, A, B};
    expect_transitions(&r, 0, 2, re);
    r.sup[1] = 1; /* from B, too */
    ctl_tick(r.p.w, 1);
    expect_one(&r, 0, B, F);
    r.p.x[0] = 100.0;
    r.sup[1] = 0;
    ctl_tick(r.p.w, 1);
    expect_one(&r, 0, F, A);
    pcs_world_destroy(r.p.w);
}

Test(alarm, shelving_takes_precedence_over_suppression)
{
    arig r;
    pcs_alarm_def c = alarm("a", 0, PCS_ALARM_HIGH, 100.0);
    arig_sensors(&r);
    c.suppress_store = r.sup_store;
    arig_build(&r, &c, 1);
    r.sup[0] = 1;
    ctl_tick(r.p.w, 1);
    expect_one(&r, 0, A, F);
    alarm_cmd(&r, PCS_ALARM_OP_SHELVE, 0, 0.0);
    ctl_tick(r.p.w, 1);
    expect_one(&r, 0, F, E);
    ctl_tick(r.p.w, 3);
    expect_none(&r, 0);
    alarm_cmd(&r, PCS_ALARM_OP_UNSHELVE, 0, 0.0);
    ctl_tick(r.p.w, 1);
    uint32_t re[] = {E, A, A, F}; /* unshelved by command, suppressed again at stage 11 */
    expect_transitions(&r, 0, 2, re);
    pcs_world_destroy(r.p.w);
}

Test(alarm, out_of_service_and_back)
{
    arig r;
    arig_one(&r, alarm("a", 0, PCS_ALARM_HIGH, 100.0));
    r.p.x[0] = 150.0;
    ctl_tick(r.p.w, 1);
    alarm_cmd(&r, PCS_ALARM_OP_OUT_OF_SERVICE, 0, 0.0);
    ctl_tick(r.p.w, 1);
    expect_one(&r, 0, B, G);
    alarm_cmd(&r, PCS_ALARM_OP_SHELVE, 0, 0.0);
    ctl_tick(r.p.w, 1);
    pcs_event e;
    cr_assert(ctl_event(r.p.w, PCS_EV_COMMAND_REJECTED,
                        ctl_kind(r.p.w, PCS_ALARM_COMMANDS, PCS_ALARM_OP_SHELVE), &e));
    cr_assert_eq(e.values[3], (double)PCS_E_STATE, "no shelving out of service");
    r.p.x[0] = 0.0;
    ctl_tick(r.p.w, 5);
    expect_none(&r, 0);
    cr_assert_eq(pcs_alarm_state_of(r.a, 0), G);
    alarm_cmd(&r, PCS_ALARM_OP_RETURN_TO_SERVICE, 0, 0.0);
    ctl_tick(r.p.w, 1);
    expect_one(&r, 0, G, A);
    pcs_world_destroy(r.p.w);
}

Test(alarm, bad_shelf_times_are_refused)
{
    arig r;
    arig_one(&r, alarm("a", 0, PCS_ALARM_HIGH, 100.0));
    alarm_cmd(&r, PCS_ALARM_OP_SHELVE, 0, -1.0);
    alarm_cmd(&r, PCS_ALARM_OP_SHELVE, 0, NAN);
    alarm_cmd(&r, PCS_ALARM_OP_SHELVE, 0, 2e8);
    ctl_tick(r.p.w, 1);
    cr_assert_eq(ctl_events(r.p.w, PCS_EV_COMMAND_REJECTED,
                            ctl_kind(r.p.w, PCS_ALARM_COMMANDS, PCS_ALARM_OP_SHELVE)),
                 3);
    cr_assert_eq(pcs_alarm_state_of(r.a, 0), A);
    pcs_world_destroy(r.p.w);
}

/* ---- deadband and delays ---------------------------------------------------------- */

Test(alarm, high_deadband_clears_only_below_setpoint_minus_deadband)
{
    arig r;
    pcs_alarm_def c = alarm("a", 0, PCS_ALARM_HIGH, 100.0);
    c.deadband = 5.0;
    arig_one(&r, c);
    const double v[] = {100.0, 97.0, 99.9, 95.01, 95.0, 99.0, 100.0};
    const uint32_t active[] = {1, 1, 1, 1, 0, 0, 1};
    for (uint32_t i = 0; i < 7; i++) {
        r.p.x[0] = v[i];
        ctl_tick(r.p.w, 1);
        cr_assert_eq(pcs_alarm_flags(r.a, 0) & PCS_ALARM_FL_ACTIVE, active[i], "v = %g", v[i]);
    }
    pcs_world_destroy(r.p.w);
}

Test(alarm, low_deadband_mirrors_it)
{
    arig r;
    pcs_alarm_def c = alarm("a", 0, PCS_ALARM_LOW, 20.0);
    c.deadband = 2.0;
    arig_one(&r, c);
    const double v[] = {21.0, 20.0, 21.9, 22.0, 20.5, 19.0};
    const uint32_t active[] = {0, 1, 1, 0, 0, 1};
    for (uint32_t i = 0; i < 6; i++) {
        r.p.x[0] = v[i];
        ctl_tick(r.p.w, 1);
        cr_assert_eq(pcs_alarm_flags(r.a, 0) & PCS_ALARM_FL_ACTIVE, active[i], "v = %g", v[i]);
    }
    pcs_world_destroy(r.p.w);
}

Test(alarm, on_delay_needs_the_condition_held)
{
    arig r;
    pcs_alarm_def c = alarm("a", 0, PCS_ALARM_HIGH, 100.0);
    c.on_delay_ticks = 3;
    arig_one(&r, c);
    /* In alarm on ticks 0,1 (a blip: reset), then 3,4,5,6: present at tick 6,
     * the 4th consecutive evaluation (on_delay + 1). */
    const double v[] = {150, 150, 0, 150, 150, 150, 150};
    const uint32_t state[] = {A, A, A, A, A, A, B};
    for (uint32_t i = 0; i < 7; i++) {
        r.p.x[0] = v[i];
        ctl_tick(r.p.w, 1);
        cr_assert_eq(pcs_alarm_state_of(r.a, 0), state[i], "tick %u", i);
    }
    pcs_world_destroy(r.p.w);
}

Test(alarm, off_delay_needs_the_clear_held)
{
    arig r;
    pcs_alarm_def c = alarm("a", 0, PCS_ALARM_HIGH, 100.0);
    c.off_delay_ticks = 2;
    arig_one(&r, c);
    const double v[] = {150, 0, 150, 0, 0, 0};
    const uint32_t state[] = {B, B, B, B, B, D};
    for (uint32_t i = 0; i < 6; i++) {
        r.p.x[0] = v[i];
        ctl_tick(r.p.w, 1);
        cr_assert_eq(pcs_alarm_state_of(r.a, 0), state[i], "tick %u", i);
    }
    pcs_world_destroy(r.p.w);
}

Test(alarm, nan_keeps_the_condition)
{
    arig r;
    arig_one(&r, alarm("a", 0, PCS_ALARM_HIGH, 100.0));
    r.p.x[0] = 150.0;
    ctl_tick(r.p.w, 1);
    r.p.x[0] = NAN;
    ctl_tick(r.p.w, 3);
    cr_assert_eq(pcs_alarm_state_of(r.a, 0), B);
    r.p.x[0] = 0.0;
    ctl_tick(r.p.w, 1);
    r.p.x[0] = NAN;
    ctl_tick(r.p.w, 3);
    cr_assert_eq(pcs_alarm_state_of(r.a, 0), D);
    pcs_world_destroy(r.p.w);
}

/* ---- first-out groups ----------------------------------------------------------------- */

Test(alarm, first_out_flags_the_first_alarm_of_its_group)
{
    arig r;
    arig_sensors(&r);
    pcs_alarm_def c[4] = {
        alarm("g0", 0, PCS_ALARM_HIGH, 100.0), alarm("g1", 1, PCS_ALARM_HIGH, 100.0),
        alarm("g2", 2, PCS_ALARM_HIGH, 100.0), alarm("other", 3, PCS_ALARM_HIGH, 100.0)};
    c[0].group = c[1].group = c[2].group = 7;
    arig_build(&r, c, 4);
    r.p.x[2] = 150.0;
    r.p.x[3] = 150.0;
    ctl_tick(r.p.w, 1);
    pcs_event e;
    cr_assert(ctl_event(r.p.w, PCS_EV_ALARM_FIRST_OUT, 2, &e));
    cr_assert_eq(e.values[0], 7.0, "group id");
    cr_assert_eq(ctl_events(r.p.w, PCS_EV_ALARM_FIRST_OUT, UINT32_MAX), 1, "ungrouped: none");
    cr_assert(pcs_alarm_flags(r.a, 2) & PCS_ALARM_FL_FIRST_OUT);
    r.p.x[0] = r.p.x[1] = 150.0;
    ctl_tick(r.p.w, 1);
    cr_assert_eq(pcs_alarm_flags(r.a, 0) & PCS_ALARM_FL_FIRST_OUT, 0, "later alarms are not");
    cr_assert_eq(ctl_events(r.p.w, PCS_EV_ALARM_FIRST_OUT, UINT32_MAX), 0);

    /* The flag stays while any group alarm is in B, C or D. */
    r.p.x[2] = 0.0;
    alarm_cmd(&r, PCS_ALARM_OP_ACK, 2, 0.0);
    ctl_tick(r.p.w, 1); /* g2: B -> C -> A */
    cr_assert_eq(pcs_alarm_state_of(r.a, 2), A);
    cr_assert(pcs_alarm_flags(r.a, 2) & PCS_ALARM_FL_FIRST_OUT);
    r.p.x[0] = r.p.x[1] = 0.0;
    alarm_cmd(&r, PCS_ALARM_OP_ACK_ALL, ALL, 0.0);
    ctl_tick(r.p.w, 1); /* g0, g1: B -> C -> A: the group is quiet */
    cr_assert(ctl_event(r.p.w, PCS_EV_ALARM_FIRST_OUT_CLEAR, 2, &e));
    cr_assert_eq(e.values[0], 7.0);
    cr_assert_eq(pcs_alarm_flags(r.a, 2) & PCS_ALARM_FL_FIRST_OUT, 0);

    /* Next upset: several on one tick -> the lowest id. */
    r.p.x[1] = r.p.x[0] = 150.0;
    ctl_tick(r.p.w, 1);
    cr_assert(ctl_event(r.p.w, PCS_EV_ALARM_FIRST_OUT, 0, NULL));
    cr_assert(pcs_alarm_flags(r.a, 0) & PCS_ALARM_FL_FIRST_OUT);
    cr_assert_eq(pcs_alarm_flags(r.a, 1) & PCS_ALARM_FL_FIRST_OUT, 0);
    pcs_world_destroy(r.p.w);
}

Test(alarm, states_and_flags_are_published)
{
    arig r;
    pcs_alarm_def c = alarm("u1.alarm.p_high", 0, PCS_ALARM_HIGH, 100.0);
    c.priority = PCS_ALARM_PRIO_URGENT;
    c.group = 1;
    arig_one(&r, c);
    r.p.x[0] = 200.0;
    ctl_tick(r.p.w, 1);
    uint32_t st, fl;
    cr_assert_eq(pcs_channel_find(r.p.w, "u1.alarm.p_high", &st), PCS_OK);
    cr_assert_eq(pcs_channel_find(r.p.w, "u1.alarm.p_high.flags", &fl), PCS_OK);
    cr_assert_eq(pcs_channel_value(r.p.w, st), (double)B);
    cr_assert_eq(pcs_channel_value(r.p.w, fl),
                 (double)(PCS_ALARM_FL_ACTIVE | PCS_ALARM_FL_FIRST_OUT |
                          (PCS_ALARM_PRIO_URGENT << PCS_ALARM_FL_PRIO_SHIFT)));
    uint32_t id;
    cr_assert_eq(pcs_alarm_find(r.a, "u1.alarm.p_high", &id), PCS_OK);
    cr_assert_eq(id, 0);
    cr_assert_eq(pcs_alarm_find(r.a, "nope", &id), PCS_E_NOTFOUND);
    cr_assert_eq(pcs_alarm_count(r.a), 1);
    pcs_world_destroy(r.p.w);
}

/* The bank's read list is sized from the world (issue 16; it took at most
 * 24 suppression stores): 40 alarms on v0, each suppressed by a store of its
 * own, build; suppressing the even ones keeps them silent (F) while the odd
 * ones annunciate (B) when v0 falls below the setpoint. */
Test(alarm_config, forty_suppression_stores_build_and_each_alarm_reads_its_own)
{
    enum { N = 40 };
    arig r;
    arig_sensors(&r);
    static pcs_alarm_def c[N];
    static char names[N][16];
    uint32_t *sup[N];
    for (uint32_t i = 0; i < N; i++) {
        char store[16];
        uint32_t id;
        snprintf(store, sizeof store, "test.sup%u", i);
        snprintf(names[i], sizeof names[i], "a%u", i);
        cr_assert_eq(pcs_store_register(r.p.w, store, sizeof(uint32_t), 1, PCS_STORE_STATE, &id),
                     PCS_OK);
        sup[i] = pcs_store_data(r.p.w, id);
        c[i] = alarm(names[i], 0, PCS_ALARM_LOW, 50.0);
        c[i].suppress_store = id;
    }
    arig_build(&r, c, N);
    r.p.x[0] = 100.0;
    ctl_tick(r.p.w, 1);
    for (uint32_t i = 0; i < N; i += 2)
        *sup[i] = 1;
    r.p.x[0] = 0.0;
    ctl_tick(r.p.w, 2);
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(pcs_alarm_state_of(r.a, i), i % 2 ? B : F, "alarm %u", i);
    pcs_world_destroy(r.p.w);
}
