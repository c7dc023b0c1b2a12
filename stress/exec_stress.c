/**
 * @file exec_stress.c
 * @brief Stress tests of the worker pool: exactly-once chunks, whole outputs at join, shutdown.
 *
 * The claims (docs/ARCHITECTURE.md section 5, exec/slot.h):
 *  - exec.claim_once: a "worker" and a stealing "joiner" race to claim the
 *    chunks of one run; every chunk runs exactly once, whoever claims it,
 *    and once the joiner's wait returns every output is completely written.
 *  - exec.cancel_vs_claim: a worker claims while unbind cancels; every chunk
 *    either ran once or was cancelled, never both, never neither, and the
 *    cancel's wait returns only when no chunk is still running.
 *  - exec.pool_join: two host threads share one pool of workers, each
 *    submitting and joining its own run with timeouts from 0 to 100 us; each
 *    join sees every chunk of its run exactly once and completely written,
 *    whether workers, the stealing host, or both ran it.
 *  - exec.shutdown: pools and worlds destroyed in every order while chunks
 *    are in flight; nothing hangs, the world's result is still exact, and
 *    its next submit to a destroyed pool fails cleanly.
 * The first two drive the claim protocol (exec/slot.h) directly with the
 * framework's actors as the competing threads; the last two go through the
 * public API.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "exec/slot.h"
#include "pcsim/pcsim.h"
#include "stress/stress.h"

#define XS_CHUNKS 8u
#define XS_WORDS 16u

/* What a chunk writes: a pattern only a complete write leaves behind. */
static uint64_t xs_word(uint64_t gen, uint32_t chunk, uint32_t i)
{
    uint64_t x = gen * 0x9e3779b97f4a7c15u + chunk * 0xbf58476d1ce4e5b9u + i;
    x ^= x >> 31;
    return x * 0x94d049bb133111ebu;
}

typedef struct xs_out {
    uint64_t words[XS_WORDS];
    uint32_t runner; /* actor index, or 1 + worker flag in pool tests */
} xs_out;

static _Thread_local uint32_t xs_actor;

/* ---- exec.claim_once and exec.cancel_vs_claim: the slot protocol ------------------- */

typedef struct xs_slot_state {
    pcs_exec_slot slot;
    pcs_job_run run;
    void *outputs[XS_CHUNKS];
    xs_out out[XS_CHUNKS];
    _Atomic uint32_t runs[XS_CHUNKS];
    uint32_t cancelled; /* written by the cancelling actor */
    int torn_at_wait;   /* the waiting actor saw an unfinished output */
} xs_slot_state;

static pcs_status xs_slot_chunk(void *ctx, const void *input, uint32_t c, void *output)
{
    xs_slot_state *s = ctx;
    (void)input;
    xs_out *o = output;
    atomic_fetch_add_explicit(&s->runs[c], 1, memory_order_relaxed);
    for (uint32_t i = 0; i < XS_WORDS; i++)
        o->words[i] = xs_word(1, c, i);
    o->runner = xs_actor;
    return PCS_OK;
}

static int xs_slot_init(void *p)
{
    xs_slot_state *s = p;
    for (uint32_t c = 0; c < XS_CHUNKS; c++)
        s->outputs[c] = &s->out[c];
    s->run = (pcs_job_run){"stress", xs_slot_chunk, s, s, s->outputs, XS_CHUNKS};
    if (pcs_slot_init(&s->slot, &s->run) != PCS_OK)
        return -1;
    pcs_slot_reset(&s->slot); /* submitted: every chunk UNCLAIMED */
    return 0;
}

static void xs_slot_fini(void *p)
{
    pcs_slot_free(&((xs_slot_state *)p)->slot);
}

static int xs_outputs_whole(const xs_slot_state *s, int only_ran)
{
    for (uint32_t c = 0; c < XS_CHUNKS; c++) {
        if (only_ran && atomic_load_explicit(&s->runs[c], memory_order_relaxed) == 0)
            continue;
        for (uint32_t i = 0; i < XS_WORDS; i++)
            if (s->out[c].words[i] != xs_word(1, c, i))
                return 0;
    }
    return 1;
}

