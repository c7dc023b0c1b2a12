/**
 * @file command.c
 * @brief Bounded command rings (an SPSC ring per opened source, one shared
 *        ck_ring MPSC), batched submit, the stage-1 drain, sort and apply,
 *        and the journal.
 *
 * Capacity, opened sources. Each opened source owns a single-producer ring
 * of 2^k >= capacity slots and two free-running 64-bit counts: tail, the
 * commands its producer ever enqueued, and head, the commands the drain ever
 * dequeued. Each count has one writer, on its own cache line, and the other
 * side only loads it: the producer computes its room as capacity - (tail -
 * head), the drain its backlog as tail - head. Nothing on the submit path is
 * an atomic read-modify-write (the occupancy fetch_add this replaced was a
 * locked instruction per command and a cache line both threads wrote). The
 * producer keeps the head it last loaded (head_seen) and reloads head only
 * when that shows less room than it wants, so a producer well ahead of a full
 * ring touches the consumer's line once per batch, not per command. Capacity
 * stays exact: head_seen <= head, so the cached room never overstates the
 * true room, and a refusal or a short prefix is decided on a fresh load (the
 * ring held capacity commands not yet released by the drain when head was
 * read). Counts are 64-bit and never wrap in practice (2^64 commands).
 *
 * Memory ordering, opened sources (C11, which ThreadSanitizer sees whole):
 *  - slot write -> read: spsc_enqueue writes the slots, then stores tail with
 *    release; the drain's spsc_held loads tail with acquire before
 *    spsc_dequeue_n copies them. Every slot below the tail it read is
 *    complete.
 *  - slot read -> reuse: spsc_dequeue_n copies the slots, then stores head
 *    with release; spsc_room loads head with acquire before the producer
 *    writes a slot that head freed. So no slot is overwritten while the drain
 *    may still read it. Storing head before the copy (verify/commands_ring.pml
 *    BROKEN_RELEASE_EARLY, stress broken.spsc_release_early) breaks this.
 *  - Everything else a submit writes (head_seen, the bucket, the refusal
 *    counters, stored with relaxed atomics by their one writer so stats may
 *    read them) is producer-local; the drain writes head and nothing the
 *    producer reads but head.
 * On x86-64 the release stores and acquire loads are plain moves (TSO orders
 * store-store and load-load; the one reordering TSO allows, a store then a
 * load of another word, only delays when one side sees the other's progress,
 * which makes the producer see less room or the drain fewer commands; it
 * never exposes an unwritten slot or frees an unread one). On weakly ordered
 * CPUs the compiler emits the barriers the C11 orders ask for.
 *
 * Batches. pcs_command_source_submit_n queues the longest prefix of a batch
 * that the room and the rate limit allow (command i of it takes sequence
 * number tail + i) and publishes them with one release store, so a batch
 * of 64 pays one store of tail and (at most) one load of head. A single
 * submit is the same path with n = 1. The drain takes a source's quota in
 * one or two runs (the ring may wrap) and one release store of head.
 *
 * Slots (issue 16, "a record no bigger than the data it carries"). An
 * opened source's ring slot is a pcs_command_slot (engine/command_slot.h,
 * where the fixed 40-byte size is argued against a length per kind): kind,
 * target and the four arguments, nothing else. The source's (class, id) is
 * the ring's; the sequence number is the command's position (head + j when
 * the drain expands slot j of its run, which is the tail + i the producer
 * put it at); tick is set at apply; reserved is zero. The producer packs each command of a batch
 * into its slot (40 bytes written, not 64), the drain expands each slot into the 64-byte
 * pcs_command of the batch it orders and applies, so handlers, the journal and every caller still
 * see the public record, field for field as before. The counting protocol (tail, head, ck's
 * indices) is untouched: only what a slot holds changed, and where the sequence number is computed
 * (verify/commands_ring.pml, "Slot contents").
 *
 * The shared ck_ring keeps whole 64-byte records, measured (bench/README.md,
 * "Commands at memory speed (issue 16)"): slots there cost 9 more
 * instructions per command (207 against 198: the pack at enqueue, and
 * ck's dequeue, which copies a record out and cannot expand in place, then
 * the expansion) and 3-14 % of the one-producer rate in three interleaved
 * runs, since ck publishes each record alone and its index and occupancy
 * lines, not the record's bytes, are what crosses between the cores.
 *
 * Capacity, the shared ring. ck_ring keeps one slot free, so a ring of 2^k
 * slots holds 2^k - 1 commands: it gets the next power of two above its
 * stated capacity, and an occupancy counter enforces the capacity exactly: a
 * producer reserves a slot with fetch_add before enqueueing and backs out if
 * that overshoots; the consumer releases the slot after dequeueing. Occupancy
 * therefore never undercounts what the ring holds, so a reserved enqueue
 * cannot fail. Any thread may submit there, so the read-modify-write stays.
 *
 * Ordering. Stage 1 applies a batch in (class, id, sequence) order without
 * sorting it: each source's ring yields its commands in sequence order (the
 * drain, each ring's only consumer, stamps the sequence from the ring
 * position as it dequeues: "Slots"), and every source has its own (class, id) (the shared
 * ring is (0, 0); opened sources need class >= 1 and a (class, id) not yet
 * open). So the sorted batch is each source's drained run concatenated in
 * (class, id) order, and the drain builds exactly that: it dequeues source
 * after source in q->order, each source's share contiguously, O(n + sources)
 * with sequential memory access, into buffers sized at create (no allocation
 * during the tick). A linear check confirms each run is in sequence order
 * (n - runs comparisons, counted in pcs_command_stats); a run that is not
 * is merge-sorted, O(r log r), so the applied order is sorted whatever the
 * rings held. Since sequence numbers come from ring positions at dequeue,
 * no run can be out of order today (a producer breaking the one-producer
 * contract garbles slots, not their order); the check stays as the
 * invariant's guard and the cost pcs_command_stats reports.
 * The order is a pure function of the drained commands.
 *
 * Fairness. The drain takes what passes of one command per source, in
 * (class, id) order, would take until commands_per_tick: with a_k the
 * commands source k holds when the drain starts, L full passes take
 * min(a_k, L) from each, and the last, partial pass one more from the first
 * sources still holding some. plan_quotas() computes these shares up front
 * (the largest L that fits, by bisection) so each source can be drained in one
 * run. A command committed after the drain read its ring's size waits for the
 * next tick (which tick a concurrently submitted command lands on is timing
 * either way; the order within a tick is not).
 *
 * Memory ordering, the shared ring. ck_ring publishes slots with its own
 * barriers (x86-64 TSO, ck 0.7.1; see README "Platforms" for weakly ordered
 * CPUs). The occupancy counter only bounds the count: relaxed would suffice
 * for that, but acq_rel keeps the reasoning local and costs nothing extra on
 * x86-64 (lock xadd). Sources opened at run time are published with a
 * release store of the source count, read with acquire by the drain, after
 * the slot is filled under a mutex.
 *
 * Rate limits. An opened source may carry a token bucket
 * (pcs_command_source_set_rate): `rate` tokens per simulated second, at most
 * `burst` held, one spent per accepted command. The bucket is the producer's
 * own state, like tail: a source has one producer thread, so the check is
 * plain arithmetic on fields nothing else writes. It runs before the room
 * check (spsc_enqueue) and, when it refuses, returns without touching head,
 * tail or a slot, so on the shared words a rate refusal is a submit that
 * never happened: the ring protocol verify/commands_ring.pml checks is
 * unchanged by it (its file head says so). A batch takes min(n, tokens,
 * room) commands and spends one token for each; tokens are spent only after
 * the room check, so a capacity refusal costs no token.
 *
 * Refill comes from simulated time, never a clock: the drain counts the
 * stage-1 drains it has run (a release store at the start of each), and a
 * limited submit reads the count (acquire load) and adds rate * dt tokens per
 * drain since its last look. Stage 1 is where command.c runs each tick, so
 * the count is bumped there, by its one writer, rather than after the clock
 * advance in world.c. It counts drains, not the clock's tick number, so a
 * pcs_world_load that moves the tick back or forward neither stalls nor
 * floods the buckets (and a failed tick that is retried, which drains again,
 * refills again). Between two ticks the count is the number of ticks this
 * world has begun, so a host that submits between ticks (the CLI script,
 * `pcsim serve` in step mode, tests) gets the same refill for the same
 * submissions per tick: the accepted set is deterministic. A producer on
 * another thread while the world free-runs sees whichever tick has begun, as
 * which tick its commands land on is timing anyway. Only the count's value
 * is read, no data published with it, so relaxed would do; release and
 * acquire cost nothing more on x86-64 (plain mov) and keep TSan's view the
 * same. Tokens are fixed point, 2^32 units per token; the per-tick refill is
 * rate * dt rounded up once to a unit, so N ticks add floor(N * rate * dt)
 * whole tokens exactly whenever N * rate * dt is whole (and at most one
 * 2^-32 token per tick more otherwise). Bucket state is host configuration,
 * like pacing: never saved, loaded or hashed (a resumed run's buckets start
 * full). A source without a limit (per_tick == 0) pays one
 * predictable branch on the submit path (bench/commands_bench.c).
 *
 * The shared MPSC ring has no limit: it has no owner a limit could describe
 * (any thread submits), one bucket there would let one chatty thread spend
 * every other thread's tokens, and keeping it exact would take a CAS loop on
 * every producer's path. Its capacity bounds it; a host that wants a client
 * limited opens a source for it (pcsim serve does).
 *
 * ThreadSanitizer, the shared ring. ck publishes p_tail and c_head with
 * inline assembly TSan cannot see, so TSan builds declare the two edges on
 * the ring's address (engine/tsan.h; opened sources need none: their ring
 * is C11 atomics). An annotation only transfers what was released before the
 * acquire runs, so each acquire must come after the load that observed the
 * other side, and each release before the store that publishes:
 *  - slot write -> read: the producer reserves a slot, writes it, releases,
 *    then commits (ck's reserve/commit API splits the enqueue for this); the
 *    consumer observes a non-empty ring (ck_ring_size), then acquires, then
 *    dequeues.
 *  - slot read -> reuse: the consumer releases after each dequeue. ck lets a
 *    producer claim position p only when c_head >= p - slots + 2, i.e. after
 *    the consumer finished the dequeue that followed the last read of that
 *    slot; the producer acquires after its reserve observed that c_head.
 * Acquiring before ck's own load (as a plain "acquire; enqueue; release"
 * wrapper does) leaves a window in which clang's TSan reports the slot copy.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <ck_ring.h>

#include "engine/command_slot.h"
#include "engine/probes.h"
#include "engine/tsan.h"
#include "engine/world_internal.h"
#include "pcsim/math.h"

CK_RING_PROTOTYPE(pcs_cmd, pcs_command)

/* Token bucket fixed point: units per token. */
#define RATE_UNIT (UINT64_C(1) << 32)
/* Largest burst: burst * RATE_UNIT stays below 2^56, so the refill sum
 * (credit + elapsed * per_tick < 3 * cap) never overflows. */
