/*
 * snapshot_layout.pml: the snapshot pool's change of channel layout while
 * readers read (issue 19), as the C code does it (snapshot/relayout.c,
 * snapshot/hazard.c, snapshot/reader.c, snapshot/publish.c, snapshot/layout.c).
 * verify/README.md explains how to run it and records the results.
 *
 * Actors. One writer (the world thread) publishes, changes the layout
 * NLAY - 1 times (each change retires one channel and adds one) and
 * publishes again after each change; after the last change it keeps
 * checking the retired layouts at later publications, as publish.c does,
 * until none is pending or NSCAN publications have passed. NREAD readers
 * each make READS copy-out reads, reader i of ids 2i, 2i + 1 (so with the
 * defaults every id is read: live in some layouts, retired or not yet
 * added in others), each read at most RETRY attempts
 * (PCS_SNAPSHOT_RETRY_LIMIT).
 *
 * Layouts (layout.h). Layout k maps ids to slots (slot_of below, the
 * `slot` array): layout 0 has channels {0, 1}, layout 1 {0, 2} (1 retired,
 * 2 added), layout 2 {2, 3} (0 retired, 3 added). Its buffer is one
 * publication word and NSLOT value words; the writer stores into the word
 * of slot s the id of the channel in slot s, so a reader that reads word
 * `slot_of(L, id)` must find `id`. Freeing a layout poisons its words
 * (POISON, as the quarantine of hazard.c does, and as reused memory would
 * hold anything), and sets the ghost freed[L].
 *
 * Memory model. The protocol's shared words of interest are `current` and
 * the hazard slots, all seq_cst in the C code except the reader's leaving
 * store (release; the writer's scan load is seq_cst, so acquire), and spin
 * interleaves statements under sequential consistency, which is exact for
 * seq_cst accesses. What the SC interleaving hides for the release/acquire
 * accesses is argued in hazard.c (2) and (4): the reader's loads from a
 * layout happen-before a free that read its leaving store, and a layout is
 * complete before the release that makes it current. The seqlock of each
 * buffer (seqlock.h) is modelled by snapshot_pool.pml under the full C11
 * model and is abstracted here: a buffer write is one atomic step.
 *
 * Claims checked (assert), for every interleaving:
 *   L1 no freed memory: a reader never reads a layout's map or buffer
 *      after the writer freed it (freed[L] false at each access, and the
 *      word read is not POISON).
 *   L2 right channel: a value read for id x is channel x's (word == x),
 *      never another channel's value, in whichever layout the reader is.
 *   L3 retired is an error: an id with no slot in the reader's layout is
 *      refused (PCS_E_NOTFOUND), never read.
 *   L4 publications: a successful read returns a publication >= its target
 *      and never older than the reader's previous one (snapshot.h "never go
 *      back in time"), across layouts.
 *   L5 leaving: when every process has ended, no reader announces a layout.
 * Progress: the writer never waits; a reader's attempt loop is bounded.
 *
 * Broken variants (each one line; make verify requires spin to REJECT them):
 *   FREE_UNSCANNED  the writer frees a retired layout without looking at
 *                   the hazard slots (hazard.c:pcs_layout_reclaim's
 *                   `announced` test dropped): the same change as the
 *                   stress fixture snapshot.broken_free_unscanned
 *                   (stress/snapshot_layout_stress.c). Fails L1.
 *   NO_RECHECK      the reader announces the layout it loaded but does not
 *                   load `current` again (hazard.c:pcs_hazard_enter without
 *                   (C)): the writer may have swapped and scanned in
 *                   between. Fails L1.
 */

#ifndef NREAD
#define NREAD 2
#endif
#ifndef READS
#define READS 2
#endif
#ifndef RETRY
#define RETRY 2
#endif
#ifndef NSCAN
#define NSCAN 2
#endif
#define NLAY 3
#define NCH 4
#define NSLOT 2
#define NONE 255
#define RETIRED 255
#define POISON 9

byte current = 0;       /* pool->current */
byte published = 1;     /* pool->published: publication 1 (tick 0) is in layout 0 */
byte hp[NREAD];         /* hazard slot PCS_HAZ_READ of each reader's record */
byte bufpub[NLAY];      /* each layout's buffer: PCS_HDR_PUB */
byte word[NLAY * NSLOT];/* ... and its slot words */
byte firstpub[NLAY];    /* pcs_layout.first_pub */
bit pending[NLAY];      /* on the writer's retired list */
bit freed[NLAY];        /* ghost */
bit wdone = 0;          /* ghost: the writer has finished */

/* layout.c:fill_map: the id -> slot map of layout L (immutable). */
inline slot_of(L, id, s)
{
    if
    :: L == 0 -> if :: id == 0 -> s = 0 :: id == 1 -> s = 1 :: else -> s = RETIRED fi
    :: L == 1 -> if :: id == 0 -> s = 0 :: id == 2 -> s = 1 :: else -> s = RETIRED fi
    :: L == 2 -> if :: id == 2 -> s = 0 :: id == 3 -> s = 1 :: else -> s = RETIRED fi
    fi
}

