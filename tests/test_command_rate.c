/**
 * @file test_command_rate.c
 * @brief Command sources' rate limits (command.h, pcs_command_source_set_rate):
 *        burst then refusal with the time of the next token, refill per tick,
 *        unlimited sources, counters apart from capacity, determinism.
 *
 * Expected token counts are worked by hand from rate * dt per tick: 400/s at
 * dt 0.05 s is exactly 20 tokens a tick; 7/s at dt 0.05 s is 0.35.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "pcsim/pcsim.h"

enum { KIND_ADD = 5 };

/* The handler adds args[0] to a state store, so the hash sees every
 * applied command. */
static pcs_status on_add(pcs_world *w, void *ctx, const pcs_command *cmd)
{
    uint32_t store = *(const uint32_t *)ctx;
    double *acc = pcs_store_data(w, store);
    acc[0] += cmd->args[0];
    acc[1] += 1.0;
    return PCS_OK;
}

static uint32_t store_id;

static pcs_world *make_world(double dt_s)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.dt_s = dt_s;
    cfg.commands_per_tick = 4096;
    cfg.workers = 0;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_store_register(w, "acc", 8, 2, PCS_STORE_STATE, &store_id), PCS_OK);
    cr_assert_eq(pcs_command_handler_register(w, KIND_ADD, on_add, &store_id), PCS_OK);
    return w;
}

static pcs_command add_cmd(double v)
{
    pcs_command c;
    memset(&c, 0, sizeof c);
    c.kind = KIND_ADD;
    c.args[0] = v;
    return c;
}

static pcs_command_source *open_limited(pcs_world *w, uint32_t id, uint32_t cap, double rate,
                                        uint32_t burst)
{
    pcs_command_source *s = NULL;
    cr_assert_eq(pcs_command_source_open(w, 1, id, cap, &s), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_command_source_set_rate(s, rate, burst), PCS_OK, "%s", pcs_last_error());
    return s;
}

/* Submit until refused; return how many were accepted. */
static uint32_t submit_until_refused(pcs_command_source *s)
{
    pcs_command c = add_cmd(1.0);
    uint32_t n = 0;
    while (pcs_command_source_submit(s, &c) == PCS_OK)
        n++;
    return n;
}

Test(command_rate, burst_then_refusal_says_when_the_next_token_comes)
{
    pcs_world *w = make_world(0.05);
    pcs_command_source *s = open_limited(w, 1, 4096, 400.0, 800);
    cr_assert_eq(submit_until_refused(s), 800);
    cr_assert_str_eq(pcs_last_error(),
                     "command submit: source (class 1, id 1): rate limit: next token in 0.05 s "
                     "(1 tick of 0.05 s; 400/s, burst 800)");
    pcs_world_destroy(w);
}

Test(command_rate, next_token_time_is_whole_ticks_of_the_fraction_missing)
{
    /* 7/s at 0.05 s: 0.35 token a tick. Empty after the burst of 2, the next
     * token needs ceil(1 / 0.35) = 3 ticks; after 2 ticks 0.70 is held and
     * one more tick brings it. */
    pcs_world *w = make_world(0.05);
    pcs_command_source *s = open_limited(w, 1, 64, 7.0, 2);
    cr_assert_eq(submit_until_refused(s), 2);
    cr_assert_str_eq(pcs_last_error(),
                     "command submit: source (class 1, id 1): rate limit: next token in 0.15 s "
                     "(3 ticks of 0.05 s; 7/s, burst 2)");
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(submit_until_refused(s), 0);
    cr_assert(strstr(pcs_last_error(), "next token in 0.05 s (1 tick of 0.05 s;") != NULL, "%s",
              pcs_last_error());
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(submit_until_refused(s), 1); /* 1.05 held: one token, 0.05 left */
    pcs_world_destroy(w);
}

