/*
 * commands_ring.pml: the command submission path's capacity logic and the
 * stage-1 drain, as the C code does it today (engine/command.c on ck_ring
 * 0.7.1's reserve/commit API, /usr/include/ck_ring.h). verify/README.md
 * explains how to run it and records the results.
 *
 * Actors. Source 0 is the shared MPSC ring (class 0, capacity CAP0) with MP
 * producers calling pcs_command_submit; source 1 is an opened SPSC source
 * (class 1, capacity CAP1) with one producer calling
 * pcs_command_source_submit. Each producer submits M commands once each (a
 * refused one is not retried). The world thread runs stage 1
 * (command.c:pcs_commands_stage) tick after tick, draining at most LIMIT
 * commands a tick (commands_per_tick), until the producers are done and the
 * rings are empty.
 *
 * What is modelled. The occupancy counter (command.c:reserve, dequeue), ck's
 * ring indices (p_head, p_tail, c_head) and slots, the MPSC reserve's CAS on
 * p_head and its in-order commit (a producer waits for p_tail to reach its
 * ticket), the SPSC producer's sequence stamp, the drain's quota plan
 * (command.c:plan_quotas, the C bisection, checked against the definition:
 * passes of one command per source), the dequeue with the shared ring's
 * sequence stamped in ring order, the sorted-run check and apply.
 *
 * What is abstracted. Statements interleave under sequential consistency.
 * ck_ring publishes slots with its own fences (x86-64 TSO, ck 0.7.1); the
 * occupancy counter is a locked RMW (acq_rel). On TSO the only reordering
 * is a store followed by a load of another word; on this path every such
 * pair is separated by a locked RMW (fetch_add, CAS, fetch_sub), except the
 * drain's c_head store followed by the next ck_ring_size load of p_tail, and
 * a stale p_tail there only makes the drain see fewer commands, which the
 * model covers by interleaving the p_tail load anywhere. ck's CAS retry loop
 * is one load of p_head, one of c_head and one CAS step (a failed CAS retries
 * with nothing changed). Rings here never wrap their unsigned indices.
 * Command contents, kinds, handlers, the journal and events are left out.
 *
 * Claims checked (assert), for every interleaving:
 *   C1 capacity: a source never holds more than its capacity (slots claimed
 *      and not yet dequeued), and ck's reserve never fails after a
 *      successful reservation (the "unreachable" guard in command.c:enqueue).
 *   C2 occupancy never undercounts what the ring holds (command.c file
 *      comment, "Capacity").
 *   C3 exactly once: every accepted command is applied once, a refused one
 *      never; nothing is lost or duplicated.
 *   C4 order: each producer's commands are applied in submission order; each
 *      source's sequence numbers are applied as 0, 1, 2, ... (a refusal takes
 *      no number), within a tick and across ticks; every drained run is
 *      already sorted (sort_batch never has to sort).
 *   C5 drain: plan_quotas gives what passes of one command per source take,
 *      at most LIMIT in all, and the drain dequeues exactly that; also
 *      checked for every holding up to QMAX per source and every limit up
 *      to 2 * QMAX (proctype plan_quotas_table), since the small rings of
 *      the interleavings never reach its partial pass.
 *   C6 refusal at once: the refusal path has no wait (by construction of the
 *      model: no blocking statement between the fetch_add and the return);
 *      an SPSC source refuses only when it holds its capacity (reservations
 *      not yet released by the drain). On the shared MPSC ring the same
 *      strict claim is checked only with -DSTRICT_REFUSAL, which spin
 *      refutes: a producer can be refused while the ring holds capacity - 1,
 *      because another producer's refused reservation has not been backed
 *      out yet (verify/README.md, "Findings").
 *
 * Rate limits (command.c:rate_take, pcs_command_source_set_rate) are not
 * modelled, and need not be: they do not change the protocol modelled here.
 * The check runs on the producer's thread before reserve(), reads only the
 * source's own bucket (written by that producer alone) and the drain count
 * (a counter the world thread bumps at stage 1, which nothing here reads or
 * orders against), and when it refuses it returns before the fetch_add, so it
 * writes no shared word but the source's refused_rate counter, which nothing
 * here reads. On the modelled state a rate refusal is a submit that never
 * happened, i.e. a run of this model with fewer commands for that producer,
 * which the claims cover as they stand (C3 counts it as neither accepted nor
 * applied; C4: it takes no sequence number, since next_seq is stamped after
 * reserve). The one rate action after reserve, giving back the token of a
 * command refused for capacity, is again producer-local. C6 is about
 * capacity refusals; a rate refusal can happen on a source that is not full.
 *
 * Broken variant (one change; make verify requires spin to REJECT it):
 *   BROKEN_LOAD_STORE  command.c:reserve takes its slot with a load and a
 *                      separate store instead of one fetch_add: the change
 *                      of the stress fixture broken.counter_load_store
 *                      (stress/broken_fixtures.c, counter_racy_incr).
 *                      Fails C1.
 */

