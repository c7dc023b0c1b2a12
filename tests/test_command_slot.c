/**
 * @file test_command_slot.c
 * @brief Opened sources' rings hold 40-byte slots (engine/command_slot.h),
 *        the shared ring whole records: through either, what a handler and
 *        the journal get back is the public 64-byte record, field for field,
 *        with the source, sequence and tick the queue owns, whatever the
 *        submitter put there, and every argument bit kept.
 *
 * Expected values are hand-set: sequence numbers count the source's accepted
 * commands from 0; the tick is the clock's tick at stage 1 (a fresh world's
 * first tick applies at tick 0); arguments are compared as bits.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "engine/command_slot.h"
#include "pcsim/pcsim.h"

enum { KIND_SEEN = 7, SEEN_MAX = 32 };

typedef struct seen {
    pcs_command cmd[SEEN_MAX];
    uint32_t n;
} seen;

static pcs_status on_seen(pcs_world *w, void *ctx, const pcs_command *cmd)
{
    (void)w;
    seen *s = ctx;
    cr_assert_lt(s->n, SEEN_MAX, "more commands applied than submitted");
    s->cmd[s->n++] = *cmd;
    return PCS_OK;
}

static pcs_world *world_with(uint32_t per_tick, seen *s)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.commands_per_tick = per_tick;
    cfg.mpsc_capacity = 4;
    cfg.journal_capacity = 64;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_command_handler_register(w, KIND_SEEN, on_seen, s), PCS_OK);
    return w;
}

/* Argument bit patterns a value copy could alter: -0.0, a signalling NaN
 * with a payload, a quiet NaN with the sign bit, the smallest subnormal. */
static const uint64_t ARG_BITS[4] = {UINT64_C(0x8000000000000000), UINT64_C(0x7ff4000000000123),
                                     UINT64_C(0xfff8000000abcdef), UINT64_C(0x0000000000000001)};

/* Command i's argument bits: ARG_BITS rotated by i. */
static void arg_bits_of(uint32_t i, uint64_t bits[PCS_COMMAND_ARGS])
{
    for (uint32_t a = 0; a < PCS_COMMAND_ARGS; a++)
        bits[a] = ARG_BITS[(a + i) % PCS_COMMAND_ARGS];
}

/* Command i: target 1000 + i, args arg_bits_of(i), and junk where the queue
 * owns the field (it must overwrite all of it). */
static pcs_command command_i(uint32_t i)
{
    pcs_command c;
    memset(&c, 0xa5, sizeof c);
    c.kind = KIND_SEEN;
    c.target = 1000 + i;
    uint64_t bits[PCS_COMMAND_ARGS];
    arg_bits_of(i, bits);
    memcpy(c.args, bits, sizeof c.args);
    return c;
}

static void assert_command(const pcs_command *got, uint32_t i, uint16_t cls, uint32_t id,
                           uint64_t seq, uint64_t tick, const char *where)
{
    cr_assert_eq(got->kind, KIND_SEEN, "%s: kind %u", where, got->kind);
    cr_assert_eq(got->target, 1000 + i, "%s: target %u, want %u", where, got->target, 1000 + i);
    cr_assert_eq(got->source_class, cls, "%s: class %u, want %u", where, got->source_class, cls);
    cr_assert_eq(got->source_id, id, "%s: id %u, want %u", where, got->source_id, id);
    cr_assert_eq(got->reserved, 0, "%s: reserved %u", where, got->reserved);
    cr_assert_eq(got->seq, seq, "%s: seq %llu, want %llu", where, (unsigned long long)got->seq,
                 (unsigned long long)seq);
    cr_assert_eq(got->tick, tick, "%s: tick %llu, want %llu", where, (unsigned long long)got->tick,
                 (unsigned long long)tick);
    uint64_t want[PCS_COMMAND_ARGS], have[PCS_COMMAND_ARGS];
    arg_bits_of(i, want);
    memcpy(have, got->args, sizeof have);
    for (uint32_t a = 0; a < PCS_COMMAND_ARGS; a++)
        cr_assert_eq(have[a], want[a], "%s: args[%u] bits %016llx, want %016llx", where, a,
                     (unsigned long long)have[a], (unsigned long long)want[a]);
}

