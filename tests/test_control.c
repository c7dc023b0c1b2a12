/**
 * @file test_control.c
 * @brief Sensors, protection and alarms together: a loss-of-flow sequence
 *        through 2oo4 logic to the unit, zero allocation over 10,000 ticks,
 *        determinism with noise on, and save/load of the whole chain.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "tests/alloc_count.h"
#include "tests/control_fixture.h"

/* Plant values: 0..3 loop flow A-D (kg/s), 4..7 neutron flux A-D (% power). */
#define NX 8
#define FLOW_NOMINAL 4000.0

typedef struct chain {
    ctl_plant p;
    pcs_sensors *s;
    pcs_protection *prot;
    pcs_alarms *a;
    uint32_t trip_store, trip_index;
} chain;

static void chain_build(chain *c, uint64_t seed, double noise)
{
    static const char *sn[NX] = {"u1.loop1.flow.A", "u1.loop1.flow.B", "u1.loop1.flow.C",
                                 "u1.loop1.flow.D", "u1.core.flux.A",  "u1.core.flux.B",
                                 "u1.core.flux.C",  "u1.core.flux.D"};
    ctl_plant_init(&c->p, NX, seed);
    pcs_sensor_def sc[NX];
    for (uint32_t i = 0; i < NX; i++) {
        sc[i] = ctl_sensor(&c->p, sn[i], i);
        int flow = i < 4;
        sc[i].unit = flow ? "kg/s" : "%";
        sc[i].tau_s = flow ? 0.5 : 0.1;
        sc[i].noise_sd = noise * (flow ? 10.0 : 0.2);
        sc[i].quantum = flow ? 1.0 : 0.01;
        sc[i].lo = 0.0;
        sc[i].hi = flow ? 6000.0 : 150.0;
        c->p.x[i] = flow ? FLOW_NOMINAL : 100.0;
    }
    cr_assert_eq(pcs_sensor_add(c->p.w, sc, NX, &c->s), PCS_OK, "%s", pcs_last_error());

    pcs_protection_function_def f[3];
    for (uint32_t k = 0; k < 3; k++) {
        pcs_protection_function_default(&f[k]);
        f[k].n_inputs = 4;
        f[k].k = 2;
    }
    f[0].name = "u1.rps.flow_low"; /* 90 % of nominal flow */
    f[0].direction = PCS_PROTECTION_TRIP_LOW;
    f[0].setpoint = 0.9 * FLOW_NOMINAL;
    f[1].name = "u1.rps.flux_high";
    f[1].setpoint = 109.0;
    f[2].name = "u1.rps.flux_rate";
    f[2].kind = PCS_PROTECTION_TRIP_RATE;
    f[2].setpoint = 5.0; /* % per second over 1 s */
    for (uint32_t i = 0; i < 4; i++) {
        f[0].inputs[i] = i;
        f[1].inputs[i] = f[2].inputs[i] = 4 + i;
    }
    pcs_protection_def pc;
    pcs_protection_default(&pc);
    pc.n_functions = 3;
    pc.functions = f;
    cr_assert_eq(pcs_protection_add(c->p.w, c->s, &pc, &c->prot), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_protection_trip_output(c->prot, 0, &c->trip_store, &c->trip_index), PCS_OK);

    /* Flow-low alarms (95 %) in first-out group 1; a flux-high alarm. The flow
     * alarms are meaningless after a trip: suppressed by the trip output. */
    static const char *an[5] = {"u1.alarm.flow_low.A", "u1.alarm.flow_low.B", "u1.alarm.flow_low.C",
                                "u1.alarm.flow_low.D", "u1.alarm.flux_high"};
    pcs_alarm_def ac[5];
    for (uint32_t i = 0; i < 5; i++) {
        pcs_alarm_default(&ac[i]);
        ac[i].name = an[i];
        ac[i].sensor = i < 4 ? i : 4;
        ac[i].direction = i < 4 ? PCS_ALARM_LOW : PCS_ALARM_HIGH;
        ac[i].setpoint = i < 4 ? 0.95 * FLOW_NOMINAL : 105.0;
        ac[i].deadband = i < 4 ? 20.0 : 0.5;
        ac[i].on_delay_ticks = 2;
        ac[i].group = i < 4 ? 1 : 0;
        ac[i].priority = i < 4 ? PCS_ALARM_PRIO_HIGH : PCS_ALARM_PRIO_MEDIUM;
        if (i < 4) {
            ac[i].suppress_store = c->trip_store;
            ac[i].suppress_index = c->trip_index;
        }
    }
    cr_assert_eq(pcs_alarm_add(c->p.w, c->s, ac, 5, &c->a), PCS_OK, "%s", pcs_last_error());
}

