/**
 * @file commands_stress.c
 * @brief Stress tests of the command queue through its public API (command.h, world.h).
 *
 * The claim (docs/ARCHITECTURE.md section 4, command.h): with producers submitting from
 * their own threads while another thread ticks the world,
 *  - every accepted command (PCS_OK) is applied exactly once;
 *  - a refused command (PCS_E_RATE) is never applied and consumes no sequence
 *    number;
 *  - each producer's commands are applied in the order it submitted them;
 *  - within one tick the batch is applied sorted by (class, id, seq);
 *  - the counters and the journal agree with what the producers saw.
 *
 * Iteration tests build a fresh tiny world per iteration (rings of 2-3 slots
 * and 2 commands per tick, so refusals and leftovers are common), race two
 * producers against a consumer that ticks until they are done (at most 256 ticks), then the arbiter
 * drains the rest and checks every point above; commands.spsc_batch_order
 * does the same with batches (pcs_command_source_submit_n: the unaccepted
 * rest of a producer's 4 submitted again, so prefixes are cut by a full
 * ring). The soak test runs three producers (one SPSC source submitting
 * batches of 1..5, two on the shared MPSC ring) against a consumer for the
 * whole budget and checks order on every applied command.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/pcsim.h"
#include "stress/stress.h"

#define CQ_KIND 7u
#define CQ_PRODUCERS 2u
#define CQ_PER_PRODUCER 4u
#define CQ_LOG_MAX (CQ_PRODUCERS * CQ_PER_PRODUCER)
#define CQ_CONSUMER_TICKS_MAX 256
#define CQ_DRAIN_TICKS_MAX 64

/* Outcome ids shared by the two iteration tests. */
enum {
    CQ_OK_NONE_REFUSED = 0,
    CQ_OK_FEW_REFUSED = 1,  /* 1..2 refused */
    CQ_OK_SOME_REFUSED = 2, /* 3..4 refused */
    CQ_OK_MANY_REFUSED = 3, /* 5..8 refused */
    CQ_LOST = 10,
    CQ_DUPLICATE = 11,
    CQ_PHANTOM = 12,
    CQ_ORDER = 13,
    CQ_SEQ = 14,
    CQ_UNSORTED = 15,
    CQ_STATS = 16,
    CQ_STATUS = 17,
    CQ_STUCK = 18,
    CQ_SEQ_ACROSS_TICKS = 19, /* the shared ring's seq applied out of order across ticks */
};

typedef struct cq_applied {
    uint32_t producer;
    uint32_t counter;
    uint16_t source_class;
    uint32_t source_id;
    uint64_t seq;
    uint64_t tick;
} cq_applied;

typedef struct cq_state {
    pcs_world *w;
    int spsc;                                     /* producers open their own sources */
    int batch;                                    /* ... and submit with submit_n */
    pcs_status st[CQ_PRODUCERS][CQ_PER_PRODUCER]; /* written by producer p only */
    pcs_status open_st[CQ_PRODUCERS];
    _Atomic uint32_t producers_done;
    uint32_t n_log; /* written by whichever thread ticks, ordered by the barriers */
    uint32_t log_overflow;
    cq_applied log[CQ_LOG_MAX];
} cq_state;

static pcs_status cq_apply(pcs_world *w, void *ctx, const pcs_command *cmd)
{
    (void)w;
    cq_state *s = ctx;
    if (s->n_log >= CQ_LOG_MAX) {
        s->log_overflow++;
        return PCS_OK;
    }
    s->log[s->n_log++] = (cq_applied){
        .producer = (uint32_t)cmd->args[0],
        .counter = (uint32_t)cmd->args[1],
        .source_class = cmd->source_class,
        .source_id = cmd->source_id,
        .seq = cmd->seq,
        .tick = cmd->tick,
    };
    return PCS_OK;
}

