/**
 * @file test_sensor.c
 * @brief Sensors: config validation, lag against the analytic step response,
 *        quantisation, range, noise statistics and streams, failure modes by
 *        command, determinism, save/load and zero allocation per tick.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "tests/alloc_count.h"
#include "tests/control_fixture.h"

static pcs_sensors *one_sensor(ctl_plant *p, pcs_sensor_def c)
{
    pcs_sensors *s = NULL;
    cr_assert_eq(pcs_sensor_add(p->w, &c, 1, &s), PCS_OK, "%s", pcs_last_error());
    return s;
}

/* ---- configuration ------------------------------------------------------ */

Test(sensor_config, defaults_are_documented_and_valid_once_named)
{
    ctl_plant p;
    ctl_plant_init(&p, 4, 1);
    pcs_sensor_def c;
    cr_assert_eq(pcs_sensor_default(&c), PCS_OK);
    cr_assert_null(c.name);
    cr_assert_eq(c.tau_s, 0.0);
    cr_assert_eq(c.noise_sd, 0.0);
    cr_assert_eq(c.quantum, 0.0);
    cr_assert_eq(c.lo, -1e300);
    cr_assert_eq(c.hi, 1e300);
    cr_assert_eq(pcs_sensor_def_validate(p.w, &c), PCS_E_INVAL, "a name is required");
    c = ctl_sensor(&p, "a.b", 3);
    cr_assert_eq(pcs_sensor_def_validate(p.w, &c), PCS_OK, "%s", pcs_last_error());
    pcs_world_destroy(p.w);
}

static void expect_bad(const ctl_plant *p, pcs_sensor_def c, const char *field, const char *value,
                       const char *range)
{
    cr_assert_eq(pcs_sensor_def_validate(p->w, &c), PCS_E_INVAL, "field %s", field);
    ctl_expect_message(field, value, range, NULL);
    pcs_sensors *s = (pcs_sensors *)0x1;
    cr_assert_eq(pcs_sensor_add(p->w, &c, 1, &s), PCS_E_INVAL);
    ctl_expect_message("sensor 0", field, NULL);
    cr_assert_eq(s, (pcs_sensors *)0x1, "out untouched on failure");
}

Test(sensor_config, each_bad_field_is_named_with_value_and_range)
{
    ctl_plant p;
    ctl_plant_init(&p, 4, 1);
    pcs_sensor_def d = ctl_sensor(&p, "t.s", 0), c;
    c = d, c.name = NULL, expect_bad(&p, c, "name", "0", "[1, 100]");
    c = d, c.unit = NULL, expect_bad(&p, c, "unit", "NULL", "\"\"");
    c = d, c.tau_s = -1.0, expect_bad(&p, c, "tau_s", "-1", "[0, 1e6]");
    c = d, c.tau_s = NAN, expect_bad(&p, c, "tau_s", "nan", "[0, 1e6]");
    c = d, c.noise_sd = -0.5, expect_bad(&p, c, "noise_sd", "-0.5", "[0, finite]");
    c = d, c.quantum = INFINITY, expect_bad(&p, c, "quantum", "inf", "[0, finite]");
    c = d, c.lo = NAN, expect_bad(&p, c, "lo", "nan", "below hi");
    c = d, c.lo = 5.0, c.hi = 5.0, expect_bad(&p, c, "hi", "5", "(lo = 5");
    c = d, c.store = 99, expect_bad(&p, c, "store", "99", "[0, 1)");
    c = d, c.index = 4, expect_bad(&p, c, "index", "4", "[0, 4)");
    pcs_world_destroy(p.w);
}

Test(sensor_config, bank_level_errors)
{
    ctl_plant p;
    ctl_plant_init(&p, 2, 1);
    pcs_sensor_def c[2] = {ctl_sensor(&p, "dup", 0), ctl_sensor(&p, "dup", 1)};
    pcs_sensors *s = NULL;
    cr_assert_eq(pcs_sensor_add(p.w, c, 0, &s), PCS_E_INVAL);
    ctl_expect_message("n = 0", NULL);
    cr_assert_eq(pcs_sensor_add(p.w, c, 2, &s), PCS_E_INVAL, "duplicate channel name");
    ctl_expect_message("dup", "already exists", NULL);
    pcs_world_destroy(p.w);

    ctl_plant_init(&p, 2, 1);
    c[1].name = "other";
    cr_assert_eq(pcs_sensor_add(p.w, c, 2, &s), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_sensor_add(p.w, c, 2, &s), PCS_E_STATE, "one bank per world");
    ctl_expect_message("already has a sensor bank", NULL);
    pcs_world_destroy(p.w);
}

