/**
 * @file commands_bench.c
 * @brief Command submission plus drain: cost per command from submit to applied.
 *
 * commands.submit_drain_inline: one thread submits and ticks (a tick after every
 * commands_per_tick submits): the API's own cost, no cross-core traffic.
 *
 * commands.submit_drain: `producers` team threads submit through their own SPSC
 * source (ring=spsc) or the shared MPSC ring (ring=mpsc) while the harness
 * thread ticks until every command of the round has been applied. One op = one
 * command submitted and applied. A refused submit (PCS_E_RATE, ring full)
 * backs off (PAUSE, then yield) and retries, so the figure includes
 * back-pressure. With more threads than cores (2 producers + ticking thread
 * on 2 cores) the figure measures oversubscription as much as the queue. Its baseline is
 * the inline variant with the same ring.
 *
 * commands.drain_one_source / commands.drain_sources: one thread submits a full
 * batch (commands_per_tick = `batch`) and ticks once; one op = one command
 * submitted, drained, ordered and applied. drain_one_source submits the whole
 * batch through one SPSC source; drain_sources spreads it over `sources` SPSC
 * sources, submitted round-robin, so the drained batch interleaves them and
 * the stage-1 ordering has real work to do. Their ratio is the cost of many
 * sources (issue 12: the insertion sort this replaced made it quadratic). Both
 * rings hold the same bytes (one ring of 2^17 slots, or 64 of 2^11), so cache
 * footprints match.
 *
 * commands.submit_unlimited / commands.submit_limited: one thread submits
 * through one SPSC source and ticks after every RING_CAP submits (the tick
 * drains and applies them, amortised over the batch). One op = one accepted
 * submit. The limited source has a rate limit that never refuses (1e9/s,
 * burst 2^24: every tick fills it), so the ratio is the cost of the bucket
 * on the accept path; the unlimited one pays only the branch that skips it.
 * commands.submit_rate_refused: one op = one submit refused by the rate
 * limit (bucket empty, no ticks): the refusal path with its message.
 *
 * commands.submit_n_drain (issue 16, "Commands at memory speed"): one team
 * thread submits through one SPSC source (capacity `capacity`, by default
 * 65,536: one tick's worth, so a tick can take whatever the ring holds) with
 * pcs_command_source_submit_n in batches of at most `batch` (the unaccepted
 * rest of a batch is submitted again; a refusal backs off), while the
 * harness thread ticks a world with commands_per_tick 65,536, a no-op
 * handler and the journal on (it always is), until every command has been
 * applied. One op = one command submitted and applied; thrpt is the applied
 * rate. Its baseline commands.raw_ck_ring moves the same record the queue's
 * rings hold, the 40-byte pcs_command_slot of engine/command_slot.h (kind,
 * target, 4 args), through a bare ck_ring SPSC ring of the same capacity
 * (ck's enqueue per record on a team thread, dequeue on the harness thread,
 * nothing else), so the ratio is what the queue, the drain, the apply and
 * the journal add to the ring itself. Both in one run:
 * `--filter 'commands\.(submit_n_drain|raw)'`.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ck_ring.h>

#include "bench/bench.h"
#include "engine/command_slot.h"
#include "pcsim/pcsim.h"

#define CMD_KIND 9u
#define RING_CAP 4096u
#define MAX_PRODUCERS 16u

typedef struct cmd_ctx {
    pcs_world *w;
    int spsc;
    unsigned producers;
    pcs_command_source *src[MAX_PRODUCERS];
    pcs_bench_team *team;
    uint64_t applied; /* world thread */
    uint32_t per_tick;
} cmd_ctx;

static pcs_status count_apply(pcs_world *w, void *ctx, const pcs_command *cmd)
{
    (void)w;
    cmd_ctx *c = ctx;
    c->applied++;
    pcs_bench_consume_f64(cmd->args[0]);
    return PCS_OK;
}

static int parse_ring(const pcs_bench_params *p, int *spsc)
{
    const char *ring = pcs_bench_param(p, "ring");
    if (ring && strcmp(ring, "spsc") == 0)
        *spsc = 1;
    else if (ring && strcmp(ring, "mpsc") == 0)
        *spsc = 0;
    else
        return -1;
    return 0;
}