static void xs_claim_all(xs_slot_state *s)
{
    uint32_t c;
    while ((c = pcs_slot_claim(&s->slot)) != PCS_SLOT_NONE)
        pcs_slot_run(&s->slot, c);
}

static void xs_worker(void *p, pcs_stress_ctl *ctl)
{
    xs_actor = ctl->actor;
    xs_claim_all(p);
}

static void xs_joiner(void *p, pcs_stress_ctl *ctl)
{
    xs_slot_state *s = p;
    xs_actor = ctl->actor;
    xs_claim_all(s);
    pcs_slot_wait(&s->slot, -1);
    s->torn_at_wait = !xs_outputs_whole(s, 0);
}

enum {
    XC_WORKER_ALL = 0,
    XC_JOINER_ALL = 1,
    XC_SPLIT = 2,
    XC_TWICE = 10,
    XC_NEVER = 11,
    XC_TORN = 12,
    XC_COUNTERS = 13,
};

static int xs_counters_ok(const xs_slot_state *s)
{
    return atomic_load(&s->slot.remaining) == 0 && pcs_slot_complete(&s->slot);
}

static int xs_claim_arbiter(void *p)
{
    xs_slot_state *s = p;
    uint32_t by[2] = {0, 0};
    for (uint32_t c = 0; c < XS_CHUNKS; c++) {
        uint32_t n = atomic_load(&s->runs[c]);
        if (n > 1)
            return XC_TWICE;
        if (n == 0)
            return XC_NEVER;
        by[s->out[c].runner ? 1 : 0]++;
    }
    if (s->torn_at_wait)
        return XC_TORN;
    if (!xs_counters_ok(s))
        return XC_COUNTERS;
    return by[1] == 0 ? XC_WORKER_ALL : by[0] == 0 ? XC_JOINER_ALL : XC_SPLIT;
}

static const pcs_stress_outcome xs_claim_outcomes[] = {
    {XC_WORKER_ALL, PCS_STRESS_ACCEPTABLE, "worker ran 8", "the worker claimed every chunk"},
    {XC_JOINER_ALL, PCS_STRESS_ACCEPTABLE, "joiner ran 8", "the joiner stole every chunk"},
    {XC_SPLIT, PCS_STRESS_INTERESTING, "split", "worker and stealing joiner shared the run"},
    {XC_TWICE, PCS_STRESS_FORBIDDEN, "a chunk ran twice", "two threads won one claim"},
    {XC_NEVER, PCS_STRESS_FORBIDDEN, "a chunk never ran", "a chunk was left unclaimed"},
    {XC_TORN, PCS_STRESS_FORBIDDEN, "torn at wait", "wait returned before an output was whole"},
    {XC_COUNTERS, PCS_STRESS_FORBIDDEN, "counters", "remaining != 0 or complete not set"},
};

static const pcs_stress_test xs_claim_once = {
    .name = "exec.claim_once",
    .description = "A worker and a stealing joiner claim one run's 8 chunks: each runs exactly "
                   "once and the joiner's wait returns only with every output whole.",
    .style = PCS_STRESS_ITERATION,
    .n_actors = 2,
    .actors = {xs_worker, xs_joiner},
    .outcomes = xs_claim_outcomes,
    .n_outcomes = sizeof xs_claim_outcomes / sizeof xs_claim_outcomes[0],
    .state_size = sizeof(xs_slot_state),
    .stride = 32,
    .init = xs_slot_init,
    .arbiter = xs_claim_arbiter,
    .fini = xs_slot_fini,
};
PCS_STRESS_REGISTER(xs_claim_once)

static void xs_canceller(void *p, pcs_stress_ctl *ctl)
{
    xs_slot_state *s = p;
    (void)ctl;
    s->cancelled = pcs_slot_cancel(&s->slot);
    pcs_slot_wait(&s->slot, -1);
    /* Unbind frees the slot after this: nothing may still be running. */
    for (uint32_t c = 0; c < XS_CHUNKS; c++)
        if (atomic_load_explicit(&s->slot.chunk_state[c], memory_order_acquire) != PCS_CHUNK_DONE)
            s->torn_at_wait = 1;
    if (!xs_outputs_whole(s, 1))
        s->torn_at_wait = 1;
}