/* The bank's read list is sized from the world (issue 16; it was capped at
 * 24 source stores): 300 sensors on 300 stores build, and each reads its own. */
Test(sensor_config, hundreds_of_source_stores_build_and_each_sensor_reads_its_own)
{
    ctl_plant p;
    ctl_plant_init(&p, 1, 1);
    enum { N = 300 };
    static pcs_sensor_def c[N];
    static char names[N][16];
    for (uint32_t i = 0; i < N; i++) {
        char store[16];
        snprintf(store, sizeof store, "src%u", i);
        snprintf(names[i], sizeof names[i], "s%u", i);
        c[i] = ctl_sensor(&p, names[i], 0);
        cr_assert_eq(pcs_store_register(p.w, store, 8, 1, PCS_STORE_STATE, &c[i].store), PCS_OK);
        *(double *)pcs_store_data(p.w, c[i].store) = 0.5 + i;
    }
    pcs_sensors *s = NULL;
    cr_assert_eq(pcs_sensor_add(p.w, c, N, &s), PCS_OK, "%s", pcs_last_error());
    ctl_tick(p.w, 1);
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(pcs_sensor_value(s, i), 0.5 + i, "sensor %u", i);
    pcs_world_destroy(p.w);
}

/* ---- the signal path ----------------------------------------------------- */

Test(sensor, first_sample_primes_the_lag)
{
    ctl_plant p;
    ctl_plant_init(&p, 1, 1);
    pcs_sensor_def c = ctl_sensor(&p, "x", 0);
    c.tau_s = 10.0;
    pcs_sensors *s = one_sensor(&p, c);
    cr_assert_eq(pcs_sensor_status(s, 0), 0, "not valid before the first sample");
    p.x[0] = 5.0;
    ctl_tick(p.w, 1);
    cr_assert_eq(pcs_sensor_value(s, 0), 5.0, "no start-up transient from 0");
    cr_assert_eq(pcs_sensor_status(s, 0), PCS_SENSOR_ST_VALID);
    pcs_world_destroy(p.w);
}

Test(sensor, lag_follows_the_exact_step_response)
{
    ctl_plant p;
    ctl_plant_init(&p, 1, 1);
    pcs_sensor_def c = ctl_sensor(&p, "x", 0);
    c.tau_s = 1.0;
    pcs_sensors *s = one_sensor(&p, c);
    ctl_tick(p.w, 1); /* primes at 0 */
    p.x[0] = 1.0;
    /* tau dy/dt = 1 - y, y(0) = 0: y(t) = 1 - exp(-t/tau). With the input
     * held over each step the discretisation is exact at the ticks. */
    for (uint32_t n = 1; n <= 60; n++) {
        ctl_tick(p.w, 1);
        double t = n * 0.05;
        cr_assert_float_eq(pcs_sensor_value(s, 0), 1.0 - exp(-t), 1e-14, "tick %u", n);
    }
    /* One time constant after the step (20 ticks): 1 - 1/e = 0.6321205588285577. */
    pcs_world_destroy(p.w);
    ctl_plant_init(&p, 1, 1);
    s = one_sensor(&p, c);
    ctl_tick(p.w, 1);
    p.x[0] = 1.0;
    ctl_tick(p.w, 20);
    cr_assert_float_eq(pcs_sensor_value(s, 0), 0.6321205588285577, 1e-14);
    pcs_world_destroy(p.w);
}

Test(sensor, zero_tau_passes_the_value_through)
{
    ctl_plant p;
    ctl_plant_init(&p, 1, 1);
    pcs_sensors *s = one_sensor(&p, ctl_sensor(&p, "x", 0));
    ctl_tick(p.w, 1);
    p.x[0] = 123.25;
    ctl_tick(p.w, 1);
    cr_assert_eq(pcs_sensor_value(s, 0), 123.25);
    pcs_world_destroy(p.w);
}

Test(sensor, zero_tau_is_exact_after_a_huge_jump)
{
    /* lag + (x - lag) would give 1e20 + (1 - 1e20) = 0 here; x + 0 (lag - x) is exact. */
    ctl_plant p;
    ctl_plant_init(&p, 1, 1);
    pcs_sensors *s = one_sensor(&p, ctl_sensor(&p, "x", 0));
    p.x[0] = 1e20;
    ctl_tick(p.w, 1);
    p.x[0] = 1.0;
    ctl_tick(p.w, 1);
    cr_assert_eq(pcs_sensor_value(s, 0), 1.0);
    pcs_world_destroy(p.w);
}

