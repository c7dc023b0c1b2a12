/**
 * @file broken_fixtures.c
 * @brief Deliberately broken concurrent code the framework must flag (expect_fail),
 *        next to the correct version of each, which must pass.
 *
 * A stress framework that never fails proves nothing. These fixtures carry bugs
 * that are real on x86-64 and every other multi-core machine:
 *
 *  - a counter incremented by a separate load and store (two relaxed atomics:
 *    no data race in the C11 sense, so ThreadSanitizer is silent, yet two
 *    concurrent increments can lose one) — the "non-atomic counter";
 *  - Dekker-style flags with release stores and acquire loads (store buffering:
 *    each thread's store may still sit in its store buffer when it loads the
 *    other flag, so both can read 0; only seq_cst forbids it — a "missing
 *    barrier", the bug of a queue that publishes without a full fence).
 *
 * The correct versions (fetch_add, seq_cst) run with the same outcome tables
 * and must never show the forbidden outcome.
 */
#include <stdint.h>

#include "stress/stress.h"

/* ---- counter: load + store vs fetch_add ------------------------------------------ */

typedef struct counter_state {
    _Atomic uint32_t x;
} counter_state;

static void counter_racy_incr(void *s, pcs_stress_ctl *ctl)
{
    (void)ctl;
    counter_state *c = s;
    uint32_t v = atomic_load_explicit(&c->x, memory_order_relaxed);
    pcs_stress_pause(); /* widen the window so a short run catches it reliably */
    atomic_store_explicit(&c->x, v + 1, memory_order_relaxed); /* the bug: not one RMW */
}

static void counter_atomic_incr(void *s, pcs_stress_ctl *ctl)
{
    (void)ctl;
    counter_state *c = s;
    atomic_fetch_add_explicit(&c->x, 1, memory_order_relaxed);
}

static int counter_arbiter(void *s)
{
    counter_state *c = s;
    return (int)atomic_load_explicit(&c->x, memory_order_relaxed);
}

static const pcs_stress_outcome counter_outcomes[] = {
    {2, PCS_STRESS_ACCEPTABLE, "x=2", "both increments counted"},
    {1, PCS_STRESS_FORBIDDEN, "x=1", "lost update: both read 0, both wrote 1"},
};

static const pcs_stress_test broken_counter_iter = {
    .name = "broken.counter_load_store",
    .description = "Two threads increment a counter by load then store: one update can be lost.",
    .style = PCS_STRESS_ITERATION,
    .expect_fail = 1,
    .weight = 0.5,
    .n_actors = 2,
    .actors = {counter_racy_incr, counter_racy_incr},
    .outcomes = counter_outcomes,
    .n_outcomes = sizeof counter_outcomes / sizeof counter_outcomes[0],
    .state_size = sizeof(counter_state),
    .stride = 64,
    .arbiter = counter_arbiter,
};
PCS_STRESS_REGISTER(broken_counter_iter)

static const pcs_stress_test atomic_counter_iter = {
    .name = "atomics.counter_fetch_add",
    .description = "Two threads increment a counter with fetch_add: no update is lost.",
    .style = PCS_STRESS_ITERATION,
    .weight = 0.5,
    .n_actors = 2,
    .actors = {counter_atomic_incr, counter_atomic_incr},
    .outcomes = counter_outcomes,
    .n_outcomes = sizeof counter_outcomes / sizeof counter_outcomes[0],
    .state_size = sizeof(counter_state),
    .stride = 64,
    .arbiter = counter_arbiter,
};
PCS_STRESS_REGISTER(atomic_counter_iter)

/* ---- counter, soak style: many increments against one shared counter ------------- */

typedef struct soak_counter {
    _Alignas(64) _Atomic uint64_t x;
    _Alignas(64) uint64_t done[2]; /* each actor writes its own slot once, read after join */
} soak_counter;

static void *soak_counter_setup(void)
{
    static soak_counter shared; /* one test at a time: a static instance is enough */
    atomic_store_explicit(&shared.x, 0, memory_order_relaxed);
    shared.done[0] = shared.done[1] = 0;
    return &shared;
}

static void soak_counter_actor(void *s, pcs_stress_ctl *ctl)
{
    soak_counter *c = s;
    uint64_t mine = 0;
    while (pcs_stress_running(ctl)) {
        uint64_t v = atomic_load_explicit(&c->x, memory_order_relaxed);
        atomic_store_explicit(&c->x, v + 1, memory_order_relaxed); /* the bug */
        mine++;
    }
    c->done[ctl->actor] = mine;
}

static void soak_counter_finish(void *s, pcs_stress_ctl *ctl)
{
    soak_counter *c = s;
    uint64_t expect = c->done[0] + c->done[1];
    uint64_t got = atomic_load_explicit(&c->x, memory_order_relaxed);
    pcs_stress_record(ctl, got == expect ? 0 : 1);
}