#define RATE_BURST_MAX PCS_COMMAND_RATE_BURST_MAX
#define RATE_MAX_PER_S 1e9

/* A source's token bucket: the producer's own (file comment, "Rate limits"). */
typedef struct rate_bucket {
    uint64_t per_tick;   /* units added per tick; 0: no limit */
    uint64_t cap;        /* burst * RATE_UNIT */
    uint64_t credit;     /* units held, <= cap */
    uint64_t fill_ticks; /* ticks that fill an empty bucket */
    uint64_t seen;       /* the queue's drain count at the last refill */
    double dt_s;         /* the world's tick, for messages */
} rate_bucket;

struct pcs_command_source {
    ck_ring_t ring;          /* the shared MPSC ring only */
    pcs_command_slot *slots; /* opened sources: what each command carries ("Slots") */
    pcs_command *records;    /* the shared ring: whole records ("Slots": why) */
    uint32_t capacity;
    uint32_t mask; /* opened (SPSC) sources: slots - 1 */
    int multi_producer;
    uint16_t source_class;
    uint32_t source_id;
    rate_bucket rate;               /* producer-local */
    const _Atomic uint64_t *drains; /* the queue's, for the refill */
    _Atomic double rate_per_s;      /* as set, for stats from any thread */
    _Atomic uint32_t burst;
    /* SPSC ring (file comment, "Capacity"): the producer's line. tail counts
     * the commands ever enqueued (release store, producer only), which is
     * also the next sequence number and the submitted count; head_seen is the
     * producer's last acquire load of head. */
    _Alignas(64) _Atomic uint64_t tail;
    uint64_t head_seen;
    /* The consumer's line: commands ever dequeued (release store, drain only). */
    _Alignas(64) _Atomic uint64_t head;
    /* The shared MPSC ring's occupancy (reserve() fetch_add; unused by SPSC). */
    _Alignas(64) _Atomic uint32_t occupancy;
    /* MPSC only: consumer-owned, stamped at dequeue, because concurrent
     * producers claim ring slots (ck's CAS on p_head) in an order no
     * producer-side counter can match: a fetch_add before the enqueue let seq
     * 6 sit ahead of seq 5 in the ring, so the two could be applied on
     * different ticks in the wrong order. (An SPSC source's seq is its tail.) */
    _Atomic uint64_t next_seq;
    _Atomic uint64_t submitted; /* MPSC only (SPSC: tail) */
    /* Refusals: fetch_add on the shared ring; on an SPSC source the producer
     * is the only writer, so a relaxed load and store (count_refusal). */
    _Atomic uint64_t refused;      /* by capacity */
    _Atomic uint64_t refused_rate; /* by the rate limit */
};