static int cq_init(cq_state *s, int spsc)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.commands_per_tick = 2; /* leave commands queued across ticks */
    cfg.mpsc_capacity = 3;     /* refusals are common */
    cfg.max_sources = CQ_PRODUCERS;
    cfg.journal_capacity = 64;
    cfg.event_capacity = 8;
    cfg.workers = 0;
    s->spsc = spsc;
    if (pcs_world_create(&cfg, &s->w) != PCS_OK)
        return -1;
    if (pcs_command_handler_register(s->w, CQ_KIND, cq_apply, s) != PCS_OK)
        return -1;
    return 0;
}

static int cq_init_spsc(void *p)
{
    return cq_init(p, 1);
}

static int cq_init_mpsc(void *p)
{
    return cq_init(p, 0);
}

static int cq_init_batch(void *p)
{
    ((cq_state *)p)->batch = 1;
    return cq_init(p, 1);
}

static void cq_fini(void *p)
{
    cq_state *s = p;
    pcs_world_destroy(s->w);
}

static void cq_produce(cq_state *s, uint32_t p)
{
    pcs_command_source *src = NULL;
    if (s->spsc) {
        s->open_st[p] = pcs_command_source_open(s->w, 1, p, 2, &src);
        if (s->open_st[p] != PCS_OK) {
            atomic_fetch_add_explicit(&s->producers_done, 1, memory_order_release);
            return;
        }
    }
    pcs_command c[CQ_PER_PRODUCER];
    memset(c, 0, sizeof c);
    for (uint32_t k = 0; k < CQ_PER_PRODUCER; k++) {
        c[k].kind = CQ_KIND;
        c[k].args[0] = p;
        c[k].args[1] = k;
    }
    for (uint32_t k = 0; k < CQ_PER_PRODUCER;) {
        if (!s->batch) {
            s->st[p][k] =
                s->spsc ? pcs_command_source_submit(src, &c[k]) : pcs_command_submit(s->w, &c[k]);
            k++;
            continue;
        }
        /* The rest as one batch: its accepted prefix is done; a refusal
         * (nothing accepted) drops the first, as a refused single submit. */
        uint32_t acc = 0;
        pcs_status st = pcs_command_source_submit_n(src, &c[k], CQ_PER_PRODUCER - k, &acc);
        for (uint32_t i = 0; i < acc; i++)
            s->st[p][k + i] = PCS_OK;
        if (st != PCS_OK || acc == 0)
            s->st[p][k++] = st == PCS_OK ? PCS_E_STATE : st; /* OK with 0: a bad status */
        k += acc;
    }
    atomic_fetch_add_explicit(&s->producers_done, 1, memory_order_release);
}

static void cq_producer0(void *p, pcs_stress_ctl *ctl)
{
    (void)ctl;
    cq_produce(p, 0);
}

static void cq_producer1(void *p, pcs_stress_ctl *ctl)
{
    (void)ctl;
    cq_produce(p, 1);
}

static void cq_consumer(void *p, pcs_stress_ctl *ctl)
{
    (void)ctl;
    cq_state *s = p;
    /* Tick while the producers run (bounded, so a descheduled producer cannot hang it). */
    for (int i = 0; i < CQ_CONSUMER_TICKS_MAX; i++) {
        pcs_world_tick(s->w);
        if (atomic_load_explicit(&s->producers_done, memory_order_acquire) == CQ_PRODUCERS)
            break;
    }
}

/* Compare what producer p saw accepted with what was applied for it. */
static int check_producer(const cq_state *s, uint32_t p, uint32_t *refused)
{
    uint32_t accepted[CQ_PER_PRODUCER], n_acc = 0;
    for (uint32_t k = 0; k < CQ_PER_PRODUCER; k++) {
        if (s->st[p][k] == PCS_OK)
            accepted[n_acc++] = k;
        else if (s->st[p][k] == PCS_E_RATE)
            (*refused)++;
        else
            return CQ_STATUS;
    }
    uint32_t seen[CQ_PER_PRODUCER] = {0}, n_app = 0;
    int order_broken = 0;
    for (uint32_t i = 0; i < s->n_log; i++) {
        const cq_applied *a = &s->log[i];
        if (a->producer != p)
            continue;
        if (a->counter >= CQ_PER_PRODUCER || s->st[p][a->counter] != PCS_OK)
            return CQ_PHANTOM;
        if (seen[a->counter]++)
            return CQ_DUPLICATE;
        if (n_app >= n_acc || accepted[n_app] != a->counter)
            order_broken = 1;
        n_app++;
    }
    if (n_app < n_acc)
        return CQ_LOST;
    return order_broken ? CQ_ORDER : -1;
}

