/*
 * snapshot_pool.pml: the snapshot pool's publish/read protocol, as the C code
 * does it today (snapshot/seqlock.h, snapshot/pool.h, snapshot/publish.c,
 * snapshot/reader.c). verify/README.md explains how to run it and records
 * the results.
 *
 * Actors. One writer (the world thread running stage 12,
 * publish.c:pcs_publish_system) makes NPUB publications into a pool of NBUF
 * buffers; publication p goes to buffer (p - 1) % NBUF. NREAD readers each
 * make READS reads (reader.c:pcs_view_begin / pcs_view_f64 /
 * pcs_view_validate; pcs_snapshot_read's try_read does the same loads in the
 * same order), each read at most RETRY attempts, the bounded retry of the C
 * code (PCS_SNAPSHOT_RETRY_LIMIT, then PCS_E_RATE).
 *
 * Data. A buffer is its seqlock word, its publication word (PCS_HDR_PUB) and
 * NDATA channel words. The writer stores the publication number p into every
 * word of publication p, so a read that mixes two publications shows two
 * different numbers. The tick, time, layout and count header words are more
 * words of the same kind and are left out; newest_tick is a relaxed
 * statistics hint (reader.c:record_read) and is left out.
 *
 * Memory model: what is modelled, what is abstracted.
 * Spin interleaves statements under sequential consistency. The C code uses
 * weaker C11 orderings, so the model does not let a load simply read the
 * current value. Instead every store the writer makes is appended to a
 * history (hloc/hval/hrel, writer program order = modification order, as
 * there is one writer), and a load may read ANY store to its location that
 * C11 allows, chosen nondeterministically:
 *   - not older than the newest store to that location that happens-before
 *     the load: the reader keeps `hb`, the index of the newest writer store
 *     it synchronised with (an acquire load that read a release store gives
 *     happens-before from every writer store up to that one);
 *   - not older than what this reader already read from that location
 *     (read-read coherence: coh[x]);
 *   - already made (no load reads from the future: readers store nothing
 *     the writer reads, so there is no load-buffering cycle).
 * For one writer whose stores are never read-modify-writes, readers that
 * never store shared words, and no fences or seq_cst accesses (all true of
 * this protocol), these three rules are exactly C11's coherence and
 * happens-before constraints, so the model admits every outcome the C11
 * memory model allows: compiler reorderings and weak hardware (ARM,
 * POWER) included, x86-TSO a fortiori. One simplification is on the safe
 * side: release sequences are ignored (an acquire load that reads the
 * writer's relaxed odd seq store gains nothing; C17 would let it
 * synchronise with the release store before it), which only admits more
 * outcomes. Define SC_ONLY to get plain sequential consistency instead (each
 * load reads the newest store), for comparison: the RELAXED_DATA variant
 * below passes under SC_ONLY and fails under the C11 model, which is why
 * the model does not stop at SC. seqlock.h keeps the prose argument.
 *
 * The bulk copy (seqlock.h "Bulk copy", issue 16). On x86-64 the data words
 * move through an asm SSE2 loop, not C11 atomics. Under x86-TSO every plain
 * load orders like an acquire load and every plain store like a release
 * store (the C11 -> x86 mapping, Batty et al., POPL 2011, maps both to a
 * plain MOV), so the x86 behaviours of the bulk copy are among the C11
 * behaviours of the same copy made of acquire loads and release stores,
 * which is what this model checks. What the asm does not fix is the order of
 * the words inside the copy: the two 8-byte halves of a movdqu have no
 * architected order. Both the writer's and the reader's data copy therefore
 * take the words in a nondeterministic order (every permutation; it matters
 * from NDATA = 2, the full run's wide-NDATA2 instance), each word once.
 *
 * Claims checked (assert), for every interleaving and every allowed load:
 *   A1 torn: a validated read never mixes words of two publications
 *      (seqlock.h "Claim"; snapshot.h "values that were all published on one
 *      tick").
 *   A2 target: a validated read returns publication `target` or a newer one
 *      held in the same buffer, never an older one (reader.c file comment).
 *   A3 monotone: never older than a publication this reader already returned
 *      (snapshot.h "successive reads by one reader never go back in time").
 *   A4 lapped: an attempt fails only when the writer has begun rewriting the
 *      buffer, i.e. started publication target + NBUF or later (snapshot.h,
 *      PCS_SNAPSHOT_RETRY_LIMIT: "a reader fails only when the writer laps
 *      it"). This is the pool's buffer-reuse rule: the writer never waits
 *      for or pins against readers; a reader inside a buffer that is reused
 *      notices through the seqlock, and only then.
 *   A5 quiescence: once the writer has stopped, an attempt whose first seq
 *      load sees the writer's last store to that seq succeeds.
 * Progress: the writer has no loop and no wait (wait-free); a reader call
 * ends after at most RETRY attempts (E_RATE) or at once when nothing is
 * published (E_STATE); spin's end-state check proves every process ends.
 *
 * The reader wait (snapshot/wake.h, snapshot/wait.c, stage 12's tail in
 * publish.c). NWAIT waiter processes call pcs_reader_wait with no timeout:
 * waiter 0 follows (after = the newest it saw), waiter 1 skips one (after =
 * seen + 1, starting with publication 2), waiter 2 follows again, until no
 * wanted publication is left.
 * The futex is modelled as the kernel does it: futex_wait is one atomic
 * compare-and-queue (sleep only if the word still holds the expected value;
 * the kernel does both under the hash-bucket lock), futex_wake(bucket, 1)
 * dequeues one queued sleeper of the bucket (any one: a nondeterministic
 * choice) if there is one, futex_wake(bucket, ALL) all of them. No spurious
 * wake-ups and no timeouts: both only ever end a sleep early, which would
 * hide a lost wake-up. The word, the waiter counts and `passed` are
 * seq_cst in the C code, so spin's SC interleaving is exact for them; the
 * waiter's acquire loads of `published` read any value from the one whose
 * futex word it read (wake.h: p >= m) up to the newest (C11 allows each).
 * NBKT buckets (C: 32) with NBKT < NPUB, so two publications share a bucket
 * and a waiter for a later one is woken early and must sleep again.
 *   W1 no lost wake-up: when nothing can move any more (spin's `timeout`),
 *      no waiter is asleep while the publication it wants exists; and every
 *      process ends (pan's end-state check).
 *   W2 a wait returns only a publication newer than `after`.
 *   W3 stage 12 makes at most one wake call per publication, none when the
 *      publication's bucket has no registered waiter (by construction: one
 *      call on one path, counted in wakecalls and asserted at the end).
 *
 * Broken variants (each one line; make verify requires spin to REJECT them):
 *   BROKEN_UNVALIDATED_VIEW  drop the pcs_view_validate check: the same
 *                            change as the stress fixture
 *                            snapshot.broken_unvalidated_view
 *                            (stress/snapshot_stress.c). Fails A1.
 *   PUBLISH_EARLY            store `published` before the buffer's data
 *                            (publish.c with its last store moved up). Fails A2.
 *   RELAXED_DATA             reader data loads relaxed instead of acquire
 *                            (seqlock.h:pcs_word_get, the atomic path). Fails
 *                            A1 under the C11 model only; x86 hardware would
 *                            not show it (which is why the bulk copy, plain
 *                            MOVs, is sound on x86-64 and nowhere else).
 *   COPY_AFTER_CHECK         the reader's data copy after its second seq
 *                            load (seqlock.h:pcs_words_get moved below
 *                            pcs_seq_read_ok): the same change as the stress
 *                            fixture broken.seqlock_copy_late
 *                            (stress/seqlock_stress.c). Fails A1.
 *   WAKE_BEFORE_STORE        stage 12 reads the bucket's waiter count before
 *                            it stores `published` and the futex word
 *                            (publish.c's wake check moved up, as a writer
 *                            would write "if anyone waits, publish and wake
 *                            them"): the same change as the stress fixture
 *                            broken.wake_before_store (stress/wait_stress.c).
 *                            Fails W1. (Moving only L above S fails W1 too,
 *                            through a stale load of `published` that C11
 *                            allows; the fixture could not show that one on
 *                            x86 in reasonable time, so both carry this one.)
 *   NO_PASS_ON               the woken reader does not wake the rest of its
 *                            bucket (wait.c:sleep_once without
 *                            pcs_wake_pass_on): stage 12 wakes only one
 *                            thread. Fails W1 when two waiters share a bucket.
 */

