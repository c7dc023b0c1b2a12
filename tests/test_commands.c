/**
 * @file test_commands.c
 * @brief Command queue: exact capacity, sort order, per-tick limit, fairness,
 *        rejection, journal, and concurrent producers.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/pcsim.h"

enum { KIND_RECORD = 5, KIND_REFUSE = 6 };

/* The handler records the order in which commands are applied. */
typedef struct record {
    pcs_command applied[1 << 16];
    uint32_t n;
} record;

/* A record on the heap: at 4-8 MB it is too big for a test's stack, and a
 * static one would sit in .bss, which LeakSanitizer scans at the exit of
 * every test process of the ASan suite (Criterion runs each test in a
 * process of its own), whether or not that test uses it. Zeroed. */
static record *record_new(void)
{
    record *r = calloc(1, sizeof *r);
    cr_assert_not_null(r, "out of memory for a %zu-byte record", sizeof *r);
    return r;
}

static pcs_status on_record(pcs_world *w, void *ctx, const pcs_command *cmd)
{
    (void)w;
    record *r = ctx;
    if (r->n < (1u << 16))
        r->applied[r->n] = *cmd;
    r->n++;
    return PCS_OK;
}

static pcs_status on_refuse(pcs_world *w, void *ctx, const pcs_command *cmd)
{
    (void)w;
    (void)ctx;
    return pcs_error_set(PCS_E_INVAL, "target %u does not exist", cmd->target);
}

static pcs_world *make_world(uint32_t per_tick, uint32_t mpsc_cap, record *r)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.commands_per_tick = per_tick;
    cfg.mpsc_capacity = mpsc_cap;
    cfg.journal_capacity = 1u << 20;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_command_handler_register(w, KIND_RECORD, on_record, r), PCS_OK);
    cr_assert_eq(pcs_command_handler_register(w, KIND_REFUSE, on_refuse, NULL), PCS_OK);
    return w;
}

static pcs_command cmd_of(uint32_t kind, uint32_t target, double arg)
{
    pcs_command c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.target = target;
    c.args[0] = arg;
    return c;
}

Test(commands, struct_is_one_cache_line)
{
    cr_assert_eq(sizeof(pcs_command), 64);
}

Test(commands, shared_ring_capacity_is_exact_and_nothing_accepted_is_lost)
{
    record *r = record_new();
    pcs_world *w = make_world(1000, 10, r);
    for (uint32_t i = 0; i < 10; i++) {
        pcs_command c = cmd_of(KIND_RECORD, i, 0);
        cr_assert_eq(pcs_command_submit(w, &c), PCS_OK);
    }
    pcs_command extra = cmd_of(KIND_RECORD, 99, 0);
    cr_assert_eq(pcs_command_submit(w, &extra), PCS_E_RATE);
    cr_assert(strstr(pcs_last_error(), "capacity of 10") != NULL);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(r->n, 10);
    for (uint32_t i = 0; i < 10; i++) {
        cr_assert_eq(r->applied[i].target, i);
        cr_assert_eq(r->applied[i].seq, i, "refused submit must not consume a sequence number");
    }
    pcs_command_stats st;
    pcs_command_stats_get(w, &st);
    cr_assert_eq(st.submitted, 10);
    cr_assert_eq(st.refused, 1);
    cr_assert_eq(st.applied, 10);
    /* After the drain the ring accepts again. */
    cr_assert_eq(pcs_command_submit(w, &extra), PCS_OK);
    pcs_world_destroy(w);
    free(r);
}

Test(commands, source_capacity_is_exact_for_non_power_of_two)
{
    record *r = record_new();
    pcs_world *w = make_world(1000, 16, r);
    pcs_command_source *src;
    cr_assert_eq(pcs_command_source_open(w, 2, 1, 5, &src), PCS_OK);
    pcs_command c = cmd_of(KIND_RECORD, 0, 0);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(pcs_command_source_submit(src, &c), PCS_OK);
    cr_assert_eq(pcs_command_source_submit(src, &c), PCS_E_RATE);
    cr_assert_eq(pcs_command_pending(w), 5);
    pcs_world_destroy(w);
    free(r);
}