struct pcs_command_queue {
    pthread_mutex_t open_lock;
    pcs_command_source **sources; /* [0] = anonymous MPSC ring; then opened sources */
    _Atomic uint32_t n_sources;   /* published count */
    _Atomic uint64_t drains;      /* stage-1 drains begun: rate-limit refill */
    double dt_s;                  /* the world tick, for each source's bucket */
    uint32_t n_known;             /* count the drain has ordered */
    uint32_t *order;              /* source indices in (class, id) order */
    pcs_command *batch;           /* commands_per_tick */
    uint32_t *quota;              /* per source rank: commands to drain this tick */
    uint32_t *run;                /* source rank k's commands are batch[run[k], run[k + 1]) */
    uint32_t *perm;               /* apply order of batch: identity unless a run was sorted */
    uint32_t *scratch;            /* commands_per_tick: merge sort buffer */
    pcs_command *journal;         /* journal_capacity ring */
    uint64_t journal_total;
    uint64_t applied;
    uint64_t rejected;
    uint64_t comparisons;      /* ordering key comparisons, all ticks */
    uint64_t comparisons_last; /* the same, last tick */
};

/* Slots for a ring that holds @p held commands: a power of two (masking). */
static uint32_t ring_slots_for(uint32_t held)
{
    uint32_t n = 1;
    while (n < held)
        n <<= 1;
    return n;
}

/* Sources may be opened from any thread after sealing, when the world heap
 * (single-thread mimalloc heap) must not be used: they come from the C
 * allocator and are freed at destroy. */
static pcs_command_source *source_new(uint32_t capacity, int mp, uint16_t cls, uint32_t id)
{
    pcs_command_source *s = aligned_alloc(64, sizeof *s);
    if (!s)
        return NULL;
    memset(s, 0, sizeof *s);
    /* ck_ring keeps one slot free (a ring of 2^k holds 2^k - 1); the SPSC
     * ring's free-running counts use every slot. */
    uint32_t n = ring_slots_for(mp ? capacity + 1 : capacity);
    if (mp)
        s->records = calloc(n, sizeof *s->records);
    else
        s->slots = calloc(n, sizeof *s->slots);
    if (!s->slots && !s->records) {
        free(s);
        return NULL;
    }
    if (mp)
        ck_ring_init(&s->ring, n);
    s->mask = n - 1;
    s->capacity = capacity;
    s->multi_producer = mp;
    s->source_class = cls;
    s->source_id = id;
    return s;
}

static void source_free(pcs_command_source *s)
{
    if (s) {
        free(s->slots);
        free(s->records);
        free(s);
    }
}

pcs_status pcs_commands_create(pcs_world *w)
{
    pcs_mem *m = &w->mem;
    uint32_t nsrc = w->cfg.max_sources + 1;
    pcs_command_queue *q = pcs_mem_alloc(m, sizeof *q);
    if (!q)
        return pcs_error_set(PCS_E_NOMEM, "commands: out of memory");
    q->sources = pcs_mem_array(m, nsrc, sizeof *q->sources);
    q->order = pcs_mem_array(m, nsrc, sizeof *q->order);
    q->batch = pcs_mem_array(m, w->cfg.commands_per_tick, sizeof *q->batch);
    q->quota = pcs_mem_array(m, nsrc, sizeof *q->quota);
    q->run = pcs_mem_array(m, nsrc + 1, sizeof *q->run);
    q->perm = pcs_mem_array(m, w->cfg.commands_per_tick, sizeof *q->perm);
    q->scratch = pcs_mem_array(m, w->cfg.commands_per_tick, sizeof *q->scratch);
    q->journal = pcs_mem_array(m, w->cfg.journal_capacity, sizeof *q->journal);
    if (!q->sources || !q->order || !q->batch || !q->quota || !q->run || !q->perm || !q->scratch ||
        !q->journal)
        return pcs_error_set(PCS_E_NOMEM, "commands: out of memory for queues");
    q->sources[0] = source_new(w->cfg.mpsc_capacity, 1, PCS_SOURCE_ANON, 0);
    if (!q->sources[0])
        return pcs_error_set(PCS_E_NOMEM, "commands: out of memory for the shared ring");
    pthread_mutex_init(&q->open_lock, NULL);
    atomic_init(&q->n_sources, 1);
    atomic_init(&q->drains, 0);
    q->dt_s = w->cfg.dt_s;
    w->commands = q;
    return PCS_OK;
}

void pcs_commands_destroy(pcs_world *w)
{
    pcs_command_queue *q = w->commands;
    if (!q)
        return;
    uint32_t n = atomic_load_explicit(&q->n_sources, memory_order_acquire);
    for (uint32_t i = 0; i < n; i++)
        source_free(q->sources[i]);
    pthread_mutex_destroy(&q->open_lock);
    w->commands = NULL;
}