#ifndef NBUF
#define NBUF 3 /* PCS_SNAPSHOT_BUFFERS_MIN: laps come soonest */
#endif
#ifndef NPUB
#define NPUB 4 /* NBUF + 1: the writer laps buffer 0 once */
#endif
#ifndef NREAD
#define NREAD 2
#endif
#ifndef READS
#define READS 2
#endif
#ifndef RETRY
#define RETRY 2
#endif
#ifndef NDATA
#define NDATA 1 /* with the publication word: two words, enough to tear */
#endif
#ifndef NWAIT
#define NWAIT 0 /* waiter processes (pcs_reader_wait); check.sh runs them separately */
#endif
#ifndef NBKT
#define NBKT 2 /* wake buckets (wake.h: PCS_WAKE_BUCKETS = 32) */
#endif

/* Word locations (pool.h memory map, reduced). */
#define SEQ(b) (b)                                 /* word 0 of buffer b: PCS_HDR_SEQ */
#define PUBW(b) (NBUF + (b))                       /* word 1: PCS_HDR_PUB */
#define DATA(b, i) (2 * NBUF + (b) * NDATA + (i))  /* word 8 + i: channel i */
#define PUBLISHED (2 * NBUF + NBUF * NDATA)        /* pool->published */
#define NLOC (PUBLISHED + 1)
#define STORES_PER_PUB (NDATA + 4)                 /* odd seq, pub, data, even seq, published */
#define H (NPUB * STORES_PER_PUB)                  /* writer stores in all */
#define NOLOC 255
#define ALLDATA ((1 << NDATA) - 1)                 /* every data word's bit */

