/**
 * @file test_commands_drain.c
 * @brief Stage-1 drain at scale: a full batch from many interleaved sources is
 *        applied in exact (class, id, sequence) order, each command once, and
 *        ordering it costs O(n log n) key comparisons, not O(n^2).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/pcsim.h"
#include "tests/alloc_count.h"

enum { KIND_RECORD = 7 };

#define MAX_APPLIED (1u << 17)

/* The handler records every applied command in order. */
typedef struct record {
    pcs_command applied[MAX_APPLIED];
    uint32_t n;
} record;

/* On the heap, not in .bss: see record_new in tests/test_commands.c. */
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
    if (r->n < MAX_APPLIED)
        r->applied[r->n] = *cmd;
    r->n++;
    return PCS_OK;
}

static pcs_world *make_world(uint32_t per_tick, uint32_t max_sources, record *r)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.commands_per_tick = per_tick;
    cfg.max_sources = max_sources;
    cfg.mpsc_capacity = 1u << 16;
    cfg.journal_capacity = 1024;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_command_handler_register(w, KIND_RECORD, on_record, r), PCS_OK);
    return w;
}

/* target = the source's index in the test, args[0] = its k-th submission. */
static pcs_command cmd_of(uint32_t who, uint32_t k)
{
    pcs_command c;
    memset(&c, 0, sizeof c);
    c.kind = KIND_RECORD;
    c.target = who;
    c.args[0] = (double)k;
    return c;
}

static uint64_t ceil_log2(uint64_t n)
{
    uint64_t l = 0;
    while ((1ull << l) < n)
        l++;
    return l;
}

static int key_before(const pcs_command *a, const pcs_command *b)
{
    if (a->source_class != b->source_class)
        return a->source_class < b->source_class;
    if (a->source_id != b->source_id)
        return a->source_id < b->source_id;
    return a->seq < b->seq;
}

/* applied[from, to) is strictly increasing in (class, id, seq). */
static void assert_strictly_sorted(const record *r, uint32_t from, uint32_t to)
{
    for (uint32_t i = from + 1; i < to; i++) {
        const pcs_command *a = &r->applied[i - 1], *b = &r->applied[i];
        cr_assert(key_before(a, b),
                  "applied[%u] = (class %u, id %u, seq %llu) does not come after applied[%u] = "
                  "(class %u, id %u, seq %llu)",
                  i, b->source_class, b->source_id, (unsigned long long)b->seq, i - 1,
                  a->source_class, a->source_id, (unsigned long long)a->seq);
    }
}

/* 65,536 commands from 64 sources, submitted round-robin, one tick. */
Test(commands_drain, full_batch_of_64_sources_in_order_with_n_log_n_comparisons)
{
    enum { SOURCES = 64, EACH = 1024, N = SOURCES * EACH };
    record *r = record_new();
    pcs_world *w = make_world(N, SOURCES, r);
    pcs_command_source *src[SOURCES];
    /* Opened in reverse (class, id) order so the drain has to reorder them. */
    for (uint32_t s = 0; s < SOURCES; s++) {
        uint32_t who = SOURCES - 1 - s;
        cr_assert_eq(
            pcs_command_source_open(w, (uint16_t)(1 + who / 16), who % 16, EACH, &src[who]), PCS_OK,
            "%s", pcs_last_error());
    }
    for (uint32_t k = 0; k < EACH; k++)
        for (uint32_t s = 0; s < SOURCES; s++) {
            pcs_command c = cmd_of(s, k);
            cr_assert_eq(pcs_command_source_submit(src[s], &c), PCS_OK, "%s", pcs_last_error());
        }
    uint64_t heap_before = pcs_world_alloc_count(w);
    pcs_test_alloc_begin();
    cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
    uint64_t mallocs = pcs_test_alloc_end();
    cr_assert_eq(mallocs, 0, "%llu heap allocations during the tick", (unsigned long long)mallocs);
    cr_assert_eq(pcs_world_alloc_count(w), heap_before, "world-heap allocations during the tick");

    cr_assert_eq(r->n, N, "applied %u commands, submitted %u", r->n, N);
    assert_strictly_sorted(r, 0, N);
    /* Sorted and strictly increasing: source s occupies [s*EACH, (s+1)*EACH)
     * with seq 0..EACH-1, and its k-th submission carries seq k. */
    for (uint32_t i = 0; i < N; i++) {
        const pcs_command *c = &r->applied[i];
        uint32_t who = i / EACH, k = i % EACH;
        cr_assert_eq(c->target, who, "applied[%u] came from source %u, expected %u", i, c->target,
                     who);
        cr_assert_eq(c->source_class, 1 + who / 16);
        cr_assert_eq(c->source_id, who % 16);
        cr_assert_eq(c->seq, k, "applied[%u]: seq %llu, expected %u", i, (unsigned long long)c->seq,
                     k);
        cr_assert_eq(c->args[0], (double)k);
    }

    pcs_command_stats st;
    cr_assert_eq(pcs_command_stats_get(w, &st), PCS_OK);
    uint64_t bound = 2ull * N * ceil_log2(N);
    cr_assert_leq(st.drain_comparisons_last, bound,
                  "ordering %u commands from %u sources took %llu comparisons, more than "
                  "2 n ceil(log2 n) = %llu",
                  N, SOURCES, (unsigned long long)st.drain_comparisons_last,
                  (unsigned long long)bound);
    cr_assert_eq(st.drain_comparisons, st.drain_comparisons_last);
    cr_assert_eq(st.applied, N);
    cr_assert_eq(pcs_command_pending(w), 0);
    pcs_world_destroy(w);
    free(r);
}

