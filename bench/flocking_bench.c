/**
 * @file flocking_bench.c
 * @brief models.flocking / models.flocking_omp: ns per agent of one flocking step
 *        (pcsim/flocking.h) at constant density, serial and on OpenMP threads.
 *
 * `agents` boids on a square torus of side sqrt(agents / 0.04) m (0.04 agents
 * per m^2 whatever the count) with the default 5 m radius, so an agent has
 * about pi 5^2 0.04 = 3 neighbours on average and the neighbour grid keeps
 * the cost per agent flat if the model scales linearly. One operation is one
 * agent of one pcs_flocking_step (ops_per_invocation = agents).
 *
 * The flock clusters as it runs, which makes later steps somewhat dearer
 * (about +30 % after 4000 steps at 1000 agents, measured while writing this
 * benchmark), so every iteration restarts from the same seeded uniform state
 * (iteration_setup, untimed) and iterations are alike. The omp variant names
 * the serial one as its baseline: its ratio is 1 / speed-up.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench.h"
#include "pcsim/flocking.h"

typedef struct flock_ctx {
    pcs_flocking *m;
    uint32_t n;
    double *init; /* 4 per agent: x, y, vx, vy of the seeded state */
} flock_ctx;

static void flock_teardown(void *ctx)
{
    flock_ctx *c = ctx;
    pcs_flocking_destroy(c->m);
    free(c->init);
    free(c);
}

static void *flock_make(const pcs_bench_params *p, pcs_bench_info *info, long long threads)
{
    long long agents = pcs_bench_param_int(p, "agents", 1000);
    if (agents < 16 || agents > PCS_FLOCKING_AGENTS_MAX || threads < 1 ||
        threads > PCS_FLOCKING_THREADS_MAX) {
        fprintf(stderr,
                "models.flocking: agents %lld outside [16, 2^20] or threads %lld outside "
                "[1, 64]\n",
                agents, threads);
        return NULL;
    }
    flock_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    pcs_flocking_def cfg;
    pcs_flocking_default(&cfg);
    cfg.agents = (uint32_t)agents;
    cfg.width_m = sqrt((double)agents / 0.04);
    cfg.height_m = cfg.width_m;
    cfg.radius_m = 5.0;
    cfg.threads = (uint32_t)threads;
    c->n = cfg.agents;
    c->init = malloc(sizeof *c->init * 4u * c->n);
    if (!c->init || pcs_flocking_create(&cfg, &c->m) != PCS_OK) {
        fprintf(stderr, "models.flocking: %s\n", c->init ? pcs_last_error() : "out of memory");
        flock_teardown(c);
        return NULL;
    }
    for (uint32_t i = 0; i < c->n; i++) {
        double *a = &c->init[4u * i];
        pcs_flocking_get_agent(c->m, i, &a[0], &a[1], &a[2], &a[3]);
    }
    info->threads = (int)threads;
    info->ops_per_invocation = c->n;
    return c;
}

static void *flock_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    return flock_make(p, info, 1);
}

static void *flock_omp_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    return flock_make(p, info, pcs_bench_param_int(p, "threads", 2));
}

/* Back to the seeded state, so every iteration measures the same evolution. */
static void flock_reset(void *ctx)
{
    flock_ctx *c = ctx;
    for (uint32_t i = 0; i < c->n; i++) {
        const double *a = &c->init[4u * i];
        pcs_flocking_set_agent(c->m, i, a[0], a[1], a[2], a[3]);
    }
}

static void flock_run(void *ctx, uint64_t n)
{
    flock_ctx *c = ctx;
    for (uint64_t i = 0; i < n; i++)
        pcs_bench_consume_u64((uint64_t)pcs_flocking_step(c->m));
    double x;
    pcs_flocking_get_agent(c->m, 0, &x, NULL, NULL, NULL);
    pcs_bench_consume_f64(x);
}

static const pcs_bench_def flock_serial = {
    .group = "models",
    .name = "flocking",
    .description = "one agent of one pcs_flocking_step, 0.04 agents/m^2, radius 5 m, 1 thread",
    .params = {{"agents", "1000,10000,100000"}},
    .setup = flock_setup,
    .teardown = flock_teardown,
    .iteration_setup = flock_reset,
    .run = flock_run,
};
PCS_BENCH_REGISTER(flock_serial)

static const pcs_bench_def flock_omp = {
    .group = "models",
    .name = "flocking_omp",
    .description = "models.flocking with the agent loop on `threads` OpenMP threads",
    .params = {{"agents", "1000,10000,100000"}, {"threads", "2"}},
    .baseline = "models.flocking",
    .setup = flock_omp_setup,
    .teardown = flock_teardown,
    .iteration_setup = flock_reset,
    .run = flock_run,
};
PCS_BENCH_REGISTER(flock_omp)
