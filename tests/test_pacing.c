/**
 * @file test_pacing.c
 * @brief Run state and pacing with a synthetic clock (world.h, "Run state and
 *        pacing"): exact tick counts at 0.1x..1000x, the carry over irregular
 *        frames, the backlog with too small a max_ticks, pause, step, speed
 *        limits, queued commands while paused, and a state hash that does not
 *        depend on pacing. The test is the host: it passes the elapsed time.
 *
 * Its checks are static functions, run in groups by the Tests at the end of
 * the file, one process a group (issue 19's test cost); each group's comment
 * lists what it checks.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "pcsim/pcsim.h"
#include "tests/world_fixture.h"

static uint64_t tick_of(const pcs_world *w)
{
    return pcs_world_clock(w)->tick;
}

/* @p frames frames of @p frame_s at @p speed, each allowed @p max_ticks;
 * asserts every frame ran @p per_frame ticks (when per_frame >= 0). */
static uint64_t run_frames(pcs_world *w, uint32_t frames, double frame_s, uint64_t max_ticks,
                           long per_frame)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < frames; i++) {
        pcs_world_advance_result r;
        cr_assert_eq(pcs_world_advance(w, frame_s, max_ticks, &r), PCS_OK, "%s", pcs_last_error());
        if (per_frame >= 0)
            cr_assert_eq(r.ticks_run, (uint64_t)per_frame, "frame %u ran %llu ticks", i,
                         (unsigned long long)r.ticks_run);
        total += r.ticks_run;
    }
    return total;
}

static void one_x_12000_frames_of_50ms_give_exactly_12000_ticks(void)
{
    pcs_world *w = wfx_world();
    cr_assert_float_eq(pcs_world_speed(w), 1.0, 0.0, "the default speed is 1x");
    /* 0.05 s at 1x is exactly one 0.05 s tick: one per frame, never 0 or 2. */
    cr_assert_eq(run_frames(w, 12000, 0.05, 1000, 1), 12000);
    cr_assert_eq(tick_of(w), 12000);
    pcs_world_advance_result r;
    cr_assert_eq(pcs_world_advance(w, 0.0, 1000, &r), PCS_OK);
    cr_assert_eq(r.ticks_behind, 0);
    cr_assert_float_eq(r.wait_s, 0.05, 1e-15, "no carry: a whole tick to wait");
    pcs_world_destroy(w);
}

static void tenth_x_gives_1200_ticks_one_every_tenth_frame(void)
{
    pcs_world *w = wfx_world();
    cr_assert_eq(pcs_world_set_speed(w, 0.1), PCS_OK);
    for (uint32_t i = 1; i <= 12000; i++) {
        pcs_world_advance_result r;
        cr_assert_eq(pcs_world_advance(w, 0.05, 1000, &r), PCS_OK);
        /* 5 ms of simulated time per frame: the 10th, 20th, ... frame completes a tick. */
        cr_assert_eq(r.ticks_run, i % 10 == 0 ? 1u : 0u, "frame %u", i);
    }
    cr_assert_eq(tick_of(w), 1200);
    pcs_world_destroy(w);
}

static void ten_x_gives_120000_ticks(void)
{
    pcs_world *w = wfx_world();
    cr_assert_eq(pcs_world_set_speed(w, 10.0), PCS_OK);
    cr_assert_eq(run_frames(w, 12000, 0.05, 100, 10), 120000);
    cr_assert_eq(tick_of(w), 120000);
    pcs_world_destroy(w);
}

static void seven_and_a_half_x_alternates_7_and_8_ticks_a_frame(void)
{
    /* 375 ms of simulated time a frame: 7 ticks and 25 ms carried, then 8.
     * Summing 0.05 * 7.5 / 0.05 in doubles ends at 89,999 here. */
    pcs_world *w = wfx_world();
    cr_assert_eq(pcs_world_set_speed(w, 7.5), PCS_OK);
    for (uint32_t i = 0; i < 12000; i++) {
        pcs_world_advance_result r;
        cr_assert_eq(pcs_world_advance(w, 0.05, 100, &r), PCS_OK);
        cr_assert_eq(r.ticks_run, i % 2 == 0 ? 7u : 8u, "frame %u", i);
    }
    cr_assert_eq(tick_of(w), 90000);
    pcs_world_destroy(w);
}