Test(sensor, nan_passes_through_and_the_lag_restarts_after_it)
{
    ctl_plant p;
    ctl_plant_init(&p, 1, 1);
    pcs_sensor_def c = ctl_sensor(&p, "x", 0);
    c.tau_s = 1.0;
    pcs_sensors *s = one_sensor(&p, c);
    p.x[0] = 2.0;
    ctl_tick(p.w, 1);
    p.x[0] = NAN;
    ctl_tick(p.w, 2);
    cr_assert(isnan(pcs_sensor_value(s, 0)));
    p.x[0] = 3.0;
    ctl_tick(p.w, 1);
    cr_assert_eq(pcs_sensor_value(s, 0), 3.0, "restarted at the first finite value");
    p.x[0] = 4.0;
    ctl_tick(p.w, 1);
    cr_assert_float_eq(pcs_sensor_value(s, 0), 4.0 - exp(-0.05), 1e-15, "and lags from there");
    pcs_world_destroy(p.w);
}

Test(sensor, quantisation_rounds_to_the_nearest_step)
{
    ctl_plant p;
    ctl_plant_init(&p, 1, 1);
    pcs_sensor_def c = ctl_sensor(&p, "x", 0);
    c.quantum = 0.5;
    pcs_sensors *s = one_sensor(&p, c);
    /* Ties go to the even multiple: 0.25 -> 0 (0.5 steps: 0.5 -> 0), 0.75 -> 1.0
     * (1.5 -> 2), -0.25 -> -0. */
    const double in[] = {1.26, 1.24, -0.74, 0.0, 2.75, 0.25, 0.75, -0.25};
    const double want[] = {1.5, 1.0, -0.5, 0.0, 3.0, 0.0, 1.0, 0.0};
    for (uint32_t i = 0; i < 8; i++) {
        p.x[0] = in[i];
        ctl_tick(p.w, 1);
        cr_assert_eq(pcs_sensor_value(s, 0), want[i], "%g -> %g", in[i], want[i]);
    }
    pcs_world_destroy(p.w);
}

Test(sensor, range_clamps_flags_and_reports_changes)
{
    ctl_plant p;
    ctl_plant_init(&p, 1, 1);
    pcs_sensor_def c = ctl_sensor(&p, "x", 0);
    c.lo = 0.0;
    c.hi = 10.0;
    pcs_sensors *s = one_sensor(&p, c);
    p.x[0] = 5.0;
    ctl_tick(p.w, 1);
    cr_assert_eq(pcs_sensor_value(s, 0), 5.0);
    cr_assert_eq(ctl_events(p.w, PCS_EV_SENSOR_RANGE, 0), 0);

    p.x[0] = 12.0;
    ctl_tick(p.w, 1);
    cr_assert_eq(pcs_sensor_value(s, 0), 10.0);
    cr_assert_eq(pcs_sensor_status(s, 0), PCS_SENSOR_ST_VALID | PCS_SENSOR_ST_OVER_RANGE);
    pcs_event e;
    cr_assert(ctl_event(p.w, PCS_EV_SENSOR_RANGE, 0, &e));
    cr_assert_eq(e.values[0], PCS_SENSOR_ST_OVER_RANGE);
    cr_assert_eq(e.values[2], 12.0, "unclamped value");
    cr_assert_eq(e.values[3], 10.0, "clamped value");

    ctl_tick(p.w, 1);
    cr_assert_eq(ctl_events(p.w, PCS_EV_SENSOR_RANGE, 0), 0, "only changes are reported");

    p.x[0] = -3.0;
    ctl_tick(p.w, 1);
    cr_assert_eq(pcs_sensor_value(s, 0), 0.0);
    cr_assert_eq(pcs_sensor_status(s, 0), PCS_SENSOR_ST_VALID | PCS_SENSOR_ST_UNDER_RANGE);
    cr_assert_eq(ctl_events(p.w, PCS_EV_SENSOR_RANGE, 0), 1);
    pcs_world_destroy(p.w);
}