static pcs_status submit(cmd_ctx *c, unsigned who, const pcs_command *cmd)
{
    return c->spsc ? pcs_command_source_submit(c->src[who], cmd) : pcs_command_submit(c->w, cmd);
}

static void cmd_teardown(void *ctx)
{
    cmd_ctx *c = ctx;
    pcs_bench_team_stop(c->team);
    pcs_world_destroy(c->w);
    free(c);
}

static cmd_ctx *world_for(const pcs_bench_params *p, unsigned producers)
{
    cmd_ctx *c = calloc(1, sizeof *c);
    if (!c || parse_ring(p, &c->spsc) != 0) {
        fprintf(stderr, "commands: ring must be spsc or mpsc\n");
        free(c);
        return NULL;
    }
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.mpsc_capacity = RING_CAP;
    cfg.max_sources = MAX_PRODUCERS;
    cfg.journal_capacity = 1024;
    c->per_tick = cfg.commands_per_tick;
    c->producers = producers;
    int ok = pcs_world_create(&cfg, &c->w) == PCS_OK &&
             pcs_command_handler_register(c->w, CMD_KIND, count_apply, c) == PCS_OK;
    for (unsigned i = 0; ok && c->spsc && i < producers; i++)
        ok = pcs_command_source_open(c->w, 1, i, RING_CAP, &c->src[i]) == PCS_OK;
    if (!ok) {
        fprintf(stderr, "commands: %s\n", pcs_last_error());
        cmd_teardown(c);
        return NULL;
    }
    return c;
}

/* Back-off while waiting for the other side: PAUSE for a while, then yield.
 * Yielding at once would hand whole time slices to unrelated processes on a
 * busy machine; spinning forever would starve a thread sharing our core. */
static void backoff(unsigned *spins)
{
    if (++*spins < 4096u)
        __builtin_ia32_pause();
    else
        sched_yield();
}

/* Tick until `target` commands have been applied in total. */
static void drain_to(cmd_ctx *c, uint64_t target)
{
    unsigned idle = 0;
    while (c->applied < target) {
        uint64_t before = c->applied;
        pcs_world_tick(c->w);
        if (c->applied == before)
            backoff(&idle);
        else
            idle = 0;
    }
}

static void *inline_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)info;
    return world_for(p, 1);
}

static void inline_run(void *ctx, uint64_t n)
{
    cmd_ctx *c = ctx;
    pcs_command cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.kind = CMD_KIND;
    uint64_t target = c->applied + n;
    for (uint64_t i = 0; i < n; i++) {
        cmd.args[0] = (double)i;
        while (submit(c, 0, &cmd) == PCS_E_RATE)
            pcs_world_tick(c->w);
        if ((i + 1) % c->per_tick == 0)
            pcs_world_tick(c->w);
    }
    drain_to(c, target);
}

static void producer(void *ctx, unsigned idx, uint64_t n)
{
    cmd_ctx *c = ctx;
    pcs_command cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.kind = CMD_KIND;
    for (uint64_t i = 0; i < n; i++) {
        cmd.args[0] = (double)i;
        unsigned spins = 0;
        while (submit(c, idx, &cmd) == PCS_E_RATE)
            backoff(&spins); /* ring full: wait for the ticking thread */
    }
}

static void *team_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    long long producers = pcs_bench_param_int(p, "producers", 1);
    if (producers < 1 || producers > MAX_PRODUCERS) {
        fprintf(stderr, "commands.submit_drain: producers = %lld outside [1, %u]\n", producers,
                MAX_PRODUCERS);
        return NULL;
    }
    cmd_ctx *c = world_for(p, (unsigned)producers);
    if (!c)
        return NULL;
    c->team = pcs_bench_team_start(c->producers, producer, c);
    if (!c->team) {
        cmd_teardown(c);
        return NULL;
    }
    info->threads = (int)c->producers + 1;
    return c;
}

static void team_run(void *ctx, uint64_t n)
{
    cmd_ctx *c = ctx;
    uint64_t each = n / c->producers, rest = n - each * c->producers;
    uint64_t target = c->applied + n;
    if (each) {
        pcs_bench_team_go(c->team, each);
        drain_to(c, target - rest);
        pcs_bench_team_wait(c->team);
    }
    if (rest) { /* fewer ops than producers: the ticking thread submits them */
        pcs_command cmd;
        memset(&cmd, 0, sizeof cmd);
        cmd.kind = CMD_KIND;
        for (uint64_t i = 0; i < rest; i++)
            while (submit(c, 0, &cmd) == PCS_E_RATE)
                pcs_world_tick(c->w);
    }
    drain_to(c, target);
}

