/**
 * @file control_bench.c
 * @brief Plant-control benchmarks (issue 7): 400 sensor channels and 500 alarms per tick.
 *
 * One operation is one pcs_world_tick of a world that holds only the part
 * under test and its inputs. The part's cost is that tick minus the tick of
 * the same world without it, so every case names its subtraction baseline
 * (the harness prints the ratio; bench/README.md gives the differences):
 *   control.plant_only      the 500-double plant store alone (baseline);
 *   control.sensors_400     + 400 sensors (lag 0.5 s, 0.01 quantum, range)
 *                           reading the plant store, param noise=1 (Gaussian
 *                           noise, sd 0.2) and noise=0 (the same without);
 *                           baseline control.plant_only;
 *   control.sensors_500     + 500 plain sensors (baseline of the alarms);
 *   control.alarms_500      + 500 alarms on those sensors (HIGH/LOW, deadband,
 *                           on/off delays of 2 ticks, 4 priorities, 10
 *                           first-out groups, 1 in 25 standing in alarm,
 *                           acknowledged); baseline control.sensors_500.
 * Goals (issue 7): 400 sensors <= 2 us (seed 10 us), 500 alarms <= 3 us
 * (seed 15 us), 0 bytes allocated per tick (B/op, allocs/op and world/op
 * columns; the unit tests check it too).
 */
#include <stdbool.h>
#include <stdio.h>

#include "bench/bench.h"
#include "pcsim/pcsim.h"

/** Sizes of the benchmarks (issue 7). */
#define CONTROL_BENCH_SENSORS 400u
#define CONTROL_BENCH_ALARMS 500u

/** What a benchmark world holds. */
typedef enum control_bench_kind {
    CONTROL_BENCH_PLANT = 0,         /**< the plant store only (baseline) */
    CONTROL_BENCH_SENSORS_NOISY = 1, /**< + 400 sensors with noise */
    CONTROL_BENCH_SENSORS_QUIET = 2, /**< + 400 sensors without noise */
    CONTROL_BENCH_PLAIN_SENSORS = 3, /**< + 500 plain sensors (alarm baseline) */
    CONTROL_BENCH_ALARMS_ON = 4,     /**< + 500 plain sensors + 500 alarms */
} control_bench_kind;

static pcs_status add_sensors(pcs_world *w, uint32_t store, control_bench_kind kind,
                              pcs_sensors **out)
{
    static char names[CONTROL_BENCH_ALARMS][24];
    static pcs_sensor_def c[CONTROL_BENCH_ALARMS];
    uint32_t n = kind <= CONTROL_BENCH_SENSORS_QUIET ? CONTROL_BENCH_SENSORS : CONTROL_BENCH_ALARMS;
    for (uint32_t i = 0; i < n; i++) {
        pcs_sensor_default(&c[i]);
        snprintf(names[i], sizeof names[i], "u1.bench.s%u", i);
        c[i].name = names[i];
        c[i].unit = "Pa";
        c[i].store = store;
        c[i].index = i;
        if (kind <= CONTROL_BENCH_SENSORS_QUIET) {
            c[i].tau_s = 0.5;
            c[i].noise_sd = kind == CONTROL_BENCH_SENSORS_NOISY ? 0.2 : 0.0;
            c[i].quantum = 0.01;
            c[i].lo = 0.0;
            c[i].hi = 1000.0;
        }
    }
    return pcs_sensor_add(w, c, n, out);
}

static pcs_status add_alarms(pcs_world *w, const pcs_sensors *s, double *x)
{
    static char names[CONTROL_BENCH_ALARMS][24];
    static pcs_alarm_def c[CONTROL_BENCH_ALARMS];
    for (uint32_t i = 0; i < CONTROL_BENCH_ALARMS; i++) {
        pcs_alarm_default(&c[i]);
        snprintf(names[i], sizeof names[i], "u1.bench.a%u", i);
        c[i].name = names[i];
        c[i].sensor = i;
        c[i].direction = i % 2 ? PCS_ALARM_HIGH : PCS_ALARM_LOW;
        c[i].setpoint = i % 2 ? 150.0 : 50.0;
        c[i].deadband = 1.0;
        c[i].on_delay_ticks = 2;
        c[i].off_delay_ticks = 2;
        c[i].priority = 1 + i % 4;
        c[i].group = i % 10;
        if (i % 25 == 0)
            x[i] = i % 2 ? 200.0 : 0.0; /* standing alarm */
    }
    pcs_alarms *a;
    return pcs_alarm_add(w, s, c, CONTROL_BENCH_ALARMS, &a);
}

/* Settle: 100 ticks, then acknowledge the standing alarms. */
static pcs_status warm_up(pcs_world *w)
{
    pcs_status st = PCS_OK;
    for (int i = 0; st == PCS_OK && i < 100; i++)
        st = pcs_world_tick(w);
    pcs_command ack = {0};
    pcs_target_id bank;
    if (st == PCS_OK &&
        pcs_command_kind_find(w, PCS_ALARM_COMMANDS, PCS_ALARM_OP_ACK_ALL, &ack.kind) == PCS_OK &&
        pcs_command_target_find(w, "alarms", &bank) == PCS_OK) { /* without alarms: nothing */
        ack.target = pcs_target_id_store(bank);
        st = pcs_command_submit(w, &ack);
    }
    pcs_error_clear();
    return st == PCS_OK ? pcs_world_tick(w) : st;
}