static void thousand_x_accounts_12_million_ticks_and_runs_1000_a_frame(void)
{
    pcs_world *w = wfx_world();
    cr_assert_eq(pcs_world_set_speed(w, 1000.0), PCS_OK);
    /* max_ticks 0 only accounts: 12,000 frames of 50 s simulated each. */
    cr_assert_eq(run_frames(w, 12000, 0.05, 0, 0), 0);
    pcs_world_advance_result r;
    cr_assert_eq(pcs_world_advance(w, 0.0, 0, &r), PCS_OK);
    cr_assert_eq(r.ticks_behind, 12000000);
    cr_assert_float_eq(r.wait_s, 0.0, 0.0, "ticks are owed: no waiting");
    cr_assert_eq(pcs_world_pacing_reset(w), PCS_OK);
    /* And run: 120 frames of 1000 ticks each. */
    cr_assert_eq(run_frames(w, 120, 0.05, 1000, 1000), 120000);
    cr_assert_eq(tick_of(w), 120000);
    pcs_world_destroy(w);
}

static void too_small_max_ticks_reports_the_lag_exactly(void)
{
    pcs_world *w = wfx_world();
    cr_assert_eq(pcs_world_set_speed(w, 1000.0), PCS_OK);
    /* 1000 ticks fall due each frame and 100 run: the backlog grows by 900. */
    for (uint64_t k = 1; k <= 50; k++) {
        pcs_world_advance_result r;
        cr_assert_eq(pcs_world_advance(w, 0.05, 100, &r), PCS_OK);
        cr_assert_eq(r.ticks_run, 100);
        cr_assert_eq(r.ticks_behind, 900 * k, "frame %llu: %llu behind", (unsigned long long)k,
                     (unsigned long long)r.ticks_behind);
    }
    cr_assert_eq(tick_of(w), 5000);
    /* Owed ticks run in later calls without more wall time. */
    pcs_world_advance_result r;
    cr_assert_eq(pcs_world_advance(w, 0.0, 45000, &r), PCS_OK);
    cr_assert_eq(r.ticks_run, 45000);
    cr_assert_eq(r.ticks_behind, 0);
    cr_assert_eq(tick_of(w), 50000);
    /* A host may give up catching up instead. */
    cr_assert_eq(pcs_world_advance(w, 0.05, 10, &r), PCS_OK);
    cr_assert_eq(r.ticks_behind, 990);
    cr_assert_eq(pcs_world_pacing_reset(w), PCS_OK);
    cr_assert_eq(pcs_world_advance(w, 0.0, 10, &r), PCS_OK);
    cr_assert_eq(r.ticks_run, 0);
    cr_assert_eq(r.ticks_behind, 0);
    pcs_world_destroy(w);
}

/* Frames of the given lengths, cycled, at @p speed_milli / 1000: after every
 * frame the world is at floor(total ns * speed / 50 ms) ticks. A pacer that
 * sums elapsed * speed / dt in doubles is one tick short somewhere in each of
 * the sequences below (checked against such a pacer when writing them). */
static void expect_floor_of_total(const double *frame_s, const uint64_t *frame_ns, uint32_t n,
                                  uint32_t frames, uint64_t speed_milli)
{
    pcs_world *w = wfx_world();
    cr_assert_eq(pcs_world_set_speed(w, (double)speed_milli / 1000.0), PCS_OK);
    uint64_t total_ps = 0; /* simulated time, ps; ns x speed_milli */
    for (uint32_t i = 0; i < frames; i++) {
        pcs_world_advance_result r;
        cr_assert_eq(pcs_world_advance(w, frame_s[i % n], 1000, &r), PCS_OK);
        total_ps += frame_ns[i % n] * speed_milli;
        cr_assert_eq(tick_of(w), total_ps / 50000000000u, "after %u frames (%llu ps)", i + 1,
                     (unsigned long long)total_ps);
        /* The carry is total - ticks * dt; the wait is the wall time that completes the
         * next tick, rounded up to a whole ns. */
        uint64_t short_ps = 50000000000u - total_ps % 50000000000u;
        double want_wait = (double)((short_ps + speed_milli - 1) / speed_milli) * 1e-9;
        cr_assert_float_eq(r.wait_s, want_wait, 1e-15);
    }
    pcs_world_destroy(w);
}

