/*
 * commands_ring.pml: the command submission path's capacity logic and the
 * stage-1 drain, as the C code does it today (engine/command.c: the shared
 * ring on ck_ring 0.7.1's reserve/commit API, /usr/include/ck_ring.h; an
 * opened source's own SPSC ring of tail and head counts). verify/README.md
 * explains how to run it and records the results.
 *
 * Actors. Source 0 is the shared MPSC ring (class 0, capacity CAP0) with MP
 * producers calling pcs_command_submit, M commands each, once each (a
 * refused one is not retried). Source 1 is an opened SPSC source (class 1,
 * capacity CAP1) with one producer calling pcs_command_source_submit_n on
 * its MS commands: the accepted prefix is done, the rest is submitted again
 * as a batch; a refusal (nothing accepted) drops the first command and goes
 * on. The world thread runs stage 1 (command.c:pcs_commands_stage) tick
 * after tick, draining at most LIMIT commands a tick (commands_per_tick),
 * until the producers are done and the rings are empty.
 *
 * What is modelled. Shared ring: the occupancy counter (command.c:reserve,
 * mpsc_dequeue), ck's ring indices (p_head, p_tail, c_head) and slots, the
 * MPSC reserve's CAS on p_head and its in-order commit (a producer waits for
 * p_tail to reach its ticket), the sequence stamped by the drain in ring
 * order. SPSC source: the producer's own load of tail, its cached head and
 * the acquire reload when the cached room is short (command.c:spsc_room),
 * the prefix, the slot writes and the release store of tail
 * (spsc_enqueue); the drain's acquire load of tail (spsc_held), the slot
 * copies with the sequence stamped from the position and the release store
 * of head (spsc_dequeue_n, spsc_expand_run). The drain's quota plan (command.c:plan_quotas, the C
 * bisection, checked against the definition: passes of one command per
 * source), the sorted-run check and apply.
 *
 * What is abstracted. Statements interleave under sequential consistency.
 * ck_ring publishes slots with its own fences (x86-64 TSO, ck 0.7.1); the
 * occupancy counter is a locked RMW (acq_rel). On TSO the only reordering
 * is a store followed by a load of another word; on the shared ring every
 * such pair is separated by a locked RMW (fetch_add, CAS, fetch_sub), except
 * the drain's c_head store followed by the next ck_ring_size load of p_tail,
 * and a stale p_tail there only makes the drain see fewer commands, which
 * the model covers by interleaving the p_tail load anywhere. On the SPSC
 * ring the C11 orders are release stores (tail after the slots, head after
 * the copies) and acquire loads (tail before the copies, head before the
 * slot writes): each such pair is one modelled step per access in program
 * order, which is what release/acquire guarantee between the two threads;
 * a store then load reordering (TSO) only makes a load return an older
 * count, i.e. the load taking effect earlier, which the interleavings
 * already include. ck's CAS retry loop is one load of p_head, one of c_head
 * and one CAS step (a failed CAS retries with nothing changed). Indices and
 * counts never wrap here. Command contents, kinds, handlers, the journal
 * and events are left out.
 *
 * Slot contents (issue 16). The rings hold 40-byte slots
 * (engine/command_slot.h: kind, target, args; command.c file comment,
 * "Slots"): a slot is modelled by slot_id, which command it holds. The
 * producer no longer writes a sequence number into its slot; the drain
 * stamps it from the ring position as it expands the slot
 * (command.c:spsc_expand_run, head + j; the shared ring's next_seq in
 * mpsc_dequeue, as before), and so does this model. The counting protocol
 * (tail, head and head_seen; occupancy and ck's indices) did not change
 * with the slot layout: only where the sequence number is computed moved,
 * from the producer's slot write to the drain's copy.
 *
 * Claims checked (assert), for every interleaving:
 *   C1 capacity: a source never holds more than its capacity. Shared ring:
 *      slots claimed and not yet dequeued, and ck's reserve never fails after
 *      a successful reservation (the "unreachable" guard in
 *      command.c:mpsc_enqueue). SPSC: tail - head <= CAP1 at every state, and
 *      the producer never writes a slot whose previous command the drain has
 *      not copied out yet (position - copied < CAP1).
 *   C2 the shared ring's occupancy never undercounts what it holds
 *      (command.c file comment, "Capacity, the shared ring").
 *   C3 exactly once: every accepted command is applied once, a refused one
 *      never; nothing is lost or duplicated.
 *   C4 order: each producer's commands are applied in submission order; each
 *      source's sequence numbers are applied as 0, 1, 2, ... (a refusal takes
 *      no number), within a tick and across ticks and batches; every drained
 *      run is already sorted (sort_batch never has to sort).
 *   C5 drain: plan_quotas gives what passes of one command per source take,
 *      at most LIMIT in all, and the drain dequeues exactly that; also
 *      checked for every holding up to QMAX per source and every limit up
 *      to 2 * QMAX (proctype plan_quotas_table), since the small rings of
 *      the interleavings never reach its partial pass.
 *   C6 refusal at once and exact: the refusal path has no wait (by
 *      construction: no blocking statement between the room test and the
 *      return). An SPSC source's room, when it decides a refusal or a short
 *      prefix, is the true room at that instant (capacity - (tail - head));
 *      a cached room is used only when it covers the whole batch. On the
 *      shared MPSC ring the strict claim (refused only when it holds its
 *      capacity) is checked only with -DSTRICT_REFUSAL, which spin refutes:
 *      a producer can be refused while the ring holds capacity - 1, because
 *      another producer's refused reservation has not been backed out yet
 *      (verify/README.md, "Findings").
 *
 * Rate limits (command.c:rate_tokens, rate_refuse,
 * pcs_command_source_set_rate) are not modelled, and need not be: they do
 * not change the protocol modelled here. The check runs on the producer's
 * thread before the room check, reads only the source's own bucket (written
 * by that producer alone) and the drain count (a counter the world thread
 * bumps at stage 1, which nothing here reads or orders against), and when it
 * refuses it returns before touching tail, head or a slot, writing no shared
 * word but the source's refused_rate counter, which nothing here reads. On
 * the modelled state a rate refusal is a submit that never happened, and a
 * batch cut short by the bucket is a batch with fewer commands: runs of this
 * model with fewer commands for that producer, which the claims cover as
 * they stand (C3 counts it as neither accepted nor applied; C4: it takes no
 * sequence number, since the number is the position, which it never gets). Tokens are spent after the
 * room check, producer-locally. C6 is about capacity refusals.
 *
 * Broken variants (one change each; make verify requires spin to REJECT it):
 *   BROKEN_LOAD_STORE     command.c:reserve takes its slot with a load and a
 *                         separate store instead of one fetch_add: the change
 *                         of the stress fixture broken.counter_load_store
 *                         (stress/broken_fixtures.c, counter_racy_incr).
 *                         Fails C1/C2 on the shared ring.
 *   BROKEN_RELEASE_EARLY  command.c:spsc_dequeue_n stores head before it
 *                         copies the slots out instead of after: the change
 *                         of the stress fixture broken.spsc_release_early
 *                         (stress/broken_fixtures.c, spsc_pop_release_early).
 *                         The producer reuses a slot the drain has not read.
 *                         Fails C1 (and C3).
 */