static const pcs_stress_outcome soak_counter_outcomes[] = {
    {0, PCS_STRESS_ACCEPTABLE, "final == increments", "no update lost"},
    {1, PCS_STRESS_FORBIDDEN, "final < increments", "lost updates"},
};

static const pcs_stress_test broken_counter_soak = {
    .name = "broken.counter_soak",
    .description = "Two threads hammer one counter with load-then-store for the whole budget.",
    .style = PCS_STRESS_SOAK,
    .expect_fail = 1,
    .weight = 0.3,
    .n_actors = 2,
    .actors = {soak_counter_actor, soak_counter_actor},
    .outcomes = soak_counter_outcomes,
    .n_outcomes = sizeof soak_counter_outcomes / sizeof soak_counter_outcomes[0],
    .setup = soak_counter_setup,
    .finish = soak_counter_finish,
};
PCS_STRESS_REGISTER(broken_counter_soak)

/* ---- store buffering (Dekker) --------------------------------------------------- */

typedef struct sb_state {
    _Alignas(64) _Atomic int x;
    _Alignas(64) _Atomic int y;
    int r1, r2; /* each written by one actor, read by the arbiter after the batch */
} sb_state;

static void sb_relacq_0(void *p, pcs_stress_ctl *ctl)
{
    (void)ctl;
    sb_state *s = p;
    atomic_store_explicit(&s->x, 1, memory_order_release);
    s->r1 = atomic_load_explicit(&s->y, memory_order_acquire);
}

static void sb_relacq_1(void *p, pcs_stress_ctl *ctl)
{
    (void)ctl;
    sb_state *s = p;
    atomic_store_explicit(&s->y, 1, memory_order_release);
    s->r2 = atomic_load_explicit(&s->x, memory_order_acquire);
}

static void sb_seqcst_0(void *p, pcs_stress_ctl *ctl)
{
    (void)ctl;
    sb_state *s = p;
    atomic_store_explicit(&s->x, 1, memory_order_seq_cst);
    s->r1 = atomic_load_explicit(&s->y, memory_order_seq_cst);
}

static void sb_seqcst_1(void *p, pcs_stress_ctl *ctl)
{
    (void)ctl;
    sb_state *s = p;
    atomic_store_explicit(&s->y, 1, memory_order_seq_cst);
    s->r2 = atomic_load_explicit(&s->x, memory_order_seq_cst);
}

static int sb_arbiter(void *p)
{
    sb_state *s = p;
    return s->r1 * 2 + s->r2;
}

static const pcs_stress_outcome sb_outcomes[] = {
    {0, PCS_STRESS_FORBIDDEN, "r1=0, r2=0", "both passed the other's flag: no mutual exclusion"},
    {1, PCS_STRESS_ACCEPTABLE, "r1=0, r2=1", "actor 0 ran first"},
    {2, PCS_STRESS_ACCEPTABLE, "r1=1, r2=0", "actor 1 ran first"},
    {3, PCS_STRESS_INTERESTING, "r1=1, r2=1", "stores interleaved before both loads"},
};

static const pcs_stress_test broken_sb = {
    .name = "broken.dekker_release_acquire",
    .description = "Dekker flags with release/acquire only: store buffering lets both enter.",
    .style = PCS_STRESS_ITERATION,
    .expect_fail = 1,
    .native_only = 1,
    .weight = 0.5,
    .n_actors = 2,
    .actors = {sb_relacq_0, sb_relacq_1},
    .outcomes = sb_outcomes,
    .n_outcomes = sizeof sb_outcomes / sizeof sb_outcomes[0],
    .state_size = sizeof(sb_state),
    .stride = 64,
    .arbiter = sb_arbiter,
};
PCS_STRESS_REGISTER(broken_sb)

static const pcs_stress_test atomic_sb = {
    .name = "atomics.dekker_seq_cst",
    .description = "Dekker flags with seq_cst: at least one thread sees the other's flag.",
    .style = PCS_STRESS_ITERATION,
    .weight = 0.5,
    .n_actors = 2,
    .actors = {sb_seqcst_0, sb_seqcst_1},
    .outcomes = sb_outcomes,
    .n_outcomes = sizeof sb_outcomes / sizeof sb_outcomes[0],
    .state_size = sizeof(sb_state),
    .stride = 64,
    .arbiter = sb_arbiter,
};
PCS_STRESS_REGISTER(atomic_sb)

/* ---- SPSC ring: head released after the copy vs before (engine/command.c) --------- */

/* The opened-source ring of engine/command.c reduced to one slot (capacity
 * 1): the producer's room is capacity - (tail - head) from an acquire load of
 * head, the slot written, then tail stored with release; the consumer loads
 * tail with acquire, copies the slot, then stores head with release
 * (spsc_dequeue_n). The broken consumer stores head before the copy, the
 * change of verify/commands_ring.pml BROKEN_RELEASE_EARLY: the waiting
 * producer sees room and overwrites the slot before it was read. The slot is
 * a relaxed atomic so the bug is a wrong value, not a data race: TSan is
 * silent, the outcome table is not. */