/* Uneven sources plus the shared ring, over several ticks of a smaller limit:
 * every tick's batch is in order, nothing is lost or repeated, and what is
 * left behind keeps its order for the next tick. */
Test(commands_drain, mixed_sources_and_shared_ring_over_several_ticks)
{
    enum { SOURCES = 9, PER_TICK = 1000 };
    record *r = record_new();
    pcs_world *w = make_world(PER_TICK, SOURCES, r);
    pcs_command_source *src[SOURCES];
    uint32_t count[SOURCES + 1], total = 0;
    /* Classes and ids out of order; source s submits 37 * s + 5 commands. */
    const uint16_t cls[SOURCES] = {3, 1, 2, 1, 3, 2, 1, 2, 3};
    const uint32_t ids[SOURCES] = {7, 900, 1, 2, 0, 4000000000u, 5, 3, 8};
    for (uint32_t s = 0; s < SOURCES; s++) {
        count[s] = 37 * s + 5;
        total += count[s];
        cr_assert_eq(pcs_command_source_open(w, cls[s], ids[s], count[s], &src[s]), PCS_OK, "%s",
                     pcs_last_error());
    }
    count[SOURCES] = 2500; /* the shared ring: target SOURCES */
    total += count[SOURCES];
    uint32_t next[SOURCES + 1] = {0};
    for (uint32_t done = 0; done < total;)
        for (uint32_t s = 0; s <= SOURCES; s++)
            if (next[s] < count[s]) {
                pcs_command c = cmd_of(s, next[s]++);
                pcs_status st =
                    s < SOURCES ? pcs_command_source_submit(src[s], &c) : pcs_command_submit(w, &c);
                cr_assert_eq(st, PCS_OK, "%s", pcs_last_error());
                done++;
            }

    uint64_t cmps = 0;
    uint32_t ticks = 0;
    while (r->n < total) {
        uint32_t before = r->n;
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
        uint32_t got = r->n - before;
        cr_assert(got == PER_TICK || (got > 0 && r->n == total),
                  "tick %u applied %u commands (limit %u, %u of %u applied)", ticks, got, PER_TICK,
                  r->n, total);
        assert_strictly_sorted(r, before, r->n);
        pcs_command_stats st;
        cr_assert_eq(pcs_command_stats_get(w, &st), PCS_OK);
        cr_assert_leq(st.drain_comparisons_last, 2ull * got * ceil_log2(got),
                      "tick %u: ordering %u commands took %llu comparisons, more than %llu", ticks,
                      got, (unsigned long long)st.drain_comparisons_last,
                      (unsigned long long)(2ull * got * ceil_log2(got)));
        cmps += st.drain_comparisons_last;
        cr_assert_eq(st.drain_comparisons, cmps);
        ticks++;
    }
    cr_assert_eq(r->n, total);
    cr_assert_eq(ticks, (total + PER_TICK - 1) / PER_TICK);
    /* Every command once, each source's in submission order across ticks. */
    uint32_t seen[SOURCES + 1] = {0};
    for (uint32_t i = 0; i < total; i++) {
        const pcs_command *c = &r->applied[i];
        uint32_t who = c->target;
        cr_assert_leq(who, SOURCES);
        cr_assert_eq(c->seq, seen[who], "applied[%u] from source %u has seq %llu, expected %u", i,
                     who, (unsigned long long)c->seq, seen[who]);
        cr_assert_eq(c->args[0], (double)seen[who]);
        cr_assert_eq(c->source_class, who < SOURCES ? cls[who] : PCS_SOURCE_ANON);
        cr_assert_eq(c->source_id, who < SOURCES ? ids[who] : 0);
        seen[who]++;
    }
    for (uint32_t s = 0; s <= SOURCES; s++)
        cr_assert_eq(seen[s], count[s], "source %u: applied %u of %u", s, seen[s], count[s]);
    pcs_world_destroy(w);
    free(r);
}