#ifndef CAP0
#define CAP0 2 /* shared ring: capacity 2 in a ring of 4 slots (holds 3) */
#endif
#ifndef CAP1
#define CAP1 2 /* opened source: capacity 2 in a ring of 2 slots */
#endif
#ifndef MP
#define MP 2 /* producers on the shared ring */
#endif
#ifndef M
#define M 2 /* commands per shared-ring producer */
#endif
#ifndef MS
#define MS 3 /* commands of the SPSC producer, submitted as batches */
#endif
#ifndef LIMIT
#define LIMIT 2 /* commands_per_tick */
#endif

/* command.c:source_new via ring_slots_for: the shared ring gets the next
 * power of two above its capacity (ck keeps a slot free), an SPSC ring the
 * power of two at or above it (its counts use every slot). */
#define POW2_ABOVE(c) ((c) < 2 -> 2 : ((c) < 4 -> 4 : 8))
#define POW2_ATLEAST(c) ((c) <= 1 -> 1 : ((c) <= 2 -> 2 : ((c) <= 4 -> 4 : 8)))
#define SLOTMAX 8
#define NSRC 2
#define NPROD (MP + 1) /* producer MP is the SPSC source's */
#define NMP (MP * M)   /* shared-ring command ids: producer * M + index */
#define NCMD (NMP + MS) /* SPSC command ids: NMP + index */
#define PROD(id) ((id) < NMP -> (id) / M : MP)
#define IDX(id) ((id) < NMP -> (id) % M : (id) - NMP)
#define CAP(s) ((s) == 0 -> CAP0 : CAP1)
#define MASK0 (POW2_ABOVE(CAP0) - 1)
#define MASK1 (POW2_ATLEAST(CAP1) - 1)

#define NONE 0
#define ACCEPTED 1
#define REFUSED 2