static int before(const cq_applied *a, const cq_applied *b)
{
    if (a->source_class != b->source_class)
        return a->source_class < b->source_class;
    if (a->source_id != b->source_id)
        return a->source_id < b->source_id;
    return a->seq < b->seq;
}

/* Sequence numbers: per SPSC source 0,1,2..; on the MPSC ring all distinct,
 * 0..n-1 in total and increasing per producer. Sets *across when the shared
 * ring's commands were applied out of global seq order across ticks, which
 * the drain's stamping at dequeue rules out (FORBIDDEN). */
static int check_seq(const cq_state *s, uint32_t n_accepted, int *across)
{
    uint64_t next[CQ_PRODUCERS] = {0}, seen_mask = 0, last_any = 0;
    for (uint32_t i = 0; i < s->n_log; i++) {
        const cq_applied *a = &s->log[i];
        if (s->spsc) {
            if (a->source_id != a->producer || a->seq != next[a->producer]++)
                return CQ_SEQ;
            continue;
        }
        if (a->seq >= n_accepted || (seen_mask >> a->seq & 1u))
            return CQ_SEQ;
        seen_mask |= UINT64_C(1) << a->seq;
        if (i > 0 && a->seq < last_any)
            *across = 1;
        if (a->seq < next[a->producer])
            return CQ_SEQ;
        next[a->producer] = a->seq + 1;
        last_any = a->seq;
    }
    for (uint32_t i = 1; i < s->n_log; i++)
        if (s->log[i].tick == s->log[i - 1].tick && before(&s->log[i], &s->log[i - 1]))
            return CQ_UNSORTED;
    return -1;
}

static int check_counters(const cq_state *s, uint32_t n_accepted, uint32_t n_refused)
{
    pcs_command_stats st;
    if (pcs_command_stats_get(s->w, &st) != PCS_OK)
        return CQ_STATS;
    if (st.submitted != n_accepted || st.refused != n_refused || st.applied != n_accepted ||
        st.rejected != 0 || pcs_journal_count(s->w) != n_accepted)
        return CQ_STATS;
    return -1;
}

static int cq_arbiter(void *p)
{
    cq_state *s = p;
    for (uint32_t q = 0; q < CQ_PRODUCERS; q++)
        if (s->spsc && s->open_st[q] != PCS_OK)
            return CQ_STATUS;
    for (int i = 0; i < CQ_DRAIN_TICKS_MAX && pcs_command_pending(s->w) > 0; i++)
        pcs_world_tick(s->w);
    if (pcs_command_pending(s->w) > 0)
        return CQ_STUCK;
    if (s->log_overflow)
        return CQ_DUPLICATE;
    for (uint32_t i = 0; i < s->n_log; i++)
        if (s->log[i].producer >= CQ_PRODUCERS)
            return CQ_PHANTOM;
    uint32_t refused = 0;
    for (uint32_t q = 0; q < CQ_PRODUCERS; q++) {
        int bad = check_producer(s, q, &refused);
        if (bad >= 0)
            return bad;
    }
    uint32_t accepted = CQ_LOG_MAX - refused;
    int across = 0;
    int bad = check_seq(s, accepted, &across);
    if (bad < 0)
        bad = check_counters(s, accepted, refused);
    if (bad >= 0)
        return bad;
    if (across)
        return CQ_SEQ_ACROSS_TICKS;
    return refused == 0   ? CQ_OK_NONE_REFUSED
           : refused <= 2 ? CQ_OK_FEW_REFUSED
           : refused <= 4 ? CQ_OK_SOME_REFUSED
                          : CQ_OK_MANY_REFUSED;
}