#define RLX 0
#define ACQ 1
#define REL 1

#ifdef RELAXED_DATA
#define DATA_ORDER RLX
#else
#define DATA_ORDER ACQ
#endif

/* The writer's store history; index 0 stands for the initial value 0 of every
 * word (pool.c:alloc_rings atomic_init, before any reader exists). Hidden
 * (kept out of the state vector): the writer is deterministic, so entry j is
 * the same in every execution and is a function of the state's wpos; loads
 * only look at entries <= wpos, which are always filled in. */
hidden byte hloc[H + 1];
hidden byte hval[H + 1];
hidden byte hrel[H + 1];
byte wpos = 0;     /* stores made so far */
byte wstarted = 0; /* ghost: publications begun (odd seq stored) */

/* The reader wait (wake.h). Publication numbers stay below 256, so the
 * futex word (the low 32 bits in C) is the publication number itself. */
byte pubnew = 0;          /* ghost: the newest store to `published` (SC view) */
byte wword = 0;           /* pool->wake.word */
byte nwaiting[NBKT];      /* pool->wake.waiters[b] */
byte passed[NBKT];        /* pool->wake.passed[b] */
bit queued[NWAIT + 1];    /* kernel: waiter i is queued on the futex */
byte qbkt[NWAIT + 1];     /* kernel: its bitset (bucket) */
byte wants[NWAIT + 1];    /* ghost: the publication waiter i waits for (after + 1) */
byte wakecalls = 0;       /* ghost: stage 12's wake calls */

/* Kernel: FUTEX_WAKE_BITSET(word, 1, bit b): dequeue one queued sleeper of
 * bucket b if any (any one of them). First pass: maybe pick one; second
 * pass: if none picked, the first one. */
inline futex_wake_one(b)
{
    atomic {
        wk = 0;
        wgot = 0;
        do
        :: wk < NWAIT && !wgot && queued[wk] && qbkt[wk] == b -> queued[wk] = 0; wgot = 1
        :: wk < NWAIT -> wk++
        :: else -> break
        od;
        wk = 0;
        do
        :: wk < NWAIT ->
            if
            :: !wgot && queued[wk] && qbkt[wk] == b -> queued[wk] = 0; wgot = 1
            :: else
            fi;
            wk++
        :: else -> break
        od;
        wk = 0;
        wgot = 0
    }
}

/* Kernel: FUTEX_WAKE_BITSET(word, INT_MAX, bit b). */
inline futex_wake_all(b)
{
    atomic {
        wk = 0;
        do
        :: wk < NWAIT ->
            if
            :: queued[wk] && qbkt[wk] == b -> queued[wk] = 0
            :: else
            fi;
            wk++
        :: else -> break
        od;
        wk = 0
    }
}

/* Writer: one store, appended to the history. */
inline store(x, v, ord)
{
    atomic {
        wpos++;
        hloc[wpos] = x;
        hval[wpos] = v;
        hrel[wpos] = ord
    }
}