/* ck_ring_t of the shared ring */
byte p_head0;
byte p_tail0;
byte c_head0;
/* the SPSC source's counts: tail (producer, release), head (drain, release) */
byte tail1;
byte head1;
/* slots: source s's slot i at s * SLOTMAX + i */
byte slot_id[NSRC * SLOTMAX]; /* the command a slot holds (its kind, target, args) */
/* pcs_command_source fields of the shared ring */
short occ0; /* occupancy (uint32_t in C; signed here so an undercount shows) */
byte next_seq0;
/* ghosts */
byte held0;   /* successful reservations not yet released by the drain */
byte inring0; /* slots claimed by a producer and not yet dequeued */
byte copied1; /* SPSC commands the drain has copied out */
byte status[NCMD];
byte applied[NCMD];
byte done = 0; /* producers finished */

/* C1, C2 at every reachable state: a monitor that waits for a violation. */
active proctype monitor()
{
end:
    atomic {
        (inring0 > CAP0 || held0 > CAP0 || occ0 < inring0 || tail1 - head1 > CAP1) ->
        assert(inring0 <= CAP0);      /* C1 */
        assert(held0 <= CAP0);        /* C1 */
        assert(occ0 >= inring0);      /* C2 */
        assert(tail1 - head1 <= CAP1) /* C1 */
    }
}

/* Ghost bookkeeping at the reservation's fetch_add (same atomic step): a
 * successful one is held until the drain releases it; a refused one is
 * checked against C6 at the instant it was decided. */
inline refusal_check()
{
    if
    :: before < CAP0 -> held0++
    :: else ->
#ifdef STRICT_REFUSAL
        assert(held0 >= CAP0) /* C6, strict, on the shared ring */
#else
        skip
#endif
    fi
}

/* command.c:mpsc_enqueue for producer me, command k (pcs_command_submit). */
inline mpsc_submit(me, k)
{
    /* command.c:reserve */
#ifdef BROKEN_LOAD_STORE
    before = occ0;    /* BROKEN: a relaxed load ... */
    atomic {
        occ0 = before + 1; /* ... and a separate store (broken.counter_load_store) */
        refusal_check()
    }
#else
    atomic { /* atomic_fetch_add_explicit(&s->occupancy, 1, acq_rel) */
        before = occ0;
        occ0++;
        refusal_check()
    }
#endif
    if
    :: before >= CAP0 ->
        /* command.c:reserve: refused; refuse_full: PCS_E_RATE at once */
        atomic { /* atomic_fetch_sub_explicit(&s->occupancy, 1, acq_rel) */
            occ0--;
            status[me * M + k] = REFUSED /* and refused++ */
        }
    :: else ->
        /* ck_ring_enqueue_reserve_mpsc: CAS loop on p_head */
        do
        :: prod = p_head0;
           cons = c_head0;
           if
           :: (prod - cons) < MASK0 ->
               atomic { /* ck_pr_cas_uint_value(&ring->p_head, producer, producer + 1) */
                   if
                   :: p_head0 == prod -> p_head0++; inring0++; break
                   :: else
                   fi
               }
           :: else ->
               /* ring full per ck: NULL if p_head did not move */
               assert(p_head0 != prod) /* C1: the command.c:mpsc_enqueue guard never fires */
           fi
        od;
        /* command.c:mpsc_enqueue: *slot = c (seq 0: stamped by the drain) */
        slot_id[prod & MASK0] = me * M + k;
        /* ck_ring_enqueue_commit_mpsc: wait for p_tail == ticket, then publish */
        atomic {
            p_tail0 == prod ->
            p_tail0 = prod + 1;
            status[me * M + k] = ACCEPTED /* and submitted++ */
        }
    fi;
    before = 0;
    prod = 0;
    cons = 0
}

/* command.c:pcs_command_source_submit_n -> spsc_enqueue on the SPSC source,
 * for commands k .. MS - 1 as one batch; sets acc to the accepted prefix. */
