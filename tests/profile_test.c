/**
 * @file profile_test.c
 * @brief Stage timers and the trace writer, through the public API (pcsim/profile.h).
 *
 * Timing values are never asserted (they belong to benchmarks); the tests check
 * counts, invariants (ordering of percentiles, stage times adding up exactly to
 * the tick time, spans nested in their tick) and that the trace file is valid
 * JSON with the spans it must hold (parsed with jansson).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pcsim/pcsim.h"

typedef struct prof_fixture {
    pcs_world *w;
    uint32_t store;
    int fail_at_tick; /* heat system fails on this tick (-1: never) */
} prof_fixture;

static pcs_status prof_kinetics(pcs_world *w, void *ctx)
{
    prof_fixture *f = ctx;
    double *x = pcs_store_data(w, f->store);
    for (int i = 0; i < 64; i++)
        x[i] = x[i] * 0.5 + 1.0;
    return PCS_OK;
}

static pcs_status prof_heat(pcs_world *w, void *ctx)
{
    prof_fixture *f = ctx;
    if (f->fail_at_tick >= 0 && pcs_world_clock(w)->tick == (uint64_t)f->fail_at_tick) {
        f->fail_at_tick = -1; /* fail once; the retry of the tick succeeds */
        return pcs_error_set(PCS_E_INVAL, "prof_heat: deliberate failure");
    }
    return PCS_OK;
}

static void prof_world(prof_fixture *f)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cr_assert_eq(pcs_world_create(&cfg, &f->w), PCS_OK);
    cr_assert_eq(pcs_store_register(f->w, "prof.x", sizeof(double), 64, PCS_STORE_STATE, &f->store),
                 PCS_OK);
    pcs_system_desc k = {.name = "prof.kinetics",
                         .stage = PCS_STAGE_KINETICS,
                         .fn = prof_kinetics,
                         .ctx = f,
                         .writes = &f->store,
                         .n_writes = 1};
    pcs_system_desc h = {.name = "prof.heat", .stage = PCS_STAGE_HEAT, .fn = prof_heat, .ctx = f};
    cr_assert_eq(pcs_system_register(f->w, &k, NULL), PCS_OK);
    cr_assert_eq(pcs_system_register(f->w, &h, NULL), PCS_OK);
}

Test(profile_stats, every_stage_counted_once_per_tick)
{
    prof_fixture f = {.fail_at_tick = -1};
    prof_world(&f);
    pcs_profile *p = NULL;
    cr_assert_eq(pcs_profile_attach(f.w, &p), PCS_OK);
    for (int i = 0; i < 50; i++)
        cr_assert_eq(pcs_world_tick(f.w), PCS_OK);
    uint64_t stage_sum = 0;
    for (int s = 0; s < PCS_STAGE_COUNT; s++) {
        pcs_profile_stats st;
        cr_assert_eq(pcs_profile_stage_stats(p, (pcs_stage)s, &st), PCS_OK);
        cr_assert_eq(st.count, 50, "stage %s", pcs_stage_name((pcs_stage)s));
        cr_assert_leq(st.min_ns, st.p50_ns);
        cr_assert_leq(st.p50_ns, st.p95_ns);
        cr_assert_leq(st.p95_ns, st.p99_ns);
        cr_assert_leq(st.p99_ns, st.max_ns);
        cr_assert(st.mean_ns >= (double)st.min_ns && st.mean_ns <= (double)st.max_ns);
        stage_sum += st.total_ns;
    }
    pcs_profile_stats tick;
    cr_assert_eq(pcs_profile_tick_stats(p, &tick), PCS_OK);
    cr_assert_eq(tick.count, 50);
    /* A stage's end is the next stage's start: stage times add up exactly. */
    cr_assert_eq(tick.total_ns, stage_sum);
    pcs_profile_detach(p);
    pcs_world_destroy(f.w);
}

