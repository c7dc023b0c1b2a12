/**
 * @file test_command_batch.c
 * @brief Batched submit (command.h, pcs_command_source_submit_n): the longest
 *        prefix that fits is accepted and counted, sequence numbers and the
 *        applied order run on across batches and single submits, a journal of
 *        batched commands replays to the same hash, the rate limit takes one
 *        token per accepted command, and bad arguments are refused with
 *        nothing queued.
 *
 * Token counts are worked by hand: 400/s at dt 0.05 s is 20 tokens a tick.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "pcsim/pcsim.h"

enum { KIND_ADD = 5, RUNS_MAX = 512 };

/* The handler adds args[0] to a state store (so the hash sees every applied
 * command) and records what it applied. */
typedef struct applied_log {
    uint32_t store;
    uint32_t n;
    pcs_command cmd[RUNS_MAX];
} applied_log;

static pcs_status on_add(pcs_world *w, void *ctx, const pcs_command *cmd)
{
    applied_log *log = ctx;
    double *acc = pcs_store_data(w, log->store);
    acc[0] = acc[0] * 1.5 + cmd->args[0]; /* order-sensitive */
    acc[1] += 1.0;
    if (log->n < RUNS_MAX)
        log->cmd[log->n] = *cmd;
    log->n++;
    return PCS_OK;
}

static pcs_world *make_world(uint32_t per_tick, applied_log *log)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.dt_s = 0.05;
    cfg.commands_per_tick = per_tick;
    cfg.workers = 0;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_store_register(w, "acc", 8, 2, PCS_STORE_STATE, &log->store), PCS_OK);
    cr_assert_eq(pcs_command_handler_register(w, KIND_ADD, on_add, log), PCS_OK);
    return w;
}

static pcs_command_source *open_source(pcs_world *w, uint32_t id, uint32_t cap)
{
    pcs_command_source *s = NULL;
    cr_assert_eq(pcs_command_source_open(w, 1, id, cap, &s), PCS_OK, "%s", pcs_last_error());
    return s;
}

/* cmds[i] = an add of first + i. */
static void fill(pcs_command *cmds, uint32_t n, double first)
{
    memset(cmds, 0, n * sizeof *cmds);
    for (uint32_t i = 0; i < n; i++) {
        cmds[i].kind = KIND_ADD;
        cmds[i].args[0] = first + i;
    }
}

static uint32_t submit_n(pcs_command_source *s, const pcs_command *cmds, uint32_t n)
{
    uint32_t acc = 99;
    pcs_status st = pcs_command_source_submit_n(s, cmds, n, &acc);
    cr_assert_eq(st, PCS_OK, "submit_n of %u: %s", n, pcs_last_error());
    return acc;
}

static void expect_refused(pcs_command_source *s, const pcs_command *cmds, uint32_t n,
                           const char *why)
{
    uint32_t acc = 99;
    cr_assert_eq(pcs_command_source_submit_n(s, cmds, n, &acc), PCS_E_RATE);
    cr_assert_eq(acc, 0);
    cr_assert(strstr(pcs_last_error(), why), "'%s' should say '%s'", pcs_last_error(), why);
}

Test(command_batch, a_full_ring_takes_the_prefix_that_fits_then_refuses_at_once)
{
    static applied_log log;
    pcs_world *w = make_world(64, &log);
    pcs_command_source *s = open_source(w, 1, 5);
    pcs_command cmds[8];
    fill(cmds, 8, 0.0);
    cr_assert_eq(submit_n(s, cmds, 8), 5); /* capacity 5 of a ring of 8 slots */
    cr_assert_eq(pcs_command_pending(w), 5);
    expect_refused(s, cmds + 5, 3, "(class 1, id 1) holds its capacity of 5 commands");
    pcs_command_source_stats ss;
    cr_assert_eq(pcs_command_source_stats_get(s, &ss), PCS_OK);
    cr_assert_eq(ss.submitted, 5);
    cr_assert_eq(ss.refused, 1); /* one refusal return; the short batch is none */
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(log.n, 5);
    /* The drain freed all 5: the producer's cached view of the head said 0
     * room, so it reloads and takes exactly 5 again, then 3 of 3 after a tick
     * (the ring wraps: positions 5..12 of 8 slots). */
    cr_assert_eq(submit_n(s, cmds, 8), 5);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(submit_n(s, cmds + 5, 3), 3);
    cr_assert_eq(submit_n(s, cmds, 2), 2);
    cr_assert_eq(pcs_command_pending(w), 5);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(log.n, 15);
    for (uint32_t i = 0; i < 15; i++)
        cr_assert_eq(log.cmd[i].seq, i, "command %u has seq %llu", i,
                     (unsigned long long)log.cmd[i].seq);
    pcs_world_destroy(w);
}

