/**
 * @file command_slot.h
 * @brief A queued command as its ring holds it: only what the command
 *        carries (kind, target, arguments), 40 bytes instead of the public
 *        pcs_command's 64.
 *
 * Why the rest is not stored (issue 16, "a record no bigger than the data it
 * carries"). In an opened source's ring, source_class and source_id are the
 * ring's own (one ring per source); seq is the command's position in its
 * ring (tail + i at enqueue, head + j at dequeue: the same count); tick is
 * set when stage 1 applies the command; reserved is zero. So the slot keeps kind, target and
 * the four arguments, and pcs_command_slot_expand() rebuilds the public
 * record from the slot plus the ring's (class, id) and the position.
 *
 * Why a fixed 40-byte slot and not a record sized by the arguments a kind
 * uses (the other choice issue 16 allows):
 *  - The engine does not know how many arguments a kind uses: handlers read
 *    args[] as they please and register no arity. A length would have to be
 *    inferred per command (the last argument whose bits are not +0.0), a
 *    branchy scan on the submit path, plus a length field in every record.
 *  - Capacity is exact in commands, so a variable ring still needs room for
 *    capacity records of the largest size: no memory is saved, only bytes
 *    moved, and the producer's room check would count both bytes and
 *    commands (two limits where the counting protocol has one).
 *  - With a fixed slot, slot k is at k * 40: the drain still takes a
 *    source's quota as one or two contiguous runs, the free-running counts
 *    keep their meaning, and verify/commands_ring.pml's counting protocol is
 *    unchanged. A variable record must be parsed in order.
 *  - The saving left on the table is small: a 1-argument command would be
 *    about 24 bytes (kind, target, length, one double) instead of 40.
 * The shared ck_ring keeps whole records (engine/command.c, "Slots": there
 * the slot measured slower).
 * 40 bytes, 8-byte aligned, no padding: 37.5 % fewer bytes (and cache lines
 * moved between the producer's and the drain's cores) per command than 64.
 * A slot straddles lines (8 slots per 5 lines), which costs nothing for the
 * sequential runs both sides access.
 *
 * Arguments are copied as bytes (memcpy, not double assignments), so every bit pattern (NaN
 * payloads, -0.0) reaches the handler and the journal unchanged.
 *
 * Thread-safety: plain data and pure functions; the rings that hold slots
 * order their accesses (engine/command.c, "Memory ordering").
 */
#ifndef PCSIM_ENGINE_COMMAND_SLOT_H
#define PCSIM_ENGINE_COMMAND_SLOT_H

#include <stdint.h>
#include <string.h>

#include "pcsim/command.h"

/** What a ring stores of one command. */
typedef struct pcs_command_slot {
    uint32_t kind;                 /**< as submitted (checked in [1, PCS_COMMAND_KINDS_MAX)) */
    uint32_t target;               /**< as submitted: pcs_target_id_store() of the target */
    double args[PCS_COMMAND_ARGS]; /**< as submitted, bit for bit (SI units, model-defined) */
} pcs_command_slot;

_Static_assert(sizeof(pcs_command_slot) == 40, "a slot is kind, target and 4 args, no padding");

/** The slot of @p cmd: its kind, target and arguments; the rest is implied. */
static inline pcs_command_slot pcs_command_slot_pack(const pcs_command *cmd)
{
    pcs_command_slot s;
    s.kind = cmd->kind;
    s.target = cmd->target;
    memcpy(s.args, cmd->args, sizeof s.args); /* bytes: every bit pattern kept */
    return s;
}

/**
 * The public record of slot @p s queued by source (@p source_class,
 * @p source_id) with sequence number @p seq, written to @p out: reserved and
 * tick zero (tick is set at apply), as the 64-byte ring stamped them.
 */
static inline void pcs_command_slot_expand(const pcs_command_slot *s, uint16_t source_class,
                                           uint32_t source_id, uint64_t seq, pcs_command *out)
{
    out->kind = s->kind;
    out->source_class = source_class;
    out->reserved = 0;
    out->source_id = source_id;
    out->target = s->target;
    out->seq = seq;
    out->tick = 0;
    memcpy(out->args, s->args, sizeof out->args);
}

#endif