static const pcs_stress_outcome cq_outcomes[] = {
    {CQ_OK_NONE_REFUSED, PCS_STRESS_ACCEPTABLE, "refused=0",
     "all 8 accepted; each applied once, in order"},
    {CQ_OK_FEW_REFUSED, PCS_STRESS_INTERESTING, "refused=1..2",
     "ring full: PCS_E_RATE; refused never applied, accepted applied once, in order"},
    {CQ_OK_SOME_REFUSED, PCS_STRESS_INTERESTING, "refused=3..4", "as above"},
    {CQ_OK_MANY_REFUSED, PCS_STRESS_INTERESTING, "refused=5..8", "as above"},
    {CQ_LOST, PCS_STRESS_FORBIDDEN, "lost", "an accepted command was never applied"},
    {CQ_DUPLICATE, PCS_STRESS_FORBIDDEN, "duplicate", "a command was applied twice"},
    {CQ_PHANTOM, PCS_STRESS_FORBIDDEN, "phantom", "a refused command was applied"},
    {CQ_ORDER, PCS_STRESS_FORBIDDEN, "reordered", "a producer's commands applied out of order"},
    {CQ_SEQ, PCS_STRESS_FORBIDDEN, "bad seq", "sequence numbers skipped, repeated or reordered"},
    {CQ_SEQ_ACROSS_TICKS, PCS_STRESS_FORBIDDEN, "shared seq out of order across ticks",
     "MPSC seq stamped at dequeue: apply order is seq order (fixed in e33ee13)"},
    {CQ_UNSORTED, PCS_STRESS_FORBIDDEN, "unsorted tick", "one tick's batch not in (class,id,seq)"},
    {CQ_STATS, PCS_STRESS_FORBIDDEN, "stats", "counters or journal disagree with producers"},
    {CQ_STATUS, PCS_STRESS_FORBIDDEN, "status", "a call returned neither PCS_OK nor PCS_E_RATE"},
    {CQ_STUCK, PCS_STRESS_FORBIDDEN, "stuck", "commands still pending after 64 drain ticks"},
};

static const pcs_stress_test cq_spsc = {
    .name = "commands.spsc_order",
    .description = "2 producers open SPSC sources (cap 2) and submit 4 each while a consumer "
                   "ticks: exactly-once, in order, refusals clean.",
    .style = PCS_STRESS_ITERATION,
    .weight = 2.0,
    .n_actors = 3,
    .actors = {cq_producer0, cq_producer1, cq_consumer},
    .outcomes = cq_outcomes,
    .n_outcomes = sizeof cq_outcomes / sizeof cq_outcomes[0],
    .state_size = sizeof(cq_state),
    .stride = 16,
    .init = cq_init_spsc,
    .arbiter = cq_arbiter,
    .fini = cq_fini,
};
PCS_STRESS_REGISTER(cq_spsc)

static const pcs_stress_test cq_batch = {
    .name = "commands.spsc_batch_order",
    .description = "2 producers submit 4 commands each as batches (submit_n, the unaccepted "
                   "rest again) through SPSC sources (cap 2) while a consumer ticks: prefixes "
                   "exact, exactly-once, in order, one sequence per source.",
    .style = PCS_STRESS_ITERATION,
    .weight = 2.0,
    .n_actors = 3,
    .actors = {cq_producer0, cq_producer1, cq_consumer},
    .outcomes = cq_outcomes,
    .n_outcomes = sizeof cq_outcomes / sizeof cq_outcomes[0],
    .state_size = sizeof(cq_state),
    .stride = 16,
    .init = cq_init_batch,
    .arbiter = cq_arbiter,
    .fini = cq_fini,
};
PCS_STRESS_REGISTER(cq_batch)