inline spsc_submit_n(k)
{
    want = MS - k;
    /* spsc_enqueue: tail = load(&s->tail, relaxed): the producer's own */
    t = tail1;
    /* command.c:spsc_room: the cached room, reloaded when short */
    room = CAP1 - (t - seen);
    if
    :: room < want ->
        atomic { /* seen = atomic_load_explicit(&s->head, acquire) */
            seen = head1;
            room = CAP1 - (t - seen);
            assert(room == CAP1 - (tail1 - head1)) /* C6: the true room now */
        }
    :: else
    fi;
    if
    :: room == 0 ->
        /* command.c:refuse_full: PCS_E_RATE at once, nothing queued */
        status[NMP + k] = REFUSED;
        acc = 0
    :: else ->
        acc = (want < room -> want : room);
        i = 0;
        do
        :: i < acc ->
            atomic { /* spsc_enqueue: slots[(tail + i) & mask] = pcs_command_slot_pack(&cmds[i]) */
                assert(t + i - copied1 < CAP1); /* C1: that slot's last command was copied */
                slot_id[SLOTMAX + ((t + i) & MASK1)] = NMP + k + i
            }
            i++
        :: else -> break
        od;
        atomic { /* atomic_store_explicit(&s->tail, tail + k, release) */
            tail1 = t + acc;
            i = 0;
            do
            :: i < acc -> status[NMP + k + i] = ACCEPTED; i++
            :: else -> break
            od
        }
    fi;
    t = 0;
    room = 0;
    i = 0
}

/* command.c:plan_quotas for two sources holding held_now[0], held_now[1]
 * (source 0 first in (class, id) order), into quota[]: as the C code computes
 * it, the largest level L with taken_by_passes(L) <= limit by bisection, then
 * the partial pass; checked (C5) against the definition, passes of one
 * command per source until limit. Uses the caller's scratch variables. */
inline plan_quotas(limit)
{
    total = held_now[0] + held_now[1];
    most = (held_now[0] > held_now[1] -> held_now[0] : held_now[1]);
    quota[0] = held_now[0];
    quota[1] = held_now[1];
    if
    :: total > limit ->
        lo = 0;
        hi = most;
        do
        :: hi - lo > 1 ->
            mid = lo + (hi - lo) / 2;
            t = (held_now[0] < mid -> held_now[0] : mid) +
                (held_now[1] < mid -> held_now[1] : mid);
            if
            :: t <= limit -> lo = mid
            :: else -> hi = mid
            fi
        :: else -> break
        od;
        left = limit - ((held_now[0] < lo -> held_now[0] : lo) +
                        (held_now[1] < lo -> held_now[1] : lo));
        s = 0;
        do
        :: s < NSRC ->
            quota[s] = (held_now[s] < lo -> held_now[s] : lo);
            if
            :: held_now[s] > lo && left > 0 -> quota[s]++; left--
            :: else
            fi;
            s++
        :: else -> break
        od
    :: else
    fi;
    /* C5: the definition: passes of one command per source in order */
    want[0] = 0;
    want[1] = 0;
    t = 0;
    do
    :: t < limit && (want[0] < held_now[0] || want[1] < held_now[1]) ->
        s = 0;
        do
        :: s < NSRC && t < limit ->
            if
            :: want[s] < held_now[s] -> want[s]++; t++
            :: else
            fi;
            s++
        :: else -> break
        od
    :: else -> break
    od;
    assert(quota[0] == want[0] && quota[1] == want[1]); /* C5 */
    assert(quota[0] + quota[1] <= limit);               /* C5 */
    want[0] = 0; want[1] = 0; t = 0; lo = 0; hi = 0; mid = 0; left = 0; most = 0;
    total = 0; s = 0
}

/* Producers 0 .. MP - 1: pcs_command_submit on the shared ring (source 0);
 * producer MP: pcs_command_source_submit_n on its own source (source 1),
 * the unaccepted rest again as a batch, a refused first command dropped. */
active [NPROD] proctype producer()
{
    byte me = _pid - 1; /* the monitor is pid 0 */
    byte k = 0;
    short before;
    byte prod, cons;
    byte want, t, room, i, acc;
    byte seen = 0; /* command.c: s->head_seen, producer-local */
    if
    :: me < MP ->
        do
        :: k < M -> mpsc_submit(me, k); k++
        :: else -> break
        od
    :: else ->
        do
        :: k < MS ->
            spsc_submit_n(k);
            k = k + (acc == 0 -> 1 : acc)
        :: else -> break
        od
    fi;
    done++
}