Test(commands, applied_in_class_id_sequence_order)
{
    record *r = record_new();
    pcs_world *w = make_world(1000, 64, r);
    pcs_command_source *a, *b;
    /* Opened in the "wrong" order: (3, 1) before (2, 9). */
    cr_assert_eq(pcs_command_source_open(w, 3, 1, 8, &a), PCS_OK);
    cr_assert_eq(pcs_command_source_open(w, 2, 9, 8, &b), PCS_OK);
    pcs_command c = cmd_of(KIND_RECORD, 0, 0);
    for (int i = 0; i < 3; i++) {
        c.target = 100 + (uint32_t)i;
        pcs_command_source_submit(a, &c);
        c.target = 200 + (uint32_t)i;
        pcs_command_source_submit(b, &c);
        c.target = 300 + (uint32_t)i;
        pcs_command_submit(w, &c);
    }
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(r->n, 9);
    /* Expected: anonymous (class 0) first, then (2, 9), then (3, 1); each by sequence. */
    const uint32_t want[9] = {300, 301, 302, 200, 201, 202, 100, 101, 102};
    for (int i = 0; i < 9; i++)
        cr_assert_eq(r->applied[i].target, want[i], "position %d", i);
    cr_assert_eq(r->applied[3].source_class, 2);
    cr_assert_eq(r->applied[3].source_id, 9);
    cr_assert_eq(r->applied[8].seq, 2);
    pcs_world_destroy(w);
    free(r);
}

Test(commands, per_tick_limit_leaves_leftovers_in_order)
{
    record *r = record_new();
    pcs_world *w = make_world(4, 64, r);
    for (uint32_t i = 0; i < 10; i++) {
        pcs_command c = cmd_of(KIND_RECORD, i, 0);
        cr_assert_eq(pcs_command_submit(w, &c), PCS_OK);
    }
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(r->n, 4);
    cr_assert_eq(pcs_command_pending(w), 6);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(r->n, 10);
    for (uint32_t i = 0; i < 10; i++) {
        cr_assert_eq(r->applied[i].target, i);
        cr_assert_eq(r->applied[i].tick, i / 4, "command %u lands on tick %u", i, i / 4);
    }
    pcs_world_destroy(w);
    free(r);
}

Test(commands, chatty_source_cannot_starve_others)
{
    record *r = record_new();
    pcs_world *w = make_world(4, 64, r);
    pcs_command_source *chatty, *quiet;
    cr_assert_eq(pcs_command_source_open(w, 1, 1, 64, &chatty), PCS_OK);
    cr_assert_eq(pcs_command_source_open(w, 1, 2, 64, &quiet), PCS_OK);
    pcs_command c = cmd_of(KIND_RECORD, 1, 0);
    for (int i = 0; i < 50; i++)
        pcs_command_source_submit(chatty, &c);
    c.target = 2;
    pcs_command_source_submit(quiet, &c);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    int quiet_seen = 0;
    for (uint32_t i = 0; i < r->n; i++)
        quiet_seen += r->applied[i].target == 2;
    cr_assert_eq(quiet_seen, 1, "the quiet source is served on the first tick");
    pcs_world_destroy(w);
    free(r);
}

Test(commands, unknown_kind_and_refused_target_become_events)
{
    record *r = record_new();
    pcs_world *w = make_world(16, 64, r);
    pcs_command unknown = cmd_of(77, 0, 0);
    pcs_command refused = cmd_of(KIND_REFUSE, 12, 0);
    cr_assert_eq(pcs_command_submit(w, &unknown), PCS_OK);
    cr_assert_eq(pcs_command_submit(w, &refused), PCS_OK);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    uint32_t n;
    const pcs_event *ev = pcs_world_events(w, &n);
    cr_assert_eq(n, 2);
    cr_assert_eq(ev[0].kind, PCS_EV_COMMAND_REJECTED);
    cr_assert_eq(ev[0].subject, 77);
    cr_assert_float_eq(ev[0].values[3], (double)PCS_E_NOTFOUND, 0.0);
    cr_assert_eq(ev[1].subject, KIND_REFUSE);
    cr_assert_float_eq(ev[1].values[3], (double)PCS_E_INVAL, 0.0);
    cr_assert_eq(pcs_journal_count(w), 0, "rejected commands are not journaled");
    pcs_world_destroy(w);
    free(r);
}