static const pcs_stress_test cq_mpsc = {
    .name = "commands.mpsc_order",
    .description = "2 producers share the MPSC ring (cap 3) and submit 4 each while a consumer "
                   "ticks: exactly-once, per-producer order, refusals clean.",
    .style = PCS_STRESS_ITERATION,
    .weight = 2.0,
    .n_actors = 3,
    .actors = {cq_producer0, cq_producer1, cq_consumer},
    .outcomes = cq_outcomes,
    .n_outcomes = sizeof cq_outcomes / sizeof cq_outcomes[0],
    .state_size = sizeof(cq_state),
    .stride = 16,
    .init = cq_init_mpsc,
    .arbiter = cq_arbiter,
    .fini = cq_fini,
};
PCS_STRESS_REGISTER(cq_mpsc)

/* ---- soak: producers against a consumer for the whole budget ---------------------- */

#define SOAK_PRODUCERS 3u /* 0: own SPSC source; 1, 2: shared MPSC ring */

enum {
    SK_ACCEPTED = 0,
    SK_REFUSED = 1,
    SK_APPLIED_IN_ORDER = 2,
    SK_FINAL_OK = 3,
    SK_STATUS = 10,
    SK_BEHIND = 11,
    SK_GAP = 12,
    SK_SEQ = 13,
    SK_FINAL_LOST = 14,
    SK_STATS = 15,
};

typedef struct soak_state {
    pcs_world *w;
    pcs_command_source *src0;
    pcs_stress_ctl *rec;                            /* the ticking thread's counters */
    uint64_t expect[SOAK_PRODUCERS];                /* next counter per producer (ticking thread) */
    _Alignas(64) uint64_t accepted[SOAK_PRODUCERS]; /* each producer writes its slot at exit */
} soak_state;

static pcs_status soak_apply(pcs_world *w, void *ctx, const pcs_command *cmd)
{
    (void)w;
    soak_state *s = ctx;
    uint32_t p = (uint32_t)cmd->args[0];
    uint64_t k = (uint64_t)cmd->args[1];
    if (p >= SOAK_PRODUCERS) {
        pcs_stress_record(s->rec, SK_STATUS);
        return PCS_OK;
    }
    if (k == s->expect[p])
        pcs_stress_record(s->rec, SK_APPLIED_IN_ORDER);
    else
        pcs_stress_record(s->rec, k < s->expect[p] ? SK_BEHIND : SK_GAP);
    if (p == 0 && cmd->seq != k) /* SPSC: a refusal consumes no sequence number */
        pcs_stress_record(s->rec, SK_SEQ);
    s->expect[p] = k + 1;
    return PCS_OK;
}

static void *soak_setup(void)
{
    soak_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.commands_per_tick = 64;
    cfg.mpsc_capacity = 16;
    cfg.max_sources = 1;
    cfg.journal_capacity = 256;
    cfg.event_capacity = 8;
    cfg.workers = 0;
    if (pcs_world_create(&cfg, &s->w) != PCS_OK ||
        pcs_command_handler_register(s->w, CQ_KIND, soak_apply, s) != PCS_OK ||
        pcs_command_source_open(s->w, 1, 0, 8, &s->src0) != PCS_OK) {
        pcs_world_destroy(s->w);
        free(s);
        return NULL;
    }
    return s;
}

static void soak_teardown(void *p)
{
    soak_state *s = p;
    pcs_world_destroy(s->w);
    free(s);
}

#define SOAK_BATCH 5u /* not a divisor of the ring (8): batches are cut short */

/* One submit_n of commands k, k + 1, ... (1 + k % SOAK_BATCH of them, so
 * sizes vary); *k advances past the accepted prefix. */
static pcs_status soak_batch(soak_state *s, pcs_stress_ctl *ctl, uint64_t *k)
{
    pcs_command c[SOAK_BATCH];
    memset(c, 0, sizeof c);
    uint32_t n = 1 + (uint32_t)(*k % SOAK_BATCH), acc = 0;
    for (uint32_t i = 0; i < n; i++) {
        c[i].kind = CQ_KIND;
        c[i].args[1] = (double)(*k + i); /* exact below 2^53 */
    }
    pcs_status st = pcs_command_source_submit_n(s->src0, c, n, &acc);
    if (st == PCS_OK && (acc == 0 || acc > n))
        return PCS_E_STATE;
    for (uint32_t i = 0; i < acc; i++)
        pcs_stress_record(ctl, SK_ACCEPTED);
    *k += acc;
    return st;
}