/* command.c:pcs_commands_stage, tick after tick, on the world thread. */
active proctype world()
{
    byte held_now[NSRC]; /* plan_quotas: source_held of each source */
    byte quota[NSRC];
    byte want[NSRC];
    byte batch[LIMIT];   /* command ids, drained in order */
    byte bseq[LIMIT];    /* their sequence numbers */
    byte bsrc[LIMIT];
    byte n, j, s, id, lo, hi, mid, t, left, most, total, h;
    byte last_k[NPROD]; /* per producer: 1 + index of its last applied command */
    byte seq_next[NSRC]; /* per source: the next sequence number to apply */
    do
    :: done == NPROD && c_head0 == p_tail0 && head1 == tail1 -> break
    :: else ->
        /* command.c:adopt_new_sources: order is source 0 (class 0), then 1 */
        /* command.c:plan_quotas: held = source_held(s), source by source */
        held_now[0] = (p_tail0 - c_head0) & MASK0; /* ck_ring_size */
        h = head1;                                 /* spsc_held: own head, relaxed */
        held_now[1] = tail1 - h;                   /* ... minus tail, acquire */
        d_step { plan_quotas(LIMIT) };
        /* command.c:drain: each source's share, source after source */
        n = 0;
        /* the shared ring: command.c:mpsc_dequeue, one at a time */
        j = 0;
        do
        :: j < quota[0] ->
            /* ck_ring_size != 0 (C5: what was counted is there) */
            assert(c_head0 != p_tail0);
            atomic { /* ck_ring_dequeue_spsc_pcs_cmd: copy the slot, c_head + 1 */
                batch[n] = slot_id[c_head0 & MASK0];
                bsrc[n] = 0;
                c_head0++;
                inring0--;
                /* mpsc_dequeue: the shared ring's seq, stamped in ring order
                 * (consumer-owned, so one step with the dequeue) */
                bseq[n] = next_seq0;
                next_seq0++
            }
            atomic { /* atomic_fetch_sub_explicit(&s->occupancy, 1, acq_rel) */
                occ0--;
                held0--
            }
            n++;
            j++
        :: else -> break
        od;
        /* the SPSC source: command.c:spsc_dequeue_n, quota[1] <= held_now[1] */
#ifdef BROKEN_RELEASE_EARLY
        head1 = h + quota[1]; /* BROKEN: release store of head before the copy */
#endif
        j = 0;
        do
        :: j < quota[1] ->
            atomic { /* spsc_expand_run: one slot, its sequence = head + j */
                assert(h + j < tail1); /* C5: what was counted is there */
                batch[n] = slot_id[SLOTMAX + ((h + j) & MASK1)];
                bseq[n] = h + j;
                bsrc[n] = 1;
                copied1++
            }
            n++;
            j++
        :: else -> break
        od;
#ifndef BROKEN_RELEASE_EARLY
        head1 = h + quota[1]; /* atomic_store_explicit(&s->head, head + k, release) */
#endif
        h = 0;
        s = 0;
        d_step {
            /* command.c:sort_batch: every run in sequence order (C4), then apply */
            j = 0;
            do
            :: j < n ->
                if
                :: j > 0 && bsrc[j] == bsrc[j - 1] -> assert(bseq[j] > bseq[j - 1]) /* C4 */
                :: else
                fi;
                /* command.c:apply */
                id = batch[j];
                assert(status[id] == ACCEPTED); /* C3: never a refused one */
                assert(applied[id] == 0);       /* C3: never twice */
                applied[id] = 1;
                assert(IDX(id) + 1 > last_k[PROD(id)]); /* C4: producer order */
                last_k[PROD(id)] = IDX(id) + 1;
                assert(bseq[j] == seq_next[bsrc[j]]);    /* C4: 0, 1, 2 ... per source */
                seq_next[bsrc[j]]++;
                batch[j] = 0; bseq[j] = 0; bsrc[j] = 0;
                j++
            :: else -> break
            od;
            n = 0; j = 0; id = 0; quota[0] = 0; quota[1] = 0; held_now[0] = 0; held_now[1] = 0;
            s = 0
        }
    od;
    /* C3: after the last tick, accepted == applied, command by command */
    j = 0;
    do
    :: j < NCMD ->
        assert(status[j] != NONE);
        assert((status[j] == ACCEPTED) == (applied[j] == 1));
        j++
    :: else -> break
    od;
    assert(occ0 == 0 && copied1 == tail1)
}

/* C5 for every input, not only the ones the interleavings reach (the small
 * rings here never need the partial pass): plan_quotas over all holdings
 * 0..QMAX per source and all limits 1..2 * QMAX, in one deterministic step. */
#define QMAX 6
active proctype plan_quotas_table()
{
    byte held_now[NSRC], quota[NSRC], want[NSRC];
    byte s, lo, hi, mid, t, left, most, total, lim;
    d_step {
        lim = 1;
        do
        :: lim <= 2 * QMAX ->
            held_now[0] = 0;
            do
            :: held_now[0] <= QMAX ->
                held_now[1] = 0;
                do
                :: held_now[1] <= QMAX -> plan_quotas(lim); held_now[1]++
                :: else -> break
                od;
                held_now[0]++
            :: else -> break
            od;
            lim++
        :: else -> break
        od;
        held_now[0] = 0; held_now[1] = 0; quota[0] = 0; quota[1] = 0; lim = 0
    }
}