Test(commands, journal_records_effective_tick)
{
    record *r = record_new();
    pcs_world *w = make_world(16, 64, r);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    pcs_command c = cmd_of(KIND_RECORD, 5, 2.5);
    pcs_command_submit(w, &c);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    pcs_command out[4];
    uint64_t cursor = 0, missed = 9;
    cr_assert_eq(pcs_journal_read(w, &cursor, out, 4, &missed), 1);
    cr_assert_eq(missed, 0);
    cr_assert_eq(cursor, 1);
    cr_assert_eq(out[0].tick, 1);
    cr_assert_eq(out[0].target, 5);
    cr_assert_float_eq(out[0].args[0], 2.5, 0.0);
    pcs_world_destroy(w);
    free(r);
}

Test(commands, bad_submissions_rejected)
{
    record *r = record_new();
    pcs_world *w = make_world(16, 64, r);
    pcs_command c = cmd_of(0, 0, 0);
    cr_assert_eq(pcs_command_submit(w, &c), PCS_E_INVAL);
    c.kind = PCS_COMMAND_KINDS_MAX;
    cr_assert_eq(pcs_command_submit(w, &c), PCS_E_INVAL);
    cr_assert_eq(pcs_command_submit(w, NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_command_submit(NULL, &c), PCS_E_INVAL);
    pcs_command_source *s;
    cr_assert_eq(pcs_command_source_open(w, 0, 1, 8, &s), PCS_E_INVAL);
    cr_assert_eq(pcs_command_source_open(w, 1, 1, 0, &s), PCS_E_INVAL);
    cr_assert_eq(pcs_command_source_open(w, 1, 1, 8, &s), PCS_OK);
    cr_assert_eq(pcs_command_source_open(w, 1, 1, 8, &s), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "already open") != NULL);
    cr_assert_eq(pcs_command_source_submit(NULL, &c), PCS_E_INVAL);
    cr_assert_eq(pcs_command_handler_register(w, KIND_RECORD, on_record, r), PCS_E_INVAL);
    pcs_world_destroy(w);
    free(r);
}

/* 4 producers x 100,000 commands, each through its own source, applied
 * exactly once and in per-producer order while the main thread ticks. */
#define PRODUCERS 4
#define PER_PRODUCER 100000u

typedef struct producer_arg {
    pcs_command_source *src;
    uint32_t index;
    uint64_t rate_refusals;
} producer_arg;

typedef struct seen_state {
    uint32_t next[PRODUCERS];
    uint64_t total;
    int order_ok;
} seen_state;

static pcs_status on_count(pcs_world *w, void *ctx, const pcs_command *cmd)
{
    (void)w;
    seen_state *s = ctx;
    uint32_t p = cmd->target;
    if (p >= PRODUCERS || (uint32_t)cmd->args[0] != s->next[p])
        s->order_ok = 0;
    else
        s->next[p]++;
    s->total++;
    return PCS_OK;
}

static void *produce(void *arg)
{
    producer_arg *a = arg;
    for (uint32_t i = 0; i < PER_PRODUCER;) {
        pcs_command c = cmd_of(KIND_RECORD, a->index, (double)i);
        pcs_status st = pcs_command_source_submit(a->src, &c);
        if (st == PCS_OK)
            i++;
        else {
            a->rate_refusals++; /* full: let the consumer run, then retry the same command */
            sched_yield();
        }
    }
    return NULL;
}

Test(commands, four_producers_each_command_applied_exactly_once)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.commands_per_tick = 4096;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
    static seen_state seen = {.order_ok = 1};
    cr_assert_eq(pcs_command_handler_register(w, KIND_RECORD, on_count, &seen), PCS_OK);
    pthread_t th[PRODUCERS];
    producer_arg args[PRODUCERS];
    for (uint32_t p = 0; p < PRODUCERS; p++) {
        args[p] = (producer_arg){.index = p};
        cr_assert_eq(pcs_command_source_open(w, 1, p, 1024, &args[p].src), PCS_OK);
        pthread_create(&th[p], NULL, produce, &args[p]);
    }
    while (seen.total < (uint64_t)PRODUCERS * PER_PRODUCER)
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    for (uint32_t p = 0; p < PRODUCERS; p++)
        pthread_join(th[p], NULL);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert(seen.order_ok, "per-producer order kept");
    cr_assert_eq(seen.total, (uint64_t)PRODUCERS * PER_PRODUCER, "nothing lost, nothing twice");
    for (uint32_t p = 0; p < PRODUCERS; p++)
        cr_assert_eq(seen.next[p], PER_PRODUCER);
    pcs_command_stats st;
    pcs_command_stats_get(w, &st);
    cr_assert_eq(st.applied, (uint64_t)PRODUCERS * PER_PRODUCER);
    pcs_world_destroy(w);
}