/* Index of the newest store to x at or before history index `upto` (0: initial). */
inline newest_to(x, upto, res)
{
    res = upto;
    do
    :: res > 0 && hloc[res] != x -> res--
    :: else -> break
    od
}

/* Reader: load word x with order `ord` into val; got = the store read.
 * One atomic step with a nondeterministic choice of the store read, among
 * the stores C11 allows (file comment). */
inline load(x, ord, val, got)
{
    atomic {
        newest_to(x, hb, lo);
        if
        :: coh[x] > lo -> lo = coh[x]
        :: else
        fi;
        got = lo;
#ifdef SC_ONLY
        newest_to(x, wpos, got);
#else
        do
        :: break
        :: got < wpos ->
            k = got + 1;
            do
            :: k <= wpos && hloc[k] != x -> k++
            :: else -> break
            od;
            if
            :: k <= wpos -> got = k
            :: else -> break
            fi
        od;
#endif
        val = hval[got];
        coh[x] = got;
        if
        :: ord == ACQ && hrel[got] && got > hb -> hb = got
        :: else
        fi;
        lo = 0;
        k = 0
    }
}

/* Any data word index 0 .. NDATA - 1 (nondeterministic). */
inline pick_word(w)
{
    w = 0;
    do
    :: w < NDATA - 1 -> w++
    :: true -> break
    od
}

/* Reader: copy the buffer's data words, each once, in any order:
 * reader.c:try_read -> seqlock.h:pcs_words_get (bulk on x86-64: the asm
 * movdqu loop, whose words x86-TSO keeps after s1 and before s2 but whose
 * two halves of a 16-byte load have no defined order; TSan and other
 * platforms: pcs_words_get_atomic, ascending) or reader.c:pcs_view_f64 per
 * channel (any order the caller likes) -> seqlock.h:pcs_word_get. Each word
 * is an acquire load (DATA_ORDER): what a plain x86 MOV is in the C11 ->
 * x86 mapping. A word's value other than the publication word's is a torn
 * copy. */
inline copy_data()
{
    rdone = 0;
    do
    :: rdone == ALLDATA -> break
    :: else ->
        atomic { /* the choice is no step of its own (a smaller state space) */
            pick_word(i);
            if
            :: (rdone >> i) & 1 -> skip /* copied already: pick again */
            :: else ->
                load(DATA(b, i), DATA_ORDER, d, got2);
                if
                :: d != pub -> torn = 1
                :: else
                fi;
                rdone = rdone | (1 << i)
            fi;
            i = 0;
            d = 0;
            got2 = 0
        }
    od;
    rdone = 0;
    i = 0;
    d = 0;
    got2 = 0
}