static void soak_produce(soak_state *s, uint32_t p, pcs_stress_ctl *ctl)
{
    pcs_command c;
    memset(&c, 0, sizeof c);
    c.kind = CQ_KIND;
    c.args[0] = p;
    uint64_t k = 0;
    while (pcs_stress_running(ctl)) {
        if (p == 0) { /* the SPSC producer submits batches of up to SOAK_BATCH */
            pcs_status st = soak_batch(s, ctl, &k);
            if (st == PCS_OK)
                continue;
            if (st != PCS_E_RATE) {
                pcs_stress_record(ctl, SK_STATUS);
                break;
            }
            pcs_stress_record(ctl, SK_REFUSED);
            sched_yield();
            continue;
        }
        c.args[1] = (double)k; /* exact below 2^53 */
        pcs_status st = pcs_command_submit(s->w, &c);
        if (st == PCS_OK) {
            pcs_stress_record(ctl, SK_ACCEPTED);
            k++;
        } else if (st == PCS_E_RATE) {
            pcs_stress_record(ctl, SK_REFUSED);
            sched_yield(); /* let the consumer run on a small machine */
        } else {
            pcs_stress_record(ctl, SK_STATUS);
            break;
        }
    }
    s->accepted[p] = k;
}

static void soak_p0(void *p, pcs_stress_ctl *ctl)
{
    soak_produce(p, 0, ctl);
}

static void soak_p1(void *p, pcs_stress_ctl *ctl)
{
    soak_produce(p, 1, ctl);
}

static void soak_p2(void *p, pcs_stress_ctl *ctl)
{
    soak_produce(p, 2, ctl);
}

static void soak_consumer(void *p, pcs_stress_ctl *ctl)
{
    soak_state *s = p;
    s->rec = ctl;
    while (pcs_stress_running(ctl))
        if (pcs_world_tick(s->w) != PCS_OK)
            pcs_stress_record(ctl, SK_STATUS);
}

static void soak_finish(void *p, pcs_stress_ctl *ctl)
{
    soak_state *s = p;
    s->rec = ctl;
    for (int i = 0; i < 100000 && pcs_command_pending(s->w) > 0; i++)
        pcs_world_tick(s->w);
    uint64_t total = 0;
    int lost = 0;
    for (uint32_t q = 0; q < SOAK_PRODUCERS; q++) {
        total += s->accepted[q];
        lost |= s->expect[q] != s->accepted[q];
    }
    pcs_stress_record(ctl, lost ? SK_FINAL_LOST : SK_FINAL_OK);
    pcs_command_stats st;
    pcs_command_stats_get(s->w, &st);
    if (st.submitted != total || st.applied != total || pcs_journal_count(s->w) != total)
        pcs_stress_record(ctl, SK_STATS);
}

static const pcs_stress_outcome soak_outcomes[] = {
    {SK_ACCEPTED, PCS_STRESS_ACCEPTABLE, "submit -> PCS_OK", "queued"},
    {SK_REFUSED, PCS_STRESS_INTERESTING, "submit -> PCS_E_RATE", "ring full; producer retries"},
    {SK_APPLIED_IN_ORDER, PCS_STRESS_ACCEPTABLE, "applied, next in order",
     "the producer's next command, exactly once"},
    {SK_FINAL_OK, PCS_STRESS_ACCEPTABLE, "final: all applied",
     "after the drain every accepted command was applied"},
    {SK_STATUS, PCS_STRESS_FORBIDDEN, "bad status", "neither PCS_OK nor PCS_E_RATE"},
    {SK_BEHIND, PCS_STRESS_FORBIDDEN, "applied, behind", "duplicate or reordered command"},
    {SK_GAP, PCS_STRESS_FORBIDDEN, "applied, ahead", "a command was skipped (lost)"},
    {SK_SEQ, PCS_STRESS_FORBIDDEN, "seq != counter", "SPSC sequence consumed by a refusal"},
    {SK_FINAL_LOST, PCS_STRESS_FORBIDDEN, "final: missing", "accepted commands never applied"},
    {SK_STATS, PCS_STRESS_FORBIDDEN, "final: stats", "counters/journal disagree with producers"},
};