enum {
    XK_ALL_RAN = 0,
    XK_ALL_CANCELLED = 1,
    XK_MIXED = 2,
    XK_TWICE = 10,
    XK_LOST = 11,
    XK_RUNNING = 12,
    XK_COUNTERS = 13,
};

static int xs_cancel_arbiter(void *p)
{
    xs_slot_state *s = p;
    uint32_t ran = 0;
    for (uint32_t c = 0; c < XS_CHUNKS; c++) {
        uint32_t n = atomic_load(&s->runs[c]);
        if (n > 1)
            return XK_TWICE;
        ran += n;
    }
    if (ran + s->cancelled != XS_CHUNKS)
        return XK_LOST;
    if (s->torn_at_wait)
        return XK_RUNNING;
    if (!xs_counters_ok(s))
        return XK_COUNTERS;
    return s->cancelled == 0 ? XK_ALL_RAN : ran == 0 ? XK_ALL_CANCELLED : XK_MIXED;
}

static const pcs_stress_outcome xs_cancel_outcomes[] = {
    {XK_ALL_RAN, PCS_STRESS_ACCEPTABLE, "ran 8", "the worker claimed all before the cancel"},
    {XK_ALL_CANCELLED, PCS_STRESS_ACCEPTABLE, "cancelled 8", "the cancel came first"},
    {XK_MIXED, PCS_STRESS_INTERESTING, "ran k, cancelled 8-k", "the cancel met the worker midway"},
    {XK_TWICE, PCS_STRESS_FORBIDDEN, "a chunk ran twice", "claimed twice"},
    {XK_LOST, PCS_STRESS_FORBIDDEN, "ran + cancelled != 8",
     "a chunk both ran and was cancelled, "
     "or neither"},
    {XK_RUNNING, PCS_STRESS_FORBIDDEN, "running after wait",
     "cancel's wait returned while a chunk was unfinished"},
    {XK_COUNTERS, PCS_STRESS_FORBIDDEN, "counters", "remaining != 0 or complete not set"},
};

static const pcs_stress_test xs_cancel_vs_claim = {
    .name = "exec.cancel_vs_claim",
    .description = "A worker claims while unbind cancels: every chunk ran once or was cancelled, "
                   "and the wait after the cancel sees no chunk still running.",
    .style = PCS_STRESS_ITERATION,
    .n_actors = 2,
    .actors = {xs_worker, xs_canceller},
    .outcomes = xs_cancel_outcomes,
    .n_outcomes = sizeof xs_cancel_outcomes / sizeof xs_cancel_outcomes[0],
    .state_size = sizeof(xs_slot_state),
    .stride = 32,
    .init = xs_slot_init,
    .arbiter = xs_cancel_arbiter,
    .fini = xs_slot_fini,
};
PCS_STRESS_REGISTER(xs_cancel_vs_claim)

/* ---- exec.pool_join: two hosts, one pool ------------------------------------------ */

#define PJ_HOSTS 2u

typedef struct pj_host {
    pcs_job_run run;
    void *slot;
    void *outputs[XS_CHUNKS];
    xs_out out[XS_CHUNKS];
    uint64_t gen; /* the input: written by the host before submit */
    pthread_t self;
    _Atomic uint64_t runs[XS_CHUNKS];
} pj_host;

typedef struct pj_shared {
    pcs_exec *pool;
    pcs_executor ex;
    pj_host host[PJ_HOSTS];
} pj_shared;

static pcs_status pj_chunk(void *ctx, const void *input, uint32_t c, void *output)
{
    pj_host *h = ctx;
    uint64_t gen = *(const uint64_t *)input;
    xs_out *o = output;
    atomic_fetch_add_explicit(&h->runs[c], 1, memory_order_relaxed);
    for (uint32_t i = 0; i < XS_WORDS; i++)
        o->words[i] = xs_word(gen, c, i);
    o->runner = pthread_equal(pthread_self(), h->self) ? 0u : 1u;
    return PCS_OK;
}