pcs_status pcs_command_handler_register(pcs_world *w, uint32_t kind, pcs_command_fn fn, void *ctx)
{
    pcs_status st = pcs_world_check_build(w, "pcs_command_handler_register");
    if (st != PCS_OK)
        return st;
    if (kind == 0 || kind >= PCS_COMMAND_KINDS_MAX || !fn)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_command_handler_register: kind %u must be in [1, %u] with a "
                             "non-NULL handler",
                             kind, PCS_COMMAND_KINDS_MAX - 1);
    if (w->handlers[kind].fn)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_command_handler_register: kind %u already has a handler", kind);
    if (w->handlers[kind].family)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_command_handler_register: kind %u belongs to command family "
                             "'%s'",
                             kind, w->targets.families[w->handlers[kind].family - 1].name);
    w->handlers[kind].fn = fn;
    w->handlers[kind].ctx = ctx;
    return PCS_OK;
}

pcs_status pcs_command_source_open(pcs_world *w, uint16_t source_class, uint32_t source_id,
                                   uint32_t capacity, pcs_command_source **out)
{
    static const char fn[] = "pcs_command_source_open";
    if (!w || !out)
        return pcs_error_set(PCS_E_INVAL, "%s: world or out is NULL", fn);
    if (source_class == PCS_SOURCE_ANON)
        return pcs_error_set(PCS_E_INVAL, "%s: source class 0 is reserved for the shared ring", fn);
    if (capacity < 1 || capacity > (1u << 20))
        return pcs_error_set(PCS_E_INVAL, "%s: capacity %u is outside [1, 1048576]", fn, capacity);
    pcs_command_queue *q = w->commands;
    pthread_mutex_lock(&q->open_lock);
    uint32_t n = atomic_load_explicit(&q->n_sources, memory_order_relaxed);
    pcs_status st = PCS_OK;
    for (uint32_t i = 1; i < n && st == PCS_OK; i++)
        if (q->sources[i]->source_class == source_class && q->sources[i]->source_id == source_id)
            st = pcs_error_set(PCS_E_INVAL, "%s: source (class %u, id %u) is already open", fn,
                               source_class, source_id);
    if (st == PCS_OK && n > w->cfg.max_sources)
        st = pcs_error_set(PCS_E_OVERFLOW, "%s: max_sources = %u sources are already open", fn,
                           w->cfg.max_sources);
    pcs_command_source *s = NULL;
    if (st == PCS_OK) {
        s = source_new(capacity, 0, source_class, source_id);
        if (!s)
            st = pcs_error_set(PCS_E_NOMEM, "%s: out of memory", fn);
    }
    if (st == PCS_OK) {
        s->drains = &q->drains;
        s->rate.dt_s = q->dt_s;
    }
    if (st == PCS_OK) {
        q->sources[n] = s;
        /* Release: the drain's acquire load of n_sources sees a filled slot. */
        atomic_store_explicit(&q->n_sources, n + 1, memory_order_release);
        *out = s;
    }
    pthread_mutex_unlock(&q->open_lock);
    return st;
}

pcs_status pcs_command_source_set_rate(pcs_command_source *src, double rate_per_s, uint32_t burst)
{
    static const char fn[] = "pcs_command_source_set_rate";
    if (!src)
        return pcs_error_set(PCS_E_INVAL, "%s: source is NULL", fn);
    rate_bucket *b = &src->rate;
    if (rate_per_s == 0.0) { /* no limit; burst is ignored */
        b->per_tick = 0;
        atomic_store_explicit(&src->rate_per_s, 0.0, memory_order_relaxed);
        atomic_store_explicit(&src->burst, 0, memory_order_relaxed);
        return PCS_OK;
    }
    if (!(rate_per_s > 0.0 && rate_per_s <= RATE_MAX_PER_S))
        return pcs_error_set(PCS_E_INVAL,
                             "%s: source (class %u, id %u): rate %g/s is outside (0, %g] "
                             "(0 removes the limit)",
                             fn, src->source_class, src->source_id, rate_per_s, RATE_MAX_PER_S);
    if (burst < 1 || burst > RATE_BURST_MAX)
        return pcs_error_set(PCS_E_INVAL,
                             "%s: source (class %u, id %u): burst %u is outside [1, %u]", fn,
                             src->source_class, src->source_id, burst, RATE_BURST_MAX);
    b->cap = (uint64_t)burst * RATE_UNIT;
    double units = rate_per_s * b->dt_s * (double)RATE_UNIT;
    b->per_tick = units >= (double)b->cap ? b->cap : (uint64_t)pcs_ceil(units);
    if (b->per_tick == 0)
        b->per_tick = 1; /* below 2^-32 token per tick: the smallest refill */
    b->fill_ticks = (b->cap + b->per_tick - 1) / b->per_tick;
    b->credit = b->cap; /* starts full */
    b->seen = atomic_load_explicit(src->drains, memory_order_acquire);
    atomic_store_explicit(&src->rate_per_s, rate_per_s, memory_order_relaxed);
    atomic_store_explicit(&src->burst, burst, memory_order_relaxed);
    return PCS_OK;
}

/* Add the tokens of the drains (ticks) begun since the last look, up to the
 * cap. The count only grows. */
static void rate_refill(rate_bucket *b, uint64_t now)
{
    uint64_t elapsed = now - b->seen;
    if (elapsed == 0)
        return;
    b->seen = now;
    if (elapsed >= b->fill_ticks) {
        b->credit = b->cap;
        return;
    }
    uint64_t credit = b->credit + elapsed * b->per_tick; /* < 3 * cap: no overflow */
    b->credit = credit < b->cap ? credit : b->cap;
}

/* Whole tokens @p src holds after the refill, at most @p want. Producer-local:
 * reads the drain count, touches only the source's bucket. */
static uint32_t rate_tokens(pcs_command_source *s, uint32_t want)
{
    rate_bucket *b = &s->rate;
    rate_refill(b, atomic_load_explicit(s->drains, memory_order_acquire));
    uint64_t held = b->credit / RATE_UNIT;
    return held < want ? (uint32_t)held : want;
}