static const pcs_stress_test cq_soak = {
    .name = "commands.soak",
    .description = "1 SPSC producer (batches of 1..5, submit_n) + 2 MPSC producers retry on "
                   "PCS_E_RATE against a ticking consumer: each command applied once, in "
                   "producer order, none lost.",
    .style = PCS_STRESS_SOAK,
    .weight = 2.0,
    .n_actors = 4,
    .actors = {soak_p0, soak_p1, soak_p2, soak_consumer},
    .outcomes = soak_outcomes,
    .n_outcomes = sizeof soak_outcomes / sizeof soak_outcomes[0],
    .setup = soak_setup,
    .finish = soak_finish,
    .teardown = soak_teardown,
};
PCS_STRESS_REGISTER(cq_soak)

/* ---- rate soak: a rate-limited producer against a ticking consumer ---------------- */

/* 60/s at the default dt 0.05 s: 3 tokens a tick, 4 held at most. */
#define RATE_PER_S 60.0
#define RATE_BURST 4u
#define RATE_PER_TICK 3u

enum {
    RK_ACCEPTED = 0,
    RK_REFUSED_RATE = 1,
    RK_REFUSED_FULL = 2,
    RK_APPLIED_IN_ORDER = 3,
    RK_FINAL_OK = 4,
    RK_STATUS = 10,
    RK_OUT_OF_ORDER = 11,
    RK_OVER_LIMIT = 12,
    RK_STATS = 13,
};

typedef struct rate_state {
    pcs_world *w;
    pcs_command_source *src;
    pcs_stress_ctl *rec; /* the ticking thread's counters */
    uint64_t expect;     /* next counter (ticking thread) */
    uint64_t drains;     /* ticks run, consumer and finish (the drain count) */
    _Alignas(64) uint64_t accepted, refused_rate, refused_full; /* producer, at exit */
} rate_state;

static pcs_status rate_apply(pcs_world *w, void *ctx, const pcs_command *cmd)
{
    (void)w;
    rate_state *s = ctx;
    uint64_t k = (uint64_t)cmd->args[0];
    pcs_stress_record(s->rec, k == s->expect ? RK_APPLIED_IN_ORDER : RK_OUT_OF_ORDER);
    s->expect = k + 1;
    return PCS_OK;
}

static void *rate_setup(void)
{
    rate_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.max_sources = 1;
    cfg.journal_capacity = 256;
    cfg.event_capacity = 8;
    cfg.workers = 0;
    if (pcs_world_create(&cfg, &s->w) != PCS_OK ||
        pcs_command_handler_register(s->w, CQ_KIND, rate_apply, s) != PCS_OK ||
        pcs_command_source_open(s->w, 1, 0, 8, &s->src) != PCS_OK ||
        pcs_command_source_set_rate(s->src, RATE_PER_S, RATE_BURST) != PCS_OK) {
        pcs_world_destroy(s->w);
        free(s);
        return NULL;
    }
    return s;
}

static void rate_teardown(void *p)
{
    rate_state *s = p;
    pcs_world_destroy(s->w);
    free(s);
}

/* The producer: submit as fast as it can; refusals by rate and by capacity
 * (a ring of 8) are told apart by the source's counter. */
static void rate_producer(void *p, pcs_stress_ctl *ctl)
{
    rate_state *s = p;
    pcs_command c;
    memset(&c, 0, sizeof c);
    c.kind = CQ_KIND;
    uint64_t k = 0, by_rate = 0, full = 0;
    while (pcs_stress_running(ctl)) {
        c.args[0] = (double)k;
        pcs_status st = pcs_command_source_submit(s->src, &c);
        if (st == PCS_OK) {
            pcs_stress_record(ctl, RK_ACCEPTED);
            k++;
            continue;
        }
        if (st != PCS_E_RATE) {
            pcs_stress_record(ctl, RK_STATUS);
            break;
        }
        pcs_command_source_stats ss;
        pcs_command_source_stats_get(s->src, &ss);
        if (ss.refused_rate != by_rate) {
            by_rate = ss.refused_rate;
            pcs_stress_record(ctl, RK_REFUSED_RATE);
        } else {
            full++;
            pcs_stress_record(ctl, RK_REFUSED_FULL);
        }
        sched_yield();
    }
    s->accepted = k;
    s->refused_rate = by_rate;
    s->refused_full = full;
}