Test(sensor, channels_are_published)
{
    ctl_plant p;
    ctl_plant_init(&p, 1, 1);
    pcs_sensor_def c = ctl_sensor(&p, "u1.loop1.flow.A", 0);
    c.unit = "kg/s";
    pcs_sensors *s = one_sensor(&p, c);
    p.x[0] = 4200.0;
    ctl_tick(p.w, 1);
    uint32_t v, st;
    cr_assert_eq(pcs_channel_find(p.w, "u1.loop1.flow.A", &v), PCS_OK);
    cr_assert_eq(pcs_channel_find(p.w, "u1.loop1.flow.A.status", &st), PCS_OK);
    cr_assert_eq(pcs_channel_value(p.w, v), 4200.0);
    cr_assert_eq(pcs_channel_value(p.w, st), (double)PCS_SENSOR_ST_VALID);
    pcs_channel_info info;
    cr_assert_eq(pcs_channel_get(p.w, v, &info), PCS_OK);
    cr_assert_str_eq(info.unit, "kg/s");
    uint32_t store, index;
    cr_assert_eq(pcs_sensor_value_ref(s, 0, &store, &index), PCS_OK);
    cr_assert_eq(store, info.store);
    cr_assert_eq(index, info.index);
    cr_assert_eq(pcs_sensor_value_ref(s, 1, &store, &index), PCS_E_NOTFOUND);
    uint32_t id;
    cr_assert_eq(pcs_sensor_find(s, "u1.loop1.flow.A", &id), PCS_OK);
    cr_assert_eq(id, 0);
    cr_assert_eq(pcs_sensor_find(s, "nope", &id), PCS_E_NOTFOUND);
    pcs_world_destroy(p.w);
}

/* ---- noise ---------------------------------------------------------------- */

Test(sensor, noise_has_the_configured_mean_and_deviation)
{
    ctl_plant p;
    ctl_plant_init(&p, 1, 7);
    pcs_sensor_def c = ctl_sensor(&p, "x", 0);
    c.noise_sd = 2.0;
    pcs_sensors *s = one_sensor(&p, c);
    p.x[0] = 100.0;
    const uint32_t n = 20000;
    double sum = 0.0, sq = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        ctl_tick(p.w, 1);
        double e = pcs_sensor_value(s, 0) - 100.0;
        sum += e;
        sq += e * e;
    }
    double mean = sum / n, sd = sqrt(sq / n - mean * mean);
    /* Five standard errors: sd/sqrt(n) for the mean, sd/sqrt(2n) for the sd. */
    cr_assert(fabs(mean) < 5.0 * 2.0 / sqrt(n), "mean error %g", mean);
    cr_assert(fabs(sd - 2.0) < 5.0 * 2.0 / sqrt(2.0 * n), "sd %g", sd);
    pcs_world_destroy(p.w);
}

static void noise_trace(uint64_t seed, uint32_t n_sensors, double *out, uint32_t ticks)
{
    ctl_plant p;
    ctl_plant_init(&p, 1, seed);
    pcs_sensor_def c[2] = {ctl_sensor(&p, "a", 0), ctl_sensor(&p, "b", 0)};
    c[0].noise_sd = c[1].noise_sd = 1.0;
    pcs_sensors *s = NULL;
    cr_assert_eq(pcs_sensor_add(p.w, c, n_sensors, &s), PCS_OK);
    for (uint32_t t = 0; t < ticks; t++) {
        ctl_tick(p.w, 1);
        out[2 * t] = pcs_sensor_value(s, 0);
        out[2 * t + 1] = n_sensors > 1 ? pcs_sensor_value(s, 1) : 0.0;
    }
    pcs_world_destroy(p.w);
}

Test(sensor, each_sensor_has_its_own_reproducible_stream)
{
    double a[200], b[200], c[200], one[200];
    noise_trace(3, 2, a, 100);
    noise_trace(3, 2, b, 100);
    noise_trace(4, 2, c, 100);
    noise_trace(3, 1, one, 100);
    uint32_t same_pair = 0, same_seed = 0;
    for (uint32_t t = 0; t < 100; t++) {
        cr_assert_eq(a[2 * t], b[2 * t], "same seed, same values");
        cr_assert_eq(a[2 * t], one[2 * t], "adding sensor 1 does not shift sensor 0's stream");
        same_pair += a[2 * t] == a[2 * t + 1];
        same_seed += a[2 * t] == c[2 * t];
    }
    cr_assert_eq(same_pair, 0, "two sensors draw from different streams");
    cr_assert_eq(same_seed, 0, "another world seed gives other noise");
}

/* ---- failure modes ------------------------------------------------------- */