/* Count a refusal. The shared ring's counters take any producer (fetch_add);
 * an SPSC source's producer is their only writer, so it needs no atomic
 * read-modify-write, only a store other threads may read (stats). */
static void count_refusal(const pcs_command_source *s, _Atomic uint64_t *counter)
{
    if (s->multi_producer)
        atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
    else
        atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + 1,
                              memory_order_relaxed);
}

/* Refuse by the rate limit, saying how long until the next token. */
static pcs_status rate_refuse(pcs_command_source *s)
{
    const rate_bucket *b = &s->rate;
    count_refusal(s, &s->refused_rate);
    uint64_t ticks = (RATE_UNIT - b->credit + b->per_tick - 1) / b->per_tick;
    return pcs_error_set(PCS_E_RATE,
                         "command submit: source (class %u, id %u): rate limit: next token in "
                         "%g s (%llu tick%s of %g s; %g/s, burst %u)",
                         s->source_class, s->source_id, (double)ticks * b->dt_s,
                         (unsigned long long)ticks, ticks == 1 ? "" : "s", b->dt_s,
                         atomic_load_explicit(&s->rate_per_s, memory_order_relaxed),
                         atomic_load_explicit(&s->burst, memory_order_relaxed));
}

static pcs_status refuse_full(pcs_command_source *s)
{
    count_refusal(s, &s->refused);
    return pcs_error_set(PCS_E_RATE,
                         "command submit: source (class %u, id %u) holds its capacity of %u "
                         "commands",
                         s->source_class, s->source_id, s->capacity);
}

static pcs_status check_kind(const pcs_command *cmd)
{
    if (!cmd)
        return pcs_error_set(PCS_E_INVAL, "command submit: cmd is NULL");
    if (cmd->kind == 0 || cmd->kind >= PCS_COMMAND_KINDS_MAX)
        return pcs_error_set(PCS_E_INVAL, "command submit: kind %u is outside [1, %u]", cmd->kind,
                             PCS_COMMAND_KINDS_MAX - 1);
    return PCS_OK;
}

/* ---- the shared MPSC ring: ck_ring plus an occupancy counter ---------------- */

/* Reserve one unit of capacity; false (and nothing changed) when full. */
static int reserve(pcs_command_source *s)
{
    uint32_t before = atomic_fetch_add_explicit(&s->occupancy, 1, memory_order_acq_rel);
    if (before < s->capacity)
        return 1;
    atomic_fetch_sub_explicit(&s->occupancy, 1, memory_order_acq_rel);
    return 0;
}

static pcs_status mpsc_enqueue(pcs_command_source *s, const pcs_command *cmd)
{
    if (!reserve(s))
        return refuse_full(s);
    pcs_command c = *cmd;
    c.source_class = s->source_class;
    c.source_id = s->source_id;
    c.reserved = 0;
    c.tick = 0;
    c.seq = 0; /* stamped by mpsc_dequeue() in ring order */
    unsigned int ticket = 0;
    pcs_command *slot = ck_ring_enqueue_reserve_mpsc_pcs_cmd(&s->ring, s->records, &ticket);
    if (!slot) { /* unreachable: occupancy bounds the ring; kept as a guard */
        atomic_fetch_sub_explicit(&s->occupancy, 1, memory_order_acq_rel);
        return pcs_error_set(PCS_E_STATE, "command submit: ring full after reservation");
    }
    PCS_TSAN_ACQUIRE(&s->ring); /* after the reserve observed c_head */
    *slot = c;
    PCS_TSAN_RELEASE(&s->ring); /* before the commit publishes p_tail */
    ck_ring_enqueue_commit_mpsc(&s->ring, ticket);
    atomic_fetch_add_explicit(&s->submitted, 1, memory_order_relaxed);
    return PCS_OK;
}

static int mpsc_dequeue(pcs_command_source *s, pcs_command *out)
{
    /* Observe a committed slot before acquiring (see the file comment); the
     * drain is the only consumer, so the dequeue below then succeeds. */
    if (ck_ring_size(&s->ring) == 0)
        return 0;
    PCS_TSAN_ACQUIRE(&s->ring);
    bool ok = ck_ring_dequeue_spsc_pcs_cmd(&s->ring, s->records, out);
    PCS_TSAN_RELEASE(&s->ring);
    if (!ok)
        return 0;
    /* The drain is the only consumer: a plain increment. */
    out->seq = atomic_load_explicit(&s->next_seq, memory_order_relaxed);
    atomic_store_explicit(&s->next_seq, out->seq + 1, memory_order_relaxed);
    atomic_fetch_sub_explicit(&s->occupancy, 1, memory_order_acq_rel);
    return 1;
}

/* ---- opened sources: the SPSC ring (file comment, "Capacity") ----------------- */

/* Free slots for a producer that wants @p want at its tail @p tail: from its
 * cached view of head while that shows enough room, else from a fresh acquire
 * load (exact as of that load). command.c's only read of the consumer's line
 * on the submit path. */
static uint32_t spsc_room(pcs_command_source *s, uint64_t tail, uint32_t want)
{
    uint32_t room = s->capacity - (uint32_t)(tail - s->head_seen);
    if (room >= want)
        return room;
    s->head_seen = atomic_load_explicit(&s->head, memory_order_acquire);
    return s->capacity - (uint32_t)(tail - s->head_seen);
}

/* Enqueue the longest prefix of cmds[0, n) that the rate limit and the room
 * allow (n >= 1, kinds checked); PCS_E_RATE, nothing queued, when that is
 * none. Producer thread only: every word written here but the slots' copies
 * and tail is producer-local. */