static uint64_t cmd_world_allocs(void *ctx)
{
    return pcs_world_alloc_count(((cmd_ctx *)ctx)->w);
}

typedef struct drain_ctx {
    pcs_world *w;
    uint32_t batch, sources;
    pcs_command_source **src;
    uint64_t applied;
} drain_ctx;

static pcs_status drain_count(pcs_world *w, void *ctx, const pcs_command *cmd)
{
    (void)w;
    ((drain_ctx *)ctx)->applied++;
    pcs_bench_consume_u64(cmd->seq);
    return PCS_OK;
}

static void drain_teardown(void *ctx)
{
    drain_ctx *c = ctx;
    if (!c)
        return;
    pcs_world_destroy(c->w);
    free(c->src);
    free(c);
}

static void *drain_setup_n(const pcs_bench_params *p, pcs_bench_info *info, long long sources)
{
    long long batch = pcs_bench_param_int(p, "batch", 65536);
    if (batch < 1 || batch > 65536 || sources < 1 || sources > 4096 || batch % sources) {
        fprintf(stderr,
                "commands.drain: batch = %lld must be in [1, 65536] and a multiple of "
                "sources = %lld in [1, 4096]\n",
                batch, sources);
        return NULL;
    }
    drain_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->batch = (uint32_t)batch;
    c->sources = (uint32_t)sources;
    c->src = calloc(c->sources, sizeof *c->src);
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.commands_per_tick = c->batch;
    cfg.max_sources = c->sources;
    cfg.journal_capacity = 1024;
    int ok = c->src && pcs_world_create(&cfg, &c->w) == PCS_OK &&
             pcs_command_handler_register(c->w, CMD_KIND, drain_count, c) == PCS_OK;
    for (uint32_t i = 0; ok && i < c->sources; i++)
        ok = pcs_command_source_open(c->w, (uint16_t)(1 + i % 7), i, c->batch / c->sources,
                                     &c->src[i]) == PCS_OK;
    if (!ok) {
        fprintf(stderr, "commands.drain: %s\n", c->src ? pcs_last_error() : "out of memory");
        drain_teardown(c);
        return NULL;
    }
    info->ops_per_invocation = c->batch;
    return c;
}

static void *drain_one_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    return drain_setup_n(p, info, 1);
}

static void *drain_many_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    return drain_setup_n(p, info, pcs_bench_param_int(p, "sources", 64));
}

/* n invocations: each submits one full batch round-robin over the sources,
 * then one tick drains, orders and applies all of it. */
static void drain_run(void *ctx, uint64_t n)
{
    drain_ctx *c = ctx;
    pcs_command cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.kind = CMD_KIND;
    for (uint64_t r = 0; r < n; r++) {
        uint64_t target = c->applied + c->batch;
        for (uint32_t i = 0; i < c->batch; i++)
            if (pcs_command_source_submit(c->src[i % c->sources], &cmd) != PCS_OK)
                abort(); /* each ring holds exactly its share of one batch */
        pcs_world_tick(c->w);
        if (c->applied != target)
            abort(); /* one tick drains the whole batch */
    }
}

static uint64_t drain_world_allocs(void *ctx)
{
    return pcs_world_alloc_count(((drain_ctx *)ctx)->w);
}

static const pcs_bench_def drain_one = {
    .group = "commands",
    .name = "drain_one_source",
    .description = "one command of a full batch from 1 source submitted, drained, ordered, applied",
    .params = {{"batch", "65536"}},
    .setup = drain_one_setup,
    .teardown = drain_teardown,
    .run = drain_run,
    .world_allocs = drain_world_allocs,
};
PCS_BENCH_REGISTER(drain_one)

static const pcs_bench_def drain_many = {
    .group = "commands",
    .name = "drain_sources",
    .description = "one command of a full batch from `sources` interleaved sources, same path",
    .params = {{"sources", "64"}, {"batch", "65536"}},
    .baseline = "commands.drain_one_source",
    .setup = drain_many_setup,
    .teardown = drain_teardown,
    .run = drain_run,
    .world_allocs = drain_world_allocs,
};
PCS_BENCH_REGISTER(drain_many)