Test(command_batch, batches_and_single_submits_share_one_sequence_and_one_order)
{
    static applied_log log;
    pcs_world *w = make_world(3, &log); /* 3 a tick: the run spans ticks */
    pcs_command_source *s = open_source(w, 1, 64);
    pcs_command cmds[16];
    fill(cmds, 16, 0.0);
    /* 0 | 1 2 3 | 4 | 5 6 | 7 8 9 10 11: single, batch, single, batch, batch */
    cr_assert_eq(pcs_command_source_submit(s, &cmds[0]), PCS_OK);
    cr_assert_eq(submit_n(s, cmds + 1, 3), 3);
    cr_assert_eq(pcs_command_source_submit(s, &cmds[4]), PCS_OK);
    cr_assert_eq(submit_n(s, cmds + 5, 2), 2);
    cr_assert_eq(pcs_world_tick(w), PCS_OK); /* applies 0 1 2 */
    cr_assert_eq(submit_n(s, cmds + 7, 5), 5);
    for (int t = 0; t < 4; t++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(log.n, 12);
    for (uint32_t i = 0; i < 12; i++) {
        cr_assert_eq(log.cmd[i].args[0], (double)i, "applied #%u carries %g", i,
                     log.cmd[i].args[0]);
        cr_assert_eq(log.cmd[i].seq, i);
        cr_assert_eq(log.cmd[i].source_class, 1);
        cr_assert_eq(log.cmd[i].source_id, 1);
        cr_assert_eq(log.cmd[i].tick, i / 3, "applied #%u on tick %llu", i,
                     (unsigned long long)log.cmd[i].tick);
    }
    pcs_world_destroy(w);
}

Test(command_batch, a_journal_of_batches_replays_one_by_one_to_the_same_hash)
{
    static applied_log a, b;
    static pcs_command journal[RUNS_MAX];
    pcs_world *wa = make_world(7, &a);
    pcs_command_source *sa = open_source(wa, 3, 16);
    pcs_command cmds[16];
    /* Batches of 1..9, one a tick, against a ring of 16 and 7 a tick: some
     * batches are cut short, some commands wait a tick. */
    double next = 1.0;
    for (uint32_t t = 0; t < 40; t++) {
        uint32_t want = 1 + (t * 5) % 9;
        fill(cmds, want, next);
        uint32_t acc = 0;
        pcs_status st = pcs_command_source_submit_n(sa, cmds, want, &acc);
        cr_assert(st == PCS_OK || st == PCS_E_RATE, "%s", pcs_last_error());
        next += acc;
        cr_assert_eq(pcs_world_tick(wa), PCS_OK);
    }
    for (int t = 0; t < 8; t++)
        cr_assert_eq(pcs_world_tick(wa), PCS_OK);
    uint64_t cursor = 0, missed = 9;
    uint32_t nj = pcs_journal_read(wa, &cursor, journal, RUNS_MAX, &missed);
    cr_assert_eq(missed, 0);
    cr_assert_eq(nj, (uint32_t)(next - 1.0), "journal %u, accepted %g", nj, next - 1.0);
    cr_assert(nj > 100, "the run must apply many commands (%u)", nj);

    /* Replay: each journaled command submitted alone, before its tick. */
    pcs_world *wb = make_world(RUNS_MAX, &b);
    pcs_command_source *sb = open_source(wb, 3, RUNS_MAX);
    uint32_t j = 0;
    for (uint64_t t = 0; t < 48; t++) {
        for (; j < nj && journal[j].tick == t; j++)
            cr_assert_eq(pcs_command_source_submit(sb, &journal[j]), PCS_OK, "%s",
                         pcs_last_error());
        cr_assert_eq(pcs_world_tick(wb), PCS_OK);
    }
    cr_assert_eq(j, nj);
    cr_assert_eq(b.n, a.n);
    for (uint32_t i = 0; i < nj; i++) {
        cr_assert_eq(b.cmd[i].seq, a.cmd[i].seq);
        cr_assert_eq(b.cmd[i].tick, a.cmd[i].tick);
        cr_assert_eq(b.cmd[i].args[0], a.cmd[i].args[0]);
    }
    cr_assert_eq(pcs_world_state_hash(wb), pcs_world_state_hash(wa));
    pcs_world_destroy(wa);
    pcs_world_destroy(wb);
}

Test(command_batch, the_rate_limit_takes_a_token_per_accepted_command_and_none_for_full)
{
    static applied_log log;
    pcs_world *w = make_world(64, &log);
    pcs_command_source *s = open_source(w, 1, 30);
    cr_assert_eq(pcs_command_source_set_rate(s, 400.0, 50), PCS_OK, "%s", pcs_last_error());
    pcs_command cmds[64];
    fill(cmds, 64, 0.0);
    /* Tokens 50, room 30: 30 accepted, 20 tokens left. */
    cr_assert_eq(submit_n(s, cmds, 64), 30);
    /* Full: refused for capacity, no token spent. */
    expect_refused(s, cmds, 64, "holds its capacity of 30 commands");
    cr_assert_eq(pcs_world_tick(w), PCS_OK); /* 20 + 20 = 40 tokens, ring empty */
    cr_assert_eq(submit_n(s, cmds, 64), 30); /* room 30 of 40 tokens: 10 left */
    cr_assert_eq(pcs_world_tick(w), PCS_OK); /* 30 tokens */
    cr_assert_eq(submit_n(s, cmds, 64), 30); /* 0 left */
    cr_assert_eq(pcs_world_tick(w), PCS_OK); /* 20 tokens, room 30 */
    cr_assert_eq(submit_n(s, cmds, 64), 20); /* cut by the bucket, not the room */
    expect_refused(s, cmds, 64, "rate limit: next token in 0.05 s (1 tick of 0.05 s; 400/s");
    pcs_command_source_stats ss;
    cr_assert_eq(pcs_command_source_stats_get(s, &ss), PCS_OK);
    cr_assert_eq(ss.submitted, 110);
    cr_assert_eq(ss.refused, 1);
    cr_assert_eq(ss.refused_rate, 1);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(log.n, 110);
    cr_assert_eq(log.cmd[109].seq, 109); /* refusals took no sequence number */
    pcs_world_destroy(w);
}

Test(command_batch, bad_arguments_are_refused_naming_what_and_nothing_is_queued)
{
    static applied_log log;
    pcs_world *w = make_world(64, &log);
    pcs_command_source *s = open_source(w, 2, 8);
    pcs_command cmds[PCS_COMMAND_SUBMIT_MAX + 1];
    fill(cmds, PCS_COMMAND_SUBMIT_MAX + 1, 0.0);
    uint32_t acc = 99;
    struct {
        pcs_command_source *src;
        const pcs_command *cmds;
        uint32_t n;
        uint32_t *acc;
        const char *msg;
    } bad[] = {
        {NULL, cmds, 1, &acc, "pcs_command_source_submit_n: source is NULL"},
        {s, NULL, 1, &acc, "pcs_command_source_submit_n: cmds is NULL"},
        {s, cmds, 1, NULL, "pcs_command_source_submit_n: accepted is NULL"},
        {s, cmds, 0, &acc,
         "pcs_command_source_submit_n: source (class 1, id 2): n = 0 is outside [1, 1024]; "
         "nothing queued"},
        {s, cmds, PCS_COMMAND_SUBMIT_MAX + 1, &acc, "n = 1025 is outside [1, 1024]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        acc = 99;
        cr_assert_eq(pcs_command_source_submit_n(bad[i].src, bad[i].cmds, bad[i].n, bad[i].acc),
                     PCS_E_INVAL, "case %zu", i);
        cr_assert(strstr(pcs_last_error(), bad[i].msg), "case %zu: '%s' should say '%s'", i,
                  pcs_last_error(), bad[i].msg);
        if (bad[i].acc)
            cr_assert_eq(acc, 0, "case %zu", i);
    }
    /* A bad kind anywhere refuses the whole batch before anything is queued. */
    cmds[2].kind = 0;
    cr_assert_eq(pcs_command_source_submit_n(s, cmds, 4, &acc), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "(class 1, id 2): cmds[2].kind 0 is outside [1, 255]; "
                                       "nothing queued"),
              "%s", pcs_last_error());
    cmds[2].kind = PCS_COMMAND_KINDS_MAX;
    cr_assert_eq(pcs_command_source_submit_n(s, cmds, 4, &acc), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "cmds[2].kind 256 is outside [1, 255]"), "%s",
              pcs_last_error());
    cr_assert_eq(acc, 0);
    cr_assert_eq(pcs_command_pending(w), 0);
    pcs_command_source_stats ss;
    cr_assert_eq(pcs_command_source_stats_get(s, &ss), PCS_OK);
    cr_assert_eq(ss.submitted + ss.refused + ss.refused_rate, 0);
    pcs_world_destroy(w);
}