#ifndef CAP0
#define CAP0 2 /* shared ring: capacity 2 in a ring of 4 slots (holds 3) */
#endif
#ifndef CAP1
#define CAP1 1 /* opened source: capacity 1 in a ring of 2 slots */
#endif
#ifndef MP
#define MP 2 /* producers on the shared ring */
#endif
#ifndef M
#define M 2 /* commands per producer */
#endif
#ifndef LIMIT
#define LIMIT 2 /* commands_per_tick */
#endif

/* command.c:ring_slots_for: the next power of two above the capacity. */
#define SLOTS_FOR(c) ((c) < 2 -> 2 : ((c) < 4 -> 4 : 8))
#define SLOTMAX 8
#define NSRC 2
#define NPROD (MP + 1)   /* producer MP is the SPSC source's */
#define NCMD (NPROD * M) /* command id = producer * M + index */
#define CAP(s) ((s) == 0 -> CAP0 : CAP1)
#define MASK(s) (SLOTS_FOR(CAP(s)) - 1)

#define NONE 0
#define ACCEPTED 1
#define REFUSED 2

/* ck_ring_t of each source */
byte p_head[NSRC];
byte p_tail[NSRC];
byte c_head[NSRC];
byte slot_id[NSRC * SLOTMAX];
byte slot_seq[NSRC * SLOTMAX];
/* pcs_command_source fields */
short occ[NSRC]; /* occupancy (uint32_t in C; signed here so an undercount shows) */
byte next_seq[NSRC];
/* ghosts */
byte held[NSRC];   /* successful reservations not yet released by the drain */
byte inring[NSRC]; /* slots claimed by a producer and not yet dequeued */
byte status[NCMD];
byte applied[NCMD];
byte done = 0; /* producers finished */

/* C1, C2 at every reachable state: a monitor that waits for a violation. */
active proctype monitor()
{
    byte s;
end:
    atomic {
        (inring[0] > CAP0 || inring[1] > CAP1 || occ[0] < inring[0] || occ[1] < inring[1] ||
         held[0] > CAP0 || held[1] > CAP1) ->
        s = 0;
        do
        :: s < NSRC ->
            assert(inring[s] <= CAP(s)); /* C1 */
            assert(held[s] <= CAP(s));   /* C1 */
            assert(occ[s] >= inring[s]); /* C2 */
            s++
        :: else -> break
        od
    }
}

/* Ghost bookkeeping at the reservation's fetch_add (same atomic step): a
 * successful one is held until the drain releases it; a refused one is
 * checked against C6 at the instant it was decided. */
inline refusal_check(s)
{
    if
    :: before < CAP(s) -> held[s]++
    :: else ->
#ifdef STRICT_REFUSAL
        assert(held[s] >= CAP(s)) /* C6, strict, on every source */
#else
        assert(s == 0 || held[s] >= CAP(s)) /* C6: an SPSC source refuses only when full */
#endif
    fi
}

/* command.c:enqueue, steps common to both kinds of source, for producer me,
 * command k on source s. */