static pcs_status spsc_enqueue(pcs_command_source *s, const pcs_command *cmds, uint32_t n,
                               uint32_t *accepted)
{
    uint32_t k = n;
    /* The one branch an unlimited source pays: producer-local, before the
     * room check, so a source both out of tokens and full refuses by rate,
     * as a single submit always has. */
    if (s->rate.per_tick != 0) {
        k = rate_tokens(s, n);
        if (k == 0)
            return rate_refuse(s);
    }
    uint64_t tail = atomic_load_explicit(&s->tail, memory_order_relaxed); /* our own */
    uint32_t room = spsc_room(s, tail, k);
    if (room == 0)
        return refuse_full(s); /* no token spent: a capacity refusal costs none */
    k = k < room ? k : room;
    if (s->rate.per_tick != 0)
        s->rate.credit -= (uint64_t)k * RATE_UNIT;
    /* Only what each command carries; its sequence is its position, tail + i
     * (file comment, "Slots"). */
    for (uint32_t i = 0; i < k; i++)
        s->slots[(tail + i) & s->mask] = pcs_command_slot_pack(&cmds[i]);
    /* Release: the slots above happen before the drain's acquire load of tail. */
    atomic_store_explicit(&s->tail, tail + k, memory_order_release);
    *accepted = k;
    return PCS_OK;
}

/* Commands the drain may take from an SPSC source: acquire, so the slots up
 * to the tail it returns are visible. The drain is head's only writer. */
static uint32_t spsc_held(const pcs_command_source *s)
{
    uint64_t head = atomic_load_explicit(&s->head, memory_order_relaxed);
    return (uint32_t)(atomic_load_explicit(&s->tail, memory_order_acquire) - head);
}

/* Expand @p k slots from index @p at on into out, the first one having
 * sequence number @p seq: the source's own (class, id), seq counting up. */
static void spsc_expand_run(const pcs_command_source *s, uint32_t at, uint32_t k, uint64_t seq,
                            pcs_command *out)
{
    const pcs_command_slot *from = &s->slots[at];
    /* Locals: out may alias *s as far as the compiler knows, which would
     * reload both every command. */
    const uint16_t cls = s->source_class;
    const uint32_t id = s->source_id;
    for (uint32_t j = 0; j < k; j++)
        pcs_command_slot_expand(&from[j], cls, id, seq + j, &out[j]);
}

/* Expand @p k commands (k <= spsc_held) into out in one or two runs (the ring
 * may wrap), then release them to the producer: the copies happen before the
 * release store of head, and the producer's acquire load of head before it
 * reuses a slot. A command's sequence number is its position, head + j. */
static void spsc_dequeue_n(pcs_command_source *s, pcs_command *out, uint32_t k)
{
    uint64_t head = atomic_load_explicit(&s->head, memory_order_relaxed);
    uint32_t at = (uint32_t)(head & s->mask);
    uint32_t first = s->mask + 1 - at < k ? s->mask + 1 - at : k;
    spsc_expand_run(s, at, first, head, out);
    spsc_expand_run(s, 0, k - first, head + first, out + first);
    atomic_store_explicit(&s->head, head + k, memory_order_release);
}

/* Commands source @p s holds now (approximate while its producer runs). */
static uint32_t source_held(const pcs_command_source *s)
{
    return s->multi_producer ? (uint32_t)ck_ring_size(&s->ring) : spsc_held(s);
}

pcs_status pcs_command_source_submit(pcs_command_source *src, const pcs_command *cmd)
{
    if (!src)
        return pcs_error_set(PCS_E_INVAL, "pcs_command_source_submit: source is NULL");
    pcs_status st = check_kind(cmd);
    uint32_t accepted = 0;
    return st == PCS_OK ? spsc_enqueue(src, cmd, 1, &accepted) : st;
}

pcs_status pcs_command_source_submit_n(pcs_command_source *src, const pcs_command *cmds, uint32_t n,
                                       uint32_t *accepted)
{
    static const char fn[] = "pcs_command_source_submit_n";
    if (accepted)
        *accepted = 0;
    if (!src || !cmds || !accepted)
        return pcs_error_set(PCS_E_INVAL, "%s: %s is NULL", fn,
                             !src    ? "source"
                             : !cmds ? "cmds"
                                     : "accepted");
    if (n == 0 || n > PCS_COMMAND_SUBMIT_MAX)
        return pcs_error_set(PCS_E_INVAL,
                             "%s: source (class %u, id %u): n = %u is outside [1, %u]; nothing "
                             "queued",
                             fn, src->source_class, src->source_id, n, PCS_COMMAND_SUBMIT_MAX);
    for (uint32_t i = 0; i < n; i++)
        if (cmds[i].kind == 0 || cmds[i].kind >= PCS_COMMAND_KINDS_MAX)
            return pcs_error_set(PCS_E_INVAL,
                                 "%s: source (class %u, id %u): cmds[%u].kind %u is outside "
                                 "[1, %u]; nothing queued",
                                 fn, src->source_class, src->source_id, i, cmds[i].kind,
                                 PCS_COMMAND_KINDS_MAX - 1);
    return spsc_enqueue(src, cmds, n, accepted);
}

pcs_status pcs_command_submit(pcs_world *w, const pcs_command *cmd)
{
    if (!w)
        return pcs_error_set(PCS_E_INVAL, "pcs_command_submit: world is NULL");
    pcs_status st = check_kind(cmd);
    return st == PCS_OK ? mpsc_enqueue(w->commands->sources[0], cmd) : st;
}

static int source_before(const pcs_command_source *a, const pcs_command_source *b)
{
    if (a->source_class != b->source_class)
        return a->source_class < b->source_class;
    return a->source_id < b->source_id;
}

/* Fold sources opened since the last drain into the (class, id) order. An
 * insertion per opened source, O(sources) each: opening is rare and bounded by
 * max_sources. */
static void adopt_new_sources(pcs_command_queue *q)
{
    uint32_t n = atomic_load_explicit(&q->n_sources, memory_order_acquire);
    for (uint32_t i = q->n_known; i < n; i++) {
        uint32_t j = i;
        while (j > 0 && source_before(q->sources[i], q->sources[q->order[j - 1]])) {
            q->order[j] = q->order[j - 1];
            j--;
        }
        q->order[j] = i;
    }
    q->n_known = n;
}

/* Commands the first `level` passes take: sum over sources of min(held, level). */
static uint64_t taken_by_passes(const pcs_command_queue *q, uint32_t level)
{
    uint64_t total = 0;
    for (uint32_t k = 0; k < q->n_known; k++)
        total += q->quota[k] < level ? q->quota[k] : level;
    return total;
}

/* Set quota[k] to source rank k's share of this tick (file comment,
 * "Fairness"): what passes of one command per source in q->order take until
 * `limit`, from what each ring holds now. */
