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
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
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