/* The stand-in reactor unit: at ACTUATORS it reads the trip output and
 * remembers the tick it first saw it. */
typedef struct unit {
    const uint32_t *trip;
    int64_t scram_tick;
} unit;

static pcs_status unit_actuators(pcs_world *w, void *ctx)
{
    unit *u = ctx;
    if (*u->trip && u->scram_tick < 0)
        u->scram_tick = (int64_t)pcs_world_clock(w)->tick;
    return PCS_OK;
}

static void add_unit(chain *c, unit *u)
{
    u->trip = (const uint32_t *)pcs_store_data(c->p.w, c->trip_store) + c->trip_index;
    u->scram_tick = -1;
    pcs_system_desc d = {.name = "u1.unit",
                         .stage = PCS_STAGE_ACTUATORS,
                         .fn = unit_actuators,
                         .ctx = u,
                         .reads = &c->trip_store,
                         .n_reads = 1};
    cr_assert_eq(pcs_system_register(c->p.w, &d, NULL), PCS_OK, "%s", pcs_last_error());
}

Test(control, loss_of_flow_trips_2oo4_with_first_out_alarms_and_suppression)
{
    chain c;
    chain_build(&c, 1, 1.0);
    unit u;
    add_unit(&c, &u);
    ctl_tick(c.p.w, 40);
    cr_assert_eq(pcs_protection_tripped(c.prot, 0), 0, "steady plant with noise: no trip");
    for (uint32_t i = 0; i < 5; i++)
        cr_assert_eq(pcs_alarm_state_of(c.a, i), PCS_ALARM_NORMAL);

    /* Pump trip: loop flow coasts down as w(t) = w0 / (1 + t / tau), tau = 2 s. */
    int64_t trip_tick = -1, first_alarm_tick = -1;
    uint32_t first_alarm = UINT32_MAX;
    for (uint32_t n = 1; n <= 200 && trip_tick < 0; n++) {
        double t = n * 0.05;
        for (uint32_t i = 0; i < 4; i++)
            c.p.x[i] = FLOW_NOMINAL / (1.0 + t / 2.0);
        ctl_tick(c.p.w, 1);
        pcs_event e;
        if (first_alarm_tick < 0 && ctl_event(c.p.w, PCS_EV_ALARM_FIRST_OUT, UINT32_MAX, &e)) {
            first_alarm_tick = (int64_t)e.tick;
            first_alarm = e.subject;
        }
        if (ctl_event(c.p.w, PCS_EV_UNIT_TRIP, 0, &e)) {
            trip_tick = (int64_t)e.tick;
            cr_assert_eq(e.values[0], 0.0, "first-out: flow_low");
        }
    }
    cr_assert_geq(trip_tick, 0, "the unit tripped");
    cr_assert_geq(first_alarm_tick, 0, "the flow-low alarm came first");
    cr_assert_lt(first_alarm_tick, trip_tick, "alarm at 95 %% before the trip at 90 %%");
    cr_assert_lt(first_alarm, 4u, "a flow alarm is the group's first-out");
    cr_assert_eq(pcs_protection_first_out(c.prot, 0), 0);
    uint32_t id;
    cr_assert_eq(pcs_channel_find(c.p.w, "u1.rps.first_out", &id), PCS_OK);
    cr_assert_eq(pcs_channel_value(c.p.w, id), 1.0);

    /* Flow reaches 90 % at t = 2 s * (1/0.9 - 1) = 0.222 s; the 0.5 s sensor
     * lag and noise delay the trip, but not by more than about two lag time
     * constants. */
    double t_trip = (double)(trip_tick - 40) * 0.05;
    cr_assert(t_trip > 0.22 && t_trip < 1.5, "trip %.2f s after the pump trip", t_trip);

    ctl_tick(c.p.w, 1);
    cr_assert_eq(u.scram_tick, trip_tick + 1, "the unit acts one tick after the decision");
    for (uint32_t i = 0; i < 4; i++)
        cr_assert_eq(pcs_alarm_state_of(c.a, i), PCS_ALARM_SUPPRESSED,
                     "flow alarm %u suppressed by design after the trip", i);
    pcs_world_destroy(c.p.w);
}