Test(profile_stats, reset_forgets_and_detach_stops_observing)
{
    prof_fixture f = {.fail_at_tick = -1};
    prof_world(&f);
    pcs_profile *p = NULL;
    cr_assert_eq(pcs_profile_attach(f.w, &p), PCS_OK);
    cr_assert_eq(pcs_world_tick(f.w), PCS_OK);
    pcs_profile_reset(p);
    pcs_profile_stats st;
    cr_assert_eq(pcs_profile_tick_stats(p, &st), PCS_OK);
    cr_assert_eq(st.count, 0);
    cr_assert_eq(st.max_ns, 0);
    pcs_profile_detach(p);
    cr_assert_eq(pcs_world_tick(f.w), PCS_OK); /* no observer left behind */
    cr_assert_eq(pcs_profile_attach(f.w, &p), PCS_OK);
    cr_assert_eq(pcs_world_tick(f.w), PCS_OK);
    cr_assert_eq(pcs_profile_tick_stats(p, &st), PCS_OK);
    cr_assert_eq(st.count, 1);
    pcs_profile_detach(p);
    pcs_world_destroy(f.w);
}

Test(profile_stats, failed_tick_is_not_a_tick_sample)
{
    prof_fixture f = {.fail_at_tick = 2};
    prof_world(&f);
    pcs_profile *p = NULL;
    cr_assert_eq(pcs_profile_attach(f.w, &p), PCS_OK);
    int failures = 0;
    while (pcs_world_clock(f.w)->tick < 5)
        failures += pcs_world_tick(f.w) != PCS_OK;
    cr_assert_eq(failures, 1);
    pcs_profile_stats tick, heat, sensors;
    pcs_profile_tick_stats(p, &tick);
    pcs_profile_stage_stats(p, PCS_STAGE_HEAT, &heat);
    pcs_profile_stage_stats(p, PCS_STAGE_SENSORS, &sensors);
    cr_assert_eq(tick.count, 5);    /* 6 attempts, 5 completed */
    cr_assert_eq(heat.count, 6);    /* the failing stage still ended */
    cr_assert_eq(sensors.count, 5); /* never reached in the failed attempt */
    pcs_profile_detach(p);
    pcs_world_destroy(f.w);
}

Test(profile_stats, bad_arguments)
{
    pcs_profile_stats st;
    pcs_profile *p = NULL;
    cr_assert_eq(pcs_profile_attach(NULL, &p), PCS_E_INVAL);
    cr_assert_eq(pcs_profile_tick_stats(NULL, &st), PCS_E_INVAL);
    prof_fixture f = {.fail_at_tick = -1};
    prof_world(&f);
    cr_assert_eq(pcs_profile_attach(f.w, &p), PCS_OK);
    cr_assert_eq(pcs_profile_stage_stats(p, PCS_STAGE_COUNT, &st), PCS_E_INVAL);
    cr_assert_eq(pcs_profile_stage_stats(p, (pcs_stage)-1, &st), PCS_E_INVAL);
    pcs_profile_detach(p);
    pcs_profile_detach(NULL);
    pcs_world_destroy(f.w);
}

/* ---- trace ------------------------------------------------------------------------ */

static void trace_path(char *buf, size_t cap)
{
    snprintf(buf, cap, "/tmp/pcsim_trace_XXXXXX");
    int fd = mkstemp(buf);
    cr_assert_geq(fd, 0);
    close(fd);
}

/* ts/dur in microseconds with 3 decimals -> exact nanoseconds. */
static int64_t ns_of(json_t *e, const char *key)
{
    return (int64_t)llround(json_number_value(json_object_get(e, key)) * 1000.0);
}

static json_t *load_trace(const char *path)
{
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    cr_assert_not_null(root, "trace is not valid JSON: %s (line %d)", err.text, err.line);
    cr_assert(json_is_object(root));
    cr_assert_str_eq(json_string_value(json_object_get(root, "displayTimeUnit")), "ns");
    cr_assert(json_is_array(json_object_get(root, "traceEvents")));
    return root;
}