static const pcs_bench_def submit_inline = {
    .group = "commands",
    .name = "submit_drain_inline",
    .description = "one command submitted and applied, one thread (tick every 512 submits)",
    .params = {{"ring", "spsc,mpsc"}},
    .setup = inline_setup,
    .teardown = cmd_teardown,
    .run = inline_run,
    .world_allocs = cmd_world_allocs,
};
PCS_BENCH_REGISTER(submit_inline)

static const pcs_bench_def submit_team = {
    .group = "commands",
    .name = "submit_drain",
    .description = "one command submitted by a producer thread and applied by the ticking thread",
    .params = {{"producers", "1,2"}, {"ring", "spsc,mpsc"}},
    .baseline = "commands.submit_drain_inline",
    .min_batch = 65536, /* several ms per round: the team wake-up is amortised */
    .setup = team_setup,
    .teardown = cmd_teardown,
    .run = team_run,
    .world_allocs = cmd_world_allocs,
};
PCS_BENCH_REGISTER(submit_team)

typedef struct rate_ctx {
    pcs_world *w;
    pcs_command_source *src;
    uint64_t applied;
    uint32_t since_tick;
} rate_ctx;

static pcs_status rate_count(pcs_world *w, void *ctx, const pcs_command *cmd)
{
    (void)w;
    ((rate_ctx *)ctx)->applied++;
    pcs_bench_consume_u64(cmd->seq);
    return PCS_OK;
}

static void rate_teardown(void *ctx)
{
    rate_ctx *c = ctx;
    if (c)
        pcs_world_destroy(c->w);
    free(c);
}

/* One SPSC source of RING_CAP; rate 0: no limit. */
static void *rate_setup_with(double rate, uint32_t burst)
{
    rate_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.commands_per_tick = RING_CAP;
    cfg.journal_capacity = 1024;
    cfg.workers = 0;
    int ok = pcs_world_create(&cfg, &c->w) == PCS_OK &&
             pcs_command_handler_register(c->w, CMD_KIND, rate_count, c) == PCS_OK &&
             pcs_command_source_open(c->w, 1, 0, RING_CAP, &c->src) == PCS_OK &&
             pcs_command_source_set_rate(c->src, rate, burst) == PCS_OK;
    if (!ok) {
        fprintf(stderr, "commands.submit_rate: %s\n", pcs_last_error());
        rate_teardown(c);
        return NULL;
    }
    return c;
}

static void *unlimited_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    return rate_setup_with(0.0, 0);
}

static void *limited_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    return rate_setup_with(1e9, PCS_COMMAND_RATE_BURST_MAX);
}

static void *refused_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    rate_ctx *c = rate_setup_with(1e-3, 1);
    pcs_command cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.kind = CMD_KIND;
    if (c && pcs_command_source_submit(c->src, &cmd) != PCS_OK) { /* spend the one token */
        rate_teardown(c);
        return NULL;
    }
    return c;
}

/* n accepted submits, a tick after every RING_CAP of them. */
static void rate_run(void *ctx, uint64_t n)
{
    rate_ctx *c = ctx;
    pcs_command cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.kind = CMD_KIND;
    for (uint64_t i = 0; i < n; i++) {
        if (pcs_command_source_submit(c->src, &cmd) != PCS_OK)
            abort(); /* neither source refuses: the ring is drained before it fills */
        if (++c->since_tick == RING_CAP) {
            pcs_world_tick(c->w);
            c->since_tick = 0;
        }
    }
}

/* n submits, each refused by the rate limit. */
static void refused_run(void *ctx, uint64_t n)
{
    rate_ctx *c = ctx;
    pcs_command cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.kind = CMD_KIND;
    for (uint64_t i = 0; i < n; i++)
        if (pcs_command_source_submit(c->src, &cmd) != PCS_E_RATE)
            abort();
}

static const pcs_bench_def submit_unlimited = {
    .group = "commands",
    .name = "submit_unlimited",
    .description = "one submit through an SPSC source without a rate limit (tick per 4096)",
    .setup = unlimited_setup,
    .teardown = rate_teardown,
    .run = rate_run,
};
PCS_BENCH_REGISTER(submit_unlimited)