/**
 * A sealed, warmed-up world for @p kind; its tick is the operation to time.
 * NULL on failure (pcs_last_error() says why). Destroy with pcs_world_destroy.
 */
static pcs_world *control_bench_world(control_bench_kind kind)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.workers = 0;
    pcs_world *w = NULL;
    if (pcs_world_create(&cfg, &w) != PCS_OK)
        return NULL;
    uint32_t store;
    pcs_status st = pcs_store_register(w, "plant.x", sizeof(double), CONTROL_BENCH_ALARMS,
                                       PCS_STORE_STATE, &store);
    double *x = st == PCS_OK ? pcs_store_data(w, store) : NULL;
    for (uint32_t i = 0; x && i < CONTROL_BENCH_ALARMS; i++)
        x[i] = 100.0 + (double)(i % 7);
    pcs_sensors *s = NULL;
    if (st == PCS_OK && kind != CONTROL_BENCH_PLANT)
        st = add_sensors(w, store, kind, &s);
    if (st == PCS_OK && kind == CONTROL_BENCH_ALARMS_ON)
        st = add_alarms(w, s, x);
    if (st == PCS_OK)
        st = warm_up(w);
    if (st != PCS_OK) {
        pcs_world_destroy(w);
        return NULL;
    }
    return w;
}

/* ---- harness glue ----------------------------------------------------------------- */

static void *control_setup(control_bench_kind kind, const char *what)
{
    pcs_world *w = control_bench_world(kind);
    if (!w)
        fprintf(stderr, "control.%s: %s\n", what, pcs_last_error());
    return w;
}

static void *plant_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    return control_setup(CONTROL_BENCH_PLANT, "plant_only");
}

static void *sensors_400_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)info;
    bool noise = pcs_bench_param_int(p, "noise", 1) != 0;
    return control_setup(noise ? CONTROL_BENCH_SENSORS_NOISY : CONTROL_BENCH_SENSORS_QUIET,
                         "sensors_400");
}

static void *sensors_500_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    return control_setup(CONTROL_BENCH_PLAIN_SENSORS, "sensors_500");
}

static void *alarms_500_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    return control_setup(CONTROL_BENCH_ALARMS_ON, "alarms_500");
}

static void control_teardown(void *ctx)
{
    pcs_world_destroy(ctx);
}

static void control_run(void *ctx, uint64_t n)
{
    pcs_world *w = ctx;
    for (uint64_t i = 0; i < n; i++)
        pcs_bench_consume_u64((uint64_t)pcs_world_tick(w));
}

static uint64_t control_world_allocs(void *ctx)
{
    return pcs_world_alloc_count(ctx);
}

static const pcs_bench_def control_plant_only = {
    .group = "control",
    .name = "plant_only",
    .description = "one tick of the 500-double plant store alone (subtraction baseline)",
    .modes = PCS_BENCH_AVGT | PCS_BENCH_SAMPLE,
    .setup = plant_setup,
    .teardown = control_teardown,
    .run = control_run,
    .world_allocs = control_world_allocs,
};
PCS_BENCH_REGISTER(control_plant_only)

static const pcs_bench_def control_sensors_400 = {
    .group = "control",
    .name = "sensors_400",
    .description = "one tick with 400 sensors (lag, quantum, range; noise=1 adds Gaussian noise)",
    .params = {{"noise", "1,0"}},
    .modes = PCS_BENCH_AVGT | PCS_BENCH_SAMPLE,
    .baseline = "control.plant_only",
    .setup = sensors_400_setup,
    .teardown = control_teardown,
    .run = control_run,
    .world_allocs = control_world_allocs,
};
PCS_BENCH_REGISTER(control_sensors_400)

static const pcs_bench_def control_sensors_500 = {
    .group = "control",
    .name = "sensors_500",
    .description = "one tick with 500 plain sensors (subtraction baseline of the alarms)",
    .modes = PCS_BENCH_AVGT | PCS_BENCH_SAMPLE,
    .setup = sensors_500_setup,
    .teardown = control_teardown,
    .run = control_run,
    .world_allocs = control_world_allocs,
};
PCS_BENCH_REGISTER(control_sensors_500)

static const pcs_bench_def control_alarms_500 = {
    .group = "control",
    .name = "alarms_500",
    .description = "one tick with 500 alarms on 500 plain sensors",
    .modes = PCS_BENCH_AVGT | PCS_BENCH_SAMPLE,
    .baseline = "control.sensors_500",
    .setup = alarms_500_setup,
    .teardown = control_teardown,
    .run = control_run,
    .world_allocs = control_world_allocs,
};
PCS_BENCH_REGISTER(control_alarms_500)
