/**
 * @file control_bench.c
 * @brief Plant-control benchmarks: 400 sensor channels and 500 alarms per tick.
 *
 * The operation timed is one pcs_world_tick of a world that holds only the
 * part under test and its inputs; the cost of the part is that tick minus the
 * tick of the same world without it:
 *   sensors  400 sensors (lag 0.5 s, Gaussian noise, 0.01 quantum, range)
 *            reading a 400-double plant store, minus the plant store alone;
 *            also with the noise off;
 *   alarms   500 alarms (HIGH/LOW, deadband, on/off delays of 2 ticks, 10
 *            first-out groups, 1 in 25 standing in alarm, acknowledged) on
 *            500 plain sensors, minus the 500 sensors alone.
 * Targets (issue 7): 400 sensors <= 2 us (seed 10 us), 500 alarms <= 3 us
 * (seed 15 us), 0 bytes allocated per tick (a unit test proves that).
 *
 * The world builders below are what the shared JMH-style harness
 * (bench/bench.h) should time once it is on main. Until then, this file
 * carries a small loop of its own behind PCS_CONTROL_BENCH_STANDALONE: batches
 * of ticks timed with CLOCK_MONOTONIC, min and median over the batches. Build:
 *   make lib && cc -O2 -std=c17 -D_GNU_SOURCE -Iinclude \
 *     -DPCS_CONTROL_BENCH_STANDALONE bench/control_bench.c build/libpcsim.a \
 *     -fopenmp -lmimalloc -lck -lxxhash -lhwloc -ljansson -lklu -lm -lpthread \
 *     -o build/bench-control
 */
#include <stdio.h>
#include <stdlib.h>

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

pcs_world *control_bench_world(control_bench_kind kind);

static pcs_status add_sensors(pcs_world *w, uint32_t store, control_bench_kind kind,
                              pcs_sensors **out)
{
    static char names[CONTROL_BENCH_ALARMS][24];
    static pcs_sensor_config c[CONTROL_BENCH_ALARMS];
    uint32_t n = kind <= CONTROL_BENCH_SENSORS_QUIET ? CONTROL_BENCH_SENSORS : CONTROL_BENCH_ALARMS;
    for (uint32_t i = 0; i < n; i++) {
        pcs_sensor_config_default(&c[i]);
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
    return pcs_sensors_create(w, c, n, out);
}

static pcs_status add_alarms(pcs_world *w, const pcs_sensors *s, double *x)
{
    static char names[CONTROL_BENCH_ALARMS][24];
    static pcs_alarm_config c[CONTROL_BENCH_ALARMS];
    for (uint32_t i = 0; i < CONTROL_BENCH_ALARMS; i++) {
        pcs_alarm_config_default(&c[i]);
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
    return pcs_alarms_create(w, s, c, CONTROL_BENCH_ALARMS, &a);
}

/* Settle: 100 ticks, then acknowledge the standing alarms. */
static pcs_status warm_up(pcs_world *w)
{
    pcs_status st = PCS_OK;
    for (int i = 0; st == PCS_OK && i < 100; i++)
        st = pcs_world_tick(w);
    pcs_command ack = {.kind = PCS_CMD_ALARM_ACK_ALL};
    if (st == PCS_OK)
        st = pcs_command_submit(w, &ack); /* without alarms: rejected at the tick, harmless */
    return st == PCS_OK ? pcs_world_tick(w) : st;
}

/**
 * A sealed, warmed-up world for @p kind; its tick is the operation to time.
 * NULL on failure (pcs_last_error() says why). Destroy with pcs_world_destroy.
 */
pcs_world *control_bench_world(control_bench_kind kind)
{
    pcs_world_config cfg;
    pcs_world_config_default(&cfg);
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

#ifdef PCS_CONTROL_BENCH_STANDALONE
#include <time.h>

enum { BATCH = 20000, BATCHES = 25 };

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ns per tick of @p kind: min and median over BATCHES batches of BATCH ticks. */
static void time_ticks(control_bench_kind kind, double *min_ns, double *median_ns)
{
    pcs_world *w = control_bench_world(kind);
    if (!w) {
        fprintf(stderr, "control_bench: %s\n", pcs_last_error());
        exit(1);
    }
    double t[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now_s();
        for (int i = 0; i < BATCH; i++)
            pcs_world_tick(w);
        t[b] = (now_s() - t0) / BATCH * 1e9;
    }
    qsort(t, BATCHES, sizeof t[0], cmp_double);
    *min_ns = t[0];
    *median_ns = t[BATCHES / 2];
    pcs_world_destroy(w);
}

int main(void)
{
    double m[5], md[5];
    for (int k = 0; k < 5; k++)
        time_ticks((control_bench_kind)k, &m[k], &md[k]);
    printf("| benchmark | min ns/tick | median ns/tick |\n|---|---:|---:|\n");
    printf("| 400 sensors, lag + noise + quantum + range | %.0f | %.0f |\n", m[1] - m[0],
           md[1] - md[0]);
    printf("| 400 sensors, lag + quantum + range (no noise) | %.0f | %.0f |\n", m[2] - m[0],
           md[2] - md[0]);
    printf("| 500 alarms | %.0f | %.0f |\n", m[4] - m[3], md[4] - md[3]);
    printf("| (baseline: plant store only, whole tick) | %.0f | %.0f |\n", m[0], md[0]);
    return 0;
}
#endif