/* The drain takes exactly what passes of one command per source in (class, id)
 * order take. Held: shared ring (0, 0) 2, A (1, 1) 5, B (1, 2) 1, C (2, 0) 3,
 * D (3, 0) 0; limit 8. Pass 1 takes shared, A, B, C (4); pass 2 shared, A, C
 * (7); pass 3 A (8). By hand: tick 0 = shared 0-1, A 0-2, B 0, C 0-1; tick 1
 * = A 3-4, C 2. */
Test(commands_drain, shares_under_the_limit_match_one_per_source_passes)
{
    record *r = record_new();
    pcs_world *w = make_world(8, 4, r);
    enum { SHARED = 0, A = 1, B = 2, C = 3, D = 4 };
    const uint16_t cls[] = {0, 1, 1, 2, 3};
    const uint32_t ids[] = {0, 1, 2, 0, 0};
    const uint32_t held[] = {2, 5, 1, 3, 0};
    pcs_command_source *src[5] = {NULL};
    /* Opened out of (class, id) order. */
    const int open_order[] = {C, D, B, A};
    for (int i = 0; i < 4; i++) {
        int s = open_order[i];
        cr_assert_eq(pcs_command_source_open(w, cls[s], ids[s], 8, &src[s]), PCS_OK, "%s",
                     pcs_last_error());
    }
    for (uint32_t s = 0; s < 5; s++)
        for (uint32_t k = 0; k < held[s]; k++) {
            pcs_command c = cmd_of(s, k);
            cr_assert_eq(s == SHARED ? pcs_command_submit(w, &c)
                                     : pcs_command_source_submit(src[s], &c),
                         PCS_OK);
        }
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    const struct {
        uint32_t who, seq, tick;
    } want[] = {{SHARED, 0, 0}, {SHARED, 1, 0}, {A, 0, 0}, {A, 1, 0}, {A, 2, 0}, {B, 0, 0},
                {C, 0, 0},      {C, 1, 0},      {A, 3, 1}, {A, 4, 1}, {C, 2, 1}};
    const uint32_t n = sizeof want / sizeof want[0];
    cr_assert_eq(r->n, n, "applied %u commands, expected %u", r->n, n);
    for (uint32_t i = 0; i < n; i++) {
        const pcs_command *c = &r->applied[i];
        cr_assert(c->target == want[i].who && c->seq == want[i].seq && c->tick == want[i].tick,
                  "applied[%u] = source %u seq %llu on tick %llu, expected source %u seq %u on "
                  "tick %u",
                  i, c->target, (unsigned long long)c->seq, (unsigned long long)c->tick,
                  want[i].who, want[i].seq, want[i].tick);
    }
    cr_assert_eq(pcs_command_pending(w), 0);
    pcs_world_destroy(w);
    free(r);
}