Test(sensor, stuck_holds_the_value_until_cleared)
{
    ctl_plant p;
    ctl_plant_init(&p, 1, 1);
    pcs_sensors *s = one_sensor(&p, ctl_sensor(&p, "x", 0));
    p.x[0] = 3.0;
    ctl_tick(p.w, 1);
    ctl_sensor_command(p.w, PCS_SENSOR_OP_STUCK, 0, 0.0);
    p.x[0] = 9.0;
    ctl_tick(p.w, 1);
    pcs_event e;
    cr_assert(ctl_event(p.w, PCS_EV_SENSOR_MODE, 0, &e));
    cr_assert_eq(e.values[0], PCS_SENSOR_STUCK);
    cr_assert_eq(e.values[1], PCS_SENSOR_NORMAL);
    ctl_tick(p.w, 5);
    cr_assert_eq(pcs_sensor_value(s, 0), 3.0, "frozen while the plant moved to 9");
    cr_assert_eq(pcs_sensor_status(s, 0), PCS_SENSOR_ST_VALID | PCS_SENSOR_ST_FAILED |
                                              (PCS_SENSOR_STUCK << PCS_SENSOR_ST_MODE_SHIFT));
    ctl_sensor_command(p.w, PCS_SENSOR_OP_CLEAR, 0, 0.0);
    ctl_tick(p.w, 1);
    cr_assert_eq(pcs_sensor_value(s, 0), 9.0);
    cr_assert_eq(pcs_sensor_status(s, 0), PCS_SENSOR_ST_VALID);
    pcs_world_destroy(p.w);
}

Test(sensor, drift_adds_a_ramp_at_the_commanded_rate)
{
    ctl_plant p;
    ctl_plant_init(&p, 1, 1);
    pcs_sensors *s = one_sensor(&p, ctl_sensor(&p, "x", 0));
    p.x[0] = 10.0;
    ctl_sensor_command(p.w, PCS_SENSOR_OP_DRIFT, 0, 2.0); /* 2 units per second */
    ctl_tick(p.w, 10);
    /* 10 ticks of 0.05 s at 2 /s: offset 1.0. */
    cr_assert_float_eq(pcs_sensor_value(s, 0), 11.0, 1e-12);
    cr_assert_eq((pcs_sensor_status(s, 0) & PCS_SENSOR_ST_MODE_MASK) >> PCS_SENSOR_ST_MODE_SHIFT,
                 PCS_SENSOR_DRIFT);
    ctl_sensor_command(p.w, PCS_SENSOR_OP_CLEAR, 0, 0.0);
    ctl_tick(p.w, 1);
    cr_assert_eq(pcs_sensor_value(s, 0), 10.0, "clear removes the offset");
    pcs_world_destroy(p.w);
}

Test(sensor, fail_low_and_fail_high_drive_the_output_to_the_range_ends)
{
    ctl_plant p;
    ctl_plant_init(&p, 1, 1);
    pcs_sensor_def c = ctl_sensor(&p, "x", 0);
    c.lo = -5.0;
    c.hi = 50.0;
    pcs_sensors *s = one_sensor(&p, c);
    p.x[0] = 20.0;
    ctl_sensor_command(p.w, PCS_SENSOR_OP_FAIL_LOW, 0, 0.0);
    ctl_tick(p.w, 1);
    cr_assert_eq(pcs_sensor_value(s, 0), -5.0);
    uint32_t st = pcs_sensor_status(s, 0);
    cr_assert(st & PCS_SENSOR_ST_UNDER_RANGE);
    cr_assert(st & PCS_SENSOR_ST_FAILED);
    ctl_sensor_command(p.w, PCS_SENSOR_OP_FAIL_HIGH, 0, 0.0);
    ctl_tick(p.w, 1);
    cr_assert_eq(pcs_sensor_value(s, 0), 50.0);
    st = pcs_sensor_status(s, 0);
    cr_assert_eq(st & (PCS_SENSOR_ST_UNDER_RANGE | PCS_SENSOR_ST_OVER_RANGE),
                 PCS_SENSOR_ST_OVER_RANGE);
    cr_assert(ctl_event(p.w, PCS_EV_SENSOR_RANGE, 0, NULL), "range change reported");
    ctl_sensor_command(p.w, PCS_SENSOR_OP_CLEAR, 0, 0.0);
    ctl_tick(p.w, 1);
    cr_assert_eq(pcs_sensor_value(s, 0), 20.0);
    pcs_world_destroy(p.w);
}