inline submit(s, me, k)
{
    /* command.c:reserve */
#ifdef BROKEN_LOAD_STORE
    before = occ[s];    /* BROKEN: a relaxed load ... */
    atomic {
        occ[s] = before + 1; /* ... and a separate store (broken.counter_load_store) */
        refusal_check(s)
    }
#else
    atomic { /* atomic_fetch_add_explicit(&s->occupancy, 1, acq_rel) */
        before = occ[s];
        occ[s]++;
        refusal_check(s)
    }
#endif
    if
    :: before >= CAP(s) ->
        /* command.c:reserve: refused, PCS_E_RATE at once */
        atomic { /* atomic_fetch_sub_explicit(&s->occupancy, 1, acq_rel) */
            occ[s]--;
            status[me * M + k] = REFUSED /* and refused++ */
        }
    :: else ->
        if
        :: s == 0 ->
            /* ck_ring_enqueue_reserve_mpsc: CAS loop on p_head */
            do
            :: prod = p_head[s];
               cons = c_head[s];
               if
               :: (prod - cons) < MASK(s) ->
                   atomic { /* ck_pr_cas_uint_value(&ring->p_head, producer, producer + 1) */
                       if
                       :: p_head[s] == prod -> p_head[s]++; inring[s]++; break
                       :: else
                       fi
                   }
               :: else ->
                   /* ring full per ck: NULL if p_head did not move */
                   assert(p_head[s] != prod) /* C1: the command.c:enqueue guard never fires */
               fi
            od;
            /* command.c:enqueue: *slot = c (seq 0: stamped by the drain) */
            slot_id[s * SLOTMAX + (prod & MASK(s))] = me * M + k;
            /* ck_ring_enqueue_commit_mpsc: wait for p_tail == ticket, then publish */
            atomic {
                p_tail[s] == prod ->
                p_tail[s] = prod + 1;
                status[me * M + k] = ACCEPTED /* and submitted++ */
            }
        :: else ->
            /* command.c:enqueue: c.seq = next_seq (producer-owned) */
            seq = next_seq[s];
            /* ck_ring_enqueue_reserve_spsc: full when p_tail + 1 meets c_head */
            cons = c_head[s];
            prod = p_tail[s];
            atomic {
                assert(((prod + 1) & MASK(s)) != (cons & MASK(s))); /* C1: guard */
                inring[s]++
            }
            slot_id[s * SLOTMAX + (prod & MASK(s))] = me * M + k; /* *slot = c */
            slot_seq[s * SLOTMAX + (prod & MASK(s))] = seq;
            next_seq[s] = seq + 1; /* store(next_seq, seq + 1, relaxed) */
            atomic { /* ck_ring_enqueue_commit_spsc */
                p_tail[s] = prod + 1;
                status[me * M + k] = ACCEPTED
            }
        fi
    fi;
    before = 0;
    prod = 0;
    cons = 0;
    seq = 0
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
 * producer MP: pcs_command_source_submit on its own source (source 1). */
active [NPROD] proctype producer()
{
    byte me = _pid - 1; /* the monitor is pid 0 */
    byte s = (me < MP -> 0 : 1);
    byte k = 0;
    short before;
    byte prod, cons, seq;
    do
    :: k < M -> submit(s, me, k); k++
    :: else -> break
    od;
    done++
}

/* command.c:pcs_commands_stage, tick after tick, on the world thread. */
active proctype world()
{
    byte held_now[NSRC]; /* plan_quotas: ck_ring_size of each source */
    byte quota[NSRC];
    byte want[NSRC];
    byte batch[LIMIT];   /* command ids, drained in order */
    byte bseq[LIMIT];    /* their sequence numbers */
    byte bsrc[LIMIT];
    byte n, j, s, id, lo, hi, mid, t, left, most, total;
    byte last_k[NPROD]; /* per producer: 1 + index of its last applied command */
    byte seq_next[NSRC]; /* per source: the next sequence number to apply */
    do
    :: done == NPROD && c_head[0] == p_tail[0] && c_head[1] == p_tail[1] -> break
    :: else ->
        /* command.c:adopt_new_sources: order is source 0 (class 0), then 1 */
        /* command.c:plan_quotas: held = ck_ring_size(ring), source by source */
        held_now[0] = (p_tail[0] - c_head[0]) & MASK(0);
        held_now[1] = (p_tail[1] - c_head[1]) & MASK(1);
        d_step { plan_quotas(LIMIT) };
        /* command.c:drain: each source's share, source after source */
        n = 0;
        s = 0;
        do
        :: s < NSRC ->
            j = 0;
            do
            :: j < quota[s] ->
                /* command.c:dequeue: ck_ring_size != 0 (C5: what was counted is there) */
                assert(c_head[s] != p_tail[s]);
                atomic { /* ck_ring_dequeue_spsc_pcs_cmd: copy the slot, c_head + 1 */
                    batch[n] = slot_id[s * SLOTMAX + (c_head[s] & MASK(s))];
                    bseq[n] = slot_seq[s * SLOTMAX + (c_head[s] & MASK(s))];
                    bsrc[n] = s;
                    c_head[s]++;
                    inring[s]--;
                    /* command.c:dequeue: the shared ring's seq, stamped in ring
                     * order (consumer-owned, so one step with the dequeue) */
                    if
                    :: s == 0 ->
                        bseq[n] = next_seq[s];
                        next_seq[s]++
                    :: else
                    fi
                }
                atomic { /* atomic_fetch_sub_explicit(&s->occupancy, 1, acq_rel) */
                    occ[s]--;
                    held[s]--
                }
                n++;
                j++
            :: else -> break
            od;
            s++
        :: else -> break
        od;
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
                assert(id % M + 1 > last_k[id / M]);     /* C4: producer order */
                last_k[id / M] = id % M + 1;
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
    assert(occ[0] == 0 && occ[1] == 0)
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