static void *pj_setup(void)
{
    pj_shared *s = calloc(1, sizeof *s);
    pcs_exec_def cfg;
    pcs_exec_default(&cfg);
    cfg.workers = 2;
    cfg.allow_oversubscribe = true;
    if (!s || pcs_exec_create(&cfg, &s->pool) != PCS_OK) {
        free(s);
        return NULL;
    }
    pcs_exec_executor(s->pool, &s->ex);
    for (uint32_t k = 0; k < PJ_HOSTS; k++) {
        pj_host *h = &s->host[k];
        for (uint32_t c = 0; c < XS_CHUNKS; c++)
            h->outputs[c] = &h->out[c];
        h->run = (pcs_job_run){"pool_join", pj_chunk, h, &h->gen, h->outputs, XS_CHUNKS};
        if (s->ex.bind(s->ex.ctx, NULL, &h->run, &h->slot) != PCS_OK) {
            pcs_exec_destroy(s->pool);
            free(s);
            return NULL;
        }
    }
    return s;
}

static void pj_teardown(void *p)
{
    pj_shared *s = p;
    for (uint32_t k = 0; k < PJ_HOSTS; k++)
        s->ex.unbind(s->ex.ctx, s->host[k].slot);
    pcs_exec_destroy(s->pool);
    free(s);
}

enum {
    PJ_WORKERS = 0,
    PJ_HOST = 1,
    PJ_MIXED = 2,
    PJ_TORN = 10,
    PJ_COUNT = 11,
    PJ_STATUS = 12,
};

static int pj_check(const pj_host *h)
{
    uint32_t by_host = 0;
    for (uint32_t c = 0; c < XS_CHUNKS; c++) {
        if (atomic_load_explicit(&h->runs[c], memory_order_relaxed) != h->gen)
            return PJ_COUNT;
        for (uint32_t i = 0; i < XS_WORDS; i++)
            if (h->out[c].words[i] != xs_word(h->gen, c, i))
                return PJ_TORN;
        by_host += h->out[c].runner == 0 ? 1u : 0u;
    }
    return by_host == 0 ? PJ_WORKERS : by_host == XS_CHUNKS ? PJ_HOST : PJ_MIXED;
}

static void pj_actor(void *p, pcs_stress_ctl *ctl)
{
    pj_shared *s = p;
    pj_host *h = &s->host[ctl->actor];
    static const double timeouts[] = {0.0, 1e-6, 2e-5, 1e-4};
    h->self = pthread_self();
    uint64_t lcg = ctl->actor + 1;
    while (pcs_stress_running(ctl)) {
        h->gen++;
        if (s->ex.submit(s->ex.ctx, h->slot) != PCS_OK) {
            pcs_stress_record(ctl, PJ_STATUS);
            return;
        }
        lcg = lcg * 6364136223846793005u + 1442695040888963407u;
        for (uint64_t spin = (lcg >> 33) % 512; spin > 0; spin--)
            pcs_stress_pause();
        if (s->ex.join(s->ex.ctx, h->slot, timeouts[(lcg >> 20) & 3u]) != PCS_OK) {
            pcs_stress_record(ctl, PJ_STATUS);
            return;
        }
        pcs_stress_record(ctl, pj_check(h));
    }
}

static const pcs_stress_outcome pj_outcomes[] = {
    {PJ_WORKERS, PCS_STRESS_ACCEPTABLE, "workers ran 8", "the run finished on the workers"},
    {PJ_HOST, PCS_STRESS_ACCEPTABLE, "host ran 8", "timeout hit before any worker started"},
    {PJ_MIXED, PCS_STRESS_INTERESTING, "split", "workers and the stealing host shared the run"},
    {PJ_TORN, PCS_STRESS_FORBIDDEN, "torn output", "join returned before an output was whole"},
    {PJ_COUNT, PCS_STRESS_FORBIDDEN, "runs != submits", "a chunk ran twice or not at all"},
    {PJ_STATUS, PCS_STRESS_FORBIDDEN, "error", "submit or join failed"},
};

static const pcs_stress_test xs_pool_join = {
    .name = "exec.pool_join",
    .description = "Two hosts submit and join their own runs on one 2-worker pool with timeouts "
                   "0..100 us: every join sees each chunk once and whole.",
    .style = PCS_STRESS_SOAK,
    .n_actors = PJ_HOSTS,
    .actors = {pj_actor, pj_actor},
    .outcomes = pj_outcomes,
    .n_outcomes = sizeof pj_outcomes / sizeof pj_outcomes[0],
    .setup = pj_setup,
    .teardown = pj_teardown,
};
PCS_STRESS_REGISTER(xs_pool_join)