/* Drive the plant through upsets, failures and operator actions. */
static void drive(chain *c, uint32_t from, uint32_t to)
{
    for (uint32_t t = from; t < to; t++) {
        double phase = 0.01 * t;
        for (uint32_t i = 0; i < 4; i++) {
            c->p.x[i] = FLOW_NOMINAL * (0.93 + 0.08 * sin(phase + i));
            c->p.x[4 + i] = 100.0 + 12.0 * sin(0.5 * phase + i);
        }
        if (t % 97 == 0)
            ctl_command(c->p.w, PCS_ALARM_COMMANDS, PCS_ALARM_OP_ACK_ALL, "alarms", 0.0);
        if (t % 500 == 250)
            ctl_command(c->p.w, PCS_PROTECTION_TRIP_COMMANDS, PCS_PROTECTION_TRIP_OP_RESET, "u1", 0.0);
        if (t % 1000 == 100)
            ctl_sensor_command(c->p.w, PCS_SENSOR_OP_FAIL_HIGH, (t / 1000) % 8, 0.0);
        if (t % 1000 == 600)
            ctl_sensor_command(c->p.w, PCS_SENSOR_OP_CLEAR, (t / 1000) % 8, 0.0);
        if (t % 700 == 3)
            ctl_command(c->p.w, PCS_ALARM_COMMANDS, PCS_ALARM_OP_SHELVE, pcs_alarm_name(c->a, 4),
                        2.0);
        cr_assert_eq(pcs_world_tick(c->p.w), PCS_OK, "%s", pcs_last_error());
    }
}

Test(control, ten_thousand_ticks_allocate_nothing)
{
    chain c;
    chain_build(&c, 3, 1.0);
    drive(&c, 0, 1); /* seals the world */
    uint64_t heap = pcs_world_alloc_count(c.p.w);
    pcs_test_alloc_begin();
    drive(&c, 1, 10001);
    uint64_t mallocs = pcs_test_alloc_end();
    cr_assert_eq(mallocs, 0, "heap allocations during 10,000 ticks");
    cr_assert_eq(pcs_world_alloc_count(c.p.w), heap, "world-heap allocations during ticks");
    pcs_command_stats cs;
    pcs_command_stats_get(c.p.w, &cs);
    cr_assert_gt(cs.applied, 100, "the drive really exercised the commands");
    pcs_world_destroy(c.p.w);
}

/* Hash and event count after @p ticks of the drive. */
static uint64_t run_hash(uint64_t seed, uint32_t ticks, uint64_t *events)
{
    chain c;
    chain_build(&c, seed, 1.0);
    *events = 0;
    for (uint32_t t = 0; t < ticks; t++) {
        drive(&c, t, t + 1);
        uint32_t n;
        pcs_world_events(c.p.w, &n);
        *events += n;
    }
    uint64_t h = pcs_world_state_hash(c.p.w);
    pcs_world_destroy(c.p.w);
    return h;
}

Test(control, same_config_and_seed_same_hash_with_noise_on)
{
    uint64_t e1, e2, e3;
    uint64_t h1 = run_hash(11, 3000, &e1);
    uint64_t h2 = run_hash(11, 3000, &e2);
    uint64_t h3 = run_hash(12, 3000, &e3);
    cr_assert_eq(h1, h2);
    cr_assert_eq(e1, e2, "same events");
    cr_assert_gt(e1, 20, "the run had alarms and trips to compare (%llu events)",
                 (unsigned long long)e1);
    cr_assert_neq(h1, h3, "another seed, other noise");
}

Test(control, save_and_load_resume_the_whole_chain)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/pcsim-control-%d.sav", (int)getpid());
    chain a, b;
    chain_build(&a, 5, 1.0);
    drive(&a, 0, 1234);
    cr_assert_eq(pcs_world_save(a.p.w, path), PCS_OK, "%s", pcs_last_error());
    drive(&a, 1234, 2500);
    chain_build(&b, 5, 1.0);
    drive(&b, 0, 17); /* different state everywhere until the load */
    cr_assert_eq(pcs_world_load(b.p.w, path), PCS_OK, "%s", pcs_last_error());
    /* The plant store is restored too; the drive writes it before each tick. */
    drive(&b, 1234, 2500);
    cr_assert_eq(pcs_world_state_hash(a.p.w), pcs_world_state_hash(b.p.w));
    unlink(path);
    pcs_world_destroy(a.p.w);
    pcs_world_destroy(b.p.w);
}