static void irregular_33_17_ms_frames_give_floor_of_total_over_dt(void)
{
    static const double s[] = {0.033, 0.017};
    static const uint64_t ns[] = {33000000u, 17000000u};
    /* 1001 frames: 501 x 33 + 500 x 17 = 25,033 ms -> 500 ticks, 33 ms carried. */
    expect_floor_of_total(s, ns, 2, 1001, 1000);
    /* 12,000 frames = 300 s: 600 ticks at 0.1x, 60,000 at 10x. */
    expect_floor_of_total(s, ns, 2, 12000, 100);
    expect_floor_of_total(s, ns, 2, 12000, 10000);
}

static void uneven_frames_keep_the_carry(void)
{
    static const double s[] = {0.007, 0.013, 0.029, 0.041, 0.0001};
    static const uint64_t ns[] = {7000000u, 13000000u, 29000000u, 41000000u, 100000u};
    expect_floor_of_total(s, ns, 5, 5000, 1000);
    expect_floor_of_total(s, ns, 5, 5000, 123000);
}

static void host_nanoseconds_times_1e_minus_9_are_taken_exactly(void)
{
    /* A 60 Hz host measuring whole ns: 16,666,667 ns a frame, passed as n * 1e-9.
     * 3000 frames = 50,000,001,000 ns -> exactly 1000 ticks and 1,000 ns carried. */
    static const double s[] = {16666667 * 1e-9};
    static const uint64_t ns[] = {16666667u};
    expect_floor_of_total(s, ns, 1, 3000, 1000);
}

static void pause_stops_ticks_and_keeps_carry_and_backlog(void)
{
    pcs_world *w = wfx_world();
    pcs_world_advance_result r;
    cr_assert_eq(pcs_world_advance(w, 0.08, 1000, &r), PCS_OK); /* 1 tick, 30 ms carried */
    cr_assert_eq(r.ticks_run, 1);
    cr_assert_eq(pcs_world_advance(w, 0.1, 1, &r), PCS_OK); /* 130 ms: 2 due, 1 runs */
    cr_assert_eq(r.ticks_behind, 1);
    cr_assert_eq(pcs_world_pause(w), PCS_OK);
    cr_assert_eq(pcs_world_pause(w), PCS_OK, "idempotent");
    cr_assert_eq(pcs_world_paused(w), 1);
    for (int i = 0; i < 100; i++) {
        cr_assert_eq(pcs_world_advance(w, 0.05, 1000, &r), PCS_OK);
        cr_assert_eq(r.ticks_run, 0);
        cr_assert_eq(r.paused, 1);
        cr_assert_eq(r.ticks_behind, 1, "the backlog is kept, not grown");
    }
    cr_assert_eq(tick_of(w), 2);
    cr_assert_eq(pcs_world_resume(w), PCS_OK);
    cr_assert_eq(pcs_world_paused(w), 0);
    /* The owed tick, then 30 + 20 ms = one more: the paused 5 s are not owed. */
    cr_assert_eq(pcs_world_advance(w, 0.02, 1000, &r), PCS_OK);
    cr_assert_eq(r.ticks_run, 2);
    cr_assert_eq(r.ticks_behind, 0);
    cr_assert_eq(r.paused, 0);
    cr_assert_eq(tick_of(w), 4);
    pcs_world_destroy(w);
}