/* publish.c:pcs_publish_system, once per tick, NPUB ticks. */
active proctype writer()
{
    byte pub = 1; /* pool->n_published + 1 */
    byte b;       /* pool.h:pcs_pool_buffer: (pub - 1) % n_buffers */
    byte i;
    byte wseq[NBUF]; /* each buffer's seq as only the writer stores it */
    byte wdone;      /* data words of this publication stored (bit i: word i) */
    byte wn;         /* the waiter count L read */
    byte wk;         /* futex_wake scratch */
    bit wgot;
    hloc[0] = NOLOC;
    do
    :: pub <= NPUB ->
#if NREAD > 0 /* without readers nobody loads the buffers: the wait model skips them */
        b = (pub - 1) % NBUF;
#ifdef PUBLISH_EARLY
        store(PUBLISHED, pub, REL); /* BROKEN: publish.c's last store, moved before the data */
#endif
        /* seqlock.h:pcs_seq_write_begin: relaxed load of its own seq, relaxed odd store */
        wstarted = pub;
        store(SEQ(b), wseq[b] + 1, RLX);
        /* publish.c:pcs_publish_system: pcs_word_put(&buf[PCS_HDR_PUB], pub), release */
        store(PUBW(b), pub, REL);
        /* publish.c:gather -> seqlock.h:pcs_words_put per run (bulk: the
         * SSE2 asm copy; TSan and other platforms: pcs_words_put_atomic),
         * each word a release store in any word order (file comment, "Bulk
         * copy") */
        wdone = 0;
        do
        :: wdone == ALLDATA -> break
        :: else ->
            atomic { /* the choice is no step of its own (a smaller state space) */
                pick_word(i);
                if
                :: (wdone >> i) & 1 -> skip /* stored already: pick again */
                :: else -> store(DATA(b, i), pub, REL); wdone = wdone | (1 << i)
                fi;
                i = 0
            }
        od;
        i = 0;
        wdone = 0;
        /* seqlock.h:pcs_seq_write_end: release store of the even seq */
        wseq[b] = wseq[b] + 2;
        store(SEQ(b), wseq[b], REL);
#endif
#if defined(WAKE_BEFORE_STORE) && NWAIT > 0
        wn = nwaiting[pub % NBKT]; /* BROKEN: L (pcs_wake_needed) before publishing */
#endif
#ifndef PUBLISH_EARLY
        /* publish.c:pcs_publish_system: store(published, pub, release) */
#if NWAIT > 0
        atomic { store(PUBLISHED, pub, REL); pubnew = pub };
#else
        store(PUBLISHED, pub, REL);
#endif
#endif
#if defined(PUBLISH_EARLY) && NWAIT > 0
        pubnew = pub;
#endif
        /* publish.c:pcs_publish_system -> wake.h:pcs_wake_publish (skipped
         * without waiters: nothing reads these words then) */
#if NWAIT > 0
#ifdef WAKE_BEFORE_STORE
        wword = pub;               /* S: pcs_wake_store (L was read above) */
#else
        wword = pub;               /* S: wake.h:pcs_wake_store, seq_cst */
        wn = nwaiting[pub % NBKT]; /* L: wake.h:pcs_wake_needed, seq_cst */
#endif
        atomic {
            if
            :: wn > 0 -> /* wake.c:pcs_wake_call(wk, bucket, 1) */
                futex_wake_one(pub % NBKT);
                wakecalls++
            :: else
            fi;
            wn = 0;
            pub++ /* pool->n_published = pub */
        }
#else
        pub++
#endif
    :: else -> break
    od;
#if NWAIT > 0
    /* W3: at most one wake call per publication, none for a publication
     * whose bucket nobody had registered in (by the path: the call is made
     * only after L read a count > 0). */
    assert(wakecalls <= NPUB)
#endif
}

/* A reader thread: READS reads, each through reader.c's view API. */
active [NREAD] proctype reader()
{
    byte coh[NLOC];   /* per word: the newest store this reader has read */
    byte hb = 0;      /* newest writer store that happens-before the next load */
    byte lo, k;       /* load() scratch */
    byte last_pub = 0; /* pcs_reader.last_pub */
    byte r = 0, attempt, i;
    byte p, target, b, s1, s2, pub, d;
    byte got1, got2;
    byte rdone; /* data words copied in this attempt (bit i: word i) */
    bit torn, ok;
    do
    :: r < READS ->
        attempt = 0;
        do
        :: attempt < RETRY ->
            /* reader.c:target_pub: max(published (acquire), last_pub) */
            load(PUBLISHED, ACQ, p, got1);
            target = (p > last_pub -> p : last_pub);
            if
            :: target == 0 -> break /* PCS_E_STATE: nothing published yet */
            :: else
            fi;
            b = (target - 1) % NBUF; /* pool.h:pcs_pool_buffer */
            /* reader.c:pcs_view_begin -> seqlock.h:pcs_seq_read_begin (acquire) */
            load(SEQ(b), ACQ, s1, got1);
            if
            :: s1 % 2 == 1 ->
                assert(wstarted >= target + NBUF); /* A4: odd only while lapped */
                attempt++
            :: else ->
                /* reader.c:pcs_view_begin: v->pub_ = pcs_word_get(PCS_HDR_PUB) */
                load(PUBW(b), ACQ, pub, got2);
                torn = 0;
#ifndef COPY_AFTER_CHECK
                copy_data();
#endif
                /* reader.c:pcs_view_validate / try_read -> seqlock.h:pcs_seq_read_ok (relaxed) */
                load(SEQ(b), RLX, s2, got2);
#ifdef COPY_AFTER_CHECK
                got2 = 0;
                copy_data(); /* BROKEN: the copy after the second seq load */
#endif
                ok = 1;
#ifndef BROKEN_UNVALIDATED_VIEW
                ok = (s2 == s1);
#endif
                if
                :: ok ->
                    assert(!torn);                                        /* A1 */
                    assert(pub >= target && (pub - target) % NBUF == 0); /* A2 */
                    assert(pub >= last_pub);                              /* A3 */
                    /* reader.c:record_read: last_pub only moves forward */
                    if
                    :: pub > last_pub -> last_pub = pub
                    :: else
                    fi;
                    break
                :: else ->
                    assert(wstarted >= target + NBUF); /* A4 */
                    /* A5: the writer had stopped and s1 was its last seq store */
                    newest_to(SEQ(b), wpos, k);
                    assert(!(wpos == H && got1 == k));
                    k = 0;
                    attempt++
                fi
            fi;
            /* scratch not carried between attempts (smaller state space) */
            p = 0; s1 = 0; s2 = 0; pub = 0; b = 0; got1 = 0; got2 = 0; torn = 0; ok = 0
        :: else -> break /* PCS_E_RATE: lapped RETRY times in a row */
        od;
        p = 0; s1 = 0; s2 = 0; pub = 0; b = 0; got1 = 0; got2 = 0; torn = 0; ok = 0;
        target = 0;
        r++
    :: else -> break
    od
}