static const pcs_bench_def submit_limited = {
    .group = "commands",
    .name = "submit_limited",
    .description = "the same through a source with a rate limit that never refuses",
    .baseline = "commands.submit_unlimited",
    .setup = limited_setup,
    .teardown = rate_teardown,
    .run = rate_run,
};
PCS_BENCH_REGISTER(submit_limited)

static const pcs_bench_def submit_rate_refused = {
    .group = "commands",
    .name = "submit_rate_refused",
    .description = "one submit refused by the rate limit (PCS_E_RATE and its message)",
    .baseline = "commands.submit_unlimited",
    .setup = refused_setup,
    .teardown = rate_teardown,
    .run = refused_run,
};
PCS_BENCH_REGISTER(submit_rate_refused)

/* ---- issue 16: one producer thread, batched submit, the world thread applying ---- */

#define FLOW_PER_TICK 65536u /* commands_per_tick */
#define FLOW_BATCH_MAX 1024u /* PCS_COMMAND_SUBMIT_MAX */

CK_RING_PROTOTYPE(bench_cmd, pcs_command_slot)

typedef struct flow_ctx {
    pcs_world *w;
    pcs_command_source *src;
    pcs_bench_team *team;
    uint32_t batch, capacity;
    /* world thread; its own line, so counting does not evict what the
     * producer reads (src, batch) */
    _Alignas(64) uint64_t applied;
    /* raw_ck_ring: the queue's own 40-byte slot (engine/command_slot.h) */
    ck_ring_t ring;
    pcs_command_slot *slots;
    pcs_command cmds[FLOW_BATCH_MAX]; /* the producer's batch (team thread only) */
} flow_ctx;

static pcs_status flow_noop(pcs_world *w, void *ctx, const pcs_command *cmd)
{
    (void)w;
    (void)cmd;
    ((flow_ctx *)ctx)->applied++;
    return PCS_OK;
}

static void flow_teardown(void *ctx)
{
    flow_ctx *c = ctx;
    if (!c)
        return;
    pcs_bench_team_stop(c->team);
    pcs_world_destroy(c->w);
    free(c->slots);
    free(c);
}

static flow_ctx *flow_new(const pcs_bench_params *p, const char *who)
{
    long long capacity = pcs_bench_param_int(p, "capacity", 65536);
    long long batch = pcs_bench_param_int(p, "batch", 64);
    if (capacity < 1 || capacity > (1 << 20) || batch < 1 || batch > FLOW_BATCH_MAX) {
        fprintf(stderr, "%s: capacity = %lld must be in [1, 1048576], batch = %lld in [1, %u]\n",
                who, capacity, batch, FLOW_BATCH_MAX);
        return NULL;
    }
    flow_ctx *c = aligned_alloc(64, sizeof *c);
    if (!c)
        return NULL;
    memset(c, 0, sizeof *c);
    c->capacity = (uint32_t)capacity;
    c->batch = (uint32_t)batch;
    for (uint32_t i = 0; i < FLOW_BATCH_MAX; i++)
        c->cmds[i].kind = CMD_KIND;
    return c;
}

/* Start the one producer thread; c is freed if that fails. */
static flow_ctx *flow_start(flow_ctx *c, pcs_bench_team_fn fn, pcs_bench_info *info)
{
    c->team = pcs_bench_team_start(1, fn, c);
    if (!c->team) {
        flow_teardown(c);
        return NULL;
    }
    info->threads = 2;
    return c;
}

/* Team thread: n commands in batches of at most c->batch. */
static void flow_producer(void *ctx, unsigned idx, uint64_t n)
{
    (void)idx;
    flow_ctx *c = ctx;
    pcs_command_source *src = c->src;
    const uint32_t batch = c->batch;
    unsigned spins = 0;
    for (uint64_t done = 0; done < n;) {
        uint32_t want = n - done < batch ? (uint32_t)(n - done) : batch;
        uint32_t acc = 0;
        if (pcs_command_source_submit_n(src, c->cmds, want, &acc) == PCS_OK) {
            done += acc;
            spins = 0;
        } else {
            backoff(&spins); /* full: wait for the ticking thread */
        }
    }
}