static int is_x(json_t *e, const char *cat)
{
    const char *ph = json_string_value(json_object_get(e, "ph"));
    const char *c = json_string_value(json_object_get(e, "cat"));
    return ph && strcmp(ph, "X") == 0 && c && strcmp(c, cat) == 0;
}

static json_int_t tick_of(json_t *e)
{
    return json_integer_value(json_object_get(json_object_get(e, "args"), "tick"));
}

Test(profile_trace, trace_of_a_test_world_holds_ticks_and_stage_spans)
{
    char path[64];
    trace_path(path, sizeof path);
    prof_fixture f = {.fail_at_tick = -1};
    prof_world(&f);
    pcs_profile *p = NULL;
    cr_assert_eq(pcs_profile_attach(f.w, &p), PCS_OK);
    cr_assert_eq(pcs_profile_trace_begin(path), PCS_OK);
    cr_assert(pcs_profile_tracing());
    pcs_profile_trace_thread_name("world");
    pcs_profile_span s = pcs_profile_span_begin("test.ticks", "test", 7);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(pcs_world_tick(f.w), PCS_OK);
    pcs_profile_span_end(&s);
    cr_assert_eq(pcs_profile_trace_end(), PCS_OK);
    cr_assert(!pcs_profile_tracing());

    json_t *root = load_trace(path);
    json_t *events = json_object_get(root, "traceEvents");
    json_t *ticks[5] = {0}, *stages[5][PCS_STAGE_COUNT] = {{0}};
    int n_test = 0, n_thread_name = 0;
    json_int_t me = (json_int_t)syscall(SYS_gettid);
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e)
    {
        const char *name = json_string_value(json_object_get(e, "name"));
        if (is_x(e, "tick")) {
            json_int_t t = tick_of(e);
            cr_assert(t >= 0 && t < 5 && !ticks[t], "tick %lld twice or out of range",
                      (long long)t);
            ticks[t] = e;
        } else if (is_x(e, "stage")) {
            int st = 0;
            while (st < PCS_STAGE_COUNT && strcmp(pcs_stage_name((pcs_stage)st), name) != 0)
                st++;
            json_int_t t = tick_of(e);
            cr_assert(st < PCS_STAGE_COUNT, "unknown stage span '%s'", name);
            cr_assert(t >= 0 && t < 5 && !stages[t][st]);
            stages[t][st] = e;
        } else if (is_x(e, "test")) {
            n_test++;
            cr_assert_str_eq(name, "test.ticks");
            cr_assert_eq(json_integer_value(json_object_get(json_object_get(e, "args"), "arg")), 7);
        } else if (strcmp(name, "thread_name") == 0) {
            n_thread_name++;
            cr_assert_eq(json_integer_value(json_object_get(e, "tid")), me);
        }
    }
    cr_assert_eq(n_test, 1);
    cr_assert_eq(n_thread_name, 1);
    for (int t = 0; t < 5; t++) {
        cr_assert_not_null(ticks[t], "tick %d missing", t);
        cr_assert_eq(json_integer_value(json_object_get(ticks[t], "tid")), me);
        int64_t t0 = ns_of(ticks[t], "ts"), t1 = t0 + ns_of(ticks[t], "dur");
        int64_t prev_end = t0;
        for (int st = 0; st < PCS_STAGE_COUNT; st++) {
            json_t *sp = stages[t][st];
            cr_assert_not_null(sp, "stage %d of tick %d missing", st, t);
            cr_assert_eq(json_integer_value(json_object_get(sp, "tid")), me);
            int64_t s0 = ns_of(sp, "ts"), s1 = s0 + ns_of(sp, "dur");
            cr_assert_eq(s0, prev_end, "stages of a tick are back to back, in order");
            cr_assert_leq(s1, t1, "stage span inside its tick");
            prev_end = s1;
        }
        cr_assert_eq(prev_end, t1, "the last stage ends the tick");
    }
    json_decref(root);
    remove(path);
    pcs_profile_detach(p);
    pcs_world_destroy(f.w);
}