/* wait.c:pcs_reader_wait with no timeout and no rate limit (neither can make
 * a wake-up happen: they only end a wait early). Waiter `me` waits for
 * publications until none it wants is left. Each step is one access to a
 * shared word, with the thread's local work folded into it. */

/* An acquire load of `published`: any store from `lo` (coherence, or
 * wake.h's p >= m) up to the newest. */
inline load_published(m)
{
    atomic {
        p = pubnew;
        do
        :: p > m && p > plast -> p--
        :: true -> break
        od;
        plast = p
    }
}

active [NWAIT] proctype waiter()
{
    byte me = _pid - 1 - NREAD; /* after the writer and the readers */
    byte after = (me == 1 -> 1 : 0), p, plast = 0, b, w, now, seen;
    byte wk;
    bit wgot, ok;
    do
    :: after >= NPUB -> break /* nothing newer will ever be published */
    :: else ->
        atomic {
            wants[me] = after + 1;
            b = (after + 1) % NBKT /* wake.h:pcs_wake_bucket */
        };
        do
        :: true ->
            /* wait.c:pcs_reader_wait: p = load(published, acquire) */
            atomic {
                load_published(plast);
                if
                :: p > after -> break
                :: else
                fi
            };
            /* wait.c:sleep_once -> wake.h:pcs_wake_register: A, then R */
            nwaiting[b]++;
            w = wword;
            /* wait.c:sleep_once: the re-check of published, >= w (wake.h: p >= m) */
            load_published(w);
            if
            :: p > after ->
                nwaiting[b]--; /* pcs_wake_unregister */
                w = 0
            :: else ->
                /* wake.c:pcs_wake_sleep: FUTEX_WAIT_BITSET, compare and queue atomically */
                atomic {
                    if
                    :: wword == w -> queued[me] = 1; qbkt[me] = b
                    :: else
                    fi
                };
                !queued[me]; /* asleep until a futex_wake dequeues it */
                nwaiting[b]--; /* wake.h:pcs_wake_unregister */
#ifndef NO_PASS_ON
                /* wake.h:pcs_wake_pass_on: the word moved on? claim it, wake the bucket */
                now = wword;
                if
                :: now != w ->
                    seen = passed[b];
                    atomic { /* compare-and-swap */
                        ok = (seen != now && passed[b] == seen);
                        if
                        :: ok -> passed[b] = now
                        :: else
                        fi;
                        seen = 0
                    };
                    if
                    :: ok && nwaiting[b] > 0 -> futex_wake_all(b); ok = 0
                    :: else -> ok = 0
                    fi
                :: else
                fi;
                now = 0;
#endif
                w = 0
            fi
        od;
        atomic {
            assert(p > after); /* W2 */
            after = (me == 1 -> p + 1 : p); /* waiter 1 skips one publication */
            wants[me] = 0;
            p = 0;
            b = 0
        }
    od;
    wants[me] = 0
}

/* W1: when no process can move, no waiter sleeps for a publication that
 * exists. (`timeout` is spin's "no statement is executable"; once every
 * other process has ended it holds too, and the claims are checked there.) */
#if NWAIT > 0
active proctype watchdog()
{
    byte i = 0;
    timeout ->
    do
    :: i < NWAIT ->
        assert(!(queued[i] && wants[i] <= pubnew)); /* W1 */
        i++
    :: else -> break
    od
}
#endif