#define SPSC_VALUES 3u
#define SPSC_WINDOW 16 /* pauses between the consumer's two steps, both variants */

typedef struct spsc_state {
    _Alignas(64) _Atomic uint64_t tail;
    _Alignas(64) _Atomic uint64_t head;
    _Atomic uint32_t slot;
    uint32_t got[SPSC_VALUES]; /* the consumer's, read by the arbiter after the batch */
} spsc_state;

static void spsc_window(void)
{
    for (int i = 0; i < SPSC_WINDOW; i++)
        pcs_stress_pause();
}

/* command.c:spsc_enqueue of values 1..SPSC_VALUES, waiting while full. */
static void spsc_push(void *p, pcs_stress_ctl *ctl)
{
    (void)ctl;
    spsc_state *s = p;
    uint64_t seen = 0;
    for (uint32_t v = 1; v <= SPSC_VALUES; v++) {
        uint64_t tail = atomic_load_explicit(&s->tail, memory_order_relaxed);
        while (tail - seen >= 1) { /* spsc_room: no room at the cached head */
            seen = atomic_load_explicit(&s->head, memory_order_acquire);
            if (tail - seen >= 1)
                pcs_stress_pause();
        }
        atomic_store_explicit(&s->slot, v, memory_order_relaxed);
        atomic_store_explicit(&s->tail, tail + 1, memory_order_release);
    }
}

/* The consumer: wait for a command (spsc_held), then copy and release. */
static uint64_t spsc_wait(spsc_state *s, uint64_t head)
{
    while (atomic_load_explicit(&s->tail, memory_order_acquire) == head)
        pcs_stress_pause();
    return head;
}

static void spsc_pop_release_after_copy(void *p, pcs_stress_ctl *ctl)
{
    (void)ctl;
    spsc_state *s = p;
    for (uint32_t k = 0; k < SPSC_VALUES; k++) {
        uint64_t head = spsc_wait(s, k);
        s->got[k] = atomic_load_explicit(&s->slot, memory_order_relaxed); /* copy */
        spsc_window();
        atomic_store_explicit(&s->head, head + 1, memory_order_release); /* then release */
    }
}

static void spsc_pop_release_early(void *p, pcs_stress_ctl *ctl)
{
    (void)ctl;
    spsc_state *s = p;
    for (uint32_t k = 0; k < SPSC_VALUES; k++) {
        uint64_t head = spsc_wait(s, k);
        atomic_store_explicit(&s->head, head + 1, memory_order_release); /* the bug: first */
        spsc_window();
        s->got[k] = atomic_load_explicit(&s->slot, memory_order_relaxed);
    }
}

static int spsc_arbiter(void *p)
{
    const spsc_state *s = p;
    for (uint32_t k = 0; k < SPSC_VALUES; k++)
        if (s->got[k] != k + 1)
            return 1;
    return 0;
}

static const pcs_stress_outcome spsc_outcomes[] = {
    {0, PCS_STRESS_ACCEPTABLE, "got 1 2 3", "every command read before its slot was reused"},
    {1, PCS_STRESS_FORBIDDEN, "got a later value",
     "the producer overwrote a slot the consumer had not read (head released early)"},
};

static const pcs_stress_test broken_spsc_release_early = {
    .name = "broken.spsc_release_early",
    .description = "SPSC ring of one slot whose consumer stores head before copying the slot: "
                   "the producer reuses the slot under it.",
    .style = PCS_STRESS_ITERATION,
    .expect_fail = 1,
    .weight = 0.5,
    .n_actors = 2,
    .actors = {spsc_push, spsc_pop_release_early},
    .outcomes = spsc_outcomes,
    .n_outcomes = sizeof spsc_outcomes / sizeof spsc_outcomes[0],
    .state_size = sizeof(spsc_state),
    .stride = 64,
    .arbiter = spsc_arbiter,
};
PCS_STRESS_REGISTER(broken_spsc_release_early)

static const pcs_stress_test atomic_spsc_release_after_copy = {
    .name = "atomics.spsc_release_after_copy",
    .description = "The same ring as engine/command.c does it: head stored after the copy, so "
                   "every value is read before its slot is reused.",
    .style = PCS_STRESS_ITERATION,
    .weight = 0.5,
    .n_actors = 2,
    .actors = {spsc_push, spsc_pop_release_after_copy},
    .outcomes = spsc_outcomes,
    .n_outcomes = sizeof spsc_outcomes / sizeof spsc_outcomes[0],
    .state_size = sizeof(spsc_state),
    .stride = 64,
    .arbiter = spsc_arbiter,
};
PCS_STRESS_REGISTER(atomic_spsc_release_after_copy)