Test(sensor, bad_commands_are_rejected)
{
    ctl_plant p;
    ctl_plant_init(&p, 1, 1);
    pcs_sensors *s = one_sensor(&p, ctl_sensor(&p, "x", 0));
    ctl_command_unknown(p.w, PCS_SENSOR_COMMANDS, PCS_SENSOR_OP_STUCK); /* no such sensor */
    ctl_sensor_command(p.w, PCS_SENSOR_OP_DRIFT, 0, NAN);               /* rate not finite */
    ctl_tick(p.w, 1);
    cr_assert_eq(ctl_events(p.w, PCS_EV_COMMAND_REJECTED, UINT32_MAX), 2);
    cr_assert_eq(pcs_sensor_status(s, 0), PCS_SENSOR_ST_VALID, "no mode was set");
    pcs_world_destroy(p.w);
}

/* ---- determinism, persistence, allocation -------------------------------- */

static pcs_sensors *noisy_bank(ctl_plant *p, uint64_t seed)
{
    ctl_plant_init(p, 8, seed);
    pcs_sensor_def c[8];
    static char names[8][8];
    for (uint32_t i = 0; i < 8; i++) {
        snprintf(names[i], sizeof names[i], "n%u", i);
        c[i] = ctl_sensor(p, names[i], i);
        c[i].noise_sd = 0.5;
        c[i].tau_s = 0.5;
        c[i].quantum = 0.01;
        p->x[i] = 10.0 * i;
    }
    pcs_sensors *s = NULL;
    cr_assert_eq(pcs_sensor_add(p->w, c, 8, &s), PCS_OK, "%s", pcs_last_error());
    return s;
}

Test(sensor, same_config_same_hash_with_noise_on)
{
    ctl_plant a, b, c;
    noisy_bank(&a, 9);
    noisy_bank(&b, 9);
    noisy_bank(&c, 10);
    ctl_sensor_command(a.w, PCS_SENSOR_OP_DRIFT, 3, 0.7);
    ctl_sensor_command(b.w, PCS_SENSOR_OP_DRIFT, 3, 0.7);
    ctl_sensor_command(c.w, PCS_SENSOR_OP_DRIFT, 3, 0.7);
    ctl_tick(a.w, 1000);
    ctl_tick(b.w, 1000);
    ctl_tick(c.w, 1000);
    cr_assert_eq(pcs_world_state_hash(a.w), pcs_world_state_hash(b.w));
    cr_assert_neq(pcs_world_state_hash(a.w), pcs_world_state_hash(c.w), "seed matters");
    pcs_world_destroy(a.w);
    pcs_world_destroy(b.w);
    pcs_world_destroy(c.w);
}

Test(sensor, save_and_load_resume_the_noise_streams)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/pcsim-sensor-%d.sav", (int)getpid());
    ctl_plant a, b;
    pcs_sensors *sa = noisy_bank(&a, 5);
    ctl_tick(a.w, 100);
    cr_assert_eq(pcs_world_save(a.w, path), PCS_OK, "%s", pcs_last_error());
    ctl_tick(a.w, 100);
    pcs_sensors *sb = noisy_bank(&b, 5);
    ctl_tick(b.w, 1); /* a different position in every stream... */
    cr_assert_eq(pcs_world_load(b.w, path), PCS_OK, "%s", pcs_last_error());
    ctl_tick(b.w, 100); /* ...until the load restores it */
    cr_assert_eq(pcs_world_state_hash(a.w), pcs_world_state_hash(b.w));
    for (uint32_t k = 0; k < 8; k++)
        cr_assert_eq(pcs_sensor_value(sa, k), pcs_sensor_value(sb, k));
    unlink(path);
    pcs_world_destroy(a.w);
    pcs_world_destroy(b.w);
}

Test(sensor, ten_thousand_ticks_allocate_nothing)
{
    ctl_plant p;
    noisy_bank(&p, 1);
    ctl_tick(p.w, 1); /* seal outside the measured window */
    uint64_t heap = pcs_world_alloc_count(p.w);
    pcs_test_alloc_begin();
    for (uint32_t t = 0; t < 10000; t++) {
        if (t % 1000 == 0)
            ctl_sensor_command(p.w, PCS_SENSOR_OP_FAIL_HIGH + (t / 1000) % 2, t % 8, 0.0);
        p.x[t % 8] = (double)(t % 17) * 10.0; /* range events, too */
        cr_assert_eq(pcs_world_tick(p.w), PCS_OK);
    }
    uint64_t mallocs = pcs_test_alloc_end();
    cr_assert_eq(mallocs, 0, "heap allocations during 10,000 ticks");
    cr_assert_eq(pcs_world_alloc_count(p.w), heap, "world-heap allocations during ticks");
    pcs_world_destroy(p.w);
}