static void plan_quotas(pcs_command_queue *q, uint32_t limit)
{
    uint64_t total = 0;
    uint32_t most = 0;
    for (uint32_t k = 0; k < q->n_known; k++) {
        uint32_t held = source_held(q->sources[q->order[k]]);
        q->quota[k] = held;
        total += held;
        most = held > most ? held : most;
    }
    if (total <= limit)
        return; /* everything fits */
    /* Largest level L with taken_by_passes(L) <= limit: taken_by_passes(0) = 0
     * fits, taken_by_passes(most) = total does not. */
    uint32_t lo = 0, hi = most;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (taken_by_passes(q, mid) <= limit)
            lo = mid;
        else
            hi = mid;
    }
    /* The partial pass: one more from the first sources holding more than L. */
    uint64_t left = limit - taken_by_passes(q, lo);
    for (uint32_t k = 0; k < q->n_known; k++) {
        uint32_t held = q->quota[k];
        q->quota[k] = held < lo ? held : lo;
        if (held > lo && left > 0) {
            q->quota[k]++;
            left--;
        }
    }
}

/* Dequeue each source's share, source after source in (class, id) order, so
 * the batch comes out as one run per source, contiguous and in place. */
static uint32_t drain(pcs_command_queue *q, uint32_t limit)
{
    plan_quotas(q, limit);
    uint32_t count = 0;
    for (uint32_t k = 0; k < q->n_known; k++) {
        pcs_command_source *s = q->sources[q->order[k]];
        q->run[k] = count;
        if (!s->multi_producer) {
            /* plan_quotas read spsc_held(): the quota is there, in one copy */
            spsc_dequeue_n(s, &q->batch[count], q->quota[k]);
            count += q->quota[k];
            continue;
        }
        for (uint32_t j = 0; j < q->quota[k] && mpsc_dequeue(s, &q->batch[count]); j++)
            count++;
    }
    for (uint32_t i = 0; i < count; i++)
        q->perm[i] = i;
    q->run[q->n_known] = count;
    return count;
}

static int command_before(const pcs_command *a, const pcs_command *b)
{
    if (a->source_class != b->source_class)
        return a->source_class < b->source_class;
    if (a->source_id != b->source_id)
        return a->source_id < b->source_id;
    return a->seq < b->seq;
}

/* Merge perm-index lists a[lo, mid) and a[mid, hi) into b[lo, hi), stably. */
static void merge(const pcs_command *batch, const uint32_t *a, uint32_t *b, uint32_t lo,
                  uint32_t mid, uint32_t hi, uint64_t *cmps)
{
    uint32_t i = lo, j = mid, o = lo;
    while (i < mid && j < hi) {
        ++*cmps;
        b[o++] = command_before(&batch[a[j]], &batch[a[i]]) ? a[j++] : a[i++];
    }
    while (i < mid)
        b[o++] = a[i++];
    while (j < hi)
        b[o++] = a[j++];
}

/* Bottom-up merge sort of perm[lo, hi), ping-ponging with the scratch array:
 * O(r log r), stable, no allocation. */
static void merge_sort_run(pcs_command_queue *q, uint32_t lo, uint32_t hi, uint64_t *cmps)
{
    uint32_t *src = q->perm, *dst = q->scratch;
    for (uint32_t width = 1; width < hi - lo; width *= 2) {
        for (uint32_t a = lo; a < hi; a += 2 * width) {
            uint32_t mid = hi - a > width ? a + width : hi;
            uint32_t end = hi - mid > width ? mid + width : hi;
            merge(q->batch, src, dst, a, mid, end, cmps);
        }
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != q->perm)
        memcpy(&q->perm[lo], &src[lo], (hi - lo) * sizeof *q->perm);
}

/* The drain left one run per source in (class, id) order (file comment,
 * "Ordering"): check each run is in sequence order and sort any that is not. */
static void sort_batch(pcs_command_queue *q)
{
    uint64_t cmps = 0;
    for (uint32_t k = 0; k < q->n_known; k++) {
        uint32_t lo = q->run[k], hi = q->run[k + 1];
        for (uint32_t i = lo + 1; i < hi; i++) {
            cmps++;
            if (command_before(&q->batch[q->perm[i]], &q->batch[q->perm[i - 1]])) {
                merge_sort_run(q, lo, hi, &cmps);
                break;
            }
        }
    }
    q->comparisons += cmps;
    q->comparisons_last = cmps;
}

/* A journal slot's `reserved` when its command was withdrawn: a structural
 * change accepted at stage 1 whose apply then failed (engine/structure.c).
 * The slot stays (cursors are slot indices, and the sleep system reads this
 * tick's entries at stage 1); pcs_journal_read skips it, so the journal
 * holds what was applied and a replay does not apply what the run did not.
 * A reader that read the slot before the withdrawal (between the attempt
 * that accepted the change and the one whose apply failed) keeps it:
 * read the journal after successful ticks, as the journal writer's hosts do. */
#define JOURNAL_WITHDRAWN 1u

static void journal_append(pcs_world *w, const pcs_command *c)
{
    pcs_command_queue *q = w->commands;
    q->journal[q->journal_total % w->cfg.journal_capacity] = *c;
    q->journal[q->journal_total % w->cfg.journal_capacity].reserved = 0;
    q->journal_total++;
}

void pcs_journal_withdraw(pcs_world *w, const pcs_command *c)
{
    pcs_command_queue *q = w->commands;
    uint32_t cap = w->cfg.journal_capacity;
    uint64_t oldest = q->journal_total > cap ? q->journal_total - cap : 0;
    /* Newest first: the entry is of this tick, so the scan stops at the
     * first older tick (or when the ring no longer holds it). */
    for (uint64_t i = q->journal_total; i-- > oldest;) {
        pcs_command *e = &q->journal[i % cap];
        if (e->tick != c->tick)
            return;
        if (e->seq == c->seq && e->source_class == c->source_class &&
            e->source_id == c->source_id && e->kind == c->kind &&
            e->reserved != JOURNAL_WITHDRAWN) {
            e->reserved = JOURNAL_WITHDRAWN;
            q->applied--;
            pcs_command_carry_forget(w, i); /* a replay will not announce it either */
            return;
        }
    }
}