static void rate_consumer(void *p, pcs_stress_ctl *ctl)
{
    rate_state *s = p;
    s->rec = ctl;
    while (pcs_stress_running(ctl)) {
        if (pcs_world_tick(s->w) != PCS_OK)
            pcs_stress_record(ctl, RK_STATUS);
        s->drains++;
        sched_yield(); /* let the producer run between ticks on a small machine */
    }
}

static void rate_finish(void *p, pcs_stress_ctl *ctl)
{
    rate_state *s = p;
    s->rec = ctl;
    for (int i = 0; i < 1000 && pcs_command_pending(s->w) > 0; i++, s->drains++)
        pcs_world_tick(s->w);
    /* Tokens ever available: the burst plus 3 per drain begun while the
     * producer ran (the finish's drains only add to the bound). */
    if (s->accepted > RATE_BURST + RATE_PER_TICK * s->drains)
        pcs_stress_record(ctl, RK_OVER_LIMIT);
    pcs_command_source_stats ss;
    pcs_command_source_stats_get(s->src, &ss);
    if (ss.submitted != s->accepted || ss.refused_rate != s->refused_rate ||
        ss.refused != s->refused_full || s->expect != s->accepted ||
        pcs_journal_count(s->w) != s->accepted)
        pcs_stress_record(ctl, RK_STATS);
    else
        pcs_stress_record(ctl, RK_FINAL_OK);
}

static const pcs_stress_outcome rate_outcomes[] = {
    {RK_ACCEPTED, PCS_STRESS_ACCEPTABLE, "submit -> PCS_OK", "a token and a slot: queued"},
    {RK_REFUSED_RATE, PCS_STRESS_INTERESTING, "submit -> PCS_E_RATE (rate)",
     "no token until the next tick"},
    {RK_REFUSED_FULL, PCS_STRESS_INTERESTING, "submit -> PCS_E_RATE (full)",
     "ring of 8 full; the token was given back"},
    {RK_APPLIED_IN_ORDER, PCS_STRESS_ACCEPTABLE, "applied, next in order",
     "the producer's next command, exactly once"},
    {RK_FINAL_OK, PCS_STRESS_ACCEPTABLE, "final: counters agree",
     "source stats, journal and applied match what the producer saw"},
    {RK_STATUS, PCS_STRESS_FORBIDDEN, "bad status", "neither PCS_OK nor PCS_E_RATE"},
    {RK_OUT_OF_ORDER, PCS_STRESS_FORBIDDEN, "applied out of order", "lost or duplicated"},
    {RK_OVER_LIMIT, PCS_STRESS_FORBIDDEN, "over the limit",
     "more accepted than burst + 3 tokens per tick run"},
    {RK_STATS, PCS_STRESS_FORBIDDEN, "final: stats", "counters disagree with the producer"},
};

static const pcs_stress_test cq_rate_soak = {
    .name = "commands.rate_soak",
    .description = "a producer on a source limited to 60/s (3 a tick), burst 4, against a "
                   "ticking consumer: the bucket refills from the drain count the world "
                   "thread publishes; never more than burst + 3 per tick accepted.",
    .style = PCS_STRESS_SOAK,
    .weight = 1.0,
    .n_actors = 2,
    .actors = {rate_producer, rate_consumer},
    .outcomes = rate_outcomes,
    .n_outcomes = sizeof rate_outcomes / sizeof rate_outcomes[0],
    .setup = rate_setup,
    .finish = rate_finish,
    .teardown = rate_teardown,
};
PCS_STRESS_REGISTER(cq_rate_soak)