Test(command_slot, a_slot_is_40_bytes_and_packs_only_what_the_command_carries)
{
    cr_assert_eq(sizeof(pcs_command_slot), 40);
    pcs_command c = command_i(2);
    pcs_command_slot s = pcs_command_slot_pack(&c);
    pcs_command back;
    memset(&back, 0x5a, sizeof back);
    pcs_command_slot_expand(&s, 9, 123456, 77, &back);
    assert_command(&back, 2, 9, 123456, 77, 0, "pack then expand");
}

Test(command_slot, both_rings_give_handlers_and_the_journal_the_public_record)
{
    seen s = {0};
    pcs_world *w = world_with(64, &s);
    pcs_command_source *src = NULL;
    cr_assert_eq(pcs_command_source_open(w, 3, 77, 8, &src), PCS_OK, "%s", pcs_last_error());
    pcs_command batch[3] = {command_i(0), command_i(1), command_i(2)};
    uint32_t acc = 0;
    cr_assert_eq(pcs_command_source_submit_n(src, batch, 3, &acc), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(acc, 3);
    pcs_command one = command_i(3);
    cr_assert_eq(pcs_command_source_submit(src, &one), PCS_OK, "%s", pcs_last_error());
    pcs_command anon[2] = {command_i(4), command_i(5)};
    for (int k = 0; k < 2; k++)
        cr_assert_eq(pcs_command_submit(w, &anon[k]), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());

    /* (class, id, seq) order: the shared ring (0, 0) first, then (3, 77). */
    cr_assert_eq(s.n, 6);
    assert_command(&s.cmd[0], 4, PCS_SOURCE_ANON, 0, 0, 0, "shared ring, first");
    assert_command(&s.cmd[1], 5, PCS_SOURCE_ANON, 0, 1, 0, "shared ring, second");
    for (uint32_t i = 0; i < 4; i++)
        assert_command(&s.cmd[2 + i], i, 3, 77, i, 0, "opened source");

    pcs_command journal[8];
    uint64_t cursor = 0;
    cr_assert_eq(pcs_journal_read(w, &cursor, journal, 8, NULL), 6);
    for (uint32_t k = 0; k < 6; k++)
        cr_assert_eq(memcmp(&journal[k], &s.cmd[k], sizeof journal[k]), 0,
                     "journal entry %u differs from what the handler got", k);
    pcs_world_destroy(w);
}

Test(command_slot, runs_that_wrap_the_ring_keep_sequence_and_arguments)
{
    seen s = {0};
    /* Three commands a tick from a ring of 4 slots (capacity 3): tick 0
     * takes positions 0-2, tick 1 positions 3, 4, 5 (slots 3, 0, 1: a run
     * split in two), tick 2 positions 6, 7 (slots 2, 3). */
    pcs_world *w = world_with(3, &s);
    pcs_command_source *src = NULL;
    cr_assert_eq(pcs_command_source_open(w, 1, 5, 3, &src), PCS_OK, "%s", pcs_last_error());
    uint32_t next = 0;
    for (uint64_t tick = 0; tick < 4; tick++) {
        while (next < 8) {
            pcs_command c = command_i(next);
            if (pcs_command_source_submit(src, &c) != PCS_OK)
                break; /* full: capacity 3 */
            next++;
        }
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
    }
    /* Commands 0..7 in order, seq = index, applied 3 a tick. */
    cr_assert_eq(s.n, 8);
    for (uint32_t i = 0; i < 8; i++)
        assert_command(&s.cmd[i], i, 1, 5, i, i / 3, "wrapped run");
    pcs_world_destroy(w);
}