/* Apply one command; what it emitted (its handler's events, or the
 * rejection) is also kept in the carry (engine/command_carry.c), which a
 * retry of this tick emits again. */
static void apply(pcs_world *w, pcs_command *c)
{
    pcs_command_queue *q = w->commands;
    uint32_t first_event = w->n_events;
    uint64_t dropped_before = w->events_dropped_tick;
    c->tick = w->clock.tick;
    /* Submission checked the kind, but a producer that breaks its source's
     * one-producer rule can tear a slot while the drain reads it; the kind
     * indexes the handler table, so it is checked again here (one compare)
     * and a torn one is rejected (PCS_E_CORRUPT), never used as an index. */
    pcs_status st = PCS_E_CORRUPT;
    if (c->kind != 0 && c->kind < PCS_COMMAND_KINDS_MAX) {
        const pcs_handler_rec *h = &w->handlers[c->kind];
        st = h->family ? pcs_command_target_apply(w, h, c)
             : h->fn   ? h->fn(w, h->ctx, c)
                       : PCS_E_NOTFOUND;
    }
    if (st == PCS_OK) {
        journal_append(w, c);
        q->applied++;
        PCS_PROBE_COMMAND_APPLIED(c->tick, c->kind, c->source_class, c->source_id, c->seq);
    } else {
        q->rejected++;
        pcs_event_emit(w, PCS_EV_COMMAND_REJECTED, c->kind, (double)c->source_class,
                       (double)c->source_id, (double)c->seq, (double)st);
    }
    /* Most commands emit nothing: then the carry has nothing to keep. */
    if (w->n_events != first_event || w->events_dropped_tick != dropped_before)
        pcs_command_carry_keep(w, first_event, dropped_before, st == PCS_OK, q->journal_total - 1);
}

pcs_status pcs_commands_stage(pcs_world *w)
{
    pcs_command_queue *q = w->commands;
    /* Rate-limit refill (file comment, "Rate limits"): one more drain begun.
     * This thread is the count's only writer. */
    uint64_t drains = atomic_load_explicit(&q->drains, memory_order_relaxed);
    atomic_store_explicit(&q->drains, drains + 1, memory_order_release);
    adopt_new_sources(q);
    uint32_t n = drain(q, w->cfg.commands_per_tick);
    sort_batch(q);
    for (uint32_t i = 0; i < n; i++)
        apply(w, &q->batch[q->perm[i]]);
    return PCS_OK;
}

uint64_t pcs_command_pending(const pcs_world *w)
{
    if (!w)
        return 0;
    const pcs_command_queue *q = w->commands;
    uint32_t n = atomic_load_explicit(&q->n_sources, memory_order_acquire);
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        const pcs_command_source *s = q->sources[i];
        if (s->multi_producer) {
            total += atomic_load_explicit(&s->occupancy, memory_order_acquire);
            continue;
        }
        /* head first: tail is never behind a head read earlier */
        uint64_t head = atomic_load_explicit(&s->head, memory_order_acquire);
        total += atomic_load_explicit(&s->tail, memory_order_acquire) - head;
    }
    return total;
}

/* Commands ever accepted: an SPSC source's tail, the shared ring's counter. */
static uint64_t source_submitted(const pcs_command_source *s)
{
    return atomic_load_explicit(s->multi_producer ? &s->submitted : &s->tail, memory_order_relaxed);
}

pcs_status pcs_command_stats_get(const pcs_world *w, pcs_command_stats *out)
{
    if (!w || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_command_stats_get: NULL argument");
    const pcs_command_queue *q = w->commands;
    memset(out, 0, sizeof *out);
    uint32_t n = atomic_load_explicit(&q->n_sources, memory_order_acquire);
    for (uint32_t i = 0; i < n; i++) {
        out->submitted += source_submitted(q->sources[i]);
        out->refused += atomic_load_explicit(&q->sources[i]->refused, memory_order_relaxed);
        out->refused_rate +=
            atomic_load_explicit(&q->sources[i]->refused_rate, memory_order_relaxed);
    }
    out->applied = q->applied;
    out->rejected = q->rejected;
    out->drain_comparisons = q->comparisons;
    out->drain_comparisons_last = q->comparisons_last;
    return PCS_OK;
}

pcs_status pcs_command_source_stats_get(const pcs_command_source *src,
                                        pcs_command_source_stats *out)
{
    if (!src || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_command_source_stats_get: NULL argument");
    memset(out, 0, sizeof *out);
    out->source_class = src->source_class;
    out->source_id = src->source_id;
    out->capacity = src->capacity;
    out->submitted = source_submitted(src);
    out->refused = atomic_load_explicit(&src->refused, memory_order_relaxed);
    out->refused_rate = atomic_load_explicit(&src->refused_rate, memory_order_relaxed);
    out->rate_per_s = atomic_load_explicit(&src->rate_per_s, memory_order_relaxed);
    out->burst = atomic_load_explicit(&src->burst, memory_order_relaxed);
    return PCS_OK;
}

uint32_t pcs_journal_read(const pcs_world *w, uint64_t *cursor, pcs_command *out, uint32_t max,
                          uint64_t *missed)
{
    if (!w || !cursor || (!out && max)) {
        pcs_error_set(PCS_E_INVAL, "pcs_journal_read: NULL argument");
        return 0;
    }
    const pcs_command_queue *q = w->commands;
    uint64_t oldest =
        q->journal_total > w->cfg.journal_capacity ? q->journal_total - w->cfg.journal_capacity : 0;
    uint64_t lost = *cursor < oldest ? oldest - *cursor : 0;
    if (missed)
        *missed = lost;
    uint64_t i = *cursor + lost;
    uint32_t n = 0;
    for (; i < q->journal_total && n < max; i++) {
        const pcs_command *e = &q->journal[i % w->cfg.journal_capacity];
        if (e->reserved != JOURNAL_WITHDRAWN)
            out[n++] = *e;
    }
    *cursor = i;
    return n;
}

uint64_t pcs_journal_count(const pcs_world *w)
{
    return w ? w->commands->journal_total : 0;
}