Test(command_rate, one_token_a_tick_at_the_seed_rate_and_a_short_tick)
{
    /* The seed design's 400/s with a 2.5 ms tick: one token per tick, so the
     * next token is one tick, 0.0025 s, away. */
    pcs_world *w = make_world(0.0025);
    pcs_command_source *s = open_limited(w, 1, 4096, 400.0, 800);
    cr_assert_eq(submit_until_refused(s), 800);
    cr_assert(strstr(pcs_last_error(), "next token in 0.0025 s (1 tick of 0.0025 s; 400/s, "
                                       "burst 800)") != NULL,
              "%s", pcs_last_error());
    for (int i = 0; i < 5; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(submit_until_refused(s), 5);
    pcs_world_destroy(w);
}

/* From an empty bucket, N ticks give floor(N * rate * dt) tokens, at most burst. */
static void check_refill(double rate, uint32_t burst, uint32_t ticks, uint32_t want)
{
    pcs_world *w = make_world(0.05);
    pcs_command_source *s = open_limited(w, 1, 4096, rate, burst);
    cr_assert_eq(submit_until_refused(s), burst);
    for (uint32_t i = 0; i < ticks; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    uint32_t got = submit_until_refused(s);
    cr_assert_eq(got, want, "rate %g/s burst %u after %u ticks: %u tokens, want %u", rate, burst,
                 ticks, got, want);
    pcs_world_destroy(w);
}

Test(command_rate, refill_after_n_ticks_is_floor_of_n_dt_rate_capped_at_burst)
{
    check_refill(400.0, 800, 1, 20);
    check_refill(400.0, 800, 7, 140);
    check_refill(400.0, 800, 40, 800);
    check_refill(400.0, 800, 100, 800); /* 2000 capped */
    check_refill(7.0, 5, 1, 0);         /* 0.35 */
    check_refill(7.0, 5, 2, 0);         /* 0.70 */
    check_refill(7.0, 5, 3, 1);         /* 1.05 */
    check_refill(7.0, 5, 10, 3);        /* 3.5 */
    check_refill(7.0, 5, 20, 5);        /* 7 capped at 5 */
    check_refill(1.0, 3, 20, 1);        /* 20 * 0.05 = exactly 1 */
    check_refill(1.0, 3, 19, 0);        /* 0.95 */
}

Test(command_rate, a_tick_without_submissions_loses_nothing_but_the_cap)
{
    /* 0.35 a tick: 3 ticks, a submit (1.05 -> 0.05), 3 more ticks (1.10):
     * the fraction carried over, not reset. */
    pcs_world *w = make_world(0.05);
    pcs_command_source *s = open_limited(w, 1, 64, 7.0, 1);
    cr_assert_eq(submit_until_refused(s), 1);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(submit_until_refused(s), 1);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(submit_until_refused(s), 1);
    cr_assert(strstr(pcs_last_error(), "next token in 0.15 s (3 ticks") != NULL, "%s",
              pcs_last_error()); /* 0.10 held: 0.90 missing is 3 ticks of 0.35 */
    pcs_world_destroy(w);
}

Test(command_rate, loading_an_earlier_save_neither_stalls_nor_floods_the_bucket)
{
    /* 20/s at 0.05 s: one token a tick, one held. Save at tick 3, run to
     * tick 6, load the save (the clock goes back to 3): the next tick still
     * brings exactly one token, and ticks skipped forward bring no more. */
    char path[] = "/tmp/pcsim-rate-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    pcs_world *w = make_world(0.05);
    pcs_command_source *s = open_limited(w, 1, 64, 20.0, 1);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(pcs_world_save(w, path), PCS_OK, "%s", pcs_last_error());
    for (int i = 0; i < 3; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(submit_until_refused(s), 1);
    cr_assert_eq(pcs_world_load(w, path), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_clock(w)->tick, 3);
    cr_assert_eq(submit_until_refused(s), 0); /* a load is no tick */
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(submit_until_refused(s), 1);
    unlink(path);
    pcs_world_destroy(w);
}

Test(command_rate, unlimited_sources_and_the_shared_ring_are_not_limited)
{
    pcs_world *w = make_world(0.05);
    pcs_command_source *s = NULL;
    cr_assert_eq(pcs_command_source_open(w, 1, 1, 2000, &s), PCS_OK);
    cr_assert_eq(submit_until_refused(s), 2000); /* capacity, not rate */
    cr_assert(strstr(pcs_last_error(), "capacity of 2000") != NULL, "%s", pcs_last_error());
    pcs_command c = add_cmd(1.0);
    for (uint32_t i = 0; i < 4096; i++)
        cr_assert_eq(pcs_command_submit(w, &c), PCS_OK);
    pcs_command_source_stats ss;
    cr_assert_eq(pcs_command_source_stats_get(s, &ss), PCS_OK);
    cr_assert_eq(ss.refused_rate, 0);
    cr_assert_eq(ss.refused, 1);
    cr_assert_eq(ss.rate_per_s, 0.0);
    cr_assert_eq(ss.burst, 0);
    pcs_world_destroy(w);
}

Test(command_rate, rate_zero_removes_a_limit)
{
    pcs_world *w = make_world(0.05);
    pcs_command_source *s = open_limited(w, 1, 100, 10.0, 3);
    cr_assert_eq(submit_until_refused(s), 3);
    cr_assert_eq(pcs_command_source_set_rate(s, 0.0, 0), PCS_OK);
    cr_assert_eq(submit_until_refused(s), 97); /* the ring's capacity is left */
    cr_assert(strstr(pcs_last_error(), "capacity of 100") != NULL, "%s", pcs_last_error());
    pcs_world_destroy(w);
}

Test(command_rate, counters_per_source_and_in_total_keep_rate_apart_from_capacity)
{
    /* Capacity 3, 1/s (0.05 a tick), burst 4: three accepted leave one
     * token; the fourth is refused for capacity and keeps its token; after a
     * tick drains the ring (1.05 held) one more is accepted, the next is
     * refused by the rate. Without the give-back the last accept would fail. */
    pcs_world *w = make_world(0.05);
    pcs_command_source *s = open_limited(w, 2, 3, 1.0, 4);
    pcs_command c = add_cmd(1.0);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(pcs_command_source_submit(s, &c), PCS_OK);
    cr_assert_eq(pcs_command_source_submit(s, &c), PCS_E_RATE);
    cr_assert(strstr(pcs_last_error(), "capacity of 3") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(pcs_command_source_submit(s, &c), PCS_OK);
    cr_assert_eq(pcs_command_source_submit(s, &c), PCS_E_RATE);
    cr_assert(strstr(pcs_last_error(), "rate limit: next token in 0.95 s (19 ticks of 0.05 s; "
                                       "1/s, burst 4)") != NULL,
              "%s", pcs_last_error());
    cr_assert_eq(pcs_command_source_submit(s, &c), PCS_E_RATE);

    pcs_command_source_stats ss;
    cr_assert_eq(pcs_command_source_stats_get(s, &ss), PCS_OK);
    cr_assert_eq(ss.source_class, 1);
    cr_assert_eq(ss.source_id, 2);
    cr_assert_eq(ss.capacity, 3);
    cr_assert_eq(ss.submitted, 4);
    cr_assert_eq(ss.refused, 1);
    cr_assert_eq(ss.refused_rate, 2);
    cr_assert_eq(ss.rate_per_s, 1.0);
    cr_assert_eq(ss.burst, 4);

    pcs_command_source *u = NULL; /* an unlimited source adds to the totals too */
    cr_assert_eq(pcs_command_source_open(w, 1, 3, 1, &u), PCS_OK);
    cr_assert_eq(pcs_command_source_submit(u, &c), PCS_OK);
    cr_assert_eq(pcs_command_source_submit(u, &c), PCS_E_RATE);
    pcs_command_stats cs;
    cr_assert_eq(pcs_command_stats_get(w, &cs), PCS_OK);
    cr_assert_eq(cs.submitted, 5);
    cr_assert_eq(cs.refused, 2);
    cr_assert_eq(cs.refused_rate, 2);
    pcs_world_destroy(w);
}

Test(command_rate, a_refusal_by_rate_consumes_no_sequence_number)
{
    pcs_world *w = make_world(0.05);
    pcs_command_source *s = open_limited(w, 1, 64, 20.0, 1); /* 1 token a tick */
    pcs_command c = add_cmd(1.0);
    for (int t = 0; t < 4; t++) {
        cr_assert_eq(pcs_command_source_submit(s, &c), PCS_OK);
        cr_assert_eq(pcs_command_source_submit(s, &c), PCS_E_RATE);
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    }
    pcs_command j[8];
    uint64_t cursor = 0;
    cr_assert_eq(pcs_journal_read(w, &cursor, j, 8, NULL), 4);
    for (uint32_t i = 0; i < 4; i++) {
        cr_assert_eq(j[i].seq, i);
        cr_assert_eq(j[i].tick, i);
    }
    pcs_world_destroy(w);
}

Test(command_rate, bad_limits_are_refused_naming_the_source_value_and_range)
{
    pcs_world *w = make_world(0.05);
    pcs_command_source *s = NULL;
    cr_assert_eq(pcs_command_source_open(w, 4, 9, 8, &s), PCS_OK);
    cr_assert_eq(pcs_command_source_set_rate(s, -1.0, 10), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(), "pcs_command_source_set_rate: source (class 4, id 9): "
                                       "rate -1/s is outside (0, 1e+09] (0 removes the limit)");
    cr_assert_eq(pcs_command_source_set_rate(s, 0.0 / 0.0, 10), PCS_E_INVAL);
    cr_assert_eq(pcs_command_source_set_rate(s, 2e9, 10), PCS_E_INVAL);
    cr_assert_eq(pcs_command_source_set_rate(s, 400.0, 0), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(), "pcs_command_source_set_rate: source (class 4, id 9): "
                                       "burst 0 is outside [1, 16777216]");
    cr_assert_eq(pcs_command_source_set_rate(s, 400.0, PCS_COMMAND_RATE_BURST_MAX + 1),
                 PCS_E_INVAL);
    cr_assert_eq(pcs_command_source_set_rate(NULL, 400.0, 800), PCS_E_INVAL);
    cr_assert_eq(pcs_command_source_stats_get(NULL, NULL), PCS_E_INVAL);
    /* A refused setting leaves the source unlimited. */
    cr_assert_eq(submit_until_refused(s), 8);
    cr_assert(strstr(pcs_last_error(), "capacity of 8") != NULL, "%s", pcs_last_error());
    /* The extremes are taken: a huge rate fills the bucket every tick. */
    cr_assert_eq(pcs_command_source_set_rate(s, 1e9, PCS_COMMAND_RATE_BURST_MAX), PCS_OK);
    cr_assert_eq(pcs_command_source_set_rate(s, 1e-9, 1), PCS_OK);
    pcs_world_destroy(w);
}

/* One run of a fixed pattern: before tick t, k(t) = (7t mod 41) submits. */
typedef struct pattern_run {
    uint8_t accepted[200 * 41];
    uint32_t n_accepted;
    uint64_t hash;
} pattern_run;

static void run_pattern(pattern_run *r)
{
    pcs_world *w = make_world(0.05);
    pcs_command_source *s = open_limited(w, 1, 4096, 400.0, 50);
    uint32_t i = 0;
    for (uint32_t t = 0; t < 200; t++) {
        for (uint32_t k = 0; k < (7 * t) % 41; k++, i++) {
            pcs_command c = add_cmd((double)i);
            r->accepted[i] = pcs_command_source_submit(s, &c) == PCS_OK;
            r->n_accepted += r->accepted[i];
        }
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    }
    r->hash = pcs_world_state_hash(w);
    pcs_world_destroy(w);
}

Test(command_rate, the_same_submissions_per_tick_accept_the_same_commands)
{
    static pattern_run a, b;
    run_pattern(&a);
    run_pattern(&b);
    cr_assert_eq(memcmp(a.accepted, b.accepted, sizeof a.accepted), 0);
    cr_assert_eq(a.hash, b.hash);
    /* The reference bucket, in whole tokens (20 a tick exactly): start with
     * 50, each tick min(50, held + 20) before its submissions. */
    uint32_t held = 50, want = 0, total = 0;
    for (uint32_t t = 0; t < 200; t++) {
        if (t > 0)
            held = held + 20 < 50 ? held + 20 : 50;
        uint32_t k = (7 * t) % 41;
        uint32_t take = k < held ? k : held;
        held -= take;
        want += take;
        total += k;
    }
    cr_assert_eq(a.n_accepted, want);
    cr_assert(want < total, "the pattern must hit the limit (%u of %u)", want, total);
}

/* A producer on its own thread reads the ticks the world thread publishes:
 * it never gets more than burst + ticks * rate * dt tokens. */
typedef struct race {
    pcs_command_source *s;
    _Atomic int stop;
    uint64_t accepted, refused;
} race;

static void *race_producer(void *arg)
{
    race *r = arg;
    pcs_command c = add_cmd(1.0);
    while (!atomic_load_explicit(&r->stop, memory_order_acquire)) {
        pcs_status st = pcs_command_source_submit(r->s, &c);
        if (st == PCS_OK)
            r->accepted++;
        else if (st == PCS_E_RATE)
            r->refused++;
        else
            break;
    }
    return NULL;
}

Test(command_rate, a_producer_thread_gets_no_more_than_the_ticks_allow)
{
    pcs_world *w = make_world(0.05);
    static race r;
    r.s = open_limited(w, 1, 4096, 100.0, 10); /* 5 a tick */
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, race_producer, &r), 0);
    for (int i = 0; i < 2000; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    atomic_store_explicit(&r.stop, 1, memory_order_release);
    pthread_join(th, NULL);
    cr_assert_leq(r.accepted, 10 + 2000 * 5);
    pcs_command_source_stats ss;
    cr_assert_eq(pcs_command_source_stats_get(r.s, &ss), PCS_OK);
    cr_assert_eq(ss.submitted, r.accepted);
    cr_assert_eq(ss.refused_rate + ss.refused, r.refused);
    pcs_world_destroy(w);
}

/* The scenario carries the host's limit: the seed design's 400/s, burst 800
 * unless run.command_rate_per_s / command_burst say otherwise. */
Test(command_rate, scenarios_carry_the_seed_defaults_and_their_own_limit)
{
    pcs_scenario *scn = NULL;
    cr_assert_eq(pcs_scenario_default(&scn), PCS_OK, "%s", pcs_last_error());
    pcs_scenario_run run = pcs_scenario_run_params(scn);
    cr_assert_eq(run.command_rate_per_s, 400.0);
    cr_assert_eq(run.command_burst, 800);
    pcs_scenario_destroy(scn);

    const char *set = "{\"schema\": 1, \"run\": {\"command_rate_per_s\": 0, \"command_burst\": 5}}";
    cr_assert_eq(pcs_scenario_load_string("rate.json", set, strlen(set), NULL, &scn), PCS_OK, "%s",
                 pcs_last_error());
    run = pcs_scenario_run_params(scn);
    cr_assert_eq(run.command_rate_per_s, 0.0);
    cr_assert_eq(run.command_burst, 5);
    pcs_scenario_destroy(scn);

    const char *bad = "{\"schema\": 1, \"run\": {\"command_burst\": 200001}}";
    scn = NULL;
    cr_assert_eq(pcs_scenario_load_string("rate.json", bad, strlen(bad), NULL, &scn), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(),
                     "$.run.command_burst: value 200001 is outside [1, 200000]") != NULL,
              "%s", pcs_last_error());
}