static void *flow_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    flow_ctx *c = flow_new(p, "commands.submit_n_drain");
    if (!c)
        return NULL;
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.commands_per_tick = FLOW_PER_TICK;
    cfg.max_sources = 1;
    cfg.workers = 0;
    int ok = pcs_world_create(&cfg, &c->w) == PCS_OK &&
             pcs_command_handler_register(c->w, CMD_KIND, flow_noop, c) == PCS_OK &&
             pcs_command_source_open(c->w, 1, 0, c->capacity, &c->src) == PCS_OK;
    if (!ok) {
        fprintf(stderr, "commands.submit_n_drain: %s\n", pcs_last_error());
        flow_teardown(c);
        return NULL;
    }
    return flow_start(c, flow_producer, info);
}

static void flow_run(void *ctx, uint64_t n)
{
    flow_ctx *c = ctx;
    uint64_t target = c->applied + n;
    pcs_bench_team_go(c->team, n);
    unsigned idle = 0;
    while (c->applied < target) {
        uint64_t before = c->applied;
        pcs_world_tick(c->w);
        if (c->applied == before)
            backoff(&idle);
        else
            idle = 0;
    }
    pcs_bench_team_wait(c->team);
}

static uint64_t flow_world_allocs(void *ctx)
{
    return pcs_world_alloc_count(((flow_ctx *)ctx)->w);
}

/* Team thread: n records through ck's SPSC enqueue, one at a time. Each is
 * packed from the public command, as the queue packs what it is given. */
static void raw_producer(void *ctx, unsigned idx, uint64_t n)
{
    (void)idx;
    flow_ctx *c = ctx;
    unsigned spins = 0;
    pcs_command_slot rec = pcs_command_slot_pack(&c->cmds[0]);
    for (uint64_t i = 0; i < n;) {
        rec.args[0] = (double)i; /* a value the consumer reads back */
        if (ck_ring_enqueue_spsc_bench_cmd(&c->ring, c->slots, &rec)) {
            i++;
            spins = 0;
        } else {
            backoff(&spins);
        }
    }
}

static void *raw_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    flow_ctx *c = flow_new(p, "commands.raw_ck_ring");
    if (!c)
        return NULL;
    uint32_t slots = 1;
    while (slots < c->capacity + 1) /* ck holds slots - 1: the same capacity */
        slots <<= 1;
    c->slots = calloc(slots, sizeof *c->slots);
    if (!c->slots) {
        flow_teardown(c);
        return NULL;
    }
    ck_ring_init(&c->ring, slots);
    return flow_start(c, raw_producer, info);
}

static void raw_run(void *ctx, uint64_t n)
{
    flow_ctx *c = ctx;
    pcs_bench_team_go(c->team, n);
    pcs_command_slot rec;
    unsigned idle = 0;
    for (uint64_t got = 0; got < n;) {
        if (ck_ring_dequeue_spsc_bench_cmd(&c->ring, c->slots, &rec)) {
            pcs_bench_consume_f64(rec.args[0]);
            got++;
            idle = 0;
        } else {
            backoff(&idle);
        }
    }
    pcs_bench_team_wait(c->team);
}

static const pcs_bench_def submit_n_drain = {
    .group = "commands",
    .name = "submit_n_drain",
    .description = "one command submitted in batches (submit_n) by a producer thread and "
                   "applied by the ticking thread (no-op handler, journal on, 65,536 a tick)",
    .params = {{"capacity", "65536"}, {"batch", "64"}},
    .baseline = "commands.raw_ck_ring",
    .modes = PCS_BENCH_THRPT | PCS_BENCH_AVGT,
    .min_batch = 1u << 20, /* tens of ms per round: the team wake-up is amortised */
    .setup = flow_setup,
    .teardown = flow_teardown,
    .run = flow_run,
    .world_allocs = flow_world_allocs,
};
PCS_BENCH_REGISTER(submit_n_drain)

static const pcs_bench_def raw_ck_ring = {
    .group = "commands",
    .name = "raw_ck_ring",
    .description = "the same 40-byte record (the queue's ring slot) through a bare ck_ring "
                   "SPSC ring of the same capacity: enqueue on a producer thread, dequeue on "
                   "this one",
    .params = {{"capacity", "65536"}},
    .modes = PCS_BENCH_THRPT | PCS_BENCH_AVGT,
    .min_batch = 1u << 20,
    .setup = raw_setup,
    .teardown = flow_teardown,
    .run = raw_run,
};
PCS_BENCH_REGISTER(raw_ck_ring)