Test(profile_trace, full_buffer_drops_and_counts)
{
    char path[64];
    trace_path(path, sizeof path);
    prof_fixture f = {.fail_at_tick = -1};
    prof_world(&f);
    pcs_profile *p = NULL;
    cr_assert_eq(pcs_profile_attach(f.w, &p), PCS_OK);
    cr_assert_eq(pcs_profile_trace_begin_n(path, 10), PCS_OK);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(pcs_world_tick(f.w), PCS_OK);
    cr_assert_eq(pcs_profile_trace_end(), PCS_OK);
    json_t *root = load_trace(path);
    /* 5 ticks x (13 stages + 1 tick) = 70 spans; 10 kept, 60 dropped. */
    json_t *other = json_object_get(root, "otherData");
    cr_assert_eq(json_integer_value(json_object_get(other, "dropped_spans")), 60);
    size_t i, n_x = 0;
    json_t *e;
    json_array_foreach(json_object_get(root, "traceEvents"), i, e)
    {
        n_x += strcmp(json_string_value(json_object_get(e, "ph")), "X") == 0;
    }
    cr_assert_eq(n_x, 10);
    json_decref(root);
    remove(path);
    pcs_profile_detach(p);
    pcs_world_destroy(f.w);
}

Test(profile_trace, failed_tick_shows_as_failed_span)
{
    char path[64];
    trace_path(path, sizeof path);
    prof_fixture f = {.fail_at_tick = 1};
    prof_world(&f);
    pcs_profile *p = NULL;
    cr_assert_eq(pcs_profile_attach(f.w, &p), PCS_OK);
    cr_assert_eq(pcs_profile_trace_begin(path), PCS_OK);
    while (pcs_world_clock(f.w)->tick < 3)
        pcs_world_tick(f.w);
    cr_assert_eq(pcs_profile_trace_end(), PCS_OK);
    json_t *root = load_trace(path);
    size_t i, failed = 0, ok = 0;
    json_t *e;
    json_array_foreach(json_object_get(root, "traceEvents"), i, e)
    {
        if (!is_x(e, "tick"))
            continue;
        const char *name = json_string_value(json_object_get(e, "name"));
        if (strcmp(name, "tick (failed)") == 0) {
            failed++;
            cr_assert_eq(tick_of(e), 1);
        } else {
            ok++;
        }
    }
    cr_assert_eq(failed, 1);
    cr_assert_eq(ok, 3);
    json_decref(root);
    remove(path);
    pcs_profile_detach(p);
    pcs_world_destroy(f.w);
}

Test(profile_trace, session_state_errors)
{
    char path[64];
    trace_path(path, sizeof path);
    cr_assert_eq(pcs_profile_trace_end(), PCS_E_STATE);
    cr_assert_eq(pcs_profile_trace_begin(NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_profile_trace_begin("/nonexistent-dir/pcsim/trace.json"), PCS_E_IO);
    cr_assert(!pcs_profile_tracing());
    cr_assert_eq(pcs_profile_trace_begin(path), PCS_OK);
    cr_assert_eq(pcs_profile_trace_begin(path), PCS_E_STATE);
    cr_assert_eq(pcs_profile_trace_end(), PCS_OK);
    json_decref(load_trace(path)); /* an empty session is still a valid trace */
    remove(path);
}

Test(profile_trace, spans_without_a_session_record_nothing)
{
    pcs_profile_span s = pcs_profile_span_begin("idle", "test", 1);
    cr_assert_null(s.name);
    pcs_profile_span_end(&s); /* no-op */
    pcs_profile_span_end(NULL);
    pcs_profile_trace_thread_name("nobody");
    cr_assert(!pcs_profile_tracing());
}