/* ---- exec.shutdown: destroy pools and worlds with chunks in flight ----------------- */

#define SD_VALUES 64u
#define SD_CHUNKS 4u

typedef struct sd_job {
    uint32_t store;
    double merged; /* last merged total */
    uint64_t merges;
} sd_job;

static pcs_status sd_copy(pcs_world *w, void *ctx, void *input)
{
    memcpy(input, pcs_store_data(w, ((sd_job *)ctx)->store), SD_VALUES * sizeof(double));
    return PCS_OK;
}

/* Sum of (c+1) * value over the chunk's 16 values, repeated so a chunk takes
 * some microseconds and a destroy can land in the middle of it. */
static pcs_status sd_chunk(void *ctx, const void *input, uint32_t c, void *output)
{
    (void)ctx;
    const double *v = input;
    double sum = 0.0;
    for (uint32_t rep = 0; rep < 200; rep++) {
        sum = 0.0;
        for (uint32_t i = c * (SD_VALUES / SD_CHUNKS); i < (c + 1) * (SD_VALUES / SD_CHUNKS); i++)
            sum += (double)(c + 1) * v[i];
    }
    *(volatile double *)output = sum;
    return PCS_OK;
}

static pcs_status sd_merge(pcs_world *w, void *ctx, const void *input, void *const *outputs,
                           uint32_t n)
{
    (void)w;
    (void)input;
    sd_job *j = ctx;
    double total = 0.0;
    for (uint32_t c = 0; c < n; c++)
        total += *(const double *)outputs[c];
    j->merged = total;
    j->merges++;
    return PCS_OK;
}

/* Values are 1..64, so chunk c sums (c+1) * (16c+1 + ... + 16c+16) = (c+1)(256c+136):
 * 136 + 2*392 + 3*648 + 4*904 = 6480. */
#define SD_EXPECTED 6480.0

static pcs_world *sd_world(sd_job *j)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    pcs_world *w = NULL;
    if (pcs_world_create(&cfg, &w) != PCS_OK)
        return NULL;
    pcs_job_desc d = {.name = "sd",
                      .domain = PCS_DOMAIN_SLOW,
                      .phase = 0,
                      .n_chunks = SD_CHUNKS,
                      .input_bytes = SD_VALUES * sizeof(double),
                      .output_bytes = sizeof(double),
                      .copy_inputs = sd_copy,
                      .run_chunk = sd_chunk,
                      .merge = sd_merge,
                      .ctx = j};
    if (pcs_store_register(w, "sd.v", sizeof(double), SD_VALUES, PCS_STORE_STATE, &j->store) !=
            PCS_OK ||
        pcs_job_register(w, &d, NULL) != PCS_OK) {
        pcs_world_destroy(w);
        return NULL;
    }
    double *v = pcs_store_data(w, j->store);
    for (uint32_t i = 0; i < SD_VALUES; i++)
        v[i] = (double)(i + 1);
    return w;
}

enum {
    SD_POOL_FIRST_TICKED = 0,
    SD_WORLD_FIRST = 1,
    SD_POOL_THEN_WORLD = 2,
    SD_MIDRUN = 3, /* added to the above: the run was not finished when destroy began */
    SD_SETUP = 10,
    SD_WRONG_RESULT = 11,
    SD_WRONG_STATUS = 12,
};