static void step_once_runs_exactly_one_tick_while_paused(void)
{
    pcs_world *w = wfx_world();
    cr_assert_eq(pcs_world_step_once(w), PCS_E_STATE, "refused while running");
    cr_assert(strstr(pcs_last_error(), "pause") != NULL, "%s", pcs_last_error());
    cr_assert_eq(tick_of(w), 0);
    cr_assert_eq(pcs_world_pause(w), PCS_OK);
    cr_assert_eq(pcs_world_step_once(w), PCS_OK);
    cr_assert_eq(tick_of(w), 1);
    cr_assert_eq(pcs_world_step_once(w), PCS_OK);
    cr_assert_eq(tick_of(w), 2);
    cr_assert_eq(pcs_world_paused(w), 1, "still paused after a step");
    pcs_world_advance_result r;
    cr_assert_eq(pcs_world_advance(w, 1.0, 1000, &r), PCS_OK);
    cr_assert_eq(r.ticks_run, 0);
    cr_assert_eq(r.ticks_behind, 0, "steps are not charged to pacing");
    pcs_world_destroy(w);
}

static void expect_speed_refused(pcs_world *w, double speed, const char *shown)
{
    pcs_error_clear();
    cr_assert_eq(pcs_world_set_speed(w, speed), PCS_E_INVAL, "speed %s", shown);
    const char *msg = pcs_last_error();
    cr_assert(strstr(msg, shown) != NULL, "'%s' names the value %s", msg, shown);
    cr_assert(strstr(msg, "[0.1, 1000]") != NULL, "'%s' names the range", msg);
    cr_assert_float_eq(pcs_world_speed(w), 2.5, 0.0, "speed unchanged");
}

static void speed_out_of_range_is_refused_naming_value_and_range(void)
{
    pcs_world *w = wfx_world();
    cr_assert_eq(pcs_world_set_speed(w, 2.5), PCS_OK);
    expect_speed_refused(w, 0.09, "0.09");
    expect_speed_refused(w, 1000.5, "1000.5");
    expect_speed_refused(w, 0.0, "speed 0 ");
    expect_speed_refused(w, -3.0, "-3");
    expect_speed_refused(w, NAN, "nan");
    expect_speed_refused(w, INFINITY, "inf");
    cr_assert_eq(pcs_world_set_speed(w, 0.1), PCS_OK, "the bounds are inside");
    cr_assert_float_eq(pcs_world_speed(w), 0.1, 0.0);
    cr_assert_eq(pcs_world_set_speed(w, 1000.0), PCS_OK);
    cr_assert_float_eq(pcs_world_speed(w), 1000.0, 0.0);
    cr_assert_eq(pcs_world_set_speed(w, 1.23456), PCS_OK);
    cr_assert_float_eq(pcs_world_speed(w), 1.235, 0.0, "rounded to thousandths");
    pcs_world_destroy(w);
}