/* Writer: publish.c:write_buffer of publication p into layout L (one step:
 * the seqlock is snapshot_pool.pml's). Slot s holds the channel in it. */
inline write_buffer(L, p)
{
    atomic {
        bufpub[L] = p;
        word[L * NSLOT] = (L == 2 -> 2 : 0);
        word[L * NSLOT + 1] = (L == 0 -> 1 : (L == 1 -> 2 : 3))
    }
}

/* Writer: hazard.c:pcs_layout_reclaim. Each hazard load (Q) is a step. */
inline reclaim()
{
    R = 0;
    do
    :: R < NLAY ->
        if
        :: pending[R] ->
            pinned = 0;
            r = 0;
            do
            :: r < NREAD ->
#ifndef FREE_UNSCANNED
                if
                :: hp[r] == R -> pinned = 1
                :: else
                fi;
#endif
                r++
            :: else -> break
            od;
            if
            :: !pinned ->
                /* hazard.c:dispose: free (poison, as reused memory may hold anything) */
                atomic {
                    pending[R] = 0;
                    freed[R] = 1;
                    bufpub[R] = 200;
                    word[R * NSLOT] = POISON;
                    word[R * NSLOT + 1] = POISON
                }
            :: else
            fi;
            d_step { r = 0; pinned = 0 }
        :: else
        fi;
        R++
    :: else -> break
    od;
    R = 0
}

proctype writer()
{
    byte k = 1, R, r, scans = 0, p = 1;
    bit pinned;
    do
    :: k < NLAY ->
        /* relayout.c:pcs_snapshot_relayout. 1, 2: build layout k and write its
         * first publication (layout.c, publish.c:pcs_publish_layout). */
        p++;
        firstpub[k] = p;
        write_buffer(k, p);
        current = k;        /* 3: store(current, L', seq_cst) (S) */
        published = p;      /* 4: announce: store(published, release) */
        pending[k - 1] = 1; /* 5: pcs_layout_retire */
        reclaim();
        /* the next tick: publish.c:pcs_publish_system into layout k */
        p++;
        write_buffer(k, p);
        published = p;
        reclaim();
        k++
    :: else -> break
    od;
    /* Later publications (publish.c: reclaim while anything is pending). */
    do
    :: scans < NSCAN && (pending[0] || pending[1]) -> reclaim(); scans++
    :: else -> break
    od;
    wdone = 1
}

proctype reader(byte me)
{
    byte n = 0, L, L2, id, s, v, pub, target, last = 0, attempt;
    do
    :: n < READS ->
        attempt = 0;
        do
        :: attempt < RETRY ->
            /* hazard.c:pcs_hazard_enter */
            L = current;
            hp[me] = L;                   /* (A) */
#ifndef NO_RECHECK
            L2 = current;                 /* (C) */
            do
            :: L2 != L -> L = L2; hp[me] = L; L2 = current
            :: else -> break
            od;
#endif
            /* reader.c:read_in: the id through L's map (layout.c) */
            id = (2 * me + n) % NCH;
            assert(!freed[L]);            /* L1: the map is L's memory */
            slot_of(L, id, s);
            if
            :: s == RETIRED ->            /* L3: PCS_E_NOTFOUND, nothing read */
                hp[me] = NONE;
                d_step { id = 0; s = 0; L = 0; L2 = 0 }
                break
            :: else
            fi;
            /* reader.c:target_pub, try_read */
            target = (published > last -> published : last);
            target = (target > firstpub[L] -> target : firstpub[L]); /* immutable once L is current */
            assert(!freed[L]);            /* L1 */
            pub = bufpub[L];
            v = word[L * NSLOT + s];
            assert(v != POISON);          /* L1: freed memory */
            assert(v == id);              /* L2: channel id's value */
            hp[me] = NONE;                /* hazard.c:pcs_hazard_leave (D) */
            if
            :: pub >= target ->           /* validated, not older than the target */
                assert(pub >= last);      /* L4 */
                d_step { last = pub; id = 0; s = 0; v = 0; L = 0; L2 = 0; pub = 0; target = 0 }
                break
            :: else ->                    /* the target is in a newer layout: enter again */
                d_step { attempt++; id = 0; s = 0; v = 0; L = 0; L2 = 0; pub = 0; target = 0 }
            fi
        :: else -> break                  /* PCS_E_RATE */
        od;
        n++
    :: else -> break
    od
}

init
{
    byte i;
    atomic {
        firstpub[0] = 1;
        write_buffer(0, 1);
        i = 0;
        do
        :: i < NREAD -> hp[i] = NONE; i++
        :: else -> break
        od;
        run writer();
        i = 0;
        do
        :: i < NREAD -> run reader(i); i++
        :: else -> break
        od
    }
    /* L5: once all have ended, no announcement is left behind. */
    (_nr_pr == 1);
    i = 0;
    do
    :: i < NREAD -> assert(hp[i] == NONE); i++
    :: else -> break
    od
}