static int sd_once(uint32_t variant, uint64_t delay)
{
    pcs_exec_def cfg;
    pcs_exec_default(&cfg);
    cfg.workers = 2;
    cfg.allow_oversubscribe = true;
    pcs_exec *pool = NULL;
    sd_job j = {0};
    pcs_world *w = sd_world(&j);
    if (!w || pcs_exec_create(&cfg, &pool) != PCS_OK || pcs_exec_attach(pool, w) != PCS_OK ||
        pcs_world_tick(w) != PCS_OK) { /* tick 0 submits */
        pcs_world_destroy(w);
        pcs_exec_destroy(pool);
        return SD_SETUP;
    }
    for (; delay > 0; delay--)
        pcs_stress_pause();
    pcs_exec_stats st;
    pcs_exec_stats_get(pool, &st);
    int midrun = st.chunks_worker < SD_CHUNKS;
    int outcome = SD_POOL_THEN_WORLD;
    if (variant == 0) {
        pcs_exec_destroy(pool);
        outcome = SD_POOL_FIRST_TICKED;
        for (int t = 1; t < 20 && outcome == SD_POOL_FIRST_TICKED; t++)
            if (pcs_world_tick(w) != PCS_OK)
                outcome = SD_WRONG_STATUS;
        /* Tick 20 merges (re-run inline) and then cannot submit. */
        if (outcome == SD_POOL_FIRST_TICKED && pcs_world_tick(w) != PCS_E_STATE)
            outcome = SD_WRONG_STATUS;
        if (outcome == SD_POOL_FIRST_TICKED && (j.merges != 1 || j.merged != SD_EXPECTED))
            outcome = SD_WRONG_RESULT;
        pcs_world_destroy(w);
    } else if (variant == 1) {
        pcs_world_destroy(w);
        pcs_exec_destroy(pool);
        outcome = SD_WORLD_FIRST;
    } else {
        pcs_exec_destroy(pool);
        pcs_world_destroy(w);
    }
    return outcome < SD_SETUP && midrun ? outcome + SD_MIDRUN : outcome;
}

static void sd_actor(void *p, pcs_stress_ctl *ctl)
{
    (void)p;
    uint64_t lcg = 0x5d + ctl->actor;
    for (uint32_t i = 0; pcs_stress_running(ctl); i++) {
        lcg = lcg * 6364136223846793005u + 1442695040888963407u;
        pcs_stress_record(ctl, sd_once((i + ctl->actor) % 3u, (lcg >> 33) % 20000));
    }
}

static void *sd_setup(void)
{
    static int dummy;
    return &dummy;
}

static const pcs_stress_outcome sd_outcomes[] = {
    {SD_POOL_FIRST_TICKED, PCS_STRESS_ACCEPTABLE, "pool destroyed, world ticked",
     "run re-ran inline at its merge tick; next submit PCS_E_STATE"},
    {SD_WORLD_FIRST, PCS_STRESS_ACCEPTABLE, "world destroyed first",
     "unbind cancelled and waited for the chunks in flight"},
    {SD_POOL_THEN_WORLD, PCS_STRESS_ACCEPTABLE, "pool then world destroyed",
     "revoked world freed without touching the pool"},
    {SD_MIDRUN + SD_POOL_FIRST_TICKED, PCS_STRESS_INTERESTING, "... mid-run: pool, tick",
     "as row 1, with chunks unfinished when the pool went"},
    {SD_MIDRUN + SD_WORLD_FIRST, PCS_STRESS_INTERESTING, "... mid-run: world first",
     "as row 2, with chunks unfinished when the world went"},
    {SD_MIDRUN + SD_POOL_THEN_WORLD, PCS_STRESS_INTERESTING, "... mid-run: pool, world",
     "as row 3, with chunks unfinished when the pool went"},
    {SD_SETUP, PCS_STRESS_FORBIDDEN, "setup failed", "world or pool could not be built"},
    {SD_WRONG_RESULT, PCS_STRESS_FORBIDDEN, "wrong result", "merged total != 6480"},
    {SD_WRONG_STATUS, PCS_STRESS_FORBIDDEN, "wrong status", "a tick returned an unexpected status"},
};

static const pcs_stress_test xs_shutdown = {
    .name = "exec.shutdown",
    .description = "Two threads build a world on a 2-worker pool, submit, and destroy pool and "
                   "world in every order with chunks in flight: no hang, exact result, clean "
                   "refusal.",
    .style = PCS_STRESS_SOAK,
    .n_actors = 2,
    .actors = {sd_actor, sd_actor},
    .outcomes = sd_outcomes,
    .n_outcomes = sizeof sd_outcomes / sizeof sd_outcomes[0],
    .setup = sd_setup,
};
PCS_STRESS_REGISTER(xs_shutdown)