static void bad_elapsed_time_is_refused_naming_value_and_range(void)
{
    pcs_world *w = wfx_world();
    pcs_world_advance_result r;
    const double bad[] = {-0.001, NAN, INFINITY, 2e6};
    const char *shown[] = {"-0.001", "nan", "inf", "2e+06"};
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(pcs_world_advance(w, bad[i], 10, &r), PCS_E_INVAL, "%s", shown[i]);
        cr_assert(strstr(pcs_last_error(), shown[i]) != NULL, "%s", pcs_last_error());
        cr_assert(strstr(pcs_last_error(), "[0, 1e+06] s") != NULL, "%s", pcs_last_error());
    }
    cr_assert_eq(pcs_world_advance(w, 1e6, 0, &r), PCS_OK, "the upper bound is inside");
    cr_assert_eq(r.ticks_behind, 20000000, "1e6 s / 0.05 s, accounted in chunks");
    cr_assert_eq(pcs_world_advance(NULL, 0.05, 1, &r), PCS_E_INVAL);
    cr_assert_eq(pcs_world_advance(w, 0.05, 1, NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_world_set_speed(NULL, 1.0), PCS_E_INVAL);
    cr_assert_eq(pcs_world_pause(NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_world_resume(NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_world_step_once(NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_world_pacing_reset(NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_world_paused(NULL), 0);
    cr_assert_float_eq(pcs_world_speed(NULL), 0.0, 0.0);
    pcs_world_destroy(w);
}

static void a_speed_change_keeps_the_simulated_time_already_due(void)
{
    pcs_world *w = wfx_world();
    pcs_world_advance_result r;
    cr_assert_eq(pcs_world_advance(w, 0.03, 10, &r), PCS_OK);
    cr_assert_eq(r.ticks_run, 0);
    cr_assert_float_eq(r.wait_s, 0.02, 1e-15, "20 ms short of a tick at 1x");
    cr_assert_eq(pcs_world_set_speed(w, 2.0), PCS_OK);
    cr_assert_eq(pcs_world_advance(w, 0.0, 10, &r), PCS_OK);
    cr_assert_float_eq(r.wait_s, 0.01, 1e-15, "at 2x the same 20 ms take 10 ms");
    cr_assert_eq(pcs_world_advance(w, 0.01, 10, &r), PCS_OK);
    cr_assert_eq(r.ticks_run, 1);
    pcs_world_destroy(w);
}

/* A failing system: the tick it fails on stays owed. */
static pcs_status fail_at_tick_3(pcs_world *w, void *ctx)
{
    (void)ctx;
    if (pcs_world_clock(w)->tick == 3)
        return pcs_error_set(PCS_E_NUMERIC, "test system fails at tick 3");
    return PCS_OK;
}

static void a_failing_tick_stops_the_call_and_stays_owed(void)
{
    pcs_world *w = wfx_world();
    pcs_system_desc d = {.name = "fail3", .stage = PCS_STAGE_HEAT, .fn = fail_at_tick_3};
    cr_assert_eq(pcs_system_register(w, &d, NULL), PCS_OK);
    pcs_world_advance_result r;
    cr_assert_eq(pcs_world_advance(w, 0.5, 100, &r), PCS_E_NUMERIC);
    cr_assert_str_eq(pcs_last_error(), "test system fails at tick 3");
    cr_assert_eq(r.ticks_run, 3);
    cr_assert_eq(r.ticks_behind, 7, "10 due, 3 ran: the failed one is among the 7");
    cr_assert_eq(tick_of(w), 3);
    pcs_world_destroy(w);
}

enum { KIND_COUNT = 9 };

static pcs_status count_command(pcs_world *w, void *ctx, const pcs_command *cmd)
{
    (void)w;
    (void)cmd;
    (*(uint32_t *)ctx)++;
    return PCS_OK;
}

static void commands_queue_while_paused_and_a_full_ring_refuses(void)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.mpsc_capacity = 4;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
    static uint32_t applied;
    applied = 0;
    cr_assert_eq(pcs_command_handler_register(w, KIND_COUNT, count_command, &applied), PCS_OK);
    cr_assert_eq(pcs_world_pause(w), PCS_OK);
    pcs_command c;
    memset(&c, 0, sizeof c);
    c.kind = KIND_COUNT;
    for (int i = 0; i < 4; i++)
        cr_assert_eq(pcs_command_submit(w, &c), PCS_OK);
    cr_assert_eq(pcs_command_submit(w, &c), PCS_E_RATE);
    pcs_world_advance_result r;
    cr_assert_eq(run_frames(w, 20, 0.05, 100, 0), 0);
    cr_assert_eq(applied, 0, "no tick, no drain");
    cr_assert_eq(pcs_command_pending(w), 4);
    cr_assert_eq(pcs_command_submit(w, &c), PCS_E_RATE, "still full while paused");
    cr_assert_eq(pcs_world_resume(w), PCS_OK);
    cr_assert_eq(pcs_world_advance(w, 0.05, 100, &r), PCS_OK);
    cr_assert_eq(r.ticks_run, 1);
    cr_assert_eq(applied, 4, "the first tick after drains the queue");
    cr_assert_eq(pcs_command_submit(w, &c), PCS_OK);
    pcs_world_destroy(w);
}

/* A state store whose content depends on every tick, so the hash sees them. */
static pcs_status mix_tick(pcs_world *w, void *ctx)
{
    uint64_t *x = pcs_store_data(w, *(const uint32_t *)ctx);
    x[0] = x[0] * 6364136223846793005u + pcs_world_clock(w)->tick + 1442695040888963407u;
    return PCS_OK;
}

static void the_state_hash_does_not_depend_on_pacing(void)
{
    static uint32_t sa, sb;
    pcs_world *a = wfx_hashed_world("mix", 1, mix_tick, &sa);
    pcs_world *b = wfx_hashed_world("mix", 1, mix_tick, &sb);
    for (int i = 0; i < 600; i++)
        cr_assert_eq(pcs_world_tick(a), PCS_OK);
    /* b reaches tick 600 through odd frames, speed changes, a pause and steps. */
    const double speeds[] = {1.0, 7.5, 0.3, 123.0};
    pcs_world_advance_result r;
    for (uint32_t i = 0; tick_of(b) < 590; i++) {
        cr_assert_eq(pcs_world_set_speed(b, speeds[i % 4]), PCS_OK);
        cr_assert_eq(pcs_world_advance(b, 0.0173, 590 - tick_of(b), &r), PCS_OK);
    }
    uint64_t before = pcs_world_state_hash(b);
    cr_assert_eq(pcs_world_pause(b), PCS_OK);
    cr_assert_eq(pcs_world_set_speed(b, 42.0), PCS_OK);
    cr_assert_eq(pcs_world_state_hash(b), before, "pause and speed are not state");
    for (int i = 0; i < 10; i++)
        cr_assert_eq(pcs_world_step_once(b), PCS_OK);
    cr_assert_eq(tick_of(b), 600);
    cr_assert_eq(pcs_world_state_hash(b), pcs_world_state_hash(a));
    cr_assert_eq(*(uint64_t *)pcs_store_data(b, sb), *(uint64_t *)pcs_store_data(a, sa));
    pcs_world_destroy(a);
    pcs_world_destroy(b);
}

/* Issue 19's budget: Criterion runs every Test in its own process, and under
 * ASan a process costs ~0.2 s before it checks anything, so the checks above
 * run grouped, one process per behaviour, in the order listed. Each keeps its
 * own assertions and messages; a failure names the check's line. */

/* How many ticks each speed and frame pattern owes, and the lag reported when max_ticks is too
 * small. */
Test(pacing, ticks_owed_at_each_speed_and_frame_length)
{
    one_x_12000_frames_of_50ms_give_exactly_12000_ticks();
    tenth_x_gives_1200_ticks_one_every_tenth_frame();
    ten_x_gives_120000_ticks();
    seven_and_a_half_x_alternates_7_and_8_ticks_a_frame();
    thousand_x_accounts_12_million_ticks_and_runs_1000_a_frame();
    too_small_max_ticks_reports_the_lag_exactly();
    irregular_33_17_ms_frames_give_floor_of_total_over_dt();
    uneven_frames_keep_the_carry();
    host_nanoseconds_times_1e_minus_9_are_taken_exactly();
}

/* Pause, single step, a speed change, a failing tick and commands while paused; the hash does not
 * depend on pacing. */
Test(pacing, pause_step_speed_change_and_failures)
{
    pause_stops_ticks_and_keeps_carry_and_backlog();
    step_once_runs_exactly_one_tick_while_paused();
    a_speed_change_keeps_the_simulated_time_already_due();
    a_failing_tick_stops_the_call_and_stays_owed();
    commands_queue_while_paused_and_a_full_ring_refuses();
    the_state_hash_does_not_depend_on_pacing();
}

/* The pacing calls' refusals of their arguments. */
Test(pacing, bad_speed_and_elapsed_time_are_refused_naming_value_and_range)
{
    speed_out_of_range_is_refused_naming_value_and_range();
    bad_elapsed_time_is_refused_naming_value_and_range();
}
